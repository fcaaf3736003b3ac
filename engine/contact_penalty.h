// Kollide internal — the penalty contact model (docs/penalty-contact.md): shape pairs whose meshes
// carry inner-sphere trees push apart by a force from their penetration volume, computed and applied
// every sub-step before the velocities integrate, instead of constraint contacts.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

typedef struct kl_world kl_world;
struct kl_contact;
struct kl_shape;

/// Above this k_eff·h²/m_eff (k_eff: the spring's stiffness along the pair's normal, m_eff: the pair's
/// effective mass there, h: the sub-step) a pair's stiffness is lowered to it for that sub-step: the
/// spring's torques are explicit, stable below 4, and at 1 a pair rings at under a sixth of the
/// sub-step rate.
#define KL_PENALTY_MAX_STIFFNESS_RATIO 1.0f

/// Largest penalty stiffness a shape takes (N/m³).
#define KL_PENALTY_MAX_STIFFNESS 1.0e12f
/// Largest penalty damping ratio a shape takes.
#define KL_PENALTY_MAX_DAMPING_RATIO 100.0f

/// One pair under the penalty model this pass: its shapes, its mixed parameters, this sub-step's
/// impulses (computed over the workers, applied in pair order) and what kl_body_get_penalty_contact_data
/// reports.
typedef struct kl_penalty_pair
{
	int shape_a;
	int shape_b;
	int body_a;
	int body_b;
	float stiffness; ///< N/m³: the smaller of the shapes'
	float damping_ratio;
	float friction;
	vec3s linear;	 ///< this sub-step's impulse on A (B gets its opposite)
	vec3s angular_a; ///< this sub-step's angular impulses about the centres of mass
	vec3s angular_b;
	vec3s impulse_sum; ///< over the pass's sub-steps
	float normal_impulse_sum;
	float elapsed;
	vec3s normal;
	vec3s point;
	float volume;
	float max_depth;
	int sphere_pair_count;
	bool limited;
} kl_penalty_pair;

/// A worker's room for the sphere pairs of one query.
typedef struct kl_penalty_scratch
{
	struct kl_sphere_pair* pairs;
	int capacity;
} kl_penalty_scratch;

/// The defs' penalty settings are in range (kl_fail says which is not).
kl_result kl_check_penalty_def(const kl_shape_def* def);
/// A mesh shape may ask for the penalty model: its mesh has inner spheres and its scale is 1.
kl_result kl_check_penalty_mesh(const kl_mesh* mesh, vec3s scale);
/// The pair of shapes uses the penalty model (the rule of kl_contact_model).
bool kl_penalty_pair_applies(const struct kl_shape* a, const struct kl_shape* b);
/// The narrowphase of a penalty pair: no manifold; touching while the inner spheres overlap.
bool kl_penalty_contact_update(const kl_world* world, struct kl_contact* c);
/// The pass's penalty pairs (contacts with an awake body), before the sub-steps; none without a
/// penalty shape.
void kl_penalty_begin(kl_world* world);
/// One sub-step of h: every pair's query at the current poses and its impulses on the velocities.
void kl_penalty_substep(kl_world* world, float h);
void kl_penalty_free(kl_world* world);
