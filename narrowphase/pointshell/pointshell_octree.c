// Kollide narrowphase — one Morton octree per conglomerate over its triangles' samples: 30-bit keys,
// points sorted by key, nodes breadth first with children contiguous, a bucket of 256 or depth 10;
// each leaf lists its triangles as entries (pointshell_kernels.h).
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"

#include <float.h>
#include <string.h>

typedef struct keyed_point
{
	uint32_t key;
	uint32_t order;
	kl_ps_point point;
} keyed_point;

static int compare_keyed_point(const void* a, const void* b)
{
	const keyed_point* x = a;
	const keyed_point* y = b;
	if (x->key != y->key)
	{
		return x->key < y->key ? -1 : 1;
	}
	return (x->order > y->order) - (x->order < y->order);
}

static int push_node(kl_ps_octree_builder* b, uint32_t begin, uint32_t end, uint32_t cell, int depth)
{
	if (b->count == b->capacity)
	{
		int grown = b->capacity > 0 ? 2 * b->capacity : 64;
		kl_ps_node* n = kl_realloc(b->nodes, (size_t)grown, sizeof(kl_ps_node));
		if (n == NULL)
		{
			return -1;
		}
		b->nodes = n;
		b->capacity = grown;
	}
	kl_ps_node* n = b->nodes + b->count;
	memset(n, 0, sizeof(*n));
	n->begin = begin;
	n->end = end;
	n->first_child = -1;
	n->skip = -1;
	n->cell = cell;
	n->depth = (uint8_t)depth;
	return b->count++;
}

/// The octree over keyed points (sorted), breadth first from node `root`: an octant with more than
/// a bucket of points and room for another level gets children, one per non-empty octant.
static bool build_octree(kl_ps_octree_builder* b, const keyed_point* pts, uint32_t count, int* root)
{
	*root = push_node(b, 0, count, 0, 0);
	if (*root < 0)
	{
		return false;
	}
	for (int i = *root; i < b->count; ++i)
	{
		kl_ps_node n = b->nodes[i];
		if (n.end - n.begin <= (uint32_t)b->leaf_bucket || n.depth >= KL_PS_MAX_DEPTH)
		{
			continue;
		}
		int shift = 3 * (KL_PS_MAX_DEPTH - n.depth - 1);
		int first = b->count;
		uint32_t s = n.begin;
		while (s < n.end)
		{
			uint32_t octant = (pts[s].key >> shift) & 7u;
			uint32_t e = s;
			while (e < n.end && ((pts[e].key >> shift) & 7u) == octant)
			{
				++e;
			}
			if (push_node(b, s, e, kl_ps_cell_child(n.cell, octant), n.depth + 1) < 0)
			{
				return false;
			}
			s = e;
		}
		b->nodes[i].first_child = first;
		b->nodes[i].child_count = (uint8_t)(b->count - first);
	}
	// Breadth first, a parent's skip is set before its children's: each child skips to its next
	// sibling, the last to where its parent skips.
	for (int i = *root; i < b->count; ++i)
	{
		const kl_ps_node* n = b->nodes + i;
		for (int k = 0; k < n->child_count; ++k)
		{
			b->nodes[n->first_child + k].skip = k + 1 < n->child_count ? n->first_child + k + 1 : n->skip;
		}
	}
	return true;
}

/// Samples of the conglomerate's triangles, keyed in its cube.
static keyed_point* conglomerate_points(const kl_ps_model_view* v, const kl_ps_mask* masks, const int32_t* tris,
										int count, uint32_t* point_count, kl_ps_conglomerate* c)
{
	uint32_t n = 0;
	kl_ps_f3 s;
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 t[3];
		kl_ps_triangle(v, tris[i], t);
		kl_ps_sampler it;
		kl_ps_sampler_init(&it, t, masks + tris[i]);
		while (kl_ps_sampler_next(&it, &s))
		{
			++n;
		}
	}
	keyed_point* pts = kl_alloc(n > 0 ? n : 1, sizeof(keyed_point));
	if (pts == NULL)
	{
		return NULL;
	}
	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	uint32_t k = 0;
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 t[3];
		kl_ps_triangle(v, tris[i], t);
		kl_ps_sampler it;
		kl_ps_sampler_init(&it, t, masks + tris[i]);
		while (kl_ps_sampler_next(&it, &s))
		{
			pts[k].order = k;
			pts[k].point.x = s.x, pts[k].point.y = s.y, pts[k].point.z = s.z;
			pts[k].point.tri = tris[i];
			float x[3] = {s.x, s.y, s.z};
			for (int a = 0; a < 3; ++a)
			{
				lo[a] = fminf(lo[a], x[a]);
				hi[a] = fmaxf(hi[a], x[a]);
			}
			++k;
		}
	}
	float edge = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
	c->root_min = kl_ps_make(lo[0], lo[1], lo[2]);
	c->root_edge = edge > 0.0f ? edge * 1.0001f : 1e-6f;
	for (uint32_t i = 0; i < n; ++i)
	{
		kl_ps_f3 p = kl_ps_make(pts[i].point.x, pts[i].point.y, pts[i].point.z);
		pts[i].key = kl_ps_point_key(p, c->root_min, c->root_edge);
	}
	qsort(pts, n, sizeof(keyed_point), compare_keyed_point);
	*point_count = n;
	return pts;
}

static kl_ps_entry* push_entry(kl_ps_octree_builder* b)
{
	if (b->entry_count == b->entry_capacity)
	{
		if (b->entry_capacity > UINT32_MAX / 4)
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "point shell: too many octree entries");
			return NULL;
		}
		uint32_t grown = b->entry_capacity > 0 ? 2 * b->entry_capacity : 256;
		kl_ps_entry* e = kl_realloc(b->entries, grown, sizeof(kl_ps_entry));
		if (e == NULL)
		{
			return NULL;
		}
		b->entries = e;
		b->entry_capacity = grown;
	}
	return b->entries + b->entry_count++;
}

/// The entry of triangle `tri` in a leaf: the sphere around its samples there (the centre of their
/// box; the radius rounded up so that float rounding in a search never leaves a sample outside).
static void fill_entry(kl_ps_entry* e, const kl_ps_point* points, uint32_t begin, uint32_t end, int32_t tri,
					   float coverage, float root_edge)
{
	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	for (uint32_t i = begin; i < end; ++i)
	{
		float x[3] = {points[i].x, points[i].y, points[i].z};
		for (int a = 0; a < 3 && points[i].tri == tri; ++a)
		{
			lo[a] = fminf(lo[a], x[a]);
			hi[a] = fmaxf(hi[a], x[a]);
		}
	}
	e->center = kl_ps_make(0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2]));
	float r2 = 0.0f;
	for (uint32_t i = begin; i < end; ++i)
	{
		kl_ps_f3 d = kl_ps_make(points[i].x - e->center.x, points[i].y - e->center.y, points[i].z - e->center.z);
		r2 = points[i].tri == tri ? fmaxf(r2, kl_ps_dot(d, d)) : r2;
	}
	e->radius = sqrtf(r2) + 1e-5f * root_edge;
	e->tri = tri;
	e->coverage = coverage;
}

/// One entry per triangle with samples in each leaf of nodes [first, b->count), in the order the
/// triangles first appear among the leaf's points; false when out of memory.
static bool add_leaf_entries(kl_ps_octree_builder* b, const kl_pointshell* m, const kl_ps_conglomerate* c, int first)
{
	for (int n = first; n < b->count; ++n)
	{
		kl_ps_node* node = b->nodes + n;
		node->entry_begin = node->entry_end = b->entry_count;
		for (uint32_t i = node->begin; node->child_count == 0 && i < node->end; ++i)
		{
			int32_t tri = m->points[i].tri;
			bool seen = false;
			for (uint32_t e = node->entry_begin; e < b->entry_count && !seen; ++e)
			{
				seen = b->entries[e].tri == tri;
			}
			kl_ps_entry* e = seen ? NULL : push_entry(b);
			if (!seen && e == NULL)
			{
				return false;
			}
			if (!seen)
			{
				fill_entry(e, m->points, node->begin, node->end, tri, m->tri_coverage[tri], c->root_edge);
			}
		}
		node->entry_end = b->entry_count;
	}
	return true;
}

/// Appends conglomerate c's octree and points to the model.
bool kl_ps_add_octree(kl_pointshell* m, const kl_ps_model_view* v, kl_ps_conglomerate* c, kl_ps_octree_builder* b,
					   uint32_t* point_capacity)
{
	uint32_t n = 0;
	keyed_point* pts = conglomerate_points(v, m->masks, m->tris + c->tri_begin, c->tri_count, &n, c);
	if (pts == NULL)
	{
		return false;
	}
	int root;
	int before = b->count;
	bool ok = build_octree(b, pts, n, &root);
	if (ok && m->point_count + n > *point_capacity)
	{
		uint32_t grown = 2 * (m->point_count + n);
		kl_ps_point* p = kl_realloc(m->points, grown, sizeof(kl_ps_point));
		ok = p != NULL;
		if (ok)
		{
			m->points = p;
			*point_capacity = grown;
		}
	}
	if (ok)
	{
		// Node ranges are relative to the conglomerate's points; make them the model's.
		for (int i = before; i < b->count; ++i)
		{
			b->nodes[i].begin += m->point_count;
			b->nodes[i].end += m->point_count;
		}
		for (uint32_t i = 0; i < n; ++i)
		{
			m->points[m->point_count + i] = pts[i].point;
		}
		c->point_begin = m->point_count;
		c->point_count = n;
		c->node_begin = root;
		c->node_count = b->count - before;
		m->point_count += n;
		ok = add_leaf_entries(b, m, c, before);
	}
	kl_free(pts);
	return ok;
}

