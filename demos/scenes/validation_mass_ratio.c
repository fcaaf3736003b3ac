// Kollide scenes — mass_ratio: a box 100 times heavier than the small pyramid it rests on.
// SPDX-License-Identifier: MIT
#include "scenes.h"

enum
{
	kl_mass_ratio_base = 4
};

/// A pyramid of base 4 (10 cubes of 1 m, density 1000) and on its top cube a cube of the same size
/// with density 100 000: the solver has to carry a 100:1 mass ratio through every contact below.
static bool mass_ratio_create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 6.0f, 4.0f, 0.6f)))
	{
		return false;
	}
	const vec3s half = kl_vec3(0.5f, 0.5f, 0.5f);
	for (int row = 0; row < kl_mass_ratio_base; ++row)
	{
		int count = kl_mass_ratio_base - row;
		for (int j = 0; j < count; ++j)
		{
			vec3s p = kl_vec3((float)j - 0.5f * (float)(count - 1), 0.0f, 0.5f + (float)row);
			if (KL_IS_NULL(kl_scene_add_box(world, p, glms_quat_identity(), half, 1000.0f, 0.6f)))
			{
				return false;
			}
		}
	}
	kl_body_id heavy = kl_scene_add_box(world, kl_vec3(0.0f, 0.0f, 0.5f + (float)kl_mass_ratio_base),
										glms_quat_identity(), half, 100000.0f, 0.6f);
	if (KL_IS_NULL(heavy))
	{
		return false;
	}
	kl_body_set_name(heavy, "heavy");
	return true;
}

const kl_scene kl_scene_mass_ratio = {
	.name = "mass_ratio",
	.description = "a cube 100x heavier on top of a pyramid of base 4",
	.create = mass_ratio_create,
};
