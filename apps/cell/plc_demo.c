// kollide-cell-plc: the demo cell's PLC program (apps/cell/demo/push_cell.json), a Modbus TCP client
// on libmodbus alone. Each cycle it reads the inputs, runs its sequence and writes the outputs:
// feed a part and start the belt; stop the belt when the part breaks the light barrier; push the
// part off the belt into the fixture; retract; wait for the cell's verdict.
//   kollide-cell-plc HOST PORT [--cycle-ms N] [--realtime] [--max-cycles N]
// In lock-step (the default) each cycle ends with the handshake of docs/robot-cell.md: write HR 0
// (the cycle's ms) and HR 1 (a new request counter), then poll IR 3 until it echoes the counter.
// --realtime instead sleeps the cycle's length against a cell running in real time.
// At the end it prints the verdict, the cell's steps, the wall-clock time, the simulated time
// against it, and the mean and largest round trip of its system-block reads.
// Exit status: 0 the cell passed, 1 it failed, 2 no verdict in --max-cycles, 3 a Modbus error.
// SPDX-License-Identifier: MIT
#include <errno.h>
#include <modbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The demo cell's register map (push_cell.json).
enum
{
	COIL_BELT = 0,
	COIL_FEEDER = 1,
	DI_BARRIER = 0,
	DI_IN_FIXTURE = 1,
	HR_CYCLE_MS = 0,
	HR_BELT_SPEED = 16, ///< mm/s
	HR_PUSHER = 17,		///< mm
	IR_STATE = 2,
	IR_CYCLE_ACK = 3,
	IR_STROKE = 16, ///< mm
};

#define BELT_SPEED_MM_S 300
#define PUSH_MM 590
#define SETTLE_MS 60

typedef enum phase
{
	FEED,
	CONVEY,
	SETTLE,
	PUSH,
	RETRACT,
	WAIT_VERDICT,
} phase;

typedef struct plc
{
	modbus_t* ctx;
	int cycle_ms;
	int realtime;
	uint16_t counter;
	uint8_t inputs[3];
	uint16_t system[9]; ///< input registers 0-8: the system block through the step length
	uint16_t stroke;
	phase phase;
	int phase_cycles;	 ///< cycles spent in the current phase
	double read_seconds; ///< in system-block reads, and their count and slowest
	double read_max;
	long reads;
} plc;

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/// Reads input registers 0-8, timing the round trip.
static int read_system(plc* p)
{
	double start = seconds();
	int n = modbus_read_input_registers(p->ctx, 0, 9, p->system);
	double took = seconds() - start;
	p->read_seconds += took;
	p->read_max = took > p->read_max ? took : p->read_max;
	++p->reads;
	return n;
}

static int fail(const char* what)
{
	fprintf(stderr, "kollide-cell-plc: %s: %s\n", what, modbus_strerror(errno));
	return 3;
}

static void sleep_ms(int ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/// The end of a cycle: in lock-step, request the cycle and wait for its acknowledge.
static int end_cycle(plc* p)
{
	if (p->realtime)
	{
		sleep_ms(p->cycle_ms);
		return 0;
	}
	uint16_t request[2] = {(uint16_t)p->cycle_ms, ++p->counter};
	if (modbus_write_registers(p->ctx, HR_CYCLE_MS, 2, request) != 2)
	{
		return fail("cycle request");
	}
	for (;;)
	{
		if (read_system(p) != 9)
		{
			return fail("cycle acknowledge");
		}
		if (p->system[IR_CYCLE_ACK] == p->counter)
		{
			return 0;
		}
	}
}

static int read_inputs(plc* p)
{
	if (modbus_read_input_bits(p->ctx, 0, 3, p->inputs) != 3 || read_system(p) != 9 ||
		modbus_read_input_registers(p->ctx, IR_STROKE, 1, &p->stroke) != 1)
	{
		return fail("reading the inputs");
	}
	return 0;
}

static void next(plc* p, phase to)
{
	p->phase = to;
	p->phase_cycles = -1;
}

/// One pass of the sequence; returns -1 on a Modbus error.
static int run_sequence(plc* p)
{
	int ok = 1;
	switch (p->phase)
	{
		case FEED:
			ok = modbus_write_register(p->ctx, HR_BELT_SPEED, BELT_SPEED_MM_S) == 1 &&
				 modbus_write_bit(p->ctx, COIL_FEEDER, 1) == 1 && modbus_write_bit(p->ctx, COIL_BELT, 1) == 1;
			next(p, CONVEY);
			break;
		case CONVEY:
			ok = p->phase_cycles != 1 || modbus_write_bit(p->ctx, COIL_FEEDER, 0) == 1;
			if (ok && p->inputs[DI_BARRIER])
			{
				ok = modbus_write_bit(p->ctx, COIL_BELT, 0) == 1;
				next(p, SETTLE);
			}
			break;
		case SETTLE:
			if (p->phase_cycles * p->cycle_ms >= SETTLE_MS)
			{
				ok = modbus_write_register(p->ctx, HR_PUSHER, PUSH_MM) == 1;
				next(p, PUSH);
			}
			break;
		case PUSH:
			// Pushed home, or stopped short and stuck (the stroke no longer grows) for half a second.
			if ((int16_t)p->stroke >= PUSH_MM - 10 || p->phase_cycles * p->cycle_ms >= 3000)
			{
				ok = modbus_write_register(p->ctx, HR_PUSHER, 0) == 1;
				next(p, RETRACT);
			}
			break;
		case RETRACT:
			if ((int16_t)p->stroke <= 10)
			{
				next(p, WAIT_VERDICT);
			}
			break;
		case WAIT_VERDICT: break;
	}
	++p->phase_cycles;
	return ok ? 0 : -1;
}

int main(int argc, char** argv)
{
	if (argc < 3)
	{
		fprintf(stderr, "usage: kollide-cell-plc HOST PORT [--cycle-ms N] [--realtime] [--max-cycles N]\n");
		return 3;
	}
	plc p = {.cycle_ms = 4};
	long max_cycles = 5000;
	for (int i = 3; i < argc; ++i)
	{
		if (strcmp(argv[i], "--realtime") == 0)
		{
			p.realtime = 1;
		}
		else if (strcmp(argv[i], "--cycle-ms") == 0 && i + 1 < argc)
		{
			p.cycle_ms = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--max-cycles") == 0 && i + 1 < argc)
		{
			max_cycles = atol(argv[++i]);
		}
	}
	if (p.cycle_ms < 1 || p.cycle_ms > 1000)
	{
		fprintf(stderr, "kollide-cell-plc: --cycle-ms must be in [1, 1000]\n");
		return 3;
	}
	p.ctx = modbus_new_tcp(argv[1], atoi(argv[2]));
	if (p.ctx == NULL || modbus_connect(p.ctx) != 0)
	{
		return fail("connecting");
	}
	if (modbus_read_input_registers(p.ctx, 0, 8, p.system) != 8)
	{
		return fail("reading the system block");
	}
	p.counter = p.system[IR_CYCLE_ACK];
	uint32_t first_step = ((uint32_t)p.system[0] << 16) | p.system[1];
	double start = seconds();
	int status = 2;
	for (long cycle = 0; cycle < max_cycles; ++cycle)
	{
		if (read_inputs(&p) != 0)
		{
			status = 3;
			break;
		}
		if (p.system[IR_STATE] == 2 || p.system[IR_STATE] == 3)
		{
			status = p.system[IR_STATE] == 2 ? 0 : 1;
			break;
		}
		if (run_sequence(&p) != 0 || end_cycle(&p) != 0)
		{
			status = fail("writing the outputs");
			break;
		}
	}
	double wall = seconds() - start;
	uint32_t steps = ((uint32_t)p.system[0] << 16) | p.system[1];
	double simulated = 1e-6 * (double)(steps - first_step) * p.system[8]; // IR 8: the step in µs
	printf("kollide-cell-plc: %s after %u steps; %.3f s wall, %.3f s simulated (%.1fx real time); "
		   "%ld system-block reads, round trip mean %.1f us, max %.1f us\n",
		   status == 0 ? "passed" : (status == 1 ? "failed" : (status == 2 ? "no verdict" : "error")), steps, wall,
		   simulated, wall > 0.0 ? simulated / wall : 0.0, p.reads,
		   p.reads > 0 ? 1e6 * p.read_seconds / (double)p.reads : 0.0, 1e6 * p.read_max);
	modbus_close(p.ctx);
	modbus_free(p.ctx);
	return status;
}
