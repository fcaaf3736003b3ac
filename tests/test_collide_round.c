// Kollide — tests of the round narrowphase pairs (sphere, capsule against everything convex), the
// dispatcher's pair order, GJK distances and the box hull.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "collide_pairs.h"
#include "gjk.h"
#include "hull.h"

#include <kollide/kollide.h>

#include <float.h>
#include <string.h>
#include <time.h>

#define SPEC KL_SPECULATIVE_DISTANCE

static uint32_t g_rng = 2024u;

static float rand_unit(void)
{
	g_rng = g_rng * 1664525u + 1013904223u;
	return (float)(g_rng >> 8) / 16777216.0f;
}

static float rand_range(float lo, float hi)
{
	return lo + (hi - lo) * rand_unit();
}

// The draws are statements of their own: C leaves the order in which a call's arguments (or an
// initializer's values) are evaluated open, and compilers differ, so one expression with several
// draws would give each compiler other cases.

static vec3s rand_vec(float lo, float hi)
{
	float x = rand_range(lo, hi);
	float y = rand_range(lo, hi);
	float z = rand_range(lo, hi);
	return kl_vec3(x, y, z);
}

static versors rand_quat(void)
{
	versors q;
	q.x = rand_range(-1, 1);
	q.y = rand_range(-1, 1);
	q.z = rand_range(-1, 1);
	q.w = rand_range(-1, 1);
	return glms_quat_normalize(q);
}

static kl_transform make_xf(vec3s p, versors q)
{
	kl_transform xf = {p, q};
	return xf;
}

/// A random pose: the position in [lo, hi]^3, then the rotation.
static kl_transform rand_xf(float lo, float hi)
{
	vec3s p = rand_vec(lo, hi);
	return make_xf(p, rand_quat());
}

/// The pose of a random rotation at a random point in [lo, hi]^3 of frame xf.
static kl_transform rand_xf_in(kl_transform xf, float lo, float hi)
{
	vec3s p = kl_transform_point(xf, rand_vec(lo, hi));
	return make_xf(p, rand_quat());
}

/// A point on the grid of quarter units in [0, 3]^3.
static vec3s rand_grid_point(void)
{
	float x = 0.25f * (float)(int)(rand_unit() * 12);
	float y = 0.25f * (float)(int)(rand_unit() * 12);
	float z = 0.25f * (float)(int)(rand_unit() * 12);
	return kl_vec3(x, y, z);
}

static kl_transform xf_at(float x, float y, float z)
{
	return make_xf(kl_vec3(x, y, z), glms_quat_identity());
}

static kl_collider sphere(float r)
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = KL_SHAPE_SPHERE;
	c.radius = r;
	return c;
}

static kl_collider capsule(float r, float h)
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = KL_SHAPE_CAPSULE;
	c.capsule.radius = r;
	c.capsule.half_height = h;
	return c;
}

static kl_collider box(vec3s h)
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = KL_SHAPE_BOX;
	c.half_extents = h;
	return c;
}

static kl_collider hull_collider(const kl_hull* h)
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = KL_SHAPE_HULL;
	c.hull = h;
	return c;
}

static kl_collider plane(vec3s n, float offset)
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = KL_SHAPE_PLANE;
	c.plane.normal = n;
	c.plane.offset = offset;
	return c;
}

#define assert_vec_near(a, b, tol)                                                                                      \
	do                                                                                                                 \
	{                                                                                                                  \
		vec3s va_ = (a), vb_ = (b);                                                                                    \
		assert_near(va_.x, vb_.x, tol);                                                                                \
		assert_near(va_.y, vb_.y, tol);                                                                                \
		assert_near(va_.z, vb_.z, tol);                                                                                \
	} while (0)

/// Every manifold: unit normal, solver fields zero, points within the margin.
static void check_manifold(const kl_manifold* m, float speculative)
{
	assert_true(m->point_count >= 0 && m->point_count <= KL_MAX_MANIFOLD_POINTS);
	if (m->point_count > 0)
	{
		assert_near(glms_vec3_norm(m->normal), 1.0, 1e-5);
	}
	for (int i = 0; i < m->point_count; ++i)
	{
		const kl_manifold_point* p = m->points + i;
		assert_true(p->separation <= speculative);
		assert_true(isfinite(p->point.x) && isfinite(p->point.y) && isfinite(p->point.z));
		assert_true(p->normal_impulse == 0.0f && p->tangent_impulse[0] == 0.0f && p->tangent_impulse[1] == 0.0f);
		assert_true(p->max_normal_impulse == 0.0f && !p->persisted);
	}
}

static kl_manifold collide(const kl_collider* a, kl_transform xa, const kl_collider* b, kl_transform xb, float spec)
{
	kl_manifold m;
	memset(&m, 0xCD, sizeof(m)); // garbage in: the narrowphase must write everything it returns
	kl_collide(a, xa, b, xb, spec, NULL, &m);
	check_manifold(&m, spec);
	return m;
}

/// Collides in both orders and checks the swap: same points, separations and ids, flipped normal.
/// Pairs of one rank are not swapped but computed from the other side, so for them only the
/// normal and the depth must agree (ids name the first shape's features).
static kl_manifold collide_both(const kl_collider* a, kl_transform xa, const kl_collider* b, kl_transform xb,
								float spec)
{
	kl_manifold m = collide(a, xa, b, xb, spec);
	kl_manifold r = collide(b, xb, a, xa, spec);
	bool polyhedra = (a->type == KL_SHAPE_BOX || a->type == KL_SHAPE_HULL) &&
					 (b->type == KL_SHAPE_BOX || b->type == KL_SHAPE_HULL);
	if (polyhedra)
	{
		return m; // kl_collide_hulls: tested with its own code
	}
	assert_int_equal(m.point_count, r.point_count);
	float normal_tol = a->type == b->type ? 1e-4f : 0.0f; // a swap only flips the normal
	if (m.point_count > 0 && glms_vec3_distance(m.normal, glms_vec3_negate(r.normal)) > normal_tol)
	{
		print_error("types %d, %d: normals (%g %g %g) and (%g %g %g), depth %g\n", (int)a->type, (int)b->type,
					m.normal.x, m.normal.y, m.normal.z, r.normal.x, r.normal.y, r.normal.z, m.points[0].separation);
		fail();
	}
	// Pairs of one type (capsules, spheres) are computed from each side in turn.
	if (a->type == b->type)
	{
		float da = FLT_MAX, db = FLT_MAX;
		for (int i = 0; i < m.point_count; ++i)
		{
			da = fminf(da, m.points[i].separation);
			db = fminf(db, r.points[i].separation);
		}
		assert_near(da, db, 1e-5);
		return m;
	}
	for (int i = 0; i < m.point_count; ++i)
	{
		assert_int_equal(m.points[i].id, r.points[i].id);
		assert_vec_near(m.points[i].point, r.points[i].point, 0.0);
		assert_near(m.points[i].separation, r.points[i].separation, 0.0);
	}
	return m;
}

// ---------------------------------------------------------------------------------------------
// Brute-force references (independent of the code under test)

static float point_box_distance(vec3s p, vec3s h)
{
	float dx = fmaxf(fabsf(p.x) - h.x, 0.0f), dy = fmaxf(fabsf(p.y) - h.y, 0.0f), dz = fmaxf(fabsf(p.z) - h.z, 0.0f);
	return sqrtf(dx * dx + dy * dy + dz * dz);
}

static double point_segment_distance(const double p[3], const double a[3], const double b[3])
{
	double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
	double t = ee > 0 ? ((p[0] - a[0]) * e[0] + (p[1] - a[1]) * e[1] + (p[2] - a[2]) * e[2]) / ee : 0;
	t = t < 0 ? 0 : (t > 1 ? 1 : t);
	double d[3] = {a[0] + t * e[0] - p[0], a[1] + t * e[1] - p[1], a[2] + t * e[2] - p[2]};
	return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/// Segment–segment distance by ternary search over the first parameter (the distance to a
/// segment is convex along a line).
static double segment_segment_distance(vec3s a0, vec3s a1, vec3s b0, vec3s b1)
{
	double pb0[3] = {b0.x, b0.y, b0.z}, pb1[3] = {b1.x, b1.y, b1.z};
	double lo = 0, hi = 1;
	double best = 1e30;
	for (int it = 0; it < 100; ++it)
	{
		double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3, f[2];
		const double ms[2] = {m1, m2};
		for (int k = 0; k < 2; ++k)
		{
			double p[3] = {a0.x + ms[k] * (a1.x - a0.x), a0.y + ms[k] * (a1.y - a0.y), a0.z + ms[k] * (a1.z - a0.z)};
			f[k] = point_segment_distance(p, pb0, pb1);
			best = fmin(best, f[k]);
		}
		if (f[0] < f[1])
		{
			hi = m2;
		}
		else
		{
			lo = m1;
		}
	}
	return best;
}

/// Point–triangle distance (Ericson 5.1.5, in double).
static double point_triangle_distance(vec3s pf, vec3s af, vec3s bf, vec3s cf)
{
	double p[3] = {pf.x, pf.y, pf.z}, a[3] = {af.x, af.y, af.z}, b[3] = {bf.x, bf.y, bf.z}, c[3] = {cf.x, cf.y, cf.z};
	double ab[3], ac[3], ap[3], n[3];
	for (int k = 0; k < 3; ++k)
	{
		ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
	}
	n[0] = ab[1] * ac[2] - ab[2] * ac[1];
	n[1] = ab[2] * ac[0] - ab[0] * ac[2];
	n[2] = ab[0] * ac[1] - ab[1] * ac[0];
	double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
	// Inside the prism over the triangle: the plane distance.
	double s[3];
	const double* v[3] = {a, b, c};
	for (int k = 0; k < 3; ++k)
	{
		const double* u = v[k];
		const double* w = v[(k + 1) % 3];
		double e[3] = {w[0] - u[0], w[1] - u[1], w[2] - u[2]}, q[3] = {p[0] - u[0], p[1] - u[1], p[2] - u[2]};
		double cr[3] = {e[1] * q[2] - e[2] * q[1], e[2] * q[0] - e[0] * q[2], e[0] * q[1] - e[1] * q[0]};
		s[k] = cr[0] * n[0] + cr[1] * n[1] + cr[2] * n[2];
	}
	if (s[0] >= 0 && s[1] >= 0 && s[2] >= 0 && nn > 0)
	{
		return fabs(ap[0] * n[0] + ap[1] * n[1] + ap[2] * n[2]) / sqrt(nn);
	}
	return fmin(point_segment_distance(p, a, b), fmin(point_segment_distance(p, b, c), point_segment_distance(p, c, a)));
}

/// Distance from p to a hull (p outside): the nearest surface triangle.
static double point_hull_distance(vec3s p, const kl_hull* h)
{
	double best = 1e30;
	for (int t = 0; t < h->triangle_count; ++t)
	{
		const int32_t* i = h->triangles + 3 * t;
		best = fmin(best, point_triangle_distance(p, h->vertices[i[0]], h->vertices[i[1]], h->vertices[i[2]]));
	}
	return best;
}

static kl_hull* make_random_hull(int count, float size)
{
	vec3s pts[64];
	for (int i = 0; i < count; ++i)
	{
		pts[i] = rand_vec(-size, size);
	}
	kl_hull* h = kl_hull_build(pts, count);
	assert_non_null(h);
	return h;
}

// ---------------------------------------------------------------------------------------------
// Box hull

static void test_box_hull(void** state)
{
	(void)state;
	kl_box_hull storage;
	vec3s he = kl_vec3(0.5f, 1.0f, 2.0f);
	const kl_hull* h = kl_make_box_hull(&storage, he);
	assert_true(kl_hull_validate(h));
	assert_int_equal(h->vertex_count, 8);
	assert_int_equal(h->edge_count, 24);
	assert_int_equal(h->face_count, 6);
	assert_int_equal(h->triangle_count, 12);
	for (int f = 0; f < 6; ++f)
	{
		const kl_hull_face* face = h->faces + f;
		int e = face->edge;
		for (int k = 0; k < face->edge_count; ++k, e = h->edges[e].next)
		{
			// Every loop vertex on the plane, and the loop counter-clockwise about the normal.
			vec3s a = h->vertices[h->edges[e].origin];
			vec3s b = h->vertices[h->edges[h->edges[e].next].origin];
			vec3s c = h->vertices[h->edges[h->edges[h->edges[e].next].next].origin];
			assert_near(glms_vec3_dot(face->normal, a), face->offset, 1e-6);
			vec3s n = glms_vec3_cross(glms_vec3_sub(b, a), glms_vec3_sub(c, b));
			assert_true(glms_vec3_dot(n, face->normal) > 0.0f);
		}
		// The fan triangles of the face start at its first half-edge's origin, outward.
		const int32_t* t = h->triangles + 6 * f;
		assert_int_equal(t[0], h->edges[face->edge].origin);
		vec3s n = glms_vec3_cross(glms_vec3_sub(h->vertices[t[1]], h->vertices[t[0]]),
								  glms_vec3_sub(h->vertices[t[2]], h->vertices[t[0]]));
		assert_true(glms_vec3_dot(n, face->normal) > 0.0f);
	}
	// Vertex numbering: bit k of the index selects the + side of axis k (matches GJK's box).
	for (int i = 0; i < 8; ++i)
	{
		assert_true((h->vertices[i].x > 0) == ((i & 1) != 0));
		assert_true((h->vertices[i].y > 0) == ((i & 2) != 0));
		assert_true((h->vertices[i].z > 0) == ((i & 4) != 0));
	}
	assert_vec_near(h->bounds.upper, he, 0);
	assert_vec_near(h->centroid, kl_vec3(0, 0, 0), 0);
	assert_true(h->tolerance > 0.0f && h->tolerance < 1e-3f);
	// A box hull has the mass of the box it is.
	kl_mass_data md = kl_hull_mass(h, 1.0f);
	assert_near(md.mass, 8.0 * 0.5 * 1.0 * 2.0, 1e-4);
}

// ---------------------------------------------------------------------------------------------
// Closed forms

static void test_spheres(void** state)
{
	(void)state;
	kl_collider a = sphere(0.5f), b = sphere(0.5f);
	kl_manifold m = collide_both(&a, xf_at(0, 0, 0), &b, xf_at(1.2f, 0, 0), SPEC);
	assert_int_equal(m.point_count, 0);
	m = collide_both(&a, xf_at(0, 0, 0), &b, xf_at(1.01f, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.01, 1e-6);
	assert_vec_near(m.normal, kl_vec3(1, 0, 0), 1e-6);
	assert_vec_near(m.points[0].point, kl_vec3(0.505f, 0, 0), 1e-6);
	assert_int_equal(m.points[0].id, 0);
	b = sphere(0.4f);
	m = collide_both(&a, xf_at(1, 2, 3), &b, xf_at(1, 2, 3.8f), SPEC);
	assert_near(m.points[0].separation, -0.1, 1e-6);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-6);
	assert_vec_near(m.points[0].point, kl_vec3(1, 2, 3.45f), 1e-6);
	// Concentric: still a unit normal and the full depth.
	m = collide(&a, xf_at(0, 0, 0), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.9, 1e-6);
}

static void test_capsule_sphere(void** state)
{
	(void)state;
	kl_collider a = capsule(0.25f, 1.0f), b = sphere(0.5f);
	kl_manifold m = collide_both(&a, xf_at(0, 0, 0), &b, xf_at(0.7f, 0, 0.3f), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.05, 1e-6);
	assert_vec_near(m.normal, kl_vec3(1, 0, 0), 1e-6);
	assert_vec_near(m.points[0].point, kl_vec3(0.225f, 0, 0.3f), 1e-6);
	// Beyond the end: the end cap.
	m = collide_both(&a, xf_at(0, 0, 0), &b, xf_at(0, 0, 1.8f), SPEC);
	assert_int_equal(m.point_count, 0);
	m = collide_both(&a, xf_at(0, 0, 0), &b, xf_at(0, 0, 1.8f), 0.1f);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.05, 1e-6);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-6);
	// Rotated capsule: lying along x.
	versors q = glms_quatv(GLM_PI_2f, kl_vec3(0, 1, 0));
	m = collide_both(&a, make_xf(kl_vec3(0, 0, 0), q), &b, xf_at(-0.9f, 0, 0.74f), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.01, 1e-5);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-5);
}

static void test_capsules(void** state)
{
	(void)state;
	kl_collider a = capsule(0.25f, 1.0f), b = capsule(0.2f, 1.0f);
	// Crossing: b along y.
	versors along_y = glms_quatv(GLM_PI_2f, kl_vec3(1, 0, 0));
	versors along_x = glms_quatv(GLM_PI_2f, kl_vec3(0, 1, 0));
	kl_manifold m = collide_both(&a, xf_at(0, 0, 0), &b, make_xf(kl_vec3(0.4f, 0, 0.5f), along_y), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.05, 1e-6);
	assert_vec_near(m.normal, kl_vec3(1, 0, 0), 1e-6);
	assert_vec_near(m.points[0].point, kl_vec3(0.225f, 0, 0.5f), 1e-6);
	// Side by side, shifted along the axis: the two ends of the shared stretch.
	m = collide_both(&a, xf_at(0, 0, 0), &b, xf_at(0.45f, 0, 0.5f), SPEC);
	assert_int_equal(m.point_count, 2);
	assert_vec_near(m.normal, kl_vec3(1, 0, 0), 1e-6);
	assert_near(m.points[0].point.z, -0.5, 1e-6);
	assert_near(m.points[1].point.z, 1.0, 1e-6);
	for (int i = 0; i < 2; ++i)
	{
		assert_near(m.points[i].separation, 0.0, 1e-6);
		assert_int_equal(m.points[i].id, (uint32_t)i);
	}
	// A log lying on a log.
	m = collide_both(&a, make_xf(kl_vec3(0, 0, 0), along_x), &b, make_xf(kl_vec3(0.3f, 0, 0.44f), along_x), SPEC);
	assert_int_equal(m.point_count, 2);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-6);
	assert_near(m.points[0].point.x, -0.7, 1e-5);
	assert_near(m.points[1].point.x, 1.0, 1e-5);
	assert_near(m.points[0].separation, -0.01, 1e-5);
	assert_near(m.points[1].separation, -0.01, 1e-5);
	// Tilted up by 0.5 degrees: two points, the raised end a little less deep.
	versors tilt = glms_quat_mul(glms_quatv(glm_rad(0.5f), kl_vec3(0, 1, 0)), along_x);
	m = collide_both(&a, make_xf(kl_vec3(0, 0, 0), along_x), &b, make_xf(kl_vec3(0, 0, 0.44f), tilt), SPEC);
	assert_int_equal(m.point_count, 2);
	assert_true(fabsf(m.points[0].separation - m.points[1].separation) > 0.01f);
	// Tilted up by 20 degrees: the high end leaves the margin, the low end stays (id of its end).
	tilt = glms_quat_mul(glms_quatv(glm_rad(-20.0f), kl_vec3(0, 1, 0)), along_x);
	m = collide_both(&a, make_xf(kl_vec3(0, 0, 0), along_x), &b, make_xf(kl_vec3(0.9f, 0, 0.8f), tilt), SPEC);
	assert_int_equal(m.point_count, 1);
	// Crossing at 10 degrees in the contact plane: one point.
	versors cross = glms_quat_mul(glms_quatv(glm_rad(10.0f), kl_vec3(0, 0, 1)), along_x);
	m = collide_both(&a, make_xf(kl_vec3(0, 0, 0), along_x), &b, make_xf(kl_vec3(0, 0, 0.44f), cross), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.01, 1e-5);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-5);
	// Cores intersecting: a unit normal across both axes, depth of the radii.
	m = collide_both(&a, xf_at(0, 0, 0), &b, make_xf(kl_vec3(0, 0, 0.2f), along_y), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(fabsf(m.normal.x), 1.0, 1e-6);
	assert_near(m.points[0].separation, -0.45, 1e-6);
	// Random poses: the separation is the segment distance minus the radii.
	for (int trial = 0; trial < 300; ++trial)
	{
		kl_transform xa = rand_xf(-0.5f, 0.5f), xb = rand_xf(-0.5f, 0.5f);
		m = collide_both(&a, xa, &b, xb, 10.0f);
		vec3s ax = kl_rotate(xa.q, kl_vec3(0, 0, 1)), bx = kl_rotate(xb.q, kl_vec3(0, 0, 1));
		double d = segment_segment_distance(glms_vec3_sub(xa.p, ax), glms_vec3_add(xa.p, ax), glms_vec3_sub(xb.p, bx),
											glms_vec3_add(xb.p, bx));
		assert_true(m.point_count >= 1);
		float deepest = m.points[0].separation;
		for (int i = 1; i < m.point_count; ++i)
		{
			deepest = fminf(deepest, m.points[i].separation);
		}
		if (d > 1e-3)
		{
			assert_near(deepest, d - 0.45, 2e-5);
		}
	}
}

static void test_plane_round(void** state)
{
	(void)state;
	kl_collider p = plane(kl_vec3(0, 0, 1), 0.0f), s = sphere(0.5f), c = capsule(0.25f, 1.0f);
	kl_manifold m = collide_both(&p, xf_at(0, 0, 0), &s, xf_at(3, 4, 0.49f), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.01, 1e-6);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 0);
	assert_vec_near(m.points[0].point, kl_vec3(3, 4, -0.005f), 1e-6);
	m = collide_both(&p, xf_at(0, 0, 0), &s, xf_at(3, 4, 0.53f), SPEC);
	assert_int_equal(m.point_count, 0);
	// A capsule lying on the plane: both ends.
	versors along_x = glms_quatv(GLM_PI_2f, kl_vec3(0, 1, 0));
	m = collide_both(&p, xf_at(0, 0, 0), &c, make_xf(kl_vec3(0, 0, 0.24f), along_x), SPEC);
	assert_int_equal(m.point_count, 2);
	for (int i = 0; i < 2; ++i)
	{
		assert_near(m.points[i].separation, -0.01, 1e-6);
		assert_int_equal(m.points[i].id, (uint32_t)i);
		assert_near(fabsf(m.points[i].point.x), 1.0, 1e-6);
	}
	// Standing capsule: the lower end only.
	m = collide_both(&p, xf_at(0, 0, 0), &c, xf_at(0, 0, 1.2f), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_int_equal(m.points[0].id, 0u);
	assert_near(m.points[0].separation, -0.05, 1e-6);
	// A plane placed by its transform: offset 1 along its normal, then the frame turned on its side.
	kl_collider p2 = plane(kl_vec3(0, 0, 1), 1.0f);
	versors side = glms_quatv(GLM_PI_2f, kl_vec3(1, 0, 0)); // z -> -y
	m = collide_both(&p2, make_xf(kl_vec3(0, 0, 5), side), &s, xf_at(0, -1.45f, 5), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_vec_near(m.normal, kl_vec3(0, -1, 0), 1e-6);
	assert_near(m.points[0].separation, -0.05, 1e-6);
	// Planes against planes never touch.
	m = collide(&p, xf_at(0, 0, 0), &p2, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 0);
}

// ---------------------------------------------------------------------------------------------
// Round against boxes and hulls

/// Expected sphere–box contact from the box-frame closed form.
static void expect_sphere_box(vec3s c_local, float r, vec3s h, float* separation, vec3s* n_local)
{
	float d = point_box_distance(c_local, h);
	if (d > 0.0f)
	{
		vec3s q = kl_vec3(glm_clamp(c_local.x, -h.x, h.x), glm_clamp(c_local.y, -h.y, h.y),
						  glm_clamp(c_local.z, -h.z, h.z));
		*separation = d - r;
		*n_local = glms_vec3_normalize(glms_vec3_sub(q, c_local));
		return;
	}
	float depth = FLT_MAX;
	*n_local = kl_vec3(0, 0, 1); // overwritten: some axis is always the shallowest
	for (int k = 0; k < 3; ++k)
	{
		float dk = h.raw[k] - fabsf(c_local.raw[k]);
		if (dk < depth)
		{
			depth = dk;
			*n_local = kl_vec3(0, 0, 0);
			n_local->raw[k] = c_local.raw[k] < 0 ? 1.0f : -1.0f;
		}
	}
	*separation = -depth - r;
}

static void test_sphere_box(void** state)
{
	(void)state;
	vec3s h = kl_vec3(1.0f, 0.5f, 0.25f);
	kl_collider b = box(h), s = sphere(0.3f);
	kl_box_hull storage;
	const kl_hull* bh = kl_make_box_hull(&storage, h);
	for (int trial = 0; trial < 2000; ++trial)
	{
		kl_transform xb = rand_xf(-3, 3);
		vec3s c_local = rand_vec(-1.5f, 1.5f);
		kl_transform xs = make_xf(kl_transform_point(xb, c_local), rand_quat());
		float sep;
		vec3s n_local;
		expect_sphere_box(c_local, 0.3f, h, &sep, &n_local);
		kl_manifold m = collide_both(&s, xs, &b, xb, SPEC);
		if (sep > SPEC + 1e-5f)
		{
			assert_int_equal(m.point_count, 0);
			continue;
		}
		if (sep < SPEC - 1e-5f)
		{
			assert_int_equal(m.point_count, 1);
		}
		if (m.point_count == 0)
		{
			continue;
		}
		assert_near(m.points[0].separation, sep, 1e-5);
		if (glms_vec3_distance(m.normal, kl_rotate(xb.q, n_local)) > 1e-4f)
		{
			vec3s ml = kl_inv_rotate(xb.q, m.normal);
			print_error("c (%g %g %g): n (%g %g %g), expected (%g %g %g)\n", c_local.x, c_local.y, c_local.z, ml.x,
						ml.y, ml.z, n_local.x, n_local.y, n_local.z);
			fail();
		}
		// The point is midway between the sphere's surface and the box's along the normal.
		vec3s on_sphere = glms_vec3_add(xs.p, glms_vec3_scale(m.normal, 0.3f));
		vec3s mid = glms_vec3_add(on_sphere, glms_vec3_scale(m.normal, 0.5f * sep));
		assert_vec_near(m.points[0].point, mid, 1e-4);
		// The generic path (GJK on the box hull) agrees with the closed form.
		kl_manifold g;
		kl_collide_round_hull(&s, xs, bh, xb, SPEC, NULL, &g);
		check_manifold(&g, SPEC);
		if (fabsf(sep - SPEC) > 1e-4f)
		{
			assert_int_equal(g.point_count, 1);
			assert_near(g.points[0].separation, sep, 2e-5);
			// At an exact tie between two faces the closed form and SAT may pick different ones.
			if (point_box_distance(c_local, h) > 0.0f)
			{
				assert_vec_near(g.normal, m.normal, 2e-4);
				assert_vec_near(g.points[0].point, m.points[0].point, 2e-4);
			}
		}
	}
}

static void test_round_speculative_cutoff(void** state)
{
	(void)state;
	kl_collider b = box(kl_vec3(1, 1, 1)), s = sphere(0.5f), c = capsule(0.5f, 0.5f);
	kl_manifold m = collide_both(&s, xf_at(0, 0, 1.519f), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.019, 1e-6);
	m = collide_both(&s, xf_at(0, 0, 1.521f), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 0);
	m = collide_both(&c, xf_at(0, 0, 2.019f), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.019, 1e-5);
	m = collide_both(&c, xf_at(0, 0, 2.021f), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 0);
	// Zero margin: only touching points.
	m = collide_both(&s, xf_at(0, 0, 1.49f), &b, xf_at(0, 0, 0), 0.0f);
	assert_int_equal(m.point_count, 1);
	m = collide_both(&s, xf_at(0, 0, 1.501f), &b, xf_at(0, 0, 0), 0.0f);
	assert_int_equal(m.point_count, 0);
}

static void test_capsule_on_box_face(void** state)
{
	(void)state;
	vec3s h = kl_vec3(2.0f, 2.0f, 0.5f);
	kl_collider b = box(h), c = capsule(0.25f, 1.0f);
	versors along_x = glms_quatv(GLM_PI_2f, kl_vec3(0, 1, 0));
	for (int pose = 0; pose < 20; ++pose)
	{
		// The same relative pose under a random common frame gives the same contact.
		kl_transform world = pose == 0 ? kl_transform_identity() : rand_xf(-5, 5);
		kl_transform xb = world;
		kl_transform xc = kl_transform_mul(world, make_xf(kl_vec3(0.3f, -0.5f, 0.5f + 0.25f - 0.004f), along_x));
		kl_manifold m = collide_both(&c, xc, &b, xb, SPEC);
		assert_int_equal(m.point_count, 2);
		assert_vec_near(m.normal, kl_rotate(world.q, kl_vec3(0, 0, -1)), 1e-5);
		for (int i = 0; i < 2; ++i)
		{
			assert_near(m.points[i].separation, -0.004, 2e-5);
			assert_int_equal(m.points[i].id, (uint32_t)i);
			vec3s local = kl_inv_transform_point(world, m.points[i].point);
			assert_near(local.z, 0.5 - 0.002, 2e-5);
			assert_near(fabsf(local.x - 0.3f), 1.0, 2e-5);
		}
		// The box first: the normal flips, the points stay.
		kl_manifold r = collide(&b, xb, &c, xc, SPEC);
		assert_vec_near(r.normal, kl_rotate(world.q, kl_vec3(0, 0, 1)), 1e-5);
	}
	// Sunk until the core is inside the box: still two points on the face, full depth.
	kl_manifold m = collide_both(&c, make_xf(kl_vec3(0, 0, 0.45f), along_x), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 2);
	assert_vec_near(m.normal, kl_vec3(0, 0, -1), 1e-6);
	for (int i = 0; i < 2; ++i)
	{
		assert_near(m.points[i].separation, -0.05 - 0.25, 1e-6);
	}
	// Hanging over the edge: clipped to the face.
	m = collide_both(&c, make_xf(kl_vec3(2.5f, 0, 0.74f), along_x), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 2);
	assert_near(m.points[0].point.x, 1.5, 1e-5);
	assert_near(m.points[1].point.x, 2.0, 1e-5);
	// Slightly tilted: two points, different depths. Steep: one point at the low end.
	versors tilt = glms_quat_mul(glms_quatv(glm_rad(0.5f), kl_vec3(0, 1, 0)), along_x);
	m = collide_both(&c, make_xf(kl_vec3(0, 0, 0.76f), tilt), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 2);
	assert_true(fabsf(m.points[0].separation - m.points[1].separation) > 0.01f);
	tilt = glms_quat_mul(glms_quatv(glm_rad(30.0f), kl_vec3(0, 1, 0)), along_x);
	m = collide_both(&c, make_xf(kl_vec3(0, 0, 0.5f + 0.25f + 0.5f - 0.01f), tilt), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.01, 1e-5);
	assert_vec_near(m.normal, kl_vec3(0, 0, -1), 1e-6);
	// Standing on its end: one point.
	m = collide_both(&c, xf_at(0.5f, 0.5f, 0.5f + 1.25f - 0.01f), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.01, 1e-5);
	assert_int_equal(m.points[0].id, 0u);
}

static void test_capsule_along_box_edge(void** state)
{
	(void)state;
	vec3s h = kl_vec3(2.0f, 1.0f, 0.5f);
	kl_collider b = box(h), c = capsule(0.25f, 1.0f);
	versors along_x = glms_quatv(GLM_PI_2f, kl_vec3(0, 1, 0));
	float d = (0.25f - 0.003f) / sqrtf(2.0f);
	kl_manifold m = collide_both(&c, make_xf(kl_vec3(0.5f, 1.0f + d, 0.5f + d), along_x), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 2);
	vec3s diag = glms_vec3_normalize(kl_vec3(0, -1, -1));
	assert_vec_near(m.normal, diag, 1e-4);
	for (int i = 0; i < 2; ++i)
	{
		assert_near(m.points[i].separation, -0.003, 2e-5);
	}
	assert_near(m.points[0].point.x, -0.5, 1e-4);
	assert_near(m.points[1].point.x, 1.5, 1e-4);
	// Across the edge (perpendicular to it and to the normal): one point.
	versors across = glms_quatv(GLM_PI_4f, kl_vec3(1, 0, 0)); // z -> (0, -1, 1) / sqrt 2
	m = collide_both(&c, make_xf(kl_vec3(0.5f, 1.0f + d, 0.5f + d), across), &b, xf_at(0, 0, 0), SPEC);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.003, 2e-5);
}

static void test_capsule_box_random(void** state)
{
	(void)state;
	// Separation of the deepest point against sampled segment distances (box closed form).
	vec3s h = kl_vec3(0.7f, 0.4f, 0.3f);
	kl_collider b = box(h), c = capsule(0.2f, 0.6f);
	for (int trial = 0; trial < 1000; ++trial)
	{
		kl_transform xb = rand_xf(-1, 1);
		kl_transform xc = rand_xf_in(xb, -1.3f, 1.3f);
		kl_manifold m = collide_both(&c, xc, &b, xb, 10.0f);
		vec3s ax = kl_rotate(xc.q, kl_vec3(0, 0, 0.6f));
		vec3s p0 = kl_inv_transform_point(xb, glms_vec3_sub(xc.p, ax));
		vec3s p1 = kl_inv_transform_point(xb, glms_vec3_add(xc.p, ax));
		float best = FLT_MAX;
		const int n = 2000;
		for (int i = 0; i <= n; ++i)
		{
			best = fminf(best, point_box_distance(glms_vec3_lerp(p0, p1, (float)i / n), h));
		}
		if (best < 1e-3f)
		{
			continue; // core inside: a penetration depth, checked elsewhere
		}
		assert_true(m.point_count >= 1);
		float deepest = FLT_MAX;
		for (int i = 0; i < m.point_count; ++i)
		{
			deepest = fminf(deepest, m.points[i].separation);
		}
		// Sampling overestimates the distance by at most half a step; a capsule clipped to a face
		// near its edge may report up to 0.1 slop more room than the exact distance.
		assert_true(deepest <= best - 0.2f + 0.1f * KL_LINEAR_SLOP + 1e-5f);
		assert_true(deepest >= best - 0.2f - 1.2f / n - 1e-5f);
	}
}

static void test_sphere_inside_hull(void** state)
{
	(void)state;
	g_rng = 99u;
	for (int trial = 0; trial < 20; ++trial)
	{
		kl_hull* h = make_random_hull(24, 1.0f);
		kl_collider hc = hull_collider(h), s = sphere(0.1f);
		kl_transform xh = rand_xf(-2, 2);
		vec3s c_local = h->centroid;
		kl_transform xs = make_xf(kl_transform_point(xh, c_local), rand_quat());
		kl_manifold m = collide_both(&s, xs, &hc, xh, SPEC);
		assert_int_equal(m.point_count, 1);
		float depth = FLT_MAX;
		int face = -1;
		for (int f = 0; f < h->face_count; ++f)
		{
			float df = h->faces[f].offset - glms_vec3_dot(h->faces[f].normal, c_local);
			if (df < depth)
			{
				depth = df;
				face = f;
			}
		}
		assert_near(m.points[0].separation, -depth - 0.1f, 1e-5);
		assert_vec_near(m.normal, kl_rotate(xh.q, glms_vec3_negate(h->faces[face].normal)), 1e-5);
		// Outside and near: the separation is the distance to the surface less the radius.
		vec3s out_local = glms_vec3_add(c_local, glms_vec3_scale(rand_vec(-1, 1), 2.0f));
		xs.p = kl_transform_point(xh, out_local);
		double dist = point_hull_distance(out_local, h);
		m = collide_both(&s, xs, &hc, xh, 10.0f);
		bool inside = true;
		for (int f = 0; f < h->face_count; ++f)
		{
			inside = inside && glms_vec3_dot(h->faces[f].normal, out_local) <= h->faces[f].offset;
		}
		if (!inside)
		{
			assert_int_equal(m.point_count, 1);
			assert_near(m.points[0].separation, dist - 0.1, 2e-5);
		}
		kl_hull_destroy(h);
	}
}

static void test_sphere_resting_on_hull_is_steady(void** state)
{
	(void)state;
	g_rng = 7u;
	kl_hull* h = make_random_hull(30, 1.0f);
	kl_collider hc = hull_collider(h), s = sphere(0.2f);
	kl_transform xh = make_xf(kl_vec3(1, 2, 3), rand_quat());
	// The largest face: slide a resting sphere over it; the normal must not wobble.
	int face = 0;
	for (int f = 1; f < h->face_count; ++f)
	{
		if (h->faces[f].edge_count > h->faces[face].edge_count)
		{
			face = f;
		}
	}
	const kl_hull_face* fc = h->faces + face;
	vec3s centre = kl_vec3(0, 0, 0);
	int e = fc->edge;
	for (int k = 0; k < fc->edge_count; ++k, e = h->edges[e].next)
	{
		centre = glms_vec3_add(centre, h->vertices[h->edges[e].origin]);
	}
	centre = glms_vec3_scale(centre, 1.0f / (float)fc->edge_count);
	vec3s expected_n = kl_rotate(xh.q, glms_vec3_negate(fc->normal));
	vec3s tangent = glms_vec3_normalize(glms_vec3_cross(fc->normal, kl_vec3(0.3f, 0.5f, 0.7f)));
	for (int step = 0; step < 50; ++step)
	{
		vec3s local = glms_vec3_add(centre, glms_vec3_scale(tangent, 1e-4f * (float)step));
		local = glms_vec3_add(local, glms_vec3_scale(fc->normal, 0.2f - 0.001f));
		kl_manifold m = collide(&s, make_xf(kl_transform_point(xh, local), glms_quat_identity()), &hc, xh, SPEC);
		assert_int_equal(m.point_count, 1);
		assert_true(glms_vec3_eqv(m.normal, expected_n)); // bitwise the same each step
		assert_near(m.points[0].separation, -0.001, 2e-5);
		assert_int_equal(m.points[0].id, 0u);
	}
	kl_hull_destroy(h);
}

static void test_capsule_sliding_on_box(void** state)
{
	(void)state;
	// A capsule sliding across a box face keeps two points, its ids and an exact normal.
	kl_collider b = box(kl_vec3(3, 3, 0.5f)), c = capsule(0.25f, 0.5f);
	versors q = glms_quat_mul(glms_quatv(0.3f, kl_vec3(0, 0, 1)), glms_quatv(GLM_PI_2f, kl_vec3(0, 1, 0)));
	kl_transform xb = make_xf(kl_vec3(0, 0, -0.5f), glms_quat_identity());
	kl_collide_cache cache;
	memset(&cache, 0, sizeof(cache));
	for (int step = 0; step < 200; ++step)
	{
		float t = 0.01f * (float)step;
		kl_transform xc = make_xf(kl_vec3(t, 0.5f * t, 0.25f - 0.002f + 1e-6f * sinf(t * 50.0f)), q);
		kl_manifold m;
		kl_collide(&b, xb, &c, xc, SPEC, &cache, &m);
		check_manifold(&m, SPEC);
		assert_int_equal(m.point_count, 2);
		assert_true(glms_vec3_eqv(m.normal, kl_vec3(0, 0, 1)));
		assert_int_equal(m.points[0].id, 0u);
		assert_int_equal(m.points[1].id, 1u);
		assert_near(m.points[0].separation, -0.002, 1e-5);
	}
}

static void test_all_pairs_swap(void** state)
{
	(void)state;
	g_rng = 5u;
	kl_hull* h = make_random_hull(20, 0.6f);
	kl_collider shapes[5] = {sphere(0.4f), capsule(0.3f, 0.5f), box(kl_vec3(0.5f, 0.4f, 0.3f)), hull_collider(h),
							 plane(glms_vec3_normalize(kl_vec3(0.1f, 0.2f, 1.0f)), 0.1f)};
	int touching = 0;
	for (int trial = 0; trial < 200; ++trial)
	{
		for (int i = 0; i < 5; ++i)
		{
			for (int j = 0; j < 5; ++j)
			{
				kl_transform xa = rand_xf(-0.6f, 0.6f);
				kl_transform xb = rand_xf(-0.6f, 0.6f);
				kl_manifold m = collide_both(shapes + i, xa, shapes + j, xb, SPEC);
				touching += m.point_count > 0;
				if (i == 4 && j == 4)
				{
					assert_int_equal(m.point_count, 0);
				}
			}
		}
	}
	assert_true(touching > 1000);
	kl_hull_destroy(h);
}

// ---------------------------------------------------------------------------------------------
// GJK distance

static void check_witnesses(const kl_collider* a, kl_transform xa, const kl_collider* b, kl_transform xb, float d,
							vec3s pa, vec3s pb)
{
	(void)a;
	(void)xa;
	(void)b;
	(void)xb;
	assert_near(glms_vec3_distance(pa, pb), d, 1e-4 + 1e-4 * d);
}

static void test_gjk_sphere_box(void** state)
{
	(void)state;
	vec3s h = kl_vec3(0.8f, 0.5f, 0.2f);
	kl_collider b = box(h), s = sphere(0.25f);
	for (int trial = 0; trial < 2000; ++trial)
	{
		kl_transform xb = rand_xf(-2, 2);
		vec3s c_local = rand_vec(-2, 2);
		kl_transform xs = make_xf(kl_transform_point(xb, c_local), rand_quat());
		float expected = fmaxf(point_box_distance(c_local, h) - 0.25f, 0.0f);
		vec3s pa, pb;
		float d = kl_convex_distance(&s, xs, &b, xb, &pa, &pb);
		assert_near(d, expected, 2e-5 + 2e-6 * expected);
		float d2 = kl_convex_distance(&b, xb, &s, xs, NULL, NULL);
		assert_near(d2, d, 2e-5);
		if (expected > 0.0f)
		{
			check_witnesses(&s, xs, &b, xb, d, pa, pb);
			assert_near(glms_vec3_distance(pa, xs.p), 0.25, 1e-5);
			assert_near(point_box_distance(kl_inv_transform_point(xb, pb), h), 0.0, 2e-5);
		}
	}
}

static void test_gjk_capsule_hull(void** state)
{
	(void)state;
	g_rng = 31u;
	for (int trial = 0; trial < 100; ++trial)
	{
		kl_hull* h = make_random_hull(16, 0.7f);
		kl_collider hc = hull_collider(h), c = capsule(0.1f, 0.4f);
		kl_transform xh = rand_xf(-1, 1);
		for (int k = 0; k < 10; ++k)
		{
			kl_transform xc = rand_xf_in(xh, -1.8f, 1.8f);
			vec3s ax = kl_rotate(xc.q, kl_vec3(0, 0, 0.4f));
			vec3s p0 = kl_inv_transform_point(xh, glms_vec3_sub(xc.p, ax));
			vec3s p1 = kl_inv_transform_point(xh, glms_vec3_add(xc.p, ax));
			// Brute force: sample the core segment, each sample against every hull triangle.
			const int n = 400;
			double best = 1e30;
			bool any_inside = false;
			for (int i = 0; i <= n; ++i)
			{
				vec3s p = glms_vec3_lerp(p0, p1, (float)i / n);
				bool inside = true;
				for (int f = 0; f < h->face_count; ++f)
				{
					inside = inside && glms_vec3_dot(h->faces[f].normal, p) <= h->faces[f].offset;
				}
				any_inside = any_inside || inside;
				best = fmin(best, inside ? 0.0 : point_hull_distance(p, h));
			}
			vec3s pa, pb;
			float d = kl_convex_distance(&c, xc, &hc, xh, &pa, &pb);
			if (any_inside || best < 0.1)
			{
				if (any_inside)
				{
					assert_near(d, 0.0, 0.0);
				}
				continue;
			}
			double expected = best - 0.1;
			assert_true(d <= expected + 2e-5);
			assert_true(d >= expected - 0.8 / n - 2e-5);
			check_witnesses(&c, xc, &hc, xh, d, pa, pb);
		}
		kl_hull_destroy(h);
	}
}

/// Exact box–box distance: vertices against the other box and all edge pairs.
static double box_box_distance(vec3s ha, kl_transform xa, vec3s hb, kl_transform xb)
{
	kl_box_hull sa, sb;
	const kl_hull* a = kl_make_box_hull(&sa, ha);
	const kl_hull* b = kl_make_box_hull(&sb, hb);
	vec3s va[8], vb[8];
	for (int i = 0; i < 8; ++i)
	{
		va[i] = kl_transform_point(xa, a->vertices[i]);
		vb[i] = kl_transform_point(xb, b->vertices[i]);
	}
	double best = 1e30;
	for (int i = 0; i < 8; ++i)
	{
		best = fmin(best, point_box_distance(kl_inv_transform_point(xb, va[i]), hb));
		best = fmin(best, point_box_distance(kl_inv_transform_point(xa, vb[i]), ha));
	}
	for (int i = 0; i < 24; i += 2)
	{
		for (int j = 0; j < 24; j += 2)
		{
			best = fmin(best, segment_segment_distance(va[a->edges[i].origin], va[a->edges[i + 1].origin],
													   vb[b->edges[j].origin], vb[b->edges[j + 1].origin]));
		}
	}
	return best;
}

/// Box–box overlap by the 15 separating axes (double precision); the gap when separated is
/// checked against the exact distance instead.
static bool boxes_overlap(vec3s ha, kl_transform xa, vec3s hb, kl_transform xb)
{
	vec3s ua[3], ub[3], axes[15];
	for (int k = 0; k < 3; ++k)
	{
		vec3s e = kl_vec3(0, 0, 0);
		e.raw[k] = 1.0f;
		ua[k] = kl_rotate(xa.q, e);
		ub[k] = kl_rotate(xb.q, e);
	}
	int n = 0;
	for (int k = 0; k < 3; ++k)
	{
		axes[n++] = ua[k];
		axes[n++] = ub[k];
		for (int j = 0; j < 3; ++j)
		{
			axes[n++] = glms_vec3_cross(ua[k], ub[j]);
		}
	}
	vec3s d = glms_vec3_sub(xb.p, xa.p);
	for (int i = 0; i < 15; ++i)
	{
		double len = glms_vec3_norm(axes[i]);
		if (len < 1e-6)
		{
			continue;
		}
		double ra = 0, rb = 0;
		for (int k = 0; k < 3; ++k)
		{
			ra += ha.raw[k] * fabs(glms_vec3_dot(ua[k], axes[i]));
			rb += hb.raw[k] * fabs(glms_vec3_dot(ub[k], axes[i]));
		}
		if (fabs(glms_vec3_dot(d, axes[i])) > ra + rb)
		{
			return false;
		}
	}
	return true;
}

static void test_gjk_box_box(void** state)
{
	(void)state;
	g_rng = 77u;
	int separated = 0, overlapping = 0;
	for (int trial = 0; trial < 1000; ++trial)
	{
		vec3s ha = rand_vec(0.1f, 0.8f), hb = rand_vec(0.1f, 0.8f);
		kl_collider a = box(ha), b = box(hb);
		kl_transform xa = rand_xf(-1.5f, 1.5f);
		kl_transform xb = rand_xf(-1.5f, 1.5f);
		vec3s pa, pb;
		float d = kl_convex_distance(&a, xa, &b, xb, &pa, &pb);
		double expected = box_box_distance(ha, xa, hb, xb);
		if (boxes_overlap(ha, xa, hb, xb) && expected > 1e-4)
		{
			++overlapping;
			assert_near(d, 0.0, 0.0);
			continue;
		}
		if (expected < 1e-4)
		{
			continue; // touching or crossing edges: only "about zero" is meaningful
		}
		++separated;
		assert_near(d, expected, 3e-5 + 1e-5 * expected);
		check_witnesses(&a, xa, &b, xb, d, pa, pb);
		assert_near(point_box_distance(kl_inv_transform_point(xa, pa), ha), 0.0, 3e-5);
		assert_near(point_box_distance(kl_inv_transform_point(xb, pb), hb), 0.0, 3e-5);
	}
	print_message("box-box: %d separated, %d overlapping\n", separated, overlapping);
	assert_true(separated > 300 && overlapping > 10);
}

static void test_gjk_hull_hull_and_degenerate(void** state)
{
	(void)state;
	g_rng = 4242u;
	kl_hull* h1 = make_random_hull(40, 0.5f);
	kl_hull* h2 = make_random_hull(40, 0.5f);
	kl_collider a = hull_collider(h1), b = hull_collider(h2);
	for (int trial = 0; trial < 300; ++trial)
	{
		kl_transform xa = rand_xf(-1, 1), xb = rand_xf(-1, 1);
		vec3s pa, pb;
		float d = kl_convex_distance(&a, xa, &b, xb, &pa, &pb);
		assert_true(d >= 0.0f && isfinite(d));
		if (d > 0.0f)
		{
			// Witnesses on the surfaces and no vertex of either closer to the other than d.
			check_witnesses(&a, xa, &b, xb, d, pa, pb);
			double da = point_hull_distance(kl_inv_transform_point(xb, pa), h2);
			assert_near(da, d, 1e-4);
			for (int i = 0; i < h1->vertex_count; ++i)
			{
				vec3s v = kl_inv_transform_point(xb, kl_transform_point(xa, h1->vertices[i]));
				bool inside = true;
				for (int f = 0; f < h2->face_count; ++f)
				{
					inside = inside && glms_vec3_dot(h2->faces[f].normal, v) <= h2->faces[f].offset;
				}
				assert_false(inside);
				assert_true(point_hull_distance(v, h2) >= d - 1e-4);
			}
		}
		else
		{
			// Overlap claimed: the witness lies in (or on) both hulls.
			vec3s la = kl_inv_transform_point(xa, pa), lb = kl_inv_transform_point(xb, pa);
			for (int f = 0; f < h1->face_count; ++f)
			{
				assert_true(glms_vec3_dot(h1->faces[f].normal, la) <= h1->faces[f].offset + 1e-4f);
			}
			for (int f = 0; f < h2->face_count; ++f)
			{
				assert_true(glms_vec3_dot(h2->faces[f].normal, lb) <= h2->faces[f].offset + 1e-4f);
			}
		}
	}
	// Degenerate cores: a zero-length capsule is a sphere; touching spheres give 0; identical
	// boxes at one pose overlap.
	kl_collider c0 = capsule(0.5f, 0.0f), s = sphere(0.5f), bx = box(kl_vec3(1, 1, 1));
	assert_near(kl_convex_distance(&c0, xf_at(0, 0, 0), &s, xf_at(3, 0, 0), NULL, NULL), 2.0, 1e-6);
	assert_near(kl_convex_distance(&s, xf_at(0, 0, 0), &s, xf_at(1, 0, 0), NULL, NULL), 0.0, 0.0);
	assert_near(kl_convex_distance(&bx, xf_at(0, 0, 0), &bx, xf_at(0, 0, 0), NULL, NULL), 0.0, 0.0);
	// Face to face, exactly parallel (a degenerate simplex for GJK).
	assert_near(kl_convex_distance(&bx, xf_at(0, 0, 0), &bx, xf_at(0.3f, 0.2f, 2.5f), NULL, NULL), 0.5, 1e-6);
	kl_hull_destroy(h1);
	kl_hull_destroy(h2);
}

static void test_gjk_aligned_boxes(void** state)
{
	(void)state;
	// Axis-aligned boxes on a coarse grid: exact face, edge and vertex ties everywhere (flat
	// simplices), also far from the origin. The distance is the length of the per-axis gaps.
	g_rng = 555u;
	const vec3s far = kl_vec3(1000.0f, -2000.0f, 500.0f);
	const versors turns[4] = {{{0, 0, 0, 1}}, {{0, 0, 0.70710678f, 0.70710678f}}, {{0.70710678f, 0, 0, 0.70710678f}},
							  {{0, 0, 1, 0}}};
	for (int trial = 0; trial < 2000; ++trial)
	{
		vec3s ha = kl_vec3(0.25f * (float)(1 + (int)(rand_unit() * 4)), 0.5f, 0.25f);
		vec3s hb = kl_vec3(0.5f, 0.25f * (float)(1 + (int)(rand_unit() * 4)), 0.75f);
		vec3s pa = rand_grid_point();
		vec3s pb = rand_grid_point();
		versors qa = turns[(int)(rand_unit() * 4)], qb = turns[(int)(rand_unit() * 4)];
		bool shifted = trial & 1;
		kl_transform xa = make_xf(shifted ? glms_vec3_add(pa, far) : pa, qa);
		kl_transform xb = make_xf(shifted ? glms_vec3_add(pb, far) : pb, qb);
		// World half extents of the turned boxes.
		vec3s wa = kl_rotate(qa, ha), wb = kl_rotate(qb, hb);
		wa = kl_vec3(fabsf(wa.x), fabsf(wa.y), fabsf(wa.z));
		wb = kl_vec3(fabsf(wb.x), fabsf(wb.y), fabsf(wb.z));
		double gap2 = 0.0;
		for (int k = 0; k < 3; ++k)
		{
			double g = fabs((double)pb.raw[k] - pa.raw[k]) - wa.raw[k] - wb.raw[k];
			gap2 += g > 0 ? g * g : 0.0;
		}
		kl_collider a = box(ha), b = box(hb);
		vec3s wpa, wpb;
		float d = kl_convex_distance(&a, xa, &b, xb, &wpa, &wpb);
		double tol = shifted ? 2e-3 : 2e-5; // float spacing at 2000 m is 1.2e-4 m
		assert_near(d, sqrt(gap2), tol);
		if (d > 0.0f)
		{
			assert_near(glms_vec3_distance(wpa, wpb), d, tol);
		}
		// The same boxes as hulls (GJK on vertex lists) agree too.
		kl_box_hull sa, sb;
		kl_collider ha_c = hull_collider(kl_make_box_hull(&sa, ha)), hb_c = hull_collider(kl_make_box_hull(&sb, hb));
		assert_near(kl_convex_distance(&ha_c, xa, &hb_c, xb, NULL, NULL), d, tol);
	}
}

// ---------------------------------------------------------------------------------------------
// Bad input and cost

static void test_bad_input(void** state)
{
	(void)state;
	kl_collider s = sphere(0.5f), bad = sphere(0.5f), nohull = hull_collider(NULL), mesh = sphere(1.0f);
	bad.type = (kl_shape_type)42;
	mesh.type = KL_SHAPE_MESH;
	kl_manifold m;
	kl_collide(&s, xf_at(0, 0, 0), &s, xf_at(0, 0, 0), SPEC, NULL, NULL); // no crash
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	kl_collide(NULL, xf_at(0, 0, 0), &s, xf_at(0, 0, 0), SPEC, NULL, &m);
	assert_int_equal(m.point_count, 0);
	kl_collide(&s, xf_at(0, 0, 0), &bad, xf_at(0, 0, 0), SPEC, NULL, &m);
	assert_int_equal(m.point_count, 0);
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	kl_collide(&nohull, xf_at(0, 0, 0), &s, xf_at(0, 0, 0), SPEC, NULL, &m);
	assert_int_equal(m.point_count, 0);
	kl_collide(&mesh, xf_at(0, 0, 0), &s, xf_at(0, 0, 0), SPEC, NULL, &m);
	assert_int_equal(m.point_count, 0);
	kl_collider p = plane(kl_vec3(0, 0, 1), 0.0f);
	assert_near(kl_convex_distance(&p, xf_at(0, 0, 0), &s, xf_at(0, 0, 0), NULL, NULL), 0.0, 0.0);
	assert_int_equal(kl_last_error_code(), KL_ERR_UNSUPPORTED);
	assert_near(kl_convex_distance(NULL, xf_at(0, 0, 0), &s, xf_at(0, 0, 0), NULL, NULL), 0.0, 0.0);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void test_cost(void** state)
{
	(void)state;
	// Reported, not asserted (sanitizer builds are many times slower).
	enum
	{
		N = 100000
	};
	kl_collider b = box(kl_vec3(1, 1, 1)), s = sphere(0.5f), c = capsule(0.3f, 0.5f);
	kl_transform xb = make_xf(kl_vec3(0, 0, 0), glms_quatv(0.3f, kl_vec3(0, 0, 1)));
	kl_manifold m;
	int total = 0;
	double t0 = now_ns();
	for (int i = 0; i < N; ++i)
	{
		kl_collide(&s, xf_at(0.001f * (float)(i & 255), 0, 1.49f), &b, xb, SPEC, NULL, &m);
		total += m.point_count;
	}
	double t1 = now_ns();
	for (int i = 0; i < N; ++i)
	{
		kl_transform xc = make_xf(kl_vec3(0.001f * (float)(i & 255), 0, 1.79f), glms_quatv(0.2f, kl_vec3(1, 0, 0)));
		kl_collide(&c, xc, &b, xb, SPEC, NULL, &m);
		total += m.point_count;
	}
	double t2 = now_ns();
	for (int i = 0; i < N; ++i)
	{
		kl_transform xc = make_xf(kl_vec3(0.001f * (float)(i & 255), 0.6f, 1.1f), glms_quatv(1.2f, kl_vec3(1, 0, 0)));
		kl_collide(&c, xc, &b, xb, SPEC, NULL, &m);
		total += m.point_count;
	}
	double t3 = now_ns();
	print_message("sphere-box %.1f ns, capsule-box (resting) %.1f ns, capsule-box (edge, GJK) %.1f ns [%d]\n",
				  (t1 - t0) / N, (t2 - t1) / N, (t3 - t2) / N, total);
	assert_true(total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_hull),
		cmocka_unit_test(test_spheres),
		cmocka_unit_test(test_capsule_sphere),
		cmocka_unit_test(test_capsules),
		cmocka_unit_test(test_plane_round),
		cmocka_unit_test(test_sphere_box),
		cmocka_unit_test(test_round_speculative_cutoff),
		cmocka_unit_test(test_capsule_on_box_face),
		cmocka_unit_test(test_capsule_along_box_edge),
		cmocka_unit_test(test_capsule_box_random),
		cmocka_unit_test(test_sphere_inside_hull),
		cmocka_unit_test(test_sphere_resting_on_hull_is_steady),
		cmocka_unit_test(test_capsule_sliding_on_box),
		cmocka_unit_test(test_all_pairs_swap),
		cmocka_unit_test(test_gjk_sphere_box),
		cmocka_unit_test(test_gjk_capsule_hull),
		cmocka_unit_test(test_gjk_box_box),
		cmocka_unit_test(test_gjk_hull_hull_and_degenerate),
		cmocka_unit_test(test_gjk_aligned_boxes),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
