// Kollide scenes — settings and builders shared by the benchmark scenes.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

void kl_bench_scene_configure(kl_world_def* def)
{
	def->gravity = kl_vec3(0.0f, 0.0f, -10.0f);
	def->contact_hertz = 30.0f;
	def->contact_damping_ratio = 10.0f;
	def->max_contact_push_speed = 3.0f;
	def->restitution_threshold = 1.0f;
	def->enable_continuous = true;
}

void kl_bench_scene_configure_no_sleep(kl_world_def* def)
{
	kl_bench_scene_configure(def);
	def->enable_sleep = false;
}

kl_body_id kl_bench_scene_add_box(kl_world_id world, vec3s position, vec3s half_extents, float density, float friction,
								  bool enable_sleep)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = position;
	bd.enable_sleep = enable_sleep;
	kl_body_id body = kl_create_body(world, &bd);
	if (KL_IS_NULL(body))
	{
		return body;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = density;
	sd.material.friction = friction;
	if (KL_IS_NULL(kl_create_box_shape(body, &sd, half_extents)))
	{
		return kl_null_body_id;
	}
	return body;
}
