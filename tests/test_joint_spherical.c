// Spherical joints in whole worlds: the swing cone stops a swinging bob and holds a resting one at
// its edge with the torque that gravity asks for, the twist range stops a spinning body, the motor
// drives a relative angular velocity within its torque, the spring swings a body about the anchor
// at its frequency, runtime setters change all of them, bad input is refused, and results do not
// depend on the workers.
#include "kl_joint_test.h"

/// A 1 kg ball of 0.1 m hung 1 m below a static anchor at the origin by a spherical joint. Frame b's
/// z points from the anchor to the ball (down); frame a's z points down when `sideways` is false
/// (the frames coincide) and along world x when it is true (the hanging ball is then 90° off the
/// cone's axis, with no twist).
static kl_joint_id make_cone_pendulum(kl_world_id world, bool sideways, float cone, float lower, float upper, kl_body_id* bob)
{
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	*bob = make_ball(world, kl_vec3(0.0f, 0.0f, -1.0f), 1.0f, 0.1f);
	kl_joint_def jd = kl_default_joint_def(KL_JOINT_SPHERICAL);
	jd.body_a = ground;
	jd.body_b = *bob;
	vec3s y = kl_vec3(0.0f, 1.0f, 0.0f);
	jd.local_frame_a.q = glms_quatv(sideways ? 0.5f * GLM_PIf : GLM_PIf, y);
	jd.local_frame_b.p = kl_vec3(0.0f, 0.0f, 1.0f);
	jd.local_frame_b.q = glms_quatv(GLM_PIf, y);
	jd.enable_limit = true;
	jd.cone_angle = cone;
	jd.lower = lower;
	jd.upper = upper;
	return make_joint(world, &jd);
}

// Thrown sideways at 4 m/s from the bottom, a free bob swings out to 80°; a cone of 0.5 rad about
// the downward axis stops it there (speculatively: it reaches the edge without overshooting).
static void test_cone_stops_swing(void** state)
{
	(void)state;
	float widest[2] = {0.0f, 0.0f};
	for (int limited = 0; limited < 2; ++limited)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
		kl_body_id bob;
		kl_joint_id joint = make_cone_pendulum(world, false, 0.5f, -GLM_PIf, GLM_PIf, &bob);
		if (!limited)
		{
			assert_int_equal(kl_joint_enable_limit(joint, false), KL_OK);
		}
		assert_int_equal(kl_body_set_linear_velocity(bob, kl_vec3(4.0f, 1.0f, 0.0f)), KL_OK);
		float separation = 0.0f;
		for (int i = 0; i < 300; ++i)
		{
			step(world, 1);
			widest[limited] = fmaxf(widest[limited], kl_joint_get_swing_angle(joint));
			separation = fmaxf(separation, anchor_separation(joint));
		}
		print_message("%s: widest swing %.4f rad, worst anchor separation %.2g m\n", limited ? "cone 0.5" : "free",
					  widest[limited], separation);
		assert_true(separation < 2.0e-3f);
		kl_destroy_world(world);
	}
	assert_true(widest[0] > 1.2f);
	assert_true(widest[1] > 0.49f && widest[1] < 0.5f + 0.01f);
}

// Frame a's z points along world x, so the hanging ball lies 90° off the cone's axis. A cone of
// 0.6 rad holds it on the cone's edge, where the limit's couple balances gravity's moment about
// the anchor, m g L cos 0.6; the joint's angle stays where the twist limit allows.
static void test_cone_holds_load(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id bob;
	kl_joint_id joint = make_cone_pendulum(world, true, 0.6f, -0.2f, 0.2f, &bob);
	assert_near(kl_joint_get_swing_angle(joint), 0.5f * GLM_PIf, 1.0e-5f);
	step(world, 240);
	float swing = kl_joint_get_swing_angle(joint);
	vec3s torque = kl_joint_get_constraint_torque(joint);
	vec3s p = kl_body_get_position(bob);
	float expected = G * cosf(0.6f);
	print_message("resting on the cone: swing %.4f rad, couple %.4f N m (m g L cos 0.6 = %.4f), ball at (%.3f, %.3f, %.3f)\n",
				  swing, glms_vec3_norm(torque), expected, p.x, p.y, p.z);
	assert_near(swing, 0.6f, 0.01f);
	assert_near(glms_vec3_norm(torque), expected, 0.02f * expected);
	assert_near(torque.y, -expected, 0.02f * expected); // about −y: it lifts the ball towards +x
	assert_true(fabsf(kl_joint_get_angle(joint)) <= 0.2f + 0.01f);
	assert_near(p.x, cosf(0.6f), 0.02f);
	kl_destroy_world(world);
}

// A rod spun about the joint axis turns freely without a twist limit and stops at the twist
// bounds with one, from either side; the swing stays where it was.
static void test_twist_limits(void** state)
{
	(void)state;
	const float spins[] = {3.0f, -3.0f};
	for (int s = 0; s < 2; ++s)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
		kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
		kl_body_id rod = make_body(world, kl_vec3(0.0f, 0.0f, -0.5f), 2.0f, kl_vec3(0.02f, 0.02f, 0.002f));
		kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, rod, kl_vec3(0.0f, 0.0f, 0.0f),
												 kl_vec3(0.0f, 0.0f, -1.0f));
		jd.enable_limit = true;
		jd.cone_angle = 0.3f;
		jd.lower = -0.4f;
		jd.upper = 0.25f;
		kl_joint_id joint = make_joint(world, &jd);
		// Spinning about −z turns frame b positively about the frames' z (which points down).
		assert_int_equal(kl_body_set_angular_velocity(rod, kl_vec3(0.0f, 0.0f, -spins[s])), KL_OK);
		float low = 0.0f, high = 0.0f, swing = 0.0f;
		for (int i = 0; i < 180; ++i)
		{
			step(world, 1);
			float angle = kl_joint_get_angle(joint);
			low = fminf(low, angle);
			high = fmaxf(high, angle);
			swing = fmaxf(swing, kl_joint_get_swing_angle(joint));
		}
		print_message("twist spun at %+.0f rad/s: angle within [%.4f, %.4f] (limits [-0.4, 0.25]), swing %.2g\n", spins[s],
					  low, high, swing);
		if (spins[s] > 0.0f)
		{
			assert_true(high > 0.24f && high < 0.25f + 0.01f);
		}
		else
		{
			assert_true(low < -0.39f && low > -0.4f - 0.01f);
		}
		assert_true(low > -0.41f && high < 0.26f);
		assert_true(swing < 1.0e-3f);
		kl_destroy_world(world);
	}
}

// Swung far, the twist turns faster than the bisector it turns about (by 1 / cos(swing / 2)): a
// rod whose frames start pointing exactly opposite (swing π) is turned back into a 2.6 rad cone,
// then spun about its own axis into its twist bounds. A twist row on the unit bisector let it
// through by up to 0.023 rad (a helper's measurement at 10 rad/s).
static void test_twist_limits_when_swung(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id rod = make_body(world, kl_vec3(0.0f, 0.0f, -0.5f), 2.0f, kl_vec3(0.02f, 0.02f, 0.002f));
	kl_joint_def jd = kl_default_joint_def(KL_JOINT_SPHERICAL);
	jd.body_a = ground;
	jd.body_b = rod;
	jd.local_frame_b.p = kl_vec3(0.0f, 0.0f, 0.5f);
	jd.local_frame_b.q = glms_quatv(GLM_PIf, kl_vec3(0.0f, 1.0f, 0.0f)); // z down the rod; frame a's z up
	jd.enable_limit = true;
	jd.cone_angle = 2.6f;
	jd.lower = -0.3f;
	jd.upper = 0.3f;
	kl_joint_id joint = make_joint(world, &jd);
	assert_near(kl_joint_get_swing_angle(joint), GLM_PIf, 1.0e-6f);
	step(world, 120);
	float swing = kl_joint_get_swing_angle(joint);
	assert_near(swing, 2.6f, 0.01f);
	float widest = 0.0f;
	for (int turn = 0; turn < 2; ++turn)
	{
		vec3s axis = glms_vec3_normalize(kl_body_get_position(rod)); // the anchor is at the origin
		float spin = turn == 0 ? 10.0f : -10.0f;
		assert_int_equal(kl_body_set_angular_velocity(rod, glms_vec3_scale(axis, spin)), KL_OK);
		for (int i = 0; i < 60; ++i)
		{
			step(world, 1);
			widest = fmaxf(widest, fabsf(kl_joint_get_angle(joint)));
			swing = fmaxf(swing, kl_joint_get_swing_angle(joint));
		}
	}
	print_message("swung to the 2.6 rad cone from pi, spun at 10 rad/s both ways: widest twist %.4f rad (bound "
				  "0.3), widest swing %.4f\n",
				  widest, swing);
	assert_true(widest > 0.29f && widest < 0.3f + 0.003f);
	assert_true(swing < 2.6f + 0.01f);
	kl_destroy_world(world);
}

// Setters change the cone and the twist range at run time (and wake the bodies); bad values and
// joints without the feature are refused, and the joint keeps what it had.
static void test_limit_setters(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id bob;
	kl_joint_id joint = make_cone_pendulum(world, true, 0.6f, -0.2f, 0.2f, &bob);
	step(world, 240);
	assert_near(kl_joint_get_swing_angle(joint), 0.6f, 0.01f);
	assert_int_equal(kl_joint_set_cone_angle(joint, 1.0f), KL_OK);
	step(world, 240);
	assert_near(kl_joint_get_swing_angle(joint), 1.0f, 0.01f);
	assert_near(kl_joint_get_def(joint).cone_angle, 1.0f, 0.0f);

	assert_int_equal(kl_joint_set_cone_angle(joint, 0.0f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_cone_angle(joint, 3.5f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_cone_angle(joint, NAN), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_limits(joint, -4.0f, 0.0f), KL_ERR_INVALID_ARGUMENT);
	assert_near(kl_joint_get_def(joint).cone_angle, 1.0f, 0.0f);
	assert_near(kl_joint_get_def(joint).lower, -0.2f, 0.0f);

	// Off: the ball falls from the cone's edge and swings through the bottom (90° off the axis) to
	// the mirror angle, π − 1.
	assert_int_equal(kl_joint_enable_limit(joint, false), KL_OK);
	float widest = 0.0f;
	for (int i = 0; i < 120; ++i)
	{
		step(world, 1);
		widest = fmaxf(widest, kl_joint_get_swing_angle(joint));
	}
	assert_near(widest, GLM_PIf - 1.0f, 0.02f);

	kl_body_id ground = kl_joint_get_body_a(joint);
	kl_body_id other = make_ball(world, kl_vec3(3.0f, 0.0f, -1.0f), 1.0f, 0.1f);
	kl_joint_def rd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, other, kl_vec3(3.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	kl_joint_id hinge = make_joint(world, &rd);
	assert_int_equal(kl_joint_set_cone_angle(hinge, 1.0f), KL_ERR_UNSUPPORTED);
	assert_near(kl_joint_get_swing_angle(hinge), 0.0f, 0.0f);
	assert_int_equal(kl_last_error_code(), KL_ERR_UNSUPPORTED);

	// Creation refuses a cone outside (0, π] and twist bounds outside [−π, π] when limited.
	kl_joint_def bad = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, other, kl_vec3(3.0f, 0.0f, 0.0f),
											  kl_vec3(0.0f, 0.0f, -1.0f));
	bad.enable_limit = true;
	bad.cone_angle = 0.0f;
	assert_true(KL_IS_NULL(kl_create_joint(world, &bad)));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	bad.cone_angle = 0.5f;
	bad.lower = -3.5f;
	assert_true(KL_IS_NULL(kl_create_joint(world, &bad)));
	bad.lower = 0.0f;
	bad.cone_angle = INFINITY;
	bad.enable_limit = false;
	assert_true(KL_IS_NULL(kl_create_joint(world, &bad)));
	assert_int_equal(kl_body_get_joint_count(other), 1);
	// A cone stored with the limit off is checked when the limit is switched on.
	bad.cone_angle = 5.0f;
	kl_joint_id unlimited = make_joint(world, &bad);
	assert_int_equal(kl_joint_enable_limit(unlimited, true), KL_ERR_INVALID_ARGUMENT);
	assert_false(kl_joint_get_def(unlimited).enable_limit);
	assert_int_equal(kl_joint_set_cone_angle(unlimited, 0.5f), KL_OK);
	assert_int_equal(kl_joint_enable_limit(unlimited, true), KL_OK);
	kl_destroy_world(world);
}

// Without gravity, the motor turns a rod 1 m off the anchor at its target angular velocity (frame
// a's axes) about the anchor, so the rod's centre circles at 1 m; a new target takes over at once.
static void test_spherical_motor_speed(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id rod = make_body(world, kl_vec3(0.0f, 0.0f, -1.0f), 1.0f, kl_vec3(0.01f, 0.01f, 0.002f));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, rod, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 0.0f, 1.0f));
	jd.local_frame_a.q = glms_quatv(0.5f * GLM_PIf, kl_vec3(0.0f, 0.0f, 1.0f)); // frame a's x is world y
	jd.enable_motor = true;
	jd.max_motor_force = 100.0f;
	jd.motor_angular_velocity = kl_vec3(2.0f, 0.0f, 0.0f); // about frame a's x: world y
	kl_joint_id joint = make_joint(world, &jd);
	step(world, 60);
	vec3s w = kl_body_get_angular_velocity(rod);
	float radius = glms_vec3_norm(kl_body_get_position(rod));
	print_message("motor: rod turns (%.4f, %.4f, %.4f) rad/s (target (0, 2, 0)), centre %.4f m from the anchor\n", w.x, w.y,
				  w.z, radius);
	assert_near(w.y, 2.0f, 0.01f);
	assert_near(w.x, 0.0f, 0.01f);
	assert_near(w.z, 0.0f, 0.01f);
	assert_near(radius, 1.0f, 2.0e-3f);
	assert_int_equal(kl_joint_set_motor_angular_velocity(joint, kl_vec3(0.0f, 0.0f, -1.0f)), KL_OK);
	step(world, 30);
	w = kl_body_get_angular_velocity(rod);
	assert_near(w.z, -1.0f, 0.01f);
	assert_near(w.y, 0.0f, 0.01f);

	// Bad input: a non-finite target, a scalar speed or a position servo, the angular target on a
	// hinge; the joint keeps its target.
	assert_int_equal(kl_joint_set_motor_angular_velocity(joint, kl_vec3(NAN, 0.0f, 0.0f)), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_motor_speed(joint, 1.0f), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_joint_set_motor_target(joint, 1.0f), KL_ERR_UNSUPPORTED);
	assert_near(kl_joint_get_def(joint).motor_angular_velocity.z, -1.0f, 0.0f);
	kl_joint_def servo = jd;
	servo.motor_mode = KL_MOTOR_POSITION;
	assert_true(KL_IS_NULL(kl_create_joint(world, &servo)));
	assert_int_equal(kl_last_error_code(), KL_ERR_UNSUPPORTED);
	// Made with the motor off in position mode, it is refused until a target angular velocity
	// switches it to velocity mode.
	servo.enable_motor = false;
	kl_joint_id later = make_joint(world, &servo);
	assert_int_equal(kl_joint_enable_motor(later, true), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_joint_set_motor_angular_velocity(later, kl_vec3(0.0f, 1.0f, 0.0f)), KL_OK);
	assert_int_equal(kl_joint_enable_motor(later, true), KL_OK);
	assert_int_equal(kl_joint_get_def(later).motor_mode, KL_MOTOR_VELOCITY);
	kl_joint_def hinge = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, rod, kl_vec3(0.0f, 0.0f, 0.0f),
												kl_vec3(0.0f, 1.0f, 0.0f));
	kl_joint_id hinge_joint = make_joint(world, &hinge);
	assert_int_equal(kl_joint_set_motor_angular_velocity(hinge_joint, kl_vec3(1.0f, 0.0f, 0.0f)), KL_ERR_UNSUPPORTED);
	kl_destroy_world(world);
}

// A 2 kg rod held out horizontally against gravity (m g L/2 = 9.81 N m about the anchor) by a motor
// asked to keep it still: with 20 N m it holds and reports the torque it gives; with 5 N m it
// gives exactly that while the rod starts to fall (a quarter second in, still near horizontal).
static void test_spherical_motor_torque(void** state)
{
	(void)state;
	const float limits[] = {20.0f, 5.0f};
	for (int i = 0; i < 2; ++i)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
		kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
		kl_body_id rod = make_body(world, kl_vec3(0.5f, 0.0f, 0.0f), 2.0f, kl_vec3(0.002f, 0.17f, 0.17f));
		kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, rod, kl_vec3(0.0f, 0.0f, 0.0f),
												 kl_vec3(1.0f, 0.0f, 0.0f));
		jd.enable_motor = true;
		jd.max_motor_force = limits[i];
		kl_joint_id joint = make_joint(world, &jd);
		step(world, 15);
		float drop = -kl_body_get_position(rod).z;
		float torque = kl_joint_get_motor_force(joint);
		print_message("motor limit %.0f N m: gives %.4f N m, rod centre dropped %.4f m\n", limits[i], torque, drop);
		if (i == 0)
		{
			assert_near(torque, 2.0f * G * 0.5f, 0.01f * G);
			assert_true(drop < 2.0e-3f);
		}
		else
		{
			assert_near(torque, 5.0f, 1.0e-3f);
			assert_true(drop > 0.03f); // (9.81 − 5) / I_anchor(0.67) rad/s², 1/32 s²: 0.11 m
		}
		kl_destroy_world(world);
	}
}

// A spring of 2 Hz without damping swings a rod (1 kg, 1 m off the anchor, 0.01 kg m² about its
// centre) that starts turned 0.3 rad: it oscillates about the anchor at 2 Hz, the inertia about the
// anchor setting the stiffness. Rows about the rod's centre would give it √(1.01 / 0.01) the
// frequency.
static void test_spherical_spring(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id rod = make_body(world, kl_vec3(0.0f, 0.0f, -1.0f), 1.0f, kl_vec3(0.01f, 0.01f, 0.01f));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, rod, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 0.0f, 1.0f));
	jd.enable_spring = true;
	jd.spring_hertz = 2.0f;
	jd.spring_damping_ratio = 0.0f;
	kl_joint_id joint = make_joint(world, &jd);
	const float angle = 0.3f;
	versors q = glms_quatv(angle, kl_vec3(0.0f, 1.0f, 0.0f));
	assert_int_equal(kl_body_set_transform(rod, kl_vec3(-sinf(angle), 0.0f, -cosf(angle)), q), KL_OK);
	double first = -1.0, last = -1.0;
	int crossings = 0;
	float previous = kl_body_get_position(rod).x, widest = 0.0f;
	for (int i = 1; i <= 240; ++i)
	{
		step(world, 1);
		float x = kl_body_get_position(rod).x;
		widest = fmaxf(widest, kl_joint_get_swing_angle(joint));
		if ((previous < 0.0f) != (x < 0.0f))
		{
			double t = (i - 1 + previous / (previous - x)) / 60.0;
			first = crossings == 0 ? t : first;
			last = t;
			crossings += 1;
		}
		previous = x;
	}
	assert_true(crossings >= 5);
	double period = 2.0 * (last - first) / (double)(crossings - 1);
	print_message("spring 2 Hz: period %.4f s (0.5 s), widest swing %.4f rad (0.3), %d crossings\n", period, widest, crossings);
	assert_near(period, 0.5, 0.02 * 0.5);
	assert_true(widest < angle + 0.01f);

	// At 0 Hz the spring is off and its rows carry nothing: no torque stays behind (it kept
	// turning the rod and was reported for ever), with a motor of no torque on or off.
	assert_int_equal(kl_joint_set_max_motor_force(joint, 0.0f), KL_OK);
	assert_int_equal(kl_joint_enable_motor(joint, true), KL_OK);
	assert_int_equal(kl_joint_set_spring(joint, 0.0f, 0.0f), KL_OK);
	assert_int_equal(kl_body_set_angular_velocity(rod, kl_vec3(0.0f, 0.0f, 0.0f)), KL_OK);
	assert_int_equal(kl_body_set_linear_velocity(rod, kl_vec3(0.0f, 0.0f, 0.0f)), KL_OK);
	step(world, 30);
	float spin = glms_vec3_norm(kl_body_get_angular_velocity(rod));
	float torque = glms_vec3_norm(kl_joint_get_constraint_torque(joint));
	print_message("spring at 0 Hz: rod turns %.2g rad/s, joint torque %.2g N m\n", spin, torque);
	assert_true(spin < 1.0e-4f);
	assert_true(torque < 1.0e-4f);
	kl_destroy_world(world);
}

/// Forty chains of five rods on limited spherical joints (200 joints: enough for the solver to
/// split each colour over the workers), pushed around; returns the world's transform hash.
static uint32_t limited_hash(int workers)
{
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), workers);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	for (int chain = 0; chain < 40; ++chain)
	{
		kl_body_id previous = ground;
		float x = (float)chain;
		for (int i = 0; i < 5; ++i)
		{
			kl_body_id rod = make_body(world, kl_vec3(x, 0.0f, -0.5f - (float)i), 1.0f, kl_vec3(0.03f, 0.03f, 0.004f));
			kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, previous, rod, kl_vec3(x, 0.0f, -(float)i),
													 kl_vec3(0.0f, 0.0f, -1.0f));
			jd.enable_limit = true;
			jd.cone_angle = 0.2f + 0.1f * (float)i;
			jd.lower = -0.3f;
			jd.upper = 0.3f;
			make_joint(world, &jd);
			float push = (float)((chain * 7 + i * 3) % 5) - 2.0f;
			assert_int_equal(kl_body_set_linear_velocity(rod, kl_vec3(push, 0.5f * (float)i, 0.0f)), KL_OK);
			assert_int_equal(kl_body_set_angular_velocity(rod, kl_vec3(0.0f, 0.0f, 2.0f - push)), KL_OK);
			previous = rod;
		}
	}
	step(world, 120);
	uint32_t hash = kl_world_hash_transforms(world);
	kl_destroy_world(world);
	return hash;
}

static void test_limits_determinism(void** state)
{
	(void)state;
	uint32_t h1 = limited_hash(1);
	uint32_t h2 = limited_hash(2);
	print_message("limited pendulum hashes: %08x %08x\n", h1, h2);
	assert_int_equal(h1, h2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cone_stops_swing),
		cmocka_unit_test(test_cone_holds_load),
		cmocka_unit_test(test_twist_limits),
		cmocka_unit_test(test_twist_limits_when_swung),
		cmocka_unit_test(test_limit_setters),
		cmocka_unit_test(test_spherical_motor_speed),
		cmocka_unit_test(test_spherical_motor_torque),
		cmocka_unit_test(test_spherical_spring),
		cmocka_unit_test(test_limits_determinism),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
