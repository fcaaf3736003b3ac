// Kollide scenes — pyramid: a one-box-deep pyramid of base 20 (210 unit cubes).
// SPDX-License-Identifier: MIT
#include "scenes.h"

enum
{
	kl_pyramid_base = 20
};

/// Row r (from the ground) has base − r cubes of 1 m that touch their neighbours exactly, centred
/// on x = 0 in the plane y = 0; the top cube sits at z = base − 0.5.
static bool pyramid_create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 5.0f, 0.6f)))
	{
		return false;
	}
	for (int row = 0; row < kl_pyramid_base; ++row)
	{
		int count = kl_pyramid_base - row;
		for (int j = 0; j < count; ++j)
		{
			vec3s p = kl_vec3((float)j - 0.5f * (float)(count - 1), 0.0f, 0.5f + (float)row);
			kl_body_id body =
				kl_scene_add_box(world, p, glms_quat_identity(), kl_vec3(0.5f, 0.5f, 0.5f), 1000.0f, 0.6f);
			if (KL_IS_NULL(body))
			{
				return false;
			}
		}
	}
	return true;
}

const kl_scene kl_scene_pyramid = {
	.name = "pyramid",
	.description = "pyramid of base 20 (210 unit cubes) on the ground",
	.create = pyramid_create,
};
