// Kollide scenes — screw_block: a threaded screw hangs in a static threaded bearing block (a nut on
// two pillars), head up, resting on the helical flanks of the thread. Its weight is carried by a
// contact surface that winds four times around the axis: the case where a contact
// cap of a few points per pair (Bullet's) fails. Here the screw must come to rest and stay.
// SPDX-License-Identifier: MIT
#include "demo_mesh_common.h"

/// Block centre above the ground; the shaft's tip hangs 3 cm below the block.
static const float k_block_height = 0.15f;
/// The block's centre along the screw's shaft (in the screw's frame, shaft from z = 0 to its
/// length): a whole number of pitches (7), so the block's thread meets the screw's in phase.
static const int k_block_pitches = 7;

/// Sleeping is off: the scene shows (and its test measures) resting contact, and a body that falls
/// asleep would stop drifting by definition.
static void configure(kl_world_def* def)
{
	def->enable_sleep = false;
}

/// The block is 16 cm wide in x so that two pillars under its ends hold it clear of the shaft.
static bool add_block(kl_world_id world, const kl_meshgen_screw_params* screw, versors flip)
{
	kl_meshgen_bearing_block_params bp = kl_meshgen_bearing_block_for_screw(screw, true);
	bp.size_x = 0.16f;
	kl_meshgen_mesh generated;
	if (kl_meshgen_bearing_block(&bp, &generated) != KL_OK)
	{
		return false;
	}
	kl_mesh* mesh = kl_demo_mesh_from_meshgen_with(&generated, "threaded_bearing_block", true);
	if (mesh == NULL)
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	kl_body_id block = kl_demo_add_mesh_body(world, KL_BODY_STATIC, mesh, 1.0f,
											 kl_vec3(0.0f, 0.0f, k_block_height), flip, &sd);
	kl_mesh_release(mesh);
	if (KL_IS_NULL(block) || kl_body_set_name(block, "block") != KL_OK)
	{
		return false;
	}
	const float pillar_top = k_block_height - 0.5f * bp.height;
	const vec3s half = kl_vec3(0.015f, 0.5f * bp.size_y, 0.5f * pillar_top);
	for (int side = -1; side <= 1; side += 2)
	{
		vec3s p = kl_vec3((float)side * (0.5f * bp.size_x - half.x), 0.0f, 0.5f * pillar_top);
		kl_body_id pillar = kl_demo_add_body(world, KL_BODY_STATIC, p, glms_quat_identity());
		if (KL_IS_NULL(pillar) || KL_IS_NULL(kl_create_box_shape(pillar, &sd, half)))
		{
			return false;
		}
	}
	return true;
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 2.0f, 2.0f, 0.6f)))
	{
		return false;
	}
	// Screw and block are placed as generated (both axes z, the block k_block_pitches pitches up the
	// shaft, so the threads are in phase: the block's is the screw's pushed out radially by 1 mm, which
	// after faceting leaves a smallest gap of 0.26 mm) and then turned over together about x, so that
	// the head is up and the screw's weight pulls its flanks onto the block's: it drops by the gap and
	// rests. The head stays 5 cm above the block.
	kl_meshgen_screw_params sp = kl_meshgen_default_screw_params();
	versors flip = kl_demo_axis_angle(kl_vec3(1.0f, 0.0f, 0.0f), GLM_PIf);
	if (!add_block(world, &sp, flip))
	{
		return false;
	}
	kl_meshgen_mesh generated;
	if (kl_meshgen_screw(&sp, &generated) != KL_OK)
	{
		return false;
	}
	kl_mesh* mesh = kl_demo_mesh_from_meshgen_with(&generated, "screw", true);
	if (mesh == NULL)
	{
		return false;
	}
	// The block's centre is at shaft height k_block_pitches × pitch; turned over, the screw's origin
	// (the underside of its head) is that far above the block's centre.
	float above = (float)k_block_pitches * sp.pitch;
	kl_shape_def sd = kl_default_shape_def();
	kl_body_id screw = kl_demo_add_mesh_body(world, KL_BODY_DYNAMIC, mesh, 1.0f,
											 kl_vec3(0.0f, 0.0f, k_block_height + above), flip, &sd);
	kl_mesh_release(mesh);
	return KL_IS_NON_NULL(screw) && kl_body_set_name(screw, "screw") == KL_OK;
}

const kl_scene kl_scene_screw_block = {
	.name = "screw_block",
	.description = "threaded screw (2.5k triangles) hangs on the thread of a static threaded block and rests",
	.configure = configure,
	.create = create,
};
