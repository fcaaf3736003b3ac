// Kollide — the solver stage: constraint preparation, graph colouring and the soft-step sub-step
// loop. Constraints of one colour touch disjoint dynamic bodies, so a colour's rows run on any
// number of workers with the same result; colours and overflow rows run in a fixed order.
// SPDX-License-Identifier: MIT
#include "solver_stage.h"

#include "contact_solver.h"
#include "contact_solver_wide.h"
#include "contact.h"
#include "contact_penalty.h"
#include "core.h"
#include "integrate.h"
#include "joint_solver.h"
#include "shape.h"
#include "world.h"

#include <string.h>

/// Colour index of constraints that found no colour: solved on one thread, in order.
#define KL_OVERFLOW_COLOR KL_GRAPH_COLOR_COUNT

/// Below this many items a parallel loop runs on the calling thread.
#define KL_MIN_PARALLEL_ITEMS 128
/// The same for loops over wide groups: a group is KL_WIDE_LANES items.
#define KL_MIN_PARALLEL_GROUPS ((KL_MIN_PARALLEL_ITEMS + KL_WIDE_LANES - 1) / KL_WIDE_LANES)

typedef struct kl_solver_storage
{
	kl_solver_body* bodies; ///< by body slot
	int body_capacity;
	kl_contact_constraint* contacts; ///< grouped by colour
	int contact_capacity;
	kl_joint_constraint* joints; ///< grouped by colour
	int joint_capacity;
	int contact_start[KL_GRAPH_COLOR_COUNT + 2]; ///< colour c: [start[c], start[c + 1]); overflow last
	int joint_start[KL_GRAPH_COLOR_COUNT + 2];
	uint64_t* color_bits; ///< KL_GRAPH_COLOR_COUNT bitsets over body slots
	int color_words;
	/// The coloured contacts in groups of KL_WIDE_LANES (one colour per group), solved as SIMD rows.
	kl_contact_constraint_wide* wide;
	int wide_capacity;
	int* wide_first; ///< first scalar constraint of each group
	int wide_first_capacity;
	int wide_start[KL_GRAPH_COLOR_COUNT + 1]; ///< colour c: groups [wide_start[c], wide_start[c + 1])
	/// Candidates before sorting by colour: (index, colour, body a, body b).
	int* contact_items;
	int contact_item_capacity;
	int* joint_items;
	int joint_item_capacity;
} kl_solver_storage;

void kl_solver_storage_destroy(kl_world* world)
{
	kl_solver_storage* s = world->solver;
	if (s == NULL)
	{
		return;
	}
	kl_free(s->bodies);
	kl_free(s->contacts);
	kl_free(s->joints);
	kl_free(s->color_bits);
	kl_free(s->contact_items);
	kl_free(s->wide);
	kl_free(s->wide_first);
	kl_free(s->joint_items);
	kl_free(s);
	world->solver = NULL;
}

static kl_solver_storage* get_storage(kl_world* world)
{
	if (world->solver == NULL)
	{
		world->solver = kl_alloc_zero(1, sizeof(kl_solver_storage));
	}
	return world->solver;
}

// ---------------------------------------------------------------------------------------------
// Colouring

static bool test_bit(const uint64_t* bits, int i)
{
	return (bits[i >> 6] >> (i & 63)) & 1u;
}

static void set_bit(uint64_t* bits, int i)
{
	bits[i >> 6] |= (uint64_t)1 << (i & 63);
}

/// The first colour free for both dynamic bodies (slot or -1 for a non-dynamic side).
static int assign_color(kl_solver_storage* s, int dyn_a, int dyn_b)
{
	if (dyn_a >= 0 && dyn_b >= 0)
	{
		for (int c = 0; c < KL_DYNAMIC_COLOR_COUNT; ++c)
		{
			uint64_t* bits = s->color_bits + (size_t)c * (size_t)s->color_words;
			if (!test_bit(bits, dyn_a) && !test_bit(bits, dyn_b))
			{
				set_bit(bits, dyn_a);
				set_bit(bits, dyn_b);
				return c;
			}
		}
		return KL_OVERFLOW_COLOR;
	}
	int dyn = dyn_a >= 0 ? dyn_a : dyn_b;
	for (int c = 1; c < KL_GRAPH_COLOR_COUNT; ++c)
	{
		uint64_t* bits = s->color_bits + (size_t)c * (size_t)s->color_words;
		if (!test_bit(bits, dyn))
		{
			set_bit(bits, dyn);
			return c;
		}
	}
	return KL_OVERFLOW_COLOR;
}

// ---------------------------------------------------------------------------------------------
// Preparation

typedef struct kl_stage_context
{
	kl_world* world;
	kl_solver_step* step;
	kl_solver_storage* storage;
	int color;		 ///< for colour stages
	int stage;		 ///< kl_stage_kind
	int item_count;	 ///< for flat loops
} kl_stage_context;

enum kl_stage_kind
{
	KL_STAGE_WARM_START,
	KL_STAGE_SOLVE,
	KL_STAGE_RELAX,
	KL_STAGE_RESTITUTION,
};

static void prepare_bodies_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_world* world = c->world;
	for (int k = begin; k < end; ++k)
	{
		int i = world->awake_bodies[k];
		const kl_body_sim* sim = &world->sims[i];
		kl_solver_body* sb = &c->storage->bodies[i];
		sb->center0 = sim->center;
		sb->rotation0 = sim->transform.q;
		sb->delta_position = glms_vec3_zero();
		sb->delta_rotation = glms_quat_identity();
		bool dynamic = (sim->flags & KL_SIM_DYNAMIC) != 0;
		sb->inv_mass = dynamic ? sim->inv_mass : 0.0f;
		if (dynamic)
		{
			mat3s r = glms_quat_mat3(sim->transform.q);
			sb->inv_inertia = glms_mat3_mul(glms_mat3_mul(r, sim->inv_inertia_local), glms_mat3_transpose(r));
		}
		else
		{
			sb->inv_inertia = glms_mat3_zero();
		}
	}
}

static bool reserve_storage(kl_world* world, kl_solver_storage* s)
{
	int words = (world->body_capacity + 63) / 64;
	if (world->body_capacity > s->body_capacity)
	{
		kl_solver_body* bodies = kl_realloc(s->bodies, (size_t)world->body_capacity, sizeof(kl_solver_body));
		if (bodies == NULL)
		{
			return false;
		}
		s->bodies = bodies;
		s->body_capacity = world->body_capacity;
	}
	if (words > s->color_words || s->color_bits == NULL)
	{
		kl_free(s->color_bits);
		s->color_bits = kl_alloc((size_t)KL_GRAPH_COLOR_COUNT * (size_t)(words > 0 ? words : 1), sizeof(uint64_t));
		if (s->color_bits == NULL)
		{
			s->color_words = 0;
			return false;
		}
		s->color_words = words > 0 ? words : 1;
	}
	memset(s->color_bits, 0, (size_t)KL_GRAPH_COLOR_COUNT * (size_t)s->color_words * sizeof(uint64_t));
	return true;
}

/// The constraint side of a body: its slot when awake, else -1 (a static dummy).
static int side_index(const kl_world* world, int body_slot)
{
	return world->bodies[body_slot].is_awake ? body_slot : -1;
}

static int dynamic_slot(const kl_solver_storage* s, int index)
{
	return index >= 0 && s->bodies[index].inv_mass > 0.0f ? index : -1;
}

/// Collects the constraint candidates with their colours (serial, in contact and joint order).
static bool color_constraints(kl_world* world, kl_solver_storage* s, int* contact_n, int* joint_n)
{
	int nc = 0, nj = 0;
	if (!KL_ARRAY_RESERVE(s->contact_items, s->contact_item_capacity,
						  4 * KL_MESH_MAX_MANIFOLDS * world->contact_count) ||
		!KL_ARRAY_RESERVE(s->joint_items, s->joint_item_capacity, 4 * world->joint_count + 4))
	{
		return false;
	}
	int joint_slots = kl_id_pool_slot_count(&world->joint_pool);
	for (int j = 0; j < joint_slots; ++j)
	{
		const kl_joint* joint = &world->joints[j];
		if (joint->id < 0)
		{
			continue;
		}
		int ia = side_index(world, joint->body_a);
		int ib = side_index(world, joint->body_b);
		int da = dynamic_slot(s, ia), db = dynamic_slot(s, ib);
		if (da < 0 && db < 0)
		{
			continue;
		}
		int* item = &s->joint_items[4 * nj++];
		item[0] = j;
		item[1] = assign_color(s, da, db);
		item[2] = ia;
		item[3] = ib;
	}
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* contact = &world->contacts[k];
		if ((contact->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) != KL_CONTACT_TOUCHING)
		{
			continue;
		}
		int ia = side_index(world, contact->body_a);
		int ib = side_index(world, contact->body_b);
		int da = dynamic_slot(s, ia), db = dynamic_slot(s, ib);
		if (da < 0 && db < 0)
		{
			continue;
		}
		// One row set per manifold; item[0] packs the contact and the manifold index.
		for (int m = 0; m < contact->manifold_count; ++m)
		{
			int* item = &s->contact_items[4 * nc++];
			item[0] = k * KL_MESH_MAX_MANIFOLDS + m;
			item[1] = assign_color(s, da, db);
			item[2] = ia;
			item[3] = ib;
		}
	}
	*contact_n = nc;
	*joint_n = nj;
	return true;
}

/// Counting sort of the items by colour into start[]; writes each item's slot into item[1].
static void sort_by_color(int* items, int n, int* start)
{
	int count[KL_GRAPH_COLOR_COUNT + 1] = {0};
	for (int i = 0; i < n; ++i)
	{
		count[items[4 * i + 1]] += 1;
	}
	start[0] = 0;
	for (int c = 0; c <= KL_GRAPH_COLOR_COUNT; ++c)
	{
		start[c + 1] = start[c] + count[c];
	}
	int next[KL_GRAPH_COLOR_COUNT + 1];
	memcpy(next, start, sizeof(next));
	for (int i = 0; i < n; ++i)
	{
		items[4 * i + 1] = next[items[4 * i + 1]]++;
	}
}

/// Lanes in use in wide group g: up to the end of its colour's contacts.
static int group_lanes(const kl_solver_storage* s, int g)
{
	int color = 0;
	while (s->wide_start[color + 1] <= g)
	{
		color += 1;
	}
	int end = s->contact_start[color + 1];
	int n = end - s->wide_first[g];
	return n < KL_WIDE_LANES ? n : KL_WIDE_LANES;
}

/// The normal of the contact's manifold closest to the vertical: the support relation of the pair,
/// which all its manifolds' rows share.
static vec3s support_normal(const kl_contact* contact, vec3s g)
{
	vec3s best = contact->manifold.normal;
	for (int i = 1; i < contact->manifold_count; ++i)
	{
		vec3s n = contact->extra[i - 1].normal;
		if (fabsf(glms_vec3_dot(n, g)) > fabsf(glms_vec3_dot(best, g)))
		{
			best = n;
		}
	}
	return best;
}

/// A's surface velocity minus B's in world axes (conveyor belts, kl_material.surface_velocity).
static vec3s surface_velocity(const kl_world* world, const kl_contact* contact)
{
	const kl_shape* a = &world->shapes[contact->shape_a];
	const kl_shape* b = &world->shapes[contact->shape_b];
	vec3s ua =
		kl_rotate(world->sims[contact->body_a].transform.q, kl_rotate(a->local_pose.q, a->material.surface_velocity));
	vec3s ub =
		kl_rotate(world->sims[contact->body_b].transform.q, kl_rotate(b->local_pose.q, b->material.surface_velocity));
	return glms_vec3_sub(ua, ub);
}

/// Manifold m of contact k as the solver reads it.
static kl_contact_source contact_source(const kl_world* world, int k, int m)
{
	const kl_contact* contact = &world->contacts[k];
	kl_contact_source source;
	source.manifold = m == 0 ? &contact->manifold : &contact->extra[m - 1];
	source.support_normal = support_normal(contact, world->def.gravity);
	source.center_a = world->sims[contact->body_a].center;
	source.center_b = world->sims[contact->body_b].center;
	source.friction = contact->friction;
	source.restitution = contact->restitution;
	source.rolling_resistance = contact->rolling_resistance;
	source.spin_resistance = contact->spin_resistance;
	source.surface_velocity =
		(contact->flags & KL_CONTACT_SURFACE_VELOCITY) ? surface_velocity(world, contact) : glms_vec3_zero();
	source.contact_index = k;
	source.manifold_index = m;
	source.anchor_shift = m == 0 ? contact->base.anchor_shift : glms_vec3_zero();
	return source;
}

/// Joints [0, nj) then contacts, items [begin, end) of them.
static void prepare_constraints_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_solver_storage* s = c->storage;
	int nj = s->joint_start[KL_GRAPH_COLOR_COUNT + 1];
	for (int i = begin; i < end; ++i)
	{
		if (i < nj)
		{
			const int* item = &s->joint_items[4 * i];
			const kl_joint* joint = &c->world->joints[item[0]];
			kl_joint_source source = {&joint->def, item[0], joint->body_a, joint->body_b, joint->target, &joint->solver};
			kl_prepare_joint(c->step, &source, item[2], item[3], &s->joints[item[1]]);
		}
		else
		{
			const int* item = &s->contact_items[4 * (i - nj)];
			int k = item[0] / KL_MESH_MAX_MANIFOLDS, m = item[0] % KL_MESH_MAX_MANIFOLDS;
			kl_contact_source source = contact_source(c->world, k, m);
			kl_prepare_contact(c->step, &source, item[2], item[3], &s->contacts[item[1]]);
		}
	}
}

static void gather_wide_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_solver_storage* s = c->storage;
	for (int g = begin; g < end; ++g)
	{
		kl_gather_contacts_wide(c->step, &s->contacts[s->wide_first[g]], group_lanes(s, g), &s->wide[g]);
	}
}

/// Packs each colour's contacts into groups of KL_WIDE_LANES (the last group of a colour may be short).
static bool gather_wide(kl_world* world, kl_solver_storage* s, kl_stage_context* c)
{
	int groups = 0;
	for (int color = 0; color < KL_GRAPH_COLOR_COUNT; ++color)
	{
		s->wide_start[color] = groups;
		int n = s->contact_start[color + 1] - s->contact_start[color];
		groups += (n + KL_WIDE_LANES - 1) / KL_WIDE_LANES;
	}
	s->wide_start[KL_GRAPH_COLOR_COUNT] = groups;
	if (!KL_ARRAY_RESERVE(s->wide, s->wide_capacity, groups > 0 ? groups : 1) ||
		!KL_ARRAY_RESERVE(s->wide_first, s->wide_first_capacity, groups + 1))
	{
		return false;
	}
	for (int color = 0; color < KL_GRAPH_COLOR_COUNT; ++color)
	{
		for (int g = s->wide_start[color]; g < s->wide_start[color + 1]; ++g)
		{
			s->wide_first[g] = s->contact_start[color] + (g - s->wide_start[color]) * KL_WIDE_LANES;
		}
	}
	kl_parallel_ranges(kl_world_parallel(world), groups, KL_MIN_PARALLEL_GROUPS, gather_wide_range, c);
	return true;
}

static bool prepare_constraints(kl_world* world, kl_solver_storage* s, kl_stage_context* c)
{
	int nc = 0, nj = 0;
	if (!color_constraints(world, s, &nc, &nj) ||
		!KL_ARRAY_RESERVE(s->contacts, s->contact_capacity, nc > 0 ? nc : 1) ||
		!KL_ARRAY_RESERVE(s->joints, s->joint_capacity, nj > 0 ? nj : 1))
	{
		return false;
	}
	sort_by_color(s->contact_items, nc, s->contact_start);
	sort_by_color(s->joint_items, nj, s->joint_start);
	kl_parallel_ranges(kl_world_parallel(world), nj + nc, KL_MIN_PARALLEL_ITEMS, prepare_constraints_range, c);
	return gather_wide(world, s, c);
}

// ---------------------------------------------------------------------------------------------
// Sub-step stages

static void run_constraint(kl_stage_context* c, bool joint, int index)
{
	kl_solver_storage* s = c->storage;
	if (joint)
	{
		kl_joint_constraint* jc = &s->joints[index];
		switch (c->stage)
		{
		case KL_STAGE_WARM_START:
			kl_warm_start_joint(c->step, jc);
			break;
		case KL_STAGE_SOLVE:
			kl_solve_joint(c->step, jc, true);
			break;
		case KL_STAGE_RELAX:
			kl_solve_joint(c->step, jc, false);
			break;
		default:
			break;
		}
		return;
	}
	kl_contact_constraint* cc = &s->contacts[index];
	switch (c->stage)
	{
	case KL_STAGE_WARM_START:
		kl_warm_start_contact(c->step, cc);
		break;
	case KL_STAGE_SOLVE:
		kl_solve_contact(c->step, cc, true);
		break;
	case KL_STAGE_RELAX:
		kl_solve_contact(c->step, cc, false);
		break;
	case KL_STAGE_RESTITUTION:
		kl_apply_restitution(c->step, cc);
		break;
	}
}

static void run_wide(kl_stage_context* c, int g)
{
	kl_contact_constraint_wide* w = &c->storage->wide[g];
	switch (c->stage)
	{
	case KL_STAGE_WARM_START:
		kl_warm_start_contacts_wide(c->step, w);
		break;
	case KL_STAGE_SOLVE:
		kl_solve_contacts_wide(c->step, w, true);
		break;
	case KL_STAGE_RELAX:
		kl_solve_contacts_wide(c->step, w, false);
		break;
	case KL_STAGE_RESTITUTION:
		kl_apply_restitution_wide(c->step, w);
		break;
	}
}

/// Joints first, then the wide contact groups, of one colour: items [begin, end) of them.
static void color_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_solver_storage* s = c->storage;
	int j0 = s->joint_start[c->color], nj = s->joint_start[c->color + 1] - j0;
	int g0 = s->wide_start[c->color];
	for (int i = begin; i < end; ++i)
	{
		if (i < nj)
		{
			run_constraint(c, true, j0 + i);
		}
		else
		{
			run_wide(c, g0 + i - nj);
		}
	}
}

static void run_constraint_stage(kl_stage_context* c, int stage)
{
	kl_solver_storage* s = c->storage;
	c->stage = stage;
	c->step->pass += 1;
	for (int color = 0; color < KL_GRAPH_COLOR_COUNT; ++color)
	{
		int nj = s->joint_start[color + 1] - s->joint_start[color];
		int ng = s->wide_start[color + 1] - s->wide_start[color];
		if (nj + ng == 0)
		{
			continue;
		}
		c->color = color;
		// The threshold counts rows and a group is KL_WIDE_LANES rows: nj + ng items reach it when
		// nj + KL_WIDE_LANES·ng rows do.
		int min_items = KL_MIN_PARALLEL_ITEMS - (KL_WIDE_LANES - 1) * ng;
		kl_parallel_ranges(kl_world_parallel(c->world), nj + ng, min_items, color_range, c);
	}
	// Overflow rows share bodies: one thread, fixed order.
	c->color = KL_OVERFLOW_COLOR;
	int j0 = s->joint_start[KL_OVERFLOW_COLOR], j1 = s->joint_start[KL_OVERFLOW_COLOR + 1];
	for (int j = j0; j < j1; ++j)
	{
		run_constraint(c, true, j);
	}
	int c0 = s->contact_start[KL_OVERFLOW_COLOR], c1 = s->contact_start[KL_OVERFLOW_COLOR + 1];
	for (int k = c0; k < c1; ++k)
	{
		run_constraint(c, false, k);
	}
}

static void integrate_velocities_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_integrate_velocities(c->step, begin, end);
}

/// Positions, then the solver bodies' motion since the step began.
static void integrate_positions_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_world* world = c->world;
	kl_integrate_positions(c->step, begin, end);
	for (int k = begin; k < end; ++k)
	{
		int i = world->awake_bodies[k];
		kl_solver_body* sb = &c->storage->bodies[i];
		const kl_body_sim* sim = &world->sims[i];
		sb->delta_position = glms_vec3_sub(sim->center, sb->center0);
		versors q0c = {{-sb->rotation0.x, -sb->rotation0.y, -sb->rotation0.z, sb->rotation0.w}};
		sb->delta_rotation = glms_quat_mul(sim->transform.q, q0c);
	}
}

static void scatter_wide_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_solver_storage* s = c->storage;
	for (int g = begin; g < end; ++g)
	{
		kl_scatter_contacts_wide(&s->wide[g], &s->contacts[s->wide_first[g]], group_lanes(s, g));
	}
}

static void store_impulses_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	kl_solver_storage* s = c->storage;
	int nj = s->joint_start[KL_GRAPH_COLOR_COUNT + 1];
	for (int i = begin; i < end; ++i)
	{
		if (i < nj)
		{
			kl_joint_constraint* jc = &s->joints[i];
			kl_store_joint_impulses(c->step, jc, &c->world->joints[jc->joint_slot].solver);
		}
		else
		{
			const kl_contact_constraint* cc = &s->contacts[i - nj];
			kl_store_contact_impulses(cc, kl_contact_manifold(&c->world->contacts[cc->contact_index], cc->manifold_index));
		}
	}
}

static kl_solver_step make_step(kl_world* world, kl_solver_storage* s, float dt, int substeps)
{
	kl_solver_step step;
	memset(&step, 0, sizeof(step));
	step.sims = world->sims;
	step.states = world->states;
	step.awake_bodies = world->awake_bodies;
	step.gravity = world->def.gravity;
	step.max_linear_speed = world->def.max_linear_speed;
	step.bodies = s->bodies;
	step.dt = dt;
	step.substep_count = substeps;
	step.h = dt / (float)substeps;
	step.inv_h = step.h > 0.0f ? 1.0f / step.h : 0.0f;
	// Contacts stiffer than a quarter of the sub-step rate would ring (Box2D's limit).
	float contact_hertz = fminf(world->def.contact_hertz, 0.25f * step.inv_h);
	step.contact_softness = kl_make_softness(contact_hertz, world->def.contact_damping_ratio, step.h);
	step.static_softness = kl_make_softness(2.0f * contact_hertz, world->def.contact_damping_ratio, step.h);
	// Revolute chains ring and blow up above about a third of the sub-step rate: same cap as contacts.
	float joint_hertz = fminf(world->def.joint_hertz, 0.25f * step.inv_h);
	step.joint_softness = kl_make_softness(joint_hertz, world->def.joint_damping_ratio, step.h);
	step.max_push_speed = world->def.max_contact_push_speed;
	step.restitution_threshold = world->def.restitution_threshold;
	step.enable_warm_starting = true;
	return step;
}

void kl_solver_stage_run(kl_world* world, float dt, int substeps)
{
	kl_solver_storage* s = get_storage(world);
	if (s == NULL || !reserve_storage(world, s))
	{
		return; // out of memory: the message is in kl_last_error(); bodies keep their state
	}
	kl_solver_step step = make_step(world, s, dt, substeps);
	kl_stage_context c = {world, &step, s, 0, 0, 0};
	double t0 = kl_time_seconds();
	kl_parallel workers = kl_world_parallel(world);
	kl_parallel_ranges(workers, world->awake_count, KL_MIN_PARALLEL_ITEMS, prepare_bodies_range, &c);
	if (!prepare_constraints(world, s, &c))
	{
		// Out of memory: the bodies keep their state this step. Moved without their contacts and
		// joints, they fell through floors and tore off their joints.
		return;
	}
	kl_penalty_begin(world);
	double t1 = kl_time_seconds();
	double velocities = 0.0, positions = 0.0, constraints = 0.0;
	for (int k = 0; k < substeps; ++k)
	{
		double a = kl_time_seconds();
		kl_parallel_ranges(workers, world->awake_count, KL_MIN_PARALLEL_ITEMS, integrate_velocities_range, &c);
		if (world->penalty_pair_count > 0)
		{
			// After gravity and the forces, so that friction holds against this sub-step's pull too.
			kl_penalty_substep(world, step.h);
		}
		double b = kl_time_seconds();
		run_constraint_stage(&c, KL_STAGE_WARM_START);
		run_constraint_stage(&c, KL_STAGE_SOLVE);
		double d = kl_time_seconds();
		kl_parallel_ranges(workers, world->awake_count, KL_MIN_PARALLEL_ITEMS, integrate_positions_range, &c);
		double e = kl_time_seconds();
		run_constraint_stage(&c, KL_STAGE_RELAX);
		double f = kl_time_seconds();
		velocities += b - a;
		constraints += (d - b) + (f - e);
		positions += e - d;
	}
	double t2 = kl_time_seconds();
	run_constraint_stage(&c, KL_STAGE_RESTITUTION);
	int total = s->joint_start[KL_GRAPH_COLOR_COUNT + 1] + s->contact_start[KL_GRAPH_COLOR_COUNT + 1];
	kl_parallel_ranges(workers, s->wide_start[KL_GRAPH_COLOR_COUNT], KL_MIN_PARALLEL_GROUPS, scatter_wide_range, &c);
	kl_parallel_ranges(workers, total, KL_MIN_PARALLEL_ITEMS, store_impulses_range, &c);
	double t3 = kl_time_seconds();
	// Added up over a step's collision passes (kl_world_step clears the profile).
	world->profile.solver_prepare += (float)(1000.0 * (t1 - t0));
	world->profile.integrate_velocities += (float)(1000.0 * velocities);
	world->profile.integrate_positions += (float)(1000.0 * positions);
	world->profile.solve_constraints += (float)(1000.0 * (constraints + (t3 - t2)));
	world->counters.constraint_color_count = 0;
	for (int color = 0; color <= KL_GRAPH_COLOR_COUNT; ++color)
	{
		if (s->contact_start[color + 1] > s->contact_start[color] || s->joint_start[color + 1] > s->joint_start[color])
		{
			world->counters.constraint_color_count += 1;
		}
	}
	world->counters.overflow_constraint_count = total - s->joint_start[KL_OVERFLOW_COLOR] -
												 s->contact_start[KL_OVERFLOW_COLOR];
}
