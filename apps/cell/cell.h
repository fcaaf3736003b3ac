// Kollide robot cell — a scene with sensors and actuators whose signals sit in a Modbus register map
// (docs/robot-cell.md). The cell reads its actuators' registers before each step and writes its
// sensors' registers after it, so a client (a PLC) sees a consistent image between steps. Uses only
// the public API (include/kollide) and libmodbus's register map.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/io.h>
#include <kollide/kollide.h>
#include <kollide/urdf.h>

#include <modbus.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define KL_CELL_NAME_SIZE 64
/// Input and holding registers 0-15 are the system block; the cell file maps from 16 up.
#define KL_CELL_SYSTEM_REGISTERS 16
#define KL_CELL_MAX_ADDRESS 4096
/// Events the report keeps; later ones are only counted.
#define KL_CELL_MAX_EVENTS 4096

/// Input registers of the system block.
enum kl_cell_system_input
{
	KL_CELL_IR_STEP_HIGH = 0, ///< step counter, 32-bit, high word first
	KL_CELL_IR_STEP_LOW = 1,
	KL_CELL_IR_STATE = 2,		  ///< kl_cell_state
	KL_CELL_IR_CYCLE_ACK = 3,	  ///< lock-step: the last request counter served (HR 1 echoed)
	KL_CELL_IR_OVERRUNS_HIGH = 4, ///< real-time mode: steps that started late, 32-bit
	KL_CELL_IR_OVERRUNS_LOW = 5,
	KL_CELL_IR_CYCLES_HIGH = 6, ///< lock-step cycles served, 32-bit
	KL_CELL_IR_CYCLES_LOW = 7,
	KL_CELL_IR_STEP_US = 8, ///< the step length in µs
};

/// Holding registers of the system block (lock-step handshake).
enum kl_cell_system_holding
{
	KL_CELL_HR_CYCLE_MS = 0,	  ///< simulated time of the next cycle, ms
	KL_CELL_HR_CYCLE_REQUEST = 1, ///< a new value requests a cycle
};

typedef enum kl_cell_state
{
	KL_CELL_IDLE = 0,
	KL_CELL_RUNNING = 1,
	KL_CELL_PASSED = 2,
	KL_CELL_FAILED = 3,
} kl_cell_state;

/// A register with a linear scale: value = raw · scale + offset, raw a signed 16-bit number.
typedef struct kl_cell_scaled
{
	int address; ///< -1: not mapped
	float scale;
	float offset;
} kl_cell_scaled;

typedef enum kl_cell_sensor_type
{
	KL_CELL_LIGHT_BARRIER,	///< a ray between two points: active while something interrupts it
	KL_CELL_REFLEX_SCANNER, ///< a ray: the distance to the first surface (its length if none)
	KL_CELL_PRESENCE,		///< a box volume: active while a movable body's shape overlaps it
	KL_CELL_DISPLACEMENT,	///< a body's offset from a reference body along the reference's axis
} kl_cell_sensor_type;

typedef struct kl_cell_sensor
{
	char name[KL_CELL_NAME_SIZE];
	kl_cell_sensor_type type;
	vec3s from, to;		   ///< rays, world
	kl_transform box_pose; ///< presence volume
	vec3s half_extents;
	char body[KL_CELL_NAME_SIZE]; ///< displacement: the measured body
	char reference[KL_CELL_NAME_SIZE];
	vec3s axis;			///< in the reference body's frame
	float zero;			///< displacement: the reading at the scene's pose (subtracted)
	float threshold;	///< displacement: the discrete input is active beyond ±threshold (m)
	int discrete_input; ///< -1: not mapped
	kl_cell_scaled input_register;
	bool active;
	float value;
} kl_cell_sensor;

typedef enum kl_cell_actuator_type
{
	KL_CELL_CONVEYOR,	 ///< a shape's surface velocity: coil on/off, register speed
	KL_CELL_JOINT_MOTOR, ///< a joint's position motor target (rad or m) from a register
	KL_CELL_GRIPPER,	 ///< two prismatic jaws: coil closes them with a force limit
	KL_CELL_SUCTION,	 ///< coil on: welds the first movable body the cup touches; off: lets go
	KL_CELL_SOURCE,		 ///< coil rising edge: creates a part
	KL_CELL_SINK,		 ///< removes movable bodies whose centre enters a box
	KL_CELL_ROBOT,		 ///< a URDF robot driven kinematically: joint or Cartesian registers
} kl_cell_actuator_type;

typedef struct kl_cell_actuator
{
	char name[KL_CELL_NAME_SIZE];
	kl_cell_actuator_type type;
	int coil; ///< -1: not mapped (then on)
	kl_cell_scaled holding_register;
	int discrete_input;			   ///< gripper and suction: holding a part; -1: not mapped
	kl_cell_scaled input_register; ///< source and sink: parts made or removed
	kl_shape_id shape;			   ///< conveyor
	vec3s direction;			   ///< conveyor: unit, shape frame
	float speed;				   ///< conveyor: m/s when no register gives it
	kl_joint_id joints[2];		   ///< motor: [0]; gripper: the jaws
	float open, closed;			   ///< gripper: jaw targets (m)
	float max_force;			   ///< gripper and motor, N or N·m
	float follow;				   ///< gripper: jaw b's target, jaw a's stroke when last applied
	kl_body_id body;			   ///< suction cup
	kl_joint_id weld;			   ///< suction: the weld while holding
	kl_transform box_pose;		   ///< source: where parts appear; sink: its volume
	vec3s half_extents;			   ///< source: the part's box; sink: the volume's
	float density;
	int count; ///< parts made or removed
	bool last_coil;
	bool applied; ///< the outputs below were applied once
	bool applied_on;
	float applied_value;
	kl_urdf_model* model; ///< robot: its own parse of the URDF (kl_robot_bind needs one)
	kl_robot* robot;	  ///< robot
	int link;			  ///< robot: the Cartesian link; -1 joint registers
	int register_count;	  ///< robot: consecutive holding registers from holding_register
	double* positions;	  ///< robot: joint positions, one per model joint
	kl_transform* poses;  ///< robot: link poses (root frame), one per model link
	kl_transform taught;  ///< robot: the Cartesian link's pose at the scene's joint positions
	bool unreachable;	  ///< robot: the last Cartesian target was not reached (logged once)
	bool refused;		  ///< robot: the last positions were refused (logged once)
} kl_cell_actuator;

typedef enum kl_cell_monitor_type
{
	KL_CELL_MONITOR_SENSOR,	   ///< a sensor's value within [min, max]
	KL_CELL_MONITOR_REGION,	   ///< a body's centre within a box
	KL_CELL_MONITOR_FORBIDDEN, ///< two bodies touch: fails the run
	KL_CELL_MONITOR_SIGNAL,	   ///< a register equals a value
} kl_cell_monitor_type;

typedef enum kl_cell_table
{
	KL_CELL_COIL,
	KL_CELL_DISCRETE_INPUT,
	KL_CELL_HOLDING,
	KL_CELL_INPUT,
} kl_cell_table;

typedef struct kl_cell_monitor
{
	char name[KL_CELL_NAME_SIZE];
	kl_cell_monitor_type type;
	int sensor;
	float min, max;
	char body[KL_CELL_NAME_SIZE];
	char other[KL_CELL_NAME_SIZE];
	kl_transform box_pose;
	vec3s half_extents;
	kl_cell_table table;
	int address;
	int value;
	int64_t window_start, window_end; ///< steps; the event must happen within [start, end]
	int64_t step;					  ///< when it happened, -1 not yet
	bool satisfied;
	bool violated;
} kl_cell_monitor;

typedef struct kl_cell_event
{
	int64_t step;
	char text[160];
} kl_cell_event;

typedef struct kl_cell
{
	kl_world_id world;
	float dt;
	int step_us;
	int substeps;
	int64_t step_count;
	kl_cell_state state;
	char reason[256];
	kl_cell_sensor* sensors;
	int sensor_count;
	kl_cell_actuator* actuators;
	int actuator_count;
	kl_cell_monitor* monitors;
	int monitor_count;
	int64_t oracle_steps; ///< a verdict must come within this many steps (0: no limit)
	kl_cell_event* events;
	int64_t events_dropped; ///< beyond KL_CELL_MAX_EVENTS
	int event_count;
	int event_capacity;
	modbus_mapping_t* map;
	uint8_t* last_coils; ///< the outputs as the last step read them (the I/O log records changes)
	uint16_t* last_holding;
	FILE* io_log; ///< NULL: not recording
	uint32_t overruns;
	uint32_t cycles;
} kl_cell;

/// Loads CELL.json and its scene; false with a message in error (size bytes) on bad input.
bool kl_cell_load(kl_cell* cell, const char* path, char* error, int size);
void kl_cell_free(kl_cell* cell);

/// One step: applies the actuators' registers, steps the world, reads the sensors into the
/// registers, runs the oracle and refreshes the system block.
void kl_cell_step(kl_cell* cell);
/// Refreshes the system block from the cell's counters (also after a cycle acknowledge).
void kl_cell_write_system_block(kl_cell* cell);

/// Signed 16-bit register ↔ value with the scale.
uint16_t kl_cell_encode(kl_cell_scaled s, float value);
float kl_cell_decode(kl_cell_scaled s, uint16_t raw);

/// Whether a world point lies inside the box of half extents at pose.
bool kl_cell_inside_box(kl_transform pose, vec3s half_extents, vec3s point);
/// The filter of the cell's queries: every shape (the queries skip sensor shapes themselves).
kl_filter kl_cell_query_filter(void);


// Sensors and actuators (cell_sensors.c, cell_actuators.c).
void kl_cell_read_sensors(kl_cell* cell);
void kl_cell_apply_actuators(kl_cell* cell);
/// Sinks remove their parts after the step.
void kl_cell_run_sinks(kl_cell* cell);

// The robot actuator (cell_robot.c).
/// Loads the URDF and binds the scene's robot of that name; link (or "") names the Cartesian link.
/// False with a message in error.
bool kl_cell_robot_bind(kl_cell_actuator* a, kl_world_id world, const char* robot, const char* urdf,
						const char* const* package_paths, int package_path_count, const char* link, char* error,
						int size);
/// Writes the robot's registers for its scene pose (joint positions, or a zero offset), so that a
/// PLC reads where the robot is and the first step does not move it.
void kl_cell_robot_write_initial_registers(kl_cell* cell, const kl_cell_actuator* a);
void kl_cell_apply_robot(kl_cell* cell, kl_cell_actuator* a, bool on);
void kl_cell_robot_free(kl_cell_actuator* a);

// The test oracle (cell_oracle.c).
void kl_cell_run_oracle(kl_cell* cell);
/// Ends the run: a monitor still waiting fails it. Call once when the run stops.
void kl_cell_finish_oracle(kl_cell* cell);
void kl_cell_add_event(kl_cell* cell, const char* format, ...);
bool kl_cell_write_report(const kl_cell* cell, const char* path);

// The I/O log (cell_iolog.c): lines "STEP coil|holding ADDRESS VALUE", the outputs as each step
// read them, and a last line "STEP end".
void kl_cell_log_outputs(kl_cell* cell);
/// Runs the cell headless from a log, to its end step; false on a malformed log.
bool kl_cell_replay(kl_cell* cell, const char* path, char* error, int size);
