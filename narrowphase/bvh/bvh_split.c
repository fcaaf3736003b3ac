// Kollide — SIMDop BVH splits: longest axis, median and middle cells, and the compact kd groups near the
// leaves; dispatches to Batch Neural Gas (bvh_bng.c) and falls back to the longest axis.
// SPDX-License-Identifier: MIT
#include "bvh_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void centroid_box(const kl_bvh_builder_state* s, const int* tris, int count, float lo[3], float hi[3])
{
	for (int c = 0; c < 3; ++c)
	{
		lo[c] = INFINITY;
		hi[c] = -INFINITY;
	}
	for (int i = 0; i < count; ++i)
	{
		const float* p = s->centroid + 3 * tris[i];
		for (int c = 0; c < 3; ++c)
		{
			lo[c] = fminf(lo[c], p[c]);
			hi[c] = fmaxf(hi[c], p[c]);
		}
	}
}

/// Axes ordered by decreasing centroid extent (ties: lower axis first).
static void axes_by_extent(const float lo[3], const float hi[3], int order[3])
{
	order[0] = 0;
	order[1] = 1;
	order[2] = 2;
	for (int i = 1; i < 3; ++i)
	{
		for (int j = i; j > 0 && hi[order[j]] - lo[order[j]] > hi[order[j - 1]] - lo[order[j - 1]]; --j)
		{
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	}
}

/// Sorts the range by centroid along the longest axis and cuts it into `width` parts of equal size.
static int split_longest(kl_bvh_builder_state* s, int* tris, int count, int* size)
{
	float lo[3], hi[3];
	int order[3];
	centroid_box(s, tris, count, lo, hi);
	axes_by_extent(lo, hi, order);
	kl_float_key* keys = kl_alloc((size_t)count, sizeof(kl_float_key));
	if (keys == NULL)
	{
		s->failed = true;
		return 0;
	}
	for (int i = 0; i < count; ++i)
	{
		keys[i].key = s->centroid[3 * tris[i] + order[0]];
		keys[i].index = tris[i];
	}
	qsort(keys, (size_t)count, sizeof(kl_float_key), kl_compare_float_keys);
	for (int i = 0; i < count; ++i)
	{
		tris[i] = keys[i].index;
	}
	kl_free(keys);
	int n = s->width;
	for (int i = 0; i < n; ++i)
	{
		size[i] = count / n + (i < count % n ? 1 : 0);
	}
	return n;
}

static int compare_float(const void* a, const void* b)
{
	float x = *(const float*)a;
	float y = *(const float*)b;
	return (x > y) - (x < y);
}

/// Octree-like split: cut the log2(width) longest axes (at most all three) at the middle of the centroid box
/// (middle) or at the median centroid (median), one child per non-empty cell. Returns 0 when the cells are unusable
/// (fewer than two, or one with more than 90 % of the triangles).
static int split_cells(kl_bvh_builder_state* s, int* tris, int count, bool median, int* size)
{
	int cuts = s->width >= 8 ? 3 : (s->width == 4 ? 2 : 1);
	float lo[3], hi[3], thr[3];
	int order[3];
	centroid_box(s, tris, count, lo, hi);
	axes_by_extent(lo, hi, order);
	float* vals = median ? kl_alloc((size_t)count, sizeof(float)) : NULL;
	int* code = kl_alloc((size_t)count, sizeof(int));
	int* sorted = kl_alloc((size_t)count, sizeof(int));
	if ((median && vals == NULL) || code == NULL || sorted == NULL)
	{
		s->failed = true;
		kl_free(vals);
		kl_free(code);
		kl_free(sorted);
		return 0;
	}
	for (int c = 0; c < cuts; ++c)
	{
		int axis = order[c];
		thr[c] = 0.5f * lo[axis] + 0.5f * hi[axis];
		if (median)
		{
			for (int i = 0; i < count; ++i)
			{
				vals[i] = s->centroid[3 * tris[i] + axis];
			}
			qsort(vals, (size_t)count, sizeof(float), compare_float);
			thr[c] = vals[(count - 1) / 2];
		}
	}
	int cell_size[8] = {0};
	for (int i = 0; i < count; ++i)
	{
		int cd = 0;
		for (int c = 0; c < cuts; ++c)
		{
			cd |= (s->centroid[3 * tris[i] + order[c]] > thr[c] ? 1 : 0) << c;
		}
		code[i] = cd;
		cell_size[cd] += 1;
	}
	int groups = 0;
	int largest = 0;
	int start[8];
	int acc = 0;
	for (int cd = 0; cd < (1 << cuts); ++cd)
	{
		start[cd] = acc;
		acc += cell_size[cd];
		if (cell_size[cd] > 0)
		{
			size[groups++] = cell_size[cd];
			largest = cell_size[cd] > largest ? cell_size[cd] : largest;
		}
	}
	if (groups < 2 || (double)largest > 0.9 * count)
	{
		groups = 0;
	}
	else
	{
		for (int i = 0; i < count; ++i)
		{
			sorted[start[code[i]]++] = tris[i];
		}
		memcpy(tris, sorted, (size_t)count * sizeof(int));
	}
	kl_free(vals);
	kl_free(code);
	kl_free(sorted);
	return groups;
}

/// Sorts tris[0..count) by centroid along the longest axis of their centroid box.
static bool sort_longest(kl_bvh_builder_state* s, int* tris, int count)
{
	float lo[3], hi[3];
	int order[3];
	centroid_box(s, tris, count, lo, hi);
	axes_by_extent(lo, hi, order);
	kl_float_key* keys = kl_alloc((size_t)count, sizeof(kl_float_key));
	if (keys == NULL)
	{
		s->failed = true;
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		keys[i].key = s->centroid[3 * tris[i] + order[0]];
		keys[i].index = tris[i];
	}
	qsort(keys, (size_t)count, sizeof(kl_float_key), kl_compare_float_keys);
	for (int i = 0; i < count; ++i)
	{
		tris[i] = keys[i].index;
	}
	kl_free(keys);
	return true;
}

/// Cuts tris[0..count) into `parts` groups of at most `width` by recursive halving along the longest
/// centroid axis (a small kd-tree), appending the group sizes at size[*groups].
static void split_kd(kl_bvh_builder_state* s, int* tris, int count, int parts, int* size, int* groups)
{
	if (parts <= 1 || s->failed)
	{
		size[(*groups)++] = count;
		return;
	}
	int p1 = parts / 2;
	// As even as possible, while each half still fits its parts' lanes.
	int n1 = (int)(((int64_t)count * p1 + parts / 2) / parts);
	int W = s->width;
	n1 = n1 > p1 * W ? p1 * W : n1;
	n1 = count - n1 > (parts - p1) * W ? count - (parts - p1) * W : n1;
	if (!sort_longest(s, tris, count))
	{
		return;
	}
	split_kd(s, tris, n1, p1, size, groups);
	split_kd(s, tris + n1, count - n1, parts - p1, size, groups);
}

/// Near the leaves (width < count ≤ width²) BNG's clusters come out small and uneven, which leaves most
/// lanes of the nodes below empty; instead the range is cut into ⌈count / width⌉ compact groups of at
/// most `width`, each a node full of leaves (collapsing then pulls some of them up into the parent).
static int split_bottom(kl_bvh_builder_state* s, int* tris, int count, int* size)
{
	int W = s->width;
	int parts = (count + W - 1) / W;
	int groups = 0;
	split_kd(s, tris, count, parts < 2 ? 2 : parts, size, &groups);
	return s->failed ? 0 : groups;
}

int kl_bvh_split_range(kl_bvh_builder_state* s, int* tris, int count, int* size)
{
	int groups = 0;
	if (s->def->builder == KL_BVH_BUILD_BNG && s->def->collapse && s->width >= 4 && count <= s->width * s->width)
	{
		return split_bottom(s, tris, count, size);
	}
	switch (s->def->builder)
	{
		case KL_BVH_BUILD_MEDIAN:
			groups = split_cells(s, tris, count, true, size);
			break;
		case KL_BVH_BUILD_MIDDLE:
			groups = split_cells(s, tris, count, false, size);
			break;
		case KL_BVH_BUILD_BNG:
			groups = kl_bvh_bng_split(s->centroid, tris, count, s->width, s->def->seed, s->def, size);
			break;
		default:
			break;
	}
	if (groups == 0)
	{
		s->fallbacks += s->def->builder == KL_BVH_BUILD_LONGEST_AXIS ? 0 : 1;
		groups = split_longest(s, tris, count, size);
	}
	return groups;
}
