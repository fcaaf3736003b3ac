// Kollide internal — contact constraints eight at a time (Box2D v3's contact_solver.c SIMD path
// carried to 3D): the manifolds of one graph colour are packed into lanes of a structure of arrays
// and solved together with AVX2 (8 × float) or, on other CPUs, with plain loops over the 8 lanes.
// Each lane does the arithmetic of kl_solve_contact; constraints of one colour share no dynamic
// body, so solving the lanes side by side gives the scalar Gauss–Seidel result.
// SPDX-License-Identifier: MIT
#pragma once

#include "contact_solver.h"
#include "simd.h"

#include <stdint.h>

#define KL_WIDE_LANES 8

/// Three coordinates of 8 lanes.
typedef struct kl_wide_vec3
{
	float x[KL_WIDE_LANES];
	float y[KL_WIDE_LANES];
	float z[KL_WIDE_LANES];
} kl_wide_vec3;

/// Point slot k of 8 manifolds. Absent points have zero masses and impulses, so they do nothing.
typedef struct kl_contact_point_wide
{
	kl_wide_vec3 anchor_a; ///< from a's centre of mass at the step start (world)
	kl_wide_vec3 anchor_b;
	/// I⁻¹ (r × d) for d = normal, tangent 1, tangent 2: an impulse λ along d changes ω by λ times this.
	kl_wide_vec3 angular_a[3];
	kl_wide_vec3 angular_b[3];
	float adjusted_separation[KL_WIDE_LANES];
	float relative_velocity[KL_WIDE_LANES]; ///< fastest normal approach seen (restitution)
	float approach_limit[KL_WIDE_LANES];	///< kl_contact_constraint_point.approach_limit
	float impulse_limit[KL_WIDE_LANES];		///< kl_contact_constraint_point.impulse_limit
	float normal_mass[KL_WIDE_LANES];
	float tangent_mass[2][KL_WIDE_LANES];
	float normal_impulse[KL_WIDE_LANES];
	float tangent_impulse[2][KL_WIDE_LANES];
	float max_normal_impulse[KL_WIDE_LANES];
} kl_contact_point_wide;

/// 8 contact constraints of one colour in SoA form; lanes beyond lane_count are inert.
/// Needs no particular alignment (the kernels use unaligned loads).
typedef struct kl_contact_constraint_wide
{
	int index_a[KL_WIDE_LANES]; ///< body slots, -1 for static, sleeping and unused lanes
	int index_b[KL_WIDE_LANES];
	int32_t dynamic_a[KL_WIDE_LANES]; ///< nonzero: velocities are written back
	int32_t dynamic_b[KL_WIDE_LANES];
	int lane_count;
	int point_count; ///< the largest point count of the lanes
	bool any_rolling;
	bool any_restitution;
	bool any_tangent_speed; ///< a lane has a conveyor belt (kl_contact_constraint.tangent_speed)
	float inv_mass_a[KL_WIDE_LANES];
	float inv_mass_b[KL_WIDE_LANES];
	/// World inverse inertia (symmetric): xx, yy, zz, xy, xz, yz; only rolling resistance needs it.
	float inv_inertia_a[6][KL_WIDE_LANES];
	float inv_inertia_b[6][KL_WIDE_LANES];
	kl_wide_vec3 normal;
	kl_wide_vec3 tangent[2];
	float friction[KL_WIDE_LANES];
	float restitution[KL_WIDE_LANES];
	float rolling_resistance[KL_WIDE_LANES];
	float spin_resistance[KL_WIDE_LANES];
	float tangent_speed[2][KL_WIDE_LANES];
	float rolling_mass[2][KL_WIDE_LANES];
	float spin_mass[KL_WIDE_LANES];
	kl_wide_vec3 rolling_impulse;
	float bias_rate[KL_WIDE_LANES];
	float mass_scale[KL_WIDE_LANES];
	float impulse_scale[KL_WIDE_LANES];
	kl_contact_point_wide points[KL_MAX_MANIFOLD_POINTS];
} kl_contact_constraint_wide;

/// Builds a wide constraint from up to 8 prepared scalar constraints (kl_prepare_contact already
/// ran on them). The constraints must share no dynamic body (one colour).
void kl_gather_contacts_wide(const kl_solver_step* step, const kl_contact_constraint* constraints, int lane_count,
							 kl_contact_constraint_wide* out);
void kl_warm_start_contacts_wide(const kl_solver_step* step, kl_contact_constraint_wide* c);
/// One velocity iteration; use_bias false is the relax pass.
void kl_solve_contacts_wide(const kl_solver_step* step, kl_contact_constraint_wide* c, bool use_bias);
void kl_apply_restitution_wide(const kl_solver_step* step, kl_contact_constraint_wide* c);
/// Writes accumulated impulses (normal, tangents, max normal, rolling) and the fastest approach
/// speed (relative_velocity) back into the scalar constraints.
void kl_scatter_contacts_wide(const kl_contact_constraint_wide* c, kl_contact_constraint* constraints, int lane_count);

/// The kernels of one SIMD level. The functions above use kl_simd_level_get()'s; tests and
/// benchmarks call a level directly to compare the two on one machine.
typedef struct kl_contact_wide_kernels
{
	void (*warm_start)(const kl_solver_step* step, kl_contact_constraint_wide* c);
	void (*solve)(const kl_solver_step* step, kl_contact_constraint_wide* c, bool use_bias);
	void (*restitution)(const kl_solver_step* step, kl_contact_constraint_wide* c);
} kl_contact_wide_kernels;

/// The kernels of a level; NULL for AVX2 when the build has no AVX2 kernels. The caller checks
/// that the CPU has AVX2 (kl_simd_level_get() == KL_SIMD_AVX2).
const kl_contact_wide_kernels* kl_contact_wide_kernels_get(kl_simd_level level);

// Shared by the kernels of both levels (contact_solver_wide.c).

/// Velocities (and, for the solve, motion since the step began) of one side of the 8 lanes.
typedef struct kl_wide_bodies
{
	float v[3][KL_WIDE_LANES];
	float w[3][KL_WIDE_LANES];
	float dp[3][KL_WIDE_LANES];
	float dq[4][KL_WIDE_LANES];
} kl_wide_bodies;

/// Loads the side's velocities by body slot (zeros for index < 0); with_delta also its
/// delta_position and delta_rotation (zero and identity for index < 0).
void kl_wide_gather_bodies(const kl_solver_step* step, const int* index, bool with_delta, kl_wide_bodies* out);
/// Stores the velocities of the lanes whose body is dynamic.
void kl_wide_scatter_bodies(const kl_solver_step* step, const int* index, const int32_t* dynamic,
							const kl_wide_bodies* in);

const kl_contact_wide_kernels* kl_contact_wide_kernels_scalar(void);
const kl_contact_wide_kernels* kl_contact_wide_kernels_avx2(void);
