// kollide-bench — free_fall: many bodies with the gyroscopic term and no contacts.
// SPDX-License-Identifier: MIT
#include "bench_scenes.h"

kl_world_id kl_bench_free_fall(int worker_count)
{
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = worker_count;
	kl_world_id world = kl_create_world(&wd);
	if (KL_IS_NULL(world))
	{
		return world;
	}
	kl_shape_def sd = kl_default_shape_def();
	uint32_t seed = 42u;
	for (int i = 0; i < 10000; ++i)
	{
		seed = seed * 1664525u + 1013904223u;
		float r = (float)(seed >> 8) / 16777216.0f;
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = kl_vec3((float)(i % 100) * 2.0f, (float)(i / 100) * 2.0f, 50.0f + 10.0f * r);
		bd.angular_velocity = kl_vec3(4.0f * r - 2.0f, 1.0f, 3.0f * r);
		kl_body_id body = kl_create_body(world, &bd);
		switch (i % 4)
		{
			case 0: kl_create_box_shape(body, &sd, kl_vec3(0.3f + 0.4f * r, 0.4f, 0.2f)); break;
			case 1: kl_create_sphere_shape(body, &sd, 0.3f + 0.2f * r); break;
			case 2: kl_create_capsule_shape(body, &sd, 0.2f, 0.4f); break;
			default:
				kl_create_box_shape(body, &sd, kl_vec3(0.5f, 0.1f, 0.1f));
				sd.local_pose.p = kl_vec3(0.5f, 0.0f, 0.2f);
				kl_create_sphere_shape(body, &sd, 0.2f);
				sd.local_pose = kl_transform_identity();
				break;
		}
	}
	return world;
}
