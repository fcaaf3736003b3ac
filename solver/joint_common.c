// Kollide — joint constraints: the shared per-step preparation (step-start frames, masses,
// softness, warm-start impulses), dispatch by type, the axial rows and the write-back of impulses.
// SPDX-License-Identifier: MIT
#include "joint_common.h"

#include "core.h"

const kl_solver_body kl_joint_static_body = {
	.delta_rotation = {{0.0f, 0.0f, 0.0f, 1.0f}},
	.rotation0 = {{0.0f, 0.0f, 0.0f, 1.0f}},
};

/// Step-start centre of mass and rotation of one side: the solver body for awake bodies, the sim
/// (which does not move during the step) for static and sleeping ones.
static void side_pose(const kl_solver_step* step, int index, int body_slot, vec3s* center, versors* rotation)
{
	if (index >= 0)
	{
		*center = step->bodies[index].center0;
		*rotation = step->bodies[index].rotation0;
	}
	else
	{
		const kl_body_sim* sim = &step->sims[body_slot];
		*center = sim->center;
		*rotation = sim->transform.q;
	}
}

static void prepare_side(const kl_solver_step* step, int index, kl_transform local_frame, vec3s local_center,
						 float* inv_mass, mat3s* inv_inertia, kl_transform* frame, versors q)
{
	if (index >= 0)
	{
		*inv_mass = step->bodies[index].inv_mass;
		*inv_inertia = step->bodies[index].inv_inertia;
	}
	else
	{
		*inv_mass = 0.0f;
		*inv_inertia = glms_mat3_zero();
	}
	// The anchor relative to the centre of mass, rotated to world: rot(q, p − local centre). This
	// avoids the round-off of subtracting two large world positions.
	frame->q = glms_quat_mul(q, local_frame.q);
	frame->p = kl_rotate(q, glms_vec3_sub(local_frame.p, local_center));
}

static void load_impulses(const kl_solver_step* step, const kl_joint_solver_state* joint, kl_joint_constraint* c)
{
	if (!step->enable_warm_starting)
	{
		return; // c was zeroed
	}
	c->linear_impulse = joint->linear_impulse;
	// A spherical joint's angular rows are its spring's: off (or at 0 Hz) they carry nothing.
	bool angular_rows = c->type != KL_JOINT_SPHERICAL || c->enable_spring;
	c->angular_impulse = angular_rows ? joint->angular_impulse : glms_vec3_zero();
	c->spring_impulse = c->enable_spring ? joint->spring_impulse : 0.0f;
	c->motor_impulse = c->enable_motor ? joint->motor_impulse : 0.0f;
	c->lower_impulse = c->enable_limit ? joint->lower_impulse : 0.0f;
	c->upper_impulse = c->enable_limit ? joint->upper_impulse : 0.0f;
	c->cone_impulse = c->enable_limit ? joint->cone_impulse : 0.0f;
	c->motor_angular_impulse = c->enable_motor ? joint->motor_angular_impulse : glms_vec3_zero();
}

void kl_prepare_joint(const kl_solver_step* step, const kl_joint_source* joint, int index_a, int index_b,
					  kl_joint_constraint* c)
{
	const kl_joint_def* def = joint->def;
	*c = (kl_joint_constraint){0};
	c->def = def;
	c->joint_slot = joint->joint_slot;
	c->index_a = index_a;
	c->index_b = index_b;
	c->type = def->type;

	vec3s center_a, center_b;
	versors qa, qb;
	side_pose(step, index_a, joint->body_a, &center_a, &qa);
	side_pose(step, index_b, joint->body_b, &center_b, &qb);
	prepare_side(step, index_a, def->local_frame_a, step->sims[joint->body_a].local_center, &c->inv_mass_a,
				 &c->inv_inertia_a, &c->frame_a, qa);
	prepare_side(step, index_b, def->local_frame_b, step->sims[joint->body_b].local_center, &c->inv_mass_b,
				 &c->inv_inertia_b, &c->frame_b, qb);
	c->delta_center = glms_vec3_sub(center_b, center_a);

	c->softness = step->joint_softness;
	bool spring = def->enable_spring && def->spring_hertz > 0.0f;
	c->spring_softness = spring ? kl_make_softness(def->spring_hertz, def->spring_damping_ratio, step->h) : c->softness;
	c->enable_spring = spring;
	c->enable_motor = def->enable_motor;
	c->enable_limit = def->enable_limit;
	c->position_motor = def->motor_mode == KL_MOTOR_POSITION;
	c->rigid_length = !def->enable_spring;
	c->motor_speed = def->motor_speed;
	c->motor_target = def->motor_target;
	c->max_motor_impulse = def->max_motor_force * step->h;
	c->lower = def->lower;
	c->upper = def->upper;
	c->cone_angle = def->cone_angle;
	c->length = def->length;
	load_impulses(step, joint->state, c);

	switch (c->type)
	{
		case KL_JOINT_REVOLUTE:
			kl_prepare_revolute(step, c);
			break;
		case KL_JOINT_PRISMATIC:
			kl_prepare_prismatic(step, c);
			break;
		case KL_JOINT_DISTANCE:
			kl_prepare_distance(step, c);
			break;
		case KL_JOINT_SPHERICAL:
			kl_point_mass_now(c, c->frame_a.p, c->frame_b.p, true);
			break;
		case KL_JOINT_FIXED:
			kl_point_mass_now(c, c->frame_a.p, c->frame_b.p, true);
			break;
		case KL_JOINT_TARGET:
			// Only body b is driven: the target is a world point, body a a mere reference.
			c->inv_mass_a = 0.0f;
			c->inv_inertia_a = glms_mat3_zero();
			c->index_a = -1;
			c->delta_center = glms_vec3_sub(center_b, joint->target);
			if (def->spring_hertz > 0.0f)
			{
				c->spring_softness = kl_make_softness(def->spring_hertz, def->spring_damping_ratio, step->h);
			}
			kl_point_mass_now(c, glms_vec3_zero(), c->frame_b.p, true);
			break;
		default:
			break;
	}
}

void kl_warm_start_joint(const kl_solver_step* step, kl_joint_constraint* c)
{
	switch (c->type)
	{
		case KL_JOINT_SPHERICAL:
		case KL_JOINT_FIXED:
		case KL_JOINT_TARGET:
			kl_warm_start_point(step, c);
			break;
		case KL_JOINT_REVOLUTE:
			kl_warm_start_revolute(step, c);
			break;
		case KL_JOINT_PRISMATIC:
			kl_warm_start_prismatic(step, c);
			break;
		case KL_JOINT_DISTANCE:
			kl_warm_start_distance(step, c);
			break;
		default:
			break;
	}
}

void kl_solve_joint(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	switch (c->type)
	{
		case KL_JOINT_SPHERICAL:
			kl_solve_spherical(step, c, use_bias);
			break;
		case KL_JOINT_FIXED:
			kl_solve_fixed(step, c, use_bias);
			break;
		case KL_JOINT_REVOLUTE:
			kl_solve_revolute(step, c, use_bias);
			break;
		case KL_JOINT_PRISMATIC:
			kl_solve_prismatic(step, c, use_bias);
			break;
		case KL_JOINT_DISTANCE:
			kl_solve_distance(step, c, use_bias);
			break;
		case KL_JOINT_TARGET:
			kl_solve_target(step, c, use_bias);
			break;
		default:
			break;
	}
}

void kl_solve_limit(const kl_solver_step* step, const kl_joint_constraint* c, const kl_axial_row* row, float mass,
					kl_joint_velocities* v, float separation, float sign, float* accumulated, bool use_bias)
{
	float bias = 0.0f;
	float mass_scale = 1.0f;
	float impulse_scale = 0.0f;
	if (separation > 0.0f)
	{
		bias = separation * step->inv_h;
	}
	else if (use_bias)
	{
		bias = c->softness.bias_rate * separation;
		mass_scale = c->softness.mass_scale;
		impulse_scale = c->softness.impulse_scale;
	}
	float cdot = sign * kl_axial_cdot(row, v);
	float old = *accumulated;
	float impulse = -mass_scale * mass * (cdot + bias) - impulse_scale * old;
	*accumulated = kl_maxf(old + impulse, 0.0f);
	kl_axial_apply(c, row, v, sign * (*accumulated - old));
}

static float coordinate_error(const kl_axial_row* row, float target)
{
	float e = row->position - target;
	return row->angular ? kl_wrap_angle(e) : e;
}

void kl_solve_axial(const kl_solver_step* step, kl_joint_constraint* c, const kl_axial_row* row,
					kl_joint_velocities* v, bool use_bias)
{
	float mass = c->axial_mass;
	if (c->enable_spring)
	{
		// A physical spring: its bias stays on in the relax pass.
		kl_softness s = c->spring_softness;
		float error = coordinate_error(row, row->spring_rest);
		float cdot = kl_axial_cdot(row, v);
		float impulse = -s.mass_scale * mass * (cdot + s.bias_rate * error) - s.impulse_scale * c->spring_impulse;
		c->spring_impulse += impulse;
		kl_axial_apply(c, row, v, impulse);
	}
	if (c->enable_motor)
	{
		float cdot = kl_axial_cdot(row, v);
		float impulse;
		if (c->position_motor)
		{
			// A servo: a soft constraint towards the target with the stiffness of the rigid joint rows,
			// bias on in both passes, giving way where the impulse reaches the force limit. The speed
			// it asks for is capped at the speed it can still brake from within the remaining error
			// with half its force, v = √(2·a·|e|), so a force-limited move does not overshoot.
			kl_softness s = c->softness;
			float error = coordinate_error(row, c->motor_target);
			float bias = s.bias_rate * error;
			if (mass > 0.0f)
			{
				float brake = sqrtf(c->max_motor_impulse * step->inv_h / mass * fabsf(error));
				bias = glm_clamp(bias, -brake, brake);
			}
			impulse = -s.mass_scale * mass * (cdot + bias) - s.impulse_scale * c->motor_impulse;
		}
		else
		{
			impulse = -mass * (cdot - c->motor_speed);
		}
		float old = c->motor_impulse;
		float max = c->max_motor_impulse;
		c->motor_impulse = glm_clamp(old + impulse, -max, max);
		kl_axial_apply(c, row, v, c->motor_impulse - old);
	}
	if (c->enable_limit)
	{
		float position = row->angular ? kl_angle_near_range(row->position, c->lower, c->upper) : row->position;
		kl_solve_limit(step, c, row, c->axial_mass, v, position - c->lower, 1.0f, &c->lower_impulse, use_bias);
		kl_solve_limit(step, c, row, c->axial_mass, v, c->upper - position, -1.0f, &c->upper_impulse, use_bias);
	}
}

/// The force and torque on body b (world) from the last sub-step's impulses: the force acts at the
/// joint anchor, the torque is the pure couple of the angular rows.
static void joint_force_torque(const kl_joint_constraint* c, vec3s* force, vec3s* torque)
{
	vec3s f = glms_vec3_zero();
	vec3s t = glms_vec3_zero();
	float axial = kl_axial_impulse(c);
	switch (c->type)
	{
		case KL_JOINT_SPHERICAL:
			// The limits' rows carry linear couplings (kl_coupled_angular_row), like the hinge's; the
			// spring's and motor's rows are an anchored block.
			f = glms_vec3_add(c->linear_impulse, glms_vec3_scale(c->perp_y, -c->cone_impulse));
			f = glms_vec3_add(f, glms_vec3_scale(c->axial_coupling, axial));
			f = glms_vec3_add(f, c->anchored_linear);
			t = glms_vec3_add(glms_vec3_scale(c->perp_x, -c->cone_impulse), glms_vec3_scale(c->axis, axial));
			t = glms_vec3_add(t, glms_vec3_add(c->angular_impulse, c->motor_angular_impulse));
			break;
		case KL_JOINT_TARGET:
			f = c->linear_impulse;
			break;
		case KL_JOINT_FIXED:
			f = glms_vec3_add(c->linear_impulse, c->anchored_linear);
			t = c->angular_impulse;
			break;
		case KL_JOINT_REVOLUTE:
			f = glms_vec3_add(c->linear_impulse, c->anchored_linear);
			f = glms_vec3_add(f, glms_vec3_scale(c->axial_coupling, axial));
			t = glms_vec3_add(glms_vec3_scale(c->perp_x, c->angular_impulse.x),
							  glms_vec3_scale(c->perp_y, c->angular_impulse.y));
			t = glms_vec3_add(t, glms_vec3_scale(c->axis, axial));
			break;
		case KL_JOINT_PRISMATIC:
			f = glms_vec3_add(glms_vec3_scale(c->perp_x, c->linear_impulse.x),
							  glms_vec3_scale(c->perp_y, c->linear_impulse.y));
			f = glms_vec3_add(f, c->anchored_linear);
			f = glms_vec3_add(f, glms_vec3_scale(c->axis, axial));
			t = glms_vec3_add(c->angular_impulse, glms_vec3_scale(c->axial_coupling, axial));
			break;
		case KL_JOINT_DISTANCE:
			f = glms_vec3_scale(c->axis, axial + c->linear_impulse.x);
			break;
		default:
			break;
	}
	*force = f;
	*torque = t;
}

static bool impulses_finite(const kl_joint_constraint* c)
{
	float sum = c->spring_impulse + c->motor_impulse + c->lower_impulse + c->upper_impulse + c->cone_impulse;
	return isfinite(sum) && kl_vec3_is_finite(c->linear_impulse) && kl_vec3_is_finite(c->angular_impulse) &&
		   kl_vec3_is_finite(c->motor_angular_impulse) && kl_vec3_is_finite(c->anchored_linear);
}

static void restart_impulses(kl_joint_constraint* c)
{
	c->linear_impulse = c->angular_impulse = c->motor_angular_impulse = glms_vec3_zero();
	c->anchored_linear = glms_vec3_zero();
	c->spring_impulse = c->motor_impulse = c->lower_impulse = c->upper_impulse = c->cone_impulse = 0.0f;
}

void kl_store_joint_impulses(const kl_solver_step* step, kl_joint_constraint* c, kl_joint_solver_state* joint)
{
	// An overflowed solve must not warm start the next step with NaN, nor report a force that is
	// not a number: start the joint afresh. A runaway solve reaches finite impulses whose force
	// (impulse over h) overflows before the impulses themselves do.
	vec3s force, torque;
	joint_force_torque(c, &force, &torque);
	force = glms_vec3_scale(force, step->inv_h);
	torque = glms_vec3_scale(torque, step->inv_h);
	if (!impulses_finite(c) || !kl_vec3_is_finite(force) || !kl_vec3_is_finite(torque))
	{
		restart_impulses(c);
		force = torque = glms_vec3_zero();
	}
	joint->linear_impulse = c->linear_impulse;
	joint->angular_impulse = c->angular_impulse;
	joint->spring_impulse = c->spring_impulse;
	joint->motor_impulse = c->motor_impulse;
	joint->lower_impulse = c->lower_impulse;
	joint->upper_impulse = c->upper_impulse;
	joint->cone_impulse = c->cone_impulse;
	joint->motor_angular_impulse = c->motor_angular_impulse;

	// Each sub-step applies the accumulated impulse again (warm starting), so the impulse of one
	// sub-step over h is the force the joint carried, averaged over that sub-step.
	joint->constraint_force = force;
	joint->constraint_torque = torque;
	if (c->type == KL_JOINT_TARGET)
	{
		joint->motor_force = glms_vec3_norm(c->linear_impulse) * step->inv_h;
	}
	else if (c->type == KL_JOINT_SPHERICAL)
	{
		joint->motor_force = glms_vec3_norm(c->motor_angular_impulse) * step->inv_h;
	}
	else
	{
		joint->motor_force = c->motor_impulse * step->inv_h;
	}
}
