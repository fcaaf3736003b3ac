// Kollide internal — pieces shared by the joint types: body access with a static dummy, the point
// (ball) constraint mass, quaternion error measures and the axial rows (spring, motor, limits) that
// revolute, prismatic and distance joints have in common.
// SPDX-License-Identifier: MIT
#pragma once

#include "core.h"
#include "joint_solver.h"

/// The small helpers below sit in the innermost loops (twenty thousand ball joints, eight times
/// per step); GCC at -O2 declines to inline some of them, so they are forced.
#if defined(__GNUC__)
#define KL_JOINT_INLINE static inline __attribute__((always_inline))
#define KL_NOINLINE __attribute__((noinline))
#else
#define KL_JOINT_INLINE static inline
#define KL_NOINLINE
#endif

/// Velocities of both sides of a constraint while it is being solved.
typedef struct kl_joint_velocities
{
	vec3s va;
	vec3s wa;
	vec3s vb;
	vec3s wb;
} kl_joint_velocities;

/// One scalar row along a joint axis: Cdot = n·(vb − va) + jb·wb − ja·wa. `position` is the joint
/// coordinate the spring, position motor and limits act on (angle in rad or length in m).
typedef struct kl_axial_row
{
	vec3s n;  ///< linear direction (zero for rotations)
	vec3s ja; ///< angular Jacobian of body a
	vec3s jb; ///< angular Jacobian of body b
	float position;
	float spring_rest;
	bool angular; ///< position differences wrap to [-π, π]
} kl_axial_row;

/// The zero body of a static or sleeping side: no motion, identity rotation, infinite mass.
extern const kl_solver_body kl_joint_static_body;

KL_JOINT_INLINE const kl_solver_body* kl_joint_body(const kl_solver_step* step, int index)
{
	return index >= 0 ? step->bodies + index : &kl_joint_static_body;
}

KL_JOINT_INLINE kl_joint_velocities kl_joint_load(const kl_solver_step* step, const kl_joint_constraint* c)
{
	kl_joint_velocities v = {0};
	if (c->index_a >= 0)
	{
		v.va = step->states[c->index_a].linear_velocity;
		v.wa = step->states[c->index_a].angular_velocity;
	}
	if (c->index_b >= 0)
	{
		v.vb = step->states[c->index_b].linear_velocity;
		v.wb = step->states[c->index_b].angular_velocity;
	}
	return v;
}

/// Writes the velocities back, only for dynamic bodies (kinematic and static sides are read-only).
/// The constraint's inverse mass is the solver body's (zero unless dynamic and awake), which
/// answers kl_solver_is_dynamic without touching the body array again.
KL_JOINT_INLINE void kl_joint_store(const kl_solver_step* step, const kl_joint_constraint* c,
									const kl_joint_velocities* v)
{
	if (c->inv_mass_a > 0.0f)
	{
		step->states[c->index_a] = (kl_body_state){v->va, v->wa};
	}
	if (c->inv_mass_b > 0.0f)
	{
		step->states[c->index_b] = (kl_body_state){v->vb, v->wb};
	}
}

/// Applies the linear impulse p at lever arms ra (subtracted from a) and rb (added to b).
KL_JOINT_INLINE void kl_joint_apply_linear(const kl_joint_constraint* c, kl_joint_velocities* v, vec3s ra, vec3s rb,
										 vec3s p)
{
	v->va = glms_vec3_sub(v->va, glms_vec3_scale(p, c->inv_mass_a));
	v->wa = glms_vec3_sub(v->wa, glms_mat3_mulv(c->inv_inertia_a, glms_vec3_cross(ra, p)));
	v->vb = glms_vec3_add(v->vb, glms_vec3_scale(p, c->inv_mass_b));
	v->wb = glms_vec3_add(v->wb, glms_mat3_mulv(c->inv_inertia_b, glms_vec3_cross(rb, p)));
}

/// Applies the angular impulse l (subtracted from a, added to b).
KL_JOINT_INLINE void kl_joint_apply_angular(const kl_joint_constraint* c, kl_joint_velocities* v, vec3s l)
{
	v->wa = glms_vec3_sub(v->wa, glms_mat3_mulv(c->inv_inertia_a, l));
	v->wb = glms_vec3_add(v->wb, glms_mat3_mulv(c->inv_inertia_b, l));
}

static inline mat3s kl_mat3_add(mat3s a, mat3s b)
{
	mat3s r;
	for (int col = 0; col < 3; ++col)
	{
		for (int row = 0; row < 3; ++row)
		{
			r.raw[col][row] = a.raw[col][row] + b.raw[col][row];
		}
	}
	return r;
}

/// Adds −skew(r)·I·skew(r) = skew(r)ᵀ·I·skew(r), the rotational part of a point row's mass matrix,
/// to the symmetric k (xx, yy, zz, xy, xz, yz). Entry (i, j) is column i of skew(r) dotted with I
/// times column j; the columns are (0, z, −y), (−z, 0, x) and (y, −x, 0). Written out in scalars
/// because the relax pass computes it for every ball row in every sub-step.
KL_JOINT_INLINE void kl_add_point_inertia(float k[6], vec3s r, const mat3s* inertia)
{
	const float x = r.x, y = r.y, z = r.z;
	float b0[3], b1[3], b2[3]; // I times the columns of skew(r) (cglm: raw[column][row])
	for (int row = 0; row < 3; ++row)
	{
		float i0 = inertia->raw[0][row], i1 = inertia->raw[1][row], i2 = inertia->raw[2][row];
		b0[row] = i1 * z - i2 * y;
		b1[row] = i2 * x - i0 * z;
		b2[row] = i0 * y - i1 * x;
	}
	k[0] += z * b0[1] - y * b0[2];
	k[1] += x * b1[2] - z * b1[0];
	k[2] += y * b2[0] - x * b2[1];
	k[3] += z * b1[1] - y * b1[2];
	k[4] += z * b2[1] - y * b2[2];
	k[5] += x * b2[2] - z * b2[0];
}

/// The ball row's mass matrix with anchors ra, rb, K = (ma + mb)·E − skew(ra)·Ia·skew(ra) −
/// skew(rb)·Ib·skew(rb), as its six entries (xx, yy, zz, xy, xz, yz).
KL_JOINT_INLINE void kl_point_k(const kl_joint_constraint* c, vec3s ra, vec3s rb, float k[6])
{
	float m = c->inv_mass_a + c->inv_mass_b;
	k[0] = k[1] = k[2] = m;
	k[3] = k[4] = k[5] = 0.0f;
	kl_add_point_inertia(k, ra, &c->inv_inertia_a);
	kl_add_point_inertia(k, rb, &c->inv_inertia_b);
}

/// The symmetric matrix k (xx, yy, zz, xy, xz, yz) times v.
KL_JOINT_INLINE vec3s kl_sym6_mulv(const float k[6], vec3s v)
{
	return kl_vec3(k[0] * v.x + k[3] * v.y + k[4] * v.z, k[3] * v.x + k[1] * v.y + k[5] * v.z,
				   k[4] * v.x + k[5] * v.y + k[2] * v.z);
}

/// K⁻¹ of the ball row with anchors ra, rb (kl_point_k), inverted by cofactors; zero when singular.
KL_JOINT_INLINE mat3s kl_point_mass(const kl_joint_constraint* c, vec3s ra, vec3s rb)
{
	float k[6];
	kl_point_k(c, ra, rb, k);
	// At a power-of-two scale (kl_pow2_scale): K grows as the lever arms squared over the inertia,
	// and its cofactors and determinant, up to its cube, overflow from entries of 2e19 and 7e12 on.
	// K is positive semi-definite, so no off-diagonal entry exceeds the largest diagonal one.
	float scale = kl_pow2_scale(kl_maxf(k[0], kl_maxf(k[1], k[2])));
	const float a = k[0] * scale, b = k[1] * scale, cc = k[2] * scale;
	const float d = k[3] * scale, e = k[4] * scale, f = k[5] * scale;
	float xx = b * cc - f * f, yy = a * cc - e * e, zz = a * b - d * d;
	float xy = e * f - d * cc, xz = d * f - b * e, yz = d * e - a * f;
	float det = a * xx + d * xy + e * xz;
	if (det == 0.0f || !isfinite(det))
	{
		return glms_mat3_zero();
	}
	float s = scale / det;
	mat3s inv = {{{xx * s, xy * s, xz * s}, {xy * s, yy * s, yz * s}, {xz * s, yz * s, zz * s}}};
	return inv;
}

/// Inverse of a symmetric 3×3 matrix by cofactors; zero when singular.
KL_JOINT_INLINE mat3s kl_invert_sym3(mat3s k)
{
	// At a power-of-two scale, as kl_point_mass.
	float scale = kl_pow2_scale(kl_mat3_largest(k));
	k = glms_mat3_scale(k, scale);
	vec3s c0 = {{k.raw[0][0], k.raw[0][1], k.raw[0][2]}};
	vec3s c1 = {{k.raw[1][0], k.raw[1][1], k.raw[1][2]}};
	vec3s c2 = {{k.raw[2][0], k.raw[2][1], k.raw[2][2]}};
	vec3s r0 = glms_vec3_cross(c1, c2);
	vec3s r1 = glms_vec3_cross(c2, c0);
	vec3s r2 = glms_vec3_cross(c0, c1);
	float det = glms_vec3_dot(c0, r0);
	if (det == 0.0f || !isfinite(det))
	{
		return glms_mat3_zero();
	}
	float inv = scale / det;
	// The rows of the inverse are the cross products over det; symmetric, so they are its columns too.
	mat3s m;
	for (int i = 0; i < 3; ++i)
	{
		m.raw[0][i] = r0.raw[i] * inv;
		m.raw[1][i] = r1.raw[i] * inv;
		m.raw[2][i] = r2.raw[i] * inv;
	}
	return m;
}

/// conj(qa)·qb taken in the hemisphere of qa (w >= 0), so angles stay in [-π, π].
static inline versors kl_relative_rotation(versors qa, versors qb)
{
	if (glms_quat_dot(qa, qb) < 0.0f)
	{
		qb = (versors){{-qb.x, -qb.y, -qb.z, -qb.w}};
	}
	return glms_quat_mul(glms_quat_conjugate(qa), qb);
}

/// Rotation about z of the swing–twist split of q (w >= 0): 2·atan2(z, w).
static inline float kl_twist_angle(versors q)
{
	return 2.0f * atan2f(q.z, q.w);
}

/// Rotation vector (axis · angle) of a unit quaternion with w >= 0.
static inline vec3s kl_rotation_vector(versors q)
{
	vec3s v = {{q.x, q.y, q.z}};
	float s = glms_vec3_norm(v);
	if (s < 1.0e-6f)
	{
		return glms_vec3_scale(v, 2.0f);
	}
	return glms_vec3_scale(v, 2.0f * atan2f(s, q.w) / s);
}

/// Wraps an angle difference to [-π, π].
static inline float kl_wrap_angle(float a)
{
	if (a > GLM_PIf || a < -GLM_PIf)
	{
		a = remainderf(a, 2.0f * GLM_PIf);
	}
	return a;
}

/// An angle in [−π, π] outside [lower, upper] moved by a turn to the side of the bound it is nearer
/// to around the circle, so that a joint driven past its upper bound and on across ±π is pulled back
/// to that bound, not pushed on the long way round to the lower one.
static inline float kl_angle_near_range(float angle, float lower, float upper)
{
	const float turn = 2.0f * GLM_PIf;
	if (angle < lower && lower - angle > angle + turn - upper)
	{
		return angle + turn;
	}
	if (angle > upper && angle - upper > lower + turn - angle)
	{
		return angle - turn;
	}
	return angle;
}

/// Inverse of the angular mass of a row with Jacobians ja, jb (and linear n).
static inline float kl_axial_mass(const kl_joint_constraint* c, vec3s n, vec3s ja, vec3s jb)
{
	float k = (c->inv_mass_a + c->inv_mass_b) * glms_vec3_dot(n, n) +
			  glms_vec3_dot(ja, glms_mat3_mulv(c->inv_inertia_a, ja)) +
			  glms_vec3_dot(jb, glms_mat3_mulv(c->inv_inertia_b, jb));
	return k > 0.0f ? 1.0f / k : 0.0f;
}

KL_JOINT_INLINE float kl_axial_cdot(const kl_axial_row* row, const kl_joint_velocities* v)
{
	return glms_vec3_dot(row->n, glms_vec3_sub(v->vb, v->va)) + glms_vec3_dot(row->jb, v->wb) -
		   glms_vec3_dot(row->ja, v->wa);
}

KL_JOINT_INLINE void kl_axial_apply(const kl_joint_constraint* c, const kl_axial_row* row, kl_joint_velocities* v,
								  float impulse)
{
	v->va = glms_vec3_sub(v->va, glms_vec3_scale(row->n, c->inv_mass_a * impulse));
	v->vb = glms_vec3_add(v->vb, glms_vec3_scale(row->n, c->inv_mass_b * impulse));
	v->wa = glms_vec3_sub(v->wa, glms_mat3_mulv(c->inv_inertia_a, glms_vec3_scale(row->ja, impulse)));
	v->wb = glms_vec3_add(v->wb, glms_mat3_mulv(c->inv_inertia_b, glms_vec3_scale(row->jb, impulse)));
}

/// The accumulated axial impulse (spring + motor + limits) as one signed value.
static inline float kl_axial_impulse(const kl_joint_constraint* c)
{
	return c->spring_impulse + c->motor_impulse + c->lower_impulse - c->upper_impulse;
}

/// One side of a limit on a row with inverse mass `mass`: separation = distance to the limit
/// (positive inside), sign +1 for a lower and −1 for an upper limit. Speculative while inside the
/// range (the body may reach the limit exactly within the sub-step), soft when violated, rigid in
/// the relax pass.
void kl_solve_limit(const kl_solver_step* step, const kl_joint_constraint* c, const kl_axial_row* row, float mass,
					kl_joint_velocities* v, float separation, float sign, float* accumulated, bool use_bias);

/// Spring, motor and limits along one axis (only those enabled), in Box2D's order.
void kl_solve_axial(const kl_solver_step* step, kl_joint_constraint* c, const kl_axial_row* row,
					kl_joint_velocities* v, bool use_bias);

/// c->point_mass, measured anew for the anchors ra, rb in the relax pass (the positions moved since
/// the solve). A mass from the sub-step's start turned the relax pass's impulse on a fast-swinging
/// bob on a long arm into a torque that stopped its spin, and the pendulum gained energy until NaN.
static inline const mat3s* kl_point_mass_now(kl_joint_constraint* c, vec3s ra, vec3s rb, bool relax)
{
	if (relax)
	{
		c->point_mass = kl_point_mass(c, ra, rb);
	}
	return &c->point_mass;
}

/// An angular row with Jacobian j (an axis, scaled to the rate it measures) that turns the bodies
/// about the joint's anchor: its linear
/// part p = −K⁻¹·((I_b·j) × r_b + (I_a·j) × r_a) per unit of impulse cancels what the torque does
/// to the ball row's velocity, so the row moves the bodies with the inertia about the anchor (the
/// Schur complement) instead of spinning a light body about its own centre for the ball row to
/// undo. Uses c->point_mass, which must be K⁻¹ for ra, rb.
KL_JOINT_INLINE kl_axial_row kl_coupled_angular_row(const kl_joint_constraint* c, vec3s j, vec3s ra, vec3s rb)
{
	vec3s ia = glms_mat3_mulv(c->inv_inertia_a, j);
	vec3s ib = glms_mat3_mulv(c->inv_inertia_b, j);
	vec3s coupling = glms_vec3_add(glms_vec3_cross(ib, rb), glms_vec3_cross(ia, ra));
	vec3s p = glms_vec3_negate(glms_mat3_mulv(c->point_mass, coupling));
	kl_axial_row row = {
		.n = p,
		.ja = glms_vec3_add(j, glms_vec3_cross(ra, p)),
		.jb = glms_vec3_add(j, glms_vec3_cross(rb, p)),
		.angular = true,
	};
	return row;
}

/// p_b − p_a, the ball row's separation: the step-start anchors plus the bodies' motion since (no
/// large world coordinates are subtracted).
KL_JOINT_INLINE vec3s kl_point_separation(const kl_joint_constraint* c, const kl_solver_body* ba,
										  const kl_solver_body* bb, vec3s ra, vec3s rb)
{
	vec3s dp = glms_vec3_sub(bb->delta_position, ba->delta_position);
	return glms_vec3_add(glms_vec3_add(c->delta_center, dp), glms_vec3_sub(rb, ra));
}

/// Up to three angular rows that turn the bodies about the anchor, as one block (joint_anchored.c).
typedef struct kl_anchored_block
{
	kl_axial_row rows[3]; ///< kl_coupled_angular_row of each Jacobian
	mat3s mass;			  ///< inverse of the rows' block mass (the ball row's Schur complement)
	int count;
} kl_anchored_block;

/// The block of angular Jacobians j[0..count) at anchors ra, rb (c->point_mass must be current).
kl_anchored_block kl_anchored_block_make(const kl_joint_constraint* c, const vec3s* j, int count, vec3s ra, vec3s rb);
/// One pass over the block. angle_error: each row's angle error; separation: the ball row's
/// (p_b − p_a), added through the couplings; both only read when use_bias is set.
void kl_anchored_block_solve(const kl_joint_constraint* c, const kl_anchored_block* b, kl_joint_velocities* v,
							 vec3s angle_error, vec3s separation, kl_softness s, bool use_bias, vec3s* accumulated);
/// Applies the rows' impulses (warm starting).
void kl_anchored_block_apply(const kl_joint_constraint* c, const kl_anchored_block* b, kl_joint_velocities* v,
							 vec3s impulse);
/// The linear impulse at the anchors that the rows' impulses carry (for the reported force).
vec3s kl_anchored_block_linear(const kl_anchored_block* b, vec3s impulse);
/// The rotation lock of fixed and prismatic joints (frames a and b aligned) about the world axes,
/// anchored at ra, rb, and its error: conj(q_a)·q_b as a world rotation vector (not measured when
/// error is NULL: a warm start needs only the rows).
kl_anchored_block kl_rotation_lock_block(const kl_joint_constraint* c, const kl_solver_body* ba,
										 const kl_solver_body* bb, vec3s ra, vec3s rb, vec3s* error);

/// The ball row (3 rows, rigid or soft): anchors ra, rb (current, from the centres of mass), mass
/// K⁻¹ for those anchors.
void kl_solve_point_row(const kl_joint_constraint* c, const mat3s* mass, vec3s* accumulated, kl_joint_velocities* v,
						const kl_solver_body* ba, const kl_solver_body* bb, vec3s ra, vec3s rb, kl_softness s,
						bool use_bias);
// Per-type functions (joint_*.c).
void kl_prepare_revolute(const kl_solver_step* step, kl_joint_constraint* c);
void kl_warm_start_revolute(const kl_solver_step* step, kl_joint_constraint* c);
void kl_solve_revolute(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);

void kl_prepare_prismatic(const kl_solver_step* step, kl_joint_constraint* c);
void kl_warm_start_prismatic(const kl_solver_step* step, kl_joint_constraint* c);
void kl_solve_prismatic(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);

void kl_prepare_distance(const kl_solver_step* step, kl_joint_constraint* c);
void kl_warm_start_distance(const kl_solver_step* step, kl_joint_constraint* c);
void kl_solve_distance(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);

void kl_warm_start_point(const kl_solver_step* step, kl_joint_constraint* c);
void kl_solve_spherical(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);
void kl_solve_fixed(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);
void kl_solve_target(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);
