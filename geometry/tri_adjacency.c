// Kollide — triangle adjacency by sorting directed edges on their undirected key.
// SPDX-License-Identifier: MIT
#include "tri_adjacency.h"

#include "core.h"
#include "dvec3.h"

#include <stdlib.h>
#include <string.h>

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

/// Fills twin[c] with the corner of the one other triangle that uses corner c's edge in the opposite
/// direction, or -1 (an open edge, one shared by more than two triangles, or an inconsistently
/// oriented neighbour). O(n log n).
static kl_result pair_half_edges(const int32_t* indices, int triangle_count, int32_t* twin, const char* caller)
{
	if (indices == NULL || twin == NULL || triangle_count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: bad arguments", caller);
	}
	int n = 3 * triangle_count;
	kl_half_edge* edges = kl_alloc((size_t)(n > 0 ? n : 1), sizeof(kl_half_edge));
	if (edges == NULL)
	{
		return kl_fail(KL_ERR_OUT_OF_MEMORY, "%s: out of memory for %d edges", caller, n);
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
		twin[c] = -1;
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
			twin[edges[i].corner] = edges[i + 1].corner;
			twin[edges[i + 1].corner] = edges[i].corner;
		}
		i = j;
	}
	kl_free(edges);
	return KL_OK;
}

kl_result kl_triangle_opposites(const int32_t* indices, int triangle_count, int32_t* opposite)
{
	kl_result r = pair_half_edges(indices, triangle_count, opposite, "kl_triangle_opposites");
	for (int c = 0; r == KL_OK && c < 3 * triangle_count; ++c)
	{
		int32_t t = opposite[c];
		// The vertex after the edge's end in the other triangle is its third vertex.
		opposite[c] = t < 0 ? -1 : indices[t - t % 3 + (t % 3 + 2) % 3];
	}
	return r;
}

kl_result kl_triangle_neighbours(const int32_t* indices, int triangle_count, int32_t* neighbour)
{
	kl_result r = pair_half_edges(indices, triangle_count, neighbour, "kl_triangle_neighbours");
	for (int c = 0; r == KL_OK && c < 3 * triangle_count; ++c)
	{
		neighbour[c] = neighbour[c] < 0 ? -1 : neighbour[c] / 3;
	}
	return r;
}

/// Unit normal of triangle t (false when it has no area).
static bool kl_triangle_unit_normal(const vec3s* vertices, const int32_t* tri, kl_d3 p[3], kl_d3* n)
{
	for (int k = 0; k < 3; ++k)
	{
		p[k] = kl_d3_make(vertices[tri[k]].x, vertices[tri[k]].y, vertices[tri[k]].z);
	}
	kl_d3 c = kl_d3_cross(kl_d3_sub(p[1], p[0]), kl_d3_sub(p[2], p[0]));
	double len = sqrt(kl_d3_dot(c, c));
	if (!(len > 0.0))
	{
		return false;
	}
	*n = kl_d3_scale(c, 1.0 / len);
	return true;
}

kl_result kl_vertex_pseudo_normals(const vec3s* vertices, int vertex_count, const int32_t* indices,
								   int triangle_count, vec3s* normals, float* cone_cos)
{
	if (vertices == NULL || indices == NULL || normals == NULL || vertex_count < 0 || triangle_count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_vertex_pseudo_normals: bad arguments");
	}
	// Summed in double: a vertex with many thin triangles around it keeps its direction.
	double* sum = kl_alloc((size_t)(3 * (vertex_count > 0 ? vertex_count : 1)), sizeof(double));
	if (sum == NULL)
	{
		return kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_vertex_pseudo_normals: out of memory for %d vertices", vertex_count);
	}
	memset(sum, 0, sizeof(double) * (size_t)(3 * (vertex_count > 0 ? vertex_count : 1)));
	for (int t = 0; t < triangle_count; ++t)
	{
		const int32_t* tri = indices + 3 * t;
		if (tri[0] < 0 || tri[1] < 0 || tri[2] < 0 || tri[0] >= vertex_count || tri[1] >= vertex_count ||
			tri[2] >= vertex_count)
		{
			kl_free(sum);
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_vertex_pseudo_normals: triangle %d has an index out of range",
						   t);
		}
		kl_d3 p[3], n;
		if (!kl_triangle_unit_normal(vertices, tri, p, &n))
		{
			continue;
		}
		for (int k = 0; k < 3; ++k)
		{
			kl_d3 u = kl_d3_sub(p[(k + 1) % 3], p[k]), w = kl_d3_sub(p[(k + 2) % 3], p[k]);
			double angle = atan2(sqrt(kl_d3_dot(kl_d3_cross(u, w), kl_d3_cross(u, w))), kl_d3_dot(u, w));
			double* s = sum + 3 * tri[k];
			s[0] += angle * n.x;
			s[1] += angle * n.y;
			s[2] += angle * n.z;
		}
	}
	for (int v = 0; v < vertex_count; ++v)
	{
		const double* s = sum + 3 * v;
		double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
		normals[v] = len > 0.0 ? kl_vec3((float)(s[0] / len), (float)(s[1] / len), (float)(s[2] / len))
							   : kl_vec3(0.0f, 0.0f, 0.0f);
	}
	kl_free(sum);
	if (cone_cos != NULL)
	{
		for (int v = 0; v < vertex_count; ++v)
		{
			cone_cos[v] = 1.0f;
		}
		for (int t = 0; t < triangle_count; ++t)
		{
			const int32_t* tri = indices + 3 * t;
			kl_d3 p[3], n;
			if (!kl_triangle_unit_normal(vertices, tri, p, &n))
			{
				continue;
			}
			for (int k = 0; k < 3; ++k)
			{
				vec3s m = normals[tri[k]];
				float c = (float)(n.x * m.x + n.y * m.y + n.z * m.z);
				cone_cos[tri[k]] = fminf(cone_cos[tri[k]], c);
			}
		}
	}
	return KL_OK;
}
