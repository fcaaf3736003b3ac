// Kollide — the SIMDop traversal kernels (bvh_traverse_kernel.h) for 4-ary trees on AVX-512, chosen at
// run time for N-vs-N (kl_bvh_kernels_avx512): a node's four lanes in one __m128; the seed's 4×4 N-vs-N
// holds all 16 child pairs of two nodes in one __m512 (lane 4·i + j: a's child i against b's child j),
// a's four values spread by a permute, b's four tiled by a 128-bit broadcast.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#if defined(KL_BVH_AVX512)
#include "bvh_simd_ops.h"

#define KL_V(op) kl_f4_##op
#define KL_P(op) kl_f16_##op
#define KL_BVH_TARGET "avx2,fma,f16c,avx512f"
#define KL_BVH_NAME(x) x##_avx512_w4
#define KL_BVH_SIMD KL_BVH_SIMD_AVX512

KL_AVX512_OP __m512 p_tile(__m128 row)
{
	return _mm512_broadcast_f32x4(row);
}

KL_AVX512_OP __m512 p_spread(const float* a)
{
	const __m512i spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
	return _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_load_ps(a)));
}

#include "bvh_traverse_kernel.h"
#endif
