// Kollide — contact points of one triangle pair: face clipping for opposite faces, the crossing
// segment for penetrating triangles, closest points for separated ones.
// SPDX-License-Identifier: MIT
#include "tri_contact.h"

#include "core.h"
#include "dvec3.h"
#include "manifold.h"
#include "tri_edge.h"

#include <float.h>

// All geometry runs in double around a[0], so that triangles far from the origin keep their
// small gaps; results go back to float at the end.

/// Unit normal of a counter-clockwise triangle; false when it has (nearly) no area.
static bool kl_unit_normal(const kl_d3 t[3], kl_d3* n)
{
	kl_d3 u = kl_d3_sub(t[1], t[0]), v = kl_d3_sub(t[2], t[0]);
	kl_d3 c = kl_d3_cross(u, v);
	double c2 = kl_d3_dot(c, c);
	if (!(c2 > 1e-14 * kl_d3_dot(u, u) * kl_d3_dot(v, v)))
	{
		return false;
	}
	*n = kl_d3_scale(c, 1.0 / sqrt(c2));
	return true;
}

kl_tri_contact_config kl_tri_contact_config_default(void)
{
	kl_tri_contact_config c;
	c.margin = KL_SPECULATIVE_DISTANCE;
	c.max_depth = 0.1f;
	c.parallel_cos = 0.98480775f; // cos 10°
	return c;
}

uint32_t kl_tri_contact_id(const kl_tri_contact* contact)
{
	// murmur3's finaliser over a mix of the four fields: cheap, and neighbouring triangle
	// indices give unrelated ids.
	uint32_t h = contact->tri_a * 0x9E3779B1u;
	h ^= (contact->tri_b * 0x85EBCA77u) + 0x7F4A7C15u + (h << 6) + (h >> 2);
	h ^= ((uint32_t)contact->feature_a << 3 | contact->feature_b) * 0xC2B2AE3Du;
	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	h ^= h >> 16;
	return h;
}

static kl_tri_contact kl_make_contact(vec3s point, vec3s normal, float separation, uint32_t tri_a, uint32_t tri_b,
									  uint8_t fa, uint8_t fb, kl_tri_contact_kind kind)
{
	kl_tri_contact c;
	c.point = point;
	c.normal = normal;
	c.separation = separation;
	c.tri_a = tri_a;
	c.tri_b = tri_b;
	c.feature_a = fa;
	c.feature_b = fb;
	c.kind = (uint8_t)kind;
	return c;
}

// ---------------------------------------------------------------------------------------------
// Face against face

static inline bool kl_is_vertex(uint8_t f)
{
	return f < KL_TRI_EDGE0;
}

static inline bool kl_is_edge(uint8_t f)
{
	return f >= KL_TRI_EDGE0 && f < KL_TRI_FACE;
}

/// The smallest feature of a triangle that contains both features.
static uint8_t kl_common_feature(uint8_t f, uint8_t g)
{
	if (f == g)
	{
		return f;
	}
	if (kl_is_vertex(f) && kl_is_vertex(g))
	{
		int i = f, j = g;
		return (uint8_t)(KL_TRI_EDGE0 + ((i + 1) % 3 == j ? i : j)); // edge k joins k and k+1
	}
	if (kl_is_vertex(g) && kl_is_edge(f))
	{
		uint8_t t = f;
		f = g;
		g = t;
	}
	if (kl_is_vertex(f) && kl_is_edge(g))
	{
		int i = f, k = g - KL_TRI_EDGE0;
		return (i == k || i == (k + 1) % 3) ? g : (uint8_t)KL_TRI_FACE;
	}
	return KL_TRI_FACE;
}

/// The feature where a set lying on feature f meets the line of edge k.
static uint8_t kl_meet_edge(uint8_t f, int k)
{
	if (kl_is_edge(f) && f != KL_TRI_EDGE0 + k)
	{
		int m = f - KL_TRI_EDGE0;
		return (uint8_t)(KL_TRI_VERTEX0 + ((m + 1) % 3 == k ? k : m)); // vertex shared by edges m, k
	}
	return (uint8_t)(KL_TRI_EDGE0 + k);
}

typedef struct kl_clip_vertex
{
	kl_d3 p;
	uint8_t fa, fb;
} kl_clip_vertex;

/// Sutherland–Hodgman step: keeps the part of the polygon on the inner side of the side plane of
/// a's edge k, tracking which features of a and b every new vertex lies on.
static int kl_clip_side(const kl_clip_vertex* in, int n, kl_d3 m, kl_d3 o, int k, kl_clip_vertex* out)
{
	int count = 0;
	for (int i = 0; i < n; ++i)
	{
		const kl_clip_vertex* cur = in + i;
		const kl_clip_vertex* nxt = in + (i + 1) % n;
		double dc = kl_d3_dot(m, kl_d3_sub(cur->p, o));
		double dn = kl_d3_dot(m, kl_d3_sub(nxt->p, o));
		if (dc >= 0.0)
		{
			out[count++] = *cur;
		}
		if ((dc > 0.0 && dn < 0.0) || (dc < 0.0 && dn > 0.0))
		{
			kl_clip_vertex v;
			v.p = kl_d3_add(cur->p, kl_d3_scale(kl_d3_sub(nxt->p, cur->p), dc / (dc - dn)));
			v.fa = kl_meet_edge(kl_common_feature(cur->fa, nxt->fa), k);
			v.fb = kl_common_feature(cur->fb, nxt->fb);
			out[count++] = v;
		}
	}
	return count;
}

static int kl_face_contacts(const kl_d3 A[3], const kl_d3 B[3], kl_d3 na, vec3s origin, uint32_t tri_a,
							uint32_t tri_b, const kl_tri_contact_config* config, kl_tri_contact* out)
{
	kl_clip_vertex buf[2][12];
	int n = 3;
	for (int k = 0; k < 3; ++k)
	{
		buf[0][k].p = B[k];
		buf[0][k].fa = KL_TRI_FACE;
		buf[0][k].fb = (uint8_t)(KL_TRI_VERTEX0 + k);
	}
	int cur = 0;
	for (int k = 0; k < 3 && n > 0; ++k)
	{
		kl_d3 edge = kl_d3_sub(A[(k + 1) % 3], A[k]);
		kl_d3 inward = kl_d3_cross(na, edge);
		n = kl_clip_side(buf[cur], n, inward, A[k], k, buf[1 - cur]);
		cur = 1 - cur;
	}
	int count = 0;
	vec3s normal = kl_d3_float(na);
	for (int i = 0; i < n && count < KL_TRI_MAX_CONTACTS; ++i)
	{
		const kl_clip_vertex* v = buf[cur] + i;
		double sep = kl_d3_dot(na, kl_d3_sub(v->p, A[0]));
		if (sep > config->margin || sep < -config->max_depth)
		{
			continue;
		}
		kl_d3 mid = kl_d3_sub(v->p, kl_d3_scale(na, 0.5 * sep));
		out[count++] = kl_make_contact(kl_d3_world(mid, origin), normal, (float)sep, tri_a, tri_b, v->fa, v->fb,
									   KL_TRI_CONTACT_FACE);
	}
	return count;
}

// ---------------------------------------------------------------------------------------------
// Crossing triangles

/// How far the incident triangle reaches behind the reference plane near an end of the crossing
/// segment: through the incident edge the end lies on, else (the end is on the reference
/// triangle's edge, inside the incident face) the pair's depth.
static double kl_end_depth(uint8_t incident_feature, const double d[3], double pair_depth)
{
	if (kl_is_edge(incident_feature))
	{
		int k = incident_feature - KL_TRI_EDGE0;
		double lowest = fmin(d[k], d[(k + 1) % 3]);
		return lowest < 0.0 ? -lowest : 0.0;
	}
	if (kl_is_vertex(incident_feature))
	{
		return d[incident_feature] < 0.0 ? -d[incident_feature] : 0.0;
	}
	return pair_depth;
}

/// The one point of a crossing pair whose way out is across two rims (tri_edge.h).
static int kl_edge_axis_contact(const kl_tri_edge_axis* axis, vec3s origin, uint32_t tri_a, uint32_t tri_b,
								kl_tri_contact* out)
{
	out[0] = kl_make_contact(kl_d3_world(axis->point, origin), kl_d3_float(axis->normal), (float)-axis->depth, tri_a,
							 tri_b, (uint8_t)(KL_TRI_EDGE0 + axis->edge_a), (uint8_t)(KL_TRI_EDGE0 + axis->edge_b),
							 KL_TRI_CONTACT_CROSSING);
	return 1;
}

static int kl_crossing_contacts(const vec3s a[3], const vec3s b[3], const kl_d3 A[3], const kl_d3 B[3], kl_d3 na,
								kl_d3 nb, const kl_tri_edges* edges_a, const kl_tri_edges* edges_b, vec3s origin,
								uint32_t tri_a, uint32_t tri_b, const kl_tri_contact_config* config,
								kl_tri_contact* out)
{
	double da[3], db[3]; // a's vertices against b's plane, b's against a's
	double min_a = 0.0, min_b = 0.0;
	for (int k = 0; k < 3; ++k)
	{
		da[k] = kl_d3_dot(nb, kl_d3_sub(A[k], B[0]));
		db[k] = kl_d3_dot(na, kl_d3_sub(B[k], A[0]));
		min_a = fmin(min_a, da[k]);
		min_b = fmin(min_b, db[k]);
	}
	double depth_into_a = -min_b; // b behind a's face
	double depth_into_b = -min_a;
	bool reference_a = depth_into_a <= depth_into_b;
	kl_d3 n = reference_a ? na : kl_d3_scale(nb, -1.0);
	double depth = reference_a ? depth_into_a : depth_into_b;
	kl_tri_edge_axis axis;
	// The rim axis must be clearly shallower: where both describe the contact (a flat rim on a
	// face) the face's two points hold better than one.
	if (kl_tri_edge_axis_find(A, na, edges_a, B, nb, edges_b, origin, &axis) &&
		axis.depth < depth - 0.1 * KL_LINEAR_SLOP)
	{
		return axis.depth <= config->max_depth ? kl_edge_axis_contact(&axis, origin, tri_a, tri_b, out) : 0;
	}
	if (depth > config->max_depth)
	{
		// Neither face normal describes this pair (an inner face of a body made of overlapping
		// parts, or a deep pass-through): pushing along either would be wrong. Other pairs carry
		// the contact.
		return 0;
	}
	const double* incident_d = reference_a ? db : da;
	// The incident side lies on -n of the reference plane when a is the reference, on +n else.
	double side = reference_a ? -1.0 : 1.0;
	vec3s normal = kl_d3_float(n);

	vec3s ends[2];
	uint8_t fa[2], fb[2];
	if (!kl_tri_tri_intersection_segment(a, b, ends, fa, fb))
	{
		// Coplanar (same-facing) or a crossing too thin for a line: one touching point.
		kl_tri_distance dist = kl_tri_tri_distance(a, b);
		out[0] = kl_make_contact(dist.point_a, normal, 0.0f, tri_a, tri_b, dist.feature_a, dist.feature_b,
								 KL_TRI_CONTACT_CROSSING);
		return 1;
	}
	// A face normal whose depth dwarfs the crossing line is a sliver: two rims crossing in a thin
	// band of overlap (a tilted gear on a gear, where the rim axis falls outside the edges' arcs),
	// whose way out is across the band, not the depth of a whole triangle sideways. The faces
	// beyond the rims carry that contact.
	kl_d3 line = kl_d3_sub(kl_d3_rel(ends[1], origin), kl_d3_rel(ends[0], origin));
	double length = sqrt(kl_d3_dot(line, line));
	if (depth > 8.0 * length + 0.2 * KL_LINEAR_SLOP)
	{
		return 0;
	}
	int count = 0;
	for (int i = 0; i < 2; ++i)
	{
		if (i == 1 && fa[1] == fa[0] && fb[1] == fb[0])
		{
			break; // both ends on the same features: a touching point
		}
		uint8_t incident_feature = reference_a ? fb[i] : fa[i];
		double d = kl_end_depth(incident_feature, incident_d, depth);
		kl_d3 e = kl_d3_rel(ends[i], origin);
		kl_d3 mid = kl_d3_add(e, kl_d3_scale(n, side * 0.5 * d));
		out[count++] = kl_make_contact(kl_d3_world(mid, origin), normal, (float)-d, tri_a, tri_b, fa[i], fb[i],
									   KL_TRI_CONTACT_CROSSING);
	}
	return count;
}

// ---------------------------------------------------------------------------------------------

static bool kl_tri_finite(const vec3s t[3])
{
	return kl_vec3_is_finite(t[0]) && kl_vec3_is_finite(t[1]) && kl_vec3_is_finite(t[2]);
}

int kl_tri_contacts(const vec3s a[3], const vec3s b[3], uint32_t tri_a, uint32_t tri_b,
					const kl_tri_contact_config* config, kl_tri_contact out[KL_TRI_MAX_CONTACTS])
{
	return kl_tri_contacts_with_edges(a, NULL, b, NULL, tri_a, tri_b, config, out);
}

int kl_tri_contacts_with_edges(const vec3s a[3], const kl_tri_edges* edges_a, const vec3s b[3],
							   const kl_tri_edges* edges_b, uint32_t tri_a, uint32_t tri_b,
							   const kl_tri_contact_config* config, kl_tri_contact out[KL_TRI_MAX_CONTACTS])
{
	if (a == NULL || b == NULL || config == NULL || out == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_tri_contacts: null argument");
		return 0;
	}
	if (!kl_tri_finite(a) || !kl_tri_finite(b))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_tri_contacts: triangle pair (%u, %u) has non-finite vertices", tri_a,
				tri_b);
		return 0;
	}
	if (!(config->margin >= 0.0f) || !(config->max_depth > 0.0f) || !(config->parallel_cos <= 1.0f))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_tri_contacts: bad config (margin %g, max_depth %g, parallel_cos %g)",
				(double)config->margin, (double)config->max_depth, (double)config->parallel_cos);
		return 0;
	}
	vec3s origin = a[0];
	kl_d3 A[3], B[3];
	for (int k = 0; k < 3; ++k)
	{
		A[k] = kl_d3_rel(a[k], origin);
		B[k] = kl_d3_rel(b[k], origin);
	}
	kl_d3 na, nb;
	if (!kl_unit_normal(A, &na) || !kl_unit_normal(B, &nb))
	{
		return 0;
	}
	// Quick reject: b entirely in front of a's plane beyond the margin, or a of b's.
	double min_b = DBL_MAX, min_a = DBL_MAX;
	for (int k = 0; k < 3; ++k)
	{
		min_b = fmin(min_b, kl_d3_dot(na, kl_d3_sub(B[k], A[0])));
		min_a = fmin(min_a, kl_d3_dot(nb, kl_d3_sub(A[k], B[0])));
	}
	if (min_b > config->margin || min_a > config->margin)
	{
		return 0;
	}

	if (kl_d3_dot(na, nb) < -config->parallel_cos)
	{
		int count = kl_face_contacts(A, B, na, origin, tri_a, tri_b, config, out);
		if (count > 0)
		{
			// Opposite faces that overlap only in a sliver where two rims cross (tooth flanks of
			// two stacked gears) are deep along the faces but shallow across the rims.
			double deepest = 0.0;
			for (int i = 0; i < count; ++i)
			{
				deepest = fmin(deepest, out[i].separation);
			}
			kl_tri_edge_axis axis;
			if (deepest < 0.0 && kl_tri_edge_axis_find(A, na, edges_a, B, nb, edges_b, origin, &axis) &&
				axis.depth < -deepest - 0.1 * KL_LINEAR_SLOP)
			{
				return kl_edge_axis_contact(&axis, origin, tri_a, tri_b, out);
			}
			return count;
		}
	}
	if (kl_tri_tri_overlap(a, b))
	{
		if (kl_d3_dot(na, nb) > config->parallel_cos)
		{
			// Nearly coplanar faces that face the same way (the flanks of two gears stacked tooth
			// on tooth) cannot push each other out; the faces beyond their rims carry the contact.
			return 0;
		}
		return kl_crossing_contacts(a, b, A, B, na, nb, edges_a, edges_b, origin, tri_a, tri_b, config, out);
	}

	kl_tri_distance dist = kl_tri_tri_distance_apart(a, b);
	if (dist.distance > config->margin)
	{
		return 0;
	}
	kl_d3 pa = kl_d3_rel(dist.point_a, origin), pb = kl_d3_rel(dist.point_b, origin);
	kl_d3 gap = kl_d3_sub(pb, pa);
	double len = sqrt(kl_d3_dot(gap, gap));
	if (len <= 1e-7 * (1.0 + sqrt(kl_d3_dot(A[1], A[1]))))
	{
		// Touching without crossing (by a hair the exact test saw): the closest-point direction
		// is noise, so the pair is treated like a crossing one (face normals, depth ~0).
		if (kl_d3_dot(na, nb) > config->parallel_cos)
		{
			return 0;
		}
		return kl_crossing_contacts(a, b, A, B, na, nb, edges_a, edges_b, origin, tri_a, tri_b, config, out);
	}
	kl_d3 n = kl_d3_scale(gap, 1.0 / len);
	// Back faces: the direction must leave a through its front and reach b from its front
	// (perpendicular allowed: an edge or a side face touching a face).
	const double tol = 0.01;
	if (kl_d3_dot(n, na) < -tol || kl_d3_dot(n, nb) > tol)
	{
		return 0;
	}
	kl_d3 mid = kl_d3_scale(kl_d3_add(pa, pb), 0.5);
	out[0] = kl_make_contact(kl_d3_world(mid, origin), kl_d3_float(n), (float)len, tri_a, tri_b, dist.feature_a,
							 dist.feature_b, KL_TRI_CONTACT_SEPARATED);
	return 1;
}
