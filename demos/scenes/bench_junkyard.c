// Kollide scenes — junkyard (Box3D benchmark): 10,584 rocks dropped into a walled yard and stirred
// by a kinematic pusher.
// SPDX-License-Identifier: MIT
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>

enum
{
	k_layers = 24,
	k_row = 21, ///< 24 × 21 × 21 = 10,584 rocks
	k_rock_points = 10,
	k_pusher_sides = 16,
};

static const float k_pi = 3.14159265358979f;
static const float k_pusher_radius = 35.0f;		  ///< orbit radius (m)
static const float k_pusher_degrees_per_s = -6.0f; ///< about Box3D's +y (Kollide's +z)

typedef struct junkyard_state
{
	kl_body_id pusher;
	float degrees;
} junkyard_state;

/// Static ground body at Box3D (0, −1, 0): floor (120, 1, 120) and four walls 16 m high whose
/// centres sit 8 m above the body, 50 m out (Box3D coordinates).
static bool add_yard(kl_world_id world)
{
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_from_y_up(0.0f, -1.0f, 0.0f);
	bd.name = "ground";
	kl_body_id ground = kl_create_body(world, &bd);
	if (KL_IS_NULL(ground))
	{
		return false;
	}
	const struct
	{
		float hx, hy, hz, x, y, z;
	} boxes[5] = {
		{120.0f, 1.0f, 120.0f, 0.0f, 0.0f, 0.0f}, {1.0f, 8.0f, 50.0f, -50.0f, 8.0f, 0.0f},
		{1.0f, 8.0f, 50.0f, 50.0f, 8.0f, 0.0f},	  {50.0f, 8.0f, 1.0f, 0.0f, 8.0f, -50.0f},
		{50.0f, 8.0f, 1.0f, 0.0f, 8.0f, 50.0f},
	};
	kl_shape_def sd = kl_default_shape_def();
	for (int i = 0; i < 5; ++i)
	{
		sd.local_pose.p = kl_from_y_up(boxes[i].x, boxes[i].y, boxes[i].z);
		vec3s half = kl_extents_from_y_up(boxes[i].hx, boxes[i].hy, boxes[i].hz);
		if (KL_IS_NULL(kl_create_box_shape(ground, &sd, half)))
		{
			return false;
		}
	}
	return true;
}

/// Box3D's rock: the hull of 10 points of a Fibonacci lattice on a sphere of radius 1.5.
static kl_hull* build_rock(void)
{
	const float radius = 1.5f;
	const float phi = (1.0f + sqrtf(5.0f)) / 2.0f;
	vec3s points[k_rock_points];
	for (int i = 0; i < k_rock_points; ++i)
	{
		float theta = 2.0f * k_pi * (float)i / phi;
		float z = 1.0f - (2.0f * (float)i + 1.0f) / (float)k_rock_points;
		float r_xy = sqrtf(1.0f - z * z);
		points[i] = kl_from_y_up(radius * r_xy * cosf(theta), radius * r_xy * sinf(theta), radius * z);
	}
	return kl_hull_build(points, k_rock_points);
}

/// 24 layers of 21 × 21 rocks at Box3D (−40 + 4X, 25 + 4Y, −40 + 4Z), Box3D's loop order.
static bool add_rocks(kl_world_id world)
{
	kl_hull* rock = build_rock();
	if (rock == NULL)
	{
		return false;
	}
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	kl_shape_def sd = kl_default_shape_def();
	bool ok = true;
	for (int y = 0; y < k_layers && ok; ++y)
	{
		for (int x = 0; x < k_row && ok; ++x)
		{
			for (int z = 0; z < k_row && ok; ++z)
			{
				bd.position = kl_from_y_up(-40.0f + 4.0f * (float)x, 4.0f * (float)y + 25.0f, -40.0f + 4.0f * (float)z);
				kl_body_id body = kl_create_body(world, &bd);
				ok = KL_IS_NON_NULL(body) && KL_IS_NON_NULL(kl_create_hull_shape(body, &sd, rock));
			}
		}
	}
	kl_hull_destroy(rock);
	return ok;
}

/// The pusher: a kinematic 16-sided cylinder hull of radius 4 from 0 to 24 m up, starting at Box3D
/// (35, 0, 0).
static kl_body_id add_pusher(kl_world_id world)
{
	vec3s points[2 * k_pusher_sides];
	for (int i = 0; i < k_pusher_sides; ++i)
	{
		float a = (float)i * (2.0f * k_pi / (float)k_pusher_sides);
		points[2 * i + 0] = kl_from_y_up(4.0f * cosf(a), 0.0f, 4.0f * sinf(a));
		points[2 * i + 1] = kl_from_y_up(4.0f * cosf(a), 24.0f, 4.0f * sinf(a));
	}
	kl_hull* hull = kl_hull_build(points, 2 * k_pusher_sides);
	if (hull == NULL)
	{
		return kl_null_body_id;
	}
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_from_y_up(k_pusher_radius, 0.0f, 0.0f);
	bd.name = "pusher";
	kl_body_id pusher = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	if (KL_IS_NON_NULL(pusher) && KL_IS_NULL(kl_create_hull_shape(pusher, &sd, hull)))
	{
		pusher = kl_null_body_id;
	}
	kl_hull_destroy(hull);
	return pusher;
}

static bool create(kl_world_id world, void** state)
{
	junkyard_state* s = calloc(1, sizeof(*s));
	if (s == NULL)
	{
		return false;
	}
	*state = s;
	if (!add_yard(world) || !add_rocks(world))
	{
		return false;
	}
	s->pusher = add_pusher(world);
	return KL_IS_NON_NULL(s->pusher);
}

/// Box3D's StepJunkyard: before every step the orbit angle advances by −6°/s · dt and the pusher is
/// sent to Box3D (35 cos, 0, 35 sin) by the end of the step, unrotated.
static void before_step(kl_world_id world, void* state, int step_index, float dt)
{
	(void)world;
	(void)step_index;
	junkyard_state* s = state;
	s->degrees += k_pusher_degrees_per_s * dt;
	float a = s->degrees * (k_pi / 180.0f);
	kl_transform target = kl_transform_identity();
	target.p = kl_from_y_up(k_pusher_radius * cosf(a), 0.0f, k_pusher_radius * sinf(a));
	kl_body_set_target_transform(s->pusher, target, dt);
}

static void destroy(void* state)
{
	free(state);
}

const kl_scene kl_scene_junkyard = {
	.name = "junkyard",
	.description = "Box3D benchmark: 10,584 rocks (10-point hulls) in a walled yard, stirred by a kinematic pusher",
	.benchmark_steps = 500,
	.configure = kl_bench_scene_configure,
	.create = create,
	.before_step = before_step,
	.destroy = destroy,
};
