// Kollide viewer — --ply: coloured PLY meshes shown statically (see ply_view.h). Each triangle gets
// its own three vertices, so that faces are shaded flat (the heatmaps are of CAD-like meshes whose
// sharp edges smooth normals would blur) while the colours still blend across each face.
// SPDX-License-Identifier: MIT
#include "ply_view.h"

#include "app.h"

#include <kollide/ply.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t kl_ply_grey[3] = {170, 170, 170}; ///< files with neither colours nor values

/// The file name without its directories.
static const char* base_name(const char* path)
{
	const char* slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

/// The "value=… stat=…" words of the comments (kollide-collide's range comment), or "".
static void comment_words(const char* comments, char* out, size_t size)
{
	out[0] = '\0';
	const char* words[3] = {"value=", "stat=", "iqr="};
	for (int k = 0; k < 3 && comments != NULL; ++k)
	{
		const char* at = strstr(comments, words[k]);
		if (at != NULL && (at == comments || at[-1] == ' ' || at[-1] == '\n'))
		{
			size_t n = strcspn(at, " \n");
			size_t used = strlen(out);
			snprintf(out + used, size - used, "%s%.*s", used > 0 ? " " : "", (int)n, at);
		}
	}
}

/// The colours of every corner of the triangle soup: the file's, the colour map of its values, or grey.
static void corner_colour(const kl_ply_mesh* m, const kl_viewer_ply* p, int vertex, uint8_t out[3])
{
	if (m->colors != NULL)
	{
		memcpy(out, m->colors + 3 * vertex, 3);
		return;
	}
	if (m->values == NULL)
	{
		memcpy(out, kl_ply_grey, 3);
		return;
	}
	vec3s c = kl_colormap(p->hi > p->lo ? (m->values[vertex] - p->lo) / (p->hi - p->lo) : 0.5f);
	out[0] = (uint8_t)lrintf(255.0f * c.x), out[1] = (uint8_t)lrintf(255.0f * c.y), out[2] = (uint8_t)lrintf(255.0f * c.z);
}

/// The legend's range: the comment's, else the values' own.
static void value_range(const kl_ply_mesh* m, kl_viewer_ply* p)
{
	p->has_range = m->has_range;
	p->lo = m->range_min;
	p->hi = m->range_max;
	if (!m->has_range && m->values != NULL)
	{
		p->lo = FLT_MAX, p->hi = -FLT_MAX;
		for (int i = 0; i < m->mesh.vertex_count; ++i)
		{
			p->lo = fminf(p->lo, m->values[i]);
			p->hi = fmaxf(p->hi, m->values[i]);
		}
		p->has_range = true;
	}
}

/// Uploads the mesh as a triangle soup (flat faces) with per-corner colours, centred on its own AABB.
static bool upload(const kl_ply_mesh* m, kl_viewer_ply* p, vec3s centre)
{
	int corners = 3 * m->mesh.triangle_count;
	vec3s* positions = malloc(sizeof(vec3s) * (size_t)corners);
	uint8_t* colours = malloc(3 * (size_t)corners);
	int32_t* indices = malloc(sizeof(int32_t) * (size_t)corners);
	bool ok = positions != NULL && colours != NULL && indices != NULL;
	for (int i = 0; ok && i < corners; ++i)
	{
		int v = m->mesh.indices[i];
		positions[i] = glms_vec3_sub(m->mesh.vertices[v], centre);
		corner_colour(m, p, v, colours + 3 * i);
		indices[i] = i;
	}
	p->heatmap = ok ? kl_heatmap_create_colored(positions, corners, indices, m->mesh.triangle_count, colours) : NULL;
	free(positions);
	free(colours);
	free(indices);
	return p->heatmap != NULL;
}

/// Loads one file and places it to the right of the previous one as the default camera sees them
/// (towards −x: the camera looks mostly along −y), resting on z = 0.
static bool load_one(kl_viewer_app* app, const char* path, char* error, int capacity)
{
	kl_ply_mesh m;
	if (kl_ply_load(path, &m) != KL_OK)
	{
		snprintf(error, (size_t)capacity, "cannot load '%s': %s", path, kl_last_error());
		return false;
	}
	kl_viewer_ply* p = app->plies + app->ply_count;
	memset(p, 0, sizeof(*p));
	vec3s lower = kl_vec3(FLT_MAX, FLT_MAX, FLT_MAX), upper = kl_vec3(-FLT_MAX, -FLT_MAX, -FLT_MAX);
	for (int i = 0; i < m.mesh.vertex_count; ++i)
	{
		lower = glms_vec3_minv(lower, m.mesh.vertices[i]);
		upper = glms_vec3_maxv(upper, m.mesh.vertices[i]);
	}
	vec3s centre = glms_vec3_scale(glms_vec3_add(lower, upper), 0.5f);
	vec3s half = glms_vec3_scale(glms_vec3_sub(upper, lower), 0.5f);
	value_range(&m, p);
	comment_words(m.comments, p->words, sizeof(p->words));
	snprintf(p->name, sizeof(p->name), "%s", base_name(path));
	bool ok = upload(&m, p, centre);
	kl_ply_free(&m);
	if (!ok)
	{
		snprintf(error, (size_t)capacity, "cannot upload '%s' to the GPU", path);
		return false;
	}
	float gap = 0.25f * fmaxf(fmaxf(half.x, half.y), half.z) * 2.0f;
	float x = app->ply_count == 0 ? 0.0f : app->plies[app->ply_count - 1].lower.x - gap - half.x;
	p->xf = kl_transform_identity();
	// A hair above the ground grid, so that a flat mesh does not fight it for depth.
	p->xf.p = kl_vec3(x, 0.0f, half.z + 0.01f * fmaxf(fmaxf(half.x, half.y), half.z));
	p->lower = glms_vec3_sub(p->xf.p, half);
	p->upper = glms_vec3_add(p->xf.p, half);
	app->ply_count += 1;
	return true;
}

bool kl_viewer_ply_load(kl_viewer_app* app, char* error, int error_capacity)
{
	for (int i = 0; i < app->options.ply_count; ++i)
	{
		if (!load_one(app, app->options.ply_files[i], error, error_capacity))
		{
			return false;
		}
	}
	return true;
}

void kl_viewer_ply_free(kl_viewer_app* app)
{
	for (int i = 0; i < app->ply_count; ++i)
	{
		kl_heatmap_destroy(app->plies[i].heatmap);
	}
	app->ply_count = 0;
}

bool kl_viewer_ply_bounds(const kl_viewer_app* app, kl_aabb* out)
{
	for (int i = 0; i < app->ply_count; ++i)
	{
		out->lower = i == 0 ? app->plies[i].lower : glms_vec3_minv(out->lower, app->plies[i].lower);
		out->upper = i == 0 ? app->plies[i].upper : glms_vec3_maxv(out->upper, app->plies[i].upper);
	}
	return app->ply_count > 0;
}

void kl_viewer_ply_draw(kl_viewer_app* app)
{
	for (int i = 0; i < app->ply_count; ++i)
	{
		kl_renderer_draw_heatmap(app->renderer, app->plies[i].heatmap, app->plies[i].xf, 0.0f, 1.0f);
	}
}

/// Whether file i's legend repeats that of an earlier file (same words and range): then one row
/// names both.
static bool same_legend(const kl_viewer_ply* a, const kl_viewer_ply* b)
{
	return a->has_range && b->has_range && a->lo == b->lo && a->hi == b->hi && strcmp(a->words, b->words) == 0;
}

void kl_viewer_ply_legend(kl_viewer_app* app)
{
	const float margin = 10.0f, pad = 8.0f, bar_w = 220.0f, bar_h = 14.0f;
	const float char_w = 0.62f * (float)KL_VIEWER_FONT_PIXELS; // DejaVu Sans Mono advance, as in hud.c
	float lh = kl_text_line_height(app->text);
	float row_h = 2.0f * lh + bar_h + 2.0f * pad;
	float y = (float)app->height - margin;
	for (int i = app->ply_count - 1; i >= 0; --i)
	{
		const kl_viewer_ply* p = app->plies + i;
		bool repeated = false;
		for (int j = 0; j < i; ++j)
		{
			repeated = repeated || same_legend(app->plies + j, p);
		}
		if (!p->has_range || repeated)
		{
			continue;
		}
		char label[200] = "";
		for (int j = i; j < app->ply_count; ++j)
		{
			if (j == i || same_legend(app->plies + j, p))
			{
				size_t used = strlen(label);
				snprintf(label + used, sizeof(label) - used, "%s%s", used > 0 ? " + " : "", app->plies[j].name);
			}
		}
		size_t used = strlen(label);
		snprintf(label + used, sizeof(label) - used, "%s%s", p->words[0] != '\0' ? "  " : "", p->words);
		// At most the window's width: the label is cut to fit, the bar and its numbers stay whole.
		float w = fminf(fmaxf(bar_w, char_w * (float)strlen(label)) + 2.0f * pad, (float)app->width - 2.0f * margin);
		size_t fit = (size_t)fmaxf((w - 2.0f * pad) / char_w, 0.0f);
		label[fit < sizeof(label) ? fit : sizeof(label) - 1] = '\0';
		float x = (float)app->width - w - margin;
		y -= row_h;
		kl_text_rect(app->text, x, y, w, row_h, 0x101418, 0.72f);
		kl_text_draw(app->text, x + pad, y + pad, label, 0xf0f0f0);
		kl_text_colormap_bar(app->text, x + pad, y + pad + lh, bar_w, bar_h);
		char lo[32], hi[32];
		snprintf(lo, sizeof(lo), "%.4g", (double)p->lo);
		snprintf(hi, sizeof(hi), "%.4g", (double)p->hi);
		kl_text_draw(app->text, x + pad, y + pad + lh + bar_h, lo, 0xf0f0f0);
		kl_text_draw(app->text, x + pad + bar_w - char_w * (float)strlen(hi), y + pad + lh + bar_h, hi, 0xf0f0f0);
		y -= 4.0f;
	}
}
