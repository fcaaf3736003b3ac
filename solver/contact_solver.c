// Kollide — contact constraints in the soft-step scheme (Box2D v3's contact solver carried to 3D):
// per point a normal row with soft bias and push-out limit, two friction rows clamped to the
// Coulomb disk, and restitution applied once after the sub-steps.
// SPDX-License-Identifier: MIT
#include "contact_solver.h"
#include "core.h"

#include <float.h>

float kl_contact_impulse_limit(const kl_solver_step* step, float normal_mass, float relative_velocity,
							   float pressing)
{
	return normal_mass * (kl_maxf(-relative_velocity, 0.0f) + step->max_push_speed + step->h * kl_maxf(pressing, 0.0f));
}

/// The acceleration the forces on a body give it this step (gravity and applied forces); zero for
/// static, kinematic and sleeping sides.
static vec3s kl_external_acceleration(const kl_solver_step* step, int index)
{
	if (index < 0 || !(step->bodies[index].inv_mass > 0.0f))
	{
		return glms_vec3_zero();
	}
	const kl_body_sim* sim = &step->sims[index];
	return glms_vec3_add(glms_vec3_scale(step->gravity, sim->gravity_scale), glms_vec3_scale(sim->force, sim->inv_mass));
}

static const kl_solver_body kl_static_solver_body = {
	.delta_rotation = {{0.0f, 0.0f, 0.0f, 1.0f}},
};

void kl_tangent_basis(vec3s n, vec3s* t1, vec3s* t2)
{
	// Pick the axis least aligned with n (Box2D/Erin Catto's b3ComputeBasis idea).
	vec3s t;
	if (fabsf(n.x) >= 0.57735027f)
	{
		t = kl_vec3(n.y, -n.x, 0.0f);
	}
	else
	{
		t = kl_vec3(0.0f, n.z, -n.y);
	}
	*t1 = glms_vec3_normalize(t);
	*t2 = glms_vec3_cross(n, *t1);
}

static const kl_solver_body* solver_body(const kl_solver_step* step, int index)
{
	return index >= 0 ? &step->bodies[index] : &kl_static_solver_body;
}

/// Effective mass of a row with linear direction d and angular parts ra × d, rb × d.
static float row_mass(const kl_solver_body* a, const kl_solver_body* b, vec3s ra, vec3s rb, vec3s d)
{
	vec3s ca = glms_vec3_cross(ra, d);
	vec3s cb = glms_vec3_cross(rb, d);
	float k = a->inv_mass + b->inv_mass + glms_vec3_dot(ca, glms_mat3_mulv(a->inv_inertia, ca)) +
			  glms_vec3_dot(cb, glms_mat3_mulv(b->inv_inertia, cb));
	return k > 0.0f ? 1.0f / k : 0.0f;
}

static float angular_mass(const kl_solver_body* a, const kl_solver_body* b, vec3s d)
{
	float k = glms_vec3_dot(d, glms_mat3_mulv(a->inv_inertia, d)) + glms_vec3_dot(d, glms_mat3_mulv(b->inv_inertia, d));
	return k > 0.0f ? 1.0f / k : 0.0f;
}

/// Cosine of the largest angle between a contact normal and the vertical for which the lower body
/// counts as supporting the upper one (45°).
#define KL_SUPPORT_COS 0.70710678f

/// Support mass scaling (a form of shock propagation): where a light body carries a heavier one (a
/// contact whose normal is within 45° of the vertical), the row between them sees the lower body
/// as heavy as the upper one. One Gauss–Seidel pass per sub-step does not carry a mass ratio: the
/// row to the heavy body, solved after the light body's support, pushes it back in (an L bar of
/// 0.58 kg dropped on a 30 g gear drove it 18 mm into the ground, and a heavy part resting on a
/// light one pressed it 5 mm in). Equal masses, and bodies side by side, are unchanged.
static void kl_support_mass_scales(const kl_solver_step* step, const kl_solver_body* ba, const kl_solver_body* bb,
								   vec3s normal, kl_contact_constraint* c)
{
	c->mass_scale_a = 1.0f;
	c->mass_scale_b = 1.0f;
	vec3s g = step->gravity;
	float g_len = glms_vec3_norm(g);
	if (!(ba->inv_mass > 0.0f && bb->inv_mass > 0.0f) || !(g_len > 0.0f))
	{
		return;
	}
	float up = -glms_vec3_dot(normal, g) / g_len; // > 0: b lies above a
	if (fabsf(up) < KL_SUPPORT_COS)
	{
		return;
	}
	bool a_below = up > 0.0f;
	float inv_lower = a_below ? ba->inv_mass : bb->inv_mass;
	float inv_upper = a_below ? bb->inv_mass : ba->inv_mass;
	if (inv_lower > inv_upper) // the lower body is the lighter one
	{
		float scale = inv_upper / inv_lower;
		c->mass_scale_a = a_below ? scale : 1.0f;
		c->mass_scale_b = a_below ? 1.0f : scale;
	}
}

/// A solver body with its inverse mass and inertia scaled.
static kl_solver_body kl_scaled_body(const kl_solver_body* b, float scale)
{
	kl_solver_body s = *b;
	s.inv_mass *= scale;
	s.inv_inertia = glms_mat3_scale(s.inv_inertia, scale);
	return s;
}

/// Whether a contact along this normal can carry weight: it lies within 45° of the vertical.
static bool kl_carries_weight(const kl_solver_step* step, vec3s normal)
{
	float g = glms_vec3_norm(step->gravity);
	return g > 0.0f && fabsf(glms_vec3_dot(normal, step->gravity)) >= KL_SUPPORT_COS * g;
}

void kl_prepare_contact(const kl_solver_step* step, const kl_contact_source* source, int index_a, int index_b,
						kl_contact_constraint* c)
{
	const kl_manifold* m = source->manifold;
	// One scale for all the pair's rows: a gear under an L bar had its top manifold scaled and its
	// side manifolds not, rows whose masses disagree, and Gauss-Seidel on them diverged (1,700 N).
	kl_support_mass_scales(step, solver_body(step, index_a), solver_body(step, index_b),
						   source->support_normal, c);
	const kl_solver_body scaled_a = kl_scaled_body(solver_body(step, index_a), c->mass_scale_a);
	const kl_solver_body scaled_b = kl_scaled_body(solver_body(step, index_b), c->mass_scale_b);
	const kl_solver_body* ba = &scaled_a;
	const kl_solver_body* bb = &scaled_b;
	c->contact_index = source->contact_index;
	c->manifold_index = source->manifold_index;
	c->index_a = index_a;
	c->index_b = index_b;
	c->normal = m->normal;
	kl_tangent_basis(m->normal, &c->tangent[0], &c->tangent[1]);
	c->friction = source->friction;
	c->restitution = source->restitution;
	c->rolling_resistance = source->rolling_resistance;
	c->spin_resistance = source->spin_resistance;
	c->rolling_impulse = step->enable_warm_starting ? m->rolling_impulse : glms_vec3_zero();
	c->rolling_mass[0] = angular_mass(ba, bb, c->tangent[0]);
	c->rolling_mass[1] = angular_mass(ba, bb, c->tangent[1]);
	c->spin_mass = angular_mass(ba, bb, c->normal);
	bool both_dynamic = ba->inv_mass > 0.0f && bb->inv_mass > 0.0f;
	c->softness = both_dynamic ? step->contact_softness : step->static_softness;
	c->point_count = m->point_count;
	const kl_body_state zero = {{{0}}, {{0}}};
	// Over the step gravity can speed the approach up by at most its part along the normal: the
	// fastest approach restitution bounces from is the one at the step's start plus that.
	float gravity_closing = fabsf(glms_vec3_dot(step->gravity, c->normal)) * step->h * (float)step->substep_count;
	bool weight = kl_carries_weight(step, c->normal);
	// How hard the forces on the bodies press them together along the normal (m/s²).
	float pressing = -glms_vec3_dot(c->normal, glms_vec3_sub(kl_external_acceleration(step, index_b),
															  kl_external_acceleration(step, index_a)));
	const kl_body_state* sa = index_a >= 0 ? &step->states[index_a] : &zero;
	const kl_body_state* sb = index_b >= 0 ? &step->states[index_b] : &zero;
	vec3s center_a = index_a >= 0 ? ba->center0 : source->center_a;
	vec3s center_b = index_b >= 0 ? bb->center0 : source->center_b;
	for (int k = 0; k < m->point_count; ++k)
	{
		const kl_manifold_point* mp = &m->points[k];
		kl_contact_constraint_point* cp = &c->points[k];
		cp->anchor_a = glms_vec3_sub(mp->point, center_a);
		cp->anchor_b = glms_vec3_sub(glms_vec3_add(mp->point, source->anchor_shift), center_b);
		vec3s d = glms_vec3_sub(cp->anchor_b, cp->anchor_a);
		cp->adjusted_separation = mp->separation - glms_vec3_dot(d, c->normal);
		cp->normal_mass = row_mass(ba, bb, cp->anchor_a, cp->anchor_b, c->normal);
		cp->tangent_mass[0] = row_mass(ba, bb, cp->anchor_a, cp->anchor_b, c->tangent[0]);
		cp->tangent_mass[1] = row_mass(ba, bb, cp->anchor_a, cp->anchor_b, c->tangent[1]);
		bool warm = step->enable_warm_starting;
		cp->normal_impulse = warm ? mp->normal_impulse : 0.0f;
		cp->tangent_impulse[0] = warm ? mp->tangent_impulse[0] : 0.0f;
		cp->tangent_impulse[1] = warm ? mp->tangent_impulse[1] : 0.0f;
		cp->max_normal_impulse = 0.0f;
		vec3s va = glms_vec3_add(sa->linear_velocity, glms_vec3_cross(sa->angular_velocity, cp->anchor_a));
		vec3s vb = glms_vec3_add(sb->linear_velocity, glms_vec3_cross(sb->angular_velocity, cp->anchor_b));
		cp->relative_velocity = glms_vec3_dot(c->normal, glms_vec3_sub(vb, va));
		cp->approach_limit = cp->relative_velocity - gravity_closing;
		cp->impulse_limit =
			weight ? FLT_MAX : kl_contact_impulse_limit(step, cp->normal_mass, cp->relative_velocity, pressing);
		if (cp->normal_impulse > cp->impulse_limit)
		{
			float scale = cp->impulse_limit / cp->normal_impulse;
			cp->normal_impulse = cp->impulse_limit;
			cp->tangent_impulse[0] *= scale;
			cp->tangent_impulse[1] *= scale;
		}
	}
}

/// Velocities of a constraint side: a copy, written back only for dynamic bodies.
typedef struct kl_side
{
	vec3s v;
	vec3s w;
	float inv_mass;
	mat3s inv_inertia;
	const kl_solver_body* body;
} kl_side;

static inline kl_side load_side(const kl_solver_step* step, int index, float mass_scale)
{
	kl_side s;
	s.body = solver_body(step, index);
	if (index >= 0)
	{
		s.v = step->states[index].linear_velocity;
		s.w = step->states[index].angular_velocity;
	}
	else
	{
		s.v = glms_vec3_zero();
		s.w = glms_vec3_zero();
	}
	s.inv_mass = s.body->inv_mass * mass_scale;
	s.inv_inertia = glms_mat3_scale(s.body->inv_inertia, mass_scale);
	return s;
}

static inline void store_side(const kl_solver_step* step, int index, const kl_side* s)
{
	if (index >= 0 && s->inv_mass > 0.0f)
	{
		step->states[index].linear_velocity = s->v;
		step->states[index].angular_velocity = s->w;
	}
}

/// Applies impulse p at anchors ra (on a, negative) and rb (on b).
static inline void apply_impulse(kl_side* a, kl_side* b, vec3s ra, vec3s rb, vec3s p)
{
	a->v = glms_vec3_sub(a->v, glms_vec3_scale(p, a->inv_mass));
	a->w = glms_vec3_sub(a->w, glms_mat3_mulv(a->inv_inertia, glms_vec3_cross(ra, p)));
	b->v = glms_vec3_add(b->v, glms_vec3_scale(p, b->inv_mass));
	b->w = glms_vec3_add(b->w, glms_mat3_mulv(b->inv_inertia, glms_vec3_cross(rb, p)));
}

static inline void apply_angular_impulse(kl_side* a, kl_side* b, vec3s l)
{
	a->w = glms_vec3_sub(a->w, glms_mat3_mulv(a->inv_inertia, l));
	b->w = glms_vec3_add(b->w, glms_mat3_mulv(b->inv_inertia, l));
}

static inline vec3s relative_velocity(const kl_side* a, const kl_side* b, vec3s ra, vec3s rb)
{
	vec3s va = glms_vec3_add(a->v, glms_vec3_cross(a->w, ra));
	vec3s vb = glms_vec3_add(b->v, glms_vec3_cross(b->w, rb));
	return glms_vec3_sub(vb, va);
}

void kl_warm_start_contact(const kl_solver_step* step, kl_contact_constraint* c)
{
	kl_side a = load_side(step, c->index_a, c->mass_scale_a);
	kl_side b = load_side(step, c->index_b, c->mass_scale_b);
	for (int k = 0; k < c->point_count; ++k)
	{
		const kl_contact_constraint_point* cp = &c->points[k];
		vec3s p = glms_vec3_scale(c->normal, cp->normal_impulse);
		p = glms_vec3_add(p, glms_vec3_scale(c->tangent[0], cp->tangent_impulse[0]));
		p = glms_vec3_add(p, glms_vec3_scale(c->tangent[1], cp->tangent_impulse[1]));
		apply_impulse(&a, &b, cp->anchor_a, cp->anchor_b, p);
	}
	apply_angular_impulse(&a, &b, c->rolling_impulse);
	store_side(step, c->index_a, &a);
	store_side(step, c->index_b, &b);
}

/// Current separation of a point from the bodies' motion since the step began.
static inline float current_separation(const kl_contact_constraint* c, const kl_contact_constraint_point* cp,
								const kl_side* a, const kl_side* b)
{
	vec3s ra = kl_rotate(a->body->delta_rotation, cp->anchor_a);
	vec3s rb = kl_rotate(b->body->delta_rotation, cp->anchor_b);
	vec3s d = glms_vec3_add(glms_vec3_sub(b->body->delta_position, a->body->delta_position), glms_vec3_sub(rb, ra));
	return glms_vec3_dot(c->normal, d) + cp->adjusted_separation;
}

static inline void solve_normal(const kl_solver_step* step, kl_contact_constraint* c, kl_side* a, kl_side* b, bool use_bias,
						 float* total_normal)
{
	// Alternate the point order between passes so that Gauss–Seidel's bias towards the first
	// point does not tilt a symmetric stack one way every time.
	bool reverse = step->pass & 1;
	for (int i = 0; i < c->point_count; ++i)
	{
		int k = reverse ? c->point_count - 1 - i : i;
		kl_contact_constraint_point* cp = &c->points[k];
		float s = current_separation(c, cp, a, b);
		float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
		if (!use_bias && s > KL_LINEAR_SLOP)
		{
			// Relax leaves real gaps alone: limiting the approach to s/h here would rob a body
			// that arrives next step of its speed (and its bounce); the next solve limits it anyway.
			*total_normal += cp->normal_impulse;
			continue;
		}
		if (s > 0.0f)
		{
			bias = s * step->inv_h; // speculative: close the gap, no more
		}
		else if (use_bias)
		{
			bias = kl_maxf(c->softness.bias_rate * s, -step->max_push_speed);
			mass_scale = c->softness.mass_scale;
			impulse_scale = c->softness.impulse_scale;
		}
		float vn = glms_vec3_dot(relative_velocity(a, b, cp->anchor_a, cp->anchor_b), c->normal);
		// Restitution bounces off the fastest approach seen: gravity keeps speeding a falling body
		// up during the sub-steps before it meets the surface, so the speed at the step start is short.
		// Never faster than gravity explains: within a pinch, or right after a warm start, the rows
		// see approaches no motion had, and a bounce from them throws the bodies out.
		cp->relative_velocity = kl_maxf(vn < cp->relative_velocity ? vn : cp->relative_velocity, cp->approach_limit);
		float impulse = -cp->normal_mass * mass_scale * (vn + bias) - impulse_scale * cp->normal_impulse;
		float next = kl_minf(kl_maxf(cp->normal_impulse + impulse, 0.0f), cp->impulse_limit);
		impulse = next - cp->normal_impulse;
		cp->normal_impulse = next;
		cp->max_normal_impulse = kl_maxf(cp->max_normal_impulse, impulse);
		*total_normal += next;
		apply_impulse(a, b, cp->anchor_a, cp->anchor_b, glms_vec3_scale(c->normal, impulse));
	}
}

static inline void solve_friction(const kl_solver_step* step, kl_contact_constraint* c, kl_side* a, kl_side* b)
{
	bool reverse = step->pass & 1;
	for (int i = 0; i < c->point_count; ++i)
	{
		int k = reverse ? c->point_count - 1 - i : i;
		kl_contact_constraint_point* cp = &c->points[k];
		vec3s dv = relative_velocity(a, b, cp->anchor_a, cp->anchor_b);
		float max_friction = c->friction * cp->normal_impulse;
		float old0 = cp->tangent_impulse[0], old1 = cp->tangent_impulse[1];
		float n0 = old0 - cp->tangent_mass[0] * glms_vec3_dot(dv, c->tangent[0]);
		float n1 = old1 - cp->tangent_mass[1] * glms_vec3_dot(dv, c->tangent[1]);
		// Coulomb's cone is a disk in the tangent plane: scale the pair back onto it.
		float len2 = n0 * n0 + n1 * n1;
		if (len2 > max_friction * max_friction)
		{
			float scale = len2 > 0.0f ? max_friction / sqrtf(len2) : 0.0f;
			n0 *= scale;
			n1 *= scale;
		}
		cp->tangent_impulse[0] = n0;
		cp->tangent_impulse[1] = n1;
		vec3s p = glms_vec3_add(glms_vec3_scale(c->tangent[0], n0 - old0), glms_vec3_scale(c->tangent[1], n1 - old1));
		apply_impulse(a, b, cp->anchor_a, cp->anchor_b, p);
	}
}

/// Rolling and spin resistance: an angular impulse about the tangent axes bounded by the rolling
/// resistance times the total normal impulse (Box2D v3's model), and one about the normal bounded
/// by the spin resistance times it (torsional friction).
static inline void solve_rolling(kl_contact_constraint* c, kl_side* a, kl_side* b, float total_normal)
{
	float max_lambda = c->rolling_resistance * total_normal;
	float max_spin = c->spin_resistance * total_normal;
	vec3s dw = glms_vec3_sub(b->w, a->w);
	float spin = glms_vec3_dot(c->rolling_impulse, c->normal) - c->spin_mass * glms_vec3_dot(dw, c->normal);
	spin = kl_maxf(-max_spin, spin < max_spin ? spin : max_spin);
	float old0 = glms_vec3_dot(c->rolling_impulse, c->tangent[0]);
	float old1 = glms_vec3_dot(c->rolling_impulse, c->tangent[1]);
	float n0 = old0 - c->rolling_mass[0] * glms_vec3_dot(dw, c->tangent[0]);
	float n1 = old1 - c->rolling_mass[1] * glms_vec3_dot(dw, c->tangent[1]);
	float len2 = n0 * n0 + n1 * n1;
	if (len2 > max_lambda * max_lambda)
	{
		float scale = len2 > 0.0f ? max_lambda / sqrtf(len2) : 0.0f;
		n0 *= scale;
		n1 *= scale;
	}
	vec3s next = glms_vec3_add(glms_vec3_scale(c->tangent[0], n0), glms_vec3_scale(c->tangent[1], n1));
	next = glms_vec3_add(next, glms_vec3_scale(c->normal, spin));
	apply_angular_impulse(a, b, glms_vec3_sub(next, c->rolling_impulse));
	c->rolling_impulse = next;
}

void kl_solve_contact(const kl_solver_step* step, kl_contact_constraint* c, bool use_bias)
{
	kl_side a = load_side(step, c->index_a, c->mass_scale_a);
	kl_side b = load_side(step, c->index_b, c->mass_scale_b);
	float total_normal = 0.0f;
	solve_normal(step, c, &a, &b, use_bias, &total_normal);
	solve_friction(step, c, &a, &b);
	if (c->rolling_resistance > 0.0f || c->spin_resistance > 0.0f)
	{
		solve_rolling(c, &a, &b, total_normal);
	}
	store_side(step, c->index_a, &a);
	store_side(step, c->index_b, &b);
}

void kl_apply_restitution(const kl_solver_step* step, kl_contact_constraint* c)
{
	if (c->restitution == 0.0f)
	{
		return;
	}
	kl_side a = load_side(step, c->index_a, c->mass_scale_a);
	kl_side b = load_side(step, c->index_b, c->mass_scale_b);
	for (int k = 0; k < c->point_count; ++k)
	{
		kl_contact_constraint_point* cp = &c->points[k];
		// Only points that approached fast enough and actually pushed bounce.
		if (cp->relative_velocity > -step->restitution_threshold || cp->max_normal_impulse == 0.0f)
		{
			continue;
		}
		// A speculative point whose gap did not close (a round-off impulse) has not hit yet: it
		// bounces in the step where it arrives, from the speed it arrives with.
		if (current_separation(c, cp, &a, &b) > KL_LINEAR_SLOP)
		{
			continue;
		}
		float vn = glms_vec3_dot(relative_velocity(&a, &b, cp->anchor_a, cp->anchor_b), c->normal);
		float impulse = -cp->normal_mass * (vn + c->restitution * cp->relative_velocity);
		float next = kl_minf(kl_maxf(cp->normal_impulse + impulse, 0.0f), cp->impulse_limit);
		impulse = next - cp->normal_impulse;
		cp->normal_impulse = next;
		cp->max_normal_impulse = kl_maxf(cp->max_normal_impulse, impulse);
		apply_impulse(&a, &b, cp->anchor_a, cp->anchor_b, glms_vec3_scale(c->normal, impulse));
	}
	store_side(step, c->index_a, &a);
	store_side(step, c->index_b, &b);
}

void kl_store_contact_impulses(const kl_contact_constraint* c, kl_manifold* m)
{
	for (int k = 0; k < c->point_count; ++k)
	{
		m->points[k].normal_impulse = c->points[k].normal_impulse;
		m->points[k].tangent_impulse[0] = c->points[k].tangent_impulse[0];
		m->points[k].tangent_impulse[1] = c->points[k].tangent_impulse[1];
		m->points[k].max_normal_impulse = c->points[k].max_normal_impulse;
	}
	m->rolling_impulse = c->rolling_impulse;
}
