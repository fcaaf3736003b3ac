// Kollide — kollide-collide's --method ist: a mesh packed with inner spheres (kl_sphere_pack), their
// tree with the represented volumes (kollide/sphere_tree.h), and the overlap query at a pose file's
// pose, through the public API.
// SPDX-License-Identifier: MIT
#pragma once

#include "pair_core.h"

#include <kollide/sphere_tree.h>

/// One mesh's inner-sphere tree.
typedef struct kl_ist_model
{
	kl_sphere_tree* tree;
	int sphere_count;
	float coverage;
	double pack_seconds;
	double tree_seconds;
} kl_ist_model;

/// Packs the model's mesh with up to `spheres` inner spheres and builds their tree (branching 16,
/// represented volumes on). False with a message in err.
bool kl_ist_model_load(const kl_pair_model* mesh, int spheres, kl_ist_model* out, char* err, size_t err_size);
void kl_ist_model_free(kl_ist_model* model);

/// The overlap of a (at the identity) and b at pose: B's pose in A's frame, as the pose files give it.
kl_result kl_ist_model_query(const kl_ist_model* a, const kl_ist_model* b, const kl_collision_pose* pose,
							 kl_sphere_traversal traversal, kl_sphere_overlap_result* result);
