// Kollide render — heatmaps: scalar fields on triangle meshes, coloured in the lit shader.
// SPDX-License-Identifier: MIT
#include "renderer_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Control points of the colour map, sRGB, evenly spaced in t. Chosen for this project (not taken
/// from any published table): dark blue through teal and green to yellow, each point brighter than
/// the one before, so that piecewise-linear blending keeps luminance increasing all the way.
/// The shader (shaders.c) carries the same points.
static const float kl_colormap_points[5][3] = {
	{0.169f, 0.071f, 0.365f}, {0.157f, 0.290f, 0.561f}, {0.094f, 0.522f, 0.514f},
	{0.416f, 0.737f, 0.306f}, {0.988f, 0.894f, 0.145f},
};

vec3s kl_colormap(float t)
{
	if (!(t > 0.0f))
	{
		t = 0.0f; // NaN included
	}
	float s = fminf(t, 1.0f) * 4.0f;
	int i = s >= 4.0f ? 3 : (int)s;
	float f = s - (float)i;
	const float* a = kl_colormap_points[i];
	const float* b = kl_colormap_points[i + 1];
	return kl_vec3(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f);
}

static void upload_values(const kl_heatmap* h, const float* values)
{
	float* clean = malloc(sizeof(float) * (size_t)h->vertex_count);
	if (clean == NULL)
	{
		return;
	}
	for (int i = 0; i < h->vertex_count; ++i)
	{
		clean[i] = isfinite(values[i]) ? values[i] : 0.0f;
	}
	glBindBuffer(GL_ARRAY_BUFFER, h->value_vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * (size_t)h->vertex_count), clean, GL_DYNAMIC_DRAW);
	free(clean);
}

/// Positions and area-weighted smooth normals, interleaved.
static float* smooth_vertices(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count)
{
	float* out = calloc((size_t)vertex_count * 6, sizeof(float));
	if (out == NULL)
	{
		return NULL;
	}
	for (int t = 0; t < triangle_count; ++t)
	{
		const int32_t* tri = indices + 3 * t;
		vec3s n = glms_vec3_cross(glms_vec3_sub(vertices[tri[1]], vertices[tri[0]]),
								  glms_vec3_sub(vertices[tri[2]], vertices[tri[0]]));
		for (int k = 0; k < 3; ++k)
		{
			float* v = out + 6 * tri[k];
			v[3] += n.x, v[4] += n.y, v[5] += n.z;
		}
	}
	for (int i = 0; i < vertex_count; ++i)
	{
		float* v = out + 6 * i;
		v[0] = vertices[i].x, v[1] = vertices[i].y, v[2] = vertices[i].z;
		float len = sqrtf(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
		float inv = len > 0.0f ? 1.0f / len : 0.0f;
		v[3] *= inv, v[4] *= inv, v[5] *= inv;
	}
	return out;
}

kl_heatmap* kl_heatmap_create(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
							  const float* values)
{
	if (vertices == NULL || indices == NULL || values == NULL || vertex_count <= 0 || triangle_count <= 0)
	{
		fprintf(stderr, "kl_heatmap_create: empty mesh or NULL array\n");
		return NULL;
	}
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		if (indices[i] < 0 || indices[i] >= vertex_count)
		{
			fprintf(stderr, "kl_heatmap_create: index %d at %d is outside [0, %d)\n", indices[i], i, vertex_count);
			return NULL;
		}
	}
	kl_heatmap* h = calloc(1, sizeof(kl_heatmap));
	float* interleaved = smooth_vertices(vertices, vertex_count, indices, triangle_count);
	if (h == NULL || interleaved == NULL)
	{
		free(h);
		free(interleaved);
		return NULL;
	}
	h->vertex_count = vertex_count;
	h->index_count = 3 * triangle_count;
	for (int i = 0; i < vertex_count; ++i)
	{
		h->radius = fmaxf(h->radius, glms_vec3_norm(vertices[i]));
	}
	glGenVertexArrays(1, &h->vao);
	glGenBuffers(1, &h->vbo);
	glGenBuffers(1, &h->value_vbo);
	glGenBuffers(1, &h->ebo);
	glBindVertexArray(h->vao);
	glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 6 * (size_t)vertex_count), interleaved, GL_STATIC_DRAW);
	glEnableVertexAttribArray(KL_ATTR_POSITION);
	glVertexAttribPointer(KL_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), NULL);
	glEnableVertexAttribArray(KL_ATTR_NORMAL);
	glVertexAttribPointer(KL_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void*)(3 * sizeof(float)));
	upload_values(h, values);
	glBindBuffer(GL_ARRAY_BUFFER, h->value_vbo);
	glEnableVertexAttribArray(KL_ATTR_VALUE);
	glVertexAttribPointer(KL_ATTR_VALUE, 1, GL_FLOAT, GL_FALSE, sizeof(float), NULL);
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, h->ebo);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(int32_t) * (size_t)h->index_count), indices,
				 GL_STATIC_DRAW);
	glBindVertexArray(0);
	free(interleaved);
	return h;
}

void kl_heatmap_set_values(kl_heatmap* h, const float* values)
{
	if (h != NULL && values != NULL)
	{
		upload_values(h, values);
	}
}

void kl_heatmap_destroy(kl_heatmap* h)
{
	if (h == NULL)
	{
		return;
	}
	glDeleteVertexArrays(1, &h->vao);
	glDeleteBuffers(1, &h->vbo);
	glDeleteBuffers(1, &h->value_vbo);
	glDeleteBuffers(1, &h->ebo);
	free(h);
}

void kl_renderer_draw_heatmap(kl_renderer* r, const kl_heatmap* heatmap, kl_transform xf, float lo, float hi)
{
	if (heatmap == NULL ||
		!kl_render_reserve((void**)&r->heatmaps, &r->heatmap_capacity, r->heatmap_count + 1, sizeof(kl_heatmap_draw)))
	{
		return;
	}
	kl_heatmap_draw* d = r->heatmaps + r->heatmap_count++;
	d->heatmap = heatmap;
	d->xf = xf;
	d->lo = lo;
	d->hi = hi;
	kl_render_grow_casters(r, xf.p, heatmap->radius);
}
