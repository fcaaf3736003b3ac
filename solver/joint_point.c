// Kollide — point joints: spherical (ball, with an optional angular-velocity motor, a spring towards
// the frames' alignment, a swing cone and twist limits), fixed (weld: point plus rotation lock) and
// the target (mouse) joint that pulls body b's anchor towards a world point with a limited force.
//
// Point constraint: C = p_b − p_a, Cdot = v_b + w_b × r_b − v_a − w_a × r_a,
// K = (m_a + m_b)·E − skew(r_a)·I_a·skew(r_a) − skew(r_b)·I_b·skew(r_b).
// Rotation lock: C = rotation vector of conj(q_a)·q_b in world, Cdot = w_b − w_a, K = I_a + I_b.
// Swing cone: θ = angle between the frames' z axes z_a and z_b, θ ≤ cone; with the unit axis
// n = z_a × z_b / |z_a × z_b|, dθ/dt = n·(w_b − w_a). Twist: the angle about z of the swing–twist
// split of conj(q_a)·q_b, within [lower, upper]; it turns about the bisector of z_a and z_b (which
// changes the swing only to second order) at the bisector's rate over cos(θ/2), so its row's
// Jacobian is (z_a + z_b) / (1 + z_a·z_b). Near θ = π the twist is undefined and its row is off.
// SPDX-License-Identifier: MIT
#include "joint_common.h"

/// The ball row shared by spherical, fixed and revolute joints. `mass` is K⁻¹ for the anchors ra,
/// rb (kl_point_mass_now).
void kl_solve_point_row(const kl_joint_constraint* c, const mat3s* mass, vec3s* accumulated, kl_joint_velocities* v,
						const kl_solver_body* ba, const kl_solver_body* bb, vec3s ra, vec3s rb, kl_softness s,
						bool use_bias)
{
	vec3s cdot = glms_vec3_sub(glms_vec3_add(v->vb, glms_vec3_cross(v->wb, rb)),
							   glms_vec3_add(v->va, glms_vec3_cross(v->wa, ra)));
	float mass_scale = 1.0f;
	float impulse_scale = 0.0f;
	if (use_bias)
	{
		vec3s separation = kl_point_separation(c, ba, bb, ra, rb);
		cdot = glms_vec3_add(cdot, glms_vec3_scale(separation, s.bias_rate));
		mass_scale = s.mass_scale;
		impulse_scale = s.impulse_scale;
	}
	vec3s x = glms_mat3_mulv(*mass, cdot);
	vec3s impulse = glms_vec3_sub(glms_vec3_scale(x, -mass_scale), glms_vec3_scale(*accumulated, impulse_scale));
	*accumulated = glms_vec3_add(*accumulated, impulse);
	kl_joint_apply_linear(c, v, ra, rb, impulse);
}

/// The spherical joint's limit rows for the current frames, each turning the bodies about the
/// anchor (kl_coupled_angular_row; c->point_mass must be K⁻¹ for ra, rb).
typedef struct cone_rows
{
	kl_axial_row swing; ///< about n; unused while the axes are parallel (no swing direction)
	kl_axial_row twist; ///< about the bisector of z_a and z_b; unused without has_twist
	vec3s swing_axis;
	vec3s twist_axis; ///< the twist rate's Jacobian (not unit: 1 / cos(θ/2) along the bisector)
	float swing_angle;
	float twist_angle;
	bool has_twist;
} cone_rows;

static cone_rows measure_cone(const kl_joint_constraint* c, const kl_solver_body* ba, const kl_solver_body* bb,
							  vec3s ra, vec3s rb)
{
	versors qa = glms_quat_mul(ba->delta_rotation, c->frame_a.q);
	versors qb = glms_quat_mul(bb->delta_rotation, c->frame_b.q);
	vec3s za = kl_rotate(qa, kl_vec3(0.0f, 0.0f, 1.0f));
	vec3s zb = kl_rotate(qb, kl_vec3(0.0f, 0.0f, 1.0f));
	vec3s cross = glms_vec3_cross(za, zb);
	float sine = glms_vec3_norm(cross);
	float cosine = glms_vec3_dot(za, zb);
	cone_rows r;
	r.swing_angle = atan2f(sine, cosine);
	r.twist_angle = kl_twist_angle(kl_relative_rotation(qa, qb));
	// Parallel axes have no swing direction: at θ = 0 the row is far inside any cone and idles;
	// at θ = π it is far outside, and any axis normal to z_a (frame a's x) turns it back.
	r.swing_axis = sine > 1.0e-6f ? glms_vec3_scale(cross, 1.0f / sine)
				 : cosine > 0.0f ? glms_vec3_zero()
								 : kl_rotate(qa, kl_vec3(1.0f, 0.0f, 0.0f));
	r.has_twist = 1.0f + cosine > 0.01f; // θ below 172°
	r.twist_axis = r.has_twist ? glms_vec3_scale(glms_vec3_add(za, zb), 1.0f / (1.0f + cosine)) : glms_vec3_zero();
	r.swing = kl_coupled_angular_row(c, r.swing_axis, ra, rb);
	r.twist = kl_coupled_angular_row(c, r.twist_axis, ra, rb);
	return r;
}

/// Swing cone, then twist limits (the ball row is solved after them, as the most important). Keeps
/// the rows' axes and couplings for the reported force and torque (joint_solver.h).
static void solve_cone_limits(const kl_solver_step* step, kl_joint_constraint* c, kl_joint_velocities* v,
							  const cone_rows* r, bool use_bias)
{
	c->perp_x = r->swing_axis;
	c->perp_y = r->swing.n;
	c->axis = r->twist_axis;
	c->axial_coupling = r->twist.n;
	if (c->cone_angle < GLM_PIf)
	{
		float mass = kl_axial_mass(c, r->swing.n, r->swing.ja, r->swing.jb);
		kl_solve_limit(step, c, &r->swing, mass, v, c->cone_angle - r->swing_angle, -1.0f, &c->cone_impulse, use_bias);
	}
	if (!r->has_twist || (c->lower <= -GLM_PIf && c->upper >= GLM_PIf))
	{
		// Swung nearly half a turn the twist has no meaning; a free twist wraps and never reaches
		// its bounds.
		c->lower_impulse = 0.0f;
		c->upper_impulse = 0.0f;
		return;
	}
	float mass = kl_axial_mass(c, r->twist.n, r->twist.ja, r->twist.jb);
	float twist = kl_angle_near_range(r->twist_angle, c->lower, c->upper);
	kl_solve_limit(step, c, &r->twist, mass, v, twist - c->lower, 1.0f, &c->lower_impulse, use_bias);
	kl_solve_limit(step, c, &r->twist, mass, v, c->upper - twist, -1.0f, &c->upper_impulse, use_bias);
}

/// The spherical motor: drives the relative angular velocity to its target (frame a's axes) with
/// at most the max motor torque, through the anchored rows of lock.
static void solve_angular_motor(kl_joint_constraint* c, const kl_anchored_block* lock,
								kl_joint_velocities* v, const kl_solver_body* ba)
{
	vec3s velocity = c->def->motor_angular_velocity; // read through def: it is rare
	vec3s target = kl_rotate(glms_quat_mul(ba->delta_rotation, c->frame_a.q), velocity);
	vec3s cdot;
	for (int k = 0; k < 3; ++k)
	{
		cdot.raw[k] = kl_axial_cdot(&lock->rows[k], v) - target.raw[k];
	}
	vec3s old = c->motor_angular_impulse;
	vec3s total = glms_vec3_sub(old, glms_mat3_mulv(lock->mass, cdot));
	float length = glms_vec3_norm(total);
	if (length > c->max_motor_impulse)
	{
		total = glms_vec3_scale(total, c->max_motor_impulse / length);
	}
	c->motor_angular_impulse = total;
	kl_anchored_block_apply(c, lock, v, glms_vec3_sub(total, old));
}

/// The spherical joint's motor, then its spring (which turns frame b towards frame a's rotation,
/// bias on in both passes), on one anchored rotation block.
static void solve_angular_drives(kl_joint_constraint* c, kl_joint_velocities* v,
								 const kl_solver_body* ba, const kl_solver_body* bb, vec3s ra, vec3s rb)
{
	vec3s error;
	kl_anchored_block lock = kl_rotation_lock_block(c, ba, bb, ra, rb, &error);
	if (c->enable_motor)
	{
		solve_angular_motor(c, &lock, v, ba);
	}
	if (c->enable_spring)
	{
		vec3s separation = kl_point_separation(c, ba, bb, ra, rb);
		kl_anchored_block_solve(c, &lock, v, error, separation, c->spring_softness, true, &c->angular_impulse);
	}
	c->anchored_linear = kl_anchored_block_linear(&lock, glms_vec3_add(c->angular_impulse, c->motor_angular_impulse));
}

/// The angular rows a spherical joint may add to its ball row. Kept out of line (as the solve's
/// are): inlined, they made every plain ball joint's warm start heavier (joint_grid).
KL_NOINLINE static void warm_start_spherical_rows(kl_joint_constraint* c, kl_joint_velocities* v,
												  const kl_solver_body* ba, const kl_solver_body* bb, vec3s ra, vec3s rb)
{
	if (c->enable_limit)
	{
		cone_rows r = measure_cone(c, ba, bb, ra, rb);
		kl_axial_apply(c, &r.swing, v, -c->cone_impulse);
		kl_axial_apply(c, &r.twist, v, c->lower_impulse - c->upper_impulse);
	}
	if (c->enable_motor || c->enable_spring)
	{
		kl_anchored_block lock = kl_rotation_lock_block(c, ba, bb, ra, rb, NULL);
		kl_anchored_block_apply(c, &lock, v, glms_vec3_add(c->angular_impulse, c->motor_angular_impulse));
	}
}

KL_NOINLINE static void solve_spherical_rows(const kl_solver_step* step, kl_joint_constraint* c,
											 kl_joint_velocities* v, const kl_solver_body* ba, const kl_solver_body* bb,
											 vec3s ra, vec3s rb, bool use_bias)
{
	if (c->enable_motor || c->enable_spring)
	{
		solve_angular_drives(c, v, ba, bb, ra, rb);
	}
	if (c->enable_limit)
	{
		cone_rows r = measure_cone(c, ba, bb, ra, rb);
		solve_cone_limits(step, c, v, &r, use_bias);
	}
}

void kl_warm_start_point(const kl_solver_step* step, kl_joint_constraint* c)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	vec3s ra = kl_rotate(ba->delta_rotation, c->frame_a.p);
	vec3s rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	kl_joint_apply_linear(c, &v, ra, rb, c->linear_impulse);
	if (c->type == KL_JOINT_FIXED)
	{
		kl_anchored_block lock = kl_rotation_lock_block(c, ba, bb, ra, rb, NULL);
		kl_anchored_block_apply(c, &lock, &v, c->angular_impulse);
	}
	else if (c->type == KL_JOINT_SPHERICAL && (c->enable_limit || c->enable_motor || c->enable_spring))
	{
		warm_start_spherical_rows(c, &v, ba, bb, ra, rb);
	}
	kl_joint_store(step, c, &v);
}


void kl_solve_spherical(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	vec3s ra = kl_rotate(ba->delta_rotation, c->frame_a.p);
	vec3s rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	const mat3s* mass = kl_point_mass_now(c, ra, rb, !use_bias);
	if (c->enable_limit || c->enable_motor || c->enable_spring)
	{
		solve_spherical_rows(step, c, &v, ba, bb, ra, rb, use_bias);
	}
	kl_solve_point_row(c, mass, &c->linear_impulse, &v, ba, bb, ra, rb, c->softness, use_bias);
	kl_joint_store(step, c, &v);
}

void kl_solve_fixed(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	// A spring makes a soft weld whose stiffness is physical, so it keeps its bias when relaxing.
	bool bias = use_bias || c->enable_spring;
	vec3s ra = kl_rotate(ba->delta_rotation, c->frame_a.p);
	vec3s rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	const mat3s* mass = kl_point_mass_now(c, ra, rb, !use_bias);
	vec3s error;
	kl_anchored_block lock = kl_rotation_lock_block(c, ba, bb, ra, rb, &error);
	vec3s separation = kl_point_separation(c, ba, bb, ra, rb);
	kl_anchored_block_solve(c, &lock, &v, error, separation, c->spring_softness, bias, &c->angular_impulse);
	c->anchored_linear = kl_anchored_block_linear(&lock, c->angular_impulse);
	kl_solve_point_row(c, mass, &c->linear_impulse, &v, ba, bb, ra, rb, c->spring_softness, bias);
	kl_joint_store(step, c, &v);
}

void kl_solve_target(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	// A drive, not an error correction: the bias stays on in the relax pass.
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	vec3s rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	kl_softness s = c->spring_softness;
	vec3s separation = glms_vec3_add(glms_vec3_add(c->delta_center, bb->delta_position), rb);
	vec3s cdot = glms_vec3_add(v.vb, glms_vec3_cross(v.wb, rb));
	cdot = glms_vec3_add(cdot, glms_vec3_scale(separation, s.bias_rate));
	vec3s x = glms_mat3_mulv(*kl_point_mass_now(c, glms_vec3_zero(), rb, !use_bias), cdot); // a has no mass
	vec3s old = c->linear_impulse;
	vec3s total = glms_vec3_add(old, glms_vec3_scale(x, -s.mass_scale));
	total = glms_vec3_sub(total, glms_vec3_scale(old, s.impulse_scale));
	float length = glms_vec3_norm(total);
	if (length > c->max_motor_impulse)
	{
		total = glms_vec3_scale(total, c->max_motor_impulse / length);
	}
	c->linear_impulse = total;
	vec3s impulse = glms_vec3_sub(total, old);
	v.vb = glms_vec3_add(v.vb, glms_vec3_scale(impulse, c->inv_mass_b));
	v.wb = glms_vec3_add(v.wb, glms_mat3_mulv(c->inv_inertia_b, glms_vec3_cross(rb, impulse)));
	kl_joint_store(step, c, &v);
}
