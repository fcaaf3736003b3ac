// Vertex and edge contacts of two meshes (narrowphase/vertex_contacts.h) and their pieces: vertex
// pseudo-normals with their cones, the BVH's nearest-triangle walk, two bars crossing (no vertex of
// either inside the other), a vertex deeper than the margin that only the tree walk measures, and
// the signed distance to a set's surface that checks deep readings, and the reach a spinning body's
// motion gives its triangle pairs.
#include "kl_test.h"

#include "bvh_near.h"
#include "collide_mesh.h"
#include "tri_adjacency.h"
#include "tri_tri.h"
#include "vertex_contacts.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const int32_t k_box_indices[36] = {
	0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5,
};

/// A box mesh with everything the mesh contacts read, placed at xf.
typedef struct box_mesh
{
	vec3s vertices[8];
	int32_t opposite[36];
	vec3s normals[8];
	float cone[8];
	kl_bvh* bvh;
	kl_triangle_set set;
} box_mesh;

static void box_make(box_mesh* m, vec3s half, vec3s position)
{
	for (int i = 0; i < 8; ++i)
	{
		m->vertices[i] = kl_vec3((i == 1 || i == 2 || i == 5 || i == 6) ? half.x : -half.x,
								 (i == 2 || i == 3 || i == 6 || i == 7) ? half.y : -half.y, i >= 4 ? half.z : -half.z);
	}
	assert_int_equal(kl_triangle_opposites(k_box_indices, 12, m->opposite), KL_OK);
	assert_int_equal(kl_vertex_pseudo_normals(m->vertices, 8, k_box_indices, 12, m->normals, m->cone), KL_OK);
	kl_bvh_build_def def = kl_bvh_default_build_def();
	m->bvh = kl_bvh_build((const float*)m->vertices, 8, (const int*)k_box_indices, 12, &def);
	assert_non_null(m->bvh);
	memset(&m->set, 0, sizeof(m->set));
	m->set.bvh = m->bvh;
	m->set.vertices = m->vertices;
	m->set.vertex_count = 8;
	m->set.indices = k_box_indices;
	m->set.opposite = m->opposite;
	m->set.vertex_normals = m->normals;
	m->set.vertex_cone_cos = m->cone;
	m->set.thickness = 2.0f * fminf(half.x, fminf(half.y, half.z));
	m->set.scale = kl_vec3(1.0f, 1.0f, 1.0f);
	m->set.xf.p = position;
	m->set.xf.q = glms_quat_identity();
}

static void test_pseudo_normals_of_a_box(void** state)
{
	(void)state;
	box_mesh m;
	box_make(&m, kl_vec3(1.0f, 2.0f, 0.5f), kl_vec3(0.0f, 0.0f, 0.0f));
	for (int i = 0; i < 8; ++i)
	{
		// Each corner sees three faces at right angles: the diagonal of its octant.
		vec3s v = m.vertices[i];
		vec3s expect = glms_vec3_normalize(kl_vec3(v.x > 0 ? 1.0f : -1.0f, v.y > 0 ? 1.0f : -1.0f, v.z > 0 ? 1.0f : -1.0f));
		assert_near(glms_vec3_dot(m.normals[i], expect), 1.0, 1e-6);
		assert_near(m.cone[i], 1.0 / sqrt(3.0), 1e-6);
	}
	kl_bvh_destroy(m.bvh);
}

typedef struct near_probe
{
	const box_mesh* m;
	vec3s p;
	double best;
} near_probe;

static void near_visit(int tri, double* radius, void* context)
{
	near_probe* probe = context;
	vec3s t[3];
	for (int k = 0; k < 3; ++k)
	{
		t[k] = probe->m->vertices[k_box_indices[3 * tri + k]];
	}
	double d = glms_vec3_distance(probe->p, kl_closest_on_triangle(probe->p, t, NULL));
	probe->best = fmin(probe->best, d);
	*radius = fmin(*radius, probe->best);
}

static void test_near_point_matches_brute_force(void** state)
{
	(void)state;
	box_mesh m;
	box_make(&m, kl_vec3(0.5f, 0.3f, 0.2f), kl_vec3(0.0f, 0.0f, 0.0f));
	uint32_t seed = 7;
	for (int i = 0; i < 500; ++i)
	{
		float c[3];
		for (int k = 0; k < 3; ++k)
		{
			seed = seed * 1664525u + 1013904223u;
			c[k] = 1.6f * ((float)(seed >> 8) / 16777216.0f - 0.5f);
		}
		vec3s p = kl_vec3(c[0], c[1], c[2]);
		double brute = INFINITY;
		for (int tri = 0; tri < 12; ++tri)
		{
			vec3s t[3] = {m.vertices[k_box_indices[3 * tri]], m.vertices[k_box_indices[3 * tri + 1]],
						  m.vertices[k_box_indices[3 * tri + 2]]};
			brute = fmin(brute, glms_vec3_distance(p, kl_closest_on_triangle(p, t, NULL)));
		}
		near_probe probe = {&m, p, INFINITY};
		const double point[3] = {p.x, p.y, p.z};
		kl_bvh_near_point(m.bvh, point, 2.0, near_visit, &probe);
		assert_near(probe.best, brute, 1e-6);
		// A radius below the distance finds nothing nearer.
		near_probe none = {&m, p, INFINITY};
		kl_bvh_near_point(m.bvh, point, 0.9 * brute, near_visit, &none);
		assert_true(none.best >= brute - 1e-6);
	}
	kl_bvh_destroy(m.bvh);
}

/// The deepest point and the normal of the manifolds; every manifold's normal within cos of n.
static float deepest_along(const kl_manifold* m, int count, vec3s n, float cos_limit)
{
	float deepest = INFINITY;
	for (int i = 0; i < count; ++i)
	{
		assert_true(fabsf(glms_vec3_dot(m[i].normal, n)) > cos_limit);
		for (int k = 0; k < m[i].point_count; ++k)
		{
			deepest = fminf(deepest, m[i].points[k].separation);
		}
	}
	return deepest;
}

static void test_crossed_bars(void** state)
{
	(void)state;
	// Bar a along x, bar b along y lying across it 1 mm deep: the overlap is a 10 × 10 cm square
	// whose corners are where edges cross edges; no vertex of either bar is inside the other.
	box_mesh a, b;
	box_make(&a, kl_vec3(0.5f, 0.05f, 0.05f), kl_vec3(0.0f, 0.0f, 0.0f));
	box_make(&b, kl_vec3(0.05f, 0.5f, 0.05f), kl_vec3(0.01f, -0.02f, 0.099f));
	kl_mesh_scratch scratch;
	memset(&scratch, 0, sizeof(scratch));
	kl_manifold out[KL_MESH_MAX_MANIFOLDS];
	int n = kl_collide_triangle_sets(&a.set, &b.set, 0.002f, NULL, &scratch, out, KL_MESH_MAX_MANIFOLDS);
	assert_true(n >= 1);
	float deepest = deepest_along(out, n, kl_vec3(0.0f, 0.0f, 1.0f), 0.999f);
	assert_near(deepest, -0.001, 1e-5);
	assert_true(out[0].normal.z > 0.999f); // from a up to b
	for (int k = 0; k < out[0].point_count; ++k)
	{
		vec3s p = out[0].points[k].point;
		assert_true(fabsf(p.x - 0.01f) <= 0.05f + 1e-4f && fabsf(p.y) <= 0.05f + 1e-4f);
	}
	kl_mesh_scratch_free(&scratch);
	kl_bvh_destroy(a.bvh);
	kl_bvh_destroy(b.bvh);
}

static void test_deep_vertex_found_through_the_tree(void** state)
{
	(void)state;
	// A small cube sunk 8 mm into the top of a large one, far deeper than the 2 mm margin: its
	// bottom corners' nearest surface is the top face 8 mm up, which the tree walk finds.
	box_mesh big, small;
	box_make(&big, kl_vec3(0.5f, 0.5f, 0.5f), kl_vec3(0.0f, 0.0f, 0.0f));
	box_make(&small, kl_vec3(0.05f, 0.05f, 0.05f), kl_vec3(0.1f, 0.2f, 0.5f + 0.05f - 0.008f));
	kl_mesh_scratch scratch;
	memset(&scratch, 0, sizeof(scratch));
	kl_manifold out[KL_MESH_MAX_MANIFOLDS];
	int n = kl_collide_triangle_sets(&big.set, &small.set, 0.002f, NULL, &scratch, out, KL_MESH_MAX_MANIFOLDS);
	assert_true(n >= 1);
	assert_true(out[0].normal.z > 0.999f);
	assert_near(deepest_along(out, 1, kl_vec3(0.0f, 0.0f, 1.0f), 0.999f), -0.008, 1e-5);
	assert_int_equal(out[0].point_count, 4);
	kl_mesh_scratch_free(&scratch);
	kl_bvh_destroy(big.bvh);
	kl_bvh_destroy(small.bvh);
}

/// The least separation of a set of manifolds (FLT_MAX when none).
static float least_separation(const kl_manifold* m, int count)
{
	float least = FLT_MAX;
	for (int i = 0; i < count; ++i)
	{
		for (int k = 0; k < m[i].point_count; ++k)
		{
			least = fminf(least, m[i].points[k].separation);
		}
	}
	return least;
}

static void test_spin_brings_far_vertex_into_reach(void** state)
{
	(void)state;
	// A 2 cm cube 40 mm above another, within the 60 mm margin. Still, nothing of it can close 40 mm
	// in a step, so it gets no contact; swung at 6 rad/s about an axis half a metre away, it moves
	// 50 mm in the step, so its corners get speculative contacts at 40 mm: the reach of each
	// triangle pair, and the bound on how far apart its triangles may be (farther than their
	// bounding spheres' 26 mm, beyond the 5 mm fixed reach), follow the speed at the triangles.
	box_mesh low, high;
	box_make(&low, kl_vec3(0.01f, 0.01f, 0.01f), kl_vec3(0.0f, 0.0f, 0.0f));
	box_make(&high, kl_vec3(0.01f, 0.01f, 0.01f), kl_vec3(0.0f, 0.0f, 0.06f));
	kl_vertex_motion motion;
	memset(&motion, 0, sizeof(motion));
	motion.center[1] = kl_vec3(0.5f, 0.0f, 0.06f);
	motion.dt = 1.0f / 60.0f;
	motion.reach = 0.005f;
	kl_mesh_scratch scratch;
	memset(&scratch, 0, sizeof(scratch));
	kl_manifold out[KL_MESH_MAX_MANIFOLDS];
	int still = kl_collide_triangle_sets(&low.set, &high.set, 0.06f, &motion, &scratch, out, KL_MESH_MAX_MANIFOLDS);
	assert_int_equal(still, 0);
	motion.angular_velocity[1] = kl_vec3(0.0f, 6.0f, 0.0f);
	int swung = kl_collide_triangle_sets(&low.set, &high.set, 0.06f, &motion, &scratch, out, KL_MESH_MAX_MANIFOLDS);
	assert_true(swung >= 1);
	assert_near(least_separation(out, swung), 0.04, 1e-4);
	kl_mesh_scratch_free(&scratch);
	kl_bvh_destroy(low.bvh);
	kl_bvh_destroy(high.bvh);
}

static void test_signed_distance_of_a_box(void** state)
{
	(void)state;
	// A 2 × 4 × 1 box: inside a face, outside a face, outside past an edge and a corner (the
	// pseudo-normals there), and nothing within a radius that is too short.
	box_mesh m;
	box_make(&m, kl_vec3(1.0f, 2.0f, 0.5f), kl_vec3(0.5f, 0.0f, 0.0f));
	assert_near(kl_set_signed_distance(&m.set, kl_vec3(0.5f, 0.0f, 0.3f), 1.0), -0.2, 1e-6);
	assert_near(kl_set_signed_distance(&m.set, kl_vec3(1.2f, 0.5f, 0.0f), 1.0), -0.3, 1e-6);
	assert_near(kl_set_signed_distance(&m.set, kl_vec3(0.5f, 0.0f, 0.8f), 1.0), 0.3, 1e-6);
	assert_near(kl_set_signed_distance(&m.set, kl_vec3(1.8f, 0.0f, 0.8f), 1.0), sqrt(0.18), 1e-6);
	assert_near(kl_set_signed_distance(&m.set, kl_vec3(1.6f, 2.1f, 0.6f), 1.0), sqrt(0.03), 1e-6);
	assert_true(kl_set_signed_distance(&m.set, kl_vec3(0.5f, 0.0f, 0.8f), 0.25) == DBL_MAX);
	kl_bvh_destroy(m.bvh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pseudo_normals_of_a_box),
		cmocka_unit_test(test_near_point_matches_brute_force),
		cmocka_unit_test(test_crossed_bars),
		cmocka_unit_test(test_deep_vertex_found_through_the_tree),
		cmocka_unit_test(test_spin_brings_far_vertex_into_reach),
		cmocka_unit_test(test_signed_distance_of_a_box),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
