// Kollide — AVX-512 kernels of the SIMDop traversal, chosen at run time: 1-vs-16 for 16-ary trees (one DOP
// against all sixteen children: per slab one load of the children's minima and maxima row, two mask
// compares, early exit once all sixteen are separated) and the seed's 4×4 N-vs-N for 4-ary trees (all 16
// child pairs of two nodes in one register: A's four values spread by a permute, B's four tiled by a
// 128-bit broadcast). Only functions marked with the target attribute use AVX-512; the build never passes
// -mavx512f, and the CPU is checked (with KOLLIDE_SIMD=avx2|scalar turning the kernels off) before use.
// Separation is a.max < b.min or a.min > b.max (seed §1.6 errata 1); realignment is mul then add in the
// scalar kernel's order, so the candidate sets equal the scalar traversal's bit for bit.
// SPDX-License-Identifier: MIT
#include "bvh.h"
#include "simd.h"

#if defined(KOLLIDE_AVX512) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KL_AVX512 static inline __attribute__((always_inline, target("avx2,fma,f16c,avx512f")))
#define KL_AVX512K static __attribute__((target("avx2,fma,f16c,avx512f")))

KL_AVX512 __m512 row16(const void* box, int r, bool fp16)
{
	if (fp16)
	{
		return _mm512_cvtph_ps(_mm256_load_si256((const __m256i*)((const uint16_t*)box + r * 16)));
	}
	return _mm512_load_ps((const float*)box + r * 16);
}

KL_AVX512 __m128 row4(const void* box, int r, bool fp16)
{
	if (fp16)
	{
		return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i*)((const uint16_t*)box + r * 4)));
	}
	return _mm_load_ps((const float*)box + r * 4);
}

/// Lanes at or above count start out "separated".
static inline uint32_t invalid16(int count)
{
	return ~((1u << count) - 1u) & 0xFFFFu;
}

// ---- width 16 ----

KL_AVX512 void realign16(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows, bool fp16)
{
	const void* box = kl_bvh_node_box(a, node);
	_Alignas(64) float conv[2 * KL_KDOP_MAX_AXES * 16];
	const float* src = (const float*)box;
	if (fp16)
	{
		for (int r = 0; r < 2 * a->axes; ++r)
		{
			_mm512_store_ps(conv + r * 16, row16(box, r, true));
		}
		src = conv;
	}
	for (int r = 0; r < 2 * plan->axes_out; ++r)
	{
		const int16_t* row = plan->row[r];
		const float* coef = plan->coef[r];
		__m512 s0 = _mm512_mul_ps(_mm512_set1_ps(coef[0]), _mm512_load_ps(src + row[0] * 16));
		__m512 s1 = _mm512_mul_ps(_mm512_set1_ps(coef[1]), _mm512_load_ps(src + row[1] * 16));
		__m512 s2 = _mm512_mul_ps(_mm512_set1_ps(coef[2]), _mm512_load_ps(src + row[2] * 16));
		__m512 v = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), s2), _mm512_set1_ps(plan->c[r]));
		_mm512_store_ps(rows + r * 16, v);
	}
}

KL_AVX512 uint32_t one_vs_16(const float* lo, const float* hi, int stride, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	__mmask16 sep = (__mmask16)invalid16(kl_bvh_node_count(b, node));
	for (int i = 0; i < A; ++i)
	{
		__mmask16 lt = _mm512_cmp_ps_mask(_mm512_set1_ps(hi[i * stride]), row16(box, i, fp16), _CMP_LT_OQ);
		__mmask16 gt = _mm512_cmp_ps_mask(_mm512_set1_ps(lo[i * stride]), row16(box, A + i, fp16), _CMP_GT_OQ);
		sep = (__mmask16)(sep | lt | gt);
		if (sep == 0xFFFF)
		{
			return 0;
		}
	}
	return (uint32_t)(~sep) & 0xFFFFu;
}

KL_AVX512K uint32_t n16_vs_one(const float* rows, int count, int width, int axes, const float* blo, const float* bhi)
{
	(void)width;
	__mmask16 sep = (__mmask16)invalid16(count);
	for (int i = 0; i < axes; ++i)
	{
		__mmask16 lt = _mm512_cmp_ps_mask(_mm512_load_ps(rows + (axes + i) * 16), _mm512_set1_ps(blo[i]), _CMP_LT_OQ);
		__mmask16 gt = _mm512_cmp_ps_mask(_mm512_load_ps(rows + i * 16), _mm512_set1_ps(bhi[i]), _CMP_GT_OQ);
		sep = (__mmask16)(sep | lt | gt);
		if (sep == 0xFFFF)
		{
			return 0;
		}
	}
	return (uint32_t)(~sep) & 0xFFFFu;
}

KL_AVX512 uint32_t nodes_1v16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint32_t any = 0;
	int A = b->axes;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = one_vs_16(rows + i, rows + A * 16 + i, 16, b, node, fp16);
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_AVX512K uint32_t nodes_1v16_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1v16(rows, count, b, node, masks, false);
}

KL_AVX512K uint32_t nodes_1v16_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1v16(rows, count, b, node, masks, true);
}

KL_AVX512K void realign16_f32(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign16(a, node, plan, rows, false);
}

KL_AVX512K void realign16_f16(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign16(a, node, plan, rows, true);
}

KL_AVX512K uint32_t one_vs_16_f32(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_16(lo, hi, stride, b, node, false);
}

KL_AVX512K uint32_t one_vs_16_f16(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_16(lo, hi, stride, b, node, true);
}

// ---- width 4: the 4×4 pairs in one register (lane 4·i + j: child i of A, child j of B) ----

KL_AVX512 uint64_t n_vs_4x4(const float* rows, int count, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	const __m512i spread = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
	uint32_t valid_b = (1u << kl_bvh_node_count(b, node)) - 1u;
	uint32_t valid = 0;
	for (int i = 0; i < count; ++i)
	{
		valid |= valid_b << (4 * i);
	}
	__mmask16 sep = (__mmask16)(~valid & 0xFFFFu);
	for (int s = 0; s < A; ++s)
	{
		__m512 blo = _mm512_broadcast_f32x4(row4(box, s, fp16));
		__m512 bhi = _mm512_broadcast_f32x4(row4(box, A + s, fp16));
		__m512 alo = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_load_ps(rows + s * 4)));
		__m512 ahi = _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_load_ps(rows + (A + s) * 4)));
		__mmask16 lt = _mm512_cmp_ps_mask(ahi, blo, _CMP_LT_OQ);
		__mmask16 gt = _mm512_cmp_ps_mask(alo, bhi, _CMP_GT_OQ);
		sep = (__mmask16)(sep | lt | gt);
		if (sep == 0xFFFF)
		{
			return 0;
		}
	}
	return (uint64_t)((uint32_t)(~sep) & 0xFFFFu);
}

KL_AVX512 uint32_t nodes_4x4(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint64_t pairs = n_vs_4x4(rows, count, b, node, fp16);
	uint32_t any = 0;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = (uint32_t)(pairs >> (4 * i)) & 0xFu;
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_AVX512K uint32_t nodes_4x4_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_4x4(rows, count, b, node, masks, false);
}

KL_AVX512K uint32_t nodes_4x4_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_4x4(rows, count, b, node, masks, true);
}

static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static bool s_allowed;

/// AVX-512F on the CPU (with the OS saving its registers: __builtin_cpu_supports checks XCR0) and not
/// turned off by KOLLIDE_SIMD=avx2 or scalar.
static void detect(void)
{
	__builtin_cpu_init();
	const char* env = getenv("KOLLIDE_SIMD");
	bool capped = env != NULL && (strcmp(env, "avx2") == 0 || strcmp(env, "scalar") == 0);
	s_allowed = !capped && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
				__builtin_cpu_supports("fma") && kl_cpu_has_f16c();
}

bool kl_bvh_kernels_avx512(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	if (a->width != b->width || (a->width != 16 && a->width != 4))
	{
		return false;
	}
	pthread_once(&s_once, detect);
	if (!s_allowed)
	{
		return false;
	}
	if (a->width == 16)
	{
		k->realign_node = a->fp16 ? realign16_f16 : realign16_f32;
		k->one_vs_n = b->fp16 ? one_vs_16_f16 : one_vs_16_f32;
		k->n_vs_one = n16_vs_one;
		k->nodes_1vn = b->fp16 ? nodes_1v16_f16 : nodes_1v16_f32;
		k->nodes_nvn = NULL; // 16×16 pairs do not fit one register; the traversal runs 1-vs-16
	}
	else
	{
		k->nodes_nvn = b->fp16 ? nodes_4x4_f16 : nodes_4x4_f32;
	}
	k->simd = KL_BVH_SIMD_AVX512;
	return true;
}

#else

bool kl_bvh_kernels_avx512(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	(void)a;
	(void)b;
	(void)k;
	return false;
}

#endif
