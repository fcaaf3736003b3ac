// Kollide broadphase — the update pipeline: classify the changes since the last update, choose
// incremental or batch for the moving proxies, update the static trees, find the pairs whose status
// changed and turn the pair set's changes into sorted events.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"
#include "radix_sort.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------
// Helpers shared by the stages

void kl_bp_run(kl_broadphase* bp, kl_task_fn* task, int partition_count, void* context)
{
	if (partition_count <= 0)
	{
		return;
	}
	if (bp->def.parallel != NULL && partition_count > 1)
	{
		bp->def.parallel(task, partition_count, context, bp->def.parallel_context);
	}
	else
	{
		task(0, partition_count, 0, context);
	}
}

int kl_bp_partition_count(const kl_broadphase* bp, int count, int min_per_part)
{
	if (bp->def.parallel == NULL || bp->def.worker_count <= 1)
	{
		return 1;
	}
	// A few partitions per worker even out uneven work; the results never depend on the count.
	int parts = 4 * bp->def.worker_count;
	int most = bp->small_partitions ? count : count / (min_per_part > 0 ? min_per_part : 1);
	parts = parts < most ? parts : most;
	parts = parts < KL_BP_MAX_PARTS ? parts : KL_BP_MAX_PARTS;
	return parts > 1 ? parts : 1;
}

bool kl_bp_part_push(uint64_t** list, int* count, int* capacity, uint64_t key)
{
	if (*count == *capacity && !KL_ARRAY_RESERVE(*list, *capacity, *count + 1))
	{
		return false;
	}
	(*list)[(*count)++] = key;
	return true;
}

void kl_bp_parts_reset(kl_broadphase* bp, int count)
{
	for (int p = 0; p < count; ++p)
	{
		kl_bp_part* part = bp->parts + p;
		part->begin_count = 0;
		part->end_count = 0;
		part->hits.count = 0;
		part->tests = 0;
		part->swaps = 0;
		part->found = 0;
		part->failed = false;
	}
}

bool kl_bp_push_candidate(kl_broadphase* bp, uint64_t key)
{
	return kl_bp_part_push(&bp->candidates, &bp->candidate_count, &bp->candidate_capacity, key);
}

bool kl_bp_begin_pair(kl_broadphase* bp, uint64_t key)
{
	int32_t record = kl_pair_set_find(&bp->pairs, key);
	if (record >= 0 && kl_pair_is_live(bp->pairs.records + record))
	{
		return true;
	}
	int32_t a = (int32_t)(key >> 32);
	int32_t b = (int32_t)(key & 0xffffffffu);
	if (bp->def.filter != NULL)
	{
		int32_t ua = bp->info[a].user;
		int32_t ub = bp->info[b].user;
		bool keep = ua < ub ? bp->def.filter(ua, ub, bp->def.filter_context)
							: bp->def.filter(ub, ua, bp->def.filter_context);
		if (!keep)
		{
			return true;
		}
	}
	return kl_pair_set_add(&bp->pairs, bp->pair_heads, a, b, record, bp->epoch);
}

bool kl_bp_end_pair(kl_broadphase* bp, uint64_t key)
{
	int32_t record = kl_pair_set_find(&bp->pairs, key);
	return record < 0 || kl_pair_set_remove(&bp->pairs, record);
}

bool kl_bp_apply_parts(kl_broadphase* bp, int count)
{
	bool ok = true;
	for (int p = 0; p < count && ok; ++p)
	{
		kl_bp_part* part = bp->parts + p;
		ok = !part->failed;
		if (!ok)
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "out of memory in a broadphase task");
		}
		for (int i = 0; i < part->end_count && ok; ++i)
		{
			ok = kl_bp_end_pair(bp, part->end[i]);
		}
		for (int i = 0; i < part->begin_count && ok; ++i)
		{
			ok = kl_bp_begin_pair(bp, part->begin[i]);
		}
		bp->stats.overlap_tests += part->tests;
	}
	return ok;
}

static bool reserve_sort(kl_broadphase* bp, int count)
{
	return KL_ARRAY_RESERVE(bp->sort_keys, bp->sort_capacity, 2 * count);
}

bool kl_bp_apply_candidates(kl_broadphase* bp)
{
	int n = bp->candidate_count;
	bp->candidate_count = 0;
	if (n == 0)
	{
		return true;
	}
	if (!reserve_sort(bp, n))
	{
		return false;
	}
	// Sorted and unique, so that the filter sees each pair once, in an order that does not depend
	// on how the candidates were found.
	if (!kl_radix_sort_u64(bp->candidates, bp->sort_keys, n))
	{
		return false;
	}
	for (int i = 0; i < n; ++i)
	{
		if ((i == 0 || bp->candidates[i] != bp->candidates[i - 1]) && !kl_bp_begin_pair(bp, bp->candidates[i]))
		{
			return false;
		}
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Classification of the changes

static bool moving_add(kl_broadphase* bp, int32_t proxy)
{
	if (bp->moving_count == bp->moving_capacity)
	{
		int capacity = bp->moving_capacity > 0 ? 2 * bp->moving_capacity : 64;
		int32_t* ids = kl_realloc(bp->moving_ids, (size_t)capacity, sizeof(int32_t));
		if (ids != NULL)
		{
			bp->moving_ids = ids;
		}
		kl_aabb* boxes = kl_realloc(bp->moving_boxes, (size_t)capacity, sizeof(kl_aabb));
		if (boxes != NULL)
		{
			bp->moving_boxes = boxes;
		}
		if (ids == NULL || boxes == NULL)
		{
			return false;
		}
		bp->moving_capacity = capacity;
	}
	bp->info[proxy].slot = bp->moving_count;
	bp->info[proxy].home = KL_BP_HOME_MOVING;
	bp->moving_boxes[bp->moving_count] = bp->boxes[proxy];
	bp->moving_ids[bp->moving_count++] = proxy;
	return true;
}

static void moving_remove(kl_broadphase* bp, int32_t proxy)
{
	int slot = bp->info[proxy].slot;
	int32_t last = bp->moving_ids[--bp->moving_count];
	bp->moving_ids[slot] = last;
	bp->moving_boxes[slot] = bp->moving_boxes[bp->moving_count];
	bp->info[last].slot = slot;
	bp->info[proxy].slot = -1;
	bp->info[proxy].home = KL_BP_HOME_NONE;
}

static void grow_extent(kl_broadphase* bp, int32_t proxy)
{
	const kl_aabb* b = bp->boxes + proxy;
	for (int k = 0; k < 3; ++k)
	{
		// A hair above the float difference, so that rounding never makes it an underestimate.
		double e = ((double)b->upper.raw[k] - (double)b->lower.raw[k]) * (1.0 + 1.0e-12);
		if (e > bp->max_extent[k])
		{
			bp->max_extent[k] = e;
		}
	}
}

static bool requery(kl_broadphase* bp, int32_t proxy, bool moving)
{
	kl_bp_info* info = bp->info + proxy;
	if ((info->flags & KL_BP_REQUERY) != 0)
	{
		return true;
	}
	info->flags |= KL_BP_REQUERY;
	if (!kl_pair_set_remove_all(&bp->pairs, bp->pair_heads, proxy))
	{
		return false;
	}
	return kl_id_list_push(moving ? &bp->requery : &bp->requery_static, proxy);
}

static bool enter_moving(kl_broadphase* bp, int32_t proxy)
{
	bp->info[proxy].flags |= KL_BP_FRESH;
	grow_extent(bp, proxy);
	return moving_add(bp, proxy) && kl_id_list_push(&bp->fresh, proxy);
}

static void leave_moving(kl_broadphase* bp, int32_t proxy)
{
	bp->info[proxy].flags |= KL_BP_DROP;
	kl_bp_set_dirty(bp, proxy);
	moving_remove(bp, proxy);
}

static bool destroy(kl_broadphase* bp, int32_t proxy)
{
	kl_bp_info* info = bp->info + proxy;
	if (info->home == KL_BP_HOME_MOVING)
	{
		leave_moving(bp, proxy);
	}
	else if (info->home == KL_BP_HOME_STATIC)
	{
		kl_static_trees_remove(bp, proxy);
	}
	return kl_pair_set_remove_all(&bp->pairs, bp->pair_heads, proxy) && kl_id_list_push(&bp->destroyed, proxy);
}

// A moving proxy with new bounds: re-sorted in place, or (incremental, teleported) taken out of the
// endpoint arrays and merged in again with its pairs found from scratch, which costs a query
// instead of a walk across everything between the old and the new place.
static bool move_moving(kl_broadphase* bp, int32_t proxy, const kl_aabb* prev, kl_broadphase_mode mode)
{
	grow_extent(bp, proxy);
	bp->moving_boxes[bp->info[proxy].slot] = bp->boxes[proxy];
	if (mode == KL_BROADPHASE_INCREMENTAL && !kl_aabb_overlap(prev, bp->boxes + proxy))
	{
		bp->info[proxy].flags |= KL_BP_DROP | KL_BP_FRESH;
		kl_bp_set_dirty(bp, proxy);
		return kl_id_list_push(&bp->fresh, proxy) && requery(bp, proxy, true);
	}
	kl_bp_set_dirty(bp, proxy);
	return kl_id_list_push(&bp->rekey, proxy);
}

static bool apply_change(kl_broadphase* bp, const kl_bp_change* change, kl_broadphase_mode mode)
{
	int32_t proxy = change->proxy;
	kl_bp_info* info = bp->info + proxy;
	if ((info->flags & KL_BP_DESTROYED) != 0)
	{
		return destroy(bp, proxy);
	}
	bool to_moving = info->kind == KL_PROXY_MOVING;
	bool ok = true;
	if (info->home == KL_BP_HOME_NONE || (info->home == KL_BP_HOME_MOVING) != to_moving)
	{
		// New, or a kind change: leaves its old structure, enters the other, pairs found again.
		if (info->home == KL_BP_HOME_MOVING)
		{
			leave_moving(bp, proxy);
		}
		else if (info->home == KL_BP_HOME_STATIC)
		{
			kl_static_trees_remove(bp, proxy);
		}
		ok = to_moving ? enter_moving(bp, proxy) : kl_id_list_push(&bp->static_insert, proxy);
		ok = ok && requery(bp, proxy, to_moving);
	}
	else if ((info->flags & KL_BP_MOVED) != 0)
	{
		if (to_moving)
		{
			ok = move_moving(bp, proxy, &change->prev, mode);
		}
		else
		{
			kl_static_trees_remove(bp, proxy);
			ok = kl_id_list_push(&bp->static_insert, proxy) && requery(bp, proxy, false);
		}
	}
	if (ok && (info->flags & KL_BP_TOUCHED) != 0)
	{
		ok = requery(bp, proxy, to_moving);
	}
	return ok;
}

// Counts what the changes ask of the moving structure, before anything changes.
static void plan_changes(kl_broadphase* bp)
{
	kl_bp_plan* plan = &bp->plan;
	memset(plan, 0, sizeof(*plan));
	for (int c = 0; c < bp->change_count; ++c)
	{
		const kl_bp_change* change = bp->changes + c;
		const kl_bp_info* info = bp->info + change->proxy;
		bool to_moving = info->kind == KL_PROXY_MOVING;
		if ((info->flags & KL_BP_DESTROYED) != 0 || !to_moving)
		{
			continue;
		}
		if (info->home != KL_BP_HOME_MOVING)
		{
			plan->fresh++;
			plan->requery++;
			continue;
		}
		plan->requery += (info->flags & KL_BP_TOUCHED) != 0;
		if ((info->flags & KL_BP_MOVED) == 0)
		{
			continue;
		}
		const kl_aabb* now = bp->boxes + change->proxy;
		if (!kl_aabb_overlap(&change->prev, now))
		{
			plan->far++;
			continue;
		}
		plan->moved++;
		for (int k = 0; k < 3; ++k)
		{
			plan->disp[k] += fabs((double)now->lower.raw[k] - (double)change->prev.lower.raw[k]) +
							 fabs((double)now->upper.raw[k] - (double)change->prev.upper.raw[k]);
		}
	}
}

static kl_broadphase_mode choose_mode(const kl_broadphase* bp)
{
	if (bp->def.mode == KL_BROADPHASE_INCREMENTAL || bp->def.mode == KL_BROADPHASE_BATCH)
	{
		return bp->def.mode;
	}
	// Many proxies entering the endpoint arrays (the first update, a wave of teleports) cost a
	// query each: the batch path finds everything at once.
	int entering = bp->plan.fresh + bp->plan.far;
	if (entering > 32 + bp->moving_count / 16)
	{
		return KL_BROADPHASE_BATCH;
	}
	return kl_sap_incremental_cost(bp) <= kl_sap_batch_cost(bp) ? KL_BROADPHASE_INCREMENTAL : KL_BROADPHASE_BATCH;
}

// ---------------------------------------------------------------------------------------------
// Events

static uint64_t user_key(int32_t a, int32_t b)
{
	// Flipping the sign bits makes unsigned order the signed (a, b) order.
	return ((uint64_t)((uint32_t)a ^ 0x80000000u) << 32) | ((uint32_t)b ^ 0x80000000u);
}

static kl_pair key_pair(uint64_t key)
{
	return (kl_pair){(int32_t)((uint32_t)(key >> 32) ^ 0x80000000u), (int32_t)((uint32_t)key ^ 0x80000000u)};
}

static uint64_t proxy_user_key(const kl_broadphase* bp, int32_t a, int32_t b)
{
	int32_t ua = bp->info[a].user;
	int32_t ub = bp->info[b].user;
	return ua < ub ? user_key(ua, ub) : user_key(ub, ua);
}

// Proxy pairs to sorted user pairs.
static bool sort_events(kl_broadphase* bp, const int32_t* proxies, int count, kl_pair** out, int* capacity)
{
	if (!KL_ARRAY_RESERVE(*out, *capacity, count) || !reserve_sort(bp, count))
	{
		return false;
	}
	uint64_t* keys = bp->sort_keys;
	for (int i = 0; i < count; ++i)
	{
		keys[i] = proxy_user_key(bp, proxies[2 * i], proxies[2 * i + 1]);
	}
	if (!kl_radix_sort_u64(keys, keys + count, count))
	{
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		(*out)[i] = key_pair(keys[i]);
	}
	return true;
}

static bool make_events(kl_broadphase* bp)
{
	int added = bp->pairs.added_count;
	int removed = bp->pairs.removed_count;
	if (!KL_ARRAY_RESERVE(bp->event_scratch, bp->event_scratch_capacity, 2 * (added + removed)))
	{
		return false;
	}
	int32_t* begin = bp->event_scratch;
	int32_t* end = bp->event_scratch + 2 * added;
	int nb = 0, ne = 0;
	kl_pair_set_finish(&bp->pairs, bp->pair_heads, begin, &nb, end, &ne);
	bp->begin_count = nb;
	bp->end_count = ne;
	return sort_events(bp, begin, nb, &bp->begin, &bp->begin_capacity) &&
		   sort_events(bp, end, ne, &bp->end, &bp->end_capacity);
}

// Clears the per-update state and frees the destroyed ids (only now, so that a pair key never
// names two proxies within one update).
static bool finish_changes(kl_broadphase* bp)
{
	for (int c = 0; c < bp->change_count; ++c)
	{
		int32_t proxy = bp->changes[c].proxy;
		kl_bp_info* info = bp->info + proxy;
		info->change = -1;
		info->flags &= KL_BP_ALIVE;
		bp->dirty[proxy >> 6] &= ~(1ull << (proxy & 63));
	}
	bp->change_count = 0;
	kl_id_list* lists[] = {&bp->requery, &bp->requery_static, &bp->fresh, &bp->rekey, &bp->static_insert};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); ++i)
	{
		lists[i]->count = 0;
	}
	bool ok = KL_ARRAY_RESERVE(bp->free_ids, bp->free_capacity, bp->free_count + bp->destroyed.count);
	for (int i = 0; i < bp->destroyed.count && ok; ++i)
	{
		bp->info[bp->destroyed.data[i]].flags = 0;
		bp->free_ids[bp->free_count++] = bp->destroyed.data[i];
	}
	bp->destroyed.count = 0;
	return ok;
}

// ---------------------------------------------------------------------------------------------
// The update

static bool run_update(kl_broadphase* bp)
{
	plan_changes(bp);
	kl_broadphase_mode mode = choose_mode(bp);
	bp->plan.mode = mode;
	bp->stats.last_mode = mode;
	for (int c = 0; c < bp->change_count; ++c)
	{
		if (!apply_change(bp, bp->changes + c, mode))
		{
			return false;
		}
	}
	if (!kl_static_trees_update(bp))
	{
		return false;
	}
	bp->batch.valid = false;
	if (mode == KL_BROADPHASE_INCREMENTAL)
	{
		bp->batch.previous_valid = false;
	}
	bool ok = mode == KL_BROADPHASE_INCREMENTAL ? kl_sap_incremental_update(bp) : kl_sap_batch_update(bp);
	return ok && kl_static_pairs_update(bp) && make_events(bp);
}

kl_result kl_broadphase_update(kl_broadphase* bp)
{
	double t0 = kl_time_seconds();
	bp->epoch++;
	bp->begin_count = 0;
	bp->end_count = 0;
	bp->stats.endpoint_swaps = 0;
	bp->stats.overlap_tests = 0;
	bp->stats.used_gpu = false;
	bp->events_ok = false;
	bool ok = run_update(bp);
	ok = finish_changes(bp) && ok;
	bp->events_ok = ok;
	bp->max_extent_age++;
	bp->stats.update_ms = 1000.0 * (kl_time_seconds() - t0);
	if (!ok)
	{
		// The pair set may be incomplete now: the next get_pairs rebuilds from it.
		bp->cache->valid = false;
		bp->batch.previous_valid = false;
		return kl_last_error_code() != KL_OK ? kl_last_error_code() : KL_ERR_OUT_OF_MEMORY;
	}
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// The sorted pair list

void kl_bp_cache_destroy(kl_bp_cache* cache)
{
	if (cache != NULL)
	{
		kl_free(cache->pairs);
		kl_free(cache->spare);
		kl_free(cache->keys);
	}
}

static bool cache_rebuild(const kl_broadphase* bp, kl_bp_cache* cache)
{
	const kl_pair_set* set = &bp->pairs;
	int n = set->live_count;
	if (!KL_ARRAY_RESERVE(cache->keys, cache->key_capacity, 2 * n) ||
		!KL_ARRAY_RESERVE(cache->pairs, cache->capacity, n))
	{
		return false;
	}
	int count = 0;
	for (int r = 0; r < set->record_count; ++r)
	{
		const kl_pair_record* rec = set->records + r;
		if (rec->state == KL_PAIR_NORMAL && count < n)
		{
			cache->keys[count++] = proxy_user_key(bp, rec->proxy[0], rec->proxy[1]);
		}
	}
	if (!kl_radix_sort_u64(cache->keys, cache->keys + count, count))
	{
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		cache->pairs[i] = key_pair(cache->keys[i]);
	}
	cache->count = count;
	return true;
}

static bool pair_less(kl_pair a, kl_pair b)
{
	return a.user_a < b.user_a || (a.user_a == b.user_a && a.user_b < b.user_b);
}

static bool pair_equal(kl_pair a, kl_pair b)
{
	return a.user_a == b.user_a && a.user_b == b.user_b;
}

// The list of the update before, minus the end events, plus the begin events.
static bool cache_merge(const kl_broadphase* bp, kl_bp_cache* cache)
{
	int n = cache->count - bp->end_count + bp->begin_count;
	if (!KL_ARRAY_RESERVE(cache->spare, cache->spare_capacity, n))
	{
		return false;
	}
	const kl_pair* old = cache->pairs;
	kl_pair* out = cache->spare;
	int i = 0, e = 0, b = 0, w = 0;
	while (i < cache->count || b < bp->begin_count)
	{
		bool take_old = b == bp->begin_count || (i < cache->count && pair_less(old[i], bp->begin[b]));
		if (!take_old)
		{
			out[w++] = bp->begin[b++];
			continue;
		}
		while (e < bp->end_count && pair_less(bp->end[e], old[i]))
		{
			e++;
		}
		if (e < bp->end_count && pair_equal(bp->end[e], old[i]))
		{
			e++;
		}
		else
		{
			out[w++] = old[i];
		}
		i++;
	}
	kl_pair* t = cache->pairs;
	int tc = cache->capacity;
	cache->pairs = cache->spare;
	cache->capacity = cache->spare_capacity;
	cache->spare = t;
	cache->spare_capacity = tc;
	cache->count = w;
	return true;
}

const kl_pair* kl_bp_cache_pairs(const kl_broadphase* bp, int* count)
{
	// The cache is owned through a pointer: get_pairs is logically const and builds it lazily.
	kl_bp_cache* cache = bp->cache;
	if (!cache->valid || cache->epoch != bp->epoch)
	{
		bool merge = cache->valid && cache->epoch + 1 == bp->epoch && bp->events_ok;
		bool ok = merge ? cache_merge(bp, cache) : cache_rebuild(bp, cache);
		cache->valid = ok;
		cache->epoch = bp->epoch;
		if (!ok)
		{
			*count = 0;
			return NULL;
		}
	}
	*count = cache->count;
	return cache->pairs;
}
