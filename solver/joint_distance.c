// Kollide — distance joint: the anchors (frame origins) are kept at `length` (rigid), or joined by
// a spring of rest length `length`, optionally with min/max length limits and a motor along the line.
//
// C = |p_b − p_a| − L, u = (p_b − p_a)/|p_b − p_a|, Cdot = u·(v_b + w_b × r_b − v_a − w_a × r_a).
// SPDX-License-Identifier: MIT
#include "joint_common.h"

typedef struct line_geometry
{
	vec3s ra;
	vec3s rb;
	vec3s axis; ///< unit, zero when the anchors coincide
	float length;
} line_geometry;

static line_geometry measure(const kl_joint_constraint* c, const kl_solver_body* ba, const kl_solver_body* bb)
{
	line_geometry g;
	g.ra = kl_rotate(ba->delta_rotation, c->frame_a.p);
	g.rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	vec3s dp = glms_vec3_sub(bb->delta_position, ba->delta_position);
	vec3s d = glms_vec3_add(glms_vec3_add(c->delta_center, dp), glms_vec3_sub(g.rb, g.ra));
	g.length = glms_vec3_norm(d);
	g.axis = g.length > 1.0e-9f ? glms_vec3_scale(d, 1.0f / g.length) : glms_vec3_zero();
	return g;
}

void kl_prepare_distance(const kl_solver_step* step, kl_joint_constraint* c)
{
	(void)step;
	line_geometry g = measure(c, &kl_joint_static_body, &kl_joint_static_body);
	c->axis = g.axis;
	c->axial_mass = kl_axial_mass(c, g.axis, glms_vec3_cross(g.ra, g.axis), glms_vec3_cross(g.rb, g.axis));
	if (c->rigid_length)
	{
		// The length row replaces spring, limits and motor.
		c->enable_spring = false;
		c->enable_limit = false;
		c->enable_motor = false;
		c->spring_impulse = c->lower_impulse = c->upper_impulse = c->motor_impulse = 0.0f;
	}
	else
	{
		c->linear_impulse = glms_vec3_zero();
	}
}

void kl_warm_start_distance(const kl_solver_step* step, kl_joint_constraint* c)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	line_geometry g = measure(c, ba, bb);
	float impulse = kl_axial_impulse(c) + c->linear_impulse.x;
	kl_joint_apply_linear(c, &v, g.ra, g.rb, glms_vec3_scale(g.axis, impulse));
	kl_joint_store(step, c, &v);
}

void kl_solve_distance(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	line_geometry g = measure(c, ba, bb);
	c->axis = g.axis;
	kl_axial_row row = {
		.n = g.axis,
		.ja = glms_vec3_cross(g.ra, g.axis),
		.jb = glms_vec3_cross(g.rb, g.axis),
		.position = g.length,
		.spring_rest = c->length,
	};
	// The mass for the line as it is now: offset anchors turn it within the step.
	c->axial_mass = kl_axial_mass(c, row.n, row.ja, row.jb);
	if (c->rigid_length)
	{
		float bias = 0.0f;
		float mass_scale = 1.0f;
		float impulse_scale = 0.0f;
		if (use_bias)
		{
			bias = c->softness.bias_rate * (g.length - c->length);
			mass_scale = c->softness.mass_scale;
			impulse_scale = c->softness.impulse_scale;
		}
		float cdot = kl_axial_cdot(&row, &v);
		float impulse = -mass_scale * c->axial_mass * (cdot + bias) - impulse_scale * c->linear_impulse.x;
		c->linear_impulse.x += impulse;
		kl_axial_apply(c, &row, &v, impulse);
	}
	else
	{
		kl_solve_axial(step, c, &row, &v, use_bias);
	}
	kl_joint_store(step, c, &v);
}
