// Kollide robot cell — what every PLC program of the cell shares: its Modbus TCP connection, the
// system block, the end of a cycle (the lock-step handshake of docs/robot-cell.md, or a sleep
// against a cell in real time) and the closing summary. libmodbus only, no engine.
// SPDX-License-Identifier: MIT
#pragma once

#include <modbus.h>
#include <stdbool.h>
#include <stdint.h>

enum
{
	PLC_HR_CYCLE_MS = 0,
	PLC_IR_STATE = 2,
	PLC_IR_CYCLE_ACK = 3,
	PLC_IR_STEP_US = 8,
	PLC_SYSTEM_REGISTERS = 9, ///< input registers 0-8: the system block through the step length
};

typedef struct plc_link
{
	modbus_t* ctx;
	int cycle_ms;
	int realtime;
	long max_cycles;
	uint16_t counter;
	uint16_t system[PLC_SYSTEM_REGISTERS];
	uint32_t first_step;
	double start;		 ///< wall clock at the first cycle
	double read_seconds; ///< in system-block reads, and their count and slowest
	double read_max;
	long reads;
} plc_link;

/// Parses HOST PORT [--cycle-ms N] [--realtime] [--max-cycles N] from argv, leaving other options
/// (name value pairs) to the program: extra(i) returns how many arguments it took at argv[i] (0:
/// unknown). Connects and reads the system block. Returns 0, or the exit status to end with.
int plc_link_open(plc_link* p, int argc, char** argv, const char* name, int (*extra)(char** argv, int i, int argc));
/// Reads the system block, timing the round trip; the register count read.
int plc_read_system(plc_link* p);
/// The end of a cycle: in lock-step, request it and wait for its acknowledge. 0, or 3 on an error.
int plc_end_cycle(plc_link* p);
/// The cell's verdict from the system block: 0 passed, 1 failed, -1 none yet.
int plc_verdict(const plc_link* p);
/// Prints the result line (what, steps, wall and simulated time, round trips) and disconnects.
void plc_link_close(plc_link* p, const char* name, const char* what);
/// The part feed both demo cells share: coil 0 the belt, coil 1 the feeder (a source), discrete
/// input 0 the light barrier at the belt's end, holding register 16 the belt speed (mm/s).
enum
{
	PLC_COIL_BELT = 0,
	PLC_COIL_FEEDER = 1,
	PLC_DI_BARRIER = 0,
	PLC_HR_BELT_SPEED = 16,
};
/// The feed's progress: call plc_feed once a cycle from zero-initialised state.
typedef struct plc_feed
{
	int cycle;
} plc_feed;
/// One cycle of the feed: on the first it sets the belt speed, makes a part and starts the belt; on
/// the second it drops the feeder's coil (its rising edge made the part); once barrier is set it
/// stops the belt. Returns 1 when the part has arrived, 0 while it travels, -1 on a Modbus error.
int plc_feed_cycle(plc_feed* feed, modbus_t* ctx, int speed_mm_s, bool barrier);

/// Reports a Modbus error; returns 3.
int plc_fail(const char* name, const char* what);
double plc_seconds(void);
