// Kollide viewer — a robot cell in the viewer (cell_view.h).
// SPDX-License-Identifier: MIT
#include "cell_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef KL_VIEWER_CELL
#include "cell.h"

enum
{
	kl_cell_panel_lines = 16, ///< state line, then sensors and actuators (later ones are cut)
	kl_cell_panel_columns = 48,
};

static const float kl_cell_panel_margin = 10.0f;
static const float kl_cell_panel_padding = 8.0f;

bool kl_viewer_cell_start(kl_viewer_app* app)
{
	char error[512];
	kl_cell* cell = calloc(1, sizeof(kl_cell));
	if (cell == NULL || !kl_cell_load(cell, app->options.cell_file, error, sizeof(error)))
	{
		fprintf(stderr, "kollide-viewer: %s\n", cell != NULL ? error : "out of memory");
		free(cell);
		return false;
	}
	app->cell = cell;
	app->run.world = cell->world;
	app->timestep = kl_default_fixed_timestep(cell->dt, cell->substeps);
	// A frame of 1/60 s holds several cell steps (4 ms: 4-5); allow a stall of four frames' worth.
	app->timestep.max_steps_per_frame = 4 * (int)ceilf(1.0f / (60.0f * cell->dt));
	return true;
}

void kl_viewer_cell_stop(kl_viewer_app* app)
{
	if (app->cell == NULL)
	{
		return;
	}
	kl_cell_free(app->cell);
	free(app->cell);
	app->cell = NULL;
	app->run.world = kl_null_world_id;
}

bool kl_viewer_cell_step(kl_viewer_app* app)
{
	kl_cell_step(app->cell);
	return true;
}

static void draw_sensor(const kl_cell_sensor* s, const kl_debug_draw* draw)
{
	switch (s->type)
	{
		case KL_CELL_LIGHT_BARRIER:
			draw->draw_segment(s->from, s->to, s->active ? KL_VIEWER_CELL_RAY_HIT : KL_VIEWER_CELL_RAY_CLEAR,
							   draw->context);
			break;
		case KL_CELL_REFLEX_SCANNER:
		{
			// The ray as far as the surface it measured, then the rest of its length dimmed.
			vec3s d = glms_vec3_sub(s->to, s->from);
			float length = glms_vec3_norm(d);
			float f = length > 0.0f ? fminf(fmaxf(s->value / length, 0.0f), 1.0f) : 0.0f;
			vec3s hit = glms_vec3_add(s->from, glms_vec3_scale(d, f));
			draw->draw_segment(s->from, hit, KL_VIEWER_CELL_RAY_HIT, draw->context);
			draw->draw_segment(hit, s->to, KL_VIEWER_CELL_RAY_CLEAR, draw->context);
			draw->draw_point(hit, 6.0f, KL_VIEWER_CELL_RAY_HIT, draw->context);
			break;
		}
		case KL_CELL_PRESENCE:
			draw->draw_box(s->box_pose, s->half_extents,
						   s->active ? KL_VIEWER_CELL_VOLUME_ACTIVE : KL_VIEWER_CELL_VOLUME, draw->context);
			break;
		case KL_CELL_DISPLACEMENT: break; // its bodies are drawn; the value is in the panel
	}
}

void kl_viewer_cell_draw(kl_viewer_app* app, const kl_debug_draw* draw)
{
	const kl_cell* cell = app->cell;
	if (draw->draw_segment == NULL || draw->draw_box == NULL || draw->draw_point == NULL)
	{
		return;
	}
	for (int i = 0; i < cell->sensor_count; ++i)
	{
		draw_sensor(&cell->sensors[i], draw);
	}
	for (int i = 0; i < cell->actuator_count; ++i)
	{
		const kl_cell_actuator* a = &cell->actuators[i];
		if (a->type == KL_CELL_SINK || a->type == KL_CELL_SOURCE)
		{
			draw->draw_box(a->box_pose, a->half_extents, KL_VIEWER_CELL_VOLUME, draw->context);
		}
	}
	for (int i = 0; i < cell->monitor_count; ++i)
	{
		const kl_cell_monitor* m = &cell->monitors[i];
		if (m->type == KL_CELL_MONITOR_REGION)
		{
			draw->draw_box(m->box_pose, m->half_extents, KL_VIEWER_CELL_REGION, draw->context);
		}
	}
}

/// The panel's lines: the state, then each sensor and actuator, as many as fit.
static int panel_lines(const kl_cell* cell)
{
	int n = 1 + cell->sensor_count + cell->actuator_count;
	return n < kl_cell_panel_lines ? n : kl_cell_panel_lines;
}

kl_viewer_rect kl_viewer_cell_panel_rect(const kl_viewer_app* app)
{
	float lh = kl_text_line_height(app->text);
	kl_viewer_rect r = {kl_cell_panel_margin, 0.0f, 0.0f, 0.0f};
	r.w = 2.0f * kl_cell_panel_padding + 0.62f * (float)KL_VIEWER_FONT_PIXELS * (float)kl_cell_panel_columns;
	r.h = 2.0f * kl_cell_panel_padding + lh * (float)(app->cell != NULL ? panel_lines(app->cell) : 0);
	r.y = (float)app->height - r.h - kl_cell_panel_margin;
	return r;
}

/// One panel line per sensor: its value and discrete input.
static void sensor_line(const kl_cell_sensor* s, char* line, size_t size)
{
	static const char* const units[] = {"", "m", "", "mm"};
	float value = s->type == KL_CELL_DISPLACEMENT ? 1000.0f * s->value : s->value;
	if (s->type == KL_CELL_LIGHT_BARRIER || s->type == KL_CELL_PRESENCE)
	{
		snprintf(line, size, "%-16.16s %s", s->name, s->active ? "ACTIVE" : "clear");
	}
	else
	{
		snprintf(line, size, "%-16.16s %8.3f %s%s", s->name, value, units[s->type], s->active ? "  ACTIVE" : "");
	}
}

/// One panel line per actuator: its coil and holding register as the cell reads them.
static void actuator_line(const kl_cell* cell, const kl_cell_actuator* a, char* line, size_t size)
{
	int n = snprintf(line, size, "%-16.16s %s", a->name,
					 a->coil < 0 ? "   " : (cell->map->tab_bits[a->coil] ? "ON " : "off"));
	kl_cell_scaled r = a->holding_register;
	int count = a->type == KL_CELL_ROBOT ? a->register_count : (r.address >= 0 ? 1 : 0);
	for (int k = 0; k < count && k < 6 && n > 0 && (size_t)n < size; ++k)
	{
		n += snprintf(line + n, size - (size_t)n, " %.4g", kl_cell_decode(r, cell->map->tab_registers[r.address + k]));
	}
}

void kl_viewer_cell_panel(kl_viewer_app* app)
{
	const kl_cell* cell = app->cell;
	if (cell == NULL)
	{
		return;
	}
	static const char* const states[] = {"idle", "running", "PASSED", "FAILED"};
	kl_viewer_rect r = kl_viewer_cell_panel_rect(app);
	kl_text_rect(app->text, r.x, r.y, r.w, r.h, 0x101418, 0.72f);
	char lines[kl_cell_panel_lines][128];
	int n = 0;
	snprintf(lines[n++], sizeof(lines[0]), "cell %s  step %lld  %.3f s", states[cell->state],
			 (long long)cell->step_count, (double)cell->step_count * cell->dt);
	for (int i = 0; i < cell->sensor_count && n < kl_cell_panel_lines; ++i)
	{
		sensor_line(&cell->sensors[i], lines[n++], sizeof(lines[0]));
	}
	for (int i = 0; i < cell->actuator_count && n < kl_cell_panel_lines; ++i)
	{
		actuator_line(cell, &cell->actuators[i], lines[n++], sizeof(lines[0]));
	}
	float lh = kl_text_line_height(app->text);
	for (int i = 0; i < n; ++i)
	{
		kl_text_draw(app->text, r.x + kl_cell_panel_padding, r.y + kl_cell_panel_padding + lh * (float)i, lines[i],
					 i == 0 ? 0xffc850 : 0xf0f0f0);
	}
}

#else

bool kl_viewer_cell_start(kl_viewer_app* app)
{
	fprintf(stderr, "kollide-viewer: %s: this viewer was built without the robot cell (libmodbus)\n",
			app->options.cell_file);
	return false;
}

void kl_viewer_cell_stop(kl_viewer_app* app)
{
	(void)app;
}

bool kl_viewer_cell_step(kl_viewer_app* app)
{
	(void)app;
	return false;
}

void kl_viewer_cell_draw(kl_viewer_app* app, const kl_debug_draw* draw)
{
	(void)app;
	(void)draw;
}

void kl_viewer_cell_panel(kl_viewer_app* app)
{
	(void)app;
}

kl_viewer_rect kl_viewer_cell_panel_rect(const kl_viewer_app* app)
{
	(void)app;
	kl_viewer_rect r = {0.0f, 0.0f, 0.0f, 0.0f};
	return r;
}

#endif
