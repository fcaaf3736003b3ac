// Kollide — tests of k-DOPs and the SIMDop BVH: DOP containment, conservative realignment under random
// rigid motion, builder invariants (with and without collapsing), BNG determinism, and every traversal
// (scalar binary, AVX2 1-vs-N and N-vs-N, AVX-512 1-vs-16 and 4×4, FP16) against brute force on small
// perturbed spheres and tori, with the leaf pretest, affine poses, nested queries and two threads.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "bvh.h"
#include "kdop.h"
#include "simd.h"

#include <kollide/kollide.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------
// Small helpers: PRNG, meshes, poses

static uint64_t s_rng = 0x12345678u;

static double rnd(void)
{
	s_rng = s_rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(s_rng >> 11) * (1.0 / 9007199254740992.0);
}

static double rnd_range(double lo, double hi)
{
	return lo + (hi - lo) * rnd();
}

typedef struct test_mesh
{
	float* v;
	int vn;
	int* idx;
	int tn;
} test_mesh;

static void mesh_free(test_mesh* m)
{
	free(m->v);
	free(m->idx);
}

/// UV sphere with lat rings and lon segments, radius perturbed by smooth bumps and noise.
static test_mesh make_sphere(int lat, int lon, double radius, double bump, double noise)
{
	test_mesh m;
	m.vn = 2 + (lat - 1) * lon;
	m.tn = 2 * lon * (lat - 1);
	m.v = malloc(sizeof(float) * 3 * (size_t)m.vn);
	m.idx = malloc(sizeof(int) * 3 * (size_t)m.tn);
	int vi = 0;
	for (int i = 0; i <= lat; ++i)
	{
		double th = GLM_PI * i / lat;
		int count = (i == 0 || i == lat) ? 1 : lon;
		for (int j = 0; j < count; ++j)
		{
			double ph = 2.0 * GLM_PI * j / lon;
			double r = radius * (1.0 + bump * sin(5.0 * th) * cos(4.0 * ph) + noise * (rnd() - 0.5));
			m.v[3 * vi + 0] = (float)(r * sin(th) * cos(ph));
			m.v[3 * vi + 1] = (float)(r * sin(th) * sin(ph));
			m.v[3 * vi + 2] = (float)(r * cos(th));
			vi += 1;
		}
	}
	int ti = 0;
	for (int j = 0; j < lon; ++j)
	{
		int a = 1 + j, b = 1 + (j + 1) % lon;
		m.idx[3 * ti + 0] = 0, m.idx[3 * ti + 1] = a, m.idx[3 * ti + 2] = b, ti++;
	}
	for (int i = 1; i < lat - 1; ++i)
	{
		for (int j = 0; j < lon; ++j)
		{
			int a = 1 + (i - 1) * lon + j, b = 1 + (i - 1) * lon + (j + 1) % lon;
			int c = a + lon, d = b + lon;
			m.idx[3 * ti + 0] = a, m.idx[3 * ti + 1] = c, m.idx[3 * ti + 2] = b, ti++;
			m.idx[3 * ti + 0] = b, m.idx[3 * ti + 1] = c, m.idx[3 * ti + 2] = d, ti++;
		}
	}
	int last = m.vn - 1;
	for (int j = 0; j < lon; ++j)
	{
		int a = 1 + (lat - 2) * lon + j, b = 1 + (lat - 2) * lon + (j + 1) % lon;
		m.idx[3 * ti + 0] = a, m.idx[3 * ti + 1] = last, m.idx[3 * ti + 2] = b, ti++;
	}
	m.tn = ti;
	return m;
}

static test_mesh make_torus(int nu, int nv, double R, double r, double noise)
{
	test_mesh m;
	m.vn = nu * nv;
	m.tn = 2 * nu * nv;
	m.v = malloc(sizeof(float) * 3 * (size_t)m.vn);
	m.idx = malloc(sizeof(int) * 3 * (size_t)m.tn);
	for (int i = 0; i < nu; ++i)
	{
		for (int j = 0; j < nv; ++j)
		{
			double u = 2.0 * GLM_PI * i / nu, w = 2.0 * GLM_PI * j / nv;
			double rr = r * (1.0 + noise * (rnd() - 0.5));
			int k = i * nv + j;
			m.v[3 * k + 0] = (float)((R + rr * cos(w)) * cos(u));
			m.v[3 * k + 1] = (float)((R + rr * cos(w)) * sin(u));
			m.v[3 * k + 2] = (float)(rr * sin(w));
		}
	}
	int ti = 0;
	for (int i = 0; i < nu; ++i)
	{
		for (int j = 0; j < nv; ++j)
		{
			int a = i * nv + j, b = ((i + 1) % nu) * nv + j, c = i * nv + (j + 1) % nv, d = ((i + 1) % nu) * nv + (j + 1) % nv;
			m.idx[3 * ti + 0] = a, m.idx[3 * ti + 1] = b, m.idx[3 * ti + 2] = c, ti++;
			m.idx[3 * ti + 0] = c, m.idx[3 * ti + 1] = b, m.idx[3 * ti + 2] = d, ti++;
		}
	}
	return m;
}

static versors random_quat(void)
{
	double q[4], n = 0.0;
	do
	{
		n = 0.0;
		for (int i = 0; i < 4; ++i)
		{
			q[i] = rnd_range(-1.0, 1.0);
			n += q[i] * q[i];
		}
	} while (n > 1.0 || n < 0.01);
	n = sqrt(n);
	versors r = {{(float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n)}};
	return r;
}

/// Rotation matrix (double) of a quaternion, normalised in double as the BVH query does.
static void quat_matrix(versors qf, double R[3][3])
{
	double x = qf.x, y = qf.y, z = qf.z, w = qf.w;
	double s = 1.0 / sqrt(x * x + y * y + z * z + w * w);
	x *= s, y *= s, z *= s, w *= s;
	R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - z * w), R[0][2] = 2 * (x * z + y * w);
	R[1][0] = 2 * (x * y + z * w), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - x * w);
	R[2][0] = 2 * (x * z - y * w), R[2][1] = 2 * (y * z + x * w), R[2][2] = 1 - 2 * (x * x + y * y);
}

static double dot3(const double* a, const double* b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double* a, const double* b, double* r)
{
	r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static void cross3(const double* a, const double* b, double* r)
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}

// ---------------------------------------------------------------------------------------------------------
// Exact-enough triangle tests in double: SAT overlap (touching counts) and distance

static bool sat_separated(const double t1[3][3], const double t2[3][3], const double* axis)
{
	if (dot3(axis, axis) < 1e-24)
	{
		return false;
	}
	double a0 = INFINITY, a1 = -INFINITY, b0 = INFINITY, b1 = -INFINITY;
	for (int i = 0; i < 3; ++i)
	{
		double p = dot3(axis, t1[i]), q = dot3(axis, t2[i]);
		a0 = fmin(a0, p), a1 = fmax(a1, p), b0 = fmin(b0, q), b1 = fmax(b1, q);
	}
	return a1 < b0 || b1 < a0;
}

static bool tri_overlap(const double t1[3][3], const double t2[3][3])
{
	double e1[3][3], e2[3][3], n1[3], n2[3], ax[3];
	for (int i = 0; i < 3; ++i)
	{
		sub3(t1[(i + 1) % 3], t1[i], e1[i]);
		sub3(t2[(i + 1) % 3], t2[i], e2[i]);
	}
	cross3(e1[0], e1[1], n1);
	cross3(e2[0], e2[1], n2);
	if (sat_separated(t1, t2, n1) || sat_separated(t1, t2, n2))
	{
		return false;
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			cross3(e1[i], e2[j], ax);
			if (sat_separated(t1, t2, ax))
			{
				return false;
			}
		}
		cross3(n1, e1[i], ax);
		if (sat_separated(t1, t2, ax))
		{
			return false;
		}
		cross3(n2, e2[i], ax);
		if (sat_separated(t1, t2, ax))
		{
			return false;
		}
	}
	return true;
}

static double clamp01(double x)
{
	return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

/// Squared distance between segments p1q1 and p2q2 (Ericson 5.1.9).
static double seg_seg2(const double* p1, const double* q1, const double* p2, const double* q2)
{
	double d1[3], d2[3], r[3];
	sub3(q1, p1, d1), sub3(q2, p2, d2), sub3(p1, p2, r);
	double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
	double s, t;
	if (a <= 1e-30 && e <= 1e-30)
	{
		s = t = 0.0;
	}
	else if (a <= 1e-30)
	{
		s = 0.0, t = clamp01(f / e);
	}
	else
	{
		double c = dot3(d1, r);
		if (e <= 1e-30)
		{
			t = 0.0, s = clamp01(-c / a);
		}
		else
		{
			double b = dot3(d1, d2), den = a * e - b * b;
			s = den > 0.0 ? clamp01((b * f - c * e) / den) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0)
			{
				t = 0.0, s = clamp01(-c / a);
			}
			else if (t > 1.0)
			{
				t = 1.0, s = clamp01((b - c) / a);
			}
		}
	}
	double c1[3], c2[3], d[3];
	for (int i = 0; i < 3; ++i)
	{
		c1[i] = p1[i] + d1[i] * s;
		c2[i] = p2[i] + d2[i] * t;
	}
	sub3(c1, c2, d);
	return dot3(d, d);
}

/// Squared distance from p to triangle abc (Ericson 5.1.5 closest point).
static double point_tri2(const double* p, const double t[3][3])
{
	const double *a = t[0], *b = t[1], *c = t[2];
	double ab[3], ac[3], ap[3], bp[3], cp[3], q[3], d[3];
	sub3(b, a, ab), sub3(c, a, ac), sub3(p, a, ap);
	double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
	if (d1 <= 0 && d2 <= 0)
	{
		memcpy(q, a, sizeof(q));
		goto done;
	}
	sub3(p, b, bp);
	double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
	if (d3 >= 0 && d4 <= d3)
	{
		memcpy(q, b, sizeof(q));
		goto done;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0)
	{
		double v = d1 / (d1 - d3);
		for (int i = 0; i < 3; ++i) q[i] = a[i] + v * ab[i];
		goto done;
	}
	sub3(p, c, cp);
	double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
	if (d6 >= 0 && d5 <= d6)
	{
		memcpy(q, c, sizeof(q));
		goto done;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0)
	{
		double w = d2 / (d2 - d6);
		for (int i = 0; i < 3; ++i) q[i] = a[i] + w * ac[i];
		goto done;
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
	{
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		for (int i = 0; i < 3; ++i) q[i] = b[i] + w * (c[i] - b[i]);
		goto done;
	}
	{
		double den = 1.0 / (va + vb + vc);
		double v = vb * den, w = vc * den;
		for (int i = 0; i < 3; ++i) q[i] = a[i] + ab[i] * v + ac[i] * w;
	}
done:
	sub3(p, q, d);
	return dot3(d, d);
}

static double tri_dist(const double t1[3][3], const double t2[3][3])
{
	if (tri_overlap(t1, t2))
	{
		return 0.0;
	}
	double best = INFINITY;
	for (int i = 0; i < 3; ++i)
	{
		best = fmin(best, point_tri2(t1[i], t2));
		best = fmin(best, point_tri2(t2[i], t1));
		for (int j = 0; j < 3; ++j)
		{
			best = fmin(best, seg_seg2(t1[i], t1[(i + 1) % 3], t2[j], t2[(j + 1) % 3]));
		}
	}
	return sqrt(best);
}

// ---------------------------------------------------------------------------------------------------------
// Scene: mesh A in its frame, mesh B moved into A's frame (double), truth sets

typedef struct scene
{
	const test_mesh* a;
	const test_mesh* b;
	double (*ta)[3][3]; // A's triangles
	double (*tb)[3][3]; // B's triangles in A's frame
	double margin;
} scene;

static void scene_init(scene* s, const test_mesh* a, const test_mesh* b, kl_transform pose)
{
	s->a = a;
	s->b = b;
	s->ta = malloc(sizeof(*s->ta) * (size_t)a->tn);
	s->tb = malloc(sizeof(*s->tb) * (size_t)b->tn);
	double R[3][3];
	quat_matrix(pose.q, R);
	for (int t = 0; t < a->tn; ++t)
	{
		for (int j = 0; j < 3; ++j)
		{
			for (int c = 0; c < 3; ++c)
			{
				s->ta[t][j][c] = a->v[3 * a->idx[3 * t + j] + c];
			}
		}
	}
	double p[3] = {pose.p.x, pose.p.y, pose.p.z};
	for (int t = 0; t < b->tn; ++t)
	{
		for (int j = 0; j < 3; ++j)
		{
			const float* v = b->v + 3 * b->idx[3 * t + j];
			for (int c = 0; c < 3; ++c)
			{
				s->tb[t][j][c] = R[c][0] * v[0] + R[c][1] * v[1] + R[c][2] * v[2] + p[c];
			}
		}
	}
}

static void scene_free(scene* s)
{
	free(s->ta);
	free(s->tb);
}

static bool exact_leaf(int ta, int tb, void* ctx)
{
	scene* s = ctx;
	return tri_overlap(s->ta[ta], s->tb[tb]);
}

static bool margin_leaf(int ta, int tb, void* ctx)
{
	scene* s = ctx;
	return tri_dist(s->ta[ta], s->tb[tb]) <= s->margin;
}

static bool boxes_near(const double t1[3][3], const double t2[3][3], double m)
{
	for (int c = 0; c < 3; ++c)
	{
		double a0 = fmin(t1[0][c], fmin(t1[1][c], t1[2][c])), a1 = fmax(t1[0][c], fmax(t1[1][c], t1[2][c]));
		double b0 = fmin(t2[0][c], fmin(t2[1][c], t2[2][c])), b1 = fmax(t2[0][c], fmax(t2[1][c], t2[2][c]));
		if (a1 + m < b0 || b1 + m < a0)
		{
			return false;
		}
	}
	return true;
}

/// Truth bitmap [ta·nb + tb]: pairs that overlap (margin 0) or lie within the margin.
static uint8_t* truth_pairs(const scene* s, double margin, int* count)
{
	int na = s->a->tn, nb = s->b->tn;
	uint8_t* t = calloc((size_t)na * nb, 1);
	*count = 0;
	for (int i = 0; i < na; ++i)
	{
		for (int j = 0; j < nb; ++j)
		{
			if (!boxes_near(s->ta[i], s->tb[j], margin * 1.0001))
			{
				continue;
			}
			bool in = margin > 0.0 ? tri_dist(s->ta[i], s->tb[j]) <= margin : tri_overlap(s->ta[i], s->tb[j]);
			if (in)
			{
				t[(size_t)i * nb + j] = 1;
				*count += 1;
			}
		}
	}
	return t;
}

// ---------------------------------------------------------------------------------------------------------
// k-DOP tests

static const int s_ks[] = {6, 14, 18, 26, 32, 46};
#define K_COUNT ((int)(sizeof(s_ks) / sizeof(s_ks[0])))

static void test_dop_contains_points(void** state)
{
	(void)state;
	for (int kk = 0; kk < K_COUNT; ++kk)
	{
		const kl_kdop_dirs* d = kl_kdop_dirs_get(s_ks[kk]);
		assert_non_null(d);
		assert_int_equal(d->axes * 2, s_ks[kk]);
		assert_true(d->face_count >= 2 * (2 * d->axes) - 4);
		for (int i = 0; i < d->axes; ++i)
		{
			double n = sqrt((double)d->dir[i][0] * d->dir[i][0] + (double)d->dir[i][1] * d->dir[i][1] +
							(double)d->dir[i][2] * d->dir[i][2]);
			assert_near(n, 1.0, 1e-6);
			for (int j = 0; j < i; ++j)
			{
				double c = fabs(d->dir[i][0] * d->dir[j][0] + d->dir[i][1] * d->dir[j][1] + d->dir[i][2] * d->dir[j][2]);
				assert_true(c < 0.999); // no duplicate or opposite direction
			}
		}
		float lo[2][KL_KDOP_MAX_AXES], hi[2][KL_KDOP_MAX_AXES];
		float pts[2][40][3];
		for (int s = 0; s < 2; ++s)
		{
			kl_kdop_set_empty(d->axes, lo[s], hi[s]);
			for (int p = 0; p < 40; ++p)
			{
				for (int c = 0; c < 3; ++c)
				{
					pts[s][p][c] = (float)rnd_range(-3.0, 3.0) + (s == 1 ? 5.0f : 0.0f);
				}
				kl_kdop_add_point(d, lo[s], hi[s], pts[s][p]);
			}
		}
		float mlo[KL_KDOP_MAX_AXES], mhi[KL_KDOP_MAX_AXES];
		memcpy(mlo, lo[0], sizeof(mlo));
		memcpy(mhi, hi[0], sizeof(mhi));
		kl_kdop_merge(d->axes, mlo, mhi, lo[1], hi[1]);
		for (int s = 0; s < 2; ++s)
		{
			for (int p = 0; p < 40; ++p)
			{
				for (int i = 0; i < d->axes; ++i)
				{
					double v = (double)d->dir[i][0] * pts[s][p][0] + (double)d->dir[i][1] * pts[s][p][1] +
							   (double)d->dir[i][2] * pts[s][p][2];
					assert_true(lo[s][i] <= v && v <= hi[s][i]);
					assert_true(mlo[i] <= v && v <= mhi[i]);
				}
			}
			for (int i = 0; i < d->axes; ++i)
			{
				assert_true(mlo[i] <= lo[s][i] && mhi[i] >= hi[s][i]);
				assert_true(hi[s][i] - lo[s][i] < 12.0f); // tight-ish, not inflated
			}
			assert_true(kl_kdop_overlap(d->axes, mlo, mhi, lo[s], hi[s]));
		}
		assert_false(kl_kdop_overlap(d->axes, lo[0], hi[0], lo[1], hi[1]) && hi[0][0] < lo[1][0]);
	}
	assert_null(kl_kdop_dirs_get(7));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
}

static void test_half_rounding(void** state)
{
	(void)state;
	const double special[] = {0.0, -0.0, 1e-9, -1e-9, 6e-8, 65504.0, 65519.0, 70000.0, -70000.0, 1e30, -1e30, 0.1, -0.1};
	for (int i = 0; i < 2000 + 13; ++i)
	{
		double x = i < 13 ? special[i] : 0.0;
		if (i >= 13)
		{
			// The mantissa is drawn first: the operands of * have no order of evaluation in C.
			double mantissa = rnd_range(-1.0, 1.0);
			x = mantissa * pow(10.0, rnd_range(-6.0, 4.5));
		}
		uint16_t dn = kl_half_from_double(x, -1), up = kl_half_from_double(x, 1), ne = kl_half_from_double(x, 0);
		double fd = kl_half_to_float(dn), fu = kl_half_to_float(up), fn = kl_half_to_float(ne);
		assert_true(fd <= x);
		assert_true(fu >= x);
		assert_true(fn == fd || fn == fu);
		if (fabs(x) < 60000.0)
		{
			assert_true(fu - fd <= fmax(fabs(x) * (1.0 / 1024.0), 6.0e-8) * 1.0001);
		}
	}
}

static void test_realign_conservative(void** state)
{
	(void)state;
	test_mesh m = make_torus(14, 8, 0.8, 0.3, 0.2);
	for (int kk = 0; kk < K_COUNT; ++kk)
	{
		const kl_kdop_dirs* src = kl_kdop_dirs_get(s_ks[kk]);
		const kl_kdop_dirs* dst = kl_kdop_dirs_get(s_ks[(kk + 3) % K_COUNT]);
		const kl_kdop_dirs* dsts[2] = {src, dst};
		float lo[KL_KDOP_MAX_AXES], hi[KL_KDOP_MAX_AXES];
		kl_kdop_set_empty(src->axes, lo, hi);
		double radius = 0.0, smax = 0.0;
		for (int v = 0; v < m.vn; ++v)
		{
			kl_kdop_add_point(src, lo, hi, m.v + 3 * v);
			radius = fmax(radius, sqrt((double)m.v[3 * v] * m.v[3 * v] + (double)m.v[3 * v + 1] * m.v[3 * v + 1] +
									   (double)m.v[3 * v + 2] * m.v[3 * v + 2]));
		}
		for (int i = 0; i < src->axes; ++i)
		{
			smax = fmax(smax, fmax(fabs(lo[i]), fabs(hi[i])));
		}
		for (int trial = 0; trial < 60; ++trial)
		{
			const kl_kdop_dirs* dd = dsts[trial & 1];
			double R[3][3], t[3];
			quat_matrix(random_quat(), R);
			for (int c = 0; c < 3; ++c)
			{
				t[c] = trial < 5 ? 0.0 : rnd_range(-50.0, 50.0);
			}
			if (trial == 0)
			{
				memset(R, 0, sizeof(R));
				R[0][0] = R[1][1] = R[2][2] = 1.0;
			}
			kl_kdop_storage ss = {src, NULL, smax, radius};
			kl_kdop_storage ds = {dd, NULL, 0.0, 0.0};
			kl_kdop_plan plan;
			float margin = (trial % 3 == 2) ? 0.05f : 0.0f;
			kl_kdop_plan_make(&plan, &ss, &ds, R, t, margin);
			assert_true(plan.max_residual < 1e-6);
			float olo[KL_KDOP_MAX_AXES], ohi[KL_KDOP_MAX_AXES];
			kl_kdop_realign(&plan, lo, hi, 1, olo, ohi);
			// The realigned DOP must contain every exactly moved vertex (inflated by the margin).
			float tlo[KL_KDOP_MAX_AXES], thi[KL_KDOP_MAX_AXES];
			kl_kdop_set_empty(dd->axes, tlo, thi);
			for (int v = 0; v < m.vn; ++v)
			{
				double p[3];
				for (int c = 0; c < 3; ++c)
				{
					p[c] = R[c][0] * m.v[3 * v] + R[c][1] * m.v[3 * v + 1] + R[c][2] * m.v[3 * v + 2] + t[c];
				}
				for (int i = 0; i < dd->axes; ++i)
				{
					double e = dd->dir[i][0] * p[0] + dd->dir[i][1] * p[1] + dd->dir[i][2] * p[2];
					assert_true(olo[i] <= e - margin && e + margin <= ohi[i]);
				}
				float pf[3] = {(float)p[0], (float)p[1], (float)p[2]};
				kl_kdop_add_point(dd, tlo, thi, pf);
			}
			// Not absurdly loose: within 2.5× the tight DOP's width plus margins (exact for the identity).
			for (int i = 0; i < dd->axes; ++i)
			{
				double tight = thi[i] - tlo[i];
				double got = ohi[i] - olo[i] - 2.0 * margin;
				if (trial == 0 && dd == src)
				{
					assert_near(got, tight, 1e-4);
				}
				assert_true(got <= 2.5 * tight + 1e-3);
			}
		}
	}
	mesh_free(&m);
}

// ---------------------------------------------------------------------------------------------------------
// Builder invariants

/// Walks the tree: every triangle in exactly one leaf, every node reached once, unused lanes empty.
static void check_tree(const kl_bvh* t, const test_mesh* m)
{
	int* seen = calloc((size_t)m->tn, sizeof(int));
	int* stack = malloc(sizeof(int) * ((size_t)t->node_count + 1));
	int sp = 0, nodes = 0;
	stack[sp++] = 0;
	while (sp > 0)
	{
		int node = stack[--sp];
		assert_true(node >= 0 && node < t->node_count);
		nodes++;
		int count = kl_bvh_node_count(t, node);
		assert_true(count >= 1 && count <= t->width);
		assert_true(node == 0 || count >= 2);
		const int32_t* child = kl_bvh_node_children(t, node);
		for (int lane = 0; lane < t->width; ++lane)
		{
			if (lane >= count)
			{
				assert_int_equal(child[lane], KL_BVH_EMPTY);
			}
			else if (child[lane] < 0)
			{
				int tri = -1 - child[lane];
				assert_true(tri >= 0 && tri < m->tn);
				seen[tri] += 1;
			}
			else
			{
				assert_true(sp < t->node_count);
				stack[sp++] = child[lane];
			}
		}
	}
	for (int tri = 0; tri < m->tn; ++tri)
	{
		assert_int_equal(seen[tri], 1);
	}
	assert_int_equal(nodes, t->node_count);
	free(stack);
	free(seen);
}

/// Every leaf triangle's vertices lie inside the DOPs of all lanes on its path (checked recursively).
static void check_contains(const kl_bvh* t, const test_mesh* m, int node, int depth, double (*plo)[KL_KDOP_MAX_AXES],
						   double (*phi)[KL_KDOP_MAX_AXES])
{
	int count = kl_bvh_node_count(t, node);
	const int32_t* child = kl_bvh_node_children(t, node);
	for (int lane = 0; lane < count; ++lane)
	{
		kl_bvh_child_dop(t, node, lane, plo[depth], phi[depth]);
		for (int i = 0; i < t->axes; ++i)
		{
			// A child's DOP lies inside its ancestors' (tight k-DOPs nest).
			for (int dd = 0; dd < depth; ++dd)
			{
				assert_true(plo[depth][i] >= plo[dd][i] && phi[depth][i] <= phi[dd][i]);
			}
		}
		if (child[lane] >= 0)
		{
			check_contains(t, m, child[lane], depth + 1, plo, phi);
			continue;
		}
		int tri = -1 - child[lane];
		for (int j = 0; j < 3; ++j)
		{
			const float* p = m->v + 3 * m->idx[3 * tri + j];
			for (int i = 0; i < t->axes; ++i)
			{
				const float* dir = t->dirs->dir[i];
				double e = (double)dir[0] * p[0] + (double)dir[1] * p[1] + (double)dir[2] * p[2];
				for (int dd = 0; dd <= depth; ++dd)
				{
					assert_true(plo[dd][i] <= e && e <= phi[dd][i]);
				}
				assert_true((double)t->root_lo[i] + t->offset[i] <= e && e <= (double)t->root_hi[i] + t->offset[i]);
			}
		}
	}
}

static kl_bvh* build(const test_mesh* m, int width, int k, kl_bvh_builder builder, bool fp16, uint64_t seed)
{
	kl_bvh_build_def def = kl_bvh_default_build_def();
	def.width = width;
	def.k = k;
	def.builder = builder;
	def.fp16 = fp16;
	def.seed = seed;
	kl_bvh* t = kl_bvh_build(m->v, m->vn, m->idx, m->tn, &def);
	assert_non_null(t);
	return t;
}

static void test_builders(void** state)
{
	(void)state;
	// One statement each: the values of an initializer list have no order of evaluation in C, and
	// the meshes draw from one generator.
	test_mesh meshes[3];
	meshes[0] = make_sphere(10, 12, 1.0, 0.1, 0.05);
	meshes[1] = make_torus(12, 9, 0.8, 0.25, 0.1);
	meshes[2] = make_sphere(3, 3, 1.0, 0.0, 0.0);
	static const int widths[3] = {2, 4, 8};
	double (*plo)[KL_KDOP_MAX_AXES] = malloc(sizeof(double) * 64 * KL_KDOP_MAX_AXES);
	double (*phi)[KL_KDOP_MAX_AXES] = malloc(sizeof(double) * 64 * KL_KDOP_MAX_AXES);
	for (int mi = 0; mi < 3; ++mi)
	{
		for (int b = 0; b < KL_BVH_BUILDER_COUNT; ++b)
		{
			for (int w = 0; w < 3; ++w)
			{
				for (int f = 0; f < 2; ++f)
				{
					int k = s_ks[(b + w + f) % K_COUNT];
					kl_bvh* t = build(&meshes[mi], widths[w], k, (kl_bvh_builder)b, f == 1, 7);
					check_tree(t, &meshes[mi]);
					check_contains(t, &meshes[mi], 0, 0, plo, phi);
					assert_true(t->depth >= 1 && t->depth < 40);
					assert_true(kl_bvh_memory_bytes(t) == t->node_stride * (size_t)t->node_count);
					assert_true(t->node_stride % 64 == 0);
					kl_bvh_destroy(t);
				}
			}
		}
	}
	// A single triangle and the FP16 memory saving.
	test_mesh one = {meshes[0].v, meshes[0].vn, meshes[0].idx, 1};
	kl_bvh* t1 = build(&one, 8, 26, KL_BVH_BUILD_BNG, false, 1);
	check_tree(t1, &one);
	assert_int_equal(t1->node_count, 1);
	kl_bvh_destroy(t1);
	kl_bvh* f32 = build(&meshes[0], 8, 46, KL_BVH_BUILD_BNG, false, 1);
	kl_bvh* f16 = build(&meshes[0], 8, 46, KL_BVH_BUILD_BNG, true, 1);
	assert_int_equal(f32->node_count, f16->node_count);
	assert_true(kl_bvh_memory_bytes(f16) * 10 <= kl_bvh_memory_bytes(f32) * 6);
	kl_bvh_destroy(f32);
	kl_bvh_destroy(f16);
	free(plo);
	free(phi);
	for (int mi = 0; mi < 3; ++mi)
	{
		mesh_free(&meshes[mi]);
	}
}

static void test_bng_deterministic(void** state)
{
	(void)state;
	test_mesh m = make_sphere(14, 16, 1.0, 0.15, 0.05);
	kl_bvh* a = build(&m, 8, 26, KL_BVH_BUILD_BNG, false, 42);
	kl_bvh* b = build(&m, 8, 26, KL_BVH_BUILD_BNG, false, 42);
	kl_bvh* c = build(&m, 8, 26, KL_BVH_BUILD_BNG, false, 43);
	assert_int_equal(a->node_count, b->node_count);
	assert_memory_equal(a->nodes, b->nodes, kl_bvh_memory_bytes(a));
	assert_true(a->node_count != c->node_count || memcmp(a->nodes, c->nodes, kl_bvh_memory_bytes(a)) != 0);
	// BNG should rarely need its fallback and give a shallow tree.
	assert_true(a->bng_fallbacks * 10 <= a->node_count);
	assert_true(a->depth <= 6);
	kl_bvh_destroy(a);
	kl_bvh_destroy(b);
	kl_bvh_destroy(c);
	mesh_free(&m);
}

static void test_bad_input(void** state)
{
	(void)state;
	test_mesh m = make_sphere(4, 5, 1.0, 0.0, 0.0);
	kl_bvh_build_def def = kl_bvh_default_build_def();
	assert_null(kl_bvh_build(NULL, m.vn, m.idx, m.tn, &def));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	def.width = 3;
	assert_null(kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def));
	def = kl_bvh_default_build_def();
	def.k = 10;
	assert_null(kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def));
	def = kl_bvh_default_build_def();
	m.idx[4] = m.vn;
	assert_null(kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def));
	m.idx[4] = 1;
	m.v[2] = NAN;
	assert_null(kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def));
	m.v[2] = 1.0f;
	assert_null(kl_bvh_build(m.v, m.vn, m.idx, 0, &def));
	kl_bvh* t = kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def);
	assert_non_null(t);
	kl_bvh_query q = {0};
	kl_bvh_result r;
	q.margin = -1.0f;
	assert_int_equal(kl_bvh_collide(t, t, kl_transform_identity(), &q, &r), KL_ERR_INVALID_ARGUMENT);
	q.margin = 0.0f;
	q.pair_capacity = 4;
	assert_int_equal(kl_bvh_collide(t, t, kl_transform_identity(), &q, &r), KL_ERR_INVALID_ARGUMENT);
	q.pair_capacity = 0;
	kl_transform bad = kl_transform_identity();
	bad.p.x = INFINITY;
	assert_int_equal(kl_bvh_collide(t, t, bad, &q, &r), KL_ERR_INVALID_ARGUMENT);
	float sing[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	assert_int_equal(kl_bvh_collide_m34(t, t, sing, &q, &r), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_bvh_collide(NULL, t, kl_transform_identity(), &q, &r), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_bvh_collide(t, t, kl_transform_identity(), &q, &r), KL_OK);
	assert_true(r.hit);
	kl_bvh_destroy(t);
	kl_bvh_destroy(NULL);
	mesh_free(&m);
}

// ---------------------------------------------------------------------------------------------------------
// Traversals against brute force

typedef struct tree_config
{
	int width;
	int k;
	kl_bvh_builder builder;
	bool fp16;
} tree_config;

static const tree_config s_configs[] = {
	{2, 32, KL_BVH_BUILD_LONGEST_AXIS, false}, // the binary reference
	{2, 14, KL_BVH_BUILD_MEDIAN, true},
	{4, 26, KL_BVH_BUILD_BNG, false},
	{4, 18, KL_BVH_BUILD_MIDDLE, true},
	{8, 46, KL_BVH_BUILD_BNG, false},
	{8, 26, KL_BVH_BUILD_LONGEST_AXIS, false},
	{8, 6, KL_BVH_BUILD_MEDIAN, false},
	{8, 32, KL_BVH_BUILD_BNG, true},
	{16, 26, KL_BVH_BUILD_BNG, false},
	{16, 46, KL_BVH_BUILD_BNG, true},
	{16, 18, KL_BVH_BUILD_MIDDLE, false},
};

/// The traversal and instruction set a query on two trees of this width should report on this machine.
static void expected_kernels(const kl_bvh* t, kl_bvh_traversal requested, kl_bvh_traversal* used, kl_bvh_simd* simd)
{
	kl_bvh_kernels k;
	bool avx2 = kl_simd_level_get() == KL_SIMD_AVX2;
	bool avx512 = avx2 && kl_bvh_kernels_avx512(t, t, &k);
	bool simd_ok = (t->width == 16 && avx512) || ((t->width == 4 || t->width == 8) && avx2);
	*used = KL_BVH_TRAVERSE_SCALAR;
	*simd = KL_BVH_SIMD_NONE;
	if (requested == KL_BVH_TRAVERSE_SCALAR || !simd_ok)
	{
		return;
	}
	*used = requested == KL_BVH_TRAVERSE_NVN && t->width != 16 ? KL_BVH_TRAVERSE_NVN : KL_BVH_TRAVERSE_1VN;
	*simd = t->width == 16 || (t->width == 4 && *used == KL_BVH_TRAVERSE_NVN && avx512) ? KL_BVH_SIMD_AVX512
																						: KL_BVH_SIMD_AVX2;
}
#define CONFIG_COUNT ((int)(sizeof(s_configs) / sizeof(s_configs[0])))

static kl_transform random_pose(double dmin, double dmax)
{
	kl_transform t;
	t.q = random_quat();
	double dir[3], n = 0.0;
	for (int c = 0; c < 3; ++c)
	{
		dir[c] = rnd_range(-1.0, 1.0);
		n += dir[c] * dir[c];
	}
	n = sqrt(n) + 1e-9;
	double dist = rnd_range(dmin, dmax);
	t.p = kl_vec3((float)(dir[0] / n * dist), (float)(dir[1] / n * dist), (float)(dir[2] / n * dist));
	return t;
}

/// Runs one query; checks the candidate set is a superset of the truth and returns the result.
static kl_bvh_result run_query(const kl_bvh* a, const kl_bvh* b, kl_transform pose, kl_bvh_mode mode,
							   kl_bvh_traversal trav, float margin, kl_bvh_leaf_fn* leaf, void* s, kl_bvh_pair* pairs,
							   int cap)
{
	kl_bvh_query q = {0};
	q.mode = mode;
	q.traversal = trav;
	q.margin = margin;
	q.leaf_test = leaf;
	q.ctx = s;
	q.pairs = pairs;
	q.pair_capacity = cap;
	kl_bvh_result r;
	assert_int_equal(kl_bvh_collide(a, b, pose, &q, &r), KL_OK);
	return r;
}

static uint8_t* pair_map(const kl_bvh_pair* pairs, int count, int na, int nb)
{
	uint8_t* m = calloc((size_t)na * nb, 1);
	for (int i = 0; i < count; ++i)
	{
		assert_true(pairs[i].tri_a >= 0 && pairs[i].tri_a < na && pairs[i].tri_b >= 0 && pairs[i].tri_b < nb);
		assert_int_equal(m[(size_t)pairs[i].tri_a * nb + pairs[i].tri_b], 0); // no duplicates
		m[(size_t)pairs[i].tri_a * nb + pairs[i].tri_b] = 1;
	}
	return m;
}

static void check_traversals(float margin, int poses)
{
	test_mesh ma = make_sphere(10, 14, 1.0, 0.12, 0.08);
	test_mesh mb = make_torus(14, 10, 0.7, 0.25, 0.15);
	kl_bvh* ta[CONFIG_COUNT];
	kl_bvh* tb[CONFIG_COUNT];
	for (int c = 0; c < CONFIG_COUNT; ++c)
	{
		const tree_config* cf = s_configs + c;
		ta[c] = build(&ma, cf->width, cf->k, cf->builder, cf->fp16, 3);
		tb[c] = build(&mb, cf->width, cf->k, cf->builder, cf->fp16, 5);
	}
	int na = ma.tn, nb = mb.tn;
	int cap = na * nb;
	kl_bvh_pair* pairs = malloc(sizeof(kl_bvh_pair) * (size_t)cap);
	int hits = 0, misses = 0;
	int64_t culled = 0;
	int64_t bv_binary = 0, bv_wide = 0;
	for (int p = 0; p < poses; ++p)
	{
		kl_transform pose = random_pose(0.6, 1.9);
		scene s;
		scene_init(&s, &ma, &mb, pose);
		s.margin = margin;
		int truth_count = 0;
		uint8_t* truth = truth_pairs(&s, margin, &truth_count);
		kl_bvh_leaf_fn* exact = margin > 0.0f ? margin_leaf : exact_leaf;
		*(truth_count > 0 ? &hits : &misses) += 1;
		for (int c = 0; c < CONFIG_COUNT; ++c)
		{
			int64_t ref_bv = -1;
			uint8_t* ref_map = NULL;
			for (int tr = KL_BVH_TRAVERSE_SCALAR; tr <= KL_BVH_TRAVERSE_NVN; ++tr)
			{
				// Candidates: every leaf pair with overlapping DOPs must include all true pairs.
				kl_bvh_result r = run_query(ta[c], tb[c], pose, KL_BVH_ALL_PAIRS, (kl_bvh_traversal)tr, margin, NULL, &s,
											pairs, cap);
				assert_false(r.truncated);
				assert_int_equal(r.counters.leaf_tests, r.pair_count);
				assert_true(r.counters.bv_tests >= 1);
				kl_bvh_traversal expect;
				kl_bvh_simd expect_simd;
				expected_kernels(ta[c], (kl_bvh_traversal)tr, &expect, &expect_simd);
				assert_int_equal(r.used, expect);
				assert_int_equal(r.simd, expect_simd);
				uint8_t* got = pair_map(pairs, r.pair_count, na, nb);
				for (size_t i = 0; i < (size_t)na * nb; ++i)
				{
					if (truth[i] && !got[i])
					{
						fail_msg("config %d traversal %d pose %d: true pair (%zu, %zu) missed", c, tr, p, i / nb, i % nb);
					}
				}
				// Same tree, same realignment arithmetic: every traversal sees the same candidates and counts.
				if (ref_map == NULL)
				{
					ref_map = got;
					ref_bv = r.counters.bv_tests;
				}
				else
				{
					assert_memory_equal(ref_map, got, (size_t)na * nb);
					assert_int_equal(ref_bv, r.counters.bv_tests);
					free(got);
				}
				// With the exact leaf test: exactly the truth, and first-hit agrees with brute force.
				kl_bvh_result e = run_query(ta[c], tb[c], pose, KL_BVH_ALL_PAIRS, (kl_bvh_traversal)tr, margin, exact, &s,
											pairs, cap);
				assert_int_equal(e.pair_count, truth_count);
				culled += e.counters.leaf_culled;
				assert_int_equal(e.counters.leaf_tests, r.pair_count);
				uint8_t* em = pair_map(pairs, e.pair_count, na, nb);
				assert_memory_equal(em, truth, (size_t)na * nb);
				free(em);
				kl_bvh_result f = run_query(ta[c], tb[c], pose, KL_BVH_FIRST_HIT, (kl_bvh_traversal)tr, margin, exact, &s,
											pairs, 1);
				assert_int_equal(f.hit, truth_count > 0);
				assert_int_equal(f.pair_count, truth_count > 0 ? 1 : 0);
				if (f.hit)
				{
					assert_true(truth[(size_t)pairs[0].tri_a * nb + pairs[0].tri_b]);
					assert_true(f.counters.leaf_tests <= e.counters.leaf_tests);
				}
				// A small output array truncates but still counts every pair.
				if (truth_count > 2)
				{
					kl_bvh_result t2 = run_query(ta[c], tb[c], pose, KL_BVH_ALL_PAIRS, (kl_bvh_traversal)tr, margin, exact,
												 &s, pairs, 2);
					assert_true(t2.truncated);
					assert_int_equal(t2.pair_count, truth_count);
				}
			}
			if (c == 0)
			{
				bv_binary += ref_bv;
			}
			if (c == 4)
			{
				bv_wide += ref_bv;
			}
			free(ref_map);
		}
		// The 3×4 matrix entry point agrees with the transform one.
		double R[3][3];
		quat_matrix(pose.q, R);
		float m34[12];
		for (int i = 0; i < 3; ++i)
		{
			for (int j = 0; j < 3; ++j)
			{
				m34[4 * i + j] = (float)R[i][j];
			}
		}
		m34[3] = pose.p.x, m34[7] = pose.p.y, m34[11] = pose.p.z;
		kl_bvh_query q = {KL_BVH_FIRST_HIT, KL_BVH_TRAVERSE_AUTO, margin, exact, &s, NULL, 0};
		kl_bvh_result rm;
		assert_int_equal(kl_bvh_collide_m34(ta[4], tb[4], m34, &q, &rm), KL_OK);
		assert_int_equal(rm.hit, truth_count > 0);
		free(truth);
		scene_free(&s);
	}
	// The poses cover both outcomes (so the first-hit checks above saw hits and misses), and the leaf
	// pretest did remove pairs (while every true pair above still reached the leaf test).
	assert_true(hits >= 2);
	assert_true(margin > 0.0f || misses >= 1);
	assert_true(culled > 0);
	print_message("margin %.3f: %d hit / %d miss poses; BV tests binary k32 %lld vs 8-ary BNG k46 %lld; "
				  "%lld leaf pairs culled by the pretest\n",
				  (double)margin, hits, misses, (long long)bv_binary, (long long)bv_wide, (long long)culled);
	free(pairs);
	for (int c = 0; c < CONFIG_COUNT; ++c)
	{
		kl_bvh_destroy(ta[c]);
		kl_bvh_destroy(tb[c]);
	}
	mesh_free(&ma);
	mesh_free(&mb);
}

static void test_traversal_overlap(void** state)
{
	(void)state;
	check_traversals(0.0f, 14);
}

static void test_traversal_margin(void** state)
{
	(void)state;
	check_traversals(0.06f, 6);
}

/// Touching configuration: a mesh against its own copy shifted so that one vertex pair coincides.
static void test_identity_and_far(void** state)
{
	(void)state;
	test_mesh m = make_sphere(8, 9, 1.0, 0.1, 0.05);
	kl_bvh* t = build(&m, 8, 26, KL_BVH_BUILD_BNG, false, 1);
	kl_bvh_query q = {0};
	q.mode = KL_BVH_FIRST_HIT;
	kl_bvh_result r;
	assert_int_equal(kl_bvh_collide(t, t, kl_transform_identity(), &q, &r), KL_OK);
	assert_true(r.hit);
	kl_transform far = kl_transform_identity();
	far.p = kl_vec3(10.0f, 0.0f, 0.0f);
	assert_int_equal(kl_bvh_collide(t, t, far, &q, &r), KL_OK);
	assert_false(r.hit);
	assert_int_equal(r.counters.bv_tests, 1); // culled at the roots
	assert_int_equal(r.counters.leaf_tests, 0);
	// Margin just short of / beyond the true gap between the sphere and a copy moved clear of it.
	double rmax = 0.0;
	for (int v = 0; v < m.vn; ++v)
	{
		double x = m.v[3 * v], y = m.v[3 * v + 1], z = m.v[3 * v + 2];
		rmax = fmax(rmax, sqrt(x * x + y * y + z * z));
	}
	far.p = kl_vec3((float)(2.0 * rmax + 0.05), 0.0f, 0.0f);
	scene s;
	scene_init(&s, &m, &m, far);
	double gap = INFINITY;
	for (int i = 0; i < m.tn; ++i)
	{
		for (int j = 0; j < m.tn; ++j)
		{
			gap = fmin(gap, tri_dist(s.ta[i], s.tb[j]));
		}
	}
	assert_true(gap >= 0.05 - 1e-6);
	q.leaf_test = margin_leaf;
	q.ctx = &s;
	s.margin = q.margin = (float)(gap * 0.98);
	assert_int_equal(kl_bvh_collide(t, t, far, &q, &r), KL_OK);
	assert_false(r.hit);
	s.margin = q.margin = (float)(gap * 1.02);
	assert_int_equal(kl_bvh_collide(t, t, far, &q, &r), KL_OK);
	assert_true(r.hit);
	scene_free(&s);
	kl_bvh_destroy(t);
	mesh_free(&m);
}

static double lanes_used(const kl_bvh* t)
{
	return (double)(t->node_count - 1 + t->triangle_count) / t->node_count;
}

/// Collapsing (and BNG's compact bottom groups) fill the wide nodes; the trees keep every invariant and
/// give the same exact answers as the uncollapsed ones.
static void test_collapse(void** state)
{
	(void)state;
	test_mesh ma = make_sphere(24, 30, 1.0, 0.1, 0.05);
	test_mesh mb = make_torus(20, 12, 0.7, 0.25, 0.1);
	double (*plo)[KL_KDOP_MAX_AXES] = malloc(sizeof(double) * 64 * KL_KDOP_MAX_AXES);
	double (*phi)[KL_KDOP_MAX_AXES] = malloc(sizeof(double) * 64 * KL_KDOP_MAX_AXES);
	static const int widths[3] = {4, 8, 16};
	int na = ma.tn, nb = mb.tn;
	kl_bvh_pair* pairs = malloc(sizeof(kl_bvh_pair) * (size_t)na * nb);
	for (int w = 0; w < 3; ++w)
	{
		kl_bvh* t[2][2];
		for (int on = 0; on < 2; ++on)
		{
			kl_bvh_build_def def = kl_bvh_default_build_def();
			def.width = widths[w];
			def.collapse = on == 1;
			t[on][0] = kl_bvh_build(ma.v, ma.vn, ma.idx, ma.tn, &def);
			t[on][1] = kl_bvh_build(mb.v, mb.vn, mb.idx, mb.tn, &def);
			assert_non_null(t[on][0]);
			assert_non_null(t[on][1]);
			check_tree(t[on][0], &ma);
			check_contains(t[on][0], &ma, 0, 0, plo, phi);
			check_tree(t[on][1], &mb);
		}
		print_message("width %2d: %.2f lanes used of %d collapsed (%d nodes, depth %d), %.2f without (%d nodes, depth %d)\n",
					  widths[w], lanes_used(t[1][0]), widths[w], t[1][0]->node_count, t[1][0]->depth, lanes_used(t[0][0]),
					  t[0][0]->node_count, t[0][0]->depth);
		assert_true(t[1][0]->node_count < t[0][0]->node_count);
		assert_true(lanes_used(t[1][0]) >= 0.7 * widths[w]);
		assert_true(t[1][0]->depth <= t[0][0]->depth);
		for (int p = 0; p < 4; ++p)
		{
			kl_transform pose = random_pose(0.6, 1.5);
			scene sc;
			scene_init(&sc, &ma, &mb, pose);
			int truth_count = 0;
			uint8_t* truth = truth_pairs(&sc, 0.0, &truth_count);
			for (int on = 0; on < 2; ++on)
			{
				kl_bvh_result r = run_query(t[on][0], t[on][1], pose, KL_BVH_ALL_PAIRS, KL_BVH_TRAVERSE_AUTO, 0.0f,
											exact_leaf, &sc, pairs, na * nb);
				assert_int_equal(r.pair_count, truth_count);
				uint8_t* got = pair_map(pairs, r.pair_count, na, nb);
				assert_memory_equal(got, truth, (size_t)na * nb);
				free(got);
			}
			free(truth);
			scene_free(&sc);
		}
		for (int on = 0; on < 2; ++on)
		{
			kl_bvh_destroy(t[on][0]);
			kl_bvh_destroy(t[on][1]);
		}
	}
	free(pairs);
	free(plo);
	free(phi);
	mesh_free(&ma);
	mesh_free(&mb);
}

/// B placed by a non-rigid affine map (scale and shear) through the 3×4 entry point: every traversal's
/// exact pairs equal brute force on the same map (the realignment and the leaf pretest take any
/// invertible matrix).
static void test_affine_pose(void** state)
{
	(void)state;
	test_mesh ma = make_sphere(10, 14, 1.0, 0.12, 0.08);
	test_mesh mb = make_torus(14, 10, 0.7, 0.25, 0.15);
	static const tree_config cfg[3] = {{2, 32, KL_BVH_BUILD_LONGEST_AXIS, false},
									   {8, 26, KL_BVH_BUILD_BNG, false},
									   {16, 46, KL_BVH_BUILD_BNG, true}};
	int na = ma.tn, nb = mb.tn;
	kl_bvh_pair* pairs = malloc(sizeof(kl_bvh_pair) * (size_t)na * nb);
	int hits = 0;
	for (int c = 0; c < 3; ++c)
	{
		kl_bvh* ta = build(&ma, cfg[c].width, cfg[c].k, cfg[c].builder, cfg[c].fp16, 3);
		kl_bvh* tb = build(&mb, cfg[c].width, cfg[c].k, cfg[c].builder, cfg[c].fp16, 5);
		for (int p = 0; p < 6; ++p)
		{
			kl_transform pose = random_pose(0.5, 1.4);
			double R[3][3];
			quat_matrix(pose.q, R);
			double S[3][3] = {{1.3, 0.2, 0.0}, {0.0, 0.8, -0.15}, {0.1, 0.0, 1.1}};
			float m34[12];
			scene sc;
			sc.a = &ma;
			sc.b = &mb;
			sc.ta = malloc(sizeof(*sc.ta) * (size_t)na);
			sc.tb = malloc(sizeof(*sc.tb) * (size_t)nb);
			sc.margin = 0.0;
			double M[3][3];
			for (int i = 0; i < 3; ++i)
			{
				for (int j = 0; j < 3; ++j)
				{
					double v = R[i][0] * S[0][j] + R[i][1] * S[1][j] + R[i][2] * S[2][j];
					m34[4 * i + j] = (float)v;
					M[i][j] = m34[4 * i + j];
				}
			}
			m34[3] = pose.p.x, m34[7] = pose.p.y, m34[11] = pose.p.z;
			for (int t = 0; t < na; ++t)
			{
				for (int j = 0; j < 3; ++j)
				{
					for (int k = 0; k < 3; ++k)
					{
						sc.ta[t][j][k] = ma.v[3 * ma.idx[3 * t + j] + k];
					}
				}
			}
			for (int t = 0; t < nb; ++t)
			{
				for (int j = 0; j < 3; ++j)
				{
					const float* v = mb.v + 3 * mb.idx[3 * t + j];
					for (int k = 0; k < 3; ++k)
					{
						sc.tb[t][j][k] = M[k][0] * v[0] + M[k][1] * v[1] + M[k][2] * v[2] + m34[4 * k + 3];
					}
				}
			}
			int truth_count = 0;
			uint8_t* truth = truth_pairs(&sc, 0.0, &truth_count);
			hits += truth_count > 0 ? 1 : 0;
			for (int tr = KL_BVH_TRAVERSE_SCALAR; tr <= KL_BVH_TRAVERSE_NVN; ++tr)
			{
				kl_bvh_query q = {KL_BVH_ALL_PAIRS, (kl_bvh_traversal)tr, 0.0f, exact_leaf, &sc, pairs, na * nb};
				kl_bvh_result r;
				assert_int_equal(kl_bvh_collide_m34(ta, tb, m34, &q, &r), KL_OK);
				assert_int_equal(r.pair_count, truth_count);
				uint8_t* got = pair_map(pairs, r.pair_count, na, nb);
				assert_memory_equal(got, truth, (size_t)na * nb);
				free(got);
			}
			free(truth);
			scene_free(&sc);
		}
		kl_bvh_destroy(ta);
		kl_bvh_destroy(tb);
	}
	assert_true(hits >= 3);
	free(pairs);
	mesh_free(&ma);
	mesh_free(&mb);
}

/// A leaf test that itself runs a query (far apart: culled at the roots) before the exact test.
typedef struct nested_ctx
{
	scene* s;
	const kl_bvh* t;
	int inner_queries;
	bool inner_wrong;
} nested_ctx;

static bool nested_leaf(int ta, int tb, void* ctx)
{
	nested_ctx* n = ctx;
	kl_transform far = kl_transform_identity();
	far.p = kl_vec3(50.0f, 0.0f, 0.0f);
	kl_bvh_query q = {KL_BVH_ALL_PAIRS, KL_BVH_TRAVERSE_1VN, 0.0f, NULL, NULL, NULL, 0};
	kl_bvh_result r;
	n->inner_wrong |= kl_bvh_collide(n->t, n->t, far, &q, &r) != KL_OK || r.hit || r.counters.bv_tests != 1;
	n->inner_queries += 1;
	return exact_leaf(ta, tb, n->s);
}

typedef struct thread_job
{
	const kl_bvh* a;
	const kl_bvh* b;
	const kl_transform* poses;
	scene* scenes;
	int count;
	int* pair_counts;
	int64_t* bv_tests;
} thread_job;

static void* thread_run(void* arg)
{
	thread_job* j = arg;
	for (int rep = 0; rep < 3; ++rep)
	{
		for (int p = 0; p < j->count; ++p)
		{
			kl_bvh_query q = {KL_BVH_ALL_PAIRS, KL_BVH_TRAVERSE_AUTO, 0.0f, exact_leaf, &j->scenes[p], NULL, 0};
			kl_bvh_result r;
			kl_bvh_collide(j->a, j->b, j->poses[p], &q, &r);
			j->pair_counts[p] = r.pair_count;
			j->bv_tests[p] = r.counters.bv_tests;
		}
	}
	return NULL;
}

/// The per-thread realignment cache: a query from inside a leaf test, and two threads querying the same
/// trees at once, give the single-threaded answers.
static void test_nested_and_threads(void** state)
{
	(void)state;
	test_mesh ma = make_sphere(10, 14, 1.0, 0.12, 0.08);
	test_mesh mb = make_torus(14, 10, 0.7, 0.25, 0.15);
	kl_bvh* ta = build(&ma, 8, 26, KL_BVH_BUILD_BNG, false, 3);
	kl_bvh* tb = build(&mb, 8, 26, KL_BVH_BUILD_BNG, false, 5);
	enum
	{
		POSES = 12
	};
	kl_transform poses[POSES];
	scene scenes[POSES];
	int ref_pairs[POSES];
	int64_t ref_bv[POSES];
	int total = 0;
	for (int p = 0; p < POSES; ++p)
	{
		poses[p] = random_pose(0.6, 1.6);
		scene_init(&scenes[p], &ma, &mb, poses[p]);
		kl_bvh_result r = run_query(ta, tb, poses[p], KL_BVH_ALL_PAIRS, KL_BVH_TRAVERSE_AUTO, 0.0f, exact_leaf,
									&scenes[p], NULL, 0);
		ref_pairs[p] = r.pair_count;
		ref_bv[p] = r.counters.bv_tests;
		total += r.pair_count;
		nested_ctx n = {&scenes[p], tb, 0, false};
		kl_bvh_result rn = run_query(ta, tb, poses[p], KL_BVH_ALL_PAIRS, KL_BVH_TRAVERSE_AUTO, 0.0f, nested_leaf, &n,
									 NULL, 0);
		assert_false(n.inner_wrong);
		assert_int_equal(n.inner_queries, rn.counters.leaf_tests);
		assert_int_equal(rn.pair_count, r.pair_count);
		assert_int_equal(rn.counters.bv_tests, r.counters.bv_tests);
	}
	assert_true(total > 0);
	int counts[2][POSES];
	int64_t bv[2][POSES];
	thread_job jobs[2];
	pthread_t th[2];
	for (int i = 0; i < 2; ++i)
	{
		jobs[i] = (thread_job){ta, tb, poses, scenes, POSES, counts[i], bv[i]};
		assert_int_equal(pthread_create(&th[i], NULL, thread_run, &jobs[i]), 0);
	}
	for (int i = 0; i < 2; ++i)
	{
		pthread_join(th[i], NULL);
		for (int p = 0; p < POSES; ++p)
		{
			assert_int_equal(counts[i][p], ref_pairs[p]);
			assert_int_equal(bv[i][p], ref_bv[p]);
		}
	}
	for (int p = 0; p < POSES; ++p)
	{
		scene_free(&scenes[p]);
	}
	kl_bvh_destroy(ta);
	kl_bvh_destroy(tb);
	mesh_free(&ma);
	mesh_free(&mb);
}

/// kl_cpu_has_f16c (CPUID) says what the kernel says of the CPU: the "f16c" flag of /proc/cpuinfo.
static void test_f16c_detection(void** state)
{
	(void)state;
#if defined(__x86_64__) || defined(__i386__)
	FILE* f = fopen("/proc/cpuinfo", "r");
	assert_non_null(f);
	char line[8192];
	bool flags = false, f16c = false;
	while (!flags && fgets(line, sizeof(line), f) != NULL)
	{
		if (strncmp(line, "flags", 5) == 0)
		{
			flags = true;
			f16c = strstr(line, " f16c ") != NULL || strstr(line, " f16c\n") != NULL;
		}
	}
	fclose(f);
	assert_true(flags);
	printf("f16c: %s\n", f16c ? "yes" : "no");
	assert_int_equal(kl_cpu_has_f16c(), f16c);
#else
	assert_false(kl_cpu_has_f16c());
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_f16c_detection),
		cmocka_unit_test(test_dop_contains_points), cmocka_unit_test(test_half_rounding),
		cmocka_unit_test(test_realign_conservative), cmocka_unit_test(test_builders),
		cmocka_unit_test(test_bng_deterministic),	cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_traversal_overlap),	cmocka_unit_test(test_traversal_margin),
		cmocka_unit_test(test_identity_and_far),	cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_affine_pose),			cmocka_unit_test(test_nested_and_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
