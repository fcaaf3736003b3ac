// Kollide — a box as a half-edge hull without allocation, so boxes share the polyhedron code.
// SPDX-License-Identifier: MIT
#include "collide_pairs.h"

#include <float.h>
#include <string.h>

// Vertex i is (±hx, ±hy, ±hz) with bit 0, 1, 2 of i selecting the + sign of x, y, z. Faces are
// +x, -x, +y, -y, +z, -z; their loops run counter-clockwise seen from outside. The half-edges
// were numbered by walking the faces in order and giving each new undirected edge the next pair
// 2k, 2k + 1 (the first direction met gets 2k), so twins are index ^ 1 as hull.h requires.
// Everything here is a constant of the topology; only positions and offsets depend on the box.

static const kl_hull_half_edge kl_box_edges[24] = {
	// origin, twin, next, face
	{1, 1, 2, 0},  {3, 0, 21, 5}, {3, 3, 4, 0},	 {7, 2, 18, 2}, {7, 5, 6, 0},	{5, 4, 17, 4},
	{5, 7, 0, 0},  {1, 6, 22, 3}, {0, 9, 10, 1}, {4, 8, 20, 3}, {4, 11, 12, 1}, {6, 10, 23, 4},
	{6, 13, 14, 1}, {2, 12, 16, 2}, {2, 15, 8, 1}, {0, 14, 19, 5}, {6, 17, 3, 2}, {7, 16, 11, 4},
	{3, 19, 13, 2}, {2, 18, 1, 5}, {0, 21, 7, 3},  {1, 20, 15, 5}, {5, 23, 9, 3},	{4, 22, 5, 4},
};

/// First half-edge of each face; its origin is the first vertex of the loop below.
static const int32_t kl_box_face_edge[6] = {0, 8, 13, 20, 23, 15};

/// Face loops (counter-clockwise from outside) and their fan triangles, as the hull builder's
/// kl_hull_finish would make them (fan from the origin of the face's first half-edge).
static const int32_t kl_box_triangles[36] = {
	1, 3, 7, 1, 7, 5, // +x
	0, 4, 6, 0, 6, 2, // -x
	2, 6, 7, 2, 7, 3, // +y
	0, 1, 5, 0, 5, 4, // -y
	4, 5, 7, 4, 7, 6, // +z
	0, 2, 3, 0, 3, 1, // -z
};

/// Outward face normals, in face order.
static const vec3s kl_box_normals[6] = {{{1, 0, 0}}, {{-1, 0, 0}}, {{0, 1, 0}}, {{0, -1, 0}}, {{0, 0, 1}}, {{0, 0, -1}}};

const kl_hull* kl_make_box_hull(kl_box_hull* s, vec3s h)
{
	float x = h.x, y = h.y, z = h.z;
	s->vertices[0] = kl_vec3(-x, -y, -z);
	s->vertices[1] = kl_vec3(x, -y, -z);
	s->vertices[2] = kl_vec3(-x, y, -z);
	s->vertices[3] = kl_vec3(x, y, -z);
	s->vertices[4] = kl_vec3(-x, -y, z);
	s->vertices[5] = kl_vec3(x, -y, z);
	s->vertices[6] = kl_vec3(-x, y, z);
	s->vertices[7] = kl_vec3(x, y, z);
	memcpy(s->edges, kl_box_edges, sizeof(kl_box_edges));
	memcpy(s->triangles, kl_box_triangles, sizeof(kl_box_triangles));
	const float offsets[6] = {x, x, y, y, z, z};
	for (int f = 0; f < 6; ++f)
	{
		s->faces[f].normal = kl_box_normals[f];
		s->faces[f].offset = offsets[f];
		s->faces[f].edge = kl_box_face_edge[f];
		s->faces[f].edge_count = 4;
	}
	kl_hull* hull = &s->hull;
	hull->vertices = s->vertices;
	hull->edges = s->edges;
	hull->faces = s->faces;
	hull->triangles = s->triangles;
	hull->vertex_count = 8;
	hull->edge_count = 24;
	hull->face_count = 6;
	hull->triangle_count = 12;
	hull->centroid = kl_vec3(0.0f, 0.0f, 0.0f);
	hull->bounds.lower = kl_vec3(-x, -y, -z);
	hull->bounds.upper = h;
	// The builder's rule (hull_weld.c): 1e-5 of the extent, at least the float rounding of the coordinates.
	float largest = glm_max(x, glm_max(y, z));
	hull->tolerance = glm_max(2.0e-5f * largest, FLT_EPSILON * (x + y + z));
	return hull;
}
