// Kollide — ray against a k-DOP BVH, depth first, slab tests in double.
// SPDX-License-Identifier: MIT
#include "bvh_ray.h"

#include "bvh_walk.h"
#include "dvec3.h"

typedef struct kl_ray_query
{
	kl_d3 origin;
	kl_d3 dir;
	double min_t;
	double best;
	int skip;
	const float* vertices;
	const int32_t* indices;
	bool hit;
} kl_ray_query;

static kl_d3 kl_vertex_at(const float* v, int32_t i)
{
	return kl_d3_make(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
}

/// Whether the ray's part in [min_t, best] may meet the DOP.
static bool kl_ray_meets_dop(const kl_bvh* t, const double* lo, const double* hi, void* query)
{
	const kl_ray_query* r = query;
	double enter = r->min_t, leave = r->best;
	for (int a = 0; a < t->axes; ++a)
	{
		kl_d3 n = kl_d3_make(t->dirs->dir[a][0], t->dirs->dir[a][1], t->dirs->dir[a][2]);
		double o = kl_d3_dot(n, r->origin), s = kl_d3_dot(n, r->dir);
		double slack = 1e-9 * (fabs(lo[a]) + fabs(hi[a]) + 1.0);
		if (fabs(s) < 1e-15)
		{
			if (o < lo[a] - slack || o > hi[a] + slack)
			{
				return false;
			}
			continue;
		}
		double t0 = (lo[a] - slack - o) / s, t1 = (hi[a] + slack - o) / s;
		enter = fmax(enter, fmin(t0, t1));
		leave = fmin(leave, fmax(t0, t1));
		if (enter > leave)
		{
			return false;
		}
	}
	return true;
}

/// Möller–Trumbore: the ray parameter where it meets the triangle (either side), or -1.
static double kl_ray_meets_triangle(const kl_ray_query* r, kl_d3 a, kl_d3 b, kl_d3 c)
{
	kl_d3 e1 = kl_d3_sub(b, a), e2 = kl_d3_sub(c, a);
	kl_d3 p = kl_d3_cross(r->dir, e2);
	double det = kl_d3_dot(e1, p);
	if (fabs(det) < 1e-30)
	{
		return -1.0;
	}
	kl_d3 s = kl_d3_sub(r->origin, a);
	double u = kl_d3_dot(s, p) / det;
	if (u < 0.0 || u > 1.0)
	{
		return -1.0;
	}
	kl_d3 q = kl_d3_cross(s, e1);
	double v = kl_d3_dot(r->dir, q) / det;
	if (v < 0.0 || u + v > 1.0)
	{
		return -1.0;
	}
	return kl_d3_dot(e2, q) / det;
}

static void kl_ray_leaf(int tri, void* query)
{
	kl_ray_query* r = query;
	if (tri == r->skip)
	{
		return;
	}
	const int32_t* idx = r->indices + 3 * tri;
	double t = kl_ray_meets_triangle(r, kl_vertex_at(r->vertices, idx[0]), kl_vertex_at(r->vertices, idx[1]),
									 kl_vertex_at(r->vertices, idx[2]));
	if (t > r->min_t && t <= r->best)
	{
		r->best = t;
		r->hit = true;
	}
}

double kl_bvh_ray(const kl_bvh* tree, const float* vertices, const int32_t* indices, const double origin[3],
				  const double dir[3], double min_t, double max_t, int skip)
{
	kl_ray_query r = {kl_d3_make(origin[0], origin[1], origin[2]),
					  kl_d3_make(dir[0], dir[1], dir[2]),
					  min_t,
					  max_t,
					  skip,
					  vertices,
					  indices,
					  false};
	kl_bvh_walk(tree, kl_ray_meets_dop, kl_ray_leaf, &r);
	return r.hit ? r.best : max_t + 1.0;
}
