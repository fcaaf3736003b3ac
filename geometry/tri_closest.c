// Kollide — the closest point of a triangle to a point (tri_closest.h).
// SPDX-License-Identifier: MIT
#include "tri_closest.h"

kl_d3 kl_closest_on_triangle_d(kl_d3 p, kl_d3 a, kl_d3 b, kl_d3 c, uint8_t* feature)
{
	kl_d3 ab = kl_d3_sub(b, a), ac = kl_d3_sub(c, a), ap = kl_d3_sub(p, a);
	double d1 = kl_d3_dot(ab, ap), d2 = kl_d3_dot(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0)
	{
		*feature = KL_TRI_VERTEX0;
		return a;
	}
	kl_d3 bp = kl_d3_sub(p, b);
	double d3 = kl_d3_dot(ab, bp), d4 = kl_d3_dot(ac, bp);
	if (d3 >= 0.0 && d4 <= d3)
	{
		*feature = KL_TRI_VERTEX0 + 1;
		return b;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
	{
		*feature = KL_TRI_EDGE0;
		return kl_d3_add(a, kl_d3_scale(ab, d1 / (d1 - d3)));
	}
	kl_d3 cp = kl_d3_sub(p, c);
	double d5 = kl_d3_dot(ab, cp), d6 = kl_d3_dot(ac, cp);
	if (d6 >= 0.0 && d5 <= d6)
	{
		*feature = KL_TRI_VERTEX0 + 2;
		return c;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
	{
		*feature = KL_TRI_EDGE0 + 2;
		return kl_d3_add(a, kl_d3_scale(ac, d2 / (d2 - d6)));
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
	{
		*feature = KL_TRI_EDGE0 + 1;
		return kl_d3_add(b, kl_d3_scale(kl_d3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
	}
	double denom = 1.0 / (va + vb + vc);
	*feature = KL_TRI_FACE;
	return kl_d3_add(a, kl_d3_add(kl_d3_scale(ab, vb * denom), kl_d3_scale(ac, vc * denom)));
}

vec3s kl_closest_on_triangle(vec3s p, const vec3s t[3], uint8_t* feature)
{
	vec3s o = t[0];
	uint8_t f = KL_TRI_FACE;
	kl_d3 q = kl_closest_on_triangle_d(kl_d3_rel(p, o), kl_d3_make(0.0, 0.0, 0.0), kl_d3_rel(t[1], o),
									   kl_d3_rel(t[2], o), &f);
	if (feature != NULL)
	{
		*feature = f;
	}
	return kl_d3_world(q, o);
}
