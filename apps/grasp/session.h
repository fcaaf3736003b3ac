// Kollide grasp — one tracked hand against one object: a frame in, its contacts, features and
// classification out.
// SPDX-License-Identifier: MIT
#pragma once

#include "classify.h"

typedef struct kg_session
{
	kg_hand hand;
	kg_hand_trees trees;
	const kl_sphere_tree* object; ///< may be NULL: nothing to touch
	kl_transform object_pose;
} kg_session;

bool kg_session_init(kg_session* session, float hand_length, const kl_sphere_tree* object, kl_transform object_pose);
void kg_session_destroy(kg_session* session);

typedef struct kg_frame_result
{
	kl_transform parts[KG_PART_COUNT]; ///< in the wrist frame
	kg_contacts contacts;
	kg_features features;
	kg_classification grasp;
} kg_frame_result;

bool kg_session_classify(const kg_session* session, const kl_transform* wrist, const float angles[KG_ANGLE_COUNT],
						 kg_frame_result* out);
