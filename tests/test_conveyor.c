// Kollide tests — conveyor belts (kl_material.surface_velocity): a box on a static belt speeds up to
// the belt's speed and rides along it, in the belt shape's frame; it stops when the belt stops, and
// a belt started under a sleeping box wakes it. Bad belt speeds are refused and change nothing;
// scene files keep belts.
// SPDX-License-Identifier: MIT
#include <kollide/io.h>
#include <kollide/kollide.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define DT (1.0f / 60.0f)
#define SUBSTEPS 4
#define BELT_SPEED 0.5f

typedef struct belt_scene
{
	kl_world_id world;
	kl_shape_id belt;
	kl_body_id box;
} belt_scene;

/// A 10 m static belt, its shape turned by yaw about z, and a 0.2 m box resting on it at the origin.
static belt_scene make_scene(float yaw, vec3s belt_velocity)
{
	belt_scene s;
	kl_world_def wd = kl_default_world_def();
	s.world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_body_id ground = kl_create_body(s.world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.local_pose.q = glms_quatv(yaw, kl_vec3(0.0f, 0.0f, 1.0f));
	sd.material.surface_velocity = belt_velocity;
	s.belt = kl_create_box_shape(ground, &sd, kl_vec3(5.0f, 5.0f, 0.1f));
	assert_true(KL_IS_NON_NULL(s.belt));
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.0f, 0.0f, 0.3f);
	s.box = kl_create_body(s.world, &bd);
	sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(s.box, &sd, kl_vec3(0.2f, 0.2f, 0.2f))));
	return s;
}

static void run(belt_scene* s, int steps)
{
	for (int i = 0; i < steps; ++i)
	{
		assert_int_equal(kl_world_step(s->world, DT, SUBSTEPS), KL_OK);
	}
}

static void set_belt(kl_shape_id belt, vec3s velocity)
{
	kl_material m = kl_shape_get_material(belt);
	m.surface_velocity = velocity;
	assert_int_equal(kl_shape_set_material(belt, m), KL_OK);
}

/// The belt runs along its shape's x axis; turned 90° about z that is world +y. After 2 s the box
/// has the belt's speed (within 1 %) and has travelled v·t less what the speed-up cost (v²/2μg =
/// 2 cm at μ = 0.6), within 3 cm; it has not drifted across the belt.
static void test_box_rides_belt(void** state)
{
	(void)state;
	belt_scene s = make_scene(GLM_PI_2f, kl_vec3(BELT_SPEED, 0.0f, 0.0f));
	vec3s start = kl_body_get_position(s.box);
	run(&s, 120);
	vec3s v = kl_body_get_linear_velocity(s.box);
	vec3s p = kl_body_get_position(s.box);
	assert_true(fabsf(v.y - BELT_SPEED) < 0.01f * BELT_SPEED);
	assert_true(fabsf(v.x) < 1e-3f);
	float travelled = p.y - start.y;
	assert_true(fabsf(travelled - BELT_SPEED * 2.0f) < 0.03f);
	assert_true(fabsf(p.x - start.x) < 1e-3f);

	// Stopped, the belt holds the box again: at rest within half a second (μg = 5.9 m/s²).
	set_belt(s.belt, glms_vec3_zero());
	run(&s, 30);
	assert_true(glms_vec3_norm(kl_body_get_linear_velocity(s.box)) < 1e-3f);
	vec3s held = kl_body_get_position(s.box);
	run(&s, 60);
	assert_true(glms_vec3_norm(glms_vec3_sub(kl_body_get_position(s.box), held)) < 1e-3f);
	kl_destroy_world(s.world);
}

/// A box left to sleep on a stopped belt moves once the belt starts.
static void test_belt_wakes_sleeping_box(void** state)
{
	(void)state;
	belt_scene s = make_scene(0.0f, glms_vec3_zero());
	run(&s, 240);
	assert_false(kl_body_is_awake(s.box));
	set_belt(s.belt, kl_vec3(-BELT_SPEED, 0.0f, 0.0f));
	run(&s, 60);
	assert_true(kl_body_is_awake(s.box));
	assert_true(fabsf(kl_body_get_linear_velocity(s.box).x + BELT_SPEED) < 0.01f * BELT_SPEED);
	kl_destroy_world(s.world);
}

/// NaN, infinite and absurd belt speeds are refused with a message; the material stays as it was,
/// and a shape cannot be created with them either.
static void test_bad_belt_refused(void** state)
{
	(void)state;
	belt_scene s = make_scene(0.0f, kl_vec3(BELT_SPEED, 0.0f, 0.0f));
	const vec3s bad[] = {kl_vec3(NAN, 0.0f, 0.0f), kl_vec3(0.0f, INFINITY, 0.0f), kl_vec3(0.0f, 0.0f, 1e30f)};
	for (int i = 0; i < 3; ++i)
	{
		kl_material m = kl_shape_get_material(s.belt);
		m.surface_velocity = bad[i];
		assert_int_equal(kl_shape_set_material(s.belt, m), KL_ERR_INVALID_ARGUMENT);
		assert_non_null(strstr(kl_last_error(), "surface velocity"));
		assert_true(kl_shape_get_material(s.belt).surface_velocity.x == BELT_SPEED);

		kl_body_def bd = kl_default_body_def();
		kl_shape_def sd = kl_default_shape_def();
		sd.material.surface_velocity = bad[i];
		kl_body_id body = kl_create_body(s.world, &bd);
		assert_true(KL_IS_NULL(kl_create_box_shape(body, &sd, kl_vec3(1.0f, 1.0f, 1.0f))));
	}
	run(&s, 60);
	assert_true(isfinite(kl_body_get_position(s.box).x));
	kl_destroy_world(s.world);
}

/// Scene files keep a belt: saved and loaded again, the shape has the same surface velocity.
static void test_belt_in_scene_file(void** state)
{
	(void)state;
	belt_scene s = make_scene(0.0f, kl_vec3(BELT_SPEED, -0.25f, 0.0f));
	char* text = kl_scene_save_string(s.world);
	assert_non_null(text);
	assert_non_null(strstr(text, "surface_velocity"));
	kl_world_id loaded = kl_scene_load_string(text, NULL);
	free(text);
	assert_true(KL_IS_NON_NULL(loaded));
	kl_body_id bodies[2];
	assert_int_equal(kl_world_get_bodies(loaded, bodies, 2), 2);
	kl_shape_id belt;
	assert_int_equal(kl_body_get_shapes(bodies[0], &belt, 1), 1);
	vec3s v = kl_shape_get_material(belt).surface_velocity;
	assert_true(v.x == BELT_SPEED && v.y == -0.25f && v.z == 0.0f);
	kl_destroy_world(loaded);
	kl_destroy_world(s.world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_rides_belt),
		cmocka_unit_test(test_belt_wakes_sleeping_box),
		cmocka_unit_test(test_bad_belt_refused),
		cmocka_unit_test(test_belt_in_scene_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
