// Kollide internal — inner-sphere trees (kollide/sphere_tree.h): the node layout, the traversal state
// the walks share and the walks themselves, one per instruction set and width (ist_walk.h).
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/sphere_tree.h>

#include <stdbool.h>
#include <stdint.h>

#define KL_IST_MAX_WIDTH 16
/// Child code of a lane not in use.
#define KL_IST_UNUSED INT32_MIN

/// Node i holds up to `width` child spheres as rows of floats, 64-byte aligned:
/// lanes + i·4·width = cx[width], cy[width], cz[width], r[width]; lanes from count[i] on stay zero. A lane is
/// an inner sphere itself (child code −1 − its index) or the bounding sphere of a child node (code =
/// the node's index). Nodes are numbered depth-first from the root (node 0).
struct kl_sphere_tree
{
	int width;
	int node_count;
	int depth;
	int sphere_count;
	float* lanes;
	int32_t* child;		   ///< [node_count][width]
	int32_t* count;		   ///< lanes in use per node
	kl_sphere* spheres;	   ///< the input, in input order
	kl_sphere* node_bound; ///< per node: its bounding sphere (node 0: the whole tree's)
	float* node_volume;	   ///< per node: Σ of its inner spheres' volumes
	float* density;		   ///< per sphere: represented volume over its own (NULL: all 1)
	float sphere_volume;
	float represented_volume; ///< Σ of the represented volumes (sphere_volume when density is NULL)
	size_t bytes;
};

static inline const float* kl_ist_node(const kl_sphere_tree* t, int node)
{
	return t->lanes + (size_t)node * 4 * (size_t)t->width;
}

/// A pair of child codes whose spheres overlap, waiting to be opened, with the sphere of the pair
/// that the visit does not read from a node's lanes: for a node of a against an inner sphere of b,
/// b's sphere (b's frame); otherwise a's sphere (a node's bound or an inner sphere) moved into b's
/// frame. Copies of the parents' lanes, so that a visit reads no sphere array at random.
typedef struct kl_ist_item
{
	int32_t a;
	int32_t b;
	float x, y, z, r;
} kl_ist_item;

/// Sphere pairs per batch of lens volumes.
#define KL_IST_BATCH 64

/// Overlapping inner-sphere pairs a walk found, waiting for their lens volumes (computed a register at a
/// time by the walk's lens_batch), SoA. Inputs: a's centre in b's frame, b's centre, the radii. Results
/// (b's frame): the volume, the depth, the unit normal from b's centre to a's, the lens centre p, the
/// volume-weighted normal f = V·n and its moment p × f about b's origin.
typedef struct kl_ist_batch
{
	_Alignas(64) float ax[KL_IST_BATCH];
	_Alignas(64) float ay[KL_IST_BATCH];
	_Alignas(64) float az[KL_IST_BATCH];
	_Alignas(64) float bx[KL_IST_BATCH];
	_Alignas(64) float by[KL_IST_BATCH];
	_Alignas(64) float bz[KL_IST_BATCH];
	_Alignas(64) float ra[KL_IST_BATCH];
	_Alignas(64) float rb[KL_IST_BATCH];
	_Alignas(64) float volume[KL_IST_BATCH];
	_Alignas(64) float depth[KL_IST_BATCH];
	_Alignas(64) float n[3][KL_IST_BATCH];
	_Alignas(64) float p[3][KL_IST_BATCH];
	_Alignas(64) float f[3][KL_IST_BATCH];
	_Alignas(64) float m[3][KL_IST_BATCH];
	int32_t sphere_a[KL_IST_BATCH];
	int32_t sphere_b[KL_IST_BATCH];
	int count;
} kl_ist_batch;

/// What a walk reads and accumulates. m moves a point of a's frame into b's: x_b = M·x_a + t with M
/// row-major in m[0..8] and t in m[9..11]; every walk evaluates it in the same order (kl_ist_move), so
/// all walks test the same numbers and find the same pairs in the same order, and their lens batches
/// compute the same floats.
typedef struct kl_ist_walk
{
	const kl_sphere_tree* a;
	const kl_sphere_tree* b;
	float m[12];
	int64_t budget; ///< node pairs to visit at most (0: no limit)
	kl_ist_item* stack;
	int stack_count;
	int stack_capacity;
	bool failed; ///< out of memory growing the stack
	int64_t node_visits;
	int64_t sphere_tests;
	kl_ist_batch batch;
	// Sums over the pairs found, in b's frame (moments about b's origin), in pair order.
	double volume;
	double intersection; ///< Σ ρ_a ρ_b V over the pairs
	double normal_sum[3];
	double moment[3];
	double max_depth;
	int pair_count;
	kl_sphere_pair* pairs;
	int pair_capacity;
	kl_transform pose_b;
} kl_ist_walk;

/// 4/3 π r³.
static inline double kl_ist_sphere_volume(double r)
{
	return 4.0 / 3.0 * GLM_PI * r * r * r;
}

/// Set bits of a 16-bit lane mask, without a library call where the target lacks POPCNT and without
/// memory reads (bit counting in parallel within the word).
static inline int kl_ist_bit_count(uint32_t mask)
{
	mask = mask - ((mask >> 1) & 0x5555u);
	mask = (mask & 0x3333u) + ((mask >> 2) & 0x3333u);
	mask = (mask + (mask >> 4)) & 0x0F0Fu;
	return (int)((mask + (mask >> 8)) & 0x1Fu);
}

/// x_b of a point x_a: ((m0·x + m1·y) + m2·z) + t0 and so on, as the SIMD walks compute it.
static inline void kl_ist_move(const float* m, float x, float y, float z, float* out)
{
	out[0] = m[0] * x + m[1] * y + m[2] * z + m[9];
	out[1] = m[3] * x + m[4] * y + m[5] * z + m[10];
	out[2] = m[6] * x + m[7] * y + m[8] * z + m[11];
}

/// Adds the batch's pairs to w's sums and pair output, in order, and empties the batch (ist_query.c).
void kl_ist_accumulate(kl_ist_walk* w);
/// Makes room for `more` items on the stack; false (w->failed) without memory.
bool kl_ist_reserve(kl_ist_walk* w, int more);

/// The walks: each runs the simultaneous descent from the items on w's stack until it is empty or the
/// budget is spent (items left on the stack are what the budget cut).
void kl_ist_walk_scalar_w4(kl_ist_walk* w);
void kl_ist_walk_scalar_w16(kl_ist_walk* w);

#if defined(KOLLIDE_AVX2) && defined(__x86_64__) && defined(__GNUC__)
#define KL_IST_AVX2 1
void kl_ist_walk_avx2_w4(kl_ist_walk* w);
void kl_ist_walk_avx2_w16(kl_ist_walk* w);
#if defined(KOLLIDE_AVX512)
#define KL_IST_AVX512 1
void kl_ist_walk_avx512_w4(kl_ist_walk* w);
void kl_ist_walk_avx512_w16(kl_ist_walk* w);
#endif
#endif

/// Builds the nodes of t over its spheres (ist_build.c); false with kl_last_error() without memory.
bool kl_ist_build_nodes(kl_sphere_tree* t, const kl_sphere_tree_def* def);
