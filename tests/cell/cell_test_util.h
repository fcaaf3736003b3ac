// Kollide tests — running kollide-cell as a server on a free loopback port (it binds port 0 and
// writes the port it got to a file), and stopping it.
// SPDX-License-Identifier: MIT
#pragma once

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct cell_process
{
	pid_t pid;
	int port;
} cell_process;

static void cell_sleep_ms(int ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/// Runs program with argv (NULL-terminated), stdout to out_path (or inherited when NULL).
static pid_t cell_spawn(const char* const* argv, const char* out_path)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
	{
		if (out_path != NULL && freopen(out_path, "w", stdout) == NULL)
		{
			_exit(127);
		}
		execv(argv[0], (char* const*)argv);
		_exit(127);
	}
	return pid;
}

static int cell_wait(pid_t pid)
{
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
	{
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Starts kollide-cell CELL --modbus 127.0.0.1:0 [extra...] and waits (up to 30 s: a hang guard,
/// not a verdict) for the port it listens on.
static cell_process cell_start(const char* cell, const char* tag, const char* const* extra)
{
	char port_file[512];
	snprintf(port_file, sizeof(port_file), "%s/%s.port", KL_TEST_OUT_DIR, tag);
	remove(port_file);
	const char* argv[24] = {KL_CELL_EXE, cell, "--modbus", "127.0.0.1:0", "--port-file", port_file};
	int n = 6;
	for (int i = 0; extra != NULL && extra[i] != NULL && n < 23; ++i)
	{
		argv[n++] = extra[i];
	}
	argv[n] = NULL;
	cell_process p = {cell_spawn(argv, NULL), 0};
	for (int i = 0; i < 3000 && p.port == 0; ++i)
	{
		FILE* f = fopen(port_file, "r");
		if (f == NULL || fscanf(f, "%d", &p.port) != 1)
		{
			p.port = 0;
			cell_sleep_ms(10);
		}
		if (f != NULL)
		{
			fclose(f);
		}
	}
	return p;
}

/// SIGTERM: the server finishes its run (report, I/O log) and exits 0.
static int cell_stop(cell_process p)
{
	kill(p.pid, SIGTERM);
	return cell_wait(p.pid);
}

/// The text of a small file, or "" (static buffer).
static const char* cell_read_text(const char* path)
{
	static char text[1 << 16];
	text[0] = '\0';
	FILE* f = fopen(path, "r");
	if (f != NULL)
	{
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = '\0';
		fclose(f);
	}
	return text;
}

/// Runs a PLC program (argv: the program and its options after HOST PORT, NULL-terminated) against
/// a lock-step server of cell that writes TAG.report.json and TAG.io.log; the PLC's stdout goes to
/// out (NULL: inherited). Returns the PLC's exit status, or -1 when the server did not start or
/// did not stop cleanly.
static int cell_run_plc(const char* cell, const char* tag, const char* const* plc, const char* out)
{
	char report[512], log[512], port[16];
	snprintf(report, sizeof(report), "%s/%s.report.json", KL_TEST_OUT_DIR, tag);
	snprintf(log, sizeof(log), "%s/%s.io.log", KL_TEST_OUT_DIR, tag);
	const char* extra[] = {"--lockstep", "--report", report, "--io-log", log, NULL};
	cell_process server = cell_start(cell, tag, extra);
	if (server.port <= 0)
	{
		return -1;
	}
	snprintf(port, sizeof(port), "%d", server.port);
	const char* argv[24] = {plc[0], "127.0.0.1", port};
	int n = 3;
	for (int i = 1; plc[i] != NULL && n < 23; ++i)
	{
		argv[n++] = plc[i];
	}
	argv[n] = NULL;
	int status = cell_wait(cell_spawn(argv, out));
	return cell_stop(server) == 0 ? status : -1;
}
