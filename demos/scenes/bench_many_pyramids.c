// Kollide scenes — many_pyramids (Box3D benchmark): 14×14 small pyramids, 10,780 cubes.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

enum
{
	k_base_count = 10, ///< 55 cubes per pyramid
	k_rows = 14,
	k_columns = 14,
};

/// One pyramid of Box3D's CreateSmallPyramid: cube (i, j ≥ i) at x = (i+1)h + 2(j−i)h + centre_x − 0.5,
/// height (2i+1)h, Box3D depth base_z. Cube sleeping off, density 100.
static bool add_pyramid(kl_world_id world, float extent, float center_x, float base_z)
{
	for (int i = 0; i < k_base_count; ++i)
	{
		float y = (2.0f * (float)i + 1.0f) * extent;
		for (int j = i; j < k_base_count; ++j)
		{
			float x = ((float)i + 1.0f) * extent + 2.0f * (float)(j - i) * extent + center_x - 0.5f;
			vec3s half = kl_vec3(extent, extent, extent);
			if (KL_IS_NULL(kl_bench_scene_add_box(world, kl_from_y_up(x, y, base_z), half, 100.0f, 0.6f, false)))
			{
				return false;
			}
		}
	}
	return true;
}

/// Box3D's CreateManyPyramids: ground half extent 0.5·14·11 = 77, pyramids 11 m apart in x and
/// 2·76/13 m apart in Box3D z.
static bool create(kl_world_id world, void** state)
{
	(void)state;
	const float extent = 0.5f;
	const float ground_extent = extent * (float)k_columns * ((float)k_base_count + 1.0f);
	if (KL_IS_NULL(kl_scene_add_ground(world, ground_extent, ground_extent, 0.6f)))
	{
		return false;
	}
	const float base_width = 2.0f * extent * (float)k_base_count;
	const float delta_z = 2.0f * (ground_extent - 2.0f * extent) / ((float)k_rows - 1.0f);
	float base_z = -ground_extent + 2.0f * extent;
	for (int r = 0; r < k_rows; ++r)
	{
		for (int c = 0; c < k_columns; ++c)
		{
			float center_x = -ground_extent + (float)c * (base_width + 2.0f * extent) + 2.0f * extent;
			if (!add_pyramid(world, extent, center_x, base_z))
			{
				return false;
			}
		}
		base_z += delta_z;
	}
	return true;
}

const kl_scene kl_scene_many_pyramids = {
	.name = "many_pyramids",
	.description = "Box3D benchmark: 14x14 pyramids of base 10, 10,780 cubes, cube sleeping off",
	.benchmark_steps = 100,
	.configure = kl_bench_scene_configure,
	.create = create,
};
