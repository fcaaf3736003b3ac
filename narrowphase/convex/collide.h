// Kollide internal — convex narrowphase: contact manifolds between two convex colliders (sphere,
// capsule, box, hull, plane) at world poses. Pure geometry: no world, no allocation.
// SPDX-License-Identifier: MIT
#pragma once

#include "manifold.h"

#include <kollide/types.h>

typedef struct kl_hull kl_hull;

/// A convex shape as the narrowphase sees it, in its own frame (the shape frame; the caller folds
/// the shape's local pose into the transform it passes).
typedef struct kl_collider
{
	kl_shape_type type; ///< SPHERE, CAPSULE, BOX, HULL or PLANE
	union
	{
		float radius;			///< sphere
		struct
		{
			float radius;
			float half_height; ///< segment from (0,0,-h) to (0,0,h)
		} capsule;
		vec3s half_extents;		///< box
		const kl_hull* hull;	///< hull (vertices in the collider frame)
		kl_plane plane;			///< plane
	};
} kl_collider;

/// What a pair remembers between steps to skip work (the separating axis of the last SAT, the GJK
/// simplex start, and for hulls the relative pose that SAT saw, so that a pair that has barely
/// moved since reuses the axis). Zero-initialised for a new pair; kl_collide updates it.
typedef struct kl_collide_cache
{
	uint8_t type;		///< 0 none, else a kind private to the pair function
	uint8_t flags;
	int16_t index_a;
	int16_t index_b;
	float separation; ///< of the cached axis at the last call
	float pose[7];	  ///< B's frame in A's at the last full SAT: translation, then quaternion x y z w
} kl_collide_cache;

/// Computes the manifold of a and b placed at xf_a and xf_b (world). Points whose separation is
/// above `speculative` are dropped; point_count = 0 means no contact. The normal points from a to
/// b. Solver fields of the points are zero (see kl_manifold_keep_impulses). Any order of shape
/// types works (the pair is swapped and the normal flipped inside). Plane–plane gives nothing.
/// cache may be NULL.
void kl_collide(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b, float speculative,
				kl_collide_cache* cache, kl_manifold* manifold);

/// Closest points between two convex colliders (not planes) by GJK: returns the distance (0 when
/// they overlap) and writes the witness points (world) when not NULL.
float kl_convex_distance(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
						 vec3s* point_a, vec3s* point_b);
