// Kollide broadphase — the batch path: all moving pairs found from scratch. The moving proxies are
// sorted on the axis of largest variance within the cells of a coarse grid on the other two axes
// (sap_layout.c, sap_items.c), swept with the per-item kernels of sap_kernels.h (scalar or AVX2:
// the same pairs in the same order), and the pairs found are diffed against the last update's.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"
#include "gpu.h"
#include "radix_sort.h"

#include <string.h>

#if defined(KOLLIDE_AVX2) && defined(__x86_64__)
#include <immintrin.h>
#define KL_BATCH_AVX2 1
#endif

#if defined(KL_BATCH_AVX2)
// kl_sap_write_pairs eight j at a time: the same pairs in the same order. The sweep stops at the
// first vector with an item past i's end on w (min_w is sorted within the cell).
__attribute__((target("avx2,fma"))) static int write_pairs_avx2(const kl_sap_items* s, int i, uint64_t* out,
																 int64_t* tests)
{
	int end = s->cell_end[s->cell[i] & KL_SAP_CELL_MASK];
	__m256 limit = _mm256_set1_ps(s->max_w[i]);
	__m256 min_u = _mm256_set1_ps(s->min_u[i]);
	__m256 max_u = _mm256_set1_ps(s->max_u[i]);
	__m256 min_v = _mm256_set1_ps(s->min_v[i]);
	__m256 max_v = _mm256_set1_ps(s->max_v[i]);
	int count = 0;
	int tested = 0;
	for (int j = i + 1; j < end; j += 8)
	{
		__m256 in_w = _mm256_cmp_ps(_mm256_loadu_ps(s->min_w + j), limit, _CMP_LE_OQ);
		__m256 m = _mm256_and_ps(in_w, _mm256_cmp_ps(_mm256_loadu_ps(s->min_u + j), max_u, _CMP_LE_OQ));
		m = _mm256_and_ps(m, _mm256_cmp_ps(min_u, _mm256_loadu_ps(s->max_u + j), _CMP_LE_OQ));
		m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_loadu_ps(s->min_v + j), max_v, _CMP_LE_OQ));
		m = _mm256_and_ps(m, _mm256_cmp_ps(min_v, _mm256_loadu_ps(s->max_v + j), _CMP_LE_OQ));
		unsigned lanes = end - j < 8 ? (1u << (end - j)) - 1u : 0xffu;
		unsigned inside = (unsigned)_mm256_movemask_ps(in_w) & lanes;
		unsigned bits = (unsigned)_mm256_movemask_ps(m) & lanes;
		tested += __builtin_popcount(inside);
		while (bits != 0)
		{
			int jj = j + __builtin_ctz(bits);
			bits &= bits - 1u;
			// Unconditional store, conditional advance: no branch on the rare repeat.
			out[count] = kl_sap_pair_key(s->id[i], s->id[jj]);
			count += kl_sap_owns_pair(s, i, jj) ? 1 : 0;
		}
		if (inside != 0xffu)
		{
			break;
		}
	}
	*tests += tested;
	return count;
}
#endif

static int write_pairs(const kl_sap_items* s, int i, uint64_t* out, kl_simd_level simd, int64_t* tests)
{
#if defined(KL_BATCH_AVX2)
	if (simd == KL_SIMD_AVX2)
	{
		return write_pairs_avx2(s, i, out, tests);
	}
#else
	(void)simd;
#endif
	*tests += kl_sap_sweep_end(s, i) - i - 1;
	return kl_sap_write_pairs(s, i, out);
}

// Each partition appends the pairs of its items to its scratch list, in item order.
static void sweep(int first, int stop, int p, int worker, void* context)
{
	(void)worker;
	kl_broadphase* bp = context;
	const kl_sap_items* s = &bp->batch.items;
	kl_bp_part* part = bp->parts + p;
	int64_t count = 0;
	for (int i = first; i < stop; ++i)
	{
		// At most every item left in the cell pairs with i.
		int most = s->cell_end[s->cell[i] & KL_SAP_CELL_MASK] - i;
		if (count + most > part->scratch_capacity &&
			(count + most > INT32_MAX / 2 ||
			 !KL_ARRAY_RESERVE(part->scratch, part->scratch_capacity, (int)count + most)))
		{
			part->failed = true;
			break;
		}
		count += write_pairs(s, i, part->scratch + count, bp->simd, &part->tests);
	}
	part->found = count;
}

// Gathers the partitions' pairs in partition order (the serial order) and sorts them.
static bool gather_found(kl_broadphase* bp, int parts)
{
	kl_sap_batch* batch = &bp->batch;
	int64_t total = 0;
	for (int p = 0; p < parts; ++p)
	{
		if (bp->parts[p].failed)
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "out of memory in the broadphase sweep");
			return false;
		}
		total += bp->parts[p].found;
		bp->stats.overlap_tests += bp->parts[p].tests;
	}
	if (total > INT32_MAX / 2 || !KL_ARRAY_RESERVE(batch->found, batch->found_capacity, (int)total) ||
		!KL_ARRAY_RESERVE(bp->sort_keys, bp->sort_capacity, (int)total))
	{
		return false;
	}
	// Keys packed to (a << k | b) for ids below 2^k: the same order in fewer radix passes.
	int k = kl_bit_count((uint64_t)bp->proxy_count);
	int n = 0;
	for (int p = 0; p < parts; ++p)
	{
		const uint64_t* src = bp->parts[p].scratch;
		for (int64_t i = 0; i < bp->parts[p].found; ++i)
		{
			batch->found[n++] = (src[i] >> 32) << k | (src[i] & 0xffffffffu);
		}
	}
	if (!kl_radix_sort(batch->found, NULL, bp->sort_keys, NULL, n, 0, 2 * k))
	{
		return false;
	}
	uint64_t low = (1ull << k) - 1u;
	for (int i = 0; i < n; ++i)
	{
		batch->found[i] = (batch->found[i] >> k) << 32 | (batch->found[i] & low);
	}
	batch->found_count = n;
	bp->last_mm_found = n;
	return true;
}

static bool any_requery(const kl_broadphase* bp, uint64_t key)
{
	uint8_t flags = bp->info[key >> 32].flags | bp->info[key & 0xffffffffu].flags;
	return (flags & KL_BP_REQUERY) != 0;
}

// The moving pairs of the last batch update are at hand: the diff is a merge of two sorted
// lists. New pairs begin, gone pairs end, kept pairs of re-evaluated proxies begin again.
static bool diff_lists(kl_broadphase* bp)
{
	const kl_sap_batch* batch = &bp->batch;
	const uint64_t* old = batch->previous;
	const uint64_t* now = batch->found;
	int no = batch->previous_count, nn = batch->found_count;
	bool requery = bp->requery.count > 0;
	int i = 0, j = 0;
	bool ok = true;
	while (ok && (i < no || j < nn))
	{
		if (j == nn || (i < no && old[i] < now[j]))
		{
			ok = kl_bp_end_pair(bp, old[i++]);
		}
		else if (i == no || now[j] < old[i])
		{
			ok = kl_bp_begin_pair(bp, now[j++]);
		}
		else
		{
			ok = !requery || !any_requery(bp, now[j]) || kl_bp_begin_pair(bp, now[j]);
			i++;
			j++;
		}
	}
	return ok;
}

// Without the last update's list: each pair found is looked up. A pair in the set is stamped as
// seen; one that is not begins unless its old bounds overlapped too (the filter rejected it then).
// Moving pairs of the set that were not seen end.
static bool diff_set(kl_broadphase* bp)
{
	const kl_sap_batch* batch = &bp->batch;
	kl_pair_set* set = &bp->pairs;
	for (int k = 0; k < batch->found_count; ++k)
	{
		uint64_t key = batch->found[k];
		int32_t a = (int32_t)(key >> 32);
		int32_t b = (int32_t)(key & 0xffffffffu);
		if (!any_requery(bp, key))
		{
			int32_t slot = kl_pair_set_find(set, key);
			if (slot >= 0)
			{
				set->slots[slot].stamp = bp->epoch;
				continue;
			}
			if (kl_aabb_overlap(kl_bp_old_box(bp, a), kl_bp_old_box(bp, b)))
			{
				continue;
			}
		}
		if (!kl_bp_begin_pair(bp, key))
		{
			return false;
		}
	}
	for (int i = 0; i < set->capacity; ++i)
	{
		const kl_pair_entry* e = set->slots + i;
		if (e->key == KL_PAIR_EMPTY || e->state != KL_PAIR_NORMAL || e->stamp == bp->epoch)
		{
			continue;
		}
		bool moving = bp->info[e->key >> 32].home == KL_BP_HOME_MOVING &&
					  bp->info[e->key & 0xffffffffu].home == KL_BP_HOME_MOVING;
		if (moving && !kl_pair_set_remove(set, i, bp->pair_counts))
		{
			return false;
		}
	}
	return true;
}

#if defined(KL_SAP_HAVE_GPU)
// The device sorts and sweeps; its pairs go through the same sort as the CPU's. The sorted items
// stay on the device: a query against the moving proxies builds them here if one is needed.
static bool sweep_on_gpu(kl_broadphase* bp, bool* done)
{
	kl_sap_gpu_batch in;
	*done = false;
	if (!kl_sap_gpu_input(bp, &in))
	{
		return false;
	}
	kl_bp_parts_reset(bp, 1);
	kl_bp_part* part = bp->parts;
	int capacity = (int)(bp->last_mm_found + bp->last_mm_found / 4) + 1024;
	for (int attempt = 0; attempt < 2; ++attempt)
	{
		if (!KL_ARRAY_RESERVE(part->scratch, part->scratch_capacity, capacity))
		{
			return false;
		}
		in.pairs = part->scratch;
		in.pair_capacity = part->scratch_capacity;
		if (!kl_sap_gpu_sweep(&in))
		{
			return true; // no device: the CPU sweeps
		}
		if (in.pair_count <= in.pair_capacity)
		{
			part->found = in.pair_count;
			*done = true;
			bp->stats.used_gpu = true;
			return gather_found(bp, 1);
		}
		capacity = in.pair_count;
	}
	return true;
}
#endif

bool kl_sap_sweep_all(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	double t = kl_time_seconds();
#if defined(KL_SAP_HAVE_GPU)
	// Below a few ten thousand proxies the copies cost more than the CPU's sweep; without a device
	// (probed once) the GPU input is not even built.
	if (bp->def.use_gpu && bp->moving_count >= 16384 && kl_gpu_available())
	{
		bool done = false;
		if (!sweep_on_gpu(bp, &done))
		{
			return false;
		}
		if (done)
		{
			bp->profile.sweep = kl_bp_lap(&t);
			return true;
		}
	}
#endif
	if (!kl_sap_build_items(bp))
	{
		return false;
	}
	bp->profile.items = kl_bp_lap(&t);
	int parts = kl_bp_partition_count(bp, batch->item_count, 4096);
	kl_bp_parts_reset(bp, parts);
	kl_parallel_ranges(kl_bp_parallel(bp, parts), batch->items.count, 0, sweep, bp);
	bp->profile.sweep = kl_bp_lap(&t);
	return gather_found(bp, parts);
}

bool kl_sap_batch_update(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	bool have_previous = batch->previous_valid;
	batch->previous_valid = false;
	bp->axes.valid = false;
	double t = kl_time_seconds();
	if (!kl_sap_sweep_all(bp) || !(have_previous ? diff_lists(bp) : diff_set(bp)))
	{
		return false;
	}
	bp->profile.diff = kl_bp_lap(&t) - bp->profile.items - bp->profile.sweep;
	// This update's list is the next one's previous list.
	uint64_t* list = batch->previous;
	int capacity = batch->previous_capacity;
	batch->previous = batch->found;
	batch->previous_count = batch->found_count;
	batch->previous_capacity = batch->found_capacity;
	batch->found = list;
	batch->found_capacity = capacity;
	batch->previous_valid = true;
	return true;
}

// Nanoseconds of this machine, roughly (AVX2 sweep; scalar costs more per item); only the
// comparison with kl_sap_incremental_cost matters. Before the first sweep, 1.5 pairs per proxy.
double kl_sap_batch_cost(const kl_broadphase* bp)
{
	double m = (double)bp->moving_count + bp->plan.fresh;
	double found = bp->last_mm_found > 0 ? (double)bp->last_mm_found : 1.5 * m;
	return m * (bp->simd == KL_SIMD_AVX2 ? 55.0 : 80.0) + found * 22.0;
}
