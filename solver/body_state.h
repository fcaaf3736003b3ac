// Kollide internal — the per-step state of a body that integration and the constraint solver act
// on: kl_body_sim (pose, mass, forces) and kl_body_state (velocities), both indexed by body slot.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

enum kl_body_sim_flags
{
	KL_SIM_MOVABLE = 1 << 0,	///< kinematic or dynamic
	KL_SIM_DYNAMIC = 1 << 1,
	KL_SIM_GYROSCOPIC = 1 << 2,
	KL_SIM_FIXED_ROTATION = 1 << 3,
	KL_SIM_AWAKE = 1 << 4,
	KL_SIM_ISOTROPIC = 1 << 5, ///< equal principal moments: no gyroscopic term
};

typedef struct kl_body_sim
{
	kl_transform transform;	 ///< body origin
	kl_transform transform0; ///< at the start of the last step (interpolation)
	vec3s center;			 ///< world centre of mass
	vec3s local_center;
	vec3s force;  ///< accumulated, world
	vec3s torque; ///< accumulated, world
	/// Gyroscopic bodies: the pose update rotates by the end-of-step angular velocity plus this
	/// offset, which brings it to the midpoint velocity of the implicit midpoint rule (world frame).
	vec3s rotation_offset;
	mat3s inertia_local;	 ///< about the centre, body frame
	mat3s inv_inertia_local; ///< zero for fixed rotation or non-dynamic bodies
	float mass;
	float inv_mass;
	float linear_damping;
	float angular_damping;
	float gravity_scale;
	uint32_t flags;
} kl_body_sim;

typedef struct kl_body_state
{
	vec3s linear_velocity;  ///< of the centre of mass
	vec3s angular_velocity; ///< world frame
} kl_body_state;
