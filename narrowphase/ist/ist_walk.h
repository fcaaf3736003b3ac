// Kollide internal — the simultaneous descent of two inner-sphere trees (kl_ist_walk_*), written once
// over a register set and compiled per instruction set and width: ist_walk_scalar.c (one lane at a
// time, the reference), ist_walk_avx2_w4.c (a node's 4 lanes in an __m128), ist_walk_avx2_w16.c (16
// lanes as two __m256) and ist_walk_avx512_w16.c (16 in one __m512). A visit of two nodes moves a's
// child spheres into b's frame (one transform per node, all lanes at once) and tests each of them
// against all of b's children in one pass: 3 subtractions, 3 multiplications and adds, one compare per
// register. The overlapping sphere pairs are gathered in batches whose lens volumes, normals and moments
// are computed a register of pairs at a time. Only the register width differs between the
// instantiations, so every walk finds the same pairs in the same order and computes the same floats. No #pragma once:
// each includer first defines
//   KL_V(op)        the register set: kl_f1_##op (a float), kl_f4_##op, kl_f8_##op or kl_f16_##op
//   KL_IST_W        the trees' width (4 or 16; a multiple of the register's lanes)
//   KL_IST_FN       the attributes of the walk's helpers (inline, with the target where there is one)
//   KL_IST_NAME     the walk's name (kl_ist_walk_avx2_w4, ...)
// and, for width 4, may define
//   KL_IST_PAIR_MASK(moved, radius, node_b)  all 4×4 lane pairs of two nodes in one go: bit 4i + j when
//                   a's moved lane i overlaps b's lane j, computed as the per-lane passes do
// SPDX-License-Identifier: MIT

typedef KL_V(v) kl_v;

#define KL_L ((int)KL_V(lanes))

/// Bits of b's lanes (count in use) that overlap the sphere (x, y, z, r) given in b's frame:
/// |c − x|² < (r_lane + r)².
KL_IST_FN uint32_t one_vs_n(const float* node, int count, float x, float y, float z, float r)
{
	kl_v nx = KL_V(set1)(-x);
	kl_v ny = KL_V(set1)(-y);
	kl_v nz = KL_V(set1)(-z);
	kl_v rr = KL_V(set1)(r);
	uint32_t bits = 0;
	for (int o = 0; o < count; o += KL_L)
	{
		kl_v dx = KL_V(add)(KL_V(load)(node + o), nx);
		kl_v dy = KL_V(add)(KL_V(load)(node + KL_IST_W + o), ny);
		kl_v dz = KL_V(add)(KL_V(load)(node + 2 * KL_IST_W + o), nz);
		kl_v rs = KL_V(add)(KL_V(load)(node + 3 * KL_IST_W + o), rr);
		kl_v d2 = KL_V(add)(KL_V(add)(KL_V(mul)(dx, dx), KL_V(mul)(dy, dy)), KL_V(mul)(dz, dz));
		bits |= KL_V(bits)(KL_V(lt)(d2, KL_V(mul)(rs, rs))) << o;
	}
	return bits & ((1u << count) - 1u);
}

/// a's lanes (count in use) moved into b's frame: moved = cx', cy', cz' rows of KL_IST_W floats.
KL_IST_FN void move_lanes(const float* node, int count, const float* m, float* moved)
{
	for (int o = 0; o < count; o += KL_L)
	{
		kl_v x = KL_V(load)(node + o);
		kl_v y = KL_V(load)(node + KL_IST_W + o);
		kl_v z = KL_V(load)(node + 2 * KL_IST_W + o);
		for (int r = 0; r < 3; ++r)
		{
			kl_v v = KL_V(add)(KL_V(mul)(KL_V(set1)(m[3 * r]), x), KL_V(mul)(KL_V(set1)(m[3 * r + 1]), y));
			v = KL_V(add)(KL_V(add)(v, KL_V(mul)(KL_V(set1)(m[3 * r + 2]), z)), KL_V(set1)(m[9 + r]));
			KL_V(store)(moved + r * KL_IST_W + o, v);
		}
	}
}

/// Bits of a's moved lanes that overlap b's sphere s.
KL_IST_FN uint32_t n_vs_one(const float* moved, const float* radius, int count, const kl_sphere* s)
{
	kl_v nx = KL_V(set1)(-s->center.x);
	kl_v ny = KL_V(set1)(-s->center.y);
	kl_v nz = KL_V(set1)(-s->center.z);
	kl_v rr = KL_V(set1)(s->radius);
	uint32_t bits = 0;
	for (int o = 0; o < count; o += KL_L)
	{
		kl_v dx = KL_V(add)(KL_V(load)(moved + o), nx);
		kl_v dy = KL_V(add)(KL_V(load)(moved + KL_IST_W + o), ny);
		kl_v dz = KL_V(add)(KL_V(load)(moved + 2 * KL_IST_W + o), nz);
		kl_v rs = KL_V(add)(KL_V(load)(radius + o), rr);
		kl_v d2 = KL_V(add)(KL_V(add)(KL_V(mul)(dx, dx), KL_V(mul)(dy, dy)), KL_V(mul)(dz, dz));
		bits |= KL_V(bits)(KL_V(lt)(d2, KL_V(mul)(rs, rs))) << o;
	}
	return bits & ((1u << count) - 1u);
}

/// Lens volume, depth, normal, lens centre, V·n and its moment of each pair in the batch (ist.h):
/// V = π (s − d)² (d² + 2ds − 3t²) / (12d) with s = ra + rb, t = ra − rb; the smaller sphere's volume
/// when it lies inside the other (d ≤ |t|). The lens centre is the middle of the lens's extent along the
/// centre line, [max(d − ra, −rb), min(d + ra, rb)] from b's centre.
KL_IST_FN void lens_batch(kl_ist_batch* bt)
{
	const kl_v zero = KL_V(set1)(0.0f);
	const kl_v half = KL_V(set1)(0.5f);
	const kl_v two = KL_V(set1)(2.0f);
	const kl_v three = KL_V(set1)(3.0f);
	const kl_v pi_12 = KL_V(set1)((float)(GLM_PI / 12.0));
	const kl_v ball = KL_V(set1)((float)(4.0 / 3.0 * GLM_PI));
	const kl_v tiny = KL_V(set1)(1e-30f);
	for (int o = 0; o < bt->count; o += KL_L)
	{
		kl_v ra = KL_V(load)(bt->ra + o);
		kl_v rb = KL_V(load)(bt->rb + o);
		kl_v bc[3] = {KL_V(load)(bt->bx + o), KL_V(load)(bt->by + o), KL_V(load)(bt->bz + o)};
		kl_v dx = KL_V(sub)(KL_V(load)(bt->ax + o), bc[0]);
		kl_v dy = KL_V(sub)(KL_V(load)(bt->ay + o), bc[1]);
		kl_v dz = KL_V(sub)(KL_V(load)(bt->az + o), bc[2]);
		kl_v d2 = KL_V(add)(KL_V(add)(KL_V(mul)(dx, dx), KL_V(mul)(dy, dy)), KL_V(mul)(dz, dz));
		kl_v d = KL_V(sqrt)(d2);
		kl_v safe = KL_V(max)(d, tiny);
		kl_v s = KL_V(add)(ra, rb);
		kl_v t = KL_V(sub)(ra, rb);
		kl_v e = KL_V(max)(KL_V(sub)(s, d), zero);
		kl_v poly = KL_V(sub)(KL_V(add)(d2, KL_V(mul)(KL_V(mul)(two, d), s)), KL_V(mul)(three, KL_V(mul)(t, t)));
		kl_v lens = KL_V(div)(KL_V(mul)(KL_V(mul)(pi_12, KL_V(mul)(e, e)), poly), safe);
		kl_v small = KL_V(min)(ra, rb);
		kl_v inside = KL_V(mul)(ball, KL_V(mul)(small, KL_V(mul)(small, small)));
		kl_v v = KL_V(sel)(KL_V(le)(d, KL_V(max)(t, KL_V(sub)(zero, t))), inside, lens);
		kl_v inv = KL_V(div)(KL_V(set1)(1.0f), safe);
		kl_v n[3] = {KL_V(mul)(dx, inv), KL_V(mul)(dy, inv), KL_V(mul)(dz, inv)};
		kl_v lo = KL_V(max)(KL_V(sub)(d, ra), KL_V(sub)(zero, rb));
		kl_v hi = KL_V(min)(KL_V(add)(d, ra), rb);
		kl_v along = KL_V(mul)(half, KL_V(add)(lo, hi));
		kl_v p[3];
		kl_v f[3];
		for (int c = 0; c < 3; ++c)
		{
			p[c] = KL_V(add)(bc[c], KL_V(mul)(n[c], along));
			f[c] = KL_V(mul)(v, n[c]);
			KL_V(store)(bt->n[c] + o, n[c]);
			KL_V(store)(bt->p[c] + o, p[c]);
			KL_V(store)(bt->f[c] + o, f[c]);
		}
		KL_V(store)(bt->m[0] + o, KL_V(sub)(KL_V(mul)(p[1], f[2]), KL_V(mul)(p[2], f[1])));
		KL_V(store)(bt->m[1] + o, KL_V(sub)(KL_V(mul)(p[2], f[0]), KL_V(mul)(p[0], f[2])));
		KL_V(store)(bt->m[2] + o, KL_V(sub)(KL_V(mul)(p[0], f[1]), KL_V(mul)(p[1], f[0])));
		KL_V(store)(bt->volume + o, v);
		KL_V(store)(bt->depth + o, KL_V(mul)(half, e));
	}
}

KL_IST_FN void flush(kl_ist_walk* w)
{
	lens_batch(&w->batch);
	kl_ist_accumulate(w);
}

/// An overlapping pair of child codes: two inner spheres join the batch, anything else is opened later.
/// a's sphere is (x, y, z) in b's frame with radius ra; b's is lane j of the rows at nb (a sphere in a
/// lane is a copy of the input sphere, so the batch reads it there rather than in the sphere array).
KL_IST_FN void found(kl_ist_walk* w, int32_t ca, int32_t cb, float x, float y, float z, float ra, const float* nb,
					 int j)
{
	if (ca < 0 && cb < 0)
	{
		kl_ist_batch* bt = &w->batch;
		int k = bt->count;
		bt->ax[k] = x;
		bt->ay[k] = y;
		bt->az[k] = z;
		bt->bx[k] = nb[j];
		bt->by[k] = nb[KL_IST_W + j];
		bt->bz[k] = nb[2 * KL_IST_W + j];
		bt->ra[k] = ra;
		bt->rb[k] = nb[3 * KL_IST_W + j];
		bt->sphere_a[k] = -1 - ca;
		bt->sphere_b[k] = -1 - cb;
		bt->count = k + 1;
		if (bt->count == KL_IST_BATCH)
		{
			flush(w);
		}
		return;
	}
	if (w->stack_count == w->stack_capacity && !kl_ist_reserve(w, 1))
	{
		return;
	}
	if (ca >= 0 && cb < 0)
	{
		w->stack[w->stack_count++] =
			(kl_ist_item){ca, cb, nb[j], nb[KL_IST_W + j], nb[2 * KL_IST_W + j], nb[3 * KL_IST_W + j]};
		return;
	}
	w->stack[w->stack_count++] = (kl_ist_item){ca, cb, x, y, z, ra};
}

/// Two nodes: lanes of either that miss the other's bounding sphere miss every sphere below it (one
/// pass each side); then each live lane of the side with fewer live lanes against all of the other's
/// in one pass.
KL_IST_FN void visit_nodes(kl_ist_walk* w, kl_ist_item it, const float* moved)
{
	const kl_sphere_tree* a = w->a;
	const kl_sphere_tree* b = w->b;
	const float* na = kl_ist_node(a, it.a);
	const float* nb = kl_ist_node(b, it.b);
	const int32_t* child_a = a->child + (size_t)it.a * KL_IST_W;
	const int32_t* child_b = b->child + (size_t)it.b * KL_IST_W;
	int ca = a->count[it.a];
	int cb = b->count[it.b];
	uint32_t live_a = n_vs_one(moved, na + 3 * KL_IST_W, ca, &b->node_bound[it.b]);
	uint32_t live_b = one_vs_n(nb, cb, it.x, it.y, it.z, it.r);
	int count_a = kl_ist_bit_count(live_a);
	int count_b = kl_ist_bit_count(live_b);
	w->sphere_tests += ca + cb;
#if defined(KL_IST_PAIR_MASK)
	uint32_t pairs = KL_IST_PAIR_MASK(moved, na + 3 * KL_IST_W, nb);
#endif
	if (count_a <= count_b)
	{
		w->sphere_tests += (int64_t)count_a * cb;
		for (; live_a != 0; live_a &= live_a - 1)
		{
			int i = __builtin_ctz(live_a);
			float x = moved[i];
			float y = moved[KL_IST_W + i];
			float z = moved[2 * KL_IST_W + i];
#if defined(KL_IST_PAIR_MASK)
			uint32_t mask = (pairs >> (4 * i)) & live_b;
#else
			uint32_t mask = one_vs_n(nb, cb, x, y, z, na[3 * KL_IST_W + i]) & live_b;
#endif
			for (; mask != 0; mask &= mask - 1)
			{
				int j = __builtin_ctz(mask);
				found(w, child_a[i], child_b[j], x, y, z, na[3 * KL_IST_W + i], nb, j);
			}
		}
		return;
	}
	w->sphere_tests += (int64_t)count_b * ca;
	for (; live_b != 0; live_b &= live_b - 1)
	{
		int j = __builtin_ctz(live_b);
#if defined(KL_IST_PAIR_MASK)
		uint32_t column = (pairs >> j) & 0x1111u; // bit 4i: a's lane i against b's lane j
		uint32_t mask = (column | column >> 3 | column >> 6 | column >> 9) & 0xFu & live_a;
#else
		kl_sphere lane = {{{nb[j], nb[KL_IST_W + j], nb[2 * KL_IST_W + j]}}, nb[3 * KL_IST_W + j]};
		uint32_t mask = n_vs_one(moved, na + 3 * KL_IST_W, ca, &lane) & live_a;
#endif
		for (; mask != 0; mask &= mask - 1)
		{
			int i = __builtin_ctz(mask);
			found(w, child_a[i], child_b[j], moved[i], moved[KL_IST_W + i], moved[2 * KL_IST_W + i],
				  na[3 * KL_IST_W + i], nb, j);
		}
	}
}

KL_IST_FN void visit_node_sphere(kl_ist_walk* w, kl_ist_item it, const float* moved)
{
	const kl_sphere_tree* a = w->a;
	const float* na = kl_ist_node(a, it.a);
	const int32_t* child_a = a->child + (size_t)it.a * KL_IST_W;
	int ca = a->count[it.a];
	w->sphere_tests += ca;
	kl_sphere sb = {{{it.x, it.y, it.z}}, it.r};
	uint32_t mask = n_vs_one(moved, na + 3 * KL_IST_W, ca, &sb);
	// b's sphere as lane 0 of one-column rows, as found() reads lanes.
	float lane[4 * KL_IST_W];
	lane[0] = it.x;
	lane[KL_IST_W] = it.y;
	lane[2 * KL_IST_W] = it.z;
	lane[3 * KL_IST_W] = it.r;
	for (; mask != 0; mask &= mask - 1)
	{
		int i = __builtin_ctz(mask);
		found(w, child_a[i], it.b, moved[i], moved[KL_IST_W + i], moved[2 * KL_IST_W + i], na[3 * KL_IST_W + i], lane,
			  0);
	}
}

KL_IST_FN void visit_sphere_node(kl_ist_walk* w, kl_ist_item it)
{
	const kl_sphere_tree* b = w->b;
	const int32_t* child_b = b->child + (size_t)it.b * KL_IST_W;
	int cb = b->count[it.b];
	w->sphere_tests += cb;
	const float* nb = kl_ist_node(b, it.b);
	float ra = it.r;
	uint32_t mask = one_vs_n(nb, cb, it.x, it.y, it.z, ra);
	for (; mask != 0; mask &= mask - 1)
	{
		int j = __builtin_ctz(mask);
		found(w, it.a, child_b[j], it.x, it.y, it.z, ra, nb, j);
	}
}

KL_IST_NAME_ATTR void KL_IST_NAME(kl_ist_walk* w)
{
	_Alignas(64) float moved[3 * KL_IST_W];
	while (w->stack_count > 0 && !w->failed && (w->budget == 0 || w->node_visits < w->budget))
	{
		kl_ist_item it = w->stack[--w->stack_count];
		w->node_visits += 1;
		if (it.a >= 0)
		{
			move_lanes(kl_ist_node(w->a, it.a), w->a->count[it.a], w->m, moved);
			if (it.b >= 0)
			{
				visit_nodes(w, it, moved);
			}
			else
			{
				visit_node_sphere(w, it, moved);
			}
		}
		else
		{
			visit_sphere_node(w, it);
		}
	}
	flush(w);
}

#undef KL_L
