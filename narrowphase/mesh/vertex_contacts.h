// Kollide internal — contacts of two triangle meshes from their candidate triangle pairs, as vertex
// against surface and convex edge against convex edge. Each vertex of one mesh near the other gets
// the other's nearest surface point and a signed distance whose sign comes from the angle-weighted
// pseudo-normal of the nearest feature (Bærentzen and Aanæs 2005): it is the true local depth, so
// a rim that grazes a rim by a tenth of a millimetre gives a tenth of a millimetre, never the depth
// of a whole triangle sideways as face normals of crossing triangle pairs do. Convex edges that
// cross convex edges (two bars lying crosswise, whose contact corners hold no vertex) add the
// edge–edge depth along e_a × e_b where that axis lies in both edges' normal arcs (tri_edge.h).
// SPDX-License-Identifier: MIT
#pragma once

#include "collide_mesh.h"
#include "tri_contact.h"

/// Appends the contacts of sets a and b (normals from a to b) found from their candidate pairs to
/// scratch->contacts, starting at index `start`; returns the new count, or -1 when out of memory.
/// The pairs must hold every triangle pair within config->margin of each other (the BVH's
/// within-margin query does): then every vertex within the margin finds its nearest surface among
/// them; a vertex that seems deeper than the margin is checked against the other set's whole BVH.
///  - vertex contacts, both ways: separation in [-max_depth, margin]; the normal is the face
///    normal where the nearest point is inside a face, else along the nearest-point direction;
///    the id follows the vertex alone, so a vertex sliding over faces keeps its warm start.
///  - edge contacts: each pair of convex edges (neighbours known, each edge taken once) whose
///    lines' closest points lie inside both edges, whose axis lies in both arcs, and whose
///    separation is within [-max_depth, margin].
/// Sets without vertex normals give no vertex contacts of their own vertices.
int kl_vertex_contacts(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_pair* pairs, int pair_count,
					   const kl_tri_contact_config* config, const kl_vertex_motion* motion, kl_mesh_scratch* scratch,
					   int start);

/// The vertex contacts of a set against a plane (world normal `normal`, unit; its solid is
/// normal · x <= offset) into scratch->contacts from index 0, normals from a to b (plane_is_a: the
/// plane is a); returns the count, or -1 when out of memory. Each vertex is taken as against a
/// face of a box (kl_vertex_contacts): within config->margin and, with motion, within how far it
/// can travel relative to the plane this step plus motion->reach; its normal cone (widened as
/// there) must hold the direction into the plane; the id follows the vertex. A plane is a
/// half-space, so no depth bounds a vertex below it.
int kl_plane_vertex_contacts(vec3s normal, float offset, const kl_triangle_set* set, bool plane_is_a,
							 const kl_tri_contact_config* config, const kl_vertex_motion* motion,
							 kl_mesh_scratch* scratch);

/// The signed distance (m, negative inside) from world point p to the set's surface, from its
/// nearest point in the whole BVH and that feature's pseudo-normal; DBL_MAX when no surface lies
/// within `within`. Exact for closed meshes.
double kl_set_signed_distance(const kl_triangle_set* set, vec3s p, double within);
