// Kollide scenes — robot_arm: a three-axis arm (base yaw, shoulder, elbow: revolute joints with
// limits and force-limited position motors) visits six boxes on a table in turn and presses its
// tip ball onto each. before_step moves the motor targets along a smooth trajectory, the way a
// robot cell's controller (or a PLC) drives the servos of a simulated cell.
// SPDX-License-Identifier: MIT
#include "demo_common.h"

#include <math.h>
#include <stdlib.h>

enum
{
	k_axes = 3,
};

/// The joints before_step drives, in the order yaw, shoulder, elbow.
typedef struct robot_arm_state
{
	kl_joint_id axes[k_axes];
} robot_arm_state;

static const float k_shoulder_height = 1.0f;
static const float k_upper_length = 1.0f;
static const float k_fore_length = 0.9f;
static const float k_tip_radius = 0.1f;
/// Elbow to the tip ball's centre.
static const float k_reach = 0.95f; // k_fore_length + k_tip_radius / 2
static const float k_max_torque[k_axes] = {300.0f, 600.0f, 300.0f}; ///< N·m, twice the worst gravity load
static const float k_lower[k_axes] = {-2.5f, -0.5f, -0.3f};
static const float k_upper[k_axes] = {2.5f, 1.7f, 2.4f};

static const float k_table_top = 0.75f;
static const float k_box_half = 0.12f;
enum
{
	k_boxes = 6,
};
/// Box centres on the table, in the order the arm visits them (a serpentine over two rows).
static const vec3s k_box_centers[k_boxes] = {
	{{1.25f, -0.45f, 0.87f}}, {{1.25f, 0.0f, 0.87f}},  {{1.25f, 0.45f, 0.87f}},
	{{1.55f, 0.45f, 0.87f}},  {{1.55f, 0.0f, 0.87f}}, {{1.55f, -0.45f, 0.87f}},
};

// The cycle per box (s): move over it, go down until the tip ball presses 2 cm into its top, come
// back up, and hold a moment; then on to the next box. Before the first cycle the arm leaves its
// upright start.
static const float k_start_time = 2.0f;
static const float k_down_time = 0.8f;
static const float k_up_time = 0.8f;
static const float k_move_time = 1.4f;
static const float k_hover = 0.35f; ///< tip above the box top while moving
static const float k_press = 0.02f;

/// Joint angles that put the tip ball's centre at p (world): the base turns towards it, then the
/// planar two-link solution with the elbow bent forwards. Angles are measured from the vertical,
/// positive towards the target; an unreachable point is clamped to the arm stretched towards it.
static void inverse_kinematics(vec3s p, float q[k_axes])
{
	float d = sqrtf(p.x * p.x + p.y * p.y);
	float h = p.z - k_shoulder_height;
	float l1 = k_upper_length, l2 = k_reach;
	float c = (d * d + h * h - l1 * l1 - l2 * l2) / (2.0f * l1 * l2);
	float elbow = acosf(fminf(fmaxf(c, -1.0f), 1.0f));
	q[0] = atan2f(p.y, p.x);
	q[1] = atan2f(d, h) - atan2f(l2 * sinf(elbow), l1 + l2 * cosf(elbow));
	q[2] = elbow;
}

static vec3s box_point(int box, float above_top)
{
	vec3s c = k_box_centers[box % k_boxes];
	return kl_vec3(c.x, c.y, c.z + k_box_half + k_tip_radius + above_top);
}

/// The joint targets at time t (s): smoothstep blends in joint space between waypoints solved by
/// inverse kinematics, so the targets (and the motors' speeds) change smoothly.
static void robot_arm_targets(float t, float targets[k_axes])
{
	float from[k_axes] = {0.0f, 0.0f, 0.0f}, to[k_axes];
	float u;
	if (t < k_start_time)
	{
		inverse_kinematics(box_point(0, k_hover), to);
		u = t / k_start_time;
	}
	else
	{
		const float cycle = k_down_time + k_up_time + k_move_time;
		float local = fmodf(t - k_start_time, cycle);
		int box = (int)((t - k_start_time) / cycle);
		vec3s above = box_point(box, k_hover), pressed = box_point(box, -k_press);
		if (local < k_down_time)
		{
			inverse_kinematics(above, from);
			inverse_kinematics(pressed, to);
			u = local / k_down_time;
		}
		else if (local < k_down_time + k_up_time)
		{
			inverse_kinematics(pressed, from);
			inverse_kinematics(above, to);
			u = (local - k_down_time) / k_up_time;
		}
		else
		{
			inverse_kinematics(above, from);
			inverse_kinematics(box_point(box + 1, k_hover), to);
			// Move in the first part of the interval and hold over the next box for the rest.
			u = fminf((local - k_down_time - k_up_time) / (0.8f * k_move_time), 1.0f);
		}
	}
	u = u * u * (3.0f - 2.0f * u);
	for (int i = 0; i < k_axes; ++i)
	{
		targets[i] = from[i] + u * (to[i] - from[i]);
	}
}

static kl_body_id add_link(kl_world_id world, const kl_shape_def* sd, vec3s bottom, float length, float radius)
{
	kl_body_id body = kl_demo_add_body(world, KL_BODY_DYNAMIC, bottom, glms_quat_identity());
	if (KL_IS_NULL(body))
	{
		return body;
	}
	kl_shape_def link = *sd;
	link.local_pose.p = kl_vec3(0.0f, 0.0f, 0.5f * length);
	if (KL_IS_NULL(kl_create_capsule_shape(body, &link, radius, 0.5f * length - radius)))
	{
		return kl_null_body_id;
	}
	return body;
}

static kl_joint_id add_axis(kl_world_id world, kl_body_id a, kl_body_id b, vec3s anchor, vec3s axis, int index)
{
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, a, b, anchor, axis);
	jd.enable_limit = true;
	jd.lower = k_lower[index];
	jd.upper = k_upper[index];
	jd.enable_motor = true;
	jd.motor_mode = KL_MOTOR_POSITION;
	jd.motor_target = 0.0f;
	jd.max_motor_force = k_max_torque[index];
	return kl_create_joint(world, &jd);
}

/// Pedestal, turntable, upper arm and forearm with a ball tip, all in one negative filter group:
/// the arm never collides with itself, only with the table and the boxes.
static bool add_arm(kl_world_id world, robot_arm_state* arm)
{
	kl_shape_def sd = kl_default_shape_def();
	sd.filter.group_index = -1;
	sd.material.friction = 0.8f;
	kl_body_id pedestal = kl_demo_add_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 0.4f), glms_quat_identity());
	if (KL_IS_NULL(pedestal) || KL_IS_NULL(kl_create_box_shape(pedestal, &sd, kl_vec3(0.25f, 0.25f, 0.4f))))
	{
		return false;
	}
	kl_body_id turntable = kl_demo_add_body(world, KL_BODY_DYNAMIC, kl_vec3(0.0f, 0.0f, 0.9f), glms_quat_identity());
	if (KL_IS_NULL(turntable) || KL_IS_NULL(kl_create_box_shape(turntable, &sd, kl_vec3(0.2f, 0.2f, 0.1f))))
	{
		return false;
	}
	vec3s shoulder = kl_vec3(0.0f, 0.0f, k_shoulder_height);
	vec3s elbow = kl_vec3(0.0f, 0.0f, k_shoulder_height + k_upper_length);
	kl_body_id upper = add_link(world, &sd, shoulder, k_upper_length, 0.08f);
	kl_body_id fore = add_link(world, &sd, elbow, k_fore_length, 0.06f);
	if (KL_IS_NULL(upper) || KL_IS_NULL(fore))
	{
		return false;
	}
	kl_shape_def tip = sd;
	tip.local_pose.p = kl_vec3(0.0f, 0.0f, k_fore_length + 0.5f * k_tip_radius);
	if (KL_IS_NULL(kl_create_sphere_shape(fore, &tip, k_tip_radius)))
	{
		return false;
	}
	// Yaw about z; shoulder and elbow about y, so positive angles lean the arm towards +x (the table).
	arm->axes[0] = add_axis(world, pedestal, turntable, kl_vec3(0.0f, 0.0f, 0.8f), kl_vec3(0.0f, 0.0f, 1.0f), 0);
	arm->axes[1] = add_axis(world, turntable, upper, shoulder, kl_vec3(0.0f, 1.0f, 0.0f), 1);
	arm->axes[2] = add_axis(world, upper, fore, elbow, kl_vec3(0.0f, 1.0f, 0.0f), 2);
	return KL_IS_NON_NULL(arm->axes[0]) && KL_IS_NON_NULL(arm->axes[1]) && KL_IS_NON_NULL(arm->axes[2]);
}

/// A table from x = 0.9 to 2.1 (top at 0.75 m) with six boxes in two rows within the arm's reach.
static bool add_table(kl_world_id world)
{
	kl_body_id table = kl_demo_add_body(world, KL_BODY_STATIC, kl_vec3(1.5f, 0.0f, 0.5f * k_table_top),
										glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.6f;
	if (KL_IS_NULL(table) || KL_IS_NULL(kl_create_box_shape(table, &sd, kl_vec3(0.6f, 1.0f, 0.5f * k_table_top))))
	{
		return false;
	}
	const vec3s h = kl_vec3(k_box_half, k_box_half, k_box_half);
	for (int i = 0; i < k_boxes; ++i)
	{
		if (KL_IS_NULL(kl_scene_add_box(world, k_box_centers[i], glms_quat_identity(), h, 300.0f, 0.6f)))
		{
			return false;
		}
	}
	return true;
}

static bool create(kl_world_id world, void** state)
{
	robot_arm_state* arm = calloc(1, sizeof(robot_arm_state));
	*state = arm;
	if (arm == NULL)
	{
		return false;
	}
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 15.0f, 0.6f)) || !add_table(world) || !add_arm(world, arm))
	{
		free(arm); // the runner frees the state only of scenes that built
		*state = NULL;
		return false;
	}
	return true;
}

static void before_step(kl_world_id world, void* state, int step_index, float dt)
{
	(void)world;
	const robot_arm_state* arm = state;
	float targets[k_axes];
	robot_arm_targets((float)(step_index + 1) * dt, targets);
	for (int i = 0; i < k_axes; ++i)
	{
		kl_joint_set_motor_target(arm->axes[i], targets[i]);
	}
}

static void destroy(void* state)
{
	free(state);
}

const kl_scene kl_scene_robot_arm = {
	.name = "robot_arm",
	.description = "3-axis arm on position motors with limits visits and presses boxes on a table",
	.create = create,
	.before_step = before_step,
	.destroy = destroy,
};
