// Kollide render — lines and points batched per frame into streamed vertex buffers.
// SPDX-License-Identifier: MIT
#pragma once

#include <glad/gl.h>
#include <kollide/math.h>

#include <stdint.h>

typedef struct kl_line_vertex
{
	float p[3];
	uint8_t color[4];
	float size; ///< point diameter in pixels (lines: unused)
} kl_line_vertex;

typedef struct kl_vertex_batch
{
	kl_line_vertex* vertices;
	int count;
	int capacity;
	bool overflow; ///< an allocation failed; the batch keeps what it had
	GLuint vao;
	GLuint vbo;
} kl_vertex_batch;

bool kl_vertex_batch_create(kl_vertex_batch* batch);
void kl_vertex_batch_destroy(kl_vertex_batch* batch);
void kl_vertex_batch_clear(kl_vertex_batch* batch);
void kl_vertex_batch_add(kl_vertex_batch* batch, vec3s p, uint32_t color, float size);
/// Uploads and draws the batch as `mode` (GL_LINES or GL_POINTS). Returns the draw calls made (0 or 1).
int kl_vertex_batch_draw(kl_vertex_batch* batch, GLenum mode);

/// 0xRRGGBB → bytes r, g, b, 255.
static inline void kl_unpack_color(uint32_t color, uint8_t* out)
{
	out[0] = (uint8_t)(color >> 16);
	out[1] = (uint8_t)(color >> 8);
	out[2] = (uint8_t)color;
	out[3] = 255;
}
