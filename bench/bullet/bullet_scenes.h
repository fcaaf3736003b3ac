// kollide-bench-bullet — the rigid-body scenes run in Bullet 3 (bullet_pyramid.cpp), beside the
// broadphase comparison of bullet_broadphase.cpp.
// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

/// One run of a rigid-body scene.
struct kl_bullet_scene_result
{
	double ms = 0.0;	   ///< mean ms per 60 Hz step over steps 2…N
	double first_ms = 0.0; ///< the untimed first step
	uint32_t hash = 0;	   ///< FNV-1a over the dynamic bodies' transforms
	int bodies = 0;		   ///< dynamic and static bodies
	bool standing = false;
	float top_dy = 0.0f;	 ///< top cube's height change (m)
	float lowest_drop = 0.0f; ///< how far the lowest cube sank below the lowest start height (m)
};

/// Box3D's large_pyramid in Bullet (btDiscreteDynamicsWorld, y up): steps steps of
/// stepSimulation(1/60, 4, 1/240), the first untimed. False on failure.
bool kl_bullet_large_pyramid(int steps, kl_bullet_scene_result& out);
