// Kollide scenes — tumbler: a viewer-sized take on Box3D's washer. A kinematic drum of convex wall
// segments, end rings and paddles turns about a horizontal axis and keeps 512 cubes tumbling.
// (The benchmark washer, bench_washer.c, keeps its builder private and is 20 m across; this one
// is 10 m.)
// SPDX-License-Identifier: MIT
#include "demo_common.h"

#include <math.h>

enum
{
	k_segments = 24, ///< wall hulls, 15° apart
	k_grid = 8,		 ///< 8³ = 512 cubes
};

static const float k_center_height = 5.5f; ///< drum axis above the ground (outer radius 4.5)
static const float k_inner_radius = 4.0f;
static const float k_outer_radius = 4.5f;
static const float k_paddle_radius = 3.3f; ///< paddles reach in from the wall to here
static const float k_half_length = 2.5f;	  ///< along the axis (world y)
static const float k_lip_radius = 1.8f;	  ///< inner edge of the end rings
static const float k_lip_thickness = 0.2f;
static const float k_turn_speed = 0.5f;	  ///< rad/s
static const float k_cube_half = 0.14f;
static const float k_cube_spacing = 0.4f;

/// The ring piece between radii r_in and r_out from angle a0 to a1 (rad) and from y0 to y1 along
/// the axis: the hull of its eight corners. Angles are measured in the xz plane about the y axis.
static kl_hull* ring_piece(float r_in, float r_out, float a0, float a1, float y0, float y1)
{
	vec3s points[8];
	int n = 0;
	for (int side = 0; side < 2; ++side)
	{
		float y = side == 0 ? y0 : y1;
		for (int e = 0; e < 2; ++e)
		{
			float a = e == 0 ? a0 : a1;
			for (int r = 0; r < 2; ++r)
			{
				float radius = r == 0 ? r_in : r_out;
				points[n++] = kl_vec3(radius * cosf(a), y, radius * sinf(a));
			}
		}
	}
	return kl_hull_build(points, n);
}

static bool add_hull(kl_body_id body, const kl_shape_def* sd, kl_hull* hull)
{
	bool ok = hull != NULL && KL_IS_NON_NULL(kl_create_hull_shape(body, sd, hull));
	kl_hull_destroy(hull);
	return ok;
}

/// Wall segments overlap their neighbours by 1° on each side so that no cube slips through a seam;
/// every sixth carries a paddle that lifts the cubes before they fall back. Each end has a lip,
/// an annulus down to k_lip_radius like a washing machine's door ring: it keeps the heap from
/// spilling out of the ends (a couple of the 512 get thrown out through the opening per minute)
/// while the camera still sees in through it.
static bool add_drum(kl_world_id world)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_vec3(0.0f, 0.0f, k_center_height);
	bd.angular_velocity = kl_vec3(0.0f, -k_turn_speed, 0.0f);
	bd.name = "drum";
	kl_body_id drum = kl_create_body(world, &bd);
	if (KL_IS_NULL(drum))
	{
		return false;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.6f;
	const float step = 2.0f * GLM_PIf / (float)k_segments;
	const float overlap = GLM_PIf / 180.0f;
	const float y = k_half_length, t = k_lip_thickness;
	for (int k = 0; k < k_segments; ++k)
	{
		float a0 = step * (float)k - overlap, a1 = step * (float)(k + 1) + overlap;
		bool ok = add_hull(drum, &sd, ring_piece(k_inner_radius, k_outer_radius, a0, a1, -y, y)) &&
				  add_hull(drum, &sd, ring_piece(k_lip_radius, k_inner_radius + 0.05f, a0, a1, -y, -y + t)) &&
				  add_hull(drum, &sd, ring_piece(k_lip_radius, k_inner_radius + 0.05f, a0, a1, y - t, y));
		if (ok && k % 6 == 0)
		{
			float a = step * (float)k;
			kl_hull* paddle = ring_piece(k_paddle_radius, k_inner_radius + 0.05f, a, a + 0.5f * step, -y + t, y - t);
			ok = add_hull(drum, &sd, paddle);
		}
		if (!ok)
		{
			return false;
		}
	}
	return true;
}

static bool create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 15.0f, 15.0f, 0.6f)) || !add_drum(world))
	{
		return false;
	}
	const float half = 0.5f * k_cube_spacing * (float)(k_grid - 1);
	const vec3s h = kl_vec3(k_cube_half, k_cube_half, k_cube_half);
	for (int i = 0; i < k_grid; ++i)
	{
		for (int j = 0; j < k_grid; ++j)
		{
			for (int k = 0; k < k_grid; ++k)
			{
				vec3s p = kl_vec3(k_cube_spacing * (float)i - half, k_cube_spacing * (float)j - half,
								  k_center_height + k_cube_spacing * (float)k - half);
				if (KL_IS_NULL(kl_scene_add_box(world, p, glms_quat_identity(), h, 1000.0f, 0.6f)))
				{
					return false;
				}
			}
		}
	}
	return true;
}

const kl_scene kl_scene_tumbler = {
	.name = "tumbler",
	.description = "512 cubes tumbling in a 10 m kinematic drum of 76 hulls (a small washer)",
	.create = create,
};
