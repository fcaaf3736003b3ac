// Kollide internal — the register operations the inner-sphere walks need beyond bvh_simd_ops.h's, for
// the lens volumes of a batch of sphere pairs: subtract, divide, square root, minimum, maximum, ≤ and
// select, for the kl_f4 (__m128), kl_f8 (__m256) and, where the build has AVX-512, kl_f16 (__m512)
// sets. min(a, b) and max(a, b) are a < b ? a : b and a > b ? a : b, as the scalar set's.
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh_simd_ops.h"

KL_AVX2_OP __m128 kl_f4_sub(__m128 a, __m128 b)
{
	return _mm_sub_ps(a, b);
}

KL_AVX2_OP __m128 kl_f4_div(__m128 a, __m128 b)
{
	return _mm_div_ps(a, b);
}

KL_AVX2_OP __m128 kl_f4_sqrt(__m128 a)
{
	return _mm_sqrt_ps(a);
}

KL_AVX2_OP __m128 kl_f4_min(__m128 a, __m128 b)
{
	return _mm_min_ps(a, b);
}

KL_AVX2_OP __m128 kl_f4_max(__m128 a, __m128 b)
{
	return _mm_max_ps(a, b);
}

KL_AVX2_OP __m128 kl_f4_le(__m128 a, __m128 b)
{
	return _mm_cmp_ps(a, b, _CMP_LE_OQ);
}

/// m ? a : b per lane.
KL_AVX2_OP __m128 kl_f4_sel(__m128 m, __m128 a, __m128 b)
{
	return _mm_blendv_ps(b, a, m);
}

KL_AVX2_OP __m256 kl_f8_sub(__m256 a, __m256 b)
{
	return _mm256_sub_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_div(__m256 a, __m256 b)
{
	return _mm256_div_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_sqrt(__m256 a)
{
	return _mm256_sqrt_ps(a);
}

KL_AVX2_OP __m256 kl_f8_min(__m256 a, __m256 b)
{
	return _mm256_min_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_max(__m256 a, __m256 b)
{
	return _mm256_max_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_le(__m256 a, __m256 b)
{
	return _mm256_cmp_ps(a, b, _CMP_LE_OQ);
}

KL_AVX2_OP __m256 kl_f8_sel(__m256 m, __m256 a, __m256 b)
{
	return _mm256_blendv_ps(b, a, m);
}

#if defined(KL_BVH_AVX512)

KL_AVX512_OP __m512 kl_f16_sub(__m512 a, __m512 b)
{
	return _mm512_sub_ps(a, b);
}

KL_AVX512_OP __m512 kl_f16_div(__m512 a, __m512 b)
{
	return _mm512_div_ps(a, b);
}

KL_AVX512_OP __m512 kl_f16_sqrt(__m512 a)
{
	return _mm512_sqrt_ps(a);
}

KL_AVX512_OP __m512 kl_f16_min(__m512 a, __m512 b)
{
	return _mm512_min_ps(a, b);
}

KL_AVX512_OP __m512 kl_f16_max(__m512 a, __m512 b)
{
	return _mm512_max_ps(a, b);
}

KL_AVX512_OP __mmask16 kl_f16_le(__m512 a, __m512 b)
{
	return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
}

KL_AVX512_OP __m512 kl_f16_sel(__mmask16 m, __m512 a, __m512 b)
{
	return _mm512_mask_blend_ps(m, b, a);
}

#endif
