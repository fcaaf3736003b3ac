// Kollide — edge contacts of two triangle meshes from their candidate pairs: where an edge of one
// crosses a face of the other (the stretch of the edge inside the other body gives the contact),
// and convex edges crossing convex edges (tri_edge.h).
// SPDX-License-Identifier: MIT
#include "vertex_contacts_internal.h"

#include "core.h"

#include <float.h>
#include <stdlib.h>

/// Edge k of triangle tri is taken once over the mesh: by the triangle that runs it from the
/// smaller vertex index to the larger (its neighbour runs it the other way).
static unsigned kl_owned_edges(const kl_triangle_set* s, int tri)
{
	const int32_t* t = s->indices + 3 * tri;
	unsigned mask = 0;
	for (int k = 0; k < 3; ++k)
	{
		mask |= (t[k] < t[(k + 1) % 3] ? 1u : 0u) << k;
	}
	return mask;
}

/// Where an edge of one set crosses a face of the other.
struct kl_pierce
{
	uint64_t key;  ///< the edge: lower vertex index << 32 | higher
	double t;	   ///< from the lower vertex (0) to the higher (1)
	int32_t tri;   ///< the other set's triangle it crosses
	int32_t owner; ///< this side's triangle that recorded the edge
	uint8_t edge;  ///< the edge's index in owner
	uint8_t side;  ///< 0: an edge of set a
	uint8_t enter; ///< going from the lower vertex to the higher, the edge enters the other body here
};

static bool kl_push_pierce(kl_mesh_scratch* s, struct kl_pierce pierce)
{
	if (s->pierce_count == s->pierce_capacity)
	{
		int capacity = s->pierce_capacity > 0 ? 2 * s->pierce_capacity : 64;
		struct kl_pierce* grown = kl_realloc(s->pierces, (size_t)capacity, sizeof(struct kl_pierce));
		if (grown == NULL)
		{
			return false;
		}
		s->pierces = grown;
		s->pierce_capacity = capacity;
	}
	s->pierces[s->pierce_count++] = pierce;
	return true;
}

/// Whether edge k of triangle tri (world t, unit normal n) bends: its neighbour is not coplanar (or
/// it has none). Flat edges inside a face need no crossings of their own: the face's vertices and
/// the other body's vertices hold a face resting on a face.
static bool kl_edge_bends(const kl_triangle_set* s, int tri, int k, const vec3s t[3], kl_d3 n)
{
	int32_t o = s->opposite != NULL ? s->opposite[3 * tri + k] : -1;
	if (o < 0)
	{
		return true;
	}
	kl_d3 to_o = kl_d3_rel(kl_set_vertex(s, o), t[k]);
	return fabs(kl_d3_dot(n, to_o)) > 1e-4 * sqrt(kl_d3_dot(to_o, to_o));
}

/// Records where the bending edges of triangle tri (this side, world t, normal n) cross the other
/// set's triangle other (world u, normal m). Each edge is recorded by one of its two triangles.
bool kl_pair_pierces(const kl_triangle_set* s, int side, int tri, const vec3s t[3], kl_d3 n, int other,
					 const vec3s u[3], kl_d3 m, kl_mesh_scratch* scratch)
{
	const int32_t* idx = s->indices + 3 * tri;
	for (int k = 0; k < 3; ++k)
	{
		int32_t i0 = idx[k], i1 = idx[(k + 1) % 3];
		bool open = s->opposite == NULL || s->opposite[3 * tri + k] < 0;
		if (!open && i0 > i1)
		{
			continue; // the neighbour records it
		}
		vec3s lo = i0 < i1 ? t[k] : t[(k + 1) % 3], hi = i0 < i1 ? t[(k + 1) % 3] : t[k];
		double d0 = kl_d3_dot(m, kl_d3_rel(lo, u[0])), d1 = kl_d3_dot(m, kl_d3_rel(hi, u[0]));
		if ((d0 >= 0.0) == (d1 >= 0.0))
		{
			continue;
		}
		double at = d0 / (d0 - d1);
		kl_d3 x = kl_d3_add(kl_d3_rel(lo, u[0]), kl_d3_scale(kl_d3_rel(hi, lo), at));
		bool inside = true;
		for (int e = 0; e < 3 && inside; ++e)
		{
			kl_d3 edge = kl_d3_rel(u[(e + 1) % 3], u[e]);
			kl_d3 to_x = kl_d3_sub(x, kl_d3_rel(u[e], u[0]));
			inside = kl_d3_dot(m, kl_d3_cross(edge, to_x)) >= 0.0;
		}
		if (!inside || !kl_edge_bends(s, tri, k, t, n))
		{
			continue;
		}
		int32_t a = i0 < i1 ? i0 : i1, b = i0 < i1 ? i1 : i0;
		struct kl_pierce p = {(uint64_t)(uint32_t)a << 32 | (uint32_t)b, at, other, tri, (uint8_t)k, (uint8_t)side,
							  d0 >= 0.0};
		if (!kl_push_pierce(scratch, p))
		{
			return false;
		}
	}
	return true;
}

/// The normal cone of edge k of triangle tri: around the sum of its two faces' normals, half the
/// angle between them wide (the face normal alone for an open edge). Returns the cone's cosine.
static double kl_edge_cone(const kl_triangle_set* s, int tri, int k, kl_d3* axis)
{
	kl_nearest edge = {0.0, kl_vec3(0.0f, 0.0f, 0.0f), tri, (uint8_t)(KL_TRI_EDGE0 + k)};
	*axis = kl_pseudo_normal(s, &edge);
	vec3s t[3];
	kl_set_triangle(s, tri, t);
	return kl_d3_dot(*axis, kl_face_normal(t));
}

static int kl_compare_pierces(const void* x, const void* y)
{
	const struct kl_pierce* a = x;
	const struct kl_pierce* b = y;
	int c = (a->side > b->side) - (a->side < b->side);
	c = c ? c : (a->key > b->key) - (a->key < b->key);
	c = c ? c : (a->t > b->t) - (a->t < b->t);
	c = c ? c : (a->tri > b->tri) - (a->tri < b->tri);
	return c ? c : (a->enter > b->enter) - (a->enter < b->enter);
}

/// A contact at the middle of each stretch of an edge inside the other body (entered, then left,
/// with no vertex of the edge inside): where two bars lie crosswise or a rim crosses a rim, no
/// vertex is inside the other body, yet the edges are.
int kl_pierce_contacts(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_contact_config* config,
					   kl_mesh_scratch* s, int count)
{
	if (s->pierce_count < 2)
	{
		return count; // a stretch inside needs an entry and an exit
	}
	qsort(s->pierces, (size_t)s->pierce_count, sizeof(struct kl_pierce), kl_compare_pierces);
	for (int i = 0; i + 1 < s->pierce_count; ++i)
	{
		const struct kl_pierce* in = s->pierces + i;
		const struct kl_pierce* out = in + 1;
		if (!in->enter || out->enter || out->key != in->key || out->side != in->side)
		{
			continue;
		}
		const kl_triangle_set* p_set = in->side == 0 ? a : b;
		const kl_triangle_set* q_set = in->side == 0 ? b : a;
		int32_t lo = (int32_t)(in->key >> 32), hi = (int32_t)(uint32_t)in->key;
		vec3s p = glms_vec3_lerp(kl_set_vertex(p_set, lo), kl_set_vertex(p_set, hi), (float)(0.5 * (in->t + out->t)));
		kl_nearest near = {DBL_MAX, p, -1, KL_TRI_FACE};
		kl_offer_triangle(q_set, p, in->tri, &near);
		kl_offer_triangle(q_set, p, out->tri, &near);
		if (!kl_mesh_scratch_reserve_contacts(s, count + 1))
		{
			return -1;
		}
		kl_tri_contact* c = s->contacts + count;
		kl_d3 axis;
		double cone_cos = kl_edge_cone(p_set, in->owner, in->edge, &axis);
		if (kl_point_contact(q_set, in->side == 0, p, &near, true, 0.0, 0.0, config, c) &&
			kl_normal_in_cone(axis, cone_cos, c, in->side == 0))
		{
			c->tri_a = (uint32_t)lo;
			c->tri_b = (uint32_t)hi;
			c->feature_a = in->side == 0 ? KL_TRI_MESH_VERTEX : KL_TRI_FACE;
			c->feature_b = in->side == 0 ? KL_TRI_FACE : KL_TRI_MESH_VERTEX;
			++count;
		}
	}
	return count;
}

/// Deepest edge–edge contact (m): a slop. Two convex edges cross that deep only for a moment in an
/// impact; deeper, the pair is nearly always two edges far apart whose directions happen to pass
/// the arc test (in the pile: rims 2 cm apart, found 20-25 mm "deep"), and the stretch of an edge inside the
/// other body gives the true contact (kl_pierce_contacts).
#define KL_EDGE_MAX_DEPTH ((double)KL_LINEAR_SLOP)

/// The edge contacts of one pair (world triangles and unit normals given) at most `farthest` apart.
int kl_pair_edge_contacts(const kl_triangle_set* a, const kl_triangle_set* b, kl_tri_pair pair,
						  const vec3s ta[3], kl_d3 na, const vec3s tb[3], kl_d3 nb, double farthest,
						  const kl_tri_contact_config* config, kl_mesh_scratch* scratch, kl_tri_contact* out)
{
	unsigned mask_a = kl_owned_edges(a, pair.a), mask_b = kl_owned_edges(b, pair.b);
	if (mask_a == 0 || mask_b == 0 || a->opposite == NULL || b->opposite == NULL)
	{
		return 0;
	}
	vec3s origin = ta[0];
	kl_d3 A[3], B[3];
	for (int k = 0; k < 3; ++k)
	{
		A[k] = kl_d3_rel(ta[k], origin);
		B[k] = kl_d3_rel(tb[k], origin);
	}
	kl_tri_edges ea, eb;
	kl_tri_edge_axis axes[9];
	int n = kl_tri_edge_pairs(A, na, kl_cached_edges(scratch, 0, a, pair.a, &ea), mask_a, B, nb,
							  kl_cached_edges(scratch, 1, b, pair.b, &eb), mask_b, origin, -farthest,
							  fmin((double)config->max_depth, KL_EDGE_MAX_DEPTH), axes);
	for (int i = 0; i < n; ++i)
	{
		kl_tri_contact* c = out + i;
		c->point = kl_d3_world(axes[i].point, origin);
		c->normal = kl_d3_float(axes[i].normal);
		c->separation = (float)-axes[i].depth;
		c->tri_a = (uint32_t)pair.a;
		c->tri_b = (uint32_t)pair.b;
		c->feature_a = (uint8_t)(KL_TRI_EDGE0 + axes[i].edge_a);
		c->feature_b = (uint8_t)(KL_TRI_EDGE0 + axes[i].edge_b);
		c->kind = KL_TRI_CONTACT_EDGE;
	}
	return n;
}

