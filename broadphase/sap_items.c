// Kollide broadphase — the batch path's items: one per (moving proxy, cell its box touches),
// bucketed by cell, sorted by min on w within each cell and copied into the structure of arrays the
// kernels sweep. Each cell is small enough to sort in cache, and the cells are sorted in parallel.
//
// The moving proxies' slots are renumbered now and then in the sorted order, so that the copy
// reads their boxes almost in sequence: a million random reads cost more than the sort.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"
#include "radix_sort.h"

#include <float.h>
#include <string.h>

#define PAD 8 // readable items after the last one, for 8-wide loads

void kl_sap_batch_destroy(kl_sap_batch* batch)
{
	kl_free(batch->sorted);
	kl_free(batch->id);
	kl_free(batch->cell);
	kl_free(batch->corner);
	kl_free(batch->keys);
	kl_free(batch->cells);
	kl_free(batch->range);
	kl_free(batch->found);
	kl_free(batch->previous);
	kl_free(batch->gpu_source);
	kl_free(batch->gpu_bounds);
	memset(batch, 0, sizeof(*batch));
}

static bool reserve_items(kl_sap_batch* batch, int count)
{
	if (count <= batch->item_capacity)
	{
		return true;
	}
	int capacity = batch->item_capacity > 0 ? batch->item_capacity : 256;
	while (capacity < count)
	{
		capacity *= 2;
	}
	kl_free(batch->sorted);
	kl_free(batch->id);
	kl_free(batch->cell);
	kl_free(batch->corner);
	kl_free(batch->keys);
	batch->sorted = kl_alloc((size_t)(capacity + PAD) * 6, sizeof(float));
	batch->id = kl_alloc((size_t)(capacity + PAD), sizeof(int32_t));
	batch->cell = kl_alloc((size_t)(capacity + PAD), sizeof(uint32_t));
	batch->corner = kl_alloc((size_t)(capacity + PAD), sizeof(uint32_t));
	batch->keys = kl_alloc((size_t)capacity * 2, sizeof(uint64_t));
	bool ok = batch->sorted != NULL && batch->id != NULL && batch->cell != NULL && batch->corner != NULL &&
			  batch->keys != NULL;
	batch->item_capacity = ok ? capacity : 0;
	return ok;
}

static float* sorted_array(const kl_sap_batch* batch, int k)
{
	return batch->sorted + (size_t)k * (size_t)(batch->item_capacity + PAD);
}

// Cells of every box, items per cell and where each cell's items start. False on OOM or overflow.
static bool count_items(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	int n = bp->moving_count;
	int cells = batch->cell_count;
	if (!KL_ARRAY_RESERVE(batch->range, batch->range_capacity, n > 0 ? n : 1) ||
		!KL_ARRAY_RESERVE(batch->cells, batch->cells_capacity, 3 * cells))
	{
		return false;
	}
	int32_t* end = batch->cells;
	int32_t* begin = batch->cells + cells;
	int32_t* cursor = batch->cells + 2 * cells;
	memset(cursor, 0, (size_t)cells * sizeof(int32_t));
	int count_v = batch->grid.count_v;
	int64_t total = 0;
	for (int i = 0; i < n; ++i)
	{
		uint32_t r = kl_sap_cell_range(batch, bp->moving_boxes + i);
		batch->range[i] = r;
		total += kl_sap_range_size(r);
		for (uint32_t cu = r & 0xffu; cu <= (r >> 8 & 0xffu); ++cu)
		{
			for (uint32_t cv = r >> 16 & 0xffu; cv <= r >> 24; ++cv)
			{
				cursor[cu * (uint32_t)count_v + cv]++;
			}
		}
	}
	batch->max_extent_w = -1.0; // measured by the first query
	if (total > INT32_MAX / 8)
	{
		kl_fail(KL_ERR_LIMIT, "too many broadphase items");
		return false;
	}
	int sum = 0;
	for (int c = 0; c < cells; ++c)
	{
		begin[c] = sum;
		sum += cursor[c];
		end[c] = sum;
		cursor[c] = begin[c];
	}
	batch->item_count = sum;
	return reserve_items(batch, sum);
}

// Items into their cells' buckets in slot order, keyed by (min on w, slot).
static void bucket_items(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	int32_t* cursor = batch->cells + 2 * batch->cell_count;
	int w = batch->axis[0];
	uint32_t count_v = (uint32_t)batch->grid.count_v;
	for (int i = 0; i < bp->moving_count; ++i)
	{
		uint32_t r = batch->range[i];
		uint64_t key = (uint64_t)kl_sap_float_key(bp->moving_boxes[i].lower.raw[w]) << 32 | (uint32_t)i;
		for (uint32_t cu = r & 0xffu; cu <= (r >> 8 & 0xffu); ++cu)
		{
			for (uint32_t cv = r >> 16 & 0xffu; cv <= r >> 24; ++cv)
			{
				batch->keys[cursor[cu * count_v + cv]++] = key;
			}
		}
	}
}

// Merges the sorted runs [a, b) and [b, c) of src into dst.
static void merge_runs(const uint64_t* src, uint64_t* dst, int a, int b, int c)
{
	int i = a, j = b, k = a;
	while (i < b && j < c)
	{
		dst[k++] = src[j] < src[i] ? src[j++] : src[i++];
	}
	while (i < b)
	{
		dst[k++] = src[i++];
	}
	while (j < c)
	{
		dst[k++] = src[j++];
	}
}

// Natural merge sort for a bucket made of a few sorted runs. False when it has too many runs.
static bool merge_sort_runs(uint64_t* keys, uint64_t* scratch, int n)
{
	int starts[17];
	int runs = 0;
	for (int i = 0; i < n; ++i)
	{
		if (i == 0 || keys[i] < keys[i - 1])
		{
			if (runs == 16)
			{
				return false;
			}
			starts[runs++] = i;
		}
	}
	starts[runs] = n;
	uint64_t* src = keys;
	uint64_t* dst = scratch;
	while (runs > 1)
	{
		int merged = 0;
		for (int r = 0; r < runs; r += 2)
		{
			if (r + 1 < runs)
			{
				merge_runs(src, dst, starts[r], starts[r + 1], starts[r + 2]);
			}
			else
			{
				memcpy(dst + starts[r], src + starts[r], (size_t)(starts[r + 1] - starts[r]) * sizeof(uint64_t));
			}
			starts[merged++] = starts[r];
		}
		starts[merged] = n;
		runs = merged;
		uint64_t* t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
	{
		memcpy(keys, src, (size_t)n * sizeof(uint64_t));
	}
	return true;
}

// A cell's bucket in (min on w, slot) order. Slots follow the last sort, so a bucket is usually a
// few sorted runs (its own boxes, and those reaching in from the cells before it): merged. Radix
// sort otherwise.
static bool sort_cell(uint64_t* keys, uint64_t* scratch, int n)
{
	return merge_sort_runs(keys, scratch, n) || kl_radix_sort(keys, NULL, scratch, NULL, n, 32, 32);
}

static void fill_cell(kl_broadphase* bp, int c)
{
	kl_sap_batch* batch = &bp->batch;
	int w = batch->axis[0], u = batch->axis[1], v = batch->axis[2];
	float* min_w = sorted_array(batch, 0);
	float* max_w = sorted_array(batch, 1);
	float* min_u = sorted_array(batch, 2);
	float* max_u = sorted_array(batch, 3);
	float* min_v = sorted_array(batch, 4);
	float* max_v = sorted_array(batch, 5);
	int begin = batch->cells[batch->cell_count + c];
	int end = batch->cells[c];
	for (int k = begin; k < end; ++k)
	{
		uint32_t src = (uint32_t)batch->keys[k];
		const kl_aabb* b = bp->moving_boxes + src;
		min_w[k] = b->lower.raw[w];
		max_w[k] = b->upper.raw[w];
		min_u[k] = b->lower.raw[u];
		max_u[k] = b->upper.raw[u];
		min_v[k] = b->lower.raw[v];
		max_v[k] = b->upper.raw[v];
		uint32_t r = batch->range[src];
		batch->id[k] = bp->moving_ids[src];
		batch->cell[k] = kl_sap_item_cell((uint32_t)c, r);
		batch->corner[k] = kl_sap_item_corner(r);
	}
}

typedef struct cell_task
{
	kl_broadphase* bp;
	int parts;
	int* first; ///< cells of partition p: [first[p], first[p + 1])
} cell_task;

static void sort_and_fill(int start, int end, int worker, void* context)
{
	(void)worker;
	cell_task* t = context;
	kl_sap_batch* batch = &t->bp->batch;
	for (int p = start; p < end; ++p)
	{
		for (int c = t->first[p]; c < t->first[p + 1]; ++c)
		{
			int b = batch->cells[batch->cell_count + c];
			int n = batch->cells[c] - b;
			if (!sort_cell(batch->keys + b, batch->keys + batch->item_capacity + b, n))
			{
				t->bp->parts[p].failed = true;
				return;
			}
			fill_cell(t->bp, c);
		}
	}
}

// Partitions of whole cells with about the same number of items each.
static void split_cells(const kl_sap_batch* batch, cell_task* t)
{
	const int32_t* begin = batch->cells + batch->cell_count;
	int c = 0;
	for (int p = 0; p < t->parts; ++p)
	{
		int64_t target = (int64_t)batch->item_count * p / t->parts;
		while (c < batch->cell_count && begin[c] < target)
		{
			c++;
		}
		t->first[p] = c;
	}
	t->first[0] = 0;
	t->first[t->parts] = batch->cell_count;
}

static void finish_items(kl_sap_batch* batch)
{
	int n = batch->item_count;
	for (int k = 0; k < 6; ++k)
	{
		memset(sorted_array(batch, k) + n, 0, PAD * sizeof(float));
	}
	memset(batch->id + n, 0, PAD * sizeof(int32_t));
	memset(batch->cell + n, 0, PAD * sizeof(uint32_t));
	memset(batch->corner + n, 0, PAD * sizeof(uint32_t));
	batch->items = (kl_sap_items){sorted_array(batch, 0), sorted_array(batch, 1), sorted_array(batch, 2),
								  sorted_array(batch, 3), sorted_array(batch, 4), sorted_array(batch, 5),
								  batch->id,			  batch->cell,			  batch->corner,
								  batch->cells,			  n,					  batch->grid};
}

// Renumbers the moving slots in sorted order (the item in each box's first cell stands for it).
static bool renumber_slots(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	int n = bp->moving_count;
	int32_t* ids = kl_alloc((size_t)(n > 0 ? n : 1), sizeof(int32_t));
	kl_aabb* boxes = kl_alloc((size_t)(n > 0 ? n : 1), sizeof(kl_aabb));
	if (ids == NULL || boxes == NULL)
	{
		kl_free(ids);
		kl_free(boxes);
		return false;
	}
	int count_v = batch->grid.count_v;
	int slot = 0;
	for (int k = 0; k < batch->item_count; ++k)
	{
		uint32_t corner = batch->corner[k];
		uint32_t first = (corner >> 16) * (uint32_t)count_v + (corner & 0xffffu);
		if (first == (batch->cell[k] & KL_SAP_CELL_MASK))
		{
			uint32_t src = (uint32_t)batch->keys[k];
			ids[slot] = bp->moving_ids[src];
			boxes[slot] = bp->moving_boxes[src];
			bp->info[ids[slot]].slot = slot;
			slot++;
		}
	}
	memcpy(bp->moving_ids, ids, (size_t)n * sizeof(int32_t));
	memcpy(bp->moving_boxes, boxes, (size_t)n * sizeof(kl_aabb));
	kl_free(ids);
	kl_free(boxes);
	return true;
}

bool kl_sap_build_items(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	if (!kl_sap_update_layout(bp) || !count_items(bp))
	{
		return false;
	}
	bucket_items(bp);
	cell_task t = {bp, kl_bp_partition_count(bp, batch->item_count, 16384), bp->part_first};
	split_cells(batch, &t);
	kl_bp_parts_reset(bp, t.parts);
	kl_bp_run(bp, sort_and_fill, t.parts, &t);
	for (int p = 0; p < t.parts; ++p)
	{
		if (bp->parts[p].failed)
		{
			return false;
		}
	}
	finish_items(batch);
	batch->valid = true;
	// Right away, then now and then: the order decays only as proxies move between cells.
	if (batch->renumber_age-- <= 0)
	{
		batch->renumber_age = 16;
		return renumber_slots(bp);
	}
	return true;
}

#if defined(KL_SAP_HAVE_GPU)
bool kl_sap_gpu_input(kl_broadphase* bp, kl_sap_gpu_batch* in)
{
	kl_sap_batch* batch = &bp->batch;
	int n = bp->moving_count;
	if (!kl_sap_update_layout(bp) || !count_items(bp) ||
		!KL_ARRAY_RESERVE(batch->gpu_source, batch->gpu_source_capacity, batch->item_count + 1) ||
		!KL_ARRAY_RESERVE(batch->gpu_bounds, batch->gpu_bounds_capacity, 6 * n + 1))
	{
		return false;
	}
	int w = batch->axis[0];
	uint32_t count_v = (uint32_t)batch->grid.count_v;
	int k = 0;
	for (int i = 0; i < n; ++i)
	{
		const kl_aabb* b = bp->moving_boxes + i;
		for (int a = 0; a < 3; ++a)
		{
			batch->gpu_bounds[(size_t)a * n + i] = b->lower.raw[a];
			batch->gpu_bounds[(size_t)(3 + a) * n + i] = b->upper.raw[a];
		}
		uint32_t r = batch->range[i];
		uint64_t key = kl_sap_float_key(b->lower.raw[w]);
		for (uint32_t cu = r & 0xffu; cu <= (r >> 8 & 0xffu); ++cu)
		{
			for (uint32_t cv = r >> 16 & 0xffu; cv <= r >> 24; ++cv)
			{
				batch->keys[k] = (uint64_t)(cu * count_v + cv) << 32 | key;
				batch->gpu_source[k++] = i;
			}
		}
	}
	*in = (kl_sap_gpu_batch){batch->keys, batch->gpu_source, k,		 {0},			{0}, bp->moving_ids,
							 n,			  batch->axis[0],	 batch->axis[1], batch->axis[2], batch->grid, NULL, 0, 0};
	for (int a = 0; a < 3; ++a)
	{
		in->lower[a] = batch->gpu_bounds + (size_t)a * n;
		in->upper[a] = batch->gpu_bounds + (size_t)(3 + a) * n;
	}
	return true;
}
#endif

// ---------------------------------------------------------------------------------------------
// Queries against this update's sorted items

static bool query_cell(kl_broadphase* bp, const kl_aabb* box, int c, float low, kl_id_list* out, int64_t* tests)
{
	const kl_sap_batch* batch = &bp->batch;
	const kl_sap_items* s = &batch->items;
	int w = batch->axis[0], u = batch->axis[1], v = batch->axis[2];
	int lo = batch->cells[batch->cell_count + c], hi = batch->cells[c];
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (s->min_w[mid] < low)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	const kl_sap_grid* g = &batch->grid;
	for (int j = lo; j < batch->cells[c] && s->min_w[j] <= box->upper.raw[w]; ++j)
	{
		*tests += 1;
		if (!kl_aabb_overlap(box, bp->boxes + s->id[j]))
		{
			continue;
		}
		// Reported by the cell of the overlap's lower corner on u and v, as in the sweep.
		float pu = box->lower.raw[u] > s->min_u[j] ? box->lower.raw[u] : s->min_u[j];
		float pv = box->lower.raw[v] > s->min_v[j] ? box->lower.raw[v] : s->min_v[j];
		int owner = kl_sap_cell_coord(pu, g->origin_u, g->scale_u, g->count_u) * g->count_v +
					kl_sap_cell_coord(pv, g->origin_v, g->scale_v, g->count_v);
		if (owner == c && !kl_id_list_push(out, s->id[j]))
		{
			return false;
		}
	}
	return true;
}

bool kl_sap_batch_query(kl_broadphase* bp, const kl_aabb* box, kl_id_list* out, int64_t* tests)
{
	kl_sap_batch* batch = &bp->batch;
	if (batch->items.count == 0)
	{
		return true;
	}
	// Items whose w-interval can reach box start at most the largest extent below it.
	int w = batch->axis[0];
	if (batch->max_extent_w < 0.0)
	{
		double extent = 0.0;
		for (int i = 0; i < bp->moving_count; ++i)
		{
			const kl_aabb* b = bp->moving_boxes + i;
			double e = (double)b->upper.raw[w] - (double)b->lower.raw[w];
			extent = e > extent ? e : extent;
		}
		batch->max_extent_w = extent * (1.0 + 1.0e-12);
	}
	double reach = (double)box->lower.raw[w] - batch->max_extent_w;
	reach -= (fabs((double)box->lower.raw[w]) + batch->max_extent_w) * 1.0e-12;
	float low = reach < -(double)FLT_MAX ? -FLT_MAX : (float)reach;
	uint32_t r = kl_sap_cell_range(batch, box);
	for (uint32_t cu = r & 0xffu; cu <= (r >> 8 & 0xffu); ++cu)
	{
		for (uint32_t cv = r >> 16 & 0xffu; cv <= r >> 24; ++cv)
		{
			if (!query_cell(bp, box, (int)(cu * (uint32_t)batch->grid.count_v + cv), low, out, tests))
			{
				return false;
			}
		}
	}
	return true;
}
