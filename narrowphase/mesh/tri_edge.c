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

/// The arcs of a triangle's three edges.
typedef struct kl_tri_arcs
{
	kl_edge_shape shape[3];
	kl_d3 n2[3];
} kl_tri_arcs;

static void kl_tri_arcs_make(const kl_d3 T[3], kl_d3 n, const kl_tri_edges* edges, vec3s origin, kl_tri_arcs* arcs)
{
	for (int k = 0; k < 3; ++k)
	{
		arcs->shape[k] = kl_edge_arc(T, n, edges, origin, k, arcs->n2 + k);
	}
}

/// The axis of edge i of A and edge j of B, when it lies in both arcs and the lines' closest points
/// fall inside both edges; depth is signed (negative: apart).
static bool kl_edge_pair_axis(const kl_d3 A[3], kl_d3 na, const kl_tri_arcs* arcs_a, int i, const kl_d3 B[3],
							  kl_d3 nb, const kl_tri_arcs* arcs_b, int j, kl_tri_edge_axis* axis)
{
	if (arcs_a->shape[i] == KL_EDGE_NONE || arcs_b->shape[j] == KL_EDGE_NONE)
	{
		return false;
	}
	kl_d3 u = kl_d3_sub(A[(i + 1) % 3], A[i]);
	kl_d3 v = kl_d3_sub(B[(j + 1) % 3], B[j]);
	kl_d3 c = kl_d3_cross(u, v);
	double len = sqrt(kl_d3_dot(c, c));
	kl_d3 pa, pb;
	if (!(len > 0.0) || !kl_edge_closest(A[i], u, B[j], v, &pa, &pb))
	{
		return false;
	}
	kl_d3 d = kl_d3_scale(c, 1.0 / len);
	if (!kl_in_arc(d, arcs_a->shape[i], na, arcs_a->n2[i]))
	{
		d = kl_d3_scale(d, -1.0);
		if (!kl_in_arc(d, arcs_a->shape[i], na, arcs_a->n2[i]))
		{
			return false;
		}
	}
	if (!kl_in_arc(kl_d3_scale(d, -1.0), arcs_b->shape[j], nb, arcs_b->n2[j]))
	{
		return false;
	}
	axis->normal = d;
	axis->point = kl_d3_scale(kl_d3_add(pa, pb), 0.5);
	axis->depth = kl_d3_dot(kl_d3_sub(pa, pb), d);
	axis->edge_a = i;
	axis->edge_b = j;
	return true;
}

bool kl_tri_edge_axis_find(const kl_d3 A[3], kl_d3 na, const kl_tri_edges* edges_a, const kl_d3 B[3], kl_d3 nb,
						   const kl_tri_edges* edges_b, vec3s origin, kl_tri_edge_axis* best)
{
	if (edges_a == NULL || edges_b == NULL || edges_a->known == 0 || edges_b->known == 0)
	{
		return false;
	}
	kl_tri_arcs arcs_a, arcs_b;
	kl_tri_arcs_make(A, na, edges_a, origin, &arcs_a);
	kl_tri_arcs_make(B, nb, edges_b, origin, &arcs_b);
	bool found = false;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			kl_tri_edge_axis axis;
			if (!kl_edge_pair_axis(A, na, &arcs_a, i, B, nb, &arcs_b, j, &axis) || axis.depth < 0.0 ||
				(found && axis.depth >= best->depth))
			{
				continue;
			}
			found = true;
			*best = axis;
		}
	}
	return found;
}

int kl_tri_edge_pairs(const kl_d3 A[3], kl_d3 na, const kl_tri_edges* edges_a, unsigned mask_a, const kl_d3 B[3],
					  kl_d3 nb, const kl_tri_edges* edges_b, unsigned mask_b, vec3s origin, double min_depth,
					  double max_depth, kl_tri_edge_axis out[9])
{
	if (edges_a == NULL || edges_b == NULL || (edges_a->known & mask_a) == 0 || (edges_b->known & mask_b) == 0)
	{
		return 0;
	}
	// Arcs are made lazily: most edge pairs fail the cheaper closest-point test first.
	kl_tri_arcs arcs_a, arcs_b;
	unsigned made_a = 0, made_b = 0;
	double reach = fmax(fabs(min_depth), fabs(max_depth));
	int count = 0;
	for (int i = 0; i < 3; ++i)
	{
		if ((mask_a & edges_a->known & (1u << i)) == 0)
		{
			continue;
		}
		kl_d3 u = kl_d3_sub(A[(i + 1) % 3], A[i]);
		for (int j = 0; j < 3; ++j)
		{
			if ((mask_b & edges_b->known & (1u << j)) == 0)
			{
				continue;
			}
			kl_d3 v = kl_d3_sub(B[(j + 1) % 3], B[j]);
			kl_d3 pa, pb;
			if (!kl_edge_closest(A[i], u, B[j], v, &pa, &pb))
			{
				continue;
			}
			kl_d3 gap = kl_d3_sub(pa, pb);
			if (kl_d3_dot(gap, gap) > reach * reach)
			{
				continue;
			}
			if ((made_a & (1u << i)) == 0)
			{
				arcs_a.shape[i] = kl_edge_arc(A, na, edges_a, origin, i, arcs_a.n2 + i);
				made_a |= 1u << i;
			}
			if ((made_b & (1u << j)) == 0)
			{
				arcs_b.shape[j] = kl_edge_arc(B, nb, edges_b, origin, j, arcs_b.n2 + j);
				made_b |= 1u << j;
			}
			kl_tri_edge_axis axis;
			if (arcs_a.shape[i] == KL_EDGE_CONVEX && arcs_b.shape[j] == KL_EDGE_CONVEX &&
				kl_edge_pair_axis(A, na, &arcs_a, i, B, nb, &arcs_b, j, &axis) && axis.depth >= min_depth &&
				axis.depth <= max_depth)
			{
				out[count++] = axis;
			}
		}
	}
	return count;
}
