// Kollide ensembles — reductions over all samples in index order (so that they are bit-identical for
// any number of threads or processes), the CSV of final states and the hash.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <stdio.h>
#include <string.h>

const float* kl_ens_state(const kl_ensemble* ens, int sample, int body)
{
	return ens->states + (size_t)sample * kl_ens_row_floats(ens) + (size_t)body * KL_ENS_BODY_STRIDE;
}

size_t kl_ens_row_floats(const kl_ensemble* ens)
{
	return (size_t)ens->body_count * KL_ENS_BODY_STRIDE + (size_t)ens->def.region_count;
}

double kl_ens_region_probability(const kl_ensemble* ens, int region)
{
	int inside = 0;
	for (int i = 0; i < ens->def.sample_count; ++i)
	{
		inside += kl_ens_state(ens, i, ens->body_count)[region] != 0.0f; // the flags follow the bodies
	}
	return (double)inside / (double)ens->def.sample_count;
}

void kl_ens_position_moments(const kl_ensemble* ens, int body, double mean[3], double covariance[9])
{
	int n = ens->def.sample_count;
	memset(mean, 0, sizeof(double) * 3);
	memset(covariance, 0, sizeof(double) * 9);
	for (int i = 0; i < n; ++i)
	{
		for (int a = 0; a < 3; ++a)
		{
			mean[a] += kl_ens_state(ens, i, body)[3 + a];
		}
	}
	for (int a = 0; a < 3; ++a)
	{
		mean[a] /= n; // after the sum, so that equal positions give their value exactly
	}
	for (int i = 0; i < n; ++i)
	{
		const float* p = kl_ens_state(ens, i, body) + 3;
		for (int a = 0; a < 3; ++a)
		{
			for (int b = 0; b < 3; ++b)
			{
				covariance[3 * a + b] += (p[a] - mean[a]) * (p[b] - mean[b]);
			}
		}
	}
	for (int k = 0; k < 9; ++k)
	{
		covariance[k] /= n > 1 ? n - 1 : 1; // the unbiased estimate
	}
}

uint32_t kl_ens_combined_hash(const kl_ensemble* ens)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < ens->def.sample_count; ++i)
	{
		for (int k = 0; k < 4; ++k)
		{
			h = (h ^ ((ens->hashes[i] >> (8 * k)) & 0xffu)) * 16777619u;
		}
	}
	return h;
}

// %.9g round-trips a float, so the CSV is as exact as the states (and equal states give equal files).
bool kl_ens_write_csv(const kl_ensemble* ens, const char* path)
{
	FILE* file = fopen(path, "w");
	if (file == NULL)
	{
		return false;
	}
	fprintf(file, "sample,body,x0,y0,z0,x,y,z,qw,qx,qy,qz,hash\n");
	for (int i = 0; i < ens->def.sample_count; ++i)
	{
		for (int b = 0; b < ens->body_count; ++b)
		{
			const float* s = kl_ens_state(ens, i, b);
			fprintf(file, "%d,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%08x\n", i,
					ens->body_names[b][0] != '\0' ? ens->body_names[b] : "-", s[0], s[1], s[2], s[3], s[4], s[5], s[9],
					s[6], s[7], s[8], ens->hashes[i]);
		}
	}
	return fclose(file) == 0;
}
