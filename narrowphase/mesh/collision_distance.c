// Kollide — the distance between two collision models (include/kollide/collision.h). BVH: a first-hit
// overlap traversal settles intersecting poses, then a best-first search over node pairs ordered by a
// k-DOP separation lower bound. Point shells: searches within a widening alarm distance until a
// candidate pair lies within it. Exhaustive: every triangle pair. All take the exact triangle distance
// of the same moved triangles.
// SPDX-License-Identifier: MIT
#include "collision_internal.h"

#include "tri_tri.h"

#include <math.h>
#include <string.h>

/// The best pair so far.
typedef struct closest_pair
{
	double distance; ///< INFINITY before the first
	int tri_a;
	int tri_b;
	kl_tri_distance td;
} closest_pair;

static void note(closest_pair* c, int tri_a, int tri_b, const kl_tri_distance* td)
{
	c->distance = td->overlap ? 0.0 : (double)td->distance;
	c->tri_a = tri_a;
	c->tri_b = tri_b;
	c->td = *td;
}

/// Tests one candidate pair (counted) and keeps it when it improves on the best.
static void test_pair(const kl_collision_call* call, int tri_a, int tri_b, closest_pair* best)
{
	vec3s ta[3], tb[3];
	kl_collision_triangle_a(call->a, tri_a, ta);
	kl_collision_triangle_b(call->b, &call->pose, tri_b, tb);
	call->scratch->counters.triangle_tests += 1;
	kl_tri_distance td = kl_tri_tri_distance(ta, tb);
	if ((td.overlap ? 0.0 : (double)td.distance) < best->distance)
	{
		note(best, tri_a, tri_b, &td);
	}
}

// ---------------------------------------------------------------------------------------------
// BVH: best-first search over node pairs by a DOP lower bound

static bool heap_push(kl_collision_scratch* s, kl_collision_heap_item item)
{
	if (s->heap_count == s->heap_capacity)
	{
		int cap = s->heap_capacity ? 2 * s->heap_capacity : 1024;
		kl_collision_heap_item* grown = kl_realloc(s->heap, (size_t)cap, sizeof(*grown));
		if (grown == NULL)
		{
			return false;
		}
		s->heap = grown;
		s->heap_capacity = cap;
	}
	int i = s->heap_count++;
	while (i > 0)
	{
		int parent = (i - 1) / 2;
		if (s->heap[parent].bound <= item.bound)
		{
			break;
		}
		s->heap[i] = s->heap[parent];
		i = parent;
	}
	s->heap[i] = item;
	return true;
}

static kl_collision_heap_item heap_pop(kl_collision_scratch* s)
{
	kl_collision_heap_item top = s->heap[0];
	kl_collision_heap_item last = s->heap[--s->heap_count];
	int i = 0, n = s->heap_count;
	for (;;)
	{
		int c = 2 * i + 1;
		if (c >= n)
		{
			break;
		}
		if (c + 1 < n && s->heap[c + 1].bound < s->heap[c].bound)
		{
			c += 1;
		}
		if (s->heap[c].bound >= last.bound)
		{
			break;
		}
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (n > 0)
	{
		s->heap[i] = last;
	}
	return top;
}

/// Sizes the realignment cache for a (its nodes and leaves, b's axes) and starts a new query.
static bool cache_begin(kl_collision_scratch* s, const kl_collision_model* a, int axes_b)
{
	int inner = a->tree->node_count, leaf = a->tree->triangle_count;
	if (s->cache_inner < inner || s->cache_leaf < leaf || s->cache_axes < axes_b)
	{
		kl_free(s->realigned_inner);
		kl_free(s->realigned_leaf);
		kl_free(s->stamp_inner);
		kl_free(s->stamp_leaf);
		s->realigned_inner = kl_alloc(2 * (size_t)axes_b * (size_t)inner, sizeof(float));
		s->realigned_leaf = kl_alloc(2 * (size_t)axes_b * (size_t)leaf, sizeof(float));
		s->stamp_inner = kl_alloc_zero((size_t)inner, sizeof(uint32_t));
		s->stamp_leaf = kl_alloc_zero((size_t)leaf, sizeof(uint32_t));
		s->cache_inner = inner, s->cache_leaf = leaf, s->cache_axes = axes_b;
		s->stamp = 0;
		if (!s->realigned_inner || !s->realigned_leaf || !s->stamp_inner || !s->stamp_leaf)
		{
			s->cache_inner = s->cache_leaf = s->cache_axes = 0;
			return false;
		}
	}
	s->stamp += 1;
	if (s->stamp == 0)
	{
		memset(s->stamp_inner, 0, sizeof(uint32_t) * (size_t)s->cache_inner);
		memset(s->stamp_leaf, 0, sizeof(uint32_t) * (size_t)s->cache_leaf);
		s->stamp = 1;
	}
	return true;
}

typedef struct distance_search
{
	const kl_collision_call* call;
	const kl_collision_model* a;
	const kl_collision_model* b;
	kl_collision_scratch* s;
	kl_kdop_plan plan; ///< A's mesh frame → B's mesh frame
	int axes_a;
	int axes_b;
} distance_search;

/// A's node or leaf DOP realigned into B's frame: lo at [0, axes_b), hi at [axes_b, 2·axes_b).
static const float* realigned_a(distance_search* d, int32_t ref)
{
	bool inner = ref >= 0;
	int i = inner ? ref : -1 - ref;
	uint32_t* stamp = inner ? d->s->stamp_inner : d->s->stamp_leaf;
	float* rows = (inner ? d->s->realigned_inner : d->s->realigned_leaf) + 2 * (size_t)d->axes_b * (size_t)i;
	if (stamp[i] != d->s->stamp)
	{
		const float* lo = (inner ? d->a->inner_lo : d->a->leaf_lo) + (size_t)d->axes_a * (size_t)i;
		const float* hi = (inner ? d->a->inner_hi : d->a->leaf_hi) + (size_t)d->axes_a * (size_t)i;
		kl_kdop_realign(&d->plan, lo, hi, 1, rows, rows + d->axes_b);
		stamp[i] = d->s->stamp;
	}
	return rows;
}

static const float* dop_b(const distance_search* d, int32_t ref, bool hi)
{
	bool inner = ref >= 0;
	int i = inner ? ref : -1 - ref;
	const float* base = inner ? (hi ? d->b->inner_hi : d->b->inner_lo) : (hi ? d->b->leaf_hi : d->b->leaf_lo);
	return base + (size_t)d->axes_b * (size_t)i;
}

/// The largest gap along any slab direction (unit vectors) between A's realigned DOP and B's: a lower
/// bound of the distance between anything inside them.
static float lower_bound(distance_search* d, int32_t ra, int32_t rb)
{
	d->s->counters.bv_tests += 1;
	const float* a = realigned_a(d, ra);
	const float* blo = dop_b(d, rb, false);
	const float* bhi = dop_b(d, rb, true);
	float gap = 0.0f;
	for (int i = 0; i < d->axes_b; ++i)
	{
		gap = fmaxf(gap, fmaxf(blo[i] - a[d->axes_b + i], a[i] - bhi[i]));
	}
	return gap;
}

/// The largest slab extent of a node's DOP (which side of a pair to descend).
static float extent(const float* lo, const float* hi, int axes)
{
	float e = 0.0f;
	for (int i = 0; i < axes; ++i)
	{
		e = fmaxf(e, hi[i] - lo[i]);
	}
	return e;
}

static bool expand(distance_search* d, kl_collision_heap_item item, double best)
{
	bool split_a = item.a >= 0;
	if (item.a >= 0 && item.b >= 0)
	{
		size_t ia = (size_t)item.a * (size_t)d->axes_a, ib = (size_t)item.b * (size_t)d->axes_b;
		split_a = extent(d->a->inner_lo + ia, d->a->inner_hi + ia, d->axes_a) >=
				  extent(d->b->inner_lo + ib, d->b->inner_hi + ib, d->axes_b);
	}
	const kl_bvh* tree = split_a ? d->a->tree : d->b->tree;
	int node = split_a ? item.a : item.b;
	const int32_t* child = kl_bvh_node_children(tree, node);
	int count = kl_bvh_node_count(tree, node);
	for (int lane = 0; lane < count; ++lane)
	{
		kl_collision_heap_item next = {0.0f, split_a ? child[lane] : item.a, split_a ? item.b : child[lane]};
		next.bound = lower_bound(d, next.a, next.b);
		if ((double)next.bound < best && !heap_push(d->s, next))
		{
			return false;
		}
	}
	return true;
}

/// The best-first search into best; false when out of memory.
static bool distance_bvh(const kl_collision_call* call, closest_pair* best)
{
	const kl_collision_model* a = call->a;
	const kl_collision_model* b = call->b;
	kl_collision_scratch* s = call->scratch;
	distance_search d = {call, a, b, s, {0}, a->tree->axes, b->tree->axes};
	if (!cache_begin(s, a, d.axes_b))
	{
		return false;
	}
	kl_kdop_storage src = {a->tree->dirs, NULL, a->node_abs_max, a->tree->point_radius};
	kl_kdop_storage dst = {b->tree->dirs, NULL, b->node_abs_max, b->tree->point_radius};
	kl_kdop_plan_make(&d.plan, &src, &dst, call->pose.inv_m, call->pose.inv_t, 0.0f);
	s->heap_count = 0;
	kl_collision_heap_item root = {0.0f, 0, 0};
	root.bound = lower_bound(&d, 0, 0);
	if (!heap_push(s, root))
	{
		return false;
	}
	while (s->heap_count > 0)
	{
		kl_collision_heap_item item = heap_pop(s);
		if ((double)item.bound >= best->distance)
		{
			break;
		}
		if (item.a < 0 && item.b < 0)
		{
			s->counters.candidate_pairs += 1;
			test_pair(call, -1 - item.a, -1 - item.b, best);
			continue;
		}
		if (!expand(&d, item, best->distance))
		{
			return false;
		}
	}
	return true;
}

typedef struct lowest_context
{
	const kl_collision_call* call;
	int tri_a;
	int tri_b;
} lowest_context;

/// Keeps the intersecting pair with the lowest (tri_a, tri_b); pairs that cannot be lower are not tested.
static bool leaf_lowest(int tri_a, int tri_b, void* ctx)
{
	lowest_context* c = ctx;
	if (c->tri_a >= 0 && (tri_a > c->tri_a || (tri_a == c->tri_a && tri_b >= c->tri_b)))
	{
		return false;
	}
	vec3s ta[3], tb[3];
	kl_collision_triangle_a(c->call->a, tri_a, ta);
	kl_collision_triangle_b(c->call->b, &c->call->pose, tri_b, tb);
	if (!kl_tri_tri_overlap(ta, tb))
	{
		return false;
	}
	c->tri_a = tri_a;
	c->tri_b = tri_b;
	return true;
}

/// The intersecting pair with the lowest triangle of A, then of B (an all-pairs traversal).
static bool lowest_intersecting(const kl_collision_call* call, int* tri_a, int* tri_b)
{
	lowest_context ctx = {call, -1, -1};
	kl_bvh_query query = {KL_BVH_ALL_PAIRS, call->traversal, 0.0f, leaf_lowest, &ctx, NULL, 0};
	kl_bvh_result result;
	if (kl_bvh_collide_m34(call->a->tree, call->b->tree, call->pose.m34, &query, &result) != KL_OK)
	{
		return false;
	}
	kl_collision_add_bvh_counters(call->scratch, &result);
	if (ctx.tri_a >= 0)
	{
		*tri_a = ctx.tri_a, *tri_b = ctx.tri_b;
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Point shells: widening alarm distances

/// Tests the candidates of the last search; with stop_at_overlap the first overlapping pair (the keys
/// are sorted: the lowest) ends the walk and returns true.
static bool test_candidates(const kl_collision_call* call, closest_pair* best, bool stop_at_overlap)
{
	const kl_ps_batch* batch = &call->scratch->batch;
	for (uint32_t k = 0; k < batch->key_count; ++k)
	{
		test_pair(call, kl_ps_key_tri_a(batch->keys[k]), kl_ps_key_tri_b(batch->keys[k]), best);
		if (stop_at_overlap && best->distance == 0.0)
		{
			return true;
		}
	}
	return false;
}

/// Every pair within a search's alarm distance is among its candidates, so once the best pair found
/// lies within the alarm of a search it is the closest. The first search (alarm 0) finds the
/// intersecting pairs; a later one searches within the best distance found so far, or, while no pair
/// has been found, within a distance that doubles from the bounding spheres' gap.
static bool distance_pointshell(const kl_collision_call* call, closest_pair* best)
{
	const kl_collision_model* a = call->a;
	const kl_collision_model* b = call->b;
	if (!kl_collision_pointshell_search(call, 0.0f))
	{
		return false;
	}
	if (test_candidates(call, best, true))
	{
		return true;
	}
	const kl_rel_pose* p = &call->pose;
	double gap = 0.0;
	for (int r = 0; r < 3; ++r)
	{
		double c = p->m[r][0] * b->center[0] + p->m[r][1] * b->center[1] + p->m[r][2] * b->center[2] + p->t[r];
		gap += (c - a->center[r]) * (c - a->center[r]);
	}
	gap = sqrt(gap) - a->radius - b->radius;
	double step = (a->radius + b->radius) / 32.0;
	double searched = 0.0;
	for (int round = 0; !(best->distance <= searched); ++round)
	{
		double next = isfinite(best->distance) ? best->distance : fmax(2.0 * searched, fmax(gap, step));
		if (round == 200 || !(next < 1e30))
		{
			kl_fail(KL_ERR_LIMIT, "kl_collision_distance: the point-shell search found no pair within %g", next);
			return false;
		}
		if (!kl_collision_pointshell_search(call, (float)next))
		{
			return false;
		}
		searched = next;
		test_candidates(call, best, false);
	}
	return true;
}

// ---------------------------------------------------------------------------------------------

/// Every triangle pair (A's rows in order, stopping after the row where the surfaces meet).
static bool distance_exhaustive(const kl_collision_call* call, closest_pair* best)
{
	if (!kl_collision_move_all(call))
	{
		return false;
	}
	kl_collision_scratch* s = call->scratch;
	int na = call->a->mesh->info.triangle_count, nb = call->b->mesh->info.triangle_count;
	s->counters.candidate_pairs = (int64_t)na * nb;
	for (int i = 0; i < na && best->distance > 0.0; ++i)
	{
		vec3s ta[3], tb[3];
		kl_collision_triangle_a(call->a, i, ta);
		for (int j = 0; j < nb; ++j)
		{
			kl_collision_triangle_moved(call->b, s->moved_b, j, tb);
			s->counters.triangle_tests += 1;
			kl_tri_distance td = kl_tri_tri_distance(ta, tb);
			if ((td.overlap ? 0.0 : (double)td.distance) < best->distance)
			{
				note(best, i, j, &td);
			}
		}
	}
	return true;
}

/// The BVH's distance: the first-hit overlap traversal settles intersecting poses (much cheaper than
/// searching for a zero distance), then the best-first search.
static bool distance_tree(const kl_collision_call* call, closest_pair* best)
{
	int tri_a, tri_b;
	bool failed;
	if (!kl_collision_first_hit(call, &tri_a, &tri_b, &failed))
	{
		return !failed && distance_bvh(call, best);
	}
	if (call->def.lowest_pair && !lowest_intersecting(call, &tri_a, &tri_b))
	{
		return false;
	}
	// The common point of the pair found (the result, not part of the search: not counted).
	vec3s ta[3], tb[3];
	kl_collision_triangle_a(call->a, tri_a, ta);
	kl_collision_triangle_b(call->b, &call->pose, tri_b, tb);
	kl_tri_distance td = kl_tri_tri_distance(ta, tb);
	note(best, tri_a, tri_b, &td);
	best->distance = 0.0;
	return true;
}

kl_result kl_collision_distance(const kl_collision_model* a, const kl_collision_pose* pose_a,
								const kl_collision_model* b, const kl_collision_pose* pose_b,
								const kl_collision_query_def* def, kl_collision_scratch* scratch,
								kl_collision_distance_result* out)
{
	static const char what[] = "kl_collision_distance";
	if (out != NULL)
	{
		memset(out, 0, sizeof(*out));
		out->triangle_a = out->triangle_b = -1;
	}
	kl_collision_call call;
	kl_result r = kl_collision_begin(what, a, pose_a, b, pose_b, def, scratch, out, &call);
	if (r != KL_OK)
	{
		kl_collision_end(&call, r);
		return r;
	}
	closest_pair best;
	memset(&best, 0, sizeof(best));
	best.distance = INFINITY;
	best.tri_a = best.tri_b = -1;
	bool ok;
	if (call.def.exhaustive)
	{
		ok = distance_exhaustive(&call, &best);
	}
	else if (call.def.backend == KL_MESH_BACKEND_POINTSHELL)
	{
		ok = distance_pointshell(&call, &best);
	}
	else
	{
		ok = distance_tree(&call, &best);
	}
	if (ok && best.tri_a >= 0)
	{
		out->distance = best.distance;
		out->intersecting = best.distance == 0.0;
		out->triangle_a = best.tri_a;
		out->triangle_b = best.tri_b;
		out->point_a = kl_collision_to_world(&call, best.td.point_a);
		out->point_b = kl_collision_to_world(&call, best.td.point_b);
	}
	out->counters = call.scratch->counters;
	if (!ok || best.tri_a < 0)
	{
		r = ok ? kl_fail(KL_ERR_DEGENERATE, "%s: no triangle pair was found", what) : kl_collision_failure(what);
		memset(out, 0, sizeof(*out));
		out->triangle_a = out->triangle_b = -1;
	}
	kl_collision_end(&call, r);
	return r;
}
