// Kollide internal — the SIMD kernels of the SIMDop traversal (kl_bvh_kernels), written once over the
// register operations of bvh_simd_ops.h and compiled per instruction set and tree width:
// bvh_traverse_avx2.c (8 lanes in an __m256), bvh_traverse_avx2_w4.c (4 lanes in an __m128),
// bvh_traverse_avx512.c (16 in an __m512) and bvh_traverse_avx512_w4.c (4, the 4×4 pairs in one __m512).
// 1-vs-N tests one DOP against all children of a node: per slab one row of the children's minima and
// one of their maxima, two compares, early exit once every lane is separated. N-vs-N tests all child
// pairs of two nodes slab by slab in pair registers, each holding KL_PC children of a against all of
// b's (lane KL_BW·c + j: its child c against b's child j). No #pragma once: each includer first defines
//   KL_V(op)          the register set of a node's lanes: kl_f4_##op, kl_f8_##op or kl_f16_##op
//   KL_P(op)          optional, the register set of the N-vs-N pairs (without it, no nodes_nvn), with
//   p_tile p_spread   b's row repeated for each child of a in a pair register; a's values spread to it
//   KL_BVH_TARGET     the target attribute's string
//   KL_BVH_NAME(x)    the instantiation's name for x (x##_avx2_w8, ...)
//   KL_BVH_SIMD       its kl_bvh_simd
// Separation is a.max < b.min or a.min > b.max (seed §1.6 errata 1); realignment is mul then add in the
// scalar kernel's order, so the candidate sets equal the scalar traversal's bit for bit. Each kernel has
// a version for FP32 and one for binary16 slabs, so `fp16` is a constant inside it.
// SPDX-License-Identifier: MIT

#define KL_BF static inline __attribute__((always_inline, target(KL_BVH_TARGET)))
#define KL_BK static __attribute__((target(KL_BVH_TARGET)))

typedef KL_V(v) kl_v;
typedef KL_V(m) kl_m;

/// Lanes of a node (the tree width), and all of them as bits.
#define KL_BW ((int)KL_V(lanes))
#define KL_BW_ALL ((1u << KL_BW) - 1u)

/// Row r of a node's slabs.
KL_BF kl_v row(const void* box, int r, bool fp16)
{
	return fp16 ? KL_V(load_h)((const uint16_t*)box + r * KL_BW) : KL_V(load)((const float*)box + r * KL_BW);
}

/// sep, and the lanes where [alo, ahi] and [blo, bhi] are apart.
KL_BF kl_m apart(kl_m sep, kl_v alo, kl_v ahi, kl_v blo, kl_v bhi)
{
	return KL_V(or)(sep, KL_V(or)(KL_V(lt)(ahi, blo), KL_V(gt)(alo, bhi)));
}

KL_BF void realign(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows, bool fp16)
{
	const void* box = kl_bvh_node_box(a, node);
	_Alignas(4 * KL_BW) float conv[2 * KL_KDOP_MAX_AXES * KL_BW];
	const float* src = (const float*)box;
	if (fp16)
	{
		for (int r = 0; r < 2 * a->axes; ++r)
		{
			KL_V(store)(conv + r * KL_BW, row(box, r, true));
		}
		src = conv;
	}
	for (int r = 0; r < 2 * plan->axes_out; ++r)
	{
		const int16_t* src_rows = plan->row[r];
		const float* coef = plan->coef[r];
		kl_v s0 = KL_V(mul)(KL_V(set1)(coef[0]), KL_V(load)(src + src_rows[0] * KL_BW));
		kl_v s1 = KL_V(mul)(KL_V(set1)(coef[1]), KL_V(load)(src + src_rows[1] * KL_BW));
		kl_v s2 = KL_V(mul)(KL_V(set1)(coef[2]), KL_V(load)(src + src_rows[2] * KL_BW));
		kl_v v = KL_V(add)(KL_V(add)(KL_V(add)(s0, s1), s2), KL_V(set1)(plan->c[r]));
		KL_V(store)(rows + r * KL_BW, v);
	}
}

KL_BF uint32_t one_vs_n(const float* lo, const float* hi, int stride, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	kl_m sep = KL_V(from)(kl_bvh_node_count(b, node)); // empty lanes start out separated
	for (int i = 0; i < A; ++i)
	{
		sep = apart(sep, KL_V(set1)(lo[i * stride]), KL_V(set1)(hi[i * stride]), row(box, i, fp16),
					row(box, A + i, fp16));
		if (KL_V(all)(sep))
		{
			return 0;
		}
	}
	return ~KL_V(bits)(sep) & KL_BW_ALL;
}

KL_BK uint32_t n_vs_one(const float* rows, int count, int width, int axes, const float* blo, const float* bhi)
{
	(void)width;
	kl_m sep = KL_V(from)(count);
	for (int i = 0; i < axes; ++i)
	{
		sep = apart(sep, KL_V(load)(rows + i * KL_BW), KL_V(load)(rows + (axes + i) * KL_BW), KL_V(set1)(blo[i]),
					KL_V(set1)(bhi[i]));
		if (KL_V(all)(sep))
		{
			return 0;
		}
	}
	return ~KL_V(bits)(sep) & KL_BW_ALL;
}

/// One child of a against all of b's children per pass (one_vs_n), for every child of a.
KL_BF uint32_t nodes_1vn(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint32_t any = 0;
	int A = b->axes;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = one_vs_n(rows + i, rows + A * KL_BW + i, KL_BW, b, node, fp16);
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_BK void realign_f32(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign(a, node, plan, rows, false);
}

KL_BK void realign_f16(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	realign(a, node, plan, rows, true);
}

KL_BK uint32_t one_vs_n_f32(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_n(lo, hi, stride, b, node, false);
}

KL_BK uint32_t one_vs_n_f16(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	return one_vs_n(lo, hi, stride, b, node, true);
}

KL_BK uint32_t nodes_1vn_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1vn(rows, count, b, node, masks, false);
}

KL_BK uint32_t nodes_1vn_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_1vn(rows, count, b, node, masks, true);
}

#if defined(KL_P)

typedef KL_P(v) kl_pv;
typedef KL_P(m) kl_pm;

/// Children of a per pair register, and the pair registers all child pairs of two nodes take.
#define KL_PC ((int)KL_P(lanes) / KL_BW)
#define KL_PR (KL_BW / KL_PC)

/// sep, and the pairs of a pair register where a's children (values from alo, ahi on) and b's (blo,
/// bhi) are apart.
KL_BF kl_pm pairs_apart(kl_pm sep, const float* alo, const float* ahi, kl_pv blo, kl_pv bhi)
{
	return KL_P(or)(sep, KL_P(or)(KL_P(lt)(p_spread(ahi), blo), KL_P(gt)(p_spread(alo), bhi)));
}

/// Bit KL_BW·i + j: realigned child i (< count) of a overlaps child j of b's node.
KL_BF uint64_t n_vs_n(const float* rows, int count, const kl_bvh* b, int node, bool fp16)
{
	const void* box = kl_bvh_node_box(b, node);
	int A = b->axes;
	// One child per register: as many as a has children; else all registers, a fixed count.
	int regs = KL_PC == 1 ? count : KL_PR;
	// Pairs whose child of a or of b is missing start out separated.
	uint32_t lanes_b = (1u << kl_bvh_node_count(b, node)) - 1u;
	uint32_t pairs = 0; // the pairs of a register that holds KL_PC children of a
	for (int c = 0; c < KL_PC; ++c)
	{
		pairs |= lanes_b << (c * KL_BW);
	}
	const kl_pm whole = KL_P(from_bits)(~pairs);
	kl_pm sep[KL_PR];
	for (int g = 0; g < KL_PR; ++g)
	{
		int have = count - g * KL_PC; // children of a in register g
		sep[g] = have >= KL_PC ? whole : KL_P(from_bits)(~(have > 0 ? pairs & ((1u << (have * KL_BW)) - 1u) : 0u));
	}
	for (int s = 0; s < A; ++s)
	{
		kl_pv blo = p_tile(row(box, s, fp16));
		kl_pv bhi = p_tile(row(box, A + s, fp16));
		const float* alo = rows + s * KL_BW;
		const float* ahi = rows + (A + s) * KL_BW;
		sep[0] = pairs_apart(sep[0], alo, ahi, blo, bhi);
		kl_pm all = sep[0];
		for (int g = 1; g < regs; ++g)
		{
			sep[g] = pairs_apart(sep[g], alo + g * KL_PC, ahi + g * KL_PC, blo, bhi);
			all = KL_P(and)(all, sep[g]);
		}
		if (KL_P(all)(all))
		{
			return 0;
		}
	}
	uint64_t mask = 0;
	for (int g = 0; g < regs; ++g)
	{
		uint32_t overlap = ~KL_P(bits)(sep[g]) & ((1u << KL_P(lanes)) - 1u);
		mask |= (uint64_t)overlap << (KL_P(lanes) * g);
	}
	return mask;
}

/// n_vs_n's pair mask split into per-child masks.
KL_BF uint32_t nodes_nvn(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks, bool fp16)
{
	uint64_t pairs = n_vs_n(rows, count, b, node, fp16);
	uint32_t any = 0;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = (uint32_t)(pairs >> (KL_BW * i)) & KL_BW_ALL;
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

KL_BK uint32_t nodes_nvn_f32(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_nvn(rows, count, b, node, masks, false);
}

KL_BK uint32_t nodes_nvn_f16(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks)
{
	return nodes_nvn(rows, count, b, node, masks, true);
}

#endif

void KL_BVH_NAME(kl_bvh_kernels)(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	k->realign_node = a->fp16 ? realign_f16 : realign_f32;
	k->one_vs_n = b->fp16 ? one_vs_n_f16 : one_vs_n_f32;
	k->n_vs_one = n_vs_one;
	k->nodes_1vn = b->fp16 ? nodes_1vn_f16 : nodes_1vn_f32;
#if defined(KL_P)
	k->nodes_nvn = b->fp16 ? nodes_nvn_f16 : nodes_nvn_f32;
#else
	k->nodes_nvn = NULL; // the pairs of two 16-ary nodes take 16 registers; the traversal runs 1-vs-16
#endif
	k->simd = KL_BVH_SIMD;
}
