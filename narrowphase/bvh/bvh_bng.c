// Kollide — Batch Neural Gas clustering of triangle centroids for the n-ary BVH builder (seed §1.5 with its
// errata: neighbourhood h_λ(k) = e^{−k/λ}, the batch rule w_i = Σ_j h(k_ij) x_j / Σ_j h(k_ij), λ annealed
// from n/2 to λ_f, early stop when no prototype moves more than 1e-5 × the bounding-box diagonal).
// SPDX-License-Identifier: MIT
#include "bvh.h"

#include "core.h"

#include <math.h>
#include <string.h>

static uint64_t splitmix64(uint64_t* state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static float dist2(const float* a, const float* b)
{
	float dx = a[0] - b[0];
	float dy = a[1] - b[1];
	float dz = a[2] - b[2];
	return dx * dx + dy * dy + dz * dz;
}

/// Prototype initialisation: n distinct sample positions drawn by a PRNG seeded from the build seed and
/// the node's own triangles, so the result does not depend on the order in which nodes are built.
static void init_prototypes(const float* x, int m, int n, uint64_t seed, const int* tris, int count, float* w)
{
	uint64_t state = seed ^ ((uint64_t)(uint32_t)count * 0x9E3779B97F4A7C15ull) ^
					 ((uint64_t)(uint32_t)tris[0] << 32) ^ (uint64_t)(uint32_t)tris[count - 1];
	int chosen[KL_BVH_MAX_WIDTH];
	for (int i = 0; i < n; ++i)
	{
		int pick = (int)(splitmix64(&state) % (uint64_t)m);
		for (bool dup = true; dup;)
		{
			dup = false;
			for (int j = 0; j < i; ++j)
			{
				if (chosen[j] == pick)
				{
					dup = true;
					pick = (pick + 1) % m;
					break;
				}
			}
		}
		chosen[i] = pick;
		memcpy(w + 3 * i, x + 3 * pick, 3 * sizeof(float));
	}
}

/// One batch step: every sample ranks the prototypes by distance (ties by index) and contributes with
/// weight e^{−rank/λ}. Returns the largest prototype movement. The ranking is an insertion sort of the
/// prototype indices by (distance, index): the same ranks as counting closer prototypes, in O(n) for the
/// nearly sorted orders that consecutive samples give instead of O(n²).
static double bng_step(const float* x, int m, int n, float* w, double lambda)
{
	double h[KL_BVH_MAX_WIDTH];
	for (int r = 0; r < n; ++r)
	{
		h[r] = exp(-(double)r / lambda);
	}
	double num[KL_BVH_MAX_WIDTH][3] = {{0.0}};
	double den[KL_BVH_MAX_WIDTH] = {0.0};
	int order[KL_BVH_MAX_WIDTH];
	for (int i = 0; i < n; ++i)
	{
		order[i] = i;
	}
	for (int s = 0; s < m; ++s)
	{
		const float* p = x + 3 * s;
		float d[KL_BVH_MAX_WIDTH];
		for (int i = 0; i < n; ++i)
		{
			d[i] = dist2(p, w + 3 * i);
		}
		for (int i = 1; i < n; ++i)
		{
			int v = order[i];
			int j = i;
			for (; j > 0 && (d[order[j - 1]] > d[v] || (d[order[j - 1]] == d[v] && order[j - 1] > v)); --j)
			{
				order[j] = order[j - 1];
			}
			order[j] = v;
		}
		for (int rank = 0; rank < n; ++rank)
		{
			int i = order[rank];
			double wt = h[rank];
			num[i][0] += wt * p[0];
			num[i][1] += wt * p[1];
			num[i][2] += wt * p[2];
			den[i] += wt;
		}
	}
	double move = 0.0;
	for (int i = 0; i < n; ++i)
	{
		if (den[i] <= 0.0)
		{
			continue; // always ranked last with a vanishing weight: stays put
		}
		float nw[3];
		for (int c = 0; c < 3; ++c)
		{
			nw[c] = (float)(num[i][c] / den[i]);
		}
		move = fmax(move, sqrt((double)dist2(nw, w + 3 * i)));
		memcpy(w + 3 * i, nw, sizeof(nw));
	}
	return move;
}

static int nearest(const float* p, const float* w, int n)
{
	int best = 0;
	float bd = dist2(p, w);
	for (int i = 1; i < n; ++i)
	{
		float d = dist2(p, w + 3 * i);
		if (d < bd)
		{
			bd = d;
			best = i;
		}
	}
	return best;
}

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
	float lo[3] = {INFINITY, INFINITY, INFINITY};
	float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int s = 0; s < m; ++s)
	{
		// Strided sample (all centroids when count ≤ limit).
		int t = tris[(int)(((int64_t)s * count) / m)];
		for (int c = 0; c < 3; ++c)
		{
			float v = centroids[3 * t + c];
			x[3 * s + c] = v;
			lo[c] = fminf(lo[c], v);
			hi[c] = fmaxf(hi[c], v);
		}
	}
	double diag = sqrt((double)dist2(lo, hi));
	float w[KL_BVH_MAX_WIDTH * 3];
	init_prototypes(x, m, n, seed, tris, count, w);
	int iterations = def->bng_iterations > 1 ? def->bng_iterations : 2;
	double lambda0 = 0.5 * n;
	double lambdaf = def->bng_lambda_final > 0.0f ? def->bng_lambda_final : 0.01;
	for (int it = 0; it < iterations; ++it)
	{
		double lambda = lambda0 * pow(lambdaf / lambda0, (double)it / (iterations - 1));
		double move = bng_step(x, m, n, w, lambda);
		if (it > 0 && move < 1e-5 * diag)
		{
			break;
		}
	}
	int size[KL_BVH_MAX_WIDTH] = {0};
	for (int i = 0; i < count; ++i)
	{
		label[i] = nearest(centroids + 3 * tris[i], w, n);
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
