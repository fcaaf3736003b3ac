// Kollide tests — the UR5 (KOLLIDE_ROBOTS_DIR; skipped where it is absent) in a cell with a robot
// actuator of joint registers: streamed joint positions bring every link to the forward
// kinematics of the taught pose, and the cell's registers start at the scene's joint positions.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define UR5_URDF KL_ROBOTS_DIR "/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
#define SCALE 0.0001f

static const double k_start[6] = {0.0, -1.2, 1.4, -1.7, -1.57, 0.0};
static const double k_taught[6] = {0.6, -0.9, 1.1, -1.4, -1.3, 0.4};

static void write_files(void)
{
	FILE* f = fopen(KL_TEST_OUT_DIR "/ur5_cell_scene.json", "w");
	assert_non_null(f);
	fprintf(f,
			"{\"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"box\", "
			"\"half_extents\": [2, 2, 0.1], \"position\": [0, 0, -0.1]}]}],\n"
			" \"robots\": [{\"name\": \"ur5\", \"urdf\": \"%s\", \"package_paths\": [\"%s\"], \"fixed_base\": true,\n"
			"  \"drive\": \"kinematic\", \"joint_positions\": {\"shoulder_lift_joint\": %g, \"elbow_joint\": %g, "
			"\"wrist_1_joint\": %g, \"wrist_2_joint\": %g}}]}\n",
			UR5_URDF, KL_ROBOTS_DIR, k_start[1], k_start[2], k_start[3], k_start[4]);
	fclose(f);
	f = fopen(KL_TEST_OUT_DIR "/ur5_cell.json", "w");
	assert_non_null(f);
	fprintf(f,
			"{\"scene\": \"ur5_cell_scene.json\", \"step_ms\": 2,\n"
			" \"actuators\": [{\"name\": \"ur5\", \"type\": \"robot\", \"robot\": \"ur5\", \"urdf\": \"%s\",\n"
			"  \"package_paths\": [\"%s\"], \"holding_register\": {\"address\": 20, \"scale\": %g}}]}\n",
			UR5_URDF, KL_ROBOTS_DIR, SCALE);
	fclose(f);
}

/// The model's moving joints in order: the actuator's registers.
static int moving_joints(const kl_urdf_model* model, int* index)
{
	int n = 0;
	for (int j = 0; j < model->joint_count; ++j)
	{
		if (kl_urdf_joint_moves(&model->joints[j]))
		{
			index[n++] = j;
		}
	}
	return n;
}

static void test_ur5_follows_streamed_joints(void** state)
{
	(void)state;
	write_files();
	kl_cell cell;
	char error[512] = "";
	bool loaded = kl_cell_load(&cell, KL_TEST_OUT_DIR "/ur5_cell.json", error, sizeof(error));
	if (!loaded)
	{
		fprintf(stderr, "%s\n", error);
	}
	assert_true(loaded);
	kl_cell_actuator* a = &cell.actuators[0];
	int index[16];
	int n = moving_joints(a->model, index);
	assert_int_equal(n, 6);
	assert_int_equal(a->register_count, 6);
	uint16_t* hr = cell.map->tab_registers + 20;
	for (int r = 0; r < n; ++r)
	{
		assert_int_equal((int16_t)hr[r], (int)lround(k_start[r] / SCALE));
	}
	// Half a second of streamed positions, the PLC's way: a straight line in joint space.
	const int steps = 250;
	for (int s = 1; s <= steps; ++s)
	{
		for (int r = 0; r < n; ++r)
		{
			double q = k_start[r] + (k_taught[r] - k_start[r]) * s / steps;
			hr[r] = kl_cell_encode(a->holding_register, (float)q);
		}
		kl_cell_step(&cell);
	}
	assert_int_equal(cell.event_count, 0);
	double positions[64] = {0};
	for (int r = 0; r < n; ++r)
	{
		positions[index[r]] =
			kl_cell_decode(a->holding_register, kl_cell_encode(a->holding_register, (float)k_taught[r]));
	}
	kl_transform poses[64];
	assert_true(a->model->link_count <= 64);
	assert_int_equal(kl_urdf_forward_kinematics(a->model, positions, poses), KL_OK);
	for (int l = 0; l < a->model->link_count; ++l)
	{
		kl_body_id body = kl_robot_get_body(a->robot, l);
		vec3s p = kl_body_get_position(body);
		versors q = kl_body_get_rotation(body);
		float dot = fabsf(glms_quat_dot(q, poses[l].q));
		assert_true(glms_vec3_distance(p, poses[l].p) < 1e-4f);
		assert_true(dot > 1.0f - 1e-6f);
	}
	kl_cell_free(&cell);
}

int main(void)
{
	if (access(UR5_URDF, R_OK) != 0)
	{
		printf("skipped: no UR5 at %s (KOLLIDE_ROBOTS_DIR)\n", UR5_URDF);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ur5_follows_streamed_joints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
