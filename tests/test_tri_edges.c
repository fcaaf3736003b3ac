// Triangle adjacency and the edge-against-edge axis of crossing triangles: opposite vertices of a
// closed mesh, open and non-manifold edges, and the rim-crossing case (two gears lying on each
// other) where the face normals point sideways but the way out is up by the sink depth.
#include "kl_test.h"

#include "tri_adjacency.h"
#include "tri_contact.h"

#include <math.h>

// Cube [-0.5, 0.5]^3, outward counter-clockwise.
static const int32_t k_cube_indices[36] = {
	0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5,
};

static void test_opposites_of_closed_mesh(void** state)
{
	(void)state;
	int32_t opposite[36];
	assert_int_equal(kl_triangle_opposites(k_cube_indices, 12, opposite), KL_OK);
	for (int c = 0; c < 36; ++c)
	{
		int t = c / 3, k = c % 3;
		int32_t u = k_cube_indices[c], v = k_cube_indices[3 * t + (k + 1) % 3];
		assert_true(opposite[c] >= 0);
		// The opposite vertex belongs to a triangle that runs the edge v -> u.
		bool found = false;
		for (int s = 0; s < 12 && !found; ++s)
		{
			const int32_t* n = k_cube_indices + 3 * s;
			for (int j = 0; j < 3; ++j)
			{
				if (n[j] == v && n[(j + 1) % 3] == u && n[(j + 2) % 3] == opposite[c])
				{
					found = true;
				}
			}
		}
		assert_true(found);
	}
}

static void test_open_and_non_manifold_edges(void** state)
{
	(void)state;
	// Three triangles share edge 0-1 (a fin): no neighbour is trusted there. The other edges are
	// open.
	const int32_t fin[9] = {0, 1, 2, 1, 0, 3, 1, 0, 4};
	int32_t opposite[9];
	assert_int_equal(kl_triangle_opposites(fin, 3, opposite), KL_OK);
	for (int c = 0; c < 9; ++c)
	{
		assert_int_equal(opposite[c], -1);
	}
	// Two triangles that share an edge in the same direction (inconsistent orientation).
	const int32_t twisted[6] = {0, 1, 2, 0, 1, 3};
	assert_int_equal(kl_triangle_opposites(twisted, 2, opposite), KL_OK);
	assert_int_equal(opposite[0], -1);
	assert_int_equal(opposite[3], -1);
	// A consistent pair: edge 0-1 of the first has vertex 3 across it.
	const int32_t pair[6] = {0, 1, 2, 1, 0, 3};
	assert_int_equal(kl_triangle_opposites(pair, 2, opposite), KL_OK);
	assert_int_equal(opposite[0], 3);
	assert_int_equal(opposite[3], 2);
	assert_int_equal(kl_triangle_opposites(NULL, 2, opposite), KL_ERR_INVALID_ARGUMENT);
	// The triangles across the edges, under the same rules.
	int32_t neighbour[9];
	assert_int_equal(kl_triangle_neighbours(pair, 2, neighbour), KL_OK);
	const int32_t pair_expected[6] = {1, -1, -1, 0, -1, -1};
	assert_memory_equal(neighbour, pair_expected, sizeof(pair_expected));
	assert_int_equal(kl_triangle_neighbours(fin, 3, neighbour), KL_OK);
	for (int c = 0; c < 9; ++c)
	{
		assert_int_equal(neighbour[c], -1);
	}
	assert_int_equal(kl_triangle_neighbours(twisted, 2, neighbour), KL_OK);
	assert_int_equal(neighbour[0], -1);
	assert_int_equal(kl_triangle_neighbours(pair, -1, neighbour), KL_ERR_INVALID_ARGUMENT);
}

/// On a closed mesh every edge has its neighbour, and the neighbourhood is symmetric.
static void test_neighbours_of_closed_mesh(void** state)
{
	(void)state;
	int32_t neighbour[36];
	assert_int_equal(kl_triangle_neighbours(k_cube_indices, 12, neighbour), KL_OK);
	for (int c = 0; c < 36; ++c)
	{
		int t = c / 3, n = neighbour[c];
		assert_true(n >= 0 && n < 12 && n != t);
		assert_true(neighbour[3 * n] == t || neighbour[3 * n + 1] == t || neighbour[3 * n + 2] == t);
	}
}

/// A vertical wall triangle with its top edge (vertex 1 to 2) at height top, whose neighbour
/// across that edge is the horizontal top face, and the bottom face mirrored below: the side of a
/// slab. normal_dir is the wall's outward direction in the xy plane.
typedef struct wall
{
	vec3s v[3];
	kl_tri_edges edges;
} wall;

static vec3s xy(float x, float y, float z)
{
	return kl_vec3(x, y, z);
}

static void test_rims_crossing_give_the_vertical_axis(void** state)
{
	(void)state;
	// Lower body: slab occupying z in [-1, 0]; its wall a faces +x at x = 0 (the body is x < 0),
	// spanning y in [-1, 1]. Upper body: slab occupying z in [-0.002, 1] (sunk 2 mm); its wall b
	// faces +y at y = 0 (body y < 0) spanning x in [-1, 1]. Seen alone, the walls cross along a
	// vertical sliver 2 mm tall; their normals are horizontal and the triangles reach 1 m behind
	// each other, but the bodies separate by moving the upper one 2 mm up.
	wall a = {{xy(0, -1, -1), xy(0, 1, 0), xy(0, -1, 0)}, {{xy(0, 0, 0), xy(-1, 0, 0), xy(0, 0, 0)}, 0}};
	// a: vertices (0,-1,-1), (0,1,0), (0,-1,0): normal = (v1-v0)x(v2-v0) = (0,2,1)x(0,0,1) = (2,0,0): +x.
	// Edge 1 (v1 -> v2) is the top rim; across it the top face (z = 0) with third vertex (-1, 0, 0).
	a.edges.opposite[1] = xy(-1.0f, 0.0f, 0.0f);
	a.edges.known = 1u << 1;
	const float sink = 0.002f;
	wall b = {{xy(-1, 0, 1 - sink), xy(1, 0, -sink), xy(-1, 0, -sink)}, {{xy(0, 0, 0), xy(0, 0, 0), xy(0, 0, 0)}, 0}};
	// b: (v1-v0)x(v2-v0) = (2,0,-1)x(0,0,-1) = (0,2,0): +y. Edge 1 (v1 -> v2) is the bottom rim;
	// across it the bottom face (z = -sink), third vertex (0, -1, -sink).
	b.edges.opposite[1] = xy(0.0f, -1.0f, -sink);
	b.edges.known = 1u << 1;

	kl_tri_contact_config config = kl_tri_contact_config_default();
	kl_tri_contact out[KL_TRI_MAX_CONTACTS];
	int n = kl_tri_contacts_with_edges(a.v, &a.edges, b.v, &b.edges, 1, 2, &config, out);
	assert_int_equal(n, 1);
	assert_near(out[0].normal.z, 1.0f, 1e-5f);
	assert_near(out[0].separation, -sink, 1e-6f);
	assert_near(out[0].point.z, -0.5f * sink, 1e-6f);
	assert_int_equal(out[0].feature_a, KL_TRI_EDGE0 + 1);
	assert_int_equal(out[0].feature_b, KL_TRI_EDGE0 + 1);

	// Without neighbours the pair can only use a face normal: sideways, with the depth of the whole
	// triangle (what made stacked gears sink and jitter). Even where max_depth allows it, that depth
	// dwarfs the 2 mm crossing line: a sliver, so the pair gives nothing rather than a sideways push.
	assert_int_equal(kl_tri_contacts(a.v, b.v, 1, 2, &config, out), 0);
	kl_tri_contact_config deep = config;
	deep.max_depth = 5.0f;
	assert_int_equal(kl_tri_contacts(a.v, b.v, 1, 2, &deep, out), 0);

	// A concave rim is never a way out: fold a's neighbour up in front of it. Only the (sliver)
	// face normals remain, so nothing.
	wall concave = a;
	concave.edges.opposite[1] = xy(1.0f, 0.0f, 0.5f);
	assert_int_equal(kl_tri_contacts_with_edges(concave.v, &concave.edges, b.v, &b.edges, 1, 2, &deep, out), 0);

	// A real face crossing is not a sliver: a wall sunk 2 mm into a floor crosses it along its
	// whole 2 m bottom edge and keeps the floor's normal.
	const vec3s floor_tri[3] = {xy(-5, -5, 0), xy(5, -5, 0), xy(0, 5, 0)};
	const vec3s sunk_wall[3] = {xy(-1, 0, -sink), xy(1, 0, -sink), xy(0, 0, 1)};
	n = kl_tri_contacts(floor_tri, sunk_wall, 0, 0, &config, out);
	assert_true(n > 0);
	assert_near(out[0].normal.z, 1.0f, 1e-5f);
	assert_near(out[0].separation, -sink, 1e-6f);

	// Upper body lifted clear: no contact along the rims beyond the margin.
	for (int k = 0; k < 3; ++k)
	{
		b.v[k].z += sink + 2.0f * config.margin;
	}
	b.edges.opposite[1].z += sink + 2.0f * config.margin;
	assert_int_equal(kl_tri_contacts_with_edges(a.v, &a.edges, b.v, &b.edges, 1, 2, &config, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opposites_of_closed_mesh),
		cmocka_unit_test(test_neighbours_of_closed_mesh),
		cmocka_unit_test(test_open_and_non_manifold_edges),
		cmocka_unit_test(test_rims_crossing_give_the_vertical_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
