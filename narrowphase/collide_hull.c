// Kollide — polyhedron contacts: hull–hull by the separating-axis test and clipping (Gregorius,
// GDC 2013 and 2015), with the last separating axis cached per pair, and plane–hull.
// SPDX-License-Identifier: MIT
#include "sat.h"

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
	if (count > KL_MAX_MANIFOLD_POINTS)
	{
		count = kl_reduce_manifold_points(candidates, count, normal, m->points);
	}
	else
	{
		memcpy(m->points, candidates, (size_t)count * sizeof(kl_manifold_point));
	}
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
	kl_sat_pair pair;
	kl_sat_pair_init(&pair, a, b, glms_quat_mul(conj_a, xf_b.q), kl_inv_rotate(xf_a.q, kl_sub3(xf_b.p, xf_a.p)));

	// A remembered axis that still separates proves there is no contact, whatever the pose.
	if (cache != NULL && cache->type != KL_SAT_NONE)
	{
		float s = kl_sat_axis_separation(&pair, cache->type, cache->index_a, cache->index_b);
		if (s > speculative)
		{
			cache->separation = s;
			cache->flags = KL_SAT_SEPARATED;
			return;
		}
	}

	kl_sat_storage storage;
	kl_sat_pair_transform(&pair, &storage);
	kl_sat_result r = kl_sat_query(&pair, speculative);
	kl_hull_store_cache(cache, &r, speculative);
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
