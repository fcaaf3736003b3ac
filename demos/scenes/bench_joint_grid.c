// Kollide scenes — joint_grid (Box3D benchmark): a 100×100 net of spheres and spherical joints
// hanging from its top row.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

#include <stdlib.h>

enum
{
	k_n = 100, ///< 100×100 spheres, 2·100·99 = 19,800 joints
};

static bool add_joint(kl_world_id world, kl_body_id a, kl_body_id b, vec3s anchor_a, vec3s anchor_b)
{
	kl_joint_def jd = kl_default_joint_def(KL_JOINT_SPHERICAL);
	jd.body_a = a;
	jd.body_b = b;
	jd.local_frame_a.p = anchor_a;
	jd.local_frame_b.p = anchor_b;
	return KL_IS_NON_NULL(kl_create_joint(world, &jd));
}

/// Box3D's CreateJointGrid: sphere (k, i) of radius 0.4 at Box3D (k, −i, 0); row i = 0 is static.
/// Joint (i−1 → i) with anchors A (0, −0.5, 0), B (0, 0.5, 0), joint (k−1 → k) with A (0.5, 0, 0),
/// B (−0.5, 0, 0), all in Box3D coordinates (the top row's static–static joints are created too, as in
/// Box3D). Every sphere has category 2 and mask ~2, so spheres never touch each other.
static bool create(kl_world_id world, void** state)
{
	(void)state;
	kl_body_id* bodies = malloc(sizeof(kl_body_id) * k_n * k_n);
	if (bodies == NULL)
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.filter.category_bits = 2u;
	sd.filter.mask_bits = ~(uint64_t)2u;
	kl_body_def bd = kl_default_body_def();
	bd.enable_sleep = false;
	const vec3s down_a = kl_from_y_up(0.0f, -0.5f, 0.0f), down_b = kl_from_y_up(0.0f, 0.5f, 0.0f);
	const vec3s side_a = kl_from_y_up(0.5f, 0.0f, 0.0f), side_b = kl_from_y_up(-0.5f, 0.0f, 0.0f);
	bool ok = true;
	int index = 0;
	for (int k = 0; k < k_n && ok; ++k)
	{
		for (int i = 0; i < k_n && ok; ++i)
		{
			bd.type = i == 0 ? KL_BODY_STATIC : KL_BODY_DYNAMIC;
			bd.position = kl_from_y_up((float)k, -(float)i, 0.0f);
			kl_body_id body = kl_create_body(world, &bd);
			ok = KL_IS_NON_NULL(body) && KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 0.4f));
			if (ok && i > 0)
			{
				ok = add_joint(world, bodies[index - 1], body, down_a, down_b);
			}
			if (ok && k > 0)
			{
				ok = add_joint(world, bodies[index - k_n], body, side_a, side_b);
			}
			bodies[index++] = body;
		}
	}
	free(bodies);
	return ok;
}

const kl_scene kl_scene_joint_grid = {
	.name = "joint_grid",
	.description = "Box3D benchmark: 100x100 spheres joined by 19,800 spherical joints, top row static, sleeping off",
	.benchmark_steps = 100,
	.configure = kl_bench_scene_configure_no_sleep,
	.create = create,
};
