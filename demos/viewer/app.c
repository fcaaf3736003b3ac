// Kollide viewer — application state: window, renderer, world lifetime, the fixed-step loop and
// the frame. Headless runs with --frames advance a fixed 1/60 s per frame, so their images do not
// depend on how fast the machine is.
// SPDX-License-Identifier: MIT
#include "app.h"
#include "cell_view.h"

#include "hud.h"
#include "input.h"
#include "picking.h"
#include "record.h"

#include <glad/gl.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const float kl_viewer_dt = 1.0f / 60.0f;
static const int kl_viewer_substeps = 4;
static const char* const kl_viewer_default_scene = "pyramid";
/// The library scene --bench-boxes N builds at N boxes.
static const char* const kl_viewer_bench_scene = "box_layers";

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec * 1.0e-6;
}

static void set_error(char* error, int capacity, const char* what, const char* detail)
{
	if (error != NULL && capacity > 0)
	{
		snprintf(error, (size_t)capacity, "%s: %s", what, detail);
	}
}

static int find_scene_index(const char* name)
{
	int count = 0;
	const kl_scene* const* scenes = kl_scene_list(&count);
	for (int i = 0; i < count; ++i)
	{
		if (strcmp(scenes[i]->name, name) == 0)
		{
			return i;
		}
	}
	return -1;
}

/// Destroys the running world (and everything the viewer made in it).
static void stop_world(kl_viewer_app* app)
{
	kl_viewer_pick_forget(app);
	kl_viewer_cell_stop(app);
	if (app->run.scene != NULL)
	{
		kl_scene_stop(&app->run);
	}
	else if (kl_world_is_valid(app->run.world))
	{
		kl_destroy_world(app->run.world);
	}
	memset(&app->run, 0, sizeof(app->run));
}

/// Builds the world from app->source (scene_index, the scene file, the PLY view or box_layers).
static bool start_world(kl_viewer_app* app)
{
	stop_world(app);
	app->timestep = kl_default_fixed_timestep(kl_viewer_dt, kl_viewer_substeps);
	int threads = app->options.threads;
	if (app->source == KL_VIEWER_SOURCE_SCENE)
	{
		int count = 0;
		const kl_scene* const* scenes = kl_scene_list(&count);
		if (app->scene_index < 0 || app->scene_index >= count)
		{
			return false;
		}
		return kl_scene_start(scenes[app->scene_index], threads, &app->run);
	}
	if (app->source == KL_VIEWER_SOURCE_PLY)
	{
		kl_world_def def = kl_default_world_def(); // empty: the PLY meshes are drawn, not simulated
		def.worker_count = threads;
		app->run.world = kl_create_world(&def);
		return kl_world_is_valid(app->run.world);
	}
	if (app->source == KL_VIEWER_SOURCE_CELL)
	{
		return kl_viewer_cell_start(app);
	}
	if (app->source == KL_VIEWER_SOURCE_FILE)
	{
		kl_scene_load_options lo = kl_default_scene_load_options();
		lo.worker_count = threads;
		app->run.world = kl_scene_load_file(app->options.scene_file, &lo);
		return kl_world_is_valid(app->run.world);
	}
	const kl_scene* bench = kl_scene_find(kl_viewer_bench_scene);
	return bench != NULL && kl_scene_start_sized(bench, threads, app->options.bench_boxes, &app->run);
}

/// Unions the bounds of the shapes of bodies of the wanted kind; false if none is finite.
static bool scene_bounds(kl_world_id world, bool moving_only, kl_aabb* out)
{
	int count = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* bodies = count > 0 ? malloc(sizeof(kl_body_id) * (size_t)count) : NULL;
	if (bodies == NULL)
	{
		return false;
	}
	kl_world_get_bodies(world, bodies, count);
	bool any = false;
	for (int i = 0; i < count; ++i)
	{
		if (moving_only && kl_body_get_type(bodies[i]) == KL_BODY_STATIC)
		{
			continue;
		}
		kl_shape_id shapes[16];
		int n = kl_body_get_shapes(bodies[i], shapes, 16);
		for (int s = 0; s < n && s < 16; ++s)
		{
			kl_aabb b = kl_shape_get_aabb(shapes[s]);
			bool finite = fabsf(b.lower.x) < 1.0e4f && fabsf(b.lower.y) < 1.0e4f && fabsf(b.lower.z) < 1.0e4f &&
						  fabsf(b.upper.x) < 1.0e4f && fabsf(b.upper.y) < 1.0e4f && fabsf(b.upper.z) < 1.0e4f;
			if (!finite)
			{
				continue;
			}
			out->lower = any ? glms_vec3_minv(out->lower, b.lower) : b.lower;
			out->upper = any ? glms_vec3_maxv(out->upper, b.upper) : b.upper;
			any = true;
		}
	}
	free(bodies);
	return any;
}

void kl_viewer_app_frame_camera(kl_viewer_app* app)
{
	kl_aabb box;
	if (!kl_viewer_ply_bounds(app, &box) && !scene_bounds(app->run.world, true, &box) &&
		!scene_bounds(app->run.world, false, &box))
	{
		box.lower = kl_vec3(-2.0f, -2.0f, 0.0f);
		box.upper = kl_vec3(2.0f, 2.0f, 2.0f);
	}
	// Bodies fall to the ground (z = 0 in every scene of ours): frame the space they fall into too.
	box.lower.z = fminf(box.lower.z, 0.0f);
	// --ply meshes may be small (the gear is 8 cm across): no minimum size, and a steeper view onto
	// their tops.
	bool ply = app->source == KL_VIEWER_SOURCE_PLY;
	app->scene_center = glms_vec3_scale(glms_vec3_add(box.lower, box.upper), 0.5f);
	app->scene_radius = fmaxf(0.5f * glms_vec3_distance(box.lower, box.upper), ply ? 1e-3f : 0.5f);
	// The target sits a little above the centre so that the bodies clear the HUD panel (top left).
	vec3s target = glms_vec3_add(app->scene_center, kl_vec3(0.0f, 0.0f, 0.15f * app->scene_radius));
	kl_camera camera = kl_camera_default(target, 1.0f, app->width, app->height);
	// Look mostly along -y (scenes are laid out in the x-z plane), a little from -x and above, so
	// the faces the renderer's sun lights (from -x, +y, above) face the camera.
	camera.yaw = -1.2f;
	camera.pitch = 0.32f;
	float half_fov = 0.5f * camera.fov_y * fminf(1.0f, (float)app->width / (float)app->height);
	camera.pitch = ply ? 0.8f : camera.pitch;
	// PLY meshes stand in a row along x, across the screen: the bounding sphere overstates their height.
	camera.distance = fmaxf(app->scene_radius / sinf(half_fov) * (ply ? 0.8f : 1.05f), ply ? 0.0f : 2.0f);
	camera.near_plane = ply ? fminf(camera.near_plane, 0.05f * camera.distance) : camera.near_plane;
	camera.far_plane = fmaxf(camera.far_plane, 4.0f * (camera.distance + app->scene_radius));
	camera.position = kl_camera_eye(&camera);
	app->camera = camera;
}

static bool load_world(kl_viewer_app* app, bool frame_camera)
{
	if (!start_world(app))
	{
		const char* detail = kl_last_error();
		fprintf(stderr, "kollide-viewer: cannot start '%s': %s\n", kl_viewer_app_scene_name(app),
				detail[0] != '\0' ? detail : "the scene failed to build");
		return false;
	}
	// A zero step computes bounds and contacts so that the first frame's overlays are complete.
	kl_world_step(app->run.world, 0.0f, 1);
	if (frame_camera)
	{
		kl_viewer_app_frame_camera(app);
	}
	return true;
}

bool kl_viewer_app_load_scene(kl_viewer_app* app, int index)
{
	int count = 0;
	kl_scene_list(&count);
	if (index < 0 || index >= count)
	{
		return false;
	}
	app->source = KL_VIEWER_SOURCE_SCENE;
	app->scene_index = index;
	return load_world(app, true);
}

bool kl_viewer_app_reset(kl_viewer_app* app)
{
	return load_world(app, false);
}

const char* kl_viewer_app_scene_name(const kl_viewer_app* app)
{
	if (app->source == KL_VIEWER_SOURCE_CELL)
	{
		return app->options.cell_file;
	}
	if (app->source == KL_VIEWER_SOURCE_FILE)
	{
		return app->options.scene_file;
	}
	if (app->source == KL_VIEWER_SOURCE_BENCH)
	{
		return kl_viewer_bench_scene;
	}
	if (app->source == KL_VIEWER_SOURCE_PLY)
	{
		return app->options.ply_files[0];
	}
	int count = 0;
	const kl_scene* const* scenes = kl_scene_list(&count);
	return app->scene_index >= 0 && app->scene_index < count ? scenes[app->scene_index]->name : "?";
}

static bool alloc_samples(kl_viewer_samples* s, int capacity)
{
	s->capacity = capacity;
	s->frame = calloc((size_t)capacity, sizeof(float));
	s->step = calloc((size_t)capacity, sizeof(float));
	s->render = calloc((size_t)capacity, sizeof(float));
	s->batch = calloc((size_t)capacity, sizeof(float));
	return s->frame != NULL && s->step != NULL && s->render != NULL && s->batch != NULL;
}

static bool create_graphics(kl_viewer_app* app, char* error, int capacity)
{
	char detail[512] = "";
	app->gl =
		kl_gl_context_create(app->options.width, app->options.height, "kollide-viewer", detail, (int)sizeof(detail));
	if (app->gl == NULL)
	{
		set_error(error, capacity, "cannot open an OpenGL 3.3 window", detail);
		return false;
	}
	kl_gl_context_size(app->gl, &app->width, &app->height);
	app->renderer = kl_renderer_create(detail, (int)sizeof(detail));
	if (app->renderer == NULL)
	{
		set_error(error, capacity, "cannot create the renderer", detail);
		return false;
	}
	app->text = kl_text_create(NULL, KL_VIEWER_FONT_PIXELS, detail, (int)sizeof(detail));
	if (app->text == NULL)
	{
		set_error(error, capacity, "cannot load the HUD font", detail);
		return false;
	}
	app->pixels = malloc((size_t)app->width * (size_t)app->height * 3);
	if (app->pixels == NULL)
	{
		set_error(error, capacity, "out of memory", "frame buffer copy");
		return false;
	}
	return true;
}

kl_viewer_app* kl_viewer_app_create(const kl_viewer_options* options, char* error, int error_capacity)
{
	kl_viewer_app* app = calloc(1, sizeof(kl_viewer_app));
	if (app == NULL)
	{
		set_error(error, error_capacity, "out of memory", "viewer state");
		return NULL;
	}
	app->options = *options;
	app->layers = kl_render_layers_default();
	app->layers.islands = false; // sleep colouring is key 7: by default bodies keep their colours
	app->show_grid = true;
	app->show_hud = !options->hide_hud;
	app->paused = options->paused;
	app->timestep = kl_default_fixed_timestep(kl_viewer_dt, kl_viewer_substeps);
	if (options->record_dir != NULL && !kl_viewer_ensure_dir(options->record_dir, error, error_capacity))
	{
		kl_viewer_app_destroy(app);
		return NULL;
	}
	if (!create_graphics(app, error, error_capacity) ||
		(options->frames > 0 && !alloc_samples(&app->samples, options->frames)))
	{
		kl_viewer_app_destroy(app);
		return NULL;
	}
	app->source = options->scene_file != NULL  ? KL_VIEWER_SOURCE_FILE
				  : options->cell_file != NULL ? KL_VIEWER_SOURCE_CELL
				  : options->bench_boxes > 0   ? KL_VIEWER_SOURCE_BENCH
				  : options->ply_count > 0	   ? KL_VIEWER_SOURCE_PLY
											   : KL_VIEWER_SOURCE_SCENE;
	if (!kl_viewer_ply_load(app, error, error_capacity))
	{
		kl_viewer_app_destroy(app);
		return NULL;
	}
	const char* name = options->scene_name != NULL ? options->scene_name : kl_viewer_default_scene;
	app->scene_index = find_scene_index(name);
	if (app->scene_index < 0 && options->scene_name == NULL)
	{
		app->scene_index = 0; // the default scene is not registered: the first one in the menu
	}
	if (!load_world(app, true))
	{
		set_error(error, error_capacity, "cannot start the world", kl_viewer_app_scene_name(app));
		kl_viewer_app_destroy(app);
		return NULL;
	}
	app->last_frame_start_ms = now_ms();
	return app;
}

void kl_viewer_app_destroy(kl_viewer_app* app)
{
	if (app == NULL)
	{
		return;
	}
	stop_world(app);
	kl_viewer_ply_free(app);
	kl_text_destroy(app->text);
	kl_renderer_destroy(app->renderer);
	kl_gl_context_destroy(app->gl);
	free(app->samples.frame);
	free(app->samples.step);
	free(app->samples.render);
	free(app->samples.batch);
	free(app->pixels);
	free(app);
}

/// One fixed step, running the scene's kinematic drivers first (a cell: its actuators, sensors and
/// oracle around the step).
static bool step_once(kl_viewer_app* app)
{
	if (app->cell != NULL)
	{
		return kl_viewer_cell_step(app);
	}
	kl_result r = app->run.scene != NULL ? kl_scene_step(&app->run, app->timestep.dt, app->timestep.substeps)
										 : kl_world_step(app->run.world, app->timestep.dt, app->timestep.substeps);
	return r == KL_OK;
}

/// Whole fixed steps for `seconds` of simulated time. Scenes with drivers need their before_step
/// hook per step, so they run the same accumulator here; the others use the engine's helper.
static int advance_fixed(kl_viewer_app* app, double seconds)
{
	if (app->cell == NULL && (app->run.scene == NULL || app->run.scene->before_step == NULL))
	{
		return kl_fixed_timestep_advance(app->run.world, &app->timestep, seconds);
	}
	kl_fixed_timestep* ts = &app->timestep;
	ts->accumulator += seconds;
	int steps = 0;
	while (ts->accumulator >= (double)ts->dt && steps < ts->max_steps_per_frame)
	{
		if (!step_once(app))
		{
			return -1;
		}
		ts->accumulator -= (double)ts->dt;
		steps += 1;
	}
	if (ts->accumulator >= (double)ts->dt)
	{
		ts->accumulator = fmod(ts->accumulator, (double)ts->dt);
	}
	return steps;
}

int kl_viewer_app_advance(kl_viewer_app* app, double seconds)
{
	double t0 = now_ms();
	int steps = 0;
	if (app->step_once)
	{
		app->step_once = false;
		steps = step_once(app) ? 1 : -1;
	}
	else if (!app->paused)
	{
		steps = advance_fixed(app, app->slow_motion ? 0.25 * seconds : seconds);
	}
	app->steps_last_frame = steps;
	app->step_ms = (float)(now_ms() - t0);
	return steps;
}

static void update_size(kl_viewer_app* app)
{
	int w = app->width;
	int h = app->height;
	kl_gl_context_size(app->gl, &w, &h);
	if (w != app->width || h != app->height)
	{
		uint8_t* pixels = realloc(app->pixels, (size_t)w * (size_t)h * 3);
		if (pixels == NULL)
		{
			return; // keep the old size; the next frame tries again
		}
		app->pixels = pixels;
		app->width = w;
		app->height = h;
	}
	app->camera.width = app->width;
	app->camera.height = app->height;
}

void kl_viewer_app_render(kl_viewer_app* app)
{
	double t0 = now_ms();
	update_size(app);
	glViewport(0, 0, app->width, app->height);
	kl_renderer_begin_frame(app->renderer, &app->camera);
	if (app->show_grid)
	{
		float half = fmaxf(20.0f, ceilf(2.0f * app->scene_radius));
		kl_renderer_draw_grid(app->renderer, half, 1.0f);
	}
	kl_renderer_draw_world(app->renderer, app->run.world, &app->layers);
	kl_viewer_ply_draw(app);
	if (app->cell != NULL)
	{
		kl_debug_draw draw = kl_renderer_debug_draw(app->renderer, &app->layers);
		kl_viewer_cell_draw(app, &draw);
	}
	if (app->pick.active)
	{
		kl_debug_draw draw = kl_renderer_debug_draw(app->renderer, &app->layers);
		kl_viewer_pick_draw(app, &draw);
	}
	kl_renderer_end_frame(app->renderer);
	kl_viewer_hud_draw(app);
	if (app->options.frames > 0)
	{
		glFinish(); // headless and timed runs: count the GPU (llvmpipe) work in this frame
	}
	app->render_ms = (float)(now_ms() - t0);
}

const uint8_t* kl_viewer_app_read_pixels(kl_viewer_app* app)
{
	return kl_gl_context_read_rgb(app->gl, app->pixels) ? app->pixels : NULL;
}

void kl_viewer_app_set_status(kl_viewer_app* app, const char* message)
{
	snprintf(app->status, sizeof(app->status), "%s", message);
	app->status_seconds = 4.0f;
	printf("%s\n", message);
}

/// --record and --screenshot outputs of the frame just drawn.
static bool write_outputs(kl_viewer_app* app, bool last)
{
	char error[512];
	if (app->options.record_dir != NULL)
	{
		char name[1024];
		kl_viewer_record_name(app->options.record_dir, app->frame_index, name, (int)sizeof(name));
		if (!kl_viewer_write_frame(app, name, error, (int)sizeof(error)))
		{
			fprintf(stderr, "kollide-viewer: %s\n", error);
			return false;
		}
	}
	if (app->screenshot_pending)
	{
		app->screenshot_pending = false;
		char name[64];
		char message[KL_VIEWER_STATUS_CAPACITY];
		kl_viewer_screenshot_name(name, (int)sizeof(name));
		bool ok = kl_viewer_write_frame(app, name, error, (int)sizeof(error));
		snprintf(message, sizeof(message), "%s%.100s", ok ? "saved " : "", ok ? name : error);
		kl_viewer_app_set_status(app, message); // a failed F12 is reported, not fatal
	}
	if (last && app->options.screenshot != NULL)
	{
		if (!kl_viewer_write_frame(app, app->options.screenshot, error, (int)sizeof(error)))
		{
			fprintf(stderr, "kollide-viewer: %s\n", error);
			return false;
		}
	}
	return true;
}

static void record_sample(kl_viewer_app* app)
{
	kl_viewer_samples* s = &app->samples;
	if (s->count < s->capacity)
	{
		s->frame[s->count] = app->frame_ms;
		s->step[s->count] = app->step_ms;
		s->render[s->count] = app->render_ms;
		s->batch[s->count] = kl_renderer_get_stats(app->renderer).cpu_ms;
		s->count += 1;
	}
}

bool kl_viewer_app_frame(kl_viewer_app* app, int* exit_code)
{
	double t0 = now_ms();
	double real_seconds = fmin((t0 - app->last_frame_start_ms) * 1.0e-3, 0.25);
	app->last_frame_start_ms = t0;
	bool fixed = app->options.frames > 0;
	double seconds = fixed ? (double)app->timestep.dt : real_seconds;
	*exit_code = 0;
	kl_viewer_input_poll(app);
	if (app->quit)
	{
		// Closed early: --screenshot still gets the last picture.
		if (app->options.screenshot != NULL)
		{
			kl_viewer_app_render(app);
			*exit_code = write_outputs(app, true) ? 0 : 1;
		}
		return false;
	}
	kl_viewer_input_update(app, (float)seconds);
	if (kl_viewer_app_advance(app, seconds) < 0)
	{
		fprintf(stderr, "kollide-viewer: step failed: %s\n", kl_last_error());
		*exit_code = 1;
		return false;
	}
	if (app->pick.active)
	{
		kl_viewer_pick_update(app, app->mouse_x, app->mouse_y);
	}
	app->status_seconds -= (float)real_seconds;
	kl_viewer_app_render(app);
	bool last = fixed && app->frame_index + 1 >= app->options.frames;
	if (!write_outputs(app, last))
	{
		*exit_code = 1;
		return false;
	}
	kl_gl_context_swap(app->gl);
	app->frame_index += 1;
	app->frame_ms = (float)(now_ms() - t0);
	record_sample(app);
	return !last;
}

static int compare_floats(const void* a, const void* b)
{
	float x = *(const float*)a;
	float y = *(const float*)b;
	return (x > y) - (x < y);
}

static float median(float* values, int count)
{
	if (count == 0)
	{
		return 0.0f;
	}
	qsort(values, (size_t)count, sizeof(float), compare_floats);
	return count % 2 ? values[count / 2] : 0.5f * (values[count / 2 - 1] + values[count / 2]);
}

int kl_viewer_app_run(kl_viewer_app* app)
{
	int exit_code = 0;
	while (kl_viewer_app_frame(app, &exit_code))
	{
	}
	if (app->options.stats)
	{
		kl_viewer_samples* s = &app->samples;
		kl_counters c = kl_world_get_counters(app->run.world);
		printf("scene=%s bodies=%d frames=%d size=%dx%d median_frame_ms=%.2f median_step_ms=%.2f "
			   "median_render_ms=%.2f median_renderer_cpu_ms=%.2f\n",
			   kl_viewer_app_scene_name(app), c.body_count, s->count, app->width, app->height,
			   median(s->frame, s->count), median(s->step, s->count), median(s->render, s->count),
			   median(s->batch, s->count));
	}
	return exit_code;
}
