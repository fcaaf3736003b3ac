// Kollide grasp — hand–object contacts: each hand part's sphere tree against the object's, through
// the public sphere-tree query (kl_sphere_tree_overlap).
// SPDX-License-Identifier: MIT
#pragma once

#include "hand.h"
#include "objects.h"

#include <kollide/sphere_tree.h>

/// Most sphere pairs one part's query keeps.
#define KG_PART_PAIR_CAPACITY 16384

typedef struct kg_hand_trees
{
	kl_sphere_tree* parts[KG_PART_COUNT];
	kl_sphere_pair* scratch; ///< KG_PART_PAIR_CAPACITY pairs for one part's query (one thread per hand)
} kg_hand_trees;

bool kg_hand_trees_build(kg_hand_trees* trees, const kg_hand* hand);
void kg_hand_trees_destroy(kg_hand_trees* trees);
/// The object's tree; NULL with kg_error() on failure.
kl_sphere_tree* kg_object_tree_build(const kg_object* object);

/// What one part touches.
typedef struct kg_part_contact
{
	int pair_count;
	float max_depth; ///< deepest pair, (r1 + r2 − d) / 2
	float volume;	 ///< penetration volume
	vec3s direction; ///< volume-weighted direction from the part toward the object, in the part's frame
	float along;	 ///< volume-weighted mean position of the contacts along the bone, 0 to 1
	vec3s point;	 ///< volume-weighted mean of the contact points (lens centres), world frame
} kg_part_contact;

typedef struct kg_contacts
{
	kg_part_contact parts[KG_PART_COUNT];
} kg_contacts;

/// Contacts of the hand posed at parts (wrist frame, placed in the world by wrist) with the object at
/// object_pose. pairs (optional) receives up to capacity sphere pairs of every part in turn, their
/// count in *pair_count; pair_part receives each pair's part.
bool kg_hand_contacts(const kg_hand* hand, const kg_hand_trees* trees, const kl_transform parts[KG_PART_COUNT],
					  kl_transform wrist, const kl_sphere_tree* object, kl_transform object_pose, kg_contacts* out,
					  kl_sphere_pair* pairs, int* pair_part, int capacity, int* pair_count);
/// Whether any part of the finger (or the palm, for KG_FINGER_COUNT) touches.
bool kg_finger_touches(const kg_contacts* contacts, int finger);
