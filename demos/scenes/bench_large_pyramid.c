// Kollide scenes — large_pyramid (Box3D benchmark): one 2D pyramid of 5,050 touching cubes.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

enum
{
	k_base_count = 100, ///< cubes in the bottom row; 100·101/2 = 5,050 in all
};

/// Box3D's CreateLargePyramid with base 100 and density 100: row i = 0…99 at height (2i+1)h, cube j
/// of the row at x = (i+1)h + 2(j−i)h − 100h, all in Box3D's plane z = 0 (Kollide's y = 0). The
/// cubes touch exactly: 14,950 contact pairs. The top cube is named "top" for kollide-bench's
/// standing check.
static bool create(kl_world_id world, void** state)
{
	(void)state;
	const float h = 0.5f;
	if (KL_IS_NULL(kl_scene_add_ground(world, 400.0f, 400.0f, 0.6f)))
	{
		return false;
	}
	for (int i = 0; i < k_base_count; ++i)
	{
		float y = (2.0f * (float)i + 1.0f) * h;
		for (int j = i; j < k_base_count; ++j)
		{
			float x = ((float)i + 1.0f) * h + 2.0f * (float)(j - i) * h - h * (float)k_base_count;
			kl_body_id body = kl_bench_scene_add_box(world, kl_from_y_up(x, y, 0.0f), kl_vec3(h, h, h), 100.0f,
													 0.6f, false);
			if (KL_IS_NULL(body))
			{
				return false;
			}
			if (i == k_base_count - 1 && kl_body_set_name(body, "top") != KL_OK)
			{
				return false;
			}
		}
	}
	return true;
}

const kl_scene kl_scene_large_pyramid = {
	.name = "large_pyramid",
	.description = "Box3D benchmark: pyramid of 5,050 touching cubes (base 100), sleeping off; must stand",
	.benchmark_steps = 200,
	.configure = kl_bench_scene_configure_no_sleep,
	.create = create,
};
