// Kollide — revolute (hinge) joint: a ball row, two angular rows that keep the hinge axes (the
// frames' z) aligned, and the axial spring, motor and limits about the hinge.
//
// Hinge alignment: the hinge axis a of frame a stays normal to the x and y axes of frame b (as in
// Jolt's hinge), C = (a·x_b, a·y_b). The angle is the twist of q = conj(q_a)·q_b about z,
// 2·atan2(q.z, q.w), zero where the frames coincide.
// SPDX-License-Identifier: MIT
#include "joint_common.h"

/// Hinge alignment rows for the current frames: with the hinge axis a of frame a and the x, y axes
/// b, c of frame b, C = (a·b, a·c) and Cdot = (w_b − w_a)·(b × a), likewise c. Both Jacobians are
/// normal to the hinge axis, so these rows never resist the free rotation.
static void hinge_rows(versors qa, versors qb, vec3s* jx, vec3s* jy, float* cx, float* cy)
{
	vec3s a = kl_rotate(qa, kl_vec3(0.0f, 0.0f, 1.0f));
	vec3s b = kl_rotate(qb, kl_vec3(1.0f, 0.0f, 0.0f));
	vec3s c = kl_rotate(qb, kl_vec3(0.0f, 1.0f, 0.0f));
	*jx = glms_vec3_cross(b, a);
	*jy = glms_vec3_cross(c, a);
	*cx = glms_vec3_dot(a, b);
	*cy = glms_vec3_dot(a, c);
}

/// The hinge's axial row for anchors ra, rb: the torque about the axis plus its coupling impulse.
static kl_axial_row axial_row(const kl_joint_constraint* c, vec3s ra, vec3s rb)
{
	vec3s p = c->axial_coupling;
	kl_axial_row row = {
		.n = p,
		.ja = glms_vec3_add(c->axis, glms_vec3_cross(ra, p)),
		.jb = glms_vec3_add(c->axis, glms_vec3_cross(rb, p)),
		.angular = true,
	};
	return row;
}

/// The joint's current frames and anchors.
typedef struct hinge_pose
{
	versors qa;
	versors qb;
	vec3s ra;
	vec3s rb;
} hinge_pose;

static hinge_pose measure(const kl_joint_constraint* c, const kl_solver_body* ba, const kl_solver_body* bb)
{
	hinge_pose g;
	g.qa = glms_quat_mul(ba->delta_rotation, c->frame_a.q);
	g.qb = glms_quat_mul(bb->delta_rotation, c->frame_b.q);
	g.ra = kl_rotate(ba->delta_rotation, c->frame_a.p);
	g.rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	return g;
}

/// The ball row's mass and the axial row for pose g: prepared, then refreshed by each relax pass
/// (kl_point_mass_now), since the axis turns with body a and the coupling with the anchors, which a
/// fast motor turns far within one step. The axial row turns the bodies about the hinge line
/// (kl_coupled_angular_row), so its mass is the inertia about that line.
static void update_masses(kl_joint_constraint* c, const hinge_pose* g)
{
	kl_point_mass_now(c, g->ra, g->rb, true);
	c->axis = kl_rotate(g->qa, kl_vec3(0.0f, 0.0f, 1.0f));
	kl_axial_row row = kl_coupled_angular_row(c, c->axis, g->ra, g->rb);
	c->axial_coupling = row.n;
	c->axial_mass = kl_axial_mass(c, row.n, row.ja, row.jb);
}

void kl_prepare_revolute(const kl_solver_step* step, kl_joint_constraint* c)
{
	(void)step;
	hinge_pose g = measure(c, &kl_joint_static_body, &kl_joint_static_body);
	update_masses(c, &g);
	float cx, cy;
	hinge_rows(c->frame_a.q, c->frame_b.q, &c->perp_x, &c->perp_y, &cx, &cy);
}

/// The two hinge-alignment rows for pose g, anchored (kl_anchored_block_make); their angular
/// Jacobians (the rows' pure couples) go to j, their angle errors to *error.
static kl_anchored_block hinge_block(const kl_joint_constraint* c, const hinge_pose* g, vec3s j[2], vec3s* error)
{
	hinge_rows(g->qa, g->qb, &j[0], &j[1], &error->x, &error->y);
	error->z = 0.0f;
	return kl_anchored_block_make(c, j, 2, g->ra, g->rb);
}

void kl_warm_start_revolute(const kl_solver_step* step, kl_joint_constraint* c)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	hinge_pose g = measure(c, ba, bb);
	vec3s j[2], error;
	kl_anchored_block block = hinge_block(c, &g, j, &error);
	kl_anchored_block_apply(c, &block, &v, c->angular_impulse);
	float axial = kl_axial_impulse(c);
	vec3s linear = glms_vec3_add(c->linear_impulse, glms_vec3_scale(c->axial_coupling, axial));
	kl_joint_apply_linear(c, &v, g.ra, g.rb, linear);
	kl_joint_apply_angular(c, &v, glms_vec3_scale(c->axis, axial));
	kl_joint_store(step, c, &v);
}

/// The two angular rows that keep the hinge axes parallel, solved as one block that turns the
/// bodies about the anchor (joint_anchored.c).
static void solve_hinge_alignment(const kl_solver_body* ba, const kl_solver_body* bb, kl_joint_constraint* c,
								  kl_joint_velocities* v, const hinge_pose* g, bool use_bias)
{
	vec3s j[2], error;
	kl_anchored_block block = hinge_block(c, g, j, &error);
	c->perp_x = j[0]; // for the reported torque
	c->perp_y = j[1];
	vec3s separation = kl_point_separation(c, ba, bb, g->ra, g->rb);
	kl_anchored_block_solve(c, &block, v, error, separation, c->softness, use_bias, &c->angular_impulse);
	c->anchored_linear = kl_anchored_block_linear(&block, c->angular_impulse);
}

void kl_solve_revolute(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	hinge_pose g = measure(c, ba, bb);
	if (!use_bias)
	{
		update_masses(c, &g);
	}
	if (c->enable_spring || c->enable_motor || c->enable_limit)
	{
		kl_axial_row row = axial_row(c, g.ra, g.rb);
		row.position = kl_twist_angle(kl_relative_rotation(g.qa, g.qb));
		kl_solve_axial(step, c, &row, &v, use_bias);
	}
	solve_hinge_alignment(ba, bb, c, &v, &g, use_bias);
	kl_solve_point_row(c, &c->point_mass, &c->linear_impulse, &v, ba, bb, g.ra, g.rb, c->softness, use_bias);
	kl_joint_store(step, c, &v);
}
