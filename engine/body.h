// Kollide internal — bodies. Cold data in kl_body; the hot per-step data in kl_body_sim and
// kl_body_state (solver/body_state.h), all three indexed by the body's slot.
// SPDX-License-Identifier: MIT
#pragma once

#include "body_state.h"

#include <kollide/types.h>

typedef struct kl_world kl_world;
struct kl_shape;

typedef struct kl_body
{
	char* name;
	void* user_data;
	int id;			///< slot, or -1 when the slot is free
	uint16_t generation;
	kl_body_type type;
	int head_shape; ///< first shape slot (creation order), -1 if none
	int tail_shape;
	int shape_count;
	int head_joint; ///< first joint slot of this body's joint list, -1 if none
	int awake_index; ///< position in the world's awake list, -1 if not in it
	int joint_count;
	float sleep_threshold;
	float sleep_time; ///< seconds spent below the sleep threshold (island.c)
	/// Farthest point of the shapes' body-frame bounds from the centre of mass (m): turns the
	/// angular speed into a surface speed for the sleep test.
	float max_extent;
	/// Sleeping set: the slot of its first (lowest) body, -1 when awake or asleep on its own.
	int sleep_set;
	int sleep_next; ///< next body slot of the same sleeping set, -1 at the end
	bool enable_sleep;
	bool is_awake;
	bool is_bullet;
	bool custom_mass; ///< mass set by kl_body_set_mass_data
	kl_mass_data mass_data; ///< body frame
	kl_principal_inertia principal;
} kl_body;

/// Looks up a live body; records KL_ERR_INVALID_ID and returns NULL for null/stale/foreign ids.
kl_body* kl_get_body(kl_body_id id, kl_world** world_out);
/// As kl_get_body, and also fails with KL_ERR_LOCKED while the world steps.
kl_body* kl_get_body_unlocked(kl_body_id id, kl_world** world_out);
kl_body_id kl_make_body_id(const kl_world* world, const kl_body* body);

/// Checks the mass properties the body would have as `type`, with the shape in slot changed_slot
/// replaced by *changed (or *changed added, where changed_slot < 0 and changed is not NULL): their
/// sum must be finite for any body; a dynamic body whose mass comes from its shapes (from_shapes,
/// or no mass override) needs every shape with density to have a mass, each within the valid
/// ranges, and the sum within them too (kl_check_dynamic_mass). Changes nothing.
kl_result kl_check_body_mass(const kl_world* world, const kl_body* body, kl_body_type type, bool from_shapes,
							 int changed_slot, const struct kl_shape* changed);
/// Recomputes the body's mass data from its shapes (unless custom) and refreshes its sim.
void kl_update_body_mass(kl_world* world, kl_body* body);
/// Refreshes sim fields that derive from body data (flags, inverse mass, world centre).
void kl_refresh_body_sim(kl_world* world, kl_body* body);
