// Kollide internal — minimal contact sets for mesh–mesh pairs: the raw triangle-pair contacts of
// one body pair (often hundreds) become a few manifolds, one per contact patch, of at most four
// points each.
// SPDX-License-Identifier: MIT
#pragma once

#include "manifold.h"
#include "tri_contact.h"

/// Most patch seeds considered for one body pair; contacts beyond join the nearest seed.
#define KL_PATCH_MAX_SEEDS 32

typedef struct kl_patch_config
{
	/// A contact whose normal is within this cosine of no patch seed starts a new patch (cos 20°).
	float cos_angle;
	/// Chosen points that lie within this of an earlier contact (in canonical order) take that
	/// contact's id, so that the same corner seen through several triangle pairs keeps one id.
	float weld_distance;
	/// Most manifolds per body pair (ranking: see kl_contact_patches).
	int max_patches;
	/// A patch's points come from its contacts within this of its deepest one. >= 0.
	float depth_band;
	/// The velocity of body b relative to body a as a field over the world, relative_offset +
	/// relative_spin × x, and the step's dt. With dt > 0 the manifolds of farther contacts (those
	/// beyond depth_band) choose their points by the separation predicted at the step's end, so that
	/// a spinning body's far rim is held by the vertices its turn brings lowest. dt 0: by their
	/// separation now.
	vec3s relative_offset;
	vec3s relative_spin;
	float dt;
} kl_patch_config;

/// cos_angle cos 20°, weld_distance KL_LINEAR_SLOP / 4, max_patches 16, depth_band KL_LINEAR_SLOP / 2,
/// no motion (dt 0).
kl_patch_config kl_patch_config_default(void);

/// Builds the manifolds of one body pair from its raw triangle contacts.
///
/// Coherence: contacts are first sorted in place into a canonical order (triangle indices, then
/// features, then the values), so the result depends only on the set of contacts, not on the
/// order the BVH found them in; the same contacts give the same manifolds and point ids, which is
/// what warm starting by id needs.
///
/// Steps: (1) seeds: walking the sorted contacts, one whose normal is within cos_angle of no seed
/// becomes a seed (at most KL_PATCH_MAX_SEEDS); (2) every contact joins the seed its normal is
/// closest to (ties: the earlier seed); (3) the patch normal is the renormalised mean of its
/// contacts' normals; (4) patches are ranked by size (contact count), then by deepest separation,
/// then by seed order, and the first min(max_patches, max_manifolds) are kept, written in seed
/// order; (5) each kept patch's points come from its contacts within depth_band of its deepest; its
/// outline is found (2D convex hull in the plane of its normal, near-collinear and
/// welded points dropped, but points on a side clearly deeper than the side's ends put back, plus
/// the deepest contact when it lies clearly deeper inside), and reduced
/// by kl_reduce_manifold_points along the normal; when only some of them touch (penetrating, or
/// within a tenth of the slop of the deepest), up to three points come first from the outline of
/// those that touch, and the rest from the whole outline (kl_complete_manifold_points); each chosen point takes the id of the first
/// contact within weld_distance of it (see kl_patch_config); (6) while manifolds are left, each
/// kept patch's farther contacts get one of their own, and then the outline corners (5) left out. Reducing the outline rather than all
/// contacts matters for flat patches, where most contacts are equally deep and an inner start
/// point would make the reduction miss a corner.
/// Point separations stay those of the triangle contacts (measured along each contact's own
/// normal, within cos_angle of the patch normal).
///
/// scratch must hold 3 * count + 2 points. Non-finite contacts are dropped with an error recorded.
/// Returns the number of manifolds written (0 on bad arguments, with kl_last_error set).
int kl_contact_patches(kl_tri_contact* contacts, int count, const kl_patch_config* config,
					   kl_manifold_point* scratch, kl_manifold* manifolds, int max_manifolds);
