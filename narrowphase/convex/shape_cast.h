// Kollide internal — a convex proxy (a GJK core and its radius) against one target in the target's
// frame: overlap tests and linear casts, by conservative advancement on GJK distances, against a
// convex core (a sphere, capsule, box or hull, or one triangle of a mesh) or a plane. Pure
// geometry: the world queries (engine/world_query_shape.c) place the proxy and walk the shapes.
// SPDX-License-Identifier: MIT
#pragma once

#include "gjk.h"

/// A cast stops where the gap between the two surfaces is between half this and this (m), so that
/// the cast shape moved to the hit is just short of touching.
#define KL_CAST_TOLERANCE (0.1f * KL_LINEAR_SLOP)

typedef struct kl_cast_output
{
	vec3s point;	///< on the target's surface (target frame); inside both for an initial overlap
	vec3s normal;	///< unit: the target's surface normal, towards the cast proxy; zero for an initial overlap
	float fraction; ///< of the translation
} kl_cast_output;

/// The point of core a placed by xf that lies farthest along dir (dir in the frame xf maps into).
vec3s kl_proxy_support_point(const kl_gjk_proxy* a, kl_transform xf, vec3s dir);

/// A ball around the rounded proxy a placed by xf.
void kl_proxy_bounding_sphere(const kl_gjk_proxy* a, kl_transform xf, vec3s* center, float* radius);

/// Whether proxy a, placed in b's frame by xf_ab, and proxy b, each rounded by its radius, touch or
/// overlap.
bool kl_proxy_overlap(const kl_gjk_proxy* a, kl_transform xf_ab, const kl_gjk_proxy* b);

/// Whether proxy a, placed in the plane's frame by xf_ab, touches or enters the half-space
/// dot(normal, x) <= offset.
bool kl_proxy_overlap_plane(const kl_gjk_proxy* a, kl_transform xf_ab, kl_plane plane);

/// Proxy a, placed in b's frame by xf_ab, moves by fraction · translation (b's frame) for fraction
/// in [0, max_fraction]. True with the first fraction at which the gap between the rounded
/// surfaces is at most KL_CAST_TOLERANCE (the cast stops with the gap between half of it and it):
/// the distance under a translation is convex in the fraction, so the advancement, Newton's method
/// from below, never passes the hit. Overlapping at the start: fraction 0, zero normal.
bool kl_proxy_cast(const kl_gjk_proxy* a, kl_transform xf_ab, vec3s translation, float max_fraction,
				   const kl_gjk_proxy* b, kl_cast_output* out);

/// kl_proxy_cast against the half-space of a plane (in closed form).
bool kl_proxy_cast_plane(const kl_gjk_proxy* a, kl_transform xf_ab, vec3s translation, float max_fraction,
						 kl_plane plane, kl_cast_output* out);
