// Kollide tests — stacking validation: a vertical stack of 15 cubes, a pyramid of base 20 and a
// 100:1 mass ratio must stand for 10 s (600 steps at 60 Hz, 4 sub-steps); each run must end in
// the same state on one and on two workers. `test_validation_stacking large_pyramid` runs the large
// pyramid (base 100) alone (ctest: test_large_pyramid; optimised builds only, Skipped elsewhere):
// it must stand in its plane.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"

#include <string.h>

#define STACK_STEPS 600 ///< 10 s

/// "A few cm": the most a box of a standing pyramid may move, and the most its top may sink.
#define FEW_CM 0.05
/// A box that fell is at least half a box (0.5 m) off its start; one tenth of a box is still near.
#define NEAR_START 0.1

/// Start and end poses of the dynamic bodies (slot order).
typedef struct stack_record
{
	kl_body_id* bodies;
	int count;
	vec3s* start;
	vec3s* end;
	int heavy; ///< index of the body named "heavy", or -1
} stack_record;

static void record_poses(kl_world_id world, int step, void* context)
{
	stack_record* r = context;
	if (step == 0)
	{
		r->count = kl_val_dynamic_bodies(world, &r->bodies);
		kl_body_id heavy = kl_world_find_body(world, "heavy");
		r->heavy = -1;
		r->start = malloc((size_t)r->count * sizeof(vec3s));
		r->end = malloc((size_t)r->count * sizeof(vec3s));
		assert_true(r->start != NULL && r->end != NULL);
		for (int i = 0; i < r->count; ++i)
		{
			r->start[i] = kl_body_get_position(r->bodies[i]);
			r->heavy = KL_ID_EQUALS(r->bodies[i], heavy) ? i : r->heavy;
		}
		if (r->heavy >= 0)
		{
			double heavy_mass = kl_body_get_mass(heavy);
			assert_near(heavy_mass, 100.0 * kl_body_get_mass(r->bodies[0]), 1.0e-3 * heavy_mass);
		}
	}
	if (step == STACK_STEPS)
	{
		for (int i = 0; i < r->count; ++i)
		{
			r->end[i] = kl_body_get_position(r->bodies[i]);
		}
	}
}

static void free_record(stack_record* r)
{
	free(r->bodies);
	free(r->start);
	free(r->end);
}

/// The body that starts highest.
static int highest(const stack_record* r)
{
	int top = 0;
	for (int i = 1; i < r->count; ++i)
	{
		top = r->start[i].z > r->start[top].z ? i : top;
	}
	return top;
}

/// After 10 s the top cube has moved less than 1 cm sideways and every cube is near its start
/// height (nothing fell).
static void test_vertical_stack(void** state)
{
	(void)state;
	stack_record r = {0};
	uint32_t hash = kl_val_run("vertical_stack", 1, STACK_STEPS, record_poses, &r);
	assert_int_equal(r.count, 15);
	int top = highest(&r);
	double top_sideways = kl_val_horizontal_distance(r.start[top], r.end[top]);
	double worst_dz = 0.0;
	for (int i = 0; i < r.count; ++i)
	{
		double dz = (double)r.end[i].z - r.start[i].z;
		worst_dz = fabs(dz) > fabs(worst_dz) ? dz : worst_dz;
	}
	printf("  vertical_stack: top cube moved %.3f mm sideways (limit 10 mm), top dz %+.2f mm, "
		   "largest |dz| %.2f mm (limit %.0f mm)\n",
		   1000.0 * top_sideways, 1000.0 * ((double)r.end[top].z - r.start[top].z), 1000.0 * fabs(worst_dz),
		   1000.0 * NEAR_START);
	assert_true(top_sideways < 0.01);
	assert_true(fabs(worst_dz) < NEAR_START);
	free_record(&r);
	kl_val_check_determinism("vertical_stack", STACK_STEPS, hash);
}

/// After 10 s the top cube's height is within a few cm of its start and no cube has moved more
/// than a few cm.
static void test_pyramid(void** state)
{
	(void)state;
	stack_record r = {0};
	uint32_t hash = kl_val_run("pyramid", 1, STACK_STEPS, record_poses, &r);
	assert_int_equal(r.count, 210);
	int top = highest(&r);
	double top_dz = (double)r.end[top].z - r.start[top].z;
	double worst = 0.0;
	int worst_index = 0;
	for (int i = 0; i < r.count; ++i)
	{
		double d = kl_val_distance(r.start[i], r.end[i]);
		worst_index = d > worst ? i : worst_index;
		worst = fmax(worst, d);
	}
	printf("  pyramid: top cube dz %+.2f mm (limit %.0f mm), largest displacement %.2f mm (cube %d, "
		   "start z %.1f; limit %.0f mm)\n",
		   1000.0 * top_dz, 1000.0 * FEW_CM, 1000.0 * worst, worst_index, (double)r.start[worst_index].z,
		   1000.0 * FEW_CM);
	assert_true(fabs(top_dz) < FEW_CM);
	assert_true(worst < FEW_CM);
	free_record(&r);
	kl_val_check_determinism("pyramid", STACK_STEPS, hash);
}

/// After 10 s the heavy cube still rests on the pyramid's top cube (centres 1 m apart vertically
/// within a few cm, less than a few cm apart sideways) and the pyramid is intact: no light cube has
/// moved a few cm sideways or a tenth of a box vertically.
static void test_mass_ratio(void** state)
{
	(void)state;
	stack_record r = {0};
	uint32_t hash = kl_val_run("mass_ratio", 1, STACK_STEPS, record_poses, &r);
	assert_int_equal(r.count, 11);
	int heavy = highest(&r);
	assert_int_equal(heavy, r.heavy); // the heavy cube (100 times a light one) starts on top
	// The pyramid's top cube: the highest of the others.
	int apex = heavy == 0 ? 1 : 0;
	for (int i = 0; i < r.count; ++i)
	{
		apex = (i != heavy && r.start[i].z > r.start[apex].z) ? i : apex;
	}
	double gap = (double)r.end[heavy].z - r.end[apex].z;
	double offset = kl_val_horizontal_distance(r.end[heavy], r.end[apex]);
	double worst_sideways = 0.0, worst_dz = 0.0;
	for (int i = 0; i < r.count; ++i)
	{
		if (i != heavy)
		{
			worst_sideways = fmax(worst_sideways, kl_val_horizontal_distance(r.start[i], r.end[i]));
			worst_dz = fmax(worst_dz, fabs((double)r.end[i].z - r.start[i].z));
		}
	}
	printf("  mass_ratio: heavy cube dz %+.2f mm, %.3f m above the top light cube (1 m at start), "
		   "%.2f mm off its axis; light cubes: largest sideways %.2f mm, largest |dz| %.2f mm\n",
		   1000.0 * ((double)r.end[heavy].z - r.start[heavy].z), gap, 1000.0 * offset, 1000.0 * worst_sideways,
		   1000.0 * worst_dz);
	assert_true(fabs(gap - 1.0) < FEW_CM);
	assert_true(offset < FEW_CM);
	assert_true(worst_sideways < FEW_CM);
	assert_true(worst_dz < NEAR_START);
	free_record(&r);
	kl_val_check_determinism("mass_ratio", STACK_STEPS, hash);
}

/// A world without sleeping and a ground (half extents hx × hx) of the given friction.
static kl_world_id world_with_ground(float hx, float friction)
{
	kl_world_def wd = kl_default_world_def();
	wd.enable_sleep = false;
	kl_world_id world = kl_create_world(&wd);
	assert_true(KL_IS_NON_NULL(kl_scene_add_ground(world, hx, hx, friction)));
	return world;
}

/// A 10 cm box of `ratio` times the mass of an equal box resting on the ground, dropped 10 cm onto
/// it. Writes the lowest the light box's bottom went (m, negative: into the ground) and returns the
/// heavy box's height after 3 s.
static float drop_heavy_on_light(float ratio, float* lowest)
{
	kl_world_id world = world_with_ground(2.0f, 0.6f);
	const vec3s half = kl_vec3(0.05f, 0.05f, 0.05f);
	kl_body_id light = kl_scene_add_box(world, kl_vec3(0.0f, 0.0f, 0.05f), glms_quat_identity(), half, 100.0f, 0.6f);
	kl_body_id heavy =
		kl_scene_add_box(world, kl_vec3(0.01f, 0.0f, 0.25f), glms_quat_identity(), half, 100.0f * ratio, 0.6f);
	*lowest = 0.0f;
	for (int step = 0; step < 180; ++step)
	{
		assert_int_equal(kl_world_step(world, KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
		*lowest = fminf(*lowest, kl_body_get_position(light).z - 0.05f);
	}
	float z = kl_body_get_position(heavy).z;
	kl_destroy_world(world);
	return z;
}

/// A heavy box landing on a light one that rests on the ground: the light box must not be driven
/// into the ground (one Gauss-Seidel pass per sub-step did not carry the ratio: at 50 it went 9 mm
/// in, at 200 the heavy box pushed it aside and ended on the ground). Support mass scaling makes
/// every ratio behave like equal masses.
static void test_heavy_lands_on_light(void** state)
{
	(void)state;
	const float ratios[] = {1.0f, 10.0f, 50.0f, 200.0f};
	for (int i = 0; i < 4; ++i)
	{
		float lowest;
		float z = drop_heavy_on_light(ratios[i], &lowest);
		printf("  heavy on light, mass ratio %.0f: light box's bottom at worst %+.2f mm, heavy box at z %.4f m\n",
			   (double)ratios[i], 1000.0 * (double)lowest, (double)z);
		assert_true(lowest > -0.5e-3f);
		assert_near(z, 0.15, 1.0e-3);
	}
}

/// Support mass scaling touches only supporting contacts: a heavy box sliding on ice into a light
/// one keeps the momentum along the slide, and the light box moves on at least as fast as the heavy.
static void test_side_collision_keeps_momentum(void** state)
{
	(void)state;
	kl_world_id world = world_with_ground(5.0f, 0.0f);
	const vec3s half = kl_vec3(0.05f, 0.05f, 0.05f);
	kl_body_id light = kl_scene_add_box(world, kl_vec3(0.3f, 0.0f, 0.05f), glms_quat_identity(), half, 100.0f, 0.0f);
	kl_body_id heavy = kl_scene_add_box(world, kl_vec3(0.0f, 0.0f, 0.05f), glms_quat_identity(), half, 5000.0f, 0.0f);
	kl_body_set_linear_velocity(heavy, kl_vec3(1.0f, 0.0f, 0.0f));
	float m_light = kl_body_get_mass_data(light).mass, m_heavy = kl_body_get_mass_data(heavy).mass;
	float before = m_heavy * 1.0f;
	for (int step = 0; step < 60; ++step)
	{
		assert_int_equal(kl_world_step(world, KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
	}
	float v_light = kl_body_get_linear_velocity(light).x, v_heavy = kl_body_get_linear_velocity(heavy).x;
	float after = m_light * v_light + m_heavy * v_heavy;
	printf("  side collision: momentum %.4f before, %.4f after; light box %.3f m/s, heavy %.3f m/s\n", (double)before,
		   (double)after, (double)v_light, (double)v_heavy);
	assert_near(after, before, 0.01 * before);
	assert_true(v_light > 0.9f && v_light >= v_heavy - 1.0e-3f); // pushed ahead (no bounce: restitution 0)
	kl_destroy_world(world);
}

/// Box3D's large pyramid (5,050 flush cubes, base 100, one cube thick) for 500 steps: it stands
/// in its plane. No cube leaves the plane y = 0 by more than 6 cm, the top sways less than 15 cm
/// in the plane and 3 cm out of it, and sinks less than 1 m while the contacts settle. Two
/// failures it guards against: points that lose their warm start when the flush faces flip
/// feature ids (the pile sinks 1.16 m and its top sways 38 cm), and contact points that follow
/// the middle of each overlap, which let the wall lean out of its plane under its own weight
/// until it falls apart near step 400. Optimised builds only (the scene is large): the test has
/// its own ctest entry, test_large_pyramid, which reports Skipped elsewhere.
#ifdef NDEBUG
static void test_large_pyramid_stands(void** state)
{
	(void)state;
	kl_scene_run run;
	kl_val_start("large_pyramid", 1, &run);
	kl_body_id top = kl_world_find_body(run.world, "top");
	assert_false(KL_IS_NULL(top));
	kl_body_id* bodies = NULL;
	int count = kl_val_dynamic_bodies(run.world, &bodies);
	assert_int_equal(count, 5050);
	vec3s start = kl_body_get_position(top);
	double worst_in_plane = 0.0, worst_out_of_plane = 0.0, worst_dz = 0.0, worst_cube = 0.0;
	for (int step = 1; step <= 500; ++step)
	{
		assert_int_equal(kl_scene_step(&run, KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
		vec3s p = kl_body_get_position(top);
		worst_in_plane = fmax(worst_in_plane, fabs((double)p.x - start.x));
		worst_out_of_plane = fmax(worst_out_of_plane, fabs((double)p.y - start.y));
		worst_dz = fmin(worst_dz, (double)p.z - start.z);
		for (int i = 0; i < count; ++i)
		{
			worst_cube = fmax(worst_cube, fabs((double)kl_body_get_position(bodies[i]).y));
		}
	}
	vec3s end = kl_body_get_position(top);
	printf("  large_pyramid, 500 steps: top swayed at most %.1f mm in the plane (limit 150 mm), %.1f mm "
		   "out of it (limit 30 mm), %.1f mm sideways at the end; sank at most %.1f mm (limit 1000 mm); "
		   "cubes at most %.1f mm out of the plane (limit 60 mm)\n",
		   1000.0 * worst_in_plane, 1000.0 * worst_out_of_plane, 1000.0 * kl_val_horizontal_distance(start, end),
		   -1000.0 * worst_dz, 1000.0 * worst_cube);
	assert_true(worst_in_plane < 0.15);
	assert_true(worst_out_of_plane < 0.03);
	assert_true(worst_dz > -1.0);
	assert_true(worst_cube < 0.06);
	free(bodies);
	kl_scene_stop(&run);
}
#endif

int main(int argc, char** argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	bool large_pyramid = argc > 1 && strcmp(argv[1], "large_pyramid") == 0;
	if (argc > 2 || (argc > 1 && !large_pyramid))
	{
		fprintf(stderr, "usage: test_validation_stacking [large_pyramid]\n");
		return 2;
	}
	if (large_pyramid)
	{
#ifdef NDEBUG
		const struct CMUnitTest pyramid_tests[] = {
			cmocka_unit_test(test_large_pyramid_stands),
		};
		return kl_test_exit_status(cmocka_run_group_tests(pyramid_tests, NULL, NULL));
#else
		printf("large_pyramid: optimised builds only (5,050 bodies for 500 steps): skipped\n");
		return KL_TEST_SKIPPED;
#endif
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vertical_stack),
		cmocka_unit_test(test_pyramid),
		cmocka_unit_test(test_mass_ratio),
		cmocka_unit_test(test_heavy_lands_on_light),
		cmocka_unit_test(test_side_collision_keeps_momentum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
