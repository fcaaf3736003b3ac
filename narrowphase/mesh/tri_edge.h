// Kollide internal — edge against edge penetration for crossing triangles whose neighbours are
// known: the axis e_a × e_b, kept only where it lies in both edges' normal arcs (the Gauss map of a
// convex edge), gives the small depth two meshes have where a rim crosses a rim (two gears lying on
// each other: the tooth flanks cross by the sink depth, but neither flank's normal is the way out).
// SPDX-License-Identifier: MIT
#pragma once

#include "dvec3.h"
#include "tri_contact.h"

/// An edge-edge separating direction of a crossing triangle pair.
typedef struct kl_tri_edge_axis
{
	kl_d3 normal;	///< unit, from a to b, in both edges' arcs
	kl_d3 point;	///< midway between the edges' closest points (relative to the caller's origin)
	double depth;	///< how far a's edge reaches past b's along normal (negative: apart)
	int edge_a;		///< 0..2
	int edge_b;
} kl_tri_edge_axis;

/// The shallowest edge-edge axis of triangles A and B (vertices relative to origin, unit normals
/// na and nb), using the neighbour vertices in edges_a / edges_b (world, may be NULL: no axis).
/// Concave edges, edges without a trusted neighbour, parallel edges and closest points outside
/// either edge give no axis. False when there is none.
bool kl_tri_edge_axis_find(const kl_d3 A[3], kl_d3 na, const kl_tri_edges* edges_a, const kl_d3 B[3], kl_d3 nb,
						   const kl_tri_edges* edges_b, vec3s origin, kl_tri_edge_axis* best);

/// Every pair of convex edges (edge i of A where bit i of mask_a is set, likewise for B) whose axis
/// e_a × e_b lies in both edges' arcs, whose lines' closest points fall inside both edges, and
/// whose depth (negative: apart) lies in [min_depth, max_depth]. Flat edges (coplanar neighbours)
/// are left out: faces resting on faces hold by their vertices. Returns the count written.
int kl_tri_edge_pairs(const kl_d3 A[3], kl_d3 na, const kl_tri_edges* edges_a, unsigned mask_a, const kl_d3 B[3],
					  kl_d3 nb, const kl_tri_edges* edges_b, unsigned mask_b, vec3s origin, double min_depth,
					  double max_depth, kl_tri_edge_axis out[9]);
