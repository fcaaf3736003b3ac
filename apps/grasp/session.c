// Kollide grasp — a tracked hand's frame through contacts, features and the rule table.
// SPDX-License-Identifier: MIT
#include "session.h"

#include <string.h>

bool kg_session_init(kg_session* s, float hand_length, const kl_sphere_tree* object, kl_transform object_pose)
{
	memset(s, 0, sizeof(*s));
	kg_hand_def def = {hand_length};
	if (!kg_hand_build(&s->hand, &def))
		return false;
	if (!kg_hand_trees_build(&s->trees, &s->hand))
	{
		kg_hand_destroy(&s->hand);
		return false;
	}
	s->object = object;
	s->object_pose = object_pose;
	return true;
}

void kg_session_destroy(kg_session* s)
{
	kg_hand_trees_destroy(&s->trees);
	kg_hand_destroy(&s->hand);
}

bool kg_session_classify(const kg_session* s, const kl_transform* wrist, const float angles[KG_ANGLE_COUNT],
						 kg_frame_result* out)
{
	float a[KG_ANGLE_COUNT];
	memcpy(a, angles, sizeof(a));
	kg_clamp_angles(a);
	kg_hand_pose_parts(&s->hand, a, out->parts);
	memset(&out->contacts, 0, sizeof(out->contacts));
	if (s->object != NULL && !kg_hand_contacts(&s->hand, &s->trees, out->parts, *wrist, s->object, s->object_pose,
											   &out->contacts, NULL, NULL, 0, NULL))
		return false;
	out->features = kg_compute_features(&s->hand, a, out->parts, &out->contacts);
	out->grasp = kg_classify(&out->features);
	return true;
}
