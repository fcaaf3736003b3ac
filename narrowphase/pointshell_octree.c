// Kollide narrowphase — one Morton octree per conglomerate over its triangles' samples: 30-bit keys,
// points sorted by key, nodes breadth first with children contiguous, a bucket of 32 or depth 10.
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

static int push_node(kl_ps_octree_builder* b, uint32_t begin, uint32_t end, uint32_t key, int depth)
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
	n->key = key;
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
		if (n.end - n.begin <= KL_PS_LEAF_BUCKET || n.depth >= KL_PS_MAX_DEPTH)
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
			if (push_node(b, s, e, (n.key << 3) | octant, n.depth + 1) < 0)
			{
				return false;
			}
			s = e;
		}
		b->nodes[i].first_child = first;
		b->nodes[i].child_count = (uint8_t)(b->count - first);
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
	}
	kl_free(pts);
	return ok;
}

