// Kollide broadphase — pair changes: the stages propose begin and end candidates (from parallel
// partitions, applied in partition order), the filter decides, the pair set records; at the end of
// the update its changes become sorted events, and get_pairs builds the sorted pair list on demand.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"
#include "radix_sort.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------
// Helpers shared by the stages

void kl_bp_run(kl_broadphase* bp, kl_task_fn* task, int partition_count, void* context)
{
	if (partition_count > 1)
	{
		bp->def.parallel(task, partition_count, context, bp->def.parallel_context);
	}
	else
	{
		task(0, 1, 0, context);
	}
}

kl_parallel kl_bp_parallel(const kl_broadphase* bp, int parts)
{
	return (kl_parallel){bp->def.parallel, bp->def.parallel_context, parts};
}

int kl_bp_partition_count(const kl_broadphase* bp, int count, int min_per_part)
{
	if (bp->def.parallel == NULL || bp->def.worker_count <= 1)
	{
		return 1;
	}
	bool worth_it = bp->small_partitions || count >= 2 * min_per_part;
	return worth_it ? bp->def.worker_count : 1;
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
	int32_t slot = kl_pair_set_find(&bp->pairs, key);
	if (slot >= 0 && kl_pair_is_live(bp->pairs.slots + slot))
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
	return kl_pair_set_add(&bp->pairs, key, slot, bp->epoch, bp->pair_counts);
}

bool kl_bp_end_pair(kl_broadphase* bp, uint64_t key)
{
	int32_t slot = kl_pair_set_find(&bp->pairs, key);
	return slot < 0 || kl_pair_set_remove(&bp->pairs, slot, bp->pair_counts);
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

bool kl_bp_reserve_sort(kl_broadphase* bp, int count)
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
	if (!kl_bp_reserve_sort(bp, n))
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

// Pair keys to sorted user pairs, in the memory kl_bp_make_events reserved.
static void sort_events(kl_broadphase* bp, const uint64_t* pairs, int count, kl_pair* out)
{
	if (count == 0)
	{
		return; // keys may be null then, and null + 0 is undefined
	}
	uint64_t* keys = bp->sort_keys;
	for (int i = 0; i < count; ++i)
	{
		keys[i] = proxy_user_key(bp, (int32_t)(pairs[i] >> 32), (int32_t)(pairs[i] & 0xffffffffu));
	}
	kl_radix_sort_into(keys, NULL, keys + count, NULL, count, 0, 64, bp->event_histogram);
	for (int i = 0; i < count; ++i)
	{
		out[i] = key_pair(keys[i]);
	}
}

bool kl_bp_make_events(kl_broadphase* bp)
{
	int added = bp->pairs.added_count;
	int removed = bp->pairs.removed_count;
	int most = added > removed ? added : removed;
	// All memory first, sort histogram included: once the pair set has forgotten its changes,
	// nothing may fail, or the events would be lost (the next update reports them otherwise).
	if (!KL_ARRAY_RESERVE(bp->event_scratch, bp->event_scratch_capacity, added + removed) ||
		!KL_ARRAY_RESERVE(bp->begin, bp->begin_capacity, added) || !KL_ARRAY_RESERVE(bp->end, bp->end_capacity, removed) ||
		!kl_bp_reserve_sort(bp, most) ||
		!KL_ARRAY_RESERVE(bp->event_histogram, bp->event_histogram_capacity,
						  kl_radix_sort_histogram_size(most, 0, 64)))
	{
		return false;
	}
	uint64_t* begin = bp->event_scratch;
	uint64_t* end = added > 0 ? begin + added : begin; // begin is null when nothing was reserved
	int nb = 0, ne = 0;
	kl_pair_set_finish(&bp->pairs, begin, &nb, end, &ne);
	bp->begin_count = nb;
	bp->end_count = ne;
	sort_events(bp, begin, nb, bp->begin);
	sort_events(bp, end, ne, bp->end);
	return true;
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
	for (int i = 0; i < set->capacity; ++i)
	{
		const kl_pair_entry* e = set->slots + i;
		if (e->key != KL_PAIR_EMPTY && e->state == KL_PAIR_NORMAL && count < n)
		{
			cache->keys[count++] = proxy_user_key(bp, (int32_t)(e->key >> 32), (int32_t)(e->key & 0xffffffffu));
		}
	}
	if (count > 0 && !kl_radix_sort_u64(cache->keys, cache->keys + count, count)) // keys null when n is 0
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
	if (!KL_ARRAY_RESERVE(cache->spare, cache->spare_capacity, cache->count + bp->begin_count))
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
		// Events merge only into a list of a complete update: a list built from the half-updated set
		// of a failed one lacks pairs the failed update ended and the next one finds again, with
		// no event (the resync's re-evaluation).
		bool merge = cache->valid && cache->complete && cache->epoch + 1 == bp->epoch && bp->events_ok;
		bool ok = merge ? cache_merge(bp, cache) : cache_rebuild(bp, cache);
		cache->valid = ok;
		cache->complete = bp->events_ok;
		cache->epoch = bp->epoch;
		if (!ok)
		{
			*count = 0;
			return NULL;
		}
	}
	static const kl_pair none[1];
	*count = cache->count;
	return cache->pairs != NULL ? cache->pairs : none; // NULL means out of memory
}
