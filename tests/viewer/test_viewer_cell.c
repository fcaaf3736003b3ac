// Headless image tests of kollide-viewer --cell (SDL offscreen + Mesa llvmpipe): the cell's sensor
// rays, trigger volumes and oracle regions reach the screen, the signal panel is drawn with the HUD,
// and it follows a register's value live; a broken cell file stops the viewer.
// SPDX-License-Identifier: MIT
#include "app.h"
#include "cell.h"
#include "cell_view.h"

#include "kl_test.h"

#include <stdlib.h>
#include <string.h>

enum
{
	kl_w = 480,
	kl_h = 360,
};

#define PUSH_CELL KL_CELL_DEMO_DIR "/push_cell.json"

static kl_viewer_app* open_viewer(const char* cell, bool hud, char* error)
{
	kl_viewer_options o = kl_viewer_default_options();
	o.width = kl_w;
	o.height = kl_h;
	o.frames = 1000;
	o.hide_hud = !hud;
	o.cell_file = cell;
	error[0] = '\0';
	return kl_viewer_app_create(&o, error, 512);
}

/// Renders a frame into a copy (the caller frees it).
static uint8_t* render_copy(kl_viewer_app* app)
{
	app->show_grid = false;
	kl_viewer_app_render(app);
	const uint8_t* px = kl_viewer_app_read_pixels(app);
	assert_non_null(px);
	uint8_t* copy = malloc((size_t)kl_w * kl_h * 3);
	assert_non_null(copy);
	memcpy(copy, px, (size_t)kl_w * kl_h * 3);
	return copy;
}

/// Pixels that differ (any channel by more than 24) inside [x0, x1) × [y0, y1).
static int differing(const uint8_t* a, const uint8_t* b, int x0, int y0, int x1, int y1)
{
	int n = 0;
	for (int y = y0; y < y1; ++y)
	{
		for (int x = x0; x < x1; ++x)
		{
			const uint8_t* p = a + 3 * (y * kl_w + x);
			const uint8_t* q = b + 3 * (y * kl_w + x);
			n += abs(p[0] - q[0]) > 24 || abs(p[1] - q[1]) > 24 || abs(p[2] - q[2]) > 24;
		}
	}
	return n;
}

static void test_overlays_drawn(void** state)
{
	(void)state;
	char error[512];
	kl_viewer_app* app = open_viewer(PUSH_CELL, false, error);
	assert_non_null(app);
	assert_non_null(app->cell);
	uint8_t* with = render_copy(app);
	// The same frame without the cell's sensors, sources and regions to draw.
	kl_cell* cell = app->cell;
	int sensors = cell->sensor_count, actuators = cell->actuator_count, monitors = cell->monitor_count;
	cell->sensor_count = cell->actuator_count = cell->monitor_count = 0;
	uint8_t* without = render_copy(app);
	cell->sensor_count = sensors;
	cell->actuator_count = actuators;
	cell->monitor_count = monitors;
	int changed = differing(with, without, 0, 0, kl_w, kl_h);
	printf("overlay pixels: %d\n", changed);
	assert_true(changed > 100);
	free(with);
	free(without);
	kl_viewer_app_destroy(app);
}

static void test_signal_panel_is_live(void** state)
{
	(void)state;
	char error[512];
	kl_viewer_app* app = open_viewer(PUSH_CELL, true, error);
	assert_non_null(app);
	kl_viewer_rect r = kl_viewer_cell_panel_rect(app);
	assert_true(r.w > 0.0f && r.h > 0.0f && r.y + r.h <= (float)kl_h);
	int x0 = (int)r.x, y0 = (int)r.y, x1 = (int)(r.x + r.w), y1 = (int)(r.y + r.h);
	uint8_t* shown = render_copy(app);
	app->show_hud = false;
	uint8_t* hidden = render_copy(app);
	assert_true(differing(shown, hidden, x0, y0, x1, y1) > (x1 - x0) * (y1 - y0) / 4);
	// The belt's coil and speed register as a PLC would write them: the panel's text changes.
	app->show_hud = true;
	app->cell->map->tab_bits[0] = 1;
	app->cell->map->tab_registers[16] = 300;
	kl_viewer_app_advance(app, app->timestep.dt);
	uint8_t* live = render_copy(app);
	int changed = differing(shown, live, x0, y0, x1, y1);
	printf("panel pixels changed by the belt's signals: %d\n", changed);
	assert_true(changed > 20);
	free(shown);
	free(hidden);
	free(live);
	kl_viewer_app_destroy(app);
}

static void test_broken_cell_refused(void** state)
{
	(void)state;
	char error[512];
	kl_viewer_app* app = open_viewer(KL_TEST_OUT_DIR "/no_such_cell.json", false, error);
	assert_null(app);
	assert_true(error[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlays_drawn),
		cmocka_unit_test(test_signal_panel_is_live),
		cmocka_unit_test(test_broken_cell_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
