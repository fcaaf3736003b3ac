// Kollide — simultaneous traversal of two SIMDop trees (seed Alg. 1 with an explicit stack): node pairs
// whose DOPs overlap descend into all child pairs; a leaf meeting a subtree descends that subtree alone.
// Tree A's DOPs are realigned into B's frame per visited node (kl_kdop_plan); B's stay as stored. The
// SIMD traversals keep realigned nodes in a per-thread, direct-mapped cache for the rest of the query. The
// scalar kernels here are the reference; the SIMD ones are bvh_traverse_kernel.h, compiled per instruction
// set and width (bvh_traverse_avx2*.c, bvh_traverse_avx512*.c) and chosen here after a CPU check.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#include "core.h"
#include "simd.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
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

/// The scalar node-pair loop (the reference traversal): rows are [2·b.axes][width], width being a's.
static uint32_t scalar_nodes(const float* rows, int count, int width, const kl_bvh* b, int node, uint32_t* masks)
{
	uint32_t any = 0;
	int A = b->axes;
	for (int i = 0; i < count; ++i)
	{
		masks[i] = scalar_one_vs_n(rows + i, rows + A * width + i, width, b, node);
		any |= (masks[i] != 0 ? 1u : 0u) << i;
	}
	return any;
}

static const kl_bvh_kernels s_scalar = {scalar_realign_node, scalar_one_vs_n, scalar_n_vs_one, NULL, NULL,
										 KL_BVH_SIMD_NONE};

/// Floats of one node's realigned rows: [2·axes][width], at most 2·23·16.
#define KL_BVH_ROWS_MAX (2 * KL_KDOP_MAX_AXES * KL_BVH_MAX_WIDTH)
/// Bytes of realigned rows a thread keeps; the slot count is this over the rows of one node (a power of
/// two). Typical contact queries visit 10–60 distinct nodes of A, so 256 KiB rarely evicts one.
#define KL_BVH_CACHE_BYTES (256u * 1024u)
#define KL_BVH_CACHE_MAX_SLOTS 1024

/// Per-thread cache of A's nodes realigned into B's frame during one query. Direct-mapped on the node
/// index; an entry is valid when its stamp equals the query's, so a new query needs no clearing.
typedef struct kl_bvh_cache
{
	float* rows; ///< KL_BVH_CACHE_BYTES, 64-byte aligned
	uint32_t stamp;
	bool busy; ///< a query of this thread is using it (a nested query from a leaf test runs without)
	int32_t tag[KL_BVH_CACHE_MAX_SLOTS];
	uint32_t tag_stamp[KL_BVH_CACHE_MAX_SLOTS];
} kl_bvh_cache;

static pthread_key_t s_cache_key;
static pthread_once_t s_cache_once = PTHREAD_ONCE_INIT;
static bool s_cache_key_ok;
static _Thread_local kl_bvh_cache* t_cache;

static void cache_release(void* p)
{
	kl_bvh_cache* c = p;
	if (c != NULL)
	{
		free(c->rows);
		kl_free(c);
	}
	t_cache = NULL;
}

static void cache_key_init(void)
{
	s_cache_key_ok = pthread_key_create(&s_cache_key, cache_release) == 0;
}

/// This thread's cache (made on first use, freed when the thread exits), or NULL when unavailable.
static kl_bvh_cache* cache_acquire(void)
{
	kl_bvh_cache* c = t_cache;
	if (c == NULL)
	{
		pthread_once(&s_cache_once, cache_key_init);
		if (!s_cache_key_ok)
		{
			return NULL;
		}
		c = kl_alloc_zero(1, sizeof(kl_bvh_cache));
		float* rows = c != NULL ? aligned_alloc(64, KL_BVH_CACHE_BYTES) : NULL;
		if (rows == NULL || pthread_setspecific(s_cache_key, c) != 0)
		{
			free(rows);
			kl_free(c);
			return NULL;
		}
		c->rows = rows;
		t_cache = c;
	}
	if (c->busy)
	{
		return NULL;
	}
	c->busy = true;
	if (++c->stamp == 0)
	{
		memset(c->tag_stamp, 0, sizeof(c->tag_stamp));
		c->stamp = 1;
	}
	return c;
}

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

/// A rigid (or affine) map in float for the leaf pretest, x_dst = m·x_src + t.
typedef struct kl_bvh_move
{
	float m[3][3];
	float t[3];
} kl_bvh_move;

/// One side of the leaf pretest: the other triangle's unit normal n (in its own frame), pulled back into
/// this triangle's frame through the map x_other = m·x + t: projecting this triangle's vertices v onto n
/// after the move is w·v + c with w = mᵀn and c = n·t. Kept per triangle (consecutive pairs usually share
/// one), and the same inputs always give the same floats.
typedef struct kl_bvh_axis
{
	int tri; ///< the triangle whose normal this is, −1 none yet
	float w[3];
	float c;
} kl_bvh_axis;

typedef struct kl_bvh_trav
{
	const kl_bvh* a;
	const kl_bvh* b;
	const kl_kdop_plan* plan;
	const kl_bvh_query* q;
	kl_bvh_result* r;
	kl_bvh_kernels k;
	kl_bvh_move ab;		 ///< leaf pretest: x_b = m·x_a + t
	kl_bvh_move ba;		 ///< leaf pretest: x_a = m·x_b + t
	kl_bvh_axis axis_a;	 ///< A's normal pulled back into B's frame (the last one used)
	kl_bvh_axis axis_b;	 ///< B's normal pulled back into A's frame
	float allow_a;		 ///< slack along A's normals (A's frame)
	float allow_b;		 ///< slack along B's normals (B's frame)
	kl_bvh_cache* cache; ///< NULL: realign on every visit (the scalar reference)
	int slot_mask;		 ///< cache slots − 1
	size_t slot_floats;	 ///< floats per cache slot (a multiple of 16)
	int pinned;			 ///< the slot whose rows the main loop is using (never evicted meanwhile), or −1
	/// The node-pair kernel of the SIMD traversals (nodes_1vn or nodes_nvn); NULL: the scalar loop.
	uint32_t (*nodes)(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks);
	bool stop;
	bool failed;
} kl_bvh_trav;

/// Sets up the cache geometry for trees a and b (the cache is unused when a node's rows exceed it).
static void cache_setup(kl_bvh_trav* tv)
{
	size_t floats = (size_t)2 * tv->b->axes * (size_t)tv->a->width;
	floats = (floats + 15u) & ~(size_t)15u;
	size_t slots = KL_BVH_CACHE_BYTES / (floats * sizeof(float));
	int n = 1;
	while ((size_t)n * 2 <= slots && n * 2 <= KL_BVH_CACHE_MAX_SLOTS)
	{
		n *= 2;
	}
	tv->slot_floats = floats;
	tv->slot_mask = n - 1;
	tv->pinned = -1;
}

/// Node `node` of A realigned into B's frame: the cached rows when this query already made them, else
/// computed (into the node's cache slot unless that slot is pinned, then into `local`).
static const float* node_rows(kl_bvh_trav* tv, int node, float* local, int* slot_out)
{
	kl_bvh_cache* c = tv->cache;
	int slot = c != NULL ? (node & tv->slot_mask) : -1;
	if (slot_out != NULL)
	{
		*slot_out = -1;
	}
	if (c != NULL && c->tag[slot] == node && c->tag_stamp[slot] == c->stamp)
	{
		if (slot_out != NULL)
		{
			*slot_out = slot;
		}
		return c->rows + (size_t)slot * tv->slot_floats;
	}
	float* rows = local;
	if (c != NULL && slot != tv->pinned)
	{
		rows = c->rows + (size_t)slot * tv->slot_floats;
		c->tag[slot] = node;
		c->tag_stamp[slot] = c->stamp;
		if (slot_out != NULL)
		{
			*slot_out = slot;
		}
	}
	tv->k.realign_node(tv->a, node, tv->plan, rows);
	tv->r->counters.realigns += 1;
	return rows;
}

static void axis_make(kl_bvh_axis* ax, int tri, const float* n, const kl_bvh_move* mv)
{
	ax->tri = tri;
	for (int j = 0; j < 3; ++j)
	{
		ax->w[j] = (mv->m[0][j] * n[0] + mv->m[1][j] * n[1]) + mv->m[2][j] * n[2];
	}
	ax->c = (n[0] * mv->t[0] + n[1] * mv->t[1]) + n[2] * mv->t[2];
}

/// Whether the other triangle's vertices v (projected through ax) all lie in front of this triangle's
/// plane interval [rec[12], rec[13]] by more than allow. Only the front side: a triangle behind a face
/// (inside the solid) may be a penetration that the leaf test turns into a contact deeper than the
/// margin, so the pretest leaves those pairs to it.
static bool axis_apart(const kl_bvh_axis* ax, const float* v, const float* rec, float allow)
{
	float s0 = ((ax->w[0] * v[0] + ax->w[1] * v[1]) + ax->w[2] * v[2]) + ax->c;
	float s1 = ((ax->w[0] * v[3] + ax->w[1] * v[4]) + ax->w[2] * v[5]) + ax->c;
	float s2 = ((ax->w[0] * v[6] + ax->w[1] * v[7]) + ax->w[2] * v[8]) + ax->c;
	float hi = rec[13] + allow;
	return s0 > hi && s1 > hi && s2 > hi;
}

/// Leaf pretest: true when one triangle lies in front of the other's plane, farther than the margin (the
/// first two axes of a triangle SAT, one-sided, in float with a rounding slack, on the records the trees
/// keep; normals point out of the solid for meshes wound counter-clockwise seen from outside). Most leaf
/// pairs whose DOPs overlap at touching distance are near-parallel neighbours that one of the two planes
/// separates, so this removes most exact leaf tests for a few ns each. Plain float arithmetic in a fixed
/// order: every traversal gets the same answer.
static bool planes_apart(kl_bvh_trav* tv, int tri_a, int tri_b)
{
	const float* ta = tv->a->tri_verts + (size_t)KL_BVH_TRI_FLOATS * tri_a;
	const float* tb = tv->b->tri_verts + (size_t)KL_BVH_TRI_FLOATS * tri_b;
	if (tv->axis_a.tri != tri_a)
	{
		axis_make(&tv->axis_a, tri_a, ta + 9, &tv->ba); // A's normal, B's vertices: x_a = M·x_b + p
	}
	if (axis_apart(&tv->axis_a, tb, ta, tv->allow_a))
	{
		return true;
	}
	if (tv->axis_b.tri != tri_b)
	{
		axis_make(&tv->axis_b, tri_b, tb + 9, &tv->ab); // B's normal, A's vertices: x_b = m·x_a + t
	}
	return axis_apart(&tv->axis_b, ta, tb, tv->allow_b);
}

/// A leaf pair with overlapping DOPs (A's leaf is lane ia of node na, B's lane jb of nb): the plane
/// pretest, then the leaf test; records the pair; true when traversal must stop.
static bool leaf_pair(kl_bvh_trav* tv, int na, int ia, int nb, int jb)
{
	int tri_a = -1 - kl_bvh_node_children(tv->a, na)[ia];
	int tri_b = -1 - kl_bvh_node_children(tv->b, nb)[jb];
	if (planes_apart(tv, tri_a, tri_b))
	{
		tv->r->counters.leaf_culled += 1;
		return false;
	}
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

/// One (already realigned) leaf DOP of A (lane ia of node na) against B's subtree under node nb.
static void dop_vs_b(kl_bvh_trav* tv, const float* lo, const float* hi, int stride, int na, int ia, int nb)
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
				leaf_pair(tv, na, ia, node, j);
			}
			else if (!stack_push(&st, child[j]))
			{
				tv->failed = tv->stop = true;
			}
		}
	}
	stack_free(&st);
}

/// A's subtree under node na against one leaf DOP of B (lane jb of node nb; blo/bhi: its values in B's
/// stored convention).
static void a_vs_dop(kl_bvh_trav* tv, int na, const float* blo, const float* bhi, int nb, int jb)
{
	_Alignas(64) float local[KL_BVH_ROWS_MAX];
	kl_bvh_stack st;
	stack_init(&st);
	stack_push(&st, na);
	const kl_bvh* a = tv->a;
	while (st.count > 0 && !tv->stop)
	{
		int node = st.data[--st.count];
		int count = kl_bvh_node_count(a, node);
		const float* rows = node_rows(tv, node, local, NULL);
		tv->r->counters.bv_tests += count;
		uint32_t mask = tv->k.n_vs_one(rows, count, a->width, tv->b->axes, blo, bhi);
		const int32_t* child = kl_bvh_node_children(a, node);
		while (mask != 0 && !tv->stop)
		{
			int i = __builtin_ctz(mask);
			mask &= mask - 1;
			if (child[i] < 0)
			{
				leaf_pair(tv, node, i, nb, jb);
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
		leaf_pair(tv, na, i, nb, j);
	}
	else if (ca < 0)
	{
		dop_vs_b(tv, rows + i, rows + Ab * Wa + i, Wa, na, i, cb);
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
		a_vs_dop(tv, ca, blo, bhi, nb, j);
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
	_Alignas(64) float local[KL_BVH_ROWS_MAX];
	kl_bvh_stack st;
	stack_init(&st);
	stack_push(&st, 0);
	stack_push(&st, 0);
	int Wa = a->width;
	while (st.count > 0 && !tv->stop)
	{
		int nb = st.data[--st.count];
		int na = st.data[--st.count];
		int ca = kl_bvh_node_count(a, na);
		int cb = kl_bvh_node_count(b, nb);
		tv->pinned = -1;
		const float* rows = node_rows(tv, na, local, &tv->pinned);
		tv->r->counters.bv_tests += (int64_t)ca * cb;
		uint32_t masks[KL_BVH_MAX_WIDTH];
		uint32_t any = tv->nodes != NULL ? tv->nodes(rows, ca, b, nb, masks) : scalar_nodes(rows, ca, Wa, b, nb, masks);
		while (any != 0 && !tv->stop)
		{
			int i = __builtin_ctz(any);
			any &= any - 1;
			uint32_t mask = masks[i];
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

bool kl_bvh_kernels_avx2(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	if (a->width != b->width || (a->width != 8 && a->width != 4))
	{
		return false;
	}
#if defined(KL_BVH_AVX2)
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
		((a->fp16 || b->fp16) && !kl_cpu_has_f16c()))
	{
		return false;
	}
	(a->width == 8 ? kl_bvh_kernels_avx2_w8 : kl_bvh_kernels_avx2_w4)(a, b, k);
	return true;
#else
	(void)k;
	return false;
#endif
}

bool kl_bvh_kernels_avx512(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* k)
{
	if (a->width != b->width || (a->width != 16 && a->width != 4))
	{
		return false;
	}
#if defined(KL_BVH_AVX512)
	if (!kl_simd_avx512_allowed())
	{
		return false;
	}
	(a->width == 16 ? kl_bvh_kernels_avx512_w16 : kl_bvh_kernels_avx512_w4)(a, b, k);
	return true;
#else
	(void)k;
	return false;
#endif
}

/// SIMD kernels for the pair of trees: AVX-512 for width 16 (and its 4×4 N-vs-N for width 4), AVX2 for
/// widths 4 and 8.
static bool simd_available(const kl_bvh* a, const kl_bvh* b, kl_bvh_traversal traversal, kl_bvh_kernels* k)
{
	if (kl_simd_level_get() != KL_SIMD_AVX2 || a->width != b->width || a->width < 4)
	{
		return false;
	}
	if (a->width == 16)
	{
		return kl_bvh_kernels_avx512(a, b, k);
	}
	if (a->width == 4 && traversal == KL_BVH_TRAVERSE_NVN && kl_bvh_kernels_avx512(a, b, k))
	{
		return true; // the one-register 4×4 N-vs-N
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

/// One map of the leaf pretest in float (x_dst = m·x_src + t) and the slack along a unit normal of the
/// destination's triangles. The pulled-back axis w = mᵀn and c = n·t (with m and t rounded to float) err by
/// a few units u = FLT_EPSILON/2 of |m|·|n| and |t|, so w·v + c errs by ≤ 16u·(‖m‖_F·R_src + |t|) with
/// R_src the largest vertex norm of the source tree; the interval's own slack addition adds u·R_dst. 64u over
/// the sum covers both with room. The margin is a distance in B's frame: along B's normals it applies as
/// it is, along A's it grows by the map's largest stretch (1 for a rotation, else ‖m‖_F).
static float pretest_make(kl_bvh_move* mv, const double m[3][3], const double t[3], const kl_bvh* src,
						  const kl_bvh* dst, double margin, bool margin_in_dst)
{
	double frob = 0.0, tn = 0.0, dev = 0.0;
	for (int c = 0; c < 3; ++c)
	{
		for (int j = 0; j < 3; ++j)
		{
			mv->m[c][j] = (float)m[c][j];
			frob += m[c][j] * m[c][j];
			double g = m[0][c] * m[0][j] + m[1][c] * m[1][j] + m[2][c] * m[2][j]; // (mᵀm)_cj
			dev = fmax(dev, fabs(g - (c == j ? 1.0 : 0.0)));
		}
		mv->t[c] = (float)t[c];
		tn += t[c] * t[c];
	}
	frob = sqrt(frob);
	double stretch = margin_in_dst ? 1.0 : (dev < 1e-6 ? 1.0 + 1e-6 : frob * (1.0 + 1e-6));
	double allow = 64.0 * FLT_EPSILON * (frob * src->point_radius + sqrt(tn) + dst->point_radius) + margin * stretch;
	float f = (float)allow;
	return (double)f < allow ? nextafterf(f, INFINITY) : f;
}

/// Runs the query with A realigned by x_b = m·x_a + t; the pose itself is x_a = mi·x_b + ti (the inverse).
static kl_result collide(const kl_bvh* a, const kl_bvh* b, const double m[3][3], const double t[3],
						 const double mi[3][3], const double ti[3], const kl_bvh_query* q, kl_bvh_result* r)
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
	tv.allow_a = pretest_make(&tv.ba, mi, ti, b, a, q->margin, false);
	tv.allow_b = pretest_make(&tv.ab, m, t, a, b, q->margin, true);
	tv.axis_a.tri = tv.axis_b.tri = -1;
	r->used = KL_BVH_TRAVERSE_SCALAR;
	if (q->traversal != KL_BVH_TRAVERSE_SCALAR && simd_available(a, b, q->traversal, &tv.k))
	{
		bool nvn = q->traversal == KL_BVH_TRAVERSE_NVN && tv.k.nodes_nvn != NULL;
		tv.nodes = nvn ? tv.k.nodes_nvn : tv.k.nodes_1vn;
		r->used = nvn ? KL_BVH_TRAVERSE_NVN : KL_BVH_TRAVERSE_1VN;
		tv.cache = cache_acquire();
		cache_setup(&tv);
	}
	r->simd = tv.k.simd;
	traverse(&tv);
	if (tv.cache != NULL)
	{
		tv.cache->busy = false;
	}
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
	return collide(a, b, m, t, R, p, query, result);
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
	return collide(a, b, m, t, M, p, query, result);
}
