// Kollide internal — GJK closest points between convex cores (points, segments, boxes, hulls),
// and the closed forms the round pairs share with the dispatcher.
// SPDX-License-Identifier: MIT
#pragma once

#include "collide_pairs.h"

/// A convex core as GJK sees it: a vertex set (a sphere's centre, a capsule's two ends, a hull's
/// vertices) or a box, plus the radius that rounds it. Vertex indices are what feature ids and
/// the warm start refer to; a box's vertex i is (±hx, ±hy, ±hz) with bit 0/1/2 of i choosing +,
/// the numbering of kl_make_box_hull.
typedef struct kl_gjk_proxy
{
	const vec3s* points; ///< vertices in the proxy's frame; NULL for a box
	int count;
	vec3s half_extents; ///< box, when points is NULL
	float radius;
} kl_gjk_proxy;

/// Fills proxy from a collider (not a plane or mesh). Sphere and capsule core points are written
/// to storage, which must outlive the proxy. False (with kl_fail) for an unsupported collider.
bool kl_gjk_make_proxy(const kl_collider* collider, vec3s storage[2], kl_gjk_proxy* proxy);

/// Result of kl_gjk: the closest points of the two cores (radii not applied).
typedef struct kl_gjk_output
{
	vec3s point_a;	///< on core a, in b's frame
	vec3s point_b;	///< on core b, in b's frame
	vec3s normal;	///< unit, from a to b; zero when the cores overlap
	float distance; ///< between the cores; 0 when they overlap
	int simplex_count;
	int index_a[4]; ///< proxy vertices of the final simplex
	int index_b[4];
	float weight[4]; ///< barycentric weights of the closest point on the simplex
	int iterations;
} kl_gjk_output;

/// Closest points between core a, placed in b's frame by xf_ab, and core b. start_a/start_b name
/// the vertex pair to start from (a cached simplex vertex; out-of-range indices start at 0).
/// Uses a Johnson-style sub-algorithm on Voronoi regions with guards for degenerate simplices,
/// and stops on no progress, repeated vertices or an iteration cap, so it always returns the
/// best simplex found.
void kl_gjk(const kl_gjk_proxy* a, kl_transform xf_ab, const kl_gjk_proxy* b, int start_a, int start_b,
			kl_gjk_output* out);

/// Closest point to p on the segment [a, b]; writes the segment parameter in [0, 1].
vec3s kl_closest_on_segment(vec3s p, vec3s a, vec3s b, float* t);

/// Closest points of the segments [p1, q1] and [p2, q2] (Ericson 5.1.9, with zero-length and
/// parallel segments handled): writes the parameters s (first) and t (second).
void kl_closest_segments(vec3s p1, vec3s q1, vec3s p2, vec3s q2, float* s, float* t);

/// Sphere (a, radius ra) against a box (b) in closed form: the fast path of sphere–box.
void kl_collide_sphere_box(float ra, kl_transform xf_a, vec3s half_extents, kl_transform xf_b, float speculative,
						   kl_manifold* m);

/// Writes one manifold point with zeroed solver state.
static inline void kl_set_manifold_point(kl_manifold_point* mp, vec3s point, float separation, uint32_t id)
{
	mp->point = point;
	mp->separation = separation;
	mp->id = id;
	mp->normal_impulse = 0.0f;
	mp->tangent_impulse[0] = 0.0f;
	mp->tangent_impulse[1] = 0.0f;
	mp->max_normal_impulse = 0.0f;
	mp->normal_velocity = 0.0f;
	mp->persisted = false;
}

/// An empty manifold (no points, zero normal and solver state).
static inline void kl_clear_manifold(kl_manifold* m)
{
	m->normal = kl_vec3(0.0f, 0.0f, 0.0f);
	m->point_count = 0;
	m->rolling_impulse = kl_vec3(0.0f, 0.0f, 0.0f);
}
