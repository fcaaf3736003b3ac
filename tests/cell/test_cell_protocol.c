// Kollide tests — Modbus TCP frames against the demo cell's register map, over a socket pair (no
// network): reads and writes are answered, unknown functions, malformed PDUs and addresses outside
// the map get exceptions, frames split across reads are put together, and streams that are not
// Modbus TCP are dropped.
// SPDX-License-Identifier: MIT
#include "cell_modbus.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

typedef struct fixture
{
	kl_cell cell;
	kl_cell_protocol protocol;
	kl_cell_client client;
	int peer; ///< the client's end: replies arrive here
} fixture;

static int setup(void** state)
{
	fixture* f = calloc(1, sizeof(fixture));
	char error[512];
	int pair[2];
	if (f == NULL || !kl_cell_load(&f->cell, KL_CELL_DEMO_DIR "/push_cell.json", error, sizeof(error)) ||
		!kl_cell_protocol_init(&f->protocol, &f->cell) || socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
	{
		return -1;
	}
	f->client.fd = pair[0];
	f->peer = pair[1];
	fcntl(f->peer, F_SETFL, O_NONBLOCK);
	*state = f;
	return 0;
}

static int teardown(void** state)
{
	fixture* f = *state;
	close(f->client.fd);
	close(f->peer);
	kl_cell_protocol_free(&f->protocol);
	kl_cell_free(&f->cell);
	free(f);
	return 0;
}

/// Sends the PDU in a frame (transaction id 7, unit 1) and returns the reply's PDU length (its
/// bytes in pdu_out), or -1 when nothing came back.
static int exchange(fixture* f, const uint8_t* pdu, int length, uint8_t* pdu_out)
{
	uint8_t frame[300] = {0, 7, 0, 0, (uint8_t)((length + 1) >> 8), (uint8_t)(length + 1), 1};
	memcpy(frame + 7, pdu, (size_t)length);
	assert_true(kl_cell_protocol_feed(&f->protocol, &f->client, frame, 7 + length));
	uint8_t reply[300];
	ssize_t n = recv(f->peer, reply, sizeof(reply), 0);
	if (n < 8)
	{
		return -1;
	}
	assert_int_equal(reply[1], 7); // the transaction id comes back
	memcpy(pdu_out, reply + 7, (size_t)n - 7);
	return (int)n - 7;
}

static void expect_exception(fixture* f, const uint8_t* pdu, int length, int code)
{
	uint8_t reply[300];
	assert_int_equal(exchange(f, pdu, length, reply), 2);
	assert_int_equal(reply[0], pdu[0] | 0x80);
	assert_int_equal(reply[1], code);
}

static void test_reads_and_writes(void** state)
{
	fixture* f = *state;
	uint8_t reply[300];
	f->cell.map->tab_input_registers[KL_CELL_IR_STATE] = 2;
	const uint8_t read_system[] = {4, 0, 0, 0, 3};
	assert_int_equal(exchange(f, read_system, 5, reply), 8);
	assert_int_equal(reply[1], 6);
	assert_int_equal(reply[7], 2);
	const uint8_t write_coil[] = {5, 0, 0, 0xff, 0};
	assert_int_equal(exchange(f, write_coil, 5, reply), 5);
	assert_int_equal(f->cell.map->tab_bits[0], 1);
	const uint8_t write_registers[] = {16, 0, 16, 0, 2, 4, 0x01, 0x2c, 0xff, 0x9c};
	assert_int_equal(exchange(f, write_registers, 10, reply), 5);
	assert_int_equal(f->cell.map->tab_registers[16], 300);
	assert_int_equal((int16_t)f->cell.map->tab_registers[17], -100);
}

static void test_exceptions(void** state)
{
	fixture* f = *state;
	const uint8_t unknown[] = {0x2b, 0x0e, 1, 0};
	expect_exception(f, unknown, 4, MODBUS_EXCEPTION_ILLEGAL_FUNCTION);
	const uint8_t read_write[] = {23, 0, 16, 0, 1, 0, 16, 0, 1, 2, 0, 0};
	expect_exception(f, read_write, 12, MODBUS_EXCEPTION_ILLEGAL_FUNCTION);
	const uint8_t short_read[] = {3, 0, 0, 0};
	expect_exception(f, short_read, 4, MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE);
	const uint8_t long_read[] = {3, 0, 0, 0, 1, 9};
	expect_exception(f, long_read, 6, MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE);
	// Byte count 4 for 3 registers, and a count the bytes do not carry.
	const uint8_t bad_count[] = {16, 0, 16, 0, 3, 4, 0, 1, 0, 2};
	expect_exception(f, bad_count, 10, MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE);
	const uint8_t huge_count[] = {15, 0, 0, 0xff, 0xff, 1, 0};
	expect_exception(f, huge_count, 7, MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE);
	const uint8_t far_read[] = {4, 0x0f, 0xa0, 0, 1};
	expect_exception(f, far_read, 5, MODBUS_EXCEPTION_ILLEGAL_DATA_ADDRESS);
	const uint8_t past_end[] = {3, 0, 17, 0, 2}; // registers 17 and 18; the map ends at 17
	expect_exception(f, past_end, 5, MODBUS_EXCEPTION_ILLEGAL_DATA_ADDRESS);
	const uint8_t bad_coil_value[] = {5, 0, 0, 0x12, 0x34};
	expect_exception(f, bad_coil_value, 5, MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE);
	// And the connection still serves.
	uint8_t reply[300];
	const uint8_t read_system[] = {4, 0, 0, 0, 3};
	assert_int_equal(exchange(f, read_system, 5, reply), 8);
}

static void test_split_and_broken_streams(void** state)
{
	fixture* f = *state;
	const uint8_t frame[] = {0, 9, 0, 0, 0, 6, 1, 4, 0, 0, 0, 1};
	for (int i = 0; i < (int)sizeof(frame); ++i)
	{
		assert_true(kl_cell_protocol_feed(&f->protocol, &f->client, frame + i, 1));
	}
	uint8_t reply[64];
	assert_int_equal(recv(f->peer, reply, sizeof(reply), 0), 11);
	// Two frames in one read are both answered.
	uint8_t two[24];
	memcpy(two, frame, 12);
	memcpy(two + 12, frame, 12);
	assert_true(kl_cell_protocol_feed(&f->protocol, &f->client, two, 24));
	assert_int_equal(recv(f->peer, reply, sizeof(reply), 0), 22);
	const uint8_t other_protocol[] = {0, 1, 0, 1, 0, 6, 1, 4, 0, 0, 0, 1};
	assert_false(kl_cell_protocol_feed(&f->protocol, &f->client, other_protocol, 12));
	f->client.length = 0;
	const uint8_t too_long[] = {0, 1, 0, 0, 0x01, 0x2c, 1};
	assert_false(kl_cell_protocol_feed(&f->protocol, &f->client, too_long, 7));
	f->client.length = 0;
	const uint8_t empty_pdu[] = {0, 1, 0, 0, 0, 1, 1};
	assert_false(kl_cell_protocol_feed(&f->protocol, &f->client, empty_pdu, 7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reads_and_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exceptions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_and_broken_streams, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
