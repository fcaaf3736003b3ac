// Kollide render — streamed line and point batches.
// SPDX-License-Identifier: MIT
#include "debug_batch.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

bool kl_vertex_batch_create(kl_vertex_batch* b)
{
	memset(b, 0, sizeof(*b));
	glGenVertexArrays(1, &b->vao);
	glGenBuffers(1, &b->vbo);
	glBindVertexArray(b->vao);
	glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
	GLsizei stride = sizeof(kl_line_vertex);
	glEnableVertexAttribArray(0);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, (const void*)offsetof(kl_line_vertex, p));
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (const void*)offsetof(kl_line_vertex, color));
	glEnableVertexAttribArray(2);
	glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, stride, (const void*)offsetof(kl_line_vertex, size));
	glBindVertexArray(0);
	return b->vao != 0 && b->vbo != 0;
}

void kl_vertex_batch_destroy(kl_vertex_batch* b)
{
	if (b->vao != 0)
	{
		glDeleteVertexArrays(1, &b->vao);
		glDeleteBuffers(1, &b->vbo);
	}
	free(b->vertices);
	memset(b, 0, sizeof(*b));
}

void kl_vertex_batch_clear(kl_vertex_batch* b)
{
	b->count = 0;
	b->overflow = false;
}

void kl_vertex_batch_add(kl_vertex_batch* b, vec3s p, uint32_t color, float size)
{
	if (b->overflow)
	{
		return; // keeps segments whole: a dropped vertex would pair the rest up wrongly
	}
	if (b->count == b->capacity)
	{
		int capacity = b->capacity > 0 ? 2 * b->capacity : 1024;
		kl_line_vertex* v = realloc(b->vertices, sizeof(kl_line_vertex) * (size_t)capacity);
		if (v == NULL)
		{
			b->overflow = true;
			return;
		}
		b->vertices = v;
		b->capacity = capacity;
	}
	kl_line_vertex* v = b->vertices + b->count++;
	v->p[0] = p.x;
	v->p[1] = p.y;
	v->p[2] = p.z;
	kl_unpack_color(color, v->color);
	v->size = size;
}

int kl_vertex_batch_draw(kl_vertex_batch* b, GLenum mode)
{
	int count = mode == GL_LINES ? b->count & ~1 : b->count;
	if (count == 0)
	{
		return 0;
	}
	glBindVertexArray(b->vao);
	glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
	// Orphan the old storage so the driver need not wait for last frame's draw.
	GLsizeiptr bytes = (GLsizeiptr)(sizeof(kl_line_vertex) * (size_t)count);
	glBufferData(GL_ARRAY_BUFFER, bytes, NULL, GL_STREAM_DRAW);
	glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, b->vertices);
	glDrawArrays(mode, 0, count);
	return 1;
}
