// Kollide — driving a robot: streamed joint positions become kinematic target poses or motor
// targets; teleporting places every link at once; positions are read back; handles are bound to
// robots already in a world by their names.
// SPDX-License-Identifier: MIT
#include "urdf_robot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static kl_result check_call(const kl_robot* robot, const double* positions, const char* what)
{
	if (robot == NULL || positions == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: robot and positions must not be NULL", what);
	}
	if (!kl_body_is_valid(robot->bodies[robot->model->link_order[0]]))
	{
		return kl_fail(KL_ERR_INVALID_ID, "%s: the robot's root body no longer exists", what);
	}
	return kl_robot_check_positions(robot->model, robot->name, positions);
}

/// Every link's world pose for the positions, the root where its body is now. Owned; NULL on failure.
static kl_transform* target_poses(const kl_robot* robot, const double* positions)
{
	const kl_urdf_model* m = robot->model;
	kl_transform* poses = kl_alloc((size_t)m->link_count, sizeof(kl_transform));
	kl_transform root = kl_body_get_transform(robot->bodies[m->link_order[0]]);
	if (poses != NULL && !kl_robot_link_transforms(m, root, positions, poses))
	{
		kl_free(poses);
		poses = NULL;
	}
	return poses;
}

static kl_result set_motor_targets(kl_robot* robot, const double* positions)
{
	for (int j = 0; j < robot->model->joint_count; ++j)
	{
		if (kl_urdf_joint_moves(&robot->model->joints[j]) &&
			kl_joint_set_motor_target(robot->joints[j], (float)positions[j]) != KL_OK)
		{
			return kl_last_error_code();
		}
	}
	return KL_OK;
}

/// Sets each moving link's target pose; on a refusal puts back the velocities already changed.
static kl_result set_kinematic_targets(kl_robot* robot, const kl_transform* poses, float dt)
{
	const kl_urdf_model* m = robot->model;
	vec3s* saved = kl_alloc(2 * (size_t)m->link_count, sizeof(vec3s));
	if (saved == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_result result = KL_OK;
	int k = 1;
	for (; k < m->link_count && result == KL_OK; ++k)
	{
		kl_body_id body = robot->bodies[m->link_order[k]];
		saved[2 * k] = kl_body_get_linear_velocity(body);
		saved[2 * k + 1] = kl_body_get_angular_velocity(body);
		if (kl_body_get_type(body) != KL_BODY_STATIC)
		{
			result = kl_body_set_target_transform(body, poses[m->link_order[k]], dt);
		}
	}
	if (result != KL_OK)
	{
		kl_error_state error;
		kl_error_save(&error);
		for (int u = 1; u < k; ++u)
		{
			kl_body_id body = robot->bodies[m->link_order[u]];
			if (kl_body_get_type(body) != KL_BODY_STATIC)
			{
				kl_body_set_linear_velocity(body, saved[2 * u]);
				kl_body_set_angular_velocity(body, saved[2 * u + 1]);
			}
		}
		kl_fail(error.code, "robot '%s' link '%s': %s", robot->name, m->links[m->link_order[k - 1]].name,
				error.message);
	}
	kl_free(saved);
	return result;
}

kl_result kl_robot_set_joint_positions(kl_robot* robot, const double* positions, float dt)
{
	kl_result result = check_call(robot, positions, "robot joint positions");
	if (result != KL_OK)
	{
		return result;
	}
	if (!(dt > 0.0f) || !isfinite(dt))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot joint positions: dt %g must be positive and finite", (double)dt);
	}
	if (robot->drive == KL_ROBOT_DRIVE_MOTOR)
	{
		result = set_motor_targets(robot, positions);
	}
	else
	{
		kl_transform* poses = target_poses(robot, positions);
		result = poses != NULL ? set_kinematic_targets(robot, poses, dt) : KL_ERR_OUT_OF_MEMORY;
		kl_free(poses);
	}
	if (result == KL_OK)
	{
		memcpy(robot->positions, positions, (size_t)robot->model->joint_count * sizeof(double));
	}
	return result;
}

kl_result kl_robot_teleport(kl_robot* robot, const double* positions)
{
	kl_result result = check_call(robot, positions, "robot teleport");
	kl_transform* poses = result == KL_OK ? target_poses(robot, positions) : NULL;
	if (poses == NULL)
	{
		return result != KL_OK ? result : KL_ERR_OUT_OF_MEMORY;
	}
	const kl_urdf_model* m = robot->model;
	for (int k = 1; k < m->link_count && result == KL_OK; ++k)
	{
		kl_body_id body = robot->bodies[m->link_order[k]];
		kl_transform t = poses[m->link_order[k]];
		if (kl_body_get_type(body) != KL_BODY_STATIC)
		{
			result = kl_body_set_transform(body, t.p, t.q);
			kl_body_set_linear_velocity(body, glms_vec3_zero());
			kl_body_set_angular_velocity(body, glms_vec3_zero());
		}
	}
	kl_free(poses);
	if (result == KL_OK && robot->drive == KL_ROBOT_DRIVE_MOTOR)
	{
		result = set_motor_targets(robot, positions);
	}
	if (result == KL_OK)
	{
		memcpy(robot->positions, positions, (size_t)m->joint_count * sizeof(double));
	}
	return result;
}

/// A joint's position measured from its bodies; revolute angles continue from near.
static double measure(const kl_robot* robot, int j, double near)
{
	const kl_urdf_joint* joint = &robot->model->joints[j];
	if (joint->type == KL_URDF_PRISMATIC)
	{
		return kl_joint_get_translation(robot->joints[j]);
	}
	if (joint->type == KL_URDF_FIXED)
	{
		return 0.0;
	}
	double a = kl_joint_get_angle(robot->joints[j]);
	return a + 2.0 * GLM_PI * round((near - a) / (2.0 * GLM_PI));
}

void kl_robot_get_joint_positions(const kl_robot* robot, double* positions)
{
	if (robot == NULL || positions == NULL)
	{
		return;
	}
	for (int j = 0; j < robot->model->joint_count; ++j)
	{
		positions[j] =
			robot->drive == KL_ROBOT_DRIVE_MOTOR ? measure(robot, j, robot->positions[j]) : robot->positions[j];
	}
}

const kl_urdf_model* kl_robot_get_model(const kl_robot* robot)
{
	return robot != NULL ? robot->model : NULL;
}

kl_body_id kl_robot_get_body(const kl_robot* robot, int link_index)
{
	bool ok = robot != NULL && link_index >= 0 && link_index < robot->model->link_count;
	return ok ? robot->bodies[link_index] : kl_null_body_id;
}

kl_joint_id kl_robot_get_joint(const kl_robot* robot, int joint_index)
{
	bool ok = robot != NULL && joint_index >= 0 && joint_index < robot->model->joint_count;
	return ok ? robot->joints[joint_index] : kl_null_joint_id;
}

kl_robot* kl_robot_bind(kl_world_id world, const kl_urdf_model* model, const char* name, kl_robot_drive drive)
{
	if (!kl_world_is_valid(world) || model == NULL || name == NULL || (int)drive < 0 || drive > KL_ROBOT_DRIVE_MOTOR)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "robot bind: needs a valid world, a model, a name and a drive");
		return NULL;
	}
	kl_robot* robot = kl_alloc_zero(1, sizeof(kl_robot));
	kl_body_id* bodies = kl_alloc_zero((size_t)model->link_count, sizeof(kl_body_id));
	kl_joint_id* joints = kl_alloc_zero((size_t)model->joint_count + 1, sizeof(kl_joint_id));
	double* positions = kl_alloc_zero((size_t)model->joint_count + 1, sizeof(double));
	bool ok = robot != NULL && bodies != NULL && joints != NULL && positions != NULL && strlen(name) < 200;
	char full[256];
	for (int i = 0; ok && i < model->link_count; ++i)
	{
		snprintf(full, sizeof(full), "%s/%s", name, model->links[i].name);
		bodies[i] = kl_world_find_body(world, full);
		if (KL_IS_NULL(bodies[i]))
		{
			ok = false;
			kl_fail(KL_ERR_INVALID_ARGUMENT, "robot bind: no body named '%s'", full);
		}
	}
	for (int j = 0; ok && j < model->joint_count; ++j)
	{
		snprintf(full, sizeof(full), "%s/%s", name, model->joints[j].name);
		joints[j] = kl_world_find_joint(world, full);
		if (KL_IS_NULL(joints[j]))
		{
			ok = false;
			kl_fail(KL_ERR_INVALID_ARGUMENT, "robot bind: no joint named '%s'", full);
		}
	}
	if (!ok)
	{
		kl_free(robot);
		kl_free(bodies);
		kl_free(joints);
		kl_free(positions);
		return NULL;
	}
	*robot = (kl_robot){world, model, drive, bodies, joints, positions, kl_strdup(name)};
	if (robot->name == NULL)
	{
		kl_robot_free(robot);
		return NULL;
	}
	for (int j = 0; j < model->joint_count; ++j)
	{
		kl_joint_def def = kl_joint_get_def(joints[j]);
		positions[j] = measure(robot, j, def.enable_motor ? def.motor_target : 0.0);
	}
	return robot;
}
