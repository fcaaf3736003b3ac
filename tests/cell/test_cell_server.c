// Kollide tests — kollide-cell served on a free loopback port: 100 clients connected and reading
// while a client drives 300 lock-step cycles, none missed; malformed frames get exceptions and the
// server keeps serving; the demo's PLC program drives the cell to "passed", its I/O log replays to
// the same state hash twice, and with the fixture moved 3 cm the run fails with the reason; bad
// command lines and I/O logs are refused.
// SPDX-License-Identifier: MIT
#include "cell_test_util.h"

#include <arpa/inet.h>
#include <modbus.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cmocka.h>

#define DEMO KL_CELL_DEMO_DIR "/push_cell.json"
#define CLIENTS 100
#define CYCLES 300
#define CYCLE_MS 4

static modbus_t* connect_client(int port)
{
	modbus_t* ctx = modbus_new_tcp("127.0.0.1", port);
	assert_non_null(ctx);
	modbus_set_response_timeout(ctx, 10, 0); // a hang guard only
	assert_int_equal(modbus_connect(ctx), 0);
	return ctx;
}

static uint32_t steps_of(const uint16_t* system)
{
	return ((uint32_t)system[0] << 16) | system[1];
}

static void test_lockstep_with_100_clients(void** state)
{
	(void)state;
	const char* extra[] = {"--lockstep", NULL};
	cell_process server = cell_start(DEMO, "many", extra);
	assert_true(server.port > 0);
	modbus_t* readers[CLIENTS];
	for (int i = 0; i < CLIENTS; ++i)
	{
		readers[i] = connect_client(server.port);
	}
	modbus_t* driver = connect_client(server.port);
	uint16_t system[8];
	for (uint16_t cycle = 1; cycle <= CYCLES; ++cycle)
	{
		uint16_t request[2] = {CYCLE_MS, cycle};
		assert_int_equal(modbus_write_registers(driver, 0, 2, request), 2);
		do
		{
			assert_int_equal(modbus_read_input_registers(driver, 0, 8, system), 8);
		} while (system[3] != cycle);
		// Acknowledged: exactly this cycle's steps were taken, no more and none missed.
		assert_int_equal(steps_of(system), (uint32_t)cycle * CYCLE_MS);
		assert_int_equal(((uint32_t)system[6] << 16) | system[7], cycle);
		modbus_t* reader = readers[cycle % CLIENTS];
		uint16_t seen[8];
		assert_int_equal(modbus_read_input_registers(reader, 0, 8, seen), 8);
		assert_int_equal(steps_of(seen), steps_of(system));
	}
	// Every reader is still connected and served.
	for (int i = 0; i < CLIENTS; ++i)
	{
		uint16_t seen[3];
		assert_int_equal(modbus_read_input_registers(readers[i], 0, 3, seen), 3);
		assert_int_equal(steps_of(seen), CYCLES * CYCLE_MS);
		assert_int_equal(seen[2], 1); // running
		modbus_close(readers[i]);
		modbus_free(readers[i]);
	}
	modbus_close(driver);
	modbus_free(driver);
	assert_int_equal(cell_stop(server), 0);
}

static int raw_connect(int port)
{
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr*)&address, sizeof(address)), 0);
	struct timeval timeout = {10, 0}; // a hang guard only
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	return fd;
}

static void test_malformed_frames(void** state)
{
	(void)state;
	const char* extra[] = {"--lockstep", NULL};
	cell_process server = cell_start(DEMO, "malformed", extra);
	assert_true(server.port > 0);
	int fd = raw_connect(server.port);
	const uint8_t unknown[] = {0, 1, 0, 0, 0, 3, 1, 0x41, 0};
	uint8_t reply[64];
	assert_int_equal(send(fd, unknown, sizeof(unknown), 0), sizeof(unknown));
	assert_int_equal(recv(fd, reply, sizeof(reply), 0), 9);
	assert_int_equal(reply[7], 0xc1);
	assert_int_equal(reply[8], MODBUS_EXCEPTION_ILLEGAL_FUNCTION);
	const uint8_t far[] = {0, 2, 0, 0, 0, 6, 1, 4, 0x30, 0, 0, 1};
	assert_int_equal(send(fd, far, sizeof(far), 0), sizeof(far));
	assert_int_equal(recv(fd, reply, sizeof(reply), 0), 9);
	assert_int_equal(reply[8], MODBUS_EXCEPTION_ILLEGAL_DATA_ADDRESS);
	// Garbage that is no Modbus TCP at all: the server drops that connection...
	const char garbage[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	send(fd, garbage, sizeof(garbage) - 1, 0);
	assert_int_equal(recv(fd, reply, sizeof(reply), 0), 0);
	close(fd);
	// ...and goes on serving the others.
	modbus_t* ctx = connect_client(server.port);
	uint16_t system[3];
	assert_int_equal(modbus_read_input_registers(ctx, 0, 3, system), 3);
	modbus_close(ctx);
	modbus_free(ctx);
	assert_int_equal(cell_stop(server), 0);
}

/// Runs the PLC against a lock-step server of cell; returns the PLC's exit status and leaves
/// the report and I/O log under tag.
static int run_plc(const char* cell, const char* tag)
{
	const char* plc[] = {KL_CELL_PLC_EXE, "--cycle-ms", "4", NULL};
	int status = cell_run_plc(cell, tag, plc, NULL);
	assert_true(status >= 0);
	return status;
}

/// The hash kollide-cell printed ("..., hash 0x12345678, ...") into the file.
static unsigned hash_printed(const char* path)
{
	const char* text = strstr(cell_read_text(path), "hash 0x");
	unsigned hash = 0;
	assert_non_null(text);
	assert_int_equal(sscanf(text, "hash 0x%x", &hash), 1);
	return hash;
}

static unsigned replay(const char* log, const char* tag)
{
	char out[512];
	snprintf(out, sizeof(out), "%s/%s.out", KL_TEST_OUT_DIR, tag);
	const char* argv[] = {KL_CELL_EXE, DEMO, "--replay", log, NULL};
	assert_int_equal(cell_wait(cell_spawn(argv, out)), 0);
	return hash_printed(out);
}

static void test_plc_passes_and_replays(void** state)
{
	(void)state;
	assert_int_equal(run_plc(DEMO, "plc"), 0);
	const char* report = cell_read_text(KL_TEST_OUT_DIR "/plc.report.json");
	assert_non_null(strstr(report, "\"verdict\":\t\"passed\""));
	const char* hash = strstr(report, "\"hash\":\t\"0x");
	assert_non_null(hash);
	unsigned live = 0;
	assert_int_equal(sscanf(hash, "\"hash\":\t\"0x%x", &live), 1);
	unsigned first = replay(KL_TEST_OUT_DIR "/plc.io.log", "replay1");
	unsigned second = replay(KL_TEST_OUT_DIR "/plc.io.log", "replay2");
	assert_int_equal(first, live);
	assert_int_equal(second, live);
}

static void test_moved_fixture_fails(void** state)
{
	(void)state;
	// The demo with the fixture 3 cm along x: its pocket's wall now stands in the part's way.
	char text[8192], scene[512], cell[512];
	snprintf(text, sizeof(text), "%s", cell_read_text(KL_CELL_DEMO_DIR "/push_scene.json"));
	const char* taught = "\"name\": \"fixture\", \"type\": \"static\", \"position\": [0.5,";
	char* at = strstr(text, taught);
	assert_non_null(at);
	char* comma = at + strlen(taught) - 1;
	memmove(comma + 1, comma, strlen(comma) + 1);
	*comma = '3'; // [0.5, → [0.53,
	snprintf(scene, sizeof(scene), "%s/push_scene.json", KL_TEST_OUT_DIR);
	FILE* f = fopen(scene, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cell, sizeof(cell), "%s/push_cell_moved.json", KL_TEST_OUT_DIR);
	f = fopen(cell, "w");
	assert_non_null(f);
	fputs(cell_read_text(DEMO), f);
	fclose(f);
	assert_int_equal(run_plc(cell, "moved"), 1);
	const char* report = cell_read_text(KL_TEST_OUT_DIR "/moved.report.json");
	assert_non_null(strstr(report, "\"verdict\":\t\"failed\""));
	assert_non_null(strstr(report, "monitor part_in_fixture did not happen within its window"));
}

static int run_cell(const char* const* argv, const char* tag)
{
	char out[512];
	snprintf(out, sizeof(out), "%s/%s.out", KL_TEST_OUT_DIR, tag);
	return cell_wait(cell_spawn(argv, out));
}

/// Bad arguments exit 2; a missing cell file, a malformed I/O log and an address that is not IPv4
/// exit 1, each with a message (on stderr).
static void test_bad_command_lines(void** state)
{
	(void)state;
	const char* no_cell[] = {KL_CELL_EXE, NULL};
	assert_int_equal(run_cell(no_cell, "args1"), 2);
	const char* zero_steps[] = {KL_CELL_EXE, DEMO, "--steps", "0", NULL};
	assert_int_equal(run_cell(zero_steps, "args2"), 2);
	const char* no_port[] = {KL_CELL_EXE, DEMO, "--modbus", "127.0.0.1", NULL};
	assert_int_equal(run_cell(no_port, "args3"), 2);
	const char* missing[] = {KL_CELL_EXE, KL_TEST_OUT_DIR "/no_such_cell.json", NULL};
	assert_int_equal(run_cell(missing, "args4"), 1);
	const char* not_ipv4[] = {KL_CELL_EXE, DEMO, "--modbus", "localhost:0", NULL};
	assert_int_equal(run_cell(not_ipv4, "args5"), 1);
	char log[512];
	snprintf(log, sizeof(log), "%s/bad.io.log", KL_TEST_OUT_DIR);
	FILE* f = fopen(log, "w");
	assert_non_null(f);
	fputs("0 coil 0 1\n5 holding 9999 1\n10 end\n", f);
	fclose(f);
	const char* bad_log[] = {KL_CELL_EXE, DEMO, "--replay", log, NULL};
	assert_int_equal(run_cell(bad_log, "args6"), 1);
	// A step beyond the 32-bit counter is refused before any step runs (not stepped towards).
	f = fopen(log, "w");
	assert_non_null(f);
	fputs("0 coil 0 1\n99999999999 end\n", f);
	fclose(f);
	assert_int_equal(run_cell(bad_log, "args7"), 1);
	assert_non_null(strstr(cell_read_text(KL_TEST_OUT_DIR "/args7.out"), "kollide-cell: 0 steps"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep_with_100_clients), cmocka_unit_test(test_malformed_frames),
		cmocka_unit_test(test_plc_passes_and_replays),	  cmocka_unit_test(test_moved_fixture_fails),
		cmocka_unit_test(test_bad_command_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
