// Kollide tests — helpers shared by the point-shell tests (test_pointshell*.c): generated meshes with
// their models, and engine meshes built with the model.
// SPDX-License-Identifier: MIT
#pragma once

#include "../tools/meshgen/meshgen.h"
#include "pointshell.h"

#include <kollide/kollide.h>

#include <math.h>

/// The engine's mesh def of a generated mesh.
static inline kl_mesh_def mesh_def_of(const kl_meshgen_mesh* g)
{
	kl_mesh_def md = kl_default_mesh_def();
	md.vertices = g->vertices;
	md.vertex_count = g->vertex_count;
	md.indices = g->indices;
	md.triangle_count = g->triangle_count;
	return md;
}

/// The engine's mesh of a generated one with its point-shell model, read from or written to the
/// cache file `path` (NULL: none).
static inline kl_mesh* build_cached(const kl_meshgen_mesh* g, const char* path)
{
	kl_mesh_def md = mesh_def_of(g);
	md.build_pointshell = true;
	md.pointshell_cache = path;
	return kl_mesh_build(&md);
}

/// A generated mesh and its point-shell model.
typedef struct test_mesh
{
	kl_meshgen_mesh mesh;
	kl_pointshell* model;
} test_mesh;

static inline void make_gear(test_mesh* m)
{
	kl_meshgen_gear_params g = kl_meshgen_default_gear_params();
	assert_int_equal(kl_meshgen_gear(&g, &m->mesh), KL_OK);
	m->model = kl_pointshell_build(m->mesh.vertices, m->mesh.vertex_count, m->mesh.indices, m->mesh.triangle_count,
								   NULL, NULL, NULL);
	assert_non_null(m->model);
}

static inline void make_knot(test_mesh* m, int segments)
{
	kl_meshgen_torus_knot_params k = kl_meshgen_default_torus_knot_params();
	k.segments = segments;
	k.sides = 8;
	assert_int_equal(kl_meshgen_torus_knot(&k, &m->mesh), KL_OK);
	m->model = kl_pointshell_build(m->mesh.vertices, m->mesh.vertex_count, m->mesh.indices, m->mesh.triangle_count,
								   NULL, NULL, NULL);
	assert_non_null(m->model);
}

static inline void free_mesh(test_mesh* m)
{
	kl_pointshell_destroy(m->model);
	kl_meshgen_free(&m->mesh);
}

/// Uniform in [0, 1) from a linear congruential seed.
static inline float random_unit(uint32_t* seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (float)(*seed >> 8) / 16777216.0f;
}

/// A point of the unit cube [0, 1)^3, x drawn first (C leaves the order of a call's arguments open,
/// and compilers differ).
static inline kl_ps_f3 random_unit3(uint32_t* seed)
{
	float x = random_unit(seed);
	float y = random_unit(seed);
	float z = random_unit(seed);
	return kl_ps_make(x, y, z);
}

/// A random rotation, and a translation of the given length in a random direction.
static inline kl_transform random_pose(uint32_t* seed, float distance)
{
	kl_transform xf;
	float q[4];
	float n2 = 0.0f;
	for (int k = 0; k < 4; ++k)
	{
		q[k] = 2.0f * random_unit(seed) - 1.0f;
		n2 += q[k] * q[k];
	}
	float n = sqrtf(n2);
	xf.q = (versors){{q[0] / n, q[1] / n, q[2] / n, q[3] / n}};
	float dir[3];
	float d2 = 0.0f;
	for (int k = 0; k < 3; ++k)
	{
		dir[k] = 2.0f * random_unit(seed) - 1.0f;
		d2 += dir[k] * dir[k];
	}
	float s = distance / sqrtf(d2);
	xf.p = kl_vec3(dir[0] * s, dir[1] * s, dir[2] * s);
	return xf;
}
