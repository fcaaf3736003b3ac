// Kollide — SIMDop BVH construction: validation, per-triangle centroids and DOPs, then top-down splits
// (bvh_split.c) into FP32 staging nodes with tight child DOPs in the parent's SoA rows, collapsed so that
// nodes run full; packed (bvh_pack.c) with the leaf pretest records (bvh_tri_records.c).
// SPDX-License-Identifier: MIT
#include "bvh_internal.h"

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
	def.collapse = true;
	return def;
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
		groups = kl_bvh_split_range(s, tris, count, size);
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
			kl_bvh_set_root(t, lo, hi);
			ok = kl_bvh_pack_nodes(t, &s);
		}
	}
	ok = ok && kl_bvh_store_triangles(t, vertices, indices);
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
