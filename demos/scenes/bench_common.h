// Kollide scenes — what Box3D's benchmark scenes share: the common world settings and the change
// from Box3D's y-up frame to Kollide's z-up one (BENCHMARKS.md §1).
// SPDX-License-Identifier: MIT
#pragma once

#include "scenes.h"

/// Box3D's benchmark settings: gravity 10 m/s² down, contact hertz 30, damping ratio 10, push-out
/// 3 m/s, restitution threshold 1 m/s, continuous collision on. Sleeping stays as the world default.
void kl_bench_scene_configure(kl_world_def* def);

/// kl_bench_scene_configure with sleeping off (large_pyramid, joint_grid, jolt_pyramid).
void kl_bench_scene_configure_no_sleep(kl_world_def* def);

/// A Box3D (y-up) point or vector in Kollide's z-up frame: (x, y, z) → (x, −z, y). The map is a
/// proper rotation (+90° about x), so it also carries angular velocities, and half extents
/// (hx, hy, hz) become (hx, hz, hy).
static inline vec3s kl_from_y_up(float x, float y, float z)
{
	return kl_vec3(x, -z, y);
}

/// Box3D half extents (hx, hy, hz) in Kollide's frame.
static inline vec3s kl_extents_from_y_up(float hx, float hy, float hz)
{
	return kl_vec3(hx, hz, hy);
}

/// A dynamic body with one box shape (density and friction as given), sleeping allowed or not.
kl_body_id kl_bench_scene_add_box(kl_world_id world, vec3s position, vec3s half_extents, float density, float friction,
								  bool enable_sleep);
