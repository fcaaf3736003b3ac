// Kollide — contact points of two hulls once the SAT has picked an axis: the incident face clipped
// against the reference face's side planes (Sutherland–Hodgman), or one point between two edges.
// SPDX-License-Identifier: MIT
#include "sat.h"

#include <float.h>
#include <string.h>

/// Marks a polygon edge that lies on a side plane of the reference face rather than on an edge of
/// the incident face.
#define KL_CLIP_ON_REFERENCE 0x80000000u

/// A vertex of the polygon being clipped, with its feature id and the feature of the edge that
/// leaves it (an incident half-edge, or a reference half-edge | KL_CLIP_ON_REFERENCE).
typedef struct kl_clip_vertex
{
	vec3s p;
	uint32_t id;
	uint32_t edge;
} kl_clip_vertex;

// The id of the point where the polygon edge with feature `edge` crosses the side plane of the
// reference half-edge `plane`: an incident edge crossing it, or a corner of the reference face.
static uint32_t crossing_id(bool flip, uint32_t edge, uint32_t plane)
{
	if (edge & KL_CLIP_ON_REFERENCE)
	{
		uint32_t other = edge & ~KL_CLIP_ON_REFERENCE;
		uint32_t lo = other < plane ? other : plane;
		uint32_t hi = other < plane ? plane : other;
		return kl_make_feature_id(flip, KL_ID_CORNER, lo, hi);
	}
	return kl_make_feature_id(flip, KL_ID_CROSSING, plane, edge);
}

// Keeps the part of the convex polygon `in` where dot(s, p) <= d. Points on the plane stay, and
// an edge produces a new point only when its ends are strictly on both sides, so no duplicates.
// Returns -1 when the whole polygon is inside (out is not written), else the count written to out.
static int clip_polygon(const kl_clip_vertex* in, int n, vec3s s, float d, uint32_t plane, bool flip,
						kl_clip_vertex* out)
{
	float dist[KL_CLIP_CAPACITY];
	bool any_out = false;
	bool any_in = false;
	for (int i = 0; i < n; ++i)
	{
		dist[i] = kl_dot3(s, in[i].p) - d;
		any_out |= dist[i] > 0.0f;
		any_in |= dist[i] <= 0.0f;
	}
	if (!any_out)
	{
		return -1;
	}
	if (!any_in)
	{
		return 0;
	}
	int count = 0;
	for (int i = 0; i < n && count < KL_CLIP_CAPACITY; ++i)
	{
		int j = i + 1 == n ? 0 : i + 1;
		float d0 = dist[i];
		float d1 = dist[j];
		if (d0 <= 0.0f)
		{
			out[count] = in[i];
			if (d0 == 0.0f && d1 > 0.0f)
			{
				out[count].edge = plane | KL_CLIP_ON_REFERENCE;
			}
			++count;
		}
		if (((d0 < 0.0f && d1 > 0.0f) || (d0 > 0.0f && d1 < 0.0f)) && count < KL_CLIP_CAPACITY)
		{
			float t = d0 / (d0 - d1);
			kl_clip_vertex* x = out + count++;
			x->p = kl_add3(in[i].p, kl_scale3(kl_sub3(in[j].p, in[i].p), t));
			x->id = crossing_id(flip, in[i].edge, plane);
			x->edge = d0 < 0.0f ? (plane | KL_CLIP_ON_REFERENCE) : in[i].edge;
		}
	}
	return count;
}

static inline vec3s hull_vertex(const kl_sat_pair* pair, bool of_b, int i)
{
	return of_b ? kl_sat_vertex_b(pair, i) : pair->a->vertices[i];
}

static inline vec3s hull_normal(const kl_sat_pair* pair, bool of_b, int i)
{
	return of_b ? kl_sat_normal_b(pair, i) : pair->a->faces[i].normal;
}

// The vertex of a hull deepest along n (smallest dot; the first one on ties).
static int support_vertex(const kl_sat_pair* pair, bool of_b, vec3s n)
{
	const kl_hull* hull = of_b ? pair->b : pair->a;
	int best = 0;
	float best_dot = FLT_MAX;
	for (int i = 0; i < hull->vertex_count; ++i)
	{
		float d = kl_dot3(n, hull_vertex(pair, of_b, i));
		if (d < best_dot)
		{
			best_dot = d;
			best = i;
		}
	}
	return best;
}

// The incident face: of the faces around the incident hull's deepest vertex, the one most
// anti-parallel to n. Searching all faces instead can pick a far face of a curved hull that
// misses the contact entirely. The faces around a vertex are walked from one half-edge leaving it
// (the twin of an outgoing edge comes back to the vertex; its next leaves it again).
static int incident_face(const kl_sat_pair* pair, bool of_b, vec3s n, int vertex)
{
	const kl_hull* hull = of_b ? pair->b : pair->a;
	const kl_hull_half_edge* edges = hull->edges;
	int first = 0;
	while (first < hull->edge_count && edges[first].origin != vertex)
	{
		++first;
	}
	int best = edges[first < hull->edge_count ? first : 0].face;
	float best_dot = FLT_MAX;
	int e = first;
	for (int guard = 0; first < hull->edge_count && guard < hull->edge_count; ++guard)
	{
		int f = edges[e].face;
		float d = kl_dot3(hull_normal(pair, of_b, f), n);
		if (d < best_dot || (d == best_dot && f < best))
		{
			best_dot = d;
			best = f;
		}
		e = edges[edges[e].twin].next;
		if (e == first)
		{
			break;
		}
	}
	return best;
}

int kl_clip_face_contact(const kl_sat_pair* pair, bool ref_is_b, int ref_face, float speculative,
						 kl_manifold_point* points, vec3s* normal)
{
	const kl_hull* ref = ref_is_b ? pair->b : pair->a;
	const kl_hull* inc = ref_is_b ? pair->a : pair->b;
	bool inc_is_b = !ref_is_b;
	vec3s n = hull_normal(pair, ref_is_b, ref_face);
	float offset = ref_is_b ? kl_sat_offset_b(pair, ref_face) : pair->a->faces[ref_face].offset;

	kl_clip_vertex buffers[2][KL_CLIP_CAPACITY];
	kl_clip_vertex* poly = buffers[0];
	kl_clip_vertex* spare = buffers[1];
	int count = 0;
	const kl_hull_face* face = inc->faces + incident_face(pair, inc_is_b, n, support_vertex(pair, inc_is_b, n));
	int e = face->edge;
	do
	{
		const kl_hull_half_edge* he = inc->edges + e;
		poly[count].p = hull_vertex(pair, inc_is_b, he->origin);
		poly[count].id = kl_make_feature_id(ref_is_b, KL_ID_VERTEX, (uint32_t)ref_face, (uint32_t)he->origin);
		poly[count].edge = (uint32_t)e;
		++count;
		e = he->next;
	} while (e != face->edge && count < KL_CLIP_CAPACITY);

	const kl_hull_face* rf = ref->faces + ref_face;
	e = rf->edge;
	do
	{
		const kl_hull_half_edge* he = ref->edges + e;
		vec3s p = hull_vertex(pair, ref_is_b, he->origin);
		vec3s q = hull_vertex(pair, ref_is_b, ref->edges[he->next].origin);
		vec3s side = kl_cross3(kl_sub3(q, p), n);
		int clipped = clip_polygon(poly, count, side, kl_dot3(side, p), (uint32_t)e, ref_is_b, spare);
		if (clipped >= 0)
		{
			count = clipped;
			kl_clip_vertex* swap = poly;
			poly = spare;
			spare = swap;
		}
		e = he->next;
	} while (e != rf->edge && count > 0);

	int kept = 0;
	for (int i = 0; i < count; ++i)
	{
		float s = kl_dot3(n, poly[i].p) - offset;
		if (s <= speculative)
		{
			kl_manifold_point* mp = points + kept++;
			memset(mp, 0, sizeof(*mp));
			mp->point = kl_sub3(poly[i].p, kl_scale3(n, 0.5f * s));
			mp->separation = s;
			mp->id = poly[i].id;
		}
	}
	*normal = ref_is_b ? kl_scale3(n, -1.0f) : n;
	return kept;
}

int kl_support_contact(const kl_sat_pair* pair, bool ref_is_b, int ref_face, kl_manifold_point* point, vec3s* normal)
{
	vec3s n = hull_normal(pair, ref_is_b, ref_face);
	float offset = ref_is_b ? kl_sat_offset_b(pair, ref_face) : pair->a->faces[ref_face].offset;
	int v = support_vertex(pair, !ref_is_b, n);
	vec3s p = hull_vertex(pair, !ref_is_b, v);
	float s = kl_dot3(n, p) - offset;
	memset(point, 0, sizeof(*point));
	point->point = kl_sub3(p, kl_scale3(n, 0.5f * s));
	point->separation = s;
	point->id = kl_make_feature_id(ref_is_b, KL_ID_VERTEX, (uint32_t)ref_face, (uint32_t)v);
	*normal = ref_is_b ? kl_scale3(n, -1.0f) : n;
	return 1;
}

// Closest points of segments p1 + s d1 and p2 + t d2, s and t in [0, 1] (both of positive length).
static void closest_on_segments(vec3s p1, vec3s d1, vec3s p2, vec3s d2, vec3s* c1, vec3s* c2)
{
	vec3s r = kl_sub3(p1, p2);
	float a = kl_dot3(d1, d1);
	float e = kl_dot3(d2, d2);
	float f = kl_dot3(d2, r);
	float c = kl_dot3(d1, r);
	float b = kl_dot3(d1, d2);
	float denom = a * e - b * b;
	float s = denom > 0.0f ? glm_clamp((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
	float t = (b * s + f) / e;
	if (t < 0.0f)
	{
		t = 0.0f;
		s = glm_clamp(-c / a, 0.0f, 1.0f);
	}
	else if (t > 1.0f)
	{
		t = 1.0f;
		s = glm_clamp((b - c) / a, 0.0f, 1.0f);
	}
	*c1 = kl_add3(p1, kl_scale3(d1, s));
	*c2 = kl_add3(p2, kl_scale3(d2, t));
}

int kl_edge_contact(const kl_sat_pair* pair, const kl_edge_query* query, kl_manifold_point* point)
{
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	vec3s pa = a->vertices[a->edges[query->edge_a].origin];
	vec3s da = kl_sub3(a->vertices[a->edges[query->edge_a + 1].origin], pa);
	vec3s pb = kl_sat_vertex_b(pair, b->edges[query->edge_b].origin);
	vec3s db = kl_sub3(kl_sat_vertex_b(pair, b->edges[query->edge_b + 1].origin), pb);
	vec3s ca, cb;
	closest_on_segments(pa, da, pb, db, &ca, &cb);
	memset(point, 0, sizeof(*point));
	point->point = kl_scale3(kl_add3(ca, cb), 0.5f);
	point->separation = query->separation;
	point->id = kl_make_feature_id(false, KL_ID_EDGES, (uint32_t)query->edge_a >> 1, (uint32_t)query->edge_b >> 1);
	return 1;
}
