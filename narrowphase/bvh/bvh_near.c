// Kollide — triangles of a k-DOP BVH near a point, depth first, slab distances in double.
// SPDX-License-Identifier: MIT
#include "bvh_near.h"

#include "bvh_walk.h"

#include <math.h>

/// A lower bound of the distance from the point to the DOP: the farthest slab it lies outside of,
/// each slab's gap divided by its direction's length.
static double kl_point_dop_gap(const kl_bvh* t, const double p[3], const double* inv_len, const double* lo,
							   const double* hi)
{
	double gap = 0.0;
	for (int a = 0; a < t->axes; ++a)
	{
		const float* n = t->dirs->dir[a];
		double s = n[0] * p[0] + n[1] * p[1] + n[2] * p[2];
		double outside = fmax(lo[a] - s, s - hi[a]) * inv_len[a];
		gap = fmax(gap, outside);
	}
	return gap;
}

typedef struct kl_near_walk
{
	const double* point;
	double radius;
	double inv_len[KL_KDOP_MAX_AXES];
	kl_bvh_near_fn* visit;
	void* context;
} kl_near_walk;

static bool kl_near_dop(const kl_bvh* tree, const double* lo, const double* hi, void* query)
{
	kl_near_walk* w = query;
	return kl_point_dop_gap(tree, w->point, w->inv_len, lo, hi) <= w->radius;
}

static void kl_near_leaf(int triangle, void* query)
{
	kl_near_walk* w = query;
	w->visit(triangle, &w->radius, w->context);
}

void kl_bvh_near_point(const kl_bvh* tree, const double point[3], double radius, kl_bvh_near_fn* visit,
					   void* context)
{
	if (tree == NULL || visit == NULL || !(radius >= 0.0))
	{
		return;
	}
	kl_near_walk w = {point, radius, {0}, visit, context};
	for (int a = 0; a < tree->axes; ++a)
	{
		const float* n = tree->dirs->dir[a];
		// Slightly shortened: float slabs are rounded outward, so the bound stays a lower one.
		w.inv_len[a] = (1.0 - 1e-6) / sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
	}
	kl_bvh_walk(tree, kl_near_dop, kl_near_leaf, &w);
}
