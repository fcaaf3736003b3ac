// Kollide broadphase — resting proxies: the static trees and the pairs between moving and static
// proxies. Nothing here looks at a static proxy unless a moving proxy's bounds reach it, so a
// world of a million resting boxes costs what its moving bodies touch.
//
// Statics live in a few trees of growing size (the logarithmic method): new ones go into the
// smallest tree, which is rebuilt; a tree that grows past its size moves into the next one. A
// sleeping body that falls asleep costs a rebuild of a small tree, not of the million.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"

#include <string.h>

// Live leaves of tree level l: at most 256 * 128^l, the last level unbounded.
static int64_t level_capacity(int l)
{
	return l == KL_BP_STATIC_LEVELS - 1 ? INT64_MAX : (int64_t)256 << (7 * l);
}

void kl_static_trees_destroy(kl_broadphase* bp)
{
	for (int l = 0; l < KL_BP_STATIC_LEVELS; ++l)
	{
		kl_static_tree_destroy(bp->trees + l);
	}
}

void kl_static_trees_remove(kl_broadphase* bp, int32_t proxy)
{
	kl_bp_info* info = bp->info + proxy;
	kl_static_tree_kill(bp->trees + info->level, info->slot);
	info->home = KL_BP_HOME_NONE;
	info->slot = -1;
	bp->static_count--;
}

// Appends the live leaves of tree l: those whose proxy still says it lives there.
static bool collect_live(kl_broadphase* bp, int l, kl_id_list* out)
{
	const kl_static_tree* tree = bp->trees + l;
	for (int i = 0; i < tree->leaf_count; ++i)
	{
		int32_t proxy = tree->ids[i];
		const kl_bp_info* info = bp->info + proxy;
		if (info->home == KL_BP_HOME_STATIC && info->level == l && info->slot == i && !kl_id_list_push(out, proxy))
		{
			return false;
		}
	}
	return true;
}

/// Level l built anew from ids, replacing it and the levels below `merged` (whose live leaves ids
/// holds). Out of memory, every level stays as it was, so each proxy's level and slot stay true.
static bool build_level(kl_broadphase* bp, int l, const kl_id_list* ids, int merged)
{
	kl_static_tree built;
	memset(&built, 0, sizeof(built));
	if (!kl_static_tree_build(&built, ids->data, ids->count, bp->boxes))
	{
		return false;
	}
	for (int below = 0; below < merged; ++below)
	{
		kl_static_tree_destroy(bp->trees + below);
	}
	kl_static_tree* tree = bp->trees + l;
	kl_static_tree_destroy(tree);
	*tree = built;
	for (int i = 0; i < tree->leaf_count; ++i)
	{
		kl_bp_info* info = bp->info + tree->ids[i];
		info->home = KL_BP_HOME_STATIC;
		info->level = (uint8_t)l;
		info->slot = i;
	}
	return true;
}

// Inserts the new statics into the smallest level that can hold them with the levels below it.
static bool insert_statics(kl_broadphase* bp)
{
	int inserted = bp->static_insert.count;
	int64_t total = inserted;
	int target = 0;
	for (; target < KL_BP_STATIC_LEVELS - 1; ++target)
	{
		total += bp->trees[target].live_count;
		if (total <= level_capacity(target))
		{
			break;
		}
	}
	kl_id_list* ids = &bp->hits;
	ids->count = 0;
	for (int i = 0; i < inserted; ++i)
	{
		if (!kl_id_list_push(ids, bp->static_insert.data[i]))
		{
			return false;
		}
	}
	for (int l = 0; l <= target; ++l)
	{
		if (!collect_live(bp, l, ids))
		{
			return false;
		}
	}
	if (!build_level(bp, target, ids, target))
	{
		return false;
	}
	bp->static_count += inserted;
	return true;
}

bool kl_static_trees_update(kl_broadphase* bp)
{
	if (bp->static_insert.count > 0 && !insert_statics(bp))
	{
		return false;
	}
	// Levels with more dead leaves than live ones are rebuilt alone.
	for (int l = 0; l < KL_BP_STATIC_LEVELS; ++l)
	{
		kl_static_tree* tree = bp->trees + l;
		int dead = tree->leaf_count - tree->live_count;
		if (dead > 64 && dead > tree->live_count)
		{
			bp->hits.count = 0;
			if (!collect_live(bp, l, &bp->hits) || !build_level(bp, l, &bp->hits, 0))
			{
				return false;
			}
		}
	}
	return true;
}

int64_t kl_static_trees_query(const kl_broadphase* bp, const kl_aabb* box, kl_id_list* out)
{
	int64_t tests = 0;
	for (int l = 0; l < KL_BP_STATIC_LEVELS; ++l)
	{
		int t = kl_static_tree_query(bp->trees + l, *box, bp->simd, out);
		if (t < 0)
		{
			return -1;
		}
		tests += t;
	}
	return tests;
}

// ---------------------------------------------------------------------------------------------
// Moving-static pairs

static bool query(kl_broadphase* bp, kl_bp_part* part, const kl_aabb* box)
{
	part->hits.count = 0;
	int64_t tests = kl_static_trees_query(bp, box, &part->hits);
	part->tests += tests;
	return tests >= 0;
}

// A moving proxy that moved a little: the statics overlapping the old or the new bounds are the
// only ones whose status can change. One query covers both when the two boxes overlap.
static bool moved_proxy(kl_broadphase* bp, kl_bp_part* part, int32_t p)
{
	const kl_aabb* old = kl_bp_old_box(bp, p);
	const kl_aabb* now = bp->boxes + p;
	kl_aabb boxes[2] = {*old, *now};
	int queries = 2;
	if (kl_aabb_overlap(old, now))
	{
		boxes[0].lower = glms_vec3_minv(old->lower, now->lower);
		boxes[0].upper = glms_vec3_maxv(old->upper, now->upper);
		queries = 1;
	}
	for (int q = 0; q < queries; ++q)
	{
		if (!query(bp, part, boxes + q))
		{
			return false;
		}
		for (int i = 0; i < part->hits.count; ++i)
		{
			int32_t s = part->hits.data[i];
			if ((bp->info[s].flags & KL_BP_REQUERY) != 0)
			{
				continue; // its own query finds the pair
			}
			bool was = kl_aabb_overlap(old, bp->boxes + s);
			bool is = kl_aabb_overlap(now, bp->boxes + s);
			if (was != is && !(is ? kl_bp_part_push(&part->begin, &part->begin_count, &part->begin_capacity,
													 kl_sap_pair_key(p, s))
								  : kl_bp_part_push(&part->end, &part->end_count, &part->end_capacity,
												   kl_sap_pair_key(p, s))))
			{
				return false;
			}
		}
	}
	return true;
}

// A moving proxy whose pairs were ended: every static it overlaps now is a begin candidate.
static bool requery_moving(kl_broadphase* bp, kl_bp_part* part, int32_t p)
{
	if (!query(bp, part, bp->boxes + p))
	{
		return false;
	}
	for (int i = 0; i < part->hits.count; ++i)
	{
		if (!kl_bp_part_push(&part->begin, &part->begin_count, &part->begin_capacity,
							 kl_sap_pair_key(p, part->hits.data[i])))
		{
			return false;
		}
	}
	return true;
}

// A moving proxy against the statics that are re-evaluated (when they outnumber the moving ones).
static bool reverse_query(kl_broadphase* bp, kl_bp_part* part, int32_t p)
{
	if ((bp->info[p].flags & KL_BP_REQUERY) != 0)
	{
		return true; // requery_moving covers its statics
	}
	if (!query(bp, part, bp->boxes + p))
	{
		return false;
	}
	for (int i = 0; i < part->hits.count; ++i)
	{
		int32_t s = part->hits.data[i];
		if ((bp->info[s].flags & KL_BP_REQUERY) != 0 &&
			!kl_bp_part_push(&part->begin, &part->begin_count, &part->begin_capacity, kl_sap_pair_key(p, s)))
		{
			return false;
		}
	}
	return true;
}

// A static proxy whose pairs were ended, against the moving proxies.
static bool requery_static(kl_broadphase* bp, kl_bp_part* part, int32_t s)
{
	part->hits.count = 0;
	bool ok = bp->batch.valid ? kl_sap_batch_query(bp, bp->boxes + s, &part->hits, &part->tests)
							  : kl_sap_axes_query(bp, bp->boxes + s, &part->hits, &part->tests);
	for (int i = 0; i < part->hits.count && ok; ++i)
	{
		int32_t p = part->hits.data[i];
		if ((bp->info[p].flags & KL_BP_REQUERY) == 0)
		{
			ok = kl_bp_part_push(&part->begin, &part->begin_count, &part->begin_capacity, kl_sap_pair_key(p, s));
		}
	}
	return ok;
}

typedef bool item_fn(kl_broadphase* bp, kl_bp_part* part, int32_t proxy);

typedef struct item_task
{
	kl_broadphase* bp;
	const int32_t* ids;
	item_fn* fn;
} item_task;

static void run_items(int begin, int stop, int p, int worker, void* context)
{
	(void)worker;
	item_task* t = context;
	kl_bp_part* part = t->bp->parts + p;
	for (int i = begin; i < stop && !part->failed; ++i)
	{
		part->failed = !t->fn(t->bp, part, t->ids[i]);
	}
}

// Runs fn over ids in parallel partitions and applies their candidates in partition order.
static bool for_items(kl_broadphase* bp, const int32_t* ids, int count, item_fn* fn, int min_per_part)
{
	if (count == 0)
	{
		return true;
	}
	int parts = kl_bp_partition_count(bp, count, min_per_part);
	item_task t = {bp, ids, fn};
	kl_bp_parts_reset(bp, parts);
	kl_parallel_ranges(kl_bp_parallel(bp, parts), count, 0, run_items, &t);
	return kl_bp_apply_parts(bp, parts);
}

static bool moved_filtered(kl_broadphase* bp, kl_bp_part* part, int32_t p)
{
	return (bp->info[p].flags & KL_BP_REQUERY) != 0 || moved_proxy(bp, part, p);
}

bool kl_static_pairs_update(kl_broadphase* bp)
{
	if (bp->static_count == 0)
	{
		return true;
	}
	if (!for_items(bp, bp->rekey.data, bp->rekey.count, moved_filtered, 64) ||
		!for_items(bp, bp->requery.data, bp->requery.count, requery_moving, 64))
	{
		return false;
	}
	int statics = bp->requery_static.count;
	// Queries against the moving proxies need their sorted endpoints or sorted items (a GPU
	// sweep leaves neither on the CPU).
	if (statics > 0 && !bp->axes.valid && !bp->batch.valid && !kl_sap_build_items(bp))
	{
		return false;
	}
	// Many re-evaluated statics (a level loads, an island falls asleep): the moving proxies query
	// the trees instead, keeping the statics that are flagged.
	if (statics > 4 * bp->moving_count)
	{
		return for_items(bp, bp->moving_ids, bp->moving_count, reverse_query, 64);
	}
	return for_items(bp, bp->requery_static.data, statics, requery_static, 16);
}
