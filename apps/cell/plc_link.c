// Kollide robot cell — the PLC programs' shared Modbus link (plc_link.h).
// SPDX-License-Identifier: MIT
#include "plc_link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double plc_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int plc_fail(const char* name, const char* what)
{
	fprintf(stderr, "%s: %s: %s\n", name, what, modbus_strerror(errno));
	return 3;
}

int plc_read_system(plc_link* p)
{
	double start = plc_seconds();
	int n = modbus_read_input_registers(p->ctx, 0, PLC_SYSTEM_REGISTERS, p->system);
	double took = plc_seconds() - start;
	p->read_seconds += took;
	p->read_max = took > p->read_max ? took : p->read_max;
	++p->reads;
	return n;
}

static void sleep_ms(int ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

int plc_end_cycle(plc_link* p)
{
	if (p->realtime)
	{
		sleep_ms(p->cycle_ms);
		return 0;
	}
	uint16_t request[2] = {(uint16_t)p->cycle_ms, ++p->counter};
	if (modbus_write_registers(p->ctx, PLC_HR_CYCLE_MS, 2, request) != 2)
	{
		return 3;
	}
	for (;;)
	{
		if (plc_read_system(p) != PLC_SYSTEM_REGISTERS)
		{
			return 3;
		}
		if (p->system[PLC_IR_CYCLE_ACK] == p->counter)
		{
			return 0;
		}
	}
}

int plc_verdict(const plc_link* p)
{
	return p->system[PLC_IR_STATE] == 2 ? 0 : (p->system[PLC_IR_STATE] == 3 ? 1 : -1);
}

int plc_link_open(plc_link* p, int argc, char** argv, const char* name, int (*extra)(char** argv, int i, int argc))
{
	memset(p, 0, sizeof(*p));
	p->cycle_ms = 4;
	p->max_cycles = 5000;
	if (argc < 3)
	{
		return 3;
	}
	for (int i = 3; i < argc; ++i)
	{
		int took = 0;
		if (strcmp(argv[i], "--realtime") == 0)
		{
			p->realtime = 1;
		}
		else if (strcmp(argv[i], "--cycle-ms") == 0 && i + 1 < argc)
		{
			p->cycle_ms = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--max-cycles") == 0 && i + 1 < argc)
		{
			p->max_cycles = atol(argv[++i]);
		}
		else if (extra != NULL && (took = extra(argv, i, argc)) > 0)
		{
			i += took - 1;
		}
		else
		{
			fprintf(stderr, "%s: unknown option %s\n", name, argv[i]);
			return 3;
		}
	}
	if (p->cycle_ms < 1 || p->cycle_ms > 1000)
	{
		fprintf(stderr, "%s: --cycle-ms must be in [1, 1000]\n", name);
		return 3;
	}
	p->ctx = modbus_new_tcp(argv[1], atoi(argv[2]));
	if (p->ctx == NULL || modbus_connect(p->ctx) != 0)
	{
		int status = plc_fail(name, "connecting");
		if (p->ctx != NULL)
		{
			modbus_free(p->ctx);
		}
		p->ctx = NULL;
		return status;
	}
	if (plc_read_system(p) != PLC_SYSTEM_REGISTERS)
	{
		int status = plc_fail(name, "reading the system block");
		modbus_close(p->ctx);
		modbus_free(p->ctx);
		p->ctx = NULL;
		return status;
	}
	p->counter = p->system[PLC_IR_CYCLE_ACK];
	p->first_step = ((uint32_t)p->system[0] << 16) | p->system[1];
	p->start = plc_seconds();
	return 0;
}

void plc_link_close(plc_link* p, const char* name, const char* what)
{
	double wall = plc_seconds() - p->start;
	uint32_t steps = ((uint32_t)p->system[0] << 16) | p->system[1];
	double simulated = 1e-6 * (double)(steps - p->first_step) * p->system[PLC_IR_STEP_US];
	printf("%s: %s after %u steps; %.3f s wall, %.3f s simulated (%.1fx real time); "
		   "%ld system-block reads, round trip mean %.1f us, max %.1f us\n",
		   name, what, steps, wall, simulated, wall > 0.0 ? simulated / wall : 0.0, p->reads,
		   p->reads > 0 ? 1e6 * p->read_seconds / (double)p->reads : 0.0, 1e6 * p->read_max);
	modbus_close(p->ctx);
	modbus_free(p->ctx);
}

int plc_feed_cycle(plc_feed* feed, modbus_t* ctx, int speed_mm_s, bool barrier)
{
	int cycle = feed->cycle++;
	if (cycle == 0)
	{
		bool ok = modbus_write_register(ctx, PLC_HR_BELT_SPEED, speed_mm_s) == 1 &&
				  modbus_write_bit(ctx, PLC_COIL_FEEDER, 1) == 1 && modbus_write_bit(ctx, PLC_COIL_BELT, 1) == 1;
		return ok ? 0 : -1;
	}
	if (cycle == 2 && modbus_write_bit(ctx, PLC_COIL_FEEDER, 0) != 1)
	{
		return -1;
	}
	if (!barrier)
	{
		return 0;
	}
	return modbus_write_bit(ctx, PLC_COIL_BELT, 0) == 1 ? 1 : -1;
}
