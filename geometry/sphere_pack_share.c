// Kollide — the volume each inner sphere stands for (kl_sphere_packing_represented_volumes): its own
// volume plus a share of the gaps, the part of the solid no sphere covers. Every grid point inside
// that no sphere covers goes to the sphere whose surface is nearest (|p − c| − r smallest, so a gap
// goes to the spheres around it, as in an additively weighted Voronoi diagram); the gap volume,
// the mesh's volume less the spheres', is split in proportion to those counts. The shares sum to
// the mesh's volume, and a sphere never stands for less than itself.
// SPDX-License-Identifier: MIT
#include "sphere_pack.h"

/// The nearest sphere surface to p (its index), widening the query until one lies within it.
static int nearest_sphere(const kl_sp_builder* b, vec3s p, double bound)
{
	int sphere = -1;
	for (int it = 0; sphere < 0 && it < 64; ++it, bound *= 2.0)
	{
		kl_sp_sphere_query(b, p, bound, &sphere);
	}
	return sphere;
}

kl_result kl_sp_share_gaps(const kl_sp_builder* b, float* represented)
{
	const kl_sp_grid* g = &b->grid;
	int32_t* gap_points = kl_alloc_zero((size_t)(b->count > 0 ? b->count : 1), sizeof(int32_t));
	if (gap_points == NULL)
	{
		return kl_fail(KL_ERR_OUT_OF_MEMORY, "sphere pack: %d gap counts", b->count);
	}
	// Grid points inside keep a non-negative clearance unless a sphere covers them (then it is that
	// sphere's distance, negative); outside points have a negative distance to the surface.
	int64_t gap_total = 0;
	for (int k = 0; k < g->n[2]; ++k)
	{
		for (int j = 0; j < g->n[1]; ++j)
		{
			for (int i = 0; i < g->n[0]; ++i)
			{
				float clear = g->clear[kl_sp_grid_index(g, i, j, k)];
				if (!(clear >= 0.0f))
				{
					continue;
				}
				int s = nearest_sphere(b, kl_sp_grid_point(g, i, j, k), (double)clear + g->h);
				if (s >= 0)
				{
					gap_points[s] += 1;
					gap_total += 1;
				}
			}
		}
	}
	double gap_volume = b->volume - b->covered > 0.0 ? b->volume - b->covered : 0.0;
	for (int s = 0; s < b->count; ++s)
	{
		double r = b->spheres[s].radius;
		double v = 4.0 / 3.0 * GLM_PI * r * r * r;
		// No gap point found (a packing finer than its grid): the gaps go in proportion to volume.
		double share = gap_total > 0 ? gap_volume * (double)gap_points[s] / (double)gap_total
									 : (b->covered > 0.0 ? gap_volume * v / b->covered : 0.0);
		represented[s] = (float)(v + share);
	}
	kl_free(gap_points);
	return KL_OK;
}
