// Kollide internal — triangle adjacency: for each edge of each triangle, the third vertex of the
// triangle on the other side. The mesh contact generator reads an edge's convexity and normal arc
// from it (tri_contact.h), which two triangles alone cannot tell.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

#include <stdint.h>

/// Fills opposite[3·t + k] with the vertex index across edge k (vertex k to k + 1) of triangle t:
/// the third vertex of the one other triangle that uses the edge in the opposite direction. An
/// open edge, an edge shared by more than two triangles, or one whose neighbour runs the same
/// direction (inconsistent orientation) gets -1: no neighbour is trusted there. O(n log n).
/// Returns KL_OK, or an error (bad arguments, out of memory) with opposite untouched.
kl_result kl_triangle_opposites(const int32_t* indices, int triangle_count, int32_t* opposite);

/// Fills neighbour[3·t + k] with the triangle across edge k of triangle t, under the same rules as
/// kl_triangle_opposites (-1 where no neighbour is trusted).
kl_result kl_triangle_neighbours(const int32_t* indices, int triangle_count, int32_t* neighbour);

/// Fills normals[v] with vertex v's angle-weighted pseudo-normal (Bærentzen and Aanæs 2005): the
/// unit sum of its triangles' normals, each weighted by the triangle's angle at v. For a closed,
/// consistently oriented mesh, a point whose closest surface point is vertex v lies outside
/// exactly when (point − v) · normals[v] > 0, which face normals alone cannot tell. Vertices
/// that no triangle with area uses get a zero vector. When cone_cos is not NULL, cone_cos[v] is the
/// cosine of the widest angle between normals[v] and the normals of v's triangles: the vertex's
/// normal cone, approximated by a circular cone (1 for a vertex inside a flat region, 0 and below
/// for a sharp corner). Returns KL_OK, or an error on bad arguments.
kl_result kl_vertex_pseudo_normals(const vec3s* vertices, int vertex_count, const int32_t* indices,
								   int triangle_count, vec3s* normals, float* cone_cos);
