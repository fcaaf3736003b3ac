// Kollide tests — the viewer's demo scenes: each builds, leads the scene menu, runs 60 steps at
// 60 Hz with 4 sub-steps without NaN or bodies leaving the stage, gives the same state with 1 and
// 2 workers, and does what it is there to show (the domino wave starts, the chain swings on joints
// that hold, the ragdolls' limits hold, the drum turns, the arm follows its motor targets).
// SPDX-License-Identifier: MIT
#include "kl_test.h"
#include "scenes.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
	k_steps = 60,
	k_substeps = 4,
};

static const float k_dt = 1.0f / 60.0f;

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}
/// The stage: every body stays within this distance of the origin in x and y, and above the ground.
static const float k_stage_half = 25.0f;
static const float k_stage_top = 25.0f;
static const float k_stage_bottom = -0.5f;

typedef void scene_check_fn(kl_scene_run* run);

typedef struct demo_expect
{
	const char* name;
	int min_dynamic; ///< dynamic bodies at least
	int joints;
	scene_check_fn* check; ///< after the steps (1 worker)
} demo_expect;

/// The bodies of the world (caller frees).
static int all_bodies(kl_world_id world, kl_body_id** out)
{
	int n = kl_world_get_bodies(world, NULL, 0);
	*out = malloc(sizeof(kl_body_id) * (size_t)(n > 0 ? n : 1));
	assert_non_null(*out);
	return kl_world_get_bodies(world, *out, n);
}

static int all_joints(kl_world_id world, kl_joint_id** out)
{
	int n = kl_world_get_joints(world, NULL, 0);
	*out = malloc(sizeof(kl_joint_id) * (size_t)(n > 0 ? n : 1));
	assert_non_null(*out);
	return kl_world_get_joints(world, *out, n);
}

/// Worst distance between the two world anchors of any joint.
static float worst_anchor_gap(kl_world_id world)
{
	kl_joint_id* joints = NULL;
	int n = all_joints(world, &joints);
	float worst = 0.0f;
	for (int j = 0; j < n; ++j)
	{
		kl_joint_def def = kl_joint_get_def(joints[j]);
		vec3s a = kl_transform_point(kl_body_get_transform(def.body_a), def.local_frame_a.p);
		vec3s b = kl_transform_point(kl_body_get_transform(def.body_b), def.local_frame_b.p);
		worst = fmaxf(worst, glms_vec3_distance(a, b));
	}
	free(joints);
	return worst;
}

static void check_dominoes(kl_scene_run* run)
{
	kl_body_id first = kl_world_find_body(run->world, "first");
	assert_true(KL_IS_NON_NULL(first));
	vec3s up = kl_rotate(kl_body_get_rotation(first), kl_vec3(0.0f, 0.0f, 1.0f));
	printf("  dominoes: first domino's up axis z %.3f after 1 s\n", (double)up.z);
	assert_true(up.z < 0.9f); // it has tipped over by more than 25°
}

static void check_joint_chain(kl_scene_run* run)
{
	float gap = worst_anchor_gap(run->world);
	// The free end started level with the anchor (z = 14); after 1 s it has swung well down.
	kl_body_id* bodies = NULL;
	int n = all_bodies(run->world, &bodies);
	float lowest = 1.0e9f;
	for (int b = 0; b < n; ++b)
	{
		if (kl_body_get_type(bodies[b]) == KL_BODY_DYNAMIC)
		{
			lowest = fminf(lowest, kl_body_get_position(bodies[b]).z);
		}
	}
	free(bodies);
	printf("  joint_chain: worst anchor gap %.4f m, lowest link z %.2f m\n", (double)gap, (double)lowest);
	assert_true(gap < 0.05f);
	assert_true(lowest < 11.0f);
}

/// Every joint of the ragdolls stays within its limits (with a little softness): the revolute
/// angles, the spherical joints' twists and swing cones.
static void check_ragdoll(kl_scene_run* run)
{
	kl_joint_id* joints = NULL;
	int n = all_joints(run->world, &joints);
	float worst = 0.0f, worst_cone = 0.0f;
	int revolute = 0, spherical = 0;
	for (int j = 0; j < n; ++j)
	{
		kl_joint_def def = kl_joint_get_def(joints[j]);
		assert_true(def.enable_limit);
		revolute += def.type == KL_JOINT_REVOLUTE;
		spherical += def.type == KL_JOINT_SPHERICAL;
		float angle = kl_joint_get_angle(joints[j]);
		worst = fmaxf(worst, fmaxf(def.lower - angle, angle - def.upper));
		if (def.type == KL_JOINT_SPHERICAL)
		{
			worst_cone = fmaxf(worst_cone, kl_joint_get_swing_angle(joints[j]) - def.cone_angle);
		}
	}
	free(joints);
	float gap = worst_anchor_gap(run->world);
	printf("  ragdoll: %d revolute and %d spherical joints, worst limit violation %.4f rad, cone %.4f rad, worst "
		   "anchor gap %.4f m\n",
		   revolute, spherical, (double)worst, (double)worst_cone, (double)gap);
	assert_int_equal(revolute, 3 * 6);	// waist, neck, elbows, knees
	assert_int_equal(spherical, 3 * 4); // shoulders, hips
	assert_true(worst < 0.1f);
	assert_true(worst_cone < 0.1f);
	assert_true(gap < 0.05f);
}

/// The drum turns 0.5 rad/s about −y: after 1 s its rotation is 0.5 rad about −y.
static void check_tumbler(kl_scene_run* run)
{
	kl_body_id drum = kl_world_find_body(run->world, "drum");
	assert_true(KL_IS_NON_NULL(drum));
	assert_int_equal(kl_body_get_type(drum), KL_BODY_KINEMATIC);
	versors q = kl_body_get_rotation(drum);
	float angle = 2.0f * atan2f(-q.y, q.w);
	printf("  tumbler: drum turned %.4f rad\n", (double)angle);
	assert_near(angle, 0.5f, 1.0e-3);
}

/// The three motorised axes follow their targets: the targets the scene set for the last step.
static void check_robot_arm(kl_scene_run* run)
{
	kl_joint_id* joints = NULL;
	int n = all_joints(run->world, &joints);
	assert_int_equal(n, 3);
	float worst = 0.0f;
	float moved = 0.0f;
	for (int j = 0; j < n; ++j)
	{
		kl_joint_def def = kl_joint_get_def(joints[j]);
		assert_int_equal(def.type, KL_JOINT_REVOLUTE);
		assert_true(def.enable_motor && def.enable_limit);
		assert_int_equal(def.motor_mode, KL_MOTOR_POSITION);
		float angle = kl_joint_get_angle(joints[j]);
		worst = fmaxf(worst, fabsf(angle - def.motor_target));
		moved = fmaxf(moved, fabsf(angle));
	}
	free(joints);
	printf("  robot_arm: worst tracking error %.4f rad, largest angle %.3f rad\n", (double)worst, (double)moved);
	assert_true(moved > 0.3f); // the targets have moved away from the upright start
	assert_true(worst < 0.1f);
}

/// The URDF arm's turret follows the streamed sweep exactly: joint_1 = 1.3 sin(2π t / 8) at t = 1 s.
static void check_urdf_arm(kl_scene_run* run)
{
	kl_body_id turret = kl_world_find_body(run->world, "arm/turret");
	assert_true(KL_IS_NON_NULL(turret));
	assert_int_equal(kl_body_get_type(turret), KL_BODY_KINEMATIC);
	versors q = kl_body_get_rotation(turret);
	float angle = 2.0f * atan2f(q.z, q.w);
	float expected_angle = 1.3f * sinf(2.0f * GLM_PIf * (float)k_steps * k_dt / 8.0f);
	printf("  urdf_arm: turret at %.5f rad, streamed %.5f rad\n", (double)angle, (double)expected_angle);
	assert_near(angle, expected_angle, 1.0e-5);
}

static const demo_expect expected[] = {
	{"falling_boxes", 250, 0, NULL},
	{"dominoes", 100, 0, check_dominoes},
	{"joint_chain", 20, 20, check_joint_chain},
	{"ragdoll", 3 * 11, 3 * 10, check_ragdoll},
	{"tumbler", 500, 0, check_tumbler},
	{"robot_arm", 9, 3, check_robot_arm},
	{"urdf_arm", 5, 8, check_urdf_arm},
};
#define EXPECTED_COUNT ((int)(sizeof(expected) / sizeof(expected[0])))

/// The demo scenes open the menu, in this order.
/// The transforms' hash of a scene just built from seed (0: the scene's own layout).
static uint32_t seeded_layout_hash(const kl_scene* scene, uint32_t seed)
{
	kl_scene_run run;
	assert_true(seed == 0u ? kl_scene_start(scene, 1, &run) : kl_scene_start_seeded(scene, 1, seed, &run));
	uint32_t hash = kl_world_hash_transforms(run.world);
	kl_scene_stop(&run);
	return hash;
}

/// The pile draws its layout from a seed: the same seed gives the same layout, another seed
/// another one; a scene without seeded layouts refuses a seed and builds nothing.
static void test_seeded_layouts(void** state)
{
	(void)state;
	const kl_scene* pile = kl_scene_find("mesh_pile");
	assert_non_null(pile);
	assert_non_null(pile->create_seeded);
	assert_int_equal(seeded_layout_hash(pile, 1u), seeded_layout_hash(pile, 1u));
	assert_true(seeded_layout_hash(pile, 1u) != seeded_layout_hash(pile, 2u));
	assert_true(seeded_layout_hash(pile, 1u) != seeded_layout_hash(pile, 0u));
	assert_true(seeded_layout_hash(pile, 0x6d657368u) == seeded_layout_hash(pile, 0u)); // create's seed
	const kl_scene* falling = kl_scene_find("falling_boxes");
	assert_non_null(falling);
	assert_null(falling->create_seeded);
	kl_scene_run run;
	assert_false(kl_scene_start_seeded(falling, 1, 1u, &run));
	assert_false(kl_world_is_valid(run.world));
}

static void test_menu_order(void** state)
{
	(void)state;
	int count = 0;
	const kl_scene* const* list = kl_scene_list(&count);
	assert_true(count >= EXPECTED_COUNT);
	for (int i = 0; i < EXPECTED_COUNT; ++i)
	{
		assert_string_equal(list[i]->name, expected[i].name);
		assert_non_null(list[i]->description);
		assert_int_equal(list[i]->benchmark_steps, 0);
	}
}

/// Every body's pose is finite and on the stage. Returns the number of dynamic bodies.
static int check_stage(kl_world_id world, const char* name)
{
	kl_body_id* bodies = NULL;
	int n = all_bodies(world, &bodies);
	int dynamic = 0;
	for (int b = 0; b < n; ++b)
	{
		kl_transform xf = kl_body_get_transform(bodies[b]);
		vec3s p = xf.p;
		bool finite = isfinite(p.x) && isfinite(p.y) && isfinite(p.z) && isfinite(xf.q.x) && isfinite(xf.q.y) &&
					  isfinite(xf.q.z) && isfinite(xf.q.w);
		if (!finite || fabsf(p.x) > k_stage_half || fabsf(p.y) > k_stage_half || p.z > k_stage_top ||
			(kl_body_get_type(bodies[b]) == KL_BODY_DYNAMIC && p.z < k_stage_bottom))
		{
			free(bodies);
			fail_msg("%s: body %d at (%g, %g, %g) is not finite or off the stage", name, b, (double)p.x, (double)p.y,
					 (double)p.z);
		}
		dynamic += kl_body_get_type(bodies[b]) == KL_BODY_DYNAMIC;
	}
	free(bodies);
	return dynamic;
}

/// Runs the scene with `workers` workers, checking the stage after every step; returns the hash.
static uint32_t run_scene(const demo_expect* e, int workers, bool check)
{
	const kl_scene* scene = kl_scene_find(e->name);
	if (scene == NULL)
	{
		fail_msg("scene %s is not registered", e->name);
	}
	kl_scene_run run;
	if (!kl_scene_start(scene, workers, &run))
	{
		fail_msg("scene %s did not build: %s", e->name, kl_last_error());
	}
	int dynamic = check_stage(run.world, e->name);
	uint32_t start_hash = kl_world_hash_transforms(run.world);
	assert_true(dynamic >= e->min_dynamic);
	assert_int_equal(kl_world_get_joints(run.world, NULL, 0), e->joints);
	double t0 = now_seconds();
	for (int i = 0; i < k_steps; ++i)
	{
		assert_int_equal(kl_scene_step(&run, k_dt, k_substeps), KL_OK);
		check_stage(run.world, e->name);
	}
	double ms = 1000.0 * (now_seconds() - t0) / k_steps;
	uint32_t hash = kl_world_hash_transforms(run.world);
	assert_true(hash != start_hash); // something moved
	if (check)
	{
		printf("  %-14s %4d dynamic bodies, %3d joints, %.2f ms/step (%d worker)\n", e->name, dynamic, e->joints, ms,
			   workers);
		if (e->check != NULL)
		{
			e->check(&run);
		}
	}
	kl_scene_stop(&run);
	return hash;
}

static void test_scenes_run(void** state)
{
	(void)state;
	for (int i = 0; i < EXPECTED_COUNT; ++i)
	{
		uint32_t one = run_scene(&expected[i], 1, true);
		uint32_t two = run_scene(&expected[i], 2, false);
		if (one != two)
		{
			fail_msg("%s: hash %08x with 1 worker, %08x with 2", expected[i].name, one, two);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_menu_order),
		cmocka_unit_test(test_seeded_layouts),
		cmocka_unit_test(test_scenes_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
