// Kollide — tests of the penalty contact model (docs/penalty-contact.md): box meshes with inner
// spheres on a mesh ground. A box at rest settles (speed under 1 mm/s) with a steady penetration
// volume; a box sliding slowly keeps its normal force steady from step to step; a box dropped at 60 Hz
// with the default sub-steps does not sink through; 1 and 2 threads give the same motion; bad settings
// are refused; the pair uses penalty only under its rule.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "core.h"
#include "demo_mesh_common.h"
#include "scenes.h"

#include <kollide/io.h>
#include <kollide/kollide.h>
#include <kollide/sphere_tree.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A box mesh of half extents h centred on the origin, with `spheres` inner spheres (0: none).
static kl_mesh* box_mesh(vec3s h, int spheres)
{
	kl_mesh* mesh = kl_demo_box_mesh(h, spheres);
	assert_non_null(mesh);
	return mesh;
}

typedef struct scene
{
	kl_world_id world;
	kl_body_id ground;
	kl_body_id box;
	kl_shape_id box_shape;
} scene;

static kl_mesh* s_ground;
static kl_mesh* s_box;

static int setup(void** state)
{
	(void)state;
	s_ground = box_mesh(kl_vec3(0.5f, 0.5f, 0.01f), 6000);
	s_box = box_mesh(kl_vec3(0.1f, 0.1f, 0.1f), 2000);
	return 0;
}

static int teardown(void** state)
{
	(void)state;
	kl_mesh_release(s_ground);
	kl_mesh_release(s_box);
	return 0;
}

/// The ground slab's top at z = 0 and the box resting on it at height z (its centre), moving at v.
static scene make_scene(int workers, float z, vec3s v, float friction)
{
	scene s;
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = workers;
	wd.enable_sleep = false;
	s.world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_vec3(0.0f, 0.0f, -0.01f);
	s.ground = kl_create_body(s.world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.contact_model = KL_CONTACT_PENALTY;
	sd.material.friction = friction;
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(s.ground, &sd, s_ground, kl_vec3(1.0f, 1.0f, 1.0f))));
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.0f, 0.0f, z);
	bd.linear_velocity = v;
	s.box = kl_create_body(s.world, &bd);
	s.box_shape = kl_create_mesh_shape(s.box, &sd, s_box, kl_vec3(1.0f, 1.0f, 1.0f));
	assert_true(KL_IS_NON_NULL(s.box_shape));
	return s;
}

static kl_penalty_contact_data box_contact(const scene* s)
{
	kl_penalty_contact_data d;
	memset(&d, 0, sizeof(d));
	kl_body_get_penalty_contact_data(s->box, &d, 1);
	return d;
}

/// Steps the scene n times at 60 Hz with 4 sub-steps.
static void run(const scene* s, int n)
{
	for (int k = 0; k < n; ++k)
	{
		assert_int_equal(kl_world_step(s->world, 1.0f / 60.0f, 4), KL_OK);
	}
}

/// A box set down on the ground settles: under 1 mm/s, and its penetration volume steady to 1 % over
/// the last second.
static void test_rest(void** state)
{
	(void)state;
	scene s = make_scene(1, 0.102f, kl_vec3(0.0f, 0.0f, 0.0f), 0.6f);
	run(&s, 120);
	float lo = 1e30f, hi = 0.0f;
	for (int step = 0; step < 60; ++step)
	{
		run(&s, 1);
		kl_penalty_contact_data d = box_contact(&s);
		assert_true(d.sphere_pair_count > 0);
		lo = kl_minf(lo, d.volume);
		hi = kl_maxf(hi, d.volume);
		float speed = glms_vec3_norm(kl_body_get_linear_velocity(s.box));
		float spin = glms_vec3_norm(kl_body_get_angular_velocity(s.box)) * 0.17f; // corner speed
		assert_true(speed < 1e-3f && spin < 1e-3f);
	}
	assert_true(hi - lo <= 0.01f * hi);
	kl_penalty_contact_data d = box_contact(&s);
	float weight = kl_body_get_mass(s.box) * 9.81f;
	assert_near(d.normal_force, weight, 0.01f * weight);
	assert_true(fabsf(d.normal.z) > 0.99f); // along the ground's normal (which side is A depends on the slots)
	assert_false(d.stiffness_limited);
	kl_counters c = kl_world_get_counters(s.world);
	assert_int_equal(c.penalty_pair_count, 1);
	assert_true(kl_world_get_profile(s.world).penalty > 0.0f);
	kl_destroy_world(s.world);
}

/// At the largest stiffness a shape takes, the stability limit lowers the pairs' stiffness: the box
/// still rests, still, on the ground, and the pair says it was limited.
static void test_stiffness_limit(void** state)
{
	(void)state;
	scene s = make_scene(1, 0.1f, kl_vec3(0.0f, 0.0f, -1.0f), 0.6f);
	kl_shape_def sd = kl_default_shape_def();
	sd.contact_model = KL_CONTACT_PENALTY;
	sd.penalty_stiffness = 1e12f;
	kl_shape_id ground_shape;
	assert_int_equal(kl_body_get_shapes(s.ground, &ground_shape, 1), 1);
	assert_int_equal(kl_destroy_shape(ground_shape), KL_OK);
	assert_int_equal(kl_destroy_shape(s.box_shape), KL_OK);
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(s.ground, &sd, s_ground, kl_vec3(1.0f, 1.0f, 1.0f))));
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(s.box, &sd, s_box, kl_vec3(1.0f, 1.0f, 1.0f))));
	run(&s, 120);
	kl_penalty_contact_data d = box_contact(&s);
	assert_true(d.stiffness_limited);
	assert_true(kl_world_get_counters(s.world).penalty_limited_count == 1);
	float weight = kl_body_get_mass(s.box) * 9.81f;
	assert_near(d.normal_force, weight, 0.01f * weight);
	assert_true(glms_vec3_norm(kl_body_get_linear_velocity(s.box)) < 1e-3f);
	assert_true(kl_body_get_position(s.box).z > 0.08f);
	kl_destroy_world(s.world);
}

/// Drives the box along x at `speed`, its other motion free (a slow push that the corrugation of the
/// sphere packings cannot stop).
static void push(const scene* s, float speed)
{
	vec3s v = kl_body_get_linear_velocity(s->box);
	kl_body_set_linear_velocity(s->box, kl_vec3(speed, 0.0f, v.z));
	run(s, 1);
}

/// A box sliding slowly (2 cm/s) over the flat ground mesh: its normal force changes by at most
/// 1 % of its weight from one step to the next.
static void test_slide(void** state)
{
	(void)state;
	scene s = make_scene(1, 0.095f, kl_vec3(0.0f, 0.0f, 0.0f), 0.0f);
	kl_body_set_transform(s.box, kl_vec3(-0.2f, 0.0f, 0.095f), glms_quat_identity());
	run(&s, 60);
	for (int k = 0; k < 30; ++k)
	{
		push(&s, 0.02f);
	}
	float weight = kl_body_get_mass(s.box) * 9.81f;
	float last = box_contact(&s).normal_force;
	float worst = 0.0f;
	for (int step = 0; step < 240; ++step)
	{
		push(&s, 0.02f);
		float f = box_contact(&s).normal_force;
		worst = kl_maxf(worst, fabsf(f - last));
		last = f;
	}
	assert_true(worst <= 0.01f * weight);
	assert_true(kl_body_get_position(s.box).x > -0.12f); // it slid 9 cm
	kl_destroy_world(s.world);
}

/// Dropped from 0.5 m at 60 Hz with 4 sub-steps (3 m/s at impact), the box stops on the ground.
static void test_no_sink(void** state)
{
	(void)state;
	scene s = make_scene(1, 0.6f, kl_vec3(0.0f, 0.0f, 0.0f), 0.6f);
	float lowest = 1.0f;
	for (int step = 0; step < 120; ++step)
	{
		run(&s, 1);
		lowest = kl_minf(lowest, kl_body_get_position(s.box).z);
	}
	assert_true(lowest > 0.05f);
	assert_near(kl_body_get_position(s.box).z, 0.094f, 0.01f);
	kl_destroy_world(s.world);
}

/// Three boxes in a stack tilted so that all touch unevenly: 1 and 2 threads give the same poses bit
/// for bit.
static void run_threads(int workers, kl_transform* out)
{
	scene s = make_scene(workers, 0.2f, kl_vec3(0.1f, 0.0f, 0.0f), 0.4f);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	kl_shape_def sd = kl_default_shape_def();
	sd.contact_model = KL_CONTACT_PENALTY;
	kl_body_id others[2];
	for (int i = 0; i < 2; ++i)
	{
		bd.position = kl_vec3(0.05f * (float)i, 0.03f, 0.45f + 0.25f * (float)i);
		bd.rotation = glms_quat(0.3f * (float)(i + 1), 0.6f, 0.8f, 0.0f);
		others[i] = kl_create_body(s.world, &bd);
		assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(others[i], &sd, s_box, kl_vec3(1.0f, 1.0f, 1.0f))));
	}
	run(&s, 90);
	out[0] = kl_body_get_transform(s.box);
	out[1] = kl_body_get_transform(others[0]);
	out[2] = kl_body_get_transform(others[1]);
	assert_true(kl_world_get_counters(s.world).penalty_pair_count >= 2);
	kl_destroy_world(s.world);
}

static void test_threads(void** state)
{
	(void)state;
	kl_transform one[3], two[3];
	run_threads(1, one);
	run_threads(2, two);
	assert_memory_equal(one, two, sizeof(one));
	for (int i = 0; i < 2; ++i)
	{
		assert_true(one[i].p.z > 0.05f); // on the ground, not through it (the top box bounces off)
	}
}

static void expect_refused(kl_body_id body, const kl_shape_def* sd, kl_mesh* mesh, vec3s scale, kl_result code)
{
	kl_shape_id id = kl_create_mesh_shape(body, sd, mesh, scale);
	assert_false(KL_IS_NON_NULL(id));
	assert_int_equal(kl_last_error_code(), code);
}

static void test_bad_input(void** state)
{
	(void)state;
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_body_id body = kl_create_body(world, &bd);
	vec3s one = kl_vec3(1.0f, 1.0f, 1.0f);
	kl_shape_def sd = kl_default_shape_def();
	sd.contact_model = KL_CONTACT_PENALTY;
	float bad_stiffness[] = {0.0f, -1.0f, NAN, INFINITY, 1e13f};
	for (int i = 0; i < 5; ++i)
	{
		sd.penalty_stiffness = bad_stiffness[i];
		expect_refused(body, &sd, s_box, one, KL_ERR_INVALID_ARGUMENT);
	}
	sd = kl_default_shape_def();
	float bad_damping[] = {-0.1f, NAN, 101.0f};
	for (int i = 0; i < 3; ++i)
	{
		sd.penalty_damping_ratio = bad_damping[i];
		expect_refused(body, &sd, s_box, one, KL_ERR_INVALID_ARGUMENT);
	}
	sd = kl_default_shape_def();
	sd.contact_model = (kl_contact_model)7;
	expect_refused(body, &sd, s_box, one, KL_ERR_INVALID_ARGUMENT);
	// Penalty needs inner spheres and scale 1.
	sd.contact_model = KL_CONTACT_PENALTY;
	kl_mesh* plain = box_mesh(kl_vec3(0.1f, 0.1f, 0.1f), 0);
	expect_refused(body, &sd, plain, one, KL_ERR_UNSUPPORTED);
	expect_refused(body, &sd, s_box, kl_vec3(2.0f, 2.0f, 2.0f), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_body_get_shape_count(body), 0);
	// The mesh def's count is checked.
	kl_mesh_def md = kl_default_mesh_def();
	vec3s v[3] = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}};
	int32_t idx[3] = {0, 1, 2};
	md.vertices = v;
	md.vertex_count = 3;
	md.indices = idx;
	md.triangle_count = 1;
	md.inner_spheres = -1;
	assert_null(kl_mesh_build(&md));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	md.inner_spheres = 10; // an open triangle cannot hold spheres
	assert_null(kl_mesh_build(&md));
	// A plain mesh holds none; the packed one says what it holds.
	int count = -1;
	assert_null(kl_mesh_inner_spheres(plain, &count));
	assert_int_equal(count, 0);
	assert_null(kl_mesh_sphere_tree(plain));
	kl_mesh_info info = kl_mesh_get_info(s_box);
	assert_true(info.inner_sphere_count > 0 && info.inner_sphere_count <= 2000);
	assert_true(info.inner_sphere_coverage > 0.3f && info.inner_sphere_coverage < 1.0f);
	assert_non_null(kl_mesh_sphere_tree(s_box));
	kl_mesh_release(plain);
	kl_destroy_world(world);
}

/// The rule: a penalty shape against a mesh without inner spheres gets constraint contacts (no
/// penalty pair); two constraint shapes with inner spheres do too.
static void test_rule(void** state)
{
	(void)state;
	kl_mesh* plain = box_mesh(kl_vec3(0.5f, 0.5f, 0.01f), 0);
	for (int variant = 0; variant < 2; ++variant)
	{
		kl_world_def wd = kl_default_world_def();
		kl_world_id world = kl_create_world(&wd);
		kl_body_def bd = kl_default_body_def();
		bd.position = kl_vec3(0.0f, 0.0f, -0.05f);
		kl_body_id ground = kl_create_body(world, &bd);
		kl_shape_def sd = kl_default_shape_def();
		kl_mesh* ground_mesh = variant == 0 ? plain : s_ground;
		assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(ground, &sd, ground_mesh, kl_vec3(1.0f, 1.0f, 1.0f))));
		sd.contact_model = variant == 0 ? KL_CONTACT_PENALTY : KL_CONTACT_CONSTRAINT;
		bd.type = KL_BODY_DYNAMIC;
		bd.position = kl_vec3(0.0f, 0.0f, 0.11f);
		kl_body_id box = kl_create_body(world, &bd);
		assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(box, &sd, s_box, kl_vec3(1.0f, 1.0f, 1.0f))));
		for (int k = 0; k < 60; ++k)
		{
			assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
		}
		assert_int_equal(kl_world_get_counters(world).penalty_pair_count, 0);
		assert_int_equal(kl_body_get_penalty_contact_data(box, NULL, 0), 0);
		assert_true(kl_body_get_contact_data(box, NULL, 0) > 0);
		// Held up by the constraint contacts: the slab's top at z = -0.04, the box's half height 0.1.
		assert_float_equal(kl_body_get_position(box).z, 0.06f, 0.005f);
		kl_destroy_world(world);
	}
	kl_mesh_release(plain);
}

/// A scene with a penalty mesh shape loads, saves and loads again with the same settings, and the
/// loaded world steps as the built one does. Bad values are refused.
static void test_scene(void** state)
{
	(void)state;
	const char* json =
		"{\"bodies\": [{\"type\": \"dynamic\", \"shapes\": [{"
		"\"type\": \"mesh\", \"inner_spheres\": 300, \"contact_model\": \"penalty\", "
		"\"penalty_stiffness\": 2e6, \"penalty_damping\": 0.5, "
		"\"vertices\": [[-0.1,-0.1,-0.1],[0.1,-0.1,-0.1],[-0.1,0.1,-0.1],[0.1,0.1,-0.1],"
		"[-0.1,-0.1,0.1],[0.1,-0.1,0.1],[-0.1,0.1,0.1],[0.1,0.1,0.1]], "
		"\"triangles\": [[0,2,3],[0,3,1],[4,5,7],[4,7,6],[0,1,5],[0,5,4],[2,6,7],[2,7,3],[0,4,6],[0,6,2],"
		"[1,3,7],[1,7,5]]}]}]}";
	kl_world_id world = kl_scene_load_string(json, NULL);
	assert_true(KL_IS_NON_NULL(world));
	char* saved = kl_scene_save_string(world);
	assert_non_null(saved);
	assert_non_null(strstr(saved, "\"inner_spheres\""));
	assert_non_null(strstr(saved, "\"penalty\""));
	kl_world_id again = kl_scene_load_string(saved, NULL);
	assert_true(KL_IS_NON_NULL(again));
	char* saved_again = kl_scene_save_string(again);
	assert_string_equal(saved, saved_again);
	kl_body_id bodies[1];
	kl_shape_id shapes[1];
	assert_int_equal(kl_world_get_bodies(again, bodies, 1), 1);
	assert_int_equal(kl_body_get_shapes(bodies[0], shapes, 1), 1);
	kl_shape_def def = kl_shape_get_def(shapes[0]);
	assert_int_equal(def.contact_model, KL_CONTACT_PENALTY);
	assert_near(def.penalty_stiffness, 2e6f, 1.0f);
	assert_near(def.penalty_damping_ratio, 0.5f, 1e-6f);
	assert_int_equal(kl_mesh_get_info(kl_shape_get_mesh(shapes[0])).inner_spheres, 300);
	free(saved);
	free(saved_again);
	kl_destroy_world(world);
	kl_destroy_world(again);
	// Bad values: a contact model by another name, a negative stiffness, too many spheres.
	const char* bad[] = {"\"contact_model\": \"springs\"", "\"penalty_stiffness\": -1", "\"inner_spheres\": 99999999"};
	for (int i = 0; i < 3; ++i)
	{
		char text[2048];
		snprintf(text, sizeof(text),
				 "{\"bodies\": [{\"type\": \"dynamic\", "
				 "\"shapes\": [{\"type\": \"mesh\", %s, \"vertices\": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "
				 "\"triangles\": [[0,2,1],[0,1,3],[0,3,2],[1,2,3]]}]}]}",
				 bad[i]);
		assert_false(KL_IS_NON_NULL(kl_scene_load_string(text, NULL)));
		assert_true(kl_last_error_code() != KL_OK);
	}
}

/// The demo scene: its five parts drop onto the ground and come to rest on it (and fall asleep).
static void test_demo_scene(void** state)
{
	(void)state;
	const kl_scene* demo = kl_scene_find("penalty_meshes");
	assert_non_null(demo);
	kl_scene_run run;
	assert_true(kl_scene_start(demo, 1, &run));
	int steps = KL_QUICK ? 120 : 240;
	int most_pairs = 0;
	for (int k = 0; k < steps; ++k)
	{
		assert_int_equal(kl_scene_step(&run, 1.0f / 60.0f, 4), KL_OK);
		most_pairs = most_pairs > kl_world_get_counters(run.world).penalty_pair_count
						 ? most_pairs
						 : kl_world_get_counters(run.world).penalty_pair_count;
	}
	kl_body_id bodies[8];
	int n = kl_world_get_bodies(run.world, bodies, 8);
	assert_int_equal(n, 6);
	int resting = 0;
	for (int i = 0; i < n; ++i)
	{
		if (kl_body_get_type(bodies[i]) != KL_BODY_DYNAMIC)
		{
			continue;
		}
		vec3s p = kl_body_get_position(bodies[i]);
		float speed = glms_vec3_norm(kl_body_get_linear_velocity(bodies[i]));
		assert_true(p.z > 0.0f && p.z < 0.3f); // on the ground, not through it
		resting += speed < 0.01f;
	}
	if (!KL_QUICK)
	{
		assert_int_equal(resting, 5);
	}
	assert_true(most_pairs >= 5); // each part on the ground, at least
	kl_scene_stop(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rest),	cmocka_unit_test(test_slide),			cmocka_unit_test(test_no_sink),
		cmocka_unit_test(test_threads), cmocka_unit_test(test_stiffness_limit), cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_rule),	cmocka_unit_test(test_scene),			cmocka_unit_test(test_demo_scene),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
