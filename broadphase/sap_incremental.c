// Kollide broadphase — incremental sweep-and-prune over the moving proxies. Each axis keeps its
// endpoints sorted between updates; an update writes the new keys of the proxies that moved and
// re-sorts each axis by insertion sort, which costs the endpoints actually crossed. A pair's
// status can only change if one of its min-max endpoint orders changed on some axis, and insertion
// sort swaps exactly the pairs of endpoints whose order changed, so the swaps of a min past a max
// are the complete list of pairs to re-test (with the old and the new bounds of both proxies).
//
// Proxies that enter (new, woken, teleported) are merged in after the sort and query the arrays.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"
#include "radix_sort.h"

#include <float.h>
#include <string.h>

#define MAX_BIT 0x80000000ull
#define ID_MASK 0x7fffffffu

static inline uint64_t endpoint(float value, uint64_t is_max, int32_t proxy)
{
	return ((uint64_t)kl_sap_float_key(value) << 32) | (is_max << 31) | (uint32_t)proxy;
}

static inline uint64_t endpoint_of(const kl_aabb* box, int axis, uint64_t is_max, int32_t proxy)
{
	return endpoint(is_max != 0 ? box->upper.raw[axis] : box->lower.raw[axis], is_max, proxy);
}

bool kl_sap_axes_reserve(kl_sap_axes* axes, int count)
{
	if (count <= axes->capacity)
	{
		return true;
	}
	int capacity = axes->capacity > 0 ? axes->capacity : 64;
	while (capacity < count)
	{
		capacity *= 2;
	}
	for (int a = 0; a < 3; ++a)
	{
		uint64_t* ep = kl_realloc(axes->ep[a], (size_t)capacity, sizeof(uint64_t));
		if (ep == NULL)
		{
			return false;
		}
		axes->ep[a] = ep;
	}
	axes->capacity = capacity;
	return true;
}

void kl_sap_axes_destroy(kl_sap_axes* axes)
{
	for (int a = 0; a < 3; ++a)
	{
		kl_free(axes->ep[a]);
	}
	memset(axes, 0, sizeof(*axes));
}

static bool reserve_scratch(kl_broadphase* bp, int count)
{
	return KL_ARRAY_RESERVE(bp->sort_keys, bp->sort_capacity, 2 * count);
}

// After batch updates the arrays are stale: sorts them from scratch to the state of the last
// update (old bounds), without the proxies that enter now, so that the normal pass can follow.
static bool rebuild(kl_broadphase* bp)
{
	kl_sap_axes* axes = &bp->axes;
	int n = 0;
	if (!kl_sap_axes_reserve(axes, 2 * bp->moving_count) || !reserve_scratch(bp, 2 * bp->moving_count))
	{
		return false;
	}
	for (int a = 0; a < 3; ++a)
	{
		n = 0;
		for (int i = 0; i < bp->moving_count; ++i)
		{
			int32_t p = bp->moving_ids[i];
			if ((bp->info[p].flags & KL_BP_FRESH) != 0)
			{
				continue;
			}
			const kl_aabb* box = kl_bp_old_box(bp, p);
			axes->ep[a][n++] = endpoint_of(box, a, 0, p);
			axes->ep[a][n++] = endpoint_of(box, a, 1, p);
		}
		if (!kl_radix_sort_u64(axes->ep[a], bp->sort_keys, n))
		{
			return false;
		}
	}
	axes->count = n;
	axes->valid = true;
	return true;
}

// ---------------------------------------------------------------------------------------------
// The sort pass

// Endpoint e of proxy p moved left past endpoint f of proxy q, one a min and the other a max: the
// pair's overlap on this axis flipped. f came before e in the old order, so if e is a min the pair
// did not overlap on this axis before and may begin (test the new bounds); if e is a max it does
// not overlap now and may end (test the old bounds).
static bool crossing(kl_broadphase* bp, kl_bp_part* part, uint32_t p, uint32_t q, bool e_is_max, bool requery)
{
	if (requery && ((bp->info[p].flags | bp->info[q].flags) & KL_BP_REQUERY) != 0)
	{
		return true; // their pairs are found again from scratch
	}
	part->tests++;
	uint64_t key = kl_sap_pair_key((int32_t)p, (int32_t)q);
	if (!e_is_max)
	{
		return !kl_aabb_overlap(bp->boxes + p, bp->boxes + q) ||
			   kl_bp_part_push(&part->begin, &part->begin_count, &part->begin_capacity, key);
	}
	return !kl_aabb_overlap(kl_bp_old_box(bp, (int32_t)p), kl_bp_old_box(bp, (int32_t)q)) ||
		   kl_bp_part_push(&part->end, &part->end_count, &part->end_capacity, key);
}

// Rewrites the keys of moved proxies, drops leaving ones and insertion-sorts, in one pass over
// the first n endpoints. Returns the endpoints kept.
static int sort_axis(kl_broadphase* bp, int axis, int n, kl_bp_part* part)
{
	uint64_t* ep = bp->axes.ep[axis];
	const uint64_t* dirty = bp->dirty;
	bool requery = bp->requery.count > 0;
	int out = 0;
	int64_t swaps = 0;
	for (int i = 0; i < n; ++i)
	{
		uint64_t e = ep[i];
		uint32_t p = (uint32_t)e & ID_MASK;
		if (kl_bp_is_dirty(dirty, p))
		{
			if ((bp->info[p].flags & KL_BP_DROP) != 0)
			{
				continue;
			}
			e = endpoint_of(bp->boxes + p, axis, (e >> 31) & 1u, (int32_t)p);
		}
		int j = out;
		while (j > 0 && ep[j - 1] > e)
		{
			uint64_t f = ep[j - 1];
			if (((f ^ e) & MAX_BIT) != 0 && !crossing(bp, part, p, (uint32_t)f & ID_MASK, (e & MAX_BIT) != 0, requery))
			{
				part->failed = true;
			}
			ep[j] = f;
			--j;
		}
		swaps += out - j;
		ep[j] = e;
		out++;
	}
	part->swaps = swaps;
	return out;
}

typedef struct sort_task
{
	kl_broadphase* bp;
	int parts;
	int count;	 ///< endpoints per axis before the pass
	int kept[3]; ///< after
} sort_task;

// Partition p sorts the axes p, p + parts, ... (each axis has its own candidate lists).
static void sort_axes(int start, int end, int worker, void* context)
{
	(void)worker;
	sort_task* t = context;
	for (int p = start; p < end; ++p)
	{
		for (int a = p; a < 3; a += t->parts)
		{
			t->kept[a] = sort_axis(t->bp, a, t->count, t->bp->parts + a);
		}
	}
}

// Endpoints crossed per unit of displacement, measured: the cost model's estimate of the next
// incremental update. Averaged, and only from updates that moved enough to say something.
static void calibrate(kl_broadphase* bp)
{
	for (int a = 0; a < 3; ++a)
	{
		double disp = bp->plan.disp[a];
		if (bp->plan.moved < 16 || !(disp > 0.0))
		{
			continue;
		}
		double measured = (double)bp->parts[a].swaps / disp;
		bp->swaps_per_length[a] = bp->swaps_calibrated ? 0.5 * (bp->swaps_per_length[a] + measured) : measured;
	}
	bp->swaps_calibrated = bp->swaps_calibrated || bp->plan.moved >= 16;
}

// The three axes are independent: they are spread over the partitions. Their candidates are merged, sorted and
// made unique (a pair can cross on several axes), so the outcome does not depend on the order.
static bool sort_pass(kl_broadphase* bp)
{
	sort_task t = {bp, kl_bp_partition_count(bp, bp->axes.count, 2048), bp->axes.count, {0, 0, 0}};
	kl_bp_parts_reset(bp, 3);
	kl_bp_run(bp, sort_axes, t.parts, &t);
	bp->axes.count = t.kept[0];
	calibrate(bp);
	bool ok = true;
	for (int a = 0; a < 3 && ok; ++a)
	{
		kl_bp_part* part = bp->parts + a;
		ok = !part->failed;
		bp->stats.endpoint_swaps += part->swaps;
		bp->stats.overlap_tests += part->tests;
		for (int i = 0; i < part->end_count && ok; ++i)
		{
			ok = kl_bp_end_pair(bp, part->end[i]);
		}
		for (int i = 0; i < part->begin_count && ok; ++i)
		{
			ok = kl_bp_push_candidate(bp, part->begin[i]);
		}
	}
	return ok && kl_bp_apply_candidates(bp);
}

// ---------------------------------------------------------------------------------------------
// Entering proxies

// Sorts the endpoints of the fresh proxies and merges them into each axis from the back.
static bool merge_fresh(kl_broadphase* bp)
{
	int k = 2 * bp->fresh.count;
	kl_sap_axes* axes = &bp->axes;
	if (k == 0)
	{
		return true;
	}
	if (!kl_sap_axes_reserve(axes, axes->count + k) || !reserve_scratch(bp, 2 * k))
	{
		return false;
	}
	uint64_t* add = bp->sort_keys;
	for (int a = 0; a < 3; ++a)
	{
		for (int i = 0; i < bp->fresh.count; ++i)
		{
			int32_t p = bp->fresh.data[i];
			add[2 * i] = endpoint_of(bp->boxes + p, a, 0, p);
			add[2 * i + 1] = endpoint_of(bp->boxes + p, a, 1, p);
		}
		if (!kl_radix_sort_u64(add, add + k, k))
		{
			return false;
		}
		uint64_t* ep = axes->ep[a];
		int i = axes->count - 1;
		int j = k - 1;
		for (int w = axes->count + k - 1; j >= 0; --w)
		{
			ep[w] = i >= 0 && ep[i] > add[j] ? ep[i--] : add[j--];
		}
	}
	axes->count += k;
	return true;
}

static int lower_bound(const uint64_t* ep, int n, uint64_t key)
{
	int lo = 0, hi = n;
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (ep[mid] < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo;
}

// The lowest min a proxy overlapping [lower, ...] can have on an axis: lower minus the largest
// extent, rounded down generously (doubles, then a relative hair).
static float reach_below(float lower, double max_extent)
{
	double d = (double)lower - max_extent;
	d -= (fabs((double)lower) + max_extent) * 1.0e-12;
	return d < -(double)FLT_MAX ? -FLT_MAX : (float)d;
}

bool kl_sap_axes_query(kl_broadphase* bp, const kl_aabb* box, kl_id_list* out, int64_t* tests)
{
	const kl_sap_axes* axes = &bp->axes;
	int best = 0, best_lo = 0, best_hi = 0;
	// The axis whose range [lower - max extent, upper] holds the fewest endpoints.
	for (int a = 0; a < 3; ++a)
	{
		uint64_t lo_key = endpoint(reach_below(box->lower.raw[a], bp->max_extent[a]), 0, 0);
		uint64_t hi_key = endpoint(box->upper.raw[a], 0, (int32_t)ID_MASK);
		int lo = lower_bound(axes->ep[a], axes->count, lo_key);
		int hi = lower_bound(axes->ep[a], axes->count, hi_key + 1);
		if (a == 0 || hi - lo < best_hi - best_lo)
		{
			best = a;
			best_lo = lo;
			best_hi = hi;
		}
	}
	const uint64_t* ep = axes->ep[best];
	for (int i = best_lo; i < best_hi; ++i)
	{
		if ((ep[i] & MAX_BIT) != 0)
		{
			continue;
		}
		int32_t q = (int32_t)(ep[i] & ID_MASK);
		*tests += 1;
		if (kl_aabb_overlap(box, bp->boxes + q) && !kl_id_list_push(out, q))
		{
			return false;
		}
	}
	return true;
}

// Recomputes the largest extents exactly now and then: they only grow between recomputations, and
// one big box that has gone would otherwise widen every query forever.
static void refresh_extents(kl_broadphase* bp)
{
	if (bp->max_extent_age < 32)
	{
		return;
	}
	bp->max_extent_age = 0;
	double e[3] = {0.0, 0.0, 0.0};
	for (int i = 0; i < bp->moving_count; ++i)
	{
		const kl_aabb* b = bp->boxes + bp->moving_ids[i];
		for (int k = 0; k < 3; ++k)
		{
			double x = ((double)b->upper.raw[k] - (double)b->lower.raw[k]) * (1.0 + 1.0e-12);
			e[k] = x > e[k] ? x : e[k];
		}
	}
	memcpy(bp->max_extent, e, sizeof(e));
}

// Many re-evaluated proxies (the first update, a wave of wake-ups): one sweep of the batch path
// finds all their moving pairs at once.
static bool requery_by_sweep(kl_broadphase* bp)
{
	if (!kl_sap_sweep_all(bp))
	{
		return false;
	}
	const kl_sap_batch* batch = &bp->batch;
	for (int i = 0; i < batch->found_count; ++i)
	{
		uint64_t key = batch->found[i];
		uint8_t flags = bp->info[key >> 32].flags | bp->info[key & 0xffffffffu].flags;
		if ((flags & KL_BP_REQUERY) != 0 && !kl_bp_begin_pair(bp, key))
		{
			return false;
		}
	}
	return true;
}

// Pairs of the re-evaluated moving proxies with the other moving ones. A pair of two re-evaluated
// proxies is taken by the one with the larger id.
static bool requery_pairs(kl_broadphase* bp)
{
	if (bp->requery.count == 0)
	{
		return true;
	}
	if (bp->requery.count > 64 && bp->requery.count > bp->moving_count / 16)
	{
		return requery_by_sweep(bp);
	}
	refresh_extents(bp);
	for (int r = 0; r < bp->requery.count; ++r)
	{
		int32_t p = bp->requery.data[r];
		bp->hits.count = 0;
		if (!kl_sap_axes_query(bp, bp->boxes + p, &bp->hits, &bp->stats.overlap_tests))
		{
			return false;
		}
		for (int i = 0; i < bp->hits.count; ++i)
		{
			int32_t q = bp->hits.data[i];
			bool taken_by_q = (bp->info[q].flags & KL_BP_REQUERY) != 0 && q > p;
			if (q != p && !taken_by_q && !kl_bp_push_candidate(bp, kl_sap_pair_key(p, q)))
			{
				return false;
			}
		}
	}
	return kl_bp_apply_candidates(bp);
}

bool kl_sap_incremental_update(kl_broadphase* bp)
{
	if (!bp->axes.valid && !rebuild(bp))
	{
		return false;
	}
	return sort_pass(bp) && merge_fresh(bp) && requery_pairs(bp);
}

// ---------------------------------------------------------------------------------------------
// Cost estimate, in nanoseconds of this machine, roughly; only the comparison with the batch
// estimate matters.

double kl_sap_incremental_cost(const kl_broadphase* bp)
{
	const kl_bp_plan* plan = &bp->plan;
	double m = (double)bp->moving_count + plan->fresh;
	double cost = 6.0 * m * 1.2; // the pass reads every endpoint
	double swaps = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		swaps += bp->swaps_per_length[a] * plan->disp[a];
	}
	cost += swaps * 7.0; // a swap, and a box test for about half of them
	// Entering proxies: sorted and merged, then a query each, whose range holds about the
	// endpoints within two extents on its best axis.
	int entering = plan->fresh + plan->far;
	if (entering > 0)
	{
		double per_query = 0.0;
		for (int a = 0; a < 3; ++a)
		{
			double q = bp->swaps_per_length[a] * 2.0 * bp->max_extent[a];
			per_query = a == 0 || q < per_query ? q : per_query;
		}
		cost += 6.0 * m * 0.8 + entering * (300.0 + 3.0 * per_query);
	}
	if (!bp->axes.valid)
	{
		cost += 45.0 * m / 4.0; // three sorts from scratch, paid back over a few updates
	}
	return cost;
}
