// Kollide — overlap tests and linear casts of a convex proxy against one convex core or a plane.
// SPDX-License-Identifier: MIT
#include "shape_cast.h"

#include <float.h>

/// Iterations of the advancement: each is a Newton step on a convex function, quadratic near a
/// crossing and halving the gap at worst (a grazing approach), so a few dozen reach any gap.
#define KL_CAST_MAX_ITERATIONS 40

static vec3s proxy_vertex(const kl_gjk_proxy* p, int i)
{
	if (p->points != NULL)
	{
		return p->points[i];
	}
	vec3s h = p->half_extents;
	return kl_vec3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
}

vec3s kl_proxy_support_point(const kl_gjk_proxy* a, kl_transform xf, vec3s dir)
{
	vec3s d = kl_inv_rotate(xf.q, dir);
	vec3s best = proxy_vertex(a, 0);
	float best_dot = glms_vec3_dot(best, d);
	for (int i = 1; i < a->count; ++i)
	{
		vec3s v = proxy_vertex(a, i);
		float dot = glms_vec3_dot(v, d);
		if (dot > best_dot)
		{
			best = v;
			best_dot = dot;
		}
	}
	return kl_transform_point(xf, best);
}

void kl_proxy_bounding_sphere(const kl_gjk_proxy* a, kl_transform xf, vec3s* center, float* radius)
{
	vec3s lo = kl_vec3(FLT_MAX, FLT_MAX, FLT_MAX), hi = kl_vec3(-FLT_MAX, -FLT_MAX, -FLT_MAX);
	for (int i = 0; i < a->count; ++i)
	{
		lo = glms_vec3_minv(lo, proxy_vertex(a, i));
		hi = glms_vec3_maxv(hi, proxy_vertex(a, i));
	}
	vec3s c = glms_vec3_scale(glms_vec3_add(lo, hi), 0.5f);
	float r2 = 0.0f;
	for (int i = 0; i < a->count; ++i)
	{
		r2 = fmaxf(r2, glms_vec3_distance2(c, proxy_vertex(a, i)));
	}
	*center = kl_transform_point(xf, c);
	*radius = sqrtf(r2) + a->radius;
}

bool kl_proxy_overlap(const kl_gjk_proxy* a, kl_transform xf_ab, const kl_gjk_proxy* b)
{
	kl_gjk_output g;
	kl_gjk(a, xf_ab, b, 0, 0, &g);
	return g.distance <= a->radius + b->radius;
}

/// The gap between the plane and the rounded proxy (negative inside), with the proxy's deepest core point.
static float plane_gap(const kl_gjk_proxy* a, kl_transform xf_ab, kl_plane plane, vec3s* deepest)
{
	*deepest = kl_proxy_support_point(a, xf_ab, glms_vec3_negate(plane.normal));
	return glms_vec3_dot(plane.normal, *deepest) - a->radius - plane.offset;
}

bool kl_proxy_overlap_plane(const kl_gjk_proxy* a, kl_transform xf_ab, kl_plane plane)
{
	vec3s deepest;
	return plane_gap(a, xf_ab, plane, &deepest) <= 0.0f;
}

/// The point p projected onto the plane.
static vec3s on_plane(kl_plane plane, vec3s p)
{
	return glms_vec3_sub(p, glms_vec3_scale(plane.normal, glms_vec3_dot(plane.normal, p) - plane.offset));
}

bool kl_proxy_cast_plane(const kl_gjk_proxy* a, kl_transform xf_ab, vec3s translation, float max_fraction,
						 kl_plane plane, kl_cast_output* out)
{
	vec3s deepest;
	float gap = plane_gap(a, xf_ab, plane, &deepest);
	if (gap <= KL_CAST_TOLERANCE)
	{
		out->fraction = 0.0f;
		out->normal = gap <= 0.0f ? glms_vec3_zero() : plane.normal;
		out->point = on_plane(plane, deepest);
		return true;
	}
	float rate = glms_vec3_dot(plane.normal, translation); // change of the gap per unit fraction
	if (!(rate < 0.0f))
	{
		return false;
	}
	float fraction = (gap - 0.5f * KL_CAST_TOLERANCE) / -rate;
	if (!(fraction <= max_fraction))
	{
		return false;
	}
	out->fraction = fraction;
	out->normal = plane.normal;
	out->point = on_plane(plane, glms_vec3_add(deepest, glms_vec3_scale(translation, fraction)));
	return true;
}

bool kl_proxy_cast(const kl_gjk_proxy* a, kl_transform xf_ab, vec3s translation, float max_fraction,
				   const kl_gjk_proxy* b, kl_cast_output* out)
{
	float radius = a->radius + b->radius;
	float target = radius + 0.5f * KL_CAST_TOLERANCE;
	kl_transform xf = xf_ab;
	float fraction = 0.0f;
	vec3s normal = glms_vec3_zero(); // from a to b, at the last separated pose
	int start_a = 0, start_b = 0;
	for (int iteration = 0; iteration < KL_CAST_MAX_ITERATIONS; ++iteration)
	{
		kl_gjk_output g;
		kl_gjk(a, xf, b, start_a, start_b, &g);
		start_a = g.index_a[0];
		start_b = g.index_b[0];
		float gap = g.distance - radius;
		if (g.distance > 0.0f)
		{
			normal = g.normal;
		}
		if (gap <= KL_CAST_TOLERANCE)
		{
			out->fraction = fraction;
			if (iteration == 0 && gap <= 0.0f)
			{
				// Overlapping at the start: a point between the surfaces (in both), no normal.
				float t = radius > 0.0f ? a->radius / radius : 0.5f;
				out->point = glms_vec3_lerp(g.point_a, g.point_b, g.distance > 0.0f ? t : 0.0f);
				out->normal = glms_vec3_zero();
				return true;
			}
			// Separated before (the advancement never passes the hit; round-off may close the last
			// step): the last separating normal.
			out->normal = glms_vec3_negate(normal);
			out->point = glms_vec3_sub(g.point_b, glms_vec3_scale(normal, b->radius));
			return true;
		}
		float rate = glms_vec3_dot(translation, normal); // closing per unit fraction
		if (!(rate > 0.0f))
		{
			return false; // moving apart or sideways: the distance only grows from here
		}
		fraction += (g.distance - target) / rate;
		if (!(fraction <= max_fraction))
		{
			return false;
		}
		xf.p = glms_vec3_add(xf_ab.p, glms_vec3_scale(translation, fraction));
	}
	return false;
}
