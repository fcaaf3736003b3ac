// Kollide viewer — a robot cell (apps/cell, `--cell CELL.json`) in the viewer: the cell steps its
// actuators, world, sensors and oracle at its own step length; its sensor rays, trigger volumes,
// sinks and oracle regions are drawn through the debug-draw API, its signal values in a panel.
// Without the cell library (no libmodbus) --cell is refused with a message.
// SPDX-License-Identifier: MIT
#pragma once

#include "app.h"
#include "hud.h"

/// Loads app->options.cell_file into app->cell and its world into app->run; false with
/// kl_last_error-style output on stderr.
bool kl_viewer_cell_start(kl_viewer_app* app);
/// Frees the cell and its world (nothing without one).
void kl_viewer_cell_stop(kl_viewer_app* app);
bool kl_viewer_cell_step(kl_viewer_app* app);
void kl_viewer_cell_draw(kl_viewer_app* app, const kl_debug_draw* draw);
/// The signal panel (inside the HUD's text pass); nothing without a cell.
void kl_viewer_cell_panel(kl_viewer_app* app);
/// Where the signal panel goes: the window's lower left.
kl_viewer_rect kl_viewer_cell_panel_rect(const kl_viewer_app* app);

/// Overlay colours (0xRRGGBB): a ray clear / interrupted, a trigger volume idle / active, an oracle
/// region.
enum
{
	KL_VIEWER_CELL_RAY_CLEAR = 0x20ff20,
	KL_VIEWER_CELL_RAY_HIT = 0xff2020,
	KL_VIEWER_CELL_VOLUME = 0x20e0ff,
	KL_VIEWER_CELL_VOLUME_ACTIVE = 0xff40ff,
	KL_VIEWER_CELL_REGION = 0xffe020,
};
