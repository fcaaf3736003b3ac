// Kollide — triangle adjacency by sorting directed edges on their undirected key.
// SPDX-License-Identifier: MIT
#include "tri_adjacency.h"

#include "core.h"

#include <stdlib.h>

typedef struct kl_half_edge
{
	uint64_t key;	  ///< (min vertex, max vertex)
	int32_t corner;	  ///< 3 · triangle + edge
	int32_t forward;  ///< 1 when the edge runs from the smaller index to the larger
} kl_half_edge;

static int compare_half_edges(const void* x, const void* y)
{
	const kl_half_edge* a = x;
	const kl_half_edge* b = y;
	if (a->key != b->key)
	{
		return a->key < b->key ? -1 : 1;
	}
	return (a->corner > b->corner) - (a->corner < b->corner); // deterministic order
}

kl_result kl_triangle_opposites(const int32_t* indices, int triangle_count, int32_t* opposite)
{
	if (indices == NULL || opposite == NULL || triangle_count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_triangle_opposites: bad arguments");
	}
	int n = 3 * triangle_count;
	kl_half_edge* edges = kl_alloc((size_t)(n > 0 ? n : 1), sizeof(kl_half_edge));
	if (edges == NULL)
	{
		return kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_triangle_opposites: out of memory for %d edges", n);
	}
	for (int c = 0; c < n; ++c)
	{
		uint32_t u = (uint32_t)indices[c];
		uint32_t v = (uint32_t)indices[c - c % 3 + (c % 3 + 1) % 3];
		uint32_t lo = u < v ? u : v, hi = u < v ? v : u;
		edges[c].key = (uint64_t)lo << 32 | hi;
		edges[c].corner = c;
		edges[c].forward = u < v;
	}
	qsort(edges, (size_t)n, sizeof(kl_half_edge), compare_half_edges);
	for (int c = 0; c < n; ++c)
	{
		opposite[c] = -1;
	}
	for (int i = 0; i < n;)
	{
		int j = i + 1;
		while (j < n && edges[j].key == edges[i].key)
		{
			++j;
		}
		if (j - i == 2 && edges[i].forward != edges[i + 1].forward)
		{
			int c0 = edges[i].corner, c1 = edges[i + 1].corner;
			// The vertex after the edge's end in each triangle is its third vertex.
			opposite[c0] = indices[c1 - c1 % 3 + (c1 % 3 + 2) % 3];
			opposite[c1] = indices[c0 - c0 % 3 + (c0 % 3 + 2) % 3];
		}
		i = j;
	}
	kl_free(edges);
	return KL_OK;
}
