// Kollide — the walk of two inner-sphere trees (ist_walk.h) of width 4 on AVX2, chosen at run time: a node's four
// lanes in one __m128; two nodes' 4×4 lane pairs in two __m256 of 2×4. Only functions marked with the target
// attribute use these instructions.
// SPDX-License-Identifier: MIT
#include "ist.h"

#include "bvh.h" // the build's SIMD switches that bvh_simd_ops.h reads

#if defined(KL_IST_AVX2)
#include "ist_simd_ops.h"

/// Bit 4i + j: a's moved lane i overlaps b's lane j; a's lanes i and i + 1 spread over the halves of a
/// register, b's row repeated in each.
static inline __attribute__((always_inline, target("avx2,fma,f16c"))) uint32_t
pair_mask_2x4(const float* moved, const float* radius, const float* nb)
{
	uint32_t bits = 0;
	for (int i = 0; i < 4; i += 2)
	{
		__m256 d2 = _mm256_setzero_ps();
		for (int c = 0; c < 3; ++c)
		{
			const float* row = moved + 4 * c + i;
			__m256 a = _mm256_set_m128(_mm_set1_ps(row[1]), _mm_set1_ps(row[0]));
			__m256 d = _mm256_sub_ps(_mm256_broadcast_ps((const __m128*)(nb + 4 * c)), a);
			d2 = c == 0 ? _mm256_mul_ps(d, d) : _mm256_add_ps(d2, _mm256_mul_ps(d, d));
		}
		__m256 r = _mm256_set_m128(_mm_set1_ps(radius[i + 1]), _mm_set1_ps(radius[i]));
		__m256 rs = _mm256_add_ps(_mm256_broadcast_ps((const __m128*)(nb + 12)), r);
		bits |= (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(d2, _mm256_mul_ps(rs, rs), _CMP_LT_OQ)) << (4 * i);
	}
	return bits;
}

#define KL_IST_PAIR_MASK pair_mask_2x4
#define KL_V(op) kl_f4_##op
#define KL_IST_FN static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define KL_IST_NAME_ATTR __attribute__((target("avx2,fma,f16c")))
#define KL_IST_NAME kl_ist_walk_avx2_w4
#define KL_IST_W 4
#include "ist_walk.h"
#endif
