// Kollide — edge against edge axes of crossing triangles, kept where both edges' normal arcs allow.
// SPDX-License-Identifier: MIT
#include "tri_edge.h"

#include <math.h>

typedef enum kl_edge_shape
{
	KL_EDGE_NONE = 0, ///< no trusted neighbour, or concave: never a way out
	KL_EDGE_FLAT,	  ///< coplanar neighbour: the arc is the face normal alone
	KL_EDGE_CONVEX,
} kl_edge_shape;

/// The arc of edge k of triangle T (normal n): n1 = n and n2 = the neighbour's normal.
static kl_edge_shape kl_edge_arc(const kl_d3 T[3], kl_d3 n, const kl_tri_edges* edges, vec3s origin, int k,
								 kl_d3* n2)
{
	if (edges == NULL || (edges->known & (1u << k)) == 0)
	{
		return KL_EDGE_NONE;
	}
	kl_d3 o = kl_d3_rel(edges->opposite[k], origin);
	kl_d3 p = T[k], q = T[(k + 1) % 3];
	kl_d3 to_o = kl_d3_sub(o, p);
	double reach = sqrt(kl_d3_dot(to_o, to_o));
	double height = kl_d3_dot(n, to_o); // > 0: the neighbour folds up in front: concave
	if (!(reach > 0.0) || height > 1e-4 * reach)
	{
		return KL_EDGE_NONE;
	}
	if (height > -1e-4 * reach)
	{
		*n2 = n;
		return KL_EDGE_FLAT;
	}
	// The neighbour runs the edge the other way: (q, p, o) counter-clockwise.
	kl_d3 c = kl_d3_cross(kl_d3_sub(p, q), kl_d3_sub(o, q));
	double len = sqrt(kl_d3_dot(c, c));
	if (!(len > 0.0))
	{
		return KL_EDGE_NONE;
	}
	*n2 = kl_d3_scale(c, 1.0 / len);
	return KL_EDGE_CONVEX;
}

/// Whether the unit direction d (perpendicular to the edge) lies in the arc from n1 to n2, or
/// within about 3° outside it: the rims of a tilted body cross at an axis just past a face normal,
/// and there the axis still describes the contact (the face beyond the rim would give the same).
static bool kl_in_arc(kl_d3 d, kl_edge_shape shape, kl_d3 n1, kl_d3 n2)
{
	if (shape == KL_EDGE_FLAT)
	{
		return kl_d3_dot(d, n1) > 0.9925; // cos 7°
	}
	kl_d3 w = kl_d3_cross(n1, n2);
	double tol = -0.122 * sqrt(kl_d3_dot(w, w)); // sin 7°
	return kl_d3_dot(kl_d3_add(n1, n2), d) > 0.0 && kl_d3_dot(kl_d3_cross(n1, d), w) >= tol &&
		   kl_d3_dot(kl_d3_cross(d, n2), w) >= tol;
}

/// Closest points of the lines through two edges; false when they are parallel or the points
/// fall outside either edge (then a vertex is nearest and the face axes cover it).
static bool kl_edge_closest(kl_d3 p, kl_d3 u, kl_d3 q, kl_d3 v, kl_d3* on_p, kl_d3* on_q)
{
	kl_d3 w = kl_d3_sub(p, q);
	double a = kl_d3_dot(u, u), b = kl_d3_dot(u, v), c = kl_d3_dot(v, v);
	double d = kl_d3_dot(u, w), e = kl_d3_dot(v, w);
	double den = a * c - b * b;
	if (!(den > 1e-12 * a * c))
	{
		return false;
	}
	double s = (b * e - c * d) / den, t = (a * e - b * d) / den;
	if (!(s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0))
	{
		return false;
	}
	*on_p = kl_d3_add(p, kl_d3_scale(u, s));
	*on_q = kl_d3_add(q, kl_d3_scale(v, t));
	return true;
}

bool kl_tri_edge_axis_find(const kl_d3 A[3], kl_d3 na, const kl_tri_edges* edges_a, const kl_d3 B[3], kl_d3 nb,
						   const kl_tri_edges* edges_b, vec3s origin, kl_tri_edge_axis* best)
{
	if (edges_a == NULL || edges_b == NULL || edges_a->known == 0 || edges_b->known == 0)
	{
		return false;
	}
	kl_edge_shape shape_a[3], shape_b[3];
	kl_d3 arc_a[3], arc_b[3];
	for (int k = 0; k < 3; ++k)
	{
		shape_a[k] = kl_edge_arc(A, na, edges_a, origin, k, arc_a + k);
		shape_b[k] = kl_edge_arc(B, nb, edges_b, origin, k, arc_b + k);
	}
	bool found = false;
	for (int i = 0; i < 3; ++i)
	{
		if (shape_a[i] == KL_EDGE_NONE)
		{
			continue;
		}
		kl_d3 u = kl_d3_sub(A[(i + 1) % 3], A[i]);
		for (int j = 0; j < 3; ++j)
		{
			if (shape_b[j] == KL_EDGE_NONE)
			{
				continue;
			}
			kl_d3 v = kl_d3_sub(B[(j + 1) % 3], B[j]);
			kl_d3 c = kl_d3_cross(u, v);
			double len = sqrt(kl_d3_dot(c, c));
			kl_d3 pa, pb;
			if (!(len > 0.0) || !kl_edge_closest(A[i], u, B[j], v, &pa, &pb))
			{
				continue;
			}
			kl_d3 d = kl_d3_scale(c, 1.0 / len);
			if (!kl_in_arc(d, shape_a[i], na, arc_a[i]))
			{
				d = kl_d3_scale(d, -1.0);
				if (!kl_in_arc(d, shape_a[i], na, arc_a[i]))
				{
					continue;
				}
			}
			if (!kl_in_arc(kl_d3_scale(d, -1.0), shape_b[j], nb, arc_b[j]))
			{
				continue;
			}
			double depth = kl_d3_dot(kl_d3_sub(pa, pb), d);
			if (depth < 0.0 || (found && depth >= best->depth))
			{
				continue;
			}
			found = true;
			best->normal = d;
			best->point = kl_d3_scale(kl_d3_add(pa, pb), 0.5);
			best->depth = depth;
			best->edge_a = i;
			best->edge_b = j;
		}
	}
	return found;
}
