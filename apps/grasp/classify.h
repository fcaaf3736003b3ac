// Kollide grasp — the rule-based grasp classifier: features of a frame (which fingers touch and how,
// finger shapes, thumb position, aperture) and a decision over the rule table of rules.c.
// SPDX-License-Identifier: MIT
#pragma once

#include "contacts.h"
#include "taxonomy.h"

/// A finger's shape from the sum of its three flexion angles (thresholds in rules.c).
typedef enum kg_shape
{
	KG_STRAIGHT = 0,
	KG_BENT,
	KG_CURLED,
} kg_shape;

/// Where a finger touches, from the contact direction in its phalanx's frame.
typedef enum kg_side
{
	KG_SIDE_NONE = 0,
	KG_SIDE_FRONT,	///< the palm side (pad)
	KG_SIDE_RADIAL, ///< the thumb's side
	KG_SIDE_ULNAR,
	KG_SIDE_TIP,
	KG_SIDE_BACK,
} kg_side;

typedef struct kg_features
{
	bool touching[KG_FINGER_COUNT + 1]; ///< thumb … pinky, then the palm
	int phalanges_touching[KG_FINGER_COUNT];
	kg_side side[KG_FINGER_COUNT]; ///< of the finger's most touched phalanx
	kg_shape shape[KG_FINGER_COUNT];
	bool thumb_abducted;
	bool thumb_ip_bent;
	float aperture;			///< thumb pad to index pad, metres (surface to surface)
	float fingers_wrapping; ///< fraction of index…pinky touching with two or more phalanges
	float curl;				///< mean over index…pinky of the three flexion angles' sum, degrees
	/// From the thumb's contacts to the nearest other finger's, metres (0 unless the thumb and another
	/// finger touch): about the width of what the thumb opposes
	float grip_width;
	/// The largest distance between two touching parts' contact centroids, metres: about the size of
	/// the object in the hand
	float span;
} kg_features;

kg_features kg_compute_features(const kg_hand* hand, const float angles[KG_ANGLE_COUNT],
								const kl_transform parts[KG_PART_COUNT], const kg_contacts* contacts);

typedef struct kg_classification
{
	const kg_grasp_type* type; ///< NULL: no grasp (nothing touches)
	int category;			   ///< −1 with no grasp
	int score;				   ///< the winning rule's score
} kg_classification;

kg_classification kg_classify(const kg_features* features);

/// One line: "type N Name | category C name | thumb abducted | touching T I M R P palm".
void kg_describe(const kg_classification* c, const kg_features* f, char* text, int capacity);
