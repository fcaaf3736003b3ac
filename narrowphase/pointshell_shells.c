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
		return 0.0f;
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

/// The grid count along an extent: samples at most `spacing` apart, 2 to 16.
static int grid_count(float extent, float spacing)
{
	double n = ceil((double)extent / (double)spacing) + 1.0;
	return n < 2.0 ? 2 : (n > KL_PS_GRID ? KL_PS_GRID : (int)n);
}

/// Rasterises one triangle's point shell and returns its coverage: every point of the triangle lies
/// within it of a sample. Proof: a point x lies in one grid cell. If a corner of that cell is in
/// the triangle, it is a sample, at most the cell diagonal away. Otherwise an edge crosses the
/// segment from x to a corner, at most a diagonal away, and that edge's samples are at most half
/// their spacing from the crossing. So diagonal + half the widest edge spacing bounds it.
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
	// Slack for the float rounding of the samples and the tolerance of the inside test.
	return (diagonal + 0.5f * edge_spacing) * 1.01f + 2.0f * tol + 1e-6f * size;
}

