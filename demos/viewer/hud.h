// Kollide viewer — the heads-up display: timings, counters, key help and the scene menu.
// SPDX-License-Identifier: MIT
#pragma once

#include "app.h"

/// Screen rectangle in pixels (origin top-left).
typedef struct kl_viewer_rect
{
	float x;
	float y;
	float w;
	float h;
} kl_viewer_rect;

/// The panel's point-shell line: the pairs searched through point shells (of them on the GPU) and
/// the backend's stage times (docs/pointshell.md), or that there were none.
void kl_viewer_hud_pointshell_line(kl_counters c, kl_profile p, char* out, size_t size);
/// The penalty contact line: the pairs under the penalty model, those the stability limit lowered,
/// and the stage's time (kl_profile.penalty). The HUD shows it instead of the point-shell line while
/// a world has penalty pairs.
void kl_viewer_hud_penalty_line(kl_counters c, kl_profile p, char* out, size_t size);
/// Draws the HUD panel (and help and menu when shown) over the frame.
void kl_viewer_hud_draw(kl_viewer_app* app);
/// Where the statistics panel is drawn.
kl_viewer_rect kl_viewer_hud_panel_rect(const kl_viewer_app* app);
/// Where menu entry `index` is drawn (the menu lists every registered scene).
kl_viewer_rect kl_viewer_menu_item_rect(const kl_viewer_app* app, int index);
/// The menu entry under pixel (x, y), or -1.
int kl_viewer_menu_hit(const kl_viewer_app* app, float x, float y);
