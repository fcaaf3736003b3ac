// Kollide internal — joints, stored as their definitions; the solver adds its row data later.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

typedef struct kl_world kl_world;

typedef struct kl_joint
{
	int id; ///< slot, or -1 when free
	uint16_t generation;
	int body_a; ///< slots
	int body_b;
	kl_joint_def def; ///< def.name points at name below; body ids as given
	char* name;
	vec3s constraint_force;	 ///< on body b, last step
	vec3s constraint_torque;
} kl_joint;

kl_joint* kl_get_joint(kl_joint_id id, kl_world** world_out);
kl_joint_id kl_make_joint_id(const kl_world* world, const kl_joint* joint);
/// Destroys every joint attached to the body slot.
void kl_destroy_body_joints(kl_world* world, int body_slot);
