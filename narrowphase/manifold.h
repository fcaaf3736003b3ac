// Kollide internal — contact manifolds: what every narrowphase (convex, mesh BVH, point shell)
// produces and what the contact solver consumes, plus the one reduction that picks the points.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

/// Most points a manifold keeps: enough for a box face on a face, few enough to stay cheap.
#define KL_MAX_MANIFOLD_POINTS 4

/// Distance within which separated features still produce (speculative) contact points, so that
/// fast bodies meet a wall before they pass it. The solver lets such points close at most their gap.
#define KL_SPECULATIVE_DISTANCE 0.02f

/// Shapes are treated as touching-with-slop within this distance (keeps resting contact stable).
#define KL_LINEAR_SLOP 0.005f

typedef struct kl_manifold_point
{
	vec3s point;	  ///< world: midway between the two surfaces
	float separation; ///< signed gap along the normal (negative: penetration), m
	/// Feature id: the same number while the same pair of features touches, so that last step's
	/// impulses can warm-start this step. Only compared within one shape pair.
	uint32_t id;

	// Solver state, carried over by kl_manifold_keep_impulses; the narrowphase writes zeros.
	float normal_impulse;
	float tangent_impulse[2];
	float max_normal_impulse; ///< largest normal impulse of the last step (events, debugging)
	/// The bodies' relative velocity at the point along the normal (b's minus a's: negative while
	/// they approach) when the narrowphase found it; hit events (written only for their pairs).
	float normal_velocity;
	bool persisted;			  ///< matched a point of last step's manifold
} kl_manifold_point;

typedef struct kl_manifold
{
	vec3s normal; ///< world, unit, pointing from shape A to shape B
	kl_manifold_point points[KL_MAX_MANIFOLD_POINTS];
	int point_count;
	vec3s rolling_impulse; ///< solver state (rolling resistance), world
	/// Shape A's world pose when the points were found (has_frame: set by kl_manifold_set_frame):
	/// lets the next step's matching follow the pair's motion (kl_manifold_keep_impulses).
	kl_transform frame_a;
	bool has_frame;
} kl_manifold;

/// Picks at most KL_MAX_MANIFOLD_POINTS of count candidate points so that the support polygon is
/// kept: the deepest point, then the point farthest from it, then the one that makes the largest
/// triangle with them, then the one that adds the most area to that triangle (all measured in the
/// plane of the normal). Ties go to the earlier candidate, so the choice is deterministic. A
/// candidate with the id and point of one already chosen (a copy) is not chosen again. Returns the
/// number written to out (at most 4, fewer when the candidates hold fewer distinct points); out
/// may not alias candidates.
int kl_reduce_manifold_points(const kl_manifold_point* candidates, int count, vec3s normal, kl_manifold_point* out);

/// kl_reduce_manifold_points where candidates within a band below the deepest (a quarter of its
/// depth, at least a tenth of tie_depth (m) and at most tie_depth) count as deepest too, and the
/// first pick goes to the smallest id among them. The mesh patches use
/// it: a face resting flat has many equally deep candidates (a disc's rim vertices), and the tiny
/// rocking of a resting body would otherwise move the first pick, and the whole set with it,
/// around the outline every step, losing the warm start each time.
int kl_reduce_manifold_points_tied(const kl_manifold_point* candidates, int count, vec3s normal, float tie_depth,
								   kl_manifold_point* out);

/// Continues a reduction from the `kept` points already in out (chosen from another set): adds
/// candidates by the same rules (the farthest from out[0], the widest with out[0..1], the one that
/// adds most area to the triangle) until out holds KL_MAX_MANIFOLD_POINTS or no candidate is left.
/// A candidate with the id and point of a kept or chosen one is not chosen again. Returns the point count
/// (0 on bad arguments); kept 0 is kl_reduce_manifold_points.
int kl_complete_manifold_points(const kl_manifold_point* candidates, int count, vec3s normal, kl_manifold_point* out,
								int kept);

/// Records shape A's world pose with the manifold's points (see kl_manifold_keep_impulses).
void kl_manifold_set_frame(kl_manifold* manifold, kl_transform frame_a);

/// Copies the solver state of the points of old_manifold into the points of manifold with the same
/// id (and marks them persisted). A point whose id found no match takes the state of an unmatched
/// old point within KL_LINEAR_SLOP of it (a clipped corner that changed features in place); the
/// rest start from zero. Where both manifolds have a frame, the old points are first carried with
/// shape A from its old pose to its new one, so that "in place" means on the bodies, not in the
/// world: a resting pile that is still settling moves its points more than the slop in a step.
void kl_manifold_keep_impulses(const kl_manifold* old_manifold, kl_manifold* manifold);
