// Kollide — growing disk-shaped regions of hull triangles (see kl_hull_region in hull.h): the
// visible set of a quickhull step and the triangles merged into one polygon face.
// SPDX-License-Identifier: MIT
#include "hull.h"

#include "core.h"

static bool push_index(int32_t** data, int* capacity, int count, int32_t value)
{
	if (!kl_array_reserve((void**)data, capacity, count + 1, sizeof(int32_t)))
	{
		return false;
	}
	(*data)[count] = value;
	return true;
}

static bool keeps_disk(const kl_hull_region* r, int t)
{
	const kl_hull_tri* tri = r->tris + t;
	int shared = 0, edge = -1;
	for (int i = 0; i < 3; ++i)
	{
		if (r->tri_mark[tri->adj[i]] == r->stamp)
		{
			++shared;
			edge = i;
		}
	}
	if (shared == 2)
	{
		return true;
	}
	// One shared edge: the opposite vertex must be new, or the region would touch itself there.
	return shared == 1 && r->vertex_mark[tri->v[(edge + 2) % 3]] != r->stamp;
}

static bool add_member(kl_hull_region* r, int t, int* queue_count)
{
	const kl_hull_tri* tri = r->tris + t;
	r->tri_mark[t] = r->stamp;
	for (int i = 0; i < 3; ++i)
	{
		r->vertex_mark[tri->v[i]] = r->stamp;
	}
	if (!push_index(&r->members, &r->member_capacity, r->member_count, t))
	{
		return false;
	}
	r->member_count += 1;
	for (int i = 0; i < 3; ++i)
	{
		int n = tri->adj[i];
		if (r->tri_mark[n] != r->stamp)
		{
			if (!push_index(&r->queue, &r->queue_capacity, *queue_count, n))
			{
				return false;
			}
			*queue_count += 1;
		}
	}
	return true;
}

bool kl_hull_region_grow(kl_hull_region* region, int seed, int32_t stamp, kl_hull_accept_fn* accept, void* context)
{
	region->stamp = stamp;
	region->member_count = 0;
	int queue_count = 0;
	if (!add_member(region, seed, &queue_count))
	{
		return false;
	}
	for (int head = 0; head < queue_count; ++head)
	{
		int t = region->queue[head];
		if (region->tri_mark[t] == stamp || !keeps_disk(region, t) || !accept(t, context))
		{
			continue;
		}
		if (!add_member(region, t, &queue_count))
		{
			return false;
		}
	}
	return true;
}

void kl_hull_region_free(kl_hull_region* region)
{
	kl_free(region->members);
	kl_free(region->queue);
	region->members = NULL;
	region->queue = NULL;
	region->member_capacity = 0;
	region->queue_capacity = 0;
}
