// Kollide — mesh-pair queries shared by kollide-collide and kollide-poses: loading (files or meshgen),
// BVH preparation, boolean / contact / distance / closest-pair queries (BVH and exhaustive reference) with
// their work counters, pose files.
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"
#include "collide_mesh.h"
#include "contact_patches.h"

#include <stdio.h>

/// One mesh with its tree and the per-node DOPs that the distance search needs (mesh frame, float,
/// rounded outward): inner node n at inner_lo/hi[n·axes], triangle t's leaf at leaf_lo/hi[t·axes].
typedef struct kl_pair_model
{
	float* vertices; ///< 3 floats per vertex
	int vertex_count;
	int32_t* indices; ///< 3 per triangle
	int triangle_count;
	double centre[3]; ///< AABB centre
	double radius;	  ///< bounding radius about the AABB centre
	kl_bvh* tree;
	float* inner_lo;
	float* inner_hi;
	float* leaf_lo;
	float* leaf_hi;
	double node_abs_max; ///< largest |value| of the arrays above (realignment rounding allowance)
	/// What the mesh contacts read (kl_mesh_pair_contacts): the vertex across each triangle edge, and
	/// per vertex its pseudo-normal and normal cone (tri_adjacency.h).
	int32_t* opposite;
	vec3s* vertex_normals;
	float* vertex_cone_cos;
	double prepare_seconds; ///< filling the arrays above (after kl_bvh_build)
} kl_pair_model;

/// Loads a mesh file (OBJ, STL, OFF, PLY) or makes one with meshgen for "gen:NAME[:N]": gear (N teeth),
/// rock (frequency N: 20·N² triangles), screw, nut, bowl, knot. False with a message in err.
bool kl_pair_load(const char* spec, kl_pair_model* model, char* err, size_t err_size);

/// Builds the tree and the node arrays. False with a message in err.
bool kl_pair_prepare(kl_pair_model* model, const kl_bvh_build_def* def, char* err, size_t err_size);
void kl_pair_free(kl_pair_model* model);

/// A pose of B in A's frame: x_a = m·x_b + t, with the inverse for the distance search.
typedef struct kl_pair_pose
{
	double m[3][3];
	double t[3];
	double inv_m[3][3];
	double inv_t[3];
	float m34[12];
} kl_pair_pose;

/// From a row-major 3×4 [M | t]. False when M is not a rotation (within 1e-4).
bool kl_pair_pose_make(const double m34[12], kl_pair_pose* pose);

/// Per-thread working memory of the queries (grown on demand; zero-initialise, free with
/// kl_pair_scratch_free).
typedef struct kl_pair_heap_item
{
	float bound;
	int32_t a; ///< ≥ 0 inner node, < 0 leaf −1 − triangle
	int32_t b;
} kl_pair_heap_item;

typedef struct kl_pair_scratch
{
	kl_mesh_scratch mesh; ///< contacts: the engine's mesh-contact working memory and candidate pairs
	bool out_of_memory;
	kl_pair_heap_item* heap;
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
	float* moved_b; ///< brute force: all of B's vertices moved into A's frame
	int moved_capacity;
	/// Work of the last query (each query function resets them): BV tests are DOP pair tests of the
	/// traversals plus DOP lower bounds of the distance search; triangle tests are exact
	/// triangle–triangle tests (overlap, contacts or distance).
	int64_t bv_tests;
	int64_t tri_tests;
} kl_pair_scratch;

void kl_pair_scratch_free(kl_pair_scratch* scratch);

typedef struct kl_pair_settings
{
	kl_bvh_traversal traversal;
	float margin; ///< contacts: speculative margin (≥ 0)
} kl_pair_settings;

typedef struct kl_pair_contacts
{
	int points;	  ///< contact points after minimal contact sets
	float depth;  ///< deepest penetration among them, 0 when none
	int manifolds;
} kl_pair_contacts;

/// Whether the meshes share a point (exact triangle test). brute: every triangle pair.
bool kl_pair_collide(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
					 const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute);

/// Contact points of the pose: the engine's mesh contacts (kl_mesh_pair_contacts) from every
/// triangle pair within the margin (the BVH walk, or all pairs when brute), then minimal contact sets.
bool kl_pair_contacts_query(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
							const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute,
							kl_pair_contacts* out);

/// Minimum distance between the surfaces, 0 when they intersect. BVH: a first-hit overlap query, then a
/// best-first search over node pairs ordered by a DOP separation lower bound. brute: every triangle pair.
/// Returns a negative value when memory ran out.
double kl_pair_distance(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
						const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute);

/// The closest pair of triangles of a pose, for cost heatmaps.
typedef struct kl_pair_closest
{
	double distance;   ///< 0 when the meshes intersect
	int tri_a;		   ///< A's triangle holding the closest point
	int tri_b;		   ///< B's triangle holding the closest point
	float point_a[3];  ///< closest points in A's frame (a common point when intersecting)
	float point_b[3];
	bool intersecting;
} kl_pair_closest;

/// The pair of triangles that realises the minimum distance (the exact best-first search of
/// kl_pair_distance). Intersecting meshes have no single closest pair: of every triangle pair that
/// intersects (exact test) it takes the lowest tri_a, then the lowest tri_b, so the choice does not
/// depend on the tree or the traversal. False when memory ran out.
bool kl_pair_closest_query(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
						   const kl_pair_settings* settings, kl_pair_scratch* scratch, kl_pair_closest* out);

/// A pose file: one 4×4 row-major matrix per line, '#' comments, "# rel=X" starting a group.
typedef struct kl_pose_file
{
	double* m34; ///< 12 per pose
	int* group;	 ///< group index per pose (0 when the file has no "# rel=" comments)
	int count;
	char** group_names; ///< "rel=0.2" …, or "all"
	int group_count;
} kl_pose_file;

/// False with "path:line: why" in err for a malformed line.
bool kl_pose_file_read(const char* path, kl_pose_file* out, char* err, size_t err_size);
void kl_pose_file_free(kl_pose_file* file);

/// Monotonic clock in seconds.
double kl_pair_now(void);

/// Sorts n doubles ascending.
void kl_pair_sort(double* v, int n);
/// The median of n >= 1 sorted values.
double kl_pair_median_sorted(const double* v, int n);
/// Prints the statistics line of one pose group, `group NAME n= mean_us= median_us= min_us= max_us=
/// sd_us= mad_us=` (MAD: median absolute deviation), as kollide-collide and the peers print it.
/// Reorders us.
void kl_pair_print_group_stats(const char* name, double* us, int n);
