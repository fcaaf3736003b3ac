// Kollide internal — the parts of kl_world_draw that live in their own files.
// SPDX-License-Identifier: MIT
#pragma once

#include "world.h"

/// Whether a shape's bounds meet the draw's bounds (use_drawing_bounds).
static inline bool kl_draw_bounds_overlap(kl_aabb a, kl_aabb b)
{
	return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y && b.lower.y <= a.upper.y &&
		   a.lower.z <= b.upper.z && b.lower.z <= a.upper.z;
}

/// The conglomerate boxes, octree leaf cells and point-shell samples of the mesh shapes that use
/// the point-shell backend, as the draw's flags ask (debug_draw_pointshell.c).
void kl_draw_pointshells(const kl_world* world, const kl_debug_draw* draw);
/// The inner spheres of the penalty shapes and the last step's overlapping sphere pairs, as the
/// draw's flags ask (debug_draw_penalty.c).
void kl_draw_penalty(const kl_world* world, const kl_debug_draw* draw);
