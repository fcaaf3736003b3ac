// Kollide scenes — free_fall (Kollide benchmark): 10,000 spinning boxes, spheres, capsules and
// compounds falling with no ground, so a step is integration (with the gyroscopic term) and the
// broadphase, without contacts.
// SPDX-License-Identifier: MIT
#include "scenes.h"

enum
{
	k_body_count = 10000,
	k_row = 100, ///< bodies per row of the 2 m grid in x and y
};

/// The bodies in slot order: body i sits on a 2 m grid 50…60 m up, spins, and takes shape i % 4
/// (box, sphere, capsule, or a rod with a ball at one end); sizes and heights come from a 32-bit
/// LCG started at 42, one draw per body.
static bool create(kl_world_id world, void** state)
{
	(void)state;
	kl_shape_def sd = kl_default_shape_def();
	uint32_t seed = 42u;
	for (int i = 0; i < k_body_count; ++i)
	{
		seed = seed * 1664525u + 1013904223u;
		float r = (float)(seed >> 8) / 16777216.0f;
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = kl_vec3((float)(i % k_row) * 2.0f, (float)(i / k_row) * 2.0f, 50.0f + 10.0f * r);
		bd.angular_velocity = kl_vec3(4.0f * r - 2.0f, 1.0f, 3.0f * r);
		kl_body_id body = kl_create_body(world, &bd);
		if (KL_IS_NULL(body))
		{
			return false;
		}
		bool shaped = true;
		switch (i % 4)
		{
			case 0:
				shaped = KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(0.3f + 0.4f * r, 0.4f, 0.2f)));
				break;
			case 1: shaped = KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 0.3f + 0.2f * r)); break;
			case 2: shaped = KL_IS_NON_NULL(kl_create_capsule_shape(body, &sd, 0.2f, 0.4f)); break;
			default:
				shaped = KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(0.5f, 0.1f, 0.1f)));
				sd.local_pose.p = kl_vec3(0.5f, 0.0f, 0.2f);
				shaped = shaped && KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 0.2f));
				sd.local_pose = kl_transform_identity();
				break;
		}
		if (!shaped)
		{
			return false;
		}
	}
	return true;
}

const kl_scene kl_scene_free_fall = {
	.name = "free_fall",
	.description =
		"Kollide benchmark: 10,000 spinning boxes, spheres, capsules and compounds in free fall (no contacts)",
	.benchmark_steps = 200,
	.create = create,
};
