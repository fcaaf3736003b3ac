// kollide-cell-screw-plc: the PLC program of the screw cell (apps/cell/demo/screw_cell.json), a
// Modbus TCP client on libmodbus alone. It feeds a part onto the belt and stops the belt when the
// part breaks the light barrier; then the robot, whose spring-loaded holder carries a screw, tries
// to insert it into the bearing block at the taught position. A try descends until the screw is
// deep enough (in: done) or the displacement sensor reports the holder pushed back (blocked); a
// blocked try retracts and the next try goes to the next point of the search pattern, points of
// a 1 mm grid around the taught position in order of their distance from it, out to --radius mm.
// After the last point it aborts. Then it waits for the cell's verdict.
//   kollide-cell-screw-plc HOST PORT [--cycle-ms N] [--realtime] [--max-cycles N] [--radius MM]
// Exit status: 0 the cell passed, 1 it failed or the search aborted, 2 no verdict in --max-cycles,
// 3 a Modbus error.
// SPDX-License-Identifier: MIT
#include "plc_link.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The screw cell's register map (screw_cell.json) beyond the part feed of plc_link.h.
enum
{
	DI_BLOCKED = 1,
	HR_TOOL_X = 20, ///< the tool's offset from its taught pose, world axes, 0.1 mm
};

#define BELT_SPEED_MM_S 300
/// Tool heights (offset along z, mm): the start, just above the block (the screw's tip 3 mm above
/// its top), and home (the tip 30 mm down the bore).
#define APPROACH_Z (-17.0)
#define HOME_Z (-50.0)
#define DESCEND_MM_S 40.0
#define MOVE_MM_S 80.0
#define GRID_MM 1.0
#define MAX_POINTS 1024

typedef enum phase
{
	FEED,
	MOVE,
	DESCEND,
	RETRACT,
	INSERTED,
	ABORTED,
} phase;

typedef struct plc
{
	plc_link link;
	modbus_t* ctx;
	uint8_t inputs[2];
	plc_feed feed;
	phase phase;
	int phase_cycles;
	double tool[3]; ///< the commanded offset, mm
	double points[MAX_POINTS][2];
	int point_count;
	int attempt; ///< the point tried now
} plc;

static const char* const k_name = "kollide-cell-screw-plc";

static int by_distance(const void* a, const void* b)
{
	const double* p = a;
	const double* q = b;
	double d = (p[0] * p[0] + p[1] * p[1]) - (q[0] * q[0] + q[1] * q[1]);
	// Equal distances keep a fixed order (by angle), so the pattern does not depend on qsort.
	return d < -1e-9 ? -1 : (d > 1e-9 ? 1 : (atan2(p[1], p[0]) < atan2(q[1], q[0]) ? -1 : 1));
}

/// The search pattern: grid points within radius, nearest first (the taught point is the first).
static void make_pattern(plc* p, double radius)
{
	int n = (int)floor(radius / GRID_MM);
	p->point_count = 0;
	for (int i = -n; i <= n; ++i)
	{
		for (int k = -n; k <= n && p->point_count < MAX_POINTS; ++k)
		{
			double x = i * GRID_MM, y = k * GRID_MM;
			if (x * x + y * y <= radius * radius + 1e-9)
			{
				p->points[p->point_count][0] = x;
				p->points[p->point_count][1] = y;
				++p->point_count;
			}
		}
	}
	qsort(p->points, (size_t)p->point_count, sizeof(p->points[0]), by_distance);
}

/// Moves the commanded tool offset toward target at speed (mm/s) for one cycle; true when there.
static bool move_toward(plc* p, const double target[3], double speed)
{
	double d[3], length = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		d[i] = target[i] - p->tool[i];
		length += d[i] * d[i];
	}
	length = sqrt(length);
	double step = speed * 1e-3 * p->link.cycle_ms;
	double f = length > step ? step / length : 1.0;
	for (int i = 0; i < 3; ++i)
	{
		p->tool[i] += f * d[i];
	}
	return f == 1.0;
}

static int write_tool(plc* p)
{
	uint16_t raw[3];
	for (int i = 0; i < 3; ++i)
	{
		raw[i] = (uint16_t)(int16_t)lround(10.0 * p->tool[i]);
	}
	return modbus_write_registers(p->ctx, HR_TOOL_X, 3, raw) == 3 ? 0 : -1;
}

static void next(plc* p, phase to)
{
	p->phase = to;
	p->phase_cycles = -1;
}

static void start_try(plc* p)
{
	if (p->attempt >= p->point_count)
	{
		printf("%s: search aborted after %d tries\n", k_name, p->attempt);
		next(p, ABORTED);
		return;
	}
	next(p, MOVE);
}

/// One pass of the sequence; -1 on a Modbus error.
static int run_sequence(plc* p)
{
	int ok = 1;
	const double* point = p->points[p->attempt < p->point_count ? p->attempt : 0];
	double above[3] = {point[0], point[1], APPROACH_Z};
	double home[3] = {point[0], point[1], HOME_Z};
	switch (p->phase)
	{
		case FEED:
		{
			int arrived = plc_feed_cycle(&p->feed, p->ctx, BELT_SPEED_MM_S, p->inputs[PLC_DI_BARRIER]);
			ok = arrived >= 0;
			if (arrived == 1)
			{
				start_try(p);
			}
			break;
		}
		case MOVE:
			if (move_toward(p, above, MOVE_MM_S))
			{
				next(p, DESCEND);
			}
			ok = write_tool(p) == 0;
			break;
		case DESCEND:
			if (p->inputs[DI_BLOCKED])
			{
				printf("%s: try %d at (%.1f, %.1f) mm blocked\n", k_name, p->attempt + 1, point[0], point[1]);
				next(p, RETRACT);
			}
			else if (move_toward(p, home, DESCEND_MM_S))
			{
				printf("%s: try %d at (%.1f, %.1f) mm: the screw is in\n", k_name, p->attempt + 1, point[0], point[1]);
				next(p, INSERTED);
			}
			ok = write_tool(p) == 0;
			break;
		case RETRACT:
			if (move_toward(p, above, MOVE_MM_S))
			{
				++p->attempt;
				start_try(p);
			}
			ok = write_tool(p) == 0;
			break;
		case INSERTED:
		case ABORTED: break;
	}
	++p->phase_cycles;
	return ok ? 0 : -1;
}

static double g_radius = 2.0;

static int extra_option(char** argv, int i, int argc)
{
	if (strcmp(argv[i], "--radius") == 0 && i + 1 < argc)
	{
		g_radius = atof(argv[i + 1]);
		return 2;
	}
	return 0;
}

int main(int argc, char** argv)
{
	static plc p;
	int status = plc_link_open(&p.link, argc, argv, k_name, extra_option);
	if (argc < 3)
	{
		fprintf(stderr, "usage: %s HOST PORT [--cycle-ms N] [--realtime] [--max-cycles N] [--radius MM]\n", k_name);
	}
	if (status == 0 && !(g_radius >= 0.0 && g_radius <= 10.0))
	{
		fprintf(stderr, "%s: --radius must be in [0, 10] mm\n", k_name);
		status = 3;
	}
	if (status != 0)
	{
		return status;
	}
	p.ctx = p.link.ctx;
	p.phase = FEED;
	make_pattern(&p, g_radius);
	status = 2;
	for (long cycle = 0; cycle < p.link.max_cycles && status == 2; ++cycle)
	{
		if (modbus_read_input_bits(p.ctx, 0, 2, p.inputs) != 2 || plc_read_system(&p.link) != PLC_SYSTEM_REGISTERS)
		{
			status = plc_fail(k_name, "reading the inputs");
			break;
		}
		if (plc_verdict(&p.link) >= 0)
		{
			status = plc_verdict(&p.link);
		}
		else if (p.phase == ABORTED)
		{
			status = 1;
		}
		else if (run_sequence(&p) != 0 || plc_end_cycle(&p.link) != 0)
		{
			status = plc_fail(k_name, "writing the outputs");
		}
	}
	static const char* const what[] = {"passed", "failed", "no verdict", "error"};
	plc_link_close(&p.link, k_name, p.phase == ABORTED && status == 1 ? "search aborted" : what[status]);
	return status;
}
