// Mesh collision models: validation, welding, cleaning, topology, orientation, mass, refcount,
// progress and cancel.
// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <kollide/kollide.h>

#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Unit cube [0, 1]^3, outward counter-clockwise.
static const vec3s k_cube_vertices[8] = {
	{{0, 0, 0}}, {{1, 0, 0}}, {{1, 1, 0}}, {{0, 1, 0}}, {{0, 0, 1}}, {{1, 0, 1}}, {{1, 1, 1}}, {{0, 1, 1}},
};
static const int32_t k_cube_indices[36] = {
	0, 3, 2, 0, 2, 1, // bottom (z = 0)
	4, 5, 6, 4, 6, 7, // top (z = 1)
	0, 1, 5, 0, 5, 4, // front (y = 0)
	3, 7, 6, 3, 6, 2, // back (y = 1)
	0, 4, 7, 0, 7, 3, // left (x = 0)
	1, 2, 6, 1, 6, 5, // right (x = 1)
};

static kl_mesh_def cube_def(void)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = k_cube_vertices;
	def.vertex_count = 8;
	def.indices = k_cube_indices;
	def.triangle_count = 12;
	return def;
}

// The cube as a soup: three vertices per triangle, like STL.
static void cube_soup(vec3s vertices[36], int32_t indices[36])
{
	for (int i = 0; i < 36; ++i)
	{
		vertices[i] = k_cube_vertices[k_cube_indices[i]];
		indices[i] = i;
	}
}

static void assert_near(double actual, double expected, double tolerance)
{
	if (fabs(actual - expected) > tolerance)
	{
		fail_msg("%.9g differs from %.9g by more than %g", actual, expected, tolerance);
	}
}

static void test_default_def(void** state)
{
	(void)state;
	kl_mesh_def def = kl_default_mesh_def();
	assert_null(def.vertices);
	assert_int_equal(def.vertex_count, 0);
	assert_true(def.weld_tolerance == 0.0f);
	assert_null(def.progress);
}

static void test_cube_is_closed(void** state)
{
	(void)state;
	kl_mesh_def def = cube_def();
	def.source = "cube.obj";
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.vertex_count, 8);
	assert_int_equal(info.triangle_count, 12);
	assert_int_equal(info.welded_vertex_count, 0);
	assert_int_equal(info.degenerate_triangle_count, 0);
	assert_int_equal(info.open_edge_count, 0);
	assert_int_equal(info.non_manifold_edge_count, 0);
	assert_int_equal(info.inconsistent_edge_count, 0);
	assert_true(info.closed);
	assert_int_equal(info.mass_source, KL_MESH_MASS_VOLUME);
	assert_near(info.volume, 1.0, 1e-6);
	assert_true(info.bounds.lower.x == 0.0f && info.bounds.upper.z == 1.0f);
	assert_false(mesh->flipped);
	assert_string_equal(kl_mesh_source(mesh), "cube.obj");
	assert_memory_equal(kl_mesh_indices(mesh), k_cube_indices, sizeof(k_cube_indices));
	assert_memory_equal(kl_mesh_vertices(mesh), k_cube_vertices, sizeof(k_cube_vertices));
	kl_mesh_release(mesh);
}

static void assert_box_mass(kl_mass_data md, double density, double x, double y, double z, vec3s center)
{
	double m = density * x * y * z;
	assert_near(md.mass, m, 1e-5 * m);
	assert_near(md.center.x, center.x, 1e-5);
	assert_near(md.center.y, center.y, 1e-5);
	assert_near(md.center.z, center.z, 1e-5);
	double expected[3] = {m / 12.0 * (y * y + z * z), m / 12.0 * (x * x + z * z), m / 12.0 * (x * x + y * y)};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			assert_near(md.inertia.raw[i][j], i == j ? expected[i] : 0.0, 1e-5 * expected[0]);
		}
	}
}

static void test_mass_unit_cube_and_scaled(void** state)
{
	(void)state;
	kl_mesh_def def = cube_def();
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	assert_box_mass(kl_mesh_mass(mesh, 1.0f, kl_vec3(1, 1, 1)), 1.0, 1, 1, 1, kl_vec3(0.5f, 0.5f, 0.5f));
	// Non-uniform scale: exactly the 2 x 3 x 4 box, centre scaled with it.
	assert_box_mass(kl_mesh_mass(mesh, 2.5f, kl_vec3(2, 3, 4)), 2.5, 2, 3, 4, kl_vec3(1.0f, 1.5f, 2.0f));
	kl_mesh_release(mesh);
}

static void test_mass_far_from_origin(void** state)
{
	(void)state;
	vec3s moved[8];
	for (int i = 0; i < 8; ++i)
	{
		moved[i] = glms_vec3_add(k_cube_vertices[i], kl_vec3(1000.0f, -2000.0f, 500.0f));
	}
	kl_mesh_def def = cube_def();
	def.vertices = moved;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	assert_true(kl_mesh_get_info(mesh).closed);
	assert_box_mass(kl_mesh_mass(mesh, 1.0f, kl_vec3(1, 1, 1)), 1.0, 1, 1, 1, kl_vec3(1000.5f, -1999.5f, 500.5f));
	kl_mesh_release(mesh);
}

// Cross-check with kl_compute_polyhedron_mass on a shape with products of inertia: a skewed
// octahedron away from the origin.
static void test_mass_matches_polyhedron_mass(void** state)
{
	(void)state;
	const vec3s v[6] = {{{3.0f, 1.0f, 1.2f}},  {{1.0f, 1.5f, 0.8f}}, {{2.2f, 3.0f, 1.0f}},
						{{1.7f, -0.5f, 1.1f}}, {{2.0f, 1.0f, 2.9f}}, {{2.1f, 1.2f, -0.7f}}};
	// 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z
	const int32_t idx[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 6;
	def.indices = idx;
	def.triangle_count = 8;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	assert_true(kl_mesh_get_info(mesh).closed);
	kl_mass_data expected;
	assert_int_equal(kl_compute_polyhedron_mass(v, idx, 8, 3.0f, &expected), KL_OK);
	kl_mass_data md = kl_mesh_mass(mesh, 3.0f, kl_vec3(1, 1, 1));
	assert_near(md.mass, expected.mass, 1e-5 * expected.mass);
	for (int i = 0; i < 3; ++i)
	{
		assert_near(md.center.raw[i], expected.center.raw[i], 1e-5);
		for (int j = 0; j < 3; ++j)
		{
			assert_near(md.inertia.raw[i][j], expected.inertia.raw[i][j], 1e-4 * expected.inertia.raw[0][0]);
		}
	}
	assert_true(fabs(md.inertia.raw[0][1]) > 1e-3); // the check above covers products of inertia

	// Scaling the mesh is the same as integrating the scaled vertices.
	vec3s scaled[6];
	vec3s s = kl_vec3(0.5f, 2.0f, 1.5f);
	for (int i = 0; i < 6; ++i)
	{
		scaled[i] = glms_vec3_mul(v[i], s);
	}
	assert_int_equal(kl_compute_polyhedron_mass(scaled, idx, 8, 3.0f, &expected), KL_OK);
	md = kl_mesh_mass(mesh, 3.0f, s);
	assert_near(md.mass, expected.mass, 1e-5 * expected.mass);
	for (int i = 0; i < 3; ++i)
	{
		assert_near(md.center.raw[i], expected.center.raw[i], 1e-5);
		for (int j = 0; j < 3; ++j)
		{
			assert_near(md.inertia.raw[i][j], expected.inertia.raw[i][j], 1e-4 * expected.inertia.raw[0][0]);
		}
	}
	kl_mesh_release(mesh);
}

static void test_mass_rejects_bad_scale(void** state)
{
	(void)state;
	kl_mesh_def def = cube_def();
	kl_mesh* mesh = kl_mesh_build(&def);
	kl_mass_data md = kl_mesh_mass(mesh, 1.0f, kl_vec3(1, 0, 1));
	assert_true(md.mass == 0.0f);
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	md = kl_mesh_mass(mesh, 1.0f, kl_vec3(1, NAN, 1));
	assert_true(md.mass == 0.0f);
	md = kl_mesh_mass(mesh, -1.0f, kl_vec3(1, 1, 1));
	assert_true(md.mass == 0.0f);
	md = kl_mesh_mass(NULL, 1.0f, kl_vec3(1, 1, 1));
	assert_true(md.mass == 0.0f);
	kl_mesh_release(mesh);
}

static void test_weld_exact_soup(void** state)
{
	(void)state;
	vec3s vertices[36];
	int32_t indices[36];
	cube_soup(vertices, indices);
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = 36;
	def.indices = indices;
	def.triangle_count = 12;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.vertex_count, 8);
	assert_int_equal(info.welded_vertex_count, 28);
	assert_true(info.closed);
	assert_near(info.volume, 1.0, 1e-6);
	kl_mesh_release(mesh);

	// Only bit-identical positions merge at tolerance 0 (with -0 equal to +0).
	vertices[35] = kl_vec3(-0.0f, 1.0f, 0.0f);
	vertices[34] = kl_vec3(1.0f + 1e-6f, 1.0f, 1.0f);
	mesh = kl_mesh_build(&def);
	info = kl_mesh_get_info(mesh);
	assert_int_equal(info.vertex_count, 9);
	assert_false(info.closed);
	kl_mesh_release(mesh);
}

static void test_weld_tolerance(void** state)
{
	(void)state;
	vec3s vertices[36];
	int32_t indices[36];
	cube_soup(vertices, indices);
	uint32_t seed = 7;
	for (int i = 0; i < 36; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			seed = seed * 1664525u + 1013904223u;
			vertices[i].raw[k] += ((float)(seed >> 8) / 16777216.0f - 0.5f) * 2.0e-4f;
		}
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = 36;
	def.indices = indices;
	def.triangle_count = 12;
	kl_mesh* exact = kl_mesh_build(&def);
	assert_int_equal(kl_mesh_get_info(exact).vertex_count, 36);
	assert_false(kl_mesh_get_info(exact).closed);
	kl_mesh_release(exact);

	def.weld_tolerance = 1.0e-3f;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.vertex_count, 8);
	assert_true(info.closed);
	// The first vertex in input order represents its group.
	assert_memory_equal(&kl_mesh_vertices(mesh)[0], &vertices[0], sizeof(vec3s));
	assert_int_equal(kl_mesh_indices(mesh)[0], 0);
	kl_mesh_release(mesh);
}

// Neighbouring cells: points within the tolerance across a cell boundary still merge, points
// farther apart do not, and no chain is built (b near a, c near b but not a: c stays apart).
static void test_weld_across_cells(void** state)
{
	(void)state;
	const vec3s v[6] = {{{0.0999f, 0, 0}}, {{0.1005f, 0, 0}}, {{0.1011f, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}, {{1, 1, 1}}};
	const int32_t idx[12] = {0, 3, 4, 1, 4, 3, 2, 5, 3, 0, 4, 5};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 6;
	def.indices = idx;
	def.triangle_count = 4;
	def.weld_tolerance = 0.001f;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.welded_vertex_count, 1); // 1 joins 0 across the cell boundary at 0.1; 2 does not
	kl_mesh_release(mesh);
}

static void test_degenerate_triangles_dropped(void** state)
{
	(void)state;
	vec3s v[10];
	memcpy(v, k_cube_vertices, sizeof(k_cube_vertices));
	v[8] = kl_vec3(0.5f, 0.0f, 0.0f);  // on the edge 0-1
	v[9] = kl_vec3(5.0f, 5.0f, 5.0f); // only used by a degenerate triangle
	int32_t idx[36 + 9];
	memcpy(idx, k_cube_indices, sizeof(k_cube_indices));
	const int32_t extra[9] = {0, 0, 3, 0, 8, 1, 9, 9, 9};
	memcpy(idx + 36, extra, sizeof(extra));
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 10;
	def.indices = idx;
	def.triangle_count = 15;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.degenerate_triangle_count, 3);
	assert_int_equal(info.triangle_count, 12);
	assert_int_equal(info.vertex_count, 8); // unused vertices dropped
	assert_true(info.closed);
	assert_true(info.bounds.upper.x == 1.0f);
	kl_mesh_release(mesh);
}

static void test_open_box_uses_hull(void** state)
{
	(void)state;
	kl_mesh_def def = cube_def();
	int32_t idx[30];
	memcpy(idx, k_cube_indices, 6 * sizeof(int32_t));
	memcpy(idx + 6, k_cube_indices + 12, 24 * sizeof(int32_t)); // without the top
	def.indices = idx;
	def.triangle_count = 10;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.open_edge_count, 4);
	assert_int_equal(info.non_manifold_edge_count, 0);
	assert_int_equal(info.inconsistent_edge_count, 0);
	assert_false(info.closed);
	assert_int_equal(info.mass_source, KL_MESH_MASS_CONVEX_HULL);
	assert_near(info.volume, 1.0, 1e-5);
	assert_box_mass(kl_mesh_mass(mesh, 1.0f, kl_vec3(1, 2, 1)), 1.0, 1, 2, 1, kl_vec3(0.5f, 1.0f, 0.5f));
	kl_mesh_release(mesh);
}

static void test_non_manifold(void** state)
{
	(void)state;
	vec3s v[9];
	memcpy(v, k_cube_vertices, sizeof(k_cube_vertices));
	v[8] = kl_vec3(0.5f, -1.0f, -1.0f);
	int32_t idx[39];
	memcpy(idx, k_cube_indices, sizeof(k_cube_indices));
	idx[36] = 1, idx[37] = 0, idx[38] = 8; // a fin on the edge 0-1
	kl_mesh_def def = cube_def();
	def.vertices = v;
	def.vertex_count = 9;
	def.indices = idx;
	def.triangle_count = 13;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.non_manifold_edge_count, 1);
	assert_int_equal(info.open_edge_count, 2);
	assert_false(info.closed);
	assert_int_equal(info.mass_source, KL_MESH_MASS_CONVEX_HULL);
	kl_mesh_release(mesh);
}

static void test_inconsistent_orientation(void** state)
{
	(void)state;
	int32_t idx[36];
	memcpy(idx, k_cube_indices, sizeof(idx));
	idx[1] = k_cube_indices[2], idx[2] = k_cube_indices[1]; // one triangle flipped
	kl_mesh_def def = cube_def();
	def.indices = idx;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.inconsistent_edge_count, 3);
	assert_int_equal(info.open_edge_count, 0);
	assert_false(info.closed);
	assert_int_equal(info.mass_source, KL_MESH_MASS_CONVEX_HULL);
	kl_mesh_release(mesh);
}

static void test_inside_out_is_flipped(void** state)
{
	(void)state;
	int32_t idx[36];
	for (int t = 0; t < 12; ++t)
	{
		idx[3 * t] = k_cube_indices[3 * t];
		idx[3 * t + 1] = k_cube_indices[3 * t + 2];
		idx[3 * t + 2] = k_cube_indices[3 * t + 1];
	}
	kl_mesh_def def = cube_def();
	def.indices = idx;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_true(info.closed);
	assert_true(mesh->flipped);
	assert_true(kl_mesh_get_info(mesh).flipped);
	assert_int_equal(info.mass_source, KL_MESH_MASS_VOLUME);
	assert_near(info.volume, 1.0, 1e-6);
	assert_memory_equal(kl_mesh_indices(mesh), k_cube_indices, sizeof(k_cube_indices));
	assert_box_mass(kl_mesh_mass(mesh, 1.0f, kl_vec3(1, 1, 1)), 1.0, 1, 1, 1, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_mesh_release(mesh);
}

// More vertices than kl_hull_build takes, nearly all on the hull (an open unit sphere): the mass
// comes from a sampled hull, close to the sphere's.
static void test_big_open_mesh_uses_sampled_hull(void** state)
{
	(void)state;
	enum
	{
		rings = 190,
		segments = 380
	};
	int vertex_count = (rings - 1) * segments + 2;
	vec3s* v = malloc((size_t)vertex_count * sizeof(vec3s));
	int32_t* idx = malloc((size_t)rings * segments * 6 * sizeof(int32_t));
	v[0] = kl_vec3(0, 0, 1);
	v[vertex_count - 1] = kl_vec3(0, 0, -1);
	for (int i = 1; i < rings; ++i)
	{
		for (int j = 0; j < segments; ++j)
		{
			double theta = GLM_PI * i / rings, phi = 2.0 * GLM_PI * j / segments;
			v[1 + (i - 1) * segments + j] =
				kl_vec3((float)(sin(theta) * cos(phi)), (float)(sin(theta) * sin(phi)), (float)cos(theta));
		}
	}
	int n = 0;
	for (int i = 0; i < rings; ++i)
	{
		for (int j = 0; j < segments; ++j)
		{
			int j1 = (j + 1) % segments;
			int a = i == 0 ? 0 : 1 + (i - 1) * segments + j, d = i == 0 ? 0 : 1 + (i - 1) * segments + j1;
			int b = i == rings - 1 ? vertex_count - 1 : 1 + i * segments + j;
			int c = i == rings - 1 ? vertex_count - 1 : 1 + i * segments + j1;
			if (i == rings / 2 && j == 0)
			{
				continue; // the hole
			}
			const int32_t quad[6] = {a, b, c, a, c, d};
			memcpy(idx + n, quad, sizeof(quad));
			n += 6;
		}
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = vertex_count;
	def.indices = idx;
	def.triangle_count = n / 3;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_true(info.vertex_count > KL_HULL_MAX_INPUT_POINTS);
	assert_int_equal(info.open_edge_count, 4);
	assert_int_equal(info.degenerate_triangle_count, 2 * segments); // the poles' zero-area halves
	assert_int_equal(info.mass_source, KL_MESH_MASS_CONVEX_HULL);
	assert_near(info.volume, 4.0 / 3.0 * GLM_PI, 2e-3);
	kl_mass_data md = kl_mesh_mass(mesh, 1.0f, kl_vec3(1, 1, 1));
	assert_near(md.center.x, 0.0, 1e-3);
	assert_near(md.center.z, 0.0, 1e-3);
	assert_near(md.inertia.raw[2][2], 0.4 * md.mass, 2e-3 * md.mass);
	kl_mesh_release(mesh);
	free(v);
	free(idx);
}

// A flat mesh (a ground plane) builds, with zero mass: fine for static bodies.
static void test_flat_mesh_has_zero_mass(void** state)
{
	(void)state;
	const vec3s v[4] = {{{0, 0, 0}}, {{1, 0, 0}}, {{1, 1, 0}}, {{0, 1, 0}}};
	const int32_t idx[6] = {0, 1, 2, 0, 2, 3};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 4;
	def.indices = idx;
	def.triangle_count = 2;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.open_edge_count, 4);
	assert_int_equal(info.mass_source, KL_MESH_MASS_CONVEX_HULL);
	assert_true(info.volume == 0.0f);
	kl_mass_data md = kl_mesh_mass(mesh, 1.0f, kl_vec3(2, 2, 2));
	assert_true(md.mass == 0.0f);
	assert_near(md.center.x, 1.0, 1e-6);
	kl_mesh_release(mesh);
}

// A closed, consistently oriented sheet (both sides of a triangle) encloses no volume.
static void test_double_sided_sheet_is_not_closed(void** state)
{
	(void)state;
	const vec3s v[3] = {{{0, 0, 0}}, {{1, 0, 0}}, {{1, 1, 0}}};
	const int32_t idx[6] = {0, 1, 2, 0, 2, 1};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 3;
	def.indices = idx;
	def.triangle_count = 2;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.open_edge_count + info.non_manifold_edge_count + info.inconsistent_edge_count, 0);
	assert_false(info.closed);
	assert_false(mesh->flipped);
	kl_mesh_release(mesh);
}

static void expect_build_failure(const kl_mesh_def* def, kl_result code)
{
	kl_clear_error();
	assert_null(kl_mesh_build(def));
	assert_int_equal(kl_last_error_code(), code);
	assert_true(strlen(kl_last_error()) > 0);
}

static void test_invalid_defs(void** state)
{
	(void)state;
	expect_build_failure(NULL, KL_ERR_INVALID_ARGUMENT);

	kl_mesh_def def = cube_def();
	def.vertex_count = -1;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	def = cube_def();
	def.triangle_count = -3;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	def = cube_def();
	def.vertex_count = KL_MESH_MAX_VERTICES + 1; // rejected before anything is read
	expect_build_failure(&def, KL_ERR_LIMIT);
	def = cube_def();
	def.triangle_count = KL_MESH_MAX_TRIANGLES + 1;
	expect_build_failure(&def, KL_ERR_LIMIT);
	def = cube_def();
	def.weld_tolerance = -1.0f;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	def.weld_tolerance = INFINITY;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	def = cube_def();
	def.indices = NULL;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	def = cube_def();
	def.triangle_count = 0;
	expect_build_failure(&def, KL_ERR_DEGENERATE);

	vec3s v[8];
	memcpy(v, k_cube_vertices, sizeof(v));
	v[5].y = NAN;
	def = cube_def();
	def.vertices = v;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	v[5].y = -INFINITY;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);

	int32_t idx[36];
	memcpy(idx, k_cube_indices, sizeof(idx));
	idx[17] = 8;
	def = cube_def();
	def.indices = idx;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);
	idx[17] = -1;
	expect_build_failure(&def, KL_ERR_INVALID_ARGUMENT);

	// Nothing but degenerate triangles.
	const int32_t flat[6] = {0, 0, 1, 2, 2, 2};
	def = cube_def();
	def.indices = flat;
	def.triangle_count = 2;
	expect_build_failure(&def, KL_ERR_DEGENERATE);
}

static void test_refcount(void** state)
{
	(void)state;
	kl_mesh_def def = cube_def();
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_int_equal(atomic_load(&mesh->ref_count), 1);
	assert_ptr_equal(kl_mesh_retain(mesh), mesh);
	assert_ptr_equal(kl_mesh_retain(mesh), mesh);
	assert_int_equal(atomic_load(&mesh->ref_count), 3);
	kl_mesh_release(mesh);
	kl_mesh_release(mesh);
	assert_int_equal(atomic_load(&mesh->ref_count), 1);
	assert_int_equal(kl_mesh_get_info(mesh).vertex_count, 8); // still alive
	kl_mesh_release(mesh);									  // freed (the sanitizers check)
	kl_mesh_release(NULL);
	assert_null(kl_mesh_retain(NULL));
}

static void test_source_defaults_to_empty(void** state)
{
	(void)state;
	kl_mesh_def def = cube_def();
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_string_equal(kl_mesh_source(mesh), "");
	kl_mesh_release(mesh);
	char path[] = "meshes/box.stl";
	def.source = path;
	mesh = kl_mesh_build(&def);
	path[0] = 'X'; // the mesh keeps its own copy
	assert_string_equal(kl_mesh_source(mesh), "meshes/box.stl");
	kl_mesh_release(mesh);
}

typedef struct progress_log
{
	char stages[64][16];
	float fractions[64];
	int count;
	const char* cancel_at;
} progress_log;

static bool record_progress(const char* stage, float fraction, void* context)
{
	progress_log* log = context;
	if (log->count < 64)
	{
		snprintf(log->stages[log->count], sizeof(log->stages[0]), "%s", stage);
		log->fractions[log->count] = fraction;
		log->count += 1;
	}
	return log->cancel_at == NULL || strcmp(stage, log->cancel_at) != 0;
}

static void test_progress_stages(void** state)
{
	(void)state;
	// By default the point-shell stage is left out; build_pointshell adds it.
	const char* expected[6] = {"weld", "clean", "topology", "mass", "bvh", "pointshell"};
	for (int with_shells = 0; with_shells < 2; ++with_shells)
	{
		progress_log log = {0};
		kl_mesh_def def = cube_def();
		def.progress = record_progress;
		def.progress_context = &log;
		def.build_pointshell = with_shells;
		kl_mesh* mesh = kl_mesh_build(&def);
		assert_non_null(mesh);
		assert_true(kl_mesh_get_info(mesh).has_pointshell == (bool)with_shells);
		kl_mesh_release(mesh);
		int stages = with_shells ? 6 : 5;
		assert_int_equal(log.count, 2 * stages);
		for (int i = 0; i < stages; ++i)
		{
			assert_string_equal(log.stages[2 * i], expected[i]);
			assert_string_equal(log.stages[2 * i + 1], expected[i]);
			assert_true(log.fractions[2 * i] == 0.0f && log.fractions[2 * i + 1] == 1.0f);
		}
	}
}

static void test_progress_cancel(void** state)
{
	(void)state;
	const char* stages[6] = {"weld", "clean", "topology", "mass", "bvh", "pointshell"};
	for (int i = 0; i < 6; ++i)
	{
		progress_log log = {0};
		log.cancel_at = stages[i];
		kl_mesh_def def = cube_def();
		def.progress = record_progress;
		def.progress_context = &log;
		def.build_pointshell = true;
		kl_clear_error();
		assert_null(kl_mesh_build(&def)); // everything freed: the sanitizers check
		assert_non_null(strstr(kl_last_error(), "cancelled"));
		assert_int_equal(kl_last_error_code(), KL_ERR_CANCELLED);
		assert_string_equal(log.stages[log.count - 1], stages[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_def),
		cmocka_unit_test(test_cube_is_closed),
		cmocka_unit_test(test_mass_unit_cube_and_scaled),
		cmocka_unit_test(test_mass_far_from_origin),
		cmocka_unit_test(test_mass_matches_polyhedron_mass),
		cmocka_unit_test(test_mass_rejects_bad_scale),
		cmocka_unit_test(test_weld_exact_soup),
		cmocka_unit_test(test_weld_tolerance),
		cmocka_unit_test(test_weld_across_cells),
		cmocka_unit_test(test_degenerate_triangles_dropped),
		cmocka_unit_test(test_open_box_uses_hull),
		cmocka_unit_test(test_non_manifold),
		cmocka_unit_test(test_inconsistent_orientation),
		cmocka_unit_test(test_inside_out_is_flipped),
		cmocka_unit_test(test_big_open_mesh_uses_sampled_hull),
		cmocka_unit_test(test_flat_mesh_has_zero_mass),
		cmocka_unit_test(test_double_sided_sheet_is_not_closed),
		cmocka_unit_test(test_invalid_defs),
		cmocka_unit_test(test_refcount),
		cmocka_unit_test(test_source_defaults_to_empty),
		cmocka_unit_test(test_progress_stages),
		cmocka_unit_test(test_progress_cancel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
