// Kollide — the penalty contact model's sub-step (docs/penalty-contact.md). Each pair queries its
// sphere trees at the current poses; the volume spring k·Σ V_i n_i and its torques act explicitly,
// the spring's stiffness along the normal and the damping implicitly (linearised backward Euler at
// the lens centroid), and Coulomb friction there stops the sliding up to μ times the normal impulse.
// Pairs are computed over the workers into their own results and applied in pair order, so any
// number of threads gives the same motion.
// SPDX-License-Identifier: MIT
#include "contact_penalty.h"

#include "core.h"
#include "ist.h"
#include "mesh.h"
#include "shape.h"
#include "world.h"

/// A side of a pair: where it is, how it moves and how it gives (zero inverse mass and inertia
/// unless dynamic and awake).
typedef struct penalty_body
{
	vec3s center;
	vec3s v;
	vec3s w;
	float inv_mass;
	mat3s inv_inertia;
} penalty_body;

static penalty_body body_of(const kl_world* world, int slot)
{
	const kl_body_sim* sim = &world->sims[slot];
	penalty_body b = {sim->center, world->states[slot].linear_velocity, world->states[slot].angular_velocity, 0.0f,
					  glms_mat3_zero()};
	if ((sim->flags & KL_SIM_DYNAMIC) && world->bodies[slot].is_awake)
	{
		mat3s r = glms_quat_mat3(sim->transform.q);
		b.inv_mass = sim->inv_mass;
		b.inv_inertia = glms_mat3_mul(glms_mat3_mul(r, sim->inv_inertia_local), glms_mat3_transpose(r));
	}
	return b;
}

/// Inverse effective mass of a body at offset r along unit d.
static float inv_mass_along(const penalty_body* b, vec3s r, vec3s d)
{
	vec3s rd = glms_vec3_cross(r, d);
	return b->inv_mass + glms_vec3_dot(rd, glms_mat3_mulv(b->inv_inertia, rd));
}

/// The body's velocities after an impulse (linear, and angular about its centre).
static void apply_to(penalty_body* b, vec3s linear, vec3s angular)
{
	b->v = glms_vec3_add(b->v, glms_vec3_scale(linear, b->inv_mass));
	b->w = glms_vec3_add(b->w, glms_mat3_mulv(b->inv_inertia, angular));
}

static vec3s velocity_at(const penalty_body* b, vec3s r)
{
	return glms_vec3_add(b->v, glms_vec3_cross(b->w, r));
}

/// Sums over a query's sphere pairs: the volume spring per unit stiffness and its moments about the
/// centres, the volume-weighted lens centre.
typedef struct penalty_sums
{
	vec3s f;
	vec3s moment_a;
	vec3s moment_b;
	vec3s weighted_point;
	float volume;
	float max_depth;
} penalty_sums;

/// π a² for spheres of radii ra, rb whose centres lie d apart (a: the radius of the circle where they
/// meet; 0 when one holds the other): how fast their lens grows as they approach, dV/dx.
static float meeting_area(float ra, float rb, float d)
{
	if (!(d > fabsf(ra - rb)) || d <= 0.0f)
	{
		return 0.0f;
	}
	float x = (d * d + ra * ra - rb * rb) / (2.0f * d);
	return GLM_PIf * kl_maxf(ra * ra - x * x, 0.0f);
}

static penalty_sums sum_pairs(const kl_sphere_pair* pairs, int n, vec3s ca, vec3s cb)
{
	penalty_sums s;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < n; ++i)
	{
		const kl_sphere_pair* p = &pairs[i];
		vec3s f = glms_vec3_scale(p->normal, p->volume);
		s.f = glms_vec3_add(s.f, f);
		s.moment_a = glms_vec3_add(s.moment_a, glms_vec3_cross(glms_vec3_sub(p->point, ca), f));
		s.moment_b = glms_vec3_sub(s.moment_b, glms_vec3_cross(glms_vec3_sub(p->point, cb), f));
		s.weighted_point = glms_vec3_add(s.weighted_point, glms_vec3_scale(p->point, p->volume));
		s.volume += p->volume;
		s.max_depth = kl_maxf(s.max_depth, p->depth);
	}
	return s;
}

/// The spring's stiffness per unit k along the normal n (pushing the bodies apart at the centroid
/// p) and against a relative turn about the unit axis u through p: pair i's lens grows by
/// π a_i² (n_i·n) per unit push and by π a_i² ((p_i − p) × n_i)·u per unit turn.
typedef struct penalty_stiffness
{
	float normal;
	float turn;
	float reach; ///< the lens centres' volume-weighted mean distance from p across n (torsional friction's arm)
} penalty_stiffness;

static penalty_stiffness stiffness_of(const kl_sphere_pair* pairs, int n, const kl_sphere_tree* ta,
									  const kl_sphere_tree* tb, vec3s normal, vec3s p, vec3s u)
{
	penalty_stiffness k = {0.0f, 0.0f, 0.0f};
	float volume = 0.0f;
	for (int i = 0; i < n; ++i)
	{
		const kl_sphere_pair* q = &pairs[i];
		float ra = ta->spheres[q->sphere_a].radius;
		float rb = tb->spheres[q->sphere_b].radius;
		float area = meeting_area(ra, rb, ra + rb - 2.0f * q->depth);
		float c = glms_vec3_dot(q->normal, normal);
		float t = glms_vec3_dot(glms_vec3_cross(glms_vec3_sub(q->point, p), q->normal), u);
		k.normal += area * c * c;
		k.turn += area * t * t;
		vec3s arm = glms_vec3_sub(q->point, p);
		k.reach += q->volume * glms_vec3_norm(glms_vec3_sub(arm, glms_vec3_scale(normal, glms_vec3_dot(arm, normal))));
		volume += q->volume;
	}
	k.reach = volume > 0.0f ? k.reach / volume : 0.0f;
	return k;
}

/// The query's sphere pairs into the worker's room, grown when the pairs did not fit; false when the
/// query failed or out of memory.
static bool query_pairs(const kl_world* world, const kl_penalty_pair* pp, kl_penalty_scratch* room,
						kl_sphere_overlap_result* r)
{
	const kl_shape* a = &world->shapes[pp->shape_a];
	const kl_shape* b = &world->shapes[pp->shape_b];
	kl_transform xa = kl_transform_mul(world->sims[a->body].transform, a->local_pose);
	kl_transform xb = kl_transform_mul(world->sims[b->body].transform, b->local_pose);
	for (int attempt = 0; attempt < 2; ++attempt)
	{
		kl_sphere_overlap_def od = kl_default_sphere_overlap_def();
		od.pairs = room->pairs;
		od.pair_capacity = room->capacity;
		if (kl_sphere_tree_overlap(a->mesh.mesh->sphere_tree, xa, b->mesh.mesh->sphere_tree, xb, &od, r) != KL_OK)
		{
			return false;
		}
		if (!r->pairs_truncated)
		{
			return true;
		}
		int grown = r->pair_count + r->pair_count / 2;
		kl_sphere_pair* more = kl_realloc(room->pairs, (size_t)grown, sizeof(kl_sphere_pair));
		if (more == NULL)
		{
			return false;
		}
		room->pairs = more;
		room->capacity = grown;
	}
	return false;
}

/// The pair's impulses for this sub-step (pp->linear, angular_a, angular_b) and its report.
static void compute_pair(const kl_world* world, kl_penalty_pair* pp, kl_penalty_scratch* room, float h)
{
	pp->linear = pp->angular_a = pp->angular_b = glms_vec3_zero();
	kl_sphere_overlap_result r;
	if (!query_pairs(world, pp, room, &r))
	{
		return; // out of memory: the pair pushes nothing this sub-step
	}
	penalty_body a = body_of(world, pp->body_a);
	penalty_body b = body_of(world, pp->body_b);
	const kl_sphere_tree* ta = world->shapes[pp->shape_a].mesh.mesh->sphere_tree;
	const kl_sphere_tree* tb = world->shapes[pp->shape_b].mesh.mesh->sphere_tree;
	penalty_sums s = sum_pairs(room->pairs, r.pair_count, a.center, b.center);
	pp->volume = s.volume;
	pp->max_depth = s.max_depth;
	pp->sphere_pair_count = r.pair_count;
	float fn = glms_vec3_norm(s.f);
	if (!(fn > 0.0f) || !(s.volume > 0.0f))
	{
		return;
	}
	vec3s n = glms_vec3_scale(s.f, 1.0f / fn);
	vec3s p = glms_vec3_scale(s.weighted_point, 1.0f / s.volume);
	vec3s ra = glms_vec3_sub(p, a.center);
	vec3s rb = glms_vec3_sub(p, b.center);
	float w = inv_mass_along(&a, ra, n) + inv_mass_along(&b, rb, n);
	if (!(w > 0.0f))
	{
		return;
	}
	// Rocking: the relative angular velocity across the normal, damped about its axis.
	vec3s w_rel = glms_vec3_sub(a.w, b.w);
	vec3s w_across = glms_vec3_sub(w_rel, glms_vec3_scale(n, glms_vec3_dot(w_rel, n)));
	float w_speed = glms_vec3_norm(w_across);
	vec3s u = w_speed > 0.0f ? glms_vec3_scale(w_across, 1.0f / w_speed) : glms_vec3_zero();
	penalty_stiffness per_k = stiffness_of(room->pairs, r.pair_count, ta, tb, n, p, u);
	// The stability limit (KL_PENALTY_MAX_STIFFNESS_RATIO) on k_eff·h²/m_eff.
	float k = pp->stiffness;
	float k_eff = k * per_k.normal;
	float ratio = k_eff * h * h * w;
	if (ratio > KL_PENALTY_MAX_STIFFNESS_RATIO)
	{
		float cut = KL_PENALTY_MAX_STIFFNESS_RATIO / ratio;
		k *= cut;
		k_eff *= cut;
		pp->limited = true;
	}
	float spring = k * fn;
	float damping = 2.0f * pp->damping_ratio * sqrtf(k_eff / w);
	vec3s v_rel = glms_vec3_sub(velocity_at(&a, ra), velocity_at(&b, rb));
	float vn = glms_vec3_dot(v_rel, n);
	// Backward Euler along n, linearised: m (v' − v) = h (F − k_eff h v' − c v').
	float jn = h * (spring - (h * k_eff + damping) * vn) / (1.0f + (h * h * k_eff + h * damping) * w);
	jn = kl_maxf(jn, 0.0f); // no pull
	float correction = jn - h * spring;
	vec3s jc = glms_vec3_scale(n, correction);
	pp->linear = glms_vec3_scale(n, jn);
	pp->angular_a = glms_vec3_add(glms_vec3_scale(s.moment_a, h * k), glms_vec3_cross(ra, jc));
	pp->angular_b = glms_vec3_sub(glms_vec3_scale(s.moment_b, h * k), glms_vec3_cross(rb, jc));
	float wu = glms_vec3_dot(u, glms_mat3_mulv(a.inv_inertia, u)) + glms_vec3_dot(u, glms_mat3_mulv(b.inv_inertia, u));
	if (w_speed > 0.0f && wu > 0.0f)
	{
		// The same implicit damper about u: k_turn·h²/I_eff stays below the limit with k_eff's.
		float k_turn = k * per_k.turn;
		float c_turn = 2.0f * pp->damping_ratio * sqrtf(k_turn / wu);
		float l = h * c_turn * w_speed / (1.0f + (h * h * k_turn + h * c_turn) * wu);
		pp->angular_a = glms_vec3_sub(pp->angular_a, glms_vec3_scale(u, l));
		pp->angular_b = glms_vec3_add(pp->angular_b, glms_vec3_scale(u, l));
	}
	// Friction acts on the motion these impulses leave (else the spring's torques would creep on,
	// a sub-step behind it).
	apply_to(&a, pp->linear, pp->angular_a);
	apply_to(&b, glms_vec3_negate(pp->linear), pp->angular_b);
	v_rel = glms_vec3_sub(velocity_at(&a, ra), velocity_at(&b, rb));
	w_rel = glms_vec3_sub(a.w, b.w);
	// Coulomb friction at the centroid: the impulse that stops the sliding, at most μ·jn.
	vec3s vt = glms_vec3_sub(v_rel, glms_vec3_scale(n, glms_vec3_dot(v_rel, n)));
	float speed = glms_vec3_norm(vt);
	if (speed > 0.0f && pp->friction > 0.0f)
	{
		vec3s t = glms_vec3_scale(vt, 1.0f / speed);
		float wt = inv_mass_along(&a, ra, t) + inv_mass_along(&b, rb, t);
		float jt = wt > 0.0f ? kl_minf(speed / wt, pp->friction * jn) : 0.0f;
		vec3s jf = glms_vec3_scale(t, -jt);
		pp->linear = glms_vec3_add(pp->linear, jf);
		pp->angular_a = glms_vec3_add(pp->angular_a, glms_vec3_cross(ra, jf));
		pp->angular_b = glms_vec3_sub(pp->angular_b, glms_vec3_cross(rb, jf));
	}
	// Torsional friction: the spin about n stopped, up to μ·jn at the patch's mean reach.
	float spin = glms_vec3_dot(w_rel, n);
	float wn = glms_vec3_dot(n, glms_mat3_mulv(a.inv_inertia, n)) + glms_vec3_dot(n, glms_mat3_mulv(b.inv_inertia, n));
	if (spin != 0.0f && wn > 0.0f)
	{
		float l = kl_minf(fabsf(spin) / wn, pp->friction * jn * per_k.reach);
		vec3s lt = glms_vec3_scale(n, spin > 0.0f ? -l : l);
		pp->angular_a = glms_vec3_add(pp->angular_a, lt);
		pp->angular_b = glms_vec3_sub(pp->angular_b, lt);
	}
	pp->normal = n;
	pp->point = p;
	pp->impulse_sum = glms_vec3_add(pp->impulse_sum, pp->linear);
	pp->normal_impulse_sum += jn;
}

typedef struct penalty_context
{
	kl_world* world;
	float h;
} penalty_context;

static void compute_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	penalty_context* c = context;
	for (int k = begin; k < end; ++k)
	{
		c->world->penalty_pairs[k].elapsed += c->h;
		compute_pair(c->world, &c->world->penalty_pairs[k], &c->world->penalty_scratch[worker], c->h);
	}
}

static void apply_impulse(kl_world* world, int slot, vec3s linear, vec3s angular)
{
	penalty_body b = body_of(world, slot);
	if (b.inv_mass > 0.0f)
	{
		apply_to(&b, linear, angular);
		world->states[slot].linear_velocity = b.v;
		world->states[slot].angular_velocity = b.w;
	}
}

/// Pairs per worker partition below which the calling thread computes them all.
#define KL_MIN_PARALLEL_PENALTY_PAIRS 2

void kl_penalty_substep(kl_world* world, float h)
{
	double t0 = kl_time_seconds();
	penalty_context c = {world, h};
	kl_parallel_ranges(kl_world_parallel(world), world->penalty_pair_count, KL_MIN_PARALLEL_PENALTY_PAIRS,
					   compute_range, &c);
	int limited = 0;
	for (int k = 0; k < world->penalty_pair_count; ++k)
	{
		const kl_penalty_pair* pp = &world->penalty_pairs[k];
		apply_impulse(world, pp->body_a, pp->linear, pp->angular_a);
		apply_impulse(world, pp->body_b, glms_vec3_negate(pp->linear), pp->angular_b);
		limited += pp->limited ? 1 : 0;
	}
	world->counters.penalty_limited_count = limited;
	world->profile.penalty += (float)(1000.0 * (kl_time_seconds() - t0));
}
