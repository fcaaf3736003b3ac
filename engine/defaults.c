// Kollide — default definitions.
// SPDX-License-Identifier: MIT
#include <kollide/kollide.h>

kl_world_def kl_default_world_def(void)
{
	kl_world_def def = {0};
	def.length_units_per_meter = 1.0f;
	def.gravity = kl_vec3(0.0f, 0.0f, -9.81f);
	def.worker_count = 1;
	// Box3D's defaults: soft contacts at 30 Hz, damping ratio 10, push-out at most 3 m/s.
	def.contact_hertz = 30.0f;
	def.contact_damping_ratio = 10.0f;
	def.max_contact_push_speed = 3.0f;
	def.joint_hertz = 60.0f;
	def.joint_damping_ratio = 2.0f;
	def.restitution_threshold = 1.0f;
	def.hit_event_threshold = 1.0f;
	def.max_linear_speed = 400.0f;
	def.enable_sleep = true;
	def.enable_continuous = true;
	return def;
}

kl_body_def kl_default_body_def(void)
{
	kl_body_def def = {0};
	def.type = KL_BODY_STATIC;
	def.rotation = glms_quat_identity();
	def.gravity_scale = 1.0f;
	def.sleep_threshold = 0.05f;
	def.enable_sleep = true;
	def.is_awake = true;
	def.enable_gyroscopic = true;
	return def;
}

kl_material kl_default_material(void)
{
	kl_material m = {0};
	m.density = 1000.0f;
	m.friction = 0.6f;
	m.restitution = 0.0f;
	return m;
}

kl_filter kl_default_filter(void)
{
	kl_filter f = {1u, UINT64_MAX, 0};
	return f;
}

kl_shape_def kl_default_shape_def(void)
{
	kl_shape_def def = {0};
	def.local_pose = kl_transform_identity();
	def.material = kl_default_material();
	def.filter = kl_default_filter();
	def.enable_contact_events = true;
	def.penalty_stiffness = 1.0e7f;
	def.penalty_damping_ratio = 1.0f;
	return def;
}

kl_joint_def kl_default_joint_def(kl_joint_type type)
{
	kl_joint_def def = {0};
	def.type = type;
	def.local_frame_a = kl_transform_identity();
	def.local_frame_b = kl_transform_identity();
	def.motor_mode = KL_MOTOR_VELOCITY;
	def.spring_damping_ratio = 1.0f;
	def.length = 1.0f;
	def.cone_angle = GLM_PIf;
	return def;
}

kl_debug_draw kl_default_debug_draw(void)
{
	kl_debug_draw draw = {0};
	draw.draw_shapes = true;
	draw.draw_joints = true;
	return draw;
}
