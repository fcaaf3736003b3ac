// Kollide scenes — washer (Box3D benchmark): 8,000 small cubes tumbling in a kinematic drum.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

#include <math.h>

enum
{
	k_segments = 36, ///< wall hulls, 10° apart
	k_grid = 20,	 ///< 20³ = 8,000 cubes
};

static const float k_pi = 3.14159265358979f;

/// A unit direction at `degrees` in Box3D's xy plane (the drum's cross-section).
static vec3s ring_direction(float degrees)
{
	float a = degrees * (k_pi / 180.0f);
	return kl_vec3(cosf(a), sinf(a), 0.0f);
}

/// The hull between radii r_in and r_out spanning the directions d1 … d2, for Box3D z from −10 to 10,
/// built in Kollide's frame.
static kl_hull* ring_piece(float r_in, float r_out, vec3s d1, vec3s d2)
{
	vec3s points[8];
	const float radii[2] = {r_in, r_out};
	const vec3s dirs[2] = {d1, d2};
	int n = 0;
	for (int side = 0; side < 2; ++side)
	{
		float z = side == 0 ? -10.0f : 10.0f;
		for (int d = 0; d < 2; ++d)
		{
			for (int r = 0; r < 2; ++r)
			{
				points[n++] = kl_from_y_up(radii[r] * dirs[d].x, radii[r] * dirs[d].y, z);
			}
		}
	}
	return kl_hull_build(points, n);
}

static bool add_hull(kl_body_id body, const kl_shape_def* sd, kl_hull* hull)
{
	if (hull == NULL)
	{
		return false;
	}
	bool ok = KL_IS_NON_NULL(kl_create_hull_shape(body, sd, hull));
	kl_hull_destroy(hull);
	return ok;
}

/// Box3D's CreateWasher (kinematic drum): one kinematic body at Box3D (0, 21, 0) turning 25°/s about
/// Box3D's z, i.e. about Kollide's −y. Wall segment k spans 10k−1° … 10k+11° between radii 16 and
/// 18 (neighbours overlap by 2°); paddles k = 0, 9, 18, 27 span 10k° … 10k+10° between radii 14 and
/// 16. Like Box3D, the drum also drifts at (0.001, −0.002, 0) m/s (Box3D coordinates).
static bool add_drum(kl_world_id world)
{
	const float degrees_per_second = 25.0f;
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_from_y_up(0.0f, 21.0f, 0.0f);
	bd.angular_velocity = kl_from_y_up(0.0f, 0.0f, degrees_per_second * (k_pi / 180.0f));
	bd.linear_velocity = kl_from_y_up(0.001f, -0.002f, 0.0f);
	bd.name = "drum";
	kl_body_id drum = kl_create_body(world, &bd);
	if (KL_IS_NULL(drum))
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	for (int k = 0; k < k_segments; ++k)
	{
		float a1 = 10.0f * (float)k;
		// The last segment closes the ring at exactly (1, 0, 0), as Box3D's does.
		vec3s u1 = ring_direction(a1);
		vec3s u2 = k == k_segments - 1 ? kl_vec3(1.0f, 0.0f, 0.0f) : ring_direction(a1 + 10.0f);
		if (!add_hull(drum, &sd, ring_piece(16.0f, 18.0f, ring_direction(a1 - 1.0f), ring_direction(a1 + 11.0f))))
		{
			return false;
		}
		if (k % 9 == 0 && !add_hull(drum, &sd, ring_piece(14.0f, 16.0f, u1, u2)))
		{
			return false;
		}
	}
	return true;
}

/// Ground (60, 1, 60), the drum, then 20³ cubes of half extent 0.2 on a 0.8 m grid from Box3D
/// (−8, 13, −8), in Box3D's loop order (x, then y, then z).
static bool create(kl_world_id world, void** state)
{
	(void)state;
	if (KL_IS_NULL(kl_scene_add_ground(world, 60.0f, 60.0f, 0.6f)) || !add_drum(world))
	{
		return false;
	}
	const float a = 0.2f;
	const float start = -2.0f * a * (float)k_grid;
	float x = start;
	for (int i = 0; i < k_grid; ++i)
	{
		float y = start + 21.0f;
		for (int j = 0; j < k_grid; ++j)
		{
			float z = start;
			for (int k = 0; k < k_grid; ++k)
			{
				if (KL_IS_NULL(kl_bench_scene_add_box(world, kl_from_y_up(x, y, z), kl_vec3(a, a, a), 1000.0f, 0.6f,
													  true)))
				{
					return false;
				}
				z += 4.0f * a;
			}
			y += 4.0f * a;
		}
		x += 4.0f * a;
	}
	return true;
}

const kl_scene kl_scene_washer = {
	.name = "washer",
	.description = "Box3D benchmark: 8,000 cubes in a kinematic drum of 40 hulls turning 25 deg/s",
	.benchmark_steps = 1000,
	.configure = kl_bench_scene_configure,
	.create = create,
};
