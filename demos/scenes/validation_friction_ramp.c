// Kollide scenes — friction_ramp: boxes resting on a 30° slope, some above and some below the
// friction that holds them (tan 30° ≈ 0.577).
// SPDX-License-Identifier: MIT
#include "scenes.h"

#include <math.h>
#include <stdio.h>

/// Slope angle (rad) and the ramp's own friction.
#define KL_RAMP_ANGLE (30.0f * 3.14159265358979f / 180.0f)
#define KL_RAMP_FRICTION 1.0f

/// The effective (pair) friction each box should see. Pairs combine by √(μa·μb), so a box gets
/// friction μ²/μ_ramp to make the pair μ (with μ_ramp = 1: μ², exact for 0.5 and close to it for
/// the others). Three slide (μ < tan 30°), three stick.
static const float kl_ramp_mu[] = {0.2f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f};

/// The ramp is a static box 10 m long (down-slope), 6.5 m wide and 0.5 m thick, turned by +30°
/// about y so that its top face descends towards +x; its lower edge meets the ground (z = 0) at
/// x ≈ 2.45. The 0.5 m cubes start at rest 1 m below the top end, turned with the ramp and touching
/// it, one per lane along y, 1 m apart: at 2 s the fastest box has slid 6.4 m, still on the ramp.
static bool friction_ramp_create(kl_world_id world, void** state)
{
	*state = NULL;
	const float angle = KL_RAMP_ANGLE;
	const vec3s ramp_half = kl_vec3(5.0f, 3.25f, 0.25f);
	const float box_half = 0.25f;
	if (KL_IS_NULL(kl_scene_add_ground(world, 10.0f, 6.0f, 0.6f)))
	{
		return false;
	}

	kl_transform ramp;
	ramp.q = kl_quat_wxyz(cosf(0.5f * angle), 0.0f, sinf(0.5f * angle), 0.0f);
	ramp.p = kl_vec3(-2.0f, 0.0f, ramp_half.x * sinf(angle) - ramp_half.z * cosf(angle));
	kl_body_def bd = kl_default_body_def();
	bd.position = ramp.p;
	bd.rotation = ramp.q;
	bd.name = "ramp";
	kl_body_id ramp_body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = KL_RAMP_FRICTION;
	if (KL_IS_NULL(kl_create_box_shape(ramp_body, &sd, ramp_half)))
	{
		return false;
	}

	const int count = (int)(sizeof(kl_ramp_mu) / sizeof(kl_ramp_mu[0]));
	for (int i = 0; i < count; ++i)
	{
		float mu = kl_ramp_mu[i];
		float y = (float)i - 0.5f * (float)(count - 1);
		vec3s local = kl_vec3(1.0f - ramp_half.x, y, ramp_half.z + box_half);
		vec3s p = kl_transform_point(ramp, local);
		kl_body_id body = kl_scene_add_box(world, p, ramp.q, kl_vec3(box_half, box_half, box_half), 1000.0f,
										   mu * mu / KL_RAMP_FRICTION);
		if (KL_IS_NULL(body))
		{
			return false;
		}
		char name[32];
		snprintf(name, sizeof(name), "box_mu_%.2f", (double)mu);
		kl_body_set_name(body, name);
	}
	return true;
}

const kl_scene kl_scene_friction_ramp = {
	.name = "friction_ramp",
	.description = "boxes on a 30 degree ramp, friction 0.2 to 0.8 (tan 30 = 0.577)",
	.create = friction_ramp_create,
};
