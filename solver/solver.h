// Kollide internal — the constraint solver stage: soft-step sub-stepping (in the manner of Box2D v3
// and Box3D) over contact and joint constraints, graph-coloured so that the rows of one colour run
// in parallel, with results that do not depend on the worker count.
//
// The solver works on the world's body arrays, by body slot, as Box2D's solver does: velocities
// live in states during the whole step. It knows no world: engine/solver_stage.c gathers the
// constraints from the world's contacts and joints, runs the sub-steps and stores the impulses back.
// SPDX-License-Identifier: MIT
#pragma once

#include "body_state.h"

/// Soft constraint coefficients for one sub-step (Box2D's b2Softness): bias = bias_rate · C,
/// impulse = -mass_scale · m · (Cdot + bias) - impulse_scale · accumulated.
typedef struct kl_softness
{
	float bias_rate;
	float mass_scale;
	float impulse_scale;
} kl_softness;

/// Coefficients of a spring of `hertz` and damping ratio `zeta` for a sub-step h (rigid when hertz = 0).
kl_softness kl_make_softness(float hertz, float zeta, float h);

/// Per body slot, valid during a step for the awake bodies: how far the body moved since the step
/// began (constraints measure their current error from these) and its inverse mass.
typedef struct kl_solver_body
{
	vec3s delta_position; ///< centre of mass displacement since the step began (world)
	versors delta_rotation; ///< q_now = delta_rotation * q_step_start
	mat3s inv_inertia;		///< world, at the start of the step (zero for fixed rotation / non-dynamic)
	float inv_mass;			///< zero for static, kinematic and sleeping bodies
	vec3s center0;			///< centre of mass at the start of the step
	versors rotation0;		///< body rotation at the start of the step
} kl_solver_body;

/// Everything one sub-step's constraint functions need.
typedef struct kl_solver_step
{
	kl_body_sim* sims;		///< poses and mass by body slot
	kl_body_state* states;	///< velocities by body slot
	const int* awake_bodies; ///< body slots that integrate this step
	vec3s gravity;
	float max_linear_speed;
	kl_solver_body* bodies; ///< by body slot (valid for awake bodies)
	float dt;				///< whole step
	float h;				///< sub-step
	float inv_h;
	int substep_count;
	kl_softness contact_softness; ///< dynamic vs dynamic
	kl_softness static_softness;  ///< dynamic vs static/kinematic: stiffer (2 × contact hertz)
	kl_softness joint_softness;
	float max_push_speed;		 ///< contact push-out limit, m/s
	float restitution_threshold; ///< m/s
	bool enable_warm_starting;
	int pass; ///< counts the solve and relax passes of the step (alternates point order)
} kl_solver_step;

/// The body state and solver body of a constraint side: index < 0 (static or sleeping) gives a
/// zero dummy. Writes are only made for dynamic bodies (inv_mass > 0).
static inline bool kl_solver_is_dynamic(const kl_solver_step* step, int body_slot)
{
	return body_slot >= 0 && step->bodies[body_slot].inv_mass > 0.0f;
}
