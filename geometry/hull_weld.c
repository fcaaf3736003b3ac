// Kollide — hull input: checks, the two tolerances and welding of near-duplicate points.
//
// Two tolerances, deliberately different:
// - epsilon, the classic quickhull round-off bound 3 DBL_EPSILON (max|x| + max|y| + max|z|), decides
//   whether a point is outside a face. The input is float, so products in double are nearly
//   exact and the triangulation is the convex hull of the points to double precision.
// - tolerance, a length below which geometry is considered flat: max(1e-5 extent, FLT_EPSILON
//   (max|x| + max|y| + max|z|)). The second term is twice the worst rounding of float input (a
//   rotated box's "coplanar" face points scatter by that much; far from the origin that dominates);
//   the first keeps features under ten parts per million of the object's size out of the hull,
//   far below anything a contact solver resolves. It welds points, rejects flat and collinear
//   input and, later, merges nearly coplanar triangles into one face.
// - flat_tolerance, 4 FLT_EPSILON (max|x| + max|y| + max|z|) capped by the tolerance: what rounding
//   alone can explain. Triangles that flat are one true face and merge without further checks.
// SPDX-License-Identifier: MIT
#include "hull.h"

#include "core.h"

#include <float.h>
#include <string.h>

static double dist2(const double* a, const double* b)
{
	double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
	return dx * dx + dy * dy + dz * dz;
}

static kl_result check_input(const vec3s* points, int count)
{
	if (points == NULL || count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "hull: NULL points or negative count %d", count);
	}
	if (count < 4)
	{
		return kl_fail(KL_ERR_DEGENERATE, "hull: %d points, at least 4 are needed", count);
	}
	if (count > KL_HULL_MAX_INPUT_POINTS)
	{
		return kl_fail(KL_ERR_LIMIT, "hull: %d points exceed the limit of %d", count, KL_HULL_MAX_INPUT_POINTS);
	}
	for (int i = 0; i < count; ++i)
	{
		if (!kl_vec3_is_finite(points[i]))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "hull: point %d is not finite", i);
		}
	}
	return KL_OK;
}

// Spatial hash of welded points: cells of the weld tolerance, so any point within the tolerance
// of a kept point lies in one of the 27 cells around it.
typedef struct weld_grid
{
	int64_t* keys; ///< packed cell coordinates, -1 for an empty slot
	int32_t* heads;
	int32_t* chain; ///< per kept point: next kept point in the same cell
	uint32_t mask;
} weld_grid;

static int64_t cell_key(int64_t x, int64_t y, int64_t z)
{
	// Cell coordinates are below 2^20 because the tolerance is at least 1e-5 of the extent.
	return (x + 1) | ((y + 1) << 21) | ((z + 1) << 42);
}

static uint32_t cell_slot(const weld_grid* g, int64_t key)
{
	uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
	uint32_t slot = (uint32_t)(h >> 32) & g->mask;
	while (g->keys[slot] != -1 && g->keys[slot] != key)
	{
		slot = (slot + 1) & g->mask;
	}
	return slot;
}

static bool near_kept(const kl_hull_points* pts, const weld_grid* g, const int64_t cell[3], const double* p, double tol2)
{
	for (int dz = -1; dz <= 1; ++dz)
	{
		for (int dy = -1; dy <= 1; ++dy)
		{
			for (int dx = -1; dx <= 1; ++dx)
			{
				uint32_t slot = cell_slot(g, cell_key(cell[0] + dx, cell[1] + dy, cell[2] + dz));
				for (int k = g->keys[slot] == -1 ? -1 : g->heads[slot]; k >= 0; k = g->chain[k])
				{
					if (dist2(pts->xyz + 3 * k, p) <= tol2)
					{
						return true;
					}
				}
			}
		}
	}
	return false;
}

static kl_result weld_points(kl_hull_points* pts, const vec3s* points, int count, const double lo[3])
{
	uint32_t size = 1;
	while (size < 2u * (uint32_t)count)
	{
		size *= 2;
	}
	weld_grid g = {kl_alloc(size, sizeof(int64_t)), kl_alloc(size, sizeof(int32_t)),
				   kl_alloc((size_t)count, sizeof(int32_t)), size - 1};
	if (g.keys == NULL || g.heads == NULL || g.chain == NULL)
	{
		kl_free(g.keys);
		kl_free(g.heads);
		kl_free(g.chain);
		return KL_ERR_OUT_OF_MEMORY;
	}
	memset(g.keys, 0xff, size * sizeof(int64_t));
	double cell_size = pts->tolerance, tol2 = pts->tolerance * pts->tolerance;
	pts->count = 0;
	for (int i = 0; i < count; ++i)
	{
		double p[3] = {points[i].x, points[i].y, points[i].z};
		int64_t cell[3];
		for (int k = 0; k < 3; ++k)
		{
			cell[k] = (int64_t)floor((p[k] - lo[k]) / cell_size);
		}
		if (near_kept(pts, &g, cell, p, tol2))
		{
			continue;
		}
		int n = pts->count++;
		memcpy(pts->xyz + 3 * n, p, sizeof(p));
		uint32_t slot = cell_slot(&g, cell_key(cell[0], cell[1], cell[2]));
		g.chain[n] = g.keys[slot] == -1 ? -1 : g.heads[slot];
		g.keys[slot] = cell_key(cell[0], cell[1], cell[2]);
		g.heads[slot] = n;
	}
	kl_free(g.keys);
	kl_free(g.heads);
	kl_free(g.chain);
	return KL_OK;
}

kl_result kl_hull_prepare_points(const vec3s* points, int count, kl_hull_points* pts)
{
	memset(pts, 0, sizeof(*pts));
	kl_result r = check_input(points, count);
	if (r != KL_OK)
	{
		return r;
	}
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, max_abs[3] = {0.0};
	for (int i = 0; i < count; ++i)
	{
		double p[3] = {points[i].x, points[i].y, points[i].z};
		for (int k = 0; k < 3; ++k)
		{
			lo[k] = fmin(lo[k], p[k]);
			hi[k] = fmax(hi[k], p[k]);
			max_abs[k] = fmax(max_abs[k], fabs(p[k]));
		}
	}
	double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
	double magnitude = max_abs[0] + max_abs[1] + max_abs[2];
	if (!(extent > 0.0))
	{
		return kl_fail(KL_ERR_DEGENERATE, "hull: all %d points coincide", count);
	}
	pts->epsilon = 3.0 * DBL_EPSILON * magnitude;
	pts->tolerance = fmax(1.0e-5 * extent, FLT_EPSILON * magnitude);
	pts->flat_tolerance = fmin(pts->tolerance, 4.0 * FLT_EPSILON * magnitude);
	pts->xyz = kl_alloc((size_t)count * 3, sizeof(double));
	if (pts->xyz == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	r = weld_points(pts, points, count, lo);
	if (r == KL_OK && pts->count < 4)
	{
		r = kl_fail(KL_ERR_DEGENERATE, "hull: only %d distinct points after welding within %g, at least 4 are needed",
					pts->count, pts->tolerance);
	}
	return r;
}
