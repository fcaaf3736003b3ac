// Kollide — mesh contacts: simultaneous BVH traversal within the contact margin, exact triangle-pair
// contacts at the leaves, and the normal-clustered minimal contact sets of contact_patches.c.
// SPDX-License-Identifier: MIT
#include "collide_mesh.h"

#include "bvh_ray.h"
#include "pointshell.h"
#include "vertex_contacts.h"

#include "contact_patches.h"
#include "core.h"
#include "gjk.h"
#include "tri_tri.h"

#include <float.h>
#include <string.h>

typedef struct kl_mesh_query
{
	const kl_triangle_set* a;
	const kl_triangle_set* b;
	kl_tri_contact_config config;
	/// Round side (sphere/capsule core as a degenerate triangle): 0 none, 1 set a, 2 set b.
	int round_side;
	float radius;
	kl_mesh_scratch* scratch; ///< contacts go to scratch->contacts
	/// Mesh against mesh: the leaves only gather candidate pairs (scratch->pairs); the contacts come
	/// from vertex_contacts.h after the walk.
	bool collect_pairs;
	int count;
	bool failed;
} kl_mesh_query;

void kl_mesh_scratch_free(kl_mesh_scratch* scratch)
{
	if (scratch != NULL)
	{
		kl_free(scratch->contacts);
		kl_free(scratch->points);
		kl_free(scratch->pairs);
		kl_free(scratch->pierces);
		if (scratch->pointshell != NULL)
		{
			kl_ps_batch_free(scratch->pointshell);
			kl_free(scratch->pointshell);
		}
		for (int side = 0; side < 2; ++side)
		{
			kl_free(scratch->slots[side]);
			kl_free(scratch->touched[side]);
			kl_free(scratch->tri_slots[side]);
		}
		memset(scratch, 0, sizeof(*scratch));
	}
}

bool kl_mesh_scratch_reserve_contacts(kl_mesh_scratch* s, int need)
{
	if (need <= s->contact_capacity)
	{
		return true;
	}
	int capacity = s->contact_capacity > 0 ? s->contact_capacity : 256;
	while (capacity < need)
	{
		capacity *= 2;
	}
	kl_tri_contact* grown = kl_realloc(s->contacts, (size_t)capacity, sizeof(kl_tri_contact));
	if (grown == NULL)
	{
		return false;
	}
	s->contacts = grown;
	s->contact_capacity = capacity;
	return true;
}

void kl_motion_relative_field(const kl_vertex_motion* m, vec3s* offset, vec3s* spin)
{
	// v_i(x) = v_i + ω_i × (x − c_i) = (v_i − ω_i × c_i) + ω_i × x
	vec3s oa = glms_vec3_sub(m->velocity[0], glms_vec3_cross(m->angular_velocity[0], m->center[0]));
	vec3s ob = glms_vec3_sub(m->velocity[1], glms_vec3_cross(m->angular_velocity[1], m->center[1]));
	*offset = glms_vec3_sub(ob, oa);
	*spin = glms_vec3_sub(m->angular_velocity[1], m->angular_velocity[0]);
}

/// How far a point of set s can move relative to the other body this step, to first order: the
/// relative field (kl_motion_relative_field) bounded over the sphere around the set's origin that
/// holds its vertices.
static float kl_set_travel_bound(const kl_triangle_set* s, vec3s offset, vec3s spin, float dt)
{
	float scale = fmaxf(s->scale.x, fmaxf(s->scale.y, s->scale.z));
	float radius = (float)s->bvh->point_radius * scale;
	vec3s at_origin = glms_vec3_add(offset, glms_vec3_cross(spin, s->xf.p));
	return dt * (glms_vec3_norm(at_origin) + glms_vec3_norm(spin) * radius);
}

/// How far apart, at most, points of the two sets can be and still meet this step: motion's reach
/// plus how far the relative field can carry a point of either set.
static float kl_mesh_pair_reach(const kl_triangle_set* a, const kl_triangle_set* b, const kl_vertex_motion* motion)
{
	vec3s offset, spin;
	kl_motion_relative_field(motion, &offset, &spin);
	float travel = fmaxf(kl_set_travel_bound(a, offset, spin, motion->dt), kl_set_travel_bound(b, offset, spin, motion->dt));
	return motion->reach + travel;
}

int kl_mesh_scratch_patches(kl_mesh_scratch* s, int count, const kl_vertex_motion* motion, kl_manifold* out,
							int max_manifolds)
{
	int need = 3 * count + 2; // what kl_contact_patches asks of its point scratch
	if (need > s->point_capacity)
	{
		kl_manifold_point* grown = kl_realloc(s->points, (size_t)need, sizeof(kl_manifold_point));
		if (grown == NULL)
		{
			return 0;
		}
		s->points = grown;
		s->point_capacity = need;
	}
	kl_patch_config config = kl_patch_config_default();
	if (motion != NULL)
	{
		kl_motion_relative_field(motion, &config.relative_offset, &config.relative_spin);
		config.dt = motion->dt;
	}
	return kl_contact_patches(s->contacts, count, &config, s->points, out, max_manifolds);
}

bool kl_mesh_scratch_push_pair(kl_mesh_scratch* s, int32_t tri_a, int32_t tri_b)
{
	if (s->pair_count == s->pair_capacity)
	{
		int capacity = s->pair_capacity > 0 ? 2 * s->pair_capacity : 256;
		kl_tri_pair* grown = kl_realloc(s->pairs, (size_t)capacity, sizeof(kl_tri_pair));
		if (grown == NULL)
		{
			return false;
		}
		s->pairs = grown;
		s->pair_capacity = capacity;
	}
	s->pairs[s->pair_count].a = tri_a;
	s->pairs[s->pair_count].b = tri_b;
	s->pair_count++;
	return true;
}

vec3s kl_set_vertex(const kl_triangle_set* s, int32_t index)
{
	vec3s v = s->vertices[index];
	return kl_transform_point(s->xf, kl_vec3(v.x * s->scale.x, v.y * s->scale.y, v.z * s->scale.z));
}

void kl_set_triangle(const kl_triangle_set* s, int tri, vec3s out[3])
{
	const int32_t* t = s->indices + 3 * tri;
	for (int k = 0; k < 3; ++k)
	{
		out[k] = kl_set_vertex(s, t[k]);
	}
}

/// Appends one round contact (core point vs surface point) if it is within reach and in front of
/// the triangle's face (behind it the core is inside the mesh, and a neighbour faces it).
static int push_round_contact(const kl_mesh_query* q, bool round_a, vec3s face, vec3s core_point, vec3s surface,
							  int tri_a, int tri_b, uint8_t feature, kl_tri_contact* c)
{
	vec3s out_dir = glms_vec3_sub(core_point, surface); // from the mesh towards the core
	float distance = glms_vec3_norm(out_dir);
	if (distance > q->radius + q->config.margin || distance < 1.0e-7f || glms_vec3_dot(face, out_dir) <= 0.0f)
	{
		return 0;
	}
	vec3s n = glms_vec3_scale(out_dir, 1.0f / distance);
	float separation = distance - q->radius;
	memset(c, 0, sizeof(*c));
	c->point = glms_vec3_add(surface, glms_vec3_scale(n, 0.5f * separation));
	c->normal = round_a ? glms_vec3_negate(n) : n; // from a to b
	c->separation = separation;
	c->tri_a = (uint32_t)tri_a;
	c->tri_b = (uint32_t)tri_b;
	c->feature_a = round_a ? feature : KL_TRI_FACE;
	c->feature_b = round_a ? KL_TRI_FACE : feature;
	c->kind = KL_TRI_CONTACT_SEPARATED;
	return 1;
}

/// A sphere or capsule core (a point, or the segment core[0]–core[1]) against a mesh triangle. Each
/// core end against the triangle gives a contact (so a capsule lying on a face is held at both
/// ends); a capsule crossing closer to an edge than either end adds that closest pair.
static int round_contact(const kl_mesh_query* q, const vec3s ta[3], const vec3s tb[3], int tri_a, int tri_b,
						 kl_tri_contact* out)
{
	bool round_a = q->round_side == 1;
	const vec3s* core = round_a ? ta : tb;
	const vec3s* tri = round_a ? tb : ta;
	vec3s face = glms_vec3_cross(glms_vec3_sub(tri[1], tri[0]), glms_vec3_sub(tri[2], tri[0]));
	bool segment = glms_vec3_distance2(core[0], core[1]) > 1.0e-12f;
	int n = 0;
	float nearest_end = FLT_MAX;
	for (int e = 0; e < (segment ? 2 : 1); ++e)
	{
		vec3s surface = kl_closest_on_triangle(core[e], tri, NULL);
		nearest_end = fminf(nearest_end, glms_vec3_distance2(core[e], surface));
		n += push_round_contact(q, round_a, face, core[e], surface, tri_a, tri_b, (uint8_t)e, out + n);
	}
	if (segment)
	{
		float best = nearest_end;
		vec3s best_core = core[0], best_edge = core[0];
		int best_k = -1;
		for (int k = 0; k < 3; ++k)
		{
			float sc, se;
			kl_closest_segments(core[0], core[1], tri[k], tri[(k + 1) % 3], &sc, &se);
			vec3s on_core = glms_vec3_lerp(core[0], core[1], sc);
			vec3s on_edge = glms_vec3_lerp(tri[k], tri[(k + 1) % 3], se);
			float d = glms_vec3_distance2(on_core, on_edge);
			if (d < best * (1.0f - 1.0e-4f))
			{
				best = d, best_core = on_core, best_edge = on_edge, best_k = k;
			}
		}
		if (best_k >= 0)
		{
			n += push_round_contact(q, round_a, face, best_core, best_edge, tri_a, tri_b, (uint8_t)(2 + best_k), out + n);
		}
	}
	return n;
}

const kl_tri_edges* kl_set_triangle_edges(const kl_triangle_set* s, int tri, kl_tri_edges* edges)
{
	if (s->opposite == NULL)
	{
		return NULL;
	}
	edges->known = 0;
	for (int k = 0; k < 3; ++k)
	{
		int32_t o = s->opposite[3 * tri + k];
		if (o >= 0)
		{
			edges->opposite[k] = kl_set_vertex(s, o);
			edges->known |= (uint8_t)(1u << k);
		}
	}
	return edges;
}

/// Whether the segment from p (world) along unit u for length d stays inside the set's solid: no
/// other surface of it crosses the segment's inner part. Tells a penetration (the overlap lies in
/// both bodies) from a pair of faces a wall or a thread turn apart, which the two triangles alone
/// cannot: their faces are opposite and overlap either way.
static bool segment_inside(const kl_triangle_set* s, int tri, vec3s p, vec3s u, float d)
{
	vec3s lp = kl_inv_rotate(s->xf.q, glms_vec3_sub(p, s->xf.p));
	vec3s lu = kl_inv_rotate(s->xf.q, u);
	double origin[3] = {lp.x / s->scale.x, lp.y / s->scale.y, lp.z / s->scale.z};
	double dir[3] = {lu.x / s->scale.x, lu.y / s->scale.y, lu.z / s->scale.z};
	double hit = kl_bvh_ray(s->bvh, (const float*)s->vertices, s->indices, origin, dir, 0.05 * d, 0.95 * d, tri);
	return hit > 0.95 * d;
}

/// Whether an edge's crossing point, at signed distance `in` from the other body's surface
/// (kl_set_signed_distance), belongs to a real crossing of depth d. A convex edge crossing an edge
/// whose faces meet at angle θ lies d·sin(θ/2) inside it, so a point inside by a quarter of the
/// depth passes (wedges down to 29°). So does one on the surface (within 1 % of d): where two
/// bodies' sides line up, as identical gears stacked tooth on tooth and sunk into each other, every
/// crossing point lies on the other's flank, and these edges are all that holds them apart. The
/// thread of a screw in its block gave edge pairs 4.4 mm "deep" whose points lay +0.01 and +0.77 mm
/// outside: with them the screw rattled in its thread and never came to rest.
static bool edge_point_crosses(double in, double d)
{
	return in < -0.25 * d || fabs(in) <= 0.01 * d;
}

/// Whether a deep edge contact's overlap lies inside both bodies: the segment between the crossing
/// points meets no other surface (segment_inside), and both crossing points pass edge_point_crosses.
/// Shallow ones need no check: nothing a slop deep can be a wall away.
static bool edge_contact_inside(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_contact* c)
{
	float d = -c->separation;
	if (d <= 0.2f * KL_LINEAR_SLOP)
	{
		return true;
	}
	vec3s pa = glms_vec3_add(c->point, glms_vec3_scale(c->normal, 0.5f * d)); // a's edge, in b
	vec3s pb = glms_vec3_sub(c->point, glms_vec3_scale(c->normal, 0.5f * d)); // b's edge, in a
	return segment_inside(a, (int)c->tri_a, pa, glms_vec3_negate(c->normal), d) &&
		   segment_inside(b, (int)c->tri_b, pb, c->normal, d) &&
		   edge_point_crosses(kl_set_signed_distance(b, pa, d), d) &&
		   edge_point_crosses(kl_set_signed_distance(a, pb, d), d);
}

int kl_mesh_pair_contacts(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_pair* pairs, int pair_count,
						  const kl_tri_contact_config* config, const kl_vertex_motion* motion, kl_mesh_scratch* scratch)
{
	// Without the bodies' motion, the whole margin applies in every direction.
	kl_vertex_motion still;
	memset(&still, 0, sizeof(still));
	still.reach = config->margin;
	int n = kl_vertex_contacts(a, b, pairs, pair_count, config, motion != NULL ? motion : &still, scratch, 0);
	// The vertex contacts measure to the nearest surface, which is never a wall away; an edge pair
	// can be: the far side of a wall, the next turn of a thread.
	int kept = 0;
	for (int i = 0; i < n; ++i)
	{
		const kl_tri_contact* c = scratch->contacts + i;
		if (c->kind != KL_TRI_CONTACT_EDGE || edge_contact_inside(a, b, c))
		{
			scratch->contacts[kept++] = *c;
		}
	}
	return n < 0 ? n : kept;
}

/// Leaf test: mesh against mesh gathers the candidate pair (vertex_contacts.h makes the contacts
/// after the walk); a round shape's core against a triangle appends its contacts at once.
static bool leaf_contacts(int tri_a, int tri_b, void* context)
{
	kl_mesh_query* q = context;
	kl_mesh_scratch* s = q->scratch;
	if (q->collect_pairs)
	{
		q->failed = !kl_mesh_scratch_push_pair(s, tri_a, tri_b);
		return !q->failed;
	}
	if (!kl_mesh_scratch_reserve_contacts(s, q->count + KL_TRI_MAX_CONTACTS))
	{
		q->failed = true;
		return false;
	}
	kl_tri_contact* out = s->contacts + q->count;
	vec3s ta[3], tb[3];
	kl_set_triangle(q->a, tri_a, ta);
	kl_set_triangle(q->b, tri_b, tb);
	int n = round_contact(q, ta, tb, tri_a, tri_b, out);
	q->count += n;
	return n > 0;
}

/// Row-major [M | t] with x_a = M x_b + t, both in their sets' unscaled frames.
static void relative_m34(const kl_triangle_set* a, const kl_triangle_set* b, float m[12])
{
	mat3s ra = glms_quat_mat3(a->xf.q);
	mat3s rb = glms_quat_mat3(b->xf.q);
	mat3s rel = glms_mat3_mul(glms_mat3_transpose(ra), rb); // R_a^T R_b
	vec3s t = glms_mat3_mulv(glms_mat3_transpose(ra), glms_vec3_sub(b->xf.p, a->xf.p));
	float sb[3] = {b->scale.x, b->scale.y, b->scale.z};
	float inv_sa[3] = {1.0f / a->scale.x, 1.0f / a->scale.y, 1.0f / a->scale.z};
	float tv[3] = {t.x, t.y, t.z};
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			m[4 * r + c] = inv_sa[r] * rel.raw[c][r] * sb[c];
		}
		m[4 * r + 3] = inv_sa[r] * tv[r];
	}
}

/// The speculative margin of a pair whose thinner body is `thinnest` thick (FLT_MAX: unknown):
/// margin's fixed part (KL_SPECULATIVE_DISTANCE) becomes a thin band, at most the slop and a
/// quarter of the thinner body. A 2 cm band around a 2 cm gear holds nearly every triangle pair
/// (25,000 raw contacts a step), and around nested bowls or a screw in its thread it holds the far
/// walls, whose patches crowd out the supporting ones. The closing part (linear speed, gravity,
/// fast spin: contact.c), which stops tunnelling, stays.
static float kl_band_margin(float thinnest, float margin)
{
	if (thinnest < FLT_MAX)
	{
		float band = fmaxf(0.5f * KL_LINEAR_SLOP, fminf(KL_LINEAR_SLOP, 0.25f * thinnest));
		margin = margin > KL_SPECULATIVE_DISTANCE ? margin - (KL_SPECULATIVE_DISTANCE - band) : fminf(margin, band);
	}
	return margin;
}

kl_tri_contact_config kl_mesh_pair_config(const kl_triangle_set* a, const kl_triangle_set* b, float margin)
{
	kl_tri_contact_config config = kl_tri_contact_config_default();
	float thinnest = fminf(a->thickness > 0.0f ? a->thickness : FLT_MAX, b->thickness > 0.0f ? b->thickness : FLT_MAX);
	if (thinnest < FLT_MAX)
	{
		config.max_depth = fmaxf(2.0f * KL_LINEAR_SLOP, fminf(config.max_depth, 0.5f * thinnest));
	}
	config.margin = kl_band_margin(thinnest, margin);
	return config;
}

float kl_mesh_search_margin(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
							const kl_vertex_motion* motion)
{
	kl_tri_contact_config config = kl_mesh_pair_config(a, b, margin);
	if (motion != NULL && !a->convex && !b->convex)
	{
		// No vertex gets farther than the pair's reach within the step (kl_vertex_contacts drops
		// such pairs), and that is often far less than the body-wide margin, which adds both bodies'
		// spin bounds. The margin stays at least the depth band, so the candidates hold the nearest
		// surface of every vertex that deep, as they did before. (Vertices go deeper into a convex
		// set, whose few triangles cost little: no clamp there.)
		float least = fmaxf(config.max_depth, kl_mesh_pair_reach(a, b, motion));
		config.margin = fminf(config.margin, least);
	}
	return config.margin;
}

bool kl_mesh_pair_uses_pointshell(const kl_triangle_set* a, const kl_triangle_set* b)
{
	return a->pointshell != NULL && b->pointshell != NULL && (a->use_pointshell || b->use_pointshell);
}

/// Appends point-shell keys (pointshell.h) to scratch->pairs as triangle pairs.
static bool push_key_pairs(kl_mesh_scratch* scratch, const uint64_t* keys, int count)
{
	for (int i = 0; i < count; ++i)
	{
		if (!kl_mesh_scratch_push_pair(scratch, kl_ps_key_tri_a(keys[i]), kl_ps_key_tri_b(keys[i])))
		{
			return false;
		}
	}
	return true;
}

/// The candidate pairs of two mesh sets within margin from their point shells (pointshell.h), into
/// scratch->pairs, on the calling thread. False on failure (recorded).
static bool pointshell_candidates(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
								  kl_mesh_scratch* scratch)
{
	if (scratch->pointshell == NULL)
	{
		scratch->pointshell = kl_alloc_zero(1, sizeof(kl_ps_batch));
		if (scratch->pointshell == NULL)
		{
			return false;
		}
	}
	kl_ps_pair_query q;
	q.a = kl_ps_body_make(a->pointshell, a->xf, a->scale);
	q.b = kl_ps_body_make(b->pointshell, b->xf, b->scale);
	q.margin = margin;
	kl_ps_batch* batch = scratch->pointshell;
	kl_ps_stats stats;
	if (kl_ps_search_cpu(&q, 1, false, NULL, 1, batch, &stats) != KL_OK)
	{
		return false;
	}
	kl_ps_stats_add(&scratch->pointshell_stats, &stats);
	scratch->pair_count = 0;
	return push_key_pairs(scratch, batch->keys, (int)batch->key_count);
}

/// The manifolds of two sets; candidates (point-shell keys found beforehand for this pair, NULL:
/// search here) replace the search.
static int collide_sets(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
						const kl_vertex_motion* motion, int round_side, float radius, const kl_mesh_candidates* candidates,
						kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds)
{
	if (scratch == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh contacts: null scratch");
		return 0;
	}
	kl_mesh_query q;
	memset(&q, 0, sizeof(q));
	q.scratch = scratch;
	q.a = a;
	q.b = b;
	q.config = kl_mesh_pair_config(a, b, margin);
	if (round_side == 0)
	{
		q.config.margin = kl_mesh_search_margin(a, b, margin, motion);
	}
	margin = q.config.margin;
	q.round_side = round_side;
	q.radius = radius;
	margin += radius; // the DOPs hold the core; the surface is a radius further out
	float m34[12];
	relative_m34(a, b, m34);
	// The DOP test runs in b's unscaled frame; the margin is measured there, so divide by b's
	// smallest scale to stay conservative.
	float smallest = fminf(b->scale.x, fminf(b->scale.y, b->scale.z));
	kl_bvh_query query = {KL_BVH_ALL_PAIRS, KL_BVH_TRAVERSE_AUTO, margin / smallest, leaf_contacts, &q, NULL, 0};
	kl_bvh_result result;
	int manifolds = 0;
	q.collect_pairs = round_side == 0;
	scratch->pair_count = 0;
	kl_result walked;
	if (round_side == 0 && candidates != NULL)
	{
		walked = push_key_pairs(scratch, candidates->keys, candidates->count) ? KL_OK : KL_ERR_OUT_OF_MEMORY;
	}
	else if (round_side == 0 && kl_mesh_pair_uses_pointshell(a, b))
	{
		walked = pointshell_candidates(a, b, q.config.margin, scratch) ? KL_OK : KL_ERR_OUT_OF_MEMORY;
	}
	else
	{
		walked = kl_bvh_collide_m34(a->bvh, b->bvh, m34, &query, &result);
	}
	if (walked == KL_OK && q.collect_pairs && !q.failed)
	{
		q.count = kl_mesh_pair_contacts(a, b, scratch->pairs, scratch->pair_count, &q.config, motion, scratch);
		q.failed = q.count < 0;
		q.count = q.failed ? 0 : q.count;
	}
	if (walked == KL_OK && !q.failed && q.count > 0)
	{
		manifolds = kl_mesh_scratch_patches(scratch, q.count, motion, out, max_manifolds);
	}
	return manifolds;
}

int kl_collide_triangle_sets(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
							 const kl_vertex_motion* motion, kl_mesh_scratch* scratch, kl_manifold* out,
							 int max_manifolds)
{
	return collide_sets(a, b, margin, motion, 0, 0.0f, NULL, scratch, out, max_manifolds);
}

int kl_collide_triangle_sets_from(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
								  const kl_vertex_motion* motion, const kl_mesh_candidates* candidates,
								  kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds)
{
	return collide_sets(a, b, margin, motion, 0, 0.0f, candidates, scratch, out, max_manifolds);
}

int kl_collide_round_triangle_set(const kl_triangle_set* a, const kl_triangle_set* b, bool round_is_a, float radius,
								  float margin, kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds)
{
	return collide_sets(a, b, margin, NULL, round_is_a ? 1 : 2, radius, NULL, scratch, out, max_manifolds);
}

int kl_collide_plane_triangle_set(kl_plane plane, kl_transform xf_plane, const kl_triangle_set* set, bool plane_is_a,
								  float margin, const kl_vertex_motion* motion, kl_mesh_scratch* scratch,
								  kl_manifold* out, int max_manifolds)
{
	if (scratch == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh contacts: null scratch");
		return 0;
	}
	vec3s n = kl_rotate(xf_plane.q, plane.normal);
	float offset = plane.offset + glms_vec3_dot(n, xf_plane.p);
	// The contacts a face of a box ground would give (the band of the mesh's thickness, vertex
	// contacts, patches): the same mesh then rests on a plane as on a box.
	kl_tri_contact_config config = kl_tri_contact_config_default();
	config.margin = kl_band_margin(set->thickness > 0.0f ? set->thickness : FLT_MAX, margin);
	int count = kl_plane_vertex_contacts(n, offset, set, plane_is_a, &config, motion, scratch);
	return count > 0 ? kl_mesh_scratch_patches(scratch, count, motion, out, max_manifolds) : 0;
}

bool kl_plane_triangle_set_overlap(kl_plane plane, kl_transform xf_plane, const kl_triangle_set* set)
{
	vec3s n = kl_rotate(xf_plane.q, plane.normal);
	float offset = plane.offset + glms_vec3_dot(n, xf_plane.p);
	// A closed surface's lowest point towards a half-space is one of its vertices.
	for (int32_t v = 0; v < set->vertex_count; ++v)
	{
		if (glms_vec3_dot(n, kl_set_vertex(set, v)) <= offset)
		{
			return true;
		}
	}
	return false;
}

typedef struct kl_overlap_query
{
	const kl_triangle_set* a;
	const kl_triangle_set* b;
	int round_side; ///< as kl_mesh_query's
	float radius;
} kl_overlap_query;

/// Squared distance from a round shape's core (a point, or the segment core[0]–core[1]) to a
/// triangle: 0 where the segment meets it, else the nearest of its ends against the face and of
/// the segment against the triangle's edges.
static float core_triangle_distance2(const vec3s core[3], const vec3s tri[3])
{
	bool segment = glms_vec3_distance2(core[0], core[1]) > 1.0e-12f;
	if (segment && kl_segment_triangle_overlap(core[0], core[1], tri[0], tri[1], tri[2]))
	{
		return 0.0f;
	}
	float best = FLT_MAX;
	for (int e = 0; e < (segment ? 2 : 1); ++e)
	{
		best = fminf(best, glms_vec3_distance2(core[e], kl_closest_on_triangle(core[e], tri, NULL)));
	}
	for (int k = 0; segment && k < 3; ++k)
	{
		float sc, se;
		kl_closest_segments(core[0], core[1], tri[k], tri[(k + 1) % 3], &sc, &se);
		vec3s on_core = glms_vec3_lerp(core[0], core[1], sc);
		vec3s on_edge = glms_vec3_lerp(tri[k], tri[(k + 1) % 3], se);
		best = fminf(best, glms_vec3_distance2(on_core, on_edge));
	}
	return best;
}

/// Leaf test of kl_triangle_sets_overlap: the two triangles meet (exact), or the round core comes
/// within the radius of the triangle.
static bool leaf_overlap(int tri_a, int tri_b, void* context)
{
	const kl_overlap_query* q = context;
	vec3s ta[3], tb[3];
	kl_set_triangle(q->a, tri_a, ta);
	kl_set_triangle(q->b, tri_b, tb);
	if (q->round_side == 0)
	{
		return kl_tri_tri_overlap(ta, tb);
	}
	return q->round_side == 1 ? core_triangle_distance2(ta, tb) <= q->radius * q->radius
							  : core_triangle_distance2(tb, ta) <= q->radius * q->radius;
}

/// Whether world point p lies inside the set's closed surface (its signed distance,
/// kl_set_signed_distance, is negative). Without vertex normals the sign is unknown: false.
static bool point_inside_set(const kl_triangle_set* set, vec3s p)
{
	if (set->vertex_normals == NULL || set->vertex_count == 0)
	{
		return false;
	}
	double d = kl_set_signed_distance(set, p, (double)FLT_MAX);
	return d < 0.0;
}

/// Whether the surfaces of two triangle sets meet (round_side and radius as for
/// kl_triangle_sets_overlap); *failed is set when the walk ran out of memory.
static bool surfaces_meet(const kl_triangle_set* a, const kl_triangle_set* b, int round_side, float radius, bool* failed)
{
	*failed = false;
	kl_overlap_query q = {a, b, round_side, round_side != 0 ? radius : 0.0f};
	float m34[12];
	relative_m34(a, b, m34);
	float smallest = fminf(b->scale.x, fminf(b->scale.y, b->scale.z));
	kl_bvh_query query = {KL_BVH_FIRST_HIT, KL_BVH_TRAVERSE_AUTO, q.radius / smallest, leaf_overlap, &q, NULL, 0};
	kl_bvh_result result;
	if (kl_bvh_collide_m34(a->bvh, b->bvh, m34, &query, &result) != KL_OK)
	{
		*failed = true;
		return false;
	}
	return result.hit;
}

bool kl_triangle_set_surfaces_meet(const kl_triangle_set* a, const kl_triangle_set* b, bool* failed)
{
	return surfaces_meet(a, b, 0, 0.0f, failed);
}

bool kl_triangle_sets_overlap(const kl_triangle_set* a, const kl_triangle_set* b, int round_side, float radius,
							  bool* failed)
{
	if (surfaces_meet(a, b, round_side, radius, failed) || *failed)
	{
		return !*failed;
	}
	// No surfaces meet: the solids are apart, or one holds the other whole, and then any point of
	// it lies inside the other. A round shape held by a mesh has its core inside it; a mesh held by
	// a round shape comes within the radius of the core, which the walk has seen.
	if (round_side == 1)
	{
		return point_inside_set(b, kl_set_vertex(a, 0));
	}
	if (round_side == 2)
	{
		return point_inside_set(a, kl_set_vertex(b, 0));
	}
	return (a->vertex_count > 0 && point_inside_set(b, kl_set_vertex(a, 0))) ||
		   (b->vertex_count > 0 && point_inside_set(a, kl_set_vertex(b, 0)));
}
