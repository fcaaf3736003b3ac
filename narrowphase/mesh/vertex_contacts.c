// Kollide — vertex–surface contacts of two triangle meshes from their candidate pairs, and the
// per-pair filters and caches of the whole query (edge contacts: edge_contacts.c).
// SPDX-License-Identifier: MIT
#include "vertex_contacts.h"

#include "vertex_contacts_internal.h"

#include "bvh_near.h"
#include "core.h"
#include "dvec3.h"
#include "tri_edge.h"

#include <float.h>
#include <stdlib.h>

typedef struct kl_near_query
{
	const kl_triangle_set* set;
	vec3s p;
	double to_tree; ///< world distance to tree-frame distance (1 / the smallest scale)
	kl_nearest* best;
} kl_near_query;

/// Keeps triangle tri (world vertices t) when it is nearer to p than best.
static void kl_nearest_offer(kl_nearest* best, vec3s p, int tri, const vec3s t[3])
{
	uint8_t f;
	vec3s c = kl_closest_on_triangle(p, t, &f);
	kl_d3 w = kl_d3_rel(p, c);
	double d2 = kl_d3_dot(w, w);
	// Ties go to the lower triangle index, so the order of the candidates does not matter.
	if (d2 < best->d2 || (d2 == best->d2 && tri < best->tri))
	{
		best->d2 = d2;
		best->point = c;
		best->tri = tri;
		best->feature = f;
	}
}

void kl_offer_triangle(const kl_triangle_set* set, vec3s p, int tri, kl_nearest* best)
{
	vec3s t[3];
	kl_set_triangle(set, tri, t);
	kl_nearest_offer(best, p, tri, t);
}

static void kl_near_visit(int tri, double* radius, void* context)
{
	kl_near_query* q = context;
	kl_offer_triangle(q->set, q->p, tri, q->best);
	*radius = fmin(*radius, sqrt(q->best->d2) * q->to_tree);
}

/// Looks for a nearer surface point than best within its distance, through the whole BVH.
static void kl_nearest_in_tree(const kl_triangle_set* set, vec3s p, kl_nearest* best)
{
	float smallest = fminf(set->scale.x, fminf(set->scale.y, set->scale.z));
	vec3s local = kl_inv_rotate(set->xf.q, glms_vec3_sub(p, set->xf.p));
	double point[3] = {local.x / set->scale.x, local.y / set->scale.y, local.z / set->scale.z};
	kl_near_query q = {set, p, 1.0 / smallest, best};
	kl_bvh_near_point(set->bvh, point, sqrt(best->d2) * q.to_tree * (1.0 + 1e-6), kl_near_visit, &q);
}

/// A set's vertex pseudo-normal in the world.
static kl_d3 kl_world_vertex_normal(const kl_triangle_set* set, int32_t v)
{
	vec3s local = set->vertex_normals[v];
	// Normals scale by the inverse of the shape's scale.
	vec3s scaled = kl_vec3(local.x / set->scale.x, local.y / set->scale.y, local.z / set->scale.z);
	return kl_d3_unit(kl_f3(kl_rotate(set->xf.q, scaled)));
}

/// The pseudo-normal of the nearest feature (world): the face normal, the sum of the two face
/// normals of an edge, or the vertex's angle-weighted normal.
kl_d3 kl_pseudo_normal(const kl_triangle_set* set, const kl_nearest* near)
{
	vec3s t[3];
	kl_set_triangle(set, near->tri, t);
	kl_d3 n = kl_face_normal(t);
	if (near->feature >= KL_TRI_FACE)
	{
		return n;
	}
	if (near->feature >= KL_TRI_EDGE0)
	{
		int k = near->feature - KL_TRI_EDGE0;
		int32_t o = set->opposite != NULL ? set->opposite[3 * near->tri + k] : -1;
		if (o < 0)
		{
			return n;
		}
		// The neighbour runs the edge the other way: (t[k + 1], t[k], o) counter-clockwise.
		vec3s nb[3] = {t[(k + 1) % 3], t[k], kl_set_vertex(set, o)};
		return kl_d3_unit(kl_d3_add(n, kl_face_normal(nb)));
	}
	return kl_world_vertex_normal(set, set->indices[3 * near->tri + near->feature]);
}

double kl_set_signed_distance(const kl_triangle_set* set, vec3s p, double within)
{
	kl_nearest near = {within * within, p, -1, 0};
	kl_nearest_in_tree(set, p, &near);
	if (near.tri < 0)
	{
		return DBL_MAX;
	}
	double dist = sqrt(near.d2);
	return kl_d3_dot(kl_d3_rel(p, near.point), kl_pseudo_normal(set, &near)) < 0.0 ? -dist : dist;
}

/// A point p of set p's surface against set q's: a contact when its signed distance lies within
/// [-max_depth, margin]; sets the contact's point, normal, separation and kind, not its ids. near
/// holds the nearest point among the candidates, which hold every surface within `trusted` of p
/// and every candidate triangle within `complete`. A point that seems inside and farther than
/// `trusted` is dropped when q's whole BVH finds a nearer surface it is outside of; farther than
/// `complete`, the tree's nearest surface replaces the candidates', and so it does for every point
/// when search_tree is set (the candidates then need not be complete).
bool kl_point_contact(const kl_triangle_set* q_set, bool p_is_a, vec3s p, kl_nearest* near, bool search_tree,
					  double trusted, double complete, const kl_tri_contact_config* config, kl_tri_contact* out)
{
	double dist = sqrt(near->d2);
	if (dist > fmax(config->max_depth, config->margin) && !search_tree)
	{
		return false; // neither a contact inside nor a speculative one outside
	}
	kl_d3 pseudo = kl_d3_make(0.0, 0.0, 0.0);
	kl_d3 w = kl_d3_make(0.0, 0.0, 0.0);
	bool inside = false;
	if (!search_tree)
	{
		pseudo = kl_pseudo_normal(q_set, near);
		w = kl_d3_rel(p, near->point);
		inside = kl_d3_dot(w, pseudo) < 0.0;
	}
	if (!search_tree && inside && dist > trusted && dist <= complete)
	{
		// Beyond `trusted` the offers may lack the nearest surface (it lay farther above its plane
		// than the pair's reach), and a farther one behind whose plane p lies reads as inside: a
		// vertex in a bowl's hollow measured to the outer wall, 20-25 mm "deep". Only a nearer
		// surface that p is outside of overrules the offers; one that p is also inside of does not,
		// so a screw crest pressed into a thin tooth keeps the flank it entered by.
		kl_nearest found = *near;
		kl_nearest_in_tree(q_set, p, &found);
		if ((found.tri != near->tri || found.feature != near->feature) &&
			kl_d3_dot(kl_d3_rel(p, found.point), kl_pseudo_normal(q_set, &found)) >= 0.0)
		{
			return false; // outside, and beyond the reach of this step: no contact
		}
	}
	if (search_tree || (inside && dist > complete))
	{
		// Beyond `complete` the candidates may miss the nearest surface, and its sign with it (a
		// point in a bowl's hollow measured to the outer wall reads as deep inside): ask the tree,
		// within max_depth (deeper is no contact either way).
		kl_nearest found = *near;
		found.d2 = fmin(near->d2, (double)config->max_depth * config->max_depth);
		kl_nearest_in_tree(q_set, p, &found);
		if (found.tri != near->tri || found.feature != near->feature)
		{
			*near = found; // a nearer surface: its own distance
		}
		if (near->tri < 0)
		{
			return false;
		}
		dist = sqrt(near->d2);
		pseudo = kl_pseudo_normal(q_set, near);
		w = kl_d3_rel(p, near->point);
		inside = kl_d3_dot(w, pseudo) < 0.0;
	}
	double separation = inside ? -dist : dist;
	if (separation > config->margin || separation < -config->max_depth)
	{
		return false;
	}
	// The outward normal of q at the nearest point: the face's inside a face (exact, steady as the
	// point slides), else along the nearest-point direction, or the pseudo-normal when touching.
	kl_d3 n_out;
	if (near->feature >= KL_TRI_FACE)
	{
		n_out = pseudo;
	}
	else if (dist > 1e-7 * (1.0 + fabs(p.x) + fabs(p.y) + fabs(p.z)))
	{
		n_out = kl_d3_scale(w, (inside ? -1.0 : 1.0) / dist);
	}
	else
	{
		n_out = pseudo;
	}
	kl_d3 mid = kl_d3_add(kl_f3(near->point), kl_d3_scale(n_out, 0.5 * separation));
	out->point = kl_vec3((float)mid.x, (float)mid.y, (float)mid.z);
	kl_d3 n_ab = p_is_a ? kl_d3_scale(n_out, -1.0) : n_out;
	out->normal = kl_vec3((float)n_ab.x, (float)n_ab.y, (float)n_ab.z);
	out->separation = (float)separation;
	out->kind = KL_TRI_CONTACT_VERTEX;
	return true;
}

/// How far outside its feature's normal cone a contact normal may lie (about 10°): a faceted curve
/// resting on a faceted curve meets it a little off every facet's normal.
#define KL_CONE_SLACK_COS 0.98480775
#define KL_CONE_SLACK_SIN 0.17364818

/// The cosine of a cone's half-angle (cone_cos) widened by the slack.
static double kl_cone_widened(double cone_cos)
{
	double cc = fmax(-1.0, fmin(1.0, cone_cos));
	return cc * KL_CONE_SLACK_COS - sqrt(1.0 - cc * cc) * KL_CONE_SLACK_SIN;
}

/// Whether the contact's normal, seen from p's side (pointing into q), lies in the cone around
/// `axis` whose widened half-angle has cosine `widened` (kl_cone_widened).
static bool kl_normal_in_widened_cone(kl_d3 axis, double widened, const kl_tri_contact* c, bool p_is_a)
{
	kl_d3 into_q = kl_f3(c->normal); // from a to b
	if (!p_is_a)
	{
		into_q = kl_d3_scale(into_q, -1.0);
	}
	return kl_d3_dot(axis, into_q) >= widened;
}

/// Whether the contact's normal, seen from p's side (pointing into q), lies in the normal cone of
/// p's feature: the circular cone around `axis` whose half-angle has cosine cone_cos, widened by
/// the slack. A feature of p can push on q only along a direction of its own cone; outside it the
/// pair is not the contact of that feature (a vertex near q's rim that measures to q's side face
/// while a face of p rests on that rim, or a vertex gone past the middle of a thin part of q).
bool kl_normal_in_cone(kl_d3 axis, double cone_cos, const kl_tri_contact* c, bool p_is_a)
{
	return kl_normal_in_widened_cone(axis, kl_cone_widened(cone_cos), c, p_is_a);
}

struct kl_vertex_slot
{
	kl_nearest nearest;
	kl_nearest in_cone;	 ///< the nearest offered face whose inward normal lies in the vertex's cone
	kl_d3 axis;			 ///< the vertex's normal (world), set with the stamp
	double cone_widened; ///< its cone's cosine, widened by the slack; -2 (every direction) without cones
	bool cone;			 ///< the set has vertex cones (without, in_cone stays empty)
	vec3s world;		 ///< the vertex placed in the world, once per query (kl_cached_vertex)
	uint32_t stamp;		 ///< nearest is in use when this is the scratch's generation
	uint32_t world_stamp; ///< world is set when this is the scratch's generation
};

/// How far outside q's surface, at most, a vertex whose nearest surface lies outside its cone may be
/// for the nearest face inside its cone to stand in (kl_vertex_contact).
#define KL_ON_SURFACE (0.1 * (double)KL_LINEAR_SLOP)

/// Whether p lies over (or under) the face of near's triangle, its nearest point: the line from
/// there to p runs along the face's normal, as from a face it sank into, not off an edge or corner.
static bool kl_over_face(const kl_triangle_set* q_set, const kl_nearest* near, vec3s p)
{
	if (near->feature >= KL_TRI_FACE)
	{
		return true;
	}
	vec3s t[3];
	kl_set_triangle(q_set, near->tri, t);
	kl_d3 n = kl_face_normal(t);
	kl_d3 w = kl_d3_rel(p, near->point);
	double ww = kl_d3_dot(w, w), wn = kl_d3_dot(w, n);
	// Within about 2.5 degrees of the normal (rounding puts points over a shared edge on it).
	return ww <= 1e-18 || wn * wn >= 0.998 * ww;
}

/// One vertex v of set p (world p, its offers in slot) against set q's surface (kl_point_contact);
/// the id follows the vertex. The normal must lie in the vertex's normal cone; where the nearest
/// surface's does not, the nearest offered face within the cone may stand in (below).
static bool kl_vertex_contact(bool p_is_a, int32_t v, vec3s p, const struct kl_vertex_slot* slot,
							  const kl_triangle_set* q_set, double trusted, double complete,
							  const kl_tri_contact_config* config, kl_tri_contact* out)
{
	kl_nearest near = slot->nearest;
	bool made = kl_point_contact(q_set, p_is_a, p, &near, false, trusted, complete, config, out);
	if (made && !kl_normal_in_widened_cone(slot->axis, slot->cone_widened, out, p_is_a))
	{
		made = false;
		// Inside q (or on its surface), nearest to a side the vertex cannot push on: a corner of a
		// box sunk into a box near its side, or on it where the two bodies' sides line up. The face
		// within the vertex's cone (the top it sank into) holds it; without it the corners of the
		// overlap gave no contact, and the box tipped in and fell through. Only a face the vertex
		// lies over: a nut's corner touching a torus knot's tube took the nearest in-cone triangle's
		// far corner, 8.44 mm "deep" for 0.02 mm. A vertex outside q (flush sides) reads no deeper
		// than the surface band: a nut's corner 0.2 mm outside a gear read a face 4.5 mm above
		// it, on every other step (as the offers changed), and the gear never came out.
		double first = out->separation;
		if (first <= KL_ON_SURFACE && slot->in_cone.tri >= 0)
		{
			kl_nearest alt = slot->in_cone;
			made = kl_over_face(q_set, &alt, p) &&
				   kl_point_contact(q_set, p_is_a, p, &alt, false, trusted, complete, config, out) &&
				   kl_normal_in_widened_cone(slot->axis, slot->cone_widened, out, p_is_a) &&
				   (first <= 0.0 || out->separation >= -KL_ON_SURFACE);
		}
	}
	if (!made)
	{
		return false;
	}
	out->tri_a = p_is_a ? (uint32_t)v : UINT32_MAX;
	out->tri_b = p_is_a ? UINT32_MAX : (uint32_t)v;
	out->feature_a = KL_TRI_MESH_VERTEX;
	out->feature_b = KL_TRI_MESH_VERTEX;
	return true;
}


/// Vertex v of this side's set in the world, transformed once per query: a vertex is shared by
/// ~6 triangles and each triangle meets many of the other's, so most lookups are repeats.
static vec3s kl_cached_vertex(kl_mesh_scratch* s, int side, const kl_triangle_set* set, int32_t v)
{
	struct kl_vertex_slot* slot = s->slots[side] + v;
	if (slot->world_stamp != s->generation)
	{
		slot->world_stamp = s->generation;
		slot->world = kl_set_vertex(set, v);
	}
	return slot->world;
}

static void kl_cached_triangle(kl_mesh_scratch* s, int side, const kl_triangle_set* set, int tri, vec3s out[3])
{
	const int32_t* t = set->indices + 3 * tri;
	for (int k = 0; k < 3; ++k)
	{
		out[k] = kl_cached_vertex(s, side, set, t[k]);
	}
}

/// kl_set_triangle_edges through the cache.
const kl_tri_edges* kl_cached_edges(kl_mesh_scratch* s, int side, const kl_triangle_set* set, int tri,
									kl_tri_edges* edges)
{
	if (set->opposite == NULL)
	{
		return NULL;
	}
	edges->known = 0;
	for (int k = 0; k < 3; ++k)
	{
		int32_t o = set->opposite[3 * tri + k];
		if (o >= 0)
		{
			edges->opposite[k] = kl_cached_vertex(s, side, set, o);
			edges->known |= (uint8_t)(1u << k);
		}
	}
	return edges;
}

/// One triangle of a side placed in the world for the current query (kl_cached_face): a triangle
/// meets many of the other side's, so its normal, bounds and travel are worked out once.
struct kl_triangle_slot
{
	vec3s t[3];	   ///< world vertices
	kl_d3 normal;  ///< unit, zero when the triangle has no area
	kl_d3 centre;  ///< of its bounding sphere (the vertices' mean)
	double radius; ///< of its bounding sphere
	double travel; ///< how far its vertices can move relative to the other body this step (kl_travel)
	uint32_t stamp; ///< set when this is the scratch's generation
};

/// Makes room for a side's per-triangle slots; false when out of memory.
static bool kl_side_reserve_triangles(kl_mesh_scratch* s, int side, int triangle_count)
{
	if (triangle_count > s->tri_slot_capacity[side])
	{
		struct kl_triangle_slot* slots =
			kl_realloc(s->tri_slots[side], (size_t)triangle_count, sizeof(struct kl_triangle_slot));
		if (slots == NULL)
		{
			return false;
		}
		for (int t = s->tri_slot_capacity[side]; t < triangle_count; ++t)
		{
			slots[t].stamp = 0;
		}
		s->tri_slots[side] = slots;
		s->tri_slot_capacity[side] = triangle_count;
	}
	return true;
}

/// Makes room for a side's per-vertex slots; false when out of memory.
static bool kl_side_reserve(kl_mesh_scratch* s, int side, int vertex_count)
{
	if (vertex_count > s->slot_capacity[side])
	{
		struct kl_vertex_slot* slots = kl_realloc(s->slots[side], (size_t)vertex_count, sizeof(struct kl_vertex_slot));
		if (slots == NULL)
		{
			return false;
		}
		s->slots[side] = slots;
		int32_t* touched = kl_realloc(s->touched[side], (size_t)vertex_count, sizeof(int32_t));
		if (touched == NULL)
		{
			return false;
		}
		s->touched[side] = touched;
		for (int v = s->slot_capacity[side]; v < vertex_count; ++v)
		{
			slots[v].stamp = 0;
			slots[v].world_stamp = 0;
		}
		s->slot_capacity[side] = vertex_count;
	}
	s->touched_count[side] = 0;
	return true;
}

/// Offers triangle tq (placed in `face`) of the other set to vertex v of this side (world p): only when p lies within [-max_depth, margin] of the triangle's plane can the triangle
/// be its nearest surface within reach, which skips most of the far pairs of a wide margin.
static void kl_side_offer(kl_mesh_scratch* s, const kl_triangle_set* p_set, int side, int32_t v, vec3s p, int tq,
						  const struct kl_triangle_slot* face, double reach, const kl_tri_contact_config* config)
{
	const vec3s* t = face->t;
	kl_d3 n = face->normal;
	double h = kl_d3_dot(n, kl_d3_rel(p, t[0]));
	if (h > reach || h < -config->max_depth)
	{
		return;
	}
	struct kl_vertex_slot* slot = s->slots[side] + v;
	if (slot->stamp != s->generation)
	{
		slot->stamp = s->generation;
		slot->nearest.d2 = DBL_MAX;
		slot->nearest.tri = -1;
		slot->in_cone.d2 = DBL_MAX;
		slot->in_cone.tri = -1;
		bool cones = p_set->vertex_normals != NULL && p_set->vertex_cone_cos != NULL;
		slot->axis = cones ? kl_world_vertex_normal(p_set, v) : kl_d3_make(0.0, 0.0, 0.0);
		slot->cone_widened = cones ? kl_cone_widened(p_set->vertex_cone_cos[v]) : -2.0;
		slot->cone = cones;
		s->touched[side][s->touched_count[side]++] = v;
	}
	// The plane's distance and the bounding sphere's bound the triangle's from below: a triangle
	// farther than the nearest found so far can be neither nearer nor tied (the slack covers the
	// float rounding of the closest points, so the choice is the same as without the test).
	double bound = h * h * (1.0 - 1e-4) - 1e-12;
	bool may_cone = slot->cone && -kl_d3_dot(slot->axis, n) >= slot->cone_widened;
	if (bound > slot->nearest.d2 && (!may_cone || bound > slot->in_cone.d2))
	{
		return;
	}
	kl_d3 to_p = kl_d3_sub(kl_f3(p), face->centre);
	double beyond = sqrt(kl_d3_dot(to_p, to_p)) - face->radius;
	if (beyond > fabs(h))
	{
		bound = beyond * beyond * (1.0 - 1e-4) - 1e-12;
	}
	if (bound <= slot->nearest.d2)
	{
		kl_nearest_offer(&slot->nearest, p, tq, t);
	}
	if (may_cone && bound <= slot->in_cone.d2)
	{
		kl_nearest_offer(&slot->in_cone, p, tq, t);
	}
}

/// The contacts of this side's offered vertices against the other set; the offers hold every
/// surface within `complete` of a vertex.
static int kl_side_finish(const kl_triangle_set* p_set, const kl_triangle_set* q_set, int side, double trusted,
						  double complete, const kl_tri_contact_config* config, kl_mesh_scratch* s, int count)
{
	for (int i = 0; i < s->touched_count[side]; ++i)
	{
		int32_t v = s->touched[side][i];
		if (!kl_mesh_scratch_reserve_contacts(s, count + 1))
		{
			return -1;
		}
		if (kl_vertex_contact(side == 0, v, kl_cached_vertex(s, side, p_set, v), s->slots[side] + v, q_set, trusted,
							  complete, config, s->contacts + count))
		{
			++count;
		}
	}
	return count;
}

/// The velocity of body b relative to body a at a point x (both bodies' velocity fields taken
/// there), an affine field: offset + spin × x.
typedef struct kl_relative_field
{
	kl_d3 offset;
	kl_d3 spin;
	double dt;
} kl_relative_field;

static kl_relative_field kl_relative_field_make(const kl_vertex_motion* m)
{
	vec3s offset, spin;
	kl_motion_relative_field(m, &offset, &spin);
	kl_relative_field f = {kl_f3(offset), kl_f3(spin), m->dt};
	return f;
}

/// How far triangle u's vertices can move relative to the other body this step, to first order:
/// their relative speed times dt, in any direction (velocities change within the step, as sub-steps
/// resolve other contacts, so the direction alone is not a bound).
static double kl_travel(const kl_relative_field* f, const vec3s u[3])
{
	double most = 0.0;
	for (int k = 0; k < 3; ++k)
	{
		kl_d3 v = kl_d3_add(f->offset, kl_d3_cross(f->spin, kl_f3(u[k])));
		most = fmax(most, kl_d3_dot(v, v));
	}
	return sqrt(most) * f->dt;
}

/// The range of heights of triangle u's vertices over the plane of t (normal n), measured as
/// kl_pair_pierces measures them.
typedef struct kl_heights
{
	double lowest;
	double highest;
} kl_heights;

static kl_heights kl_heights_over(const vec3s t[3], kl_d3 n, const vec3s u[3])
{
	kl_heights h = {DBL_MAX, -DBL_MAX};
	for (int k = 0; k < 3; ++k)
	{
		double x = kl_d3_dot(n, kl_d3_rel(u[k], t[0]));
		h.lowest = x < h.lowest ? x : h.lowest;
		h.highest = x > h.highest ? x : h.highest;
	}
	return h;
}

/// Whether some edge of a triangle whose vertices have these heights over a plane crosses it (the
/// sign test of kl_pair_pierces).
static bool kl_heights_straddle(kl_heights h)
{
	return h.lowest < 0.0 && h.highest >= 0.0;
}

/// Triangle tri of this side placed in the world with its normal, bounds and travel, through the
/// scratch's per-triangle slots.
static const struct kl_triangle_slot* kl_cached_face(kl_mesh_scratch* s, int side, const kl_triangle_set* set,
													 int tri, const kl_relative_field* field)
{
	struct kl_triangle_slot* slot = s->tri_slots[side] + tri;
	if (slot->stamp != s->generation)
	{
		slot->stamp = s->generation;
		kl_cached_triangle(s, side, set, tri, slot->t);
		slot->normal = kl_face_normal(slot->t);
		kl_d3 sum = kl_d3_add(kl_d3_add(kl_f3(slot->t[0]), kl_f3(slot->t[1])), kl_f3(slot->t[2]));
		slot->centre = kl_d3_scale(sum, 1.0 / 3.0);
		double r2 = 0.0;
		for (int k = 0; k < 3; ++k)
		{
			kl_d3 d = kl_d3_sub(kl_f3(slot->t[k]), slot->centre);
			r2 = fmax(r2, kl_d3_dot(d, d));
		}
		slot->radius = sqrt(r2);
		slot->travel = kl_travel(field, slot->t);
	}
	return slot;
}

/// Whether two triangles' bounding spheres lie farther apart than `gap`.
static bool kl_spheres_apart(const struct kl_triangle_slot* x, const struct kl_triangle_slot* y, double gap)
{
	kl_d3 d = kl_d3_sub(x->centre, y->centre);
	double reach = gap + x->radius + y->radius;
	return kl_d3_dot(d, d) > reach * reach;
}

/// The settings for vertices going into set q: the pair's, but into a convex q as deep as half its
/// thickness (at most the default 0.1 m), where its nearest face is still the way out. The pair's
/// bound comes from the thinner body, and it is the penetrated one that matters: an L bar landing
/// with a spinning arm sank 13 mm into the ground in one step, past the 10 mm its own 19 mm allow,
/// got no contact there and fell through.
static kl_tri_contact_config kl_config_into(const kl_tri_contact_config* config, const kl_triangle_set* q)
{
	kl_tri_contact_config into = *config;
	if (q->convex)
	{
		float bound = fminf(kl_tri_contact_config_default().max_depth, 0.5f * q->thickness);
		into.max_depth = fmaxf(config->max_depth, bound);
	}
	return into;
}

int kl_vertex_contacts(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_pair* pairs, int pair_count,
					   const kl_tri_contact_config* config, const kl_vertex_motion* motion, kl_mesh_scratch* scratch,
					   int start)
{
	const kl_tri_contact_config into_b = kl_config_into(config, b), into_a = kl_config_into(config, a);
	double reach = fmin((double)motion->reach, (double)config->margin);
	kl_relative_field field = kl_relative_field_make(motion);
	bool vertices_a = b->vertex_normals != NULL; // the inside test runs on the other set's surface
	bool vertices_b = a->vertex_normals != NULL;
	if (!kl_side_reserve(scratch, 0, a->vertex_count) || !kl_side_reserve(scratch, 1, b->vertex_count) ||
		!kl_side_reserve_triangles(scratch, 0, a->bvh->triangle_count) ||
		!kl_side_reserve_triangles(scratch, 1, b->bvh->triangle_count))
	{
		return -1;
	}
	if (++scratch->generation == 0)
	{
		// Wrapped: every stale stamp could match again, so clear them.
		for (int side = 0; side < 2; ++side)
		{
			for (int v = 0; v < scratch->slot_capacity[side]; ++v)
			{
				scratch->slots[side][v].stamp = 0;
				scratch->slots[side][v].world_stamp = 0;
			}
			for (int t = 0; t < scratch->tri_slot_capacity[side]; ++t)
			{
				scratch->tri_slots[side][t].stamp = 0;
			}
		}
		scratch->generation = 1;
	}
	int count = start;
	scratch->pierce_count = 0;
	// Nearer than this a triangle can hold a vertex's nearest surface inside (deeper is no contact).
	double deepest = fmax(into_a.max_depth, into_b.max_depth);
	for (int i = 0; i < pair_count; ++i)
	{
		const struct kl_triangle_slot* fa = kl_cached_face(scratch, 0, a, pairs[i].a, &field);
		const struct kl_triangle_slot* fb = kl_cached_face(scratch, 1, b, pairs[i].b, &field);
		const vec3s* ta = fa->t;
		const vec3s* tb = fb->t;
		kl_d3 na = fa->normal, nb = fb->normal;
		if (kl_d3_dot(na, na) == 0.0 || kl_d3_dot(nb, nb) == 0.0)
		{
			continue; // no area: its neighbours carry the surface
		}
		// How far b's vertices can close on a's plane this step, and a's on b's. A pair farther
		// apart than either side can travel or go deep cannot touch: its vertices have a nearer
		// surface within reach, or none, and its edges are that far apart (the cheaper test, first).
		double reach_a = fmin(reach + fb->travel, config->margin);
		double reach_b = fmin(reach + fa->travel, config->margin);
		double farthest = fmax(reach_a, reach_b);
		if (kl_spheres_apart(fa, fb, fmax(farthest, deepest)))
		{
			continue;
		}
		// Nor can a pair whose gap along a face normal is wider, nor a vertex that far from a face.
		// The planes alone let through most pairs of two tumbling parts (each triangle near the
		// other's plane far to its side): 450,000 of 660,000 for 2 contacts.
		kl_heights b_over_a = kl_heights_over(ta, na, tb), a_over_b = kl_heights_over(tb, nb, ta);
		if (b_over_a.lowest > reach_a || a_over_b.lowest > reach_b)
		{
			continue;
		}
		for (int k = 0; k < 3; ++k)
		{
			if (vertices_a)
			{
				kl_side_offer(scratch, a, 0, a->indices[3 * pairs[i].a + k], ta[k], pairs[i].b, fb, reach_b, &into_b);
			}
			if (vertices_b)
			{
				kl_side_offer(scratch, b, 1, b->indices[3 * pairs[i].b + k], tb[k], pairs[i].a, fa, reach_a, &into_a);
			}
		}
		// An edge pierces the other face only where its triangle crosses that face's plane.
		if (!kl_mesh_scratch_reserve_contacts(scratch, count + 9) ||
			(kl_heights_straddle(a_over_b) && !kl_pair_pierces(a, 0, pairs[i].a, ta, na, pairs[i].b, tb, nb, scratch)) ||
			(kl_heights_straddle(b_over_a) && !kl_pair_pierces(b, 1, pairs[i].b, tb, nb, pairs[i].a, ta, na, scratch)))
		{
			return -1;
		}
		// Two edges are as far apart as their contact's separation: beyond what either side can
		// travel this step, as for the vertices, they make no contact.
		if (!kl_spheres_apart(fa, fb, farthest))
		{
			count += kl_pair_edge_contacts(a, b, pairs[i], ta, na, tb, nb, farthest, config, scratch,
										   scratch->contacts + count);
		}
	}
	// The offers are complete within `reach` (every pair and vertex offer that close survived the
	// filters above). Beyond it an inside reading is checked against the tree, which may only say
	// "outside" (kl_point_contact); beyond the margin the tree's nearest surface replaces it.
	count = kl_side_finish(a, b, 0, reach, config->margin, &into_b, scratch, count);
	count = count < 0 ? count : kl_side_finish(b, a, 1, reach, config->margin, &into_a, scratch, count);
	return count < 0 ? count : kl_pierce_contacts(a, b, config, scratch, count);
}

int kl_plane_vertex_contacts(vec3s normal, float offset, const kl_triangle_set* set, bool plane_is_a,
							 const kl_tri_contact_config* config, const kl_vertex_motion* motion,
							 kl_mesh_scratch* scratch)
{
	kl_relative_field field = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, 0.0};
	if (motion != NULL)
	{
		field = kl_relative_field_make(motion);
	}
	bool cones = set->vertex_normals != NULL && set->vertex_cone_cos != NULL;
	kl_d3 n = kl_f3(normal);
	int count = 0;
	for (int32_t v = 0; v < set->vertex_count; ++v)
	{
		vec3s p = kl_set_vertex(set, v);
		double s = kl_d3_dot(n, kl_f3(p)) - (double)offset;
		// As a vertex against a face (kl_side_offer): within how far it can travel relative to
		// the plane this step plus the motion's reach, and never beyond the margin.
		double reach = config->margin;
		if (motion != NULL)
		{
			kl_d3 velocity = kl_d3_add(field.offset, kl_d3_cross(field.spin, kl_f3(p)));
			reach = fmin((double)motion->reach + sqrt(kl_d3_dot(velocity, velocity)) * field.dt, reach);
		}
		if (s > reach)
		{
			continue;
		}
		if (!kl_mesh_scratch_reserve_contacts(scratch, count + 1))
		{
			return -1;
		}
		kl_tri_contact* c = scratch->contacts + count;
		kl_d3 mid = kl_d3_sub(kl_f3(p), kl_d3_scale(n, 0.5 * s));
		c->point = kl_vec3((float)mid.x, (float)mid.y, (float)mid.z);
		c->normal = plane_is_a ? normal : glms_vec3_negate(normal);
		c->separation = (float)s;
		c->tri_a = plane_is_a ? UINT32_MAX : (uint32_t)v;
		c->tri_b = plane_is_a ? (uint32_t)v : UINT32_MAX;
		c->feature_a = KL_TRI_MESH_VERTEX;
		c->feature_b = KL_TRI_MESH_VERTEX;
		c->kind = KL_TRI_CONTACT_VERTEX;
		// The vertex pushes on the plane only along a direction of its own normal cone, as on a
		// face: a vertex up the side of a tube or a bowl's wall that lies within the band is not
		// where the body rests.
		if (cones && !kl_normal_in_widened_cone(kl_world_vertex_normal(set, v),
												kl_cone_widened(set->vertex_cone_cos[v]), c, !plane_is_a))
		{
			continue;
		}
		++count;
	}
	return count;
}
