// Kollide narrowphase — the point-shell backend for mesh pairs (Aichele, seed-004 §3): a flat
// hierarchy of conglomerates whose candidate triangle pairs come from placing one conglomerate's
// point shell into the other's octree. Model and per-item kernels: pointshell_kernels.h. This
// header: building a model (pointshell_build.c) and the per-step candidate search over a batch of
// body pairs, on CPU threads (pointshell_query.c) or CUDA (pointshell.cu), same kernels both ways.
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell_types.h"

#include "core.h"

#include <stddef.h>

struct kl_thread_pool;

/// How triangles are grouped into conglomerates (pointshell_groups.c, docs/pointshell.md).
typedef enum kl_ps_grouping
{
	/// Centroids split at the median of their longest axis until a group holds at most max_triangles
	/// (the default: the fastest searches on the benchmark scenes but the knots').
	KL_PS_GROUP_MEDIAN_CUT = 0,
	/// Surface clustering: regions grown across shared edges from evenly spread seeds, each taking
	/// the triangles that best continue its normal near its seed, up to max_triangles; each is
	/// connected across edges (faster for the knots of E1, slower for gears).
	KL_PS_GROUP_SURFACE = 1,
} kl_ps_grouping;

typedef struct kl_pointshell_build_def
{
	/// Conglomerates hold at most this many triangles.
	int max_triangles; ///< 64
	/// Target distance between samples (object units); 0: a third of the median edge length.
	float spacing;
	kl_ps_grouping grouping; ///< KL_PS_GROUP_MEDIAN_CUT
	/// An octant holding this many samples or fewer is a leaf (the thesis's 32). 0, the default: the
	/// fastest for the backend this machine runs, KL_PS_LEAF_BUCKET_GPU (one leaf per conglomerate)
	/// where a CUDA device is present, else KL_PS_LEAF_BUCKET (256). Every bucket gives the same
	/// pairs; negative is refused.
	int leaf_bucket;
} kl_pointshell_build_def;

kl_pointshell_build_def kl_pointshell_default_build_def(void);

/// The leaf bucket a build with this def uses (def->leaf_bucket, or the automatic one for 0).
int kl_pointshell_leaf_bucket(const kl_pointshell_build_def* def);

/// Builds the model of a triangle mesh (vertices and indices must outlive it). progress may be NULL;
/// it is called with fractions in [0, 1] and may return false to cancel. NULL with a message on
/// failure (bad input, out of memory, cancelled).
kl_pointshell* kl_pointshell_build(const vec3s* vertices, int vertex_count, const int32_t* indices,
								   int triangle_count, const kl_pointshell_build_def* def,
								   bool (*progress)(float fraction, void* context), void* context);
void kl_pointshell_destroy(kl_pointshell* model);

kl_ps_model_view kl_pointshell_view(const kl_pointshell* model);

/// A fresh serial for a model (built or loaded).
uint64_t kl_pointshell_next_serial(void);

/// Writes the model to a cache file (pointshell_cache.c), with the settings it was built with.
kl_result kl_pointshell_save(const char* path, const kl_pointshell* model, const kl_pointshell_build_def* def);
/// Reads a model from a cache file written for these vertices, indices and settings; NULL when the
/// file is missing or does not match or check out (nothing recorded: the caller builds instead).
kl_pointshell* kl_pointshell_load(const char* path, const vec3s* vertices, int vertex_count, const int32_t* indices,
								  int triangle_count, const kl_pointshell_build_def* def);

/// Bytes of the model by part.
typedef struct kl_pointshell_memory
{
	size_t shells;		  ///< the masks: 40 per triangle
	size_t coverage;	  ///< the coverage radius: 4 per triangle
	size_t octrees;		  ///< points and nodes
	size_t conglomerates; ///< records and grouped triangle ids
} kl_pointshell_memory;

kl_pointshell_memory kl_pointshell_memory_of(const kl_pointshell* model);

// ---------------------------------------------------------------------------------------------
// Per-step candidate search

void kl_ps_batch_free(kl_ps_batch* batch);

/// The OBB stage: object boxes, then every conglomerate pair's boxes (or every pair when
/// force_all), planned into works of both directions. KL_OK, or an error for bad input (too many
/// pairs or triangles, a missing model, non-finite transforms).
kl_result kl_ps_plan(const kl_ps_pair_query* pairs, int pair_count, bool force_all, kl_ps_batch* batch,
					 kl_ps_stats* stats);

/// The whole search on CPU threads (pool may be NULL: the calling thread): plan, point shells into
/// octrees, sort and unique, triangle stage. stats may be NULL.
kl_result kl_ps_search_cpu(const kl_ps_pair_query* pairs, int pair_count, bool force_all, struct kl_thread_pool* pool,
						   int worker_count, kl_ps_batch* batch, kl_ps_stats* stats);

/// The same search on the GPU: models are uploaded once and stay resident; per call only the works,
/// transforms and the surviving keys cross the bus. KL_ERR_UNSUPPORTED when no CUDA device can run
/// it (the caller then uses kl_ps_search_cpu).
kl_result kl_ps_search_gpu(const kl_ps_pair_query* pairs, int pair_count, bool force_all, kl_ps_batch* batch,
						   kl_ps_stats* stats);

/// Grows an array of `size`-byte items to hold at least `need` (doubling); false when out of memory.
bool kl_ps_grow(void** array, int* capacity, int need, size_t size);

/// Adds b's times and counts to a.
void kl_ps_stats_add(kl_ps_stats* a, const kl_ps_stats* b);

/// Sorts batch->keys and drops repeats (the CPU path's candidates, and the keys the GPU kept, which come
/// unsorted). False on OOM.
bool kl_ps_sort_unique(kl_ps_batch* batch);

/// Sets batch->pair_begin from the sorted keys.
void kl_ps_pair_ranges(kl_ps_batch* batch, int pair_count);

/// Whether a CUDA device can run the search (probed once).
bool kl_ps_gpu_available(void);

/// The body of a world shape for a search: transform and scale into xf.
kl_ps_body kl_ps_body_make(const kl_pointshell* model, kl_transform xf, vec3s scale);
