// Kollide internal — continuous collision for fast mesh pairs: where two triangle sets first meet
// along the bodies' motion over a pass, and their contacts there, carried back to the pass's start
// as speculative contacts (docs/mesh-narrowphase.md, "Sweeping fast pairs").
// SPDX-License-Identifier: MIT
#pragma once

#include "collide_mesh.h"

/// Most manifolds a sweep adds to a pair's own.
#define KL_SWEEP_MAX_MANIFOLDS 4
/// Most poses a sweep tests before it bisects.
#define KL_SWEEP_MAX_SAMPLES 64
/// Bisections of the interval where the surfaces first meet.
#define KL_SWEEP_BISECTIONS 4

/// How far the motion can carry a point of set b relative to set a over motion->dt: the relative
/// speed of the centres plus each body's spin times reach[i], the distance of its set's points from
/// its centre of mass.
float kl_sweep_travel(const kl_vertex_motion* motion, const float reach[2]);

/// The length of one sweep sample: half the thinner set (at least KL_LINEAR_SLOP), so that no part
/// passes wholly through the other between two tested poses.
float kl_sweep_sample_length(const kl_triangle_set* a, const kl_triangle_set* b);

/// The contacts of two triangle sets where their surfaces first meet over the motion (constant
/// velocities over motion->dt, sampled every kl_sweep_sample_length of travel, then bisected), found
/// as kl_collide_triangle_sets finds them (margin, the motion left after that time), each manifold
/// reduced to one point (the mean of those within 1 mm of its least separation), and carried back
/// with each body to the pass's start: the point's two surface points and the normal ride with
/// their bodies, so its separation is the gap the pair can close before they touch. Returns the
/// manifold count: 0 when the travel is within one sample, when the surfaces meet already at the
/// start (the pair's own contacts hold it), or when they do not meet within the pass.
int kl_sweep_triangle_sets(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
						   const kl_vertex_motion* motion, const float reach[2], kl_mesh_scratch* scratch,
						   kl_manifold* out, int max_manifolds);
