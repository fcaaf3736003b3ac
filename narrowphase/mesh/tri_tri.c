// Kollide — exact triangle–triangle overlap (Guigue–Devillers on exact predicates), triangle
// distance with closest points, and the intersection segment of two crossing triangles.
// SPDX-License-Identifier: MIT
#include "tri_tri.h"

#include "dvec3.h"

#include <float.h>
#include <math.h>

// Robustness. Every decision of the overlap test is the sign of an orientation determinant. The
// inputs are floats, so a double evaluation is almost always enough, and Shewchuk's error bound
// says when it is. When it is not, the determinant is expanded into products of three input
// coordinates: a product of two floats is exact in double, and Dekker's two-product splits the
// third factor's product into an exact pair, so the determinant becomes a sum of 48 doubles that
// an expansion (Shewchuk's grow-expansion with zero elimination) sums without error. The test is
// therefore exact for every finite input, including touching and coplanar pairs, and needs no
// tolerance. Distances and intersection points are metric answers and use plain double.

// ---------------------------------------------------------------------------------------------
// Exact arithmetic

static inline void kl_two_sum(double a, double b, double* sum, double* err)
{
	double s = a + b;
	double bv = s - a;
	double av = s - bv;
	*err = (a - av) + (b - bv);
	*sum = s;
}

static inline void kl_split(double a, double* hi, double* lo)
{
	double c = 134217729.0 * a; // 2^27 + 1
	double big = c - a;
	*hi = c - big;
	*lo = a - *hi;
}

static inline void kl_two_product(double a, double b, double* product, double* err)
{
	double p = a * b;
	double ahi, alo, bhi, blo;
	kl_split(a, &ahi, &alo);
	kl_split(b, &bhi, &blo);
	double e1 = p - ahi * bhi;
	double e2 = e1 - alo * bhi;
	double e3 = e2 - ahi * blo;
	*err = alo * blo - e3;
	*product = p;
}

/// Adds b to the nonoverlapping expansion e (n components, increasing magnitude), dropping zeros.
static int kl_grow(double* e, int n, double b)
{
	double q = b;
	int m = 0;
	for (int i = 0; i < n; ++i)
	{
		double h;
		kl_two_sum(q, e[i], &q, &h);
		if (h != 0.0)
		{
			e[m++] = h;
		}
	}
	if (q != 0.0)
	{
		e[m++] = q;
	}
	return m;
}

static inline int kl_expansion_sign(const double* e, int n)
{
	return n == 0 ? 0 : (e[n - 1] > 0.0 ? 1 : -1);
}

/// Adds sign * x * y * z exactly (x, y, z floats).
static int kl_add_triple(double* e, int n, float x, float y, float z, double sign)
{
	double p = (double)x * (double)y; // 48 significant bits: exact
	double hi, lo;
	kl_two_product(p, sign * (double)z, &hi, &lo);
	n = kl_grow(e, n, lo);
	return kl_grow(e, n, hi);
}

/// Adds sign * det(rows p, q, r) exactly.
static int kl_add_det3(double* e, int n, vec3s p, vec3s q, vec3s r, double sign)
{
	n = kl_add_triple(e, n, p.x, q.y, r.z, sign);
	n = kl_add_triple(e, n, p.x, q.z, r.y, -sign);
	n = kl_add_triple(e, n, p.y, q.x, r.z, -sign);
	n = kl_add_triple(e, n, p.y, q.z, r.x, sign);
	n = kl_add_triple(e, n, p.z, q.x, r.y, sign);
	return kl_add_triple(e, n, p.z, q.y, r.x, -sign);
}

/// det(b - a, c - a, d - a) = -det4([a 1; b 1; c 1; d 1]) = |bcd| - |acd| + |abd| - |abc|.
static int kl_orient3d_exact(vec3s a, vec3s b, vec3s c, vec3s d)
{
	double e[64];
	int n = 0;
	n = kl_add_det3(e, n, b, c, d, 1.0);
	n = kl_add_det3(e, n, a, c, d, -1.0);
	n = kl_add_det3(e, n, a, b, d, 1.0);
	n = kl_add_det3(e, n, a, b, c, -1.0);
	return kl_expansion_sign(e, n);
}

int kl_orient3d(vec3s a, vec3s b, vec3s c, vec3s d)
{
	double ux = (double)b.x - a.x, uy = (double)b.y - a.y, uz = (double)b.z - a.z;
	double vx = (double)c.x - a.x, vy = (double)c.y - a.y, vz = (double)c.z - a.z;
	double wx = (double)d.x - a.x, wy = (double)d.y - a.y, wz = (double)d.z - a.z;
	double m1 = vy * wz, m2 = vz * wy;
	double m3 = vz * wx, m4 = vx * wz;
	double m5 = vx * wy, m6 = vy * wx;
	double det = ux * (m1 - m2) + uy * (m3 - m4) + uz * (m5 - m6);
	double permanent = fabs(ux) * (fabs(m1) + fabs(m2)) + fabs(uy) * (fabs(m3) + fabs(m4)) +
					   fabs(uz) * (fabs(m5) + fabs(m6));
	double bound = 7.7715611723761027e-16 * permanent; // Shewchuk's o3derrboundA, (7 + 56 eps) eps
	if (det > bound)
	{
		return 1;
	}
	if (-det > bound)
	{
		return -1;
	}
	return kl_orient3d_exact(a, b, c, d);
}

/// A point of a triangle's plane seen along one coordinate axis (the other two, in cyclic order).
typedef struct kl_p2
{
	float u, v;
} kl_p2;

static inline kl_p2 kl_project(vec3s p, int axis)
{
	kl_p2 r;
	r.u = p.raw[(axis + 1) % 3];
	r.v = p.raw[(axis + 2) % 3];
	return r;
}

/// Exact sign of (b - a) × (c - a) in 2D.
static int kl_orient2d(kl_p2 a, kl_p2 b, kl_p2 c)
{
	double left = ((double)b.u - a.u) * ((double)c.v - a.v);
	double right = ((double)b.v - a.v) * ((double)c.u - a.u);
	double det = left - right;
	double bound = 3.3306690738754716e-16 * (fabs(left) + fabs(right)); // ccwerrboundA
	if (det > bound)
	{
		return 1;
	}
	if (-det > bound)
	{
		return -1;
	}
	// bu cv - bu av - au cv - bv cu + bv au + av cu, each product of two floats exact in double.
	double e[8];
	int n = 0;
	n = kl_grow(e, n, (double)b.u * c.v);
	n = kl_grow(e, n, -(double)b.u * a.v);
	n = kl_grow(e, n, -(double)a.u * c.v);
	n = kl_grow(e, n, -(double)b.v * c.u);
	n = kl_grow(e, n, (double)b.v * a.u);
	n = kl_grow(e, n, (double)a.v * c.u);
	return kl_expansion_sign(e, n);
}

// ---------------------------------------------------------------------------------------------
// Reference path: segments against triangles, exact, any degeneracy

/// Exact: the triangle has no area (all three projections of its normal vanish).
static bool kl_tri_is_degenerate(vec3s a, vec3s b, vec3s c)
{
	for (int axis = 0; axis < 3; ++axis)
	{
		if (kl_orient2d(kl_project(a, axis), kl_project(b, axis), kl_project(c, axis)) != 0)
		{
			return false;
		}
	}
	return true;
}

/// The axis along which the triangle's normal is largest (its projection keeps the most area).
static int kl_dominant_axis(vec3s a, vec3s b, vec3s c)
{
	double ux = (double)b.x - a.x, uy = (double)b.y - a.y, uz = (double)b.z - a.z;
	double vx = (double)c.x - a.x, vy = (double)c.y - a.y, vz = (double)c.z - a.z;
	double nx = fabs(uy * vz - uz * vy), ny = fabs(uz * vx - ux * vz), nz = fabs(ux * vy - uy * vx);
	if (nx >= ny && nx >= nz)
	{
		return 0;
	}
	return ny >= nz ? 1 : 2;
}

/// Collinear x on the closed segment pq: inside its bounding box.
static inline bool kl_on_segment2(kl_p2 p, kl_p2 q, kl_p2 x)
{
	return fminf(p.u, q.u) <= x.u && x.u <= fmaxf(p.u, q.u) && fminf(p.v, q.v) <= x.v && x.v <= fmaxf(p.v, q.v);
}

static inline bool kl_opposite(int s, int t)
{
	return (s > 0 && t < 0) || (s < 0 && t > 0);
}

/// Closed 2D segments pq and rs meet (either may be a point).
static bool kl_segment_segment2(kl_p2 p, kl_p2 q, kl_p2 r, kl_p2 s)
{
	int o1 = kl_orient2d(p, q, r);
	int o2 = kl_orient2d(p, q, s);
	int o3 = kl_orient2d(r, s, p);
	int o4 = kl_orient2d(r, s, q);
	if (kl_opposite(o1, o2) && kl_opposite(o3, o4))
	{
		return true;
	}
	return (o1 == 0 && kl_on_segment2(p, q, r)) || (o2 == 0 && kl_on_segment2(p, q, s)) ||
		   (o3 == 0 && kl_on_segment2(r, s, p)) || (o4 == 0 && kl_on_segment2(r, s, q));
}

/// Closed 3D segments meet: coplanar, and their shadows meet on all three coordinate planes (at
/// least one of which sees their common plane without collapsing it).
static bool kl_segment_segment3(vec3s p, vec3s q, vec3s r, vec3s s)
{
	if (kl_orient3d(p, q, r, s) != 0)
	{
		return false;
	}
	for (int axis = 0; axis < 3; ++axis)
	{
		if (!kl_segment_segment2(kl_project(p, axis), kl_project(q, axis), kl_project(r, axis), kl_project(s, axis)))
		{
			return false;
		}
	}
	return true;
}

/// x in the closed, non-degenerate 2D triangle abc (either winding).
static bool kl_point_in_triangle2(kl_p2 x, kl_p2 a, kl_p2 b, kl_p2 c)
{
	int s1 = kl_orient2d(a, b, x);
	int s2 = kl_orient2d(b, c, x);
	int s3 = kl_orient2d(c, a, x);
	bool pos = s1 > 0 || s2 > 0 || s3 > 0;
	bool neg = s1 < 0 || s2 < 0 || s3 < 0;
	return !(pos && neg);
}

bool kl_segment_triangle_overlap(vec3s p, vec3s q, vec3s a, vec3s b, vec3s c)
{
	if (kl_tri_is_degenerate(a, b, c))
	{
		return kl_segment_segment3(p, q, a, b) || kl_segment_segment3(p, q, b, c) || kl_segment_segment3(p, q, c, a);
	}
	int sp = kl_orient3d(a, b, c, p);
	int sq = kl_orient3d(a, b, c, q);
	if (sp * sq > 0)
	{
		return false;
	}
	if (sp == 0 && sq == 0)
	{
		int axis = kl_dominant_axis(a, b, c);
		kl_p2 p2 = kl_project(p, axis), q2 = kl_project(q, axis);
		kl_p2 a2 = kl_project(a, axis), b2 = kl_project(b, axis), c2 = kl_project(c, axis);
		return kl_point_in_triangle2(p2, a2, b2, c2) || kl_point_in_triangle2(q2, a2, b2, c2) ||
			   kl_segment_segment2(p2, q2, a2, b2) || kl_segment_segment2(p2, q2, b2, c2) ||
			   kl_segment_segment2(p2, q2, c2, a2);
	}
	// The segment reaches the plane; its line passes through the closed triangle when it turns
	// the same way (or not at all) around all three edges.
	int s1 = kl_orient3d(p, q, a, b);
	int s2 = kl_orient3d(p, q, b, c);
	int s3 = kl_orient3d(p, q, c, a);
	bool pos = s1 > 0 || s2 > 0 || s3 > 0;
	bool neg = s1 < 0 || s2 < 0 || s3 < 0;
	return !(pos && neg);
}

/// Two closed triangles meet iff an edge of one meets the other: the intersection is convex and
/// its extreme points lie on edges. Complete for coplanar and degenerate triangles too.
static bool kl_tri_tri_overlap_edges(const vec3s a[3], const vec3s b[3])
{
	for (int k = 0; k < 3; ++k)
	{
		if (kl_segment_triangle_overlap(a[k], a[(k + 1) % 3], b[0], b[1], b[2]))
		{
			return true;
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		if (kl_segment_triangle_overlap(b[k], b[(k + 1) % 3], a[0], a[1], a[2]))
		{
			return true;
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------
// Guigue–Devillers (2003), with exact orientation signs

/// The two intervals on the line of the planes overlap (p1 and p2 alone on their sides, the
/// triangles permuted so that both see the other's vertices the same way round).
static bool kl_check_min_max(vec3s p1, vec3s q1, vec3s r1, vec3s p2, vec3s q2, vec3s r2)
{
	if (kl_orient3d(q1, p2, p1, q2) > 0)
	{
		return false;
	}
	return kl_orient3d(p1, p2, r1, r2) <= 0;
}

/// Permutes triangle 2 so that p2 is alone on its side of the plane of triangle 1.
static bool kl_gd_3d(vec3s p1, vec3s q1, vec3s r1, vec3s p2, vec3s q2, vec3s r2, int dp2, int dq2, int dr2)
{
	if (dp2 > 0)
	{
		if (dq2 > 0)
		{
			return kl_check_min_max(p1, r1, q1, r2, p2, q2);
		}
		if (dr2 > 0)
		{
			return kl_check_min_max(p1, r1, q1, q2, r2, p2);
		}
		return kl_check_min_max(p1, q1, r1, p2, q2, r2);
	}
	if (dp2 < 0)
	{
		if (dq2 < 0)
		{
			return kl_check_min_max(p1, q1, r1, r2, p2, q2);
		}
		if (dr2 < 0)
		{
			return kl_check_min_max(p1, q1, r1, q2, r2, p2);
		}
		return kl_check_min_max(p1, r1, q1, p2, q2, r2);
	}
	if (dq2 < 0)
	{
		if (dr2 >= 0)
		{
			return kl_check_min_max(p1, r1, q1, q2, r2, p2);
		}
		return kl_check_min_max(p1, q1, r1, p2, q2, r2);
	}
	if (dq2 > 0)
	{
		if (dr2 > 0)
		{
			return kl_check_min_max(p1, r1, q1, p2, q2, r2);
		}
		return kl_check_min_max(p1, q1, r1, q2, r2, p2);
	}
	if (dr2 > 0)
	{
		return kl_check_min_max(p1, q1, r1, r2, p2, q2);
	}
	return kl_check_min_max(p1, r1, q1, r2, p2, q2); // dr2 < 0: all-zero is routed away earlier
}

bool kl_tri_tri_overlap(const vec3s a[3], const vec3s b[3])
{
	vec3s p1 = a[0], q1 = a[1], r1 = a[2];
	vec3s p2 = b[0], q2 = b[1], r2 = b[2];
	int dp1 = kl_orient3d(p2, q2, r2, p1);
	int dq1 = kl_orient3d(p2, q2, r2, q1);
	int dr1 = kl_orient3d(p2, q2, r2, r1);
	if (dp1 * dq1 > 0 && dp1 * dr1 > 0)
	{
		return false;
	}
	int dp2 = kl_orient3d(p1, q1, r1, p2);
	int dq2 = kl_orient3d(p1, q1, r1, q2);
	int dr2 = kl_orient3d(p1, q1, r1, r2);
	if (dp2 * dq2 > 0 && dp2 * dr2 > 0)
	{
		return false;
	}
	// All zero on one side: the triangles are coplanar, or one has no plane (degenerate).
	if ((dp1 == 0 && dq1 == 0 && dr1 == 0) || (dp2 == 0 && dq2 == 0 && dr2 == 0))
	{
		return kl_tri_tri_overlap_edges(a, b);
	}
	// Permute triangle 1 so that p1 is alone on its side of the plane of triangle 2.
	if (dp1 > 0)
	{
		if (dq1 > 0)
		{
			return kl_gd_3d(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2);
		}
		if (dr1 > 0)
		{
			return kl_gd_3d(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2);
		}
		return kl_gd_3d(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2);
	}
	if (dp1 < 0)
	{
		if (dq1 < 0)
		{
			return kl_gd_3d(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2);
		}
		if (dr1 < 0)
		{
			return kl_gd_3d(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2);
		}
		return kl_gd_3d(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2);
	}
	if (dq1 < 0)
	{
		if (dr1 >= 0)
		{
			return kl_gd_3d(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2);
		}
		return kl_gd_3d(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2);
	}
	if (dq1 > 0)
	{
		if (dr1 > 0)
		{
			return kl_gd_3d(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2);
		}
		return kl_gd_3d(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2);
	}
	if (dr1 > 0)
	{
		return kl_gd_3d(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2);
	}
	return kl_gd_3d(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2);
}

// ---------------------------------------------------------------------------------------------
// Distance, in double around a local origin

static inline double kl_clamp01(double x)
{
	return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

/// Closest points of segments p1q1 and p2q2 (Ericson 5.1.9): parameters s on the first, t on
/// the second. Parallel segments take s = 0 (deterministic).
static void kl_closest_segments(kl_d3 p1, kl_d3 q1, kl_d3 p2, kl_d3 q2, double* s_out, double* t_out)
{
	const double tiny = 1e-30;
	kl_d3 d1 = kl_d3_sub(q1, p1), d2 = kl_d3_sub(q2, p2), r = kl_d3_sub(p1, p2);
	double a = kl_d3_dot(d1, d1), e = kl_d3_dot(d2, d2), f = kl_d3_dot(d2, r);
	double s = 0.0, t = 0.0;
	if (a <= tiny && e <= tiny)
	{
		// both points
	}
	else if (a <= tiny)
	{
		t = kl_clamp01(f / e);
	}
	else
	{
		double c = kl_d3_dot(d1, r);
		if (e <= tiny)
		{
			s = kl_clamp01(-c / a);
		}
		else
		{
			double b = kl_d3_dot(d1, d2);
			double denom = a * e - b * b;
			s = denom > 1e-14 * a * e ? kl_clamp01((b * f - c * e) / denom) : 0.0;
			t = (b * s + f) / e;
			if (t < 0.0)
			{
				t = 0.0;
				s = kl_clamp01(-c / a);
			}
			else if (t > 1.0)
			{
				t = 1.0;
				s = kl_clamp01((b - c) / a);
			}
		}
	}
	*s_out = s;
	*t_out = t;
}

static inline uint8_t kl_edge_feature(int edge, double s)
{
	if (s <= 0.0)
	{
		return (uint8_t)(KL_TRI_VERTEX0 + edge);
	}
	if (s >= 1.0)
	{
		return (uint8_t)(KL_TRI_VERTEX0 + (edge + 1) % 3);
	}
	return (uint8_t)(KL_TRI_EDGE0 + edge);
}

/// Near-degenerate in double: sin of the corner angle below 1e-7, or a zero-length edge. Such a
/// triangle's face is within 1e-7 of its edges, which the edge–edge tests cover.
static bool kl_d3_tri_flat(const kl_d3 t[3])
{
	kl_d3 u = kl_d3_sub(t[1], t[0]), v = kl_d3_sub(t[2], t[0]);
	kl_d3 n = kl_d3_cross(u, v);
	return kl_d3_dot(n, n) <= 1e-14 * kl_d3_dot(u, u) * kl_d3_dot(v, v);
}

typedef struct kl_closest
{
	double d2;
	kl_d3 pa, pb;
	uint8_t fa, fb;
} kl_closest;

static inline void kl_closest_offer(kl_closest* best, kl_d3 pa, kl_d3 pb, uint8_t fa, uint8_t fb)
{
	kl_d3 d = kl_d3_sub(pb, pa);
	double d2 = kl_d3_dot(d, d);
	if (d2 < best->d2)
	{
		best->d2 = d2;
		best->pa = pa;
		best->pb = pb;
		best->fa = fa;
		best->fb = fb;
	}
}

/// Where the edges of x cross the plane of the (non-flat) triangle y, as candidates: only needed
/// for overlapping triangles, where an edge may pierce the other's face far from its edges.
static void kl_offer_piercings(kl_closest* best, const kl_d3 x[3], const kl_d3 y[3], bool x_is_a)
{
	kl_d3 n = kl_d3_cross(kl_d3_sub(y[1], y[0]), kl_d3_sub(y[2], y[0]));
	double d[3];
	for (int k = 0; k < 3; ++k)
	{
		d[k] = kl_d3_dot(n, kl_d3_sub(x[k], y[0]));
	}
	for (int k = 0; k < 3; ++k)
	{
		int l = (k + 1) % 3;
		if ((d[k] < 0.0 && d[l] > 0.0) || (d[k] > 0.0 && d[l] < 0.0))
		{
			kl_d3 p = kl_d3_add(x[k], kl_d3_scale(kl_d3_sub(x[l], x[k]), d[k] / (d[k] - d[l])));
			uint8_t fy;
			kl_d3 q = kl_closest_on_triangle_d(p, y[0], y[1], y[2], &fy);
			uint8_t fx = (uint8_t)(KL_TRI_EDGE0 + k);
			if (x_is_a)
			{
				kl_closest_offer(best, p, q, fx, fy);
			}
			else
			{
				kl_closest_offer(best, q, p, fy, fx);
			}
		}
	}
}

static kl_tri_distance kl_tri_distance_of(const vec3s a[3], const vec3s b[3], bool known_apart);

kl_tri_distance kl_tri_tri_distance(const vec3s a[3], const vec3s b[3])
{
	return kl_tri_distance_of(a, b, false);
}

kl_tri_distance kl_tri_tri_distance_apart(const vec3s a[3], const vec3s b[3])
{
	return kl_tri_distance_of(a, b, true);
}

static kl_tri_distance kl_tri_distance_of(const vec3s a[3], const vec3s b[3], bool known_apart)
{
	vec3s origin = a[0];
	kl_d3 A[3], B[3];
	for (int k = 0; k < 3; ++k)
	{
		A[k] = kl_d3_rel(a[k], origin);
		B[k] = kl_d3_rel(b[k], origin);
	}
	bool flat_a = kl_d3_tri_flat(A);
	bool flat_b = kl_d3_tri_flat(B);
	kl_closest best = {DBL_MAX, {0, 0, 0}, {0, 0, 0}, KL_TRI_FACE, KL_TRI_FACE};

	// Vertex–face first: on ties (parallel faces) the vertex of a face pair is the better witness.
	if (!flat_a)
	{
		for (int k = 0; k < 3; ++k)
		{
			uint8_t fa;
			kl_d3 q = kl_closest_on_triangle_d(B[k], A[0], A[1], A[2], &fa);
			kl_closest_offer(&best, q, B[k], fa, (uint8_t)(KL_TRI_VERTEX0 + k));
		}
	}
	if (!flat_b)
	{
		for (int k = 0; k < 3; ++k)
		{
			uint8_t fb;
			kl_d3 q = kl_closest_on_triangle_d(A[k], B[0], B[1], B[2], &fb);
			kl_closest_offer(&best, A[k], q, (uint8_t)(KL_TRI_VERTEX0 + k), fb);
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			double s, t;
			kl_d3 p1 = A[i], q1 = A[(i + 1) % 3], p2 = B[j], q2 = B[(j + 1) % 3];
			kl_closest_segments(p1, q1, p2, q2, &s, &t);
			kl_d3 pa = kl_d3_add(p1, kl_d3_scale(kl_d3_sub(q1, p1), s));
			kl_d3 pb = kl_d3_add(p2, kl_d3_scale(kl_d3_sub(q2, p2), t));
			kl_closest_offer(&best, pa, pb, kl_edge_feature(i, s), kl_edge_feature(j, t));
		}
	}

	kl_tri_distance result;
	result.overlap = !known_apart && kl_tri_tri_overlap(a, b);
	if (result.overlap)
	{
		if (!flat_b)
		{
			kl_offer_piercings(&best, A, B, true);
		}
		if (!flat_a)
		{
			kl_offer_piercings(&best, B, A, false);
		}
		kl_d3 mid = kl_d3_scale(kl_d3_add(best.pa, best.pb), 0.5);
		result.distance = 0.0f;
		result.point_a = kl_d3_world(mid, origin);
		result.point_b = result.point_a;
	}
	else
	{
		result.distance = (float)sqrt(best.d2);
		result.point_a = kl_d3_world(best.pa, origin);
		result.point_b = kl_d3_world(best.pb, origin);
	}
	result.feature_a = best.fa;
	result.feature_b = best.fb;
	return result;
}

// ---------------------------------------------------------------------------------------------
// Intersection segment

/// The points where triangle x meets the plane (n, o), as an interval along dir: its two ends
/// with the features of x they lie on. Returns false when x does not reach the plane.
static bool kl_plane_interval(const kl_d3 x[3], kl_d3 n, kl_d3 o, kl_d3 dir, double t[2], kl_d3 p[2],
							  uint8_t f[2])
{
	double d[3];
	for (int k = 0; k < 3; ++k)
	{
		d[k] = kl_d3_dot(n, kl_d3_sub(x[k], o));
	}
	int count = 0;
	for (int k = 0; k < 3; ++k)
	{
		kl_d3 q;
		uint8_t feature;
		int l = (k + 1) % 3;
		if (d[k] == 0.0)
		{
			q = x[k];
			feature = (uint8_t)(KL_TRI_VERTEX0 + k);
		}
		else if ((d[k] < 0.0 && d[l] > 0.0) || (d[k] > 0.0 && d[l] < 0.0))
		{
			q = kl_d3_add(x[k], kl_d3_scale(kl_d3_sub(x[l], x[k]), d[k] / (d[k] - d[l])));
			feature = (uint8_t)(KL_TRI_EDGE0 + k);
		}
		else
		{
			continue;
		}
		double s = kl_d3_dot(dir, q);
		if (count == 0)
		{
			t[0] = t[1] = s;
			p[0] = p[1] = q;
			f[0] = f[1] = feature;
		}
		else if (s < t[0])
		{
			t[0] = s;
			p[0] = q;
			f[0] = feature;
		}
		else if (s > t[1])
		{
			t[1] = s;
			p[1] = q;
			f[1] = feature;
		}
		++count;
	}
	return count > 0;
}

bool kl_tri_tri_intersection_segment(const vec3s a[3], const vec3s b[3], vec3s ends[2], uint8_t features_a[2],
									 uint8_t features_b[2])
{
	if (!kl_tri_tri_overlap(a, b))
	{
		return false;
	}
	vec3s origin = a[0];
	kl_d3 A[3], B[3];
	for (int k = 0; k < 3; ++k)
	{
		A[k] = kl_d3_rel(a[k], origin);
		B[k] = kl_d3_rel(b[k], origin);
	}
	kl_d3 na = kl_d3_cross(kl_d3_sub(A[1], A[0]), kl_d3_sub(A[2], A[0]));
	kl_d3 nb = kl_d3_cross(kl_d3_sub(B[1], B[0]), kl_d3_sub(B[2], B[0]));
	kl_d3 dir = kl_d3_cross(na, nb);
	if (!(kl_d3_dot(dir, dir) > 1e-20 * kl_d3_dot(na, na) * kl_d3_dot(nb, nb)))
	{
		return false; // coplanar, parallel or degenerate: no single crossing line
	}
	double ta[2], tb[2];
	kl_d3 pa[2], pb[2];
	uint8_t fa[2], fb[2];
	if (!kl_plane_interval(A, nb, B[0], dir, ta, pa, fa) || !kl_plane_interval(B, na, A[0], dir, tb, pb, fb))
	{
		return false;
	}
	// Start: the later of the two starts lies on that triangle's boundary and inside the other.
	kl_d3 p0, p1;
	if (ta[0] >= tb[0])
	{
		p0 = pa[0];
		features_a[0] = fa[0];
		features_b[0] = KL_TRI_FACE;
	}
	else
	{
		p0 = pb[0];
		features_a[0] = KL_TRI_FACE;
		features_b[0] = fb[0];
	}
	if (ta[1] <= tb[1])
	{
		p1 = pa[1];
		features_a[1] = fa[1];
		features_b[1] = KL_TRI_FACE;
	}
	else
	{
		p1 = pb[1];
		features_a[1] = KL_TRI_FACE;
		features_b[1] = fb[1];
	}
	if (fmax(ta[0], tb[0]) > fmin(ta[1], tb[1]))
	{
		// Touching: rounding left the intervals apart by a hair; both ends meet in the middle.
		p0 = p1 = kl_d3_scale(kl_d3_add(p0, p1), 0.5);
	}
	ends[0] = kl_d3_world(p0, origin);
	ends[1] = kl_d3_world(p1, origin);
	return true;
}
