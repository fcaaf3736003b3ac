// Kollide — simultaneous traversal of two SIMDop trees (seed Alg. 1 with an explicit stack): node pairs
// whose DOPs overlap descend into all child pairs; a leaf meeting a subtree descends that subtree alone.
// Tree A's DOPs are realigned into B's frame per visited node (kl_kdop_plan); B's stay as stored. The
// scalar kernels here are the reference; bvh_traverse_avx2.c has the 1-vs-N and N-vs-N SIMD kernels.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#include "core.h"
#include "simd.h"

#include <math.h>
#include <string.h>

static float load_value(const kl_bvh* t, const void* box, int index)
{
	return t->fp16 ? kl_half_to_float(((const uint16_t*)box)[index]) : ((const float*)box)[index];
}

static void scalar_realign_node(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows)
{
	int W = a->width;
	int count = kl_bvh_node_count(a, node);
	const void* box = kl_bvh_node_box(a, node);
	for (int r = 0; r < 2 * plan->axes_out; ++r)
	{
		const int16_t* row = plan->row[r];
		const float* coef = plan->coef[r];
		for (int lane = 0; lane < count; ++lane)
		{
			float s0 = load_value(a, box, row[0] * W + lane);
			float s1 = load_value(a, box, row[1] * W + lane);
			float s2 = load_value(a, box, row[2] * W + lane);
			rows[r * W + lane] = ((coef[0] * s0 + coef[1] * s1) + coef[2] * s2) + plan->c[r];
		}
	}
}

static uint32_t scalar_one_vs_n(const float* lo, const float* hi, int stride, const kl_bvh* b, int node)
{
	int W = b->width;
	int A = b->axes;
	int count = kl_bvh_node_count(b, node);
	const void* box = kl_bvh_node_box(b, node);
	uint32_t mask = 0;
	for (int j = 0; j < count; ++j)
	{
		bool overlap = true;
		for (int i = 0; i < A && overlap; ++i)
		{
			overlap = !(hi[i * stride] < load_value(b, box, i * W + j) || lo[i * stride] > load_value(b, box, (A + i) * W + j));
		}
		mask |= overlap ? 1u << j : 0u;
	}
	return mask;
}

static uint32_t scalar_n_vs_one(const float* rows, int count, int width, int axes, const float* blo, const float* bhi)
{
	uint32_t mask = 0;
	for (int lane = 0; lane < count; ++lane)
	{
		bool overlap = true;
		for (int i = 0; i < axes && overlap; ++i)
		{
			overlap = !(rows[(axes + i) * width + lane] < blo[i] || rows[i * width + lane] > bhi[i]);
		}
		mask |= overlap ? 1u << lane : 0u;
	}
	return mask;
}

static uint64_t scalar_n_vs_n(const float* rows, int count, int width, const kl_bvh* b, int node)
{
	uint64_t mask = 0;
	int A = b->axes;
	for (int i = 0; i < count; ++i)
	{
		uint64_t m = scalar_one_vs_n(rows + i, rows + A * width + i, width, b, node);
		mask |= m << (i * b->width);
	}
	return mask;
}

static const kl_bvh_kernels s_scalar = {scalar_realign_node, scalar_one_vs_n, scalar_n_vs_one, scalar_n_vs_n};

/// A growable stack of int32 values with a local first buffer.
typedef struct kl_bvh_stack
{
	int32_t* data;
	int count;
	int capacity;
	bool failed;
	int32_t local[1024];
} kl_bvh_stack;

static void stack_init(kl_bvh_stack* s)
{
	s->data = s->local;
	s->count = 0;
	s->capacity = (int)(sizeof(s->local) / sizeof(s->local[0]));
	s->failed = false;
}

static void stack_free(kl_bvh_stack* s)
{
	if (s->data != s->local)
	{
		kl_free(s->data);
	}
}

static bool stack_push(kl_bvh_stack* s, int32_t v)
{
	if (s->count == s->capacity)
	{
		int cap = s->capacity * 2;
		int32_t* d = kl_alloc((size_t)cap, sizeof(int32_t));
		if (d == NULL)
		{
			s->failed = true;
			return false;
		}
		memcpy(d, s->data, (size_t)s->count * sizeof(int32_t));
		stack_free(s);
		s->data = d;
		s->capacity = cap;
	}
	s->data[s->count++] = v;
	return true;
}

typedef struct kl_bvh_trav
{
	const kl_bvh* a;
	const kl_bvh* b;
	const kl_kdop_plan* plan;
	const kl_bvh_query* q;
	kl_bvh_result* r;
	kl_bvh_kernels k;
	bool nvn;
	bool stop;
	bool failed;
} kl_bvh_trav;

/// A leaf pair with overlapping DOPs: asks the leaf test, records the pair; true when traversal must stop.
static bool leaf_pair(kl_bvh_trav* tv, int tri_a, int tri_b)
{
	tv->r->counters.leaf_tests += 1;
	if (tv->q->leaf_test != NULL && !tv->q->leaf_test(tri_a, tri_b, tv->q->ctx))
	{
		return false;
	}
	kl_bvh_result* r = tv->r;
	r->hit = true;
	if (r->pair_count < tv->q->pair_capacity)
	{
		tv->q->pairs[r->pair_count].tri_a = tri_a;
		tv->q->pairs[r->pair_count].tri_b = tri_b;
	}
	else
	{
		r->truncated = true;
	}
	r->pair_count += 1;
	if (tv->q->mode == KL_BVH_FIRST_HIT)
	{
		tv->stop = true;
	}
	return tv->stop;
}

/// One (already realigned) leaf DOP of A against B's subtree under node nb.
static void dop_vs_b(kl_bvh_trav* tv, const float* lo, const float* hi, int stride, int tri_a, int nb)
{
	kl_bvh_stack st;
	stack_init(&st);
	stack_push(&st, nb);
	const kl_bvh* b = tv->b;
	while (st.count > 0 && !tv->stop)
	{
		int node = st.data[--st.count];
		tv->r->counters.bv_tests += kl_bvh_node_count(b, node);
		uint32_t mask = tv->k.one_vs_n(lo, hi, stride, b, node);
		const int32_t* child = kl_bvh_node_children(b, node);
		while (mask != 0 && !tv->stop)
		{
			int j = __builtin_ctz(mask);
			mask &= mask - 1;
			if (child[j] < 0)
			{
				leaf_pair(tv, tri_a, -1 - child[j]);
			}
			else if (!stack_push(&st, child[j]))
			{
				tv->failed = tv->stop = true;
			}
		}
	}
	stack_free(&st);
}

/// A's subtree under node na against one leaf DOP of B (in B's stored convention).
static void a_vs_dop(kl_bvh_trav* tv, int na, const float* blo, const float* bhi, int tri_b)
{
	_Alignas(64) float rows[2 * KL_KDOP_MAX_AXES * 8];
	kl_bvh_stack st;
	stack_init(&st);
	stack_push(&st, na);
	const kl_bvh* a = tv->a;
	while (st.count > 0 && !tv->stop)
	{
		int node = st.data[--st.count];
		int count = kl_bvh_node_count(a, node);
		tv->k.realign_node(a, node, tv->plan, rows);
		tv->r->counters.realigns += 1;
		tv->r->counters.bv_tests += count;
		uint32_t mask = tv->k.n_vs_one(rows, count, a->width, tv->b->axes, blo, bhi);
		const int32_t* child = kl_bvh_node_children(a, node);
		while (mask != 0 && !tv->stop)
		{
			int i = __builtin_ctz(mask);
			mask &= mask - 1;
			if (child[i] < 0)
			{
				leaf_pair(tv, -1 - child[i], tri_b);
			}
			else if (!stack_push(&st, child[i]))
			{
				tv->failed = tv->stop = true;
			}
		}
	}
	stack_free(&st);
}

/// Child pair (i of na, j of nb) whose DOPs overlap.
static void child_pair(kl_bvh_trav* tv, kl_bvh_stack* st, const float* rows, int na, int i, int nb, int j)
{
	int32_t ca = kl_bvh_node_children(tv->a, na)[i];
	int32_t cb = kl_bvh_node_children(tv->b, nb)[j];
	int Wa = tv->a->width;
	int Ab = tv->b->axes;
	if (ca < 0 && cb < 0)
	{
		leaf_pair(tv, -1 - ca, -1 - cb);
	}
	else if (ca < 0)
	{
		dop_vs_b(tv, rows + i, rows + Ab * Wa + i, Wa, -1 - ca, cb);
	}
	else if (cb < 0)
	{
		float blo[KL_KDOP_MAX_AXES], bhi[KL_KDOP_MAX_AXES];
		const kl_bvh* b = tv->b;
		const void* box = kl_bvh_node_box(b, nb);
		for (int q = 0; q < Ab; ++q)
		{
			blo[q] = load_value(b, box, q * b->width + j);
			bhi[q] = load_value(b, box, (Ab + q) * b->width + j);
		}
		a_vs_dop(tv, ca, blo, bhi, -1 - cb);
	}
	else if (!stack_push(st, ca) || !stack_push(st, cb))
	{
		tv->failed = tv->stop = true;
	}
}

static void traverse(kl_bvh_trav* tv)
{
	const kl_bvh* a = tv->a;
	const kl_bvh* b = tv->b;
	// Roots first: A's root DOP realigned against B's.
	float lo[KL_KDOP_MAX_AXES], hi[KL_KDOP_MAX_AXES];
	kl_kdop_realign(tv->plan, a->root_lo, a->root_hi, 1, lo, hi);
	tv->r->counters.bv_tests += 1;
	tv->r->counters.realigns += 1;
	if (!kl_kdop_overlap(b->axes, lo, hi, b->root_lo, b->root_hi))
	{
		return;
	}
	_Alignas(64) float rows[2 * KL_KDOP_MAX_AXES * 8];
	kl_bvh_stack st;
	stack_init(&st);
	stack_push(&st, 0);
	stack_push(&st, 0);
	int Wa = a->width;
	int Wb = b->width;
	int Ab = b->axes;
	while (st.count > 0 && !tv->stop)
	{
		int nb = st.data[--st.count];
		int na = st.data[--st.count];
		int ca = kl_bvh_node_count(a, na);
		int cb = kl_bvh_node_count(b, nb);
		tv->k.realign_node(a, na, tv->plan, rows);
		tv->r->counters.realigns += 1;
		tv->r->counters.bv_tests += (int64_t)ca * cb;
		if (tv->nvn)
		{
			uint64_t mask = tv->k.n_vs_n(rows, ca, Wa, b, nb);
			while (mask != 0 && !tv->stop)
			{
				int bit = __builtin_ctzll(mask);
				mask &= mask - 1;
				child_pair(tv, &st, rows, na, bit / Wb, nb, bit % Wb);
			}
			continue;
		}
		for (int i = 0; i < ca && !tv->stop; ++i)
		{
			uint32_t mask = tv->k.one_vs_n(rows + i, rows + Ab * Wa + i, Wa, b, nb);
			while (mask != 0 && !tv->stop)
			{
				int j = __builtin_ctz(mask);
				mask &= mask - 1;
				child_pair(tv, &st, rows, na, i, nb, j);
			}
		}
	}
	tv->failed = tv->failed || st.failed;
	stack_free(&st);
}

static bool simd_available(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	if (kl_simd_level_get() != KL_SIMD_AVX2 || a->width != b->width || a->width < 4)
	{
		return false;
	}
	return kl_bvh_kernels_avx2(a, b, k);
}

static kl_result validate_query(const kl_bvh* a, const kl_bvh* b, const kl_bvh_query* q, kl_bvh_result* r)
{
	if (a == NULL || b == NULL || q == NULL || r == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide: null argument");
	}
	if (!(q->margin >= 0.0f) || !isfinite(q->margin))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide: margin %g must be finite and >= 0", (double)q->margin);
	}
	if (q->pair_capacity < 0 || (q->pair_capacity > 0 && q->pairs == NULL))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide: pair capacity %d without a pair array",
					   q->pair_capacity);
	}
	if ((int)q->mode < 0 || q->mode > KL_BVH_ALL_PAIRS || (int)q->traversal < 0 || q->traversal > KL_BVH_TRAVERSE_NVN)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide: unknown mode or traversal");
	}
	return KL_OK;
}

/// Runs the query with A realigned by x_b = m·x_a + t.
static kl_result collide(const kl_bvh* a, const kl_bvh* b, const double m[3][3], const double t[3],
						 const kl_bvh_query* q, kl_bvh_result* r)
{
	kl_kdop_plan plan;
	kl_kdop_storage sa = {a->dirs, a->offset, a->stored_abs_max, a->point_radius};
	kl_kdop_storage sb = {b->dirs, b->offset, b->stored_abs_max, b->point_radius};
	kl_kdop_plan_make(&plan, &sa, &sb, m, t, q->margin);
	kl_bvh_trav tv = {0};
	tv.a = a;
	tv.b = b;
	tv.plan = &plan;
	tv.q = q;
	tv.r = r;
	tv.k = s_scalar;
	r->used = KL_BVH_TRAVERSE_SCALAR;
	if (q->traversal != KL_BVH_TRAVERSE_SCALAR && simd_available(a, b, &tv.k))
	{
		tv.nvn = q->traversal == KL_BVH_TRAVERSE_NVN;
		r->used = tv.nvn ? KL_BVH_TRAVERSE_NVN : KL_BVH_TRAVERSE_1VN;
	}
	traverse(&tv);
	if (tv.failed)
	{
		return kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_bvh_collide: traversal stack allocation failed");
	}
	return KL_OK;
}

static void clear_result(kl_bvh_result* r)
{
	if (r != NULL)
	{
		memset(r, 0, sizeof(*r));
	}
}

kl_result kl_bvh_collide(const kl_bvh* a, const kl_bvh* b, kl_transform b_in_a, const kl_bvh_query* query,
						 kl_bvh_result* result)
{
	clear_result(result);
	kl_result code = validate_query(a, b, query, result);
	if (code != KL_OK)
	{
		return code;
	}
	double qx = b_in_a.q.x, qy = b_in_a.q.y, qz = b_in_a.q.z, qw = b_in_a.q.w;
	double n2 = qx * qx + qy * qy + qz * qz + qw * qw;
	if (!kl_transform_is_finite(b_in_a) || !(n2 > 1e-12))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide: pose is not finite or has a zero quaternion");
	}
	double s = 1.0 / sqrt(n2);
	qx *= s, qy *= s, qz *= s, qw *= s;
	// R (x_a = R·x_b + p); A moves into B's frame by Rᵀ: m = Rᵀ, t = −Rᵀ·p.
	double R[3][3] = {
		{1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)},
		{2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)},
		{2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)},
	};
	double m[3][3], t[3];
	double p[3] = {b_in_a.p.x, b_in_a.p.y, b_in_a.p.z};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			m[i][j] = R[j][i];
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		t[i] = -(m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2]);
	}
	return collide(a, b, m, t, query, result);
}

kl_result kl_bvh_collide_m34(const kl_bvh* a, const kl_bvh* b, const float m34[12], const kl_bvh_query* query,
							 kl_bvh_result* result)
{
	clear_result(result);
	kl_result code = validate_query(a, b, query, result);
	if (code != KL_OK)
	{
		return code;
	}
	if (m34 == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide_m34: null matrix");
	}
	double M[3][3], p[3], scale = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			M[i][j] = m34[4 * i + j];
			scale = fmax(scale, fabs(M[i][j]));
		}
		p[i] = m34[4 * i + 3];
		if (!isfinite(p[i]) || !isfinite(M[i][0]) || !isfinite(M[i][1]) || !isfinite(M[i][2]))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide_m34: matrix is not finite");
		}
	}
	double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
				 M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
	if (!(fabs(det) > 1e-9 * scale * scale * scale))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_bvh_collide_m34: matrix is singular (det %g)", det);
	}
	double m[3][3], t[3];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
			m[i][j] = (M[i1][j1] * M[i2][j2] - M[i1][j2] * M[i2][j1]) / det;
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		t[i] = -(m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2]);
	}
	return collide(a, b, m, t, query, result);
}
