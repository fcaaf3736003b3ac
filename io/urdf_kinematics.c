// Kollide — URDF forward kinematics, in double: each child link's frame is its parent's times the
// joint origin (xyz, then fixed-axis rpy) times the joint's motion (a turn about, or a slide along,
// the axis given in the joint frame). The robots (urdf_robot.c) place and drive their links by it.
// SPDX-License-Identifier: MIT
#include "urdf_internal.h"

#include <math.h>

static void quat_mul(const double* a, const double* b, double* r)
{
	double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
	double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
	double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
	double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
	r[0] = x;
	r[1] = y;
	r[2] = z;
	r[3] = w;
}

static void quat_rotate(const double* q, const double* v, double* r)
{
	// t = 2 q.xyz × v;  v' = v + w t + q.xyz × t
	double t[3] = {2.0 * (q[1] * v[2] - q[2] * v[1]), 2.0 * (q[2] * v[0] - q[0] * v[2]),
				   2.0 * (q[0] * v[1] - q[1] * v[0])};
	double c[3] = {q[1] * t[2] - q[2] * t[1], q[2] * t[0] - q[0] * t[2], q[0] * t[1] - q[1] * t[0]};
	for (int k = 0; k < 3; ++k)
	{
		r[k] = v[k] + q[3] * t[k] + c[k];
	}
}

kl_urdf_pose kl_urdf_pose_mul(kl_urdf_pose a, kl_urdf_pose b)
{
	kl_urdf_pose r;
	quat_mul(a.q, b.q, r.q);
	double n = sqrt(r.q[0] * r.q[0] + r.q[1] * r.q[1] + r.q[2] * r.q[2] + r.q[3] * r.q[3]);
	for (int k = 0; k < 4; ++k)
	{
		r.q[k] /= n;
	}
	quat_rotate(a.q, b.p, r.p);
	for (int k = 0; k < 3; ++k)
	{
		r.p[k] += a.p[k];
	}
	return r;
}

kl_urdf_pose kl_urdf_pose_from_transform(kl_transform t)
{
	kl_urdf_pose r = {{t.p.x, t.p.y, t.p.z}, {t.q.x, t.q.y, t.q.z, t.q.w}};
	return r;
}

kl_transform kl_urdf_pose_to_transform(kl_urdf_pose pose)
{
	kl_transform t;
	t.p = kl_vec3((float)pose.p[0], (float)pose.p[1], (float)pose.p[2]);
	t.q = glms_quat_init((float)pose.q[0], (float)pose.q[1], (float)pose.q[2], (float)pose.q[3]);
	return t;
}

static kl_urdf_pose axis_angle(const double* axis, double angle)
{
	double s = sin(0.5 * angle);
	kl_urdf_pose r = {{0.0, 0.0, 0.0}, {axis[0] * s, axis[1] * s, axis[2] * s, cos(0.5 * angle)}};
	return r;
}

kl_urdf_pose kl_urdf_origin(const double* xyz, const double* rpy)
{
	static const double x[3] = {1.0, 0.0, 0.0};
	static const double y[3] = {0.0, 1.0, 0.0};
	static const double z[3] = {0.0, 0.0, 1.0};
	// Fixed axes: roll first, so R = Rz(yaw) Ry(pitch) Rx(roll).
	kl_urdf_pose r =
		kl_urdf_pose_mul(kl_urdf_pose_mul(axis_angle(z, rpy[2]), axis_angle(y, rpy[1])), axis_angle(x, rpy[0]));
	for (int k = 0; k < 3; ++k)
	{
		r.p[k] = xyz[k];
	}
	return r;
}

/// The child link's frame in the parent link's frame at joint position value.
static kl_urdf_pose joint_pose(const kl_urdf_joint* joint, double value)
{
	kl_urdf_pose origin = kl_urdf_origin(joint->xyz, joint->rpy);
	kl_urdf_pose motion = axis_angle(joint->axis, 0.0);
	if (joint->type == KL_URDF_REVOLUTE || joint->type == KL_URDF_CONTINUOUS)
	{
		motion = axis_angle(joint->axis, value);
	}
	else if (joint->type == KL_URDF_PRISMATIC)
	{
		for (int k = 0; k < 3; ++k)
		{
			motion.p[k] = joint->axis[k] * value;
		}
	}
	return kl_urdf_pose_mul(origin, motion);
}

void kl_urdf_link_poses(const kl_urdf_model* model, const double* positions, kl_urdf_pose* link_poses)
{
	for (int k = 0; k < model->link_count; ++k)
	{
		int link = model->link_order[k];
		int j = model->links[link].parent_joint;
		if (j < 0)
		{
			link_poses[link] = (kl_urdf_pose){{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}};
			continue;
		}
		const kl_urdf_joint* joint = &model->joints[j];
		double value = positions != NULL ? positions[j] : 0.0;
		link_poses[link] = kl_urdf_pose_mul(link_poses[joint->parent], joint_pose(joint, value));
	}
}

kl_result kl_urdf_forward_kinematics(const kl_urdf_model* model, const double* joint_positions,
									 kl_transform* link_poses)
{
	if (model == NULL || link_poses == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "forward kinematics: model and link poses must not be NULL");
	}
	for (int j = 0; joint_positions != NULL && j < model->joint_count; ++j)
	{
		if (!isfinite(joint_positions[j]))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "forward kinematics: joint '%s' position is not finite",
						   model->joints[j].name);
		}
	}
	kl_urdf_pose* poses = kl_alloc((size_t)model->link_count, sizeof(kl_urdf_pose));
	if (poses == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_urdf_link_poses(model, joint_positions, poses);
	for (int i = 0; i < model->link_count; ++i)
	{
		link_poses[i] = kl_urdf_pose_to_transform(poses[i]);
	}
	kl_free(poses);
	return KL_OK;
}
