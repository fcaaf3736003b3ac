// Kollide broadphase — the update pipeline: classify the changes since the last update, choose
// incremental or batch for the moving proxies, update the static trees, find the pairs whose status
// changed (sap_incremental.c or sap_batch.c, then static_pairs.c) and make the events (bp_pairs.c).
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"

#include <string.h>

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

// Its pairs end in one pass over the pair set after the classification (if it has any).
static void end_all(kl_broadphase* bp, int32_t proxy)
{
	if (bp->pair_counts[proxy] > 0)
	{
		bp->ending[proxy >> 6] |= 1ull << (proxy & 63);
		bp->any_ending = true;
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
	end_all(bp, proxy);
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
	end_all(bp, proxy);
	return kl_id_list_push(&bp->destroyed, proxy);
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

// Clears the per-update state and frees the destroyed ids (only now, so that a pair key never
// names two proxies within one update).
static bool finish_changes(kl_broadphase* bp, bool resyncing, bool update_ok)
{
	if (resyncing)
	{
		// A resync took proxies outside the change list out of their structures too.
		size_t words = (size_t)(bp->proxy_capacity / 64);
		memset(bp->ending, 0, words * sizeof(uint64_t));
		memset(bp->dirty, 0, words * sizeof(uint64_t));
	}
	for (int c = 0; c < bp->change_count; ++c)
	{
		int32_t proxy = bp->changes[c].proxy;
		kl_bp_info* info = bp->info + proxy;
		info->change = -1;
		info->flags &= KL_BP_ALIVE;
		bp->dirty[proxy >> 6] &= ~(1ull << (proxy & 63));
		bp->ending[proxy >> 6] &= ~(1ull << (proxy & 63));
	}
	bp->change_count = 0;
	bp->any_ending = false;
	kl_id_list* lists[] = {&bp->requery, &bp->requery_static, &bp->fresh, &bp->rekey, &bp->static_insert};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); ++i)
	{
		lists[i]->count = 0;
	}
	// After an update that failed, a destroyed proxy's pairs may still be in the set: its id waits
	// until the resync has ended them under its own user. Without the memory to free them, the ids
	// wait for the next update (the update itself succeeded: its events are out).
	if (!update_ok)
	{
		return false;
	}
	if (!KL_ARRAY_RESERVE(bp->free_ids, bp->free_capacity, bp->free_count + bp->destroyed.count))
	{
		return true;
	}
	for (int i = 0; i < bp->destroyed.count; ++i)
	{
		bp->info[bp->destroyed.data[i]].flags = 0;
		bp->free_ids[bp->free_count++] = bp->destroyed.data[i];
	}
	bp->destroyed.count = 0;
	return true;
}

// ---------------------------------------------------------------------------------------------
// The update

static bool run_update(kl_broadphase* bp)
{
	double t = kl_time_seconds();
	bp->batch.valid = false;
	bp->candidate_count = 0; // a failed update may have left some, tested against bounds since changed
	if (bp->change_count == 0)
	{
		return true; // nothing moved, nothing begins or ends
	}
	// A destroyed id must reach the list that frees it: a proxy out of its structure and off the
	// list would be lost to a resync.
	if (!KL_ARRAY_RESERVE(bp->destroyed.data, bp->destroyed.capacity, bp->destroyed.count + bp->change_count))
	{
		return false;
	}
	plan_changes(bp);
	kl_broadphase_mode mode = choose_mode(bp);
	bp->stats.last_mode = mode;
	for (int c = 0; c < bp->change_count; ++c)
	{
		if (!apply_change(bp, bp->changes + c, mode))
		{
			return false;
		}
	}
	if (bp->any_ending && !kl_pair_set_remove_marked(&bp->pairs, bp->ending, bp->pair_counts))
	{
		return false;
	}
	bp->profile.changes = kl_bp_lap(&t);
	if (!kl_static_trees_update(bp))
	{
		return false;
	}
	bp->profile.trees = kl_bp_lap(&t);
	if (mode == KL_BROADPHASE_INCREMENTAL)
	{
		bp->batch.previous_valid = false;
	}
	bool ok = mode == KL_BROADPHASE_INCREMENTAL ? kl_sap_incremental_update(bp) : kl_sap_batch_update(bp);
	if (mode == KL_BROADPHASE_INCREMENTAL)
	{
		bp->profile.diff = kl_bp_lap(&t);
	}
	t = kl_time_seconds();
	ok = ok && kl_static_pairs_update(bp);
	bp->profile.static_pairs = kl_bp_lap(&t);
	ok = ok && kl_bp_make_events(bp);
	bp->profile.events = kl_bp_lap(&t);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Recovery from an update that ran out of memory half-way
//
// Such an update may have left a proxy outside its structure, a change unapplied or a pair
// unfound, and the change list is gone. The next update takes every proxy out of its structure and
// lets it enter again with its pairs found anew, as for a new proxy: a pair that still overlaps
// ends and begins again in one update, which makes no event, so the events and the pair set come
// out as if the failed update had succeeded.

static bool begin_resync(kl_broadphase* bp)
{
	// Everything that can fail first, so that a failure here changes nothing.
	if (!KL_ARRAY_RESERVE(bp->changes, bp->change_capacity, bp->proxy_count) ||
		!KL_ARRAY_RESERVE(bp->destroyed.data, bp->destroyed.capacity, bp->destroyed.count + bp->proxy_count))
	{
		return false;
	}
	for (int32_t proxy = 0; proxy < bp->proxy_count; ++proxy)
	{
		kl_bp_info* info = bp->info + proxy;
		if ((info->flags & KL_BP_DESTROYED) != 0)
		{
			continue; // its change destroys it
		}
		bool alive = (info->flags & KL_BP_ALIVE) != 0;
		bool never_destroyed = !alive && info->home != KL_BP_HOME_NONE;
		if (info->home == KL_BP_HOME_MOVING)
		{
			leave_moving(bp, proxy);
		}
		else if (info->home == KL_BP_HOME_STATIC)
		{
			kl_static_trees_remove(bp, proxy);
		}
		if (alive)
		{
			kl_bp_note_change(bp, proxy); // reserved; as a new proxy, it enters and finds its pairs
		}
		else
		{
			// Destroyed, but the failed update did not finish it: its pairs end now (the ending
			// bits are cleared at the end of this update), and an id never freed is freed.
			end_all(bp, proxy);
			if (never_destroyed)
			{
				bp->destroyed.data[bp->destroyed.count++] = proxy;
			}
		}
	}
	bp->resync = false;
	return true;
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
	memset(&bp->profile, 0, sizeof(bp->profile));
	bool resyncing = bp->resync;
	if (resyncing && !begin_resync(bp))
	{
		return kl_last_error_code(); // nothing changed; the next update tries again
	}
	bool ok = run_update(bp);
	ok = finish_changes(bp, resyncing, ok);
	bp->events_ok = ok;
	bp->max_extent_age++;
	bp->stats.update_ms = 1000.0 * (kl_time_seconds() - t0);
	if (!ok)
	{
		// Out of memory half-way: the pairs of this update's changes may be incomplete. The
		// structures are rebuilt from scratch where they can be.
		bp->cache->valid = false;
		bp->batch.previous_valid = false;
		bp->axes.valid = false;
		bp->resync = true;
		bp->begin_count = 0; // this update's events are incomplete: the next one reports them
		bp->end_count = 0;
		return kl_last_error_code() != KL_OK ? kl_last_error_code() : KL_ERR_OUT_OF_MEMORY;
	}
	return KL_OK;
}

