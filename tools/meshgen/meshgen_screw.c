// Kollide — meshgen screw and bearing block: threaded surfaces as columns of helical rows.
// SPDX-License-Identifier: MIT
//
// A thread surface r(θ, z) is sampled in columns of fixed angle; each column holds the z values where
// the profile has a corner (4 rows per pitch, shifted by pitch × θ / 2π along the helix) plus the two
// ends. Zipping neighbouring columns by z pairs each row with the same row of the next column, so the
// crest and root helices are mesh edges and the thread is exact between columns.
#include "meshgen_internal.h"

#include <stdio.h>
#include <stdlib.h>

// Rows closer than this fraction of a pitch to an end are dropped, so no two vertices of a column
// (nearly) coincide. Kept small: the end segment cuts across a dropped profile corner, which moves
// the surface by up to twice this (the flank slope) and eats into a nut's clearance.
#define MG_THREAD_END_MARGIN 0.002

kl_meshgen_screw_params kl_meshgen_default_screw_params(void)
{
	kl_meshgen_screw_params p;
	p.pitch = 0.01f;
	p.major_radius = 0.02f;
	p.minor_radius = 0.015f;
	p.length = 0.12f;
	p.head_radius = 0.035f;
	p.head_height = 0.015f;
	p.head_sides = 6;
	p.segments_per_turn = 24;
	return p;
}

kl_meshgen_bearing_block_params kl_meshgen_default_bearing_block_params(void)
{
	kl_meshgen_screw_params s = kl_meshgen_default_screw_params();
	return kl_meshgen_bearing_block_for_screw(&s, false);
}

kl_meshgen_bearing_block_params kl_meshgen_bearing_block_for_screw(const kl_meshgen_screw_params* screw,
																	bool threaded)
{
	kl_meshgen_bearing_block_params p;
	p.clearance = 0.05f * screw->major_radius;
	p.size_x = 4.0f * screw->major_radius;
	p.size_y = 4.0f * screw->major_radius;
	p.height = 4.0f * screw->pitch;
	p.bore_radius = screw->major_radius + 2.0f * p.clearance;
	p.threaded = threaded;
	p.pitch = screw->pitch;
	p.major_radius = screw->major_radius;
	p.minor_radius = screw->minor_radius;
	p.segments = 32;
	return p;
}

// Distance from the axis to a regular polygon's boundary (corner at θ = 0) along angle θ.
static double polygon_radius(int sides, double circumradius, double theta)
{
	if (sides == 0)
	{
		return circumradius;
	}
	double wedge = 2.0 * MG_PI / sides;
	double local = theta - wedge * floor(theta / wedge);
	return circumradius * cos(MG_PI / sides) / cos(local - 0.5 * wedge);
}

// Rows a thread column can hold between z0 and z1, with room for the ends.
static int row_capacity(double pitch, double z0, double z1)
{
	return (int)ceil(4.0 * (z1 - z0) / pitch) + 8;
}

/// Fills a column at angle θ (z0 to z1) of radius r(θ, z) = thread + offset, or of constant radius
/// `offset` if pitch is 0. z and vertex point into caller storage of row_capacity + 2.
static void build_column(mg_builder* b, mg_column* col, double theta, double z0, double z1, double pitch,
						 double minor, double major, double offset)
{
	col->count = 0;
	col->z[col->count++] = z0;
	if (pitch > 0.0)
	{
		int cap = row_capacity(pitch, z0, z1);
		col->count += mg_thread_rows(pitch, theta, z0, z1, MG_THREAD_END_MARGIN * pitch, col->z + 1, cap);
	}
	col->z[col->count++] = z1;
	double c = cos(theta), s = sin(theta);
	for (int k = 0; k < col->count; ++k)
	{
		double r = offset + (pitch > 0.0 ? mg_thread_radius(pitch, minor, major, theta, col->z[k]) : 0.0);
		col->vertex[k] = mg_vertex(b, r * c, r * s, col->z[k]);
	}
}

/// Columns with storage for `count` threads of rows each.
static mg_column* alloc_columns(int count, int rows)
{
	size_t per = (size_t)rows + 2;
	mg_column* cols = malloc((size_t)count * sizeof(mg_column));
	double* z = malloc((size_t)count * per * sizeof(double));
	int* vertex = malloc((size_t)count * per * sizeof(int));
	if (cols == NULL || z == NULL || vertex == NULL)
	{
		free(cols);
		free(z);
		free(vertex);
		return NULL;
	}
	for (int i = 0; i < count; ++i)
	{
		cols[i].z = z + per * (size_t)i;
		cols[i].vertex = vertex + per * (size_t)i;
		cols[i].count = 0;
	}
	return cols;
}

static void free_columns(mg_column* cols)
{
	if (cols != NULL)
	{
		free(cols[0].z);
		free(cols[0].vertex);
		free(cols);
	}
}

static kl_result check_thread(const char* who, float pitch, float minor, float major, int segments)
{
	char what[64];
	snprintf(what, sizeof(what), "%s: pitch", who);
	if (!mg_check_float(what, pitch, 1e-6, 1e3))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	snprintf(what, sizeof(what), "%s: major_radius", who);
	if (!mg_check_float(what, major, 1e-6, 1e3))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	snprintf(what, sizeof(what), "%s: minor_radius", who);
	if (!mg_check_float(what, minor, 0.05 * major, 0.999 * major))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	snprintf(what, sizeof(what), "%s: segments", who);
	return mg_check_int(what, segments, 8, 4096) ? KL_OK : KL_ERR_INVALID_ARGUMENT;
}

static kl_result check_size(const char* who, double triangles)
{
	if (triangles > KL_MESHGEN_MAX_TRIANGLES)
	{
		return mg_fail(KL_ERR_LIMIT, "%s: about %.0f triangles exceed the limit %d", who, triangles,
					   KL_MESHGEN_MAX_TRIANGLES);
	}
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Screw

static kl_result check_screw(const kl_meshgen_screw_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "screw: params must not be NULL");
	}
	kl_result r = check_thread("screw", p->pitch, p->minor_radius, p->major_radius, p->segments_per_turn);
	if (r != KL_OK)
	{
		return r;
	}
	if (!mg_check_float("screw: length", p->length, 0.1 * p->pitch, 1e5 * p->pitch) ||
		!mg_check_float("screw: head_height", p->head_height, 1e-6, 1e3) ||
		!mg_check_int("screw: head_sides", p->head_sides == 0 ? 3 : p->head_sides, 3, 64))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	double inscribed = p->head_sides == 0 ? 1.0 : cos(MG_PI / p->head_sides);
	if (!mg_check_float("screw: head_radius", p->head_radius, 1.05 * p->major_radius / inscribed, 1e3))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return check_size("screw", 2.0 * p->segments_per_turn * (row_capacity(p->pitch, 0.0, p->length) + 6.0));
}

kl_result kl_meshgen_screw(const kl_meshgen_screw_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "screw: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result r = check_screw(params);
	if (r != KL_OK)
	{
		return r;
	}
	int n = params->segments_per_turn;
	int rows = row_capacity(params->pitch, 0.0, params->length);
	mg_column* cols = alloc_columns(n, rows);
	if (cols == NULL)
	{
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	mg_builder b;
	mg_builder_init(&b, n * (rows + 4) + 2, 2 * n * (rows + 6));
	int* head = malloc(2 * (size_t)n * sizeof(int)); // head ring: top (z = 0) then bottom
	b.failed = b.failed || head == NULL;
	for (int i = 0; i < n && !b.failed; ++i)
	{
		double theta = 2.0 * MG_PI * i / n;
		build_column(&b, &cols[i], theta, 0.0, params->length, params->pitch, params->minor_radius,
					 params->major_radius, 0.0);
		double hr = polygon_radius(params->head_sides, params->head_radius, theta);
		head[i] = mg_vertex(&b, hr * cos(theta), hr * sin(theta), 0.0);
		head[n + i] = mg_vertex(&b, hr * cos(theta), hr * sin(theta), -(double)params->head_height);
	}
	int top = mg_vertex(&b, 0.0, 0.0, params->length);
	int bottom = mg_vertex(&b, 0.0, 0.0, -(double)params->head_height);
	if (!b.failed)
	{
		mg_zip_columns(&b, cols, n, true);
		for (int i = 0; i < n; ++i)
		{
			int j = (i + 1) % n;
			mg_triangle(&b, top, cols[i].vertex[cols[i].count - 1], cols[j].vertex[cols[j].count - 1]);
			mg_quad(&b, cols[i].vertex[0], head[i], head[j], cols[j].vertex[0]); // head top
			mg_quad(&b, head[n + i], head[n + j], head[j], head[i]);			 // head side
			mg_triangle(&b, bottom, head[n + j], head[n + i]);
		}
	}
	free(head);
	free_columns(cols);
	return mg_finish(&b, out);
}

// ---------------------------------------------------------------------------------------------
// Bearing block

static kl_result check_block(const kl_meshgen_bearing_block_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "bearing_block: params must not be NULL");
	}
	if (!mg_check_float("bearing_block: size_x", p->size_x, 1e-6, 1e4) ||
		!mg_check_float("bearing_block: size_y", p->size_y, 1e-6, 1e4) ||
		!mg_check_float("bearing_block: height", p->height, 1e-6, 1e4) ||
		!mg_check_int("bearing_block: segments", p->segments, 8, 4096))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	double limit = 0.95 * 0.5 * fmin(p->size_x, p->size_y);
	if (p->threaded)
	{
		kl_result r = check_thread("bearing_block", p->pitch, p->minor_radius, p->major_radius, p->segments);
		if (r != KL_OK)
		{
			return r;
		}
		if (!mg_check_float("bearing_block: clearance", p->clearance, 0.0, limit - p->major_radius))
		{
			return KL_ERR_INVALID_ARGUMENT;
		}
		if (!mg_check_float("bearing_block: height", p->height, 0.0, 1e5 * p->pitch))
		{
			return KL_ERR_INVALID_ARGUMENT;
		}
		return check_size("bearing_block", 2.0 * (p->segments + 4) * (row_capacity(p->pitch, 0.0, p->height) + 6.0));
	}
	if (!mg_check_float("bearing_block: bore_radius", p->bore_radius, 1e-6, limit))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return KL_OK;
}

static int compare_double(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

// Column angles: uniform around the bore, with the block's four corners snapped in or inserted so
// the box keeps its corners. Returns the count (at most segments + 4).
static int block_angles(const kl_meshgen_bearing_block_params* p, double* angle)
{
	int n = p->segments;
	double step = 2.0 * MG_PI / n;
	for (int i = 0; i < n; ++i)
	{
		angle[i] = step * i;
	}
	double a = atan2((double)p->size_y, (double)p->size_x);
	double corners[4] = {a, MG_PI - a, MG_PI + a, 2.0 * MG_PI - a};
	for (int c = 0; c < 4; ++c)
	{
		int nearest = (int)floor(corners[c] / step + 0.5) % p->segments;
		double d = fabs(corners[c] - step * floor(corners[c] / step + 0.5));
		// Snap only onto a column no other corner took.
		if (d < 0.25 * step && angle[nearest] == step * nearest)
		{
			angle[nearest] = corners[c];
		}
		else
		{
			angle[n++] = corners[c];
		}
	}
	qsort(angle, (size_t)n, sizeof(double), compare_double);
	return n;
}

kl_result kl_meshgen_bearing_block(const kl_meshgen_bearing_block_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "bearing_block: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result r = check_block(params);
	if (r != KL_OK)
	{
		return r;
	}
	double hx = 0.5 * params->size_x, hy = 0.5 * params->size_y, hz = 0.5 * params->height;
	double pitch = params->threaded ? params->pitch : 0.0;
	int rows = params->threaded ? row_capacity(pitch, -hz, hz) : 0;
	double* angle = malloc((size_t)(params->segments + 4) * sizeof(double));
	int* outer = malloc(2 * (size_t)(params->segments + 4) * sizeof(int)); // bottom, top pairs
	mg_column* cols = alloc_columns(params->segments + 4, rows);
	if (angle == NULL || outer == NULL || cols == NULL)
	{
		free(angle);
		free(outer);
		free_columns(cols);
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	int n = block_angles(params, angle);
	mg_builder b;
	mg_builder_init(&b, n * (rows + 4), 2 * n * (rows + 6));
	double offset = params->threaded ? params->clearance : params->bore_radius;
	for (int i = 0; i < n; ++i)
	{
		double c = cos(angle[i]), s = sin(angle[i]);
		double t = fmin(fabs(c) > 0.0 ? hx / fabs(c) : INFINITY, fabs(s) > 0.0 ? hy / fabs(s) : INFINITY);
		outer[2 * i] = mg_vertex(&b, t * c, t * s, -hz);
		outer[2 * i + 1] = mg_vertex(&b, t * c, t * s, hz);
		build_column(&b, &cols[i], angle[i], -hz, hz, pitch, params->minor_radius, params->major_radius, offset);
	}
	if (!b.failed)
	{
		mg_zip_columns(&b, cols, n, false);
		for (int i = 0; i < n; ++i)
		{
			int j = (i + 1) % n;
			int bi = cols[i].vertex[0], bj = cols[j].vertex[0];
			int ti = cols[i].vertex[cols[i].count - 1], tj = cols[j].vertex[cols[j].count - 1];
			mg_quad(&b, outer[2 * i], outer[2 * j], outer[2 * j + 1], outer[2 * i + 1]); // sides
			mg_quad(&b, ti, outer[2 * i + 1], outer[2 * j + 1], tj);					  // top
			mg_quad(&b, bi, bj, outer[2 * j], outer[2 * i]);							  // bottom
		}
	}
	free(angle);
	free(outer);
	free_columns(cols);
	return mg_finish(&b, out);
}
