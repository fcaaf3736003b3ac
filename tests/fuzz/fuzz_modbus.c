// libFuzzer target: Modbus TCP byte streams into the robot cell's frame handling
// (kl_cell_protocol_feed, apps/cell) against the demo cell's register map, over a socket pair,
// then two steps of the cell with whatever the frames wrote to its coils and registers.
// The first byte picks the sizes of the reads the stream arrives in. docs/fuzzing.md says how to
// run it.
// SPDX-License-Identifier: MIT
#include "cell_modbus.h"
#include "fuzz_check.h"

#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int g_pair[2] = {-1, -1};

static void drain(int fd)
{
	uint8_t bytes[4096];
	while (recv(fd, bytes, sizeof(bytes), 0) > 0)
	{
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size < 1 || size > 4096)
	{
		return 0;
	}
	if (g_pair[0] < 0)
	{
		KL_FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, g_pair) == 0, "socketpair");
		fcntl(g_pair[0], F_SETFL, O_NONBLOCK);
		fcntl(g_pair[1], F_SETFL, O_NONBLOCK);
		int big = 1 << 20;
		setsockopt(g_pair[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	}
	kl_cell cell;
	char error[512];
	KL_FUZZ_CHECK(kl_cell_load(&cell, KL_FUZZ_CELL, error, sizeof(error)), "the demo cell: %s", error);
	kl_cell_protocol protocol;
	KL_FUZZ_CHECK(kl_cell_protocol_init(&protocol, &cell), "protocol");
	kl_cell_client client = {.fd = g_pair[0], .length = 0};
	int chunk = 1 + data[0] % 64;
	const uint8_t* stream = data + 1;
	int left = (int)size - 1;
	bool open = true;
	while (open && left > 0)
	{
		int n = left < chunk ? left : chunk;
		open = kl_cell_protocol_feed(&protocol, &client, stream, n);
		KL_FUZZ_CHECK(client.length >= 0 && client.length <= KL_CELL_FRAME_SIZE, "buffer length %d", client.length);
		drain(g_pair[1]);
		stream += n;
		left -= n;
	}
	kl_cell_step(&cell);
	kl_cell_step(&cell);
	uint16_t* ir = cell.map->tab_input_registers;
	KL_FUZZ_CHECK(ir[KL_CELL_IR_STEP_LOW] == 2 && ir[KL_CELL_IR_STEP_HIGH] == 0, "step counter");
	kl_body_id pusher = kl_world_find_body(cell.world, "pusher");
	vec3s p = kl_body_get_position(pusher);
	KL_FUZZ_CHECK(isfinite(p.x) && isfinite(p.y) && isfinite(p.z), "the pusher left the finite numbers");
	kl_cell_protocol_free(&protocol);
	kl_cell_free(&cell);
	return 0;
}
