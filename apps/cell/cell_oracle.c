// Kollide robot cell — the test oracle: monitors checked after every step, combined into one
// verdict (passed when every monitor that must happen has happened in its window, failed at the
// first that cannot any more or at a forbidden contact), and a JSON report of what happened when.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/// Bodies closer than this (m) touch.
#define KL_CELL_TOUCH_DISTANCE 0.001f

void kl_cell_add_event(kl_cell* cell, const char* format, ...)
{
	if (cell->event_count >= KL_CELL_MAX_EVENTS)
	{
		++cell->events_dropped; // a client toggling a refused value every step must not fill memory
		return;
	}
	if (cell->event_count == cell->event_capacity)
	{
		int capacity = cell->event_capacity > 0 ? 2 * cell->event_capacity : 32;
		kl_cell_event* events = realloc(cell->events, (size_t)capacity * sizeof(kl_cell_event));
		if (events == NULL)
		{
			return; // the report loses this line; the run goes on
		}
		cell->events = events;
		cell->event_capacity = capacity;
	}
	kl_cell_event* e = &cell->events[cell->event_count++];
	e->step = cell->step_count;
	va_list args;
	va_start(args, format);
	vsnprintf(e->text, sizeof(e->text), format, args);
	va_end(args);
}

static bool bodies_touch(kl_world_id world, const char* name_a, const char* name_b)
{
	kl_body_id a = kl_world_find_body(world, name_a);
	kl_body_id b = kl_world_find_body(world, name_b);
	if (KL_IS_NULL(a) || KL_IS_NULL(b))
	{
		return false;
	}
	kl_contact_data contacts[32];
	int n = kl_body_get_contact_data(a, contacts, 32);
	for (int i = 0; i < n && i < 32; ++i)
	{
		if (!KL_ID_EQUALS(kl_shape_get_body(contacts[i].shape_a), b) &&
			!KL_ID_EQUALS(kl_shape_get_body(contacts[i].shape_b), b))
		{
			continue;
		}
		// Speculative points lie ahead of a touch; a touch is a point within the contact slop.
		for (int k = 0; k < contacts[i].point_count; ++k)
		{
			if (contacts[i].points[k].separation <= KL_CELL_TOUCH_DISTANCE)
			{
				return true;
			}
		}
	}
	return false;
}

static int register_value(const kl_cell* cell, kl_cell_table table, int address)
{
	const modbus_mapping_t* m = cell->map;
	switch (table)
	{
		case KL_CELL_COIL: return address < m->nb_bits ? m->tab_bits[address] : -1;
		case KL_CELL_DISCRETE_INPUT: return address < m->nb_input_bits ? m->tab_input_bits[address] : -1;
		case KL_CELL_HOLDING: return address < m->nb_registers ? m->tab_registers[address] : -1;
		case KL_CELL_INPUT: return address < m->nb_input_registers ? m->tab_input_registers[address] : -1;
	}
	return -1;
}

/// Whether the monitor's event happens in the current state.
static bool happens(const kl_cell* cell, const kl_cell_monitor* m)
{
	switch (m->type)
	{
		case KL_CELL_MONITOR_SENSOR:
		{
			float v = cell->sensors[m->sensor].value;
			return v >= m->min && v <= m->max;
		}
		case KL_CELL_MONITOR_REGION:
		{
			kl_body_id body = kl_world_find_body(cell->world, m->body);
			return KL_IS_NON_NULL(body) && kl_cell_inside_box(m->box_pose, m->half_extents, kl_body_get_position(body));
		}
		case KL_CELL_MONITOR_FORBIDDEN: return bodies_touch(cell->world, m->body, m->other);
		case KL_CELL_MONITOR_SIGNAL: return register_value(cell, m->table, m->address) == (m->value & 0xffff);
	}
	return false;
}

static void fail(kl_cell* cell, const char* format, const char* name)
{
	if (cell->state != KL_CELL_FAILED)
	{
		cell->state = KL_CELL_FAILED;
		snprintf(cell->reason, sizeof(cell->reason), format, name);
		kl_cell_add_event(cell, "test failed: %s", cell->reason);
	}
}

void kl_cell_run_oracle(kl_cell* cell)
{
	if (cell->monitor_count == 0 || cell->state == KL_CELL_FAILED)
	{
		return;
	}
	int64_t step = cell->step_count;
	bool all = true;
	for (int i = 0; i < cell->monitor_count; ++i)
	{
		kl_cell_monitor* m = &cell->monitors[i];
		bool forbidden = m->type == KL_CELL_MONITOR_FORBIDDEN;
		if (!m->satisfied && !m->violated && step >= m->window_start && step <= m->window_end && happens(cell, m))
		{
			m->step = step;
			m->violated = forbidden;
			m->satisfied = !forbidden;
			kl_cell_add_event(cell, "monitor %s %s", m->name, forbidden ? "violated" : "satisfied");
			if (forbidden)
			{
				fail(cell, "forbidden contact (monitor %s)", m->name);
			}
		}
		if (!forbidden && !m->satisfied && step > m->window_end)
		{
			m->violated = true;
			fail(cell, "monitor %s did not happen within its window", m->name);
		}
		all = all && (forbidden || m->satisfied);
	}
	if (cell->state == KL_CELL_RUNNING && all)
	{
		cell->state = KL_CELL_PASSED;
		kl_cell_add_event(cell, "test passed");
	}
	if (cell->state == KL_CELL_RUNNING && cell->oracle_steps > 0 && step >= cell->oracle_steps)
	{
		fail(cell, "no verdict within the oracle's steps%s", "");
	}
}

void kl_cell_finish_oracle(kl_cell* cell)
{
	for (int i = 0; i < cell->monitor_count && cell->state == KL_CELL_RUNNING; ++i)
	{
		const kl_cell_monitor* m = &cell->monitors[i];
		if (m->type != KL_CELL_MONITOR_FORBIDDEN && !m->satisfied)
		{
			fail(cell, "the run ended before monitor %s happened", m->name);
		}
	}
}

static const char* state_name(kl_cell_state state)
{
	static const char* const names[] = {"idle", "running", "passed", "failed"};
	return names[state];
}

bool kl_cell_write_report(const kl_cell* cell, const char* path)
{
	cJSON* root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "verdict", state_name(cell->state));
	cJSON_AddStringToObject(root, "reason", cell->reason);
	cJSON_AddNumberToObject(root, "steps", (double)cell->step_count);
	cJSON_AddNumberToObject(root, "step_ms", cell->step_us / 1000.0);
	cJSON_AddNumberToObject(root, "cycles", cell->cycles);
	cJSON_AddNumberToObject(root, "overruns", cell->overruns);
	cJSON_AddNumberToObject(root, "events_dropped", (double)cell->events_dropped);
	char hash[16];
	snprintf(hash, sizeof(hash), "0x%08x", kl_world_hash_transforms(cell->world));
	cJSON_AddStringToObject(root, "hash", hash);
	cJSON* monitors = cJSON_AddArrayToObject(root, "monitors");
	for (int i = 0; i < cell->monitor_count; ++i)
	{
		const kl_cell_monitor* m = &cell->monitors[i];
		cJSON* o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", m->name);
		cJSON_AddStringToObject(o, "status", m->violated ? "violated" : (m->satisfied ? "satisfied" : "waiting"));
		cJSON_AddNumberToObject(o, "step", (double)m->step);
		cJSON_AddItemToArray(monitors, o);
	}
	cJSON* events = cJSON_AddArrayToObject(root, "events");
	for (int i = 0; i < cell->event_count; ++i)
	{
		cJSON* o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step", (double)cell->events[i].step);
		cJSON_AddStringToObject(o, "event", cell->events[i].text);
		cJSON_AddItemToArray(events, o);
	}
	char* text = cJSON_Print(root);
	cJSON_Delete(root);
	FILE* f = text != NULL ? fopen(path, "w") : NULL;
	bool ok = f != NULL && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
	ok = f != NULL && fclose(f) == 0 && ok;
	free(text);
	return ok;
}
