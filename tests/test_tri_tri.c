// Kollide — tests of the exact triangle–triangle overlap test, the orientation predicate and the
// triangle distance, against independent brute-force references.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "tri_tri.h"

#include <string.h>
#include <time.h>

// ---------------------------------------------------------------------------------------------
// Helpers

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd_u32(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return (uint32_t)(g_rng >> 16);
}

static float rnd(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd_u32() & 0xFFFFFF) / (float)0xFFFFFF;
}

static int rnd_int(int lo, int hi)
{
	return lo + (int)(rnd_u32() % (uint32_t)(hi - lo + 1));
}

// Each draw is a statement of its own: C leaves the order in which a call's arguments are evaluated
// open, and compilers differ, so one call with several draws would give each compiler other cases.

static vec3s rnd_vec(float lo, float hi)
{
	float x = rnd(lo, hi);
	float y = rnd(lo, hi);
	float z = rnd(lo, hi);
	return kl_vec3(x, y, z);
}

/// A point of the integer grid [lo, hi]^3.
static vec3s rnd_grid(int lo, int hi)
{
	float x = (float)rnd_int(lo, hi);
	float y = (float)rnd_int(lo, hi);
	float z = (float)rnd_int(lo, hi);
	return kl_vec3(x, y, z);
}

static void random_triangle(vec3s t[3], vec3s center, float size)
{
	for (int k = 0; k < 3; ++k)
	{
		t[k] = glms_vec3_add(center, rnd_vec(-size, size));
	}
}

typedef struct dv
{
	double x, y, z;
} dv;

static dv dv_of(vec3s v)
{
	dv r = {v.x, v.y, v.z};
	return r;
}

static dv dsub(dv a, dv b)
{
	dv r = {a.x - b.x, a.y - b.y, a.z - b.z};
	return r;
}

static dv dadd(dv a, dv b)
{
	dv r = {a.x + b.x, a.y + b.y, a.z + b.z};
	return r;
}

static dv dscale(dv a, double s)
{
	dv r = {a.x * s, a.y * s, a.z * s};
	return r;
}

static double ddot(dv a, dv b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static dv dcross(dv a, dv b)
{
	dv r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
	return r;
}

// ---------------------------------------------------------------------------------------------
// References

/// Brute-force reference for generic (non-degenerate, non-coplanar) pairs in double: the
/// triangles meet iff an edge of one passes through the other (both ways).
static bool ref_segment_triangle(dv p, dv q, dv a, dv b, dv c)
{
	dv n = dcross(dsub(b, a), dsub(c, a));
	double dp = ddot(n, dsub(p, a)), dq = ddot(n, dsub(q, a));
	if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0) || dp == dq)
	{
		return false;
	}
	dv x = dadd(p, dscale(dsub(q, p), dp / (dp - dq)));
	double s1 = ddot(n, dcross(dsub(b, a), dsub(x, a)));
	double s2 = ddot(n, dcross(dsub(c, b), dsub(x, b)));
	double s3 = ddot(n, dcross(dsub(a, c), dsub(x, c)));
	return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

static bool ref_overlap_edges(const vec3s a[3], const vec3s b[3])
{
	for (int k = 0; k < 3; ++k)
	{
		if (ref_segment_triangle(dv_of(a[k]), dv_of(a[(k + 1) % 3]), dv_of(b[0]), dv_of(b[1]), dv_of(b[2])) ||
			ref_segment_triangle(dv_of(b[k]), dv_of(b[(k + 1) % 3]), dv_of(a[0]), dv_of(a[1]), dv_of(a[2])))
		{
			return true;
		}
	}
	return false;
}

typedef struct iv
{
	int64_t x, y, z;
} iv;

static iv iv_of(vec3s v)
{
	iv r = {(int64_t)v.x, (int64_t)v.y, (int64_t)v.z};
	return r;
}

static iv isub(iv a, iv b)
{
	iv r = {a.x - b.x, a.y - b.y, a.z - b.z};
	return r;
}

static iv icross(iv a, iv b)
{
	iv r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
	return r;
}

static int64_t idot(iv a, iv b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

/// Exact separating-axis reference for non-degenerate triangles on an integer grid: the closed
/// triangles are disjoint iff one of the 17 axes (2 normals, 9 edge crosses, 6 in-plane edge
/// normals) separates their projections strictly.
static bool ref_overlap_sat(const vec3s a[3], const vec3s b[3])
{
	iv A[3], B[3], ea[3], eb[3];
	for (int k = 0; k < 3; ++k)
	{
		A[k] = iv_of(a[k]);
		B[k] = iv_of(b[k]);
	}
	for (int k = 0; k < 3; ++k)
	{
		ea[k] = isub(A[(k + 1) % 3], A[k]);
		eb[k] = isub(B[(k + 1) % 3], B[k]);
	}
	iv na = icross(ea[0], ea[1]), nb = icross(eb[0], eb[1]);
	iv axes[17];
	int n = 0;
	axes[n++] = na;
	axes[n++] = nb;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			axes[n++] = icross(ea[i], eb[j]);
		}
		axes[n++] = icross(na, ea[i]);
		axes[n++] = icross(nb, eb[i]);
	}
	for (int k = 0; k < n; ++k)
	{
		int64_t amin = INT64_MAX, amax = INT64_MIN, bmin = INT64_MAX, bmax = INT64_MIN;
		for (int v = 0; v < 3; ++v)
		{
			int64_t pa = idot(axes[k], A[v]), pb = idot(axes[k], B[v]);
			amin = pa < amin ? pa : amin;
			amax = pa > amax ? pa : amax;
			bmin = pb < bmin ? pb : bmin;
			bmax = pb > bmax ? pb : bmax;
		}
		if (amax < bmin || bmax < amin)
		{
			return false;
		}
	}
	return true;
}

static bool grid_degenerate(const vec3s t[3])
{
	iv n = icross(isub(iv_of(t[1]), iv_of(t[0])), isub(iv_of(t[2]), iv_of(t[0])));
	return n.x == 0 && n.y == 0 && n.z == 0;
}

/// The overlap answer must not depend on argument order, vertex rotation or winding.
static void check_symmetric(const vec3s a[3], const vec3s b[3], bool expected)
{
	vec3s ar[3] = {a[1], a[2], a[0]};
	vec3s bw[3] = {b[0], b[2], b[1]};
	assert_int_equal(kl_tri_tri_overlap(a, b), expected);
	assert_int_equal(kl_tri_tri_overlap(b, a), expected);
	assert_int_equal(kl_tri_tri_overlap(ar, bw), expected);
	assert_int_equal(kl_tri_tri_overlap(bw, ar), expected);
}

// ---------------------------------------------------------------------------------------------
// Orientation predicate

static int exact_orient_int(vec3s a, vec3s b, vec3s c, vec3s d)
{
	// Coordinates are integers below 2^20: differences below 2^21, the determinant in __int128.
	__int128 ux = (int64_t)b.x - (int64_t)a.x, uy = (int64_t)b.y - (int64_t)a.y, uz = (int64_t)b.z - (int64_t)a.z;
	__int128 vx = (int64_t)c.x - (int64_t)a.x, vy = (int64_t)c.y - (int64_t)a.y, vz = (int64_t)c.z - (int64_t)a.z;
	__int128 wx = (int64_t)d.x - (int64_t)a.x, wy = (int64_t)d.y - (int64_t)a.y, wz = (int64_t)d.z - (int64_t)a.z;
	__int128 det = ux * (vy * wz - vz * wy) + uy * (vz * wx - vx * wz) + uz * (vx * wy - vy * wx);
	return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

static void test_orient3d_exact(void** state)
{
	(void)state;
	// Nearly coplanar points on a large integer grid, where double evaluation of the
	// determinant loses the sign: the predicate must match the exact 128-bit integer answer.
	int zeros = 0, nonzeros = 0;
	for (int i = 0; i < 20000; ++i)
	{
		vec3s a = rnd_grid(-(1 << 19), 1 << 19);
		vec3s b = rnd_grid(-(1 << 19), 1 << 19);
		vec3s c = rnd_grid(-(1 << 19), 1 << 19);
		// d on the plane of abc up to rounding to the integer grid (often exactly on it).
		int s = rnd_int(-4, 4), t = rnd_int(-4, 4), den = 1 << rnd_int(0, 3);
		vec3s d;
		for (int k = 0; k < 3; ++k)
		{
			double v = a.raw[k] + ((double)s * (b.raw[k] - a.raw[k]) + (double)t * (c.raw[k] - a.raw[k])) / den;
			d.raw[k] = (float)nearbyint(fmax(fmin(v, (double)(1 << 19)), -(double)(1 << 19)));
		}
		int expected = exact_orient_int(a, b, c, d);
		assert_int_equal(kl_orient3d(a, b, c, d), expected);
		assert_int_equal(kl_orient3d(b, c, a, d), expected);
		assert_int_equal(kl_orient3d(a, c, b, d), -expected);
		zeros += expected == 0;
		nonzeros += expected != 0;
	}
	// The sample must exercise both outcomes for the check to mean anything.
	assert_true(zeros > 1000);
	assert_true(nonzeros > 1000);

	// Sign convention: d on the side the normal (b - a) × (c - a) points to gives +1.
	assert_int_equal(kl_orient3d(kl_vec3(0, 0, 0), kl_vec3(1, 0, 0), kl_vec3(0, 1, 0), kl_vec3(0.3f, 0.3f, 1e-30f)),
					 1);
	// One ulp off a plane far from the origin.
	vec3s a = kl_vec3(1000.0f, 0.0f, 0.5f), b = kl_vec3(0.0f, 1000.0f, 0.5f), c = kl_vec3(-1000.0f, -1000.0f, 0.5f);
	assert_int_equal(kl_orient3d(a, b, c, kl_vec3(123.25f, -77.5f, nextafterf(0.5f, 1.0f))), 1);
	assert_int_equal(kl_orient3d(a, b, c, kl_vec3(123.25f, -77.5f, nextafterf(0.5f, 0.0f))), -1);
	assert_int_equal(kl_orient3d(a, b, c, kl_vec3(123.25f, -77.5f, 0.5f)), 0);
}

// ---------------------------------------------------------------------------------------------
// Overlap

static void test_overlap_random_generic(void** state)
{
	(void)state;
	int hits = 0, misses = 0;
	for (int i = 0; i < 50000; ++i)
	{
		vec3s a[3], b[3];
		float size = rnd(0.01f, 2.0f);
		random_triangle(a, kl_vec3(0, 0, 0), size);
		vec3s centre = rnd_vec(-0.5f * size, 0.5f * size);
		random_triangle(b, centre, size * rnd(0.5f, 2.0f));
		// Far from the origin too: the predicates must not care.
		if (i % 4 == 0)
		{
			vec3s offset = rnd_vec(-1000.0f, 1000.0f);
			for (int k = 0; k < 3; ++k)
			{
				a[k] = glms_vec3_add(a[k], offset);
				b[k] = glms_vec3_add(b[k], offset);
			}
		}
		bool expected = ref_overlap_edges(a, b);
		check_symmetric(a, b, expected);
		hits += expected;
		misses += !expected;
	}
	print_message("generic random pairs: %d overlap, %d apart\n", hits, misses);
	assert_true(hits > 5000 && misses > 5000);
}

static void test_overlap_grid_degenerate_configurations(void** state)
{
	(void)state;
	// Small integer coordinates make touching at vertices and edges, shared edges, coplanar
	// overlapping and disjoint pairs very common; the SAT reference is exact there.
	int hits = 0, misses = 0, coplanar = 0, touching = 0;
	for (int i = 0; i < 100000; ++i)
	{
		vec3s a[3], b[3];
		int range = i % 3 == 0 ? 1 : 2;
		for (int k = 0; k < 3; ++k)
		{
			a[k] = rnd_grid(-range, range);
			b[k] = rnd_grid(-range, range);
		}
		if (i % 5 == 0)
		{
			// Flatten both to z = 0: coplanar pairs.
			for (int k = 0; k < 3; ++k)
			{
				a[k].z = 0.0f;
				b[k].z = 0.0f;
			}
		}
		if (grid_degenerate(a) || grid_degenerate(b))
		{
			continue;
		}
		bool expected = ref_overlap_sat(a, b);
		check_symmetric(a, b, expected);
		hits += expected;
		misses += !expected;
		coplanar += expected && i % 5 == 0;
		// Scaled and shifted copies (exact in float) must give the same answer.
		vec3s as[3], bs[3];
		for (int k = 0; k < 3; ++k)
		{
			as[k] = glms_vec3_add(glms_vec3_scale(a[k], 0.125f), kl_vec3(1024.0f, -512.0f, 64.0f));
			bs[k] = glms_vec3_add(glms_vec3_scale(b[k], 0.125f), kl_vec3(1024.0f, -512.0f, 64.0f));
		}
		assert_int_equal(kl_tri_tri_overlap(as, bs), expected);
		// A touching pair: b moved so that a vertex of b lands exactly on a vertex of a.
		if (i % 7 == 0)
		{
			vec3s shift = glms_vec3_sub(a[0], b[1]);
			vec3s bt[3] = {glms_vec3_add(b[0], shift), a[0], glms_vec3_add(b[2], shift)};
			check_symmetric(a, bt, true);
			touching++;
		}
	}
	print_message("grid pairs: %d overlap (%d coplanar), %d apart, %d vertex-touching\n", hits, coplanar, misses,
				  touching);
	assert_true(hits > 10000 && misses > 10000 && coplanar > 1000);
}

static void test_overlap_handmade(void** state)
{
	(void)state;
	vec3s t[3] = {kl_vec3(0, 0, 0), kl_vec3(1, 0, 0), kl_vec3(0, 1, 0)};
	// Edge touching: b's edge lies on a's edge, b stands up.
	vec3s edge[3] = {kl_vec3(0.25f, 0, 0), kl_vec3(0.75f, 0, 0), kl_vec3(0.5f, 0, 1)};
	check_symmetric(t, edge, true);
	// The same, lifted by one ulp: apart.
	vec3s lifted[3] = {kl_vec3(0.25f, 0, nextafterf(0.0f, 1.0f)), kl_vec3(0.75f, 0, nextafterf(0.0f, 1.0f)),
					   kl_vec3(0.5f, 0, 1)};
	check_symmetric(t, lifted, false);
	// Vertex on the face interior from above.
	vec3s vertex[3] = {kl_vec3(0.25f, 0.25f, 0), kl_vec3(1, 1, 1), kl_vec3(0, 1, 1)};
	check_symmetric(t, vertex, true);
	// Crossing through the middle (a small triangle pierced by a long one).
	vec3s pierce[3] = {kl_vec3(0.2f, 0.2f, -1), kl_vec3(0.3f, 0.2f, 1), kl_vec3(0.2f, 0.3f, 1)};
	check_symmetric(t, pierce, true);
	// Coplanar: contained, overlapping, sharing an edge, disjoint.
	vec3s inner[3] = {kl_vec3(0.1f, 0.1f, 0), kl_vec3(0.2f, 0.1f, 0), kl_vec3(0.1f, 0.2f, 0)};
	check_symmetric(t, inner, true);
	vec3s shared[3] = {kl_vec3(1, 0, 0), kl_vec3(1, 1, 0), kl_vec3(0, 1, 0)};
	check_symmetric(t, shared, true);
	vec3s apart[3] = {kl_vec3(1, 0.5f, 0), kl_vec3(1, 1, 0), kl_vec3(0.5f, 1, 0)};
	check_symmetric(t, apart, false);
	// Degenerate b: a segment through the face, a segment beside it, a point on the edge.
	vec3s segment[3] = {kl_vec3(0.2f, 0.2f, -1), kl_vec3(0.2f, 0.2f, 1), kl_vec3(0.2f, 0.2f, 0.5f)};
	check_symmetric(t, segment, true);
	vec3s beside[3] = {kl_vec3(2, 2, -1), kl_vec3(2, 2, 1), kl_vec3(2, 2, 0)};
	check_symmetric(t, beside, false);
	vec3s point[3] = {kl_vec3(0.5f, 0, 0), kl_vec3(0.5f, 0, 0), kl_vec3(0.5f, 0, 0)};
	check_symmetric(t, point, true);
	vec3s point_off[3] = {kl_vec3(0.5f, -0.001f, 0), kl_vec3(0.5f, -0.001f, 0), kl_vec3(0.5f, -0.001f, 0)};
	check_symmetric(t, point_off, false);
	// Both degenerate: crossing segments, collinear overlapping and collinear apart segments.
	vec3s s1[3] = {kl_vec3(0, 0, 0), kl_vec3(2, 2, 0), kl_vec3(1, 1, 0)};
	vec3s s2[3] = {kl_vec3(0, 2, 0), kl_vec3(2, 0, 0), kl_vec3(1, 1, 0)};
	check_symmetric(s1, s2, true);
	vec3s s3[3] = {kl_vec3(1.5f, 1.5f, 0), kl_vec3(3, 3, 0), kl_vec3(2, 2, 0)};
	check_symmetric(s1, s3, true);
	vec3s s4[3] = {kl_vec3(2.5f, 2.5f, 0), kl_vec3(3, 3, 0), kl_vec3(2.75f, 2.75f, 0)};
	check_symmetric(s1, s4, false);
	// Sliver: a nearly collinear but non-degenerate triangle touching the face at its tip.
	vec3s sliver[3] = {kl_vec3(0.5f, 0.25f, 0), kl_vec3(0.5f, 0.25f, 10), kl_vec3(0.5f, 0.2500001f, 10)};
	check_symmetric(t, sliver, true);
	vec3s sliver_up[3] = {kl_vec3(0.5f, 0.25f, 1e-6f), kl_vec3(0.5f, 0.25f, 10), kl_vec3(0.5f, 0.2500001f, 10)};
	check_symmetric(t, sliver_up, false);
	// Segment-triangle entry point directly.
	assert_true(kl_segment_triangle_overlap(kl_vec3(0, 0, 1), kl_vec3(0, 0, -1), t[0], t[1], t[2]));
	assert_false(kl_segment_triangle_overlap(kl_vec3(-0.1f, 0, 1), kl_vec3(-0.1f, 0, -1), t[0], t[1], t[2]));
}

// ---------------------------------------------------------------------------------------------
// Distance

/// Distance from p to the triangle, independently: the plane foot if it is inside, else the
/// nearest point of the three edges.
static double ref_point_triangle(dv p, const dv t[3])
{
	dv n = dcross(dsub(t[1], t[0]), dsub(t[2], t[0]));
	double nn = ddot(n, n);
	double best = 1e300;
	if (nn > 0)
	{
		dv foot = dsub(p, dscale(n, ddot(n, dsub(p, t[0])) / nn));
		double s1 = ddot(n, dcross(dsub(t[1], t[0]), dsub(foot, t[0])));
		double s2 = ddot(n, dcross(dsub(t[2], t[1]), dsub(foot, t[1])));
		double s3 = ddot(n, dcross(dsub(t[0], t[2]), dsub(foot, t[2])));
		if (s1 >= 0 && s2 >= 0 && s3 >= 0)
		{
			best = sqrt(ddot(dsub(p, foot), dsub(p, foot)));
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		dv a = t[k], d = dsub(t[(k + 1) % 3], t[k]);
		double dd = ddot(d, d);
		double s = dd > 0 ? ddot(dsub(p, a), d) / dd : 0;
		s = s < 0 ? 0 : (s > 1 ? 1 : s);
		dv q = dadd(a, dscale(d, s));
		double dist = sqrt(ddot(dsub(p, q), dsub(p, q)));
		best = dist < best ? dist : best;
	}
	return best;
}

/// Sampled minimum: a barycentric grid of points on each triangle against the other triangle.
static double ref_sampled_distance(const vec3s a[3], const vec3s b[3], int n)
{
	dv A[3] = {dv_of(a[0]), dv_of(a[1]), dv_of(a[2])};
	dv B[3] = {dv_of(b[0]), dv_of(b[1]), dv_of(b[2])};
	double best = 1e300;
	for (int i = 0; i <= n; ++i)
	{
		for (int j = 0; i + j <= n; ++j)
		{
			double u = (double)i / n, v = (double)j / n;
			dv pa = dadd(A[0], dadd(dscale(dsub(A[1], A[0]), u), dscale(dsub(A[2], A[0]), v)));
			dv pb = dadd(B[0], dadd(dscale(dsub(B[1], B[0]), u), dscale(dsub(B[2], B[0]), v)));
			double da = ref_point_triangle(pa, B), db = ref_point_triangle(pb, A);
			best = da < best ? da : best;
			best = db < best ? db : best;
		}
	}
	return best;
}

static double max_edge(const vec3s t[3])
{
	double m = 0;
	for (int k = 0; k < 3; ++k)
	{
		double l = glms_vec3_distance(t[k], t[(k + 1) % 3]);
		m = l > m ? l : m;
	}
	return m;
}

static void test_distance_vs_sampled(void** state)
{
	(void)state;
	int apart = 0, overlapping = 0;
	for (int i = 0; i < 400; ++i)
	{
		vec3s a[3], b[3];
		random_triangle(a, kl_vec3(0, 0, 0), 1.0f);
		vec3s centre = rnd_vec(-0.5f, 0.5f);
		random_triangle(b, centre, rnd(0.4f, 1.0f));
		kl_tri_distance d = kl_tri_tri_distance(a, b);
		kl_tri_distance e = kl_tri_tri_distance(b, a);
		const int n = 40;
		double sampled = ref_sampled_distance(a, b, n);
		// The sampled minimum is an upper bound, off by at most the grid spacing.
		double h = fmax(max_edge(a), max_edge(b)) / n;
		assert_true(d.distance <= sampled + 1e-5);
		assert_true(d.distance >= sampled - h);
		assert_near(d.distance, e.distance, 1e-5);
		assert_int_equal(d.overlap, kl_tri_tri_overlap(a, b));
		dv A[3] = {dv_of(a[0]), dv_of(a[1]), dv_of(a[2])};
		dv B[3] = {dv_of(b[0]), dv_of(b[1]), dv_of(b[2])};
		// The witnesses lie on their triangles and are the distance apart.
		assert_near(ref_point_triangle(dv_of(d.point_a), A), 0.0, 1e-5);
		assert_near(ref_point_triangle(dv_of(d.point_b), B), 0.0, 1e-5);
		if (d.overlap)
		{
			assert_true(d.distance == 0.0f);
			overlapping++;
		}
		else
		{
			assert_near(glms_vec3_distance(d.point_a, d.point_b), d.distance, 1e-5);
			assert_true(d.distance > 0.0f);
			apart++;
		}
	}
	print_message("distance: %d apart, %d overlapping\n", apart, overlapping);
	assert_true(apart > 50 && overlapping > 50);
}

static void test_distance_features(void** state)
{
	(void)state;
	vec3s t[3] = {kl_vec3(0, 0, 0), kl_vec3(1, 0, 0), kl_vec3(0, 1, 0)};
	// A vertex of b above the face of a.
	vec3s above[3] = {kl_vec3(0.2f, 0.2f, 0.5f), kl_vec3(1, 1, 2), kl_vec3(0, 1, 2)};
	kl_tri_distance d = kl_tri_tri_distance(t, above);
	assert_near(d.distance, 0.5, 1e-6);
	assert_int_equal(d.feature_a, KL_TRI_FACE);
	assert_int_equal(d.feature_b, KL_TRI_VERTEX0);
	// Crossed edges: b's edge 0 slopes down over a's edge 1 (the hypotenuse) and reaches the
	// plane beyond it, so the closest points are inside both edges.
	vec3s over[3] = {kl_vec3(0.2f, 0.2f, 1.0f), kl_vec3(1.2f, 1.2f, -0.4f), kl_vec3(1.2f, 1.2f, 3)};
	d = kl_tri_tri_distance(t, over);
	assert_false(d.overlap);
	assert_near(d.distance, ref_sampled_distance(t, over, 200), 0.01);
	assert_int_equal(d.feature_a, KL_TRI_EDGE0 + 1);
	assert_int_equal(d.feature_b, KL_TRI_EDGE0);
	// Intersection segment of two crossing triangles: both ends on both planes.
	vec3s cross[3] = {kl_vec3(0.2f, 0.2f, -1), kl_vec3(0.3f, 0.2f, 1), kl_vec3(0.2f, 0.3f, 1)};
	vec3s ends[2];
	uint8_t fa[2], fb[2];
	assert_true(kl_tri_tri_intersection_segment(t, cross, ends, fa, fb));
	for (int i = 0; i < 2; ++i)
	{
		assert_near(ends[i].z, 0.0, 1e-6);
		assert_int_equal(fa[i], KL_TRI_FACE); // b pierces a's interior: the ends are on b's edges
		assert_true(fb[i] >= KL_TRI_EDGE0 && fb[i] < KL_TRI_FACE);
	}
	assert_near(glms_vec3_distance(ends[0], ends[1]), 0.05 * sqrt(2.0), 1e-5);
	assert_false(kl_tri_tri_intersection_segment(t, above, ends, fa, fb));
}

// ---------------------------------------------------------------------------------------------
// Performance

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_performance(void** state)
{
	(void)state;
	enum
	{
		POOL = 4096,
		ROUNDS = 40
	};
	static vec3s pool[POOL][2][3];
	for (int i = 0; i < POOL; ++i)
	{
		random_triangle(pool[i][0], kl_vec3(0, 0, 0), 1.0f);
		random_triangle(pool[i][1], rnd_vec(-1.0f, 1.0f), 1.0f);
	}
	int hits = 0;
	double t0 = now_s();
	for (int r = 0; r < ROUNDS; ++r)
	{
		for (int i = 0; i < POOL; ++i)
		{
			hits += kl_tri_tri_overlap(pool[i][0], pool[i][1]);
		}
	}
	double t1 = now_s();
	float sum = 0.0f;
	for (int r = 0; r < ROUNDS / 4; ++r)
	{
		for (int i = 0; i < POOL; ++i)
		{
			sum += kl_tri_tri_distance(pool[i][0], pool[i][1]).distance;
		}
	}
	double t2 = now_s();
	double overlap_ns = 1e9 * (t1 - t0) / (ROUNDS * POOL);
	double distance_ns = 1e9 * (t2 - t1) / (ROUNDS / 4 * POOL);
	print_message("tri-tri overlap: %.1f ns/pair (%.0f%% overlapping); distance: %.1f ns/pair (sum %g)\n", overlap_ns,
				  100.0 * hits / (ROUNDS * POOL), distance_ns, (double)sum);
	assert_true(hits > 0 && hits < ROUNDS * POOL && isfinite(sum)); // timings are printed, not judged
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orient3d_exact),
		cmocka_unit_test(test_overlap_random_generic),
		cmocka_unit_test(test_overlap_grid_degenerate_configurations),
		cmocka_unit_test(test_overlap_handmade),
		cmocka_unit_test(test_distance_vs_sampled),
		cmocka_unit_test(test_distance_features),
		cmocka_unit_test(test_performance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
