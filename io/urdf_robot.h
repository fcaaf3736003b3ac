// Kollide internal — a URDF model placed in a world: creation (urdf_robot.c) and driving
// (urdf_robot_drive.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "urdf_internal.h"

#include <kollide/kollide.h>

struct kl_robot
{
	kl_world_id world;
	const kl_urdf_model* model;
	kl_robot_drive drive;
	kl_body_id* bodies;	 ///< per link
	kl_joint_id* joints; ///< per joint
	double* positions;	 ///< per joint: the last ones set
	char* name;			 ///< NULL when out of memory
};

/// Checks joint positions (one per joint): finite, within the limits of limited joints and within
/// the engine's lengths for prismatic ones. Fails with a message naming the joint.
kl_result kl_robot_check_positions(const kl_urdf_model* model, const char* robot_name, const double* positions);

/// The world pose of every link for the positions, the root placed at base.
bool kl_robot_link_transforms(const kl_urdf_model* model, kl_transform base, const double* positions,
							  kl_transform* out);
