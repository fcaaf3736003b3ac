// Kollide scenes — dominoes: 100 thin dominoes along a spiral; the first is tipped forward and the
// wave runs down the line.
// SPDX-License-Identifier: MIT
#include "demo_common.h"

#include <math.h>

enum
{
	k_count = 100,
};

static const float k_spacing = 0.5f;	  ///< along the path, half a domino height: each topples the next
static const float k_start_radius = 8.0f; ///< m
/// Radius lost per turn: more than a domino's height, so a falling one never reaches the next turn.
static const float k_pitch = 1.6f;
static const vec3s k_half_extents = {{0.05f, 0.25f, 0.5f}}; ///< thin along x, the direction of travel
static const float k_tip_speed = 2.0f;					  ///< rad/s given to the first domino

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 15.0f, 0.6f)))
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.6f;
	const float shrink = k_pitch / (2.0f * GLM_PIf); // −dr/dθ
	float theta = 0.0f;
	for (int i = 0; i < k_count; ++i)
	{
		float r = k_start_radius - shrink * theta;
		float c = cosf(theta), s = sinf(theta);
		// Tangent of the spiral (direction of travel) and the yaw that turns local x onto it.
		vec3s t = glms_vec3_normalize(kl_vec3(-r * s - shrink * c, r * c - shrink * s, 0.0f));
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = kl_vec3(r * c, r * s, k_half_extents.z);
		bd.rotation = kl_demo_axis_angle(kl_vec3(0.0f, 0.0f, 1.0f), atan2f(t.y, t.x));
		if (i == 0)
		{
			// ω = z × t moves the top along t: the first domino falls onto the second.
			bd.angular_velocity = glms_vec3_scale(glms_vec3_cross(kl_vec3(0.0f, 0.0f, 1.0f), t), k_tip_speed);
			bd.name = "first";
		}
		kl_body_id body = kl_create_body(world, &bd);
		if (KL_IS_NULL(body) || KL_IS_NULL(kl_create_box_shape(body, &sd, k_half_extents)))
		{
			return false;
		}
		theta += k_spacing / r;
	}
	return true;
}

const kl_scene kl_scene_dominoes = {
	.name = "dominoes",
	.description = "100 dominoes on a spiral, the first tipped over",
	.create = create,
};
