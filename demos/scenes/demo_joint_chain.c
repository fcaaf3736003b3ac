// Kollide scenes — joint_chain: 20 capsule links on revolute joints, released horizontally from a
// static anchor with a heavy ball at the free end, swing down and back.
// SPDX-License-Identifier: MIT
#include "demo_common.h"

enum
{
	k_links = 20,
};

static const float k_anchor_height = 14.0f; ///< the 12 m chain swings clear of the ground
static const float k_link_length = 0.6f;	///< joint to joint
static const float k_radius = 0.08f;
static const float k_ball_radius = 0.3f;

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 15.0f, 0.6f)))
	{
		return false;
	}
	vec3s top = kl_vec3(0.0f, 0.0f, k_anchor_height);
	kl_body_id anchor = kl_demo_add_body(world, KL_BODY_STATIC, top, glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	if (KL_IS_NULL(anchor) || KL_IS_NULL(kl_create_sphere_shape(anchor, &sd, 0.15f)))
	{
		return false;
	}
	// Links lie along +x: the capsule's local z turned onto world x.
	versors along_x = kl_demo_axis_angle(kl_vec3(0.0f, 1.0f, 0.0f), 0.5f * GLM_PIf);
	const float half_height = 0.5f * k_link_length - k_radius;
	kl_body_id previous = anchor;
	for (int i = 0; i < k_links; ++i)
	{
		vec3s center = kl_vec3(k_link_length * ((float)i + 0.5f), 0.0f, k_anchor_height);
		kl_body_id link = kl_demo_add_body(world, KL_BODY_DYNAMIC, center, along_x);
		if (KL_IS_NULL(link) || KL_IS_NULL(kl_create_capsule_shape(link, &sd, k_radius, half_height)))
		{
			return false;
		}
		if (i == k_links - 1)
		{
			kl_shape_def ball = sd;
			ball.local_pose.p = kl_vec3(0.0f, 0.0f, 0.5f * k_link_length + k_ball_radius);
			if (KL_IS_NULL(kl_create_sphere_shape(link, &ball, k_ball_radius)))
			{
				return false;
			}
		}
		vec3s hinge = kl_vec3(k_link_length * (float)i, 0.0f, k_anchor_height);
		kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, previous, link, hinge, kl_vec3(0.0f, 1.0f, 0.0f));
		if (KL_IS_NULL(kl_create_joint(world, &jd)))
		{
			return false;
		}
		previous = link;
	}
	return true;
}

const kl_scene kl_scene_joint_chain = {
	.name = "joint_chain",
	.description = "20 capsule links on revolute joints with an end ball, swinging from a static anchor",
	.create = create,
};
