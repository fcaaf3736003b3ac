// Kollide — triangles of a k-DOP BVH near a point, depth first, slab distances in double.
// SPDX-License-Identifier: MIT
#include "bvh_near.h"

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

void kl_bvh_near_point(const kl_bvh* tree, const double point[3], double radius, kl_bvh_near_fn* visit,
					   void* context)
{
	if (tree == NULL || visit == NULL || !(radius >= 0.0))
	{
		return;
	}
	double inv_len[KL_KDOP_MAX_AXES];
	for (int a = 0; a < tree->axes; ++a)
	{
		const float* n = tree->dirs->dir[a];
		// Slightly shortened: float slabs are rounded outward, so the bound stays a lower one.
		inv_len[a] = (1.0 - 1e-6) / sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
	}
	int stack[64 * KL_BVH_MAX_WIDTH]; // 64 levels of the widest nodes
	int top = 0;
	stack[top++] = 0;
	double lo[KL_KDOP_MAX_AXES], hi[KL_KDOP_MAX_AXES];
	while (top > 0)
	{
		int node = stack[--top];
		const int32_t* child = kl_bvh_node_children(tree, node);
		int count = kl_bvh_node_count(tree, node);
		for (int lane = 0; lane < count; ++lane)
		{
			kl_bvh_child_dop(tree, node, lane, lo, hi);
			if (kl_point_dop_gap(tree, point, inv_len, lo, hi) > radius)
			{
				continue;
			}
			if (child[lane] >= 0)
			{
				if (top < (int)(sizeof(stack) / sizeof(stack[0])))
				{
					stack[top++] = child[lane];
				}
				continue;
			}
			visit(-1 - child[lane], &radius, context);
		}
	}
}
