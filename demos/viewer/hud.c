// Kollide viewer — the HUD: a translucent panel with frame and step timings (by stage, from
// kl_world_get_profile), the world's counters, the scene name and state; F1 adds the key help,
// Tab or L the scene menu. Layout is computed from the font size, so the image tests and the
// mouse hit tests use the same rectangles as the drawing.
// SPDX-License-Identifier: MIT
#include "hud.h"
#include "cell_view.h"

#include <stdio.h>
#include <string.h>

enum
{
	kl_hud_lines = 6,
	kl_hud_columns = 62, ///< widest panel line, in characters
};

static const float kl_hud_margin = 10.0f;
static const float kl_hud_padding = 8.0f;
static const uint32_t kl_hud_text_color = 0xf0f0f0;
static const uint32_t kl_hud_accent_color = 0xffc850;
static const uint32_t kl_hud_panel_color = 0x101418;
static const float kl_hud_panel_alpha = 0.72f;

static const char* const kl_hud_help =
	"mouse  left drag on a body: pick and drag    left/right drag: rotate\n"
	"       middle or shift+drag: pan             wheel: zoom\n"
	"C orbit/fly camera   WASD QE move (fly) or pan (orbit)\n"
	"1 shapes/wireframe/off  2 AABBs  3 contacts  4 normals  5 forces\n"
	"6 joints  7 islands/sleep  8 mass  9 names  0 point shells  I inner spheres  G grid  H shadows\n"
	"P pause  O/N single step  M slow motion (1/4)  R reset  Space ball\n"
	"Tab/L scene list  [ ] previous/next scene  F2 HUD  F12 screenshot  Esc quit";
enum
{
	kl_hud_help_lines = 7,
};

/// Advance of one character of the monospace font (DejaVu Sans Mono: 0.602 em), rounded up.
static float char_width(void)
{
	return 0.62f * (float)KL_VIEWER_FONT_PIXELS;
}

static float line_height(const kl_viewer_app* app)
{
	return kl_text_line_height(app->text);
}

kl_viewer_rect kl_viewer_hud_panel_rect(const kl_viewer_app* app)
{
	kl_viewer_rect r = {kl_hud_margin, kl_hud_margin, 0.0f, 0.0f};
	r.w = 2.0f * kl_hud_padding + char_width() * (float)kl_hud_columns;
	r.h = 2.0f * kl_hud_padding + line_height(app) * (float)kl_hud_lines;
	return r;
}

static kl_viewer_rect help_rect(const kl_viewer_app* app)
{
	kl_viewer_rect panel = kl_viewer_hud_panel_rect(app);
	kl_viewer_rect r = {panel.x, panel.y + panel.h + kl_hud_margin, 0.0f, 0.0f};
	r.w = 2.0f * kl_hud_padding + char_width() * 72.0f;
	r.h = 2.0f * kl_hud_padding + line_height(app) * (float)kl_hud_help_lines;
	return r;
}

/// The menu's width fits the longest scene name.
static float menu_width(void)
{
	int count = 0;
	const kl_scene* const* scenes = kl_scene_list(&count);
	size_t longest = strlen("scenes (click, 1-9, [ ])");
	for (int i = 0; i < count; ++i)
	{
		size_t n = strlen(scenes[i]->name) + 4;
		longest = n > longest ? n : longest;
	}
	return 2.0f * kl_hud_padding + char_width() * (float)longest;
}

kl_viewer_rect kl_viewer_menu_item_rect(const kl_viewer_app* app, int index)
{
	float w = menu_width();
	float lh = line_height(app);
	kl_viewer_rect r = {(float)app->width - w - kl_hud_margin, kl_hud_margin + kl_hud_padding + lh * (float)(index + 1),
						w, lh};
	return r;
}

int kl_viewer_menu_hit(const kl_viewer_app* app, float x, float y)
{
	if (!app->show_menu)
	{
		return -1;
	}
	int count = 0;
	kl_scene_list(&count);
	for (int i = 0; i < count; ++i)
	{
		kl_viewer_rect r = kl_viewer_menu_item_rect(app, i);
		if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h)
		{
			return i;
		}
	}
	return -1;
}

void kl_viewer_hud_pointshell_line(kl_counters c, kl_profile p, char* out, size_t size)
{
	if (c.pointshell_pair_count > 0)
	{
		snprintf(out, size, "point shells %d pairs (%d GPU): obb %.2f  shell %.2f  sort %.2f  tri %.2f  xfer %.2f ms",
				 c.pointshell_pair_count, c.pointshell_gpu_pair_count, (double)p.pointshell_obb,
				 (double)p.pointshell_shell, (double)p.pointshell_sort, (double)p.pointshell_triangle,
				 (double)p.pointshell_transfer);
	}
	else
	{
		snprintf(out, size, "point shells: no pairs");
	}
}

void kl_viewer_hud_penalty_line(kl_counters c, kl_profile p, char* out, size_t size)
{
	snprintf(out, size, "penalty %d pairs (%d limited): %.2f ms", c.penalty_pair_count, c.penalty_limited_count,
			 (double)p.penalty);
}

static void draw_panel(kl_viewer_app* app)
{
	kl_viewer_rect r = kl_viewer_hud_panel_rect(app);
	kl_text_rect(app->text, r.x, r.y, r.w, r.h, kl_hud_panel_color, kl_hud_panel_alpha);
	kl_profile p = kl_world_get_profile(app->run.world);
	kl_counters c = kl_world_get_counters(app->run.world);
	float other = p.step - p.broadphase - p.narrowphase - p.solver;
	char lines[kl_hud_lines][160];
	snprintf(lines[0], sizeof(lines[0]), "%s%s%s", kl_viewer_app_scene_name(app), app->paused ? "  [paused]" : "",
			 app->slow_motion ? "  [slow 1/4]" : "");
	snprintf(lines[1], sizeof(lines[1]), "frame %6.2f ms   render %6.2f ms   steps %6.2f ms (%d)", app->frame_ms,
			 app->render_ms, app->step_ms, app->steps_last_frame);
	snprintf(lines[2], sizeof(lines[2]), "step %.2f ms: broad %.2f  narrow %.2f  solver %.2f  other %.2f", p.step,
			 p.broadphase, p.narrowphase, p.solver, other > 0.0f ? other : 0.0f);
	snprintf(lines[3], sizeof(lines[3]), "bodies %d  awake %d  pairs %d  contacts %d  joints %d", c.body_count,
			 c.awake_body_count, c.pair_count, c.contact_count, c.joint_count);
	snprintf(lines[4], sizeof(lines[4]), "%s camera  threads %d  F1 keys  Tab scenes",
			 app->camera.mode == KL_CAMERA_FLY ? "fly" : "orbit", c.worker_count);
	if (c.penalty_pair_count > 0)
	{
		kl_viewer_hud_penalty_line(c, p, lines[5], sizeof(lines[5]));
	}
	else
	{
		kl_viewer_hud_pointshell_line(c, p, lines[5], sizeof(lines[5]));
	}
	float lh = line_height(app);
	for (int i = 0; i < kl_hud_lines; ++i)
	{
		uint32_t color = i == 0 ? kl_hud_accent_color : kl_hud_text_color;
		kl_text_draw(app->text, r.x + kl_hud_padding, r.y + kl_hud_padding + lh * (float)i, lines[i], color);
	}
}

static void draw_help(kl_viewer_app* app)
{
	kl_viewer_rect r = help_rect(app);
	kl_text_rect(app->text, r.x, r.y, r.w, r.h, kl_hud_panel_color, kl_hud_panel_alpha);
	kl_text_draw(app->text, r.x + kl_hud_padding, r.y + kl_hud_padding, kl_hud_help, kl_hud_text_color);
}

static void draw_menu(kl_viewer_app* app)
{
	int count = 0;
	const kl_scene* const* scenes = kl_scene_list(&count);
	kl_viewer_rect first = kl_viewer_menu_item_rect(app, 0);
	float lh = line_height(app);
	float h = 2.0f * kl_hud_padding + lh * (float)(count + 1);
	kl_text_rect(app->text, first.x, kl_hud_margin, first.w, h, kl_hud_panel_color, kl_hud_panel_alpha);
	kl_text_draw(app->text, first.x + kl_hud_padding, kl_hud_margin + kl_hud_padding, "scenes (click, 1-9, [ ])",
				 kl_hud_accent_color);
	for (int i = 0; i < count; ++i)
	{
		kl_viewer_rect r = kl_viewer_menu_item_rect(app, i);
		bool current = app->source == KL_VIEWER_SOURCE_SCENE && i == app->scene_index;
		if (current)
		{
			kl_text_rect(app->text, r.x, r.y, r.w, r.h, kl_hud_accent_color, 0.35f);
		}
		char line[96];
		snprintf(line, sizeof(line), "%c %s", i < 9 ? (char)('1' + i) : ' ', scenes[i]->name);
		kl_text_draw(app->text, r.x + kl_hud_padding, r.y, line, current ? kl_hud_accent_color : kl_hud_text_color);
	}
}

static void draw_status(kl_viewer_app* app)
{
	float lh = line_height(app);
	float y = (float)app->height - kl_hud_margin - lh - 2.0f * kl_hud_padding;
	float w = 2.0f * kl_hud_padding + char_width() * (float)strlen(app->status);
	kl_text_rect(app->text, kl_hud_margin, y, w, lh + 2.0f * kl_hud_padding, kl_hud_panel_color, kl_hud_panel_alpha);
	kl_text_draw(app->text, kl_hud_margin + kl_hud_padding, y + kl_hud_padding, app->status, kl_hud_accent_color);
}

void kl_viewer_hud_draw(kl_viewer_app* app)
{
	bool status = app->status_seconds > 0.0f && app->status[0] != '\0';
	bool legend = app->ply_count > 0; // part of the picture, so shown without the HUD too
	if (!app->show_hud && !app->show_menu && !status && !legend)
	{
		return;
	}
	kl_text_begin(app->text, app->width, app->height);
	if (legend)
	{
		kl_viewer_ply_legend(app);
	}
	if (app->show_hud)
	{
		draw_panel(app);
		kl_viewer_cell_panel(app);
		if (app->show_help)
		{
			draw_help(app);
		}
	}
	if (app->show_menu)
	{
		draw_menu(app);
	}
	if (status)
	{
		draw_status(app);
	}
	kl_text_end(app->text);
}
