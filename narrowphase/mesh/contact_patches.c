// Kollide — contact patches: clusters the triangle contacts of a body pair by normal and reduces
// every cluster to a four-point manifold, in an order that depends only on the contact set.
// SPDX-License-Identifier: MIT
#include "contact_patches.h"

#include "core.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

kl_patch_config kl_patch_config_default(void)
{
	kl_patch_config c;
	c.cos_angle = 0.93969262f; // cos 20°
	c.weld_distance = 0.25f * KL_LINEAR_SLOP;
	c.depth_band = 0.5f * KL_LINEAR_SLOP;
	c.max_patches = 16;
	c.relative_offset = kl_vec3(0.0f, 0.0f, 0.0f);
	c.relative_spin = kl_vec3(0.0f, 0.0f, 0.0f);
	c.dt = 0.0f;
	return c;
}

static inline int kl_cmp_u32(uint32_t a, uint32_t b)
{
	return (a > b) - (a < b);
}

static inline int kl_cmp_f(float a, float b)
{
	return (a > b) - (a < b);
}

/// Canonical order: features first (what warm starting keys on), then every value, so that
/// even duplicates sort the same whatever order they came in.
static int kl_contact_order(const void* pa, const void* pb)
{
	const kl_tri_contact* a = pa;
	const kl_tri_contact* b = pb;
	int c = kl_cmp_u32(a->tri_a, b->tri_a);
	c = c ? c : kl_cmp_u32(a->tri_b, b->tri_b);
	c = c ? c : kl_cmp_u32(a->feature_a, b->feature_a);
	c = c ? c : kl_cmp_u32(a->feature_b, b->feature_b);
	c = c ? c : kl_cmp_u32(a->kind, b->kind);
	c = c ? c : kl_cmp_f(a->separation, b->separation);
	for (int k = 0; k < 3 && c == 0; ++k)
	{
		c = kl_cmp_f(a->point.raw[k], b->point.raw[k]);
	}
	for (int k = 0; k < 3 && c == 0; ++k)
	{
		c = kl_cmp_f(a->normal.raw[k], b->normal.raw[k]);
	}
	return c;
}

static bool kl_contact_finite(const kl_tri_contact* c)
{
	return kl_vec3_is_finite(c->point) && kl_vec3_is_finite(c->normal) && kl_is_finite(c->separation);
}

/// The seed whose normal is closest to n (ties: the earlier seed); writes the cosine.
static int kl_nearest_seed(const vec3s* seeds, int seed_count, vec3s n, float* best_dot)
{
	int best = -1;
	*best_dot = -2.0f;
	for (int s = 0; s < seed_count; ++s)
	{
		float d = glms_vec3_dot(n, seeds[s]);
		if (d > *best_dot)
		{
			best = s;
			*best_dot = d;
		}
	}
	return best;
}

/// A contact may touch by the step's end when the separation predicted then is within this.
#define KL_PATCH_SOON ((float)KL_LINEAR_SLOP)

typedef struct kl_patch
{
	vec3s normal_sum;
	float min_separation;
	int count;
	int parts[2]; ///< its contacts near its deepest (within depth_band) [0] and farther [1]
	bool soon[2]; ///< some contact of that part may touch by the step's end (KL_PATCH_SOON)
} kl_patch;

/// Patch i ranks before patch j: one that may touch this step, then larger, then deeper, then
/// earlier. Size first because a resting non-convex pair has many small patches where rims cross;
/// the faces that carry the weight gather the most contacts, and losing one to a sideways sliver
/// makes the body drop for a step. But a tumbling part's far faces gather many speculative
/// contacts too, 30-60 mm off, and must not crowd out the faces it is about to land on.
static bool kl_patch_before(const kl_patch* patches, int i, int j)
{
	bool soon_i = patches[i].soon[0] || patches[i].soon[1], soon_j = patches[j].soon[0] || patches[j].soon[1];
	if (soon_i != soon_j)
	{
		return soon_i;
	}
	if (patches[i].count != patches[j].count)
	{
		return patches[i].count > patches[j].count;
	}
	if (patches[i].min_separation != patches[j].min_separation)
	{
		return patches[i].min_separation < patches[j].min_separation;
	}
	return i < j;
}

static kl_manifold_point kl_point_of(const kl_tri_contact* c)
{
	kl_manifold_point p;
	memset(&p, 0, sizeof(p));
	p.point = c->point;
	p.separation = c->separation;
	p.id = kl_tri_contact_id(c);
	return p;
}

/// Gives each chosen point the id of the first candidate within the weld distance (the same
/// corner reached through another triangle pair), unless another chosen point already has it.
static void kl_canonical_ids(const kl_manifold_point* candidates, int count, float weld, kl_manifold* m)
{
	float weld2 = weld * weld;
	for (int i = 0; i < m->point_count; ++i)
	{
		kl_manifold_point* p = m->points + i;
		for (int j = 0; j < count; ++j)
		{
			if (glms_vec3_distance2(candidates[j].point, p->point) > weld2)
			{
				continue;
			}
			bool taken = false;
			for (int k = 0; k < m->point_count && !taken; ++k)
			{
				taken = k != i && m->points[k].id == candidates[j].id;
			}
			if (!taken)
			{
				p->id = candidates[j].id;
			}
			break;
		}
	}
}

// The hull step. Raw contacts of a flat patch are mostly equally deep and many lie inside the
// patch or along its sides (where a triangle edge of one body crosses one of the other). The
// reduction starts from the deepest point, and among equal depths that may be any of them; from
// an inner start it can miss a corner. Reducing only the corners of the patch outline (plus a
// clearly deeper inner point, for curved surfaces) keeps the support polygon.

/// The in-plane coordinates of a copy live in its (zeroed) tangent impulse slots while sorting.
static int kl_plane_order(const void* pa, const void* pb)
{
	const kl_manifold_point* a = pa;
	const kl_manifold_point* b = pb;
	int c = kl_cmp_f(a->tangent_impulse[0], b->tangent_impulse[0]);
	c = c ? c : kl_cmp_f(a->tangent_impulse[1], b->tangent_impulse[1]);
	c = c ? c : kl_cmp_u32(a->id, b->id);
	return c ? c : kl_cmp_f(a->separation, b->separation);
}

static inline float kl_turn(const kl_manifold_point* o, const kl_manifold_point* a, const kl_manifold_point* b)
{
	float ax = a->tangent_impulse[0] - o->tangent_impulse[0], ay = a->tangent_impulse[1] - o->tangent_impulse[1];
	float bx = b->tangent_impulse[0] - o->tangent_impulse[0], by = b->tangent_impulse[1] - o->tangent_impulse[1];
	return ax * by - ay * bx;
}

/// Andrew's step: pops while the last two hull points and p do not turn strictly left.
static int kl_hull_push(kl_manifold_point* hull, int n, int floor, const kl_manifold_point* p)
{
	while (n >= floor + 2 && kl_turn(hull + n - 2, hull + n - 1, p) <= 0.0f)
	{
		--n;
	}
	hull[n] = *p;
	return n + 1;
}

/// Drops outline vertices within weld of the line through their neighbours (points along a side,
/// near-duplicates of a corner), first such vertex first, until none is left or three remain.
static int kl_hull_simplify(kl_manifold_point* hull, int h, float weld)
{
	bool removed = true;
	while (removed && h > 3)
	{
		removed = false;
		for (int i = 0; i < h; ++i)
		{
			const kl_manifold_point* prev = hull + (i + h - 1) % h;
			const kl_manifold_point* next = hull + (i + 1) % h;
			float du = next->tangent_impulse[0] - prev->tangent_impulse[0];
			float dv = next->tangent_impulse[1] - prev->tangent_impulse[1];
			float len = sqrtf(du * du + dv * dv);
			if (fabsf(kl_turn(prev, next, hull + i)) <= weld * len)
			{
				memmove(hull + i, hull + i + 1, (size_t)(h - i - 1) * sizeof(kl_manifold_point));
				--h;
				removed = true;
				break;
			}
		}
	}
	return h;
}

/// Where along side a→b candidate c projects (in-plane distance from a); writes the side's length.
static float kl_side_along(const kl_manifold_point* a, const kl_manifold_point* b, const kl_manifold_point* c,
						   float* len)
{
	float du = b->tangent_impulse[0] - a->tangent_impulse[0], dv = b->tangent_impulse[1] - a->tangent_impulse[1];
	*len = sqrtf(du * du + dv * dv);
	float along = (c->tangent_impulse[0] - a->tangent_impulse[0]) * du +
				  (c->tangent_impulse[1] - a->tangent_impulse[1]) * dv;
	return *len > 0.0f ? along / *len : 0.0f;
}

/// Where along side a→b (0 at a, 1 at b) candidate c lies, or -1 when it does not lie on the side
/// (farther than weld from its line, or within weld of an end).
static float kl_side_position(const kl_manifold_point* a, const kl_manifold_point* b, const kl_manifold_point* c,
							  float weld)
{
	float len;
	float along = kl_side_along(a, b, c, &len);
	if (!(len > 2.0f * weld) || fabsf(kl_turn(a, b, c)) > weld * len)
	{
		return -1.0f;
	}
	return along > weld && along < len - weld ? along / len : -1.0f;
}

/// Puts back on the outline the candidates that lie on one of its sides clearly deeper (more than
/// tie) than the side's ends there: the plane flattens depth, and a gear standing on the inner
/// corners of two tooth tips has them on the sides between the outer corners, which are higher;
/// without them the reduction held only outer corners and the inner ones sank in. Candidates
/// within weld of one already put back on the same side are skipped. Returns the outline's count.
static int kl_outline_deeper_sides(const kl_manifold_point* sorted, int n, kl_manifold_point* hull, int h, float weld,
								   float tie)
{
	// A two-point outline is one side, not two (its closing side runs back over it).
	int sides = h >= 3 ? h : h - 1;
	int i = 0;
	for (int side = 0; side < sides; ++side)
	{
		kl_manifold_point a = hull[i], b = hull[(i + 1) % h];
		int added = 0;
		for (int c = 0; c < n; ++c)
		{
			float t = kl_side_position(&a, &b, sorted + c, weld);
			if (t < 0.0f || !(sorted[c].separation < a.separation + t * (b.separation - a.separation) - tie))
			{
				continue;
			}
			float len, along = kl_side_along(&a, &b, sorted + c, &len);
			int pos = i + 1;
			bool near = false;
			for (int k = i + 1; k <= i + added; ++k)
			{
				float along_k = kl_side_along(&a, &b, hull + k, &len);
				near = near || fabsf(along_k - along) < weld;
				pos += along_k < along;
			}
			if (!near)
			{
				memmove(hull + pos + 1, hull + pos, (size_t)(h - pos) * sizeof(kl_manifold_point));
				hull[pos] = sorted[c];
				++h;
				++added;
			}
		}
		i += added + 1;
	}
	return h;
}

/// Writes the outline corners (in plane of normal) of the n candidates whose separation is at most
/// `below` to hull, using sorted as work space; adds the deepest candidate when it is clearly
/// deeper than every corner. The candidates keep their order.
static int kl_outline(const kl_manifold_point* candidates, int n, float below, vec3s normal, float weld,
					  kl_manifold_point* sorted, kl_manifold_point* hull)
{
	vec3s t1, t2;
	if (fabsf(normal.x) > 0.57735f)
	{
		t1 = glms_vec3_normalize(kl_vec3(normal.y, -normal.x, 0.0f));
	}
	else
	{
		t1 = glms_vec3_normalize(kl_vec3(0.0f, normal.z, -normal.y));
	}
	t2 = glms_vec3_cross(normal, t1);
	int k = 0;
	for (int i = 0; i < n; ++i)
	{
		if (candidates[i].separation <= below)
		{
			sorted[k] = candidates[i];
			sorted[k].tangent_impulse[0] = glms_vec3_dot(candidates[i].point, t1);
			sorted[k].tangent_impulse[1] = glms_vec3_dot(candidates[i].point, t2);
			++k;
		}
	}
	if (k == 0)
	{
		return 0;
	}
	qsort(sorted, (size_t)k, sizeof(kl_manifold_point), kl_plane_order);
	// Andrew's monotone chain: lower hull left to right, upper hull right to left.
	int h = 0;
	for (int i = 0; i < k; ++i)
	{
		h = kl_hull_push(hull, h, 0, sorted + i);
	}
	int lower = h;
	for (int i = k - 2; i >= 0; --i)
	{
		h = kl_hull_push(hull, h, lower - 1, sorted + i);
	}
	if (h > 1)
	{
		--h; // the last point repeats the first
	}
	h = kl_hull_simplify(hull, h, weld);
	h = kl_outline_deeper_sides(sorted, k, hull, h, weld, 0.1f * KL_LINEAR_SLOP);
	float hull_deepest = FLT_MAX;
	for (int i = 0; i < h; ++i)
	{
		hull_deepest = fminf(hull_deepest, hull[i].separation);
	}
	int deepest = 0; // of all the candidates: it is always within `below`
	for (int i = 1; i < n; ++i)
	{
		deepest = candidates[i].separation < candidates[deepest].separation ? i : deepest;
	}
	if (candidates[deepest].separation < hull_deepest - 0.1f * KL_LINEAR_SLOP)
	{
		hull[h++] = candidates[deepest];
	}
	for (int i = 0; i < h; ++i)
	{
		hull[i].tangent_impulse[0] = 0.0f;
		hull[i].tangent_impulse[1] = 0.0f;
	}
	return h;
}

/// Moves the h outline corners that m (reduced from them) did not choose to the front of hull;
/// returns their count.
static int kl_outline_rest(kl_manifold_point* hull, int h, const kl_manifold* m)
{
	int rest = 0;
	for (int i = 0; i < h; ++i)
	{
		bool chosen = false;
		for (int k = 0; k < m->point_count && !chosen; ++k)
		{
			chosen = m->points[k].id == hull[i].id && glms_vec3_eqv(m->points[k].point, hull[i].point);
		}
		if (!chosen)
		{
			hull[rest++] = hull[i];
		}
	}
	return rest;
}

/// The separation up to which a candidate touches: within a band above the deepest (a tenth of the
/// slop), or penetrating. A curved part resting on a face (a bowl tilted on its outer wall, a
/// faceted sphere) touches with a few vertices around its lowest, while the outline of its patch
/// runs through vertices a millimetre or more above: reduced by area, the set held the deepest
/// vertex and those, and dropped the touching neighbour inside the outline. The part stood on one
/// point and rocked over to the neighbour, which then took the first pick and dropped the other,
/// for ever.
static float kl_touch_limit(float deepest)
{
	return fmaxf(deepest + 0.1f * KL_LINEAR_SLOP, 0.0f);
}

/// When some but not all of the n candidates touch (kl_touch_limit) and they span more than one point,
/// reduces the outline of those that do into m and returns how many of its points to keep, at most
/// three; the caller completes m from the whole outline. Else 0. `work` and `hull` are kl_outline's
/// spaces. The slot left for the whole outline keeps a patch's widest reach: the rim arcs of
/// nested bowls, kept to their four touching points, lost their speculative ends, and the stack
/// settled 1 mm lower and 2.3 mm deep (1.2 mm with the slot).
static int kl_touching_support(const kl_manifold_point* candidates, int n, vec3s normal, float weld,
							   kl_manifold_point* work, kl_manifold_point* hull, kl_manifold* m)
{
	float deepest = FLT_MAX;
	for (int i = 0; i < n; ++i)
	{
		deepest = fminf(deepest, candidates[i].separation);
	}
	float below = kl_touch_limit(deepest);
	int touching = 0;
	for (int i = 0; i < n; ++i)
	{
		touching += candidates[i].separation <= below;
	}
	if (touching < 2 || touching == n)
	{
		return 0;
	}
	int h = kl_outline(candidates, n, below, normal, weld, work, hull);
	int kept = h < 2 ? 0 : kl_reduce_manifold_points_tied(hull, h, normal, 0.1f * KL_LINEAR_SLOP, m->points);
	return kept < KL_MAX_MANIFOLD_POINTS ? kept : KL_MAX_MANIFOLD_POINTS - 1;
}

/// Contact c's separation predicted at the step's end: the bodies' relative velocity at its point
/// over dt (without motion, its separation now).
static float kl_predicted(const kl_patch_config* config, const kl_tri_contact* c)
{
	if (!(config->dt > 0.0f))
	{
		return c->separation;
	}
	vec3s v = glms_vec3_add(config->relative_offset, glms_vec3_cross(config->relative_spin, c->point));
	return c->separation + config->dt * glms_vec3_dot(v, c->normal);
}

/// Puts the separation predicted at the step's end in p (which was made from contact c) for the
/// reduction to choose by, keeping its separation now in the unused max_normal_impulse slot.
static void kl_predict_separation(const kl_patch_config* config, const kl_tri_contact* c, kl_manifold_point* p)
{
	p->max_normal_impulse = p->separation;
	p->separation = kl_predicted(config, c);
}

/// Gives the chosen points back their separation now (kl_predict_separation).
static void kl_restore_separations(kl_manifold* m)
{
	for (int k = 0; k < m->point_count; ++k)
	{
		m->points[k].separation = m->points[k].max_normal_impulse;
		m->points[k].max_normal_impulse = 0.0f;
	}
}

/// Whether contact c is one that pass `pass` draws from patch p: those near its deepest (passes 0
/// and 2) or the farther ones (pass 1).
static bool kl_in_pass(const kl_tri_contact* c, const kl_patch* p, int pass, float depth_band)
{
	bool near = c->separation <= p->min_separation + depth_band;
	return near == (pass != 1);
}

/// Pass `pass`'s manifold of patch `seed` (kl_contact_patches) into m; returns 1 when there is one.
static int kl_patch_manifold(const kl_tri_contact* contacts, int count, const kl_patch_config* config,
							 const vec3s* seeds, int seed_count, const kl_patch* patches, int seed, int pass,
							 kl_manifold_point* scratch, kl_manifold* m)
{
	const kl_patch* p = patches + seed;
	float len = glms_vec3_norm(p->normal_sum);
	vec3s normal = len > 1e-6f ? glms_vec3_scale(p->normal_sum, 1.0f / len) : seeds[seed];
	int n = 0;
	for (int i = 0; i < count; ++i)
	{
		float d;
		if (kl_nearest_seed(seeds, seed_count, contacts[i].normal, &d) == seed &&
			kl_in_pass(contacts + i, p, pass, config->depth_band))
		{
			scratch[n] = kl_point_of(contacts + i);
			if (pass == 1 && config->dt > 0.0f)
			{
				kl_predict_separation(config, contacts + i, scratch + n);
			}
			++n;
		}
	}
	if (n == 0)
	{
		return 0;
	}
	kl_manifold_point* hull = scratch + 2 * count; // count + 2 slots: the chain repeats one point
	memset(m, 0, sizeof(*m));
	m->normal = normal;
	int kept = pass == 1 ? 0 : kl_touching_support(scratch, n, normal, config->weld_distance, scratch + count, hull, m);
	int h = kl_outline(scratch, n, FLT_MAX, normal, config->weld_distance, scratch + count, hull);
	m->point_count = kept > 0 ? kl_complete_manifold_points(hull, h, normal, m->points, kept)
							  : kl_reduce_manifold_points_tied(hull, h, normal, 0.1f * KL_LINEAR_SLOP, m->points);
	if (pass == 2)
	{
		h = kl_outline_rest(hull, h, m);
		if (h == 0)
		{
			return 0;
		}
		m->point_count = kl_reduce_manifold_points_tied(hull, h, normal, 0.1f * KL_LINEAR_SLOP, m->points);
	}
	if (pass == 1 && config->dt > 0.0f)
	{
		kl_restore_separations(m);
	}
	kl_canonical_ids(scratch, n, config->weld_distance, m);
	return 1;
}

int kl_contact_patches(kl_tri_contact* contacts, int count, const kl_patch_config* config,
					   kl_manifold_point* scratch, kl_manifold* manifolds, int max_manifolds)
{
	if (count < 0 || (count > 0 && (contacts == NULL || scratch == NULL)) || config == NULL || manifolds == NULL ||
		max_manifolds < 0)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_contact_patches: null pointer or negative count");
		return 0;
	}
	if (!(config->cos_angle >= -1.0f && config->cos_angle <= 1.0f) || !(config->weld_distance >= 0.0f) ||
		!(config->depth_band >= 0.0f) ||
		config->max_patches < 1)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_contact_patches: bad config (cos_angle %g, weld %g, max_patches %d)",
				(double)config->cos_angle, (double)config->weld_distance, config->max_patches);
		return 0;
	}
	// Drop non-finite contacts (they would break the order), then sort.
	int valid = 0;
	for (int i = 0; i < count; ++i)
	{
		if (kl_contact_finite(contacts + i))
		{
			contacts[valid++] = contacts[i];
		}
	}
	if (valid < count)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_contact_patches: dropped %d non-finite contacts", count - valid);
	}
	count = valid;
	if (count == 0 || max_manifolds == 0)
	{
		return 0;
	}
	qsort(contacts, (size_t)count, sizeof(kl_tri_contact), kl_contact_order);

	vec3s seeds[KL_PATCH_MAX_SEEDS];
	int seed_count = 0;
	for (int i = 0; i < count && seed_count < KL_PATCH_MAX_SEEDS; ++i)
	{
		float d;
		int s = kl_nearest_seed(seeds, seed_count, contacts[i].normal, &d);
		if (s < 0 || d < config->cos_angle)
		{
			seeds[seed_count++] = contacts[i].normal;
		}
	}

	kl_patch patches[KL_PATCH_MAX_SEEDS];
	for (int s = 0; s < seed_count; ++s)
	{
		patches[s].normal_sum = kl_vec3(0.0f, 0.0f, 0.0f);
		patches[s].min_separation = FLT_MAX;
		patches[s].count = 0;
		patches[s].soon[0] = patches[s].soon[1] = false;
		patches[s].parts[0] = patches[s].parts[1] = 0;
	}
	for (int i = 0; i < count; ++i)
	{
		float d;
		kl_patch* p = patches + kl_nearest_seed(seeds, seed_count, contacts[i].normal, &d);
		p->normal_sum = glms_vec3_add(p->normal_sum, contacts[i].normal);
		p->min_separation = fminf(p->min_separation, contacts[i].separation);
		p->count += 1;
	}
	for (int i = 0; i < count; ++i)
	{
		float d;
		kl_patch* p = patches + kl_nearest_seed(seeds, seed_count, contacts[i].normal, &d);
		int part = kl_in_pass(contacts + i, p, 0, config->depth_band) ? 0 : 1;
		p->parts[part] += 1;
		p->soon[part] = p->soon[part] || kl_predicted(config, contacts + i) <= KL_PATCH_SOON;
	}

	// Keep the best-ranked patches, written in seed order.
	int limit = config->max_patches < max_manifolds ? config->max_patches : max_manifolds;
	bool keep[KL_PATCH_MAX_SEEDS];
	int candidates = 0;
	bool any_late = false;
	for (int s = 0; s < seed_count; ++s)
	{
		int rank = 0;
		for (int t = 0; t < seed_count; ++t)
		{
			rank += t != s && kl_patch_before(patches, t, s);
		}
		keep[s] = rank < limit;
	}
	for (int s = 0; s < seed_count; ++s)
	{
		bool has_far = patches[s].parts[1] > 0;
		// Pass 2 may give nothing but is counted as if it did, so soon_first also reorders some
		// pairs whose manifolds all fit (an exact count reshuffled the bowls and the pile: worse).
		candidates += keep[s] ? 2 + has_far : 0;
		any_late = any_late || (keep[s] && (!patches[s].soon[0] || (has_far && !patches[s].soon[1])));
	}

	// Pass 0 writes each kept patch from its contacts near its deepest: a resting face must not
	// trade its touching corners for speculative points of farther features with similar normals.
	// Pass 1 then gives the farther contacts of a patch a manifold of their own while there is
	// room: the far rim of a body tipping onto a face closes fast and needs its speculative points.
	// Pass 2 gives the outline corners that pass 0 left out a manifold of their own while there is
	// still room: a gear standing on two teeth has eight tip corners, and the four chosen for their
	// area held the outer ones, up to 1 mm above the inner corners it stands on, so each step a
	// corner without contact sank in and was pushed out, and the gear wobbled for ever.
	// When there are more than fit, those that may touch by the step's end go first: a part landing
	// at 16 rad/s on another had its 16 manifolds taken by faces 27-54 mm off, and the corner its
	// turn brought down, 5 mm up at the step's start, went 13 mm deep with no manifold.
	bool soon_first = any_late && candidates > max_manifolds;
	int written = 0;
	for (int round = 0; round < (soon_first ? 2 : 1); ++round)
	{
		for (int pass = 0; pass < 3; ++pass)
		{
			for (int s = 0; s < seed_count && written < max_manifolds; ++s)
			{
				if (keep[s] && (!soon_first || patches[s].soon[pass == 1] == (round == 0)))
				{
					written += kl_patch_manifold(contacts, count, config, seeds, seed_count, patches, s, pass,
												 scratch, manifolds + written);
				}
			}
		}
	}
	return written;
}
