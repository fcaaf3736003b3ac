// Kollide broadphase internals shared by its files: the proxy table, the per-update lists and the
// structures (moving endpoints, batch items, static trees, pair set).
//
//   broadphase.c       API: creation, proxies, results
//   bp_update.c        the update: classify the calls since the last one, choose the mode, run stages
//   bp_pairs.c         begin/end candidates through the filter into the pair set; events; pair list
//   pair_set.c         hash set of overlapping pairs
//   sap_incremental.c  moving pairs, incremental: endpoint arrays kept sorted by insertion sort
//   sap_layout.c       moving pairs, batch: swept axis and grid of cells
//   sap_items.c        moving pairs, batch: items bucketed by cell, sorted, copied; queries
//   sap_batch.c        moving pairs, batch: the sweep (sap_kernels.h) and the diff; GPU hand-off
//   static_tree.c      bounding volume hierarchy over resting proxies
//   static_pairs.c     the static trees' levels and the moving-static pairs
//   radix_sort.c       sorts shared by all
// SPDX-License-Identifier: MIT
#pragma once

#include "broadphase.h"
#include "pair_set.h"
#include "sap_kernels.h"
#include "simd.h"
#include "static_tree.h"
#include "thread_pool.h"

#include "core.h"

#include <kollide/math.h>

// Proxy flags. The first four record calls since the last update (a new proxy has no home yet);
// the others are set by the update. All but ALIVE are cleared at its end.
enum
{
	KL_BP_ALIVE = 1 << 0,
	KL_BP_MOVED = 1 << 1,	  ///< move_proxy since the last update (old bounds in the change list)
	KL_BP_TOUCHED = 1 << 2,	  ///< touch_proxy since the last update
	KL_BP_DESTROYED = 1 << 3, ///< destroy_proxy since the last update; the id is freed at its end
	KL_BP_REQUERY = 1 << 4,	  ///< this update ends all its pairs and finds them again
	KL_BP_DROP = 1 << 5,	  ///< leaves the moving endpoint arrays in this update
	KL_BP_FRESH = 1 << 6,	  ///< enters the moving endpoint arrays in this update
};

// Where a proxy is now.
enum
{
	KL_BP_HOME_NONE = 0,
	KL_BP_HOME_MOVING = 1,
	KL_BP_HOME_STATIC = 2, ///< in static tree level info.level
};

#define KL_BP_STATIC_LEVELS 4 // leaves per level up to 256 * 128^l; the last one unbounded

typedef struct kl_bp_info
{
	int32_t user;
	int32_t slot;	// leaf index (static) or index in moving_ids (moving)
	int32_t change; // index in changes, -1 when unchanged since the last update
	uint8_t kind;	// what the user asked for
	uint8_t home;
	uint8_t level; // static tree level
	uint8_t flags;
} kl_bp_info;

typedef struct kl_bp_change
{
	int32_t proxy;
	kl_aabb prev; ///< bounds at the last update
} kl_bp_change;

/// Begin/end candidates produced by a parallel stage, applied serially in partition order.
typedef struct kl_bp_part
{
	uint64_t* begin; ///< pair keys
	int begin_count;
	int begin_capacity;
	uint64_t* end;
	int end_count;
	int end_capacity;
	kl_id_list hits;   ///< query scratch
	uint64_t* scratch; ///< pairs found by the batch sweep
	int scratch_capacity;
	int64_t tests; ///< box tests (stats)
	int64_t swaps; ///< endpoint moves of the insertion sort
	int64_t found; ///< pairs in scratch
	bool failed;   ///< out of memory in the task
} kl_bp_part;

/// Moving proxies' endpoints per axis, kept sorted between updates (sap_incremental.c). An endpoint
/// is kl_sap_float_key(value) << 32 | is_max << 31 | proxy: at equal values a min sorts before a
/// max, so key order says "min <= max", which is what touching-counts-as-overlap needs.
typedef struct kl_sap_axes
{
	uint64_t* ep[3];
	int count; ///< endpoints per axis (2 per proxy)
	int capacity;
	bool valid; ///< false after a batch update: rebuilt before the next incremental one
} kl_sap_axes;

/// Scratch and result of the batch path (sap_layout.c, sap_items.c, sap_batch.c); its sorted items
/// also answer box queries against the moving proxies for the rest of the update.
typedef struct kl_sap_batch
{
	int axis[3]; ///< w (swept), u, v
	kl_sap_grid grid;
	int cell_count;
	int layout_age;	  ///< batch updates since the axis and grid were chosen
	int layout_count; ///< moving proxies then
	int renumber_age; ///< batch updates since the moving slots were renumbered

	int item_count;
	int item_capacity;
	float* sorted; ///< 6 arrays of item_capacity + 8 floats: min_w, max_w, min_u, max_u, min_v, max_v
	int32_t* id;
	uint32_t* cell;
	uint32_t* corner;
	uint64_t* keys; ///< 2 * item_capacity: (float key of min on w) << 32 | slot, then sort scratch
	int32_t* cells; ///< 3 * cell_count: item ends, item beginnings, fill cursors
	int cells_capacity;
	uint32_t* range; ///< per moving slot: the cells of its box (kl_sap_cell_range)
	int range_capacity;
	double max_extent_w;
	kl_sap_items items;
	bool valid; ///< the items describe this update's moving proxies

	uint64_t* found; ///< moving pairs found by this update's sweep, sorted (filter not applied)
	int found_count;
	int found_capacity;
	uint64_t* previous; ///< the same list of the last update
	int previous_count;
	int previous_capacity;
	bool previous_valid; ///< the last update was a batch update that completed

	int32_t* gpu_source; ///< input of kl_sap_gpu_sweep
	int gpu_source_capacity;
	float* gpu_bounds;
	int gpu_bounds_capacity;
} kl_sap_batch;

/// The sorted pair list get_pairs hands out: merged with the last update's events when it was
/// current before that update, rebuilt from the pair set otherwise.
typedef struct kl_bp_cache
{
	kl_pair* pairs;
	int count;
	int capacity;
	kl_pair* spare;
	int spare_capacity;
	uint64_t* keys; ///< 2 * key_capacity, sort scratch
	int key_capacity;
	uint32_t epoch; ///< update the list belongs to
	bool valid;
	bool complete; ///< built after an update that succeeded: the next one's events may merge into it
} kl_bp_cache;

/// Milliseconds of the last update by stage (for tuning; not part of the public statistics).
typedef struct kl_bp_profile
{
	double changes;		 ///< classifying the calls since the last update
	double trees;		 ///< static tree insertions and rebuilds
	double items;		 ///< batch: layout, bucketing, sorting and copying the items
	double sweep;		 ///< batch: the sweep
	double diff;		 ///< batch: sorting the pairs found and the diff; incremental: the whole stage
	double static_pairs; ///< moving-static pairs
	double events;		 ///< finishing the pair set and sorting the events
} kl_bp_profile;

/// What the changes since the last update ask for, counted before the mode is chosen.
typedef struct kl_bp_plan
{
	int moved;		///< moving proxies that stay moving and got new bounds
	int far;		///< of those, bounds that do not overlap the old ones (teleports, fast bodies)
	int fresh;		///< proxies entering the moving set
	int requery;	///< moving proxies whose pairs are found again (touched, fresh)
	double disp[3]; ///< sum of |change of lower| + |change of upper| per axis over the moved, not far
} kl_bp_plan;

struct kl_broadphase
{
	kl_broadphase_def def;
	kl_simd_level simd;
	bool small_partitions; ///< test hook: split even tiny work, to exercise the parallel paths

	kl_aabb* boxes;
	kl_bp_info* info;
	int32_t* pair_counts; ///< live pairs per proxy
	int proxy_count; ///< high-water mark of proxy ids
	int proxy_capacity;
	int32_t* free_ids;
	int free_count;
	int free_capacity;
	uint64_t* dirty;  ///< bit per proxy: DROP or rekey, read by the endpoint sort
	uint64_t* ending; ///< bit per proxy: all its pairs end in this update (re-evaluated or destroyed)
	bool any_ending;

	kl_bp_change* changes;
	int change_count;
	int change_capacity;

	// Lists of the current update.
	kl_id_list requery;		   ///< moving proxies whose pairs are found again
	kl_id_list requery_static; ///< static proxies whose pairs are found again
	kl_id_list fresh;		   ///< moving proxies that enter the endpoint arrays
	kl_id_list rekey;		   ///< moving proxies that stay and whose bounds changed
	kl_id_list static_insert;  ///< proxies entering the static trees
	kl_id_list destroyed;	   ///< ids to free at the end of the update
	kl_id_list hits;		   ///< query scratch of serial stages
	uint64_t* candidates;	   ///< begin candidates of serial stages
	int candidate_count;
	int candidate_capacity;

	int32_t* moving_ids;  ///< per slot
	kl_aabb* moving_boxes; ///< per slot: the batch path reads these in sequence
	int moving_count;
	int moving_capacity;
	kl_sap_axes axes;
	double max_extent[3]; ///< upper bound of moving proxies' extents, per axis
	int max_extent_age;
	kl_sap_batch batch;

	kl_static_tree trees[KL_BP_STATIC_LEVELS];
	int static_count;

	kl_pair_set pairs;
	uint32_t epoch;

	// Partitions of parallel stages: 1 (serial) or def.worker_count, as the world's pool runs.
	kl_bp_part* parts; ///< max(worker_count, 3): the incremental pass keeps one per axis
	int part_count;
	int* part_first; ///< part_count + 1: first cell of each partition of the batch items

	// Events of the last update, sorted user pairs.
	kl_pair* begin;
	int begin_count;
	int begin_capacity;
	kl_pair* end;
	int end_count;
	int end_capacity;
	uint64_t* event_scratch;
	int event_scratch_capacity;
	uint64_t* sort_keys; ///< 2 * sort_capacity: scratch for sorting candidates and events
	int sort_capacity;
	uint32_t* event_histogram; ///< the events' radix sort, reserved before the pair set commits
	int event_histogram_capacity;
	bool events_ok; ///< the last update completed
	bool resync;	///< an update ran out of memory: the next one re-enters every proxy (bp_update.c)
	struct kl_bp_cache* cache; ///< sorted pair list, built on demand by get_pairs

	kl_bp_plan plan;
	// Cost model of the automatic mode.
	double swaps_per_length[3]; ///< endpoints crossed per unit of displacement, per axis
	bool swaps_calibrated;
	int64_t last_mm_found; ///< moving pairs the last batch sweep found

	kl_broadphase_stats stats;
	kl_bp_profile profile;
};

static inline double kl_bp_lap(double* since)
{
	double now = kl_time_seconds();
	double ms = 1000.0 * (now - *since);
	*since = now;
	return ms;
}

static inline bool kl_aabb_overlap(const kl_aabb* a, const kl_aabb* b)
{
	return a->lower.x <= b->upper.x && b->lower.x <= a->upper.x && a->lower.y <= b->upper.y &&
		   b->lower.y <= a->upper.y && a->lower.z <= b->upper.z && b->lower.z <= a->upper.z;
}

/// The bounds a proxy had at the last update.
static inline const kl_aabb* kl_bp_old_box(const kl_broadphase* bp, int32_t proxy)
{
	const kl_bp_info* info = bp->info + proxy;
	return (info->flags & KL_BP_MOVED) != 0 ? &bp->changes[info->change].prev : bp->boxes + proxy;
}

static inline void kl_bp_set_dirty(kl_broadphase* bp, int32_t proxy)
{
	bp->dirty[proxy >> 6] |= 1ull << (proxy & 63);
}

static inline bool kl_bp_is_dirty(const uint64_t* dirty, uint32_t proxy)
{
	return ((dirty[proxy >> 6] >> (proxy & 63)) & 1u) != 0;
}

// broadphase.c: test hooks
/// Runs the kernels scalar or with AVX2 (when the CPU has it) for this broadphase.
void kl_broadphase_set_simd(kl_broadphase* bp, kl_simd_level level);
/// Parallel stages split even tiny work, so that tests exercise them.
void kl_broadphase_set_small_partitions(kl_broadphase* bp, bool small);

// bp_pairs.c
const kl_pair* kl_bp_cache_pairs(const kl_broadphase* bp, int* count);
void kl_bp_cache_destroy(kl_bp_cache* cache);
/// Turns the pair set's changes into the sorted events of the update. False on OOM.
bool kl_bp_make_events(kl_broadphase* bp);
/// Room for sorting count keys in sort_keys.
bool kl_bp_reserve_sort(kl_broadphase* bp, int count);

/// Runs task over partition_count partitions: 1 runs it here, otherwise partition_count is
/// def.worker_count and the def's parallel callback runs them (the world's pool runs exactly that
/// many partitions, whatever it is asked).
void kl_bp_run(kl_broadphase* bp, kl_task_fn* task, int partition_count, void* context);
/// Partitions for parallel work on count items: def.worker_count, or 1 for small counts.
int kl_bp_partition_count(const kl_broadphase* bp, int count, int min_per_part);
/// The def's parallel callback over parts partitions (kl_parallel_ranges; 1 runs on this thread).
kl_parallel kl_bp_parallel(const kl_broadphase* bp, int parts);

bool kl_bp_part_push(uint64_t** list, int* count, int* capacity, uint64_t key);
void kl_bp_parts_reset(kl_broadphase* bp, int count);
bool kl_bp_push_candidate(kl_broadphase* bp, uint64_t key);

/// Begin candidate: adds the pair unless it is live already or the filter rejects it.
bool kl_bp_begin_pair(kl_broadphase* bp, uint64_t key);
/// End candidate: removes the pair if it is live.
bool kl_bp_end_pair(kl_broadphase* bp, uint64_t key);
/// Applies the candidates of the first count partitions in partition order.
bool kl_bp_apply_parts(kl_broadphase* bp, int count);
/// Sorts the serial candidate list, drops repeats and applies them as begin candidates.
bool kl_bp_apply_candidates(kl_broadphase* bp);

// sap_incremental.c
bool kl_sap_axes_reserve(kl_sap_axes* axes, int count);
void kl_sap_axes_destroy(kl_sap_axes* axes);
/// Sorts the endpoint arrays to the new bounds, finds the moving pairs whose status changed,
/// merges fresh proxies and finds their pairs. False on OOM.
bool kl_sap_incremental_update(kl_broadphase* bp);
/// Appends the moving proxies whose bounds overlap box (from the endpoint arrays). False on OOM.
bool kl_sap_axes_query(kl_broadphase* bp, const kl_aabb* box, kl_id_list* out, int64_t* tests);
/// Estimated cost (about nanoseconds, compared with kl_sap_batch_cost) of an incremental update.
double kl_sap_incremental_cost(const kl_broadphase* bp);

// sap_layout.c
/// Chooses (now and then) the swept axis and the grid for the moving proxies. False on OOM.
bool kl_sap_update_layout(kl_broadphase* bp);
/// The cells a box touches: u from, u to, v from, v to, a byte each.
uint32_t kl_sap_cell_range(const kl_sap_batch* batch, const kl_aabb* box);

// sap_items.c
void kl_sap_batch_destroy(kl_sap_batch* batch);
/// Builds the sorted items of the moving proxies. False on OOM.
bool kl_sap_build_items(kl_broadphase* bp);
/// Appends the moving proxies whose bounds overlap box (from the sorted items). False on OOM.
bool kl_sap_batch_query(kl_broadphase* bp, const kl_aabb* box, kl_id_list* out, int64_t* tests);
#if defined(KL_SAP_HAVE_GPU)
/// The unsorted items and per-proxy arrays kl_sap_gpu_sweep takes. False on OOM.
bool kl_sap_gpu_input(kl_broadphase* bp, kl_sap_gpu_batch* in);
#endif

// sap_batch.c
/// Builds the sorted items and sweeps them: batch.found holds every moving pair, sorted. False on OOM.
bool kl_sap_sweep_all(kl_broadphase* bp);
/// Finds all moving pairs from scratch and diffs them against the pair set. False on OOM.
bool kl_sap_batch_update(kl_broadphase* bp);
double kl_sap_batch_cost(const kl_broadphase* bp);

// broadphase.c
/// Puts a proxy in the change list (once per update), keeping its bounds of the last update.
bool kl_bp_note_change(kl_broadphase* bp, int32_t proxy);

// static_pairs.c
/// Takes a proxy out of its static tree.
void kl_static_trees_remove(kl_broadphase* bp, int32_t proxy);
/// Inserts the proxies of bp->static_insert and rebuilds levels with many dead leaves. False on OOM.
bool kl_static_trees_update(kl_broadphase* bp);
void kl_static_trees_destroy(kl_broadphase* bp);
/// Queries every static tree level.
int64_t kl_static_trees_query(const kl_broadphase* bp, const kl_aabb* box, kl_id_list* out);
/// Moving-static pair changes for this update. False on OOM.
bool kl_static_pairs_update(kl_broadphase* bp);
