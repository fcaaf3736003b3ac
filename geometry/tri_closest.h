// Kollide internal — the closest point of a triangle to a point, with the feature (vertex, edge or
// face) it lies on: the mesh contacts' distance queries and the inner-sphere packing's distance
// field both need it, and the feature is what an inside test by pseudo-normals reads.
// SPDX-License-Identifier: MIT
#pragma once

#include "dvec3.h"

#include <kollide/types.h>

#include <stdint.h>

/// Features of a triangle (v0, v1, v2), as the distance and contact code name them: vertex k,
/// edge k (from vertex k to vertex k+1 mod 3), or the face. Fits in 3 bits.
enum
{
	KL_TRI_VERTEX0 = 0,
	KL_TRI_EDGE0 = 3,
	KL_TRI_FACE = 6,
};

/// Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5) and the
/// feature it lies on, in double.
kl_d3 kl_closest_on_triangle_d(kl_d3 p, kl_d3 a, kl_d3 b, kl_d3 c, uint8_t* feature);

/// Closest point of the triangle t to p (Ericson's Voronoi-region walk, in double around t[0]) and
/// the feature it lies on (KL_TRI_VERTEX0 + k, KL_TRI_EDGE0 + k or KL_TRI_FACE; may be NULL).
vec3s kl_closest_on_triangle(vec3s p, const vec3s t[3], uint8_t* feature);
