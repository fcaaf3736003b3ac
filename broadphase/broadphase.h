// Kollide broadphase — sweep-and-prune over fattened AABBs. It keeps the set of overlapping proxy
// pairs up to date and reports pair begin/end events. Proxies carry a user value (the engine uses
// shape slots); pairs are reported as user pairs, user_a < user_b, sorted, so the order does not
// depend on worker count or history.
//
// Two kinds of proxies: STATIC (static and sleeping bodies) are never re-sorted while they rest;
// MOVING ones are maintained incrementally (insertion sort on nearly sorted endpoints) or, when that
// would cost more (first update, many teleports, chaotic motion), rebuilt by the batch path
// (radix sort on the axis of largest variance, then sweep).
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

typedef enum kl_proxy_kind
{
	KL_PROXY_STATIC = 0,
	KL_PROXY_MOVING = 1,
} kl_proxy_kind;

typedef enum kl_broadphase_mode
{
	KL_BROADPHASE_AUTO = 0,		   ///< choose per update by estimated cost
	KL_BROADPHASE_INCREMENTAL = 1, ///< always maintain the sorted endpoints
	KL_BROADPHASE_BATCH = 2,	   ///< always rebuild from scratch (radix sort + sweep)
} kl_broadphase_mode;

typedef struct kl_pair
{
	int32_t user_a; ///< user_a < user_b
	int32_t user_b;
} kl_pair;

/// Returns false to keep a candidate pair out of the pair set (same body, masks, joints...).
/// Called only for pairs that begin to overlap (or are re-evaluated after kl_broadphase_touch_proxy).
/// A proxy whose kind changes, or that jumps beyond its old bounds in incremental mode, has its
/// pairs re-evaluated too (a pair the filter still accepts makes no event). Called serially.
typedef bool kl_pair_filter_fn(int32_t user_a, int32_t user_b, void* context);

/// Runs task over partition_count partitions (the world's worker pool); NULL runs serially.
typedef void kl_broadphase_parallel_fn(kl_task_fn* task, int partition_count, void* task_context, void* context);

typedef struct kl_broadphase_def
{
	kl_pair_filter_fn* filter;
	void* filter_context;
	kl_broadphase_mode mode;
	kl_broadphase_parallel_fn* parallel;
	void* parallel_context;
	int worker_count; ///< partitions for parallel work (results never depend on it)
	bool use_gpu;	  ///< run the batch path on CUDA when a device exists (same KL_HD kernels)
} kl_broadphase_def;

typedef struct kl_broadphase_events
{
	const kl_pair* begin;
	int begin_count;
	const kl_pair* end;
	int end_count;
} kl_broadphase_events;

typedef struct kl_broadphase_stats
{
	kl_broadphase_mode last_mode; ///< INCREMENTAL or BATCH: what the last update did
	int64_t endpoint_swaps;		  ///< insertion-sort moves in the last update
	int64_t overlap_tests;		  ///< box tests in the last update
	int pair_count;
	int moving_count;
	int static_count;
	double update_ms;
	bool used_gpu;
} kl_broadphase_stats;

typedef struct kl_broadphase kl_broadphase;

kl_broadphase_def kl_default_broadphase_def(void);
kl_broadphase* kl_broadphase_create(const kl_broadphase_def* def);
void kl_broadphase_destroy(kl_broadphase* bp);

/// Adds a proxy; -1 with KL_ERR_INVALID_ARGUMENT for NaN/Inf or inverted bounds (nothing changes).
/// Users should be unique among live proxies: pairs are keyed by proxy, reported by user.
int32_t kl_broadphase_create_proxy(kl_broadphase* bp, kl_aabb aabb, kl_proxy_kind kind, int32_t user);
/// Removes a proxy; its pairs end at the next update.
kl_result kl_broadphase_destroy_proxy(kl_broadphase* bp, int32_t proxy);
/// New fattened bounds; NaN/Inf or inverted bounds are rejected and the proxy keeps its old ones.
kl_result kl_broadphase_move_proxy(kl_broadphase* bp, int32_t proxy, kl_aabb aabb);
/// Static ↔ moving (a body falls asleep, wakes, or changes type).
kl_result kl_broadphase_set_proxy_kind(kl_broadphase* bp, int32_t proxy, kl_proxy_kind kind);
/// Re-evaluates the proxy's pairs with the filter at the next update (filter data changed).
kl_result kl_broadphase_touch_proxy(kl_broadphase* bp, int32_t proxy);
kl_aabb kl_broadphase_get_aabb(const kl_broadphase* bp, int32_t proxy);
/// Turns the CUDA batch path on or off from the next update on (kl_broadphase_def.use_gpu).
void kl_broadphase_set_use_gpu(kl_broadphase* bp, bool use_gpu);

/// Brings the pair set up to date with every change since the last update. Out of memory, it
/// returns KL_ERR_OUT_OF_MEMORY with no events; the next update that succeeds makes the pair set
/// exact again and reports every change since the last update that succeeded (bp_update.c's
/// resync). Destroyed ids are reused only after an update that succeeded.
kl_result kl_broadphase_update(kl_broadphase* bp);
/// The current pairs, sorted by (user_a, user_b). Built on demand (merged with the last update's
/// events), so not to be called from two threads at once. NULL (count 0) only when out of memory.
const kl_pair* kl_broadphase_get_pairs(const kl_broadphase* bp, int* count);
/// Pairs that began / ended in the last update, each sorted.
kl_broadphase_events kl_broadphase_get_events(const kl_broadphase* bp);
kl_broadphase_stats kl_broadphase_get_stats(const kl_broadphase* bp);
