// Kollide grasp — OpenXR hand joints (XR_EXT_hand_tracking's 26 joint poses) to the hand's 16 angles
// and back. Poses use OpenXR's joint frames: −z along the bone toward the fingertip, +y out of the back
// of the hand. The mapping reads positions only, plus the palm joint's +y for the palm's side.
// SPDX-License-Identifier: MIT
#pragma once

#include "hand.h"

/// XR_HAND_JOINT_PALM_EXT … XR_HAND_JOINT_LITTLE_TIP_EXT, in OpenXR's order.
#define KG_XR_JOINT_COUNT 26
enum
{
	KG_XR_PALM = 0,
	KG_XR_WRIST = 1,
	KG_XR_THUMB_METACARPAL = 2, ///< then proximal, distal, tip
	KG_XR_INDEX_METACARPAL = 6, ///< then proximal, intermediate, distal, tip (middle 11, ring 16, little 21)
};

/// The joint poses of the hand at wrist with these angles (what a tracker reports for this pose).
void kg_xr_joints_from_angles(const kg_hand* hand, kl_transform wrist, const float angles[KG_ANGLE_COUNT],
							  kl_transform joints[KG_XR_JOINT_COUNT]);
/// The wrist frame and the angles of tracked joint poses. False with kg_error() for non-finite or
/// degenerate joints (coincident joints, a palm without a side).
bool kg_xr_angles_from_joints(const kl_transform joints[KG_XR_JOINT_COUNT], kl_transform* wrist,
							  float angles[KG_ANGLE_COUNT]);
