// Kollide broadphase — the per-item kernels of the batch sweep, shared by the CPU path (sap_batch.c)
// and the CUDA launch glue (broadphase/*.cu): one call per sorted item, on plain arrays, so that a
// GPU thread per item runs exactly the code the CPU runs.
//
// The batch path sorts the moving proxies on one axis w (the axis of largest variance) and sweeps:
// item i pairs with the items j > i whose w-interval starts before i's ends, if their u and v
// intervals overlap too. In a dense 3D world the w-slab of an item holds many boxes, so the items
// are first binned into a coarse grid of cells on u and v (a box goes into every cell it touches)
// and sorted by (cell, min on w): the sweep of item i stops at the end of its cell. A pair that
// shares several cells is reported only by the cell holding the lower corner of the two boxes'
// overlap on u and v. With a 1 x 1 grid this is the plain sweep.
//
// Touching counts as overlapping everywhere: all comparisons are <=.
// SPDX-License-Identifier: MIT
#pragma once

#include "hd.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/// The grid on the two axes that are not swept.
typedef struct kl_sap_grid
{
	float origin_u; ///< cell coordinate on u: floor((x - origin_u) * scale_u), clamped to [0, count_u)
	float scale_u;
	float origin_v;
	float scale_v;
	int count_u;
	int count_v; ///< cells are numbered cu * count_v + cv
} kl_sap_grid;

/// Sorted items, structure of arrays: items sorted by cell, then by min_w. Arrays that are read
/// eight at a time by the CPU's AVX2 path (min_w ... max_v) have 8 readable padding items at the end.
typedef struct kl_sap_items
{
	const float* min_w; ///< sweep axis
	const float* max_w;
	const float* min_u;
	const float* max_u;
	const float* min_v;
	const float* max_v;
	const int32_t* id;		 ///< proxy of each sorted item
	const uint32_t* cell;	 ///< cell of each sorted item, | KL_SAP_MULTI_CELL when its box spans several
	const uint32_t* corner;	 ///< first cell of the item's box: cu << 16 | cv
	const int32_t* cell_end; ///< per cell: one past its last sorted item
	int count;
	kl_sap_grid grid;
} kl_sap_items;

/// Flag of kl_sap_items.cell: the item's box is in several cells (only then can a pair be found twice).
#define KL_SAP_MULTI_CELL 0x80000000u
#define KL_SAP_CELL_MASK 0x7fffffffu

/// Maps a float to a uint32 that sorts in the same order (-0 and +0 map to the same key, as they
/// compare equal). NaN is never passed: the broadphase rejects it.
KL_HD static inline uint32_t kl_sap_float_key(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof(u));
	if (u == 0x80000000u)
	{
		u = 0u;
	}
	return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

/// The inverse of kl_sap_float_key (-0 comes back as +0).
KL_HD static inline float kl_sap_key_float(uint32_t key)
{
	uint32_t u = (key & 0x80000000u) != 0u ? (key & 0x7fffffffu) : ~key;
	float x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/// The pair key of two proxies: the smaller id in the high word.
KL_HD static inline uint64_t kl_sap_pair_key(int32_t a, int32_t b)
{
	uint32_t lo = (uint32_t)(a < b ? a : b);
	uint32_t hi = (uint32_t)(a < b ? b : a);
	return ((uint64_t)lo << 32) | hi;
}

/// Cell coordinate of x on one grid axis. Monotonic in x, so a point inside a box maps into the
/// box's cell range: the same function places items and picks the reporting cell.
KL_HD static inline int kl_sap_cell_coord(float x, float origin, float scale, int count)
{
	float t = (x - origin) * scale;
	if (!(t > 0.0f))
	{
		return 0;
	}
	if (t >= (float)count)
	{
		return count - 1;
	}
	return (int)t;
}

/// A box's cell range, packed a byte each: u from, u to, v from, v to (grids are at most 64 x 64).
KL_HD static inline uint32_t kl_sap_range(const kl_sap_grid* g, float min_u, float max_u, float min_v, float max_v)
{
	uint32_t u0 = (uint32_t)kl_sap_cell_coord(min_u, g->origin_u, g->scale_u, g->count_u);
	uint32_t u1 = (uint32_t)kl_sap_cell_coord(max_u, g->origin_u, g->scale_u, g->count_u);
	uint32_t v0 = (uint32_t)kl_sap_cell_coord(min_v, g->origin_v, g->scale_v, g->count_v);
	uint32_t v1 = (uint32_t)kl_sap_cell_coord(max_v, g->origin_v, g->scale_v, g->count_v);
	return u0 | u1 << 8 | v0 << 16 | v1 << 24;
}

/// Cells in a packed range.
KL_HD static inline int kl_sap_range_size(uint32_t r)
{
	return (int)(((r >> 8 & 0xffu) - (r & 0xffu) + 1u) * ((r >> 24) - (r >> 16 & 0xffu) + 1u));
}

/// kl_sap_items.cell of an item in cell c of a box with range r.
KL_HD static inline uint32_t kl_sap_item_cell(uint32_t c, uint32_t r)
{
	return c | (kl_sap_range_size(r) > 1 ? KL_SAP_MULTI_CELL : 0u);
}

/// kl_sap_items.corner of a box with range r.
KL_HD static inline uint32_t kl_sap_item_corner(uint32_t r)
{
	return (r & 0xffu) << 16 | (r >> 16 & 0xffu);
}

/// One past the last item j > i of i's cell with min_w[j] <= max_w[i]: the range item i sweeps.
/// A few steps linearly (the usual run is short), then galloping and bisection (a huge box costs a
/// logarithm).
KL_HD static inline int kl_sap_sweep_end(const kl_sap_items* s, int i)
{
	int end = s->cell_end[s->cell[i] & KL_SAP_CELL_MASK];
	float limit = s->max_w[i];
	int lo = i + 1;
	for (int k = 0; k < 8; ++k, ++lo)
	{
		if (lo == end || s->min_w[lo] > limit)
		{
			return lo;
		}
	}
	int step = 8;
	int hi = lo;
	while (hi < end && s->min_w[hi] <= limit)
	{
		lo = hi + 1;
		hi = lo + step;
		step *= 2;
	}
	if (hi > end)
	{
		hi = end;
	}
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (s->min_w[mid] <= limit)
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

/// True when the cell of i (and j: same cell) holds the lower corner on u and v of the two boxes'
/// overlap, so that a pair found in several shared cells is reported once. The corner's cell is
/// the larger of the two boxes' first cells on each axis (kl_sap_cell_coord is monotonic).
KL_HD static inline bool kl_sap_owns_pair(const kl_sap_items* s, int i, int j)
{
	if ((s->cell[i] & s->cell[j] & KL_SAP_MULTI_CELL) == 0u)
	{
		return true; // one of them is in this cell only: the pair cannot be found elsewhere
	}
	uint32_t a = s->corner[i], b = s->corner[j];
	uint32_t cu = (a >> 16) > (b >> 16) ? (a >> 16) : (b >> 16);
	uint32_t cv = (a & 0xffffu) > (b & 0xffffu) ? (a & 0xffffu) : (b & 0xffffu);
	return cu * (uint32_t)s->grid.count_v + cv == (s->cell[i] & KL_SAP_CELL_MASK);
}

/// The test for j in (i, kl_sap_sweep_end): the w intervals overlap already.
KL_HD static inline bool kl_sap_pair_test(const kl_sap_items* s, int i, int j)
{
	bool overlap = s->min_u[j] <= s->max_u[i] && s->min_u[i] <= s->max_u[j] && s->min_v[j] <= s->max_v[i] &&
				   s->min_v[i] <= s->max_v[j];
	return overlap && kl_sap_owns_pair(s, i, j);
}

/// Pairs that sorted item i reports.
KL_HD static inline int kl_sap_count_pairs(const kl_sap_items* s, int i)
{
	int end = s->cell_end[s->cell[i] & KL_SAP_CELL_MASK];
	float limit = s->max_w[i];
	int count = 0;
	for (int j = i + 1; j < end && s->min_w[j] <= limit; ++j)
	{
		count += kl_sap_pair_test(s, i, j) ? 1 : 0;
	}
	return count;
}

/// Writes the pairs of sorted item i (kl_sap_pair_key of the two proxies, in sorted order of j);
/// out holds kl_sap_count_pairs(s, i) keys (at most kl_sap_sweep_end(s, i) - i - 1). Returns the
/// number written.
KL_HD static inline int kl_sap_write_pairs(const kl_sap_items* s, int i, uint64_t* out)
{
	int end = s->cell_end[s->cell[i] & KL_SAP_CELL_MASK];
	float limit = s->max_w[i];
	int count = 0;
	for (int j = i + 1; j < end && s->min_w[j] <= limit; ++j)
	{
		if (kl_sap_pair_test(s, i, j))
		{
			out[count++] = kl_sap_pair_key(s->id[i], s->id[j]);
		}
	}
	return count;
}

// ---------------------------------------------------------------------------------------------
// GPU entry point, implemented by the CUDA glue (broadphase/sap_batch.cu); sap_batch.c calls it
// when def.use_gpu is set and the build has that file (KL_SAP_HAVE_GPU, see CMakeLists.txt).
//
// The CPU hands over the items, one per (moving proxy, cell its box touches), unsorted. The device:
//  1. sorts keys with source, stably;
//  2. gathers kl_sap_items in sorted order: for item k with p = source[k], min_w = lower[axis_w][p],
//     max_w = upper[axis_w][p] (likewise u, v), id = id[p]; with r = kl_sap_range(&grid, min_u,
//     max_u, min_v, max_v) of the box, cell = kl_sap_item_cell(key >> 32, r) and corner =
//     kl_sap_item_corner(r); cell_end[c] = one past the last item of cell c;
//  3. counts the pairs of every item (kl_sap_count_pairs), scans the counts and writes the pairs
//     (kl_sap_write_pairs) in sorted item order, and copies them back.

typedef struct kl_sap_gpu_batch
{
	// Input, host memory.
	const uint64_t* keys;  ///< per item: (uint64_t)cell << 32 | kl_sap_float_key(min of its box on w)
	const int32_t* source; ///< per item: its proxy's index in the arrays below
	int item_count;
	const float* lower[3]; ///< per proxy, on the world axes x, y, z
	const float* upper[3];
	const int32_t* id; ///< per proxy: what the pair keys are made of
	int proxy_count;
	int axis_w; ///< the swept axis; u and v are the other two (grid axes)
	int axis_u;
	int axis_v;
	kl_sap_grid grid;
	// Output, host memory.
	uint64_t* pairs; ///< kl_sap_pair_key of every pair
	int pair_capacity;
	int pair_count; ///< set by the call; when above pair_capacity nothing was written: call again
} kl_sap_gpu_batch;

#ifdef __cplusplus
extern "C" {
#endif

/// Runs the batch sweep on the device. False when no device can serve it (the CPU path runs then).
bool kl_sap_gpu_sweep(kl_sap_gpu_batch* batch);

#ifdef __cplusplus
}
#endif
