// Kollide scenes — penalty_meshes: three boxes and two rocks, each packed with inner spheres, drop
// onto a ground slab packed the same way and come to rest on the penalty contact model: forces from
// their inner spheres' penetration volume instead of contact constraints (docs/penalty-contact.md).
// SPDX-License-Identifier: MIT
#include "demo_mesh_common.h"

enum
{
	k_boxes = 3,
	k_rocks = 2,
	k_ground_spheres = 6000,
	k_part_spheres = 1000,
};

static kl_mesh* rock_mesh(uint32_t seed)
{
	kl_meshgen_rock_params rp = kl_meshgen_default_rock_params();
	rp.frequency = 12; // 2,880 triangles: the spheres, not the triangles, carry the contact
	rp.seed = seed;
	kl_meshgen_mesh generated;
	if (kl_meshgen_rock(&rp, &generated) != KL_OK)
	{
		return NULL;
	}
	return kl_demo_mesh_from_meshgen_packed(&generated, "rock", k_part_spheres);
}

static bool add_ground(kl_world_id world, const kl_shape_def* sd)
{
	kl_mesh* slab = kl_demo_box_mesh(kl_vec3(0.6f, 0.6f, 0.02f), k_ground_spheres);
	if (slab == NULL)
	{
		return false;
	}
	kl_body_id ground =
		kl_demo_add_mesh_body(world, KL_BODY_STATIC, slab, 1.0f, kl_vec3(0.0f, 0.0f, -0.02f), glms_quat_identity(), sd);
	kl_mesh_release(slab);
	return KL_IS_NON_NULL(ground) && kl_body_set_name(ground, "ground") == KL_OK;
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	kl_shape_def sd = kl_default_shape_def();
	sd.contact_model = KL_CONTACT_PENALTY;
	sd.material.friction = 0.6f;
	if (!add_ground(world, &sd))
	{
		return false;
	}
	kl_mesh* box = kl_demo_box_mesh(kl_vec3(0.08f, 0.06f, 0.05f), k_part_spheres);
	bool ok = box != NULL;
	for (int i = 0; i < k_boxes && ok; ++i)
	{
		// Stacked loosely above the middle, each turned and tilted a little more than the one below.
		vec3s p = kl_vec3(0.03f * (float)i, -0.02f * (float)i, 0.15f + 0.16f * (float)i);
		versors q = kl_demo_axis_angle(glms_vec3_normalize(kl_vec3(0.3f, 1.0f, 2.0f)), 0.4f * (float)(i + 1));
		ok = KL_IS_NON_NULL(kl_demo_add_mesh_body(world, KL_BODY_DYNAMIC, box, 1.0f, p, q, &sd));
	}
	kl_mesh_release(box);
	for (int i = 0; i < k_rocks && ok; ++i)
	{
		kl_mesh* rock = rock_mesh(7u + (uint32_t)i);
		ok = rock != NULL;
		if (ok)
		{
			vec3s p = kl_vec3(i == 0 ? -0.3f : 0.3f, i == 0 ? 0.2f : -0.25f, 0.3f + 0.2f * (float)i);
			versors q = kl_demo_axis_angle(kl_vec3(1.0f, 0.0f, 0.0f), 0.7f * (float)(i + 1));
			ok = KL_IS_NON_NULL(kl_demo_add_mesh_body(world, KL_BODY_DYNAMIC, rock, 1.0f, p, q, &sd));
			kl_mesh_release(rock);
		}
	}
	return ok;
}

const kl_scene kl_scene_penalty_meshes = {
	.name = "penalty_meshes",
	.description = "boxes and rocks packed with inner spheres drop onto a packed ground: penalty contact",
	.create = create,
};
