// Kollide — Batch Neural Gas fit of prototypes to weighted samples (bng.h).
// SPDX-License-Identifier: MIT
#include "bng.h"

#include <math.h>
#include <stdbool.h>
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

/// n distinct sample positions drawn by the seeded PRNG.
static void init_prototypes(const float* x, int m, int n, uint64_t seed, float* w)
{
	uint64_t state = seed;
	int chosen[KL_BNG_MAX_PROTOTYPES];
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
/// weight u·e^{−rank/λ}. Returns the largest prototype movement. The ranking is an insertion sort of the
/// prototype indices by (distance, index): the same ranks as counting closer prototypes, in O(n) for the
/// nearly sorted orders that consecutive samples give instead of O(n²).
static double bng_step(const float* x, const float* u, int m, int n, float* w, double lambda)
{
	double h[KL_BNG_MAX_PROTOTYPES];
	for (int r = 0; r < n; ++r)
	{
		h[r] = exp(-(double)r / lambda);
	}
	double num[KL_BNG_MAX_PROTOTYPES][3] = {{0.0}};
	double den[KL_BNG_MAX_PROTOTYPES] = {0.0};
	int order[KL_BNG_MAX_PROTOTYPES];
	for (int i = 0; i < n; ++i)
	{
		order[i] = i;
	}
	for (int s = 0; s < m; ++s)
	{
		const float* p = x + 3 * s;
		float d[KL_BNG_MAX_PROTOTYPES];
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
		double us = u != NULL ? (double)u[s] : 1.0;
		for (int rank = 0; rank < n; ++rank)
		{
			int i = order[rank];
			double wt = u != NULL ? us * h[rank] : h[rank];
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

void kl_bng_fit(const float* x, const float* u, int m, int n, const kl_bng_def* def, float* w)
{
	float lo[3] = {INFINITY, INFINITY, INFINITY};
	float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int s = 0; s < m; ++s)
	{
		for (int c = 0; c < 3; ++c)
		{
			lo[c] = fminf(lo[c], x[3 * s + c]);
			hi[c] = fmaxf(hi[c], x[3 * s + c]);
		}
	}
	double diag = sqrt((double)dist2(lo, hi));
	init_prototypes(x, m, n, def->seed, w);
	int iterations = def->iterations > 1 ? def->iterations : 2;
	double lambda0 = 0.5 * n;
	double lambdaf = def->lambda_final > 0.0 ? def->lambda_final : 0.01;
	for (int it = 0; it < iterations; ++it)
	{
		double lambda = lambda0 * pow(lambdaf / lambda0, (double)it / (iterations - 1));
		double move = bng_step(x, u, m, n, w, lambda);
		if (it > 0 && move < 1e-5 * diag)
		{
			break;
		}
	}
}

int kl_bng_nearest(const float* p, const float* w, int n)
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
