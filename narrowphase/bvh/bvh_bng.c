// Kollide — Batch Neural Gas clustering of triangle centroids for the n-ary BVH builder: the prototypes
// of bng.h fitted to a strided sample of the node's centroids (unweighted), one child per cluster.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#include "bng.h"

#include "core.h"

#include <string.h>

int kl_bvh_bng_split(const float* centroids, int* tris, int count, int n, uint64_t seed, const kl_bvh_build_def* def,
					 int* group_size)
{
	if (n < 2 || n > KL_BVH_MAX_WIDTH || count <= n)
	{
		return 0;
	}
	int limit = def->bng_sample_limit > n ? def->bng_sample_limit : n;
	int m = count < limit ? count : limit;
	float* x = kl_alloc((size_t)m, 3 * sizeof(float));
	int* label = kl_alloc((size_t)count, sizeof(int));
	int* sorted = kl_alloc((size_t)count, sizeof(int));
	if (x == NULL || label == NULL || sorted == NULL)
	{
		kl_free(x);
		kl_free(label);
		kl_free(sorted);
		return 0;
	}
	for (int s = 0; s < m; ++s)
	{
		// Strided sample (all centroids when count ≤ limit).
		int t = tris[(int)(((int64_t)s * count) / m)];
		memcpy(x + 3 * s, centroids + 3 * t, 3 * sizeof(float));
	}
	// Seeded from the build seed and the node's own triangles, so the result does not depend on the
	// order in which nodes are built.
	kl_bng_def bng = {
		.iterations = def->bng_iterations,
		.lambda_final = def->bng_lambda_final,
		.seed = seed ^ ((uint64_t)(uint32_t)count * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uint32_t)tris[0] << 32) ^
				(uint64_t)(uint32_t)tris[count - 1],
	};
	float w[KL_BVH_MAX_WIDTH * 3];
	kl_bng_fit(x, NULL, m, n, &bng, w);
	int size[KL_BVH_MAX_WIDTH] = {0};
	for (int i = 0; i < count; ++i)
	{
		label[i] = kl_bng_nearest(centroids + 3 * tris[i], w, n);
		size[label[i]] += 1;
	}
	int result = n;
	for (int i = 0; i < n; ++i)
	{
		if (size[i] == 0 || (double)size[i] > 0.9 * count)
		{
			result = 0;
		}
	}
	if (result != 0)
	{
		int start[KL_BVH_MAX_WIDTH];
		int acc = 0;
		for (int i = 0; i < n; ++i)
		{
			start[i] = acc;
			acc += size[i];
			group_size[i] = size[i];
		}
		for (int i = 0; i < count; ++i)
		{
			sorted[start[label[i]]++] = tris[i];
		}
		memcpy(tris, sorted, (size_t)count * sizeof(int));
	}
	kl_free(x);
	kl_free(label);
	kl_free(sorted);
	return result;
}
