// Kollide scenes — urdf_arm: the project's six-axis arm, loaded from its URDF
// (assets/robots/kollide_arm), on a kinematic drive: before_step streams joint positions, as a
// robot controller streams joint angles to a virtual-commissioning cell, and the links follow their
// forward kinematics exactly while the gripper sweeps a row of boxes off their places.
// SPDX-License-Identifier: MIT
#include "demo_common.h"

#include <math.h>
#include <stdlib.h>

#ifndef KL_ASSETS_DIR
#error "KL_ASSETS_DIR names the project's assets folder"
#endif

enum
{
	k_boxes = 5,
	k_max_joints = 16,
};

typedef struct urdf_arm_state
{
	kl_urdf_model* model;
	kl_robot* robot;
	int axis[6];   ///< model indices of joint_1 … joint_6
	int finger;	   ///< model index of finger_joint
	double q[k_max_joints];
} urdf_arm_state;

/// joint_1 sweeps ±1.3 rad with this period (s), while the arm lowers its gripper to the boxes over
/// the first k_lower_time seconds.
static const double k_sweep_period = 8.0;
static const double k_sweep_amplitude = 1.3;
static const double k_lower_time = 2.0;
/// The lowered pose: the gripper about 7 cm above the ground, 0.8 m out.
static const double k_lowered[6] = {0.0, 0.65, 0.2, 0.0, 0.9, 0.0};
static const float k_box_half = 0.05f;
static const float k_box_radius = 0.8f;

/// The positions streamed for time t (s).
static void arm_positions(urdf_arm_state* arm, double t)
{
	double s = t < k_lower_time ? 0.5 - 0.5 * cos(GLM_PI * t / k_lower_time) : 1.0;
	for (int k = 1; k < 6; ++k)
	{
		arm->q[arm->axis[k]] = s * k_lowered[k];
	}
	arm->q[arm->axis[0]] = k_sweep_amplitude * sin(2.0 * GLM_PI * t / k_sweep_period);
	arm->q[arm->axis[5]] = 0.5 * t; // continuous: the flange turns on and on
	arm->q[arm->finger] = 0.015 + 0.015 * sin(3.0 * t);
}

static bool find_joints(urdf_arm_state* arm)
{
	static const char* const names[6] = {"joint_1", "joint_2", "joint_3", "joint_4", "joint_5", "joint_6"};
	for (int k = 0; k < 6; ++k)
	{
		arm->axis[k] = kl_urdf_find_joint(arm->model, names[k]);
	}
	arm->finger = kl_urdf_find_joint(arm->model, "finger_joint");
	bool ok = arm->finger >= 0 && arm->model->joint_count <= k_max_joints;
	for (int k = 0; k < 6; ++k)
	{
		ok = ok && arm->axis[k] >= 0;
	}
	return ok;
}

static bool add_arm(kl_world_id world, urdf_arm_state* arm)
{
	const char* packages[] = {KL_ASSETS_DIR "/robots"};
	kl_urdf_load_options options = kl_default_urdf_load_options();
	options.package_paths = packages;
	options.package_path_count = 1;
	arm->model = kl_urdf_load_file(KL_ASSETS_DIR "/robots/kollide_arm/kollide_arm.urdf", &options);
	if (arm->model == NULL || !find_joints(arm))
	{
		return false;
	}
	arm_positions(arm, 0.0);
	kl_robot_def def = kl_default_robot_def();
	def.name = "arm";
	def.joint_positions = arm->q;
	def.material.friction = 0.8f;
	arm->robot = kl_robot_create(world, arm->model, &def);
	return arm->robot != NULL;
}

static bool add_boxes(kl_world_id world)
{
	const vec3s h = kl_vec3(k_box_half, k_box_half, k_box_half);
	for (int i = 0; i < k_boxes; ++i)
	{
		float a = -1.0f + 0.5f * (float)i;
		vec3s p = kl_vec3(k_box_radius * cosf(a), k_box_radius * sinf(a), k_box_half);
		if (KL_IS_NULL(kl_scene_add_box(world, p, glms_quatv(a, kl_vec3(0.0f, 0.0f, 1.0f)), h, 400.0f, 0.5f)))
		{
			return false;
		}
	}
	return true;
}

static void destroy(void* state)
{
	urdf_arm_state* arm = state;
	if (arm != NULL)
	{
		kl_robot_free(arm->robot); // the world owns the bodies
		kl_urdf_model_free(arm->model);
		free(arm);
	}
}

static bool create(kl_world_id world, void** state)
{
	urdf_arm_state* arm = calloc(1, sizeof(urdf_arm_state));
	*state = arm;
	if (arm == NULL)
	{
		return false;
	}
	if (KL_IS_NULL(kl_scene_add_ground(world, 10.0f, 10.0f, 0.6f)) || !add_boxes(world) || !add_arm(world, arm))
	{
		destroy(arm); // the runner frees the state only of scenes that built
		*state = NULL;
		return false;
	}
	return true;
}

static void before_step(kl_world_id world, void* state, int step_index, float dt)
{
	(void)world;
	urdf_arm_state* arm = state;
	arm_positions(arm, (double)(step_index + 1) * dt);
	kl_robot_set_joint_positions(arm->robot, arm->q, dt);
}

const kl_scene kl_scene_urdf_arm = {
	.name = "urdf_arm",
	.description = "the project's arm from its URDF follows streamed joint angles and sweeps boxes aside",
	.create = create,
	.before_step = before_step,
	.destroy = destroy,
};
