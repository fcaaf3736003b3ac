// Kollide broadphase — the API: creation, proxies and what the update hands back. The update
// pipeline is in bp_update.c.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"

#include <string.h>

kl_broadphase_def kl_default_broadphase_def(void)
{
	kl_broadphase_def def;
	memset(&def, 0, sizeof(def));
	def.mode = KL_BROADPHASE_AUTO;
	def.worker_count = 1;
	return def;
}

kl_broadphase* kl_broadphase_create(const kl_broadphase_def* def)
{
	kl_broadphase* bp = kl_alloc_zero(1, sizeof(kl_broadphase));
	if (bp == NULL)
	{
		return NULL;
	}
	bp->def = def != NULL ? *def : kl_default_broadphase_def();
	if (bp->def.worker_count < 1)
	{
		bp->def.worker_count = 1;
	}
	bp->simd = kl_simd_level_get();
	bp->axes.valid = true; // empty arrays are sorted
	bp->part_count = bp->def.worker_count > 3 ? bp->def.worker_count : 3;
	bp->parts = kl_alloc_zero((size_t)bp->part_count, sizeof(kl_bp_part));
	bp->part_first = kl_alloc_zero((size_t)bp->part_count + 1, sizeof(int));
	bp->cache = kl_alloc_zero(1, sizeof(struct kl_bp_cache));
	if (bp->parts == NULL || bp->part_first == NULL || bp->cache == NULL || !kl_pair_set_init(&bp->pairs))
	{
		kl_free(bp->parts);
		kl_free(bp->part_first);
		kl_free(bp->cache);
		kl_free(bp);
		return NULL;
	}
	return bp;
}

static void free_list(kl_id_list* list)
{
	kl_free(list->data);
	memset(list, 0, sizeof(*list));
}

void kl_broadphase_destroy(kl_broadphase* bp)
{
	if (bp == NULL)
	{
		return;
	}
	kl_free(bp->boxes);
	kl_free(bp->info);
	kl_free(bp->pair_counts);
	kl_free(bp->ending);
	kl_free(bp->free_ids);
	kl_free(bp->dirty);
	kl_free(bp->changes);
	kl_id_list* lists[] = {&bp->requery, &bp->requery_static, &bp->fresh, &bp->rekey,
						   &bp->static_insert, &bp->destroyed, &bp->hits};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); ++i)
	{
		free_list(lists[i]);
	}
	kl_free(bp->candidates);
	kl_free(bp->moving_ids);
	kl_free(bp->moving_boxes);
	kl_sap_axes_destroy(&bp->axes);
	kl_sap_batch_destroy(&bp->batch);
	kl_static_trees_destroy(bp);
	kl_pair_set_destroy(&bp->pairs);
	for (int p = 0; p < bp->part_count; ++p)
	{
		kl_free(bp->parts[p].begin);
		kl_free(bp->parts[p].end);
		kl_free(bp->parts[p].scratch);
		free_list(&bp->parts[p].hits);
	}
	kl_free(bp->parts);
	kl_free(bp->part_first);
	kl_free(bp->begin);
	kl_free(bp->end);
	kl_free(bp->event_scratch);
	kl_free(bp->sort_keys);
	kl_free(bp->event_histogram);
	kl_bp_cache_destroy(bp->cache);
	kl_free(bp->cache);
	kl_free(bp);
}

void kl_broadphase_set_simd(kl_broadphase* bp, kl_simd_level level)
{
	bp->simd = level == KL_SIMD_AVX2 ? kl_simd_level_get() : KL_SIMD_SCALAR;
}

void kl_broadphase_set_small_partitions(kl_broadphase* bp, bool small)
{
	bp->small_partitions = small;
}

// ---------------------------------------------------------------------------------------------
// Proxies

static bool valid_box(kl_aabb b)
{
	for (int k = 0; k < 3; ++k)
	{
		if (!isfinite(b.lower.raw[k]) || !isfinite(b.upper.raw[k]) || !(b.lower.raw[k] <= b.upper.raw[k]))
		{
			return false;
		}
	}
	return true;
}

static kl_result bad_box(void)
{
	return kl_fail(KL_ERR_INVALID_ARGUMENT, "broadphase bounds must be finite with lower <= upper");
}

static bool valid_proxy(const kl_broadphase* bp, int32_t proxy)
{
	return proxy >= 0 && proxy < bp->proxy_count && (bp->info[proxy].flags & KL_BP_ALIVE) != 0;
}

static kl_result bad_proxy(int32_t proxy)
{
	return kl_fail(KL_ERR_INVALID_ID, "no broadphase proxy %d", (int)proxy);
}

static bool grow_proxies(kl_broadphase* bp, int count)
{
	if (count <= bp->proxy_capacity)
	{
		return true;
	}
	int capacity = bp->proxy_capacity > 0 ? bp->proxy_capacity : 64;
	while (capacity < count)
	{
		capacity *= 2;
	}
	kl_aabb* boxes = kl_realloc(bp->boxes, (size_t)capacity, sizeof(kl_aabb));
	if (boxes != NULL)
	{
		bp->boxes = boxes;
	}
	kl_bp_info* info = kl_realloc(bp->info, (size_t)capacity, sizeof(kl_bp_info));
	if (info != NULL)
	{
		bp->info = info;
	}
	int32_t* counts = kl_realloc(bp->pair_counts, (size_t)capacity, sizeof(int32_t));
	if (counts != NULL)
	{
		bp->pair_counts = counts;
	}
	int words = capacity / 64;
	int old_words = bp->proxy_capacity / 64;
	uint64_t* dirty = kl_realloc(bp->dirty, (size_t)words, sizeof(uint64_t));
	if (dirty != NULL)
	{
		memset(dirty + old_words, 0, (size_t)(words - old_words) * sizeof(uint64_t));
		bp->dirty = dirty;
	}
	uint64_t* ending = kl_realloc(bp->ending, (size_t)words, sizeof(uint64_t));
	if (ending != NULL)
	{
		memset(ending + old_words, 0, (size_t)(words - old_words) * sizeof(uint64_t));
		bp->ending = ending;
	}
	if (boxes == NULL || info == NULL || counts == NULL || dirty == NULL || ending == NULL)
	{
		return false;
	}
	bp->proxy_capacity = capacity;
	return true;
}

// Remembers the bounds of the last update the first time a proxy changes. Does not run out of
// memory: create_proxy keeps room for one change per id (the check stays for safety).
bool kl_bp_note_change(kl_broadphase* bp, int32_t proxy)
{
	kl_bp_info* info = bp->info + proxy;
	if (info->change >= 0)
	{
		return true;
	}
	if (!KL_ARRAY_RESERVE(bp->changes, bp->change_capacity, bp->change_count + 1))
	{
		return false;
	}
	info->change = bp->change_count;
	bp->changes[bp->change_count++] = (kl_bp_change){proxy, bp->boxes[proxy]};
	return true;
}

int32_t kl_broadphase_create_proxy(kl_broadphase* bp, kl_aabb aabb, kl_proxy_kind kind, int32_t user)
{
	if (!valid_box(aabb))
	{
		bad_box();
		return -1;
	}
	if (kind != KL_PROXY_STATIC && kind != KL_PROXY_MOVING)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "unknown proxy kind %d", (int)kind);
		return -1;
	}
	// Room for a change of every proxy id: an id has at most one change per update, so touching,
	// moving, re-kinding or destroying a proxy never runs out of memory (a world did all of these
	// mid-step or on user calls that could not fail: a teleported body kept its old proxy and fell
	// through a floor, a new filter was never applied).
	if (!KL_ARRAY_RESERVE(bp->changes, bp->change_capacity, bp->proxy_count + 1))
	{
		return -1;
	}
	int32_t proxy;
	if (bp->free_count > 0)
	{
		proxy = bp->free_ids[--bp->free_count];
	}
	else
	{
		if (bp->proxy_count == INT32_MAX || !grow_proxies(bp, bp->proxy_count + 1))
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "cannot grow the broadphase proxies");
			return -1;
		}
		proxy = bp->proxy_count++;
	}
	bp->boxes[proxy] = aabb;
	bp->info[proxy] = (kl_bp_info){user, -1, -1, (uint8_t)kind, KL_BP_HOME_NONE, 0, KL_BP_ALIVE};
	bp->pair_counts[proxy] = 0;
	kl_bp_note_change(bp, proxy); // reserved above
	return proxy;
}

kl_result kl_broadphase_destroy_proxy(kl_broadphase* bp, int32_t proxy)
{
	if (!valid_proxy(bp, proxy))
	{
		return bad_proxy(proxy);
	}
	if (!kl_bp_note_change(bp, proxy))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_bp_info* info = bp->info + proxy;
	info->flags = (uint8_t)((info->flags & ~KL_BP_ALIVE) | KL_BP_DESTROYED);
	return KL_OK;
}

kl_result kl_broadphase_move_proxy(kl_broadphase* bp, int32_t proxy, kl_aabb aabb)
{
	if (!valid_proxy(bp, proxy))
	{
		return bad_proxy(proxy);
	}
	if (!valid_box(aabb))
	{
		return bad_box();
	}
	if (!kl_bp_note_change(bp, proxy))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	bp->boxes[proxy] = aabb;
	bp->info[proxy].flags |= KL_BP_MOVED;
	return KL_OK;
}

void kl_broadphase_set_use_gpu(kl_broadphase* bp, bool use_gpu)
{
	bp->def.use_gpu = use_gpu;
}

kl_result kl_broadphase_set_proxy_kind(kl_broadphase* bp, int32_t proxy, kl_proxy_kind kind)
{
	if (!valid_proxy(bp, proxy))
	{
		return bad_proxy(proxy);
	}
	if (kind != KL_PROXY_STATIC && kind != KL_PROXY_MOVING)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "unknown proxy kind %d", (int)kind);
	}
	if (bp->info[proxy].kind == kind)
	{
		return KL_OK;
	}
	if (!kl_bp_note_change(bp, proxy))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	bp->info[proxy].kind = (uint8_t)kind;
	return KL_OK;
}

kl_result kl_broadphase_touch_proxy(kl_broadphase* bp, int32_t proxy)
{
	if (!valid_proxy(bp, proxy))
	{
		return bad_proxy(proxy);
	}
	if (!kl_bp_note_change(bp, proxy))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	bp->info[proxy].flags |= KL_BP_TOUCHED;
	return KL_OK;
}

kl_aabb kl_broadphase_get_aabb(const kl_broadphase* bp, int32_t proxy)
{
	if (!valid_proxy(bp, proxy))
	{
		bad_proxy(proxy);
		return (kl_aabb){{{0.0f, 0.0f, 0.0f}}, {{0.0f, 0.0f, 0.0f}}};
	}
	return bp->boxes[proxy];
}

// ---------------------------------------------------------------------------------------------
// Results

const kl_pair* kl_broadphase_get_pairs(const kl_broadphase* bp, int* count)
{
	return kl_bp_cache_pairs(bp, count);
}

kl_broadphase_events kl_broadphase_get_events(const kl_broadphase* bp)
{
	return (kl_broadphase_events){bp->begin, bp->begin_count, bp->end, bp->end_count};
}

kl_broadphase_stats kl_broadphase_get_stats(const kl_broadphase* bp)
{
	kl_broadphase_stats stats = bp->stats;
	stats.pair_count = bp->pairs.live_count;
	stats.moving_count = bp->moving_count;
	stats.static_count = bp->static_count;
	return stats;
}
