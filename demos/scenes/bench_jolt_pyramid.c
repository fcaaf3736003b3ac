// Kollide scenes — jolt_pyramid (Jolt's "Pyramid" performance scene): 1,240 boxes in 15 square
// layers, each layer resting 0.5 m above the last.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

enum
{
	k_height = 15, ///< layer i has (15 − i)² boxes: 1,240 in all
};

/// Floor (50, 1, 50); boxes of half extent 1 at x = −15 + 2j + (i odd), y = 1 + 2.5i,
/// z = −15 + 2k + (i odd) for j, k ∈ [i/2, 15 − (i+1)/2) (Jolt's y-up coordinates), friction 0.2.
/// Jolt's scene uses its own step settings; here it runs with Box3D's (BENCHMARKS.md §1).
static bool create(kl_world_id world, void** state)
{
	(void)state;
	const float friction = 0.2f;
	if (KL_IS_NULL(kl_scene_add_ground(world, 50.0f, 50.0f, friction)))
	{
		return false;
	}
	for (int i = 0; i < k_height; ++i)
	{
		float shift = (i & 1) ? 1.0f : 0.0f;
		for (int j = i / 2; j < k_height - (i + 1) / 2; ++j)
		{
			for (int k = i / 2; k < k_height - (i + 1) / 2; ++k)
			{
				float x = -(float)k_height + 2.0f * (float)j + shift;
				float y = 1.0f + 2.5f * (float)i;
				float z = -(float)k_height + 2.0f * (float)k + shift;
				if (KL_IS_NULL(kl_bench_scene_add_box(world, kl_from_y_up(x, y, z), kl_vec3(1.0f, 1.0f, 1.0f), 1000.0f,
													  friction, false)))
				{
					return false;
				}
			}
		}
	}
	return true;
}

const kl_scene kl_scene_jolt_pyramid = {
	.name = "jolt_pyramid",
	.description = "Jolt's Pyramid: 1,240 boxes in 15 layers 0.5 m apart, friction 0.2, sleeping off",
	.benchmark_steps = 500,
	.configure = kl_bench_scene_configure_no_sleep,
	.create = create,
};
