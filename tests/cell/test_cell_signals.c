// Kollide tests — the robot cell without a network: register scaling, the system block, actuators
// and sensors through the register map (belt, feeder, pusher; gripper, suction cup and sink on
// tests/cell/data/handling_cell.json), the oracle's verdicts, and cell files that are refused.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#define DEMO KL_CELL_DEMO_DIR "/push_cell.json"

enum
{
	COIL_BELT = 0,
	COIL_FEEDER = 1,
	DI_BARRIER = 0,
	HR_BELT_SPEED = 16,
	HR_PUSHER = 17,
	IR_STROKE = 16,
	IR_HEIGHT = 17,
	IR_PARTS = 18,
};

static void load_demo(kl_cell* cell)
{
	char error[512];
	bool ok = kl_cell_load(cell, DEMO, error, sizeof(error));
	if (!ok)
	{
		print_error("%s\n", error);
	}
	assert_true(ok);
}

static void run(kl_cell* cell, int steps)
{
	for (int i = 0; i < steps; ++i)
	{
		kl_cell_step(cell);
	}
}

static void test_scaling(void** state)
{
	(void)state;
	kl_cell_scaled mm = {16, 0.001f, 0.0f};
	assert_int_equal(kl_cell_encode(mm, 0.3f), 300);
	assert_int_equal(kl_cell_encode(mm, -0.5f), (uint16_t)-500);
	assert_int_equal(kl_cell_encode(mm, 100.0f), 32767); // clamped
	assert_int_equal(kl_cell_encode(mm, -100.0f), 0x8000);
	assert_int_equal(kl_cell_encode(mm, NAN), 0);
	assert_float_equal(kl_cell_decode(mm, 0xffff), -0.001f, 1e-9f);
	kl_cell_scaled offset = {16, 0.5f, 10.0f};
	assert_int_equal(kl_cell_encode(offset, 12.0f), 4);
	assert_float_equal(kl_cell_decode(offset, 4), 12.0f, 0.0f);
}

static void test_system_block(void** state)
{
	(void)state;
	kl_cell cell;
	load_demo(&cell);
	uint16_t* ir = cell.map->tab_input_registers;
	assert_int_equal(ir[KL_CELL_IR_STATE], KL_CELL_IDLE);
	assert_int_equal(ir[KL_CELL_IR_STEP_US], 1000);
	run(&cell, 3);
	assert_int_equal(ir[KL_CELL_IR_STEP_HIGH], 0);
	assert_int_equal(ir[KL_CELL_IR_STEP_LOW], 3);
	assert_int_equal(ir[KL_CELL_IR_STATE], KL_CELL_RUNNING);
	cell.step_count = 0x12345;
	cell.overruns = 0x10002;
	kl_cell_write_system_block(&cell);
	assert_int_equal(ir[KL_CELL_IR_STEP_HIGH], 0x1);
	assert_int_equal(ir[KL_CELL_IR_STEP_LOW], 0x2345);
	assert_int_equal(ir[KL_CELL_IR_OVERRUNS_HIGH], 1);
	assert_int_equal(ir[KL_CELL_IR_OVERRUNS_LOW], 2);
	kl_cell_free(&cell);
}

static kl_shape_id belt_shape(const kl_cell* cell)
{
	kl_shape_id shape;
	assert_int_equal(kl_body_get_shapes(kl_world_find_body(cell->world, "belt"), &shape, 1), 1);
	return shape;
}

/// Coil and speed register drive the belt; a source makes a part, which the belt carries through
/// the light barrier; the pusher's target register moves it and the displacement register follows.
static void test_actuators_and_sensors(void** state)
{
	(void)state;
	kl_cell cell;
	load_demo(&cell);
	modbus_mapping_t* m = cell.map;
	assert_int_equal(m->tab_input_registers[IR_HEIGHT], 350); // 0.9 - 0.55 m, in mm
	m->tab_bits[COIL_BELT] = 1;
	m->tab_registers[HR_BELT_SPEED] = 300;
	m->tab_bits[COIL_FEEDER] = 1;
	run(&cell, 1);
	assert_float_equal(kl_shape_get_material(belt_shape(&cell)).surface_velocity.x, 0.3f, 1e-6f);
	assert_true(KL_IS_NON_NULL(kl_world_find_body(cell.world, "feeder#1")));
	assert_int_equal(m->tab_input_registers[IR_PARTS], 1);
	assert_int_equal(m->tab_input_bits[DI_BARRIER], 0);
	int steps = 0;
	while (!m->tab_input_bits[DI_BARRIER] && steps < 5000)
	{
		run(&cell, 1);
		++steps;
	}
	// From x = -0.2 to the barrier at 0.53 (its leading face at +0.04) at 0.3 m/s: 2.3 s.
	assert_in_range(steps, 2200, 2500);
	m->tab_bits[COIL_BELT] = 0;
	run(&cell, 1);
	assert_float_equal(kl_shape_get_material(belt_shape(&cell)).surface_velocity.x, 0.0f, 0.0f);

	assert_int_equal(m->tab_input_registers[IR_STROKE], 0);
	m->tab_registers[HR_PUSHER] = 100; // mm
	run(&cell, 1000);
	assert_in_range((int16_t)m->tab_input_registers[IR_STROKE], 98, 102);
	kl_cell_free(&cell);
}

/// The gripper closes on a part and reports holding it; the suction cup welds the part it touches,
/// lifts it and drops it on release; the sink removes the part in its volume and counts it.
static void test_handling(void** state)
{
	(void)state;
	kl_cell cell;
	char error[512];
	bool ok = kl_cell_load(&cell, KL_CELL_TEST_DATA_DIR "/handling_cell.json", error, sizeof(error));
	if (!ok)
	{
		print_error("%s\n", error);
	}
	assert_true(ok);
	modbus_mapping_t* m = cell.map;
	kl_joint_id jaw_a = kl_world_find_joint(cell.world, "jaw_a");
	kl_joint_id jaw_b = kl_world_find_joint(cell.world, "jaw_b");
	run(&cell, 10);
	assert_int_equal(m->tab_input_bits[0], 0);
	m->tab_bits[0] = 1;
	run(&cell, 300);
	assert_int_equal(m->tab_input_bits[0], 1);
	// Stopped on the 6 cm part, each jaw 6 cm into its 9 cm stroke: the part stays centred.
	assert_float_equal(kl_joint_get_translation(jaw_a), 0.06f, 0.002f);
	assert_float_equal(kl_joint_get_translation(jaw_b), 0.06f, 0.002f);
	assert_float_equal(kl_body_get_position(kl_world_find_body(cell.world, "clamped")).x, 0.0f, 0.002f);
	m->tab_bits[0] = 0;
	run(&cell, 300);
	assert_int_equal(m->tab_input_bits[0], 0);
	assert_float_equal(kl_joint_get_translation(jaw_a), 0.0f, 0.003f);
	assert_float_equal(kl_joint_get_translation(jaw_b), 0.0f, 0.003f);

	kl_body_id cup = kl_world_find_body(cell.world, "cup");
	kl_body_id lifted = kl_world_find_body(cell.world, "lifted");
	m->tab_bits[1] = 1;
	run(&cell, 2);
	assert_int_equal(m->tab_input_bits[1], 1);
	assert_int_equal(kl_body_set_linear_velocity(cup, kl_vec3(0.0f, 0.0f, 0.1f)), KL_OK);
	run(&cell, 300); // 3 cm up
	assert_int_equal(kl_body_set_linear_velocity(cup, kl_vec3(0.0f, 0.0f, 0.0f)), KL_OK);
	assert_float_equal(kl_body_get_position(lifted).z, 0.06f, 0.005f);
	m->tab_bits[1] = 0;
	run(&cell, 300);
	assert_int_equal(m->tab_input_bits[1], 0);
	assert_float_equal(kl_body_get_position(lifted).z, 0.03f, 0.002f);

	assert_true(KL_IS_NON_NULL(kl_world_find_body(cell.world, "doomed")));
	assert_int_equal(m->tab_input_registers[16], 0);
	m->tab_bits[2] = 1;
	run(&cell, 1);
	assert_true(KL_IS_NULL(kl_world_find_body(cell.world, "doomed")));
	assert_int_equal(m->tab_input_registers[16], 1);
	kl_cell_free(&cell);
}

/// A sensor monitor passes the run when the sucked part is raised 2 cm; a forbidden contact (the
/// gripper's jaw on the other part) afterwards still fails it, with that monitor as the reason.
static void test_oracle_monitors(void** state)
{
	(void)state;
	kl_cell cell;
	char error[512];
	assert_true(kl_cell_load(&cell, KL_CELL_TEST_DATA_DIR "/oracle_cell.json", error, sizeof(error)));
	cell.map->tab_bits[1] = 1;
	run(&cell, 2);
	kl_body_set_linear_velocity(kl_world_find_body(cell.world, "cup"), kl_vec3(0.0f, 0.0f, 0.1f));
	run(&cell, 150);
	assert_int_equal(cell.state, KL_CELL_RUNNING); // 1.5 cm up
	run(&cell, 100);
	assert_int_equal(cell.state, KL_CELL_PASSED);
	assert_int_equal(cell.map->tab_input_registers[KL_CELL_IR_STATE], KL_CELL_PASSED);
	assert_in_range(cell.monitors[0].step, 200, 215);
	cell.map->tab_bits[0] = 1;
	run(&cell, 100);
	assert_int_equal(cell.state, KL_CELL_FAILED);
	assert_int_equal(cell.map->tab_input_registers[KL_CELL_IR_STATE], KL_CELL_FAILED);
	assert_non_null(strstr(cell.reason, "forbidden contact (monitor jaw_touches_part)"));
	assert_true(cell.monitors[1].violated);
	kl_cell_free(&cell);
}

static void write_file(const char* path, const char* text)
{
	FILE* f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/// A cell file with one sensor entry and one actuator entry, in the build tree.
static bool load_variant(const char* sensor, const char* actuator, char* error, int size)
{
	char text[2048], path[512];
	snprintf(text, sizeof(text),
			 "{\"scene\": \"%s/push_scene.json\", \"sensors\": [%s], \"actuators\": [%s],"
			 " \"oracle\": {\"monitors\": [{\"name\": \"belt_on\", \"type\": \"signal\", \"table\": \"coil\","
			 " \"address\": 0, \"value\": 1, \"window\": [0, 10]}]}}",
			 KL_CELL_DEMO_DIR, sensor, actuator);
	snprintf(path, sizeof(path), "%s/cell_variant.json", KL_TEST_OUT_DIR);
	write_file(path, text);
	kl_cell cell;
	bool ok = kl_cell_load(&cell, path, error, size);
	if (ok)
	{
		run(&cell, 12);
		assert_int_equal(cell.state, KL_CELL_FAILED); // the coil never went on within steps 0-10
		assert_non_null(strstr(cell.reason, "belt_on"));
		kl_cell_free(&cell);
	}
	return ok;
}

static void expect_refused(const char* sensor, const char* actuator, const char* message)
{
	char error[512] = "";
	assert_false(load_variant(sensor, actuator, error, sizeof(error)));
	if (strstr(error, message) == NULL)
	{
		print_error("expected \"%s\" in: %s\n", message, error);
	}
	assert_non_null(strstr(error, message));
}

/// A belt speed the engine refuses (200 km/s) leaves the belt as it was and is reported, once per
/// change; a client changing it every step fills the report up to its limit, then only counts.
static void test_refused_values(void** state)
{
	(void)state;
	char text[1024], path[512], error[512];
	snprintf(text, sizeof(text),
			 "{\"scene\": \"%s/push_scene.json\", \"actuators\": [{\"name\": \"belt\", \"type\": \"conveyor\","
			 " \"body\": \"belt\", \"holding_register\": {\"address\": 20, \"scale\": 10}}]}",
			 KL_CELL_DEMO_DIR);
	snprintf(path, sizeof(path), "%s/cell_refused.json", KL_TEST_OUT_DIR);
	write_file(path, text);
	kl_cell cell;
	assert_true(kl_cell_load(&cell, path, error, sizeof(error)));
	cell.map->tab_registers[20] = 20000;
	run(&cell, 3);
	assert_int_equal(cell.event_count, 1);
	assert_non_null(strstr(cell.events[0].text, "actuator belt: surface velocity"));
	assert_true(kl_shape_get_material(belt_shape(&cell)).surface_velocity.x == 0.0f);
	for (int i = 0; i < KL_CELL_MAX_EVENTS + 100; ++i)
	{
		cell.map->tab_registers[20] = (uint16_t)(20000 + i % 2);
		run(&cell, 1);
	}
	assert_int_equal(cell.event_count, KL_CELL_MAX_EVENTS);
	assert_int_equal(cell.events_dropped, 100); // 1 + 4,195 changes (the first value repeats)
	assert_true(kl_shape_get_material(belt_shape(&cell)).surface_velocity.x == 0.0f);
	kl_cell_free(&cell);
}

static void test_bad_cell_files(void** state)
{
	(void)state;
	char error[512];
	const char* barrier = "{\"name\": \"b\", \"type\": \"light_barrier\", \"from\": [0, 0, 1], \"to\": [0, 0, 2], "
						  "\"discrete_input\": 3}";
	const char* belt = "{\"name\": \"c\", \"type\": \"conveyor\", \"body\": \"belt\", \"coil\": 0}";
	assert_true(load_variant(barrier, belt, error, sizeof(error)));
	expect_refused("{\"name\": \"b\", \"type\": \"laser\"}", belt, "sensors[0]: unknown type \"laser\"");
	expect_refused("{\"name\": \"b\", \"type\": \"light_barrier\", \"from\": [0, 0, 1e300], \"to\": [0, 0, 2]}", belt,
				   "sensors[0]: from must be a number");
	expect_refused(barrier, "{\"name\": \"c\", \"type\": \"conveyor\", \"body\": \"nobody\"}",
				   "no body named \"nobody\"");
	expect_refused(barrier, "{\"name\": \"c\", \"type\": \"conveyor\", \"body\": \"belt\", \"holding_register\": 1}",
				   "holding_register 1 is outside [16, 4096)");
	expect_refused(barrier,
				   "{\"name\": \"c\", \"type\": \"conveyor\", \"body\": \"belt\", \"coil\": 0},"
				   "{\"name\": \"d\", \"type\": \"source\", \"position\": [0, 0, 1], \"coil\": 0}",
				   "actuators[1]: coil 0 is mapped twice");
	expect_refused(barrier,
				   "{\"name\": \"c\", \"type\": \"conveyor\", \"body\": \"belt\", "
				   "\"holding_register\": {\"address\": 20, \"scale\": 0}}",
				   "scale must not be zero");
	expect_refused(barrier, "{\"name\": \"g\", \"type\": \"gripper\", \"jaw_a\": \"pusher_axis\", \"jaw_b\": \"none\"}",
				   "no joint named \"none\"");
	char path[512];
	snprintf(path, sizeof(path), "%s/cell_broken.json", KL_TEST_OUT_DIR);
	write_file(path, "{\"scene\": ");
	kl_cell cell;
	assert_false(kl_cell_load(&cell, path, error, sizeof(error)));
	assert_non_null(strstr(error, "not a readable JSON file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_system_block),
		cmocka_unit_test(test_actuators_and_sensors),
		cmocka_unit_test(test_handling),
		cmocka_unit_test(test_refused_values),
		cmocka_unit_test(test_oracle_monitors),
		cmocka_unit_test(test_bad_cell_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
