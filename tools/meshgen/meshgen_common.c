// Kollide — meshgen shared parts: errors, the mesh builder, column zipping, the thread profile, files.
// SPDX-License-Identifier: MIT
#include "meshgen_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char s_error[512];

kl_result mg_fail(kl_result code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	int n = snprintf(s_error, sizeof(s_error), "meshgen: ");
	vsnprintf(s_error + n, sizeof(s_error) - (size_t)n, format, args);
	va_end(args);
	return code;
}

void mg_clear_error(void)
{
	s_error[0] = '\0';
}

const char* kl_meshgen_last_error(void)
{
	return s_error;
}

void kl_meshgen_free(kl_meshgen_mesh* mesh)
{
	if (mesh == NULL)
	{
		return;
	}
	free(mesh->vertices);
	free(mesh->indices);
	memset(mesh, 0, sizeof(*mesh));
}

bool mg_check_float(const char* what, float value, double lo, double hi)
{
	if (isfinite(value) && value >= lo && value <= hi)
	{
		return true;
	}
	mg_fail(KL_ERR_INVALID_ARGUMENT, "%s %g must be finite and in [%g, %g]", what, (double)value, lo, hi);
	return false;
}

bool mg_check_int(const char* what, int value, int lo, int hi)
{
	if (value >= lo && value <= hi)
	{
		return true;
	}
	mg_fail(KL_ERR_INVALID_ARGUMENT, "%s %d must be in [%d, %d]", what, value, lo, hi);
	return false;
}

// ---------------------------------------------------------------------------------------------
// Builder

void mg_builder_init(mg_builder* b, int vertex_capacity, int triangle_capacity)
{
	memset(b, 0, sizeof(*b));
	b->vertex_capacity = vertex_capacity > 0 ? vertex_capacity : 1;
	b->triangle_capacity = triangle_capacity > 0 ? triangle_capacity : 1;
	b->vertices = malloc((size_t)b->vertex_capacity * sizeof(vec3s));
	b->indices = malloc((size_t)b->triangle_capacity * 3 * sizeof(int32_t));
	b->failed = b->vertices == NULL || b->indices == NULL;
}

// Doubles an array's capacity; false (and `failed` latched) when that is impossible.
static bool grow(mg_builder* b, void** array, int* capacity, size_t item_size)
{
	if (*capacity > INT32_MAX / 2)
	{
		b->failed = true;
		return false;
	}
	void* bigger = realloc(*array, (size_t)(*capacity) * 2 * item_size);
	if (bigger == NULL)
	{
		b->failed = true;
		return false;
	}
	*array = bigger;
	*capacity *= 2;
	return true;
}

int mg_vertex(mg_builder* b, double x, double y, double z)
{
	if (b->failed)
	{
		return 0;
	}
	if (b->vertex_count == b->vertex_capacity &&
		!grow(b, (void**)&b->vertices, &b->vertex_capacity, sizeof(vec3s)))
	{
		return 0;
	}
	b->vertices[b->vertex_count] = (vec3s){{(float)x, (float)y, (float)z}};
	return b->vertex_count++;
}

void mg_triangle(mg_builder* b, int a, int c, int d)
{
	if (b->failed)
	{
		return;
	}
	if (b->triangle_count == b->triangle_capacity &&
		!grow(b, (void**)&b->indices, &b->triangle_capacity, 3 * sizeof(int32_t)))
	{
		return;
	}
	int32_t* t = b->indices + 3 * (size_t)b->triangle_count;
	t[0] = a;
	t[1] = c;
	t[2] = d;
	b->triangle_count += 1;
}

static void sub(const vec3s* v, int i, int j, double out[3])
{
	for (int k = 0; k < 3; ++k)
	{
		out[k] = (double)v[i].raw[k] - (double)v[j].raw[k];
	}
}

static void cross(const double u[3], const double w[3], double out[3])
{
	out[0] = u[1] * w[2] - u[2] * w[1];
	out[1] = u[2] * w[0] - u[0] * w[2];
	out[2] = u[0] * w[1] - u[1] * w[0];
}

// Normal of triangle (a, c, d) projected on n.
static double facing(const vec3s* v, int a, int c, int d, const double n[3])
{
	double e0[3], e1[3], t[3];
	sub(v, c, a, e0);
	sub(v, d, a, e1);
	cross(e0, e1, t);
	return t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
}

void mg_quad(mg_builder* b, int a, int c, int d, int e)
{
	if (b->failed)
	{
		return;
	}
	double d0[3], d1[3], n[3];
	sub(b->vertices, d, a, d0);
	sub(b->vertices, e, c, d1);
	cross(d0, d1, n);
	const vec3s* v = b->vertices;
	double split_ad = fmin(facing(v, a, c, d, n), facing(v, a, d, e, n));
	double split_ce = fmin(facing(v, a, c, e, n), facing(v, c, d, e, n));
	if (split_ad >= split_ce)
	{
		mg_triangle(b, a, c, d);
		mg_triangle(b, a, d, e);
	}
	else
	{
		mg_triangle(b, a, c, e);
		mg_triangle(b, c, d, e);
	}
}

kl_result mg_finish(mg_builder* b, kl_meshgen_mesh* out)
{
	if (b->failed)
	{
		free(b->vertices);
		free(b->indices);
		memset(b, 0, sizeof(*b));
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	out->vertices = b->vertices;
	out->vertex_count = b->vertex_count;
	out->indices = b->indices;
	out->triangle_count = b->triangle_count;
	memset(b, 0, sizeof(*b));
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Columns

void mg_zip_columns(mg_builder* b, const mg_column* columns, int column_count, bool outward)
{
	for (int c = 0; c < column_count; ++c)
	{
		const mg_column* lo = &columns[c];
		const mg_column* hi = &columns[(c + 1) % column_count];
		int i = 0, j = 0;
		while (i + 1 < lo->count || j + 1 < hi->count)
		{
			// Advance the column whose next vertex is lower; ties advance the first column.
			bool advance_lo = j + 1 >= hi->count || (i + 1 < lo->count && lo->z[i + 1] <= hi->z[j + 1]);
			int third = advance_lo ? lo->vertex[i + 1] : hi->vertex[j + 1];
			if (outward)
			{
				mg_triangle(b, lo->vertex[i], hi->vertex[j], third);
			}
			else
			{
				mg_triangle(b, hi->vertex[j], lo->vertex[i], third);
			}
			i += advance_lo ? 1 : 0;
			j += advance_lo ? 0 : 1;
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Thread

double mg_thread_radius(double pitch, double minor, double major, double theta, double z)
{
	double s = z / pitch - theta / (2.0 * MG_PI);
	s -= floor(s);
	double h;
	if (s < 0.25)
	{
		h = 0.0;
	}
	else if (s < 0.5)
	{
		h = (s - 0.25) * 4.0;
	}
	else if (s < 0.75)
	{
		h = 1.0;
	}
	else
	{
		h = (1.0 - s) * 4.0;
	}
	return minor + (major - minor) * h;
}

int mg_thread_rows(double pitch, double theta, double z0, double z1, double margin, double* z, int capacity)
{
	double phase = theta / (2.0 * MG_PI);
	int count = 0;
	double k = floor(z0 / pitch - phase) - 1.0;
	for (;; k += 1.0)
	{
		for (int q = 0; q < 4; ++q)
		{
			double row = pitch * (k + 0.25 * q + phase);
			if (row >= z1 - margin)
			{
				return count;
			}
			if (row > z0 + margin && count < capacity)
			{
				z[count++] = row;
			}
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Files

static bool has_extension(const char* path, const char* ext)
{
	size_t n = strlen(path), m = strlen(ext);
	if (n < m)
	{
		return false;
	}
	for (size_t i = 0; i < m; ++i)
	{
		char c = path[n - m + i];
		if (c >= 'A' && c <= 'Z')
		{
			c = (char)(c - 'A' + 'a');
		}
		if (c != ext[i])
		{
			return false;
		}
	}
	return true;
}

kl_result kl_meshgen_write(const kl_meshgen_mesh* mesh, const char* path)
{
	mg_clear_error();
	if (mesh == NULL || path == NULL || mesh->vertices == NULL || mesh->indices == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "write: mesh and path must not be NULL");
	}
	bool obj = has_extension(path, ".obj");
	if (!obj && !has_extension(path, ".off"))
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "write: '%s' must end in .obj or .off", path);
	}
	FILE* f = fopen(path, "w");
	if (f == NULL)
	{
		return mg_fail(KL_ERR_IO, "write: cannot open '%s' for writing", path);
	}
	if (obj)
	{
		fprintf(f, "# Kollide meshgen: %d vertices, %d triangles\n", mesh->vertex_count, mesh->triangle_count);
	}
	else
	{
		fprintf(f, "OFF\n%d %d 0\n", mesh->vertex_count, mesh->triangle_count);
	}
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		vec3s p = mesh->vertices[i];
		fprintf(f, "%s%.9g %.9g %.9g\n", obj ? "v " : "", (double)p.x, (double)p.y, (double)p.z);
	}
	for (int t = 0; t < mesh->triangle_count; ++t)
	{
		const int32_t* i = mesh->indices + 3 * (size_t)t;
		if (obj)
		{
			fprintf(f, "f %d %d %d\n", i[0] + 1, i[1] + 1, i[2] + 1);
		}
		else
		{
			fprintf(f, "3 %d %d %d\n", i[0], i[1], i[2]);
		}
	}
	bool ok = !ferror(f);
	ok = fclose(f) == 0 && ok;
	return ok ? KL_OK : mg_fail(KL_ERR_IO, "write: error writing '%s'", path);
}

/// Triangles of a lathe whose vertices are laid out as: the first axis point, `rings` rings of
/// `segments` vertices counter-clockwise about the axis, the last axis point.
void mg_lathe_faces(mg_builder* b, int first, int rings, int segments)
{
	int last = first + 1 + rings * segments;
	for (int i = 0; i < segments; ++i)
	{
		int i1 = (i + 1) % segments;
		mg_triangle(b, first, first + 1 + i1, first + 1 + i);
		for (int j = 0; j + 1 < rings; ++j)
		{
			int lo = first + 1 + j * segments, hi = lo + segments;
			mg_quad(b, lo + i, lo + i1, hi + i1, hi + i);
		}
		int top = first + 1 + (rings - 1) * segments;
		mg_triangle(b, top + i, top + i1, last);
	}
}
