// Kollide scenes — mesh_pile: thirty non-convex triangle meshes (spur gears, threaded nuts, torus
// knots, bowls and L-shaped bars, 5–20 cm, 24 to 1.5k triangles) fall in layers into a bin and
// settle into a heap: every contact between them is mesh against mesh, and none is convex.
// SPDX-License-Identifier: MIT
#include "demo_mesh_common.h"

enum
{
	k_kinds = 5,
	k_bodies = 30,
	k_grid = 3, ///< 3 × 3 columns of start slots
};

static const float k_bin_half = 0.4f;	  ///< inner half width of the bin
static const float k_wall_height = 0.3f;
static const float k_wall_half_thickness = 0.02f;
static const float k_slot_spacing = 0.24f; ///< more than the largest body's bounding sphere (0.22 m)
static const float k_first_layer = 0.15f;
static const float k_layer_spacing = 0.25f;

/// Each kind's mesh as generated, and the range of uniform scales its bodies draw from.
typedef struct pile_kind
{
	kl_mesh* mesh;
	float min_scale;
	float max_scale;
} pile_kind;

kl_meshgen_gear_params kl_demo_pile_gear_params(void)
{
	kl_meshgen_gear_params p = kl_meshgen_default_gear_params();
	p.tooth_count = 12;
	p.module = 0.006f;
	p.face_width = 0.02f;
	p.bore_radius = 0.012f;
	return p;
}

kl_meshgen_torus_knot_params kl_demo_pile_knot_params(void)
{
	kl_meshgen_torus_knot_params p = kl_meshgen_default_torus_knot_params();
	p.major_radius = 0.05f;
	p.minor_radius = 0.02f;
	p.tube_radius = 0.009f;
	p.segments = 96;
	p.sides = 8;
	return p;
}

static kl_mesh* make_gear(void)
{
	kl_meshgen_gear_params p = kl_demo_pile_gear_params();
	kl_meshgen_mesh generated;
	return kl_meshgen_gear(&p, &generated) == KL_OK ? kl_demo_mesh_from_meshgen(&generated, "gear") : NULL;
}

static kl_mesh* make_nut(void)
{
	kl_meshgen_screw_params screw = kl_meshgen_default_screw_params();
	screw.pitch = 0.006f;
	screw.major_radius = 0.012f;
	screw.minor_radius = 0.009f;
	kl_meshgen_bearing_block_params p = kl_meshgen_bearing_block_for_screw(&screw, true);
	p.segments = 16;
	kl_meshgen_mesh generated;
	return kl_meshgen_bearing_block(&p, &generated) == KL_OK ? kl_demo_mesh_from_meshgen(&generated, "nut") : NULL;
}

static kl_mesh* make_knot(void)
{
	kl_meshgen_torus_knot_params p = kl_demo_pile_knot_params();
	kl_meshgen_mesh generated;
	return kl_meshgen_torus_knot(&p, &generated) == KL_OK ? kl_demo_mesh_from_meshgen(&generated, "torus_knot")
														  : NULL;
}

static kl_mesh* make_bowl(void)
{
	kl_meshgen_bowl_params p = kl_meshgen_default_bowl_params();
	p.radius = 0.06f;
	p.thickness = 0.008f;
	p.rim_width = 0.008f;
	p.rim_height = 0.004f;
	p.foot_radius = 0.015f;
	p.segments = 24;
	p.rings = 5;
	kl_meshgen_mesh generated;
	return kl_meshgen_bowl(&p, &generated) == KL_OK ? kl_demo_mesh_from_meshgen(&generated, "bowl") : NULL;
}

/// A bin of four static walls around the middle of the ground.
static bool add_bin(kl_world_id world)
{
	kl_shape_def sd = kl_default_shape_def();
	const float t = k_wall_half_thickness, h = 0.5f * k_wall_height, b = k_bin_half;
	for (int side = 0; side < 4; ++side)
	{
		float sign = side < 2 ? -1.0f : 1.0f;
		bool along_x = side % 2 == 0;
		vec3s p = along_x ? kl_vec3(0.0f, sign * (b + t), h) : kl_vec3(sign * (b + t), 0.0f, h);
		vec3s half = along_x ? kl_vec3(b + 2.0f * t, t, h) : kl_vec3(t, b, h);
		kl_body_id wall = kl_demo_add_body(world, KL_BODY_STATIC, p, glms_quat_identity());
		if (KL_IS_NULL(wall) || KL_IS_NULL(kl_create_box_shape(wall, &sd, half)))
		{
			return false;
		}
	}
	return true;
}

/// The bodies in layers of 3 × 3 slots, each of the next kind in turn, at a random scale and
/// orientation.
static bool add_pieces(kl_world_id world, const pile_kind* kinds, uint32_t seed)
{
	kl_demo_rng rng = {seed != 0u ? seed : 1u}; // xorshift stays at 0
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = 0.5f;
	// Parts that come to rest on a rim point or a curved side rock on it: a single contact point
	// has no lever to damp rolling. 2 mm of rolling resistance (the reach of a small contact patch)
	// damps it; without it 25 of 30 layouts settle in full within 6 s, with it 28 (docs/mesh-narrowphase.md).
	sd.material.rolling_resistance = 0.002f;
	// The same patch resists spin about the normal: a gear on its rim or a bowl on its wall, spinning
	// about the vertical on one point, kept 2.1 and 0.94 rad/s for good (2 of 180 layouts).
	sd.material.spin_resistance = 0.002f;
	const float offset = 0.5f * k_slot_spacing * (float)(k_grid - 1);
	for (int i = 0; i < k_bodies; ++i)
	{
		int slot = i % (k_grid * k_grid), layer = i / (k_grid * k_grid);
		vec3s p = kl_vec3(k_slot_spacing * (float)(slot % k_grid) - offset,
						  k_slot_spacing * (float)(slot / k_grid) - offset,
						  k_first_layer + k_layer_spacing * (float)layer);
		const pile_kind* kind = &kinds[i % k_kinds];
		float scale = kl_demo_random(&rng, kind->min_scale, kind->max_scale);
		versors q = kl_demo_random_rotation(&rng);
		if (KL_IS_NULL(kl_demo_add_mesh_body(world, KL_BODY_DYNAMIC, kind->mesh, scale, p, q, &sd)))
		{
			return false;
		}
	}
	return true;
}

static bool create_seeded(kl_world_id world, uint32_t seed, void** state)
{
	*state = NULL;
	// Largest extents at the largest scale: knot 0.20 m across, L bar 0.15 × 0.15 × 0.045 m, bowl
	// 0.17 m, gear 0.11 m, nut 0.067 × 0.067 × 0.034 m.
	pile_kind kinds[k_kinds] = {
		{make_gear(), 0.8f, 1.3f},
		{make_nut(), 0.9f, 1.4f},
		{make_knot(), 0.7f, 1.2f},
		{make_bowl(), 0.8f, 1.3f},
		{kl_demo_make_l_mesh(0.1f, 0.035f, 0.03f), 0.6f, 1.5f},
	};
	bool ok = KL_IS_NON_NULL(kl_scene_add_ground(world, 2.0f, 2.0f, 0.6f)) && add_bin(world);
	for (int k = 0; k < k_kinds; ++k)
	{
		ok = ok && kinds[k].mesh != NULL;
	}
	ok = ok && add_pieces(world, kinds, seed);
	for (int k = 0; k < k_kinds; ++k)
	{
		kl_mesh_release(kinds[k].mesh);
	}
	return ok;
}

static bool create(kl_world_id world, void** state)
{
	return create_seeded(world, 0x6d657368u, state);
}

/// Parts land at up to 3 m/s and spin up to 50 rad/s: a step finds its contacts again after
/// every 2 cm a part can travel (up to once per sub-step), which the speculative contacts found at
/// the step's start could not foresee, and narrower margins make the landing cheaper.
static void configure(kl_world_def* def)
{
	def->max_collision_travel = 0.02f;
}

const kl_scene kl_scene_mesh_pile = {
	.name = "mesh_pile",
	.description = "30 non-convex meshes (gears, nuts, knots, bowls, L bars) fall into a bin and settle",
	.benchmark_steps = 360, ///< the fall and the settling (kollide-bench --scene library)
	.configure = configure,
	.create = create,
	.create_seeded = create_seeded,
};
