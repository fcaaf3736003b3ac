// Kollide broadphase — a bounding volume hierarchy over resting (static and sleeping) proxies,
// built once from a sort and then only read. Leaves are sorted along a Morton curve of their
// centres (in the order of the float keys, so any coordinate range works, ±1e18 included) and
// grouped eight at a time; each level above holds the bounds of eight nodes of the level below.
// All levels are structure of arrays, so one AVX2 test checks the eight children of a node.
//
// Removing a leaf empties its box in place (parents keep their bounds, which stay conservative);
// the owner rebuilds the tree when too many leaves are dead.
// SPDX-License-Identifier: MIT
#pragma once

#include "simd.h"

#include <kollide/math.h>
#include <stdbool.h>
#include <stdint.h>

#define KL_TREE_WIDTH 8
#define KL_TREE_MAX_LEVELS 12 // 8^11 leaves

typedef struct kl_tree_level
{
	float* lower[3]; ///< count items, padded with empty boxes to a multiple of KL_TREE_WIDTH
	float* upper[3];
	int count;
} kl_tree_level;

typedef struct kl_static_tree
{
	kl_tree_level levels[KL_TREE_MAX_LEVELS]; ///< 0: leaves
	int level_count;						  ///< 0 when empty
	int32_t* ids;							  ///< proxy of each leaf
	int leaf_count;							  ///< leaves, dead ones included
	int live_count;
} kl_static_tree;

typedef struct kl_id_list
{
	int32_t* data;
	int count;
	int capacity;
} kl_id_list;

bool kl_id_list_push(kl_id_list* list, int32_t id);

void kl_static_tree_destroy(kl_static_tree* tree);

/// Rebuilds the tree from scratch with count proxies (ids, bounds from boxes[id]); tree->ids then
/// gives the proxy of each leaf. False on OOM (the tree is then empty).
bool kl_static_tree_build(kl_static_tree* tree, const int32_t* ids, int count, const kl_aabb* boxes);

/// Empties a leaf: it never overlaps anything again.
void kl_static_tree_kill(kl_static_tree* tree, int leaf);

/// Appends the proxies whose leaves overlap (or touch) box. Returns the number of node tests, or
/// -1 on OOM.
int kl_static_tree_query(const kl_static_tree* tree, kl_aabb box, kl_simd_level simd, kl_id_list* out);
