// Kollide — the SIMDop traversal kernels (bvh_traverse_kernel.h) for 4-ary trees on AVX2, chosen at run
// time (kl_bvh_kernels_avx2): a node's four lanes in one __m128; N-vs-N packs the 4×4 child pairs into
// two __m256, each two children of a (lanes 0–3 and 4–7) against b's four.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#if defined(KL_BVH_AVX2)
#include "bvh_simd_ops.h"

#define KL_V(op) kl_f4_##op
#define KL_P(op) kl_f8_##op
#define KL_BVH_TARGET "avx2,fma,f16c"
#define KL_BVH_NAME(x) x##_avx2_w4
#define KL_BVH_SIMD KL_BVH_SIMD_AVX2

KL_AVX2_OP __m256 p_tile(__m128 row)
{
	return _mm256_set_m128(row, row);
}

KL_AVX2_OP __m256 p_spread(const float* a)
{
	return _mm256_set_m128(_mm_set1_ps(a[1]), _mm_set1_ps(a[0]));
}

#include "bvh_traverse_kernel.h"
#endif
