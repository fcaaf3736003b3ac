// Kollide — SIMDop BVH construction: top-down splits (longest axis, median, middle, Batch Neural Gas),
// tight child DOPs written into the parent's SoA rows, optional binary16 packing with outward rounding.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#include "core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/// Octree-like split: cut the log2(width) longest axes at the middle of the centroid box (middle) or at
/// the median centroid (median), one child per non-empty cell. Returns 0 when the cells are unusable
/// (fewer than two, or one with more than 90 % of the triangles).
static int split_cells(kl_bvh_builder_state* s, int* tris, int count, bool median, int* size)
{
	int cuts = s->width == 8 ? 3 : (s->width == 4 ? 2 : 1);
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

static int split_range(kl_bvh_builder_state* s, int* tris, int count, int* size)
{
	int groups = 0;
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

/// Builds the node over tris[0..count) (count ≥ 2) and returns its index; lo/hi receive its DOP.
static int build_node(kl_bvh_builder_state* s, int* tris, int count, int depth, float* lo, float* hi)
{
	int node = new_node(s);
	if (node < 0)
	{
		return -1;
	}
	s->depth = depth > s->depth ? depth : s->depth;
	int size[8];
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
	if (def->width != 2 && def->width != 4 && def->width != 8)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_build: width %d is not 2, 4 or 8", def->width);
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
static bool pack_nodes(kl_bvh* t, const kl_bvh_builder_state* s)
{
	int A = t->axes;
	int W = t->width;
	size_t elem = t->fp16 ? 2u : 4u;
	size_t raw = (size_t)2 * A * W * elem + (size_t)(W + 1) * sizeof(int32_t);
	t->node_stride = (raw + 63u) & ~(size_t)63u;
	t->nodes = aligned_alloc(64, t->node_stride * (size_t)s->node_count);
	if (t->nodes == NULL)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_bvh_build: %zu bytes of nodes", t->node_stride * (size_t)s->node_count);
		return false;
	}
	memset(t->nodes, 0, t->node_stride * (size_t)s->node_count);
	t->node_count = s->node_count;
	double smax = 0.0;
	for (int i = 0; i < A; ++i)
	{
		smax = fmax(smax, fmax(fabs((double)t->root_lo[i]), fabs((double)t->root_hi[i])));
	}
	for (int n = 0; n < s->node_count; ++n)
	{
		uint8_t* dst = t->nodes + (size_t)n * t->node_stride;
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
		memcpy(child, s->child + (size_t)n * W, (size_t)W * sizeof(int32_t));
		child[W] = s->count[n];
	}
	t->stored_abs_max = smax;
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
	t->depth = s.depth;
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
