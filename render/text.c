// Kollide render — HUD text and panels: a glyph atlas rasterised once by SDL2_ttf, strings, translucent
// rectangles and colour-map bars batched as textured quads and drawn in one call per frame.
// SPDX-License-Identifier: MIT
#include "text.h"

#include "heatmap.h"

#include <glad/gl.h>
#include <SDL_ttf.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KL_TEXT_DEFAULT_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
#define KL_TEXT_FIRST_ASCII 32
#define KL_TEXT_LAST_ASCII 126
#define KL_TEXT_ASCII_COUNT (KL_TEXT_LAST_ASCII - KL_TEXT_FIRST_ASCII + 1)
#define KL_TEXT_ATLAS_WIDTH 512
/// Empty texels around each glyph so linear filtering never bleeds a neighbour in.
#define KL_TEXT_PAD 1
/// Colour-map samples per bar; the bar interpolates linearly between them.
#define KL_TEXT_BAR_SAMPLES 33

/// Symbols the HUD uses beyond ASCII (units, multiplication, ranges, statistics).
static const uint32_t kl_text_extra_codepoints[] = {
	0x00B0, // ° degrees
	0x00B5, // µ micro
	0x00D7, // × multiplication
	0x00B7, // · middle dot
	0x2013, // – en dash
	0x00B1, // ± plus-minus
	0x00B2, // ² squared
	0x00B3, // ³ cubed
	0x0394, // Δ delta
	0x03C3, // σ sigma
	0x2248, // ≈ approximately
	0x2192, // → arrow
};
#define KL_TEXT_EXTRA_COUNT ((int)(sizeof(kl_text_extra_codepoints) / sizeof(kl_text_extra_codepoints[0])))
#define KL_TEXT_GLYPH_COUNT (KL_TEXT_ASCII_COUNT + KL_TEXT_EXTRA_COUNT)

/// One glyph: its inked box in the atlas (texels) and where that box sits relative to the pen
/// (x right, y down from the top of the line).
typedef struct kl_glyph
{
	int atlas_x, atlas_y;
	int width, height;
	int offset_x, offset_y;
	float advance;
} kl_glyph;

/// Interleaved vertex: position in pixels, atlas coordinates, colour with alpha.
typedef struct kl_text_vertex
{
	float x, y;
	float u, v;
	uint8_t rgba[4];
} kl_text_vertex;

struct kl_text
{
	kl_glyph glyphs[KL_TEXT_GLYPH_COUNT];
	/// Glyph index drawn for an unknown code point ('?').
	int fallback;
	float line_height;
	int atlas_width, atlas_height;
	/// Centre of a fully inked texel block, for untextured quads.
	float white_u, white_v;
	vec3s bar_colors[KL_TEXT_BAR_SAMPLES];

	GLuint texture;
	GLuint program;
	GLuint vao;
	GLuint vbo;
	GLint viewport_location;
	GLint atlas_location;
	size_t vbo_capacity;

	kl_text_vertex* vertices;
	int vertex_count;
	int vertex_capacity;
	int width, height;
};

static const char* kl_text_vertex_shader = "#version 330 core\n"
										   "layout(location = 0) in vec2 a_position;\n"
										   "layout(location = 1) in vec2 a_uv;\n"
										   "layout(location = 2) in vec4 a_color;\n"
										   "uniform vec2 u_viewport;\n"
										   "out vec2 v_uv;\n"
										   "out vec4 v_color;\n"
										   "void main()\n"
										   "{\n"
										   "	vec2 ndc = a_position / u_viewport * 2.0 - 1.0;\n"
										   "	gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);\n"
										   "	v_uv = a_uv;\n"
										   "	v_color = a_color;\n"
										   "}\n";

static const char* kl_text_fragment_shader = "#version 330 core\n"
											 "in vec2 v_uv;\n"
											 "in vec4 v_color;\n"
											 "uniform sampler2D u_atlas;\n"
											 "out vec4 frag_color;\n"
											 "void main()\n"
											 "{\n"
											 "	frag_color = vec4(v_color.rgb, v_color.a * texture(u_atlas, v_uv).r);\n"
											 "}\n";

static void kl_text_error(char* error, int capacity, const char* format, ...) __attribute__((format(printf, 3, 4)));

static void kl_text_error(char* error, int capacity, const char* format, ...)
{
	if (error != NULL && capacity > 0)
	{
		va_list args;
		va_start(args, format);
		vsnprintf(error, (size_t)capacity, format, args);
		va_end(args);
	}
}

static int kl_text_glyph_index(const kl_text* text, uint32_t codepoint)
{
	if (codepoint >= KL_TEXT_FIRST_ASCII && codepoint <= KL_TEXT_LAST_ASCII)
	{
		return (int)codepoint - KL_TEXT_FIRST_ASCII;
	}
	for (int i = 0; i < KL_TEXT_EXTRA_COUNT; ++i)
	{
		if (kl_text_extra_codepoints[i] == codepoint)
		{
			return KL_TEXT_ASCII_COUNT + i;
		}
	}
	return text->fallback;
}

static uint32_t kl_text_codepoint_of(int index)
{
	return index < KL_TEXT_ASCII_COUNT ? (uint32_t)(index + KL_TEXT_FIRST_ASCII)
									   : kl_text_extra_codepoints[index - KL_TEXT_ASCII_COUNT];
}

/// Alpha coverage of a rendered glyph (ARGB8888 from the Blended renderer) as one byte per texel.
static uint8_t* kl_text_glyph_alpha(TTF_Font* font, uint32_t codepoint, int* width, int* height)
{
	SDL_Color white = {255, 255, 255, 255};
	SDL_Surface* rendered = TTF_RenderGlyph32_Blended(font, codepoint, white);
	if (rendered == NULL)
	{
		return NULL;
	}
	SDL_Surface* surface = SDL_ConvertSurfaceFormat(rendered, SDL_PIXELFORMAT_RGBA32, 0);
	SDL_FreeSurface(rendered);
	if (surface == NULL)
	{
		return NULL;
	}
	*width = surface->w;
	*height = surface->h;
	uint8_t* alpha = malloc((size_t)surface->w * (size_t)surface->h + 1);
	if (alpha != NULL)
	{
		SDL_LockSurface(surface);
		for (int y = 0; y < surface->h; ++y)
		{
			const uint8_t* row = (const uint8_t*)surface->pixels + (size_t)y * (size_t)surface->pitch;
			for (int x = 0; x < surface->w; ++x)
			{
				alpha[(size_t)y * (size_t)surface->w + (size_t)x] = row[4 * x + 3];
			}
		}
		SDL_UnlockSurface(surface);
	}
	SDL_FreeSurface(surface);
	return alpha;
}

/// Shrinks a rendered cell to its inked texels; a blank cell (space) gets an empty box.
static void kl_text_ink_box(const uint8_t* alpha, int width, int height, int box[4])
{
	int x0 = width, y0 = height, x1 = -1, y1 = -1;
	for (int y = 0; y < height; ++y)
	{
		for (int x = 0; x < width; ++x)
		{
			if (alpha[(size_t)y * (size_t)width + (size_t)x] != 0)
			{
				x0 = x < x0 ? x : x0;
				x1 = x > x1 ? x : x1;
				y0 = y < y0 ? y : y0;
				y1 = y > y1 ? y : y1;
			}
		}
	}
	if (x1 < 0)
	{
		x0 = y0 = 0;
		x1 = y1 = -1;
	}
	box[0] = x0;
	box[1] = y0;
	box[2] = x1 - x0 + 1;
	box[3] = y1 - y0 + 1;
}

/// Places a width × height block on the current shelf (or a new one) of the atlas.
static bool kl_text_shelf_place(int width, int height, int* pen_x, int* pen_y, int* shelf_height, int* x, int* y)
{
	if (width + 2 * KL_TEXT_PAD > KL_TEXT_ATLAS_WIDTH)
	{
		return false;
	}
	if (*pen_x + width + KL_TEXT_PAD > KL_TEXT_ATLAS_WIDTH)
	{
		*pen_x = KL_TEXT_PAD;
		*pen_y += *shelf_height + KL_TEXT_PAD;
		*shelf_height = 0;
	}
	*x = *pen_x;
	*y = *pen_y;
	*pen_x += width + KL_TEXT_PAD;
	*shelf_height = height > *shelf_height ? height : *shelf_height;
	return true;
}

/// Rasterises every glyph, packs them into one R8 atlas (with a 2×2 white block first) and uploads it.
static bool kl_text_build_atlas(kl_text* text, TTF_Font* font, char* error, int error_capacity)
{
	uint8_t* cells[KL_TEXT_GLYPH_COUNT] = {0};
	int cell_width[KL_TEXT_GLYPH_COUNT] = {0};
	int boxes[KL_TEXT_GLYPH_COUNT][4] = {{0}};
	bool ok = true;
	int pen_x = KL_TEXT_PAD, pen_y = KL_TEXT_PAD, shelf = 0, white_x = 0, white_y = 0;
	kl_text_shelf_place(2, 2, &pen_x, &pen_y, &shelf, &white_x, &white_y);
	for (int i = 0; i < KL_TEXT_GLYPH_COUNT && ok; ++i)
	{
		uint32_t codepoint = kl_text_codepoint_of(i);
		int minx = 0, maxx = 0, miny = 0, maxy = 0, advance = 0, h = 0;
		if (TTF_GlyphMetrics32(font, codepoint, &minx, &maxx, &miny, &maxy, &advance) != 0)
		{
			advance = 0;
		}
		kl_glyph* g = &text->glyphs[i];
		g->advance = (float)advance;
		cells[i] = kl_text_glyph_alpha(font, codepoint, &cell_width[i], &h);
		if (cells[i] == NULL)
		{
			// A glyph the font lacks keeps its advance and draws nothing.
			continue;
		}
		kl_text_ink_box(cells[i], cell_width[i], h, boxes[i]);
		// SDL_ttf starts a one-glyph surface at the pen, or at the glyph's left edge when it overhangs.
		g->offset_x = (minx < 0 ? minx : 0) + boxes[i][0];
		g->offset_y = boxes[i][1];
		g->width = boxes[i][2];
		g->height = boxes[i][3];
		if (g->width > 0)
		{
			ok = kl_text_shelf_place(g->width, g->height, &pen_x, &pen_y, &shelf, &g->atlas_x, &g->atlas_y);
		}
	}
	int atlas_height = pen_y + shelf + KL_TEXT_PAD;
	GLint max_size = 0;
	glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
	uint8_t* atlas = ok && atlas_height <= max_size ? calloc((size_t)KL_TEXT_ATLAS_WIDTH * (size_t)atlas_height, 1) : NULL;
	if (atlas == NULL)
	{
		kl_text_error(error, error_capacity, "glyph atlas does not fit (font size too large?)");
		ok = false;
	}
	for (int i = 0; i < KL_TEXT_GLYPH_COUNT; ++i)
	{
		const kl_glyph* g = &text->glyphs[i];
		for (int y = 0; atlas != NULL && cells[i] != NULL && y < g->height; ++y)
		{
			const uint8_t* src = cells[i] + (size_t)(boxes[i][1] + y) * (size_t)cell_width[i] + (size_t)boxes[i][0];
			memcpy(atlas + (size_t)(g->atlas_y + y) * KL_TEXT_ATLAS_WIDTH + (size_t)g->atlas_x, src, (size_t)g->width);
		}
		free(cells[i]);
	}
	if (!ok)
	{
		free(atlas);
		return false;
	}
	for (int y = 0; y < 2; ++y)
	{
		memset(atlas + (size_t)(white_y + y) * KL_TEXT_ATLAS_WIDTH + (size_t)white_x, 255, 2);
	}
	text->atlas_width = KL_TEXT_ATLAS_WIDTH;
	text->atlas_height = atlas_height;
	text->white_u = ((float)white_x + 1.0f) / (float)KL_TEXT_ATLAS_WIDTH;
	text->white_v = ((float)white_y + 1.0f) / (float)atlas_height;

	GLint previous_texture = 0, previous_alignment = 0;
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous_texture);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &previous_alignment);
	glGenTextures(1, &text->texture);
	glBindTexture(GL_TEXTURE_2D, text->texture);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, KL_TEXT_ATLAS_WIDTH, atlas_height, 0, GL_RED, GL_UNSIGNED_BYTE, atlas);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glPixelStorei(GL_UNPACK_ALIGNMENT, previous_alignment);
	glBindTexture(GL_TEXTURE_2D, (GLuint)previous_texture);
	free(atlas);
	return true;
}

static GLuint kl_text_compile(GLenum stage, const char* source, char* error, int error_capacity)
{
	GLuint shader = glCreateShader(stage);
	glShaderSource(shader, 1, &source, NULL);
	glCompileShader(shader);
	GLint compiled = 0;
	glGetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
	if (!compiled)
	{
		char log[512] = "";
		glGetShaderInfoLog(shader, (GLsizei)sizeof(log), NULL, log);
		kl_text_error(error, error_capacity, "text shader does not compile: %s", log);
		glDeleteShader(shader);
		return 0;
	}
	return shader;
}

static bool kl_text_build_program(kl_text* text, char* error, int error_capacity)
{
	GLuint vs = kl_text_compile(GL_VERTEX_SHADER, kl_text_vertex_shader, error, error_capacity);
	GLuint fs = vs != 0 ? kl_text_compile(GL_FRAGMENT_SHADER, kl_text_fragment_shader, error, error_capacity) : 0;
	if (fs == 0)
	{
		glDeleteShader(vs);
		return false;
	}
	text->program = glCreateProgram();
	glAttachShader(text->program, vs);
	glAttachShader(text->program, fs);
	glLinkProgram(text->program);
	glDeleteShader(vs);
	glDeleteShader(fs);
	GLint linked = 0;
	glGetProgramiv(text->program, GL_LINK_STATUS, &linked);
	if (!linked)
	{
		char log[512] = "";
		glGetProgramInfoLog(text->program, (GLsizei)sizeof(log), NULL, log);
		kl_text_error(error, error_capacity, "text shader does not link: %s", log);
		return false;
	}
	text->viewport_location = glGetUniformLocation(text->program, "u_viewport");
	text->atlas_location = glGetUniformLocation(text->program, "u_atlas");
	return true;
}

static void kl_text_build_buffers(kl_text* text)
{
	GLint previous_vao = 0, previous_vbo = 0;
	glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &previous_vao);
	glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous_vbo);
	glGenVertexArrays(1, &text->vao);
	glGenBuffers(1, &text->vbo);
	glBindVertexArray(text->vao);
	glBindBuffer(GL_ARRAY_BUFFER, text->vbo);
	GLsizei stride = (GLsizei)sizeof(kl_text_vertex);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, (const void*)offsetof(kl_text_vertex, x));
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, (const void*)offsetof(kl_text_vertex, u));
	glEnableVertexAttribArray(2);
	glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (const void*)offsetof(kl_text_vertex, rgba));
	glBindVertexArray((GLuint)previous_vao);
	glBindBuffer(GL_ARRAY_BUFFER, (GLuint)previous_vbo);
}

kl_text* kl_text_create(const char* font_path, int pixel_size, char* error, int error_capacity)
{
	if (font_path == NULL)
	{
		font_path = KL_TEXT_DEFAULT_FONT;
	}
	if (pixel_size < 4 || pixel_size > 256)
	{
		kl_text_error(error, error_capacity, "font pixel size %d is outside [4, 256]", pixel_size);
		return NULL;
	}
	if (SDL_GL_GetCurrentContext() == NULL)
	{
		kl_text_error(error, error_capacity, "kl_text_create needs a current OpenGL context");
		return NULL;
	}
	if (TTF_Init() != 0)
	{
		kl_text_error(error, error_capacity, "SDL_ttf init failed: %s", TTF_GetError());
		return NULL;
	}
	TTF_Font* font = TTF_OpenFont(font_path, pixel_size);
	if (font == NULL)
	{
		kl_text_error(error, error_capacity, "cannot open font '%s': %s", font_path, TTF_GetError());
		TTF_Quit();
		return NULL;
	}
	kl_text* text = calloc(1, sizeof(kl_text));
	if (text == NULL)
	{
		kl_text_error(error, error_capacity, "out of memory for the text renderer");
		TTF_CloseFont(font);
		TTF_Quit();
		return NULL;
	}
	text->fallback = '?' - KL_TEXT_FIRST_ASCII;
	text->line_height = (float)TTF_FontLineSkip(font);
	bool ok = kl_text_build_atlas(text, font, error, error_capacity);
	TTF_CloseFont(font);
	ok = ok && kl_text_build_program(text, error, error_capacity);
	if (!ok)
	{
		kl_text_destroy(text);
		return NULL;
	}
	kl_text_build_buffers(text);
	for (int i = 0; i < KL_TEXT_BAR_SAMPLES; ++i)
	{
		text->bar_colors[i] = kl_colormap((float)i / (float)(KL_TEXT_BAR_SAMPLES - 1));
	}
	return text;
}

void kl_text_destroy(kl_text* text)
{
	if (text == NULL)
	{
		return;
	}
	glDeleteTextures(1, &text->texture);
	glDeleteProgram(text->program);
	glDeleteVertexArrays(1, &text->vao);
	glDeleteBuffers(1, &text->vbo);
	free(text->vertices);
	free(text);
	TTF_Quit();
}

void kl_text_begin(kl_text* text, int width, int height)
{
	if (text == NULL)
	{
		return;
	}
	text->width = width;
	text->height = height;
	text->vertex_count = 0;
}

float kl_text_line_height(const kl_text* text)
{
	return text != NULL ? text->line_height : 0.0f;
}

/// Room for count more vertices; false (and the quad is dropped) if memory runs out.
static bool kl_text_reserve(kl_text* text, int count)
{
	if (text->vertex_count + count <= text->vertex_capacity)
	{
		return true;
	}
	int capacity = text->vertex_capacity > 0 ? 2 * text->vertex_capacity : 1536;
	while (capacity < text->vertex_count + count)
	{
		capacity *= 2;
	}
	kl_text_vertex* grown = realloc(text->vertices, (size_t)capacity * sizeof(kl_text_vertex));
	if (grown == NULL)
	{
		return false;
	}
	text->vertices = grown;
	text->vertex_capacity = capacity;
	return true;
}

static void kl_text_color_bytes(vec3s rgb, float alpha, uint8_t out[4])
{
	float c[4] = {rgb.x, rgb.y, rgb.z, alpha};
	for (int i = 0; i < 4; ++i)
	{
		float v = c[i] >= 0.0f ? (c[i] < 1.0f ? c[i] : 1.0f) : 0.0f; // NaN → 0
		out[i] = (uint8_t)lrintf(v * 255.0f);
	}
}

static vec3s kl_text_unpack(uint32_t color)
{
	return (vec3s){{(float)((color >> 16) & 0xFF) / 255.0f, (float)((color >> 8) & 0xFF) / 255.0f,
					(float)(color & 0xFF) / 255.0f}};
}

/// Appends an axis-aligned quad as two triangles; left and right edges may differ in colour (bars).
static void kl_text_quad(kl_text* text, const float box[4], const float uv[4], const uint8_t left[4],
						 const uint8_t right[4])
{
	if (!kl_text_reserve(text, 6))
	{
		return;
	}
	float x0 = box[0], y0 = box[1], x1 = box[0] + box[2], y1 = box[1] + box[3];
	const kl_text_vertex corners[4] = {
		{x0, y0, uv[0], uv[1], {left[0], left[1], left[2], left[3]}},
		{x1, y0, uv[2], uv[1], {right[0], right[1], right[2], right[3]}},
		{x1, y1, uv[2], uv[3], {right[0], right[1], right[2], right[3]}},
		{x0, y1, uv[0], uv[3], {left[0], left[1], left[2], left[3]}},
	};
	static const int order[6] = {0, 1, 2, 0, 2, 3};
	for (int i = 0; i < 6; ++i)
	{
		text->vertices[text->vertex_count++] = corners[order[i]];
	}
}

/// Decodes one UTF-8 code point and advances *s; malformed bytes decode as U+FFFD (drawn as '?').
static uint32_t kl_text_next_codepoint(const char** s)
{
	const uint8_t* p = (const uint8_t*)*s;
	uint32_t c = p[0];
	int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
	if (extra < 0)
	{
		*s += 1;
		return 0xFFFD;
	}
	c = extra == 0 ? c : c & (0x3Fu >> extra);
	for (int i = 1; i <= extra; ++i)
	{
		if ((p[i] & 0xC0) != 0x80)
		{
			*s += i;
			return 0xFFFD;
		}
		c = (c << 6) | (p[i] & 0x3F);
	}
	*s += extra + 1;
	return c;
}

float kl_text_draw(kl_text* text, float x, float y, const char* string, uint32_t color)
{
	if (text == NULL || string == NULL)
	{
		return 0.0f;
	}
	uint8_t rgba[4];
	kl_text_color_bytes(kl_text_unpack(color), 1.0f, rgba);
	// Whole-pixel pens keep glyph texels on pixel centres, so text stays crisp.
	float pen_x = floorf(x + 0.5f), line_y = floorf(y + 0.5f), widest = 0.0f;
	float inv_w = 1.0f / (float)text->atlas_width, inv_h = 1.0f / (float)text->atlas_height;
	const char* s = string;
	while (*s != '\0')
	{
		uint32_t c = kl_text_next_codepoint(&s);
		if (c == '\n')
		{
			widest = fmaxf(widest, pen_x - floorf(x + 0.5f));
			pen_x = floorf(x + 0.5f);
			line_y += text->line_height;
			continue;
		}
		int repeat = c == '\t' ? 4 : 1;
		const kl_glyph* g = &text->glyphs[kl_text_glyph_index(text, c == '\t' ? ' ' : c)];
		if (g->width > 0)
		{
			float box[4] = {pen_x + (float)g->offset_x, line_y + (float)g->offset_y, (float)g->width, (float)g->height};
			float uv[4] = {(float)g->atlas_x * inv_w, (float)g->atlas_y * inv_h, (float)(g->atlas_x + g->width) * inv_w,
						   (float)(g->atlas_y + g->height) * inv_h};
			kl_text_quad(text, box, uv, rgba, rgba);
		}
		pen_x += (float)repeat * g->advance;
	}
	return fmaxf(widest, pen_x - floorf(x + 0.5f));
}

void kl_text_rect(kl_text* text, float x, float y, float w, float h, uint32_t color, float alpha)
{
	if (text == NULL || !(w > 0.0f) || !(h > 0.0f))
	{
		return;
	}
	uint8_t rgba[4];
	kl_text_color_bytes(kl_text_unpack(color), alpha, rgba);
	float box[4] = {x, y, w, h};
	float uv[4] = {text->white_u, text->white_v, text->white_u, text->white_v};
	kl_text_quad(text, box, uv, rgba, rgba);
}

void kl_text_colormap_bar(kl_text* text, float x, float y, float w, float h)
{
	if (text == NULL || !(w > 0.0f) || !(h > 0.0f))
	{
		return;
	}
	float uv[4] = {text->white_u, text->white_v, text->white_u, text->white_v};
	float step = w / (float)(KL_TEXT_BAR_SAMPLES - 1);
	for (int i = 0; i + 1 < KL_TEXT_BAR_SAMPLES; ++i)
	{
		uint8_t left[4], right[4];
		kl_text_color_bytes(text->bar_colors[i], 1.0f, left);
		kl_text_color_bytes(text->bar_colors[i + 1], 1.0f, right);
		float box[4] = {x + (float)i * step, y, step, h};
		kl_text_quad(text, box, uv, left, right);
	}
}

/// The state kl_text_end changes, saved so the 3D renderer finds it as it left it.
typedef struct kl_text_gl_state
{
	GLboolean blend, depth_test, cull_face, scissor_test;
	GLint polygon_mode[2];
	GLint blend_src_rgb, blend_dst_rgb, blend_src_alpha, blend_dst_alpha, blend_eq_rgb, blend_eq_alpha;
	GLint program, vao, vbo, active_texture, texture;
	GLint viewport[4];
} kl_text_gl_state;

static void kl_text_save_state(kl_text_gl_state* s)
{
	s->blend = glIsEnabled(GL_BLEND);
	s->depth_test = glIsEnabled(GL_DEPTH_TEST);
	s->cull_face = glIsEnabled(GL_CULL_FACE);
	s->scissor_test = glIsEnabled(GL_SCISSOR_TEST);
	glGetIntegerv(GL_POLYGON_MODE, s->polygon_mode);
	glGetIntegerv(GL_BLEND_SRC_RGB, &s->blend_src_rgb);
	glGetIntegerv(GL_BLEND_DST_RGB, &s->blend_dst_rgb);
	glGetIntegerv(GL_BLEND_SRC_ALPHA, &s->blend_src_alpha);
	glGetIntegerv(GL_BLEND_DST_ALPHA, &s->blend_dst_alpha);
	glGetIntegerv(GL_BLEND_EQUATION_RGB, &s->blend_eq_rgb);
	glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &s->blend_eq_alpha);
	glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
	glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vao);
	glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &s->vbo);
	glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active_texture);
	glActiveTexture(GL_TEXTURE0);
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->texture);
	glGetIntegerv(GL_VIEWPORT, s->viewport);
}

static void kl_text_enable(GLenum cap, GLboolean on)
{
	if (on)
	{
		glEnable(cap);
	}
	else
	{
		glDisable(cap);
	}
}

static void kl_text_restore_state(const kl_text_gl_state* s)
{
	kl_text_enable(GL_BLEND, s->blend);
	kl_text_enable(GL_DEPTH_TEST, s->depth_test);
	kl_text_enable(GL_CULL_FACE, s->cull_face);
	kl_text_enable(GL_SCISSOR_TEST, s->scissor_test);
	glPolygonMode(GL_FRONT_AND_BACK, (GLenum)s->polygon_mode[0]);
	glBlendFuncSeparate((GLenum)s->blend_src_rgb, (GLenum)s->blend_dst_rgb, (GLenum)s->blend_src_alpha,
						(GLenum)s->blend_dst_alpha);
	glBlendEquationSeparate((GLenum)s->blend_eq_rgb, (GLenum)s->blend_eq_alpha);
	glUseProgram((GLuint)s->program);
	glBindVertexArray((GLuint)s->vao);
	glBindBuffer(GL_ARRAY_BUFFER, (GLuint)s->vbo);
	glBindTexture(GL_TEXTURE_2D, (GLuint)s->texture);
	glActiveTexture((GLenum)s->active_texture);
	glViewport(s->viewport[0], s->viewport[1], s->viewport[2], s->viewport[3]);
}

void kl_text_end(kl_text* text)
{
	if (text == NULL || text->vertex_count == 0 || text->width <= 0 || text->height <= 0)
	{
		return;
	}
	kl_text_gl_state saved;
	kl_text_save_state(&saved);
	glEnable(GL_BLEND);
	glBlendEquation(GL_FUNC_ADD);
	glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
	glDisable(GL_DEPTH_TEST);
	glDisable(GL_CULL_FACE);
	glDisable(GL_SCISSOR_TEST);
	glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
	glViewport(0, 0, text->width, text->height);
	glUseProgram(text->program);
	glUniform2f(text->viewport_location, (float)text->width, (float)text->height);
	glUniform1i(text->atlas_location, 0);
	glBindTexture(GL_TEXTURE_2D, text->texture);
	glBindVertexArray(text->vao);
	glBindBuffer(GL_ARRAY_BUFFER, text->vbo);
	size_t bytes = (size_t)text->vertex_count * sizeof(kl_text_vertex);
	if (bytes > text->vbo_capacity)
	{
		glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)bytes, text->vertices, GL_STREAM_DRAW);
		text->vbo_capacity = bytes;
	}
	else
	{
		glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, text->vertices);
	}
	glDrawArrays(GL_TRIANGLES, 0, text->vertex_count);
	kl_text_restore_state(&saved);
	text->vertex_count = 0;
}
