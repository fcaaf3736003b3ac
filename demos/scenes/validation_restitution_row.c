// Kollide scenes — restitution_row: balls of restitution 0, 0.2, 0.5 and 0.8 dropped side by side.
// SPDX-License-Identifier: MIT
#include "scenes.h"

#include <stdio.h>

static const float kl_ball_restitution[] = {0.0f, 0.2f, 0.5f, 0.8f};

/// Spheres of radius 0.25 m, 1 m apart along x, released from rest with their lowest point 2 m
/// above the ground (impact at 6.3 m/s, far above the 1 m/s restitution threshold). The ground has
/// restitution 0 and pairs take the maximum, so each ball bounces with its own e: the apex after
/// the first bounce should be e² of the drop height.
static bool restitution_row_create(kl_world_id world, void** state)
{
	*state = NULL;
	const float radius = 0.25f;
	const float drop = 2.0f;
	if (KL_IS_NULL(kl_scene_add_ground(world, 4.0f, 3.0f, 0.6f)))
	{
		return false;
	}
	const int count = (int)(sizeof(kl_ball_restitution) / sizeof(kl_ball_restitution[0]));
	for (int i = 0; i < count; ++i)
	{
		float e = kl_ball_restitution[i];
		char name[32];
		snprintf(name, sizeof(name), "ball_e%.1f", (double)e);
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = kl_vec3((float)i - 0.5f * (float)(count - 1), 0.0f, radius + drop);
		bd.name = name;
		kl_body_id body = kl_create_body(world, &bd);
		kl_shape_def sd = kl_default_shape_def();
		sd.material.restitution = e;
		if (KL_IS_NULL(kl_create_sphere_shape(body, &sd, radius)))
		{
			return false;
		}
	}
	return true;
}

const kl_scene kl_scene_restitution_row = {
	.name = "restitution_row",
	.description = "balls of restitution 0, 0.2, 0.5, 0.8 dropped 2 m onto the ground",
	.create = restitution_row_create,
};
