// Kollide viewer — mouse picking and dragging (a target joint), and throwing balls.
// SPDX-License-Identifier: MIT
#pragma once

#include "app.h"

/// Casts the camera ray through pixel (x, y); grabs the dynamic body it hits. True if one was grabbed.
bool kl_viewer_pick_begin(kl_viewer_app* app, float x, float y);
/// Moves the target to where the pixel ray meets the drag plane.
void kl_viewer_pick_update(kl_viewer_app* app, float x, float y);
/// Releases the body (destroys the joint and its anchor).
void kl_viewer_pick_end(kl_viewer_app* app);
/// Forgets the pick without touching the world (the world is being destroyed).
void kl_viewer_pick_forget(kl_viewer_app* app);
/// The rubber band from the grabbed point to the target.
void kl_viewer_pick_draw(kl_viewer_app* app, const kl_debug_draw* draw);
/// Throws a ball from the eye through pixel (x, y).
kl_body_id kl_viewer_throw_ball(kl_viewer_app* app, float x, float y);
