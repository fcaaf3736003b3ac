// Kollide — GJK closest points between convex cores, and the segment closest-point forms.
// SPDX-License-Identifier: MIT
#include "gjk.h"

#include "core.h"

#include <float.h>
#include <string.h>

// GJK walks a simplex of Minkowski-difference points w = a - b towards the origin. Each step
// reduces the simplex to the smallest face that holds its point closest to the origin (Johnson's
// sub-algorithm), computed here from signed areas and volumes: the barycentric weight of a
// vertex is the signed measure of the sub-simplex where the origin's projection replaces it, so a
// negative weight says exactly which faces the origin lies beyond. Only those faces are solved
// further. Degenerate simplices (zero area or volume in float) are recognised by size-relative
// tests and never divided by; a step that does not bring the simplex closer is undone and ends
// the search, so the result is always the best simplex seen and the loop always terminates.

typedef struct kl_simplex_vertex
{
	vec3s wa; ///< support point of a (b's frame)
	vec3s wb; ///< support point of b
	vec3s w;  ///< wa - wb
	float weight;
	int ia;
	int ib;
} kl_simplex_vertex;

typedef struct kl_simplex
{
	kl_simplex_vertex v[4];
	int count;
} kl_simplex;

/// Core a placed in b's frame; the rotation is skipped when the placement is the identity.
typedef struct kl_placement
{
	kl_transform xf;
	bool identity;
} kl_placement;

#define KL_GJK_MAX_ITERATIONS 64

// ---------------------------------------------------------------------------------------------
// Proxies

bool kl_gjk_make_proxy(const kl_collider* c, vec3s storage[2], kl_gjk_proxy* p)
{
	memset(p, 0, sizeof(*p));
	switch (c->type)
	{
		case KL_SHAPE_SPHERE:
			storage[0] = kl_vec3(0.0f, 0.0f, 0.0f);
			p->points = storage;
			p->count = 1;
			p->radius = c->radius;
			return true;
		case KL_SHAPE_CAPSULE:
			storage[0] = kl_vec3(0.0f, 0.0f, -c->capsule.half_height);
			storage[1] = kl_vec3(0.0f, 0.0f, c->capsule.half_height);
			p->points = storage;
			p->count = 2;
			p->radius = c->capsule.radius;
			return true;
		case KL_SHAPE_BOX:
			p->half_extents = c->half_extents;
			p->count = 8;
			return true;
		case KL_SHAPE_HULL:
			if (c->hull == NULL || c->hull->vertex_count < 1)
			{
				kl_fail(KL_ERR_INVALID_ARGUMENT, "gjk: hull collider without a hull");
				return false;
			}
			p->points = c->hull->vertices;
			p->count = c->hull->vertex_count;
			return true;
		default:
			kl_fail(KL_ERR_UNSUPPORTED, "gjk: shape type %d has no convex core", (int)c->type);
			return false;
	}
}

static inline vec3s kl_proxy_vertex(const kl_gjk_proxy* p, int i)
{
	if (p->points != NULL)
	{
		return p->points[i];
	}
	vec3s h = p->half_extents;
	return kl_vec3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
}

/// Index of the vertex farthest along d (the first of equals).
static inline int kl_proxy_support(const kl_gjk_proxy* p, vec3s d)
{
	if (p->points == NULL)
	{
		return (d.x > 0.0f ? 1 : 0) | (d.y > 0.0f ? 2 : 0) | (d.z > 0.0f ? 4 : 0);
	}
	int best = 0;
	float best_dot = glms_vec3_dot(p->points[0], d);
	for (int i = 1; i < p->count; ++i)
	{
		float dot = glms_vec3_dot(p->points[i], d);
		if (dot > best_dot)
		{
			best = i;
			best_dot = dot;
		}
	}
	return best;
}

static inline vec3s kl_place(const kl_placement* pl, vec3s v)
{
	return pl->identity ? v : kl_transform_point(pl->xf, v);
}

static void kl_simplex_vertex_set(kl_simplex_vertex* sv, const kl_gjk_proxy* a, const kl_placement* pl,
								  const kl_gjk_proxy* b, int ia, int ib)
{
	sv->ia = ia;
	sv->ib = ib;
	sv->wa = kl_place(pl, kl_proxy_vertex(a, ia));
	sv->wb = kl_proxy_vertex(b, ib);
	sv->w = glms_vec3_sub(sv->wa, sv->wb);
	sv->weight = 1.0f;
}

// ---------------------------------------------------------------------------------------------
// Sub-algorithm: picks the sub-simplex (indices into w) and weights of the point nearest the
// origin, without touching the simplex itself, so a step that does not help is simply dropped.

typedef struct kl_reduced
{
	int count;
	int index[4];
	float weight[4];
	float d2; ///< squared distance of the point to the origin
} kl_reduced;

static inline float kl_det3(vec3s a, vec3s b, vec3s c)
{
	return glms_vec3_dot(a, glms_vec3_cross(b, c));
}

static void kl_reduced_finish(const vec3s* w, kl_reduced* r)
{
	vec3s p = glms_vec3_scale(w[r->index[0]], r->weight[0]);
	for (int i = 1; i < r->count; ++i)
	{
		p = glms_vec3_add(p, glms_vec3_scale(w[r->index[i]], r->weight[i]));
	}
	r->d2 = glms_vec3_norm2(p);
}

static inline void kl_reduced_vertex(const vec3s* w, int i, kl_reduced* r)
{
	r->count = 1;
	r->index[0] = i;
	r->weight[0] = 1.0f;
	r->d2 = glms_vec3_norm2(w[i]);
}

/// Segment (i, j): the closest point is a vertex or lies between them.
static void kl_reduce_segment(const vec3s* w, int i, int j, kl_reduced* r)
{
	vec3s a = w[i], b = w[j];
	vec3s e = glms_vec3_sub(b, a);
	float ub = -glms_vec3_dot(a, e); // weight of b, times |e|²
	float ua = glms_vec3_dot(b, e);	 // weight of a, times |e|²
	if (ub <= 0.0f)
	{
		kl_reduced_vertex(w, i, r);
		return;
	}
	if (ua <= 0.0f)
	{
		kl_reduced_vertex(w, j, r);
		return;
	}
	float inv = 1.0f / (ua + ub);
	r->count = 2;
	r->index[0] = i;
	r->index[1] = j;
	r->weight[0] = ua * inv;
	r->weight[1] = ub * inv;
	kl_reduced_finish(w, r);
}

static inline void kl_keep_better(const kl_reduced* candidate, kl_reduced* best)
{
	if (candidate->d2 < best->d2)
	{
		*best = *candidate;
	}
}

/// Triangle (i, j, k).
static void kl_reduce_triangle(const vec3s* w, int i, int j, int k, kl_reduced* r)
{
	vec3s a = w[i], b = w[j], c = w[k];
	vec3s ab = glms_vec3_sub(b, a), ac = glms_vec3_sub(c, a);
	vec3s n = glms_vec3_cross(ab, ac);
	float nn = glms_vec3_norm2(n);
	// Signed areas of the origin's projection against each edge (each one is the weight of the
	// opposite vertex times |n|²).
	float u[3];
	u[0] = glms_vec3_dot(n, glms_vec3_cross(b, c));
	u[1] = glms_vec3_dot(n, glms_vec3_cross(c, a));
	u[2] = glms_vec3_dot(n, glms_vec3_cross(a, b));
	// A sliver (sine of its angle below ~1e-3) has no reliable plane: solve its edges instead.
	bool flat = !(nn > 1.0e-6f * glms_vec3_norm2(ab) * glms_vec3_norm2(ac));
	if (!flat && u[0] >= 0.0f && u[1] >= 0.0f && u[2] >= 0.0f)
	{
		float inv = 1.0f / (u[0] + u[1] + u[2]);
		r->count = 3;
		r->index[0] = i;
		r->index[1] = j;
		r->index[2] = k;
		r->weight[0] = u[0] * inv;
		r->weight[1] = u[1] * inv;
		r->weight[2] = u[2] * inv;
		kl_reduced_finish(w, r);
		return;
	}
	// The origin lies beyond the edges whose opposite weight is negative: the closest point is
	// on one of them (a vertex included).
	const int v[3] = {i, j, k};
	r->d2 = FLT_MAX;
	for (int e = 0; e < 3; ++e)
	{
		if (flat || u[e] < 0.0f)
		{
			kl_reduced edge;
			kl_reduce_segment(w, v[(e + 1) % 3], v[(e + 2) % 3], &edge);
			kl_keep_better(&edge, r);
		}
	}
}

/// Tetrahedron (0, 1, 2, 3). Returns false when it encloses the origin.
static bool kl_reduce_tetrahedron(const vec3s* w, kl_reduced* r)
{
	vec3s a = w[0], b = w[1], c = w[2], d = w[3];
	vec3s ab = glms_vec3_sub(b, a), ac = glms_vec3_sub(c, a), ad = glms_vec3_sub(d, a);
	float volume = kl_det3(ab, ac, ad);
	// Signed volumes with the origin in place of each vertex (weight times the volume).
	float u[4];
	u[0] = kl_det3(b, c, d);
	u[1] = kl_det3(glms_vec3_negate(a), ac, ad);
	u[2] = kl_det3(ab, glms_vec3_negate(a), ad);
	u[3] = kl_det3(ab, ac, glms_vec3_negate(a));
	float scale = glms_vec3_norm(ab) * glms_vec3_norm(ac) * glms_vec3_norm(ad);
	bool flat = !(fabsf(volume) > 1.0e-5f * scale);
	if (!flat)
	{
		float sign = volume > 0.0f ? 1.0f : -1.0f;
		bool inside = true;
		for (int k = 0; k < 4; ++k)
		{
			u[k] *= sign;
			inside = inside && u[k] >= 0.0f;
		}
		if (inside)
		{
			float inv = 1.0f / (u[0] + u[1] + u[2] + u[3]);
			r->count = 4;
			for (int k = 0; k < 4; ++k)
			{
				r->index[k] = k;
				r->weight[k] = u[k] * inv;
			}
			r->d2 = 0.0f;
			return false;
		}
	}
	static const int faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
	r->d2 = FLT_MAX;
	for (int k = 0; k < 4; ++k)
	{
		if (flat || u[k] < 0.0f)
		{
			kl_reduced face;
			kl_reduce_triangle(w, faces[k][0], faces[k][1], faces[k][2], &face);
			kl_keep_better(&face, r);
		}
	}
	return true;
}

/// Reduces the simplex with vertices w[0..count); false when it encloses the origin.
static bool kl_reduce(const vec3s* w, int count, kl_reduced* r)
{
	switch (count)
	{
		case 1:
			kl_reduced_vertex(w, 0, r);
			return true;
		case 2:
			kl_reduce_segment(w, 0, 1, r);
			return true;
		case 3:
			kl_reduce_triangle(w, 0, 1, 2, r);
			return true;
		default:
			return kl_reduce_tetrahedron(w, r);
	}
}

// ---------------------------------------------------------------------------------------------
// Main loop

static void kl_gjk_output_from(const kl_simplex* s, bool overlap, int iterations, kl_gjk_output* out)
{
	vec3s pa = glms_vec3_scale(s->v[0].wa, s->v[0].weight);
	vec3s pb = glms_vec3_scale(s->v[0].wb, s->v[0].weight);
	for (int i = 1; i < s->count; ++i)
	{
		pa = glms_vec3_add(pa, glms_vec3_scale(s->v[i].wa, s->v[i].weight));
		pb = glms_vec3_add(pb, glms_vec3_scale(s->v[i].wb, s->v[i].weight));
	}
	out->simplex_count = s->count;
	for (int i = 0; i < 4; ++i)
	{
		bool used = i < s->count;
		out->index_a[i] = used ? s->v[i].ia : -1;
		out->index_b[i] = used ? s->v[i].ib : -1;
		out->weight[i] = used ? s->v[i].weight : 0.0f;
	}
	out->iterations = iterations;
	out->point_a = pa;
	out->point_b = pb;
	vec3s d = glms_vec3_sub(pb, pa);
	float dist = glms_vec3_norm(d);
	if (overlap || !(dist > 0.0f))
	{
		out->distance = 0.0f;
		out->normal = kl_vec3(0.0f, 0.0f, 0.0f);
		// One witness for both: the cores share a point.
		out->point_b = pa;
		return;
	}
	out->distance = dist;
	out->normal = glms_vec3_scale(d, 1.0f / dist);
}

/// Keeps the vertices (and weights) the reduction picked, in its order.
static void kl_simplex_apply(kl_simplex* s, const kl_reduced* r)
{
	kl_simplex_vertex kept[4];
	for (int i = 0; i < r->count; ++i)
	{
		kept[i] = s->v[r->index[i]];
		kept[i].weight = r->weight[i];
	}
	for (int i = 0; i < r->count; ++i)
	{
		s->v[i] = kept[i];
	}
	s->count = r->count;
}

void kl_gjk(const kl_gjk_proxy* a, kl_transform xf_ab, const kl_gjk_proxy* b, int start_a, int start_b,
			kl_gjk_output* out)
{
	kl_placement pl = {xf_ab, false};
	pl.identity = xf_ab.q.x == 0.0f && xf_ab.q.y == 0.0f && xf_ab.q.z == 0.0f && xf_ab.q.w == 1.0f &&
				  xf_ab.p.x == 0.0f && xf_ab.p.y == 0.0f && xf_ab.p.z == 0.0f;
	versors q_inv = {{-xf_ab.q.x, -xf_ab.q.y, -xf_ab.q.z, xf_ab.q.w}};

	kl_simplex s;
	s.count = 1;
	start_a = start_a >= 0 && start_a < a->count ? start_a : 0;
	start_b = start_b >= 0 && start_b < b->count ? start_b : 0;
	kl_simplex_vertex_set(&s.v[0], a, &pl, b, start_a, start_b);
	vec3s w[4];
	w[0] = s.v[0].w;

	vec3s v = s.v[0].w;
	// Size of the coordinates involved: the overlap threshold is relative to it.
	float scale2 = glms_vec3_norm2(s.v[0].wa) + glms_vec3_norm2(s.v[0].wb);
	bool overlap = false;
	int iter = 0;
	for (; iter < KL_GJK_MAX_ITERATIONS; ++iter)
	{
		float vv = glms_vec3_norm2(v);
		if (vv <= 1.0e-12f * scale2)
		{
			overlap = true;
			break;
		}
		// Support of a - b towards the origin: a along -v, b along v.
		vec3s dir_a = pl.identity ? glms_vec3_negate(v) : kl_rotate(q_inv, glms_vec3_negate(v));
		int ia = kl_proxy_support(a, dir_a);
		int ib = kl_proxy_support(b, v);
		bool repeated = false;
		for (int i = 0; i < s.count; ++i)
		{
			repeated = repeated || (s.v[i].ia == ia && s.v[i].ib == ib);
		}
		if (repeated)
		{
			break;
		}
		kl_simplex_vertex* nv = s.v + s.count;
		kl_simplex_vertex_set(nv, a, &pl, b, ia, ib);
		// No support point measurably closer than v: v is the answer.
		if (vv - glms_vec3_dot(v, nv->w) <= FLT_EPSILON * vv)
		{
			break;
		}
		scale2 = glm_max(scale2, glms_vec3_norm2(nv->wa) + glms_vec3_norm2(nv->wb));
		for (int i = 0; i < s.count; ++i)
		{
			w[i] = s.v[i].w;
		}
		w[s.count] = nv->w;
		kl_reduced r;
		if (!kl_reduce(w, s.count + 1, &r))
		{
			s.count += 1;
			kl_simplex_apply(&s, &r);
			overlap = true;
			++iter;
			break;
		}
		if (!(r.d2 < vv))
		{
			break; // rounding stalled the descent: keep the better simplex
		}
		s.count += 1;
		kl_simplex_apply(&s, &r);
		v = glms_vec3_scale(s.v[0].w, s.v[0].weight);
		for (int i = 1; i < s.count; ++i)
		{
			v = glms_vec3_add(v, glms_vec3_scale(s.v[i].w, s.v[i].weight));
		}
	}
	kl_gjk_output_from(&s, overlap, iter, out);
}

// ---------------------------------------------------------------------------------------------
// Distance query

float kl_convex_distance(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
						 vec3s* point_a, vec3s* point_b)
{
	if (a == NULL || b == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "convex distance: NULL collider");
		return 0.0f;
	}
	vec3s storage_a[2], storage_b[2];
	kl_gjk_proxy pa, pb;
	if (!kl_gjk_make_proxy(a, storage_a, &pa) || !kl_gjk_make_proxy(b, storage_b, &pb))
	{
		return 0.0f;
	}
	// Work in b's frame: a placed by inv(xf_b) * xf_a.
	versors qb_inv = {{-xf_b.q.x, -xf_b.q.y, -xf_b.q.z, xf_b.q.w}};
	kl_transform xf_ab;
	xf_ab.q = glms_quat_mul(qb_inv, xf_a.q);
	xf_ab.p = kl_inv_rotate(xf_b.q, glms_vec3_sub(xf_a.p, xf_b.p));
	kl_gjk_output out;
	kl_gjk(&pa, xf_ab, &pb, 0, 0, &out);
	float distance = out.distance - pa.radius - pb.radius;
	vec3s wa = out.point_a, wb = out.point_b;
	if (distance > 0.0f)
	{
		wa = glms_vec3_add(wa, glms_vec3_scale(out.normal, pa.radius));
		wb = glms_vec3_sub(wb, glms_vec3_scale(out.normal, pb.radius));
	}
	else
	{
		distance = 0.0f;
		if (out.distance > 0.0f)
		{
			// Rounded shapes overlap while their cores do not: one point between the surfaces.
			float t = pa.radius + pb.radius > 0.0f ? pa.radius / (pa.radius + pb.radius) : 0.5f;
			wa = glms_vec3_add(out.point_a, glms_vec3_scale(glms_vec3_sub(out.point_b, out.point_a), t));
			wb = wa;
		}
	}
	if (point_a != NULL)
	{
		*point_a = kl_transform_point(xf_b, wa);
	}
	if (point_b != NULL)
	{
		*point_b = kl_transform_point(xf_b, wb);
	}
	return distance;
}

// ---------------------------------------------------------------------------------------------
// Segment closest points

vec3s kl_closest_on_segment(vec3s p, vec3s a, vec3s b, float* t)
{
	vec3s e = glms_vec3_sub(b, a);
	float ee = glms_vec3_norm2(e);
	float s = ee > 0.0f ? glms_vec3_dot(glms_vec3_sub(p, a), e) / ee : 0.0f;
	s = glm_clamp(s, 0.0f, 1.0f);
	*t = s;
	return glms_vec3_add(a, glms_vec3_scale(e, s));
}

void kl_closest_segments(vec3s p1, vec3s q1, vec3s p2, vec3s q2, float* s_out, float* t_out)
{
	vec3s d1 = glms_vec3_sub(q1, p1), d2 = glms_vec3_sub(q2, p2), r = glms_vec3_sub(p1, p2);
	float a = glms_vec3_norm2(d1), e = glms_vec3_norm2(d2), f = glms_vec3_dot(d2, r);
	float s = 0.0f, t = 0.0f;
	if (a <= FLT_MIN && e <= FLT_MIN)
	{
		// both points
	}
	else if (a <= FLT_MIN)
	{
		t = glm_clamp(f / e, 0.0f, 1.0f);
	}
	else
	{
		float c = glms_vec3_dot(d1, r);
		if (e <= FLT_MIN)
		{
			s = glm_clamp(-c / a, 0.0f, 1.0f);
		}
		else
		{
			float bb = glms_vec3_dot(d1, d2);
			float denom = a * e - bb * bb;
			// Parallel segments (denominator lost to rounding) take s = 0 and let the clamps
			// below find the matching t; the pair's overlap is handled by the callers.
			s = denom > 1.0e-6f * a * e ? glm_clamp((bb * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
			t = (bb * s + f) / e;
			if (t < 0.0f)
			{
				t = 0.0f;
				s = glm_clamp(-c / a, 0.0f, 1.0f);
			}
			else if (t > 1.0f)
			{
				t = 1.0f;
				s = glm_clamp((bb - c) / a, 0.0f, 1.0f);
			}
		}
	}
	*s_out = s;
	*t_out = t;
}
