// Kollide — HUD text tests: glyphs land inside the box the layout reports, panels blend, the colour
// bar spans its width with rising luminance, lines advance by the line height, bad fonts fail cleanly.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "gl_context.h"
#include "heatmap.h"
#include "text.h"

#include <glad/gl.h>

#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

typedef struct fixture
{
	kl_gl_context* context;
	kl_text* text;
	uint8_t* pixels;
} fixture;

static int setup(void** state)
{
	static fixture f;
	char error[512] = "";
	f.context = kl_gl_context_create(W, H, "kollide text test", error, (int)sizeof(error));
	if (f.context == NULL)
	{
		print_error("GL context: %s\n", error);
		return -1;
	}
	f.text = kl_text_create(NULL, 16, error, (int)sizeof(error));
	if (f.text == NULL)
	{
		print_error("text: %s\n", error);
		kl_gl_context_destroy(f.context);
		return -1;
	}
	f.pixels = malloc((size_t)W * H * 3);
	*state = &f;
	return f.pixels != NULL ? 0 : -1;
}

static int teardown(void** state)
{
	fixture* f = *state;
	free(f->pixels);
	kl_text_destroy(f->text);
	kl_gl_context_destroy(f->context);
	return 0;
}

static void clear(float r, float g, float b)
{
	glClearColor(r, g, b, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

static const uint8_t* pixel(const fixture* f, int x, int y)
{
	return f->pixels + ((size_t)y * W + (size_t)x) * 3;
}

static void read_back(fixture* f)
{
	assert_true(kl_gl_context_read_rgb(f->context, f->pixels));
}

static bool lit(const uint8_t* p)
{
	return p[0] > 48 || p[1] > 48 || p[2] > 48;
}

/// Lit pixels inside [x0, x1) × [y0, y1) and outside it, on a black frame.
static void count_lit(const fixture* f, int x0, int y0, int x1, int y1, int* inside, int* outside)
{
	*inside = *outside = 0;
	for (int y = 0; y < H; ++y)
	{
		for (int x = 0; x < W; ++x)
		{
			bool in = x >= x0 && x < x1 && y >= y0 && y < y1;
			if (lit(pixel(f, x, y)))
			{
				*(in ? inside : outside) += 1;
			}
		}
	}
}

/// First and last row with a lit pixel (−1 when none).
static void lit_rows(const fixture* f, int* first, int* last)
{
	*first = *last = -1;
	for (int y = 0; y < H; ++y)
	{
		for (int x = 0; x < W; ++x)
		{
			if (lit(pixel(f, x, y)))
			{
				*first = *first < 0 ? y : *first;
				*last = y;
				break;
			}
		}
	}
}

static void test_text_inside_box(void** state)
{
	fixture* f = *state;
	clear(0.0f, 0.0f, 0.0f);
	kl_text_begin(f->text, W, H);
	float width = kl_text_draw(f->text, 40.0f, 50.0f, "Kollide 0.5 m/s\nHUD µ×°", 0xFF2020);
	kl_text_end(f->text);
	read_back(f);
	float lh = kl_text_line_height(f->text);
	int inside = 0, outside = 0;
	count_lit(f, 40, 50, 40 + (int)ceilf(width), 50 + (int)ceilf(2.0f * lh), &inside, &outside);
	printf("width %.1f line height %.1f: %d lit inside, %d outside\n", width, lh, inside, outside);
	assert_true(lh >= 16.0f && lh <= 24.0f);
	// 15 monospace cells on the widest line (about 10 px each at 16 px).
	assert_true(width > 15.0f * 7.0f && width < 15.0f * 12.0f);
	assert_true(inside > 300);
	assert_int_equal(outside, 0);
	// Text colour: red-dominant wherever it is lit.
	int red = 0, total = 0;
	for (int y = 50; y < 50 + (int)(2.0f * lh); ++y)
	{
		for (int x = 40; x < 40 + (int)width; ++x)
		{
			const uint8_t* p = pixel(f, x, y);
			total += lit(p);
			red += lit(p) && p[0] > p[1] + 40 && p[0] > p[2] + 40;
		}
	}
	assert_int_equal(red, total);
}

static void test_extra_symbols_and_width(void** state)
{
	fixture* f = *state;
	kl_text_begin(f->text, W, H);
	float m = kl_text_draw(f->text, 0.0f, 0.0f, "M", 0xFFFFFF);
	float symbols = kl_text_draw(f->text, 0.0f, 0.0f, "°µ×·–", 0xFFFFFF);
	float lines = kl_text_draw(f->text, 0.0f, 0.0f, "ab\nabcd\nx", 0xFFFFFF);
	kl_text_begin(f->text, W, H); // discard the queue
	assert_true(m > 4.0f);
	assert_near(symbols, 5.0f * m, 1e-3);
	assert_near(lines, 4.0f * m, 1e-3);
	// Each symbol inks pixels (they are in the atlas, not the '?' fallback or blank).
	const char* each[] = {"°", "µ", "×", "·", "–"};
	for (int i = 0; i < 5; ++i)
	{
		clear(0.0f, 0.0f, 0.0f);
		kl_text_begin(f->text, W, H);
		kl_text_draw(f->text, 100.0f, 100.0f, each[i], 0xFFFFFF);
		kl_text_end(f->text);
		read_back(f);
		int inside = 0, outside = 0;
		count_lit(f, 100, 100, 100 + (int)ceilf(m), 100 + (int)ceilf(kl_text_line_height(f->text)), &inside, &outside);
		printf("'%s': %d lit\n", each[i], inside);
		assert_true(inside > 0);
		assert_int_equal(outside, 0);
	}
}

static void test_translucent_rect(void** state)
{
	fixture* f = *state;
	clear(0.0f, 0.0f, 1.0f);
	kl_text_begin(f->text, W, H);
	kl_text_rect(f->text, 100.0f, 80.0f, 60.0f, 40.0f, 0xFF0000, 0.5f);
	kl_text_end(f->text);
	read_back(f);
	const uint8_t* in = pixel(f, 130, 100);
	const uint8_t* corner = pixel(f, 100, 80);
	const uint8_t* last = pixel(f, 159, 119);
	const uint8_t* left = pixel(f, 99, 100);
	const uint8_t* below = pixel(f, 130, 120);
	printf("inside %u,%u,%u outside %u,%u,%u\n", in[0], in[1], in[2], left[0], left[1], left[2]);
	assert_near(in[0], 128, 3);
	assert_near(in[1], 0, 1);
	assert_near(in[2], 127, 3);
	assert_near(corner[0], 128, 3);
	assert_near(last[0], 128, 3);
	assert_true(left[0] == 0 && left[2] == 255);
	assert_true(below[0] == 0 && below[2] == 255);
}

static void test_colormap_bar(void** state)
{
	fixture* f = *state;
	clear(0.0f, 0.0f, 0.0f);
	kl_text_begin(f->text, W, H);
	kl_text_colormap_bar(f->text, 20.0f, 200.0f, 280.0f, 20.0f);
	kl_text_end(f->text);
	read_back(f);
	int inside = 0, outside = 0;
	count_lit(f, 20, 200, 300, 220, &inside, &outside);
	assert_int_equal(outside, 0);
	float previous = -1.0f, first = 0.0f, lum = 0.0f;
	for (int x = 20; x < 300; ++x)
	{
		const uint8_t* p = pixel(f, x, 210);
		assert_true(p[0] + p[1] + p[2] > 0); // covered across its whole width
		lum = 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2];
		if (x == 20)
		{
			first = lum;
		}
		assert_true(lum >= previous - 1.5f);
		previous = lum;
	}
	printf("bar luminance %.1f → %.1f\n", first, lum);
	assert_true(lum - first > 100.0f);
	// The ends are the colour map's ends.
	vec3s lo = kl_colormap(0.0f), hi = kl_colormap(1.0f);
	assert_near(pixel(f, 20, 210)[0], 255.0f * lo.x, 6);
	assert_near(pixel(f, 20, 210)[1], 255.0f * lo.y, 6);
	assert_near(pixel(f, 299, 210)[1], 255.0f * hi.y, 6);
	assert_near(pixel(f, 299, 210)[2], 255.0f * hi.z, 6);
}

static void test_line_advance(void** state)
{
	fixture* f = *state;
	int one_first = 0, one_last = 0, three_first = 0, three_last = 0;
	clear(0.0f, 0.0f, 0.0f);
	kl_text_begin(f->text, W, H);
	kl_text_draw(f->text, 10.0f, 30.0f, "X", 0xFFFFFF);
	kl_text_end(f->text);
	read_back(f);
	lit_rows(f, &one_first, &one_last);
	clear(0.0f, 0.0f, 0.0f);
	kl_text_begin(f->text, W, H);
	kl_text_draw(f->text, 10.0f, 30.0f, "X\n\nX", 0xFFFFFF);
	kl_text_end(f->text);
	read_back(f);
	lit_rows(f, &three_first, &three_last);
	float lh = kl_text_line_height(f->text);
	printf("one line rows %d-%d, three lines rows %d-%d, line height %.0f\n", one_first, one_last, three_first,
		   three_last, lh);
	assert_true(one_first >= 30);
	assert_int_equal(three_first, one_first);
	assert_near(three_last - one_last, 2.0f * lh, 0.5);
}

static void test_gl_state_restored(void** state)
{
	fixture* f = *state;
	glEnable(GL_DEPTH_TEST);
	glDisable(GL_BLEND);
	glBlendFunc(GL_ONE, GL_ZERO);
	glViewport(5, 6, 70, 80);
	glEnable(GL_SCISSOR_TEST);
	glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
	kl_text_begin(f->text, W, H);
	kl_text_draw(f->text, 0.0f, 0.0f, "state", 0xFFFFFF);
	kl_text_rect(f->text, 0.0f, 0.0f, 10.0f, 10.0f, 0x00FF00, 0.3f);
	kl_text_end(f->text);
	GLint program = -1, src = 0, dst = 0, viewport[4] = {0}, polygon_mode[2] = {0};
	glGetIntegerv(GL_POLYGON_MODE, polygon_mode);
	glGetIntegerv(GL_CURRENT_PROGRAM, &program);
	glGetIntegerv(GL_BLEND_SRC_RGB, &src);
	glGetIntegerv(GL_BLEND_DST_RGB, &dst);
	glGetIntegerv(GL_VIEWPORT, viewport);
	assert_true(glIsEnabled(GL_DEPTH_TEST));
	assert_false(glIsEnabled(GL_BLEND));
	assert_int_equal(program, 0);
	assert_int_equal(src, GL_ONE);
	assert_int_equal(dst, GL_ZERO);
	assert_int_equal(viewport[0], 5);
	assert_int_equal(viewport[3], 80);
	assert_true(glIsEnabled(GL_SCISSOR_TEST));
	assert_int_equal(polygon_mode[0], GL_LINE);
	assert_int_equal(glGetError(), GL_NO_ERROR);
	glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
	glDisable(GL_SCISSOR_TEST);
	glDisable(GL_DEPTH_TEST);
	glViewport(0, 0, W, H);
}

static void test_bad_font(void** state)
{
	(void)state;
	char error[256] = "";
	kl_text* t = kl_text_create("/nonexistent/font.ttf", 16, error, (int)sizeof(error));
	printf("bad path: %s\n", error);
	assert_null(t);
	assert_non_null(strstr(error, "/nonexistent/font.ttf"));
	error[0] = '\0';
	t = kl_text_create(NULL, 0, error, (int)sizeof(error));
	printf("bad size: %s\n", error);
	assert_null(t);
	assert_true(strlen(error) > 0);
	// NULL handles and strings are ignored, not crashes.
	kl_text_begin(NULL, W, H);
	assert_near(kl_text_draw(NULL, 0.0f, 0.0f, "x", 0), 0.0f, 0.0);
	kl_text_end(NULL);
	kl_text_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_inside_box), cmocka_unit_test(test_extra_symbols_and_width),
		cmocka_unit_test(test_translucent_rect), cmocka_unit_test(test_colormap_bar),
		cmocka_unit_test(test_line_advance),	 cmocka_unit_test(test_gl_state_restored),
		cmocka_unit_test(test_bad_font),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
