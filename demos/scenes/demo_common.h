// Kollide scenes — what the demo scenes share: a small deterministic random generator, body
// builders that check every create call, and random convex rocks.
// SPDX-License-Identifier: MIT
#pragma once

#include "scenes.h"

/// A 32-bit xorshift generator: the same sequence on every platform and run, so that a demo scene
/// is the same scene every time (and its hash is comparable between runs).
typedef struct kl_demo_rng
{
	uint32_t state;
} kl_demo_rng;

/// Uniform in [lo, hi).
static inline float kl_demo_random(kl_demo_rng* rng, float lo, float hi)
{
	uint32_t x = rng->state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng->state = x;
	return lo + (hi - lo) * (float)(x >> 8) * (1.0f / 16777216.0f);
}

/// Uniform in the box [lo, hi) per component. The components are drawn in the order x, y, z;
/// (written out as three calls inside one expression, C would leave the order to the compiler, and
/// the scene would differ between compilers).
static inline vec3s kl_demo_random_vec3(kl_demo_rng* rng, vec3s lo, vec3s hi)
{
	float x = kl_demo_random(rng, lo.x, hi.x);
	float y = kl_demo_random(rng, lo.y, hi.y);
	float z = kl_demo_random(rng, lo.z, hi.z);
	return kl_vec3(x, y, z);
}

/// A random unit quaternion (normalised 4-vector from a cube, rejected outside the unit ball).
versors kl_demo_random_rotation(kl_demo_rng* rng);

/// A body of that type at a pose; the null id on failure.
kl_body_id kl_demo_add_body(kl_world_id world, kl_body_type type, vec3s position, versors rotation);

/// A random convex rock: the hull of `count` points on an ellipsoid with semi-axes `radii`,
/// jittered inwards. NULL on failure (the caller destroys it).
kl_hull* kl_demo_make_rock(kl_demo_rng* rng, vec3s radii, int count);

/// Unit quaternion of `angle` radians about a unit axis.
static inline versors kl_demo_axis_angle(vec3s axis, float angle)
{
	return glms_quatv(angle, axis);
}
