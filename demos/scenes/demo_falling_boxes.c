// Kollide scenes — falling_boxes: a few hundred boxes, spheres, capsules and convex rocks of mixed
// sizes rain onto the ground in layers and settle into a loose heap.
// SPDX-License-Identifier: MIT
#include "demo_common.h"

enum
{
	k_side = 7,	  ///< 7 × 7 columns
	k_layers = 6, ///< 294 bodies
	k_rocks = 4,  ///< distinct rock hulls, shared by the bodies that use them
};

static const float k_spacing = 1.3f; ///< wider than the largest body (1.1 m), so none start touching

/// One body of a random kind, size and orientation.
static bool add_piece(kl_world_id world, kl_demo_rng* rng, vec3s position, kl_hull* const* rocks)
{
	kl_body_id body = kl_demo_add_body(world, KL_BODY_DYNAMIC, position, kl_demo_random_rotation(rng));
	// A sphere spinning about the ground normal meets no friction at its single contact point, so a
	// little angular damping is what stops it (and lets the heap fall asleep).
	if (KL_IS_NULL(body) || kl_body_set_angular_damping(body, 0.3f) != KL_OK)
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.6f;
	// Without rolling resistance a sphere or capsule knocked out of the heap rolls on forever (and
	// off the ground).
	sd.material.rolling_resistance = 0.1f;
	kl_shape_id shape = kl_null_shape_id;
	int kind = (int)kl_demo_random(rng, 0.0f, 4.0f);
	switch (kind)
	{
		case 0:
		{
			vec3s h = kl_demo_random_vec3(rng, kl_vec3(0.15f, 0.15f, 0.15f), kl_vec3(0.35f, 0.35f, 0.35f));
			shape = kl_create_box_shape(body, &sd, h);
			break;
		}
		case 1: shape = kl_create_sphere_shape(body, &sd, kl_demo_random(rng, 0.15f, 0.4f)); break;
		case 2:
		{
			float radius = kl_demo_random(rng, 0.1f, 0.2f);
			shape = kl_create_capsule_shape(body, &sd, radius, kl_demo_random(rng, 0.1f, 0.3f));
			break;
		}
		default: shape = kl_create_hull_shape(body, &sd, rocks[(int)kl_demo_random(rng, 0.0f, (float)k_rocks)]); break;
	}
	return KL_IS_NON_NULL(shape);
}

static bool build(kl_world_id world, kl_hull* const* rocks, kl_demo_rng* rng)
{
	const float half = 0.5f * k_spacing * (float)(k_side - 1);
	for (int layer = 0; layer < k_layers; ++layer)
	{
		for (int i = 0; i < k_side; ++i)
		{
			for (int j = 0; j < k_side; ++j)
			{
				vec3s jitter = kl_demo_random_vec3(rng, kl_vec3(-0.1f, -0.1f, 0.0f), kl_vec3(0.1f, 0.1f, 0.0f));
				vec3s p = kl_vec3(k_spacing * (float)i - half + jitter.x, k_spacing * (float)j - half + jitter.y,
								  1.5f + 1.4f * (float)layer);
				if (!add_piece(world, rng, p, rocks))
				{
					return false;
				}
			}
		}
	}
	return true;
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 15.0f, 0.6f)))
	{
		return false;
	}
	kl_demo_rng rng = {0x9e3779b9u};
	kl_hull* rocks[k_rocks] = {0};
	bool ok = true;
	for (int r = 0; r < k_rocks && ok; ++r)
	{
		vec3s radii = kl_demo_random_vec3(&rng, kl_vec3(0.25f, 0.2f, 0.15f), kl_vec3(0.45f, 0.4f, 0.35f));
		rocks[r] = kl_demo_make_rock(&rng, radii, 16);
		ok = rocks[r] != NULL;
	}
	ok = ok && build(world, rocks, &rng);
	for (int r = 0; r < k_rocks; ++r)
	{
		kl_hull_destroy(rocks[r]);
	}
	return ok;
}

const kl_scene kl_scene_falling_boxes = {
	.name = "falling_boxes",
	.description = "294 boxes, spheres, capsules and rocks of mixed sizes rain into a loose heap",
	.create = create,
};
