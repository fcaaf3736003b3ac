// Kollide — polyhedron contacts: hull–hull by the separating-axis test and clipping (Gregorius,
// GDC 2013 and 2015), with the last separating axis cached per pair (and kept without a new SAT
// while the pair's relative pose stays within a small drift of the pose it was found at), and
// plane–hull.
// SPDX-License-Identifier: MIT
#include "sat.h"

#include <float.h>
#include <math.h>
#include <string.h>

void kl_hull_clear_manifold(kl_manifold* m)
{
	m->point_count = 0;
	m->normal = kl_vec3(0.0f, 0.0f, 1.0f);
	m->rolling_impulse = kl_vec3(0.0f, 0.0f, 0.0f);
}

// Reduces count candidates to the manifold and maps points and normal from the frame xf to world.
static void finish_manifold(kl_manifold_point* candidates, int count, vec3s normal, kl_transform xf, kl_manifold* m)
{
	count = kl_reduce_manifold_points(candidates, count, normal, m->points);
	kl_rot33 r = kl_rot33_from_quat(xf.q);
	for (int i = 0; i < count; ++i)
	{
		m->points[i].point = kl_add3(kl_rot33_apply(&r, m->points[i].point), xf.p);
	}
	m->normal = kl_rot33_apply(&r, normal);
	m->point_count = count;
}

void kl_hull_store_cache(kl_collide_cache* cache, const kl_sat_result* r, float speculative)
{
	if (cache == NULL)
	{
		return;
	}
	// Indices that do not fit the cache are not remembered (the next call runs the full SAT).
	bool fits = r->index_a >= 0 && r->index_a <= INT16_MAX && r->index_b >= 0 && r->index_b <= INT16_MAX;
	cache->type = fits ? (uint8_t)r->kind : (uint8_t)KL_SAT_NONE;
	cache->flags = r->separation > speculative ? KL_SAT_SEPARATED : 0u;
	cache->index_a = fits ? (int16_t)r->index_a : 0;
	cache->index_b = fits ? (int16_t)r->index_b : 0;
	cache->separation = r->separation;
}

// Remembers the relative pose of a full SAT that found the pair touching.
static void store_pose(kl_collide_cache* cache, versors q, vec3s t)
{
	if (cache == NULL || cache->type == KL_SAT_NONE || cache->flags != 0)
	{
		return;
	}
	cache->flags = KL_SAT_POSE;
	cache->pose[0] = t.x;
	cache->pose[1] = t.y;
	cache->pose[2] = t.z;
	cache->pose[3] = q.x;
	cache->pose[4] = q.y;
	cache->pose[5] = q.z;
	cache->pose[6] = q.w;
}

// Largest distance of a hull's points from its frame's origin (from the bounds: an upper bound).
static float hull_radius(const kl_hull* h)
{
	vec3s l = h->bounds.lower, u = h->bounds.upper;
	vec3s m = kl_vec3(glm_max(-l.x, u.x), glm_max(-l.y, u.y), glm_max(-l.z, u.z));
	return sqrtf(kl_dot3(m, m));
}

static float distance3(vec3s a, vec3s b)
{
	vec3s d = kl_sub3(a, b);
	return sqrtf(kl_dot3(d, d));
}

// A rotation by angle θ moves a point at distance r from its axis by the chord 2 r sin(θ/2), and
// sin(θ/2) = sqrt(1 - cos²(θ/2)) with cos(θ/2) = |q0 · q| for the rotation between q0 and q. So
// B's points (seen from A) move by at most |Δt| + chord r_B, and A's points (seen from B, where A
// sits at -R^T t) by |Δ(R^T t)| + chord r_A. A face plane of A measures B's points and vice versa;
// the deepest penetration (best axis) moves by at most the smaller of the two, being a property of
// the relative pose; an edge axis turns with both hulls, so it gets the larger.
float kl_hull_pose_drift(const kl_collide_cache* cache, const kl_hull* a, const kl_hull* b, versors q, vec3s t)
{
	if (cache == NULL || !(cache->flags & KL_SAT_POSE))
	{
		return FLT_MAX;
	}
	vec3s t0 = kl_vec3(cache->pose[0], cache->pose[1], cache->pose[2]);
	versors q0 = {{cache->pose[3], cache->pose[4], cache->pose[5], cache->pose[6]}};
	float c = fabsf(q0.x * q.x + q0.y * q.y + q0.z * q.z + q0.w * q.w);
	float chord = 2.0f * sqrtf(glm_max(0.0f, 1.0f - c * c));
	float drift_b = distance3(t, t0) + chord * hull_radius(b);
	float drift_a = distance3(kl_inv_rotate(q, t), kl_inv_rotate(q0, t0)) + chord * hull_radius(a);
	float best = glm_min(drift_a, drift_b);
	float axis = glm_max(drift_a, drift_b);
	axis = cache->type == KL_SAT_FACE_A ? drift_b : (cache->type == KL_SAT_FACE_B ? drift_a : axis);
	float drift = axis + best;
	return drift == drift ? drift : FLT_MAX;
}

bool kl_hull_cached_result(const kl_sat_pair* pair, const kl_collide_cache* cache, float separation, kl_sat_result* r)
{
	memset(r, 0, sizeof(*r));
	r->face_a.separation = -FLT_MAX;
	r->face_b.separation = -FLT_MAX;
	r->edges.edge_a = -1;
	r->edges.edge_b = -1;
	r->edges.separation = -FLT_MAX;
	r->kind = cache->type;
	r->index_a = cache->index_a;
	r->index_b = cache->index_b;
	r->separation = separation;
	if (r->kind == KL_SAT_FACE_A)
	{
		r->face_a.index = r->index_a;
		r->face_a.separation = separation;
		return true;
	}
	if (r->kind == KL_SAT_FACE_B)
	{
		r->face_b.index = r->index_b;
		r->face_b.separation = separation;
		return true;
	}
	// Edges: the contact point comes from the edges' closest points, so they must still be the
	// supporting features along the axis: the distance between their lines (what the edge query
	// measures) equals the support separation then, and only exceeds it when they no longer touch.
	int ea = r->index_a & ~1, eb = r->index_b & ~1;
	vec3s n;
	if (r->kind != KL_SAT_EDGES || !kl_sat_edge_axis(pair, ea, eb, &n))
	{
		return false;
	}
	vec3s pa = pair->a->vertices[pair->a->edges[ea].origin];
	vec3s pb = kl_sat_vertex_b(pair, pair->b->edges[eb].origin);
	float line = kl_dot3(n, kl_sub3(pb, pa));
	if (!(line - separation <= 0.1f * KL_LINEAR_SLOP))
	{
		return false;
	}
	r->edges.edge_a = ea;
	r->edges.edge_b = eb;
	r->edges.separation = line;
	r->edges.normal = n;
	r->index_a = ea;
	r->index_b = eb;
	r->separation = line;
	return true;
}

void kl_collide_hulls(const kl_hull* a, kl_transform xf_a, const kl_hull* b, kl_transform xf_b, float speculative,
					  kl_collide_cache* cache, kl_manifold* m)
{
	kl_hull_clear_manifold(m);
	if (a == NULL || b == NULL)
	{
		return;
	}
	// B in A's frame: q = conj(qa) qb, t = qa^-1 (pb - pa).
	versors conj_a = {{-xf_a.q.x, -xf_a.q.y, -xf_a.q.z, xf_a.q.w}};
	versors q = glms_quat_mul(conj_a, xf_b.q);
	vec3s t = kl_inv_rotate(xf_a.q, kl_sub3(xf_b.p, xf_a.p));
	kl_sat_pair pair;
	kl_sat_pair_init(&pair, a, b, q, t);

	if (cache != NULL && cache->type != KL_SAT_NONE)
	{
		// A remembered axis that still separates proves there is no contact, whatever the pose.
		float s = kl_sat_axis_separation(&pair, cache->type, cache->index_a, cache->index_b);
		if (s > speculative)
		{
			cache->separation = s;
			cache->flags = KL_SAT_SEPARATED;
			return;
		}
		// A touching pair that has barely moved since its last full SAT keeps that SAT's axis.
		kl_sat_result r;
		if (s > -FLT_MAX && kl_hull_pose_drift(cache, a, b, q, t) <= KL_SAT_COHERENCE_DISTANCE &&
			kl_hull_cached_result(&pair, cache, s, &r))
		{
			cache->separation = r.separation;
			kl_hull_contact(&pair, &r, speculative, xf_a, m);
			return;
		}
	}

	kl_sat_storage storage;
	kl_sat_pair_transform(&pair, &storage);
	kl_sat_result r = kl_sat_query(&pair, speculative);
	kl_hull_store_cache(cache, &r, speculative);
	store_pose(cache, q, t);
	kl_hull_contact(&pair, &r, speculative, xf_a, m);
}

void kl_hull_contact(const kl_sat_pair* pair, const kl_sat_result* r, float speculative, kl_transform xf_a,
					 kl_manifold* m)
{
	if (!(r->separation <= speculative))
	{
		return;
	}
	kl_manifold_point candidates[KL_CLIP_CAPACITY];
	vec3s normal;
	int count;
	if (r->kind == KL_SAT_EDGES)
	{
		count = kl_edge_contact(pair, &r->edges, candidates);
		normal = r->edges.normal;
	}
	else
	{
		bool ref_is_b = r->kind == KL_SAT_FACE_B;
		int ref_face = ref_is_b ? r->index_b : r->index_a;
		count = kl_clip_face_contact(pair, ref_is_b, ref_face, speculative, candidates, &normal);
		if (count == 0 && r->separation < 0.0f)
		{
			// Overlap, but the incident polygon lies outside the reference face (deep penetration
			// of curved hulls): the deepest vertex, so that an overlap always pushes apart.
			count = kl_support_contact(pair, ref_is_b, ref_face, candidates, &normal);
		}
	}
	finish_manifold(candidates, count, normal, xf_a, m);
}

void kl_collide_plane_hull(kl_plane plane, kl_transform xf_a, const kl_hull* b, kl_transform xf_b, float speculative,
						   kl_manifold* m)
{
	kl_hull_clear_manifold(m);
	if (b == NULL)
	{
		return;
	}
	// The plane in B's frame: n_w = qa n, o_w = o + n_w . pa; then n_b = qb^-1 n_w, o_b = o_w - n_w . pb.
	vec3s nw = kl_rotate(xf_a.q, plane.normal);
	float ow = plane.offset + kl_dot3(nw, xf_a.p);
	vec3s n = kl_inv_rotate(xf_b.q, nw);
	float offset = ow - kl_dot3(nw, xf_b.p);

	// Candidates in B's frame. A hull with more touching vertices than the buffer holds is reduced
	// in rounds: the buffer is cut to the manifold's four and filling goes on.
	kl_manifold_point candidates[KL_CLIP_CAPACITY];
	int count = 0;
	for (int i = 0; i < b->vertex_count; ++i)
	{
		vec3s v = b->vertices[i];
		float s = kl_dot3(n, v) - offset;
		if (!(s <= speculative))
		{
			continue;
		}
		if (count == KL_CLIP_CAPACITY)
		{
			kl_manifold_point kept[KL_MAX_MANIFOLD_POINTS];
			count = kl_reduce_manifold_points(candidates, count, n, kept);
			memcpy(candidates, kept, (size_t)count * sizeof(kl_manifold_point));
		}
		kl_manifold_point* p = candidates + count++;
		memset(p, 0, sizeof(*p));
		p->point = kl_sub3(v, kl_scale3(n, 0.5f * s));
		p->separation = s;
		p->id = (uint32_t)i;
	}
	finish_manifold(candidates, count, n, xf_b, m);
}
