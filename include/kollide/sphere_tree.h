// Kollide — inner-sphere trees: an n-ary hierarchy over a shape's inner spheres (kl_sphere, in the
// shape's frame) and the overlap query between two of them at two poses: the overlapping sphere pairs,
// their lens volumes and depths, the penetration volume, and the volume-weighted normal and moment sums
// a penalty force is made of (docs/sphere-trees.md).
// SPDX-License-Identifier: MIT
#pragma once

#include "geometry.h"

KL_C_BEGIN

/// The hierarchy over one set of inner spheres. Immutable once built; queries only read it (any number
/// of threads at once).
typedef struct kl_sphere_tree kl_sphere_tree;

/// Most spheres one tree takes.
#define KL_SPHERE_TREE_MAX_SPHERES (1 << 24)

typedef struct kl_sphere_tree_def
{
	int branching;			///< children per node: 4 or 16
	uint64_t seed;			///< Batch Neural Gas prototype initialisation
	int bng_iterations;		///< annealing steps per node (λ from branching/2 down to bng_lambda_final)
	float bng_lambda_final; ///< > 0
	int bng_sample_limit;	///< a node's prototypes are fitted to at most this many of its spheres (strided)
	/// Magnification control (seed §2.2): a sphere weighs its volume in the clustering, so large spheres
	/// draw prototypes. Off, every sphere weighs the same (docs/sphere-trees.md compares the two).
	bool magnification;
	/// Optional, one per input sphere (copied): the volume of the solid each sphere stands for, e.g.
	/// kl_sphere_packing_represented_volumes(). The query then also estimates the intersection volume
	/// of the two solids (kl_sphere_overlap_result.intersection_volume). NULL: each sphere stands for
	/// itself. Values must be finite, non-negative and at most 10⁶ times the sphere's own volume (a
	/// packing's are at most about 10 times).
	const float* represented_volumes;
} kl_sphere_tree_def;

/// Branching 16, seed 1, 30 iterations, λ_f 0.01, 2048 samples, magnification control on, no
/// represented volumes.
KL_API kl_sphere_tree_def kl_default_sphere_tree_def(void);

/// Builds the tree over count spheres (copied). Each node splits its spheres into up to `branching`
/// clusters by Batch Neural Gas, with magnification control by default (a sphere weighs its volume,
/// 4/3 π r³); an inner node keeps its children's bounding spheres. Deterministic: the same spheres and def give the
/// same tree. def may be NULL (the defaults). NULL with kl_last_error() for count < 1 or above
/// KL_SPHERE_TREE_MAX_SPHERES, a non-finite or absurd (beyond 1e15) centre or radius, a negative radius,
/// bad settings or out of memory.
KL_API kl_sphere_tree* kl_sphere_tree_build(const kl_sphere* spheres, int count, const kl_sphere_tree_def* def);
/// NULL is ignored.
KL_API void kl_sphere_tree_destroy(kl_sphere_tree* tree);

typedef struct kl_sphere_tree_info
{
	int sphere_count;
	int branching;
	int node_count;			  ///< inner nodes (each holds up to `branching` child spheres)
	int depth;				  ///< inner levels (1: the root alone)
	size_t bytes;			  ///< memory the tree holds
	kl_sphere bound;		  ///< bounding sphere of all inner spheres
	float sphere_volume;	  ///< Σ 4/3 π r³ over the inner spheres
	float represented_volume; ///< Σ of the represented volumes (sphere_volume without them)
} kl_sphere_tree_info;

/// Zeroes for NULL.
KL_API kl_sphere_tree_info kl_sphere_tree_get_info(const kl_sphere_tree* tree);

/// How the query tests a node's child spheres.
typedef enum kl_sphere_traversal
{
	KL_SPHERE_TRAVERSE_AUTO = 0, ///< the widest instruction set the CPU, the build and KOLLIDE_SIMD allow
	KL_SPHERE_TRAVERSE_SCALAR,	 ///< the reference: one sphere pair at a time
	KL_SPHERE_TRAVERSE_AVX2,	 ///< one sphere against a node's children, 4 or 8 lanes per instruction (4×2 pairs)
	KL_SPHERE_TRAVERSE_AVX512,	 ///< 16 lanes per instruction: all 16 children, or all 4×4 child pairs
} kl_sphere_traversal;

/// Whether the traversal can run here for trees of this branching (AUTO and SCALAR always can).
KL_API bool kl_sphere_traversal_available(kl_sphere_traversal traversal, int branching);

/// One overlapping pair of inner spheres, in world coordinates.
typedef struct kl_sphere_pair
{
	int sphere_a; ///< index into tree A's input spheres
	int sphere_b;
	float volume; ///< volume of the two spheres' intersection (the lens)
	float depth;  ///< (r_a + r_b − d) / 2
	vec3s normal; ///< unit, from B's sphere centre to A's (zero for concentric spheres)
	vec3s point;  ///< the lens centre: the middle of the lens's extent along the centre line
} kl_sphere_pair;

typedef struct kl_sphere_overlap_def
{
	/// 0: exact. Otherwise the query visits at most this many node pairs and estimates the volume of the
	/// pairs it left from their bounding spheres (time-critical mode).
	int64_t node_budget;
	kl_sphere_traversal traversal;
	float stiffness;	   ///< ≥ 0: force and torques are stiffness × the volume-weighted sums
	kl_sphere_pair* pairs; ///< optional output of the overlapping pairs found
	int pair_capacity;
} kl_sphere_overlap_def;

/// Exact, AUTO traversal, stiffness 1, no pair output.
KL_API kl_sphere_overlap_def kl_default_sphere_overlap_def(void);

typedef struct kl_sphere_overlap_result
{
	int pair_count;			///< overlapping sphere pairs found
	bool pairs_truncated;	///< more pairs found than pair_capacity (the first pair_capacity are written)
	bool budget_cut;		///< the node budget stopped the query; the rest is estimated
	float volume;			///< penetration volume: found_volume + estimated_volume
	float found_volume;		///< Σ lens volume over the pairs found
	float estimated_volume; ///< the node pairs left by the budget: their expected overlap (0 when exact)
	/// |volume − exact| stays below this when each tree's spheres are disjoint (0 when exact)
	float volume_error_bound;
	/// Estimate of the intersection volume of the two solids the trees fill: Σ ρ_a ρ_b V_i over the
	/// pairs, ρ = a sphere's represented volume over its own volume (1 without represented volumes,
	/// where this equals volume). Each sphere's represented volume is spread evenly over the sphere;
	/// this is the overlap of those two densities (docs/sphere-trees.md).
	float intersection_volume;
	float max_depth; ///< the largest pair depth (0 with no pair)
	/// Σ V_i n_i (world): the direction that pushes A out of B, weighted by lens volume
	vec3s volume_normal_sum;
	vec3s moment_a;			  ///< Σ (p_i − A's origin) × V_i n_i (world; p_i the lens centres)
	vec3s moment_b;			  ///< Σ (p_i − B's origin) × (−V_i n_i) (world)
	vec3s force_a;			  ///< stiffness × volume_normal_sum, the penalty force on A (B gets its opposite)
	vec3s torque_a;			  ///< stiffness × moment_a, about A's origin (the pose's position)
	vec3s torque_b;			  ///< stiffness × moment_b, about B's origin
	int64_t node_visits;	  ///< node pairs visited
	int64_t sphere_tests;	  ///< sphere pair tests (a SIMD pass over n lanes counts n)
	kl_sphere_traversal used; ///< the traversal that ran (never AUTO)
} kl_sphere_overlap_result;

/// The overlap of tree A at pose_a and tree B at pose_b (shape frame to world). Contributions of
/// sphere pairs are continuous in the poses: a pair enters and leaves with zero volume, so sliding
/// gives no jumps. def may be NULL (the defaults). Fails (result zeroed, kl_last_error()) for NULL
/// trees or result, a non-finite or absurd pose, a zero quaternion (others are normalised), a negative
/// budget, stiffness or capacity, pairs NULL with a capacity, or a traversal not available here
/// (KL_ERR_UNSUPPORTED).
KL_API kl_result kl_sphere_tree_overlap(const kl_sphere_tree* a, kl_transform pose_a, const kl_sphere_tree* b,
										kl_transform pose_b, const kl_sphere_overlap_def* def,
										kl_sphere_overlap_result* result);

/// The tree over a mesh's inner spheres (kl_mesh_def.inner_spheres), in the mesh's frame; NULL when the
/// mesh has none. It lives as long as the mesh.
KL_API const kl_sphere_tree* kl_mesh_sphere_tree(const kl_mesh* mesh);
/// The mesh's inner spheres (mesh frame, largest first) and their count; NULL and 0 when it has none.
KL_API const kl_sphere* kl_mesh_inner_spheres(const kl_mesh* mesh, int* count);

KL_C_END
