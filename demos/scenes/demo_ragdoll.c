// Kollide scenes — ragdoll: three ragdolls of boxes, capsules and a sphere, held together by
// spherical joints with swing cones and twist limits (shoulders, hips) and limited revolute joints
// (waist, neck, elbows, knees), dropped onto a flight of stairs.
// SPDX-License-Identifier: MIT
#include "demo_common.h"

enum
{
	k_steps = 6,
	k_ragdolls = 3,
};

static const float k_step_rise = 0.3f;
static const float k_step_run = 0.6f;
static const float k_stair_back = 4.0f; ///< y of the stair's back wall

/// Placement of one ragdoll: its standing pose (facing +y, feet at z = 0) moved by `frame`.
typedef struct ragdoll_builder
{
	kl_world_id world;
	kl_transform frame;
	kl_shape_def shape_def;
	bool ok;
} ragdoll_builder;

/// A dynamic body at the local pose (p, q) of the standing ragdoll.
static kl_body_id part(ragdoll_builder* b, vec3s p, versors q)
{
	if (!b->ok)
	{
		return kl_null_body_id;
	}
	kl_transform xf = kl_transform_mul(b->frame, (kl_transform){p, q});
	kl_body_id body = kl_demo_add_body(b->world, KL_BODY_DYNAMIC, xf.p, xf.q);
	// Ball joints are frictionless: without damping a limb resting on the ground can spin on its
	// joint for ever. Ragdolls usually damp their limbs a little for that reason.
	b->ok = KL_IS_NON_NULL(body) && kl_body_set_angular_damping(body, 1.0f) == KL_OK;
	return body;
}

static kl_body_id box_part(ragdoll_builder* b, vec3s p, vec3s half_extents)
{
	kl_body_id body = part(b, p, glms_quat_identity());
	b->ok = b->ok && KL_IS_NON_NULL(kl_create_box_shape(body, &b->shape_def, half_extents));
	return body;
}

/// A capsule from local point p0 to p1 (the segment with its rounded ends) of radius r.
static kl_body_id capsule_part(ragdoll_builder* b, vec3s p0, vec3s p1, float r)
{
	vec3s d = glms_vec3_sub(p1, p0);
	float length = glms_vec3_norm(d);
	vec3s axis = glms_vec3_scale(d, 1.0f / length);
	// Turn local z onto the axis (the limbs here run along x or z).
	versors q = axis.z > 0.99f ? glms_quat_identity()
							   : kl_demo_axis_angle(kl_vec3(0.0f, axis.x > 0.0f ? 1.0f : -1.0f, 0.0f), 0.5f * GLM_PIf);
	kl_body_id body = part(b, glms_vec3_scale(glms_vec3_add(p0, p1), 0.5f), q);
	b->ok = b->ok && KL_IS_NON_NULL(kl_create_capsule_shape(body, &b->shape_def, r, 0.5f * length - r));
	return body;
}

/// A joint at the local anchor with the local axis and limits lower … upper (rad): the angle of a
/// revolute joint, the twist of a spherical one, whose axis is the limb's and whose swing stays
/// within `cone` of it.
static void joint(ragdoll_builder* b, kl_joint_type type, kl_body_id a, kl_body_id c, vec3s anchor, vec3s axis,
				  float lower, float upper, float cone)
{
	if (!b->ok)
	{
		return;
	}
	kl_joint_def jd = kl_joint_def_from_world(type, a, c, kl_transform_point(b->frame, anchor),
											  kl_rotate(b->frame.q, axis));
	jd.enable_limit = true;
	jd.lower = lower;
	jd.upper = upper;
	if (type == KL_JOINT_SPHERICAL)
	{
		jd.cone_angle = cone;
	}
	b->ok = KL_IS_NON_NULL(kl_create_joint(b->world, &jd));
}

/// About 1.8 m tall. Revolute angles are right-handed about the world axis given: knees bend the
/// shin backwards (−y) about +x, so they take negative angles; the waist bends forwards likewise
/// and the neck nods both ways;
/// elbows bend the forearm forwards about +z, which is positive on the right arm (+x) and
/// negative on the left. The parts share a negative filter group, so a ragdoll never collides
/// with itself.
static bool add_ragdoll(kl_world_id world, kl_transform frame, int32_t group)
{
	ragdoll_builder b = {world, frame, kl_default_shape_def(), true};
	b.shape_def.filter.group_index = group;
	b.shape_def.material.friction = 0.7f;
	const vec3s x = kl_vec3(1.0f, 0.0f, 0.0f), z = kl_vec3(0.0f, 0.0f, 1.0f);

	kl_body_id pelvis = box_part(&b, kl_vec3(0.0f, 0.0f, 1.0f), kl_vec3(0.14f, 0.09f, 0.08f));
	kl_body_id torso = box_part(&b, kl_vec3(0.0f, 0.0f, 1.32f), kl_vec3(0.17f, 0.1f, 0.22f));
	kl_body_id head = part(&b, kl_vec3(0.0f, 0.0f, 1.68f), glms_quat_identity());
	b.ok = b.ok && KL_IS_NON_NULL(kl_create_sphere_shape(head, &b.shape_def, 0.11f));
	joint(&b, KL_JOINT_REVOLUTE, pelvis, torso, kl_vec3(0.0f, 0.0f, 1.09f), x, -0.8f, 0.3f, 0.0f);
	joint(&b, KL_JOINT_REVOLUTE, torso, head, kl_vec3(0.0f, 0.0f, 1.57f), x, -0.6f, 0.6f, 0.0f);

	for (int side = -1; side <= 1; side += 2)
	{
		float s = (float)side;
		kl_body_id upper_arm = capsule_part(&b, kl_vec3(0.2f * s, 0.0f, 1.48f), kl_vec3(0.5f * s, 0.0f, 1.48f), 0.05f);
		kl_body_id forearm = capsule_part(&b, kl_vec3(0.51f * s, 0.0f, 1.48f), kl_vec3(0.8f * s, 0.0f, 1.48f), 0.045f);
		// Arms swing up to 80° from sideways (down to the hips, forwards, up), legs 50° from down.
		joint(&b, KL_JOINT_SPHERICAL, torso, upper_arm, kl_vec3(0.19f * s, 0.0f, 1.48f), kl_vec3(s, 0.0f, 0.0f), -0.6f,
			  0.6f, 1.4f);
		joint(&b, KL_JOINT_REVOLUTE, upper_arm, forearm, kl_vec3(0.505f * s, 0.0f, 1.48f), z, side > 0 ? 0.0f : -2.3f,
			  side > 0 ? 2.3f : 0.0f, 0.0f);

		kl_body_id thigh = capsule_part(&b, kl_vec3(0.09f * s, 0.0f, 0.47f), kl_vec3(0.09f * s, 0.0f, 0.93f), 0.07f);
		kl_body_id shin = capsule_part(&b, kl_vec3(0.09f * s, 0.0f, 0.0f), kl_vec3(0.09f * s, 0.0f, 0.46f), 0.06f);
		joint(&b, KL_JOINT_SPHERICAL, pelvis, thigh, kl_vec3(0.09f * s, 0.0f, 0.93f), kl_vec3(0.0f, 0.0f, -1.0f), -0.4f,
			  0.4f, 0.9f);
		joint(&b, KL_JOINT_REVOLUTE, thigh, shin, kl_vec3(0.09f * s, 0.0f, 0.465f), x, -2.3f, 0.0f, 0.0f);
	}
	return b.ok;
}

/// Steps rising along +y from y = 0, each a static box from its front edge back to the wall.
static bool add_stairs(kl_world_id world)
{
	kl_body_def bd = kl_default_body_def();
	bd.name = "stairs";
	kl_body_id stairs = kl_create_body(world, &bd);
	if (KL_IS_NULL(stairs))
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.7f;
	for (int i = 0; i < k_steps; ++i)
	{
		float front = k_step_run * (float)i;
		float height = k_step_rise * (float)(i + 1);
		sd.local_pose.p = kl_vec3(0.0f, 0.5f * (front + k_stair_back), 0.5f * height);
		vec3s h = kl_vec3(2.5f, 0.5f * (k_stair_back - front), 0.5f * height);
		if (KL_IS_NULL(kl_create_box_shape(stairs, &sd, h)))
		{
			return false;
		}
	}
	return true;
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 15.0f, 0.7f)) || !add_stairs(world))
	{
		return false;
	}
	// One falls forwards onto the lowest steps, one drops lying flat across the middle of the
	// flight, one tumbles head first onto the top.
	const kl_transform frames[k_ragdolls] = {
		{{{-1.3f, -0.8f, 0.3f}}, kl_demo_axis_angle(kl_vec3(1.0f, 0.0f, 0.0f), -0.3f)},
		{{{0.0f, 1.0f, 4.0f}}, kl_demo_axis_angle(kl_vec3(0.0f, 1.0f, 0.0f), 0.5f * GLM_PIf)},
		{{{1.3f, 2.2f, 6.0f}}, kl_demo_axis_angle(glms_vec3_normalize(kl_vec3(1.0f, 0.4f, 0.0f)), 2.6f)},
	};
	for (int i = 0; i < k_ragdolls; ++i)
	{
		if (!add_ragdoll(world, frames[i], -(i + 1)))
		{
			return false;
		}
	}
	return true;
}

const kl_scene kl_scene_ragdoll = {
	.name = "ragdoll",
	.description = "three ragdolls (spherical joints with swing cones and twist limits, limited revolute joints) dropped onto a stair",
	.create = create,
};
