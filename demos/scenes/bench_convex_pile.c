// Kollide scenes — convex_pile (Box3D benchmark): 5,120 copies of one random 32-point hull
// falling into a pile.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

#include <math.h>

enum
{
	k_count_x = 8,
	k_count_z = 8,
	k_layers = 80,
	k_point_count = 32,
};

/// PEEL's BasicRandom as Box3D keeps it, so that the hull is the same point set as Box3D's.
static uint32_t next_random(uint32_t* state)
{
	*state = *state * 2147001325u + 715136305u;
	return *state;
}

/// A coordinate in [−0.5, 0.5].
static float random_coordinate(uint32_t* state)
{
	return (float)(next_random(state) & 0xffffu) / 65535.0f - 0.5f;
}

/// A direction: a point of the cube rejected outside the ball of radius 0.5, then normalised
/// (Box3D coordinates).
static vec3s random_direction(uint32_t* state)
{
	float x, y, z, length_sq;
	do
	{
		x = random_coordinate(state);
		y = random_coordinate(state);
		z = random_coordinate(state);
		length_sq = x * x + y * y + z * z;
	} while (length_sq > 0.25f);
	float inv = 1.0f / sqrtf(length_sq);
	return kl_vec3(inv * x, inv * y, inv * z);
}

/// Box3D's CreateConvexPile: ground (250, 1, 250); 8×8×80 bodies at x = (ix−4)·4, z = (iz−4)·4,
/// height 2 + 4·layer (Box3D coordinates), all sharing the hull of 32 points on a sphere of radius 2.
static bool create(kl_world_id world, void** state)
{
	(void)state;
	const float amplitude = 2.0f;
	const float scatter = 2.0f * amplitude;
	if (KL_IS_NULL(kl_scene_add_ground(world, 250.0f, 250.0f, 0.6f)))
	{
		return false;
	}
	vec3s points[k_point_count];
	uint32_t rng = 42u;
	for (int i = 0; i < k_point_count; ++i)
	{
		vec3s d = random_direction(&rng);
		points[i] = kl_from_y_up(amplitude * d.x, amplitude * d.y, amplitude * d.z);
	}
	kl_hull* hull = kl_hull_build(points, k_point_count);
	if (hull == NULL)
	{
		return false;
	}
	bool ok = true;
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	kl_shape_def sd = kl_default_shape_def();
	for (int layer = 0; layer < k_layers && ok; ++layer)
	{
		for (int iz = 0; iz < k_count_z && ok; ++iz)
		{
			for (int ix = 0; ix < k_count_x && ok; ++ix)
			{
				float x = ((float)ix - 0.5f * (float)k_count_x) * scatter;
				float z = ((float)iz - 0.5f * (float)k_count_z) * scatter;
				float y = amplitude + 2.0f * amplitude * (float)layer;
				bd.position = kl_from_y_up(x, y, z);
				kl_body_id body = kl_create_body(world, &bd);
				ok = KL_IS_NON_NULL(body) && KL_IS_NON_NULL(kl_create_hull_shape(body, &sd, hull));
			}
		}
	}
	kl_hull_destroy(hull);
	return ok;
}

const kl_scene kl_scene_convex_pile = {
	.name = "convex_pile",
	.description = "Box3D benchmark: 5,120 hulls of 32 random points on a sphere of radius 2 falling into a pile",
	.benchmark_steps = 500,
	.configure = kl_bench_scene_configure,
	.create = create,
};
