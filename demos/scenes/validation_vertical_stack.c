// Kollide scenes — vertical_stack: fifteen unit cubes in a column, the classic test of resting contact.
// SPDX-License-Identifier: MIT
#include "scenes.h"

enum
{
	kl_vertical_stack_count = 15
};

/// Cubes of 1 m (half extent 0.5), friction 0.3 on boxes and ground, placed face to face with no
/// gap, so the stack has to hold still from the first step.
static bool vertical_stack_create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 5.0f, 5.0f, 0.3f)))
	{
		return false;
	}
	for (int i = 0; i < kl_vertical_stack_count; ++i)
	{
		vec3s p = kl_vec3(0.0f, 0.0f, 0.5f + (float)i);
		kl_body_id body =
			kl_scene_add_box(world, p, glms_quat_identity(), kl_vec3(0.5f, 0.5f, 0.5f), 1000.0f, 0.3f);
		if (KL_IS_NULL(body))
		{
			return false;
		}
	}
	return true;
}

const kl_scene kl_scene_vertical_stack = {
	.name = "vertical_stack",
	.description = "15 unit cubes stacked on the ground, friction 0.3",
	.create = vertical_stack_create,
};
