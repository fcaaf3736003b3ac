// Kollide — tests of the shared manifold reduction and warm-start matching.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "manifold.h"

#include <stdlib.h>
#include <string.h>

static uint32_t g_rng = 12345u;

static float rand_unit(void)
{
	g_rng = g_rng * 1664525u + 1013904223u;
	return (float)(g_rng >> 8) / 16777216.0f;
}

static float rand_range(float lo, float hi)
{
	return lo + (hi - lo) * rand_unit();
}

/// A random point of the cube [-1, 1]^3, x drawn first (C leaves the order of a call's arguments
/// open, and compilers differ).
static vec3s rand_point(void)
{
	float x = rand_range(-1, 1);
	float y = rand_range(-1, 1);
	float z = rand_range(-1, 1);
	return kl_vec3(x, y, z);
}

static kl_manifold_point make_point(vec3s p, float separation, uint32_t id)
{
	kl_manifold_point mp;
	memset(&mp, 0, sizeof(mp));
	mp.point = p;
	mp.separation = separation;
	mp.id = id;
	return mp;
}

/// Area of the convex hull of 4 points projected on the plane orthogonal to n (brute force over
/// the three quadrilateral orderings and the four triangles: the hull area is the largest).
static float hull_area4(const vec3s* p, vec3s n)
{
	// Build a 2D basis of the plane.
	vec3s t = fabsf(n.x) < 0.6f ? kl_vec3(1, 0, 0) : kl_vec3(0, 1, 0);
	vec3s u = glms_vec3_normalize(glms_vec3_cross(n, t));
	vec3s v = glms_vec3_cross(n, u);
	double x[4], y[4];
	for (int i = 0; i < 4; ++i)
	{
		x[i] = glms_vec3_dot(p[i], u);
		y[i] = glms_vec3_dot(p[i], v);
	}
	static const int orders[3][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 1, 3, 2}};
	double best = 0.0;
	for (int o = 0; o < 3; ++o)
	{
		const int* k = orders[o];
		// A simple (non self-intersecting) ordering of the hull gives the largest |shoelace|
		// only when all four are on the hull; triangles cover the other case.
		double a = 0.0;
		for (int i = 0; i < 4; ++i)
		{
			int j = (i + 1) % 4;
			a += x[k[i]] * y[k[j]] - x[k[j]] * y[k[i]];
		}
		best = fmax(best, fabs(a) * 0.5);
	}
	for (int skip = 0; skip < 4; ++skip)
	{
		int q[3], c = 0;
		for (int i = 0; i < 4; ++i)
		{
			if (i != skip)
			{
				q[c++] = i;
			}
		}
		double a = (x[q[1]] - x[q[0]]) * (y[q[2]] - y[q[0]]) - (x[q[2]] - x[q[0]]) * (y[q[1]] - y[q[0]]);
		best = fmax(best, fabs(a) * 0.5);
	}
	return (float)best;
}

static int index_of_id(const kl_manifold_point* c, int count, uint32_t id)
{
	for (int i = 0; i < count; ++i)
	{
		if (c[i].id == id)
		{
			return i;
		}
	}
	return -1;
}

static void test_small_counts_kept(void** state)
{
	(void)state;
	kl_manifold_point c[4], out[4];
	for (int i = 0; i < 4; ++i)
	{
		c[i] = make_point(kl_vec3((float)i, 0, 0), -0.01f * (float)i, 10u + (uint32_t)i);
	}
	for (int count = 0; count <= 4; ++count)
	{
		memset(out, 0, sizeof(out));
		int n = kl_reduce_manifold_points(c, count, kl_vec3(0, 0, 1), out);
		assert_int_equal(n, count);
		for (int i = 0; i < n; ++i)
		{
			assert_int_equal(out[i].id, c[i].id);
			assert_true(out[i].separation == c[i].separation);
		}
	}
	assert_int_equal(kl_reduce_manifold_points(c, -3, kl_vec3(0, 0, 1), out), 0);
	assert_int_equal(kl_reduce_manifold_points(NULL, 5, kl_vec3(0, 0, 1), out), 0);
}

/// Checks the documented greedy choices one by one against brute-force scores.
static void check_greedy(const kl_manifold_point* c, int count, vec3s n, const kl_manifold_point* out)
{
	int idx[4];
	for (int k = 0; k < 4; ++k)
	{
		idx[k] = index_of_id(c, count, out[k].id);
		assert_true(idx[k] >= 0);
		for (int j = 0; j < k; ++j)
		{
			assert_int_not_equal(idx[j], idx[k]);
		}
	}
	// 1: deepest, first of equals
	for (int i = 0; i < count; ++i)
	{
		assert_true(c[i].separation >= c[idx[0]].separation);
		if (c[i].separation == c[idx[0]].separation)
		{
			assert_true(i >= idx[0]);
		}
	}
	// 2: farthest from it in the plane
	vec3s p0 = c[idx[0]].point;
	float d1;
	{
		vec3s d = glms_vec3_sub(c[idx[1]].point, p0);
		d = glms_vec3_sub(d, glms_vec3_scale(n, glms_vec3_dot(d, n)));
		d1 = glms_vec3_norm(d);
	}
	for (int i = 0; i < count; ++i)
	{
		vec3s d = glms_vec3_sub(c[i].point, p0);
		d = glms_vec3_sub(d, glms_vec3_scale(n, glms_vec3_dot(d, n)));
		assert_true(glms_vec3_norm(d) <= d1 * (1.0f + 1e-5f) + 1e-6f);
	}
	// 3: largest triangle
	vec3s tri[4] = {p0, c[idx[1]].point, c[idx[2]].point, p0};
	float area3 = fabsf(glms_vec3_dot(glms_vec3_cross(glms_vec3_sub(tri[1], tri[0]), glms_vec3_sub(tri[2], tri[0])), n));
	for (int i = 0; i < count; ++i)
	{
		float a = fabsf(
			glms_vec3_dot(glms_vec3_cross(glms_vec3_sub(tri[1], tri[0]), glms_vec3_sub(c[i].point, tri[0])), n));
		assert_true(a <= area3 * (1.0f + 1e-4f) + 1e-6f);
	}
	// 4: the largest hull with the triangle
	vec3s quad[4] = {p0, c[idx[1]].point, c[idx[2]].point, c[idx[3]].point};
	float area4 = hull_area4(quad, n);
	for (int i = 0; i < count; ++i)
	{
		quad[3] = c[i].point;
		assert_true(hull_area4(quad, n) <= area4 * (1.0f + 1e-4f) + 1e-6f);
	}
}

static void test_greedy_choices_random(void** state)
{
	(void)state;
	for (int trial = 0; trial < 300; ++trial)
	{
		int count = 5 + (int)(rand_unit() * 28.0f);
		vec3s n = glms_vec3_normalize(rand_point());
		kl_manifold_point c[32];
		for (int i = 0; i < count; ++i)
		{
			vec3s p = rand_point();
			c[i] = make_point(p, rand_range(-0.05f, 0.02f), 100u + (uint32_t)i);
		}
		kl_manifold_point out[4];
		int got = kl_reduce_manifold_points(c, count, n, out);
		assert_int_equal(got, 4);
		check_greedy(c, count, n, out);
	}
}

static void test_box_face_patch(void** state)
{
	(void)state;
	// Eight clip points of a square face, all equally deep, plus its centre slightly deeper:
	// the deepest (centre) is kept and then the square's corners span the most area.
	kl_manifold_point c[9];
	int k = 0;
	const float s = 0.5f;
	const vec3s pts[8] = {{{-s, -s, 0}}, {{0, -s, 0}}, {{s, -s, 0}}, {{s, 0, 0}},
						  {{s, s, 0}},	 {{0, s, 0}},  {{-s, s, 0}}, {{-s, 0, 0}}};
	for (int i = 0; i < 8; ++i)
	{
		c[k] = make_point(pts[i], -0.01f, (uint32_t)i);
		++k;
	}
	kl_manifold_point out[4];
	int got = kl_reduce_manifold_points(c, 8, kl_vec3(0, 0, 1), out);
	assert_int_equal(got, 4);
	// Ties go to the earliest candidate: deepest is point 0 (a corner); farthest is the opposite
	// corner 4; then corner 2 (first of the two largest triangles) and corner 6.
	assert_int_equal(out[0].id, 0);
	assert_int_equal(out[1].id, 4);
	assert_int_equal(out[2].id, 2);
	assert_int_equal(out[3].id, 6);
	vec3s quad[4] = {out[0].point, out[1].point, out[2].point, out[3].point};
	assert_near(hull_area4(quad, kl_vec3(0, 0, 1)), 1.0, 1e-6);
	// Deepest point in the middle of an edge: kept first.
	c[3].separation = -0.02f;
	got = kl_reduce_manifold_points(c, 8, kl_vec3(0, 0, 1), out);
	assert_int_equal(out[0].id, 3);
	check_greedy(c, 8, kl_vec3(0, 0, 1), out);
}

static void test_area_in_normal_plane(void** state)
{
	(void)state;
	// Moving points along the normal changes nothing but their height: the same points are kept.
	vec3s n = glms_vec3_normalize(kl_vec3(0.3f, -0.4f, 0.8f));
	for (int trial = 0; trial < 50; ++trial)
	{
		kl_manifold_point c[12], lifted[12];
		for (int i = 0; i < 12; ++i)
		{
			vec3s p = rand_point();
			c[i] = make_point(p, rand_range(-0.05f, 0.0f), (uint32_t)i);
			lifted[i] = c[i];
			lifted[i].point = glms_vec3_add(p, glms_vec3_scale(n, rand_range(-3.0f, 3.0f)));
		}
		kl_manifold_point a[4], b[4];
		kl_reduce_manifold_points(c, 12, n, a);
		kl_reduce_manifold_points(lifted, 12, n, b);
		// Rounding may only swap near-equal choices; compare the areas instead of ids.
		vec3s qa[4] = {a[0].point, a[1].point, a[2].point, a[3].point};
		vec3s qb[4] = {b[0].point, b[1].point, b[2].point, b[3].point};
		assert_int_equal(a[0].id, b[0].id);
		assert_near(hull_area4(qa, n), hull_area4(qb, n), 1e-4);
	}
}

static void test_deterministic(void** state)
{
	(void)state;
	kl_manifold_point c[16];
	for (int i = 0; i < 16; ++i)
	{
		float x = rand_range(-1, 1);
		c[i] = make_point(kl_vec3(x, rand_range(-1, 1), 0), -0.01f, (uint32_t)i);
	}
	kl_manifold_point a[4], b[4];
	kl_reduce_manifold_points(c, 16, kl_vec3(0, 0, 1), a);
	kl_reduce_manifold_points(c, 16, kl_vec3(0, 0, 1), b);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(a[0].id, 0); // all equally deep: the first
}

static void test_degenerate_inputs(void** state)
{
	(void)state;
	kl_manifold_point c[8], out[4];
	// All duplicates: four distinct candidates, finite values.
	for (int i = 0; i < 8; ++i)
	{
		c[i] = make_point(kl_vec3(1, 2, 3), -0.01f, (uint32_t)i);
	}
	assert_int_equal(kl_reduce_manifold_points(c, 8, kl_vec3(0, 0, 1), out), 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_int_equal(out[i].id, (uint32_t)i);
	}
	// Collinear: both ends of the line are kept, ids distinct.
	for (int i = 0; i < 8; ++i)
	{
		c[i] = make_point(kl_vec3(0.1f * (float)((i * 3) % 8), 0, 0), -0.01f, (uint32_t)i);
	}
	c[5].separation = -0.02f; // deepest inside the line
	assert_int_equal(kl_reduce_manifold_points(c, 8, kl_vec3(0, 0, 1), out), 4);
	bool has_lo = false, has_hi = false;
	for (int i = 0; i < 4; ++i)
	{
		has_lo = has_lo || out[i].point.x == 0.0f;
		has_hi = has_hi || fabsf(out[i].point.x - 0.7f) < 1e-6f;
		for (int j = 0; j < i; ++j)
		{
			assert_int_not_equal(out[i].id, out[j].id);
		}
	}
	assert_int_equal(out[0].id, 5);
	assert_true(has_hi);
	assert_true(has_lo);
	// Points along the normal only: zero area everywhere, still four distinct.
	for (int i = 0; i < 6; ++i)
	{
		c[i] = make_point(kl_vec3(0, 0, (float)i), -0.01f * (float)i, (uint32_t)i);
	}
	assert_int_equal(kl_reduce_manifold_points(c, 6, kl_vec3(0, 0, 1), out), 4);
	assert_int_equal(out[0].id, 5);
	for (int i = 0; i < 4; ++i)
	{
		assert_true(isfinite(out[i].separation));
		for (int j = 0; j < i; ++j)
		{
			assert_int_not_equal(out[i].id, out[j].id);
		}
	}
}

static void test_keep_impulses(void** state)
{
	(void)state;
	kl_manifold old_m, m;
	memset(&old_m, 0, sizeof(old_m));
	memset(&m, 0, sizeof(m));
	old_m.point_count = 3;
	for (int i = 0; i < 3; ++i)
	{
		old_m.points[i].id = (uint32_t)(i + 1);
		old_m.points[i].point = kl_vec3((float)i, 0.0f, 0.0f);
		old_m.points[i].normal_impulse = 1.0f + (float)i;
		old_m.points[i].tangent_impulse[0] = 0.1f * (float)(i + 1);
		old_m.points[i].tangent_impulse[1] = -0.2f * (float)(i + 1);
		old_m.points[i].max_normal_impulse = 5.0f + (float)i;
	}
	old_m.rolling_impulse = kl_vec3(0.5f, 0.25f, -1.0f);
	m.point_count = 3;
	m.points[0].id = 3;
	m.points[1].id = 7;
	m.points[2].id = 1;
	m.points[0].point = kl_vec3(2.0f, 0.0f, 0.0f);
	m.points[1].point = kl_vec3(1.0f, 0.5f, 0.0f); // far from the unmatched old point 2
	m.points[2].point = kl_vec3(0.0f, 0.0f, 0.0f);
	m.points[1].normal_impulse = 9.0f; // stale values are reset
	kl_manifold_keep_impulses(&old_m, &m);
	assert_true(m.points[0].persisted);
	assert_near(m.points[0].normal_impulse, 3.0, 0);
	assert_near(m.points[0].tangent_impulse[0], 0.3, 1e-7);
	assert_near(m.points[0].tangent_impulse[1], -0.6, 1e-7);
	assert_near(m.points[0].max_normal_impulse, 7.0, 0);
	assert_false(m.points[1].persisted);
	assert_near(m.points[1].normal_impulse, 0.0, 0);
	assert_true(m.points[2].persisted);
	assert_near(m.points[2].normal_impulse, 1.0, 0);
	assert_near(m.rolling_impulse.y, 0.25, 0);
	// An unmatched id within the slop of an unmatched old point (a clipped corner that changed
	// features in place) takes that point's impulse; one farther away starts from zero.
	m.points[1].point = kl_vec3(1.0f, 0.5f * KL_LINEAR_SLOP, 0.0f);
	kl_manifold_keep_impulses(&old_m, &m);
	assert_true(m.points[1].persisted);
	assert_near(m.points[1].normal_impulse, 2.0, 0);
	// Nothing matches: everything from zero.
	m.point_count = 1;
	m.points[0].id = 42;
	m.points[0].point = kl_vec3(5.0f, 5.0f, 5.0f);
	kl_manifold_keep_impulses(&old_m, &m);
	assert_false(m.points[0].persisted);
	assert_near(m.points[0].normal_impulse, 0.0, 0);
	assert_near(m.rolling_impulse.x, 0.0, 0);
	kl_manifold_keep_impulses(NULL, &m); // no crash
	kl_manifold_keep_impulses(&old_m, NULL);
}

/// Whether out[0..n) holds the candidate with this id.
static bool holds_id(const kl_manifold_point* out, int n, uint32_t id)
{
	for (int i = 0; i < n; ++i)
	{
		if (out[i].id == id)
		{
			return true;
		}
	}
	return false;
}

/// The tied reduction (mesh patches, tie 0.5 mm) keeps a face resting flat on its smallest ids, but
/// never drops the one loaded point of a tilted part for touching ones: a torus knot resting on the
/// ground on one vertex 0.45 mm deep, beside touching vertices of smaller ids, lost that vertex once
/// pushed out to under the tie, tipped back onto it and rocked every sixth step for ever.
static void test_tied_keeps_loaded_point(void** state)
{
	(void)state;
	const vec3s up = kl_vec3(0.0f, 0.0f, 1.0f);
	const float tie = 0.5e-3f;
	// Touching outline (ids 1-6) around a loaded vertex inside it (id 9).
	kl_manifold_point c[7];
	for (int i = 0; i < 6; ++i)
	{
		float a = 1.0471976f * (float)i;
		c[i] = make_point(kl_vec3(0.02f * cosf(a), 0.02f * sinf(a), 0.0f), 0.0f, (uint32_t)(i + 1));
	}
	c[6] = make_point(kl_vec3(0.004f, 0.003f, 0.0f), -0.45e-3f, 9u);
	kl_manifold_point out[KL_MAX_MANIFOLD_POINTS];
	int n = kl_reduce_manifold_points_tied(c, 7, up, tie, out);
	assert_int_equal(n, KL_MAX_MANIFOLD_POINTS);
	assert_true(holds_id(out, n, 9u));
	// A face resting flat: every candidate about as deep; the first pick is the smallest id, not
	// the deepest (id 4, deeper by 0.05 mm), so that rocking does not move the set.
	for (int i = 0; i < 6; ++i)
	{
		c[i].separation = (i == 3 ? -0.65e-3f : -0.60e-3f);
	}
	n = kl_reduce_manifold_points_tied(c, 6, up, tie, out);
	assert_int_equal(out[0].id, 1u);
	// Shallow contact: the band keeps a tenth of the tie (0.05 mm), so touching rims stay tied.
	for (int i = 0; i < 6; ++i)
	{
		c[i].separation = (i == 3 ? -0.03e-3f : 0.0f);
	}
	n = kl_reduce_manifold_points_tied(c, 6, up, tie, out);
	assert_int_equal(out[0].id, 1u);
}

/// Completing a set chosen elsewhere (the touching points of a mesh patch): the kept points stay
/// first and unchanged, a candidate equal to one is not taken again, and the rest follow the
/// reduction's rules from the kept ones.
static void test_complete_from_kept(void** state)
{
	(void)state;
	const vec3s up = kl_vec3(0.0f, 0.0f, 1.0f);
	// Square corners (ids 1-4) and the two kept points, one of them also among the candidates, twice
	// (an outline may hold a point twice).
	kl_manifold_point c[6] = {
		make_point(kl_vec3(0.1f, 0.1f, 0.0f), 0.001f, 1u),	  make_point(kl_vec3(-0.1f, 0.1f, 0.0f), 0.001f, 2u),
		make_point(kl_vec3(-0.1f, -0.1f, 0.0f), 0.001f, 3u), make_point(kl_vec3(0.1f, -0.1f, 0.0f), 0.001f, 4u),
		make_point(kl_vec3(0.01f, 0.0f, 0.0f), -0.0004f, 8u), make_point(kl_vec3(0.01f, 0.0f, 0.0f), -0.0004f, 8u),
	};
	kl_manifold_point out[KL_MAX_MANIFOLD_POINTS];
	out[0] = make_point(kl_vec3(0.0f, 0.0f, 0.0f), -0.0006f, 7u);
	out[1] = c[4];
	int n = kl_complete_manifold_points(c, 6, up, out, 2);
	assert_int_equal(n, KL_MAX_MANIFOLD_POINTS);
	assert_int_equal(out[0].id, 7u);
	assert_int_equal(out[1].id, 8u);
	// The kept pair lies along x, the corners are all equally wide of it: the first (id 1) is the
	// third; of the rest, the fourth is the one that adds most area to that thin triangle (id 2).
	assert_int_equal(out[2].id, 1u);
	assert_int_equal(out[3].id, 2u);
	// Full already, nothing to add; bad arguments give 0.
	assert_int_equal(kl_complete_manifold_points(c, 6, up, out, 4), 4);
	assert_int_equal(kl_complete_manifold_points(c, 6, up, out, 5), 0);
	assert_int_equal(kl_complete_manifold_points(NULL, 6, up, out, 1), 0);
	assert_int_equal(kl_complete_manifold_points(c, 6, up, NULL, 1), 0);
	// Only a corner and the kept point's two copies left: the corner, and no copy.
	out[0] = make_point(kl_vec3(0.0f, 0.0f, 0.0f), -0.0006f, 7u);
	out[1] = c[4];
	assert_int_equal(kl_complete_manifold_points(c + 3, 3, up, out, 2), 3);
	assert_int_equal(out[2].id, 4u);
	// No candidates: the kept points alone.
	assert_int_equal(kl_complete_manifold_points(c, 0, up, out, 2), 2);
}

/// A contact met twice (the same id at the same point: one vertex through two triangle pairs, or an
/// outline chain that repeats a point) is chosen once, whether the candidates fit as they are or are
/// reduced; the bowl stack's manifolds held a point twice in 6 % of its manifold-steps before. A
/// point shared by two features (different ids) stays two contacts.
static void test_copies_chosen_once(void** state)
{
	(void)state;
	vec3s up = kl_vec3(0.0f, 0.0f, 1.0f);
	kl_manifold_point a = make_point(kl_vec3(0.0f, 0.0f, 0.0f), -0.001f, 5u);
	kl_manifold_point b = make_point(kl_vec3(0.1f, 0.0f, 0.0f), -0.0005f, 6u);
	kl_manifold_point c = make_point(kl_vec3(0.0f, 0.1f, 0.0f), -0.0002f, 7u);
	kl_manifold_point out[KL_MAX_MANIFOLD_POINTS];
	// Few enough to keep: in their order, the copy dropped.
	kl_manifold_point few[3] = {a, b, a};
	assert_int_equal(kl_reduce_manifold_points(few, 3, up, out), 2);
	assert_int_equal(out[0].id, 5u);
	assert_int_equal(out[1].id, 6u);
	// Reduced: three corners and their copies give the three corners, each once.
	kl_manifold_point many[7] = {b, a, c, b, c, a, b};
	assert_int_equal(kl_reduce_manifold_points_tied(many, 7, up, 0.0005f, out), 3);
	assert_int_equal(out[0].id, 5u); // the deepest first
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < i; ++j)
		{
			assert_int_not_equal(out[i].id, out[j].id);
		}
	}
	// The same point under another id is another contact.
	kl_manifold_point shared[3] = {a, a, b};
	shared[1].id = 9u;
	assert_int_equal(kl_reduce_manifold_points(shared, 3, up, out), 3);
	// Completing from a chosen point never takes a copy of a point it has just chosen.
	out[0] = a;
	kl_manifold_point rest[5] = {b, b, c, c, b};
	assert_int_equal(kl_complete_manifold_points(rest, 5, up, out, 1), 3);
	assert_int_equal(out[1].id, 6u);
	assert_int_equal(out[2].id, 7u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_counts_kept),	  cmocka_unit_test(test_greedy_choices_random),
		cmocka_unit_test(test_box_face_patch),		  cmocka_unit_test(test_area_in_normal_plane),
		cmocka_unit_test(test_deterministic),		  cmocka_unit_test(test_degenerate_inputs),
		cmocka_unit_test(test_keep_impulses),		  cmocka_unit_test(test_tied_keeps_loaded_point),
		cmocka_unit_test(test_complete_from_kept),	  cmocka_unit_test(test_copies_chosen_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
