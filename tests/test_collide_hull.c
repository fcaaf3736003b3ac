// Polyhedron narrowphase: SAT (face and edge queries) and clipping between hulls and boxes, and
// plane–hull. Checked against closed forms for boxes and a brute-force reference for random hulls;
// feature-id stability, argument order, the cached axis, robustness, and a micro-benchmark
// (KL_BENCH_LOOPS=n prints ns per pair; only correctness is asserted).
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include <kollide/kollide.h>

#include "collide_pairs.h"
#include "core.h"
#include "hull.h"
#include "sat.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static uint64_t s_rng = 0x2545F4914F6CDD1Dull;

static double rnd(void)
{
	s_rng ^= s_rng << 13;
	s_rng ^= s_rng >> 7;
	s_rng ^= s_rng << 17;
	return (double)(s_rng >> 11) / 9007199254740992.0;
}

static float rndf(float lo, float hi)
{
	return lo + (hi - lo) * (float)rnd();
}

// Each draw is a statement of its own: C leaves the order in which a call's arguments (or an
// initializer's values) are evaluated open, and compilers differ, so one expression with several
// draws would give each compiler other cases.

/// A random vector in the box [lo, hi].
static vec3s rndv3(vec3s lo, vec3s hi)
{
	float x = rndf(lo.x, hi.x);
	float y = rndf(lo.y, hi.y);
	float z = rndf(lo.z, hi.z);
	return kl_vec3(x, y, z);
}

/// A random vector in the cube [lo, hi]^3.
static vec3s rndv(float lo, float hi)
{
	return rndv3(kl_vec3(lo, lo, lo), kl_vec3(hi, hi, hi));
}

static vec3s random_dir(void)
{
	return glms_vec3_normalize(rndv(-1, 1));
}

static versors random_quat(void)
{
	versors q;
	float len;
	do
	{
		q.x = rndf(-1, 1);
		q.y = rndf(-1, 1);
		q.z = rndf(-1, 1);
		q.w = rndf(-1, 1);
		len = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	} while (len < 0.1f || len > 1.0f);
	return (versors){{q.x / len, q.y / len, q.z / len, q.w / len}};
}

static versors axis_angle(vec3s axis, float angle)
{
	return glms_quatv(angle, glms_vec3_normalize(axis));
}

static kl_transform pose(vec3s p, versors q)
{
	kl_transform t = {p, q};
	return t;
}

/// A turn about a random axis by up to max_angle either way.
static versors random_turn(float max_angle)
{
	vec3s axis = random_quat().imag;
	return axis_angle(axis, rndf(-max_angle, max_angle));
}

/// A random rotation at a random point of the cube [lo, hi]^3.
static kl_transform random_pose_in(float lo, float hi)
{
	vec3s p = rndv(lo, hi);
	return pose(p, random_quat());
}

static kl_hull* box_hull_built(vec3s h)
{
	vec3s corners[8];
	for (int i = 0; i < 8; ++i)
	{
		corners[i] = kl_vec3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
	}
	kl_hull* hull = kl_hull_build(corners, 8);
	assert_non_null(hull);
	return hull;
}

static kl_hull* random_hull(int count, vec3s extent)
{
	vec3s pts[64];
	for (int i = 0; i < count; ++i)
	{
		pts[i] = rndv3(glms_vec3_negate(extent), extent);
	}
	kl_hull* hull = kl_hull_build(pts, count);
	assert_non_null(hull);
	return hull;
}

static float min_separation(const kl_manifold* m)
{
	float s = FLT_MAX;
	for (int i = 0; i < m->point_count; ++i)
	{
		s = fminf(s, m->points[i].separation);
	}
	return s;
}

static void assert_vec_near(vec3s a, vec3s b, float tol)
{
	assert_near(a.x, b.x, tol);
	assert_near(a.y, b.y, tol);
	assert_near(a.z, b.z, tol);
}

// Signed distance-like measure of hull h at xf: the largest face-plane distance of the world point x
// (0 on the surface, negative inside; outside it is a lower bound of the distance).
static float hull_plane_distance(const kl_hull* h, kl_transform xf, vec3s x)
{
	vec3s l = kl_inv_transform_point(xf, x);
	float d = -FLT_MAX;
	for (int f = 0; f < h->face_count; ++f)
	{
		d = fmaxf(d, glms_vec3_dot(h->faces[f].normal, l) - h->faces[f].offset);
	}
	return d;
}

// Every point: p - s/2 n on A's surface, p + s/2 n on B's surface; unit normal.
static void check_points_on_surfaces(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb,
									 const kl_manifold* m, float tol)
{
	assert_near(glms_vec3_norm(m->normal), 1.0f, 1e-4f);
	for (int i = 0; i < m->point_count; ++i)
	{
		const kl_manifold_point* p = m->points + i;
		vec3s on_a = glms_vec3_sub(p->point, glms_vec3_scale(m->normal, 0.5f * p->separation));
		vec3s on_b = glms_vec3_add(p->point, glms_vec3_scale(m->normal, 0.5f * p->separation));
		assert_near(hull_plane_distance(a, xa, on_a), 0.0f, tol);
		assert_near(hull_plane_distance(b, xb, on_b), 0.0f, tol);
		assert_true(p->normal_impulse == 0.0f && !p->persisted);
	}
}

static bool has_id(const kl_manifold* m, uint32_t id)
{
	for (int i = 0; i < m->point_count; ++i)
	{
		if (m->points[i].id == id)
		{
			return true;
		}
	}
	return false;
}

static void assert_same_ids(const kl_manifold* a, const kl_manifold* b)
{
	assert_int_equal(a->point_count, b->point_count);
	for (int i = 0; i < a->point_count; ++i)
	{
		assert_true(has_id(b, a->points[i].id));
	}
}

// ---------------------------------------------------------------------------------------------
// Boxes

// A pair of kl_make_box_hull boxes through both paths: the hull path's manifold goes to m, and the
// closed-form box path must give the same points, ids and normal.
static void collide_box_hulls(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb, kl_manifold* m)
{
	kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, NULL, m);
	kl_manifold fast;
	kl_collide_boxes(a->bounds.upper, xa, b->bounds.upper, xb, KL_SPECULATIVE_DISTANCE, NULL, &fast);
	assert_int_equal(fast.point_count, m->point_count);
	if (m->point_count > 0)
	{
		assert_vec_near(fast.normal, m->normal, 1e-5f);
	}
	for (int i = 0; i < m->point_count; ++i)
	{
		int k = 0;
		while (k < fast.point_count && fast.points[k].id != m->points[i].id)
		{
			++k;
		}
		assert_true(k < fast.point_count);
		assert_vec_near(fast.points[k].point, m->points[i].point, 1e-4f);
		assert_near(fast.points[k].separation, m->points[i].separation, 1e-5f);
	}
}

static void test_box_on_box_face(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	const kl_hull* ground = kl_make_box_hull(&sa, kl_vec3(2.0f, 2.0f, 0.5f));
	const kl_hull* box = kl_make_box_hull(&sb, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_transform xa = pose(kl_vec3(1.0f, -2.0f, 3.0f), kl_quat_wxyz(1, 0, 0, 0));
	kl_transform xb = pose(kl_vec3(1.2f, -1.9f, 3.0f + 1.0f - 0.01f), kl_quat_wxyz(1, 0, 0, 0));
	kl_manifold m;
	collide_box_hulls(ground, xa, box, xb, &m);
	assert_int_equal(m.point_count, 4);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-6f);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.01f, 1e-5f);
		assert_near(m.points[i].point.z, 3.5f - 0.005f, 1e-5f);
		assert_near(fabsf(m.points[i].point.x - 1.2f), 0.5f, 1e-5f);
		assert_near(fabsf(m.points[i].point.y + 1.9f), 0.5f, 1e-5f);
	}
	check_points_on_surfaces(ground, xa, box, xb, &m, 1e-5f);

	// Swapped arguments flip the normal and keep the points.
	kl_manifold s;
	collide_box_hulls(box, xb, ground, xa, &s);
	assert_int_equal(s.point_count, 4);
	assert_vec_near(s.normal, kl_vec3(0, 0, -1), 1e-6f);
	assert_near(min_separation(&s), -0.01f, 1e-5f);
	check_points_on_surfaces(box, xb, ground, xa, &s, 1e-5f);

	// Within the speculative distance: points with a positive gap; beyond it: nothing.
	xb.p.z = 3.5f + 0.5f + 0.015f;
	collide_box_hulls(ground, xa, box, xb, &m);
	assert_int_equal(m.point_count, 4);
	assert_near(min_separation(&m), 0.015f, 1e-5f);
	xb.p.z = 3.5f + 0.5f + 0.025f;
	collide_box_hulls(ground, xa, box, xb, &m);
	assert_int_equal(m.point_count, 0);
}

// Same-size boxes exactly stacked (coplanar side faces), and one turned 45 degrees about z
// (octagon clip reduced to four), both in a rotated frame far from the origin.
static void test_box_stack_coplanar_and_turned(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	vec3s h = kl_vec3(0.5f, 0.5f, 0.5f);
	const kl_hull* a = kl_make_box_hull(&sa, h);
	const kl_hull* b = kl_make_box_hull(&sb, h);
	versors frame = axis_angle(kl_vec3(1, 2, 3), 0.7f);
	vec3s base = kl_vec3(1000.0f, -500.0f, 20.0f);
	vec3s up = kl_rotate(frame, kl_vec3(0, 0, 1));
	kl_transform xa = pose(base, frame);
	kl_transform xb = pose(glms_vec3_add(base, glms_vec3_scale(up, 0.99f)), frame);
	kl_manifold m;
	collide_box_hulls(a, xa, b, xb, &m);
	assert_int_equal(m.point_count, 4);
	assert_vec_near(m.normal, up, 1e-5f);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.01f, 2e-4f);
	}
	check_points_on_surfaces(a, xa, b, xb, &m, 2e-4f);

	xb.q = glms_quat_mul(frame, axis_angle(kl_vec3(0, 0, 1), (float)(PI / 4)));
	collide_box_hulls(a, xa, b, xb, &m);
	assert_int_equal(m.point_count, 4);
	assert_vec_near(m.normal, up, 1e-5f);
	check_points_on_surfaces(a, xa, b, xb, &m, 2e-4f);
	// The four kept points span the octagon: its area is 2 (sqrt 2 - 1) ... the quad keeps > 0.7.
	vec3s p0 = m.points[0].point;
	float area = 0.0f;
	for (int i = 1; i + 1 < 4; ++i)
	{
		vec3s c = glms_vec3_cross(glms_vec3_sub(m.points[i].point, p0), glms_vec3_sub(m.points[i + 1].point, p0));
		area += 0.5f * fabsf(glms_vec3_dot(c, up));
	}
	assert_true(area > 0.5f);
}

// Two boxes standing on edges that cross at right angles: one edge–edge point.
static void test_box_edge_edge(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	vec3s h = kl_vec3(0.5f, 0.5f, 0.5f);
	const kl_hull* a = kl_make_box_hull(&sa, h);
	const kl_hull* b = kl_make_box_hull(&sb, h);
	float r = 0.5f * sqrtf(2.0f);
	kl_transform xa = pose(kl_vec3(0, 0, 0), axis_angle(kl_vec3(0, 1, 0), (float)(PI / 4)));
	kl_transform xb = pose(kl_vec3(0.05f, -0.1f, 2.0f * r - 0.01f), axis_angle(kl_vec3(1, 0, 0), (float)(PI / 4)));
	kl_manifold m;
	collide_box_hulls(a, xa, b, xb, &m);
	assert_int_equal(m.point_count, 1);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-5f);
	assert_near(m.points[0].separation, -0.01f, 1e-5f);
	assert_vec_near(m.points[0].point, kl_vec3(0.0f, -0.1f, r - 0.005f), 1e-5f);
	uint32_t id = m.points[0].id;
	assert_int_equal(id >> 29, KL_ID_EDGES);

	kl_manifold s;
	collide_box_hulls(b, xb, a, xa, &s);
	assert_int_equal(s.point_count, 1);
	assert_vec_near(s.normal, kl_vec3(0, 0, -1), 1e-5f);
	assert_near(s.points[0].separation, -0.01f, 1e-5f);
	assert_vec_near(s.points[0].point, m.points[0].point, 1e-5f);

	// Small perturbations keep the same edge pair.
	for (int k = 0; k < 10; ++k)
	{
		kl_transform xp = xb;
		xp.p = glms_vec3_add(xp.p, rndv(-1e-3f, 1e-3f));
		xp.q = glms_quat_normalize(glms_quat_mul(random_turn(0.01f), xp.q));
		collide_box_hulls(a, xa, b, xp, &m);
		assert_int_equal(m.point_count, 1);
		assert_int_equal(m.points[0].id, id);
	}
}

// A box balanced on a corner over a face: one point at the corner.
static void test_box_corner_on_face(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	const kl_hull* ground = kl_make_box_hull(&sa, kl_vec3(3.0f, 3.0f, 1.0f));
	const kl_hull* box = kl_make_box_hull(&sb, kl_vec3(0.4f, 0.4f, 0.4f));
	// Turns the diagonal (1,1,1) onto +z, so corner 0 (-,-,-) points straight down.
	versors q = glms_quat_from_vecs(glms_vec3_normalize(kl_vec3(1, 1, 1)), kl_vec3(0, 0, 1));
	float drop = 0.4f * sqrtf(3.0f);
	kl_transform xa = pose(kl_vec3(0, 0, -1.0f), kl_quat_wxyz(1, 0, 0, 0));
	kl_transform xb = pose(kl_vec3(0.3f, 0.2f, drop - 0.02f), q);
	kl_manifold m;
	collide_box_hulls(ground, xa, box, xb, &m);
	assert_int_equal(m.point_count, 1);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-5f);
	assert_near(m.points[0].separation, -0.02f, 1e-5f);
	assert_vec_near(m.points[0].point, kl_vec3(0.3f, 0.2f, -0.01f), 1e-5f);
	assert_int_equal((m.points[0].id >> 29) & 3u, KL_ID_VERTEX);
	check_points_on_surfaces(ground, xa, box, xb, &m, 1e-5f);

	// Plane under the same box: the same single point.
	kl_plane plane = {kl_vec3(0, 0, 1), 1.0f};
	kl_collide_plane_hull(plane, xa, box, xb, KL_SPECULATIVE_DISTANCE, &m);
	assert_int_equal(m.point_count, 1);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-6f);
	assert_near(m.points[0].separation, -0.02f, 1e-5f);
	assert_vec_near(m.points[0].point, kl_vec3(0.3f, 0.2f, -0.01f), 1e-5f);
}

// A box lying on an edge along a face: parallel edge pairs are skipped, and the face contact
// gives the two ends of the edge.
static void test_box_edge_on_face(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	const kl_hull* ground = kl_make_box_hull(&sa, kl_vec3(2.0f, 2.0f, 0.5f));
	const kl_hull* box = kl_make_box_hull(&sb, kl_vec3(0.5f, 0.5f, 0.5f));
	float r = 0.5f * sqrtf(2.0f);
	kl_transform xa = pose(kl_vec3(0, 0, 0), kl_quat_wxyz(1, 0, 0, 0));
	kl_transform xb = pose(kl_vec3(0.2f, 0.1f, 0.5f + r - 0.004f), axis_angle(kl_vec3(1, 0, 0), (float)(PI / 4)));
	kl_manifold m;
	collide_box_hulls(ground, xa, box, xb, &m);
	assert_int_equal(m.point_count, 2);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-5f);
	for (int i = 0; i < 2; ++i)
	{
		assert_near(m.points[i].separation, -0.004f, 1e-5f);
		assert_near(fabsf(m.points[i].point.x - 0.2f), 0.5f, 1e-5f);
		assert_near(m.points[i].point.y, 0.1f, 1e-5f);
	}
	check_points_on_surfaces(ground, xa, box, xb, &m, 1e-5f);
}

// A small box resting on a big one keeps its four ids under small perturbations, and the ids are
// the box's own corners (incident vertices); the general hull of the same box agrees.
static void test_feature_id_stability(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	const kl_hull* ground = kl_make_box_hull(&sa, kl_vec3(2.0f, 2.0f, 0.5f));
	const kl_hull* box = kl_make_box_hull(&sb, kl_vec3(0.3f, 0.2f, 0.25f));
	kl_transform xa = pose(kl_vec3(0, 0, 0), kl_quat_wxyz(1, 0, 0, 0));
	kl_transform xb = pose(kl_vec3(0.3f, -0.4f, 0.75f - 0.005f), axis_angle(kl_vec3(0, 0, 1), 0.3f));
	kl_manifold m0, m;
	collide_box_hulls(ground, xa, box, xb, &m0);
	assert_int_equal(m0.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_int_equal((m0.points[i].id >> 29) & 3u, KL_ID_VERTEX);
	}
	for (int k = 0; k < 50; ++k)
	{
		kl_transform xp = xb;
		xp.p = glms_vec3_add(xp.p, rndv(-2e-3f, 2e-3f));
		xp.q = glms_quat_normalize(glms_quat_mul(random_turn(0.005f), xp.q));
		collide_box_hulls(ground, xa, box, xp, &m);
		assert_same_ids(&m0, &m);
		collide_box_hulls(box, xp, ground, xa, &m);
		assert_int_equal(m.point_count, 4);
		assert_true(m.normal.z < -0.99f);
	}
	// Sliding across the ground's edge: points where the box's edges cross it get crossing ids,
	// which also stay put under perturbation.
	xb.p.x = 2.0f;
	collide_box_hulls(ground, xa, box, xb, &m0);
	assert_int_equal(m0.point_count, 4);
	int crossings = 0;
	for (int i = 0; i < 4; ++i)
	{
		crossings += ((m0.points[i].id >> 29) & 3u) == KL_ID_CROSSING;
		assert_true(m0.points[i].point.x <= 2.0f + 1e-5f);
	}
	assert_int_equal(crossings, 2);
	for (int k = 0; k < 20; ++k)
	{
		kl_transform xp = xb;
		xp.p = glms_vec3_add(xp.p, rndv(-2e-3f, 2e-3f));
		collide_box_hulls(ground, xa, box, xp, &m);
		assert_same_ids(&m0, &m);
	}
}

// ---------------------------------------------------------------------------------------------
// Random hulls against a brute-force reference

// Segment distance (Ericson's clamped closest points, in double); interior reports that the
// closest points of the infinite lines fall strictly inside both segments.
static float segment_distance(vec3s p1, vec3s q1, vec3s p2, vec3s q2, bool* interior)
{
	double d1[3] = {q1.x - p1.x, q1.y - p1.y, q1.z - p1.z};
	double d2[3] = {q2.x - p2.x, q2.y - p2.y, q2.z - p2.z};
	double r[3] = {p1.x - p2.x, p1.y - p2.y, p1.z - p2.z};
	double a = 0, e = 0, f = 0, c = 0, b = 0;
	for (int i = 0; i < 3; ++i)
	{
		a += d1[i] * d1[i];
		e += d2[i] * d2[i];
		f += d2[i] * r[i];
		c += d1[i] * r[i];
		b += d1[i] * d2[i];
	}
	double denom = a * e - b * b;
	bool parallel = !(denom > 1e-10 * a * e);
	double s = parallel ? 0.0 : (b * f - c * e) / denom;
	double t = parallel ? 0.0 : (b * s + f) / e;
	*interior = !parallel && s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
	s = s < 0 ? 0 : (s > 1 ? 1 : s);
	t = (b * s + f) / e;
	if (t < 0.0)
	{
		t = 0.0;
		s = -c / a;
	}
	else if (t > 1.0)
	{
		t = 1.0;
		s = (b - c) / a;
	}
	s = s < 0 ? 0 : (s > 1 ? 1 : s);
	double dist2 = 0;
	for (int i = 0; i < 3; ++i)
	{
		double x = r[i] + d1[i] * s - d2[i] * t;
		dist2 += x * x;
	}
	return (float)sqrt(dist2);
}

// Distance of world point x to hull h (at xf) by its faces; interior reports that the closest point
// is inside a face polygon (not on an edge or vertex). Only meaningful for x outside h.
static float point_hull_distance(const kl_hull* h, kl_transform xf, vec3s x, bool* interior)
{
	vec3s l = kl_inv_transform_point(xf, x);
	float best = FLT_MAX;
	*interior = false;
	for (int f = 0; f < h->face_count; ++f)
	{
		const kl_hull_face* face = h->faces + f;
		float d = glms_vec3_dot(face->normal, l) - face->offset;
		if (d < 0.0f)
		{
			continue;
		}
		vec3s proj = glms_vec3_sub(l, glms_vec3_scale(face->normal, d));
		bool inside = true;
		int e = face->edge;
		do
		{
			vec3s p = h->vertices[h->edges[e].origin];
			vec3s q = h->vertices[h->edges[h->edges[e].next].origin];
			vec3s side = glms_vec3_cross(glms_vec3_sub(q, p), face->normal);
			inside = inside && glms_vec3_dot(side, glms_vec3_sub(proj, p)) < 0.0f;
			e = h->edges[e].next;
		} while (e != face->edge);
		if (inside && d < best)
		{
			best = d;
			*interior = true;
		}
	}
	// Edges and vertices: distance to every edge segment.
	for (int e = 0; e < h->edge_count; e += 2)
	{
		vec3s p = h->vertices[h->edges[e].origin], q = h->vertices[h->edges[e + 1].origin];
		vec3s d = glms_vec3_sub(q, p);
		float t = glm_clamp(glms_vec3_dot(glms_vec3_sub(l, p), d) / glms_vec3_dot(d, d), 0.0f, 1.0f);
		float dist = glms_vec3_distance(l, glms_vec3_add(p, glms_vec3_scale(d, t)));
		if (dist < best - 1e-6f)
		{
			best = dist;
			*interior = false;
		}
	}
	return best;
}

static bool segment_crosses_hull(const kl_hull* h, kl_transform xf, vec3s p, vec3s q)
{
	// Clip the segment against every face plane (Cyrus–Beck).
	vec3s lp = kl_inv_transform_point(xf, p), lq = kl_inv_transform_point(xf, q);
	float t0 = 0.0f, t1 = 1.0f;
	for (int f = 0; f < h->face_count; ++f)
	{
		float dp = glms_vec3_dot(h->faces[f].normal, lp) - h->faces[f].offset;
		float dq = glms_vec3_dot(h->faces[f].normal, lq) - h->faces[f].offset;
		if (dp > 0.0f && dq > 0.0f)
		{
			return false;
		}
		if (dp > 0.0f)
		{
			t0 = fmaxf(t0, dp / (dp - dq));
		}
		else if (dq > 0.0f)
		{
			t1 = fminf(t1, dp / (dp - dq));
		}
	}
	return t0 < t1;
}

// Overlap by brute force: an edge of either hull passes through the other (this includes a vertex
// inside the other, as every vertex ends an edge).
static bool brute_overlap(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb)
{
	for (int pass = 0; pass < 2; ++pass)
	{
		const kl_hull* h = pass ? b : a;
		kl_transform xh = pass ? xb : xa;
		const kl_hull* o = pass ? a : b;
		kl_transform xo = pass ? xa : xb;
		for (int e = 0; e < h->edge_count; e += 2)
		{
			vec3s p = kl_transform_point(xh, h->vertices[h->edges[e].origin]);
			vec3s q = kl_transform_point(xh, h->vertices[h->edges[e + 1].origin]);
			if (segment_crosses_hull(o, xo, p, q))
			{
				return true;
			}
		}
	}
	return false;
}

// Distance of separated hulls; exact reports that the closest features are a vertex and a face
// interior, or two edge interiors, where the best separating axis measures the distance exactly.
static float brute_distance(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb, bool* exact)
{
	float best = FLT_MAX;
	float best_exact = FLT_MAX;
	for (int pass = 0; pass < 2; ++pass)
	{
		const kl_hull* h = pass ? b : a;
		kl_transform xh = pass ? xb : xa;
		const kl_hull* o = pass ? a : b;
		kl_transform xo = pass ? xa : xb;
		for (int v = 0; v < h->vertex_count; ++v)
		{
			bool interior;
			float d = point_hull_distance(o, xo, kl_transform_point(xh, h->vertices[v]), &interior);
			best = fminf(best, d);
			if (interior)
			{
				best_exact = fminf(best_exact, d);
			}
		}
	}
	for (int ea = 0; ea < a->edge_count; ea += 2)
	{
		vec3s p1 = kl_transform_point(xa, a->vertices[a->edges[ea].origin]);
		vec3s q1 = kl_transform_point(xa, a->vertices[a->edges[ea + 1].origin]);
		for (int eb = 0; eb < b->edge_count; eb += 2)
		{
			vec3s p2 = kl_transform_point(xb, b->vertices[b->edges[eb].origin]);
			vec3s q2 = kl_transform_point(xb, b->vertices[b->edges[eb + 1].origin]);
			bool interior;
			float d = segment_distance(p1, q1, p2, q2, &interior);
			best = fminf(best, d);
			if (interior)
			{
				best_exact = fminf(best_exact, d);
			}
		}
	}
	*exact = best_exact <= best + 1e-5f;
	return best;
}

static kl_sat_result run_sat(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb, float speculative,
							 kl_sat_storage* storage, kl_sat_pair* pair)
{
	versors conj_a = {{-xa.q.x, -xa.q.y, -xa.q.z, xa.q.w}};
	kl_sat_pair_init(pair, a, b, glms_quat_mul(conj_a, xb.q), kl_inv_rotate(xa.q, glms_vec3_sub(xb.p, xa.p)));
	kl_sat_pair_transform(pair, storage);
	return kl_sat_query(pair, speculative);
}

typedef struct kl_brute_counts
{
	int separated, exact, overlapping, edge_contacts, fallbacks;
} kl_brute_counts;

/// The support fallback's point (kl_support_contact: in a deep overlap the incident face can lie
/// beside the reference face, leaving nothing to clip): the incident hull's deepest vertex, on its
/// surface, and that vertex's projection on the reference face's plane, which may lie outside the
/// reference face and so off the reference hull.
static void check_fallback_point(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb,
								 const kl_sat_result* r, const kl_manifold* m, float tol)
{
	assert_int_equal(m->point_count, 1);
	const kl_manifold_point* p = m->points;
	vec3s on_a = glms_vec3_sub(p->point, glms_vec3_scale(m->normal, 0.5f * p->separation));
	vec3s on_b = glms_vec3_add(p->point, glms_vec3_scale(m->normal, 0.5f * p->separation));
	bool ref_is_b = r->kind == KL_SAT_FACE_B;
	const kl_hull* ref = ref_is_b ? b : a;
	const kl_hull_face* face = ref->faces + (ref_is_b ? r->index_b : r->index_a);
	vec3s on_ref = kl_inv_transform_point(ref_is_b ? xb : xa, ref_is_b ? on_b : on_a);
	assert_near(glms_vec3_dot(face->normal, on_ref) - face->offset, 0.0f, tol);
	assert_near(hull_plane_distance(ref_is_b ? a : b, ref_is_b ? xa : xb, ref_is_b ? on_a : on_b), 0.0f, tol);
}

// One pose of two hulls against the brute-force reference: overlap agrees with the SAT; a separated
// pair's SAT separation is a lower bound of the distance and equals it when the closest features
// are a vertex and a face or two edges; contact points lie on both surfaces.
static void check_against_brute_force(const kl_hull* a, kl_transform xa, const kl_hull* b, kl_transform xb,
									  kl_brute_counts* counts)
{
	kl_sat_storage storage;
	kl_sat_pair pair;
	kl_sat_result r = run_sat(a, xa, b, xb, FLT_MAX, &storage, &pair);
	float sat = fmaxf(fmaxf(r.face_a.separation, r.face_b.separation), r.edges.separation);
	if (brute_overlap(a, xa, b, xb))
	{
		++counts->overlapping;
		assert_true(sat <= 1e-4f);
		kl_manifold m;
		kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, NULL, &m);
		assert_true(m.point_count >= 1);
		counts->edge_contacts += m.point_count == 1 && ((m.points[0].id >> 29) & 3u) == KL_ID_EDGES;
		// On the surfaces (a deep clipped point may sit a little off the reference face), or the
		// support fallback's point where the chosen face leaves nothing to clip; no deeper than the
		// chosen axis, and the chosen axis within the face preference of the best.
		kl_manifold_point clipped[KL_CLIP_CAPACITY];
		vec3s clip_normal;
		bool fallback = r.kind != KL_SAT_EDGES &&
						kl_clip_face_contact(&pair, r.kind == KL_SAT_FACE_B, r.kind == KL_SAT_FACE_B ? r.index_b : r.index_a,
											 KL_SPECULATIVE_DISTANCE, clipped, &clip_normal) == 0;
		counts->fallbacks += fallback;
		if (fallback)
		{
			check_fallback_point(a, xa, b, xb, &r, &m, 2e-3f);
		}
		else
		{
			check_points_on_surfaces(a, xa, b, xb, &m, 2e-3f + 0.1f * fabsf(r.separation));
		}
		assert_true(min_separation(&m) >= r.separation - 1e-4f);
		assert_true(sat <= r.separation + 0.1f * fabsf(r.separation) + 0.003f);
		kl_manifold s;
		kl_collide_hulls(b, xb, a, xa, KL_SPECULATIVE_DISTANCE, NULL, &s);
		assert_true(s.point_count >= 1);
		return;
	}
	bool is_exact;
	float d = brute_distance(a, xa, b, xb, &is_exact);
	if (d <= 1e-3f)
	{
		return;
	}
	++counts->separated;
	assert_true(sat > 0.0f);
	assert_true(sat <= d + 1e-4f);
	if (is_exact)
	{
		++counts->exact;
		assert_near(sat, d, 1e-4f);
	}
	// With the cache: the same empty manifold, and the cached axis separates.
	kl_collide_cache cache = {0};
	kl_manifold m;
	kl_collide_hulls(a, xa, b, xb, 0.0f, &cache, &m);
	assert_int_equal(m.point_count, 0);
	assert_true(cache.type != KL_SAT_NONE && cache.separation > 0.0f);
}

static void random_pair_poses(kl_transform* xa, kl_transform* xb, float lo, float hi)
{
	*xa = random_pose_in(-5, 5);
	vec3s dir = random_dir();
	vec3s p = glms_vec3_add(xa->p, glms_vec3_scale(dir, rndf(lo, hi)));
	*xb = pose(p, random_quat());
}

static void test_random_hulls_against_brute_force(void** state)
{
	(void)state;
	kl_brute_counts counts = {0};
	for (int iter = 0; iter < 400; ++iter)
	{
		int na = 6 + (int)(rnd() * 14);
		kl_hull* a = random_hull(na, rndv(0.3f, 1));
		int nb = 6 + (int)(rnd() * 14);
		kl_hull* b = random_hull(nb, rndv(0.3f, 1));
		kl_transform xa, xb;
		random_pair_poses(&xa, &xb, 0.2f, 2.5f);
		check_against_brute_force(a, xa, b, xb, &counts);
		kl_hull_destroy(a);
		kl_hull_destroy(b);
	}
	print_message("random hulls: %d overlapping (%d edge contacts, %d support fallbacks), %d separated (%d exact)\n",
				  counts.overlapping, counts.edge_contacts, counts.fallbacks, counts.separated, counts.exact);
	assert_true(counts.overlapping > 50 && counts.separated > 50 && counts.exact > 25);
}

// Hulls too big for the stack copy and the bitset edge query (rounded boxes of 150 points): the
// on-demand transform and the plain edge loop, against the same reference.
static void test_large_hulls_against_brute_force(void** state)
{
	(void)state;
	kl_brute_counts counts = {0};
	for (int iter = 0; iter < 24; ++iter)
	{
		kl_hull* h[2];
		for (int k = 0; k < 2; ++k)
		{
			vec3s pts[150];
			vec3s e = rndv(0.4f, 1);
			for (int i = 0; i < 150; ++i)
			{
				vec3s u = random_dir();
				pts[i] = kl_vec3(e.x * u.x, e.y * u.y, e.z * u.z);
			}
			h[k] = kl_hull_build(pts, 150);
			assert_non_null(h[k]);
			assert_true(h[k]->vertex_count > KL_SAT_MAX_CACHED && h[k]->face_count > 64);
		}
		kl_transform xa, xb;
		random_pair_poses(&xa, &xb, 0.5f, 2.2f);
		check_against_brute_force(h[0], xa, h[1], xb, &counts);
		kl_hull_destroy(h[0]);
		kl_hull_destroy(h[1]);
	}
	print_message("large hulls: %d overlapping, %d separated (%d exact)\n", counts.overlapping, counts.separated,
				  counts.exact);
	assert_true(counts.overlapping > 4 && counts.separated > 4);
}

// ---------------------------------------------------------------------------------------------
// Cache, plane, robustness

static bool same_manifold(const kl_manifold* a, const kl_manifold* b)
{
	if (a->point_count != b->point_count || memcmp(&a->normal, &b->normal, sizeof(vec3s)) != 0)
	{
		return a->point_count == 0 && b->point_count == 0;
	}
	return memcmp(a->points, b->points, (size_t)a->point_count * sizeof(kl_manifold_point)) == 0;
}

static bool same_axis(const kl_collide_cache* a, const kl_collide_cache* b)
{
	return a->type == b->type && a->index_a == b->index_a && a->index_b == b->index_b;
}

// A shape tumbling past and onto a box along a path: with the cache, every manifold equals the
// uncached one bit for bit. Separated steps answered by the remembered axis show up where that
// axis differs from the one a fresh SAT stops at.
static void run_cache_path(const kl_hull* a, vec3s ha, const kl_hull* b, vec3s hb, bool boxes)
{
	kl_collide_cache cache = {0};
	int kept = 0, contacts = 0;
	kl_transform xa = pose(kl_vec3(0, 0, 0), axis_angle(kl_vec3(1, 1, 0), 0.2f));
	for (int step = 0; step < 600; ++step)
	{
		float t = (float)step / 600.0f;
		kl_transform xb = pose(kl_vec3(3.0f * cosf(6.0f * t), 2.0f * sinf(4.0f * t), 1.6f * cosf(9.0f * t)),
							   axis_angle(kl_vec3(0.3f, 1, 0.2f), 5.0f * t));
		kl_manifold with, without;
		kl_collide_cache fresh = {0};
		if (boxes)
		{
			kl_collide_boxes(ha, xa, hb, xb, KL_SPECULATIVE_DISTANCE, &cache, &with);
			kl_collide_boxes(ha, xa, hb, xb, KL_SPECULATIVE_DISTANCE, &fresh, &without);
		}
		else
		{
			kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, &cache, &with);
			kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, &fresh, &without);
		}
		assert_true(same_manifold(&with, &without));
		contacts += with.point_count > 0;
		kept += with.point_count == 0 && !same_axis(&cache, &fresh);
		if (with.point_count > 0)
		{
			assert_true(same_axis(&cache, &fresh));
		}
	}
	print_message("cache (%s): %d contact steps, %d separated steps answered by an older axis\n",
				  boxes ? "boxes" : "hulls", contacts, kept);
	assert_true(contacts > 20 && kept > 50);
}

static void test_cache_matches_uncached(void** state)
{
	(void)state;
	kl_box_hull sa, sb;
	vec3s ha = kl_vec3(1.0f, 0.7f, 0.5f), hb = kl_vec3(0.5f, 0.4f, 0.6f);
	const kl_hull* a = kl_make_box_hull(&sa, ha);
	kl_hull* b = random_hull(16, hb);
	run_cache_path(a, ha, b, hb, false);
	run_cache_path(a, ha, kl_make_box_hull(&sb, hb), hb, false);
	run_cache_path(NULL, ha, NULL, hb, true);
	kl_hull_destroy(b);
}

static void test_plane_hull(void** state)
{
	(void)state;
	kl_box_hull sb;
	const kl_hull* box = kl_make_box_hull(&sb, kl_vec3(0.5f, 0.5f, 0.5f));
	// A tilted plane, offset 1: the box face down on it, slightly rotated about the normal.
	versors tilt = axis_angle(kl_vec3(1, -1, 0), 0.4f);
	kl_transform xa = pose(kl_vec3(3, 4, 5), tilt);
	kl_plane plane = {kl_vec3(0, 0, 1), 1.0f};
	vec3s n = kl_rotate(tilt, kl_vec3(0, 0, 1));
	vec3s on_plane = kl_transform_point(xa, kl_vec3(0.2f, 0.1f, 1.0f));
	kl_transform xb = pose(glms_vec3_add(on_plane, glms_vec3_scale(n, 0.49f)),
						   glms_quat_mul(tilt, axis_angle(kl_vec3(0, 0, 1), 0.3f)));
	kl_manifold m;
	kl_collide_plane_hull(plane, xa, box, xb, KL_SPECULATIVE_DISTANCE, &m);
	assert_int_equal(m.point_count, 4);
	assert_vec_near(m.normal, n, 1e-5f);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.01f, 1e-5f);
		// Midway: half the gap below the box's face, i.e. 0.005 under the plane.
		float height = glms_vec3_dot(glms_vec3_sub(m.points[i].point, xa.p), n) - 1.0f;
		assert_near(height, -0.005f, 1e-5f);
	}
	xb.p = glms_vec3_add(xb.p, glms_vec3_scale(n, 0.04f));
	kl_collide_plane_hull(plane, xa, box, xb, KL_SPECULATIVE_DISTANCE, &m);
	assert_int_equal(m.point_count, 0);

	// A 100-sided prism standing on its cap: more touching vertices than one buffer, still four
	// points spread over the cap.
	vec3s pts[200];
	for (int i = 0; i < 100; ++i)
	{
		float ang = (float)(2.0 * PI * i / 100.0);
		pts[i] = kl_vec3(cosf(ang), sinf(ang), -0.5f);
		pts[100 + i] = kl_vec3(cosf(ang), sinf(ang), 0.5f);
	}
	kl_hull* prism = kl_hull_build(pts, 200);
	assert_non_null(prism);
	kl_transform xp = pose(kl_vec3(0, 0, 0.495f), kl_quat_wxyz(1, 0, 0, 0));
	kl_plane ground = {kl_vec3(0, 0, 1), 0.0f};
	kl_collide_plane_hull(ground, kl_transform_identity(), prism, xp, KL_SPECULATIVE_DISTANCE, &m);
	assert_int_equal(m.point_count, 4);
	float spread = 0.0f;
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.005f, 1e-5f);
		for (int j = 0; j < i; ++j)
		{
			spread = fmaxf(spread, glms_vec3_distance(m.points[i].point, m.points[j].point));
		}
	}
	assert_true(spread > 1.8f);

	// And the prism cap on a box: face contact reduced to four points.
	kl_box_hull sg;
	const kl_hull* ground_box = kl_make_box_hull(&sg, kl_vec3(3, 3, 0.5f));
	kl_collide_hulls(ground_box, pose(kl_vec3(0, 0, -0.5f), kl_quat_wxyz(1, 0, 0, 0)), prism, xp,
					 KL_SPECULATIVE_DISTANCE, NULL, &m);
	assert_int_equal(m.point_count, 4);
	assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-5f);
	kl_hull_destroy(prism);
}

// Millimetre and kilometre boxes, general hulls equal to boxes, deep penetration, bad input.
static void test_robustness(void** state)
{
	(void)state;
	const float scales[] = {1e-3f, 1.0f, 1e3f};
	for (int k = 0; k < 3; ++k)
	{
		float s = scales[k];
		kl_hull* a = box_hull_built(kl_vec3(s, s, 0.5f * s));
		kl_hull* b = box_hull_built(kl_vec3(0.4f * s, 0.4f * s, 0.4f * s));
		float gap = -0.01f * s;
		kl_transform xa = pose(kl_vec3(5 * s, 0, 0), axis_angle(kl_vec3(0, 0, 1), 0.1f));
		kl_transform xb = pose(kl_vec3(5 * s + 0.1f * s, 0.05f * s, 0.9f * s + gap), axis_angle(kl_vec3(0, 0, 1), 0.8f));
		float speculative = fminf(KL_SPECULATIVE_DISTANCE, 0.05f * s);
		kl_manifold m;
		kl_collide_hulls(a, xa, b, xb, speculative, NULL, &m);
		assert_int_equal(m.point_count, 4);
		assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-4f);
		for (int i = 0; i < 4; ++i)
		{
			assert_near(m.points[i].separation, gap, 1e-4f * s);
		}
		check_points_on_surfaces(a, xa, b, xb, &m, 1e-4f * s);

		// Deep: the small box sunk to its middle; still a face contact with the right depth.
		xb.p.z = 0.5f * s;
		kl_collide_hulls(a, xa, b, xb, speculative, NULL, &m);
		assert_int_equal(m.point_count, 4);
		assert_vec_near(m.normal, kl_vec3(0, 0, 1), 1e-4f);
		assert_near(min_separation(&m), -0.4f * s, 1e-4f * s);
		kl_hull_destroy(a);
		kl_hull_destroy(b);
	}

	// Bad input: NULL hulls and NaN poses give no points and no crash.
	kl_box_hull sa;
	const kl_hull* box = kl_make_box_hull(&sa, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_manifold m;
	kl_collide_hulls(NULL, kl_transform_identity(), box, kl_transform_identity(), 0.02f, NULL, &m);
	assert_int_equal(m.point_count, 0);
	kl_transform bad = pose(kl_vec3(NAN, 0, 0), kl_quat_wxyz(1, 0, 0, 0));
	kl_collide_cache cache = {0};
	kl_collide_hulls(box, kl_transform_identity(), box, bad, 0.02f, &cache, &m);
	assert_int_equal(m.point_count, 0);
	kl_collide_hulls(box, kl_transform_identity(), box, bad, 0.02f, &cache, &m);
	assert_int_equal(m.point_count, 0);
	kl_plane plane = {kl_vec3(0, 0, 1), 0.0f};
	kl_collide_plane_hull(plane, kl_transform_identity(), box, bad, 0.02f, &m);
	assert_int_equal(m.point_count, 0);
}

// The closed-form box path gives what the hull path gives on the same boxes: points, ids,
// normals and cache entries (up to rounding, which may tip a near-tie between two axes).
static void test_boxes_match_hulls(void** state)
{
	(void)state;
	int agree = 0, total = 0, contacts = 0, edges = 0, id_mismatches = 0;
	for (int iter = 0; iter < 3000; ++iter)
	{
		vec3s ha = rndv(0.1f, 1);
		vec3s hb = rndv(0.1f, 1);
		kl_box_hull sa, sb;
		const kl_hull* a = kl_make_box_hull(&sa, ha);
		const kl_hull* b = kl_make_box_hull(&sb, hb);
		kl_transform xa = random_pose_in(-3, 3);
		vec3s dir = random_dir();
		float reach = glms_vec3_norm(ha) + glms_vec3_norm(hb);
		vec3s pb = glms_vec3_add(xa.p, glms_vec3_scale(dir, rndf(0.3f, 1.0f) * reach));
		kl_transform xb = pose(pb, random_quat());
		if (iter % 3 == 0)
		{
			// Nearly aligned, as in stacks.
			xb.q = glms_quat_normalize(glms_quat_mul(xa.q, random_turn(0.02f)));
		}
		kl_manifold mh, mb;
		kl_collide_cache ch = {0}, cb = {0};
		kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, &ch, &mh);
		kl_collide_boxes(ha, xa, hb, xb, KL_SPECULATIVE_DISTANCE, &cb, &mb);
		++total;
		// Separated pairs may stop at different first separating axes (the loops run in another order).
		bool both_separated = mh.point_count == 0 && mb.point_count == 0 && ch.separation > KL_SPECULATIVE_DISTANCE &&
							  cb.separation > KL_SPECULATIVE_DISTANCE;
		bool same = both_separated || (mh.point_count == mb.point_count && ch.type == cb.type &&
									   ch.index_a == cb.index_a && ch.index_b == cb.index_b);
		if (!same)
		{
			print_message("mismatch: hull %d pts kind %d (%d,%d) sep %g | box %d pts kind %d (%d,%d) sep %g\n",
						  mh.point_count, ch.type, ch.index_a, ch.index_b, ch.separation, mb.point_count, cb.type,
						  cb.index_a, cb.index_b, cb.separation);
			continue;
		}
		++agree;
		if (both_separated)
		{
			continue;
		}
		assert_near(cb.separation, ch.separation, 1e-4f);
		if (mh.point_count == 0)
		{
			continue;
		}
		++contacts;
		edges += ch.type == KL_SAT_EDGES;
		assert_vec_near(mb.normal, mh.normal, 1e-4f);
		// The same ids, unless the reduction to four met a near-tie of areas.
		int matched = 0;
		for (int i = 0; i < mh.point_count; ++i)
		{
			for (int k = 0; k < mb.point_count; ++k)
			{
				if (mb.points[k].id == mh.points[i].id)
				{
					++matched;
					assert_vec_near(mb.points[k].point, mh.points[i].point, 1e-4f);
					assert_near(mb.points[k].separation, mh.points[i].separation, 1e-4f);
				}
			}
		}
		id_mismatches += matched != mh.point_count;
		// Both paths answer from the other's cache entry alike.
		kl_collide_boxes(ha, xa, hb, xb, KL_SPECULATIVE_DISTANCE, &ch, &mb);
		assert_int_equal(mb.point_count, mh.point_count);
	}
	// A remembered axis of every kind, measured in closed form and by the hull code: same value.
	int checked = 0;
	for (int iter = 0; iter < 2000; ++iter)
	{
		vec3s ha = rndv(0.1f, 1);
		vec3s hb = rndv(0.1f, 1);
		kl_box_hull sa, sb;
		const kl_hull* a = kl_make_box_hull(&sa, ha);
		const kl_hull* b = kl_make_box_hull(&sb, hb);
		kl_transform xa = random_pose_in(-3, 3);
		vec3s pb = glms_vec3_add(xa.p, rndv(-4, 4));
		kl_transform xb = pose(pb, random_quat());
		kl_collide_cache ch = {0};
		ch.type = (uint8_t)(1 + iter % 3);
		ch.index_a = (int16_t)(ch.type == KL_SAT_EDGES ? 2 * (int)(rnd() * 12) : (int)(rnd() * 6));
		ch.index_b = (int16_t)(ch.type == KL_SAT_EDGES ? 2 * (int)(rnd() * 12) : (int)(rnd() * 6));
		kl_collide_cache cb = ch;
		kl_manifold mh, mb;
		kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, &ch, &mh);
		kl_collide_boxes(ha, xa, hb, xb, KL_SPECULATIVE_DISTANCE, &cb, &mb);
		if (same_axis(&ch, &cb) && mh.point_count == 0 && mb.point_count == 0)
		{
			++checked;
			assert_near(cb.separation, ch.separation, 1e-4f);
		}
	}
	assert_true(checked > 1000);
	print_message("boxes vs hulls: %d of %d agree (%d contacts, %d edge axes, %d reduced differently)\n", agree, total,
				  contacts, edges, id_mismatches);
	assert_true(agree >= total - total / 200);
	assert_true(id_mismatches <= contacts / 200);
	assert_true(contacts > 500 && edges > 20);
}

// ---------------------------------------------------------------------------------------------
// Culled queries and pose coherence

// The hull of count random points on a sphere (the convex_pile benchmark's shape).
static kl_hull* sphere_hull(int count, float radius)
{
	vec3s pts[64];
	for (int i = 0; i < count; ++i)
	{
		vec3s d;
		do
		{
			d = rndv(-1, 1);
		} while (glms_vec3_norm(d) < 0.2f || glms_vec3_norm(d) > 1.0f);
		pts[i] = glms_vec3_scale(glms_vec3_normalize(d), radius);
	}
	kl_hull* hull = kl_hull_build(pts, count);
	assert_non_null(hull);
	return hull;
}

// B placed along dir from A so that the SAT separation is about target (bisection on the distance).
static kl_transform place_touching(const kl_hull* a, kl_transform xa, const kl_hull* b, vec3s dir, versors qb,
								   float target)
{
	float lo = 0.0f, hi = 4.0f;
	kl_transform xb = xa;
	for (int it = 0; it < 40; ++it)
	{
		float mid = 0.5f * (lo + hi);
		xb = pose(glms_vec3_add(xa.p, glms_vec3_scale(dir, mid)), qb);
		kl_sat_storage storage;
		kl_sat_pair pair;
		kl_sat_result r = run_sat(a, xa, b, xb, FLT_MAX, &storage, &pair);
		if (r.separation > target)
		{
			hi = mid;
		}
		else
		{
			lo = mid;
		}
	}
	return pose(glms_vec3_add(xa.p, glms_vec3_scale(dir, hi)), qb);
}

// The reference SAT without face hints or edge culling.
static kl_sat_result plain_sat(const kl_sat_pair* pair, float speculative)
{
	kl_sat_result r;
	memset(&r, 0, sizeof(r));
	r.face_b.separation = -FLT_MAX;
	r.edges.edge_a = -1;
	r.edges.edge_b = -1;
	r.edges.separation = -FLT_MAX;
	r.face_a = kl_sat_query_faces_a(pair, speculative, -1);
	if (r.face_a.separation <= speculative)
	{
		r.face_b = kl_sat_query_faces_b(pair, speculative, -1);
		if (r.face_b.separation <= speculative)
		{
			r.edges = kl_sat_query_edges(pair, speculative, -FLT_MAX);
		}
	}
	vec3s ea = glms_vec3_sub(pair->a->bounds.upper, pair->a->bounds.lower);
	vec3s eb = glms_vec3_sub(pair->b->bounds.upper, pair->b->bounds.lower);
	float size_a = glm_max(ea.x, glm_max(ea.y, ea.z)), size_b = glm_max(eb.x, glm_max(eb.y, eb.z));
	kl_sat_choose(&r, speculative, kl_sat_tolerance(size_a, size_b));
	return r;
}

// The face hints and the edge culling skip work only: the chosen axis, its separation and (when
// edges are chosen) the edge pair are those of the plain queries, bit for bit, for hulls with more
// than 64 edges (several mask words) and small ones, touching, overlapping and apart.
static void test_culled_sat_matches_plain(void** state)
{
	(void)state;
	int edges = 0, touching = 0, total = 0;
	for (int iter = 0; iter < 300; ++iter)
	{
		kl_hull* a = iter % 3 == 0 ? random_hull(12, kl_vec3(0.6f, 0.4f, 0.3f)) : sphere_hull(iter % 2 ? 48 : 24, 0.5f);
		kl_hull* b = iter % 5 == 0 ? random_hull(10, kl_vec3(0.3f, 0.5f, 0.4f)) : sphere_hull(iter % 2 ? 32 : 40, 0.4f);
		kl_transform xa = random_pose_in(-1, 1);
		for (int k = 0; k < 6; ++k)
		{
			vec3s dir = random_dir();
			float target = k < 3 ? rndf(-0.01f, 0.01f) : rndf(-0.3f, 0.1f);
			kl_transform xb = place_touching(a, xa, b, dir, random_quat(), target);
			kl_sat_storage storage;
			kl_sat_pair pair;
			kl_sat_result r = run_sat(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, &storage, &pair);
			kl_sat_result p = plain_sat(&pair, KL_SPECULATIVE_DISTANCE);
			assert_int_equal(r.kind, p.kind);
			assert_int_equal(r.index_a, p.index_a);
			assert_int_equal(r.index_b, p.index_b);
			assert_true(r.separation == p.separation);
			assert_true(r.face_a.index == p.face_a.index && r.face_a.separation == p.face_a.separation);
			assert_true(r.face_b.index == p.face_b.index && r.face_b.separation == p.face_b.separation);
			if (r.kind == KL_SAT_EDGES)
			{
				assert_true(memcmp(&r.edges, &p.edges, sizeof(r.edges)) == 0);
			}
			edges += r.kind == KL_SAT_EDGES;
			touching += r.separation <= KL_SPECULATIVE_DISTANCE;
			++total;
		}
		kl_hull_destroy(a);
		kl_hull_destroy(b);
	}
	print_message("culled SAT: %d poses, %d touching, %d edge axes, all as the plain queries\n", total, touching,
				  edges);
	assert_true(touching > total / 2 && edges > 20);
}

static bool same_pose(const kl_collide_cache* a, const kl_collide_cache* b)
{
	return memcmp(a->pose, b->pose, sizeof(a->pose)) == 0;
}

static kl_transform nudge(kl_transform x, float distance, float angle)
{
	vec3s d = random_dir();
	x.p = glms_vec3_add(x.p, glms_vec3_scale(d, distance));
	x.q = glms_quat_normalize(glms_quat_mul(axis_angle(random_quat().imag, angle), x.q));
	return x;
}

// Pose coherence. A touching pair nudged by less than the tolerance keeps its last full SAT (the
// cached pose stays) and gets the manifold of the full path: the same points when the full path
// picks the same axis, else a deepest point within the drift bound. Nudged by more, the full SAT
// runs again (the pose is replaced) and the manifold is the uncached one bit for bit. Small steps
// in one direction add up: the full SAT runs again once their sum passes the tolerance.
static void test_pose_coherence(void** state)
{
	(void)state;
	int coherent = 0, same = 0, rerun = 0, contacts = 0;
	for (int iter = 0; iter < 150; ++iter)
	{
		kl_hull* a = iter % 4 == 0 ? random_hull(14, kl_vec3(0.6f, 0.5f, 0.3f)) : sphere_hull(32, 0.5f);
		kl_hull* b = iter % 3 == 0 ? box_hull_built(kl_vec3(0.4f, 0.3f, 0.2f)) : sphere_hull(32, 0.5f);
		kl_transform xa = random_pose_in(-1, 1);
		vec3s dir = random_dir();
		versors qb = random_quat();
		kl_transform xb = place_touching(a, xa, b, dir, qb, rndf(-0.004f, 0.0f));
		kl_collide_cache cache = {0};
		kl_manifold m0, m1, m2;
		kl_collide_hulls(a, xa, b, xb, KL_SPECULATIVE_DISTANCE, &cache, &m0);
		assert_true(m0.point_count > 0);
		assert_true(cache.flags == KL_SAT_POSE);
		++contacts;

		// Small: the cached axis, re-measured.
		kl_collide_cache saved = cache;
		float distance = rndf(0.0f, 0.2f) * KL_SAT_COHERENCE_DISTANCE;
		kl_transform small = nudge(xb, distance, rndf(0.0f, 5e-5f));
		versors conj_a = {{-xa.q.x, -xa.q.y, -xa.q.z, xa.q.w}};
		versors q = glms_quat_mul(conj_a, small.q);
		vec3s t = kl_inv_rotate(xa.q, glms_vec3_sub(small.p, xa.p));
		float drift = kl_hull_pose_drift(&cache, a, b, q, t);
		kl_collide_hulls(a, xa, b, small, KL_SPECULATIVE_DISTANCE, &cache, &m1);
		kl_collide_cache fresh = {0};
		kl_collide_hulls(a, xa, b, small, KL_SPECULATIVE_DISTANCE, &fresh, &m2);
		if (drift <= KL_SAT_COHERENCE_DISTANCE && same_pose(&cache, &saved) && cache.flags == KL_SAT_POSE)
		{
			++coherent;
			assert_true(m1.point_count > 0 && m2.point_count > 0);
			float bound = 2.0f * KL_SAT_COHERENCE_DISTANCE + 0.5f * KL_LINEAR_SLOP;
			assert_near(min_separation(&m1), min_separation(&m2), bound);
			assert_true(glms_vec3_dot(m1.normal, m2.normal) > 0.9f);
			if (same_axis(&cache, &fresh))
			{
				++same;
				assert_int_equal(m1.point_count, m2.point_count);
				assert_vec_near(m1.normal, m2.normal, 1e-5f);
				for (int i = 0; i < m1.point_count; ++i)
				{
					assert_true(has_id(&m2, m1.points[i].id));
					for (int k = 0; k < m2.point_count; ++k)
					{
						if (m2.points[k].id == m1.points[i].id)
						{
							assert_vec_near(m1.points[i].point, m2.points[k].point, 1e-4f);
							assert_near(m1.points[i].separation, m2.points[k].separation, 1e-5f);
						}
					}
				}
			}
		}

		// Large: the full SAT again, exactly the uncached answer.
		cache = saved;
		kl_transform large = nudge(xb, 4.0f * KL_SAT_COHERENCE_DISTANCE, 0.0f);
		kl_collide_hulls(a, xa, b, large, KL_SPECULATIVE_DISTANCE, &cache, &m1);
		fresh = (kl_collide_cache){0};
		kl_collide_hulls(a, xa, b, large, KL_SPECULATIVE_DISTANCE, &fresh, &m2);
		assert_true(same_manifold(&m1, &m2));
		assert_true(!same_pose(&cache, &saved) || cache.flags != KL_SAT_POSE);
		if (m1.point_count > 0)
		{
			assert_true(same_axis(&cache, &fresh) && same_pose(&cache, &fresh));
		}

		// Steps of a fifth of the tolerance along one line: the pose is kept while the summed drift
		// stays within the tolerance, and replaced as soon as it does not.
		cache = saved;
		kl_transform x = xb;
		vec3s step = glms_vec3_scale(random_dir(), 0.2f * KL_SAT_COHERENCE_DISTANCE);
		for (int k = 0; k < 12; ++k)
		{
			x.p = glms_vec3_add(x.p, step);
			kl_collide_cache before = cache;
			t = kl_inv_rotate(xa.q, glms_vec3_sub(x.p, xa.p));
			drift = kl_hull_pose_drift(&before, a, b, glms_quat_mul(conj_a, x.q), t);
			kl_collide_hulls(a, xa, b, x, KL_SPECULATIVE_DISTANCE, &cache, &m1);
			if (drift > KL_SAT_COHERENCE_DISTANCE)
			{
				assert_true(!same_pose(&cache, &before) || cache.flags != KL_SAT_POSE);
				rerun += same_pose(&cache, &before) ? 0 : 1;
			}
			else if (m1.point_count > 0 && (before.flags & KL_SAT_POSE))
			{
				assert_true(same_pose(&cache, &before));
			}
		}
		kl_hull_destroy(a);
		kl_hull_destroy(b);
	}
	print_message("pose coherence: %d contacts, %d kept the axis (%d the full path's), %d reruns after drift\n",
				  contacts, coherent, same, rerun);
	assert_true(coherent > contacts / 2);
	assert_true(same >= coherent - coherent / 10);
	assert_true(rerun > contacts);
}

// ---------------------------------------------------------------------------------------------
// Micro-benchmark: ns per pair (printed only).

// Calls the hull path, or the box path when a is NULL (boxes of half extents 0.5).
static double bench_pairs(const kl_hull* a, const kl_transform* xa, const kl_hull* b, const kl_transform* xb, int poses,
						  int loops, kl_collide_cache* caches, int* points)
{
	// The best of five rounds: the machine is shared, and the least disturbed round is the cost.
	vec3s h = kl_vec3(0.5f, 0.5f, 0.5f);
	kl_manifold m;
	double best = DBL_MAX;
	for (int round = 0; round < 5; ++round)
	{
		int total = 0;
		double t0 = kl_time_seconds();
		for (int l = 0; l < loops; ++l)
		{
			for (int i = 0; i < poses; ++i)
			{
				kl_collide_cache* cache = caches ? caches + i : NULL;
				if (a == NULL)
				{
					kl_collide_boxes(h, xa[i], h, xb[i], KL_SPECULATIVE_DISTANCE, cache, &m);
				}
				else
				{
					kl_collide_hulls(a, xa[i], b, xb[i], KL_SPECULATIVE_DISTANCE, cache, &m);
				}
				total += m.point_count;
			}
		}
		best = fmin(best, kl_time_seconds() - t0);
		*points = total;
	}
	return 1e9 * best / ((double)loops * poses);
}

static void test_benchmark(void** state)
{
	(void)state;
	const char* env = getenv("KL_BENCH_LOOPS");
	int loops = env ? atoi(env) : 20;
	if (loops < 1)
	{
		loops = 1;
	}
	enum
	{
		POSES = 64
	};
	kl_box_hull sa, sb;
	const kl_hull* a = kl_make_box_hull(&sa, kl_vec3(0.5f, 0.5f, 0.5f));
	const kl_hull* b = kl_make_box_hull(&sb, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_transform xa[POSES], xb[POSES], xs[POSES];
	kl_collide_cache caches[POSES];
	for (int i = 0; i < POSES; ++i)
	{
		// Resting like a pyramid: same boxes, half offsets, a little sunk and tilted.
		vec3s p = rndv3(kl_vec3(-50, -50, 0), kl_vec3(50, 50, 20));
		versors q = axis_angle(kl_vec3(0, 0, 1), rndf(-0.01f, 0.01f));
		xa[i] = pose(p, q);
		vec3s off = kl_vec3((i & 1) ? 0.5f : -0.5f, 0.0f, 1.0f - rndf(0.001f, 0.005f));
		xb[i] = pose(glms_vec3_add(p, kl_rotate(q, off)),
					 glms_quat_mul(q, axis_angle(kl_vec3(1, 1, 0), rndf(-1e-3f, 1e-3f))));
	}
	// Separated pairs: two boxes on crossed edges 5 cm apart, where only an edge axis separates
	// (the full SAT runs every query; the cached axis is one evaluation).
	kl_transform xe[POSES];
	for (int i = 0; i < POSES; ++i)
	{
		float r = 0.5f * sqrtf(2.0f);
		vec3s p = rndv3(kl_vec3(-50, -50, 0), kl_vec3(50, 50, 20));
		xe[i] = pose(p, axis_angle(kl_vec3(0, 1, 0), (float)(PI / 4) + rndf(-0.05f, 0.05f)));
		vec3s off = rndv3(kl_vec3(-0.1f, -0.1f, 2.0f * r + 0.05f), kl_vec3(0.1f, 0.1f, 2.0f * r + 0.05f));
		xs[i] = pose(glms_vec3_add(p, off), axis_angle(kl_vec3(1, 0, 0), (float)(PI / 4) + rndf(-0.05f, 0.05f)));
	}
	// Resting (cache on and off), then separated on crossed edges (full SAT, then by the cached
	// axis), for the box path (p = 0) and the hull path on the same boxes (p = 1).
	double ns[2][4];
	for (int p = 0; p < 2; ++p)
	{
		const kl_hull* pa = p ? a : NULL;
		int points;
		memset(caches, 0, sizeof(caches));
		ns[p][0] = bench_pairs(pa, xa, b, xb, POSES, loops, caches, &points);
		assert_int_equal(points, 4 * POSES * loops);
		ns[p][1] = bench_pairs(pa, xa, b, xb, POSES, loops, NULL, &points);
		assert_int_equal(points, 4 * POSES * loops);
		ns[p][2] = bench_pairs(pa, xe, b, xs, POSES, loops, NULL, &points);
		assert_int_equal(points, 0);
		memset(caches, 0, sizeof(caches));
		bench_pairs(pa, xe, b, xs, POSES, 1, caches, &points);
		ns[p][3] = bench_pairs(pa, xe, b, xs, POSES, loops, caches, &points);
		assert_int_equal(points, 0);
	}

	// General hulls of 16 random points, touching.
	kl_hull* ha = random_hull(16, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_hull* hb = random_hull(16, kl_vec3(0.5f, 0.5f, 0.5f));
	for (int i = 0; i < POSES; ++i)
	{
		xb[i].p = glms_vec3_add(xa[i].p, kl_vec3(0.1f, 0.1f, 0.6f));
	}
	int points;
	memset(caches, 0, sizeof(caches));
	double hulls = bench_pairs(ha, xa, hb, xb, POSES, loops, caches, &points);
	kl_hull_destroy(ha);
	kl_hull_destroy(hb);
	for (int p = 0; p < 2; ++p)
	{
		print_message("%s: resting %.0f ns/pair (cache on), %.0f (cache off); edge-separated %.0f ns/pair (full "
					  "SAT), %.0f (cached axis)\n",
					  p ? "box-box via hulls" : "box-box closed form", ns[p][0], ns[p][1], ns[p][2], ns[p][3]);
	}
	print_message("16-point hulls touching: %.0f ns/pair (%d loops)\n", hulls, loops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_on_box_face),
		cmocka_unit_test(test_box_stack_coplanar_and_turned),
		cmocka_unit_test(test_box_edge_edge),
		cmocka_unit_test(test_box_corner_on_face),
		cmocka_unit_test(test_box_edge_on_face),
		cmocka_unit_test(test_feature_id_stability),
		cmocka_unit_test(test_random_hulls_against_brute_force),
		cmocka_unit_test(test_large_hulls_against_brute_force),
		cmocka_unit_test(test_cache_matches_uncached),
		cmocka_unit_test(test_plane_hull),
		cmocka_unit_test(test_robustness),
		cmocka_unit_test(test_boxes_match_hulls),
		cmocka_unit_test(test_culled_sat_matches_plain),
		cmocka_unit_test(test_pose_coherence),
		cmocka_unit_test(test_benchmark),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
