// Kollide narrowphase — the exact geometric tests of the point-shell search (KL_HD, CPU and CUDA):
// oriented boxes against each other (the OBB stage) and triangle pairs within an alarm distance
// (the triangle stage).
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell_math.h"

/// An oriented box: centre and three orthonormal axes with half extents (object frame).
typedef struct kl_ps_obb
{
	kl_ps_f3 center;
	kl_ps_f3 axis[3];
	float half[3];
} kl_ps_obb;

/// Closest point to p on triangle t (Ericson's region test).
KL_HD static inline kl_ps_f3 kl_ps_closest_on_triangle(kl_ps_f3 p, const kl_ps_f3 t[3])
{
	kl_ps_f3 ab = kl_ps_sub(t[1], t[0]), ac = kl_ps_sub(t[2], t[0]), ap = kl_ps_sub(p, t[0]);
	float d1 = kl_ps_dot(ab, ap), d2 = kl_ps_dot(ac, ap);
	if (d1 <= 0.0f && d2 <= 0.0f)
	{
		return t[0];
	}
	kl_ps_f3 bp = kl_ps_sub(p, t[1]);
	float d3 = kl_ps_dot(ab, bp), d4 = kl_ps_dot(ac, bp);
	if (d3 >= 0.0f && d4 <= d3)
	{
		return t[1];
	}
	float vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f)
	{
		return kl_ps_add(t[0], kl_ps_scale(ab, d1 / (d1 - d3)));
	}
	kl_ps_f3 cp = kl_ps_sub(p, t[2]);
	float d5 = kl_ps_dot(ab, cp), d6 = kl_ps_dot(ac, cp);
	if (d6 >= 0.0f && d5 <= d6)
	{
		return t[2];
	}
	float vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f)
	{
		return kl_ps_add(t[0], kl_ps_scale(ac, d2 / (d2 - d6)));
	}
	float va = d3 * d6 - d5 * d4;
	if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f)
	{
		return kl_ps_add(t[1], kl_ps_scale(kl_ps_sub(t[2], t[1]), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
	}
	float denom = va + vb + vc;
	if (!(denom != 0.0f))
	{
		return t[0];
	}
	float v = vb / denom, w = vc / denom;
	return kl_ps_add(t[0], kl_ps_add(kl_ps_scale(ab, v), kl_ps_scale(ac, w)));
}

/// Squared distance between segments p1q1 and p2q2 (Ericson).
KL_HD static inline float kl_ps_segment_distance2(kl_ps_f3 p1, kl_ps_f3 q1, kl_ps_f3 p2, kl_ps_f3 q2)
{
	kl_ps_f3 d1 = kl_ps_sub(q1, p1), d2 = kl_ps_sub(q2, p2), r = kl_ps_sub(p1, p2);
	float a = kl_ps_dot(d1, d1), e = kl_ps_dot(d2, d2), f = kl_ps_dot(d2, r);
	float s = 0.0f, t = 0.0f;
	if (a <= 1e-30f && e <= 1e-30f)
	{
		return kl_ps_dot(r, r);
	}
	if (a <= 1e-30f)
	{
		t = kl_ps_clamp01(f / e);
	}
	else
	{
		float c = kl_ps_dot(d1, r);
		if (e <= 1e-30f)
		{
			s = kl_ps_clamp01(-c / a);
		}
		else
		{
			float b = kl_ps_dot(d1, d2);
			float denom = a * e - b * b;
			s = denom > 0.0f ? kl_ps_clamp01((b * f - c * e) / denom) : 0.0f;
			t = (b * s + f) / e;
			if (t < 0.0f)
			{
				t = 0.0f;
				s = kl_ps_clamp01(-c / a);
			}
			else if (t > 1.0f)
			{
				t = 1.0f;
				s = kl_ps_clamp01((b - c) / a);
			}
		}
	}
	kl_ps_f3 c1 = kl_ps_add(p1, kl_ps_scale(d1, s));
	kl_ps_f3 c2 = kl_ps_add(p2, kl_ps_scale(d2, t));
	kl_ps_f3 d = kl_ps_sub(c1, c2);
	return kl_ps_dot(d, d);
}

/// Whether segment pq passes through triangle t, within a tolerance (conservative: a near miss
/// counts, the distance test decides the rest).
KL_HD static inline bool kl_ps_segment_crosses(kl_ps_f3 p, kl_ps_f3 q, const kl_ps_f3 t[3], float tolerance)
{
	kl_ps_f3 n = kl_ps_cross(kl_ps_sub(t[1], t[0]), kl_ps_sub(t[2], t[0]));
	float dp = kl_ps_dot(n, kl_ps_sub(p, t[0])), dq = kl_ps_dot(n, kl_ps_sub(q, t[0]));
	if ((dp > 0.0f && dq > 0.0f) || (dp < 0.0f && dq < 0.0f) || dp == dq)
	{
		return false; // one side, or in the plane (then the vertex and edge distances see it)
	}
	kl_ps_f3 x = kl_ps_add(p, kl_ps_scale(kl_ps_sub(q, p), dp / (dp - dq)));
	float n_len = sqrtf(kl_ps_dot(n, n));
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 edge = kl_ps_sub(t[(e + 1) % 3], t[e]);
		// Signed distance of x from the edge's line in the plane, times |edge| · |n| / |n|.
		float side = kl_ps_dot(kl_ps_cross(edge, kl_ps_sub(x, t[e])), n) / n_len;
		if (side < -tolerance * sqrtf(kl_ps_dot(edge, edge)))
		{
			return false;
		}
	}
	return true;
}

/// The triangle test's independent parts (the thesis's Algorithms 17-19): 6 vertex-face distances
/// (0-5), 9 edge-edge distances (6-14) and 6 edges through the other triangle (15-20). A pair is
/// near when any part says so, so the parts can run in any order or side by side (the GPU gives a
/// key's parts to several lanes: one test is a long chain of dependent operations).
#define KL_PS_NEAR_PARTS 21

/// One part of kl_ps_triangles_near: limit2 is (alarm + tolerance)².
KL_HD static inline bool kl_ps_triangles_near_part(const kl_ps_f3 a[3], const kl_ps_f3 b[3], float limit2,
												   float tolerance, int part)
{
	if (part < 6)
	{
		const kl_ps_f3* from = part < 3 ? a : b;
		const kl_ps_f3* onto = part < 3 ? b : a;
		kl_ps_f3 p = from[part % 3];
		kl_ps_f3 d = kl_ps_sub(p, kl_ps_closest_on_triangle(p, onto));
		return kl_ps_dot(d, d) <= limit2;
	}
	if (part < 15)
	{
		int i = (part - 6) / 3, j = (part - 6) % 3;
		return kl_ps_segment_distance2(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]) <= limit2;
	}
	const kl_ps_f3* edge_of = part < 18 ? a : b;
	const kl_ps_f3* through = part < 18 ? b : a;
	int e = (part - 15) % 3;
	return kl_ps_segment_crosses(edge_of[e], edge_of[(e + 1) % 3], through, tolerance);
}

/// Whether triangles a and b (one frame) come within `alarm` of each other, by the parts first,
/// first + stride, ... (all of them: 0, 1): they cross (an edge of one passes through the other) or
/// a vertex–face or edge–edge distance is within it (the 6 + 9 tests of the thesis's Algorithms
/// 17–19). tolerance widens both, to stay conservative.
KL_HD static inline bool kl_ps_triangles_near(const kl_ps_f3 a[3], const kl_ps_f3 b[3], float alarm, float tolerance,
											  int first, int stride)
{
	float limit = alarm + tolerance;
	for (int part = first; part < KL_PS_NEAR_PARTS; part += stride)
	{
		if (kl_ps_triangles_near_part(a, b, limit * limit, tolerance, part))
		{
			return true;
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------
// The OBB stage (host): separating axes of two boxes placed in the world

/// A box in the world: centre and three half-edge vectors (a parallelepiped when the shape is
/// scaled unevenly; the separating-axis test below holds for those too), with what every test of
/// it needs: the face normals n_k = e_(k+1) × e_(k+2), their lengths, |det(e)| (its extent along
/// each n_k) and |e_0| + |e_1| + |e_2| (no point of it lies farther from the centre).
typedef struct kl_ps_box
{
	kl_ps_f3 center;
	kl_ps_f3 edge[3];
	kl_ps_f3 normal[3];
	float normal_length[3];
	float volume; ///< |det(e)|: e_k · n_k, and 0 for e_j · n_k, j ≠ k
	float reach;
} kl_ps_box;

KL_HD static inline kl_ps_box kl_ps_place_obb(const kl_ps_obb* o, const kl_ps_xform* x)
{
	kl_ps_box b;
	b.center = kl_ps_apply(x, o->center);
	b.reach = 0.0f;
	for (int k = 0; k < 3; ++k)
	{
		kl_ps_f3 a = kl_ps_scale(o->axis[k], o->half[k]);
		const float* m = x->m;
		b.edge[k] = kl_ps_make(m[0] * a.x + m[1] * a.y + m[2] * a.z, m[4] * a.x + m[5] * a.y + m[6] * a.z,
							   m[8] * a.x + m[9] * a.y + m[10] * a.z);
		b.reach += sqrtf(kl_ps_dot(b.edge[k], b.edge[k]));
	}
	for (int k = 0; k < 3; ++k)
	{
		b.normal[k] = kl_ps_cross(b.edge[(k + 1) % 3], b.edge[(k + 2) % 3]);
		b.normal_length[k] = sqrtf(kl_ps_dot(b.normal[k], b.normal[k]));
	}
	b.volume = fabsf(kl_ps_dot(b.edge[0], b.normal[0]));
	return b;
}

/// Whether an axis of length `length` separates two projections: centres `distance` apart (along
/// the axis, scaled by its length), extents ra and rb (scaled alike), by more than margin.
KL_HD static inline bool kl_ps_axis_separates(float distance, float ra, float rb, float length, float margin)
{
	return length > 1e-12f && distance - ra - rb > margin * length;
}

/// The 15-axis separating-axis test (3 + 3 face normals, 9 edge crosses) with a margin. The
/// projections of one box's edges on the other's normals are computed once (p and q below) and give
/// every axis's extents: for L = a.e_i × b.e_j, a.e_k · L = b.e_j · (a.e_k × a.e_i), a normal of a.
KL_HD static inline bool kl_ps_boxes_overlap(const kl_ps_box* a, const kl_ps_box* b, float margin)
{
	kl_ps_f3 t = kl_ps_sub(b->center, a->center);
	float apart = a->reach + b->reach + margin;
	if (kl_ps_dot(t, t) > apart * apart)
	{
		return false; // the spheres around them are apart already
	}
	float p[3][3], q[3][3]; // p[k][j] = |n_a,k · b.e_j|, q[k][i] = |n_b,k · a.e_i|
	for (int k = 0; k < 3; ++k)
	{
		for (int j = 0; j < 3; ++j)
		{
			p[k][j] = fabsf(kl_ps_dot(a->normal[k], b->edge[j]));
			q[k][j] = fabsf(kl_ps_dot(b->normal[k], a->edge[j]));
		}
		if (kl_ps_axis_separates(fabsf(kl_ps_dot(t, a->normal[k])), a->volume, p[k][0] + p[k][1] + p[k][2],
								 a->normal_length[k], margin) ||
			kl_ps_axis_separates(fabsf(kl_ps_dot(t, b->normal[k])), q[k][0] + q[k][1] + q[k][2], b->volume,
								 b->normal_length[k], margin))
		{
			return false;
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			kl_ps_f3 axis = kl_ps_cross(a->edge[i], b->edge[j]);
			float ra = p[(i + 1) % 3][j] + p[(i + 2) % 3][j];
			float rb = q[(j + 1) % 3][i] + q[(j + 2) % 3][i];
			if (kl_ps_axis_separates(fabsf(kl_ps_dot(t, axis)), ra, rb, sqrtf(kl_ps_dot(axis, axis)), margin))
			{
				return false;
			}
		}
	}
	return true;
}
