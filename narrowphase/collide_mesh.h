// Kollide internal — mesh contacts through the SIMD k-DOP BVH: triangle meshes (and convex shapes
// seen as their triangles) against each other, reduced to minimal contact sets; meshes on planes.
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"
#include "manifold.h"

/// Most manifolds (contact patches) one mesh pair keeps.
#define KL_MESH_MAX_MANIFOLDS 8

/// A triangle set placed in the world: vertices in its own frame, scaled per axis, then xf.
typedef struct kl_triangle_set
{
	const kl_bvh* bvh;
	const vec3s* vertices;
	int vertex_count;
	const int32_t* indices;
	/// 3 per triangle: the vertex across each edge (tri_adjacency.h), or NULL when unknown. With
	/// it, rims crossing rims find their true way out (kl_tri_contacts_with_edges).
	const int32_t* opposite;
	/// Smallest extent of the set's bounds (scaled), 0 when unknown. Deeper than half the thinner
	/// set's thickness a face pair is the far side of a body, not a contact.
	float thickness;
	vec3s scale;
	kl_transform xf;
} kl_triangle_set;

/// Working memory of the mesh queries, grown on demand and reused (one per worker thread, so the
/// step allocates nothing once warm). Zero-initialise; free with kl_mesh_scratch_free.
typedef struct kl_mesh_scratch
{
	struct kl_tri_contact* contacts;
	int contact_capacity;
	kl_manifold_point* points;
	int point_capacity;
} kl_mesh_scratch;

void kl_mesh_scratch_free(kl_mesh_scratch* scratch);

/// Contacts between two triangle sets within `margin`, as at most max_manifolds manifolds (normals
/// from a to b). Returns the manifold count. Solver fields are zero. When the sets' thicknesses
/// are known, margin's fixed part (KL_SPECULATIVE_DISTANCE) shrinks to a quarter of the thinner
/// set, between KL_LINEAR_SLOP / 2 and KL_LINEAR_SLOP, and deeper than half of it a pair is not a
/// contact.
int kl_collide_triangle_sets(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
							 kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds);

/// A sphere or capsule against a triangle set: the round shape is given as a set holding its core
/// (one degenerate triangle: the centre, or the segment) and its radius; contacts where the surface
/// comes within margin, reduced as above. round_is_a says which set is the round one.
int kl_collide_round_triangle_set(const kl_triangle_set* a, const kl_triangle_set* b, bool round_is_a, float radius,
								  float margin, kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds);

/// A plane (shape frame xf_a) against a triangle set: its vertices within margin of the plane,
/// reduced to one manifold (normal = the plane's). Returns 0 or 1.
int kl_collide_plane_triangle_set(kl_plane plane, kl_transform xf_a, const kl_triangle_set* b, float margin,
								  kl_manifold* out);
