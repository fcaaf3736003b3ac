// Kollide — contacts of round shapes: sphere and capsule against each other, against hulls and
// boxes, and against planes. Closed forms where they exist, GJK on the cores otherwise.
// SPDX-License-Identifier: MIT
#include "gjk.h"

#include "core.h"

#include <float.h>

// A sphere is a point core with a radius and a capsule a segment core with one, so every pair
// here is a distance between cores minus the radii. Points sit midway between the two surfaces
// along the normal. Capsule points carry the id of the capsule end they are nearer (0 or 1), so a
// capsule that tips from lying (two points) to leaning (one) keeps warm-starting the end that
// stays down.

/// Below this core distance GJK's normal is no longer trusted and the penetration queries take
/// over (a fraction of the slop: resting round shapes keep their cores a radius apart).
#define KL_CORE_TOLERANCE (0.1f * KL_LINEAR_SLOP)

/// Cosine of the angle within which a capsule's separating normal counts as a hull face normal,
/// so that a capsule resting on a face is clipped to it and gets two points.
#define KL_FACE_ALIGNMENT 0.995f

/// Cosine within which a single contact whose closest point lies inside a face snaps to the face
/// normal, so a sphere resting on a hull face gets the face's exact normal every step.
#define KL_FACE_SNAP 0.9999f

/// Sine of the angle in the contact plane within which two segments count as parallel (capsule
/// on capsule, capsule along a hull edge) and get two points.
#define KL_PARALLEL_SINE 0.02f

/// Cache kind of round–hull: the GJK start vertex.
#define KL_CACHE_ROUND_GJK 1

/// Frame a expressed in frame b: inv(xf_b) * xf_a.
static inline kl_transform kl_relative(kl_transform xf_b, kl_transform xf_a)
{
	versors qb_inv = {{-xf_b.q.x, -xf_b.q.y, -xf_b.q.z, xf_b.q.w}};
	kl_transform r;
	r.q = glms_quat_mul(qb_inv, xf_a.q);
	r.p = kl_inv_rotate(xf_b.q, glms_vec3_sub(xf_a.p, xf_b.p));
	return r;
}

static inline vec3s kl_lerp3(vec3s a, vec3s b, float t)
{
	return glms_vec3_add(a, glms_vec3_scale(glms_vec3_sub(b, a), t));
}

/// Midway between the surface of a (core point pa, radius ra) and the point pb on b's surface,
/// normal from a to b.
static inline vec3s kl_mid_point(vec3s pa, float ra, vec3s pb, vec3s n)
{
	return glms_vec3_scale(glms_vec3_add(glms_vec3_add(pa, glms_vec3_scale(n, ra)), pb), 0.5f);
}

/// A unit vector orthogonal to u (unit), chosen deterministically.
static vec3s kl_any_orthogonal(vec3s u)
{
	vec3s t = fabsf(u.x) < 0.57735f ? kl_vec3(1.0f, 0.0f, 0.0f) : kl_vec3(0.0f, 1.0f, 0.0f);
	return glms_vec3_normalize(glms_vec3_cross(u, t));
}

/// The capsule's core segment, in world or after xf.
static inline void kl_capsule_ends(const kl_collider* c, kl_transform xf, vec3s* p0, vec3s* p1)
{
	vec3s axis = kl_rotate(xf.q, kl_vec3(0.0f, 0.0f, c->capsule.half_height));
	*p0 = glms_vec3_sub(xf.p, axis);
	*p1 = glms_vec3_add(xf.p, axis);
}

static inline void kl_add_point(kl_manifold* m, vec3s point, float separation, uint32_t id)
{
	kl_set_manifold_point(m->points + m->point_count, point, separation, id);
	m->point_count += 1;
}

// ---------------------------------------------------------------------------------------------
// Sphere and capsule pairs

void kl_collide_spheres(float ra, kl_transform xf_a, float rb, kl_transform xf_b, float speculative, kl_manifold* m)
{
	kl_clear_manifold(m);
	vec3s d = glms_vec3_sub(xf_b.p, xf_a.p);
	float dist = glms_vec3_norm(d);
	float separation = dist - ra - rb;
	if (separation > speculative)
	{
		return;
	}
	// Concentric spheres have no direction: push along z (up), as good as any.
	vec3s n = dist > 0.0f ? glms_vec3_scale(d, 1.0f / dist) : kl_vec3(0.0f, 0.0f, 1.0f);
	vec3s pb = glms_vec3_sub(xf_b.p, glms_vec3_scale(n, rb));
	m->normal = n;
	kl_add_point(m, kl_mid_point(xf_a.p, ra, pb, n), separation, 0);
}

void kl_collide_capsule_sphere(const kl_collider* a, kl_transform xf_a, float rb, kl_transform xf_b, float speculative,
							   kl_manifold* m)
{
	kl_clear_manifold(m);
	vec3s p0, p1;
	kl_capsule_ends(a, xf_a, &p0, &p1);
	float t;
	vec3s c = kl_closest_on_segment(xf_b.p, p0, p1, &t);
	vec3s d = glms_vec3_sub(xf_b.p, c);
	float dist = glms_vec3_norm(d);
	float ra = a->capsule.radius;
	float separation = dist - ra - rb;
	if (separation > speculative)
	{
		return;
	}
	vec3s n = dist > 0.0f ? glms_vec3_scale(d, 1.0f / dist) : kl_rotate(xf_a.q, kl_vec3(1.0f, 0.0f, 0.0f));
	vec3s pb = glms_vec3_sub(xf_b.p, glms_vec3_scale(n, rb));
	m->normal = n;
	kl_add_point(m, kl_mid_point(c, ra, pb, n), separation, 0);
}

/// Normal between two segments whose closest points (nearly) coincide: across both axes, or
/// across a's axis when they are parallel, turned towards b's centre.
static vec3s kl_crossing_normal(vec3s ua, vec3s ub, vec3s centre_a, vec3s centre_b)
{
	vec3s towards = glms_vec3_sub(centre_b, centre_a);
	vec3s n = glms_vec3_cross(ua, ub);
	float len = glms_vec3_norm(n);
	if (len > 1.0e-3f * glms_vec3_norm(ua) * glms_vec3_norm(ub))
	{
		n = glms_vec3_scale(n, 1.0f / len);
	}
	else
	{
		float uu = glms_vec3_norm2(ua);
		vec3s u = uu > 0.0f ? glms_vec3_scale(ua, 1.0f / sqrtf(uu)) : kl_vec3(0.0f, 0.0f, 1.0f);
		vec3s perp = glms_vec3_sub(towards, glms_vec3_scale(u, glms_vec3_dot(towards, u)));
		float pl = glms_vec3_norm(perp);
		n = pl > 1.0e-6f * glms_vec3_norm(towards) && pl > 0.0f ? glms_vec3_scale(perp, 1.0f / pl)
															   : kl_any_orthogonal(u);
	}
	return glms_vec3_dot(n, towards) < 0.0f ? glms_vec3_negate(n) : n;
}

/// Range [lo, hi] of segment a's parameter over which its projection on b's axis falls within b.
static bool kl_overlap_on_axis(vec3s a0, vec3s a1, vec3s b0, vec3s b1, float* lo, float* hi)
{
	vec3s db = glms_vec3_sub(b1, b0);
	float bb = glms_vec3_norm2(db);
	float s0 = glms_vec3_dot(glms_vec3_sub(a0, b0), db) / bb;
	float s1 = glms_vec3_dot(glms_vec3_sub(a1, b0), db) / bb;
	float ds = s1 - s0;
	if (ds == 0.0f)
	{
		return false;
	}
	// s(t) = s0 + t ds within [0, 1]
	float ta = (0.0f - s0) / ds, tb = (1.0f - s0) / ds;
	*lo = glm_max(0.0f, glm_min(ta, tb));
	*hi = glm_min(1.0f, glm_max(ta, tb));
	return *hi > *lo;
}

void kl_collide_capsules(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
						 float speculative, kl_manifold* m)
{
	kl_clear_manifold(m);
	vec3s a0, a1, b0, b1;
	kl_capsule_ends(a, xf_a, &a0, &a1);
	kl_capsule_ends(b, xf_b, &b0, &b1);
	float ra = a->capsule.radius, rb = b->capsule.radius;
	float s, t;
	kl_closest_segments(a0, a1, b0, b1, &s, &t);
	vec3s ca = kl_lerp3(a0, a1, s), cb = kl_lerp3(b0, b1, t);
	vec3s d = glms_vec3_sub(cb, ca);
	float dist = glms_vec3_norm(d);
	if (dist - ra - rb > speculative)
	{
		return;
	}
	vec3s ua = glms_vec3_sub(a1, a0), ub = glms_vec3_sub(b1, b0);
	vec3s n = dist > KL_CORE_TOLERANCE ? glms_vec3_scale(d, 1.0f / dist) : kl_crossing_normal(ua, ub, xf_a.p, xf_b.p);
	m->normal = n;

	// Lying side by side: both ends of the shared stretch, so one capsule rests stably on the
	// other. Only the crossing angle within the contact plane matters; a tilt along the normal
	// lifts one end, which the speculative cut-off then drops. Each must lie beside the other (a
	// tilted one can reach over the other's end while the other stops short of it), so that the
	// pair gets the same points in either order.
	float la = glms_vec3_norm(ua), lb = glms_vec3_norm(ub);
	float lo, hi, lo_b, hi_b;
	if (la > 0.0f && lb > 0.0f && fabsf(glms_vec3_dot(ua, ub)) > 0.9f * la * lb &&
		fabsf(glms_vec3_dot(ub, glms_vec3_cross(ua, n))) < KL_PARALLEL_SINE * la * lb &&
		kl_overlap_on_axis(a0, a1, b0, b1, &lo, &hi) && kl_overlap_on_axis(b0, b1, a0, a1, &lo_b, &hi_b))
	{
		const float ts[2] = {lo, hi};
		for (int k = 0; k < 2; ++k)
		{
			vec3s qa = kl_lerp3(a0, a1, ts[k]);
			float tb;
			vec3s qb = kl_closest_on_segment(qa, b0, b1, &tb);
			float separation = glms_vec3_dot(glms_vec3_sub(qb, qa), n) - ra - rb;
			if (separation <= speculative)
			{
				vec3s pb = glms_vec3_sub(qb, glms_vec3_scale(n, rb));
				kl_add_point(m, kl_mid_point(qa, ra, pb, n), separation, (uint32_t)k);
			}
		}
		if (m->point_count > 0)
		{
			return;
		}
	}
	float separation = dist > KL_CORE_TOLERANCE ? dist - ra - rb : glms_vec3_dot(d, n) - ra - rb;
	vec3s pb = glms_vec3_sub(cb, glms_vec3_scale(n, rb));
	kl_add_point(m, kl_mid_point(ca, ra, pb, n), separation, s < 0.5f ? 0u : 1u);
}

// ---------------------------------------------------------------------------------------------
// Planes

void kl_collide_plane_round(kl_plane plane, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
							float speculative, kl_manifold* m)
{
	kl_clear_manifold(m);
	vec3s n = kl_rotate(xf_a.q, plane.normal);
	float offset = plane.offset + glms_vec3_dot(n, xf_a.p);
	vec3s core[2];
	int count = 1;
	float r;
	if (b->type == KL_SHAPE_CAPSULE)
	{
		kl_capsule_ends(b, xf_b, core + 0, core + 1);
		count = b->capsule.half_height > 0.0f ? 2 : 1;
		r = b->capsule.radius;
	}
	else
	{
		core[0] = xf_b.p;
		r = b->radius;
	}
	m->normal = n;
	for (int k = 0; k < count; ++k)
	{
		float dist = glms_vec3_dot(n, core[k]) - offset;
		float separation = dist - r;
		if (separation <= speculative)
		{
			// Midway between the plane (dist below) and the surface (r below).
			vec3s point = glms_vec3_sub(core[k], glms_vec3_scale(n, 0.5f * (dist + r)));
			kl_add_point(m, point, separation, (uint32_t)k);
		}
	}
	if (m->point_count == 0)
	{
		m->normal = kl_vec3(0.0f, 0.0f, 0.0f);
	}
}

// ---------------------------------------------------------------------------------------------
// Sphere and box

void kl_collide_sphere_box(float ra, kl_transform xf_a, vec3s h, kl_transform xf_b, float speculative, kl_manifold* m)
{
	kl_clear_manifold(m);
	vec3s c = kl_inv_transform_point(xf_b, xf_a.p);
	vec3s q = kl_vec3(glm_clamp(c.x, -h.x, h.x), glm_clamp(c.y, -h.y, h.y), glm_clamp(c.z, -h.z, h.z));
	vec3s d = glms_vec3_sub(q, c); // from the centre to the box
	float dist2 = glms_vec3_norm2(d);
	vec3s n;
	float separation;
	if (dist2 > 0.0f)
	{
		float dist = sqrtf(dist2);
		separation = dist - ra;
		if (separation > speculative)
		{
			return;
		}
		n = glms_vec3_scale(d, 1.0f / dist);
	}
	else
	{
		// Centre inside: leave through the nearest face (the first of equals).
		int axis = 0;
		float depth = h.x - fabsf(c.x);
		for (int k = 1; k < 3; ++k)
		{
			float dk = h.raw[k] - fabsf(c.raw[k]);
			if (dk < depth)
			{
				depth = dk;
				axis = k;
			}
		}
		float sign = c.raw[axis] < 0.0f ? -1.0f : 1.0f;
		n = kl_vec3(0.0f, 0.0f, 0.0f);
		n.raw[axis] = -sign; // from the sphere into the box
		q.raw[axis] = sign * h.raw[axis];
		separation = -depth - ra;
		if (separation > speculative)
		{
			return;
		}
	}
	vec3s point = kl_mid_point(c, ra, q, n);
	m->normal = kl_rotate(xf_b.q, n);
	kl_add_point(m, kl_transform_point(xf_b, point), separation, 0);
}

// ---------------------------------------------------------------------------------------------
// Round against hull (in the hull's frame)

/// Largest separation of the core from a face plane (the core's lowest point against each face),
/// and that face. Positive: a separating plane, so the cores do not touch.
static float kl_face_query(const kl_hull* h, const vec3s* core, int count, int* face_out)
{
	float best = -FLT_MAX;
	int face = 0;
	for (int f = 0; f < h->face_count; ++f)
	{
		vec3s n = h->faces[f].normal;
		float s = glms_vec3_dot(n, core[0]);
		if (count == 2)
		{
			s = glm_min(s, glms_vec3_dot(n, core[1]));
		}
		s -= h->faces[f].offset;
		if (s > best)
		{
			best = s;
			face = f;
		}
	}
	*face_out = face;
	return best;
}

/// Largest separation of the segment from the hull along the axes across the segment and each
/// hull edge (only edges whose two faces the segment's normal circle passes between). Writes the
/// axis (outward from the hull) and the edge's first half-edge.
static float kl_edge_query(const kl_hull* h, vec3s p0, vec3s p1, vec3s* axis_out, int* edge_out)
{
	vec3s u = glms_vec3_sub(p1, p0);
	float best = -FLT_MAX;
	*edge_out = -1;
	for (int e = 0; e < h->edge_count; e += 2)
	{
		const kl_hull_half_edge* he = h->edges + e;
		vec3s n1 = h->faces[he->face].normal, n2 = h->faces[h->edges[e + 1].face].normal;
		float s1 = glms_vec3_dot(n1, u), s2 = glms_vec3_dot(n2, u);
		if (!(s1 * s2 < 0.0f))
		{
			continue;
		}
		vec3s v0 = h->vertices[he->origin], v1 = h->vertices[h->edges[e + 1].origin];
		vec3s axis = glms_vec3_cross(u, glms_vec3_sub(v1, v0));
		float len = glms_vec3_norm(axis);
		if (!(len > 1.0e-5f * glms_vec3_norm(u) * glms_vec3_distance(v0, v1)))
		{
			continue; // parallel: the neighbouring faces cover it
		}
		axis = glms_vec3_scale(axis, 1.0f / len);
		if (glms_vec3_dot(axis, glms_vec3_add(n1, n2)) < 0.0f)
		{
			axis = glms_vec3_negate(axis);
		}
		float s = glms_vec3_dot(axis, glms_vec3_sub(p0, v0));
		if (s > best)
		{
			best = s;
			*axis_out = axis;
			*edge_out = e;
		}
	}
	return best;
}

/// Clips the segment p0 + t (p1 - p0) to the prism over face f: writes the range of t inside.
static bool kl_clip_to_face(const kl_hull* h, int f, vec3s p0, vec3s p1, float* t0, float* t1)
{
	const kl_hull_face* face = h->faces + f;
	vec3s d = glms_vec3_sub(p1, p0);
	float lo = 0.0f, hi = 1.0f;
	int e = face->edge;
	for (int k = 0; k < face->edge_count; ++k)
	{
		const kl_hull_half_edge* he = h->edges + e;
		vec3s v = h->vertices[he->origin];
		vec3s w = h->vertices[h->edges[he->next].origin];
		vec3s side = glms_vec3_cross(glms_vec3_sub(w, v), face->normal); // outward in the face plane
		float dist0 = glms_vec3_dot(side, glms_vec3_sub(p0, v));
		float dd = glms_vec3_dot(side, d);
		if (dd == 0.0f)
		{
			if (dist0 > 0.0f)
			{
				return false;
			}
		}
		else
		{
			float tc = -dist0 / dd;
			if (dd > 0.0f)
			{
				hi = glm_min(hi, tc);
			}
			else
			{
				lo = glm_max(lo, tc);
			}
		}
		if (lo > hi)
		{
			return false;
		}
		e = he->next;
	}
	*t0 = lo;
	*t1 = hi;
	return true;
}

/// Whether p lies in the prism over face f (within its side planes).
static bool kl_over_face(const kl_hull* h, int f, vec3s p)
{
	const kl_hull_face* face = h->faces + f;
	int e = face->edge;
	for (int k = 0; k < face->edge_count; ++k)
	{
		const kl_hull_half_edge* he = h->edges + e;
		vec3s v = h->vertices[he->origin];
		vec3s w = h->vertices[h->edges[he->next].origin];
		vec3s side = glms_vec3_cross(glms_vec3_sub(w, v), face->normal);
		if (glms_vec3_dot(side, glms_vec3_sub(p, v)) > 0.0f)
		{
			return false;
		}
		e = he->next;
	}
	return true;
}

/// Points of the segment [p0, p1] (radius r) clipped to face f, normal against the face. Returns
/// false when the segment misses the face's prism or no clipped point is within the margin.
static bool kl_face_contact(const kl_hull* h, int f, vec3s p0, vec3s p1, float r, float speculative,
							kl_manifold* m)
{
	float t0, t1;
	if (!kl_clip_to_face(h, f, p0, p1, &t0, &t1))
	{
		return false;
	}
	vec3s nf = h->faces[f].normal;
	float offset = h->faces[f].offset;
	m->normal = glms_vec3_negate(nf);
	const float ts[2] = {t0, t1};
	for (int k = 0; k < 2; ++k)
	{
		vec3s q = kl_lerp3(p0, p1, ts[k]);
		float dist = glms_vec3_dot(nf, q) - offset;
		float separation = dist - r;
		if (separation <= speculative)
		{
			// Midway between the face (dist below q) and the capsule surface (r below q).
			vec3s point = glms_vec3_sub(q, glms_vec3_scale(nf, 0.5f * (dist + r)));
			kl_add_point(m, point, separation, (uint32_t)k);
		}
	}
	return m->point_count > 0;
}

/// The face whose outward normal is nearest -n; writes the cosine.
static int kl_facing_face(const kl_hull* h, vec3s n, float* alignment)
{
	int best = 0;
	float best_dot = -FLT_MAX;
	for (int f = 0; f < h->face_count; ++f)
	{
		float d = -glms_vec3_dot(h->faces[f].normal, n);
		if (d > best_dot)
		{
			best_dot = d;
			best = f;
		}
	}
	*alignment = best_dot;
	return best;
}

/// A capsule lying along the hull edge the GJK simplex ends on: both ends of the shared stretch.
static bool kl_edge_contact(const kl_hull* h, const kl_gjk_output* out, vec3s p0, vec3s p1, float r,
							float speculative, kl_manifold* m)
{
	int i = -1, j = -1;
	for (int k = 0; k < out->simplex_count; ++k)
	{
		int v = out->index_b[k];
		if (i < 0 || v == i)
		{
			i = v;
		}
		else if (j < 0 || v == j)
		{
			j = v;
		}
		else
		{
			return false; // three hull vertices: a face, handled by the face test
		}
	}
	if (j < 0)
	{
		return false;
	}
	vec3s e0 = h->vertices[i], e1 = h->vertices[j];
	vec3s u = glms_vec3_sub(p1, p0), e = glms_vec3_sub(e1, e0);
	vec3s n = out->normal;
	float lu = glms_vec3_norm(u), le = glms_vec3_norm(e);
	float lo, hi;
	if (!(fabsf(glms_vec3_dot(e, glms_vec3_cross(u, n))) < KL_PARALLEL_SINE * lu * le &&
		  fabsf(glms_vec3_dot(u, e)) > 0.9f * lu * le && kl_overlap_on_axis(p0, p1, e0, e1, &lo, &hi)))
	{
		return false;
	}
	const float ts[2] = {lo, hi};
	for (int k = 0; k < 2; ++k)
	{
		vec3s qa = kl_lerp3(p0, p1, ts[k]);
		float te;
		vec3s qb = kl_closest_on_segment(qa, e0, e1, &te);
		float separation = glms_vec3_dot(glms_vec3_sub(qb, qa), n) - r;
		if (separation <= speculative)
		{
			kl_add_point(m, kl_mid_point(qa, r, qb, n), separation, (uint32_t)k);
		}
	}
	m->normal = n;
	return m->point_count > 0;
}

/// Number of distinct hull vertices in the final GJK simplex: 3 or more means the closest point
/// lies inside a face, 2 on an edge, 1 at a vertex.
static int kl_simplex_hull_vertices(const kl_gjk_output* out)
{
	int distinct = 0;
	for (int k = 0; k < out->simplex_count; ++k)
	{
		bool seen = false;
		for (int j = 0; j < k; ++j)
		{
			seen = seen || out->index_b[j] == out->index_b[k];
		}
		distinct += seen ? 0 : 1;
	}
	return distinct;
}

/// Smallest separation of the manifold's points.
static float kl_deepest(const kl_manifold* m)
{
	float s = FLT_MAX;
	for (int i = 0; i < m->point_count; ++i)
	{
		s = glm_min(s, m->points[i].separation);
	}
	return s;
}

/// Separated cores: the GJK closest points, refined to a face or edge contact for capsules.
static void kl_round_hull_separated(const kl_hull* h, const kl_gjk_output* out, const vec3s* core, int count, float r,
									float speculative, kl_manifold* m)
{
	vec3s n = out->normal;
	float alignment;
	int f = kl_facing_face(h, n, &alignment);
	float separation = out->distance - r;
	if (count == 2)
	{
		// A refined contact must not report more room than GJK measured: near an edge, the
		// clipped points can sit higher above the face than the true closest point.
		if (alignment >= KL_FACE_ALIGNMENT && kl_face_contact(h, f, core[0], core[1], r, speculative, m) &&
			kl_deepest(m) <= separation + KL_CORE_TOLERANCE)
		{
			return;
		}
		m->point_count = 0;
		if (kl_edge_contact(h, out, core[0], core[1], r, speculative, m) &&
			kl_deepest(m) <= separation + KL_CORE_TOLERANCE)
		{
			return;
		}
		m->point_count = 0;
	}
	// Capsule ends are proxy vertices 0 and 1, so the weights give the parameter of the point.
	float t = 0.0f;
	for (int k = 0; k < out->simplex_count; ++k)
	{
		t += out->weight[k] * (float)out->index_a[k];
	}
	uint32_t id = t < 0.5f ? 0u : 1u;
	vec3s pa = out->point_a;
	if (kl_simplex_hull_vertices(out) >= 3 && alignment >= KL_FACE_SNAP)
	{
		// Inside a face: its exact plane, so a resting contact does not wobble with GJK's rounding.
		vec3s nf = h->faces[f].normal;
		float dist = glms_vec3_dot(nf, pa) - h->faces[f].offset;
		m->normal = glms_vec3_negate(nf);
		vec3s point = glms_vec3_sub(pa, glms_vec3_scale(nf, 0.5f * (dist + r)));
		kl_add_point(m, point, dist - r, id);
		return;
	}
	m->normal = n;
	kl_add_point(m, kl_mid_point(pa, r, out->point_b, n), separation, id);
}

/// Cores touching or inside: the least penetrating face, or for a capsule an edge axis.
static void kl_round_hull_deep(const kl_hull* h, const vec3s* core, int count, float r, int face, float face_sep,
							   float speculative, kl_manifold* m)
{
	if (count == 2)
	{
		vec3s axis = kl_vec3(0.0f, 0.0f, 0.0f);
		int edge;
		float edge_sep = kl_edge_query(h, core[0], core[1], &axis, &edge);
		// Faces win ties (with a margin) so that a capsule lying in a face keeps its two points.
		if (edge >= 0 && edge_sep > face_sep + KL_CORE_TOLERANCE)
		{
			vec3s e0 = h->vertices[h->edges[edge].origin], e1 = h->vertices[h->edges[edge + 1].origin];
			float s, t;
			kl_closest_segments(core[0], core[1], e0, e1, &s, &t);
			vec3s qa = kl_lerp3(core[0], core[1], s), qb = kl_lerp3(e0, e1, t);
			vec3s n = glms_vec3_negate(axis);
			float separation = edge_sep - r;
			if (separation <= speculative)
			{
				m->normal = n;
				kl_add_point(m, kl_mid_point(qa, r, qb, n), separation, s < 0.5f ? 0u : 1u);
			}
			return;
		}
		if (kl_face_contact(h, face, core[0], core[1], r, speculative, m))
		{
			return;
		}
	}
	// One point: the deepest core point pushed out through the face.
	vec3s nf = h->faces[face].normal;
	int k = count == 2 && glms_vec3_dot(nf, core[1]) < glms_vec3_dot(nf, core[0]) ? 1 : 0;
	float dist = glms_vec3_dot(nf, core[k]) - h->faces[face].offset;
	if (dist - r <= speculative)
	{
		m->normal = glms_vec3_negate(nf);
		vec3s point = glms_vec3_sub(core[k], glms_vec3_scale(nf, 0.5f * (dist + r)));
		kl_add_point(m, point, dist - r, (uint32_t)k);
	}
}

void kl_collide_round_hull(const kl_collider* a, kl_transform xf_a, const kl_hull* b, kl_transform xf_b,
						   float speculative, kl_collide_cache* cache, kl_manifold* m)
{
	kl_clear_manifold(m);
	kl_transform rel = kl_relative(xf_b, xf_a);
	vec3s core[2];
	int count = 1;
	float r;
	if (a->type == KL_SHAPE_CAPSULE && a->capsule.half_height > 0.0f)
	{
		kl_capsule_ends(a, rel, core + 0, core + 1);
		count = 2;
		r = a->capsule.radius;
	}
	else
	{
		core[0] = rel.p;
		r = a->type == KL_SHAPE_CAPSULE ? a->capsule.radius : a->radius;
	}

	int face;
	float face_sep = kl_face_query(b, core, count, &face);
	if (face_sep - r > speculative)
	{
		return; // a face plane separates them by more than the margin
	}
	// The core's lowest point against the separating face lies over that face: the face is the
	// closest feature and its plane distance the exact gap (the common resting case, no GJK).
	vec3s nf = b->faces[face].normal;
	int low = count == 2 && glms_vec3_dot(nf, core[1]) < glms_vec3_dot(nf, core[0]) ? 1 : 0;
	if (face_sep > 0.0f && kl_over_face(b, face, core[low]))
	{
		if (count == 1 || !kl_face_contact(b, face, core[0], core[1], r, speculative, m))
		{
			m->normal = glms_vec3_negate(nf);
			vec3s point = glms_vec3_sub(core[low], glms_vec3_scale(nf, 0.5f * (face_sep + r)));
			kl_add_point(m, point, face_sep - r, (uint32_t)low);
		}
	}
	else if (count == 1 && face_sep <= 0.0f)
	{
		kl_round_hull_deep(b, core, count, r, face, face_sep, speculative, m);
	}
	else
	{
		kl_gjk_proxy pa = {core, count, {{0.0f, 0.0f, 0.0f}}, r};
		kl_gjk_proxy pb = {b->vertices, b->vertex_count, {{0.0f, 0.0f, 0.0f}}, 0.0f};
		int start_a = 0, start_b = 0;
		if (cache != NULL && cache->type == KL_CACHE_ROUND_GJK)
		{
			start_a = cache->index_a;
			start_b = cache->index_b;
		}
		kl_gjk_output out;
		kl_gjk(&pa, kl_transform_identity(), &pb, start_a, start_b, &out);
		if (cache != NULL)
		{
			cache->type = KL_CACHE_ROUND_GJK;
			cache->index_a = (int16_t)out.index_a[0];
			cache->index_b = out.index_b[0] <= INT16_MAX ? (int16_t)out.index_b[0] : 0;
			cache->separation = out.distance - r;
		}
		if (out.distance - r > speculative)
		{
			return;
		}
		if (out.distance > KL_CORE_TOLERANCE)
		{
			kl_round_hull_separated(b, &out, core, count, r, speculative, m);
		}
		else
		{
			kl_round_hull_deep(b, core, count, r, face, face_sep, speculative, m);
		}
	}
	// Hull frame to world.
	m->normal = kl_rotate(xf_b.q, m->normal);
	for (int i = 0; i < m->point_count; ++i)
	{
		m->points[i].point = kl_transform_point(xf_b, m->points[i].point);
	}
	if (m->point_count == 0)
	{
		m->normal = kl_vec3(0.0f, 0.0f, 0.0f);
	}
}
