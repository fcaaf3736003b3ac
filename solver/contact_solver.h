// Kollide internal — contact constraints: soft non-penetration with speculative points, Coulomb
// friction on two tangent directions, restitution with a velocity threshold, rolling resistance.
// SPDX-License-Identifier: MIT
#pragma once

#include "manifold.h"
#include "solver.h"

typedef struct kl_contact_constraint_point
{
	vec3s anchor_a; ///< from body a's centre of mass at the step start (world)
	vec3s anchor_b;
	/// Separation minus the anchors' offset along the normal: the current separation is
	/// adjusted_separation + dot(n, Δp_b − Δp_a + Δq_b r_b − Δq_a r_a).
	float adjusted_separation;
	float relative_velocity; ///< fastest normal approach seen before a solve row this step (restitution)
	/// The fastest approach the step can explain (restitution): the approach as the step began
	/// plus what gravity adds along the normal over the step; relative_velocity stays above it.
	float approach_limit;
	/// Most normal impulse per sub-step (kl_contact_impulse_limit): unbounded for a contact that can
	/// carry weight, else what stops its approach and pushes out at the push-out limit.
	float impulse_limit;
	float normal_mass;
	float tangent_mass[2];
	float normal_impulse;
	float tangent_impulse[2];
	float max_normal_impulse;
} kl_contact_constraint_point;

typedef struct kl_contact_constraint
{
	int contact_index; ///< into world->contacts
	int manifold_index; ///< which of the contact's manifolds (mesh pairs have several)
	int index_a;	   ///< body slot of an awake body, or -1 (static or sleeping)
	int index_b;
	vec3s normal;
	vec3s tangent[2];
	float friction;
	float restitution;
	float rolling_resistance;
	float spin_resistance;
	/// The relative tangent velocity friction drives toward (conveyor belts), along tangent[0..1].
	float tangent_speed[2];
	float rolling_mass[2];
	float spin_mass; ///< angular mass about the normal
	vec3s rolling_impulse; ///< world: about the tangents (rolling) and the normal (spin)
	kl_softness softness;
	/// Factors on each side's inverse mass and inertia in this constraint (1: as the body is); see
	/// kl_support_mass_scales.
	float mass_scale_a;
	float mass_scale_b;
	int point_count;
	kl_contact_constraint_point points[KL_MAX_MANIFOLD_POINTS];
} kl_contact_constraint;

/// The most normal impulse a point may carry per sub-step when its contact cannot carry weight
/// (its normal more than 45° from the vertical, or no gravity): what stops its approach at the
/// step's start (relative_velocity < 0), pushes out at step->max_push_speed and holds against the
/// forces that press the bodies together along the normal (`pressing`, m/s², the relative
/// acceleration from gravity and applied forces). Such a contact needs no more; in a pinch (a body
/// squeezed between a kinematic body and a wall, or between bodies so squeezed) its impulse would
/// otherwise grow without bound and throw the body out at several times the squeezing speed.
float kl_contact_impulse_limit(const kl_solver_step* step, float normal_mass, float relative_velocity,
							   float pressing);

/// Two unit tangents orthogonal to the unit normal, chosen deterministically from it.
void kl_tangent_basis(vec3s normal, vec3s* t1, vec3s* t2);

/// One manifold of a contact as the solver reads it; the engine fills it from its contact.
typedef struct kl_contact_source
{
	const kl_manifold* manifold;
	/// The normal of the contact's manifolds closest to the vertical: the support relation of the
	/// pair, which all its manifolds' rows share (kl_support_mass_scales).
	vec3s support_normal;
	vec3s center_a; ///< centres of mass, read for a static or sleeping side (index < 0)
	vec3s center_b;
	float friction;
	float restitution;
	float rolling_resistance;
	float spin_resistance;
	int contact_index;
	int manifold_index;
	/// Where B's anchors lie relative to the points (A's anchors): zero for a manifold found this
	/// step, B's motion relative to A since it was found for a kept one (contact recycling).
	vec3s anchor_shift;
	/// The relative velocity at the points (B's minus A's, world) whose tangential part friction
	/// drives toward: A's surface velocity minus B's (conveyor belts); zero on ordinary surfaces.
	vec3s surface_velocity;
} kl_contact_source;

void kl_prepare_contact(const kl_solver_step* step, const kl_contact_source* source, int index_a, int index_b,
						kl_contact_constraint* c);
void kl_warm_start_contact(const kl_solver_step* step, kl_contact_constraint* c);
/// One velocity iteration; use_bias false is the relax pass (only speculative gaps are honoured).
void kl_solve_contact(const kl_solver_step* step, kl_contact_constraint* c, bool use_bias);
void kl_apply_restitution(const kl_solver_step* step, kl_contact_constraint* c);
/// Writes the impulses back into the contact's manifold m (warm start of the next step).
void kl_store_contact_impulses(const kl_contact_constraint* c, kl_manifold* m);
