// Vertex and edge contacts of two meshes (narrowphase/mesh/vertex_contacts.h) and their pieces: vertex
// pseudo-normals with their cones, the BVH's nearest-triangle walk, two bars crossing (no vertex of
// either inside the other), a vertex deeper than the margin that only the tree walk measures, and
// the signed distance to a set's surface that checks deep readings, the reach a spinning body's
// motion gives its triangle pairs, and a block's corner touching a torus knot's tube, where the
// face standing in for the vertex's nearest surface must lie over the vertex, and a corner just
// outside a gear's tooth, where it may stand in only as deep as the surface band.
#include "kl_test.h"

#include "bvh_near.h"
#include "collide_mesh.h"
#include "demo_mesh_common.h"
#include "meshgen.h"
#include "tri_adjacency.h"
#include "tri_tri.h"
#include "vertex_contacts.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
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

/// A generated mesh as a triangle set, with the arrays it owns.
typedef struct owned_set
{
	kl_meshgen_mesh mesh;
	int32_t* opposite;
	vec3s* normals;
	float* cone;
	kl_triangle_set set;
} owned_set;

static void owned_set_make(owned_set* o)
{
	int nv = o->mesh.vertex_count, nt = o->mesh.triangle_count;
	o->opposite = malloc(sizeof(int32_t) * 3 * (size_t)nt);
	o->normals = malloc(sizeof(vec3s) * (size_t)nv);
	o->cone = malloc(sizeof(float) * (size_t)nv);
	assert_true(o->opposite && o->normals && o->cone);
	assert_int_equal(kl_triangle_opposites(o->mesh.indices, nt, o->opposite), KL_OK);
	assert_int_equal(kl_vertex_pseudo_normals(o->mesh.vertices, nv, o->mesh.indices, nt, o->normals, o->cone), KL_OK);
	kl_bvh_build_def def = kl_bvh_default_build_def();
	memset(&o->set, 0, sizeof(o->set));
	o->set.bvh = kl_bvh_build((const float*)o->mesh.vertices, nv, (const int*)o->mesh.indices, nt, &def);
	assert_non_null(o->set.bvh);
	vec3s lo = o->mesh.vertices[0], hi = lo;
	for (int i = 1; i < nv; ++i)
	{
		lo = glms_vec3_minv(lo, o->mesh.vertices[i]);
		hi = glms_vec3_maxv(hi, o->mesh.vertices[i]);
	}
	vec3s extent = glms_vec3_sub(hi, lo);
	o->set.vertices = o->mesh.vertices;
	o->set.vertex_count = nv;
	o->set.indices = o->mesh.indices;
	o->set.opposite = o->opposite;
	o->set.vertex_normals = o->normals;
	o->set.vertex_cone_cos = o->cone;
	o->set.thickness = fminf(extent.x, fminf(extent.y, extent.z));
	o->set.scale = kl_vec3(1.0f, 1.0f, 1.0f);
	o->set.xf.q = glms_quat_identity();
}

static void owned_set_free(owned_set* o)
{
	kl_bvh_destroy((kl_bvh*)o->set.bvh);
	free(o->opposite);
	free(o->normals);
	free(o->cone);
	kl_meshgen_free(&o->mesh);
}

/// A 67 × 67 × 34 mm block (the pile's nuts' outer box) against a generated mesh (taken over and
/// freed) at two poses: for each, the contacts' least separation must lie within [-most_deep[i], 0].
static void block_poses_read(kl_meshgen_mesh mesh, const versors rotation[2], const vec3s position[2],
							 const float most_deep[2])
{
	owned_set q;
	memset(&q, 0, sizeof(q));
	q.mesh = mesh;
	owned_set_make(&q);
	box_mesh block;
	box_make(&block, kl_vec3(0.0335f, 0.0335f, 0.017f), kl_vec3(0.0f, 0.0f, 0.0f));
	kl_mesh_scratch scratch;
	memset(&scratch, 0, sizeof(scratch));
	kl_manifold out[KL_MESH_MAX_MANIFOLDS];
	for (int i = 0; i < 2; ++i)
	{
		block.set.xf.q = rotation[i];
		block.set.xf.p = position[i];
		int n = kl_collide_triangle_sets(&q.set, &block.set, 0.004f, NULL, &scratch, out, KL_MESH_MAX_MANIFOLDS);
		assert_true(n >= 1);
		float least = least_separation(out, n);
		assert_true(least <= 0.0f);
		assert_true(least >= -most_deep[i]);
	}
	kl_mesh_scratch_free(&scratch);
	kl_bvh_destroy(block.bvh);
	owned_set_free(&q);
}

static void test_stand_in_face_lies_over_the_vertex(void** state)
{
	(void)state;
	// The mesh pile's torus knot (a 9 mm tube) and the block, whose corner touches the tube: poses found by a random search over corners placed 0.01-0.6 mm
	// inside the tube, where the contacts read far deeper than the block truly is in the knot (the
	// deepest of its surface sampled on a 1.7 mm grid, and of the knot's in it). A corner
	// there lies inside the tube, nearest to a side its cone cannot push on; the nearest face
	// within its cone once stood in however it lay, and its far corner read 2.6 and 3.7 mm.
	// The pile's knot: the poses hold for this mesh only.
	kl_meshgen_torus_knot_params params = kl_demo_pile_knot_params();
	kl_meshgen_mesh knot = {0};
	assert_int_equal(kl_meshgen_torus_knot(&params, &knot), KL_OK);
	const versors rotation[2] = {{{-0.575576484f, 0.758155227f, 0.0455095805f, 0.30305329f}},
								 {{-0.0358911119f, -0.212547809f, 0.0614716448f, 0.974554539f}}};
	const vec3s position[2] = {{{-0.0048539266f, -0.0610559285f, -0.0631024092f}},
							   {{-0.051226262f, -0.0966076627f, -0.0333454162f}}};
	// Truly 0.52 and 0.97 mm deep, and 0.2 mm for what the grid's steps miss.
	const float most_deep[2] = {0.00072f, 0.00117f};
	block_poses_read(knot, rotation, position, most_deep);
}

static void test_stand_in_only_for_a_vertex_inside(void** state)
{
	(void)state;
	// The pile's gear (12 teeth) and the block, a corner placed 0.08-0.09 mm outside a tooth by the
	// same search: the nearest surface lies outside the corner's cone, and the in-cone face that
	// stood in, one the corner lies under, read 3.2 and 3.8 mm for a block truly 1.2-1.3 mm deep
	// (elsewhere) in the gear. A vertex outside takes a stand-in only as deep as the surface band;
	// the contacts now read 1.6 and 1.8 mm (edge crossings).
	kl_meshgen_gear_params params = kl_demo_pile_gear_params();
	kl_meshgen_mesh gear = {0};
	assert_int_equal(kl_meshgen_gear(&params, &gear), KL_OK);
	const versors rotation[2] = {{{0.522337437f, 0.309809387f, -0.0526944995f, 0.79272002f}},
								 {{-0.267238438f, 0.240862638f, 0.0800525621f, 0.929602265f}}};
	const vec3s position[2] = {{{-0.00527914055f, 0.00426104385f, 0.0561645404f}},
							   {{-0.0685195699f, 0.0268512834f, -0.0216113664f}}};
	const float most_deep[2] = {0.0022f, 0.0022f};
	block_poses_read(gear, rotation, position, most_deep);
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
		cmocka_unit_test(test_stand_in_face_lies_over_the_vertex),
		cmocka_unit_test(test_stand_in_only_for_a_vertex_inside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
