// Kollide robot cell — the Modbus TCP server: one thread, a select() loop over the listening socket
// and up to KL_CELL_MAX_CLIENTS clients, which clocks the cell between their requests: in real
// time (a step every step length of wall-clock time; a step that starts more than one step late
// counts as an overrun and the schedule restarts from now) or in lock-step (a cycle request in
// holding register 1 steps the time in holding register 0, then input register 3 echoes it).
// SPDX-License-Identifier: MIT
#include "cell_modbus.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop = 0;

static void on_signal(int signal_number)
{
	(void)signal_number;
	g_stop = 1;
}

static int64_t now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int listen_on(const kl_cell_server_options* o)
{
	struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
	if (inet_pton(AF_INET, o->host != NULL ? o->host : "127.0.0.1", &address.sin_addr) != 1)
	{
		fprintf(stderr, "kollide-cell: %s is not an IPv4 address\n", o->host);
		return -1;
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int yes = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes)) != 0 ||
		bind(fd, (struct sockaddr*)&address, sizeof(address)) != 0 || listen(fd, 128) != 0)
	{
		fprintf(stderr, "kollide-cell: cannot listen on %s:%d: %s\n", o->host, o->port, strerror(errno));
		if (fd >= 0)
		{
			close(fd);
		}
		return -1;
	}
	socklen_t size = sizeof(address);
	getsockname(fd, (struct sockaddr*)&address, &size);
	int port = ntohs(address.sin_port);
	printf("kollide-cell: listening on %s:%d (%s)\n", o->host != NULL ? o->host : "127.0.0.1", port,
		   o->lockstep ? "lock-step" : "real time");
	fflush(stdout);
	FILE* f = o->port_file != NULL ? fopen(o->port_file, "w") : NULL;
	if (f != NULL)
	{
		fprintf(f, "%d\n", port);
		fclose(f);
	}
	return fd;
}

typedef struct server
{
	kl_cell* cell;
	kl_cell_protocol protocol;
	kl_cell_client* clients;
	int listen_fd;
	int64_t sim_us;	   ///< simulated time stepped
	int64_t target_us; ///< lock-step: simulated time the cycles asked for
	int64_t deadline;  ///< real time: when the next step is due (µs, monotonic)
} server;

static void accept_client(server* s)
{
	int fd = accept(s->listen_fd, NULL, NULL);
	if (fd < 0)
	{
		return;
	}
	for (int i = 0; i < KL_CELL_MAX_CLIENTS; ++i)
	{
		if (s->clients[i].fd < 0 && fd < FD_SETSIZE)
		{
			int yes = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			s->clients[i].fd = fd;
			s->clients[i].length = 0;
			return;
		}
	}
	close(fd); // full
}

static void read_client(server* s, kl_cell_client* c)
{
	uint8_t bytes[1024];
	ssize_t n = recv(c->fd, bytes, sizeof(bytes), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
	{
		return;
	}
	if (n <= 0 || !kl_cell_protocol_feed(&s->protocol, c, bytes, (int)n))
	{
		close(c->fd);
		c->fd = -1;
	}
}

static bool steps_done(const kl_cell* cell, const kl_cell_server_options* o)
{
	return o->steps > 0 && cell->step_count >= o->steps;
}

/// Lock-step: a new request counter in HR 1 asks for HR 0 milliseconds more of simulated time.
static void serve_cycle(server* s, const kl_cell_server_options* o)
{
	kl_cell* cell = s->cell;
	uint16_t* hr = cell->map->tab_registers;
	uint16_t* ir = cell->map->tab_input_registers;
	if (hr[KL_CELL_HR_CYCLE_REQUEST] == ir[KL_CELL_IR_CYCLE_ACK])
	{
		return;
	}
	s->target_us += (int64_t)hr[KL_CELL_HR_CYCLE_MS] * 1000;
	while (s->sim_us + cell->step_us <= s->target_us && !steps_done(cell, o))
	{
		kl_cell_step(cell);
		s->sim_us += cell->step_us;
	}
	++cell->cycles;
	ir[KL_CELL_IR_CYCLE_ACK] = hr[KL_CELL_HR_CYCLE_REQUEST];
	kl_cell_write_system_block(cell);
}

static void serve_real_time(server* s)
{
	kl_cell* cell = s->cell;
	int64_t now = now_us();
	if (now < s->deadline)
	{
		return;
	}
	if (now - s->deadline > cell->step_us)
	{
		++cell->overruns;
		s->deadline = now;
	}
	kl_cell_step(cell);
	s->deadline += cell->step_us;
}

int kl_cell_serve(kl_cell* cell, const kl_cell_server_options* o)
{
	server s = {.cell = cell};
	s.listen_fd = listen_on(o);
	s.clients = malloc(KL_CELL_MAX_CLIENTS * sizeof(kl_cell_client));
	if (s.listen_fd < 0 || s.clients == NULL || !kl_cell_protocol_init(&s.protocol, cell))
	{
		free(s.clients);
		return 1;
	}
	for (int i = 0; i < KL_CELL_MAX_CLIENTS; ++i)
	{
		s.clients[i].fd = -1;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	s.deadline = now_us();
	while (!g_stop && !steps_done(cell, o))
	{
		fd_set readable;
		FD_ZERO(&readable);
		FD_SET(s.listen_fd, &readable);
		int top = s.listen_fd;
		for (int i = 0; i < KL_CELL_MAX_CLIENTS; ++i)
		{
			if (s.clients[i].fd >= 0)
			{
				FD_SET(s.clients[i].fd, &readable);
				top = s.clients[i].fd > top ? s.clients[i].fd : top;
			}
		}
		int64_t wait = o->lockstep ? 100000 : s.deadline - now_us();
		wait = wait < 0 ? 0 : wait;
		struct timeval timeout = {(time_t)(wait / 1000000), (suseconds_t)(wait % 1000000)};
		int ready = select(top + 1, &readable, NULL, NULL, &timeout);
		if (ready > 0 && FD_ISSET(s.listen_fd, &readable))
		{
			accept_client(&s);
		}
		for (int i = 0; ready > 0 && i < KL_CELL_MAX_CLIENTS; ++i)
		{
			if (s.clients[i].fd >= 0 && FD_ISSET(s.clients[i].fd, &readable))
			{
				read_client(&s, &s.clients[i]);
			}
		}
		if (o->lockstep)
		{
			serve_cycle(&s, o);
		}
		else
		{
			serve_real_time(&s);
		}
	}
	for (int i = 0; i < KL_CELL_MAX_CLIENTS; ++i)
	{
		if (s.clients[i].fd >= 0)
		{
			close(s.clients[i].fd);
		}
	}
	close(s.listen_fd);
	kl_cell_protocol_free(&s.protocol);
	free(s.clients);
	return 0;
}
