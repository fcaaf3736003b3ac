// Kollide — manifold point reduction and warm-start matching, shared by every narrowphase.
// SPDX-License-Identifier: MIT
#include "manifold.h"

#include <string.h>

// The reduction keeps the support polygon of the contact patch, which is what holds a body up:
// the deepest point (the solver's worst error), then the three points that span the largest
// area around it. Areas and distances are measured after projecting out the normal, so a
// tilted patch is judged by the footprint the solver actually pushes on.
//
// Every choice is a strict maximum over candidates in order, so equal scores go to the earlier
// candidate and the same input always gives the same output. A candidate already chosen scores
// nothing, so duplicates and collinear patches still yield distinct indices.

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

static int kl_pick_farthest(const kl_manifold_point* c, int count, int first, vec3s n)
{
	int best = -1;
	float best_score = -1.0f;
	for (int i = 0; i < count; ++i)
	{
		if (i == first)
		{
			continue;
		}
		float d2 = glms_vec3_norm2(kl_in_plane(glms_vec3_sub(c[i].point, c[first].point), n));
		if (d2 > best_score)
		{
			best = i;
			best_score = d2;
		}
	}
	return best;
}

/// The candidate that makes the largest triangle with i0 and i1; writes its signed area.
static int kl_pick_widest(const kl_manifold_point* c, int count, int i0, int i1, vec3s n, float* signed_area)
{
	int best = -1;
	float best_score = -1.0f;
	*signed_area = 0.0f;
	for (int i = 0; i < count; ++i)
	{
		if (i == i0 || i == i1)
		{
			continue;
		}
		float area = kl_signed_area2(c[i0].point, c[i1].point, c[i].point, n);
		if (fabsf(area) > best_score)
		{
			best = i;
			best_score = fabsf(area);
			*signed_area = area;
		}
	}
	return best;
}

/// The candidate that adds the most area to the triangle t (counter-clockwise about n). A point
/// outside adds the triangles it forms with the edges it sees, inside points add nothing.
static int kl_pick_fourth(const kl_manifold_point* c, int count, const int t[3], vec3s n)
{
	int best = -1;
	float best_score = -1.0f;
	for (int i = 0; i < count; ++i)
	{
		if (i == t[0] || i == t[1] || i == t[2])
		{
			continue;
		}
		float added = 0.0f;
		for (int k = 0; k < 3; ++k)
		{
			float area = kl_signed_area2(c[t[k]].point, c[t[(k + 1) % 3]].point, c[i].point, n);
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
	if (count <= KL_MAX_MANIFOLD_POINTS)
	{
		memcpy(out, candidates, (size_t)count * sizeof(kl_manifold_point));
		return count;
	}
	int t[3];
	t[0] = kl_pick_deepest(candidates, count, tie_depth);
	t[1] = kl_pick_farthest(candidates, count, t[0], normal);
	float area = 0.0f;
	t[2] = kl_pick_widest(candidates, count, t[0], t[1], normal, &area);
	int fourth;
	if (area < 0.0f)
	{
		int swapped[3] = {t[0], t[2], t[1]};
		fourth = kl_pick_fourth(candidates, count, swapped, normal);
	}
	else
	{
		fourth = kl_pick_fourth(candidates, count, t, normal);
	}
	out[0] = candidates[t[0]];
	out[1] = candidates[t[1]];
	out[2] = candidates[t[2]];
	out[3] = candidates[fourth];
	return KL_MAX_MANIFOLD_POINTS;
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
	// point stays where it was but is now an edge-plane intersection): such a point takes the
	// impulse of the unmatched old point within the slop of it, so warm starting survives.
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
			float d2 = glms_vec3_distance2(p->point, q->point);
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
