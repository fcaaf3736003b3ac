// Kollide scenes — gear_train: two spur gears (14 and 21 teeth, involute flanks, 0.5 mm backlash)
// on horizontal axles at their meshing centre distance. A force-limited velocity motor turns the
// small one; the large one has no motor of its own, only a brake (a zero-speed motor with a small
// torque limit) as its load, so it turns only because the teeth push it.
// SPDX-License-Identifier: MIT
#include "demo_mesh_common.h"

#include <stdlib.h>

enum
{
	k_driver_teeth = 14,
	k_driven_teeth = 21,
};

/// Axle height above the ground (the large gear's tip circle is 11.5 cm).
static const float k_axle_height = 0.2f;
static const float k_driver_speed = 2.0f;	 ///< rad/s
static const float k_driver_torque = 5.0f;	 ///< N·m, ample for the load
static const float k_brake_torque = 0.2f;	 ///< N·m on the driven gear (≈ 2 N on its teeth)

/// Bodies and joints are named "driver" and "driven" (the tests look them up).
static kl_meshgen_gear_params gear_params(int teeth)
{
	kl_meshgen_gear_params p = kl_meshgen_default_gear_params();
	p.tooth_count = teeth;
	p.resolution = 3; // involute flanks from 3 segments: the ratio holds through each tooth's mesh
	return p;
}

static kl_mesh* gear_mesh(const kl_meshgen_gear_params* p)
{
	kl_meshgen_mesh generated;
	if (kl_meshgen_gear(p, &generated) != KL_OK)
	{
		return NULL;
	}
	return kl_demo_mesh_from_meshgen(&generated, "gear");
}

/// A gear body on a revolute joint to `frame` about the world axis through `center`, with a
/// velocity motor (speed, torque limit).
static kl_joint_id add_gear(kl_world_id world, kl_body_id frame, const kl_meshgen_gear_params* p, vec3s center,
							versors rotation, float speed, float torque, const char* name)
{
	kl_mesh* mesh = gear_mesh(p);
	if (mesh == NULL)
	{
		return kl_null_joint_id;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.3f; // lubricated steel-ish
	kl_body_id gear = kl_demo_add_mesh_body(world, KL_BODY_DYNAMIC, mesh, 1.0f, center, rotation, &sd);
	kl_mesh_release(mesh);
	if (KL_IS_NULL(gear) || kl_body_set_name(gear, name) != KL_OK)
	{
		return kl_null_joint_id;
	}
	vec3s axis = kl_rotate(rotation, kl_vec3(0.0f, 0.0f, 1.0f));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, frame, gear, center, axis);
	jd.enable_motor = true;
	jd.motor_mode = KL_MOTOR_VELOCITY;
	jd.motor_speed = speed;
	jd.max_motor_force = torque;
	jd.name = name;
	return kl_create_joint(world, &jd);
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 2.0f, 2.0f, 0.6f)))
	{
		return false;
	}
	// The frame: a static plate behind the gears (on the side away from the viewer's default camera)
	// that holds both axles.
	kl_body_id frame = kl_demo_add_body(world, KL_BODY_STATIC, kl_vec3(0.09f, -0.05f, k_axle_height),
										glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	if (KL_IS_NULL(frame) || KL_IS_NULL(kl_create_box_shape(frame, &sd, kl_vec3(0.25f, 0.01f, 0.18f))) ||
		kl_body_set_name(frame, "frame") != KL_OK)
	{
		return false;
	}
	// Gears as generated (axes z, the driven one at +x turned by the mate angle so that its teeth fall
	// into the driver's gaps), then stood up together: z turns into −y, towards the viewer.
	kl_meshgen_gear_params a = gear_params(k_driver_teeth);
	kl_meshgen_gear_params b = gear_params(k_driven_teeth);
	versors up = kl_demo_axis_angle(kl_vec3(1.0f, 0.0f, 0.0f), 0.5f * GLM_PIf);
	versors mate = kl_demo_axis_angle(kl_vec3(0.0f, 0.0f, 1.0f), kl_meshgen_gear_mate_angle(&b));
	vec3s driver_center = kl_vec3(0.0f, 0.0f, k_axle_height);
	vec3s driven_center = kl_vec3(kl_meshgen_gear_center_distance(&a, &b), 0.0f, k_axle_height);
	kl_joint_id driver =
		add_gear(world, frame, &a, driver_center, up, k_driver_speed, k_driver_torque, "driver");
	kl_joint_id driven =
		add_gear(world, frame, &b, driven_center, glms_quat_mul(up, mate), 0.0f, k_brake_torque, "driven");
	return KL_IS_NON_NULL(driver) && KL_IS_NON_NULL(driven);
}

const kl_scene kl_scene_gear_train = {
	.name = "gear_train",
	.description = "motor-driven 14-tooth spur gear turns a braked 21-tooth gear through tooth contact",
	.benchmark_steps = 300, ///< spin-up and 4 s of meshing (kollide-bench --scene library)
	.create = create,
};
