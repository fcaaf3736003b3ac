// Kollide — the walk of two inner-sphere trees (ist_walk.h) of width 4 on AVX-512, chosen at run time: a node's
// four lanes in one __m128, and two nodes' 16 lane pairs in one __m512 (the seed's 4×4). Only functions marked with
// the target attribute use these instructions.
// SPDX-License-Identifier: MIT
#include "ist.h"

#include "bvh.h" // the build's SIMD switches that bvh_simd_ops.h reads

#if defined(KL_IST_AVX512)
#include "ist_simd_ops.h"

/// Bit 4i + j: a's moved lane i overlaps b's lane j; a's lanes spread four times each, b's row repeated
/// four times.
static inline __attribute__((always_inline, target("avx2,fma,f16c,avx512f"))) uint32_t
pair_mask_4x4(const float* moved, const float* radius, const float* nb)
{
	const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
	__m512 d2 = _mm512_setzero_ps();
	for (int c = 0; c < 3; ++c)
	{
		__m512 a = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_load_ps(moved + 4 * c)));
		__m512 d = _mm512_sub_ps(_mm512_broadcast_f32x4(_mm_load_ps(nb + 4 * c)), a);
		d2 = c == 0 ? _mm512_mul_ps(d, d) : _mm512_add_ps(d2, _mm512_mul_ps(d, d));
	}
	__m512 r = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_load_ps(radius)));
	__m512 rs = _mm512_add_ps(_mm512_broadcast_f32x4(_mm_load_ps(nb + 12)), r);
	return _mm512_cmp_ps_mask(d2, _mm512_mul_ps(rs, rs), _CMP_LT_OQ);
}

#define KL_IST_PAIR_MASK pair_mask_4x4
#define KL_V(op) kl_f4_##op
#define KL_IST_FN static inline __attribute__((always_inline, target("avx2,fma,f16c,avx512f")))
#define KL_IST_NAME_ATTR __attribute__((target("avx2,fma,f16c,avx512f")))
#define KL_IST_NAME kl_ist_walk_avx512_w4
#define KL_IST_W 4
#include "ist_walk.h"
#endif
