// Kollide narrowphase — the point-shell backend's data: the model of a mesh, the body pairs of a
// search, its figures and its reusable batch. Plain C without cglm, so that the CUDA glue
// (pointshell.cu) shares them; the functions are in pointshell.h.
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell_kernels.h"

#include <kollide/base.h>

#include <stddef.h>

/// The immutable model of one mesh. Vertices and indices are borrowed from the mesh.
typedef struct kl_pointshell
{
	uint64_t serial; ///< unique per build: the GPU's resident copy is found by it
	const kl_ps_f3* vertices;
	const int32_t* indices;
	int vertex_count;
	int triangle_count;
	kl_ps_conglomerate* congs;
	int cong_count;
	int32_t* tris;	  ///< triangle ids grouped by conglomerate
	kl_ps_mask* masks; ///< per triangle
	float* tri_coverage; ///< per triangle
	kl_ps_point* points;
	uint32_t point_count;
	kl_ps_node* nodes;
	int node_count;
	kl_ps_entry* entries; ///< the leaves' triangles (kl_ps_node.entry_begin)
	uint32_t entry_count;
	kl_ps_obb obb;		 ///< the object's PCA box
	float coverage;		 ///< the largest conglomerate coverage
	float spacing;		 ///< the sampling distance used
	int leaf_bucket;	 ///< the build's (kl_pointshell_build_def)
} kl_pointshell;

/// One body in a pair: its model and where it is (world = xf(object), xf = R · diag(scale) | t).
typedef struct kl_ps_body
{
	const kl_pointshell* model;
	kl_ps_xform xf;
	float min_scale; ///< of the shape's per-axis scale
	float max_scale;
} kl_ps_body;

typedef struct kl_ps_pair_query
{
	kl_ps_body a;
	kl_ps_body b;
	float margin; ///< the alarm distance (world)
} kl_ps_pair_query;

/// Per-stage figures of one search (milliseconds and counts).
typedef struct kl_ps_stats
{
	double obb_ms;		///< object and conglomerate boxes, work planning (CPU)
	double shell_ms;	///< point shells into octrees
	double sort_ms;		///< sorting and removing repeated candidates
	double triangle_ms; ///< the triangle stage
	double transfer_ms; ///< host to device and back (GPU only)
	int searches;		///< body pairs searched
	int cong_pairs;		///< conglomerate pairs whose boxes overlap (or all, when forced)
	int items;			///< triangle query items (both directions)
	long long raw_candidates;
	int unique_candidates;
	int near_pairs; ///< candidates within the alarm distance: the output
} kl_ps_stats;

/// Working memory and output of a search, reused between steps. Zero-initialise; free with
/// kl_ps_batch_free. After a search, keys[0 .. key_count) are the triangle pairs within the alarm
/// distance, sorted (kl_ps_key: body pair, then a's triangle, then b's), and pair_begin[i] ..
/// pair_begin[i + 1] are pair i's.
typedef struct kl_ps_batch
{
	kl_ps_work* works;
	int work_count;
	int work_capacity;
	int item_count;	  ///< triangle items (CPU)
	int sample_count; ///< sample items (GPU)
	/// Set by the caller: the CPU search runs an item per sample, as the GPU does, instead of one
	/// per triangle (same keys; a check of the GPU's decomposition where there is no GPU).
	bool sample_items;
	const kl_pointshell** models; ///< distinct models of the batch (the works index them)
	int model_count;
	int model_capacity;
	kl_ps_xform* world; ///< 2 per pair: a's and b's object-to-world
	int world_capacity;
	uint64_t* keys;
	uint32_t key_count;
	uint32_t key_capacity;
	uint64_t* spare; ///< sort buffer
	uint32_t spare_capacity;
	int* pair_begin; ///< pair_count + 1
	int pair_capacity;
	struct kl_ps_worker_keys* per_worker;
	int worker_capacity;
	kl_ps_model_view* views; ///< of models, for the CPU kernels
	int view_capacity;
	kl_ps_box* boxes; ///< the placed conglomerate boxes of one pair (OBB stage)
	int box_capacity;
} kl_ps_batch;

/// Most body pairs one search takes (16 bits of the key), and the largest triangle index (24).
#define KL_PS_MAX_PAIRS 65535
#define KL_PS_MAX_TRIANGLES (1 << 24)

