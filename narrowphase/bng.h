// Kollide internal — Batch Neural Gas: n prototypes fitted to weighted 3-D samples (seed §1.5 with its
// errata: h_λ(k) = e^{−k/λ}, the batch rule w_i = Σ_j u_j h(k_ij) x_j / Σ_j u_j h(k_ij), λ annealed from
// n/2 to λ_f, early stop when no prototype moves more than 1e-5 × the samples' bounding-box diagonal).
// The weights u_j are the magnification control of §2.2 (the inner-sphere tree weights a sphere by its
// volume); without them every sample counts once (the mesh BVH's triangle centroids).
// SPDX-License-Identifier: MIT
#pragma once

#include <stdint.h>

/// Most prototypes one fit takes (one AVX-512 register of lanes).
#define KL_BNG_MAX_PROTOTYPES 16

typedef struct kl_bng_def
{
	int iterations;		 ///< annealing steps (at least 2 run)
	double lambda_final; ///< λ at the last step (> 0)
	uint64_t seed;		 ///< state of the PRNG that picks the initial prototypes among the samples
} kl_bng_def;

/// Fits n (2..KL_BNG_MAX_PROTOTYPES, ≤ m) prototypes w[3n] to the samples x[3m], weighted by u[m] (NULL:
/// all 1). Deterministic: the same samples, weights and def give the same prototypes.
void kl_bng_fit(const float* x, const float* u, int m, int n, const kl_bng_def* def, float* w);

/// The prototype nearest to p (the lowest index among equals).
int kl_bng_nearest(const float* p, const float* w, int n);
