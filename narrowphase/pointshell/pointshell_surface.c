// Kollide narrowphase — surface clustering of a model's triangles into conglomerates
// (KL_PS_GROUP_SURFACE; the median cut is in pointshell_groups.c). Seeds at the central triangle of
// each median-cut group; regions grow together across shared edges, cheapest first, a triangle
// costing how far its normal turns from the region's (1 - cos) plus kCompactness × its squared
// distance from the seed over the squared radius of a full flat region; a region stops at
// max_triangles; triangles no region could take seed regions of their own, and regions under a
// quarter of the cap join the neighbour whose normal is nearest when both fit. Every region is
// connected across edges, where a median cut may join two passes of a knot's tube. A mesh with more
// than half its edges open or untrusted (unwelded, misoriented) keeps the median cut's groups. Measured
// (docs/pointshell.md), it cuts the knots' search by up to a quarter but slows the gears' and the
// forced E3's by a third: a gear's flat faces become wide patches whose boxes span the gear.
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"
#include "tri_adjacency.h"

#include <float.h>
#include <string.h>

/// Weight of the distance from the seed against the turn of the normal (with 1 the knots' regions
/// ran along their tubes and searched slower than the median cut's; with 4, a fifth faster).
static const float kCompactness = 4.0f;

typedef struct grow_entry
{
	float cost;
	int32_t tri;
	int32_t region;
} grow_entry;

static bool grow_before(const grow_entry* a, const grow_entry* b)
{
	if (a->cost != b->cost)
	{
		return a->cost < b->cost;
	}
	return a->tri != b->tri ? a->tri < b->tri : a->region < b->region;
}

/// A binary min-heap of grow entries (cost, then triangle, then region: deterministic).
typedef struct grow_heap
{
	grow_entry* items;
	int count;
	int capacity;
} grow_heap;

static bool heap_push(grow_heap* h, grow_entry e)
{
	if (!KL_ARRAY_RESERVE(h->items, h->capacity, h->count + 1))
	{
		return false;
	}
	int i = h->count++;
	while (i > 0 && grow_before(&e, &h->items[(i - 1) / 2]))
	{
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = e;
	return true;
}

static grow_entry heap_pop(grow_heap* h)
{
	grow_entry top = h->items[0];
	grow_entry last = h->items[--h->count];
	int i = 0;
	for (;;)
	{
		int c = 2 * i + 1;
		if (c >= h->count)
		{
			break;
		}
		c = c + 1 < h->count && grow_before(&h->items[c + 1], &h->items[c]) ? c + 1 : c;
		if (!grow_before(&h->items[c], &last))
		{
			break;
		}
		h->items[i] = h->items[c];
		i = c;
	}
	if (h->count > 0)
	{
		h->items[i] = last;
	}
	return top;
}

typedef struct region
{
	kl_ps_f3 normal_sum; ///< area-weighted
	kl_ps_f3 seed;		 ///< the seed's centroid
	int size;
} region;

/// What the clustering keeps per triangle and per region.
typedef struct clustering
{
	const kl_ps_model_view* v;
	int max_tris;
	int32_t* neighbour; ///< 3 per triangle
	kl_ps_f3* normal;	///< per triangle, area-weighted (twice the area)
	kl_ps_f3* centre;
	int32_t* region_of;
	region* regions;
	int region_count;
	float inv_radius2; ///< 1 / the squared radius of a full flat region
	grow_heap heap;
} clustering;

static float grow_cost(const clustering* c, int32_t tri, const region* r)
{
	kl_ps_f3 n = c->normal[tri];
	float nl = sqrtf(kl_ps_dot(n, n)), rl = sqrtf(kl_ps_dot(r->normal_sum, r->normal_sum));
	float turn = nl > 0.0f && rl > 0.0f ? 1.0f - kl_ps_dot(n, r->normal_sum) / (nl * rl) : 1.0f;
	kl_ps_f3 d = kl_ps_sub(c->centre[tri], r->seed);
	return turn + kCompactness * kl_ps_dot(d, d) * c->inv_radius2;
}

static bool seed_region(clustering* c, int32_t tri)
{
	region r = {c->normal[tri], c->centre[tri], 0};
	c->regions[c->region_count] = r;
	grow_entry e = {0.0f, tri, c->region_count++};
	return heap_push(&c->heap, e);
}

/// Grows the regions from the heap until it is empty: a triangle joins the first region that pops
/// it with room left.
static bool grow_regions(clustering* c)
{
	while (c->heap.count > 0)
	{
		grow_entry e = heap_pop(&c->heap);
		region* r = c->regions + e.region;
		if (c->region_of[e.tri] >= 0 || r->size >= c->max_tris)
		{
			continue;
		}
		c->region_of[e.tri] = e.region;
		r->size++;
		r->normal_sum = kl_ps_add(r->normal_sum, r->size > 1 ? c->normal[e.tri] : kl_ps_make(0.0f, 0.0f, 0.0f));
		for (int k = 0; k < 3; ++k)
		{
			int32_t t = c->neighbour[3 * e.tri + k];
			grow_entry next = {0.0f, t, e.region};
			if (t >= 0 && c->region_of[t] < 0)
			{
				next.cost = grow_cost(c, t, r);
				if (!heap_push(&c->heap, next))
				{
					return false;
				}
			}
		}
	}
	return true;
}

static int region_root(const int32_t* owner, int g)
{
	while (owner[g] != g)
	{
		g = owner[g];
	}
	return g;
}

/// Folds regions under a quarter of the cap into the neighbouring region whose normal is nearest,
/// when both fit; then relabels the triangles. by_region lists the triangles region by region
/// (from first[g]).
static bool fold_small_regions(clustering* c, int n)
{
	int32_t* owner = kl_alloc((size_t)c->region_count, sizeof(int32_t));
	int* first = kl_alloc_zero((size_t)c->region_count + 1, sizeof(int));
	int32_t* by_region = kl_alloc((size_t)n, sizeof(int32_t));
	bool ok = owner != NULL && first != NULL && by_region != NULL;
	for (int t = 0; ok && t < n; ++t)
	{
		first[c->region_of[t] + 1]++;
	}
	for (int g = 0; ok && g < c->region_count; ++g)
	{
		owner[g] = g;
		first[g + 1] += first[g];
	}
	for (int t = 0, *next = first; ok && t < n; ++t)
	{
		by_region[next[c->region_of[t]]++] = t;
	}
	for (int g = c->region_count - 1; ok && g >= 0; --g)
	{
		first[g + 1] = first[g]; // the filling moved each start to the next region's
	}
	if (ok)
	{
		first[0] = 0;
	}
	for (int g = 0; ok && g < c->region_count; ++g)
	{
		region* r = c->regions + g;
		if (owner[g] != g || r->size == 0 || r->size >= c->max_tris / 4)
		{
			continue;
		}
		int best = -1;
		float best_turn = 0.0f;
		float rl = sqrtf(kl_ps_dot(r->normal_sum, r->normal_sum));
		for (int i = first[g]; i < first[g + 1]; ++i)
		{
			for (int k = 0; k < 3; ++k)
			{
				int32_t u = c->neighbour[3 * by_region[i] + k];
				int h = u >= 0 ? region_root(owner, c->region_of[u]) : -1;
				if (h < 0 || h == g || c->regions[h].size + r->size > c->max_tris)
				{
					continue;
				}
				kl_ps_f3 hn = c->regions[h].normal_sum;
				float hl = sqrtf(kl_ps_dot(hn, hn));
				float turn = rl > 0.0f && hl > 0.0f ? 1.0f - kl_ps_dot(hn, r->normal_sum) / (rl * hl) : 2.0f;
				if (best < 0 || turn < best_turn || (turn == best_turn && h < best))
				{
					best = h;
					best_turn = turn;
				}
			}
		}
		if (best >= 0)
		{
			owner[g] = best;
			c->regions[best].size += r->size;
			c->regions[best].normal_sum = kl_ps_add(c->regions[best].normal_sum, r->normal_sum);
			r->size = 0;
		}
	}
	for (int t = 0; ok && t < n; ++t)
	{
		c->region_of[t] = region_root(owner, c->region_of[t]);
	}
	kl_free(owner);
	kl_free(first);
	kl_free(by_region);
	return ok;
}

/// The triangle of tris[0, count) nearest their mean centroid (a seed well inside its group).
static int32_t central_triangle(const clustering* c, const int32_t* tris, int count)
{
	kl_ps_f3 mean = kl_ps_make(0.0f, 0.0f, 0.0f);
	for (int i = 0; i < count; ++i)
	{
		mean = kl_ps_add(mean, c->centre[tris[i]]);
	}
	mean = kl_ps_scale(mean, 1.0f / (float)count);
	int32_t best = tris[0];
	float best_d2 = FLT_MAX;
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 d = kl_ps_sub(c->centre[tris[i]], mean);
		float d2 = kl_ps_dot(d, d);
		if (d2 < best_d2 || (d2 == best_d2 && tris[i] < best))
		{
			best = tris[i];
			best_d2 = d2;
		}
	}
	return best;
}

/// Fills c's per-triangle arrays and the radius of a full flat region.
static bool describe_triangles(clustering* c, int n)
{
	if (kl_triangle_neighbours(c->v->indices, n, c->neighbour) != KL_OK)
	{
		return false;
	}
	double area = 0.0;
	for (int t = 0; t < n; ++t)
	{
		kl_ps_f3 p[3];
		kl_ps_triangle(c->v, t, p);
		c->normal[t] = kl_ps_cross(kl_ps_sub(p[1], p[0]), kl_ps_sub(p[2], p[0]));
		c->centre[t] = kl_ps_scale(kl_ps_add(p[0], kl_ps_add(p[1], p[2])), 1.0f / 3.0f);
		c->region_of[t] = -1;
		area += 0.5 * sqrt((double)kl_ps_dot(c->normal[t], c->normal[t]));
	}
	// A disc of max_tris triangles of the mean area.
	double radius2 = (double)c->max_tris * (area / (double)(n > 0 ? n : 1)) / 3.14159265358979;
	c->inv_radius2 = radius2 > 0.0 ? (float)(1.0 / radius2) : 0.0f;
	return true;
}

bool kl_ps_surface_clusters(const kl_ps_model_view* v, int n, int max_tris, int32_t* tris, kl_ps_keyed* work, int* sizes,
							 int* group_count)
{
	clustering c;
	memset(&c, 0, sizeof(c));
	c.v = v;
	c.max_tris = max_tris;
	c.neighbour = kl_alloc((size_t)(3 * n), sizeof(int32_t));
	c.normal = kl_alloc((size_t)n, sizeof(kl_ps_f3));
	c.centre = kl_alloc((size_t)n, sizeof(kl_ps_f3));
	c.region_of = kl_alloc((size_t)n, sizeof(int32_t));
	// Seeds (at most one per triangle) and the regions of what they left (one per triangle at most).
	c.regions = kl_alloc((size_t)(2 * (n > 0 ? n : 1)), sizeof(region));
	bool ok = c.neighbour != NULL && c.normal != NULL && c.centre != NULL && c.region_of != NULL &&
			  c.regions != NULL && describe_triangles(&c, n);
	// Seeds: the central triangle of each median-cut group, so they are spread evenly.
	int seeds = 0;
	if (ok)
	{
		kl_ps_median_cut(v, tris, n, max_tris, work, sizes, &seeds);
	}
	// Without trusted edges (an unwelded or inconsistently oriented mesh) regions cannot grow and
	// every triangle would be one: the median cut's groups stand instead.
	int open = 0;
	for (int i = 0; ok && i < 3 * n; ++i)
	{
		open += c.neighbour[i] < 0;
	}
	bool fall_back = ok && 2 * open > 3 * n;
	if (fall_back)
	{
		*group_count = seeds;
	}
	for (int g = 0, begin = 0; ok && !fall_back && g < seeds; begin += sizes[g++])
	{
		ok = seed_region(&c, central_triangle(&c, tris + begin, sizes[g]));
	}
	ok = ok && (fall_back || grow_regions(&c));
	// What no region could take (full neighbours, islands) seeds regions of its own.
	for (int t = 0; ok && !fall_back && t < n; ++t)
	{
		ok = c.region_of[t] >= 0 || (seed_region(&c, t) && grow_regions(&c));
	}
	ok = ok && (fall_back || fold_small_regions(&c, n));
	if (ok && !fall_back)
	{
		// Group by region, in region order, triangles ascending within each.
		int* first = kl_alloc_zero((size_t)c.region_count + 1, sizeof(int));
		ok = first != NULL;
		for (int t = 0; ok && t < n; ++t)
		{
			first[c.region_of[t] + 1]++;
		}
		*group_count = 0;
		for (int g = 0; ok && g < c.region_count; ++g)
		{
			if (first[g + 1] > 0)
			{
				sizes[(*group_count)++] = first[g + 1];
			}
			first[g + 1] += first[g];
		}
		for (int t = 0; ok && t < n; ++t)
		{
			tris[first[c.region_of[t]]++] = t;
		}
		kl_free(first);
	}
	kl_free(c.heap.items);
	kl_free(c.neighbour);
	kl_free(c.normal);
	kl_free(c.centre);
	kl_free(c.region_of);
	kl_free(c.regions);
	return ok;
}

