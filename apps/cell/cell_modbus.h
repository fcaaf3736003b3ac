// Kollide robot cell — Modbus TCP: frames from a client's byte stream, checked before libmodbus
// answers them from the cell's register map (cell_modbus.c), and the server that listens for many
// clients and clocks the cell in real time or lock-step (cell_server.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "cell.h"

#define KL_CELL_MAX_CLIENTS 512
/// MBAP header (7 bytes) and the largest PDU.
#define KL_CELL_FRAME_SIZE 260

typedef struct kl_cell_client
{
	int fd; ///< -1: free
	int length;
	uint8_t buffer[KL_CELL_FRAME_SIZE];
} kl_cell_client;

typedef struct kl_cell_protocol
{
	kl_cell* cell;
	modbus_t* ctx; ///< libmodbus's TCP context, its socket set to the client answered
	uint64_t frames;
	uint64_t exceptions;
} kl_cell_protocol;

bool kl_cell_protocol_init(kl_cell_protocol* p, kl_cell* cell);
void kl_cell_protocol_free(kl_cell_protocol* p);

/// Answers one whole frame (MBAP header with its length and unit id, then the PDU) on fd: a
/// response from the register map, or an exception for an unknown function (01), a malformed PDU
/// (03) or an address outside the map (02). False when fd must be closed (not a Modbus TCP frame,
/// or the reply could not be sent).
bool kl_cell_protocol_answer(kl_cell_protocol* p, int fd, const uint8_t* frame, int length);

/// Appends bytes a client sent and answers every whole frame in its buffer; false when the client
/// must be closed. Needs no network: a fuzz target calls it with fd one end of a socket pair.
bool kl_cell_protocol_feed(kl_cell_protocol* p, kl_cell_client* client, const uint8_t* bytes, int count);

typedef struct kl_cell_server_options
{
	const char* host; ///< an IPv4 address; default 127.0.0.1
	int port;		  ///< 0: any free port (the server prints the one it got)
	bool lockstep;
	int64_t steps;		   ///< stop after this many steps (0: until a signal)
	const char* port_file; ///< where to write the port it listens on (NULL: none)
} kl_cell_server_options;

/// Serves the cell until its steps are done or SIGINT/SIGTERM; 0, or 1 when it cannot listen.
int kl_cell_serve(kl_cell* cell, const kl_cell_server_options* options);
