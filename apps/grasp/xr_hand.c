// Kollide grasp — OpenXR joint poses and the hand's angles.
// SPDX-License-Identifier: MIT
#include "xr_hand.h"

#include <math.h>
#include <string.h>

// The first XR joint of each finger: the thumb has no intermediate bone, so its metacarpal is its
// first modelled bone; the fingers' metacarpals lie inside the palm.
static const int first_joint[KG_FINGER_COUNT] = {2, 6, 11, 16, 21};

// A joint frame whose −z runs along dir and whose +y is as close to up as it can be.
static versors joint_rotation(vec3s dir, vec3s up)
{
	vec3s z = glms_vec3_negate(glms_vec3_normalize(dir));
	vec3s x = glms_vec3_normalize(glms_vec3_cross(up, z));
	vec3s y = glms_vec3_cross(z, x);
	mat3s m = {{{x.x, x.y, x.z}, {y.x, y.y, y.z}, {z.x, z.y, z.z}}};
	return glms_mat3_quat(m);
}

void kg_xr_joints_from_angles(const kg_hand* hand, kl_transform wrist, const float angles[KG_ANGLE_COUNT],
							  kl_transform joints[KG_XR_JOINT_COUNT])
{
	kl_transform parts[KG_PART_COUNT];
	kg_hand_pose_parts(hand, angles, parts);
	vec3s back = kl_rotate(wrist.q, kl_vec3(0, 0, -1)); // the back of the hand: −z of the wrist frame
	vec3s along = kl_rotate(wrist.q, kl_vec3(1, 0, 0));
	joints[KG_XR_WRIST] = (kl_transform){wrist.p, joint_rotation(along, back)};
	joints[KG_XR_PALM] =
		(kl_transform){kl_transform_point(wrist, kl_vec3(0.5f * hand->palm_length, 0, 0)), joint_rotation(along, back)};
	for (int f = 0; f < KG_FINGER_COUNT; ++f)
	{
		int j = first_joint[f];
		if (f != KG_THUMB)
		{
			// The metacarpal joint: at the wrist, on the finger's line.
			vec3s base = hand->finger_base[f];
			joints[j] = (kl_transform){kl_transform_point(wrist, kl_vec3(0.05f * hand->palm_length, base.y, 0)),
									   joint_rotation(along, back)};
			++j;
		}
		for (int k = 0; k < 3; ++k)
		{
			kl_transform bone = kl_transform_mul(wrist, parts[kg_part_of(f, k)]);
			vec3s dir = kl_rotate(bone.q, kl_vec3(1, 0, 0)), up = kl_rotate(bone.q, kl_vec3(0, 0, -1));
			joints[j + k] = (kl_transform){bone.p, joint_rotation(dir, up)};
		}
		kl_transform last = kl_transform_mul(wrist, parts[kg_part_of(f, 2)]);
		joints[j + 3] =
			(kl_transform){kl_transform_point(last, kl_vec3(hand->bone_length[f][2], 0, 0)), joints[j + 2].q};
	}
}

// The angle from bone a to bone b, positive when it turns about the finger's flexion axis.
static float signed_flexion(vec3s a, vec3s b, vec3s axis)
{
	float angle = acosf(fminf(fmaxf(glms_vec3_dot(a, b), -1.0f), 1.0f));
	return glms_vec3_dot(glms_vec3_cross(a, b), axis) >= 0.0f ? angle : -angle;
}

static float degrees(float radians)
{
	return radians * (float)(180.0 / GLM_PI);
}

// The thumb's abduction and base flexion that best explain its three bones' directions (wrist frame):
// a 1° grid over the joint limits, then finer ones around the best.
static void thumb_base(const vec3s bones[3], float* abduction, float* flexion)
{
	float best = INFINITY;
	float alo = -10.0f, ahi = 100.0f, flo = -20.0f, fhi = 60.0f;
	for (float step = 1.0f; step >= 0.001f; step *= 0.1f)
	{
		for (float a = alo; a <= ahi + 0.5f * step; a += step)
			for (float f = flo; f <= fhi + 0.5f * step; f += step)
			{
				vec3s d, fl;
				kg_thumb_plane(a, &d, &fl);
				float phi = glm_rad(f);
				vec3s m = glms_vec3_add(glms_vec3_scale(d, cosf(phi)), glms_vec3_scale(fl, sinf(phi)));
				// The base bone's direction, and the other bones in the flexion plane (which alone tells
				// apart two abductions that point the base bone the same way).
				vec3s axis = glms_vec3_cross(d, fl);
				float off1 = glms_vec3_dot(axis, bones[1]), off2 = glms_vec3_dot(axis, bones[2]);
				float e = glms_vec3_distance2(m, bones[0]) + off1 * off1 + off2 * off2;
				if (e < best)
				{
					best = e;
					*abduction = a;
					*flexion = f;
				}
			}
		alo = *abduction - 2.0f * step;
		ahi = *abduction + 2.0f * step;
		flo = *flexion - 2.0f * step;
		fhi = *flexion + 2.0f * step;
	}
}

bool kg_xr_angles_from_joints(const kl_transform joints[KG_XR_JOINT_COUNT], kl_transform* wrist,
							  float angles[KG_ANGLE_COUNT])
{
	for (int j = 0; j < KG_XR_JOINT_COUNT; ++j)
		for (int k = 0; k < 3; ++k)
			if (!isfinite(joints[j].p.raw[k]) || fabsf(joints[j].p.raw[k]) > 1e6f)
			{
				kg_set_error("joint %d: a non-finite or absurd position", j);
				return false;
			}
	// The hand frame: x from the wrist to the palm's centre, z toward the palm (opposite the palm
	// joint's +y), y = z × x toward the thumb.
	vec3s x = glms_vec3_sub(joints[KG_XR_PALM].p, joints[KG_XR_WRIST].p);
	vec3s up = kl_rotate(glms_quat_normalize(joints[KG_XR_PALM].q), kl_vec3(0, 1, 0));
	float xn = glms_vec3_norm(x);
	vec3s z = glms_vec3_negate(up);
	z = glms_vec3_sub(z, glms_vec3_scale(x, glms_vec3_dot(z, x) / (xn * xn + 1e-30f)));
	float zn = glms_vec3_norm(z);
	if (!(xn > 1e-4f && zn > 1e-4f && isfinite(zn)))
	{
		kg_set_error("degenerate joints: the wrist meets the palm, or the palm has no side");
		return false;
	}
	x = glms_vec3_scale(x, 1.0f / xn);
	z = glms_vec3_scale(z, 1.0f / zn);
	vec3s y = glms_vec3_cross(z, x);
	mat3s m = {{{x.x, x.y, x.z}, {y.x, y.y, y.z}, {z.x, z.y, z.z}}};
	*wrist = (kl_transform){joints[KG_XR_WRIST].p, glms_mat3_quat(m)};
	memset(angles, 0, sizeof(float) * KG_ANGLE_COUNT);
	vec3s bones[4] = {{{0}}};
	for (int f = 0; f < KG_FINGER_COUNT; ++f)
	{
		int j = first_joint[f] + (f == KG_THUMB ? 0 : 1);
		for (int k = 0; k < 3; ++k)
		{
			vec3s b = glms_vec3_sub(joints[j + k + 1].p, joints[j + k].p);
			float n = glms_vec3_norm(b);
			if (!(n > 1e-5f))
			{
				kg_set_error("degenerate joints: finger %d's joints %d and %d coincide", f, j + k, j + k + 1);
				return false;
			}
			bones[k + 1] = kl_inv_rotate(wrist->q, glms_vec3_scale(b, 1.0f / n));
		}
		// A finger flexes about d × f: its straight direction turning toward the palm's side.
		vec3s d = kl_vec3(1, 0, 0), toward = kl_vec3(0, 0, 1);
		if (f == KG_THUMB)
		{
			thumb_base(&bones[1], &angles[KG_THUMB_ABDUCTION], &angles[0]);
			kg_thumb_plane(angles[KG_THUMB_ABDUCTION], &d, &toward);
		}
		vec3s axis = glms_vec3_cross(d, toward);
		if (f != KG_THUMB)
			angles[3 * f] = degrees(signed_flexion(d, bones[1], axis));
		angles[3 * f + 1] = degrees(signed_flexion(bones[1], bones[2], axis));
		angles[3 * f + 2] = degrees(signed_flexion(bones[2], bones[3], axis));
	}
	return true;
}
