// Kollide — SIMDop BVH leaf pretest records: per triangle its vertices, unit normal and the outward-rounded
// interval of n·v, so that a leaf pair can be rejected before the exact triangle test.
// SPDX-License-Identifier: MIT
#include "bvh_internal.h"

#include <float.h>
#include <math.h>

/// The leaf pretest's triangle records (KL_BVH_TRI_FLOATS each): the three vertices, the unit normal n
/// (float) and the interval of n·v over the vertices (evaluated in double, rounded outward).
bool kl_bvh_store_triangles(kl_bvh* t, const float* vertices, const int* indices)
{
	int n = t->triangle_count;
	t->tri_verts = kl_bvh_alloc_big((size_t)n * KL_BVH_TRI_FLOATS * sizeof(float));
	if (t->tri_verts == NULL)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_bvh_build: %d triangle records", n);
		return false;
	}
	for (int i = 0; i < n; ++i)
	{
		float* r = t->tri_verts + (size_t)KL_BVH_TRI_FLOATS * i;
		double v[3][3];
		for (int j = 0; j < 3; ++j)
		{
			const float* p = vertices + 3 * (size_t)indices[3 * i + j];
			for (int c = 0; c < 3; ++c)
			{
				r[3 * j + c] = p[c];
				v[j][c] = p[c];
			}
		}
		double e1[3], e2[3];
		for (int c = 0; c < 3; ++c)
		{
			e1[c] = v[1][c] - v[0][c];
			e2[c] = v[2][c] - v[0][c];
		}
		double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
		double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
		for (int c = 0; c < 3; ++c)
		{
			r[9 + c] = len > 0.0 ? (float)(nn[c] / len) : 0.0f;
		}
		double lo = INFINITY, hi = -INFINITY;
		for (int j = 0; j < 3; ++j)
		{
			double d = (double)r[9] * v[j][0] + (double)r[10] * v[j][1] + (double)r[11] * v[j][2];
			lo = fmin(lo, d);
			hi = fmax(hi, d);
		}
		// Products of floats are exact in double; the sums err by far less than these few ulps of slack.
		double slack = 4.0 * DBL_EPSILON * (fabs(lo) + fabs(hi) + 1e-300);
		float fl = (float)(lo - slack), fh = (float)(hi + slack);
		r[12] = (double)fl > lo - slack ? nextafterf(fl, -INFINITY) : fl;
		r[13] = (double)fh < hi + slack ? nextafterf(fh, INFINITY) : fh;
		r[14] = r[15] = 0.0f;
	}
	return true;
}
