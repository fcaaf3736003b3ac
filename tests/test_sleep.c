// Islands and sleeping: resting islands fall asleep as one set, waking any body wakes the set,
// sleeping bodies cost nothing per step, and sleep/wake stays deterministic across worker counts.
#include <kollide/kollide.h>

#include "kl_test.h"

#define DT (1.0f / 60.0f)
#define SUBSTEPS 4

static kl_world_id make_world(int workers, bool enable_sleep, vec3s gravity)
{
	kl_world_def def = kl_default_world_def();
	def.worker_count = workers;
	def.enable_sleep = enable_sleep;
	def.gravity = gravity;
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static vec3s down(void)
{
	return kl_vec3(0.0f, 0.0f, -9.81f);
}

/// A static 40 m × 40 m slab whose top face is z = 0.
static kl_body_id make_ground(kl_world_id world)
{
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_vec3(0.0f, 0.0f, -0.5f);
	kl_body_id ground = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, kl_vec3(20.0f, 20.0f, 0.5f))));
	return ground;
}

static kl_body_id make_box(kl_world_id world, vec3s p, float half, bool enable_sleep)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = p;
	bd.enable_sleep = enable_sleep;
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(half, half, half))));
	return body;
}

/// Boxes of half size 0.5 stacked at (x, y), with a 5 mm gap under each so that they settle first.
static void make_stack_at(kl_world_id world, float x, float y, kl_body_id* bodies, int count)
{
	for (int i = 0; i < count; ++i)
	{
		bodies[i] = make_box(world, kl_vec3(x, y, 0.505f + 1.01f * (float)i), 0.5f, true);
	}
}

static void make_stack(kl_world_id world, float x, kl_body_id* bodies, int count)
{
	make_stack_at(world, x, 0.0f, bodies, count);
}

static int awake_count(const kl_body_id* bodies, int count)
{
	int n = 0;
	for (int i = 0; i < count; ++i)
	{
		n += kl_body_is_awake(bodies[i]) ? 1 : 0;
	}
	return n;
}

static int fell_asleep_events(kl_world_id world, kl_body_id body)
{
	kl_body_events events = kl_world_get_body_events(world);
	int n = 0;
	for (int k = 0; k < events.move_count; ++k)
	{
		const kl_body_move_event* e = &events.move_events[k];
		if (e->fell_asleep && e->body_id.index1 == body.index1 && e->body_id.generation == body.generation)
		{
			n += 1;
		}
	}
	return n;
}

/// Steps until every body is asleep (or max_steps); returns the steps taken, -1 if they never slept.
/// Fails if the bodies fall asleep on different steps (they must form one island).
static int step_until_asleep(kl_world_id world, const kl_body_id* bodies, int count, int max_steps)
{
	for (int step = 1; step <= max_steps; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		int awake = awake_count(bodies, count);
		if (awake == 0)
		{
			return step;
		}
		assert_int_equal(awake, count); // all or nothing
	}
	return -1;
}

// A box set down on the ground rests, falls asleep after KL_TIME_TO_SLEEP of rest with one
// fell_asleep move event, and then costs nothing: no events, no awake bodies, no motion.
static void test_box_falls_asleep(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id box = make_box(world, kl_vec3(0.0f, 0.0f, 0.505f), 0.5f, true);
	int events = 0, slept = -1;
	for (int step = 1; step <= 240 && slept < 0; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		events += fell_asleep_events(world, box);
		if (!kl_body_is_awake(box))
		{
			slept = step;
		}
	}
	assert_true(slept > 0);
	double t = slept * (double)DT;
	print_message("box fell asleep after %.3f s\n", t);
	assert_true(t >= 0.5 - 1.0e-6); // at least the rest time
	assert_true(t < 1.5);			// and soon after it settles
	assert_int_equal(events, 1);
	vec3s p = kl_body_get_position(box);
	assert_near(p.z, 0.5, 0.02); // asleep on the ground, not in the air
	assert_near(glms_vec3_norm(kl_body_get_linear_velocity(box)), 0.0, 0.0);
	assert_int_equal(kl_world_get_counters(world).awake_body_count, 0);

	uint32_t hash = kl_world_hash_transforms(world);
	for (int step = 0; step < 60; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		assert_int_equal(kl_world_get_body_events(world).move_count, 0);
		assert_int_equal(kl_world_get_counters(world).awake_body_count, 0);
	}
	assert_false(kl_body_is_awake(box));
	assert_int_equal(kl_world_hash_transforms(world), hash); // not moved by a single bit
	kl_destroy_world(world);
}

// A stack sleeps as one island: every box on the same step, each with one fell_asleep event.
static void test_stack_sleeps_as_one_island(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id stack[5];
	make_stack(world, 0.0f, stack, 5);
	int slept = step_until_asleep(world, stack, 5, 300);
	assert_true(slept > 0);
	print_message("stack of 5 fell asleep after %.3f s\n", slept * (double)DT);
	for (int i = 0; i < 5; ++i)
	{
		assert_int_equal(fell_asleep_events(world, stack[i]), 1);
		assert_near(kl_body_get_position(stack[i]).z, 0.5 + i, 0.05); // still stacked
	}
	assert_int_equal(kl_world_get_counters(world).awake_body_count, 0);
	kl_destroy_world(world);
}

// kl_body_set_awake(true) on one box of a sleeping stack wakes the whole stack; the stack then
// falls asleep again.
static void test_set_awake_wakes_the_stack(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id stack[4];
	make_stack(world, 0.0f, stack, 4);
	assert_true(step_until_asleep(world, stack, 4, 300) > 0);
	assert_int_equal(kl_body_set_awake(stack[2], true), KL_OK);
	assert_int_equal(awake_count(stack, 4), 4);
	assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	assert_int_equal(kl_world_get_counters(world).awake_body_count, 4);
	assert_int_equal(kl_world_get_body_events(world).move_count, 4);
	int again = step_until_asleep(world, stack, 4, 300);
	assert_true(again > 0);
	assert_true((again + 1) * (double)DT >= 0.5 - 1.0e-6); // rest timers restarted on waking
	kl_destroy_world(world);
}

// A force with wake = false leaves the stack asleep; with wake = true it wakes all of it.
static void test_force_wakes(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id stack[3];
	make_stack(world, 0.0f, stack, 3);
	assert_true(step_until_asleep(world, stack, 3, 300) > 0);
	assert_int_equal(kl_body_apply_force_to_center(stack[0], kl_vec3(1.0f, 0.0f, 0.0f), false), KL_OK);
	assert_int_equal(awake_count(stack, 3), 0);
	assert_int_equal(kl_body_apply_force_to_center(stack[0], kl_vec3(1.0f, 0.0f, 0.0f), true), KL_OK);
	assert_int_equal(awake_count(stack, 3), 3);
	kl_destroy_world(world);
}

// A ball thrown at a sleeping stack wakes it on impact and knocks the top box off.
static void test_ball_wakes_stack(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id stack[4];
	make_stack(world, 0.0f, stack, 4);
	assert_true(step_until_asleep(world, stack, 4, 300) > 0);
	vec3s top0 = kl_body_get_position(stack[3]);

	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(-3.0f, 0.0f, 3.5f);
	bd.linear_velocity = kl_vec3(12.0f, 0.0f, 0.0f);
	bd.gravity_scale = 0.0f;
	kl_body_id ball = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = 4000.0f;
	kl_create_sphere_shape(ball, &sd, 0.3f);

	int woke = -1;
	for (int step = 1; step <= 60 && woke < 0; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		int awake = awake_count(stack, 4);
		if (awake > 0)
		{
			assert_int_equal(awake, 4); // the whole set at once
			woke = step;
		}
	}
	assert_true(woke > 0);
	assert_true(woke * (double)DT < 0.35); // 2.2 m at 12 m/s: about 0.18 s
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	vec3s top1 = kl_body_get_position(stack[3]);
	print_message("top box moved %.3f m in x\n", (double)(top1.x - top0.x));
	assert_true(top1.x - top0.x > 0.2);
	kl_destroy_world(world);
}

// Without gravity or contacts, only joints link bodies: a jointed pair sleeps and wakes as one set,
// an unjointed pair as two.
static void test_joint_links_sleeping_sets(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id a = make_box(world, kl_vec3(0.0f, 0.0f, 0.0f), 0.5f, true);
	kl_body_id b = make_box(world, kl_vec3(2.0f, 0.0f, 0.0f), 0.5f, true);
	kl_body_id c = make_box(world, kl_vec3(0.0f, 5.0f, 0.0f), 0.5f, true);
	kl_body_id d = make_box(world, kl_vec3(2.0f, 5.0f, 0.0f), 0.5f, true);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, a, b, kl_vec3(1.0f, 0.0f, 0.0f), kl_vec3(0, 0, 1));
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	kl_body_id all[4] = {a, b, c, d};
	int slept = step_until_asleep(world, all, 4, 120);
	assert_true(slept > 0);
	assert_near(slept * (double)DT, 0.5, 2.0 * DT);

	assert_int_equal(kl_body_set_awake(b, true), KL_OK);
	assert_true(kl_body_is_awake(a)); // woken through the joint's set
	assert_false(kl_body_is_awake(c));
	assert_false(kl_body_is_awake(d));
	assert_int_equal(kl_body_set_awake(c, true), KL_OK);
	assert_true(kl_body_is_awake(c));
	assert_false(kl_body_is_awake(d)); // not linked: its own set

	// A joint from an awake body to a sleeping one wakes the sleeping one.
	jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, c, d, kl_vec3(1.0f, 5.0f, 0.0f), kl_vec3(0, 0, 1));
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	assert_true(kl_body_is_awake(d));
	kl_destroy_world(world);
}

// A jointed pair whose one body keeps moving stays awake together; once it stops, both sleep on
// the same step.
static void test_joint_keeps_partner_awake(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id a = make_box(world, kl_vec3(0.0f, 0.0f, 0.0f), 0.5f, true);
	kl_body_id b = make_box(world, kl_vec3(2.0f, 0.0f, 0.0f), 0.5f, true);
	kl_body_id lone = make_box(world, kl_vec3(0.0f, 5.0f, 0.0f), 0.5f, true);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, a, b, kl_vec3(1.0f, 0.0f, 0.0f), kl_vec3(0, 0, 1));
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	// b spins about the x axis, through its centre and the joint anchor (no pull on a), and is
	// damped to rest in about 1.4 s.
	assert_int_equal(kl_body_set_angular_damping(b, 2.0f), KL_OK);
	assert_int_equal(kl_body_set_angular_velocity(b, kl_vec3(1.0f, 0.0f, 0.0f)), KL_OK);
	for (int step = 0; step < 60; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_false(kl_body_is_awake(lone)); // rested from the start: asleep after 0.5 s
	assert_true(kl_body_is_awake(a));	  // at rest itself, but linked to the spinning b
	assert_true(kl_body_is_awake(b));
	kl_body_id pair[2] = {a, b};
	int slept = step_until_asleep(world, pair, 2, 600);
	assert_true(slept > 0);
	kl_destroy_world(world);
}

// A body's size turns its spin into a surface speed: the same slow spin keeps a long body awake
// and lets a small one sleep.
static void test_spin_uses_body_size(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id small = make_box(world, kl_vec3(0.0f, 0.0f, 0.0f), 0.25f, true);
	kl_body_id big = make_box(world, kl_vec3(10.0f, 0.0f, 0.0f), 2.0f, true);
	kl_body_id drifting = make_box(world, kl_vec3(0.0f, 10.0f, 0.0f), 0.25f, true);
	// Surface speeds: 0.04·0.43 = 0.017 m/s and 0.04·3.46 = 0.14 m/s against the 0.05 m/s threshold.
	kl_body_set_angular_velocity(small, kl_vec3(0.0f, 0.0f, 0.04f));
	kl_body_set_angular_velocity(big, kl_vec3(0.0f, 0.0f, 0.04f));
	kl_body_set_linear_velocity(drifting, kl_vec3(0.06f, 0.0f, 0.0f));
	for (int step = 0; step < 60; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_false(kl_body_is_awake(small));
	assert_true(kl_body_is_awake(big));
	assert_true(kl_body_is_awake(drifting));
	assert_near(glms_vec3_norm(kl_body_get_angular_velocity(small)), 0.0, 0.0); // zeroed on sleep
	kl_destroy_world(world);
}

// One body with enable_sleep = false keeps its whole island awake; a lone box in the same world
// still sleeps.
static void test_no_sleep_body_keeps_island_awake(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id bottom = make_box(world, kl_vec3(0.0f, 0.0f, 0.505f), 0.5f, true);
	kl_body_id top = make_box(world, kl_vec3(0.0f, 0.0f, 1.515f), 0.5f, false);
	kl_body_id lone = make_box(world, kl_vec3(5.0f, 0.0f, 0.505f), 0.5f, true);
	for (int step = 0; step < 180; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_false(kl_body_is_awake(lone));
	assert_true(kl_body_is_awake(bottom));
	assert_true(kl_body_is_awake(top));
	assert_int_equal(kl_world_get_counters(world).awake_body_count, 2);
	kl_destroy_world(world);
}

// With the world's enable_sleep off nothing ever sleeps.
static void test_world_sleep_off(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, false, down());
	make_ground(world);
	kl_body_id box = make_box(world, kl_vec3(0.0f, 0.0f, 0.505f), 0.5f, true);
	for (int step = 0; step < 180; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		assert_int_equal(fell_asleep_events(world, box), 0);
	}
	assert_true(kl_body_is_awake(box));
	assert_int_equal(kl_world_get_counters(world).awake_body_count, 1);
	kl_destroy_world(world);
}

// Destroying, retyping or reshaping a body of a sleeping stack wakes the rest of it.
static void test_changes_wake_the_set(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id stack[3];
	make_stack(world, 0.0f, stack, 3);
	assert_true(step_until_asleep(world, stack, 3, 300) > 0);
	assert_int_equal(kl_destroy_body(stack[0]), KL_OK);
	assert_true(kl_body_is_awake(stack[1]));
	assert_true(kl_body_is_awake(stack[2]));
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_true(kl_body_get_position(stack[1]).z < 1.0f); // fell onto the ground

	kl_body_id pile[3];
	make_stack(world, 5.0f, pile, 3);
	int asleep = step_until_asleep(world, pile, 3, 300);
	assert_true(asleep > 0);
	assert_int_equal(kl_body_set_type(pile[1], KL_BODY_STATIC), KL_OK);
	assert_true(kl_body_is_awake(pile[0]));
	assert_true(kl_body_is_awake(pile[2]));
	assert_false(kl_body_is_awake(pile[1])); // static bodies are never awake

	kl_body_id trio[3];
	make_stack(world, -5.0f, trio, 3);
	assert_true(step_until_asleep(world, trio, 3, 300) > 0);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(trio[0], &sd, 0.2f)));
	assert_int_equal(awake_count(trio, 3), 3);
	kl_destroy_world(world);
}

// kl_body_set_awake(false) puts one body to sleep by itself; a restless awake body touching it
// wakes it again, and set_awake(true) wakes it.
static void test_set_asleep_single(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id box = make_box(world, kl_vec3(0.0f, 0.0f, 0.0f), 0.5f, true);
	kl_body_set_linear_velocity(box, kl_vec3(1.0f, 0.0f, 0.0f));
	assert_int_equal(kl_body_set_awake(box, false), KL_OK);
	assert_false(kl_body_is_awake(box));
	vec3s p0 = kl_body_get_position(box);
	for (int step = 0; step < 10; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_false(kl_body_is_awake(box));
	assert_near(kl_body_get_position(box).x, p0.x, 0.0);
	assert_int_equal(kl_world_get_counters(world).awake_body_count, 0);
	assert_int_equal(kl_body_set_awake(box, true), KL_OK);
	assert_true(kl_body_is_awake(box));
	kl_destroy_world(world);
}

// A kinematic platform moving slower than the sleep threshold keeps the box riding on it awake
// (the box alone would rest); when it stops, both sleep; when it moves again, the box wakes.
static void test_kinematic_platform(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_vec3(0.0f, 0.0f, -0.5f);
	bd.linear_velocity = kl_vec3(0.04f, 0.0f, 0.0f); // below the box's 0.05 m/s threshold
	kl_body_id platform = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_create_box_shape(platform, &sd, kl_vec3(5.0f, 5.0f, 0.5f));
	kl_body_id box = make_box(world, kl_vec3(0.0f, 0.0f, 0.505f), 0.5f, true);
	for (int step = 0; step < 120; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		assert_int_equal(fell_asleep_events(world, box), 0); // not even for a step
	}
	assert_true(kl_body_is_awake(box));
	assert_true(kl_body_is_awake(platform));
	assert_near(kl_body_get_position(box).x, kl_body_get_position(platform).x, 0.02); // carried
	assert_true(kl_body_get_position(platform).x > 0.07f);

	kl_body_set_linear_velocity(platform, kl_vec3(0.0f, 0.0f, 0.0f));
	for (int step = 0; step < 120; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_false(kl_body_is_awake(box));
	assert_false(kl_body_is_awake(platform));

	kl_body_set_linear_velocity(platform, kl_vec3(0.0f, 0.04f, 0.0f));
	assert_true(kl_body_is_awake(platform));
	for (int step = 0; step < 3; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_true(kl_body_is_awake(box));
	kl_destroy_world(world);
}

#define SCENE_STACKS 132

/// Stacks that fall asleep, then a ball that wakes one; returns a hash of every step's poses and
/// counts the sleep and wake transitions seen. 528 boxes: above the engine's threshold for running
/// the body stages over the workers, until they fall asleep.
static uint32_t run_sleep_scene(int workers, int* fell_asleep, int* woke)
{
	kl_world_id world = make_world(workers, true, down());
	make_ground(world);
	static kl_body_id stacks[SCENE_STACKS][4];
	for (int s = 0; s < SCENE_STACKS; ++s)
	{
		make_stack_at(world, -15.0f + 2.5f * (float)(s % 12), -15.0f + 2.5f * (float)(s / 12), stacks[s], 4);
	}
	*fell_asleep = 0;
	*woke = 0;
	uint32_t hash = 0;
	int prev_awake = 4 * SCENE_STACKS;
	for (int step = 0; step < 150; ++step)
	{
		if (step == 75)
		{
			kl_body_def bd = kl_default_body_def();
			bd.type = KL_BODY_DYNAMIC;
			bd.position = kl_vec3(-17.0f, -14.8f, 2.5f); // at the first stack
			bd.linear_velocity = kl_vec3(10.0f, 0.0f, 0.0f);
			bd.gravity_scale = 0.0f;
			kl_body_id ball = kl_create_body(world, &bd);
			kl_shape_def sd = kl_default_shape_def();
			sd.material.density = 3000.0f;
			kl_create_sphere_shape(ball, &sd, 0.3f);
		}
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
		kl_body_events events = kl_world_get_body_events(world);
		for (int k = 0; k < events.move_count; ++k)
		{
			*fell_asleep += events.move_events[k].fell_asleep ? 1 : 0;
		}
		int awake = 0;
		for (int s = 0; s < SCENE_STACKS; ++s)
		{
			awake += awake_count(stacks[s], 4);
		}
		*woke += awake > prev_awake ? 1 : 0;
		prev_awake = awake;
		hash = hash * 31u + kl_world_hash_transforms(world);
	}
	kl_destroy_world(world);
	return hash;
}

static void test_determinism_with_sleep(void** state)
{
	(void)state;
	int asleep1, woke1, asleep2, woke2;
	uint32_t h1 = run_sleep_scene(1, &asleep1, &woke1);
	uint32_t h2 = run_sleep_scene(2, &asleep2, &woke2);
	print_message("1 worker: %d fell asleep, %d wake-ups, hash %08x; 2 workers: hash %08x\n", asleep1, woke1, h1, h2);
	assert_true(asleep1 >= 4 * SCENE_STACKS); // every stack slept
	assert_true(woke1 >= 1);	// and the ball woke one
	assert_int_equal(asleep1, asleep2);
	assert_int_equal(woke1, woke2);
	assert_int_equal(h1, h2);
}

// Teleporting a sleeping box into the air wakes it: it falls and lands instead of hanging there.
static void test_teleport_wakes(void** state)
{
	(void)state;
	kl_world_id world = make_world(1, true, down());
	make_ground(world);
	kl_body_id box = make_box(world, kl_vec3(0.0f, 0.0f, 0.505f), 0.5f, true);
	for (int step = 0; step < 120 && kl_body_is_awake(box); ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_false(kl_body_is_awake(box));
	assert_int_equal(kl_body_set_transform(box, kl_vec3(3.0f, 0.0f, 5.0f), glms_quat_identity()), KL_OK);
	assert_true(kl_body_is_awake(box));
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_true(kl_body_get_position(box).z < 4.0f); // fell
	for (int step = 0; step < 120; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
	assert_near(kl_body_get_position(box).z, 0.5, 0.02); // and landed
	kl_destroy_world(world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_teleport_wakes),
		cmocka_unit_test(test_box_falls_asleep),
		cmocka_unit_test(test_stack_sleeps_as_one_island),
		cmocka_unit_test(test_set_awake_wakes_the_stack),
		cmocka_unit_test(test_force_wakes),
		cmocka_unit_test(test_ball_wakes_stack),
		cmocka_unit_test(test_joint_links_sleeping_sets),
		cmocka_unit_test(test_joint_keeps_partner_awake),
		cmocka_unit_test(test_spin_uses_body_size),
		cmocka_unit_test(test_no_sleep_body_keeps_island_awake),
		cmocka_unit_test(test_world_sleep_off),
		cmocka_unit_test(test_changes_wake_the_set),
		cmocka_unit_test(test_set_asleep_single),
		cmocka_unit_test(test_kinematic_platform),
		cmocka_unit_test(test_determinism_with_sleep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
