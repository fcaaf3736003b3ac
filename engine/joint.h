// Kollide internal — joints, stored as their definitions; the solver adds its row data later.
// SPDX-License-Identifier: MIT
#pragma once

#include "joint_solver.h"

#include <kollide/types.h>

typedef struct kl_world kl_world;

typedef struct kl_joint
{
	int id; ///< slot, or -1 when free
	uint16_t generation;
	int body_a; ///< slots
	int body_b;
	/// Next joint in body_a's (index 0) and body_b's (index 1) joint list, -1 at the end.
	int next_joint[2];
	kl_joint_def def; ///< def.name points at name below; body ids as given
	char* name;
	vec3s target; ///< KL_JOINT_TARGET: the world point body b's anchor is pulled to
	kl_joint_solver_state solver; ///< impulses kept between steps and the forces of the last one
} kl_joint;

kl_joint* kl_get_joint(kl_joint_id id, kl_world** world_out);
kl_joint_id kl_make_joint_id(const kl_world* world, const kl_joint* joint);
/// Destroys every joint attached to the body slot.
void kl_destroy_body_joints(kl_world* world, int body_slot);
/// The joint after `joint` in body_slot's joint list (-1 at the end).
static inline int kl_joint_next_of_body(const kl_joint* joint, int body_slot)
{
	return joint->next_joint[joint->body_a == body_slot ? 0 : 1];
}
/// True if a joint between the two bodies disables their collision.
bool kl_joint_blocks_collision(const kl_world* world, int body_a, int body_b);
