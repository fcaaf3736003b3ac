// Kollide internal — triangle–triangle queries for mesh–mesh contact: an exact overlap test
// (Guigue–Devillers on exact orientation predicates) and the distance with closest points.
// SPDX-License-Identifier: MIT
#pragma once

#include "tri_closest.h"

#include <kollide/types.h>

/// Sign of det(b - a, c - a, d - a) for float inputs, exact for every finite input: +1 when d
/// lies on the side that the normal (b - a) × (c - a) points to, -1 on the other side, 0 when the
/// four points are coplanar. A double-precision filter decides almost every call; only when its
/// error bound cannot decide is the determinant summed exactly (products of floats are exact in
/// double, so the 24 terms of the 4×4 determinant become an exact floating-point expansion).
int kl_orient3d(vec3s a, vec3s b, vec3s c, vec3s d);

/// Whether the closed triangles a and b share at least one point. Exact (no tolerance): touching
/// at a vertex or an edge counts, coplanar triangles are tested in their plane, and degenerate
/// triangles (collinear or coincident vertices) are treated as the segment or point they are.
/// Symmetric: swapping the arguments gives the same answer.
bool kl_tri_tri_overlap(const vec3s a[3], const vec3s b[3]);

/// Whether the closed segment pq meets the closed triangle abc (which may be degenerate). Exact.
/// This is the edge test of the reference path that kl_tri_tri_overlap falls back to for
/// coplanar or degenerate pairs.
bool kl_segment_triangle_overlap(vec3s p, vec3s q, vec3s a, vec3s b, vec3s c);

/// Distance between two triangles with the closest points and the features they lie on.
typedef struct kl_tri_distance
{
	float distance; ///< 0 when the triangles overlap (kl_tri_tri_overlap)
	vec3s point_a;	///< on triangle a (for overlapping triangles: a common point)
	vec3s point_b;	///< on triangle b
	uint8_t feature_a; ///< KL_TRI_VERTEX0 + k, KL_TRI_EDGE0 + k or KL_TRI_FACE
	uint8_t feature_b;
	bool overlap;
} kl_tri_distance;

/// Distance between the closed triangles a and b: the minimum over the 9 edge–edge pairs and the
/// 6 vertex–face projections (which together always contain a closest pair of disjoint triangles),
/// evaluated in double around a local origin. For overlapping triangles the distance is 0 and the
/// points are a common point (on the intersection segment, or where an edge crosses the other
/// triangle in the coplanar case). Degenerate triangles work (their vertex–face tests are skipped:
/// their edges already cover them). Ties go to the earlier candidate, so the result is deterministic.
kl_tri_distance kl_tri_tri_distance(const vec3s a[3], const vec3s b[3]);
/// kl_tri_tri_distance for a pair the caller has already found apart (kl_tri_tri_overlap false):
/// skips that test, which the mesh contacts would otherwise run twice per pair.
kl_tri_distance kl_tri_tri_distance_apart(const vec3s a[3], const vec3s b[3]);

/// The segment where two non-coplanar, overlapping triangles cross, in double. Each end carries
/// the feature of a and of b that it lies on (an end lies on an edge or vertex of one triangle and
/// usually in the face of the other). Returns false for coplanar, degenerate or non-overlapping
/// triangles (nothing written).
bool kl_tri_tri_intersection_segment(const vec3s a[3], const vec3s b[3], vec3s ends[2], uint8_t features_a[2],
									 uint8_t features_b[2]);
