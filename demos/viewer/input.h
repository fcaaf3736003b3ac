// Kollide viewer — keyboard and mouse: camera control, layer toggles, simulation control, picking.
// SPDX-License-Identifier: MIT
#pragma once

#include "app.h"

/// Drains the SDL event queue into the app.
void kl_viewer_input_poll(kl_viewer_app* app);
/// Held keys (fly/move with WASD/QE) for a frame of `seconds`.
void kl_viewer_input_update(kl_viewer_app* app, float seconds);
/// Applies one key press; exposed so tests can drive the viewer without an event queue.
void kl_viewer_input_key(kl_viewer_app* app, int sdl_keycode, bool shift);
