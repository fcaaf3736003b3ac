// Kollide scenes — bowl_stack: five identical bowls (thick hemispherical shells with a lip, 1.2k
// triangles each) fall one after another, a little off-centre and tilted, and nest into a stack on
// the ground. Each rests on the inner edge of the rim below: a ring of contact whose normals turn
// all the way round the axis, which a few contact patches per pair must hold centred.
// SPDX-License-Identifier: MIT
#include "demo_mesh_common.h"

enum
{
	k_bowls = 5,
};

/// Extra height between consecutive bowls at the start, above their nesting spacing.
static const float k_drop_gap = 0.05f;
/// Horizontal offset (alternating in x and y) and tilt of each bowl at the start.
static const float k_offset = 0.012f;
static const float k_tilt = 0.08f; ///< rad

static kl_mesh* bowl_mesh(const kl_meshgen_bowl_params* p)
{
	kl_meshgen_mesh generated;
	if (kl_meshgen_bowl(p, &generated) != KL_OK)
	{
		return NULL;
	}
	return kl_demo_mesh_from_meshgen(&generated, "bowl");
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 2.0f, 2.0f, 0.6f)))
	{
		return false;
	}
	kl_meshgen_bowl_params bp = kl_meshgen_default_bowl_params();
	kl_mesh* mesh = bowl_mesh(&bp);
	if (mesh == NULL)
	{
		return false;
	}
	// The bowl's frame has the rim top at z = 0; its foot is the lowest point.
	const float foot = -kl_mesh_get_info(mesh).bounds.lower.z;
	const float spacing = kl_meshgen_bowl_stack_spacing(&bp) + k_drop_gap;
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.5f;
	static const char* names[k_bowls] = {"bowl0", "bowl1", "bowl2", "bowl3", "bowl4"};
	bool ok = true;
	for (int i = 0; i < k_bowls && ok; ++i)
	{
		// Bowl 0 starts 1 cm above the ground, each next one `spacing` above the one below, pushed
		// off the axis and tilted in a direction that turns by 90° per bowl.
		static const float dirs[4][2] = {{0.0f, -1.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}};
		float dx = i > 0 ? dirs[i % 4][0] : 0.0f, dy = i > 0 ? dirs[i % 4][1] : 0.0f;
		vec3s p = kl_vec3(k_offset * dx, k_offset * dy, foot + 0.01f + spacing * (float)i);
		versors q = i > 0 ? kl_demo_axis_angle(kl_vec3(-dy, dx, 0.0f), k_tilt) : glms_quat_identity();
		kl_body_id bowl = kl_demo_add_mesh_body(world, KL_BODY_DYNAMIC, mesh, 1.0f, p, q, &sd);
		ok = KL_IS_NON_NULL(bowl) && kl_body_set_name(bowl, names[i]) == KL_OK;
	}
	kl_mesh_release(mesh);
	return ok;
}

const kl_scene kl_scene_bowl_stack = {
	.name = "bowl_stack",
	.description = "five bowls (1.2k triangles each) drop off-centre and nest into a stack",
	.benchmark_steps = 240, ///< the drops and the nesting (kollide-bench --scene library)
	.create = create,
};
