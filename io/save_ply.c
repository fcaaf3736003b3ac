// Kollide — PLY writer (ASCII): positions, optional colours, "value" and "count" per vertex, and
// triangles. Numbers are written with '.' whatever the locale, and floats with 9 significant digits
// so that reading the file back gives the same floats.
// SPDX-License-Identifier: MIT
#include "core.h"

#include <kollide/ply.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/// "%.9g" with '.' as the decimal point.
static void format_float(char* buffer, size_t size, float v)
{
	snprintf(buffer, size, "%.9g", (double)v);
	const char* point = localeconv()->decimal_point;
	if (point != NULL && point[0] != '\0' && point[0] != '.' && point[1] == '\0')
	{
		for (char* c = buffer; *c != '\0'; ++c)
		{
			*c = *c == point[0] ? '.' : *c;
		}
	}
}

static kl_result check_mesh(const kl_ply_mesh* m)
{
	const kl_mesh_data* d = &m->mesh;
	if (d->vertices == NULL || d->indices == NULL || d->vertex_count <= 0 || d->triangle_count <= 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY save: the mesh has no vertices or no triangles");
	}
	for (int i = 0; i < d->vertex_count; ++i)
	{
		if (!kl_vec3_is_finite(d->vertices[i]) || (m->values != NULL && !isfinite(m->values[i])))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY save: vertex %d has a NaN or infinite number", i);
		}
	}
	for (int i = 0; i < 3 * d->triangle_count; ++i)
	{
		if (d->indices[i] < 0 || d->indices[i] >= d->vertex_count)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY save: index %d at %d is outside [0, %d)", d->indices[i], i,
						   d->vertex_count);
		}
	}
	return KL_OK;
}

static void write_header(FILE* f, const kl_ply_mesh* m)
{
	fprintf(f, "ply\nformat ascii 1.0\n");
	for (const char* line = m->comments; line != NULL && *line != '\0';)
	{
		const char* end = strchr(line, '\n');
		size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
		fprintf(f, "comment %.*s\n", (int)n, line);
		line = end != NULL ? end + 1 : NULL;
	}
	fprintf(f, "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n", m->mesh.vertex_count);
	if (m->colors != NULL)
	{
		fprintf(f, "property uchar red\nproperty uchar green\nproperty uchar blue\n");
	}
	if (m->values != NULL)
	{
		fprintf(f, "property float value\n");
	}
	if (m->counts != NULL)
	{
		fprintf(f, "property int count\n");
	}
	fprintf(f, "element face %d\nproperty list uchar int vertex_indices\nend_header\n", m->mesh.triangle_count);
}

static void write_vertex(FILE* f, const kl_ply_mesh* m, int i)
{
	char x[32], y[32], z[32];
	vec3s p = m->mesh.vertices[i];
	format_float(x, sizeof(x), p.x);
	format_float(y, sizeof(y), p.y);
	format_float(z, sizeof(z), p.z);
	fprintf(f, "%s %s %s", x, y, z);
	if (m->colors != NULL)
	{
		fprintf(f, " %u %u %u", m->colors[3 * i], m->colors[3 * i + 1], m->colors[3 * i + 2]);
	}
	if (m->values != NULL)
	{
		char v[32];
		format_float(v, sizeof(v), m->values[i]);
		fprintf(f, " %s", v);
	}
	if (m->counts != NULL)
	{
		fprintf(f, " %d", (int)m->counts[i]);
	}
	fputc('\n', f);
}

kl_result kl_ply_save(const char* path, const kl_ply_mesh* mesh)
{
	if (path == NULL || mesh == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY save: path or mesh is NULL");
	}
	if (mesh->comments != NULL && strchr(mesh->comments, '\r') != NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY save: a comment holds a carriage return");
	}
	kl_result r = check_mesh(mesh);
	if (r != KL_OK)
	{
		return r;
	}
	FILE* f = fopen(path, "wb");
	if (f == NULL)
	{
		return kl_fail(KL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	}
	write_header(f, mesh);
	for (int i = 0; i < mesh->mesh.vertex_count; ++i)
	{
		write_vertex(f, mesh, i);
	}
	for (int t = 0; t < mesh->mesh.triangle_count; ++t)
	{
		const int32_t* tri = mesh->mesh.indices + 3 * t;
		fprintf(f, "3 %d %d %d\n", tri[0], tri[1], tri[2]);
	}
	bool failed = ferror(f) != 0;
	failed = fclose(f) != 0 || failed;
	return failed ? kl_fail(KL_ERR_IO, "cannot write '%s' (disk full?)", path) : KL_OK;
}
