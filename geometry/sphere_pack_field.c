// Kollide — the signed distance grid of the inner-sphere packing (sphere_pack.h).
//
// Near the surface the distance is exact: a grid point takes the closest of the triangles filed in
// the buckets within the band width h of it, and its sign from the
// pseudo-normal of the closest feature. A grid edge that crosses the surface has both ends within h
// of it, so between two points outside the band the sign cannot change: the far points of a row
// take the sign of the band point next to them. Inside, the far points' distances come from two
// raster sweeps that hand each point its neighbours' closest triangles (the closest-point transform
// of Mauch, as in Bridson's SDFGen); a point's value is a true distance to some triangle, never less
// than the distance to the surface, which is what the insertion's lazy queue needs.
// SPDX-License-Identifier: MIT
#include "mesh.h"
#include "sphere_pack.h"
#include "tri_adjacency.h"

#include <string.h>

/// Grid points inside the mesh per sphere asked for, when the def leaves the resolution to us.
#define KL_SP_POINTS_PER_SPHERE 30.0
/// Most points of a sample grid (8 bytes each, plus the queue's 8 for those inside).
#define KL_SP_MAX_POINTS (1 << 24)
/// Fewest cells along the longest side.
#define KL_SP_MIN_RESOLUTION 16
/// Grid rows per task of the band pass.
#define KL_SP_MIN_PARALLEL_ROWS 64

/// A fraction in [0, 1) from the seed and an axis.
static double seed_fraction(uint32_t seed, int axis)
{
	uint32_t key[2] = {seed, (uint32_t)axis};
	uint64_t h = kl_hash64_bytes(KL_HASH64_INIT, key, sizeof(key));
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static int64_t grid_points(kl_aabb bounds, double h, int n[3])
{
	int64_t total = 1;
	for (int a = 0; a < 3; ++a)
	{
		// Two cells of margin below and at least two above, whatever the seed's offset.
		n[a] = (int)ceil(((double)bounds.upper.raw[a] - bounds.lower.raw[a]) / h) + 5;
		total *= n[a];
	}
	return total;
}

kl_result kl_sp_grid_init(kl_sp_builder* b, kl_aabb bounds)
{
	kl_sp_grid* g = &b->grid;
	double longest = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		longest = fmax(longest, (double)bounds.upper.raw[a] - bounds.lower.raw[a]);
	}
	double h;
	if (b->def->resolution > 0)
	{
		h = longest / b->def->resolution;
	}
	else
	{
		h = cbrt(b->volume / (KL_SP_POINTS_PER_SPHERE * b->def->max_spheres));
		h = fmin(fmax(h, longest / KL_SPHERE_PACK_MAX_RESOLUTION), longest / KL_SP_MIN_RESOLUTION);
	}
	int64_t total = grid_points(bounds, h, g->n);
	if (total > KL_SP_MAX_POINTS && b->def->resolution == 0)
	{
		h *= cbrt((double)total / KL_SP_MAX_POINTS) * 1.01;
		total = grid_points(bounds, h, g->n);
	}
	if (total > KL_SP_MAX_POINTS)
	{
		return kl_fail(KL_ERR_LIMIT, "sphere pack: resolution %d needs %lld grid points (at most %d)",
					   b->def->resolution, (long long)total, KL_SP_MAX_POINTS);
	}
	g->h = (float)h;
	for (int a = 0; a < 3; ++a)
	{
		g->origin.raw[a] = (float)((double)bounds.lower.raw[a] - (2.0 - seed_fraction(b->def->seed, a)) * h);
	}
	g->clear = kl_alloc((size_t)total, sizeof(float));
	g->tri = kl_alloc((size_t)total, sizeof(int32_t));
	return g->clear != NULL && g->tri != NULL ? KL_OK : KL_ERR_OUT_OF_MEMORY;
}

static void face_normals(kl_sp_mesh* m)
{
	for (int t = 0; t < m->triangle_count; ++t)
	{
		const int32_t* v = m->indices + 3 * t;
		vec3s o = m->vertices[v[0]];
		kl_d3 n = kl_d3_cross(kl_d3_rel(m->vertices[v[1]], o), kl_d3_rel(m->vertices[v[2]], o));
		double len = sqrt(kl_d3_dot(n, n));
		m->face_normals[t] = len > 0.0 ? kl_d3_float(kl_d3_scale(n, 1.0 / len)) : kl_vec3(0.0f, 0.0f, 0.0f);
		kl_aabb box = {o, o};
		for (int k = 1; k < 3; ++k)
		{
			box.lower = glms_vec3_minv(box.lower, m->vertices[v[k]]);
			box.upper = glms_vec3_maxv(box.upper, m->vertices[v[k]]);
		}
		m->tri_bounds[t] = box;
	}
}

/// Files each triangle in the buckets its bounds touch (CSR lists in ascending triangle order).
static kl_result fill_triangle_buckets(kl_sp_builder* b)
{
	kl_sp_buckets* k = &b->buckets;
	int64_t cells = (int64_t)k->n[0] * k->n[1] * k->n[2];
	k->tri_start = kl_alloc_zero((size_t)cells + 1, sizeof(int32_t));
	k->sphere_head = kl_alloc((size_t)cells, sizeof(int32_t));
	if (k->tri_start == NULL || k->sphere_head == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	memset(k->sphere_head, 0xff, (size_t)cells * sizeof(int32_t));
	for (int pass = 0; pass < 2; ++pass)
	{
		int64_t filled = 0;
		for (int t = 0; t < b->mesh.triangle_count; ++t)
		{
			kl_aabb box = b->mesh.tri_bounds[t];
			vec3s c = glms_vec3_scale(glms_vec3_add(box.lower, box.upper), 0.5f);
			vec3s half = glms_vec3_scale(glms_vec3_sub(box.upper, box.lower), 0.5f);
			int lo[3], hi[3];
			// A little wider than the bounds: a query's range, rounded apart, never misses one.
			if (!kl_sp_bucket_range(k, c, glms_vec3_max(half) + 1e-3 * k->size, lo, hi))
			{
				continue;
			}
			for (int z = lo[2]; z <= hi[2]; ++z)
			{
				for (int y = lo[1]; y <= hi[1]; ++y)
				{
					for (int x = lo[0]; x <= hi[0]; ++x)
					{
						int64_t cell = ((int64_t)z * k->n[1] + y) * k->n[0] + x;
						if (pass == 0)
						{
							++k->tri_start[cell + 1];
						}
						else
						{
							k->tri_items[k->tri_start[cell]++] = t;
						}
						++filled;
					}
				}
			}
		}
		if (pass == 0)
		{
			if (filled >= INT32_MAX)
			{
				return kl_fail(KL_ERR_LIMIT, "sphere pack: %lld triangle bucket entries", (long long)filled);
			}
			for (int64_t c = 0; c < cells; ++c)
			{
				k->tri_start[c + 1] += k->tri_start[c];
			}
			k->tri_items = kl_alloc((size_t)filled + 1, sizeof(int32_t));
			if (k->tri_items == NULL)
			{
				return KL_ERR_OUT_OF_MEMORY;
			}
		}
	}
	// The fill pass moved each start to the next bucket's: shift back.
	memmove(k->tri_start + 1, k->tri_start, (size_t)cells * sizeof(int32_t));
	k->tri_start[0] = 0;
	return KL_OK;
}

kl_result kl_sp_mesh_init(kl_sp_builder* b, const kl_mesh* mesh)
{
	kl_sp_mesh* m = &b->mesh;
	m->vertices = mesh->vertices;
	m->indices = mesh->indices;
	m->triangle_count = mesh->info.triangle_count;
	m->vertex_normals = mesh->vertex_normals;
	m->face_normals = kl_alloc((size_t)m->triangle_count, sizeof(vec3s));
	m->neighbours = kl_alloc((size_t)m->triangle_count, 3 * sizeof(int32_t));
	m->tri_bounds = kl_alloc((size_t)m->triangle_count, sizeof(kl_aabb));
	if (m->face_normals == NULL || m->neighbours == NULL || m->tri_bounds == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	b->stamps = kl_alloc_zero((size_t)b->worker_count, sizeof(kl_sp_stamps));
	for (int w = 0; b->stamps != NULL && w < b->worker_count; ++w)
	{
		b->stamps[w].tri = kl_alloc_zero((size_t)m->triangle_count, sizeof(uint32_t));
		if (b->stamps[w].tri == NULL)
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
	}
	if (b->stamps == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_result r = kl_triangle_neighbours(m->indices, m->triangle_count, m->neighbours);
	if (r != KL_OK)
	{
		return r;
	}
	face_normals(m);
	kl_sp_buckets* k = &b->buckets;
	k->size = 2.0f * b->grid.h;
	k->origin = b->grid.origin;
	for (int a = 0; a < 3; ++a)
	{
		k->n[a] = (b->grid.n[a] + 1) / 2;
	}
	return fill_triangle_buckets(b);
}

// ---------------------------------------------------------------------------------------------
// The band and the signs, row by row

typedef struct band_task
{
	kl_sp_builder* b;
	double band;
} band_task;

/// The exact distance of point (i, j, k) if some triangle lies within the band, with its sign;
/// NAN when none does.
static float band_distance(kl_sp_builder* b, kl_sp_stamps* stamps, double band, int i, int j, int k, int32_t* tri)
{
	vec3s p = kl_sp_grid_point(&b->grid, i, j, k);
	kl_sp_surface_hit hit = kl_sp_surface_query(b, stamps, p, band);
	*tri = hit.tri;
	if (hit.tri < 0)
	{
		return NAN;
	}
	return kl_sp_outside(&b->mesh, hit.tri, hit.feature, hit.offset) ? -(float)hit.distance : (float)hit.distance;
}

/// Signs a run [a, e) of far points. A run at either end of the row lies in the grid's margin,
/// outside; another takes the sign of the band point beside it that lies farther from the surface
/// (the pseudo-normal test is safest away from it).
static void sign_far_run(kl_sp_grid* g, int64_t row, int a, int e)
{
	bool inside = false;
	if (a > 0 && e < g->n[0])
	{
		float before = g->clear[row + a - 1], after = g->clear[row + e];
		inside = fabsf(before) >= fabsf(after) ? before > 0.0f : after > 0.0f;
	}
	for (int i = a; i < e; ++i)
	{
		g->clear[row + i] = inside ? INFINITY : -g->h;
		g->tri[row + i] = -1;
	}
}

static void band_rows(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	band_task* task = context;
	kl_sp_stamps* stamps = task->b->stamps + worker;
	kl_sp_grid* g = &task->b->grid;
	for (int r = begin; r < end; ++r)
	{
		int j = r % g->n[1], k = r / g->n[1];
		int64_t row = kl_sp_grid_index(g, 0, j, k);
		for (int i = 0; i < g->n[0]; ++i)
		{
			g->clear[row + i] = band_distance(task->b, stamps, task->band, i, j, k, g->tri + row + i);
		}
		for (int i = 0; i < g->n[0];)
		{
			int e = i;
			while (e < g->n[0] && isnan(g->clear[row + e]))
			{
				++e;
			}
			if (e > i)
			{
				sign_far_run(g, row, i, e);
			}
			i = e + 1;
		}
	}
}

// ---------------------------------------------------------------------------------------------
// The sweeps inside

/// One raster sweep (dir +1: forward, -1: backward) over the far points inside: each tries the
/// closest triangles of the 13 neighbours already visited.
static void sweep(kl_sp_builder* b, const uint8_t* far, int dir)
{
	kl_sp_grid* g = &b->grid;
	int64_t count = (int64_t)g->n[0] * g->n[1] * g->n[2];
	for (int64_t s = 0; s < count; ++s)
	{
		int64_t idx = dir > 0 ? s : count - 1 - s;
		if (!far[idx])
		{
			continue;
		}
		int i = (int)(idx % g->n[0]), j = (int)(idx / g->n[0] % g->n[1]), k = (int)(idx / ((int64_t)g->n[0] * g->n[1]));
		vec3s p = kl_sp_grid_point(g, i, j, k);
		double best = g->clear[idx];
		int32_t best_tri = g->tri[idx];
		for (int n = 0; n < 13; ++n)
		{
			// The 13 neighbours before a point in raster order: the 9 of the previous plane, the 3 of
			// the previous row, the one before in the row.
			int dk = n < 9 ? -1 : 0, dj = n < 9 ? n / 3 - 1 : (n < 12 ? -1 : 0), di = n < 12 ? n % 3 - 1 : -1;
			int ni = i + dir * di, nj = j + dir * dj, nk = k + dir * dk;
			if (ni < 0 || nj < 0 || nk < 0 || ni >= g->n[0] || nj >= g->n[1] || nk >= g->n[2])
			{
				continue;
			}
			int32_t t = g->tri[kl_sp_grid_index(g, ni, nj, nk)];
			if (t < 0 || t == best_tri)
			{
				continue;
			}
			uint8_t f;
			kl_d3 off;
			double d = kl_sp_triangle_distance(&b->mesh, t, p, &f, &off);
			if (d < best)
			{
				best = d;
				best_tri = t;
			}
		}
		g->clear[idx] = (float)best;
		g->tri[idx] = best_tri;
	}
}

kl_result kl_sp_field_build(kl_sp_builder* b)
{
	kl_sp_grid* g = &b->grid;
	int rows = g->n[1] * g->n[2];
	band_task task = {b, 1.001 * g->h};
	kl_parallel_ranges(b->where, rows, KL_SP_MIN_PARALLEL_ROWS, band_rows, &task);
	if (!kl_sp_report(b->def, "sphere pack: distance", 0.5f))
	{
		return KL_ERR_CANCELLED;
	}
	int64_t count = (int64_t)g->n[0] * g->n[1] * g->n[2];
	uint8_t* far = kl_alloc((size_t)count, 1);
	if (far == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	for (int64_t i = 0; i < count; ++i)
	{
		far[i] = g->clear[i] == INFINITY;
	}
	sweep(b, far, 1);
	sweep(b, far, -1);
	for (int64_t i = 0; i < count; ++i)
	{
		// A far point no sweep reached (an inside pocket the band cut off): give it nothing to offer.
		if (g->clear[i] == INFINITY)
		{
			g->clear[i] = 0.0f;
		}
	}
	kl_free(far);
	return kl_sp_report(b->def, "sphere pack: distance", 1.0f) ? KL_OK : KL_ERR_CANCELLED;
}
