// Headless image tests of kollide-viewer (SDL offscreen + Mesa llvmpipe). They check what a broken
// renderer or viewer would get wrong, by comparing renders of the same world state with one thing
// switched: bodies appear where the camera projects them, overlays change pixels only around the
// bodies, the HUD draws a panel with text, screenshots are the frame. No golden images.
#include "app.h"
#include "hud.h"
#include "input.h"
#include "picking.h"

#include "kl_test.h"

#include <SDL.h>
#include <libpng16/png.h> // not render/png.h, which shares the name

#include <stdlib.h>
#include <string.h>

enum
{
	kl_w = 320,
	kl_h = 240,
	kl_pixel_bytes = kl_w * kl_h * 3,
};

static kl_viewer_app* g_app;
static uint8_t* g_a;
static uint8_t* g_b;

static int group_setup(void** state)
{
	(void)state;
	kl_viewer_options o = kl_viewer_default_options();
	o.width = kl_w;
	o.height = kl_h;
	o.frames = 100000; // fixed frame time, GL finished per frame
	o.hide_hud = true;
	o.scene_name = "pyramid";
	char error[512] = "";
	g_app = kl_viewer_app_create(&o, error, (int)sizeof(error));
	if (g_app == NULL)
	{
		fprintf(stderr, "viewer: %s\n", error);
		return -1;
	}
	g_a = malloc(kl_pixel_bytes);
	g_b = malloc(kl_pixel_bytes);
	return g_a != NULL && g_b != NULL ? 0 : -1;
}

static int group_teardown(void** state)
{
	(void)state;
	kl_viewer_app_destroy(g_app);
	free(g_a);
	free(g_b);
	return 0;
}

/// A clean view: shapes lit, no shadows, no grid, no overlays, no HUD.
static void plain_view(kl_viewer_app* app)
{
	app->layers = kl_render_layers_default();
	app->layers.shapes = true;
	app->layers.wireframe = false;
	app->layers.shadows = false;
	app->show_grid = false;
	app->show_hud = false;
	app->show_help = false;
	app->show_menu = false;
	app->paused = false;
	app->slow_motion = false;
}

static void start_scene(const char* name, int frames)
{
	int count = 0;
	const kl_scene* const* scenes = kl_scene_list(&count);
	int index = -1;
	for (int i = 0; i < count; ++i)
	{
		index = strcmp(scenes[i]->name, name) == 0 ? i : index;
	}
	assert_true(index >= 0);
	assert_true(kl_viewer_app_load_scene(g_app, index));
	plain_view(g_app);
	for (int i = 0; i < frames; ++i)
	{
		assert_true(kl_viewer_app_advance(g_app, (double)g_app->timestep.dt) == 1);
	}
}

static void render_into(uint8_t* out)
{
	kl_viewer_app_render(g_app);
	const uint8_t* px = kl_viewer_app_read_pixels(g_app);
	assert_non_null(px);
	assert_int_equal(g_app->width, kl_w);
	assert_int_equal(g_app->height, kl_h);
	memcpy(out, px, kl_pixel_bytes);
}

static bool differs(const uint8_t* a, const uint8_t* b, int x, int y)
{
	const uint8_t* p = a + (y * kl_w + x) * 3;
	const uint8_t* q = b + (y * kl_w + x) * 3;
	return abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 24;
}

static int distinct_colors(const uint8_t* px)
{
	uint8_t* seen = calloc(1u << 21, 1); // one bit per 24-bit colour
	assert_non_null(seen);
	int n = 0;
	for (int i = 0; i < kl_w * kl_h; ++i)
	{
		uint32_t c = (uint32_t)px[3 * i] << 16 | (uint32_t)px[3 * i + 1] << 8 | px[3 * i + 2];
		if (!(seen[c >> 3] & (1u << (c & 7))))
		{
			seen[c >> 3] |= (uint8_t)(1u << (c & 7));
			n += 1;
		}
	}
	free(seen);
	return n;
}

/// Projects a world point to pixels (x right, y down). False behind the camera.
static bool project(const kl_camera* camera, vec3s p, float* x, float* y)
{
	mat4s m = glms_mat4_mul(kl_camera_projection(camera), kl_camera_view(camera));
	vec4s c = glms_mat4_mulv(m, glms_vec4(p, 1.0f));
	if (c.w <= 1.0e-6f)
	{
		return false;
	}
	*x = (c.x / c.w * 0.5f + 0.5f) * (float)camera->width;
	*y = (0.5f - c.y / c.w * 0.5f) * (float)camera->height;
	return true;
}

typedef struct rect
{
	float x0, y0, x1, y1;
} rect;

/// The screen rectangle covering the projected corners of every shape's bounds (ground included).
static rect projected_world_rect(float margin)
{
	rect r = {1e9f, 1e9f, -1e9f, -1e9f};
	kl_body_id bodies[4096];
	int n = kl_world_get_bodies(g_app->run.world, bodies, 4096);
	for (int i = 0; i < n && i < 4096; ++i)
	{
		kl_shape_id shapes[8];
		int s = kl_body_get_shapes(bodies[i], shapes, 8);
		for (int k = 0; k < s && k < 8; ++k)
		{
			kl_aabb b = kl_shape_get_aabb(shapes[k]);
			for (int corner = 0; corner < 8; ++corner)
			{
				vec3s p = kl_vec3(corner & 1 ? b.upper.x : b.lower.x, corner & 2 ? b.upper.y : b.lower.y,
								  corner & 4 ? b.upper.z : b.lower.z);
				float x, y;
				if (project(&g_app->camera, p, &x, &y))
				{
					r.x0 = fminf(r.x0, x - margin);
					r.y0 = fminf(r.y0, y - margin);
					r.x1 = fmaxf(r.x1, x + margin);
					r.y1 = fmaxf(r.y1, y + margin);
				}
			}
		}
	}
	return r;
}

static bool inside(rect r, int x, int y)
{
	return (float)x >= r.x0 && (float)x <= r.x1 && (float)y >= r.y0 && (float)y <= r.y1;
}

/// Counts pixels that differ between the two frames, and how many of those lie outside r.
static void count_changes(const uint8_t* a, const uint8_t* b, rect r, int* changed, int* outside)
{
	*changed = 0;
	*outside = 0;
	for (int y = 0; y < kl_h; ++y)
	{
		for (int x = 0; x < kl_w; ++x)
		{
			if (differs(a, b, x, y))
			{
				*changed += 1;
				*outside += !inside(r, x, y);
			}
		}
	}
}

/// Renders the scene with and without shapes: the image is not blank, every on-screen dynamic body's
/// projected centre is covered by something, and the shapes change nothing outside the world's bounds.
static void check_scene(const char* name)
{
	start_scene(name, 10);
	render_into(g_a);
	g_app->layers.shapes = false;
	render_into(g_b);
	int colors = distinct_colors(g_a);
	kl_body_id bodies[4096];
	int n = kl_world_get_bodies(g_app->run.world, bodies, 4096);
	int visible = 0;
	int covered = 0;
	for (int i = 0; i < n && i < 4096; ++i)
	{
		float x, y;
		if (kl_body_get_type(bodies[i]) != KL_BODY_DYNAMIC ||
			!project(&g_app->camera, kl_body_get_world_center_of_mass(bodies[i]), &x, &y) || x < 2.0f || y < 2.0f ||
			x > (float)kl_w - 3.0f || y > (float)kl_h - 3.0f)
		{
			continue;
		}
		visible += 1;
		covered += differs(g_a, g_b, (int)x, (int)y);
	}
	int changed, outside;
	count_changes(g_a, g_b, projected_world_rect(3.0f), &changed, &outside);
	printf("%-16s colours %d, dynamic bodies on screen %d (covered %d), shape pixels %d (outside bounds %d)\n", name,
		   colors, visible, covered, changed, outside);
	assert_true(colors >= 24);
	assert_true(visible >= 1);
	assert_true(covered >= visible * 9 / 10);
	assert_true(changed >= 400);
	assert_true(outside <= changed / 100);
}

static void test_pyramid(void** state)
{
	(void)state;
	check_scene("pyramid");
	int count = 0;
	kl_body_id bodies[512];
	count = kl_world_get_bodies(g_app->run.world, bodies, 512);
	assert_int_equal(count, 211); // 210 cubes and the ground, all framed by the camera (checked above)
}

static void test_vertical_stack(void** state)
{
	(void)state;
	check_scene("vertical_stack");
}

static void test_card_house(void** state)
{
	(void)state;
	check_scene("card_house");
}

static void test_falling_boxes(void** state)
{
	(void)state;
	assert_non_null(kl_scene_find("falling_boxes"));
	check_scene("falling_boxes");
}

/// Turning an overlay on changes pixels, and only around the bodies.
static void check_overlay(bool* layer, const char* what, int min_changed)
{
	*layer = false;
	render_into(g_a);
	*layer = true;
	render_into(g_b);
	*layer = false;
	int changed, outside;
	count_changes(g_a, g_b, projected_world_rect(6.0f), &changed, &outside);
	printf("%s: %d pixels changed, %d outside the world's bounds\n", what, changed, outside);
	assert_true(changed >= min_changed);
	assert_true(outside <= changed / 20);
}

static void test_overlays(void** state)
{
	(void)state;
	start_scene("pyramid", 30);
	check_overlay(&g_app->layers.aabbs, "AABBs", 300);
	check_overlay(&g_app->layers.contacts, "contacts", 30);
	g_app->layers.wireframe = true;
	render_into(g_a);
	g_app->layers.wireframe = false;
	render_into(g_b);
	int changed, outside;
	count_changes(g_a, g_b, projected_world_rect(6.0f), &changed, &outside);
	printf("wireframe: %d pixels changed, %d outside\n", changed, outside);
	assert_true(changed >= 400);
	assert_true(outside <= changed / 20);
}

/// The penalty contact overlays draw on the penalty_meshes scene while its parts land (shapes hidden):
/// the inner spheres, and the lens centres of the overlapping sphere pairs.
static void test_penalty_overlays(void** state)
{
	(void)state;
	start_scene("penalty_meshes", 20);
	kl_counters c = kl_world_get_counters(g_app->run.world);
	assert_true(c.penalty_pair_count > 0);
	char line[160], expected[64];
	kl_viewer_hud_penalty_line(c, kl_world_get_profile(g_app->run.world), line, sizeof(line));
	snprintf(expected, sizeof(expected), "penalty %d pairs (%d limited): ", c.penalty_pair_count,
			 c.penalty_limited_count);
	assert_true(strncmp(line, expected, strlen(expected)) == 0);
	g_app->layers.shapes = false; // the spheres lie inside the solids
	check_overlay(&g_app->layers.inner_spheres, "inner spheres", 2000);
	check_overlay(&g_app->layers.penalty_pairs, "penalty pairs", 20);
}

/// The HUD's point-shell line shows a world's point-shell pairs and stage times: the screw in its
/// block with its pair switched to point shells, one step.
static void test_hud_pointshell_line(void** state)
{
	(void)state;
	char line[160];
	start_scene("screw_block", 1);
	kl_viewer_hud_pointshell_line(kl_world_get_counters(g_app->run.world), kl_world_get_profile(g_app->run.world),
								  line, sizeof(line));
	assert_string_equal(line, "point shells: no pairs"); // the scene's default: the BVH
	kl_body_id screw = kl_world_find_body(g_app->run.world, "screw");
	kl_shape_id shapes[4];
	int n = kl_body_get_shapes(screw, shapes, 4);
	for (int i = 0; i < n && i < 4; ++i)
	{
		assert_int_equal(kl_shape_set_mesh_backend(shapes[i], KL_MESH_BACKEND_POINTSHELL), KL_OK);
	}
	assert_int_equal(kl_world_step(g_app->run.world, 1.0f / 60.0f, 4), KL_OK);
	kl_counters c = kl_world_get_counters(g_app->run.world);
	kl_profile p = kl_world_get_profile(g_app->run.world);
	kl_viewer_hud_pointshell_line(c, p, line, sizeof(line));
	printf("  %s\n", line);
	char expected[64];
	snprintf(expected, sizeof(expected), "point shells %d pairs (%d GPU): obb ", c.pointshell_pair_count,
			 c.pointshell_gpu_pair_count);
	assert_true(c.pointshell_pair_count == 1);
	assert_true(strncmp(line, expected, strlen(expected)) == 0);
	assert_non_null(strstr(line, "shell "));
}

/// The HUD panel darkens its rectangle and draws bright text in it, and nothing elsewhere.
static void test_hud(void** state)
{
	(void)state;
	start_scene("pyramid", 5);
	g_app->frame_ms = 16.7f;
	render_into(g_a);
	g_app->show_hud = true;
	render_into(g_b);
	g_app->show_hud = false;
	kl_viewer_rect panel = kl_viewer_hud_panel_rect(g_app);
	rect r = {panel.x, panel.y, panel.x + panel.w, panel.y + panel.h};
	int in_panel = 0;
	int panel_pixels = 0;
	int bright = 0;
	int changed_outside = 0;
	for (int y = 0; y < kl_h; ++y)
	{
		for (int x = 0; x < kl_w; ++x)
		{
			bool d = differs(g_a, g_b, x, y);
			if (inside(r, x, y))
			{
				const uint8_t* p = g_b + (y * kl_w + x) * 3;
				panel_pixels += 1;
				in_panel += d;
				bright += p[0] + p[1] + p[2] > 3 * 180;
			}
			else
			{
				changed_outside += d;
			}
		}
	}
	printf("HUD: %d of %d panel pixels changed, %d bright (text), %d changed outside\n", in_panel, panel_pixels, bright,
		   changed_outside);
	assert_true(panel_pixels > 1000);
	assert_true(in_panel >= panel_pixels / 2);
	assert_true(bright >= 600); // the text; the dark panel alone leaves a few hundred at most
	assert_true(changed_outside <= panel_pixels / 100);
}

/// Keys drive the app: layer toggles, pause, single step, ball, scene cycling.
static void test_keys(void** state)
{
	(void)state;
	start_scene("pyramid", 1);
	kl_viewer_input_key(g_app, SDLK_2, false);
	assert_true(g_app->layers.aabbs);
	kl_viewer_input_key(g_app, SDLK_2, false);
	assert_false(g_app->layers.aabbs);
	kl_viewer_input_key(g_app, SDLK_1, false);
	assert_true(g_app->layers.wireframe);
	// 0 cycles the point-shell overlays: boxes, cells, samples, none.
	kl_viewer_input_key(g_app, SDLK_0, false);
	assert_true(g_app->layers.conglomerates && !g_app->layers.octree_cells && !g_app->layers.point_shells);
	kl_viewer_input_key(g_app, SDLK_0, false);
	assert_true(!g_app->layers.conglomerates && g_app->layers.octree_cells && !g_app->layers.point_shells);
	kl_viewer_input_key(g_app, SDLK_0, false);
	assert_true(!g_app->layers.conglomerates && !g_app->layers.octree_cells && g_app->layers.point_shells);
	kl_viewer_input_key(g_app, SDLK_0, false);
	assert_true(!g_app->layers.conglomerates && !g_app->layers.octree_cells && !g_app->layers.point_shells);
	// I cycles the penalty overlays: spheres, pairs, both, none.
	kl_viewer_input_key(g_app, SDLK_i, false);
	assert_true(g_app->layers.inner_spheres && !g_app->layers.penalty_pairs);
	kl_viewer_input_key(g_app, SDLK_i, false);
	assert_true(!g_app->layers.inner_spheres && g_app->layers.penalty_pairs);
	kl_viewer_input_key(g_app, SDLK_i, false);
	assert_true(g_app->layers.inner_spheres && g_app->layers.penalty_pairs);
	kl_viewer_input_key(g_app, SDLK_i, false);
	assert_true(!g_app->layers.inner_spheres && !g_app->layers.penalty_pairs);
	kl_viewer_input_key(g_app, SDLK_p, false);
	assert_int_equal(kl_viewer_app_advance(g_app, 0.1), 0);
	kl_viewer_input_key(g_app, SDLK_n, false);
	assert_int_equal(kl_viewer_app_advance(g_app, 0.1), 1);
	assert_int_equal(kl_viewer_app_advance(g_app, 0.1), 0);
	kl_viewer_input_key(g_app, SDLK_p, false);
	kl_viewer_input_key(g_app, SDLK_m, false);
	int steps = 0;
	for (int i = 0; i < 8; ++i)
	{
		steps += kl_viewer_app_advance(g_app, (double)g_app->timestep.dt);
	}
	assert_int_equal(steps, 2); // slow motion: a quarter of the frames step
	int before = kl_world_get_bodies(g_app->run.world, NULL, 0);
	g_app->mouse_x = 0.5f * kl_w;
	g_app->mouse_y = 0.5f * kl_h;
	kl_viewer_input_key(g_app, SDLK_SPACE, false);
	assert_int_equal(kl_world_get_bodies(g_app->run.world, NULL, 0), before + 1);
	kl_viewer_input_key(g_app, SDLK_r, false); // reset drops the ball
	assert_int_equal(kl_world_get_bodies(g_app->run.world, NULL, 0), before);
	int index = g_app->scene_index;
	kl_viewer_input_key(g_app, SDLK_RIGHTBRACKET, false);
	assert_int_not_equal(g_app->scene_index, index);
	kl_viewer_input_key(g_app, SDLK_LEFTBRACKET, false);
	assert_int_equal(g_app->scene_index, index);
	kl_viewer_input_key(g_app, SDLK_TAB, false);
	assert_true(g_app->show_menu);
	kl_viewer_rect item = kl_viewer_menu_item_rect(g_app, 2);
	assert_int_equal(kl_viewer_menu_hit(g_app, item.x + 4.0f, item.y + 0.5f * item.h), 2);
	kl_viewer_input_key(g_app, SDLK_ESCAPE, false);
	assert_false(g_app->show_menu);
	assert_false(g_app->quit);
}

/// Picking the top cube of the pyramid and dragging the mouse up lifts it.
static void test_pick_drag(void** state)
{
	(void)state;
	start_scene("pyramid", 30);
	kl_body_id top = kl_null_body_id;
	kl_body_id bodies[512];
	int n = kl_world_get_bodies(g_app->run.world, bodies, 512);
	for (int i = 0; i < n && i < 512; ++i)
	{
		if (KL_IS_NULL(top) || kl_body_get_position(bodies[i]).z > kl_body_get_position(top).z)
		{
			top = bodies[i];
		}
	}
	float x, y;
	assert_true(project(&g_app->camera, kl_body_get_position(top), &x, &y));
	assert_true(kl_viewer_pick_begin(g_app, x, y));
	assert_true(KL_ID_EQUALS(g_app->pick.body, top));
	float z0 = kl_body_get_position(top).z;
	kl_viewer_pick_update(g_app, x, y - 30.0f); // up on screen
	for (int i = 0; i < 60; ++i)
	{
		kl_viewer_app_advance(g_app, (double)g_app->timestep.dt);
	}
	float z1 = kl_body_get_position(top).z;
	kl_joint_id joint = g_app->pick.joint;
	render_into(g_a); // draws the rubber band
	kl_viewer_pick_end(g_app);
	printf("picked top cube: z %.3f -> %.3f\n", z0, z1);
	assert_true(z1 > z0 + 0.5f);
	assert_false(kl_joint_is_valid(joint));
	assert_false(g_app->pick.active);
	// Empty sky picks nothing.
	assert_false(kl_viewer_pick_begin(g_app, 2.0f, 2.0f));
}

/// A --screenshot run writes a PNG that is exactly the last frame.
static void test_screenshot(void** state)
{
	(void)state;
	kl_viewer_options o = g_app->options;
	g_app->options.frames = 3;
	g_app->options.screenshot = KL_TEST_OUT_DIR "/viewer_screenshot.png";
	g_app->frame_index = 0;
	remove(g_app->options.screenshot);
	start_scene("vertical_stack", 0);
	g_app->show_hud = true;
	assert_int_equal(kl_viewer_app_run(g_app), 0);
	assert_int_equal(g_app->frame_index, 3);
	png_image image;
	memset(&image, 0, sizeof(image));
	image.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_file(&image, g_app->options.screenshot));
	image.format = PNG_FORMAT_RGB;
	assert_int_equal(image.width, kl_w);
	assert_int_equal(image.height, kl_h);
	assert_true(png_image_finish_read(&image, NULL, g_a, 0, NULL));
	assert_memory_equal(g_a, g_app->pixels, kl_pixel_bytes);
	assert_true(distinct_colors(g_a) >= 24);
	g_app->options = o;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pyramid),		cmocka_unit_test(test_vertical_stack), cmocka_unit_test(test_card_house),
		cmocka_unit_test(test_falling_boxes), cmocka_unit_test(test_overlays),	   cmocka_unit_test(test_hud),
		cmocka_unit_test(test_penalty_overlays),
		cmocka_unit_test(test_hud_pointshell_line),
		cmocka_unit_test(test_keys),		cmocka_unit_test(test_pick_drag),	   cmocka_unit_test(test_screenshot),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
