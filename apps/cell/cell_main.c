// kollide-cell: runs a robot cell headless (docs/robot-cell.md).
//   kollide-cell CELL.json [--modbus HOST:PORT] [--lockstep] [--steps N] [--report FILE]
//                          [--io-log FILE] [--replay FILE] [--port-file FILE]
// Without --modbus it runs --steps steps (default 1000) as fast as it can, or replays an I/O log;
// with it, it serves the register map in real time or in lock-step. It prints the steps, the state
// hash and the verdict at the end (headless runs also their speed against real time), and writes
// the oracle's report where asked.
// SPDX-License-Identifier: MIT
#include "cell_modbus.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct arguments
{
	const char* cell;
	const char* report;
	const char* io_log;
	const char* replay;
	kl_cell_server_options server;
	bool modbus;
} arguments;

static int usage(void)
{
	fprintf(stderr, "usage: kollide-cell CELL.json [--modbus HOST:PORT] [--lockstep] [--steps N] [--report FILE]\n"
					"                              [--io-log FILE] [--replay FILE] [--port-file FILE]\n");
	return 2;
}

static bool parse_endpoint(char* text, kl_cell_server_options* o)
{
	char* colon = strrchr(text, ':');
	char* end = NULL;
	long port = colon != NULL ? strtol(colon + 1, &end, 10) : -1;
	if (colon == NULL || end == colon + 1 || *end != '\0' || port < 0 || port > 65535)
	{
		return false;
	}
	*colon = '\0';
	o->host = text[0] != '\0' ? text : "127.0.0.1";
	o->port = (int)port;
	return true;
}

static bool parse(int argc, char** argv, arguments* a)
{
	memset(a, 0, sizeof(*a));
	a->server.host = "127.0.0.1";
	a->server.port = 1502;
	for (int i = 1; i < argc; ++i)
	{
		const char* arg = argv[i];
		bool has_value = i + 1 < argc;
		if (strcmp(arg, "--lockstep") == 0)
		{
			a->server.lockstep = true;
		}
		else if (strcmp(arg, "--modbus") == 0 && has_value)
		{
			a->modbus = true;
			if (!parse_endpoint(argv[++i], &a->server))
			{
				fprintf(stderr, "kollide-cell: --modbus takes HOST:PORT, e.g. 127.0.0.1:1502\n");
				return false;
			}
		}
		else if (strcmp(arg, "--steps") == 0 && has_value)
		{
			char* end;
			long long steps = strtoll(argv[++i], &end, 10);
			if (*end != '\0' || steps < 1 || steps > ((long long)1 << 40))
			{
				fprintf(stderr, "kollide-cell: --steps takes a count of at least 1\n");
				return false;
			}
			a->server.steps = steps;
		}
		else if (strcmp(arg, "--report") == 0 && has_value)
		{
			a->report = argv[++i];
		}
		else if (strcmp(arg, "--io-log") == 0 && has_value)
		{
			a->io_log = argv[++i];
		}
		else if (strcmp(arg, "--replay") == 0 && has_value)
		{
			a->replay = argv[++i];
		}
		else if (strcmp(arg, "--port-file") == 0 && has_value)
		{
			a->server.port_file = argv[++i];
		}
		else if (arg[0] != '-' && a->cell == NULL)
		{
			a->cell = arg;
		}
		else
		{
			return false;
		}
	}
	return a->cell != NULL && !(a->replay != NULL && a->modbus);
}

static int run(kl_cell* cell, arguments* a)
{
	char error[512];
	if (a->replay != NULL)
	{
		if (!kl_cell_replay(cell, a->replay, error, sizeof(error)))
		{
			fprintf(stderr, "kollide-cell: %s\n", error);
			return 1;
		}
		return 0;
	}
	if (a->modbus)
	{
		return kl_cell_serve(cell, &a->server);
	}
	int64_t steps = a->server.steps > 0 ? a->server.steps : 1000;
	while (cell->step_count < steps)
	{
		kl_cell_step(cell);
	}
	return 0;
}

static double seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv)
{
	arguments a;
	if (!parse(argc, argv, &a))
	{
		return usage();
	}
	kl_cell cell;
	char error[512];
	if (!kl_cell_load(&cell, a.cell, error, sizeof(error)))
	{
		fprintf(stderr, "kollide-cell: %s\n", error);
		return 1;
	}
	if (a.io_log != NULL && (cell.io_log = fopen(a.io_log, "w")) == NULL)
	{
		fprintf(stderr, "kollide-cell: cannot write the I/O log %s\n", a.io_log);
		kl_cell_free(&cell);
		return 1;
	}
	double start = seconds();
	int status = run(&cell, &a);
	double wall = seconds() - start;
	if (!a.modbus && wall > 0.0)
	{
		// Headless runs as fast as they can: how much faster than real time that is.
		printf("kollide-cell: %" PRId64 " steps of %d us in %.3f s: %.0f steps/s, %.1fx real time\n", cell.step_count,
			   cell.step_us, wall, (double)cell.step_count / wall,
			   (double)cell.step_count * cell.step_us * 1e-6 / wall);
	}
	kl_cell_finish_oracle(&cell);
	kl_cell_write_system_block(&cell);
	if (cell.io_log != NULL)
	{
		fprintf(cell.io_log, "%" PRId64 " end\n", cell.step_count);
		status = fclose(cell.io_log) == 0 ? status : 1;
		cell.io_log = NULL;
	}
	static const char* const verdicts[] = {"idle", "running", "passed", "failed"};
	printf("kollide-cell: %" PRId64 " steps, hash 0x%08x, verdict %s%s%s\n", cell.step_count,
		   kl_world_hash_transforms(cell.world), verdicts[cell.state], cell.reason[0] != '\0' ? ": " : "", cell.reason);
	if (a.report != NULL && !kl_cell_write_report(&cell, a.report))
	{
		fprintf(stderr, "kollide-cell: cannot write the report %s\n", a.report);
		status = 1;
	}
	kl_cell_free(&cell);
	return status;
}
