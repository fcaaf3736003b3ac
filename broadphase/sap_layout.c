// Kollide broadphase — the batch path's layout: which axis to sweep and how coarse a grid of cells
// to put on the other two. Measured from the moving proxies now and then (they drift slowly
// compared with the updates), with percentiles so that a few far-away boxes do not stretch the grid.
// SPDX-License-Identifier: MIT
#include "bp_internal.h"

#include "core.h"

#include <stdlib.h>

#define SAMPLE 2048
#define MAX_GRID 64 // per axis: cell coordinates fit a byte in kl_sap_cell_range

typedef struct axis_stats
{
	double variance;
	float low;	  ///< 1.5th and 98.5th percentiles of the centres
	float high;
	float extent; ///< median extent
} axis_stats;

static int compare_floats(const void* a, const void* b)
{
	float x = *(const float*)a;
	float y = *(const float*)b;
	return (x > y) - (x < y);
}

static void measure_axis(const kl_aabb* boxes, int n, int k, axis_stats* stats, float* sample)
{
	double sum = 0.0, sum2 = 0.0;
	for (int i = 0; i < n; ++i)
	{
		double c = 0.5 * ((double)boxes[i].lower.raw[k] + (double)boxes[i].upper.raw[k]);
		sum += c;
		sum2 += c * c;
	}
	double mean = sum / n;
	stats->variance = sum2 / n - mean * mean;
	int stride = n > SAMPLE ? n / SAMPLE : 1;
	int s = 0;
	for (int i = 0; i < n && s < SAMPLE; i += stride)
	{
		sample[s++] = 0.5f * boxes[i].lower.raw[k] + 0.5f * boxes[i].upper.raw[k];
	}
	qsort(sample, (size_t)s, sizeof(float), compare_floats);
	stats->low = sample[s / 64];
	stats->high = sample[s - 1 - s / 64];
	s = 0;
	for (int i = 0; i < n && s < SAMPLE; i += stride)
	{
		sample[s++] = boxes[i].upper.raw[k] - boxes[i].lower.raw[k];
	}
	qsort(sample, (size_t)s, sizeof(float), compare_floats);
	stats->extent = sample[s / 2];
}

// The grid that minimises a simple cost: duplicated items times (the cost of an item in box tests:
// sorting, copying and starting its sweep, plus the items its sweep meets), where an item's sweep
// meets the items of its cell whose min on w lies within its extent.
static void choose_grid(kl_sap_batch* batch, const axis_stats* stats, int n, double item_cost)
{
	const axis_stats* w = stats + batch->axis[0];
	const axis_stats* u = stats + batch->axis[1];
	const axis_stats* v = stats + batch->axis[2];
	double span_w = (double)w->high - w->low;
	double span_u = (double)u->high - u->low;
	double span_v = (double)v->high - v->low;
	double meet = span_w > 0.0 ? n * (double)w->extent / span_w : n;
	int best_u = 1, best_v = 1;
	double best = 1.0e300;
	int most_u = span_u > 0.0 && n >= 256 ? MAX_GRID : 1;
	int most_v = span_v > 0.0 && n >= 256 ? MAX_GRID : 1;
	for (int gu = 1; gu <= most_u; ++gu)
	{
		for (int gv = 1; gv <= most_v && gu * gv <= n / 8 + 1; ++gv)
		{
			double dup = (1.0 + u->extent * gu / (span_u > 0.0 ? span_u : 1.0)) *
						 (1.0 + v->extent * gv / (span_v > 0.0 ? span_v : 1.0));
			double cost = n * dup * (item_cost + meet * dup / (gu * gv)) + 4.0 * gu * gv;
			if (cost < best)
			{
				best = cost;
				best_u = gu;
				best_v = gv;
			}
		}
	}
	kl_sap_grid* g = &batch->grid;
	g->count_u = best_u;
	g->count_v = best_v;
	g->origin_u = u->low;
	g->origin_v = v->low;
	g->scale_u = best_u > 1 ? (float)(best_u / span_u) : 0.0f;
	g->scale_v = best_v > 1 ? (float)(best_v / span_v) : 0.0f;
	batch->cell_count = best_u * best_v;
}

static void single_cell(kl_sap_batch* batch)
{
	batch->grid = (kl_sap_grid){0.0f, 0.0f, 0.0f, 0.0f, 1, 1};
	batch->cell_count = 1;
	batch->axis[0] = 0;
	batch->axis[1] = 1;
	batch->axis[2] = 2;
}

static bool measure(kl_broadphase* bp, axis_stats* stats)
{
	kl_sap_batch* batch = &bp->batch;
	int n = bp->moving_count;
	float* sample = kl_alloc(SAMPLE, sizeof(float));
	if (sample == NULL)
	{
		return false;
	}
	for (int k = 0; k < 3; ++k)
	{
		measure_axis(bp->moving_boxes, n, k, stats + k, sample);
	}
	kl_free(sample);
	int w = 0;
	for (int k = 1; k < 3; ++k)
	{
		w = stats[k].variance > stats[w].variance ? k : w;
	}
	batch->axis[0] = w;
	batch->axis[1] = w == 0 ? 1 : 0;
	batch->axis[2] = w == 2 ? 1 : 2;
	// An item costs about 24 AVX2 box tests or 8 scalar ones.
	choose_grid(batch, stats, n, bp->simd == KL_SIMD_AVX2 ? 24.0 : 8.0);
	return true;
}

bool kl_sap_update_layout(kl_broadphase* bp)
{
	kl_sap_batch* batch = &bp->batch;
	int n = bp->moving_count;
	int change = n > batch->layout_count ? n - batch->layout_count : batch->layout_count - n;
	if (batch->cell_count > 0 && batch->layout_age < 16 && change <= n / 8)
	{
		batch->layout_age++;
		return true;
	}
	batch->layout_age = 0;
	batch->layout_count = n;
	if (n == 0)
	{
		single_cell(batch);
		return true;
	}
	axis_stats stats[3];
	if (!measure(bp, stats))
	{
		return false;
	}
	// Endpoint density per axis: the incremental cost model's prior until it has measured swaps.
	if (!bp->swaps_calibrated)
	{
		for (int k = 0; k < 3; ++k)
		{
			double span = (double)stats[k].high - stats[k].low + stats[k].extent;
			bp->swaps_per_length[k] = span > 0.0 ? 2.0 * n / span : 0.0;
		}
	}
	return true;
}

uint32_t kl_sap_cell_range(const kl_sap_batch* batch, const kl_aabb* box)
{
	int u = batch->axis[1], v = batch->axis[2];
	return kl_sap_range(&batch->grid, box->lower.raw[u], box->upper.raw[u], box->lower.raw[v], box->upper.raw[v]);
}
