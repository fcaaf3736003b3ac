// Kollide — AVX2 kernels of the SIMDop traversal, chosen at run time (simd.h): 1-vs-N (one DOP against
// all children of a node: per slab one load of the children's minima and maxima row, two compares, early
// exit once every lane is separated) and N-vs-N (all child pairs of two nodes slab by slab), for width 8
// (__m256) and width 4 (__m128; N-vs-N packs the 4×4 pairs into two __m256). Separation uses the seed's
// corrected test a.max < b.min or a.min > b.max (§1.6 errata 1). Realignment uses mul then add in the
// scalar order, so its values equal the scalar kernel's bit for bit. Binary16 rows load through F16C.
// SPDX-License-Identifier: MIT
#include "bvh.h"
#include "simd.h"

#if defined(KOLLIDE_AVX2) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define KL_AVX static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define KL_AVXK static __attribute__((target("avx2,fma,f16c")))

KL_AVX __m256 row8(const kl_bvh* t, const void* box, int r, bool fp16)
{
	if (fp16)
	{
		return _mm256_cvtph_ps(_mm_load_si128((const __m128i*)((const uint16_t*)box + r * 8)));
	}
	(void)t;
	return _mm256_load_ps((const float*)box + r * 8);
}

KL_AVX __m128 row4(const kl_bvh* t, const void* box, int r, bool fp16)
{
	if (fp16)
	{
		return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i*)((const uint16_t*)box + r * 4)));
	}
	(void)t;
	return _mm_load_ps((const float*)box + r * 4);
}

/// Lanes below count as an all-ones mask; its complement starts out "separated".
KL_AVX __m256 valid8(int count)
{
	__m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(count), iota)) ;
}

KL_AVX __m128 valid4(int count)
{
	__m128i iota = _mm_setr_epi32(0, 1, 2, 3);
	return _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_set1_epi32(count), iota));
}

// ---- width 8 ----

KL_AVX void realign8(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows, bool fp16)
{
	const void* box = kl_bvh_node_box(a, node);
	_Alignas(32) float conv[2 * KL_KDOP_MAX_AXES * 8];
	const float* src = (const float*)box;
	if (fp16)
	{
		for (int r = 0; r < 2 * a->axes; ++r)
		{
			_mm256_store_ps(conv + r * 8, row8(a, box, r, true));
		}
		src = conv;
	}
	for (int r = 0; r < 2 * plan->axes_out; ++r)
	{
		const int16_t* row = plan->row[r];
		const float* coef = plan->coef[r];
		__m256 s0 = _mm256_mul_ps(_mm256_set1_ps(coef[0]), _mm256_load_ps(src + row[0] * 8));
		__m256 s1 = _mm256_mul_ps(_mm256_set1_ps(coef[1]), _mm256_load_ps(src + row[1] * 8));
		__m256 s2 = _mm256_mul_ps(_mm256_set1_ps(coef[2]), _mm256_load_ps(src + row[2] * 8));
		__m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s0, s1), s2), _mm256_set1_ps(plan->c[r]));
		_mm256_store_ps(rows + r * 8, v);
	}
}

KL_AVX uint32_t one_vs_8(const float* lo, const float* hi, int stride, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	__m256 sep = _mm256_xor_ps(valid8(kl_bvh_node_count(b, node)), _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
	for (int i = 0; i < A; ++i)
	{
		__m256 lt = _mm256_cmp_ps(_mm256_set1_ps(hi[i * stride]), row8(b, box, i, fp16), _CMP_LT_OQ);
		__m256 gt = _mm256_cmp_ps(_mm256_set1_ps(lo[i * stride]), row8(b, box, A + i, fp16), _CMP_GT_OQ);
		sep = _mm256_or_ps(sep, _mm256_or_ps(lt, gt));
		if (_mm256_movemask_ps(sep) == 0xFF)
		{
			return 0;
		}
	}
	return (uint32_t)(~_mm256_movemask_ps(sep)) & 0xFFu;
}

KL_AVX uint64_t n_vs_8(const float* rows, int count, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	__m256 ones = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
	__m256 start = _mm256_xor_ps(valid8(kl_bvh_node_count(b, node)), ones);
	__m256 sep[8];
	for (int i = 0; i < 8; ++i)
	{
		sep[i] = i < count ? start : ones;
	}
	for (int s = 0; s < A; ++s)
	{
		__m256 blo = row8(b, box, s, fp16);
		__m256 bhi = row8(b, box, A + s, fp16);
		const float* alo = rows + s * 8;
		const float* ahi = rows + (A + s) * 8;
		__m256 all = ones;
		for (int i = 0; i < count; ++i)
		{
			__m256 lt = _mm256_cmp_ps(_mm256_broadcast_ss(ahi + i), blo, _CMP_LT_OQ);
			__m256 gt = _mm256_cmp_ps(_mm256_broadcast_ss(alo + i), bhi, _CMP_GT_OQ);
			sep[i] = _mm256_or_ps(sep[i], _mm256_or_ps(lt, gt));
			all = _mm256_and_ps(all, sep[i]);
		}
		if (_mm256_movemask_ps(all) == 0xFF)
		{
			return 0;
		}
	}
	uint64_t mask = 0;
	for (int i = 0; i < count; ++i)
	{
		mask |= (uint64_t)((uint32_t)(~_mm256_movemask_ps(sep[i])) & 0xFFu) << (8 * i);
	}
	return mask;
}

/// One child of A against all of b's children per pass (one_vs_8's loop), for every child of A.
KL_AVX uint32_t nodes_1v8(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint32_t any = 0;
	int A = b->axes;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = one_vs_8(rows + i, rows + A * 8 + i, 8, b, node, fp16);
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

/// n_vs_8's 64-bit pair mask split into per-child masks.
KL_AVX uint32_t nodes_nv8(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint64_t pairs = n_vs_8(rows, count, b, node, fp16);
	uint32_t any = 0;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = (uint32_t)(pairs >> (8 * i)) & 0xFFu;
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_AVXK uint32_t n8_vs_one(const float* rows, int count, int width, int axes, const float* blo, const float* bhi)
{
	(void)width;
	__m256 sep = _mm256_xor_ps(valid8(count), _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
	for (int i = 0; i < axes; ++i)
	{
		__m256 lt = _mm256_cmp_ps(_mm256_load_ps(rows + (axes + i) * 8), _mm256_set1_ps(blo[i]), _CMP_LT_OQ);
		__m256 gt = _mm256_cmp_ps(_mm256_load_ps(rows + i * 8), _mm256_set1_ps(bhi[i]), _CMP_GT_OQ);
		sep = _mm256_or_ps(sep, _mm256_or_ps(lt, gt));
		if (_mm256_movemask_ps(sep) == 0xFF)
		{
			return 0;
		}
	}
	return (uint32_t)(~_mm256_movemask_ps(sep)) & 0xFFu;
}

KL_AVXK void realign8_f32(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign8(a, node, plan, rows, false);
}

KL_AVXK void realign8_f16(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign8(a, node, plan, rows, true);
}

KL_AVXK uint32_t one_vs_8_f32(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_8(lo, hi, stride, b, node, false);
}

KL_AVXK uint32_t one_vs_8_f16(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_8(lo, hi, stride, b, node, true);
}

KL_AVXK uint32_t nodes_1v8_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1v8(rows, count, b, node, masks, false);
}

KL_AVXK uint32_t nodes_1v8_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1v8(rows, count, b, node, masks, true);
}

KL_AVXK uint32_t nodes_nv8_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_nv8(rows, count, b, node, masks, false);
}

KL_AVXK uint32_t nodes_nv8_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_nv8(rows, count, b, node, masks, true);
}

// ---- width 4 ----

KL_AVX void realign4(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows, bool fp16)
{
	const void* box = kl_bvh_node_box(a, node);
	_Alignas(16) float conv[2 * KL_KDOP_MAX_AXES * 4];
	const float* src = (const float*)box;
	if (fp16)
	{
		for (int r = 0; r < 2 * a->axes; ++r)
		{
			_mm_store_ps(conv + r * 4, row4(a, box, r, true));
		}
		src = conv;
	}
	for (int r = 0; r < 2 * plan->axes_out; ++r)
	{
		const int16_t* row = plan->row[r];
		const float* coef = plan->coef[r];
		__m128 s0 = _mm_mul_ps(_mm_set1_ps(coef[0]), _mm_load_ps(src + row[0] * 4));
		__m128 s1 = _mm_mul_ps(_mm_set1_ps(coef[1]), _mm_load_ps(src + row[1] * 4));
		__m128 s2 = _mm_mul_ps(_mm_set1_ps(coef[2]), _mm_load_ps(src + row[2] * 4));
		__m128 v = _mm_add_ps(_mm_add_ps(_mm_add_ps(s0, s1), s2), _mm_set1_ps(plan->c[r]));
		_mm_store_ps(rows + r * 4, v);
	}
}

KL_AVX uint32_t one_vs_4(const float* lo, const float* hi, int stride, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	__m128 sep = _mm_xor_ps(valid4(kl_bvh_node_count(b, node)), _mm_castsi128_ps(_mm_set1_epi32(-1)));
	for (int i = 0; i < A; ++i)
	{
		__m128 lt = _mm_cmp_ps(_mm_set1_ps(hi[i * stride]), row4(b, box, i, fp16), _CMP_LT_OQ);
		__m128 gt = _mm_cmp_ps(_mm_set1_ps(lo[i * stride]), row4(b, box, A + i, fp16), _CMP_GT_OQ);
		sep = _mm_or_ps(sep, _mm_or_ps(lt, gt));
		if (_mm_movemask_ps(sep) == 0xF)
		{
			return 0;
		}
	}
	return (uint32_t)(~_mm_movemask_ps(sep)) & 0xFu;
}

/// 4×4 child pairs in two registers: lanes (a0|a1) × (b0..b3) and (a2|a3) × (b0..b3).
KL_AVX uint64_t n_vs_4(const float* rows, int count, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	__m256 ones = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
	__m128 vb = _mm_xor_ps(valid4(kl_bvh_node_count(b, node)), _mm_castsi128_ps(_mm_set1_epi32(-1)));
	__m128 ones4 = _mm256_castps256_ps128(ones);
	__m256 sep01 = _mm256_set_m128(count > 1 ? vb : ones4, count > 0 ? vb : ones4);
	__m256 sep23 = _mm256_set_m128(count > 3 ? vb : ones4, count > 2 ? vb : ones4);
	for (int s = 0; s < A; ++s)
	{
		__m128 l4 = row4(b, box, s, fp16);
		__m128 h4 = row4(b, box, A + s, fp16);
		__m256 blo = _mm256_set_m128(l4, l4);
		__m256 bhi = _mm256_set_m128(h4, h4);
		const float* alo = rows + s * 4;
		const float* ahi = rows + (A + s) * 4;
		__m256 ahi01 = _mm256_set_m128(_mm_set1_ps(ahi[1]), _mm_set1_ps(ahi[0]));
		__m256 alo01 = _mm256_set_m128(_mm_set1_ps(alo[1]), _mm_set1_ps(alo[0]));
		__m256 ahi23 = _mm256_set_m128(_mm_set1_ps(ahi[3]), _mm_set1_ps(ahi[2]));
		__m256 alo23 = _mm256_set_m128(_mm_set1_ps(alo[3]), _mm_set1_ps(alo[2]));
		sep01 = _mm256_or_ps(sep01, _mm256_or_ps(_mm256_cmp_ps(ahi01, blo, _CMP_LT_OQ), _mm256_cmp_ps(alo01, bhi, _CMP_GT_OQ)));
		sep23 = _mm256_or_ps(sep23, _mm256_or_ps(_mm256_cmp_ps(ahi23, blo, _CMP_LT_OQ), _mm256_cmp_ps(alo23, bhi, _CMP_GT_OQ)));
		if (_mm256_movemask_ps(_mm256_and_ps(sep01, sep23)) == 0xFF)
		{
			return 0;
		}
	}
	uint32_t m01 = (uint32_t)(~_mm256_movemask_ps(sep01)) & 0xFFu;
	uint32_t m23 = (uint32_t)(~_mm256_movemask_ps(sep23)) & 0xFFu;
	return (uint64_t)(m01 | (m23 << 8));
}

KL_AVX uint32_t nodes_1v4(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint32_t any = 0;
	int A = b->axes;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = one_vs_4(rows + i, rows + A * 4 + i, 4, b, node, fp16);
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_AVX uint32_t nodes_nv4(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint64_t pairs = n_vs_4(rows, count, b, node, fp16);
	uint32_t any = 0;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = (uint32_t)(pairs >> (4 * i)) & 0xFu;
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_AVXK uint32_t n4_vs_one(const float* rows, int count, int width, int axes, const float* blo, const float* bhi)
{
	(void)width;
	__m128 sep = _mm_xor_ps(valid4(count), _mm_castsi128_ps(_mm_set1_epi32(-1)));
	for (int i = 0; i < axes; ++i)
	{
		__m128 lt = _mm_cmp_ps(_mm_load_ps(rows + (axes + i) * 4), _mm_set1_ps(blo[i]), _CMP_LT_OQ);
		__m128 gt = _mm_cmp_ps(_mm_load_ps(rows + i * 4), _mm_set1_ps(bhi[i]), _CMP_GT_OQ);
		sep = _mm_or_ps(sep, _mm_or_ps(lt, gt));
		if (_mm_movemask_ps(sep) == 0xF)
		{
			return 0;
		}
	}
	return (uint32_t)(~_mm_movemask_ps(sep)) & 0xFu;
}

KL_AVXK void realign4_f32(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign4(a, node, plan, rows, false);
}

KL_AVXK void realign4_f16(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign4(a, node, plan, rows, true);
}

KL_AVXK uint32_t one_vs_4_f32(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_4(lo, hi, stride, b, node, false);
}

KL_AVXK uint32_t one_vs_4_f16(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_4(lo, hi, stride, b, node, true);
}

KL_AVXK uint32_t nodes_1v4_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1v4(rows, count, b, node, masks, false);
}

KL_AVXK uint32_t nodes_1v4_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1v4(rows, count, b, node, masks, true);
}

KL_AVXK uint32_t nodes_nv4_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_nv4(rows, count, b, node, masks, false);
}

KL_AVXK uint32_t nodes_nv4_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_nv4(rows, count, b, node, masks, true);
}

bool kl_bvh_kernels_avx2(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	if (a->width != b->width || (a->width != 8 && a->width != 4))
	{
		return false;
	}
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
		((a->fp16 || b->fp16) && !kl_cpu_has_f16c()))
	{
		return false;
	}
	if (a->width == 8)
	{
		k->realign_node = a->fp16 ? realign8_f16 : realign8_f32;
		k->one_vs_n = b->fp16 ? one_vs_8_f16 : one_vs_8_f32;
		k->n_vs_one = n8_vs_one;
		k->nodes_1vn = b->fp16 ? nodes_1v8_f16 : nodes_1v8_f32;
		k->nodes_nvn = b->fp16 ? nodes_nv8_f16 : nodes_nv8_f32;
	}
	else
	{
		k->realign_node = a->fp16 ? realign4_f16 : realign4_f32;
		k->one_vs_n = b->fp16 ? one_vs_4_f16 : one_vs_4_f32;
		k->n_vs_one = n4_vs_one;
		k->nodes_1vn = b->fp16 ? nodes_1v4_f16 : nodes_1v4_f32;
		k->nodes_nvn = b->fp16 ? nodes_nv4_f16 : nodes_nv4_f32;
	}
	k->simd = KL_BVH_SIMD_AVX2;
	return true;
}

#else

bool kl_bvh_kernels_avx2(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	(void)a;
	(void)b;
	(void)k;
	return false;
}

#endif
