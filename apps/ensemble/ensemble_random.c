// Kollide ensembles — counter-based random numbers, so that a sample's draws do not depend on the
// worker, thread or process that runs it.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <math.h>

// SplitMix64's finaliser: a bijection of 64 bits with full avalanche.
static uint64_t kl_ens_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t kl_ens_random_u64(uint64_t seed, uint64_t sample, uint64_t counter)
{
	// Nested mixing keeps (seed, sample, counter) triples apart that a plain XOR would merge.
	return kl_ens_mix(kl_ens_mix(kl_ens_mix(seed) ^ sample) ^ counter);
}

// A double in (0, 1]: 53 bits, never 0, so the logarithm below stays finite.
static double kl_ens_uniform(uint64_t seed, uint64_t sample, uint64_t counter)
{
	return ((double)(kl_ens_random_u64(seed, sample, counter) >> 11) + 1.0) * 0x1.0p-53;
}

double kl_ens_normal(uint64_t seed, uint64_t sample, uint64_t pair)
{
	double u1 = kl_ens_uniform(seed, sample, 2 * pair);
	double u2 = kl_ens_uniform(seed, sample, 2 * pair + 1);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
