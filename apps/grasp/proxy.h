// Kollide grasp — the proxy hand: one dynamic world body per hand part (its spheres as sphere shapes),
// each driven by a critically damped spring of capped acceleration toward the tracked hand's pose, so it follows the
// tracked hand but the world's contacts keep it out of objects. The proxy is what a viewer draws.
// SPDX-License-Identifier: MIT
#pragma once

#include "hand.h"

#include <kollide/kollide.h>

typedef struct kg_proxy_def
{
	float follow_rate;				///< rad/s: the drive spring's natural frequency (critically damped)
	float max_acceleration;			///< m/s²: the most the drive accelerates a part
	float max_angular_acceleration; ///< rad/s²
	float density;					///< kg/m³ of the part spheres
} kg_proxy_def;

kg_proxy_def kg_default_proxy_def(void);

typedef struct kg_proxy_hand
{
	kl_body_id parts[KG_PART_COUNT];
	kg_proxy_def def;
} kg_proxy_hand;

/// Creates the proxy's bodies in world at the tracked pose; false with kg_error().
bool kg_proxy_create(kg_proxy_hand* proxy, kl_world_id world, const kg_hand* hand, kl_transform wrist,
					 const float angles[KG_ANGLE_COUNT], const kg_proxy_def* def);
void kg_proxy_destroy(kg_proxy_hand* proxy);
/// Applies each part's drive force and torque toward the tracked pose (call before each kl_world_step).
void kg_proxy_drive(kg_proxy_hand* proxy, const kg_hand* hand, kl_transform wrist, const float angles[KG_ANGLE_COUNT],
					float dt);
/// The proxy's part poses in the world.
void kg_proxy_poses(const kg_proxy_hand* proxy, kl_transform poses[KG_PART_COUNT]);
