// Kollide — mesh-pair queries without a world: collision models of meshes and the boolean, contact and
// distance queries between two of them at two poses, through either mesh backend (docs/collide.md).
// SPDX-License-Identifier: MIT
#pragma once

#include "geometry.h"
#include "types.h"

KL_C_BEGIN

// ---------------------------------------------------------------------------------------------
// Collision models

/// A mesh (kl_mesh) ready for pair queries: it holds one reference to the mesh, the BVH the queries
/// walk (the mesh's own, or one built with other settings) and what the distance search reads of that
/// tree (every node's k-DOP in the mesh frame). The point-shell backend uses the mesh's point shells
/// (kl_mesh_def.build_pointshell). Immutable once created; queries on one model may run on any
/// number of threads at once, each with its own scratch.
typedef struct kl_collision_model kl_collision_model;

/// How the BVH splits its triangles (the engine's tree uses Batch Neural Gas clusters).
typedef enum kl_collision_bvh_builder
{
	KL_COLLISION_BVH_BNG = 0,	   ///< Batch Neural Gas clusters of the centroids, one child per cluster
	KL_COLLISION_BVH_LONGEST_AXIS, ///< centroids sorted along the longest axis, cut into equal parts
	KL_COLLISION_BVH_MEDIAN,	   ///< the longest axes cut at their median centroid
	KL_COLLISION_BVH_MIDDLE,	   ///< the longest axes cut at the middle of the centroid box
	KL_COLLISION_BVH_BUILDER_COUNT
} kl_collision_bvh_builder;

/// The tree of a collision model. The defaults are the engine's tree (8-ary, k = 26, BNG, FP32),
/// and then the model shares the one the mesh was built with; other settings build a tree of its own.
typedef struct kl_collision_model_def
{
	int bvh_width; ///< children per node: 2, 4, 8 or 16 (AVX2 kernels for 4 and 8, AVX-512 for 16)
	int bvh_k;	   ///< k-DOP slabs: 6, 14, 18, 26, 32 or 46
	kl_collision_bvh_builder bvh_builder;
	bool bvh_fp16; ///< node slabs stored as binary16, rounded outward (half the node memory)
} kl_collision_model_def;

/// width 8, k 26, BNG, FP32: the engine's tree.
KL_API kl_collision_model_def kl_default_collision_model_def(void);

/// Creates a collision model of a mesh (which it retains; release yours when you like). def may be
/// NULL (the defaults). NULL with kl_last_error() for a NULL mesh, bad settings or out of memory.
KL_API kl_collision_model* kl_collision_model_create(kl_mesh* mesh, const kl_collision_model_def* def);
/// Frees the model and drops its reference to the mesh. NULL is ignored.
KL_API void kl_collision_model_destroy(kl_collision_model* model);

typedef struct kl_collision_model_info
{
	int vertex_count;	///< the mesh's (after welding)
	int triangle_count; ///< the mesh's (after removing degenerate triangles); queries name triangles by these indices
	bool has_pointshell;  ///< the point-shell backend can serve it
	bool shares_mesh_bvh; ///< the tree is the mesh's own (default settings)
	int bvh_width;
	int bvh_k;
	int bvh_node_count; ///< inner nodes
	int bvh_depth;		///< inner levels
	double bvh_build_seconds; ///< building the tree (the mesh build's tree stage when shared)
	double prepare_seconds;	  ///< reading out the nodes' k-DOPs for the distance search
	double center[3];		  ///< the centre of the mesh's bounding box (mesh frame)
	double radius;			  ///< the largest distance of a vertex from center
} kl_collision_model_info;

/// Zeros for NULL.
KL_API kl_collision_model_info kl_collision_model_get_info(const kl_collision_model* model);
/// The mesh the model was made from (the model holds a reference to it).
KL_API kl_mesh* kl_collision_model_mesh(const kl_collision_model* model);

// ---------------------------------------------------------------------------------------------
// Poses

/// Where a model is: x_world = rotation · x_model + translation, in double precision so that poses
/// read from files keep their digits (the queries work in A's frame, x_A = R_Aᵀ(R_B x_B + t_B − t_A),
/// which is exact when A is at the identity).
typedef struct kl_collision_pose
{
	double rotation[3][3]; ///< row-major: rotation[row][column]
	double translation[3];
} kl_collision_pose;

KL_API kl_collision_pose kl_collision_pose_identity(void);
/// The pose of a transform (its quaternion normalised; a zero or non-finite one gives a pose that
/// kl_collision_pose_check refuses).
KL_API kl_collision_pose kl_collision_pose_from_transform(kl_transform xf);
/// KL_OK when every value is finite and rotation is a rotation: RᵀR = I within 1e-4 and det R > 0.
/// Else KL_ERR_INVALID_ARGUMENT, and kl_last_error() says which. The queries check their poses so.
KL_API kl_result kl_collision_pose_check(const kl_collision_pose* pose);

// ---------------------------------------------------------------------------------------------
// Queries

/// Working memory of the queries, grown on demand and kept between them: one per thread. A query
/// given NULL makes its own and frees it, which costs an allocation per query.
typedef struct kl_collision_scratch kl_collision_scratch;

/// NULL when out of memory.
KL_API kl_collision_scratch* kl_collision_scratch_create(void);
/// NULL is ignored.
KL_API void kl_collision_scratch_destroy(kl_collision_scratch* scratch);

/// Most manifolds a contact query returns, and the engine's count per mesh pair.
#define KL_COLLISION_MAX_MANIFOLDS 32
#define KL_COLLISION_ENGINE_MANIFOLDS 16

typedef struct kl_collision_query_def
{
	/// KL_MESH_BACKEND_BVH: simultaneous traversal of the two trees. KL_MESH_BACKEND_POINTSHELL: the
	/// point-shell search on the calling thread (both meshes built with build_pointshell; else the
	/// query fails with KL_ERR_UNSUPPORTED). Both find the same answers; their counters differ.
	kl_mesh_backend backend;
	/// Every triangle pair, no tree and no shells: the slow reference (backend is then ignored).
	bool exhaustive;
	/// BVH: the scalar reference traversal instead of the SIMD kernels the CPU allows.
	bool scalar_traversal;
	/// Contacts: speculative margin (≥ 0): surfaces within it give contact points.
	float margin;
	/// Contacts: a triangle pair deeper than this is a pass-through, not a contact (> 0; 0: a tenth
	/// of A's radius, kl_collision_model_info.radius).
	float max_depth;
	/// Contacts: most manifolds (contact patches) kept, 1 to KL_COLLISION_MAX_MANIFOLDS (0:
	/// KL_COLLISION_ENGINE_MANIFOLDS). The patches are ranked by size and depth.
	int max_manifolds;
	/// Distance of intersecting models: report the intersecting triangle pair with the lowest
	/// triangle of A, then of B, whatever the tree (an all-pairs traversal for the BVH), instead of
	/// the first one found.
	bool lowest_pair;
} kl_collision_query_def;

/// BVH, SIMD traversal, margin 0, max_depth 0 (a tenth of A's radius), KL_COLLISION_ENGINE_MANIFOLDS.
KL_API kl_collision_query_def kl_default_collision_query_def(void);

/// The work of one query, as the backend counts it.
typedef struct kl_collision_counters
{
	/// Bounding-volume tests. BVH: k-DOP pair tests of the traversal (a SIMD pass over n lanes counts
	/// n), plus the k-DOP lower bounds of the distance search. Point shells: conglomerate pairs
	/// whose boxes came within the alarm distance, each searched both ways (sample into octree).
	int64_t bv_tests;
	/// Candidate triangle pairs the backend handed to the exact tests. BVH: leaf pairs past its
	/// triangle pretest; point shells: pairs past its triangle stage; exhaustive: every pair.
	int64_t candidate_pairs;
	/// Exact triangle–triangle tests run on candidates (overlap, contact or distance). A boolean
	/// query stops at the first pair that shares a point.
	int64_t triangle_tests;
	/// Point shells: searches run (the distance query widens its alarm distance until a pair lies
	/// within it).
	int pointshell_searches;
} kl_collision_counters;

typedef struct kl_collision_test_result
{
	bool hit; ///< the surfaces share a point (exact triangle–triangle test)
	/// A pair of triangles that share a point (the first found), -1 when apart.
	int triangle_a;
	int triangle_b;
	kl_collision_counters counters;
} kl_collision_test_result;

typedef struct kl_collision_point
{
	vec3s point;	  ///< world: midway between the two surfaces
	float separation; ///< signed gap along the normal, negative when penetrating
	uint32_t id;	  ///< feature id: the key the engine's solver warm-starts by
} kl_collision_point;

/// One contact patch: the points of a minimal contact set, as the engine's solver gets them.
typedef struct kl_collision_manifold
{
	vec3s normal; ///< world, unit, from A to B
	kl_collision_point points[4];
	int point_count;
} kl_collision_manifold;

typedef struct kl_collision_contact_result
{
	kl_collision_manifold manifolds[KL_COLLISION_MAX_MANIFOLDS];
	int manifold_count;
	int point_count; ///< over all manifolds
	float depth;	 ///< deepest penetration among the points (−separation), 0 when none penetrates
	/// Triangle contacts (vertex–face and edge–edge) before the reduction to minimal contact sets.
	int raw_contact_count;
	kl_collision_counters counters;
} kl_collision_contact_result;

typedef struct kl_collision_distance_result
{
	double distance; ///< between the surfaces, 0 when they intersect
	bool intersecting;
	/// The triangles that realise the distance (intersecting: a pair that shares a point; see
	/// kl_collision_query_def.lowest_pair).
	int triangle_a;
	int triangle_b;
	vec3s point_a; ///< world: the closest point on A (intersecting: a common point)
	vec3s point_b; ///< world: the closest point on B
	kl_collision_counters counters;
} kl_collision_distance_result;

/// Whether the surfaces of a at pose_a and b at pose_b share a point. def and scratch may be NULL.
/// KL_OK, or KL_ERR_INVALID_ARGUMENT (NULL model, pose or out; a pose that kl_collision_pose_check
/// refuses; bad def values), KL_ERR_UNSUPPORTED (point shells asked of a model without them) or
/// KL_ERR_OUT_OF_MEMORY, with out zeroed.
KL_API kl_result kl_collision_test(const kl_collision_model* a, const kl_collision_pose* pose_a,
								   const kl_collision_model* b, const kl_collision_pose* pose_b,
								   const kl_collision_query_def* def, kl_collision_scratch* scratch,
								   kl_collision_test_result* out);

/// The contacts the engine's mesh narrowphase makes of the pose: every triangle pair within the
/// margin or max_depth, whichever is larger, is a candidate (so a vertex as deep as a contact may go
/// finds its nearest surface, and both backends give the contacts of every pair); their vertex–face
/// and edge–edge contacts (signed by the vertices' pseudo-normals) are reduced to minimal contact sets
/// of at most 4 points per patch. The margin and max_depth apply as given (a world narrows them by
/// the bodies' thickness and motion). Errors as kl_collision_test.
KL_API kl_result kl_collision_contacts(const kl_collision_model* a, const kl_collision_pose* pose_a,
									   const kl_collision_model* b, const kl_collision_pose* pose_b,
									   const kl_collision_query_def* def, kl_collision_scratch* scratch,
									   kl_collision_contact_result* out);

/// The minimum distance between the surfaces, with the closest triangles and points: exact up to
/// float rounding of the triangles (the same exact triangle distance on every path). Errors as
/// kl_collision_test.
KL_API kl_result kl_collision_distance(const kl_collision_model* a, const kl_collision_pose* pose_a,
									   const kl_collision_model* b, const kl_collision_pose* pose_b,
									   const kl_collision_query_def* def, kl_collision_scratch* scratch,
									   kl_collision_distance_result* out);

KL_C_END
