// Kollide — the SIMDop traversal kernels (bvh_traverse_kernel.h) for 8-ary trees on AVX2, chosen at run
// time (kl_bvh_kernels_avx2): a node's eight lanes in one __m256; N-vs-N keeps a register per child of
// a, b's row against that child's value broadcast. Binary16 rows load through F16C.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#if defined(KL_BVH_AVX2)
#include "bvh_simd_ops.h"

#define KL_V(op) kl_f8_##op
#define KL_P(op) kl_f8_##op
#define KL_BVH_TARGET "avx2,fma,f16c"
#define KL_BVH_NAME(x) x##_avx2_w8
#define KL_BVH_SIMD KL_BVH_SIMD_AVX2

KL_AVX2_OP __m256 p_tile(__m256 row)
{
	return row;
}

KL_AVX2_OP __m256 p_spread(const float* a)
{
	return _mm256_broadcast_ss(a);
}

#include "bvh_traverse_kernel.h"
#endif
