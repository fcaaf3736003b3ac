// Kollide render — heatmaps: scalar fields on triangle meshes, coloured in the lit shader.
// SPDX-License-Identifier: MIT
#include "renderer_internal.h"

#include "colormap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vec3s kl_colormap(float t)
{
	float rgb[3];
	kl_colormap_rgb(t, rgb); // colormap.h: the same function the tools colour files with
	return kl_vec3(rgb[0], rgb[1], rgb[2]);
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

/// The part both kinds share: checks, positions and normals, indices. Returns with the VAO bound.
static kl_heatmap* create_mesh(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
							   const void* extra, const char* who)
{
	if (vertices == NULL || indices == NULL || extra == NULL || vertex_count <= 0 || triangle_count <= 0)
	{
		fprintf(stderr, "%s: empty mesh or NULL array\n", who);
		return NULL;
	}
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		if (indices[i] < 0 || indices[i] >= vertex_count)
		{
			fprintf(stderr, "%s: index %d at %d is outside [0, %d)\n", who, indices[i], i, vertex_count);
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
	glGenBuffers(1, &h->ebo);
	glBindVertexArray(h->vao);
	glBindBuffer(GL_ARRAY_BUFFER, h->vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 6 * (size_t)vertex_count), interleaved, GL_STATIC_DRAW);
	glEnableVertexAttribArray(KL_ATTR_POSITION);
	glVertexAttribPointer(KL_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), NULL);
	glEnableVertexAttribArray(KL_ATTR_NORMAL);
	glVertexAttribPointer(KL_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void*)(3 * sizeof(float)));
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, h->ebo);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(sizeof(int32_t) * (size_t)h->index_count), indices,
				 GL_STATIC_DRAW);
	free(interleaved);
	return h;
}

kl_heatmap* kl_heatmap_create(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
							  const float* values)
{
	kl_heatmap* h = create_mesh(vertices, vertex_count, indices, triangle_count, values, "kl_heatmap_create");
	if (h == NULL)
	{
		return NULL;
	}
	glGenBuffers(1, &h->value_vbo);
	upload_values(h, values);
	glBindBuffer(GL_ARRAY_BUFFER, h->value_vbo);
	glEnableVertexAttribArray(KL_ATTR_VALUE);
	glVertexAttribPointer(KL_ATTR_VALUE, 1, GL_FLOAT, GL_FALSE, sizeof(float), NULL);
	glBindVertexArray(0);
	return h;
}

kl_heatmap* kl_heatmap_create_colored(const vec3s* vertices, int vertex_count, const int32_t* indices,
									  int triangle_count, const uint8_t* rgb)
{
	kl_heatmap* h = create_mesh(vertices, vertex_count, indices, triangle_count, rgb, "kl_heatmap_create_colored");
	if (h == NULL)
	{
		return NULL;
	}
	// The colours go where the lit program reads its instance colour (a per-vertex array here; its
	// fourth component defaults to 1), and the fragment shader uses them as they are (u_heatmap 0).
	h->vertex_colors = true;
	glGenBuffers(1, &h->color_vbo);
	glBindBuffer(GL_ARRAY_BUFFER, h->color_vbo);
	glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(3 * (size_t)vertex_count), rgb, GL_STATIC_DRAW);
	glEnableVertexAttribArray(KL_ATTR_INSTANCE_COLOR);
	glVertexAttribPointer(KL_ATTR_INSTANCE_COLOR, 3, GL_UNSIGNED_BYTE, GL_TRUE, 3, NULL);
	glBindVertexArray(0);
	return h;
}

void kl_heatmap_set_values(kl_heatmap* h, const float* values)
{
	if (h != NULL && values != NULL && !h->vertex_colors)
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
	glDeleteBuffers(1, &h->color_vbo);
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
