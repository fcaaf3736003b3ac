// Kollide narrowphase — point shells: the sampling distance and each triangle's 40-byte shell (a
// 16 × 16 grid mask and two cell sizes) with its coverage radius (pointshell_kernels.h).
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"

#include <string.h>

static int compare_float(const void* a, const void* b)
{
	float x = *(const float*)a, y = *(const float*)b;
	return (x > y) - (x < y);
}

/// A third of the median edge length: about four grid samples along a typical edge.
float kl_ps_auto_spacing(const kl_ps_model_view* v)
{
	int n = 3 * v->triangle_count;
	float* lengths = kl_alloc((size_t)n, sizeof(float));
	if (lengths == NULL)
	{
		return -1.0f;
	}
	for (int t = 0; t < v->triangle_count; ++t)
	{
		kl_ps_f3 p[3];
		kl_ps_triangle(v, t, p);
		for (int e = 0; e < 3; ++e)
		{
			kl_ps_f3 d = kl_ps_sub(p[(e + 1) % 3], p[e]);
			lengths[3 * t + e] = sqrtf(kl_ps_dot(d, d));
		}
	}
	qsort(lengths, (size_t)n, sizeof(float), compare_float);
	float median = lengths[n / 2];
	kl_free(lengths);
	return median / 3.0f;
}

/// The grid count along an extent: samples at most `spacing` apart, 2 to 16 (16 for NaN, so that
/// no cast sees it).
static int grid_count(float extent, float spacing)
{
	double n = ceil((double)extent / (double)spacing) + 1.0;
	return n < 2.0 ? 2 : (n < KL_PS_GRID ? (int)n : KL_PS_GRID);
}

/// Fine cells per grid cell side for the measured coverage (measured_coverage).
#define KL_PS_FINE 4

/// Whether grid sample (i, j) is in the mask; false outside the grid.
static bool mask_has(const kl_ps_mask* mask, int i, int j)
{
	if (i < 0 || j < 0 || i >= KL_PS_GRID || j >= KL_PS_GRID)
	{
		return false;
	}
	int bit = KL_PS_GRID * j + i;
	return ((mask->bits[bit / 64] >> (bit % 64)) & 1u) != 0u;
}

/// The grid cell index of a coordinate x >= 0 along a side of cell size `cell`, held to KL_PS_GRID
/// (past the last sample: mask_has finds nothing there). A sliver's fine cells are square at the
/// long side's scale, so along its short side x / cell reaches far beyond int.
static int grid_cell(float x, float cell)
{
	float g = x / cell;
	return g < (float)KL_PS_GRID ? (int)g : KL_PS_GRID;
}

/// The coverage of a rasterised triangle, measured. Its plane is cut into square cells of side δ (a
/// quarter of the longer grid cell side) in the grid frame; each cell that may touch the triangle
/// (its centre within half a diagonal of it) gives the distance from its centre to the nearest of
/// some samples plus that half diagonal, which bounds how far any of its points lies from a sample.
/// The samples asked are the corners of the grid cell holding the centre and every edge sample (a
/// subset only loosens the bound); they are placed by the kernels' own functions (kl_ps_grid_point,
/// kl_ps_edge_point; pointshell_kernels.h), so the bound holds for exactly the points the kernels
/// use. The largest over the cells bounds the whole triangle; inside the grid it exceeds the true
/// covering radius by at most δ/√2. The grid frame (origin, u, v, extent, apex_u) is rasterise's.
static float measured_coverage(const kl_ps_f3 t[3], const kl_ps_mask* mask, kl_ps_f3 origin, kl_ps_f3 u, kl_ps_f3 v,
							   const float extent[2], float apex_u)
{
	kl_ps_f3 edge[3 * KL_PS_EDGE_SAMPLES];
	int edges = 0;
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 d = kl_ps_sub(t[(e + 1) % 3], t[e]);
		int count = kl_ps_edge_sample_count(sqrtf(kl_ps_dot(d, d)), kl_ps_edge_spacing(mask));
		for (int k = 0; k < count; ++k)
		{
			edge[edges++] = kl_ps_edge_point(t, e, k, count);
		}
	}
	float delta = fmaxf(mask->cell[0], mask->cell[1]) / (float)KL_PS_FINE;
	float half_diagonal = 0.70710678f * delta;
	int nu = (int)ceilf(extent[0] / delta), nv = (int)ceilf(extent[1] / delta);
	// The triangle's edges in the grid frame, (0, 0) → (length, 0) → apex → (0, 0), counter-clockwise:
	// a point is inside when its distances left of all three are >= 0.
	float ax = apex_u, ay = extent[1], bx = extent[0];
	float l1 = sqrtf((ax - bx) * (ax - bx) + ay * ay), l2 = sqrtf(ax * ax + ay * ay);
	float worst = 0.0f;
	for (int j = 0; j < nv; ++j)
	{
		for (int i = 0; i < nu; ++i)
		{
			float x = ((float)i + 0.5f) * delta, y = ((float)j + 0.5f) * delta;
			float d1 = ((bx - x) * ay + (ax - bx) * y) / l1; // left of (length, 0) → apex
			float d2 = (ay * x - ax * y) / l2;				 // left of apex → (0, 0)
			if (y < -half_diagonal || d1 < -half_diagonal || d2 < -half_diagonal)
			{
				continue;
			}
			kl_ps_f3 c = kl_ps_add(origin, kl_ps_add(kl_ps_scale(u, x), kl_ps_scale(v, y)));
			float nearest = 1e30f;
			int gi = grid_cell(x, mask->cell[0]), gj = grid_cell(y, mask->cell[1]);
			for (int corner = 0; corner < 4; ++corner)
			{
				int ci = gi + (corner & 1), cj = gj + (corner >> 1);
				if (mask_has(mask, ci, cj))
				{
					kl_ps_f3 d = kl_ps_sub(kl_ps_grid_point(origin, u, v, mask->cell, ci, cj), c);
					nearest = fminf(nearest, kl_ps_dot(d, d));
				}
			}
			// Edge samples lie on the edges, no nearer than the edges' lines: skip them when a
			// corner is already that near.
			float to_edges = fminf(y, fminf(d1, d2));
			for (int k = 0; k < edges && !(to_edges > 0.0f && nearest <= to_edges * to_edges); ++k)
			{
				kl_ps_f3 d = kl_ps_sub(edge[k], c);
				nearest = fminf(nearest, kl_ps_dot(d, d));
			}
			worst = fmaxf(worst, sqrtf(nearest) + half_diagonal);
		}
	}
	return worst;
}

/// Rasterises one triangle's point shell and returns its coverage: every point of the triangle lies
/// within it of a sample. The smaller of two sound bounds: the measured one (measured_coverage), and
/// this proof's: a point x lies in one grid cell. If a corner of that cell is in the triangle, it is
/// a sample, at most the cell diagonal away. Otherwise an edge crosses the segment from x to a
/// corner, at most a diagonal away, and that edge's samples are at most half their spacing from the
/// crossing. So diagonal + half the widest edge spacing bounds it; it runs about twice the measured.
float kl_ps_rasterise(const kl_ps_f3 t[3], float spacing, kl_ps_mask* mask)
{
	memset(mask, 0, sizeof(*mask));
	kl_ps_f3 origin, u, v;
	float extent[2];
	int base;
	float size = 0.0f;
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 d = kl_ps_sub(t[(e + 1) % 3], t[e]);
		size = fmaxf(size, sqrtf(kl_ps_dot(d, d)));
	}
	if (!kl_ps_grid_frame(t, &origin, &u, &v, extent, &base))
	{
		// No area: the edge samples (spacing from the cells) cover it.
		mask->cell[0] = mask->cell[1] = size / (float)KL_PS_EDGE_SAMPLES;
		return 0.5f * size / (float)KL_PS_EDGE_SAMPLES * 1.01f + 1e-6f * size;
	}
	int nu = grid_count(extent[0], spacing), nv = grid_count(extent[1], spacing);
	mask->cell[0] = extent[0] / (float)(nu - 1);
	mask->cell[1] = extent[1] / (float)(nv - 1);
	// The triangle in grid coordinates: (0, 0), (length, 0), (apex_u, height).
	float apex_u = kl_ps_dot(kl_ps_sub(t[(base + 2) % 3], origin), u);
	float tol = 1e-4f * extent[0];
	for (int j = 0; j < nv; ++j)
	{
		for (int i = 0; i < nu; ++i)
		{
			float x = (float)i * mask->cell[0], y = (float)j * mask->cell[1];
			// Left of (0,0)→apex and right of (length,0)→apex, above the base; inclusive.
			float left = apex_u * y - extent[1] * x;				 // ≤ 0 inside
			float right = (apex_u - extent[0]) * y - extent[1] * (x - extent[0]); // ≥ 0 inside
			if (y >= -tol && left <= tol * extent[1] && right >= -tol * extent[1])
			{
				int bit = KL_PS_GRID * j + i;
				mask->bits[bit / 64] |= (uint64_t)1 << (bit % 64);
			}
		}
	}
	float edge_spacing = 0.0f;
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 d = kl_ps_sub(t[(e + 1) % 3], t[e]);
		float len = sqrtf(kl_ps_dot(d, d));
		edge_spacing = fmaxf(edge_spacing, len / (float)kl_ps_edge_sample_count(len, kl_ps_edge_spacing(mask)));
	}
	float diagonal = sqrtf(mask->cell[0] * mask->cell[0] + mask->cell[1] * mask->cell[1]);
	float bound = fminf(diagonal + 0.5f * edge_spacing, measured_coverage(t, mask, origin, u, v, extent, apex_u));
	// Slack for the float rounding of the samples and the tolerance of the inside test.
	return bound * 1.01f + 2.0f * tol + 1e-6f * size;
}

