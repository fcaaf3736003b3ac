// Kollide viewer — the application state: the window, the renderer, the camera, the running scene
// and what the user toggled. main.c, the input handlers, the HUD and the image tests share it.
// SPDX-License-Identifier: MIT
#pragma once

#include "camera.h"
#include "gl_context.h"
#include "options.h"
#include "ply_view.h"
#include "renderer.h"
#include "scenes.h"
#include "text.h"

#include <kollide/kollide.h>

/// A body dragged with the mouse: a target joint from a shapeless static anchor to the body.
typedef struct kl_viewer_pick
{
	bool active;
	kl_body_id anchor;
	kl_body_id body;
	kl_joint_id joint;
	vec3s local_point; ///< grabbed point in the body frame
	vec3s plane_point; ///< the drag plane faces the camera through the grabbed point
	vec3s plane_normal;
	vec3s target;
} kl_viewer_pick;

/// Where the world came from, so that reset can rebuild it.
typedef enum kl_viewer_source
{
	KL_VIEWER_SOURCE_SCENE = 0,
	KL_VIEWER_SOURCE_FILE,
	KL_VIEWER_SOURCE_BENCH, ///< --bench-boxes N: the box_layers scene at N boxes
	KL_VIEWER_SOURCE_PLY,	///< --ply files over an empty world
	KL_VIEWER_SOURCE_CELL,	///< --cell: a robot cell (cell_view.c)
} kl_viewer_source;

/// Frame-time samples (ms) for medians.
typedef struct kl_viewer_samples
{
	float* frame;
	float* step;
	float* render;
	float* batch; ///< the renderer's own CPU time (kl_render_stats.cpu_ms)
	int count;
	int capacity;
} kl_viewer_samples;

enum
{
	KL_VIEWER_STATUS_CAPACITY = 160,
	KL_VIEWER_FONT_PIXELS = 15, ///< HUD font size
};

typedef struct kl_viewer_app
{
	kl_viewer_options options;
	kl_gl_context* gl;
	kl_renderer* renderer;
	kl_text* text;
	int width;
	int height;

	// The world.
	kl_viewer_source source;
	int scene_index;  ///< in kl_scene_list (source SCENE)
	kl_scene_run run; ///< run.scene is NULL for scene files and PLY views
	kl_fixed_timestep timestep;
	kl_viewer_pick pick;
	vec3s scene_center; ///< framing of the scene's bodies
	float scene_radius;
	kl_viewer_ply plies[KL_VIEWER_MAX_PLY]; ///< source PLY
	int ply_count;
	struct kl_cell* cell; ///< source CELL: owns run.world

	// View.
	kl_camera camera;
	kl_render_layers layers;
	bool show_grid;
	bool show_hud;
	bool show_help;
	bool show_menu;

	// Simulation control.
	bool paused;
	bool slow_motion;
	bool step_once;
	bool quit;
	bool screenshot_pending; ///< F12: write the next frame to kollide-YYYYMMDD-HHMMSS.png

	// Mouse.
	bool rotating;
	bool panning;
	float mouse_x;
	float mouse_y;

	// Timing (ms) of the last frame, and the running frame count.
	float frame_ms;
	float step_ms;
	float render_ms;
	int steps_last_frame;
	int frame_index;
	double last_frame_start_ms; ///< monotonic clock
	kl_viewer_samples samples;

	char status[KL_VIEWER_STATUS_CAPACITY]; ///< a transient message (screenshot saved ...)
	float status_seconds;
	uint8_t* pixels; ///< read-back buffer, width * height * 3
} kl_viewer_app;

/// Opens the window and starts the world the options name. NULL with a message on failure.
kl_viewer_app* kl_viewer_app_create(const kl_viewer_options* options, char* error, int error_capacity);
void kl_viewer_app_destroy(kl_viewer_app* app);

/// Replaces the world by registered scene `index` (menu order). False with kl_last_error on failure.
bool kl_viewer_app_load_scene(kl_viewer_app* app, int index);
/// Rebuilds the current world from its source; keeps the camera.
bool kl_viewer_app_reset(kl_viewer_app* app);
/// Points the orbit camera at the scene's bodies.
void kl_viewer_app_frame_camera(kl_viewer_app* app);

/// Advances the simulation by seconds of frame time (fixed 60 Hz steps, 4 sub-steps), honouring
/// pause, single step and slow motion. Returns the steps taken, -1 on an engine error.
int kl_viewer_app_advance(kl_viewer_app* app, double seconds);
/// Draws the world, overlays and HUD into the back buffer (no swap).
void kl_viewer_app_render(kl_viewer_app* app);
/// Reads the back buffer (top row first) into app->pixels; NULL on failure.
const uint8_t* kl_viewer_app_read_pixels(kl_viewer_app* app);
/// One whole frame: events, simulation, drawing, screenshots/recording, swap. False once the
/// viewer should exit (window closed, Esc, --frames reached or an error; see app->quit).
bool kl_viewer_app_frame(kl_viewer_app* app, int* exit_code);
/// Frames until done; returns the process exit code.
int kl_viewer_app_run(kl_viewer_app* app);

/// Shows a message on the HUD for a few seconds (and prints it).
void kl_viewer_app_set_status(kl_viewer_app* app, const char* message);
/// The name shown for the current world.
const char* kl_viewer_app_scene_name(const kl_viewer_app* app);
