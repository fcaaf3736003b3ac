// Shared test mesh: the cube [-0.5, 0.5]^3 as a closed triangle mesh.
// SPDX-License-Identifier: MIT
#pragma once

#include "kl_test.h"

#include <kollide/kollide.h>

// Outward counter-clockwise.
static const vec3s kl_test_cube_vertices[8] = {
	{{-0.5f, -0.5f, -0.5f}}, {{0.5f, -0.5f, -0.5f}}, {{0.5f, 0.5f, -0.5f}}, {{-0.5f, 0.5f, -0.5f}},
	{{-0.5f, -0.5f, 0.5f}},	 {{0.5f, -0.5f, 0.5f}},	 {{0.5f, 0.5f, 0.5f}},	 {{-0.5f, 0.5f, 0.5f}},
};
static const int32_t kl_test_cube_indices[36] = {
	0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5,
};

/// A mesh of the arrays built with the default mesh settings (the caller releases it).
static inline kl_mesh* kl_test_mesh_build(const vec3s* vertices, int vertex_count, const int32_t* indices,
										  int triangle_count)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = vertex_count;
	def.indices = indices;
	def.triangle_count = triangle_count;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	return mesh;
}

/// The unit cube built with the default mesh settings (the caller destroys it).
static inline kl_mesh* kl_test_cube_mesh(void)
{
	return kl_test_mesh_build(kl_test_cube_vertices, 8, kl_test_cube_indices, 12);
}
