// Kollide grasp — the proxy hand's bodies and their velocity drive.
// SPDX-License-Identifier: MIT
#include "proxy.h"

#include <math.h>
#include <string.h>

kg_proxy_def kg_default_proxy_def(void)
{
	kg_proxy_def def = {40.0f, 40.0f, 4000.0f, 1000.0f};
	return def;
}

bool kg_proxy_create(kg_proxy_hand* proxy, kl_world_id world, const kg_hand* hand, kl_transform wrist,
					 const float angles[KG_ANGLE_COUNT], const kg_proxy_def* def)
{
	memset(proxy, 0, sizeof(*proxy));
	proxy->def = def != NULL ? *def : kg_default_proxy_def();
	if (!(proxy->def.follow_rate > 0.0f && proxy->def.max_acceleration > 0.0f &&
		  proxy->def.max_angular_acceleration > 0.0f && proxy->def.density > 0.0f))
	{
		kg_set_error("proxy settings must be positive");
		return false;
	}
	kl_transform parts[KG_PART_COUNT];
	kg_hand_pose_parts(hand, angles, parts);
	for (int p = 0; p < KG_PART_COUNT; ++p)
	{
		kl_transform pose = kl_transform_mul(wrist, parts[p]);
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = pose.p;
		bd.rotation = pose.q;
		bd.gravity_scale = 0.0f;
		bd.enable_sleep = false;
		proxy->parts[p] = kl_create_body(world, &bd);
		if (!kl_body_is_valid(proxy->parts[p]))
		{
			kg_set_error("proxy part %d: %s", p, kl_last_error());
			kg_proxy_destroy(proxy);
			return false;
		}
		kl_shape_def sd = kl_default_shape_def();
		sd.material.density = proxy->def.density;
		sd.filter.group_index = -1; // the hand's parts overlap at the joints: they never collide
		for (int s = 0; s < hand->sphere_count[p]; ++s)
		{
			sd.local_pose = (kl_transform){hand->spheres[p][s].center, kl_quat_wxyz(1, 0, 0, 0)};
			kl_create_sphere_shape(proxy->parts[p], &sd, hand->spheres[p][s].radius);
		}
	}
	return true;
}

void kg_proxy_destroy(kg_proxy_hand* proxy)
{
	for (int p = 0; p < KG_PART_COUNT; ++p)
		if (kl_body_is_valid(proxy->parts[p]))
			kl_destroy_body(proxy->parts[p]);
	memset(proxy, 0, sizeof(*proxy));
}

static vec3s clamp_length(vec3s v, float most)
{
	float n = glms_vec3_norm(v);
	return n > most ? glms_vec3_scale(v, most / n) : v;
}

void kg_proxy_drive(kg_proxy_hand* proxy, const kg_hand* hand, kl_transform wrist, const float angles[KG_ANGLE_COUNT],
					float dt)
{
	(void)dt;
	kl_transform parts[KG_PART_COUNT];
	kg_hand_pose_parts(hand, angles, parts);
	// A critically damped spring toward the tracked pose whose acceleration is capped: the contacts,
	// which push with whatever it takes, always win against it, so the proxy stops on a surface.
	float w = proxy->def.follow_rate, k = w * w, c = 2.0f * w;
	for (int p = 0; p < KG_PART_COUNT; ++p)
	{
		kl_body_id body = proxy->parts[p];
		kl_transform target = kl_transform_mul(wrist, parts[p]), now = kl_body_get_transform(body);
		kl_mass_data md = kl_body_get_mass_data(body);
		vec3s com = kl_body_get_world_center_of_mass(body), target_com = kl_transform_point(target, md.center);
		vec3s a = glms_vec3_sub(glms_vec3_scale(glms_vec3_sub(target_com, com), k),
								glms_vec3_scale(kl_body_get_linear_velocity(body), c));
		kl_body_apply_force_to_center(body, glms_vec3_scale(clamp_length(a, proxy->def.max_acceleration), md.mass),
									  true);

		versors err = glms_quat_mul(target.q, glms_quat_conjugate(now.q));
		if (err.w < 0.0f)
			err = glms_quat_init(-err.x, -err.y, -err.z, -err.w);
		float s = sqrtf(err.x * err.x + err.y * err.y + err.z * err.z);
		vec3s rotation =
			s > 1e-9f ? glms_vec3_scale(kl_vec3(err.x, err.y, err.z), 2.0f * atan2f(s, err.w) / s) : kl_vec3(0, 0, 0);
		vec3s alpha =
			glms_vec3_sub(glms_vec3_scale(rotation, k), glms_vec3_scale(kl_body_get_angular_velocity(body), c));
		alpha = clamp_length(alpha, proxy->def.max_angular_acceleration);
		// Torque = R I Rᵀ α, the inertia about the centre of mass turned into the world.
		vec3s local = kl_inv_rotate(now.q, alpha);
		vec3s torque = kl_rotate(now.q, glms_mat3_mulv(md.inertia, local));
		kl_body_apply_torque(body, torque, true);
	}
}

void kg_proxy_poses(const kg_proxy_hand* proxy, kl_transform poses[KG_PART_COUNT])
{
	for (int p = 0; p < KG_PART_COUNT; ++p)
		poses[p] = kl_body_get_transform(proxy->parts[p]);
}
