// Kollide — SIMDop BVH construction: top-down splits (longest axis, median, middle, Batch Neural Gas),
// tight child DOPs written into the parent's SoA rows, optional binary16 packing with outward rounding.
// SPDX-License-Identifier: MIT
#define _DEFAULT_SOURCE // madvise(MADV_HUGEPAGE) on Linux
#include "bvh.h"

#include "core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/// Node and triangle-record arrays of a few MiB and more go on 2 MiB pages where the kernel offers them
/// (transparent huge pages in "madvise" mode): a query hops between nodes all over the array, and with
/// 4 KiB pages nearly every hop on a tree that is not in cache is also a TLB miss.
static void* alloc_big(size_t bytes)
{
	const size_t huge = (size_t)2 << 20;
	if (bytes < 2 * huge)
	{
		return aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
	}
	size_t rounded = (bytes + huge - 1) & ~(huge - 1);
	void* p = aligned_alloc(huge, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p != NULL)
	{
		madvise(p, rounded, MADV_HUGEPAGE); // advice only: failure leaves ordinary pages
	}
#endif
	return p;
}

kl_bvh_build_def kl_bvh_default_build_def(void)
{
	kl_bvh_build_def def = {0};
	def.width = 8;
	def.k = 26;
	def.builder = KL_BVH_BUILD_BNG;
	def.fp16 = false;
	def.seed = 1;
	def.bng_iterations = 30;
	def.bng_lambda_final = 0.01f;
	def.bng_sample_limit = 2048;
	def.collapse = true;
	return def;
}

/// Build state: FP32 staging nodes (rows [2·axes][width], children, counts), grown as needed.
typedef struct kl_bvh_builder_state
{
	const kl_bvh_build_def* def;
	int width;
	int axes;
	const float* centroid; // 3 per triangle
	const float* tri_dop;  // 2·axes per triangle: lo then hi
	int* tris;
	float* box;
	int32_t* child;
	int32_t* count;
	int node_count;
	int node_capacity;
	int depth;
	int fallbacks;
	bool failed;
} kl_bvh_builder_state;

typedef struct kl_bvh_key
{
	float key;
	int tri;
} kl_bvh_key;

static int compare_key(const void* a, const void* b)
{
	const kl_bvh_key* x = a;
	const kl_bvh_key* y = b;
	if (x->key != y->key)
	{
		return x->key < y->key ? -1 : 1;
	}
	return (x->tri > y->tri) - (x->tri < y->tri);
}

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
	kl_bvh_key* keys = kl_alloc((size_t)count, sizeof(kl_bvh_key));
	if (keys == NULL)
	{
		s->failed = true;
		return 0;
	}
	for (int i = 0; i < count; ++i)
	{
		keys[i].key = s->centroid[3 * tris[i] + order[0]];
		keys[i].tri = tris[i];
	}
	qsort(keys, (size_t)count, sizeof(kl_bvh_key), compare_key);
	for (int i = 0; i < count; ++i)
	{
		tris[i] = keys[i].tri;
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
	kl_bvh_key* keys = kl_alloc((size_t)count, sizeof(kl_bvh_key));
	if (keys == NULL)
	{
		s->failed = true;
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		keys[i].key = s->centroid[3 * tris[i] + order[0]];
		keys[i].tri = tris[i];
	}
	qsort(keys, (size_t)count, sizeof(kl_bvh_key), compare_key);
	for (int i = 0; i < count; ++i)
	{
		tris[i] = keys[i].tri;
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

static int split_range(kl_bvh_builder_state* s, int* tris, int count, int* size)
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

static int new_node(kl_bvh_builder_state* s)
{
	if (s->node_count == s->node_capacity)
	{
		int cap = s->node_capacity * 2;
		size_t rows = (size_t)2 * s->axes * s->width;
		float* box = kl_realloc(s->box, (size_t)cap, rows * sizeof(float));
		if (box != NULL)
		{
			s->box = box;
		}
		int32_t* child = kl_realloc(s->child, (size_t)cap, (size_t)s->width * sizeof(int32_t));
		if (child != NULL)
		{
			s->child = child;
		}
		int32_t* count = kl_realloc(s->count, (size_t)cap, sizeof(int32_t));
		if (count != NULL)
		{
			s->count = count;
		}
		if (box == NULL || child == NULL || count == NULL)
		{
			s->failed = true;
			return -1;
		}
		s->node_capacity = cap;
	}
	int node = s->node_count++;
	size_t rows = (size_t)2 * s->axes * s->width;
	memset(s->box + (size_t)node * rows, 0, rows * sizeof(float));
	for (int i = 0; i < s->width; ++i)
	{
		s->child[(size_t)node * s->width + i] = KL_BVH_EMPTY;
	}
	s->count[node] = 0;
	return node;
}

static void set_lane(kl_bvh_builder_state* s, int node, int lane, int32_t child, const float* lo, const float* hi)
{
	int A = s->axes;
	int W = s->width;
	float* box = s->box + (size_t)node * 2 * A * W;
	for (int i = 0; i < A; ++i)
	{
		box[i * W + lane] = lo[i];
		box[(A + i) * W + lane] = hi[i];
	}
	s->child[(size_t)node * W + lane] = child;
}

/// Pulls the lanes of inner children up into `node` while they fit in its free lanes (smallest child
/// first), so that nodes run full: BNG's small clusters near the leaves otherwise leave 8-ary nodes at
/// ~3.8 used lanes and 16-ary ones at ~5. The pulled lanes keep their tight DOPs (the hierarchy stays
/// wrapped); the emptied child is marked dead (count −1) and dropped when the nodes are packed.
static void collapse_node(kl_bvh_builder_state* s, int node)
{
	int W = s->width;
	int A = s->axes;
	int32_t* child = s->child + (size_t)node * W;
	float* box = s->box + (size_t)node * 2 * A * W;
	for (;;)
	{
		int count = s->count[node];
		int best = -1;
		int best_k = W + 1;
		for (int lane = 0; lane < count; ++lane)
		{
			int c = child[lane];
			if (c >= 0 && count - 1 + s->count[c] <= W && s->count[c] < best_k)
			{
				best = lane;
				best_k = s->count[c];
			}
		}
		if (best < 0)
		{
			return;
		}
		int c = child[best];
		const int32_t* cc = s->child + (size_t)c * W;
		const float* cbox = s->box + (size_t)c * 2 * A * W;
		for (int k = 0; k < best_k; ++k)
		{
			int lane = k == 0 ? best : count + k - 1;
			for (int r = 0; r < 2 * A; ++r)
			{
				box[r * W + lane] = cbox[r * W + k];
			}
			child[lane] = cc[k];
		}
		s->count[node] = count - 1 + best_k;
		s->count[c] = -1;
	}
}

/// Builds the node over tris[0..count) (count ≥ 2) and returns its index; lo/hi receive its DOP.
static int build_node(kl_bvh_builder_state* s, int* tris, int count, int depth, float* lo, float* hi)
{
	int node = new_node(s);
	if (node < 0)
	{
		return -1;
	}
	s->depth = depth > s->depth ? depth : s->depth;
	int size[KL_BVH_MAX_WIDTH];
	int groups = count;
	if (count <= s->width)
	{
		for (int i = 0; i < count; ++i)
		{
			size[i] = 1;
		}
	}
	else
	{
		groups = split_range(s, tris, count, size);
	}
	int A = s->axes;
	kl_kdop_set_empty(A, lo, hi);
	int pos = 0;
	for (int lane = 0; lane < groups && !s->failed; ++lane)
	{
		float clo[KL_KDOP_MAX_AXES], chi[KL_KDOP_MAX_AXES];
		int32_t child;
		if (size[lane] == 1)
		{
			const float* td = s->tri_dop + (size_t)tris[pos] * 2 * A;
			memcpy(clo, td, (size_t)A * sizeof(float));
			memcpy(chi, td + A, (size_t)A * sizeof(float));
			child = -1 - tris[pos];
		}
		else
		{
			child = build_node(s, tris + pos, size[lane], depth + 1, clo, chi);
		}
		if (s->failed)
		{
			break;
		}
		set_lane(s, node, lane, child, clo, chi);
		kl_kdop_merge(A, lo, hi, clo, chi);
		pos += size[lane];
	}
	s->count[node] = groups;
	if (s->def->collapse && !s->failed)
	{
		collapse_node(s, node);
	}
	return node;
}

static bool validate(const float* vertices, int vertex_count, const int* indices, int triangle_count,
					 const kl_bvh_build_def* def)
{
	if (def == NULL || vertices == NULL || indices == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: null argument");
		return false;
	}
	if (def->width != 2 && def->width != 4 && def->width != 8 && def->width != 16)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: width %d is not 2, 4, 8 or 16", def->width);
		return false;
	}
	if ((int)def->builder < 0 || def->builder >= KL_BVH_BUILDER_COUNT)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: unknown builder %d", (int)def->builder);
		return false;
	}
	if (vertex_count <= 0 || triangle_count <= 0 || triangle_count > KL_BVH_MAX_TRIANGLES)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: %d vertices, %d triangles (need > 0, ≤ 2^30 triangles)",
				vertex_count, triangle_count);
		return false;
	}
	for (int i = 0; i < 3 * vertex_count; ++i)
	{
		if (!isfinite(vertices[i]))
		{
			kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: vertex %d is not finite", i / 3);
			return false;
		}
	}
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		if (indices[i] < 0 || indices[i] >= vertex_count)
		{
			kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: triangle %d has vertex index %d outside [0, %d)", i / 3,
					indices[i], vertex_count);
			return false;
		}
	}
	return true;
}

/// Triangle centroids and tight per-triangle DOPs; also the largest vertex radius.
static bool triangle_data(kl_bvh_builder_state* s, kl_bvh* t, const float* v, const int* idx, int n, float** cen,
						  float** dop)
{
	int A = s->axes;
	*cen = kl_alloc((size_t)n, 3 * sizeof(float));
	*dop = kl_alloc((size_t)n, (size_t)2 * A * sizeof(float));
	if (*cen == NULL || *dop == NULL)
	{
		return false;
	}
	double r2 = 0.0;
	for (int i = 0; i < n; ++i)
	{
		float* lo = *dop + (size_t)i * 2 * A;
		kl_kdop_set_empty(A, lo, lo + A);
		double c[3] = {0.0, 0.0, 0.0};
		for (int j = 0; j < 3; ++j)
		{
			const float* p = v + 3 * idx[3 * i + j];
			kl_kdop_add_point(t->dirs, lo, lo + A, p);
			double d2 = 0.0;
			for (int q = 0; q < 3; ++q)
			{
				c[q] += p[q];
				d2 += (double)p[q] * p[q];
			}
			r2 = fmax(r2, d2);
		}
		for (int q = 0; q < 3; ++q)
		{
			(*cen)[3 * i + q] = (float)(c[q] / 3.0);
		}
	}
	t->point_radius = sqrt(r2) * (1.0 + 1e-12) + 1e-30;
	return true;
}

/// Copies the staging nodes into the final aligned layout (FP32, or binary16 relative to the root's
/// centre, minima rounded down and maxima up so that no DOP shrinks).
/// The live nodes (collapsing leaves emptied ones behind) in depth-first order from the root, lane 0 first:
/// order[new] = old, remap[old] = new. Sets the tree's depth. Returns the live count, −1 without memory.
static int order_nodes(const kl_bvh_builder_state* s, int* order, int* remap, int* depth)
{
	int W = s->width;
	int32_t* stack = kl_alloc((size_t)s->node_count, 2 * sizeof(int32_t));
	if (stack == NULL)
	{
		return -1;
	}
	for (int n = 0; n < s->node_count; ++n)
	{
		remap[n] = -1;
	}
	int sp = 0, live = 0;
	*depth = 0;
	stack[sp++] = 0;
	stack[sp++] = 1;
	while (sp > 0)
	{
		int d = stack[--sp];
		int n = stack[--sp];
		remap[n] = live;
		order[live++] = n;
		*depth = d > *depth ? d : *depth;
		const int32_t* child = s->child + (size_t)n * W;
		for (int lane = s->count[n] - 1; lane >= 0; --lane)
		{
			if (child[lane] >= 0)
			{
				stack[sp++] = child[lane];
				stack[sp++] = d + 1;
			}
		}
	}
	kl_free(stack);
	return live;
}

static bool pack_nodes(kl_bvh* t, const kl_bvh_builder_state* s)
{
	int A = t->axes;
	int W = t->width;
	size_t elem = t->fp16 ? 2u : 4u;
	size_t raw = (size_t)2 * A * W * elem + (size_t)(W + 1) * sizeof(int32_t);
	t->node_stride = (raw + 63u) & ~(size_t)63u;
	int* order = kl_alloc((size_t)s->node_count, sizeof(int));
	int* remap = kl_alloc((size_t)s->node_count, sizeof(int));
	int live = order != NULL && remap != NULL ? order_nodes(s, order, remap, &t->depth) : -1;
	t->nodes = live > 0 ? alloc_big(t->node_stride * (size_t)live) : NULL;
	if (t->nodes == NULL)
	{
		kl_free(order);
		kl_free(remap);
		kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_bvh_build: %zu bytes of nodes", t->node_stride * (size_t)s->node_count);
		return false;
	}
	memset(t->nodes, 0, t->node_stride * (size_t)live);
	t->node_count = live;
	double smax = 0.0;
	for (int i = 0; i < A; ++i)
	{
		smax = fmax(smax, fmax(fabs((double)t->root_lo[i]), fabs((double)t->root_hi[i])));
	}
	for (int k = 0; k < live; ++k)
	{
		int n = order[k];
		uint8_t* dst = t->nodes + (size_t)k * t->node_stride;
		const float* box = s->box + (size_t)n * 2 * A * W;
		for (int r = 0; r < 2 * A; ++r)
		{
			int axis = r < A ? r : r - A;
			for (int lane = 0; lane < W; ++lane)
			{
				float v = box[r * W + lane];
				if (lane >= s->count[n])
				{
					v = t->offset[axis]; // unused lane: any finite value (lanes are masked by count)
				}
				if (t->fp16)
				{
					double rel = (double)v - (double)t->offset[axis];
					uint16_t h = kl_half_from_double(rel, r < A ? -1 : 1);
					((uint16_t*)(void*)dst)[r * W + lane] = h;
					smax = fmax(smax, fabs((double)kl_half_to_float(h)));
				}
				else
				{
					((float*)(void*)dst)[r * W + lane] = v;
					smax = fmax(smax, fabs((double)v));
				}
			}
		}
		int32_t* child = (int32_t*)(void*)(dst + (size_t)2 * A * W * elem);
		for (int lane = 0; lane < W; ++lane)
		{
			int32_t c = s->child[(size_t)n * W + lane];
			child[lane] = lane < s->count[n] && c >= 0 ? remap[c] : c;
		}
		child[W] = s->count[n];
	}
	t->stored_abs_max = smax;
	kl_free(order);
	kl_free(remap);
	return true;
}

/// The leaf pretest's triangle records (KL_BVH_TRI_FLOATS each): the three vertices, the unit normal n
/// (float) and the interval of n·v over the vertices (evaluated in double, rounded outward).
static bool store_triangles(kl_bvh* t, const float* vertices, const int* indices)
{
	int n = t->triangle_count;
	t->tri_verts = alloc_big((size_t)n * KL_BVH_TRI_FLOATS * sizeof(float));
	if (t->tri_verts == NULL)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_bvh_build: %d triangle records", n);
		return false;
	}
	for (int i = 0; i < n; ++i)
	{
		float* r = t->tri_verts + (size_t)KL_BVH_TRI_FLOATS * i;
		double v[3][3];
		for (int j = 0; j < 3; ++j)
		{
			const float* p = vertices + 3 * (size_t)indices[3 * i + j];
			for (int c = 0; c < 3; ++c)
			{
				r[3 * j + c] = p[c];
				v[j][c] = p[c];
			}
		}
		double e1[3], e2[3];
		for (int c = 0; c < 3; ++c)
		{
			e1[c] = v[1][c] - v[0][c];
			e2[c] = v[2][c] - v[0][c];
		}
		double nn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
		double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
		for (int c = 0; c < 3; ++c)
		{
			r[9 + c] = len > 0.0 ? (float)(nn[c] / len) : 0.0f;
		}
		double lo = INFINITY, hi = -INFINITY;
		for (int j = 0; j < 3; ++j)
		{
			double d = (double)r[9] * v[j][0] + (double)r[10] * v[j][1] + (double)r[11] * v[j][2];
			lo = fmin(lo, d);
			hi = fmax(hi, d);
		}
		// Products of floats are exact in double; the sums err by far less than these few ulps of slack.
		double slack = 4.0 * DBL_EPSILON * (fabs(lo) + fabs(hi) + 1e-300);
		float fl = (float)(lo - slack), fh = (float)(hi + slack);
		r[12] = (double)fl > lo - slack ? nextafterf(fl, -INFINITY) : fl;
		r[13] = (double)fh < hi + slack ? nextafterf(fh, INFINITY) : fh;
		r[14] = r[15] = 0.0f;
	}
	return true;
}

/// Root DOP, offsets (FP16 only) and the root's stored values.
static void set_root(kl_bvh* t, const float* lo, const float* hi)
{
	for (int i = 0; i < t->axes; ++i)
	{
		t->offset[i] = t->fp16 ? (float)(0.5 * ((double)lo[i] + (double)hi[i])) : 0.0f;
		double rl = (double)lo[i] - t->offset[i];
		double rh = (double)hi[i] - t->offset[i];
		float fl = (float)rl;
		float fh = (float)rh;
		t->root_lo[i] = (double)fl > rl ? nextafterf(fl, -INFINITY) : fl;
		t->root_hi[i] = (double)fh < rh ? nextafterf(fh, INFINITY) : fh;
	}
}

kl_bvh* kl_bvh_build(const float* vertices, int vertex_count, const int* indices, int triangle_count,
					 const kl_bvh_build_def* def)
{
	if (!validate(vertices, vertex_count, indices, triangle_count, def))
	{
		return NULL;
	}
	const kl_kdop_dirs* dirs = kl_kdop_dirs_get(def->k);
	if (dirs == NULL)
	{
		return NULL;
	}
	double start = kl_time_seconds();
	kl_bvh* t = kl_alloc_zero(1, sizeof(kl_bvh));
	if (t == NULL)
	{
		return NULL;
	}
	t->dirs = dirs;
	t->width = def->width;
	t->axes = dirs->axes;
	t->fp16 = def->fp16;
	t->builder = def->builder;
	t->triangle_count = triangle_count;
	kl_bvh_builder_state s = {0};
	s.def = def;
	s.width = def->width;
	s.axes = dirs->axes;
	float* cen = NULL;
	float* dop = NULL;
	bool ok = triangle_data(&s, t, vertices, indices, triangle_count, &cen, &dop);
	s.centroid = cen;
	s.tri_dop = dop;
	s.tris = ok ? kl_alloc((size_t)triangle_count, sizeof(int)) : NULL;
	s.node_capacity = 16;
	s.box = kl_alloc((size_t)s.node_capacity, (size_t)2 * s.axes * s.width * sizeof(float));
	s.child = kl_alloc((size_t)s.node_capacity, (size_t)s.width * sizeof(int32_t));
	s.count = kl_alloc((size_t)s.node_capacity, sizeof(int32_t));
	ok = ok && s.tris != NULL && s.box != NULL && s.child != NULL && s.count != NULL;
	if (ok)
	{
		for (int i = 0; i < triangle_count; ++i)
		{
			s.tris[i] = i;
		}
		float lo[KL_KDOP_MAX_AXES], hi[KL_KDOP_MAX_AXES];
		build_node(&s, s.tris, triangle_count, 1, lo, hi);
		ok = !s.failed;
		if (ok)
		{
			set_root(t, lo, hi);
			ok = pack_nodes(t, &s);
		}
	}
	ok = ok && store_triangles(t, vertices, indices);
	t->bng_fallbacks = s.fallbacks;
	kl_free(cen);
	kl_free(dop);
	kl_free(s.tris);
	kl_free(s.box);
	kl_free(s.child);
	kl_free(s.count);
	if (!ok)
	{
		kl_bvh_destroy(t);
		return NULL;
	}
	t->build_seconds = kl_time_seconds() - start;
	return t;
}

void kl_bvh_destroy(kl_bvh* tree)
{
	if (tree == NULL)
	{
		return;
	}
	free(tree->nodes);
	free(tree->tri_verts);
	kl_free(tree);
}

size_t kl_bvh_memory_bytes(const kl_bvh* tree)
{
	return tree != NULL ? tree->node_stride * (size_t)tree->node_count : 0;
}

void kl_bvh_child_dop(const kl_bvh* t, int node, int lane, double* lo, double* hi)
{
	int A = t->axes;
	int W = t->width;
	const void* box = kl_bvh_node_box(t, node);
	for (int i = 0; i < A; ++i)
	{
		float l, h;
		if (t->fp16)
		{
			l = kl_half_to_float(((const uint16_t*)box)[i * W + lane]);
			h = kl_half_to_float(((const uint16_t*)box)[(A + i) * W + lane]);
		}
		else
		{
			l = ((const float*)box)[i * W + lane];
			h = ((const float*)box)[(A + i) * W + lane];
		}
		lo[i] = (double)l + t->offset[i];
		hi[i] = (double)h + t->offset[i];
	}
}
