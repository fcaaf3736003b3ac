// Kollide internal — convex hull: the half-edge polyhedron shared with the narrowphase, and the
// pieces of its builder: input and welding (hull_weld.c), quickhull (hull_build.c), disk-shaped
// region growing (hull_region.c) and coplanar merging into polygons (hull_merge.c).
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/geometry.h>

/// One half-edge. Edges 2k and 2k + 1 are twins, so that a SAT edge loop can step by two and
/// visit every edge once (Gregorius, "The Separating Axis Test between Convex Polyhedra").
typedef struct kl_hull_half_edge
{
	int32_t origin; ///< vertex the edge leaves
	int32_t twin;	///< the opposite half-edge (index ^ 1)
	int32_t next;	///< next half-edge counter-clockwise around face
	int32_t face;
} kl_hull_half_edge;

/// A convex polygon face (convex and planar to within the hull's tolerance). Its plane is
/// dot(normal, x) = offset with an outward unit normal: the plane of the largest triangle merged
/// into the face, which supports the whole point set, moved out to the face's highest vertex.
/// So every vertex is on or below every face plane, and the face's vertices lie within two
/// tolerances below it. Input points that kl_hull_build dropped before its last rebuild (from
/// the hull's own vertices) may be a few tolerances outside.
typedef struct kl_hull_face
{
	vec3s normal;
	float offset;
	int32_t edge; ///< first half-edge of the loop
	int32_t edge_count;
} kl_hull_face;

struct kl_hull
{
	vec3s* vertices;
	kl_hull_half_edge* edges;
	kl_hull_face* faces;
	int32_t* triangles; ///< fan triangulation, 3 indices per triangle, outward counter-clockwise
	int vertex_count;
	int edge_count; ///< half-edges (twice the polyhedron's edges)
	int face_count;
	int triangle_count;
	vec3s centroid; ///< centre of volume
	kl_aabb bounds;
	/// Coplanarity and weld tolerance the hull was built with (a length).
	float tolerance;
};

/// Checks the half-edge structure (twins, next loops, faces, counts, Euler characteristic).
/// Returns false with a message in kl_last_error() on the first inconsistency. For tests and asserts.
bool kl_hull_validate(const kl_hull* hull);

// ---------------------------------------------------------------------------------------------
// Builder internals

/// A triangle of the intermediate hull: vertex indices (outward counter-clockwise) and the
/// neighbouring triangle across edge i = (v[i], v[(i + 1) % 3]).
typedef struct kl_hull_tri
{
	int32_t v[3];
	int32_t adj[3];
} kl_hull_tri;

/// Checked and welded input points in double precision, with the tolerances (hull_weld.c).
typedef struct kl_hull_points
{
	double* xyz; ///< count xyz triplets, owned
	int count;
	double epsilon;	  ///< round-off bound of a point-plane distance
	double tolerance; ///< flatness length: welding, degeneracy and merging
	/// Deviation from a plane that float rounding of the input alone explains (<= tolerance).
	double flat_tolerance;
} kl_hull_points;

/// Validates the input (NULL, count, limit, NaN/Inf) and welds points closer than the tolerance.
/// out->xyz is owned by the caller (kl_free) whatever the result.
kl_result kl_hull_prepare_points(const vec3s* points, int count, kl_hull_points* out);

/// The closed triangulated hull produced by quickhull, before coplanar faces are merged.
typedef struct kl_hull_trimesh
{
	double* points; ///< xyz triplets (welded input points; not all are used)
	kl_hull_tri* tris;
	int point_count;
	int tri_count;
	/// Coplanarity tolerance (a length) for merging, and the part of it due to rounding alone
	/// (see kl_hull_points).
	double tolerance;
	double flat_tolerance;
} kl_hull_trimesh;

/// Prepares the points and builds their triangulated convex hull (quickhull in double).
kl_result kl_hull_quickhull(const vec3s* points, int count, kl_hull_trimesh* out);
void kl_hull_trimesh_free(kl_hull_trimesh* mesh);

/// Merges coplanar triangles into convex polygons and builds the final half-edge hull.
kl_hull* kl_hull_from_trimesh(const kl_hull_trimesh* mesh);

/// Allocates a hull with room for its arrays; triangles must be the sum over faces of (edges - 2).
kl_hull* kl_hull_alloc(int vertices, int half_edges, int faces, int triangles);
/// Fills in the triangulation, centroid and bounds of a hull whose vertices, edges and faces are set.
void kl_hull_finish(kl_hull* hull);

/// Accepts or rejects a triangle for a growing region.
typedef bool kl_hull_accept_fn(int tri, void* context);

/// Grows a region of triangles that stays a topological disk (a shelling: each added triangle
/// meets the region in one edge plus a new vertex, or in two edges). A disk has a single simple
/// boundary loop, which is what both the quickhull horizon and a merged polygon face need.
/// A triangle refused because it would pinch the region is queued again when one of its
/// neighbours joins, the only change that can make it acceptable; planar disks can always be
/// completed this way (2-balls are extendably shellable).
typedef struct kl_hull_region
{
	const kl_hull_tri* tris;
	int32_t* tri_mark;	  ///< triangle t is in the region iff tri_mark[t] == stamp
	int32_t* vertex_mark; ///< vertex v touches the region iff vertex_mark[v] == stamp
	int32_t stamp;
	int32_t* members; ///< triangles in the order they were added
	int member_count;
	int member_capacity;
	int32_t* queue;
	int queue_capacity;
} kl_hull_region;

/// Grows the region with a fresh stamp from seed (accepted unconditionally). False on OOM.
bool kl_hull_region_grow(kl_hull_region* region, int seed, int32_t stamp, kl_hull_accept_fn* accept, void* context);
void kl_hull_region_free(kl_hull_region* region);
