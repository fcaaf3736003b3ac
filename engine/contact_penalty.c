// Kollide — the penalty contact model's rules, its narrowphase, the pass's pair list and the query
// of its results (the forces themselves: penalty_step.c).
// SPDX-License-Identifier: MIT
#include "contact_penalty.h"

#include "contact.h"
#include "core.h"
#include "mesh.h"
#include "shape.h"
#include "world.h"

#include <kollide/kollide.h>
#include <kollide/sphere_tree.h>

kl_result kl_check_penalty_def(const kl_shape_def* def)
{
	if (def->contact_model != KL_CONTACT_CONSTRAINT && def->contact_model != KL_CONTACT_PENALTY)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "unknown contact model %d", (int)def->contact_model);
	}
	if (!(def->penalty_stiffness > 0.0f && def->penalty_stiffness <= KL_PENALTY_MAX_STIFFNESS))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "penalty stiffness %g N/m^3 outside (0, %g]",
					   (double)def->penalty_stiffness, (double)KL_PENALTY_MAX_STIFFNESS);
	}
	if (!(def->penalty_damping_ratio >= 0.0f && def->penalty_damping_ratio <= KL_PENALTY_MAX_DAMPING_RATIO))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "penalty damping ratio %g outside [0, %g]",
					   (double)def->penalty_damping_ratio, (double)KL_PENALTY_MAX_DAMPING_RATIO);
	}
	return KL_OK;
}

static bool unit_scale(vec3s scale)
{
	return scale.x == 1.0f && scale.y == 1.0f && scale.z == 1.0f;
}

kl_result kl_check_penalty_mesh(const kl_mesh* mesh, vec3s scale)
{
	if (mesh->sphere_tree == NULL)
	{
		return kl_fail(KL_ERR_UNSUPPORTED,
					   "mesh shape asks for the penalty contact model, but its mesh has no inner spheres");
	}
	if (!unit_scale(scale))
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "the penalty contact model needs a mesh shape of scale 1");
	}
	return KL_OK;
}

static bool has_tree(const kl_shape* s)
{
	return s->type == KL_SHAPE_MESH && s->mesh.mesh->sphere_tree != NULL && unit_scale(s->mesh.scale) && !s->is_sensor;
}

bool kl_penalty_pair_applies(const kl_shape* a, const kl_shape* b)
{
	return has_tree(a) && has_tree(b) &&
		   (a->contact_model == KL_CONTACT_PENALTY || b->contact_model == KL_CONTACT_PENALTY);
}

static kl_transform shape_pose(const kl_world* world, const kl_shape* s)
{
	return kl_transform_mul(world->sims[s->body].transform, s->local_pose);
}

bool kl_penalty_contact_update(const kl_world* world, kl_contact* c)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	kl_sphere_overlap_result r;
	bool overlap = kl_sphere_tree_overlap(a->mesh.mesh->sphere_tree, shape_pose(world, a), b->mesh.mesh->sphere_tree,
										  shape_pose(world, b), NULL, &r) == KL_OK &&
				   r.pair_count > 0;
	c->manifold.point_count = 0;
	c->manifold_count = 0;
	kl_contact_mix_materials(world, c);
	return overlap;
}

static bool reserve_pairs(kl_world* world, int need)
{
	if (world->penalty_scratch == NULL)
	{
		world->penalty_scratch = kl_alloc_zero((size_t)world->worker_count, sizeof(struct kl_penalty_scratch));
		if (world->penalty_scratch == NULL)
		{
			return false;
		}
	}
	return KL_ARRAY_RESERVE(world->penalty_pairs, world->penalty_pair_capacity, need);
}

static void init_pair(const kl_world* world, const kl_contact* c, kl_penalty_pair* p)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	memset(p, 0, sizeof(*p));
	p->shape_a = c->shape_a;
	p->shape_b = c->shape_b;
	p->body_a = c->body_a;
	p->body_b = c->body_b;
	p->stiffness = kl_minf(a->penalty_stiffness, b->penalty_stiffness);
	p->damping_ratio = kl_maxf(a->penalty_damping_ratio, b->penalty_damping_ratio);
	p->friction = c->friction;
}

void kl_penalty_begin(kl_world* world)
{
	world->penalty_pair_count = 0;
	world->counters.penalty_pair_count = 0;
	world->counters.penalty_limited_count = 0;
	if (world->penalty_shape_count == 0)
	{
		return; // the constraint-only world pays nothing
	}
	int n = 0;
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		if ((c->flags & (KL_CONTACT_PENALTY_PAIR | KL_CONTACT_SENSOR)) != KL_CONTACT_PENALTY_PAIR ||
			!(kl_body_slot_awake(world, c->body_a) || kl_body_slot_awake(world, c->body_b)))
		{
			continue;
		}
		if (!reserve_pairs(world, n + 1))
		{
			break; // out of memory: the pairs found so far push, the rest wait for the next step
		}
		init_pair(world, c, &world->penalty_pairs[n++]);
	}
	world->penalty_pair_count = n;
	world->counters.penalty_pair_count = n;
}

void kl_penalty_free(kl_world* world)
{
	for (int w = 0; world->penalty_scratch != NULL && w < world->worker_count; ++w)
	{
		kl_free(world->penalty_scratch[w].pairs);
	}
	kl_free(world->penalty_scratch);
	kl_free(world->penalty_pairs);
	world->penalty_scratch = NULL;
	world->penalty_pairs = NULL;
	world->penalty_pair_count = 0;
	world->penalty_pair_capacity = 0;
}

static void fill_data(const kl_world* world, const kl_penalty_pair* p, kl_penalty_contact_data* d)
{
	float inv_t = p->elapsed > 0.0f ? 1.0f / p->elapsed : 0.0f;
	d->shape_a = kl_make_shape_id(world, &world->shapes[p->shape_a]);
	d->shape_b = kl_make_shape_id(world, &world->shapes[p->shape_b]);
	d->force = glms_vec3_scale(p->impulse_sum, inv_t);
	d->normal_force = p->normal_impulse_sum * inv_t;
	d->normal = p->normal;
	d->point = p->point;
	d->volume = p->volume;
	d->max_depth = p->max_depth;
	d->sphere_pair_count = p->sphere_pair_count;
	d->stiffness_limited = p->limited;
}

int kl_body_get_penalty_contact_data(kl_body_id id, kl_penalty_contact_data* data, int capacity)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL || (data == NULL && capacity > 0))
	{
		return 0;
	}
	int n = 0;
	for (int k = 0; k < world->penalty_pair_count; ++k)
	{
		const kl_penalty_pair* p = &world->penalty_pairs[k];
		// A shape destroyed since the step leaves its pair behind.
		if ((p->body_a != body->id && p->body_b != body->id) || world->shapes[p->shape_a].id < 0 ||
			world->shapes[p->shape_b].id < 0)
		{
			continue;
		}
		if (n < capacity)
		{
			fill_data(world, p, &data[n]);
		}
		n += 1;
	}
	return n;
}
