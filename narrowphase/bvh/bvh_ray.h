// Kollide internal — one ray against a triangle BVH: the nearest triangle it meets within a length.
// The mesh contacts use it to tell a penetration from the far side of a wall (collide_mesh.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"

/// The nearest hit parameter t in (min_t, max_t] of the ray origin + t·dir (tree frame, double)
/// against the tree's triangles (vertices xyz floats, 3 indices per triangle), either side of a
/// triangle, skipping triangle `skip` (-1: none). Returns max_t + 1 when nothing is hit.
double kl_bvh_ray(const kl_bvh* tree, const float* vertices, const int32_t* indices, const double origin[3],
				  const double dir[3], double min_t, double max_t, int skip);
