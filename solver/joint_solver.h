// Kollide internal — joint constraints (fixed, revolute, prismatic, spherical, distance/spring,
// target) with limits, motors and springs, solved as soft constraints in the sub-step loop.
//
// Conventions. Each joint measures its current error from the step-start anchors plus the bodies'
// motion since the step began (kl_solver_body deltas), as Box2D v3 joints do. Rigid rows are soft
// (the world's joint softness) while use_bias is set and rigid in the relax pass; springs, position
// motors and target joints are physical drives and keep their bias in both passes. Accumulated
// impulses are per sub-step (warm starting applies them again each sub-step), so force = impulse / h.
//
// Stiffness. A rigid row at the joint softness (hertz f) stretches elastically under a steady
// load F by F·(1/m_a + 1/m_b)/(2π f)² along a line through the centres (Box2D's soft step does the
// same): a 20-link chain of 1 kg links at 60 Hz stretches its top joint by 2.6 mm. Stiffer joints
// need more sub-steps: revolute chains went unstable with f above about a third of the sub-step
// rate (stable: 60 Hz at 4 sub-steps, 120 Hz at 8; unstable: 120 Hz at 4, 180 Hz at 8), so the
// stage should cap f at a quarter of the sub-step rate as Box2D does.
//
// Call order per sub-step: warm start, solve, relax (which also measures the ball rows' mass and
// the axial rows for the moved anchors) — the stage always warm starts, with or without warm
// starting enabled.
// SPDX-License-Identifier: MIT
#pragma once

#include "solver.h"

/// What a joint keeps between steps: the accumulated impulses of the last sub-step (warm starting;
/// their meaning per type is that of kl_joint_constraint's) and the forces they amount to.
typedef struct kl_joint_solver_state
{
	vec3s constraint_force; ///< on body b, last step
	vec3s constraint_torque;
	vec3s linear_impulse;
	vec3s angular_impulse;
	float spring_impulse;
	float motor_impulse;
	float lower_impulse;
	float upper_impulse;
	float cone_impulse;			///< spherical joints' swing limit
	vec3s motor_angular_impulse; ///< spherical joints' motor
	float motor_force; ///< N or N·m, last step (target joint: the pulling force's magnitude)
} kl_joint_solver_state;

/// A joint as the solver reads it when it prepares the joint's constraint; the engine fills it.
typedef struct kl_joint_source
{
	const kl_joint_def* def; ///< read again while solving (the spherical motor's velocity)
	int joint_slot;
	int body_a; ///< body slots
	int body_b;
	vec3s target; ///< KL_JOINT_TARGET: the world point body b's anchor is pulled to
	const kl_joint_solver_state* state;
} kl_joint_source;

/// Per-step data of one joint (anchors, effective masses, softness), built by kl_prepare_joint from
/// a kl_joint_source. Accumulated impulses persist in kl_joint_solver_state between steps.
typedef struct kl_joint_constraint
{
	const kl_joint_def* def;
	int joint_slot;
	int index_a; ///< body slot of an awake body, or -1 (static or sleeping: a zero dummy)
	int index_b;
	kl_joint_type type;
	bool enable_spring; ///< and the other drives below: which rows the type's solve runs
	bool enable_motor;
	bool enable_limit;
	bool position_motor;
	bool rigid_length; ///< distance joint without a spring: the length is held

	float inv_mass_a;
	float inv_mass_b;
	mat3s inv_inertia_a; ///< world, step start
	mat3s inv_inertia_b;
	/// Joint frames at the step start: world rotation, anchor relative to the centre of mass (world).
	kl_transform frame_a;
	kl_transform frame_b;
	/// Centre of mass b minus centre of mass a at the step start (target joint: centre b − target).
	vec3s delta_center;
	kl_softness softness;		 ///< rigid rows: the world's joint softness
	kl_softness spring_softness; ///< springs (and soft welds, target joints)

	// Accumulated impulses of the current sub-step; their meaning depends on the type:
	// linear: point (spherical, fixed, revolute, target) or the two slide-normal rows (prismatic, x/y);
	// angular: rotation lock (fixed, prismatic), the two hinge-normal rows (revolute, x/y) or the
	// spherical spring's rows. The ball row's fields come first: they are all a plain ball joint
	// reads (twenty thousand of them in joint_grid, eight passes a step).
	vec3s linear_impulse;
	/// K⁻¹ of the ball row (spherical, fixed, revolute, target) for the anchors as they are now:
	/// computed when the joint is prepared and again by each relax pass, which runs after the
	/// positions moved; the next sub-step's warm start and solve see the same anchors. Prismatic:
	/// the slide-normal rows' K⁻¹ as a world operator on the plane normal to the slide.
	mat3s point_mass;
	vec3s angular_impulse;
	float spring_impulse;
	float motor_impulse;
	float lower_impulse; ///< axial limits; spherical: twist limits
	float upper_impulse;
	float cone_impulse; ///< spherical: swing cone limit
	float cone_angle;
	/// Spherical motor: accumulated angular impulse (world); its target is read from the joint's def.
	/// The spherical spring accumulates into angular_impulse.
	vec3s motor_angular_impulse;

	// Axial drive (revolute, prismatic, distance; target joint uses max_motor_impulse). Springs pull
	// to coordinate 0 (distance: `length`); a position motor is a soft constraint at the joint
	// softness towards motor_target, clamped to max_motor_impulse, whose requested speed is capped
	// at √(a_max·|error|) with a_max = max force / axial mass (it can brake in time at half force).
	float motor_speed;
	float motor_target;
	float max_motor_impulse; ///< max_motor_force · h
	float lower;
	float upper;
	float length; ///< distance rest length

	/// Axis of the axial rows as last measured: hinge or slide axis (frame a's z) or the distance direction.
	vec3s axis;
	float axial_mass;
	/// The axial rows carry the impulse of the joint's coupled rows with them (per unit of axial
	/// impulse): revolute, a linear impulse at the anchors that keeps the ball row's velocity;
	/// prismatic, an angular impulse that keeps the relative angular velocity (the rotation lock's
	/// angular part; the anchored lock also reads the slide rows, which this leaves slightly
	/// disturbed, measured harmless). The row then moves the bodies only along the joint's free
	/// coordinate, with the inertia about the hinge line (or the translational mass along the
	/// slide), so motors, springs and limits on offset loads respond as designed instead of through
	/// the centre-of-mass inertia.
	vec3s axial_coupling;
	/// Revolute: the hinge-normal angular Jacobians; prismatic: the slide-normal directions;
	/// spherical: perp_x and perp_y are the swing limit's axis and coupling, `axis` and
	/// axial_coupling the twist limit's. Kept from the last solve for the reported force and torque.
	vec3s perp_x;
	vec3s perp_y;
	/// The linear impulse at the anchors that the anchored angular rows (fixed and prismatic: the
	/// rotation lock; revolute: the hinge alignment; spherical: the spring's and motor's rows) carry
	/// with their impulses, from the last solve (reported force).
	vec3s anchored_linear;
} kl_joint_constraint;

/// Fills c from the joint at `joint_slot` for this step. body indices: slot of an awake body or -1.
void kl_prepare_joint(const kl_solver_step* step, const kl_joint_source* source, int index_a, int index_b,
					  kl_joint_constraint* c);
void kl_warm_start_joint(const kl_solver_step* step, kl_joint_constraint* c);
/// One sub-step's velocity iteration; use_bias false is the relax pass (no position correction).
void kl_solve_joint(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias);
/// Writes the accumulated impulses back into the joint's state (warm start, constraint force
/// and torque = impulse / h of the last sub-step, the step's mean for steady loads).
void kl_store_joint_impulses(const kl_solver_step* step, kl_joint_constraint* c, kl_joint_solver_state* out);
