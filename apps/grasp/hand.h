// Kollide grasp — the sphere hand: a parametric hand (a left hand in its frame) of a palm and five
// fingers of three phalanges each, every part a set of spheres, posed from 16 joint angles
// (docs/grasp.md).
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/geometry.h>

/// Fingers, thumb first.
enum
{
	KG_THUMB = 0,
	KG_INDEX,
	KG_MIDDLE,
	KG_RING,
	KG_PINKY,
	KG_FINGER_COUNT
};

/// Angles of a pose, in degrees: flexion of the base, middle and upper joint of each finger
/// (thumb: CMC, MCP, IP; fingers: MCP, PIP, DIP) at 3 × finger + joint, positive toward the palm,
/// 0 straight; then the thumb's abduction out of the palm plane (0: alongside the index, 90: opposed).
#define KG_GLOVE_ANGLES 15
#define KG_THUMB_ABDUCTION 15
#define KG_ANGLE_COUNT 16

/// Parts: the palm, then the phalanges at 1 + 3 × finger + joint.
#define KG_PALM 0
#define KG_PART_COUNT 16

static inline int kg_part_of(int finger, int joint)
{
	return 1 + 3 * finger + joint;
}

typedef struct kg_hand_def
{
	float hand_length; ///< wrist crease to the middle fingertip, metres (0.12 to 0.26)
} kg_hand_def;

kg_hand_def kg_default_hand_def(void);

/// The model: dimensions and each part's spheres in the part's frame (x along the bone from its
/// proximal joint, z toward the palm side, y = z × x; the palm's frame is the wrist's).
typedef struct kg_hand
{
	float hand_length;
	float palm_length, palm_width, palm_thickness;
	float bone_length[KG_FINGER_COUNT][3];
	vec3s finger_base[KG_FINGER_COUNT]; ///< the base joint in the wrist frame
	kl_sphere* spheres[KG_PART_COUNT];
	int sphere_count[KG_PART_COUNT];
} kg_hand;

/// Builds the hand; false with a message (kg_error) for a bad def or out of memory.
bool kg_hand_build(kg_hand* hand, const kg_hand_def* def);
void kg_hand_destroy(kg_hand* hand);

/// Joint limits, degrees: lower and upper per angle.
void kg_angle_limits(int angle, float* lower, float* upper);
/// Clamps every angle into its limits; NaN becomes 0. Returns how many were changed.
int kg_clamp_angles(float angles[KG_ANGLE_COUNT]);

/// Forward kinematics: each part's pose in the wrist frame.
void kg_hand_pose_parts(const kg_hand* hand, const float angles[KG_ANGLE_COUNT], kl_transform parts[KG_PART_COUNT]);
/// The thumb's flexion plane at this abduction (wrist frame): d along the straight thumb, f the way it flexes.
void kg_thumb_plane(float abduction_deg, vec3s* d, vec3s* f);
/// The fingertip (end of the upper phalanx) in the wrist frame.
vec3s kg_hand_tip(const kg_hand* hand, const kl_transform parts[KG_PART_COUNT], int finger);

/// The last error of the grasp app's functions.
const char* kg_error(void);
void kg_set_error(const char* format, ...);
