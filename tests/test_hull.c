// Convex hull builder: topology (half-edges, Euler), containment, coplanar merging, rejection of
// degenerate input and robustness on hard point sets.
// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <kollide/kollide.h>

#include "hull.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static uint64_t s_rng = 0x9E3779B97F4A7C15ull;

static double rnd(void)
{
	s_rng ^= s_rng << 13;
	s_rng ^= s_rng >> 7;
	s_rng ^= s_rng << 17;
	return (double)(s_rng >> 11) / 9007199254740992.0;
}

// Draws are sequenced (declarators or statements of their own): C leaves the order in which a
// call's arguments are evaluated open, and compilers differ, so one call with several draws would
// give each compiler other point sets.

static vec3s random_unit(void)
{
	double z = 2 * rnd() - 1, a = 2 * PI * rnd(), s = sqrt(1 - z * z);
	return kl_vec3((float)(s * cos(a)), (float)(s * sin(a)), (float)z);
}

static vec3s scaled(vec3s v, float s, vec3s offset)
{
	return glms_vec3_add(glms_vec3_scale(v, s), offset);
}

// Explicit half-edge checks (kl_hull_validate does these too; spelled out here on purpose).
static void check_topology(const kl_hull* h)
{
	assert_true(kl_hull_validate(h));
	for (int e = 0; e < h->edge_count; ++e)
	{
		const kl_hull_half_edge* he = h->edges + e;
		assert_int_equal(h->edges[he->twin].twin, e);
		assert_int_equal(he->twin, e ^ 1);
		assert_int_equal(h->edges[he->twin].origin, h->edges[he->next].origin);
		assert_int_not_equal(h->edges[he->twin].face, he->face);
		// next cycles back within the face's edge count
		int n = e, steps = 0;
		do
		{
			n = h->edges[n].next;
			assert_int_equal(h->edges[n].face, he->face);
			++steps;
		} while (n != e && steps <= h->faces[he->face].edge_count);
		assert_int_equal(steps, h->faces[he->face].edge_count);
	}
	assert_int_equal(h->vertex_count - h->edge_count / 2 + h->face_count, 2);
	int tris = 0;
	for (int f = 0; f < h->face_count; ++f)
	{
		tris += h->faces[f].edge_count - 2;
	}
	assert_int_equal(kl_hull_triangle_count(h), tris);
	for (int i = 0; i < 3 * tris; ++i)
	{
		assert_true(h->triangles[i] >= 0 && h->triangles[i] < h->vertex_count);
	}
}

// Every point (input or vertex) is inside or on every face plane, within tol; every face's
// vertices are on its plane within twice the build tolerance (merged faces are planar to within
// the tolerance about the seed plane on either side).
static void check_containment(const kl_hull* h, const vec3s* points, int count, float tol)
{
	float planarity = 2.0f * h->tolerance + tol;
	for (int f = 0; f < h->face_count; ++f)
	{
		const kl_hull_face* face = h->faces + f;
		for (int i = 0; i < count; ++i)
		{
			float d = glms_vec3_dot(face->normal, points[i]) - face->offset;
			if (d > tol)
			{
				fail_msg("point %d is %g outside face %d (tolerance %g)", i, d, f, tol);
			}
		}
		int e = face->edge;
		for (int k = 0; k < face->edge_count; ++k, e = h->edges[e].next)
		{
			float d = glms_vec3_dot(face->normal, h->vertices[h->edges[e].origin]) - face->offset;
			if (d < -planarity || d > tol)
			{
				fail_msg("face %d vertex is %g off its plane", f, d);
			}
		}
	}
}

// Faces are convex polygons: no vertex bends inward from the chord of its neighbours by more
// than the build tolerance (measured in the face plane).
static void check_convex_faces(const kl_hull* h)
{
	for (int f = 0; f < h->face_count; ++f)
	{
		const kl_hull_face* face = h->faces + f;
		int e = face->edge;
		for (int k = 0; k < face->edge_count; ++k, e = h->edges[e].next)
		{
			int e2 = h->edges[e].next;
			vec3s a = h->vertices[h->edges[e].origin];
			vec3s b = h->vertices[h->edges[e2].origin];
			vec3s c = h->vertices[h->edges[h->edges[e2].next].origin];
			vec3s inward = glms_vec3_normalize(glms_vec3_cross(face->normal, glms_vec3_sub(c, a)));
			float depth = glms_vec3_dot(glms_vec3_sub(b, a), inward);
			if (depth > 1.01f * h->tolerance)
			{
				fail_msg("face %d bends inward by %g (tolerance %g)", f, depth, h->tolerance);
			}
		}
	}
}

static void check_hull(const kl_hull* h, const vec3s* points, int count, float tol)
{
	assert_non_null(h);
	check_topology(h);
	check_convex_faces(h);
	check_containment(h, points, count, tol);
	check_containment(h, h->vertices, h->vertex_count, tol);
	// Outward triangulation: positive volume, centre of volume inside the bounds.
	kl_mass_data md;
	kl_clear_error();
	if (kl_compute_polyhedron_mass(h->vertices, h->triangles, h->triangle_count, 1.0f, &md) == KL_OK)
	{
		assert_true(md.mass > 0.0f);
	}
	else
	{
		// Only a volume that float cannot hold may fail.
		assert_int_equal(kl_last_error_code(), KL_ERR_LIMIT);
	}
	kl_aabb b = kl_hull_bounds(h);
	assert_true(h->centroid.x >= b.lower.x && h->centroid.x <= b.upper.x);
	assert_true(h->centroid.y >= b.lower.y && h->centroid.y <= b.upper.y);
	assert_true(h->centroid.z >= b.lower.z && h->centroid.z <= b.upper.z);
}

static void assert_box_hull(const kl_hull* h)
{
	assert_int_equal(kl_hull_vertex_count(h), 8);
	assert_int_equal(kl_hull_face_count(h), 6);
	assert_int_equal(h->edge_count, 24);
	assert_int_equal(kl_hull_triangle_count(h), 12);
	for (int f = 0; f < 6; ++f)
	{
		assert_int_equal(h->faces[f].edge_count, 4);
	}
}

static void assert_build_fails(const vec3s* points, int count, kl_result code, const char* word)
{
	kl_clear_error();
	kl_hull* h = kl_hull_build(points, count);
	assert_null(h);
	assert_int_equal(kl_last_error_code(), code);
	assert_true(kl_last_error()[0] != '\0');
	if (word != NULL && strstr(kl_last_error(), word) == NULL)
	{
		fail_msg("error \"%s\" does not mention \"%s\"", kl_last_error(), word);
	}
}

// Grid of (n + 1)^2 points on each face of the cube [-1, 1]^3, rotated by q.
static int cube_face_grid(vec3s* out, int n, versors q, float scale, vec3s offset)
{
	int count = 0;
	for (int axis = 0; axis < 3; ++axis)
	{
		for (int side = -1; side <= 1; side += 2)
		{
			for (int i = 0; i <= n; ++i)
			{
				for (int j = 0; j <= n; ++j)
				{
					float c[3];
					c[axis] = (float)side;
					c[(axis + 1) % 3] = -1.0f + 2.0f * (float)i / (float)n;
					c[(axis + 2) % 3] = -1.0f + 2.0f * (float)j / (float)n;
					out[count++] = scaled(kl_rotate(q, kl_vec3(c[0], c[1], c[2])), scale, offset);
				}
			}
		}
	}
	return count;
}

// ---------------------------------------------------------------------------------------------

static void test_cube_with_interior(void** state)
{
	(void)state;
	vec3s p[108];
	int n = 0;
	for (int i = 0; i < 8; ++i)
	{
		p[n++] = kl_vec3(i & 1 ? 1.0f : -1.0f, i & 2 ? 2.0f : -2.0f, i & 4 ? 0.5f : -0.5f);
	}
	for (int i = 0; i < 100; ++i)
	{
		double x = rnd(), y = rnd(), z = rnd();
		p[n++] = kl_vec3((float)(1.8 * x - 0.9), (float)(3.8 * y - 1.9), (float)(0.9 * z - 0.45));
	}
	// Interior points first, corners last: the hull must not depend on order.
	for (int i = 0; i < 8; ++i)
	{
		vec3s t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
	kl_hull* h = kl_hull_build(p, n);
	check_hull(h, p, n, 1e-5f);
	assert_box_hull(h);
	for (int f = 0; f < 6; ++f)
	{
		vec3s nrm = h->faces[f].normal;
		float ax = fabsf(nrm.x), ay = fabsf(nrm.y), az = fabsf(nrm.z);
		assert_true(fmaxf(ax, fmaxf(ay, az)) > 0.99999f);
		float expected = ax > 0.5f ? 1.0f : ay > 0.5f ? 2.0f : 0.5f;
		assert_true(fabsf(h->faces[f].offset - expected) < 1e-6f);
	}
	kl_aabb b = kl_hull_bounds(h);
	assert_true(b.lower.x == -1.0f && b.upper.y == 2.0f && b.lower.z == -0.5f);
	assert_true(fabsf(h->centroid.x) < 1e-6f && fabsf(h->centroid.y) < 1e-6f && fabsf(h->centroid.z) < 1e-6f);
	kl_mass_data md = kl_hull_mass(h, 2.0f);
	assert_true(fabsf(md.mass - 16.0f) < 1e-4f);
	kl_hull_destroy(h);
}

static void test_sphere_points(void** state)
{
	(void)state;
	enum { N = 1000 };
	vec3s* p = malloc(N * sizeof(vec3s));
	for (int run = 0; run < 5; ++run)
	{
		for (int i = 0; i < N; ++i)
		{
			p[i] = random_unit();
		}
		kl_hull* h = kl_hull_build(p, N);
		check_hull(h, p, N, 1e-5f);
		// Every point of a sphere is extreme; nearly cocircular neighbours may merge into quads
		// but no point disappears.
		assert_int_equal(kl_hull_vertex_count(h), N);
		assert_true(kl_hull_face_count(h) > N);
		kl_hull_destroy(h);
	}
	free(p);
}

static void test_random_cloud_in_box(void** state)
{
	(void)state;
	enum { N = 20000 };
	vec3s* p = malloc(N * sizeof(vec3s));
	for (int i = 0; i < N; ++i)
	{
		double x = rnd(), y = rnd(), z = rnd();
		p[i] = kl_vec3((float)(x - 0.5), (float)(2 * y - 1), (float)(3 * z - 1.5));
	}
	kl_hull* h = kl_hull_build(p, N);
	check_hull(h, p, N, 1e-5f);
	kl_hull_destroy(h);
	free(p);
}

static void test_grid_on_cube_faces(void** state)
{
	(void)state;
	vec3s* p = malloc(6 * 21 * 21 * sizeof(vec3s));
	versors identity = kl_quat_wxyz(1, 0, 0, 0);
	versors tilted = glms_quatv(0.6f, glms_vec3_normalize(kl_vec3(1, 2, 3)));
	struct
	{
		versors q;
		float scale;
		vec3s offset;
	} cases[] = {
		{identity, 1.0f, kl_vec3(0, 0, 0)},	  {tilted, 1.0f, kl_vec3(0, 0, 0)},
		{tilted, 1e18f, kl_vec3(0, 0, 0)},	  {tilted, 1e-20f, kl_vec3(0, 0, 0)},
		{tilted, 1.0f, kl_vec3(100, -50, 20)}, {identity, 3.0f, kl_vec3(1e4f, 0, 0)},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c)
	{
		for (int n = 1; n <= 20; n += 19)
		{
			int count = cube_face_grid(p, n, cases[c].q, cases[c].scale, cases[c].offset);
			kl_hull* h = kl_hull_build(p, count);
			if (h == NULL)
			{
				fail_msg("case %zu, n %d: %s", c, n, kl_last_error());
			}
			check_hull(h, p, count, 1e-5f * cases[c].scale * (1.0f + glms_vec3_norm(cases[c].offset)));
			assert_box_hull(h);
			kl_hull_destroy(h);
		}
	}
	free(p);
}

static void test_cylinder_like(void** state)
{
	(void)state;
	enum { SIDES = 48, LEVELS = 12 };
	vec3s p[SIDES * LEVELS + 2 * SIDES];
	int n = 0;
	for (int i = 0; i < SIDES; ++i)
	{
		double a = 2 * PI * i / SIDES;
		for (int k = 0; k < LEVELS; ++k)
		{
			p[n++] = kl_vec3((float)cos(a), (float)sin(a), -2.0f + 4.0f * (float)k / (LEVELS - 1));
		}
		// Points inside the caps.
		p[n++] = kl_vec3((float)(0.5 * cos(a)), (float)(0.5 * sin(a)), 2.0f);
		p[n++] = kl_vec3((float)(0.5 * cos(a)), (float)(0.5 * sin(a)), -2.0f);
	}
	kl_hull* h = kl_hull_build(p, n);
	check_hull(h, p, n, 1e-5f);
	// Points along the side lines lie between two faces only and are removed.
	assert_int_equal(kl_hull_vertex_count(h), 2 * SIDES);
	assert_int_equal(kl_hull_face_count(h), SIDES + 2);
	kl_hull_destroy(h);
}

static void test_duplicates_and_near_duplicates(void** state)
{
	(void)state;
	vec3s p[8 * 10];
	int n = 0;
	for (int copy = 0; copy < 10; ++copy)
	{
		for (int i = 0; i < 8; ++i)
		{
			float jitter = copy == 0 ? 0.0f : 1e-7f * (float)copy;
			p[n++] = kl_vec3((i & 1 ? 1.0f : -1.0f) + jitter, (i & 2 ? 1.0f : -1.0f) - jitter, i & 4 ? 1.0f : -1.0f);
		}
	}
	kl_hull* h = kl_hull_build(p, n);
	check_hull(h, p, n, 1e-5f);
	assert_box_hull(h);
	kl_hull_destroy(h);
}

static void test_huge_and_tiny(void** state)
{
	(void)state;
	enum { N = 500 };
	vec3s p[N];
	const float scales[] = {1e18f, 1e30f, 1e-30f, 1e-36f};
	for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); ++s)
	{
		for (int i = 0; i < N; ++i)
		{
			p[i] = glms_vec3_scale(random_unit(), scales[s]);
		}
		kl_hull* h = kl_hull_build(p, N);
		check_hull(h, p, N, 1e-5f * scales[s]);
		kl_hull_destroy(h);
	}
	// Mass of a hull too big for float: zeroed with a message, no NaN.
	for (int i = 0; i < N; ++i)
	{
		p[i] = glms_vec3_scale(random_unit(), 1e18f);
	}
	kl_hull* h = kl_hull_build(p, N);
	assert_non_null(h);
	kl_clear_error();
	kl_mass_data md = kl_hull_mass(h, 1.0f);
	assert_true(md.mass == 0.0f);
	assert_int_equal(kl_last_error_code(), KL_ERR_LIMIT);
	kl_hull_destroy(h);
}

// Slabs around the flatness tolerance (1e-5 of the extent): either a valid hull or a clean
// "coplanar" rejection, never a broken polyhedron.
static void test_thin_slabs(void** state)
{
	(void)state;
	enum { N = 200 };
	vec3s p[N];
	versors q = glms_quatv(0.4f, glms_vec3_normalize(kl_vec3(1, 1, 0)));
	int built = 0;
	for (int run = 0; run < 40; ++run)
	{
		double thickness = 2e-5 * (0.5 + 0.1 * run);
		for (int i = 0; i < N; ++i)
		{
			double x = rnd(), y = rnd(), z = rnd();
			p[i] = kl_rotate(q, kl_vec3((float)(2 * x - 1), (float)(2 * y - 1), (float)(thickness * (z - 0.5))));
		}
		kl_clear_error();
		kl_hull* h = kl_hull_build(p, N);
		if (h == NULL)
		{
			assert_int_equal(kl_last_error_code(), KL_ERR_DEGENERATE);
			assert_non_null(strstr(kl_last_error(), "coplanar"));
			continue;
		}
		++built;
		check_hull(h, p, N, 3.0f * h->tolerance);
		kl_hull_destroy(h);
	}
	assert_true(built > 0);
}

// A unit sphere millions of units from the origin: float spacing there is 0.25, so the points
// sit on a coarse lattice and the tolerance is about the radius. Some merge into no valid
// polyhedron at full tolerance and need the builder's fallback; the result is still a valid hull
// or a clean rejection.
static void test_coarse_far_sphere(void** state)
{
	(void)state;
	enum { N = 500 };
	vec3s p[N];
	int built = 0;
	for (int run = 0; run < 60; ++run)
	{
		float o = 1.0e6f + 5.0e4f * (float)run;
		for (int i = 0; i < N; ++i)
		{
			p[i] = glms_vec3_add(random_unit(), kl_vec3(o, -o, o));
		}
		kl_clear_error();
		kl_hull* h = kl_hull_build(p, N);
		if (h == NULL)
		{
			assert_int_equal(kl_last_error_code(), KL_ERR_DEGENERATE);
			continue;
		}
		++built;
		check_hull(h, p, N, 3.0f * h->tolerance);
		kl_hull_destroy(h);
	}
	assert_true(built > 0);
}

// The pieces of the builder's fallback: merging a slab's triangles with a tolerance above its
// thickness folds the sides into the top and bottom (no valid polyhedron), while exact
// coplanarity always gives a valid hull.
static void test_merge_fallback(void** state)
{
	(void)state;
	enum { N = 100 };
	vec3s p[N];
	for (int i = 0; i < N; ++i)
	{
		double x = rnd(), y = rnd(), z = rnd();
		p[i] = kl_vec3((float)(2 * x - 1), (float)(2 * y - 1), (float)(0.01 * (z - 0.5)));
	}
	kl_hull_trimesh mesh;
	assert_int_equal(kl_hull_quickhull(p, N, &mesh), KL_OK);
	mesh.tolerance = 0.1;
	mesh.flat_tolerance = 0.1;
	kl_hull* folded = kl_hull_from_trimesh(&mesh);
	assert_true(folded == NULL || !kl_hull_validate(folded));
	kl_hull_destroy(folded);
	mesh.tolerance = 0.0;
	kl_hull* exact = kl_hull_from_trimesh(&mesh);
	check_hull(exact, p, N, 1e-6f);
	kl_hull_destroy(exact);
	kl_hull_trimesh_free(&mesh);
}

static void test_degenerate_input(void** state)
{
	(void)state;
	vec3s p[64];
	// Coplanar grid, slightly rotated so that the plane is not axis aligned.
	versors q = glms_quatv(0.3f, kl_vec3(1, 0, 0));
	for (int i = 0; i < 64; ++i)
	{
		p[i] = kl_rotate(q, kl_vec3((float)(i % 8), (float)(i / 8), 0.0f));
	}
	assert_build_fails(p, 64, KL_ERR_DEGENERATE, "coplanar");
	for (int i = 0; i < 64; ++i)
	{
		p[i] = kl_vec3(0.5f * (float)i, 0.25f * (float)i, -(float)i);
	}
	assert_build_fails(p, 64, KL_ERR_DEGENERATE, "collinear");
	assert_build_fails(p, 3, KL_ERR_DEGENERATE, NULL);
	for (int i = 0; i < 64; ++i)
	{
		p[i] = kl_vec3(1.0f, 2.0f, 3.0f);
	}
	assert_build_fails(p, 64, KL_ERR_DEGENERATE, "coincide");
	// Three distinct points, many copies.
	for (int i = 0; i < 64; ++i)
	{
		p[i] = kl_vec3((float)(i % 3), (float)(i % 3 == 1), 0.0f);
	}
	assert_build_fails(p, 64, KL_ERR_DEGENERATE, "distinct");
	for (int i = 0; i < 64; ++i)
	{
		p[i] = random_unit();
	}
	p[17].y = NAN;
	assert_build_fails(p, 64, KL_ERR_INVALID_ARGUMENT, NULL);
	p[17].y = INFINITY;
	assert_build_fails(p, 64, KL_ERR_INVALID_ARGUMENT, NULL);
	assert_build_fails(NULL, 10, KL_ERR_INVALID_ARGUMENT, NULL);
	assert_build_fails(p, -1, KL_ERR_INVALID_ARGUMENT, NULL);
	assert_build_fails(p, KL_HULL_MAX_INPUT_POINTS + 1, KL_ERR_LIMIT, NULL);
}

static void test_clone(void** state)
{
	(void)state;
	vec3s p[200];
	for (int i = 0; i < 200; ++i)
	{
		p[i] = random_unit();
	}
	kl_hull* h = kl_hull_build(p, 200);
	assert_non_null(h);
	kl_hull* c = kl_hull_clone(h);
	assert_non_null(c);
	assert_int_equal(c->vertex_count, h->vertex_count);
	assert_int_equal(c->edge_count, h->edge_count);
	assert_int_equal(c->face_count, h->face_count);
	assert_int_equal(c->triangle_count, h->triangle_count);
	assert_ptr_not_equal(c->vertices, h->vertices);
	assert_memory_equal(c->vertices, h->vertices, (size_t)h->vertex_count * sizeof(vec3s));
	assert_memory_equal(c->edges, h->edges, (size_t)h->edge_count * sizeof(kl_hull_half_edge));
	assert_memory_equal(c->faces, h->faces, (size_t)h->face_count * sizeof(kl_hull_face));
	assert_memory_equal(c->triangles, h->triangles, (size_t)h->triangle_count * 3 * sizeof(int32_t));
	assert_memory_equal(&c->bounds, &h->bounds, sizeof(kl_aabb));
	assert_memory_equal(&c->centroid, &h->centroid, sizeof(vec3s));
	kl_hull_destroy(h);
	check_topology(c);
	kl_hull_destroy(c);
	kl_hull_destroy(NULL);
	assert_null(kl_hull_clone(NULL));
}

static void test_max_input(void** state)
{
	(void)state;
	enum { N = KL_HULL_MAX_INPUT_POINTS };
	vec3s* p = malloc(N * sizeof(vec3s));
	for (int i = 0; i < N; ++i)
	{
		p[i] = random_unit();
	}
	kl_hull* h = kl_hull_build(p, N);
	check_topology(h);
	kl_hull_destroy(h);
	free(p);
}

// A hull is saved as its vertices (scene files) and rebuilt from them: the rebuild must be the
// same hull bit for bit, vertices in the same order, faces, triangles and so mass data.
static void assert_same_hull(const kl_hull* a, const kl_hull* b)
{
	assert_int_equal(a->vertex_count, b->vertex_count);
	assert_memory_equal(a->vertices, b->vertices, (size_t)a->vertex_count * sizeof(vec3s));
	assert_int_equal(a->edge_count, b->edge_count);
	assert_memory_equal(a->edges, b->edges, (size_t)a->edge_count * sizeof(kl_hull_half_edge));
	assert_int_equal(kl_hull_face_count(a), kl_hull_face_count(b));
	assert_memory_equal(a->faces, b->faces, (size_t)a->face_count * sizeof(kl_hull_face));
	assert_int_equal(kl_hull_triangle_count(a), kl_hull_triangle_count(b));
	assert_memory_equal(kl_hull_triangle_indices(a), kl_hull_triangle_indices(b),
						(size_t)a->triangle_count * 3 * sizeof(int32_t));
	assert_memory_equal(&a->centroid, &b->centroid, sizeof(vec3s));
	assert_memory_equal(&a->bounds, &b->bounds, sizeof(kl_aabb));
	assert_memory_equal(&a->tolerance, &b->tolerance, sizeof(float));
	kl_mass_data ma = kl_hull_mass(a, 1.0f);
	kl_mass_data mb = kl_hull_mass(b, 1.0f);
	assert_memory_equal(&ma.mass, &mb.mass, sizeof(float));
	assert_memory_equal(&ma.center, &mb.center, sizeof(vec3s));
	assert_memory_equal(&ma.inertia, &mb.inertia, sizeof(mat3s));
}

// Point sets of the kinds where one build is not its own rebuild: merged faces (grids, curved
// surfaces) drop points, and far from the origin rounding decides which points stay.
static int rebuild_input(int kind, vec3s* p)
{
	double ax = rnd(), ay = rnd(), az = rnd();
	vec3s axis = glms_vec3_normalize(kl_vec3((float)ax + 0.1f, (float)ay, (float)az));
	versors q = glms_quatv((float)(2 * PI * rnd()), axis);
	int n = 0;
	switch (kind)
	{
		case 0: // ball
			for (int count = 1000 + (int)(1000 * rnd()); n < count;)
			{
				vec3s u = random_unit();
				p[n++] = glms_vec3_scale(u, (float)cbrt(rnd()));
			}
			break;
		case 1: // sphere
			for (int count = 1000 + (int)(1000 * rnd()); n < count;)
			{
				p[n++] = random_unit();
			}
			break;
		case 2: // tilted grids on the faces of a cube, anywhere
		{
			double cells = rnd(), size = rnd(), ox = rnd(), oy = rnd();
			n = cube_face_grid(p, 1 + (int)(12 * cells), q, (float)pow(10.0, 4 * size - 2),
							   kl_vec3((float)(100 * ox), (float)(-50 * oy), 0.0f));
			break;
		}
		case 3: // cylinder: levels along the sides and points inside the caps
		{
			int sides = 3 + (int)(1500 * rnd()), levels = 2 + (int)(4 * rnd());
			float h = (float)(0.1 + 3 * rnd());
			for (int i = 0; i < sides; ++i)
			{
				double a = 2 * PI * i / sides;
				for (int k = 0; k < levels; ++k)
				{
					float z = -h + 2 * h * (float)k / (float)(levels - 1);
					p[n++] = kl_rotate(q, kl_vec3((float)cos(a), (float)sin(a), z));
				}
				p[n++] = kl_rotate(q, kl_vec3((float)(0.5 * cos(a)), (float)(0.5 * sin(a)), h));
			}
			break;
		}
		case 4: // curved: random points on the rims of a cylinder
			for (int count = 1000 + (int)(2000 * rnd()); n < count;)
			{
				double a = 2 * PI * rnd();
				p[n++] = kl_rotate(q, kl_vec3((float)cos(a), (float)sin(a), rnd() < 0.5 ? -1.0f : 1.0f));
			}
			break;
		case 5: // far from the origin, up to where float spacing nears the tolerance
		{
			float o = (float)pow(10.0, 1 + 5 * rnd());
			for (int count = 1000 + (int)(500 * rnd()); n < count;)
			{
				vec3s u = random_unit();
				vec3s inside = glms_vec3_scale(u, (float)cbrt(rnd()));
				p[n++] = glms_vec3_add(inside, kl_vec3(o, -0.5f * o, 0.3f * o));
			}
			break;
		}
		case 6: // ellipsoid
			for (int count = 1000 + (int)(2000 * rnd()); n < count;)
			{
				vec3s u = random_unit();
				p[n++] = kl_vec3(3.0f * u.x, 0.5f * u.y, u.z);
			}
			break;
		default: // slab around the flatness tolerance
		{
			double thickness = 2e-5 * (0.5 + 5 * rnd());
			for (int count = 1000 + (int)(500 * rnd()); n < count;)
			{
				float z = (float)(thickness * (rnd() - 0.5));
				double x = rnd(), y = rnd();
				p[n++] = kl_rotate(q, kl_vec3((float)(2 * x - 1), (float)(2 * y - 1), z));
			}
			break;
		}
	}
	return n;
}

static void test_rebuild_from_vertices_is_exact(void** state)
{
	(void)state;
	enum { KINDS = 8, SEEDS = 16 };
	vec3s* p = malloc(10000 * sizeof(vec3s)); // the largest case: a cylinder of 1502 * 6 points
	int built[KINDS] = {0};
	for (int seed = 0; seed < SEEDS; ++seed)
	{
		for (int kind = 0; kind < KINDS; ++kind)
		{
			int n = rebuild_input(kind, p);
			kl_clear_error();
			kl_hull* h = kl_hull_build(p, n);
			if (h == NULL)
			{
				// Only input near the limits of the tolerance may have no hull.
				assert_true(kind == 5 || kind == 7);
				assert_int_equal(kl_last_error_code(), KL_ERR_DEGENERATE);
				continue;
			}
			++built[kind];
			// Input points dropped before the final rebuild may stick out of it by a few tolerances.
			check_hull(h, p, n, 4.0f * h->tolerance);
			// The vertices keep the order of the input points they come from.
			for (int i = 0, k = 0; k < h->vertex_count; ++i)
			{
				assert_true(i < n);
				k += memcmp(p + i, h->vertices + k, sizeof(vec3s)) == 0;
			}
			kl_hull* again = kl_hull_build(kl_hull_vertices(h), kl_hull_vertex_count(h));
			if (again == NULL)
			{
				fail_msg("kind %d, seed %d: %s", kind, seed, kl_last_error());
			}
			assert_same_hull(h, again);
			kl_hull_destroy(again);
			kl_hull_destroy(h);
		}
	}
	for (int kind = 0; kind < KINDS; ++kind)
	{
		assert_true(built[kind] > SEEDS / 2);
	}
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cube_with_interior),
		cmocka_unit_test(test_sphere_points),
		cmocka_unit_test(test_random_cloud_in_box),
		cmocka_unit_test(test_grid_on_cube_faces),
		cmocka_unit_test(test_cylinder_like),
		cmocka_unit_test(test_duplicates_and_near_duplicates),
		cmocka_unit_test(test_huge_and_tiny),
		cmocka_unit_test(test_thin_slabs),
		cmocka_unit_test(test_coarse_far_sphere),
		cmocka_unit_test(test_merge_fallback),
		cmocka_unit_test(test_degenerate_input),
		cmocka_unit_test(test_clone),
		cmocka_unit_test(test_rebuild_from_vertices_is_exact),
		cmocka_unit_test(test_max_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
