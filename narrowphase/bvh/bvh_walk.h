// Kollide internal — a depth-first walk of a k-DOP BVH for single-object queries (a point, a ray):
// the query decides per child DOP whether to go on, and sees every leaf it reaches. Both callers'
// functions are static, so the compiler inlines them into this walk.
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"

/// Whether the query may reach anything inside the DOP (slabs lo/hi along the tree's directions).
typedef bool kl_bvh_walk_dop_fn(const kl_bvh* tree, const double* lo, const double* hi, void* query);
/// A leaf's triangle reached by the walk.
typedef void kl_bvh_walk_leaf_fn(int triangle, void* query);

/// Walks the tree from the root, depth first, visiting the children of a node in lane order and
/// pushing the inner ones that pass `dop`; `leaf` sees each triangle whose DOP passes.
static inline void kl_bvh_walk(const kl_bvh* tree, kl_bvh_walk_dop_fn* dop, kl_bvh_walk_leaf_fn* leaf, void* query)
{
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
			if (!dop(tree, lo, hi, query))
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
			leaf(-1 - child[lane], query);
		}
	}
}
