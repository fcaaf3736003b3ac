// Kollide — manifold point reduction and warm-start matching, shared by every narrowphase.
// SPDX-License-Identifier: MIT
#include "manifold.h"

// The reduction keeps the support polygon of the contact patch, which is what holds a body up:
// the deepest point (the solver's worst error), then the three points that span the largest
// area around it. Areas and distances are measured after projecting out the normal, so a
// tilted patch is judged by the footprint the solver actually pushes on.
//
// Every choice is a strict maximum over candidates in order, so equal scores go to the earlier
// candidate and the same input always gives the same output. A candidate already chosen scores
// nothing, and so does a copy of one (the same id at the same point: a generator can meet one
// vertex contact through two triangle pairs), so collinear patches still yield distinct indices
// and no manifold holds a point twice. Two copies would split one contact's impulse between two
// solver rows and leave warm starting two rows to match to one id.

/// d - n (n · d): the part of d in the plane orthogonal to n.
static inline vec3s kl_in_plane(vec3s d, vec3s n)
{
	return glms_vec3_sub(d, glms_vec3_scale(n, glms_vec3_dot(d, n)));
}

/// Twice the signed area of the triangle (a, b, c) projected on the plane of n (positive when
/// counter-clockwise seen from the tip of n).
static inline float kl_signed_area2(vec3s a, vec3s b, vec3s c, vec3s n)
{
	return glms_vec3_dot(glms_vec3_cross(glms_vec3_sub(b, a), glms_vec3_sub(c, a)), n);
}

/// The deepest candidate, up to a band of tie_depth (below): among those that deep, the one with
/// the smallest id. A face resting flat has many equally deep candidates (a disc's rim vertices), and
/// the tiny rocking of a resting body would otherwise move the first pick, and with it the whole
/// set, around the outline every step: the ids change, warm starting is lost, and the body keeps
/// rocking. The ids of a feature-keyed generator stay put.
static int kl_pick_deepest(const kl_manifold_point* c, int count, float tie_depth)
{
	int deepest = 0;
	for (int i = 1; i < count; ++i)
	{
		if (c[i].separation < c[deepest].separation)
		{
			deepest = i;
		}
	}
	int best = deepest;
	// The band is a quarter of the deepest's depth (at least a tenth of tie_depth, at most
	// tie_depth): a face resting flat sinks its candidates about equally, while one loaded point
	// of a tilted part sits its soft contact's depth below the touching rest. With the whole
	// tie_depth that point, pushed out to less than tie_depth, lost the first pick and with it its
	// place in the set; the part tipped back onto it, and a torus knot rocked on the ground every
	// sixth step for ever.
	float depth = c[deepest].separation < 0.0f ? -c[deepest].separation : 0.0f;
	float band = fminf(tie_depth, fmaxf(0.25f * depth, 0.1f * tie_depth));
	float tie = c[deepest].separation + band;
	for (int i = 0; i < count; ++i)
	{
		if (c[i].separation <= tie && c[i].id < c[best].id)
		{
			best = i;
		}
	}
	return best;
}

/// The points chosen so far, in order: their positions, ids and candidate indices (-1 for a point
/// chosen from elsewhere, kl_complete_manifold_points).
typedef struct kl_chosen
{
	vec3s point[KL_MAX_MANIFOLD_POINTS];
	int index[KL_MAX_MANIFOLD_POINTS];
	uint32_t id[KL_MAX_MANIFOLD_POINTS];
	int count;
} kl_chosen;

/// Whether two candidates are one contact: the same id at the same point.
static bool kl_same_point(const kl_manifold_point* a, uint32_t id, vec3s point)
{
	return a->id == id && glms_vec3_eqv(a->point, point);
}

/// Whether candidate i is chosen, or a copy of a chosen point.
static bool kl_is_chosen(const kl_chosen* s, const kl_manifold_point* c, int i)
{
	for (int k = 0; k < s->count; ++k)
	{
		if (s->index[k] == i || kl_same_point(c + i, s->id[k], s->point[k]))
		{
			return true;
		}
	}
	return false;
}

/// Adds candidate i to the chosen set.
static void kl_choose(kl_chosen* s, const kl_manifold_point* c, int i)
{
	s->point[s->count] = c[i].point;
	s->id[s->count] = c[i].id;
	s->index[s->count] = i;
	++s->count;
}

/// The candidate farthest from the first chosen point.
static int kl_pick_farthest(const kl_manifold_point* c, int count, const kl_chosen* s, vec3s n)
{
	int best = -1;
	float best_score = -1.0f;
	for (int i = 0; i < count; ++i)
	{
		if (kl_is_chosen(s, c, i))
		{
			continue;
		}
		float d2 = glms_vec3_norm2(kl_in_plane(glms_vec3_sub(c[i].point, s->point[0]), n));
		if (d2 > best_score)
		{
			best = i;
			best_score = d2;
		}
	}
	return best;
}

/// The candidate that makes the largest triangle with the first two chosen points.
static int kl_pick_widest(const kl_manifold_point* c, int count, const kl_chosen* s, vec3s n)
{
	int best = -1;
	float best_score = -1.0f;
	for (int i = 0; i < count; ++i)
	{
		if (kl_is_chosen(s, c, i))
		{
			continue;
		}
		float area = fabsf(kl_signed_area2(s->point[0], s->point[1], c[i].point, n));
		if (area > best_score)
		{
			best = i;
			best_score = area;
		}
	}
	return best;
}

/// The candidate that adds the most area to the triangle of the three chosen points. A point
/// outside adds the triangles it forms with the edges it sees, inside points add nothing.
static int kl_pick_fourth(const kl_manifold_point* c, int count, const kl_chosen* s, vec3s n)
{
	// Counter-clockwise about n.
	vec3s t[3] = {s->point[0], s->point[1], s->point[2]};
	if (kl_signed_area2(t[0], t[1], t[2], n) < 0.0f)
	{
		t[1] = s->point[2];
		t[2] = s->point[1];
	}
	int best = -1;
	float best_score = -1.0f;
	for (int i = 0; i < count; ++i)
	{
		if (kl_is_chosen(s, c, i))
		{
			continue;
		}
		float added = 0.0f;
		for (int k = 0; k < 3; ++k)
		{
			float area = kl_signed_area2(t[k], t[(k + 1) % 3], c[i].point, n);
			added += area < 0.0f ? -area : 0.0f;
		}
		if (added > best_score)
		{
			best = i;
			best_score = added;
		}
	}
	return best;
}

/// Adds candidates to the chosen set until it is full or no candidate is left: the farthest from
/// the first, the widest with the first two, the one adding most area to the three.
static void kl_pick_rest(const kl_manifold_point* c, int count, vec3s n, kl_chosen* s)
{
	while (s->count < KL_MAX_MANIFOLD_POINTS)
	{
		int i = s->count == 1 ? kl_pick_farthest(c, count, s, n)
				: s->count == 2 ? kl_pick_widest(c, count, s, n)
								: kl_pick_fourth(c, count, s, n);
		if (i < 0)
		{
			return;
		}
		kl_choose(s, c, i);
	}
}

int kl_reduce_manifold_points(const kl_manifold_point* candidates, int count, vec3s normal, kl_manifold_point* out)
{
	return kl_reduce_manifold_points_tied(candidates, count, normal, 0.0f, out);
}

int kl_reduce_manifold_points_tied(const kl_manifold_point* candidates, int count, vec3s normal, float tie_depth,
								   kl_manifold_point* out)
{
	if (candidates == NULL || out == NULL || count <= 0)
	{
		return 0;
	}
	kl_chosen s = {.count = 0};
	if (count <= KL_MAX_MANIFOLD_POINTS)
	{
		// All of them, in their order, but each contact once.
		for (int i = 0; i < count; ++i)
		{
			if (!kl_is_chosen(&s, candidates, i))
			{
				kl_choose(&s, candidates, i);
			}
		}
		for (int k = 0; k < s.count; ++k)
		{
			out[k] = candidates[s.index[k]];
		}
		return s.count;
	}
	kl_choose(&s, candidates, kl_pick_deepest(candidates, count, tie_depth));
	kl_pick_rest(candidates, count, normal, &s);
	for (int k = 0; k < s.count; ++k)
	{
		out[k] = candidates[s.index[k]];
	}
	return s.count;
}

int kl_complete_manifold_points(const kl_manifold_point* candidates, int count, vec3s normal, kl_manifold_point* out,
								int kept)
{
	if (out == NULL || kept < 0 || kept > KL_MAX_MANIFOLD_POINTS || (count > 0 && candidates == NULL))
	{
		return 0;
	}
	if (kept == 0)
	{
		return kl_reduce_manifold_points(candidates, count, normal, out);
	}
	kl_chosen s = {.count = kept};
	for (int k = 0; k < kept; ++k)
	{
		s.point[k] = out[k].point;
		s.id[k] = out[k].id;
		s.index[k] = -1;
	}
	kl_pick_rest(candidates, count, normal, &s);
	for (int k = kept; k < s.count; ++k)
	{
		out[k] = candidates[s.index[k]];
	}
	return s.count;
}

void kl_manifold_set_frame(kl_manifold* manifold, kl_transform frame_a)
{
	manifold->frame_a = frame_a;
	manifold->has_frame = true;
}

/// Where old point p lies now if it moved with shape A: from the old frame to the new one.
static vec3s carried_point(const kl_manifold* old_manifold, const kl_manifold* manifold, vec3s p)
{
	if (!old_manifold->has_frame || !manifold->has_frame)
	{
		return p;
	}
	const kl_transform* from = &old_manifold->frame_a;
	const kl_transform* to = &manifold->frame_a;
	vec3s local = kl_inv_rotate(from->q, glms_vec3_sub(p, from->p));
	return glms_vec3_add(to->p, kl_rotate(to->q, local));
}

void kl_manifold_keep_impulses(const kl_manifold* old_manifold, kl_manifold* manifold)
{
	if (old_manifold == NULL || manifold == NULL)
	{
		return;
	}
	bool any = false;
	for (int i = 0; i < manifold->point_count; ++i)
	{
		kl_manifold_point* p = manifold->points + i;
		p->normal_impulse = 0.0f;
		p->tangent_impulse[0] = 0.0f;
		p->tangent_impulse[1] = 0.0f;
		p->max_normal_impulse = 0.0f;
		p->normal_velocity = 0.0f;
		p->persisted = false;
		for (int j = 0; j < old_manifold->point_count; ++j)
		{
			const kl_manifold_point* q = old_manifold->points + j;
			if (q->id == p->id)
			{
				p->normal_impulse = q->normal_impulse;
				p->tangent_impulse[0] = q->tangent_impulse[0];
				p->tangent_impulse[1] = q->tangent_impulse[1];
				p->max_normal_impulse = q->max_normal_impulse;
				p->persisted = true;
				any = true;
				break;
			}
		}
	}
	// Ids change when a clipped corner slides across a side plane of an equal-sized face (the
	// point stays where it was on the bodies but is now an edge-plane intersection): such a point
	// takes the impulse of the unmatched old point within the slop of it, so warm starting
	// survives. Flush faces (a wall of boxes whose edges line up) flip such ids every few steps.
	for (int i = 0; i < manifold->point_count; ++i)
	{
		kl_manifold_point* p = manifold->points + i;
		if (p->persisted)
		{
			continue;
		}
		int best = -1;
		float best_d2 = KL_LINEAR_SLOP * KL_LINEAR_SLOP;
		for (int j = 0; j < old_manifold->point_count; ++j)
		{
			const kl_manifold_point* q = old_manifold->points + j;
			bool taken = false;
			for (int k = 0; k < manifold->point_count && !taken; ++k)
			{
				taken = manifold->points[k].persisted && manifold->points[k].id == q->id;
			}
			float d2 = glms_vec3_distance2(p->point, carried_point(old_manifold, manifold, q->point));
			if (!taken && d2 < best_d2)
			{
				best = j;
				best_d2 = d2;
			}
		}
		if (best >= 0)
		{
			const kl_manifold_point* q = old_manifold->points + best;
			p->normal_impulse = q->normal_impulse;
			p->tangent_impulse[0] = q->tangent_impulse[0];
			p->tangent_impulse[1] = q->tangent_impulse[1];
			p->max_normal_impulse = q->max_normal_impulse;
			p->persisted = true;
			any = true;
		}
	}
	// Rolling resistance belongs to the contact as a whole: it carries over while any point does.
	manifold->rolling_impulse = any ? old_manifold->rolling_impulse : kl_vec3(0.0f, 0.0f, 0.0f);
}
