// Kollide — scene renderer tests, headless over Mesa: a small world draws where the camera says
// its bodies are, layers change the pixels they should, 10,000 boxes take a handful of draw calls,
// PNGs round-trip through libpng, the colour map brightens monotonically, cameras agree with
// themselves, heatmaps and labels appear.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "camera.h"
#include "gl_context.h"
#include "heatmap.h"
#include "png.h"
#include "renderer.h"

#include <glad/gl.h>
#if __has_include(<libpng16/png.h>)
#include <libpng16/png.h>
#else
#include <libpng/png.h>
#endif

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 640
#define H 480

typedef struct fixture
{
	kl_gl_context* context;
	kl_renderer* renderer;
	uint8_t* background; ///< the empty scene: sky and nothing else
	uint8_t* image;
	uint8_t* other;
} fixture;

/// The small scene: a ground box and one body of each kind.
typedef struct scene
{
	kl_world_id world;
	kl_body_id box;
	kl_body_id sphere;
	kl_body_id capsule;
	kl_body_id hull;
	kl_body_id mesh;
	kl_hull* hull_shape;
	kl_mesh* mesh_shape;
} scene;

static int setup(void** state)
{
	static fixture f;
	char error[512] = "";
	f.context = kl_gl_context_create(W, H, "kollide renderer test", error, (int)sizeof(error));
	if (f.context == NULL)
	{
		print_error("GL context: %s\n", error);
		return -1;
	}
	printf("context: %s\n", kl_gl_context_describe(f.context));
	f.renderer = kl_renderer_create(error, (int)sizeof(error));
	if (f.renderer == NULL)
	{
		print_error("renderer: %s\n", error);
		kl_gl_context_destroy(f.context);
		return -1;
	}
	f.background = malloc((size_t)W * H * 3);
	f.image = malloc((size_t)W * H * 3);
	f.other = malloc((size_t)W * H * 3);
	*state = &f;
	return f.background != NULL && f.image != NULL && f.other != NULL ? 0 : -1;
}

static int teardown(void** state)
{
	fixture* f = *state;
	free(f->background);
	free(f->image);
	free(f->other);
	kl_renderer_destroy(f->renderer);
	kl_gl_context_destroy(f->context);
	return 0;
}

static kl_camera test_camera(void)
{
	return kl_camera_default(kl_vec3(0.0f, 0.0f, 0.5f), 7.0f, W, H);
}

static kl_body_id add_body(kl_world_id world, kl_body_type type, vec3s p, const char* name)
{
	kl_body_def def = kl_default_body_def();
	def.type = type;
	def.position = p;
	def.name = name;
	return kl_create_body(world, &def);
}

static scene build_scene(void)
{
	scene s = {0};
	kl_world_def wd = kl_default_world_def();
	s.world = kl_create_world(&wd);
	kl_shape_def sd = kl_default_shape_def();
	kl_body_id ground = add_body(s.world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, -0.5f), "ground");
	kl_create_box_shape(ground, &sd, kl_vec3(4.0f, 4.0f, 0.5f));

	s.box = add_body(s.world, KL_BODY_DYNAMIC, kl_vec3(0.0f, 0.0f, 0.5f), "box");
	kl_create_box_shape(s.box, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	s.sphere = add_body(s.world, KL_BODY_DYNAMIC, kl_vec3(1.6f, 0.0f, 0.4f), "sphere");
	kl_create_sphere_shape(s.sphere, &sd, 0.4f);
	s.capsule = add_body(s.world, KL_BODY_DYNAMIC, kl_vec3(-1.6f, 0.0f, 0.65f), "capsule");
	kl_create_capsule_shape(s.capsule, &sd, 0.25f, 0.4f);

	// An octahedron hull and a closed tetrahedron mesh.
	const vec3s oct[6] = {{{0.5f, 0, 0}}, {{-0.5f, 0, 0}}, {{0, 0.5f, 0}},
						  {{0, -0.5f, 0}}, {{0, 0, 0.5f}}, {{0, 0, -0.5f}}};
	s.hull_shape = kl_hull_build(oct, 6);
	assert_non_null(s.hull_shape);
	s.hull = add_body(s.world, KL_BODY_DYNAMIC, kl_vec3(0.0f, 1.6f, 0.5f), "hull");
	kl_create_hull_shape(s.hull, &sd, s.hull_shape);

	const vec3s tet[4] = {{{-0.4f, -0.4f, 0}}, {{0.4f, -0.4f, 0}}, {{0, 0.4f, 0}}, {{0, 0, 0.7f}}};
	const int32_t tet_idx[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
	kl_mesh_def md = kl_default_mesh_def();
	md.vertices = tet;
	md.vertex_count = 4;
	md.indices = tet_idx;
	md.triangle_count = 4;
	s.mesh_shape = kl_mesh_build(&md);
	assert_non_null(s.mesh_shape);
	s.mesh = add_body(s.world, KL_BODY_DYNAMIC, kl_vec3(0.0f, -1.6f, 0.0f), "mesh");
	kl_create_mesh_shape(s.mesh, &sd, s.mesh_shape, kl_vec3(1.0f, 1.0f, 1.0f));
	return s;
}

static void destroy_scene(scene* s)
{
	kl_destroy_world(s->world);
	kl_hull_destroy(s->hull_shape);
	kl_mesh_release(s->mesh_shape);
}

/// Renders one frame of the world (or nothing for a null world) and reads it back; no GL errors.
static void render(fixture* f, kl_world_id world, const kl_render_layers* layers, const kl_camera* camera,
				   uint8_t* out)
{
	kl_renderer_begin_frame(f->renderer, camera);
	if (!KL_IS_NULL(world))
	{
		kl_renderer_draw_world(f->renderer, world, layers);
	}
	kl_renderer_end_frame(f->renderer);
	assert_true(kl_gl_context_read_rgb(f->context, out));
	assert_int_equal(glGetError(), GL_NO_ERROR);
}

static const uint8_t* pixel(const uint8_t* image, int x, int y)
{
	return image + ((size_t)y * W + (size_t)x) * 3;
}

static int color_distance(const uint8_t* a, const uint8_t* b)
{
	return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}

static int count_different(const uint8_t* a, const uint8_t* b, int threshold)
{
	int n = 0;
	for (int i = 0; i < W * H; ++i)
	{
		n += color_distance(a + 3 * i, b + 3 * i) > threshold;
	}
	return n;
}

static void save(const uint8_t* image, const char* name)
{
	char path[512];
	char error[256];
	snprintf(path, sizeof(path), "%s/%s", KL_TEST_OUT_DIR, name);
	if (!kl_write_png(path, image, W, H, error, (int)sizeof(error)))
	{
		print_error("%s\n", error);
	}
}

static void empty_background(fixture* f, const kl_camera* camera)
{
	render(f, (kl_world_id){0}, NULL, camera, f->background);
}

// ---------------------------------------------------------------------------------------------

static void test_scene_draws_bodies_where_the_camera_projects_them(void** state)
{
	fixture* f = *state;
	scene s = build_scene();
	kl_camera camera = test_camera();
	kl_render_layers layers = kl_render_layers_default();
	empty_background(f, &camera);
	render(f, s.world, &layers, &camera, f->image);
	save(f->image, "renderer_scene.png");

	// Not uniform: many distinct shades, and the scene differs from the empty sky over a large area.
	int changed = count_different(f->image, f->background, 24);
	printf("pixels changed by the scene: %d of %d\n", changed, W * H);
	assert_true(changed > W * H / 10);

	const kl_body_id bodies[5] = {s.box, s.sphere, s.capsule, s.hull, s.mesh};
	const char* names[5] = {"box", "sphere", "capsule", "hull", "mesh"};
	for (int i = 0; i < 5; ++i)
	{
		vec3s c = kl_body_get_world_center_of_mass(bodies[i]);
		float x, y;
		assert_true(kl_camera_project(&camera, c, &x, &y));
		int px = (int)x, py = (int)y;
		assert_true(px >= 0 && px < W && py >= 0 && py < H);
		const uint8_t* a = pixel(f->image, px, py);
		const uint8_t* b = pixel(f->background, px, py);
		printf("%-8s at (%3d, %3d): scene %3u %3u %3u, background %3u %3u %3u\n", names[i], px, py, a[0], a[1], a[2],
			   b[0], b[1], b[2]);
		assert_true(color_distance(a, b) > 40);
		// Dynamic bodies are drawn in the engine's warm dynamic colour: more red than blue.
		assert_true(a[0] > a[2] + 10);
	}
	destroy_scene(&s);
}

static void test_layers_change_the_expected_pixels(void** state)
{
	fixture* f = *state;
	scene s = build_scene();
	for (int i = 0; i < 20; ++i)
	{
		kl_world_step(s.world, 1.0f / 60.0f, 4);
	}
	kl_camera camera = test_camera();
	kl_render_layers base = kl_render_layers_default();
	render(f, s.world, &base, &camera, f->image);

	// Bounds: magenta lines appear.
	kl_render_layers layers = base;
	layers.aabbs = true;
	render(f, s.world, &layers, &camera, f->other);
	save(f->other, "renderer_aabbs.png");
	int magenta = 0;
	for (int i = 0; i < W * H; ++i)
	{
		const uint8_t* p = f->other + 3 * i;
		magenta += color_distance(p, f->image + 3 * i) > 60 && p[0] > 150 && p[2] > 150 && p[1] < 130;
	}
	printf("aabb pixels: %d, lines %d\n", magenta, kl_renderer_get_stats(f->renderer).lines);
	assert_true(magenta > 300);

	// Contacts: red points where bodies rest on the ground.
	layers = base;
	layers.contacts = true;
	render(f, s.world, &layers, &camera, f->other);
	save(f->other, "renderer_contacts.png");
	kl_render_stats stats = kl_renderer_get_stats(f->renderer);
	int red = 0;
	for (int i = 0; i < W * H; ++i)
	{
		const uint8_t* p = f->other + 3 * i;
		red += color_distance(p, f->image + 3 * i) > 60 && p[0] > 180 && p[1] < 90 && p[2] < 90;
	}
	printf("contact points: %d, red pixels %d\n", stats.points, red);
	assert_true(stats.points >= 4);
	assert_true(red > 20);

	// Wireframe: solids become edges, so most body pixels go back to what lies behind them.
	layers = base;
	layers.wireframe = true;
	render(f, s.world, &layers, &camera, f->other);
	save(f->other, "renderer_wireframe.png");
	int wire = count_different(f->image, f->other, 40);
	printf("pixels changed by wireframe: %d\n", wire);
	assert_true(wire > 5000);

	// Shadows: turning them off brightens the ground beside the bodies.
	layers = base;
	layers.shadows = false;
	render(f, s.world, &layers, &camera, f->other);
	int brighter = 0;
	for (int i = 0; i < W * H; ++i)
	{
		const uint8_t* a = f->image + 3 * i;
		const uint8_t* b = f->other + 3 * i;
		brighter += (b[0] + b[1] + b[2]) > (a[0] + a[1] + a[2]) + 30;
	}
	printf("pixels lit once shadows are off: %d\n", brighter);
	assert_true(brighter > 1000);

	// Mass layer: frames and centre points.
	layers = base;
	layers.mass = true;
	render(f, s.world, &layers, &camera, f->other);
	stats = kl_renderer_get_stats(f->renderer);
	assert_int_equal(stats.points, 5);
	assert_int_equal(stats.lines, 15);
	assert_true(count_different(f->image, f->other, 40) > 50);
	destroy_scene(&s);
}

static void test_ten_thousand_boxes_take_a_handful_of_draw_calls(void** state)
{
	fixture* f = *state;
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_shape_def sd = kl_default_shape_def();
	for (int i = 0; i < 10000; ++i)
	{
		vec3s p = kl_vec3(1.2f * (float)(i % 100) - 60.0f, 1.2f * (float)(i / 100) - 60.0f, 0.5f);
		kl_body_id b = add_body(world, KL_BODY_DYNAMIC, p, NULL);
		kl_create_box_shape(b, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	}
	kl_camera camera = kl_camera_default(kl_vec3(0.0f, 0.0f, 0.0f), 110.0f, W, H);
	kl_render_layers layers = kl_render_layers_default();
	kl_renderer_begin_frame(f->renderer, &camera);
	kl_renderer_draw_grid(f->renderer, 70.0f, 1.0f);
	kl_renderer_draw_world(f->renderer, world, &layers);
	kl_renderer_end_frame(f->renderer);
	assert_true(kl_gl_context_read_rgb(f->context, f->image));
	assert_int_equal(glGetError(), GL_NO_ERROR);
	save(f->image, "renderer_10k_boxes.png");
	kl_render_stats stats = kl_renderer_get_stats(f->renderer);
	printf("10,000 boxes: %d draw calls, %d instances\n", stats.draw_calls, stats.instances);
	assert_int_equal(stats.instances, 10000);
	assert_true(stats.draw_calls < 20);

	// Frame time under this GL (render only: batching, submission and the GPU's work).
	const int frames = 5;
	for (int shadows = 1; shadows >= 0; --shadows)
	{
		layers.shadows = shadows != 0;
		struct timespec t0, t1;
		timespec_get(&t0, TIME_UTC);
		float cpu = 0.0f;
		for (int i = 0; i < frames; ++i)
		{
			kl_renderer_begin_frame(f->renderer, &camera);
			kl_renderer_draw_world(f->renderer, world, &layers);
			kl_renderer_end_frame(f->renderer);
			cpu += kl_renderer_get_stats(f->renderer).cpu_ms;
			glFinish();
		}
		timespec_get(&t1, TIME_UTC);
		double ms = 1.0e3 * ((double)(t1.tv_sec - t0.tv_sec) + 1.0e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) / frames;
		printf("10,000 boxes, shadows %s: %.1f ms per frame (%.1f ms in renderer calls) at %dx%d\n",
			   shadows ? "on" : "off", ms, cpu / (float)frames, W, H);
	}
	kl_destroy_world(world);
}

static void test_png_round_trip(void** state)
{
	fixture* f = *state;
	scene s = build_scene();
	kl_camera camera = test_camera();
	kl_render_layers layers = kl_render_layers_default();
	render(f, s.world, &layers, &camera, f->image);
	destroy_scene(&s);

	char path[512];
	char error[256] = "";
	snprintf(path, sizeof(path), "%s/renderer_round_trip.png", KL_TEST_OUT_DIR);
	assert_true(kl_write_png(path, f->image, W, H, error, (int)sizeof(error)));

	png_image png;
	memset(&png, 0, sizeof(png));
	png.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_file(&png, path));
	assert_int_equal(png.width, W);
	assert_int_equal(png.height, H);
	png.format = PNG_FORMAT_RGB;
	assert_true(png_image_finish_read(&png, NULL, f->other, 0, NULL));
	assert_memory_equal(f->image, f->other, (size_t)W * H * 3);

	// Bad input fails with a message instead of crashing.
	error[0] = '\0';
	assert_false(kl_write_png("/nonexistent-dir/x.png", f->image, W, H, error, (int)sizeof(error)));
	assert_true(strstr(error, "nonexistent-dir") != NULL);
	assert_false(kl_write_png(path, NULL, W, H, error, (int)sizeof(error)));
	assert_false(kl_write_png(path, f->image, 0, H, error, (int)sizeof(error)));
}

/// Relative luminance from linearised sRGB.
static double luminance(vec3s c)
{
	double rgb[3] = {c.x, c.y, c.z};
	for (int i = 0; i < 3; ++i)
	{
		rgb[i] = rgb[i] <= 0.04045 ? rgb[i] / 12.92 : pow((rgb[i] + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

static void test_colormap_brightens_monotonically(void** state)
{
	(void)state;
	double previous = -1.0;
	for (int i = 0; i <= 1000; ++i)
	{
		vec3s c = kl_colormap((float)i / 1000.0f);
		assert_true(c.x >= 0.0f && c.x <= 1.0f && c.y >= 0.0f && c.y <= 1.0f && c.z >= 0.0f && c.z <= 1.0f);
		double l = luminance(c);
		assert_true(l > previous);
		previous = l;
	}
	vec3s lo = kl_colormap(0.0f);
	vec3s hi = kl_colormap(1.0f);
	assert_true(lo.z > lo.x && lo.z > lo.y);  // dark blue
	assert_true(hi.x > 0.8f && hi.y > 0.8f && hi.z < 0.3f); // yellow
	assert_true(luminance(hi) > 10.0 * luminance(lo));
	// Out of range and NaN clamp to the ends.
	assert_near(kl_colormap(-3.0f).z, lo.z, 0.0);
	assert_near(kl_colormap(7.0f).x, hi.x, 0.0);
	assert_near(kl_colormap(NAN).z, lo.z, 0.0);
}

static void test_cameras_agree_with_themselves(void** state)
{
	(void)state;
	kl_camera c = test_camera();
	vec3s p = kl_vec3(0.7f, -0.3f, 1.1f);
	float x, y;
	assert_true(kl_camera_project(&c, p, &x, &y));
	vec3s origin, dir;
	kl_camera_pixel_ray(&c, x, y, &origin, &dir);
	// The ray through the projected pixel passes through the point.
	vec3s to = glms_vec3_sub(p, origin);
	float along = glms_vec3_dot(to, dir);
	vec3s miss = glms_vec3_sub(to, glms_vec3_scale(dir, along));
	assert_near(glms_vec3_norm(miss), 0.0, 1.0e-3);
	assert_near(glms_vec3_norm(dir), 1.0, 1.0e-5);

	// Orbit keeps its distance to the target; the target projects to the image centre.
	kl_camera_rotate(&c, 40.0f, -25.0f);
	assert_near(glms_vec3_distance(kl_camera_eye(&c), c.target), c.distance, 1.0e-4);
	assert_true(kl_camera_project(&c, c.target, &x, &y));
	assert_near(x, W / 2, 0.01);
	assert_near(y, H / 2, 0.01);
	assert_true(kl_camera_eye(&c).z > c.target.z); // positive pitch looks down

	// Mode switches keep the eye and the view direction.
	vec3s eye = kl_camera_eye(&c);
	vec3s fwd = kl_camera_forward(&c);
	kl_camera_set_mode(&c, KL_CAMERA_FLY);
	assert_near(glms_vec3_distance(kl_camera_eye(&c), eye), 0.0, 1.0e-5);
	kl_camera_move(&c, kl_vec3(0.0f, 1.0f, 0.0f));
	assert_near(glms_vec3_distance(kl_camera_eye(&c), glms_vec3_add(eye, fwd)), 0.0, 1.0e-5);
	kl_camera_set_mode(&c, KL_CAMERA_ORBIT);
	assert_near(glms_vec3_distance(kl_camera_eye(&c), glms_vec3_add(eye, fwd)), 0.0, 1.0e-4);
	assert_near(glms_vec3_distance(kl_camera_forward(&c), fwd), 0.0, 1.0e-6);

	// Zoom brings an orbit camera closer; a point behind the eye does not project.
	float d = c.distance;
	kl_camera_zoom(&c, 2.0f);
	assert_true(c.distance < d);
	vec3s behind = glms_vec3_sub(kl_camera_eye(&c), kl_camera_forward(&c));
	assert_false(kl_camera_project(&c, behind, &x, &y));
}

static void test_heatmap_colours_follow_the_values(void** state)
{
	fixture* f = *state;
	// An octahedron of half width 1 at the origin, seen from the test camera.
	const vec3s v[6] = {{{1, 0, 0}}, {{-1, 0, 0}}, {{0, 1, 0}}, {{0, -1, 0}}, {{0, 0, 1}}, {{0, 0, -1}}};
	const int32_t idx[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
	float low[6] = {0, 0, 0, 0, 0, 0};
	float high[6] = {1, 1, 1, 1, 1, 1};
	assert_null(kl_heatmap_create(v, 6, (const int32_t[3]){0, 1, 9}, 1, low)); // index out of range
	kl_heatmap* h = kl_heatmap_create(v, 6, idx, 8, low);
	assert_non_null(h);
	kl_camera camera = test_camera();
	kl_transform xf = {kl_vec3(0.0f, 0.0f, 0.5f), glms_quat_identity()};
	float x, y;
	assert_true(kl_camera_project(&camera, xf.p, &x, &y));

	empty_background(f, &camera);
	for (int pass = 0; pass < 2; ++pass)
	{
		kl_renderer_begin_frame(f->renderer, &camera);
		kl_renderer_draw_heatmap(f->renderer, h, xf, 0.0f, 1.0f);
		kl_renderer_end_frame(f->renderer);
		assert_true(kl_gl_context_read_rgb(f->context, pass == 0 ? f->image : f->other));
		assert_int_equal(glGetError(), GL_NO_ERROR);
		kl_heatmap_set_values(h, high);
	}
	save(f->other, "renderer_heatmap.png");
	const uint8_t* a = pixel(f->image, (int)x, (int)y);
	const uint8_t* b = pixel(f->other, (int)x, (int)y);
	printf("heatmap at 0: %u %u %u, at 1: %u %u %u\n", a[0], a[1], a[2], b[0], b[1], b[2]);
	assert_true(color_distance(a, pixel(f->background, (int)x, (int)y)) > 40);
	assert_true(a[2] > a[0]);					  // low: blue
	assert_true(b[0] > b[2] + 60 && b[1] > b[2] + 60); // high: yellow
	assert_true(b[0] + b[1] + b[2] > a[0] + a[1] + a[2]);
	kl_heatmap_destroy(h);
}

static void test_names_become_labels_at_the_projected_position(void** state)
{
	fixture* f = *state;
	scene s = build_scene();
	kl_camera camera = test_camera();
	kl_render_layers layers = kl_render_layers_default();
	render(f, s.world, &layers, &camera, f->image);
	const kl_render_label* labels = NULL;
	assert_int_equal(kl_renderer_get_labels(f->renderer, &labels), 0);

	layers.names = true;
	render(f, s.world, &layers, &camera, f->image);
	int count = kl_renderer_get_labels(f->renderer, &labels);
	assert_int_equal(count, 6); // ground and five bodies
	float x, y;
	assert_true(kl_camera_project(&camera, kl_body_get_position(s.sphere), &x, &y));
	bool found = false;
	for (int i = 0; i < count; ++i)
	{
		if (strcmp(labels[i].text, "sphere") == 0)
		{
			found = true;
			assert_near(labels[i].x, x, 0.5);
			assert_near(labels[i].y, y, 0.5);
		}
	}
	assert_true(found);
	destroy_scene(&s);
}

static void test_shared_hulls_draw_once_per_mesh(void** state)
{
	fixture* f = *state;
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_shape_def sd = kl_default_shape_def();
	const vec3s pts[5] = {{{0.3f, 0, 0}}, {{-0.3f, 0, 0}}, {{0, 0.3f, 0}}, {{0, -0.3f, 0}}, {{0, 0, 0.6f}}};
	kl_hull* hull = kl_hull_build(pts, 5);
	assert_non_null(hull);
	for (int i = 0; i < 50; ++i)
	{
		vec3s p = kl_vec3(0.8f * (float)(i % 10) - 4.0f, 0.8f * (float)(i / 10) - 2.0f, 0.0f);
		kl_body_id b = add_body(world, KL_BODY_DYNAMIC, p, NULL);
		kl_create_hull_shape(b, &sd, hull);
	}
	kl_camera camera = test_camera();
	kl_render_layers layers = kl_render_layers_default();
	for (int frame = 0; frame < 3; ++frame)
	{
		render(f, world, &layers, &camera, f->image);
		kl_render_stats stats = kl_renderer_get_stats(f->renderer);
		assert_int_equal(stats.instances, 50);
		// Shapes may each hold their own copy of the hull: the cache still finds one triangle set,
		// drawn by one instanced call per pass.
		assert_int_equal(stats.meshes, 1);
		assert_true(stats.draw_calls <= 4);
		if (frame == 2)
		{
			printf("50 hull shapes: %d distinct meshes, %d draw calls\n", stats.meshes, stats.draw_calls);
		}
	}
	kl_destroy_world(world);
	kl_hull_destroy(hull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colormap_brightens_monotonically),
		cmocka_unit_test(test_cameras_agree_with_themselves),
		cmocka_unit_test(test_scene_draws_bodies_where_the_camera_projects_them),
		cmocka_unit_test(test_layers_change_the_expected_pixels),
		cmocka_unit_test(test_png_round_trip),
		cmocka_unit_test(test_heatmap_colours_follow_the_values),
		cmocka_unit_test(test_names_become_labels_at_the_projected_position),
		cmocka_unit_test(test_shared_hulls_draw_once_per_mesh),
		cmocka_unit_test(test_ten_thousand_boxes_take_a_handful_of_draw_calls),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
