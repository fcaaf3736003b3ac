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

/// The unit cube built with the default mesh settings (the caller destroys it).
static inline kl_mesh* kl_test_cube_mesh(void)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = kl_test_cube_vertices;
	def.vertex_count = 8;
	def.indices = kl_test_cube_indices;
	def.triangle_count = 12;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	return mesh;
}
