// Kollide internal — the register operations of the SIMDop traversal kernels (bvh_traverse_kernel.h),
// one set per register: kl_f4_* (__m128), kl_f8_* (__m256) and kl_f16_* (__m512, lane flags in an
// __mmask16). Each set has its vector and flag types (v, m), its lane count, aligned loads of float
// and binary16 rows, a broadcast, add and multiply, the ordered compares < and >, or of flags, whether
// every lane is set, the flags as bits and the lanes at or above a count; the sets that hold N-vs-N
// pairs (kl_f8, kl_f16) also have and of flags and bits as flags. Included only where the build
// compiles the kernels (KL_BVH_AVX2; the kl_f16 set also needs KL_BVH_AVX512).
// SPDX-License-Identifier: MIT
#pragma once

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#define KL_AVX2_OP static inline __attribute__((always_inline, target("avx2,fma,f16c")))

// ---- __m128 ----

typedef __m128 kl_f4_v;
typedef __m128 kl_f4_m;
enum { kl_f4_lanes = 4 };

KL_AVX2_OP __m128 kl_f4_load(const float* p)
{
	return _mm_load_ps(p);
}

KL_AVX2_OP __m128 kl_f4_load_h(const uint16_t* p)
{
	return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i*)p));
}

KL_AVX2_OP void kl_f4_store(float* p, __m128 a)
{
	_mm_store_ps(p, a);
}

KL_AVX2_OP __m128 kl_f4_set1(float s)
{
	return _mm_set1_ps(s);
}

KL_AVX2_OP __m128 kl_f4_add(__m128 a, __m128 b)
{
	return _mm_add_ps(a, b);
}

KL_AVX2_OP __m128 kl_f4_mul(__m128 a, __m128 b)
{
	return _mm_mul_ps(a, b);
}

KL_AVX2_OP __m128 kl_f4_lt(__m128 a, __m128 b)
{
	return _mm_cmp_ps(a, b, _CMP_LT_OQ);
}

KL_AVX2_OP __m128 kl_f4_gt(__m128 a, __m128 b)
{
	return _mm_cmp_ps(a, b, _CMP_GT_OQ);
}

KL_AVX2_OP __m128 kl_f4_or(__m128 a, __m128 b)
{
	return _mm_or_ps(a, b);
}

KL_AVX2_OP bool kl_f4_all(__m128 m)
{
	return _mm_movemask_ps(m) == 0xF;
}

KL_AVX2_OP uint32_t kl_f4_bits(__m128 m)
{
	return (uint32_t)_mm_movemask_ps(m);
}

KL_AVX2_OP __m128 kl_f4_from(int count)
{
	return _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_setr_epi32(1, 2, 3, 4), _mm_set1_epi32(count)));
}

// ---- __m256 ----

typedef __m256 kl_f8_v;
typedef __m256 kl_f8_m;
enum { kl_f8_lanes = 8 };

KL_AVX2_OP __m256 kl_f8_load(const float* p)
{
	return _mm256_load_ps(p);
}

KL_AVX2_OP __m256 kl_f8_load_h(const uint16_t* p)
{
	return _mm256_cvtph_ps(_mm_load_si128((const __m128i*)p));
}

KL_AVX2_OP void kl_f8_store(float* p, __m256 a)
{
	_mm256_store_ps(p, a);
}

KL_AVX2_OP __m256 kl_f8_set1(float s)
{
	return _mm256_set1_ps(s);
}

KL_AVX2_OP __m256 kl_f8_add(__m256 a, __m256 b)
{
	return _mm256_add_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_mul(__m256 a, __m256 b)
{
	return _mm256_mul_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_lt(__m256 a, __m256 b)
{
	return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
}

KL_AVX2_OP __m256 kl_f8_gt(__m256 a, __m256 b)
{
	return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}

KL_AVX2_OP __m256 kl_f8_or(__m256 a, __m256 b)
{
	return _mm256_or_ps(a, b);
}

KL_AVX2_OP __m256 kl_f8_and(__m256 a, __m256 b)
{
	return _mm256_and_ps(a, b);
}

KL_AVX2_OP bool kl_f8_all(__m256 m)
{
	return _mm256_movemask_ps(m) == 0xFF;
}

KL_AVX2_OP uint32_t kl_f8_bits(__m256 m)
{
	return (uint32_t)_mm256_movemask_ps(m);
}

KL_AVX2_OP __m256 kl_f8_from(int count)
{
	return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8), _mm256_set1_epi32(count)));
}

KL_AVX2_OP __m256 kl_f8_from_bits(uint32_t bits)
{
	__m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)bits), bit), bit));
}

// ---- __m512 ----

#if defined(KL_BVH_AVX512)

#define KL_AVX512_OP static inline __attribute__((always_inline, target("avx2,fma,f16c,avx512f")))

typedef __m512 kl_f16_v;
typedef __mmask16 kl_f16_m;
enum { kl_f16_lanes = 16 };

KL_AVX512_OP __m512 kl_f16_load(const float* p)
{
	return _mm512_load_ps(p);
}

KL_AVX512_OP __m512 kl_f16_load_h(const uint16_t* p)
{
	return _mm512_cvtph_ps(_mm256_load_si256((const __m256i*)p));
}

KL_AVX512_OP void kl_f16_store(float* p, __m512 a)
{
	_mm512_store_ps(p, a);
}

KL_AVX512_OP __m512 kl_f16_set1(float s)
{
	return _mm512_set1_ps(s);
}

KL_AVX512_OP __m512 kl_f16_add(__m512 a, __m512 b)
{
	return _mm512_add_ps(a, b);
}

KL_AVX512_OP __m512 kl_f16_mul(__m512 a, __m512 b)
{
	return _mm512_mul_ps(a, b);
}

KL_AVX512_OP __mmask16 kl_f16_lt(__m512 a, __m512 b)
{
	return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}

KL_AVX512_OP __mmask16 kl_f16_gt(__m512 a, __m512 b)
{
	return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}

KL_AVX512_OP __mmask16 kl_f16_or(__mmask16 a, __mmask16 b)
{
	return (__mmask16)(a | b);
}

KL_AVX512_OP __mmask16 kl_f16_and(__mmask16 a, __mmask16 b)
{
	return (__mmask16)(a & b);
}

KL_AVX512_OP bool kl_f16_all(__mmask16 m)
{
	return m == 0xFFFF;
}

KL_AVX512_OP uint32_t kl_f16_bits(__mmask16 m)
{
	return m;
}

KL_AVX512_OP __mmask16 kl_f16_from(int count)
{
	return (__mmask16)~((1u << count) - 1u);
}

KL_AVX512_OP __mmask16 kl_f16_from_bits(uint32_t bits)
{
	return (__mmask16)bits;
}

#endif
