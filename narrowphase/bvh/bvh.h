// Kollide — "SIMDop" mesh BVH: n-ary k-DOP trees whose branching factor matches the SIMD width (16 for
// AVX-512, 8 for AVX2, 4 for SSE width, 2 as the scalar reference), children's DOP slabs stored in the
// parent in SoA form (per slab: min[width], max[width]) so one compare tests one slab of all children;
// builders (longest axis, median, middle, Batch Neural Gas) and simultaneous traversal of two trees
// (scalar, AVX2 1-vs-N and N-vs-N, AVX-512 1-vs-16 and 4×4), with first-hit, all-pairs and within-margin
// modes.
// SPDX-License-Identifier: MIT
#pragma once

#include "kdop.h"

#include <stddef.h>

#include <kollide/math.h>

/// Child slot value of an unused lane; leaves are stored as −1 − triangle, inner nodes as their index.
#define KL_BVH_EMPTY INT32_MIN
/// Largest branching factor (one AVX-512 register of floats).
#define KL_BVH_MAX_WIDTH 16
/// Floats of one triangle record of the leaf pretest: v0, v1, v2, unit normal n, [min, max] of n·v, pad.
#define KL_BVH_TRI_FLOATS 16
/// Largest triangle count a tree accepts.
#define KL_BVH_MAX_TRIANGLES (1 << 30)

typedef enum kl_bvh_builder
{
	KL_BVH_BUILD_LONGEST_AXIS = 0, ///< sort centroids along the longest axis, cut into `width` equal parts
	KL_BVH_BUILD_MEDIAN,		   ///< cut the longest log2(width) axes at their median centroid
	KL_BVH_BUILD_MIDDLE,		   ///< cut the longest log2(width) axes at the middle of the centroid box
	KL_BVH_BUILD_BNG,			   ///< Batch Neural Gas clusters of the centroids, one child per cluster
	KL_BVH_BUILDER_COUNT
} kl_bvh_builder;

typedef struct kl_bvh_build_def
{
	int width;				///< branching factor: 2, 4, 8 or 16
	int k;					///< DOP slabs: 6, 14, 18, 26, 32 or 46
	kl_bvh_builder builder;
	bool fp16;				///< store node slabs as binary16, rounded outward (half the node memory)
	uint64_t seed;			///< BNG prototype initialisation
	int bng_iterations;		///< BNG annealing steps (λ from width/2 down to bng_lambda_final)
	float bng_lambda_final;
	int bng_sample_limit;	///< BNG fits prototypes on at most this many centroids (strided sample)
	bool collapse;			///< pull small children's lanes up into their parent while they fit (full nodes)
} kl_bvh_build_def;

/// width 8, k 26, BNG, FP32, seed 1, 30 iterations, λ_f 0.01, 2048 samples, collapse on.
kl_bvh_build_def kl_bvh_default_build_def(void);

/// The tree. Node 0 is the root; it and every inner node hold up to `width` children. A node is
/// `node_stride` bytes at nodes + index·node_stride: the children's slabs as rows [2·axes][width] (rows
/// 0..axes−1 the minima, then the maxima; float, or uint16 binary16 when fp16), then int32 child[width],
/// then int32 count (children occupy lanes 0..count−1). Leaves hold exactly one triangle. Stored slab
/// values are relative to offset[axis] (zero for FP32 trees; the root DOP's centre for FP16 trees, which
/// keeps binary16's 11-bit precision relative to the object's size). Child DOPs are tight over the
/// child's triangles (a wrapped hierarchy; for k-DOPs this equals the merge of the grandchildren).
/// The tree is immutable after building; queries only read it (thread-safe).
typedef struct kl_bvh
{
	const kl_kdop_dirs* dirs;
	int width;
	int axes;
	bool fp16;
	kl_bvh_builder builder;
	int triangle_count;
	int node_count;
	int depth; ///< inner levels (a root with only leaves has depth 1)
	size_t node_stride;
	uint8_t* nodes;
	float root_lo[KL_KDOP_MAX_AXES]; ///< the root's DOP (stored convention: minus offset)
	float root_hi[KL_KDOP_MAX_AXES];
	float offset[KL_KDOP_MAX_AXES];
	float* tri_verts;	   ///< per triangle (KL_BVH_TRI_FLOATS): vertices, unit normal, normal interval
	double stored_abs_max; ///< largest |stored slab value|
	double point_radius;   ///< largest |vertex| of the mesh (in its own frame), rounded up
	int bng_fallbacks;	   ///< BNG splits replaced by the longest-axis split (empty or > 90 % cluster)
	double build_seconds;
} kl_bvh;

/// Builds a tree over triangles given as vertex positions (xyz floats) and three indices per triangle.
/// Returns NULL (kl_last_error says why) for bad input: non-finite vertices, indices out of range,
/// unsupported width or k, too many triangles.
kl_bvh* kl_bvh_build(const float* vertices, int vertex_count, const int* indices, int triangle_count,
					 const kl_bvh_build_def* def);
void kl_bvh_destroy(kl_bvh* tree);

/// Bytes of node storage (nodes only: the leaf pretest's triangle records add KL_BVH_TRI_FLOATS floats
/// per triangle, and the fixed header is excluded).
size_t kl_bvh_memory_bytes(const kl_bvh* tree);

static inline const int32_t* kl_bvh_node_children(const kl_bvh* t, int node)
{
	const uint8_t* n = t->nodes + (size_t)node * t->node_stride;
	size_t box = (size_t)2 * t->axes * t->width * (t->fp16 ? 2u : 4u);
	return (const int32_t*)(const void*)(n + box);
}

static inline int kl_bvh_node_count(const kl_bvh* t, int node)
{
	return kl_bvh_node_children(t, node)[t->width];
}

static inline const void* kl_bvh_node_box(const kl_bvh* t, int node)
{
	return t->nodes + (size_t)node * t->node_stride;
}

/// The DOP of child `lane` of `node` in the mesh frame (stored + offset, exact in double).
void kl_bvh_child_dop(const kl_bvh* t, int node, int lane, double* lo, double* hi);

typedef enum kl_bvh_mode
{
	KL_BVH_FIRST_HIT = 0, ///< stop at the first leaf pair that counts
	KL_BVH_ALL_PAIRS,	  ///< report every leaf pair that counts
} kl_bvh_mode;

typedef enum kl_bvh_traversal
{
	KL_BVH_TRAVERSE_AUTO = 0, ///< SIMD 1-vs-N when the CPU, KOLLIDE_SIMD and the widths allow, else scalar
	KL_BVH_TRAVERSE_SCALAR,	  ///< the reference: one DOP pair at a time (any widths), no realignment cache
	KL_BVH_TRAVERSE_1VN,	  ///< one child of A against all children of B per SIMD pass (AVX2 4/8, AVX-512 16)
	KL_BVH_TRAVERSE_NVN,	  ///< all child pairs of two nodes, slab by slab (width 4: AVX-512 4×4 or AVX2;
							  ///< width 8: AVX2; width 16 runs 1-vs-N)
} kl_bvh_traversal;

/// The instruction set a traversal ran with (kl_bvh_result.simd).
typedef enum kl_bvh_simd
{
	KL_BVH_SIMD_NONE = 0,
	KL_BVH_SIMD_AVX2,
	KL_BVH_SIMD_AVX512,
} kl_bvh_simd;

/// Decides whether a leaf pair whose bounding volumes overlap counts (an exact triangle test, typically).
/// Before it, the traversal runs a conservative pretest on the pair: each triangle (the tree keeps the
/// vertices) moved into the other's frame must meet the other's leaf DOP (inflated by the margin); this
/// drops the pairs that only the looseness of the realigned DOPs let through.
typedef bool kl_bvh_leaf_fn(int tri_a, int tri_b, void* ctx);

typedef struct kl_bvh_pair
{
	int32_t tri_a;
	int32_t tri_b;
} kl_bvh_pair;

typedef struct kl_bvh_query
{
	kl_bvh_mode mode;
	kl_bvh_traversal traversal;
	float margin;			  ///< ≥ 0: inflate every DOP by this distance (pairs within margin)
	kl_bvh_leaf_fn* leaf_test; ///< NULL: every leaf pair with overlapping DOPs that passes the pretest counts
	void* ctx;
	kl_bvh_pair* pairs; ///< optional output of the pairs that count
	int pair_capacity;
} kl_bvh_query;

typedef struct kl_bvh_counters
{
	int64_t bv_tests;	///< DOP pair tests (a SIMD pass over n lanes counts n)
	int64_t leaf_tests; ///< leaf pairs whose DOPs overlap and that pass the pretest (calls of leaf_test)
	int64_t leaf_culled; ///< leaf pairs whose DOPs overlap but whose triangles the pretest separates
	int64_t realigns;	///< nodes (or single DOPs) of A realigned into B's frame (SIMD traversals: cache misses)
} kl_bvh_counters;

typedef struct kl_bvh_result
{
	bool hit;			///< at least one leaf pair counted
	int pair_count;		///< leaf pairs that counted (FIRST_HIT: 0 or 1)
	bool truncated;		///< more pairs counted than pair_capacity
	kl_bvh_traversal used; ///< the traversal that ran (SIMD requests fall back to scalar where unavailable)
	kl_bvh_counters counters;
	kl_bvh_simd simd; ///< the instruction set of the kernels that ran
} kl_bvh_result;

/// Simultaneous traversal of a and b, with b placed in a's frame by `b_in_a` (x_a = q·x_b + p). Tree A's
/// DOPs are realigned into B's frame per visited node (kl_kdop_plan); the SIMD traversals keep each
/// realigned node for the rest of the query in a per-thread cache (so a node of A met by several nodes of
/// B is realigned once), the scalar reference recomputes it on every visit. Trees may differ in k and
/// width (SIMD traversals need equal widths of 4, 8 or 16, else they run the scalar one). Thread-safe;
/// a leaf test may itself run queries (a nested query runs without the cache).
kl_result kl_bvh_collide(const kl_bvh* a, const kl_bvh* b, kl_transform b_in_a, const kl_bvh_query* query,
						 kl_bvh_result* result);

/// As kl_bvh_collide with the pose as a row-major 3×4 matrix [M | t], x_a = M·x_b + t (M invertible; a
/// rotation for rigid motion; with a non-rigid M the margin is measured in b's frame).
kl_result kl_bvh_collide_m34(const kl_bvh* a, const kl_bvh* b, const float m34[12], const kl_bvh_query* query,
							 kl_bvh_result* result);

/// Batch Neural Gas split (bvh_bng.c): reorders tris[0..count) into at most n contiguous groups, returning
/// the number of groups and their sizes, or 0 when the clustering is unusable (an empty cluster or one with
/// more than 90 % of the triangles) so that the caller falls back to another split.
int kl_bvh_bng_split(const float* centroids, int* tris, int count, int n, uint64_t seed, const kl_bvh_build_def* def,
					 int* group_size);

/// Internal: the four operations a traversal needs, in a scalar, an AVX2 and an AVX-512 version. `rows` are
/// node a's children realigned into b's frame: [2·b.axes][a.width] floats (minima rows, then maxima rows),
/// 64-byte aligned.
typedef struct kl_bvh_kernels
{
	void (*realign_node)(const kl_bvh* a, int node, const kl_kdop_plan* plan, float* rows);
	/// Bit j: child j of b's node overlaps the single DOP lo[i·stride], hi[i·stride] (i < b.axes).
	uint32_t (*one_vs_n)(const float* lo, const float* hi, int stride, const kl_bvh* b, int node);
	/// Bit i: realigned child i (< count) overlaps the single DOP blo, bhi of b.
	uint32_t (*n_vs_one)(const float* rows, int count, int width, int axes, const float* blo, const float* bhi);
	/// All child pairs of a node pair in one call: masks[i] (i < count) gets bit j when realigned child i
	/// overlaps child j of b's node; returns bit i when masks[i] ≠ 0. nodes_1vn runs one child of a
	/// against all of b's per pass, nodes_nvn all pairs slab by slab (NULL where unavailable).
	uint32_t (*nodes_1vn)(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks);
	uint32_t (*nodes_nvn)(const float* rows, int count, const kl_bvh* b, int node, uint32_t* masks);
	kl_bvh_simd simd;
} kl_bvh_kernels;

/// Fills the AVX2 kernels for trees a and b (same width, 4 or 8); false when the CPU or build lacks AVX2,
/// FMA or (for binary16 trees) F16C.
bool kl_bvh_kernels_avx2(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* kernels);

/// Fills the AVX-512 kernels for trees a and b: width 16 (1-vs-16, no N-vs-N) or width 4 (the seed's 4×4
/// N-vs-N in one register, with the same 1-vs-4 as AVX2). False when the compiler could not build them,
/// the CPU lacks AVX-512F, or KOLLIDE_SIMD is set to avx2 or scalar.
bool kl_bvh_kernels_avx512(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* kernels);

/// Whether this build has the SIMD kernels: bvh_traverse_kernel.h compiled for AVX2 (widths 8 and 4)
/// and, where the compiler can generate AVX-512F, for AVX-512 (widths 16 and 4). The functions below
/// fill the kernels of one of them for trees a and b of its width, without a CPU check.
#if defined(KOLLIDE_AVX2) && defined(__x86_64__) && defined(__GNUC__)
#define KL_BVH_AVX2 1
void kl_bvh_kernels_avx2_w8(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* kernels);
void kl_bvh_kernels_avx2_w4(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* kernels);
#if defined(KOLLIDE_AVX512)
#define KL_BVH_AVX512 1
void kl_bvh_kernels_avx512_w16(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* kernels);
void kl_bvh_kernels_avx512_w4(const kl_bvh* a, const kl_bvh* b, kl_bvh_kernels* kernels);
#endif
#endif
