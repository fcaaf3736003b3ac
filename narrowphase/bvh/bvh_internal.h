// Kollide — SIMDop BVH build internals shared by the top-down build (bvh_build.c), the splits
// (bvh_split.c), the final node layout (bvh_pack.c) and the leaf pretest records (bvh_tri_records.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"

#include "core.h"

/// Build state: FP32 staging nodes (rows [2·axes][width], children, counts), grown as needed.
typedef struct kl_bvh_builder_state
{
	const kl_bvh_build_def* def;
	int width;
	int axes;
	const float* centroid; // 3 per triangle
	const float* tri_dop;  // 2·axes per triangle: lo then hi
	int* tris;
	float* box;
	int32_t* child;
	int32_t* count;
	int node_count;
	int node_capacity;
	int depth;
	int fallbacks;
	bool failed;
} kl_bvh_builder_state;

/// Splits tris[0..count) (count > width) with the def's builder, reordering it into contiguous groups;
/// returns the group count and their sizes. Falls back to the longest-axis split (counted in fallbacks).
int kl_bvh_split_range(kl_bvh_builder_state* s, int* tris, int count, int* size);

/// 64-byte aligned memory, on 2 MiB pages for arrays of a few MiB and more (free with free()).
void* kl_bvh_alloc_big(size_t bytes);

/// Root DOP, offsets (FP16 only) and the root's stored values.
void kl_bvh_set_root(kl_bvh* t, const float* lo, const float* hi);

/// Copies the live staging nodes into the final aligned layout; false (with kl_fail) without memory.
bool kl_bvh_pack_nodes(kl_bvh* t, const kl_bvh_builder_state* s);

/// Writes the leaf pretest's triangle records; false (with kl_fail) without memory.
bool kl_bvh_store_triangles(kl_bvh* t, const float* vertices, const int* indices);
