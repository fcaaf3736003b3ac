// Kollide internal — the collision models and scratch behind include/kollide/collision.h, shared by
// collision_model.c (models, poses, scratch), collision_query.c (boolean and contact queries) and
// collision_distance.c (the distance).
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"
#include "collide_mesh.h"
#include "mesh.h"
#include "pointshell.h"

#include <kollide/collision.h>

struct kl_collision_model
{
	kl_mesh* mesh; ///< one reference
	const kl_bvh* tree; ///< the mesh's, or own_tree
	kl_bvh* own_tree;	///< built for a def other than the engine's tree, else NULL
	/// Every node's DOP in the mesh frame (float, rounded outward), for the distance search: inner
	/// node n at inner_lo/hi[n·axes], triangle t's leaf at leaf_lo/hi[t·axes].
	float* inner_lo;
	float* inner_hi;
	float* leaf_lo;
	float* leaf_hi;
	double node_abs_max; ///< largest |value| of the arrays above (realignment rounding allowance)
	double center[3];	 ///< AABB centre
	double radius;		 ///< bounding radius about it
	double prepare_seconds;
};

/// B's pose in A's frame: x_a = m·x_b + t (double), its inverse, and m34 = [m | t] in float for the
/// BVH traversal and the point-shell search.
typedef struct kl_rel_pose
{
	double m[3][3];
	double t[3];
	double inv_m[3][3];
	double inv_t[3];
	float m34[12];
} kl_rel_pose;

typedef struct kl_collision_heap_item
{
	float bound;
	int32_t a; ///< ≥ 0 inner node, < 0 leaf −1 − triangle
	int32_t b;
} kl_collision_heap_item;

struct kl_collision_scratch
{
	kl_mesh_scratch mesh; ///< contacts: the engine's mesh-contact memory and the candidate pairs
	kl_ps_batch batch;	  ///< the point-shell search's memory and keys
	bool out_of_memory;
	kl_collision_heap_item* heap;
	int heap_count;
	int heap_capacity;
	/// A's DOPs realigned into B's frame, cached per query (stamp == current stamp means valid).
	float* realigned_inner;
	float* realigned_leaf;
	uint32_t* stamp_inner;
	uint32_t* stamp_leaf;
	uint32_t stamp;
	int cache_inner;
	int cache_leaf;
	int cache_axes;
	vec3s* moved_b; ///< exhaustive: all of B's vertices moved into A's frame
	int moved_capacity;
	kl_collision_counters counters; ///< of the running query
};

/// One query's models, pose and settings after the checks every query runs.
typedef struct kl_collision_call
{
	const kl_collision_model* a;
	const kl_collision_model* b;
	kl_rel_pose pose;	 ///< B in A's frame
	kl_collision_pose world_a; ///< A's pose (results go to the world through it)
	kl_collision_query_def def;
	kl_bvh_traversal traversal;
	kl_collision_scratch* scratch;
	kl_collision_scratch* own_scratch; ///< made for this call (scratch NULL), freed by kl_collision_end
	/// The caller's error state: a query that succeeds leaves kl_last_error() as it found it, one that
	/// fails reports its own failure (the state is cleared while it runs).
	kl_error_state saved_error;
} kl_collision_call;

/// Checks the arguments and sets up call (a scratch of its own when given none). `what` names the
/// query in messages. KL_OK or the failure (recorded).
kl_result kl_collision_begin(const char* what, const kl_collision_model* a, const kl_collision_pose* pose_a,
							 const kl_collision_model* b, const kl_collision_pose* pose_b,
							 const kl_collision_query_def* def, kl_collision_scratch* scratch, void* out,
							 kl_collision_call* call);
/// Frees what kl_collision_begin made; with result KL_OK, restores the caller's error state.
void kl_collision_end(kl_collision_call* call, kl_result result);

/// The failure of a query step: the one recorded while the query ran, else out of memory.
kl_result kl_collision_failure(const char* what);

/// A point of A's frame in the world (double, rounded once).
vec3s kl_collision_to_world(const kl_collision_call* call, vec3s p);
/// A direction of A's frame in the world.
vec3s kl_collision_dir_to_world(const kl_collision_call* call, vec3s v);

/// B's vertex i moved into A's frame (double, rounded once to float: every path uses this function,
/// so their exact tests see the same triangles).
vec3s kl_collision_move_vertex(const kl_collision_model* b, const kl_rel_pose* pose, int i);
/// A's triangle in its frame.
void kl_collision_triangle_a(const kl_collision_model* a, int tri, vec3s out[3]);
/// B's triangle moved into A's frame.
void kl_collision_triangle_b(const kl_collision_model* b, const kl_rel_pose* pose, int tri, vec3s out[3]);
/// Exhaustive paths: B's triangle from the pre-moved vertices (kl_collision_move_all).
void kl_collision_triangle_moved(const kl_collision_model* b, const vec3s* moved, int tri, vec3s out[3]);
/// Moves all of B's vertices into scratch->moved_b; false when out of memory.
bool kl_collision_move_all(const kl_collision_call* call);

/// Adds a traversal's counters.
void kl_collision_add_bvh_counters(kl_collision_scratch* s, const kl_bvh_result* result);

/// The first pair that shares a point (BVH first-hit traversal, the point-shell candidates in key
/// order, or every pair in order), into *tri_a, *tri_b; counters added. False when apart or on failure
/// (*failed set, recorded).
bool kl_collision_first_hit(const kl_collision_call* call, int* tri_a, int* tri_b, bool* failed);

/// The point-shell candidates of the pose within `alarm` (plus the rounding slack of the float pose)
/// into call->scratch->batch.keys; counters added. False on failure (recorded).
bool kl_collision_pointshell_search(const kl_collision_call* call, float alarm);
