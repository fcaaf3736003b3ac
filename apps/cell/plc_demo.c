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
#include "plc_link.h"

#include <stdio.h>

// The demo cell's register map (push_cell.json) beyond the part feed of plc_link.h.
enum
{
	DI_IN_FIXTURE = 1,
	HR_PUSHER = 17, ///< mm
	IR_STROKE = 16, ///< mm
};

#define BELT_SPEED_MM_S 300
#define PUSH_MM 590
#define SETTLE_MS 60

typedef enum phase
{
	FEED,
	SETTLE,
	PUSH,
	RETRACT,
	WAIT_VERDICT,
} phase;

typedef struct plc
{
	plc_link link;
	modbus_t* ctx;
	uint8_t inputs[3];
	uint16_t stroke;
	plc_feed feed;
	phase phase;
	int phase_cycles; ///< cycles spent in the current phase
} plc;

static const char* const k_name = "kollide-cell-plc";

static int read_inputs(plc* p)
{
	if (modbus_read_input_bits(p->ctx, 0, 3, p->inputs) != 3 || plc_read_system(&p->link) != PLC_SYSTEM_REGISTERS ||
		modbus_read_input_registers(p->ctx, IR_STROKE, 1, &p->stroke) != 1)
	{
		return plc_fail(k_name, "reading the inputs");
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
		{
			int arrived = plc_feed_cycle(&p->feed, p->ctx, BELT_SPEED_MM_S, p->inputs[PLC_DI_BARRIER]);
			ok = arrived >= 0;
			if (arrived == 1)
			{
				next(p, SETTLE);
			}
			break;
		}
		case SETTLE:
			if (p->phase_cycles * p->link.cycle_ms >= SETTLE_MS)
			{
				ok = modbus_write_register(p->ctx, HR_PUSHER, PUSH_MM) == 1;
				next(p, PUSH);
			}
			break;
		case PUSH:
			// Pushed home, or stopped short and stuck (the stroke no longer grows) for half a second.
			if ((int16_t)p->stroke >= PUSH_MM - 10 || p->phase_cycles * p->link.cycle_ms >= 3000)
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
	plc p = {.phase = FEED};
	int status = plc_link_open(&p.link, argc, argv, k_name, NULL);
	if (argc < 3)
	{
		fprintf(stderr, "usage: kollide-cell-plc HOST PORT [--cycle-ms N] [--realtime] [--max-cycles N]\n");
	}
	if (status != 0)
	{
		return status;
	}
	p.ctx = p.link.ctx;
	status = 2;
	for (long cycle = 0; cycle < p.link.max_cycles; ++cycle)
	{
		if (read_inputs(&p) != 0)
		{
			status = 3;
			break;
		}
		if (plc_verdict(&p.link) >= 0)
		{
			status = plc_verdict(&p.link);
			break;
		}
		if (run_sequence(&p) != 0 || plc_end_cycle(&p.link) != 0)
		{
			status = plc_fail(k_name, "writing the outputs");
			break;
		}
	}
	static const char* const what[] = {"passed", "failed", "no verdict", "error"};
	plc_link_close(&p.link, k_name, what[status]);
	return status;
}
