// Kollide tests — the scene library's benchmark scenes (Box3D's set, Jolt's pyramid) are built as
// BENCHMARKS.md defines them: body, shape and joint counts, the world settings, and the turn from
// Box3D's y-up frame to Kollide's z-up one (pyramid heights, joint anchors, the drum's axis and the
// pusher's orbit). Each scene then takes one step. Kollide's own benchmark scenes, free_fall and
// box_layers (also at other sizes, as the viewer's --bench-boxes builds it), keep their layouts.
// SPDX-License-Identifier: MIT
#include "kl_test.h"
#include "scenes.h"

#include <stdlib.h>
#include <string.h>

typedef struct bench_expect
{
	const char* name;
	int steps;	 ///< benchmark step count N
	int bodies;	 ///< all bodies, ground included
	int dynamic; ///< dynamic bodies
	int shapes;
	int joints;
	bool sleep; ///< world sleeping
} bench_expect;

// One scene per row (clang-format would pack two to a line).
// clang-format off
static const bench_expect expected[] = {
	{"large_pyramid", 200, 5051, 5050, 5051, 0, false},
	{"many_pyramids", 100, 10781, 10780, 10781, 0, true},
	{"convex_pile", 500, 5121, 5120, 5121, 0, true},
	{"joint_grid", 100, 10000, 9900, 10000, 19800, false},
	{"washer", 1000, 8002, 8000, 8041, 0, true},
	{"junkyard", 500, 10586, 10584, 10590, 0, true},
	{"jolt_pyramid", 500, 1241, 1240, 1241, 0, false},
};
// clang-format on
#define EXPECTED_COUNT ((int)(sizeof(expected) / sizeof(expected[0])))

static const float k_pi = 3.14159265358979f;

static void start(const char* name, kl_scene_run* run)
{
	const kl_scene* scene = kl_scene_find(name);
	if (scene == NULL)
	{
		fail_msg("scene %s is not registered", name);
	}
	if (!kl_scene_start(scene, 1, run))
	{
		fail_msg("scene %s did not build: %s", name, kl_last_error());
	}
}

/// The bodies of the world (caller frees).
static int all_bodies(kl_world_id world, kl_body_id** out)
{
	int n = kl_world_get_bodies(world, NULL, 0);
	*out = malloc(sizeof(kl_body_id) * (size_t)(n > 0 ? n : 1));
	assert_non_null(*out);
	return kl_world_get_bodies(world, *out, n);
}

static void test_counts_and_settings(void** state)
{
	(void)state;
	for (int i = 0; i < EXPECTED_COUNT; ++i)
	{
		const bench_expect* e = &expected[i];
		const kl_scene* scene = kl_scene_find(e->name);
		assert_non_null(scene);
		assert_int_equal(scene->benchmark_steps, e->steps);
		kl_scene_run run;
		start(e->name, &run);
		kl_world_def def = kl_world_get_def(run.world);
		assert_near(def.gravity.z, -10.0f, 0.0f);
		assert_near(def.contact_hertz, 30.0f, 0.0f);
		assert_near(def.contact_damping_ratio, 10.0f, 0.0f);
		assert_near(def.max_contact_push_speed, 3.0f, 0.0f);
		assert_near(def.restitution_threshold, 1.0f, 0.0f);
		assert_int_equal(def.enable_sleep, e->sleep);

		kl_body_id* bodies = NULL;
		int n = all_bodies(run.world, &bodies);
		int dynamic = 0;
		for (int b = 0; b < n; ++b)
		{
			dynamic += kl_body_get_type(bodies[b]) == KL_BODY_DYNAMIC;
		}
		free(bodies);
		kl_counters c = kl_world_get_counters(run.world);
		printf("  %-14s %6d bodies (%d dynamic), %6d shapes, %6d joints\n", e->name, c.body_count, dynamic,
			   c.shape_count, c.joint_count);
		assert_int_equal(n, e->bodies);
		assert_int_equal(c.body_count, e->bodies);
		assert_int_equal(dynamic, e->dynamic);
		assert_int_equal(c.shape_count, e->shapes);
		assert_int_equal(c.joint_count, e->joints);

		assert_int_equal(kl_scene_step(&run, 1.0f / 60.0f, 4), KL_OK);
		c = kl_world_get_counters(run.world);
		assert_int_equal(c.body_count, e->bodies);
		kl_scene_stop(&run);
	}
}

/// Box3D's pyramid stood in its xy plane; here it stands in xz: rows at z = 0.5, 1.5 … 99.5, all at
/// y = 0, base from x = −49.5 to 49.5, the top named and centred. Cubes weigh 100 kg.
static void test_large_pyramid_layout(void** state)
{
	(void)state;
	kl_scene_run run;
	start("large_pyramid", &run);
	kl_body_id top = kl_world_find_body(run.world, "top");
	assert_true(KL_IS_NON_NULL(top));
	vec3s p = kl_body_get_position(top);
	assert_near(p.x, 0.0f, 1.0e-5);
	assert_near(p.y, 0.0f, 0.0f);
	assert_near(p.z, 99.5f, 1.0e-5);
	kl_body_id* bodies = NULL;
	int n = all_bodies(run.world, &bodies);
	float lo_x = 1.0e9f, hi_x = -1.0e9f, lo_z = 1.0e9f;
	for (int b = 0; b < n; ++b)
	{
		if (kl_body_get_type(bodies[b]) != KL_BODY_DYNAMIC)
		{
			continue;
		}
		vec3s q = kl_body_get_position(bodies[b]);
		assert_near(q.y, 0.0f, 0.0f);
		lo_x = fminf(lo_x, q.x);
		hi_x = fmaxf(hi_x, q.x);
		lo_z = fminf(lo_z, q.z);
		assert_near(kl_body_get_mass(bodies[b]), 100.0f, 1.0e-3);
	}
	free(bodies);
	assert_near(lo_x, -49.5f, 1.0e-5);
	assert_near(hi_x, 49.5f, 1.0e-5);
	assert_near(lo_z, 0.5f, 0.0f);
	kl_scene_stop(&run);
}

/// Every joint's two anchors coincide in the world at the start: Box3D's (0, ∓0.5, 0) anchors
/// became (0, 0, ∓0.5) with the net hanging down z, the side anchors stayed on x.
static void test_joint_grid_anchors(void** state)
{
	(void)state;
	kl_scene_run run;
	start("joint_grid", &run);
	int n = kl_world_get_joints(run.world, NULL, 0);
	kl_joint_id* joints = malloc(sizeof(kl_joint_id) * (size_t)n);
	assert_non_null(joints);
	assert_int_equal(kl_world_get_joints(run.world, joints, n), n);
	double worst = 0.0;
	for (int j = 0; j < n; ++j)
	{
		kl_joint_def def = kl_joint_get_def(joints[j]);
		assert_int_equal(def.type, KL_JOINT_SPHERICAL);
		vec3s a = kl_transform_point(kl_body_get_transform(def.body_a), def.local_frame_a.p);
		vec3s b = kl_transform_point(kl_body_get_transform(def.body_b), def.local_frame_b.p);
		worst = fmax(worst, glms_vec3_distance(a, b));
	}
	free(joints);
	assert_near(worst, 0.0, 1.0e-5);
	// The lowest spheres hang at z = −99, the static row at z = 0.
	kl_body_id* bodies = NULL;
	int count = all_bodies(run.world, &bodies);
	float lo = 1.0e9f, hi_static = -1.0e9f;
	for (int b = 0; b < count; ++b)
	{
		float z = kl_body_get_position(bodies[b]).z;
		lo = fminf(lo, z);
		if (kl_body_get_type(bodies[b]) == KL_BODY_STATIC)
		{
			hi_static = fmaxf(hi_static, z);
		}
	}
	free(bodies);
	assert_near(lo, -99.0f, 0.0f);
	assert_near(hi_static, 0.0f, 0.0f);
	kl_scene_stop(&run);
}

/// The drum turns 25°/s about −y (Box3D's +z), centred at z = 21; its 40 hulls lie between radii 14
/// and 18 from that axis and |y| ≤ 10 in the drum frame.
static void test_washer_drum(void** state)
{
	(void)state;
	kl_scene_run run;
	start("washer", &run);
	kl_body_id drum = kl_world_find_body(run.world, "drum");
	assert_true(KL_IS_NON_NULL(drum));
	assert_int_equal(kl_body_get_type(drum), KL_BODY_KINEMATIC);
	vec3s w = kl_body_get_angular_velocity(drum);
	assert_near(w.x, 0.0f, 0.0f);
	assert_near(w.y, -25.0f * k_pi / 180.0f, 1.0e-6);
	assert_near(w.z, 0.0f, 0.0f);
	assert_near(kl_body_get_position(drum).z, 21.0f, 0.0f);
	kl_shape_id shapes[40];
	assert_int_equal(kl_body_get_shapes(drum, shapes, 40), 40);
	float r_lo = 1.0e9f, r_hi = 0.0f, y_hi = 0.0f;
	for (int s = 0; s < 40; ++s)
	{
		const kl_hull* hull = kl_shape_get_hull(shapes[s]);
		assert_non_null(hull);
		const vec3s* v = kl_hull_vertices(hull);
		for (int k = 0; k < kl_hull_vertex_count(hull); ++k)
		{
			float r = sqrtf(v[k].x * v[k].x + v[k].z * v[k].z);
			r_lo = fminf(r_lo, r);
			r_hi = fmaxf(r_hi, r);
			y_hi = fmaxf(y_hi, fabsf(v[k].y));
		}
	}
	assert_near(r_lo, 14.0f, 1.0e-4);
	assert_near(r_hi, 18.0f, 1.0e-4);
	assert_near(y_hi, 10.0f, 0.0f);
	kl_scene_stop(&run);
}

/// The pusher orbits +z (Box3D's −6°/s about +y): before the first step it is sent 0.1° round, so
/// its velocity points to +y at 35 m · 0.1° per 1/60 s.
static void test_junkyard_pusher(void** state)
{
	(void)state;
	kl_scene_run run;
	start("junkyard", &run);
	kl_body_id pusher = kl_world_find_body(run.world, "pusher");
	assert_true(KL_IS_NON_NULL(pusher));
	assert_int_equal(kl_body_get_type(pusher), KL_BODY_KINEMATIC);
	vec3s p = kl_body_get_position(pusher);
	assert_near(p.x, 35.0f, 0.0f);
	assert_near(p.y, 0.0f, 0.0f);
	assert_int_equal(kl_scene_step(&run, 1.0f / 60.0f, 4), KL_OK);
	vec3s v = kl_body_get_linear_velocity(pusher);
	float speed = 35.0f * sinf(0.1f * k_pi / 180.0f) * 60.0f;
	assert_near(v.y, speed, 2.0e-3);
	assert_near(v.z, 0.0f, 1.0e-6);
	kl_scene_stop(&run);
}

/// convex_pile's hull: at most 32 vertices, all on the sphere of radius 2; the first body sits at
/// Box3D (−16, 2, −16) = Kollide (−16, 16, 2).
static void test_convex_pile_hull(void** state)
{
	(void)state;
	kl_scene_run run;
	start("convex_pile", &run);
	kl_body_id* bodies = NULL;
	int n = all_bodies(run.world, &bodies);
	assert_true(n > 1);
	kl_body_id first = bodies[1];
	free(bodies);
	assert_int_equal(kl_body_get_type(first), KL_BODY_DYNAMIC);
	vec3s p = kl_body_get_position(first);
	assert_near(p.x, -16.0f, 0.0f);
	assert_near(p.y, 16.0f, 0.0f);
	assert_near(p.z, 2.0f, 0.0f);
	kl_shape_id shape;
	assert_int_equal(kl_body_get_shapes(first, &shape, 1), 1);
	const kl_hull* hull = kl_shape_get_hull(shape);
	assert_non_null(hull);
	int count = kl_hull_vertex_count(hull);
	assert_true(count >= 4 && count <= 32);
	const vec3s* v = kl_hull_vertices(hull);
	for (int k = 0; k < count; ++k)
	{
		assert_near(glms_vec3_norm(v[k]), 2.0f, 1.0e-5);
	}
	kl_scene_stop(&run);
}

/// free_fall: 10,000 dynamic bodies on a 2 m grid in x and y, 50…60 m up, in the default world;
/// every fourth body is a rod with a ball (two shapes); no ground.
static void test_free_fall(void** state)
{
	(void)state;
	const kl_scene* scene = kl_scene_find("free_fall");
	assert_non_null(scene);
	assert_int_equal(scene->benchmark_steps, 200);
	assert_null(scene->configure);
	kl_scene_run run;
	start("free_fall", &run);
	kl_counters c = kl_world_get_counters(run.world);
	assert_int_equal(c.body_count, 10000);
	assert_int_equal(c.shape_count, 12500);
	kl_body_id* bodies = NULL;
	int n = all_bodies(run.world, &bodies);
	assert_int_equal(n, 10000);
	for (int b = 0; b < n; ++b)
	{
		assert_int_equal(kl_body_get_type(bodies[b]), KL_BODY_DYNAMIC);
		vec3s p = kl_body_get_position(bodies[b]);
		assert_near(p.x, 2.0f * (float)(b % 100), 0.0f);
		assert_near(p.y, 2.0f * (float)(b / 100), 0.0f);
		assert_true(p.z >= 50.0f && p.z < 60.0f);
	}
	free(bodies);
	assert_int_equal(kl_scene_step(&run, 1.0f / 60.0f, 4), KL_OK);
	kl_scene_stop(&run);
}

/// The dynamic bodies' positions (caller frees); returns their number.
static int dynamic_positions(kl_world_id world, vec3s** out)
{
	kl_body_id* bodies = NULL;
	int n = all_bodies(world, &bodies);
	*out = malloc(sizeof(vec3s) * (size_t)(n > 0 ? n : 1));
	assert_non_null(*out);
	int dynamic = 0;
	for (int b = 0; b < n; ++b)
	{
		if (kl_body_get_type(bodies[b]) == KL_BODY_DYNAMIC)
		{
			(*out)[dynamic++] = kl_body_get_position(bodies[b]);
		}
	}
	free(bodies);
	return dynamic;
}

/// box_layers: a ground and 10,000 unit boxes, sleeping off. At a size of count boxes (the viewer's
/// --bench-boxes), fewer than a layer make one layer ceil(sqrt(count)) boxes to a row on a 1.1 m
/// grid centred on the origin; more fill 40 × 40 layers, each 1.05 m above the last. Scenes
/// without a size, and a size below one, build nothing.
static void test_box_layers(void** state)
{
	(void)state;
	const kl_scene* scene = kl_scene_find("box_layers");
	assert_non_null(scene);
	assert_non_null(scene->create_sized);
	assert_int_equal(scene->benchmark_steps, 120);
	kl_scene_run run;
	start("box_layers", &run);
	assert_false(kl_world_get_def(run.world).enable_sleep);
	assert_int_equal(kl_world_get_counters(run.world).body_count, 10001);
	assert_true(KL_IS_NON_NULL(kl_world_find_body(run.world, "ground")));
	kl_scene_stop(&run);

	vec3s* p = NULL;
	assert_true(kl_scene_start_sized(scene, 1, 7, &run));
	assert_false(kl_world_get_def(run.world).enable_sleep);
	assert_int_equal(dynamic_positions(run.world, &p), 7);
	for (int i = 0; i < 7; ++i)
	{
		assert_near(p[i].x, 1.1f * (float)(i % 3 - 1), 1.0e-6);
		assert_near(p[i].y, 1.1f * (float)(i / 3 - 1), 1.0e-6);
		assert_near(p[i].z, 0.5f, 0.0f);
	}
	free(p);
	kl_scene_stop(&run);

	assert_true(kl_scene_start_sized(scene, 1, 1601, &run));
	assert_int_equal(dynamic_positions(run.world, &p), 1601);
	assert_near(p[0].x, -21.45f, 1.0e-5);
	assert_near(p[0].y, -21.45f, 1.0e-5);
	assert_near(p[1599].x, 21.45f, 1.0e-5);
	assert_near(p[1599].y, 21.45f, 1.0e-5);
	assert_near(p[1599].z, 0.5f, 0.0f);
	assert_near(p[1600].x, p[0].x, 0.0f);
	assert_near(p[1600].y, p[0].y, 0.0f);
	assert_near(p[1600].z, 1.55f, 1.0e-6);
	free(p);
	assert_int_equal(kl_scene_step(&run, 1.0f / 60.0f, 4), KL_OK);
	kl_scene_stop(&run);

	assert_false(kl_scene_start_sized(kl_scene_find("large_pyramid"), 1, 10, &run));
	assert_false(kl_world_is_valid(run.world));
	assert_false(kl_scene_start_sized(scene, 1, 0, &run));
	assert_false(kl_world_is_valid(run.world));
	kl_clear_error();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_settings), cmocka_unit_test(test_large_pyramid_layout),
		cmocka_unit_test(test_joint_grid_anchors),	cmocka_unit_test(test_washer_drum),
		cmocka_unit_test(test_junkyard_pusher),		cmocka_unit_test(test_convex_pile_hull),
		cmocka_unit_test(test_free_fall),			cmocka_unit_test(test_box_layers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
