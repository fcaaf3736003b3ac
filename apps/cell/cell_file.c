// Kollide robot cell — reading a cell file (JSON, docs/robot-cell.md): the scene it names, its
// sensors, actuators and monitors, and the register map their addresses span.
// SPDX-License-Identifier: MIT
#include "cell.h"
#include "cell_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Which addresses of each table a signal took, so that no two signals share one.
typedef struct address_book
{
	uint8_t used[4][KL_CELL_MAX_ADDRESS];
	int count[4]; ///< highest address + 1
} address_book;

static const char* const k_table_names[4] = {"coil", "discrete_input", "holding_register", "input_register"};

static bool claim(kl_cell_json* j, address_book* book, kl_cell_table table, int address)
{
	if (address < 0)
	{
		return true;
	}
	bool is_register = table == KL_CELL_HOLDING || table == KL_CELL_INPUT;
	if (address >= KL_CELL_MAX_ADDRESS || (is_register && address < KL_CELL_SYSTEM_REGISTERS))
	{
		return kl_cell_json_fail(j, "%s %d is outside [%d, %d)", k_table_names[table], address,
								 is_register ? KL_CELL_SYSTEM_REGISTERS : 0, KL_CELL_MAX_ADDRESS);
	}
	if (book->used[table][address])
	{
		return kl_cell_json_fail(j, "%s %d is mapped twice", k_table_names[table], address);
	}
	book->used[table][address] = 1;
	book->count[table] = address + 1 > book->count[table] ? address + 1 : book->count[table];
	return true;
}

static bool read_bit(kl_cell_json* j, const cJSON* o, const char* key, address_book* book, kl_cell_table table,
					 int* address)
{
	*address = -1;
	return kl_cell_json_int(j, o, key, false, 0, KL_CELL_MAX_ADDRESS - 1, address) && claim(j, book, table, *address);
}

static bool read_register(kl_cell_json* j, const cJSON* o, const char* key, address_book* book, kl_cell_table table,
						  kl_cell_scaled* s)
{
	*s = (kl_cell_scaled){-1, 1.0f, 0.0f};
	return kl_cell_json_scaled(j, o, key, s) && claim(j, book, table, s->address);
}

static bool resolve_body(kl_cell_json* j, kl_world_id world, const char* name, kl_body_id* body)
{
	*body = kl_world_find_body(world, name);
	return KL_IS_NON_NULL(*body) || kl_cell_json_fail(j, "no body named \"%s\" in the scene", name);
}

static bool read_sensor(kl_cell_json* j, kl_cell* cell, const cJSON* o, address_book* book, kl_cell_sensor* s)
{
	static const char* const types[] = {"light_barrier", "reflex_scanner", "presence", "displacement"};
	int type = 0;
	s->discrete_input = -1;
	s->axis = kl_vec3(0.0f, 0.0f, 1.0f);
	s->box_pose = kl_transform_identity();
	s->half_extents = kl_vec3(0.1f, 0.1f, 0.1f);
	float threshold = 0.001f;
	bool ok = kl_cell_json_name(j, o, "name", true, s->name) && kl_cell_json_enum(j, o, "type", types, 4, &type);
	s->type = (kl_cell_sensor_type)type;
	ok = ok && read_bit(j, o, "discrete_input", book, KL_CELL_DISCRETE_INPUT, &s->discrete_input) &&
		 read_register(j, o, "input_register", book, KL_CELL_INPUT, &s->input_register);
	if (!ok)
	{
		return false;
	}
	switch (s->type)
	{
		case KL_CELL_LIGHT_BARRIER:
		case KL_CELL_REFLEX_SCANNER:
			return kl_cell_json_vec3(j, o, "from", true, &s->from) && kl_cell_json_vec3(j, o, "to", true, &s->to);
		case KL_CELL_PRESENCE:
			return kl_cell_json_pose(j, o, &s->box_pose) && kl_cell_json_extents(j, o, &s->half_extents);
		case KL_CELL_DISPLACEMENT:
		{
			kl_body_id a, b;
			ok = kl_cell_json_name(j, o, "body", true, s->body) &&
				 kl_cell_json_name(j, o, "reference", true, s->reference) &&
				 kl_cell_json_unit(j, o, "axis", &s->axis) &&
				 kl_cell_json_float(j, o, "threshold", false, &threshold) &&
				 resolve_body(j, cell->world, s->body, &a) && resolve_body(j, cell->world, s->reference, &b);
			s->threshold = threshold;
			return ok;
		}
	}
	return false;
}

static bool read_joint(kl_cell_json* j, kl_world_id world, const char* name, kl_joint_id* joint)
{
	*joint = kl_world_find_joint(world, name);
	return KL_IS_NON_NULL(*joint) || kl_cell_json_fail(j, "no joint named \"%s\" in the scene", name);
}

/// Most package directories a robot actuator names.
#define KL_CELL_MAX_PACKAGE_PATHS 8

/// Robot: "robot" (the scene's robot name), "urdf" and "package_paths" (relative to the cell
/// file), "link" (Cartesian mode), and one register per moving joint or three for the offset.
static bool read_robot(kl_cell_json* j, kl_cell* cell, const cJSON* o, const char* dir, address_book* book,
					   kl_cell_actuator* a)
{
	char robot[KL_CELL_NAME_SIZE], link[KL_CELL_NAME_SIZE] = "", urdf[512], error[512];
	char packages[KL_CELL_MAX_PACKAGE_PATHS][512];
	const char* package_paths[KL_CELL_MAX_PACKAGE_PATHS];
	int package_count = 0;
	if (!kl_cell_json_name(j, o, "robot", true, robot) || !kl_cell_json_name(j, o, "link", false, link) ||
		!kl_cell_json_path(j, o, "urdf", dir, urdf, sizeof(urdf)) ||
		!kl_cell_json_check(j, a->holding_register.address >= 0, "a robot needs its first holding_register"))
	{
		return false;
	}
	const cJSON* paths = cJSON_GetObjectItemCaseSensitive(o, "package_paths");
	if (paths != NULL && (!cJSON_IsArray(paths) || cJSON_GetArraySize(paths) > KL_CELL_MAX_PACKAGE_PATHS))
	{
		return kl_cell_json_fail(j, "package_paths must be an array of at most %d directories",
								 KL_CELL_MAX_PACKAGE_PATHS);
	}
	const cJSON* item;
	cJSON_ArrayForEach(item, paths)
	{
		cJSON* holder = cJSON_CreateObject();
		bool ok = holder != NULL && cJSON_AddItemReferenceToObject(holder, "package_paths", (cJSON*)item) &&
				  kl_cell_json_path(j, holder, "package_paths", dir, packages[package_count], 512);
		cJSON_Delete(holder);
		if (!ok)
		{
			return false;
		}
		package_paths[package_count] = packages[package_count];
		++package_count;
	}
	if (!kl_cell_robot_bind(a, cell->world, robot, urdf, package_paths, package_count, link, error, sizeof(error)))
	{
		return kl_cell_json_fail(j, "%s", error);
	}
	for (int r = 1; r < a->register_count; ++r)
	{
		if (!claim(j, book, KL_CELL_HOLDING, a->holding_register.address + r))
		{
			return false;
		}
	}
	return true;
}

static bool read_actuator_kind(kl_cell_json* j, kl_cell* cell, const cJSON* o, kl_cell_actuator* a)
{
	char name[KL_CELL_NAME_SIZE];
	switch (a->type)
	{
		case KL_CELL_CONVEYOR:
		{
			int index = 0;
			kl_body_id body;
			kl_shape_id shapes[16];
			if (!kl_cell_json_name(j, o, "body", true, name) || !resolve_body(j, cell->world, name, &body) ||
				!kl_cell_json_int(j, o, "shape", false, 0, 15, &index) ||
				!kl_cell_json_unit(j, o, "direction", &a->direction) ||
				!kl_cell_json_float(j, o, "speed", false, &a->speed))
			{
				return false;
			}
			if (kl_body_get_shapes(body, shapes, 16) <= index)
			{
				return kl_cell_json_fail(j, "body \"%s\" has no shape %d", name, index);
			}
			a->shape = shapes[index];
			return true;
		}
		case KL_CELL_JOINT_MOTOR:
			return kl_cell_json_name(j, o, "joint", true, name) && read_joint(j, cell->world, name, &a->joints[0]) &&
				   kl_cell_json_float(j, o, "max_force", false, &a->max_force);
		case KL_CELL_GRIPPER:
		{
			char second[KL_CELL_NAME_SIZE];
			return kl_cell_json_name(j, o, "jaw_a", true, name) && kl_cell_json_name(j, o, "jaw_b", true, second) &&
				   read_joint(j, cell->world, name, &a->joints[0]) &&
				   read_joint(j, cell->world, second, &a->joints[1]) &&
				   kl_cell_json_float(j, o, "open", true, &a->open) &&
				   kl_cell_json_float(j, o, "closed", true, &a->closed) &&
				   kl_cell_json_float(j, o, "max_force", true, &a->max_force);
		}
		case KL_CELL_SUCTION:
			return kl_cell_json_name(j, o, "body", true, name) && resolve_body(j, cell->world, name, &a->body);
		case KL_CELL_SOURCE:
			a->density = 500.0f;
			return kl_cell_json_pose(j, o, &a->box_pose) && kl_cell_json_extents(j, o, &a->half_extents) &&
				   kl_cell_json_float(j, o, "density", false, &a->density) &&
				   kl_cell_json_check(j, a->density > 0.0f && a->density < 1e5f, "density must be in (0, 1e5)");
		case KL_CELL_SINK: return kl_cell_json_pose(j, o, &a->box_pose) && kl_cell_json_extents(j, o, &a->half_extents);
		case KL_CELL_ROBOT: break; // read_robot
	}
	return false;
}

static bool read_actuator(kl_cell_json* j, kl_cell* cell, const cJSON* o, const char* dir, address_book* book,
						  kl_cell_actuator* a)
{
	static const char* const types[] = {"conveyor", "joint_motor", "gripper", "suction", "source", "sink", "robot"};
	int type = 0;
	a->direction = kl_vec3(1.0f, 0.0f, 0.0f);
	a->max_force = 1000.0f;
	a->box_pose = kl_transform_identity();
	a->half_extents = kl_vec3(0.05f, 0.05f, 0.05f);
	bool ok = kl_cell_json_name(j, o, "name", true, a->name) && kl_cell_json_enum(j, o, "type", types, 7, &type);
	a->type = (kl_cell_actuator_type)type;
	a->link = -1;
	ok = ok && read_bit(j, o, "coil", book, KL_CELL_COIL, &a->coil) &&
		 read_register(j, o, "holding_register", book, KL_CELL_HOLDING, &a->holding_register) &&
		 read_bit(j, o, "discrete_input", book, KL_CELL_DISCRETE_INPUT, &a->discrete_input) &&
		 read_register(j, o, "input_register", book, KL_CELL_INPUT, &a->input_register);
	if (ok && a->type == KL_CELL_ROBOT && !read_robot(j, cell, o, dir, book, a))
	{
		kl_cell_robot_free(a); // not counted among the actuators yet
		return false;
	}
	return ok && (a->type == KL_CELL_ROBOT || read_actuator_kind(j, cell, o, a));
}

static bool read_window(kl_cell_json* j, const cJSON* o, kl_cell_monitor* m)
{
	m->window_start = 0;
	m->window_end = INT64_MAX;
	const cJSON* w = cJSON_GetObjectItemCaseSensitive(o, "window");
	if (w == NULL)
	{
		return true;
	}
	if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) != 2 || !cJSON_IsNumber(w->child) ||
		!cJSON_IsNumber(w->child->next) ||
		!(w->child->valuedouble >= 0.0 && w->child->valuedouble <= w->child->next->valuedouble &&
		  w->child->next->valuedouble < 1e15))
	{
		return kl_cell_json_fail(j, "window must be [first step, last step], 0 <= first <= last");
	}
	m->window_start = (int64_t)w->child->valuedouble;
	m->window_end = (int64_t)w->child->next->valuedouble;
	return true;
}

static bool read_monitor(kl_cell_json* j, kl_cell* cell, const cJSON* o, kl_cell_monitor* m)
{
	static const char* const types[] = {"sensor", "region", "forbidden_contact", "signal"};
	int type = 0;
	char sensor[KL_CELL_NAME_SIZE];
	m->step = -1;
	m->box_pose = kl_transform_identity();
	m->half_extents = kl_vec3(0.1f, 0.1f, 0.1f);
	m->min = -INFINITY;
	m->max = INFINITY;
	if (!kl_cell_json_name(j, o, "name", true, m->name) || !kl_cell_json_enum(j, o, "type", types, 4, &type) ||
		!read_window(j, o, m))
	{
		return false;
	}
	m->type = (kl_cell_monitor_type)type;
	switch (m->type)
	{
		case KL_CELL_MONITOR_SENSOR:
			if (!kl_cell_json_name(j, o, "sensor", true, sensor) || !kl_cell_json_float(j, o, "min", false, &m->min) ||
				!kl_cell_json_float(j, o, "max", false, &m->max))
			{
				return false;
			}
			for (m->sensor = 0; m->sensor < cell->sensor_count; ++m->sensor)
			{
				if (strcmp(cell->sensors[m->sensor].name, sensor) == 0)
				{
					return true;
				}
			}
			return kl_cell_json_fail(j, "no sensor named \"%s\"", sensor);
		case KL_CELL_MONITOR_REGION:
			return kl_cell_json_name(j, o, "body", true, m->body) && kl_cell_json_pose(j, o, &m->box_pose) &&
				   kl_cell_json_extents(j, o, &m->half_extents);
		case KL_CELL_MONITOR_FORBIDDEN:
			return kl_cell_json_name(j, o, "body_a", true, m->body) &&
				   kl_cell_json_name(j, o, "body_b", true, m->other);
		case KL_CELL_MONITOR_SIGNAL:
		{
			int table = 0;
			return kl_cell_json_enum(j, o, "table", k_table_names, 4, &table) &&
				   kl_cell_json_int(j, o, "address", true, 0, KL_CELL_MAX_ADDRESS - 1, &m->address) &&
				   kl_cell_json_int(j, o, "value", true, -32768, 65535, &m->value) && ((m->table = table), true);
		}
	}
	return false;
}

typedef struct reader
{
	kl_cell_json* j;
	kl_cell* cell;
	address_book* book;
	const char* dir; ///< the cell file's directory
} reader;

typedef bool item_reader(reader* r, const cJSON* object, void* item);

static bool sensor_item(reader* r, const cJSON* o, void* item)
{
	return read_sensor(r->j, r->cell, o, r->book, item);
}

static bool actuator_item(reader* r, const cJSON* o, void* item)
{
	return read_actuator(r->j, r->cell, o, r->dir, r->book, item);
}

static bool monitor_item(reader* r, const cJSON* o, void* item)
{
	return read_monitor(r->j, r->cell, o, item);
}

/// Reads the optional array `key` of objects into a new array of items of item_size bytes.
static bool read_array(reader* r, const cJSON* parent, const char* key, size_t item_size, item_reader* read_item,
					   void** items, int* count)
{
	const cJSON* array = cJSON_GetObjectItemCaseSensitive(parent, key);
	if (array != NULL && !cJSON_IsArray(array))
	{
		return kl_cell_json_fail(r->j, "%s must be an array", key);
	}
	int n = array != NULL ? cJSON_GetArraySize(array) : 0;
	*items = calloc(n > 0 ? (size_t)n : 1, item_size);
	if (*items == NULL)
	{
		return kl_cell_json_fail(r->j, "out of memory");
	}
	const cJSON* item;
	cJSON_ArrayForEach(item, array)
	{
		kl_cell_json_push(r->j, key, *count);
		if (!kl_cell_json_check(r->j, cJSON_IsObject(item), "must be an object") ||
			!read_item(r, item, (char*)*items + (size_t)*count * item_size))
		{
			return false;
		}
		kl_cell_json_pop(r->j);
		++*count;
	}
	return true;
}

/// The register map: every table as far as its highest mapped address, registers at least the
/// system block.
static bool make_map(kl_cell_json* j, kl_cell* cell, const address_book* book)
{
	int n[4];
	for (int t = 0; t < 4; ++t)
	{
		n[t] = book->count[t];
	}
	n[KL_CELL_HOLDING] = n[KL_CELL_HOLDING] > KL_CELL_SYSTEM_REGISTERS ? n[KL_CELL_HOLDING] : KL_CELL_SYSTEM_REGISTERS;
	n[KL_CELL_INPUT] = n[KL_CELL_INPUT] > KL_CELL_SYSTEM_REGISTERS ? n[KL_CELL_INPUT] : KL_CELL_SYSTEM_REGISTERS;
	cell->map = modbus_mapping_new_start_address(0, (unsigned)n[KL_CELL_COIL], 0, (unsigned)n[KL_CELL_DISCRETE_INPUT],
												 0, (unsigned)n[KL_CELL_HOLDING], 0, (unsigned)n[KL_CELL_INPUT]);
	cell->last_coils = calloc((size_t)n[KL_CELL_COIL] + 1, 1);
	cell->last_holding = calloc((size_t)n[KL_CELL_HOLDING], sizeof(uint16_t));
	return (cell->map != NULL && cell->last_coils != NULL && cell->last_holding != NULL) ||
		   kl_cell_json_fail(j, "out of memory");
}

static bool read_oracle(reader* r, const cJSON* root)
{
	static const char* const keys[] = {"steps", "monitors"};
	const cJSON* oracle = cJSON_GetObjectItemCaseSensitive(root, "oracle");
	if (oracle == NULL)
	{
		r->cell->monitors = calloc(1, sizeof(kl_cell_monitor));
		return r->cell->monitors != NULL || kl_cell_json_fail(r->j, "out of memory");
	}
	int steps = 0;
	kl_cell_json_push(r->j, "oracle", -1);
	bool ok = kl_cell_json_check(r->j, cJSON_IsObject(oracle), "must be an object") &&
			  kl_cell_json_keys(r->j, oracle, keys, 2) &&
			  kl_cell_json_int(r->j, oracle, "steps", false, 0, 1 << 30, &steps) &&
			  read_array(r, oracle, "monitors", sizeof(kl_cell_monitor), monitor_item, (void**)&r->cell->monitors,
						 &r->cell->monitor_count);
	kl_cell_json_pop(r->j);
	r->cell->oracle_steps = steps;
	return ok;
}

static bool read_cell(kl_cell_json* j, kl_cell* cell, const cJSON* root, const char* dir)
{
	static const char* const keys[] = {"scene", "step_ms", "substeps", "sensors", "actuators", "oracle"};
	char scene[512];
	float step_ms = 1.0f;
	cell->substeps = 4;
	if (!kl_cell_json_check(j, cJSON_IsObject(root), "a cell file is a JSON object") ||
		!kl_cell_json_keys(j, root, keys, 6) || !kl_cell_json_path(j, root, "scene", dir, scene, sizeof(scene)) ||
		!kl_cell_json_float(j, root, "step_ms", false, &step_ms) ||
		!kl_cell_json_int(j, root, "substeps", false, 1, 64, &cell->substeps) ||
		!kl_cell_json_check(j, step_ms >= 0.05f && step_ms <= 100.0f, "step_ms must be in [0.05, 100]"))
	{
		return false;
	}
	cell->step_us = (int)lroundf(step_ms * 1000.0f);
	cell->dt = (float)cell->step_us * 1e-6f;
	kl_scene_load_options options = kl_default_scene_load_options();
	options.worker_count = 1;
	cell->world = kl_scene_load_file(scene, &options);
	if (KL_IS_NULL(cell->world))
	{
		return kl_cell_json_fail(j, "scene %s: %s", scene, kl_last_error());
	}
	reader r = {j, cell, calloc(1, sizeof(address_book)), dir};
	bool ok = (r.book != NULL || kl_cell_json_fail(j, "out of memory")) &&
			  read_array(&r, root, "sensors", sizeof(kl_cell_sensor), sensor_item, (void**)&cell->sensors,
						 &cell->sensor_count) &&
			  read_array(&r, root, "actuators", sizeof(kl_cell_actuator), actuator_item, (void**)&cell->actuators,
						 &cell->actuator_count) &&
			  read_oracle(&r, root) && make_map(j, cell, r.book);
	free(r.book);
	return ok;
}

bool kl_cell_load(kl_cell* cell, const char* path, char* error, int size)
{
	memset(cell, 0, sizeof(*cell));
	cell->world = kl_null_world_id;
	kl_cell_json j;
	cJSON* root = kl_cell_json_open(&j, path, error, size);
	if (root == NULL)
	{
		return false;
	}
	char dir[512];
	kl_cell_json_dirname(path, dir, sizeof(dir));
	bool ok = read_cell(&j, cell, root, dir);
	cJSON_Delete(root);
	if (!ok)
	{
		kl_cell_free(cell);
		return false;
	}
	// A displacement sensor reads 0 at the scene's pose.
	kl_cell_read_sensors(cell);
	for (int i = 0; i < cell->sensor_count; ++i)
	{
		cell->sensors[i].zero = cell->sensors[i].type == KL_CELL_DISPLACEMENT ? cell->sensors[i].value : 0.0f;
	}
	kl_cell_read_sensors(cell);
	for (int i = 0; i < cell->actuator_count; ++i)
	{
		if (cell->actuators[i].type == KL_CELL_ROBOT)
		{
			kl_cell_robot_write_initial_registers(cell, &cell->actuators[i]);
		}
	}
	kl_cell_write_system_block(cell);
	return true;
}

void kl_cell_free(kl_cell* cell)
{
	if (KL_IS_NON_NULL(cell->world))
	{
		kl_destroy_world(cell->world);
	}
	if (cell->map != NULL)
	{
		modbus_mapping_free(cell->map);
	}
	free(cell->sensors);
	for (int i = 0; cell->actuators != NULL && i < cell->actuator_count; ++i)
	{
		kl_cell_robot_free(&cell->actuators[i]);
	}
	free(cell->actuators);
	free(cell->monitors);
	free(cell->events);
	free(cell->last_coils);
	free(cell->last_holding);
	memset(cell, 0, sizeof(*cell));
	cell->world = kl_null_world_id;
}
