// Kollide internal — what the vertex contacts (vertex_contacts.c) and the edge contacts
// (edge_contacts.c) of two meshes share: nearest surface points, signed point contacts, normal
// cones and the per-query cache of neighbour vertices; and the edge contacts' entry points.
// SPDX-License-Identifier: MIT
#pragma once

#include "collide_mesh.h"
#include "dvec3.h"
#include "tri_contact.h"
#include "tri_edge.h"

/// The nearest point of a set's surface to a point, with the feature it lies on.
typedef struct kl_nearest
{
	double d2;
	vec3s point;
	int tri;
	uint8_t feature;
} kl_nearest;

static inline kl_d3 kl_f3(vec3s v)
{
	return kl_d3_make(v.x, v.y, v.z);
}

static inline kl_d3 kl_d3_unit(kl_d3 v)
{
	double len = sqrt(kl_d3_dot(v, v));
	return len > 0.0 ? kl_d3_scale(v, 1.0 / len) : v;
}

/// Unit normal of a world triangle (zero when it has no area).
static inline kl_d3 kl_face_normal(const vec3s t[3])
{
	return kl_d3_unit(kl_d3_cross(kl_d3_rel(t[1], t[0]), kl_d3_rel(t[2], t[0])));
}

/// Keeps triangle tri of the set (placed in the world) when it is nearer to p than best.
void kl_offer_triangle(const kl_triangle_set* set, vec3s p, int tri, kl_nearest* best);
/// The pseudo-normal of the nearest feature (world): the face normal, the sum of the two face
/// normals of an edge, or the vertex's angle-weighted normal.
kl_d3 kl_pseudo_normal(const kl_triangle_set* set, const kl_nearest* near);
/// A point p of set p's surface against set q's (vertex_contacts.c has the details): a contact when
/// its signed distance lies within [-max_depth, margin].
bool kl_point_contact(const kl_triangle_set* q_set, bool p_is_a, vec3s p, kl_nearest* near, bool search_tree,
					  double trusted, double complete, const kl_tri_contact_config* config, kl_tri_contact* out);
/// Whether the contact's normal, seen from p's side (pointing into q), lies in the normal cone of
/// p's feature (around `axis`, half-angle cosine cone_cos, widened by a slack of about 10°).
bool kl_normal_in_cone(kl_d3 axis, double cone_cos, const kl_tri_contact* c, bool p_is_a);
/// Triangle tri's neighbours across its edges through the query's vertex cache; NULL without
/// adjacency.
const kl_tri_edges* kl_cached_edges(kl_mesh_scratch* s, int side, const kl_triangle_set* set, int tri,
									kl_tri_edges* edges);

// edge_contacts.c

/// Records where edges of triangle tri (world t, normal n) of the set on `side` cross triangle
/// `other` (world u, normal m) of the other set, into scratch->pierces. False when out of memory.
bool kl_pair_pierces(const kl_triangle_set* s, int side, int tri, const vec3s t[3], kl_d3 n, int other,
					 const vec3s u[3], kl_d3 m, kl_mesh_scratch* scratch);
/// The contacts of the recorded pierces (one per crossing edge's stretch inside the other body),
/// appended at `count`; returns the new count, or -1 when out of memory.
int kl_pierce_contacts(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_contact_config* config,
					   kl_mesh_scratch* scratch, int count);
/// The edge contacts of one pair (world triangles and unit normals given) at most `farthest` apart.
int kl_pair_edge_contacts(const kl_triangle_set* a, const kl_triangle_set* b, kl_tri_pair pair, const vec3s ta[3],
						  kl_d3 na, const vec3s tb[3], kl_d3 nb, double farthest, const kl_tri_contact_config* config,
						  kl_mesh_scratch* scratch, kl_tri_contact* out);
