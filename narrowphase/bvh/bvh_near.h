// Kollide internal — the triangles of a BVH near a point: every leaf whose DOP comes within a radius,
// the radius shrinking as the caller finds closer triangles. The vertex contacts use it to find the
// surface nearest to a vertex that lies deep inside the other body (vertex_contacts.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"

/// Called for each triangle whose leaf DOP lies within *radius of the point; it may lower *radius
/// (to the distance of the closest triangle found so far), which prunes the rest of the walk.
typedef void kl_bvh_near_fn(int triangle, double* radius, void* context);

/// Walks the tree (its own frame) from the root, visiting every leaf whose DOP is within radius of
/// point (Euclidean distance, bounded below by the farthest slab), in depth-first order.
void kl_bvh_near_point(const kl_bvh* tree, const double point[3], double radius, kl_bvh_near_fn* visit,
					   void* context);
