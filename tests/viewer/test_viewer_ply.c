// Headless image tests of kollide-viewer --ply (SDL offscreen + Mesa llvmpipe): per-vertex colours
// reach the screen, files without colours are coloured from their values, several files stand side
// by side in order, the legend (colour-map bar) appears exactly when a file has a value range, and a
// broken file stops the viewer with the loader's message.
// SPDX-License-Identifier: MIT
#include "app.h"

#include "kl_test.h"

#include <kollide/ply.h>

#include <stdlib.h>
#include <string.h>

enum
{
	kl_w = 320,
	kl_h = 240,
};

#define OUT(name) KL_TEST_OUT_DIR "/" name

/// A 1 × 1 × 0.2 box; the top corners get top[k], the bottom ones grey. values/comments optional.
static void write_box(const char* path, const uint8_t top[4][3], bool colours, bool values, const char* comments)
{
	vec3s v[8];
	uint8_t rgb[24];
	float value[8];
	for (int i = 0; i < 8; ++i)
	{
		int k = i % 4;
		v[i] = kl_vec3(k == 1 || k == 2 ? 1.0f : 0.0f, k >= 2 ? 1.0f : 0.0f, i >= 4 ? 0.2f : 0.0f);
		for (int c = 0; c < 3; ++c)
		{
			rgb[3 * i + c] = i >= 4 ? top[k][c] : 128;
		}
		value[i] = (float)i; // top corners 4..7: the upper half of the range
	}
	static const int32_t tris[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
									 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
	kl_ply_mesh m;
	memset(&m, 0, sizeof(m));
	m.mesh.vertices = v;
	m.mesh.vertex_count = 8;
	m.mesh.indices = (int32_t*)tris;
	m.mesh.triangle_count = 12;
	m.colors = colours ? rgb : NULL;
	m.values = values ? value : NULL;
	m.comments = (char*)comments;
	assert_int_equal(kl_ply_save(path, &m), KL_OK);
}

static kl_viewer_app* open_viewer(const char* a, const char* b, char* error)
{
	kl_viewer_options o = kl_viewer_default_options();
	o.width = kl_w;
	o.height = kl_h;
	o.frames = 1000;
	o.hide_hud = true;
	o.ply_files[o.ply_count++] = a;
	if (b != NULL)
	{
		o.ply_files[o.ply_count++] = b;
	}
	error[0] = '\0';
	return kl_viewer_app_create(&o, error, 512);
}

static const uint8_t* render(kl_viewer_app* app)
{
	app->show_grid = false;
	kl_viewer_app_render(app);
	const uint8_t* px = kl_viewer_app_read_pixels(app);
	assert_non_null(px);
	return px;
}

/// Pixels in [x0, x1) × [y0, y1) whose channel c is at least 60 and twice each other channel; their
/// mean x in *mean_x.
static int dominant(const uint8_t* px, int c, int x0, int y0, int x1, int y1, float* mean_x)
{
	int n = 0;
	double sx = 0.0;
	for (int y = y0; y < y1; ++y)
	{
		for (int x = x0; x < x1; ++x)
		{
			const uint8_t* p = px + 3 * (y * kl_w + x);
			if (p[c] >= 60 && p[c] >= 2 * p[(c + 1) % 3] && p[c] >= 2 * p[(c + 2) % 3])
			{
				n += 1;
				sx += x;
			}
		}
	}
	if (mean_x != NULL)
	{
		*mean_x = n > 0 ? (float)(sx / n) : -1.0f;
	}
	return n;
}

/// Pixels within 40 (sum of channel differences) of rgb, in the region.
static int near_colour(const uint8_t* px, const uint8_t rgb[3], int x0, int y0, int x1, int y1)
{
	int n = 0;
	for (int y = y0; y < y1; ++y)
	{
		for (int x = x0; x < x1; ++x)
		{
			const uint8_t* p = px + 3 * (y * kl_w + x);
			n += abs(p[0] - rgb[0]) + abs(p[1] - rgb[1]) + abs(p[2] - rgb[2]) < 40;
		}
	}
	return n;
}

static const uint8_t kl_top[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
static const uint8_t kl_yellow[3] = {252, 228, 37}; ///< kl_colormap(1)

/// The legend sits at the bottom (right, and as wide as the window at most); the meshes above it.
static void test_vertex_colours(void** state)
{
	(void)state;
	write_box(OUT("viewer_ply_box.ply"), kl_top, true, false, "value=time stat=median min=2 max=9");
	char error[512];
	kl_viewer_app* app = open_viewer(OUT("viewer_ply_box.ply"), NULL, error);
	assert_non_null(app);
	const uint8_t* px = render(app);
	int legend_top = kl_h - 80;
	// Each of the three primary corners shows its own hue somewhere on the mesh.
	for (int c = 0; c < 3; ++c)
	{
		int n = dominant(px, c, 0, 0, kl_w, legend_top, NULL);
		if (n < 30)
		{
			print_error("channel %d dominates only %d pixels\n", c, n);
			fail();
		}
	}
	// The range comment gives a legend: the colour map's yellow end is drawn along the bottom.
	assert_true(near_colour(px, kl_yellow, 0, legend_top, kl_w, kl_h) >= 20);
	kl_viewer_app_destroy(app);
}

/// Without colours the values are coloured with the map (range from the values), and the legend shows.
static void test_values_only(void** state)
{
	(void)state;
	write_box(OUT("viewer_ply_values.ply"), kl_top, false, true, NULL);
	char error[512];
	kl_viewer_app* app = open_viewer(OUT("viewer_ply_values.ply"), NULL, error);
	assert_non_null(app);
	const uint8_t* px = render(app);
	// The top corners hold values 4..7 of 0..7: teal-green to yellow-green on the mesh (green the
	// largest channel), where grey files and the grey sky have none.
	int greenish = 0;
	for (int i = 0; i < kl_w * (kl_h - 80); ++i)
	{
		const uint8_t* p = px + 3 * i;
		greenish += p[1] >= 60 && p[1] >= p[0] + 30 && p[1] >= p[2] + 30;
	}
	assert_true(greenish >= 100);
	assert_true(near_colour(px, kl_yellow, 0, kl_h - 80, kl_w, kl_h) >= 20);
	kl_viewer_app_destroy(app);
}

/// Two files: the first stands left of the second. No range in either: no legend.
static void test_side_by_side(void** state)
{
	(void)state;
	uint8_t red[4][3], blue[4][3];
	for (int k = 0; k < 4; ++k)
	{
		red[k][0] = 230, red[k][1] = 10, red[k][2] = 10;
		blue[k][0] = 10, blue[k][1] = 10, blue[k][2] = 230;
	}
	write_box(OUT("viewer_ply_red.ply"), red, true, false, NULL);
	write_box(OUT("viewer_ply_blue.ply"), blue, true, false, NULL);
	char error[512];
	kl_viewer_app* app = open_viewer(OUT("viewer_ply_red.ply"), OUT("viewer_ply_blue.ply"), error);
	assert_non_null(app);
	const uint8_t* px = render(app);
	float red_x, blue_x;
	int reds = dominant(px, 0, 0, 0, kl_w, kl_h, &red_x);
	int blues = dominant(px, 2, 0, 0, kl_w, kl_h, &blue_x);
	assert_true(reds >= 100 && blues >= 100);
	assert_true(red_x + 20.0f < blue_x);
	assert_int_equal(near_colour(px, kl_yellow, 0, 0, kl_w, kl_h), 0);
	kl_viewer_app_destroy(app);
}

static void test_bad_file(void** state)
{
	(void)state;
	FILE* f = fopen(OUT("viewer_ply_bad.ply"), "wb");
	assert_non_null(f);
	fputs("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
		  "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n",
		  f);
	fclose(f);
	char error[512];
	assert_null(open_viewer(OUT("viewer_ply_bad.ply"), NULL, error));
	assert_non_null(strstr(error, "viewer_ply_bad.ply"));
	assert_non_null(strstr(error, "vertex index 9 is out of range"));
	assert_null(open_viewer(OUT("no_such_file.ply"), NULL, error));
	assert_non_null(strstr(error, "cannot load"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vertex_colours),
		cmocka_unit_test(test_values_only),
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_bad_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
