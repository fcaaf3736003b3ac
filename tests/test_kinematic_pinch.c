// Bodies pinched by kinematic bodies: a plate pressing bouncy bodies onto the floor, and an arm
// turning in a walled yard that squeezes spheres, boxes, capsules and hulls against its 2 m walls.
// A body they push may move at most as fast as (1 + e) times their speed plus the contact push-out
// limit (kl_world_def.max_contact_push_speed), e its restitution, and none leaves over the wall.
#include "kl_test.h"

#include <kollide/kollide.h>

#define DT (1.0f / 60.0f)
#define BODY_COUNT 60

static const float k_half_yard = 2.0f;	///< inner faces of the walls at ±2 m
static const float k_wall_height = 2.0f;

typedef struct pinch_result
{
	float fastest;	   ///< m/s, of any body inside the yard at the end of any step
	int fastest_step;
	int over_wall;	   ///< bodies that rose above the wall's top
	int outside;	   ///< bodies outside the yard at the end (over or through a wall)
} pinch_result;

/// The yard: a floor and four walls 2 m high, 0.2 m thick, on one static body.
static void add_yard(kl_world_id world)
{
	kl_body_def bd = kl_default_body_def();
	kl_body_id ground = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.local_pose.p = kl_vec3(0.0f, 0.0f, -0.5f);
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, kl_vec3(10.0f, 10.0f, 0.5f))));
	const float c = k_half_yard + 0.1f, h = 0.5f * k_wall_height;
	const vec3s centres[4] = {{{-c, 0.0f, h}}, {{c, 0.0f, h}}, {{0.0f, -c, h}}, {{0.0f, c, h}}};
	const vec3s halves[4] = {{{0.1f, c + 0.1f, h}}, {{0.1f, c + 0.1f, h}}, {{c + 0.1f, 0.1f, h}}, {{c + 0.1f, 0.1f, h}}};
	for (int i = 0; i < 4; ++i)
	{
		sd.local_pose.p = centres[i];
		assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, halves[i])));
	}
}

/// Presses bodies of restitution e onto the floor with a kinematic plate coming down at `speed`
/// until its face is `gap` over the floor (less than the bodies' size), and holds it there; returns
/// the fastest speed of any body at the end of any step after the plate stopped.
static float press(float speed, float e, float gap)
{
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_body_id ground = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.local_pose.p = kl_vec3(0.0f, 0.0f, -0.5f);
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, kl_vec3(10.0f, 10.0f, 0.5f))));
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_vec3(0.0f, 0.0f, 1.0f);
	bd.linear_velocity = kl_vec3(0.0f, 0.0f, -speed);
	kl_body_id plate = kl_create_body(world, &bd);
	sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(plate, &sd, kl_vec3(1.0f, 1.0f, 0.1f))));
	kl_body_id bodies[9];
	for (int i = 0; i < 9; ++i)
	{
		bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = kl_vec3(-0.5f + 0.5f * (float)(i % 3), -0.5f + 0.5f * (float)(i / 3), 0.1f + 0.2f * (float)(i % 2));
		bd.rotation = glms_quatv(0.3f * (float)i, glms_vec3_normalize(kl_vec3(1.0f, 1.0f, 0.3f)));
		bodies[i] = kl_create_body(world, &bd);
		sd = kl_default_shape_def();
		sd.material.restitution = e;
		kl_shape_id shape = i % 3 == 0	 ? kl_create_sphere_shape(bodies[i], &sd, 0.1f)
							: i % 3 == 1 ? kl_create_box_shape(bodies[i], &sd, kl_vec3(0.1f, 0.08f, 0.12f))
										 : kl_create_capsule_shape(bodies[i], &sd, 0.07f, 0.08f);
		assert_true(KL_IS_NON_NULL(shape));
	}
	float fastest = 0.0f;
	bool stopped = false;
	for (int step = 1; step <= 300; ++step)
	{
		if (!stopped && kl_body_get_position(plate).z - 0.1f <= gap)
		{
			assert_int_equal(kl_body_set_linear_velocity(plate, kl_vec3(0.0f, 0.0f, 0.0f)), KL_OK);
			stopped = true;
		}
		assert_int_equal(kl_world_step(world, DT, 4), KL_OK);
		for (int i = 0; i < 9 && stopped; ++i)
		{
			fastest = fmaxf(fastest, glms_vec3_norm(kl_body_get_linear_velocity(bodies[i])));
		}
	}
	assert_true(stopped);
	kl_destroy_world(world);
	return fastest;
}

/// A plate coming down at 4 m/s presses spheres, boxes and capsules of restitution 0.6 onto the
/// floor to a 5 cm gap and stays there. Held squeezed, the rows see approaches far faster than any
/// motion (the bodies are driven into the floor and the plate within the sub-steps); bounces from
/// them kept throwing bodies out from under the plate at up to 28 m/s for seconds. A bounce is from
/// the approach the step can explain: the one at its start plus gravity's.
static void test_press_bounce_bounded(void** state)
{
	(void)state;
	const float speed = 4.0f, e = 0.6f;
	float fastest = press(speed, e, 0.05f);
	float bound = (1.0f + e) * speed + kl_default_world_def().max_contact_push_speed;
	print_message("plate at %.1f m/s, restitution %.1f: fastest %.2f m/s once stopped (bound %.2f)\n", (double)speed, (double)e,
				  (double)fastest, (double)bound);
	assert_true(fastest <= bound);
}

/// Runs the yard for `steps` with the arm turning at omega about the vertical, its tips `gap` from
/// the walls, and bodies of restitution e; returns the arm tip's speed in *tip_speed.
static pinch_result sweep(float omega, float gap, float e, int steps, float* tip_speed)
{
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	add_yard(world);
	// The arm: a 0.2 m × 0.6 m bar across the yard, turning about its middle.
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_vec3(0.0f, 0.0f, 0.3f);
	bd.angular_velocity = kl_vec3(0.0f, 0.0f, omega);
	kl_body_id arm = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	const float arm_half = k_half_yard - gap;
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(arm, &sd, kl_vec3(arm_half, 0.1f, 0.3f))));
	*tip_speed = omega * sqrtf(arm_half * arm_half + 0.1f * 0.1f);
	const vec3s points[6] = {{{0.12f, 0.0f, 0.0f}},	  {{-0.1f, 0.08f, 0.02f}}, {{-0.06f, -0.1f, 0.0f}},
							 {{0.0f, 0.0f, 0.11f}},	  {{0.02f, 0.03f, -0.1f}}, {{-0.05f, 0.05f, 0.07f}}};
	kl_hull* hull = kl_hull_build(points, 6);
	assert_non_null(hull);
	kl_body_id bodies[BODY_COUNT];
	for (int i = 0; i < BODY_COUNT; ++i)
	{
		bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		float a = 2.0f * 3.14159265f * (float)i / BODY_COUNT, r = 0.6f + 0.11f * (float)((7 * i) % 10);
		bd.position = kl_vec3(r * cosf(a), r * sinf(a), 0.8f + 0.3f * (float)(i % 3));
		bodies[i] = kl_create_body(world, &bd);
		sd = kl_default_shape_def();
		sd.material.restitution = e;
		kl_shape_id shape;
		switch (i % 4)
		{
		case 0: shape = kl_create_sphere_shape(bodies[i], &sd, 0.1f); break;
		case 1: shape = kl_create_box_shape(bodies[i], &sd, kl_vec3(0.1f, 0.08f, 0.12f)); break;
		case 2: shape = kl_create_capsule_shape(bodies[i], &sd, 0.07f, 0.08f); break;
		default: shape = kl_create_hull_shape(bodies[i], &sd, hull); break;
		}
		assert_true(KL_IS_NON_NULL(shape));
	}
	kl_hull_destroy(hull);
	pinch_result r = {0.0f, 0, 0, 0};
	bool over[BODY_COUNT] = {false};
	for (int step = 1; step <= steps; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, 4), KL_OK);
		for (int i = 0; i < BODY_COUNT; ++i)
		{
			vec3s p = kl_body_get_position(bodies[i]);
			over[i] = over[i] || p.z > k_wall_height;
			bool inside = fabsf(p.x) < k_half_yard + 0.3f && fabsf(p.y) < k_half_yard + 0.3f && p.z > -0.3f;
			float speed = glms_vec3_norm(kl_body_get_linear_velocity(bodies[i]));
			// The first second is the drop (up to 5 m/s); after it, speed comes from the arm.
			if (inside && step > 60 && speed > r.fastest)
			{
				r.fastest = speed;
				r.fastest_step = step;
			}
		}
	}
	for (int i = 0; i < BODY_COUNT; ++i)
	{
		vec3s p = kl_body_get_position(bodies[i]);
		r.over_wall += over[i];
		r.outside += fabsf(p.x) > k_half_yard || fabsf(p.y) > k_half_yard;
	}
	kl_destroy_world(world);
	return r;
}

/// Three yards: the arm at 2 and 3 rad/s (tips at 4.0 and 5.9 m/s) with bodies that do not bounce,
/// and at 1 rad/s (1.95 m/s) with bodies of restitution 0.6. Pinched between the arm and a wall,
/// or between bodies the arm squeezes, a body's sideways contacts carry at most what stops their
/// approach and pushes out at the push-out limit (kl_contact_impulse_limit). Unbounded, their
/// impulses run up without limit, and the yards throw bodies at 8.5 m/s (two over the wall),
/// 13.4 m/s and 8.8 m/s.
static void test_sweeper_pinch_bounded(void** state)
{
	(void)state;
	const struct
	{
		float omega, gap, e;
	} cases[3] = {{2.0f, 0.02f, 0.0f}, {3.0f, 0.05f, 0.0f}, {1.0f, 0.05f, 0.6f}};
	const int steps = KL_QUICK ? 600 : 1800; // 30 s: the arm passes every wall 19 times (at 2 rad/s)
	const float push = kl_default_world_def().max_contact_push_speed;
	for (int i = 0; i < 3; ++i)
	{
		float tip = 0.0f;
		pinch_result r = sweep(cases[i].omega, cases[i].gap, cases[i].e, steps, &tip);
		float bound = (1.0f + cases[i].e) * tip + push;
		print_message("arm %.1f rad/s (tips %.2f m/s), restitution %.1f: fastest %.2f m/s at step %d (bound %.2f), "
					  "%d over the wall, %d outside\n",
					  (double)cases[i].omega, (double)tip, (double)cases[i].e, (double)r.fastest, r.fastest_step,
					  (double)bound, r.over_wall, r.outside);
		assert_true(r.fastest <= bound);
		assert_int_equal(r.over_wall, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_press_bounce_bounded),
		cmocka_unit_test(test_sweeper_pinch_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
