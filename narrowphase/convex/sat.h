// Kollide internal — separating-axis test between convex polyhedra (face and edge queries after
// Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013) and the contact
// builders that follow it (reference-face clipping and edge–edge, clip.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "collide_pairs.h"

/// Hulls up to this size get B's vertices and face planes transformed into A's frame once per call
/// (stack arrays); bigger ones are transformed on demand, which is slower but bounded in memory.
#define KL_SAT_MAX_CACHED 64
#define KL_SAT_MAX_CACHED_FACES (2 * KL_SAT_MAX_CACHED)

/// Edge pairs whose directions are closer to parallel than this sine are skipped: their cross
/// product has no reliable direction, and the adjacent face axes already cover them.
#define KL_SAT_PARALLEL_SINE 0.005f

/// Kinds of separating axis, stored in kl_collide_cache.type (index_a: face or even half-edge of
/// A; index_b: face or even half-edge of B). flags holds KL_SAT_SEPARATED when the axis separated
/// by more than speculative at the last call, and KL_SAT_POSE when cache.pose holds the relative
/// pose of a full SAT that found the pair touching (all queries run), so that the axis was the
/// best one at that pose.
enum
{
	KL_SAT_NONE = 0,
	KL_SAT_FACE_A = 1,
	KL_SAT_FACE_B = 2,
	KL_SAT_EDGES = 3,
	KL_SAT_SEPARATED = 1,
	KL_SAT_POSE = 2,
};

/// Pose coherence: a touching pair whose relative pose has moved so little since its last full
/// SAT that the separation of any axis can have changed by at most this much keeps the cached axis
/// (re-measured, and the contact re-clipped, at the new pose) instead of running the face and edge
/// queries again. The best axis can then be worse than the cached one by this bound on top of the
/// choice tolerances (kl_sat_tolerance, half the slop), so a quarter of the slop keeps the error
/// well inside the band the solver already tolerates.
#define KL_SAT_COHERENCE_DISTANCE (0.25f * KL_LINEAR_SLOP)

/// A rotation as a 3x3 matrix (columns), cheaper to apply than a quaternion in loops.
typedef struct kl_rot33
{
	vec3s cx, cy, cz;
} kl_rot33;

static inline float kl_dot3(vec3s a, vec3s b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline vec3s kl_sub3(vec3s a, vec3s b)
{
	vec3s r = {{a.x - b.x, a.y - b.y, a.z - b.z}};
	return r;
}

static inline vec3s kl_add3(vec3s a, vec3s b)
{
	vec3s r = {{a.x + b.x, a.y + b.y, a.z + b.z}};
	return r;
}

static inline vec3s kl_scale3(vec3s a, float s)
{
	vec3s r = {{a.x * s, a.y * s, a.z * s}};
	return r;
}

static inline vec3s kl_cross3(vec3s a, vec3s b)
{
	vec3s r = {{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}};
	return r;
}

/// Matrix of a unit quaternion.
static inline kl_rot33 kl_rot33_from_quat(versors q)
{
	float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
	float xx = q.x * x2, yy = q.y * y2, zz = q.z * z2;
	float xy = q.x * y2, xz = q.x * z2, yz = q.y * z2;
	float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
	kl_rot33 m;
	m.cx = kl_vec3(1.0f - yy - zz, xy + wz, xz - wy);
	m.cy = kl_vec3(xy - wz, 1.0f - xx - zz, yz + wx);
	m.cz = kl_vec3(xz + wy, yz - wx, 1.0f - xx - yy);
	return m;
}

/// m v
static inline vec3s kl_rot33_apply(const kl_rot33* m, vec3s v)
{
	vec3s r = {{m->cx.x * v.x + m->cy.x * v.y + m->cz.x * v.z, m->cx.y * v.x + m->cy.y * v.y + m->cz.y * v.z,
				m->cx.z * v.x + m->cy.z * v.y + m->cz.z * v.z}};
	return r;
}

/// m^T v (the inverse rotation)
static inline vec3s kl_rot33_apply_inv(const kl_rot33* m, vec3s v)
{
	vec3s r = {{kl_dot3(m->cx, v), kl_dot3(m->cy, v), kl_dot3(m->cz, v)}};
	return r;
}

/// Two hulls seen from A's frame: B's pose relative to A, and B's vertices and face planes
/// transformed into A's frame when B is small enough (else NULL and transformed on demand).
typedef struct kl_sat_pair
{
	const kl_hull* a;
	const kl_hull* b;
	kl_rot33 r; ///< B's frame to A's frame
	vec3s t;	///< B's origin in A's frame
	const vec3s* vb;
	const vec3s* nb;
	const float* ob;
} kl_sat_pair;

/// Stack storage for the transformed copy of B.
typedef struct kl_sat_storage
{
	vec3s vertices[KL_SAT_MAX_CACHED];
	vec3s normals[KL_SAT_MAX_CACHED_FACES];
	float offsets[KL_SAT_MAX_CACHED_FACES];
} kl_sat_storage;

/// Sets up the pair from the relative pose of B in A's frame (rotation q, translation t), with
/// B transformed on demand (enough for a cached-axis check).
void kl_sat_pair_init(kl_sat_pair* pair, const kl_hull* a, const kl_hull* b, versors q, vec3s t);

/// Transforms B's vertices and face planes into A's frame once, when B fits the storage.
void kl_sat_pair_transform(kl_sat_pair* pair, kl_sat_storage* storage);

static inline vec3s kl_sat_vertex_b(const kl_sat_pair* pair, int i)
{
	if (pair->vb != NULL)
	{
		return pair->vb[i];
	}
	return kl_add3(kl_rot33_apply(&pair->r, pair->b->vertices[i]), pair->t);
}

static inline vec3s kl_sat_normal_b(const kl_sat_pair* pair, int i)
{
	if (pair->nb != NULL)
	{
		return pair->nb[i];
	}
	return kl_rot33_apply(&pair->r, pair->b->faces[i].normal);
}

static inline float kl_sat_offset_b(const kl_sat_pair* pair, int i)
{
	if (pair->ob != NULL)
	{
		return pair->ob[i];
	}
	return pair->b->faces[i].offset + kl_dot3(kl_sat_normal_b(pair, i), pair->t);
}

typedef struct kl_face_query
{
	int index;
	float separation;
} kl_face_query;

typedef struct kl_edge_query
{
	int edge_a; ///< half-edge of A (even), -1 when no edge pair forms a Minkowski face
	int edge_b; ///< half-edge of B (even)
	float separation;
	vec3s normal; ///< A's frame, from A to B
} kl_edge_query;

/// Smallest dot(d, v) over B's vertices (A's frame).
float kl_sat_min_b(const kl_sat_pair* pair, vec3s d);
/// Smallest and largest dot(d, v) over A's vertices.
float kl_sat_min_a(const kl_hull* a, vec3s d);
float kl_sat_max_a(const kl_hull* a, vec3s d);

/// The face of A (or B) whose plane separates the most (the first such); stops early at the first
/// face that separates by more than stop (which is then returned). hint (-1: none) is a face likely
/// to separate nearly the most, measured first to skip the others cheaply; the answer does not
/// depend on it.
kl_face_query kl_sat_query_faces_a(const kl_sat_pair* pair, float stop, int hint);
kl_face_query kl_sat_query_faces_b(const kl_sat_pair* pair, float stop, int hint);

/// The edge pair whose Gauss-map arcs cross (a face of the Minkowski difference) and that
/// separates the most; near-parallel pairs are skipped. Stops early like the face queries. Pairs
/// that cannot separate by more than floor may be skipped (-FLT_MAX: none), so the answer is exact
/// only when it beats floor: pass the best face separation, which edges must beat to be chosen.
kl_edge_query kl_sat_query_edges(const kl_sat_pair* pair, float stop, float floor);

/// The edge axis of half-edges ea (of A) and eb (of B) oriented away from A's centroid; false
/// when the edges are nearly parallel.
bool kl_sat_edge_axis(const kl_sat_pair* pair, int ea, int eb, vec3s* normal);

/// Separation along a remembered axis (kind KL_SAT_*, feature indices), exact for any pose: the
/// face planes bound their hull, and an edge axis is measured by both hulls' supports. Returns
/// -FLT_MAX when the axis no longer exists (indices out of range, parallel edges).
float kl_sat_axis_separation(const kl_sat_pair* pair, int kind, int index_a, int index_b);

/// Full SAT result.
typedef struct kl_sat_result
{
	int kind;	///< KL_SAT_FACE_A, KL_SAT_FACE_B or KL_SAT_EDGES: the axis chosen for contact
	int index_a; ///< face of A (KL_SAT_FACE_A) or even half-edge of A (KL_SAT_EDGES), else 0
	int index_b; ///< face of B (KL_SAT_FACE_B) or even half-edge of B (KL_SAT_EDGES), else 0
	float separation;
	kl_face_query face_a;
	kl_face_query face_b;
	kl_edge_query edges;
} kl_sat_result;

/// The absolute part of the choice tolerances for hulls of the given sizes (largest extents):
/// half the linear slop, but no more than a small fraction of the smaller hull, so that millimetre
/// shapes still get the axis that separates them most.
float kl_sat_tolerance(float size_a, float size_b);

/// Picks the axis from the queries in r (a query not run has separation -FLT_MAX, edge_a -1):
/// the first that separates by more than speculative, else faces over edges and A's face over
/// B's within the relative tolerances. Sets kind, index_a, index_b and separation.
void kl_sat_choose(kl_sat_result* r, float speculative, float tolerance);

/// Runs the face queries and the edge query and picks the axis: faces are favoured over edges and
/// A's face over B's within a relative tolerance, so that the choice is coherent from step to
/// step. Stops as soon as an axis separates by more than speculative (then separation > speculative).
kl_sat_result kl_sat_query(const kl_sat_pair* pair, float speculative);

// ---------------------------------------------------------------------------------------------
// Contact builders (clip.c). Points and normal come out in A's frame; the caller maps them to world.

/// Most points one clipped polygon keeps; faces with more vertices than this lose the excess.
#define KL_CLIP_CAPACITY 64

/// Feature ids: bit 31 marks B as the reference hull, bits 29-30 the kind, then two indices of 14
/// and 15 bits (bigger indices wrap: at worst a rare mix-up of two features of one huge hull).
enum
{
	KL_ID_VERTEX = 0,	///< incident vertex inside the reference face: (reference face, vertex)
	KL_ID_CROSSING = 1, ///< incident edge across a side plane: (reference half-edge, incident half-edge)
	KL_ID_CORNER = 2,	///< corner of the reference face: (its two half-edges)
	KL_ID_EDGES = 3,	///< edge–edge contact: (edge of A, edge of B)
};

static inline uint32_t kl_make_feature_id(bool flip, uint32_t kind, uint32_t x, uint32_t y)
{
	return ((uint32_t)flip << 31) | (kind << 29) | ((x & 0x3FFFu) << 15) | (y & 0x7FFFu);
}

/// Clips the incident face (of the faces around the incident hull's deepest vertex, the most
/// anti-parallel to the reference normal) against the reference face's side planes and keeps the
/// points within speculative, midway between the surfaces. ref_is_b picks B's face ref_face as
/// reference. Writes candidate points (A's frame), returns their count, and the normal from A to B.
int kl_clip_face_contact(const kl_sat_pair* pair, bool ref_is_b, int ref_face, float speculative,
						 kl_manifold_point* points, vec3s* normal);

/// One point at the incident hull's deepest vertex below the reference face: the fallback when
/// clipping leaves nothing (deep penetration between faces that do not overlap).
int kl_support_contact(const kl_sat_pair* pair, bool ref_is_b, int ref_face, kl_manifold_point* point, vec3s* normal);

/// One point midway between the closest points of the two edges (A's frame).
int kl_edge_contact(const kl_sat_pair* pair, const kl_edge_query* query, kl_manifold_point* point);

// ---------------------------------------------------------------------------------------------
// Shared by the hull and box pair functions (collide_hull.c)

/// Empty manifold with zeroed solver state.
void kl_hull_clear_manifold(kl_manifold* m);

/// Remembers the chosen axis of r (nothing when its indices do not fit the cache); clears the pose.
void kl_hull_store_cache(kl_collide_cache* cache, const kl_sat_result* r, float speculative);

/// How far the relative pose (q, t) of B in A's frame is from the one cached: a bound on how much
/// the separation of the cached axis plus that of the best axis can have changed since the cached
/// SAT. FLT_MAX when no pose is cached.
float kl_hull_pose_drift(const kl_collide_cache* cache, const kl_hull* a, const kl_hull* b, versors q, vec3s t);

/// The cached axis as a SAT result at the pair's pose, when it still describes the contact (an edge
/// pair whose edges still support both hulls). False when the full SAT must run.
bool kl_hull_cached_result(const kl_sat_pair* pair, const kl_collide_cache* cache, float separation,
						   kl_sat_result* r);

/// Builds the manifold for the axis chosen in r (nothing when it separates by more than
/// speculative): clipping for a face, one point for edges; reduced to four and mapped to world.
void kl_hull_contact(const kl_sat_pair* pair, const kl_sat_result* r, float speculative, kl_transform xf_a,
					 kl_manifold* m);
