// Kollide tests — the screw cell (apps/cell/demo/screw_cell.json) driven by its PLC program in
// lock-step: the screw goes into the block at the taught pose; with the block 1.5 mm off, the
// search pattern finds the hole after blocked tries; 5 mm off, beyond the pattern, the search
// aborts and the oracle fails the run with the reason; the passing run's I/O log replays to its
// state hash; a robot actuator naming a robot the scene lacks is refused with a message, and
// joint registers beyond the limits or an unreachable Cartesian offset are reported and held.
// SPDX-License-Identifier: MIT
#include "cell_test_util.h"

#include "cell.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define DEMO_DIR KL_CELL_DEMO_DIR
#define DEMO DEMO_DIR "/screw_cell.json"
/// The block's and the oracle's region's x in the demo's files (the taught hole).
#define TAUGHT_X "0.74945,"

/// Copies text to out (size bytes) with every from replaced by to.
static void replace_all(const char* text, const char* from, const char* to, char* out, size_t size)
{
	size_t n = 0, from_length = strlen(from), to_length = strlen(to);
	while (*text != '\0')
	{
		bool match = strncmp(text, from, from_length) == 0;
		const char* piece = match ? to : text;
		size_t length = match ? to_length : 1;
		assert_true(n + length < size);
		memcpy(out + n, piece, length);
		n += length;
		text += match ? from_length : 1;
	}
	out[n] = '\0';
}

static void write_text(const char* path, const char* text)
{
	FILE* f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/// Writes the demo's cell and scene under tag with the block (and the oracle's region) moved along
/// x to x_text, their relative paths made absolute; returns the cell's path (static buffer).
static const char* moved_cell(const char* tag, const char* x_text)
{
	static char cell[512];
	static char a[1 << 16], b[1 << 16];
	const char* files[2] = {"screw_scene.json", "screw_cell.json"};
	for (int i = 0; i < 2; ++i)
	{
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", DEMO_DIR, files[i]);
		replace_all(cell_read_text(path), TAUGHT_X, x_text, a, sizeof(a));
		replace_all(a, "\"meshes/", "\"" DEMO_DIR "/meshes/", b, sizeof(b));
		replace_all(b, "\"../../../assets", "\"" DEMO_DIR "/../../../assets", a, sizeof(a));
		char scene_name[128];
		snprintf(scene_name, sizeof(scene_name), "\"screw_scene_%s\"", tag);
		replace_all(a, "\"screw_scene.json\"", scene_name, b, sizeof(b));
		snprintf(path, sizeof(path), "%s/%s_%s", KL_TEST_OUT_DIR, i == 0 ? "screw_scene" : "screw_cell", tag);
		write_text(path, b);
		snprintf(cell, sizeof(cell), "%s", path);
	}
	return cell;
}

/// Runs the screw PLC against a lock-step server of cell; returns its exit status, its output, the
/// report and the I/O log under tag.
static int run_plc(const char* cell, const char* tag)
{
	char out[512];
	snprintf(out, sizeof(out), "%s/%s.plc.out", KL_TEST_OUT_DIR, tag);
	const char* plc[] = {KL_CELL_SCREW_PLC_EXE, "--cycle-ms", "4", "--max-cycles", "20000", NULL};
	int status = cell_run_plc(cell, tag, plc, out);
	assert_true(status >= 0);
	return status;
}

static const char* text_of(const char* tag, const char* suffix)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.%s", KL_TEST_OUT_DIR, tag, suffix);
	return cell_read_text(path);
}

/// The state hash in text after "prefix0x".
static unsigned hash_after(const char* text, const char* prefix)
{
	const char* at = strstr(text, prefix);
	unsigned hash = 0;
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen(prefix), "0x%x", &hash), 1);
	return hash;
}

static void test_taught_pose_passes(void** state)
{
	(void)state;
	assert_int_equal(run_plc(DEMO, "screw_taught"), 0);
	const char* report = text_of("screw_taught", "report.json");
	assert_non_null(strstr(report, "\"verdict\":\t\"passed\""));
	assert_non_null(strstr(report, "monitor screw_in_hole satisfied"));
	// The part came down the belt past the light barrier first.
	assert_non_null(strstr(report, "source feeder made feeder#1"));
	assert_null(strstr(text_of("screw_taught", "plc.out"), "blocked"));
	// The run's I/O log replays to the same state: the robot's inverse kinematics is deterministic.
	unsigned live = hash_after(text_of("screw_taught", "report.json"), "\"hash\":\t\"");
	const char* argv[] = {KL_CELL_EXE, DEMO, "--replay", KL_TEST_OUT_DIR "/screw_taught.io.log", NULL};
	assert_int_equal(cell_wait(cell_spawn(argv, KL_TEST_OUT_DIR "/screw_replay.out")), 0);
	assert_int_equal(hash_after(cell_read_text(KL_TEST_OUT_DIR "/screw_replay.out"), "hash "), live);
}

static void test_block_off_within_the_search_passes(void** state)
{
	(void)state;
	assert_int_equal(run_plc(moved_cell("off1_5", "0.75095,"), "screw_off1_5"), 0);
	assert_non_null(strstr(text_of("screw_off1_5", "report.json"), "\"verdict\":\t\"passed\""));
	// The taught point is blocked (1.5 mm off with 1 mm of radial clearance): the search found it.
	assert_non_null(strstr(text_of("screw_off1_5", "plc.out"), "try 1 at (0.0, 0.0) mm blocked"));
}

static void test_block_off_beyond_the_search_fails(void** state)
{
	(void)state;
	assert_int_equal(run_plc(moved_cell("off5", "0.75445,"), "screw_off5"), 1);
	assert_non_null(strstr(text_of("screw_off5", "plc.out"), "search aborted after 13 tries"));
	const char* report = text_of("screw_off5", "report.json");
	assert_non_null(strstr(report, "\"verdict\":\t\"failed\""));
	assert_non_null(strstr(report, "the run ended before monitor screw_in_hole happened"));
}

static void test_unknown_robot_is_refused(void** state)
{
	(void)state;
	static char text[1 << 16];
	replace_all(cell_read_text(moved_cell("badrobot", TAUGHT_X)), "\"robot\": \"arm\"", "\"robot\": \"nope\"", text,
				sizeof(text));
	char path[512];
	snprintf(path, sizeof(path), "%s/screw_cell_badrobot", KL_TEST_OUT_DIR);
	write_text(path, text);
	kl_cell cell;
	char error[512] = "";
	assert_false(kl_cell_load(&cell, path, error, sizeof(error)));
	assert_non_null(strstr(error, "robot \"nope\""));
}

/// Out-of-limit joint registers and an unreachable Cartesian offset: each reported once as an event,
/// the robot held where it was, nothing non-finite; valid registers then move it again.
static void test_robot_refuses_bad_targets(void** state)
{
	(void)state;
	moved_cell("bad_targets", TAUGHT_X); // the scene with absolute paths: screw_scene_bad_targets
	static const char* const modes[2] = {"", "\"link\": \"tool0\", "};
	for (int mode = 0; mode < 2; ++mode)
	{
		char text[2048], path[512];
		snprintf(text, sizeof(text),
				 "{\"scene\": \"screw_scene_bad_targets\", \"step_ms\": 4, \"actuators\": [{\"name\": \"arm\", "
				 "\"type\": \"robot\", \"robot\": \"arm\", %s\"urdf\": \"%s/../../../assets/robots/kollide_arm/"
				 "kollide_arm.urdf\", \"package_paths\": [\"%s/../../../assets/robots\"], \"holding_register\": "
				 "{\"address\": 20, \"scale\": 0.0001}}]}",
				 modes[mode], DEMO_DIR, DEMO_DIR);
		snprintf(path, sizeof(path), "%s/robot_cell_%d.json", KL_TEST_OUT_DIR, mode);
		write_text(path, text);
		kl_cell cell;
		char error[512] = "";
		bool loaded = kl_cell_load(&cell, path, error, sizeof(error));
		if (!loaded)
		{
			print_error("%s\n", error);
		}
		assert_true(loaded);
		kl_body_id flange = kl_world_find_body(cell.world, "arm/flange");
		vec3s before = kl_body_get_position(flange);
		uint16_t* hr = cell.map->tab_registers + 20;
		// Joint mode: joint_2 (register 1) to 3 rad, beyond its ±2 limit; Cartesian: 3 m along x.
		hr[mode == 0 ? 1 : 0] = 30000;
		for (int i = 0; i < 10; ++i)
		{
			kl_cell_step(&cell);
		}
		assert_int_equal(cell.event_count, 1);
		assert_non_null(strstr(cell.events[0].text, mode == 0 ? "robot arm:" : "out of reach"));
		vec3s after = kl_body_get_position(flange);
		assert_true(isfinite(after.x) && isfinite(after.y) && isfinite(after.z));
		if (mode == 0)
		{
			assert_true(glms_vec3_distance(before, after) < 1e-5f); // refused: held
			hr[1] = kl_cell_encode(cell.actuators[0].holding_register, 0.3f);
			kl_cell_step(&cell);
			assert_true(glms_vec3_distance(before, kl_body_get_position(flange)) > 0.01f);
		}
		kl_cell_free(&cell);
	}
}

/// The oracle's monitors name bodies the cell has (a misspelt forbidden contact would never fire).
static void test_monitors_name_bodies(void** state)
{
	(void)state;
	kl_cell cell;
	char error[512] = "";
	assert_true(kl_cell_load(&cell, DEMO, error, sizeof(error)));
	int forbidden = 0;
	for (int i = 0; i < cell.monitor_count; ++i)
	{
		const kl_cell_monitor* m = &cell.monitors[i];
		assert_true(KL_IS_NON_NULL(kl_world_find_body(cell.world, m->body)));
		if (m->type == KL_CELL_MONITOR_FORBIDDEN)
		{
			assert_true(KL_IS_NON_NULL(kl_world_find_body(cell.world, m->other)));
			++forbidden;
		}
	}
	assert_int_equal(forbidden, 3);
	kl_cell_free(&cell);
}

/// Two groups, two ctest entries (each within the sanitizer builds' time per test): the taught run
/// and the refusals by default, the two searches with the argument "search".
int main(int argc, char** argv)
{
	const struct CMUnitTest taught[] = {
		cmocka_unit_test(test_taught_pose_passes),
		cmocka_unit_test(test_monitors_name_bodies),
		cmocka_unit_test(test_unknown_robot_is_refused),
		cmocka_unit_test(test_robot_refuses_bad_targets),
	};
	const struct CMUnitTest search[] = {
		cmocka_unit_test(test_block_off_within_the_search_passes),
		cmocka_unit_test(test_block_off_beyond_the_search_fails),
	};
	if (argc > 1 && strcmp(argv[1], "search") == 0)
	{
		return cmocka_run_group_tests(search, NULL, NULL);
	}
	return cmocka_run_group_tests(taught, NULL, NULL);
}
