// Joints in whole worlds: pendulum period against the physical-pendulum formula, long chains that
// must not drift, motors (velocity and position, with force saturation), limits, fixed and
// spherical joints, distance springs, reported joint forces, fast swings of light bodies, target
// joints, bad input, and determinism across worker counts. Bodies have no shapes (no contacts) and
// explicit mass data.
#include <kollide/kollide.h>

#include "kl_joint_test.h"

#include <string.h>

/// Mean period from the sign changes of a sampled signal (linear interpolation of the crossings).
typedef struct crossing_counter
{
	double last_value;
	double last_time;
	double first_crossing;
	double last_crossing;
	int crossings;
	bool started;
} crossing_counter;

static void count_crossing(crossing_counter* c, double t, double value)
{
	if (c->started && ((c->last_value < 0.0) != (value < 0.0)))
	{
		double tc = c->last_time + (t - c->last_time) * c->last_value / (c->last_value - value);
		if (c->crossings == 0)
		{
			c->first_crossing = tc;
		}
		c->last_crossing = tc;
		c->crossings += 1;
	}
	c->last_value = value;
	c->last_time = t;
	c->started = true;
}

static double crossing_period(const crossing_counter* c)
{
	assert_true(c->crossings >= 3);
	return 2.0 * (c->last_crossing - c->first_crossing) / (double)(c->crossings - 1);
}

// A ball on a massless rod swinging by a small angle: T = 2π √((I_c + m L²) / (m g L)).
static void test_pendulum_period(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	const float L = 1.0f, m = 2.0f, r = 0.05f, theta0 = 0.05f;
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id bob = make_ball(world, kl_vec3(L * sinf(theta0), 0.0f, -L * cosf(theta0)), m, r);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, bob, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	make_joint(world, &jd);
	double inertia = 0.4 * m * r * r + m * L * L;
	double expected = 2.0 * GLM_PI * sqrt(inertia / (m * G * L));
	crossing_counter counter = {0};
	int steps = (int)(8.0 * expected / DT);
	for (int i = 1; i <= steps; ++i)
	{
		step(world, 1);
		count_crossing(&counter, i * (double)DT, kl_body_get_position(bob).x);
	}
	double period = crossing_period(&counter);
	print_message("pendulum period %.5f s, expected %.5f s (%.3f %%)\n", period, expected,
				  100.0 * (period - expected) / expected);
	assert_near(period, expected, 0.01 * expected);
	kl_destroy_world(world);
}

/// A chain of n rods of length l and 1 kg hanging from `ground` at `origin`, along the direction
/// (cos a, 0, −sin a) (a = 0: horizontal, π/2: straight down), pivots about world y.
static void make_chain(kl_world_id world, kl_body_id ground, vec3s origin, int n, float l, float a, kl_joint_id* joints)
{
	kl_body_id prev = ground;
	float i_rod = l * l / 12.0f;
	vec3s dir = kl_vec3(cosf(a), 0.0f, -sinf(a));
	for (int i = 0; i < n; ++i)
	{
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = glms_vec3_add(origin, glms_vec3_scale(dir, (i + 0.5f) * l));
		bd.rotation = glms_quatv(a, kl_vec3(0.0f, 1.0f, 0.0f));
		bd.enable_gyroscopic = false;
		kl_body_id link = kl_create_body(world, &bd);
		kl_mass_data md = {0};
		md.mass = 1.0f;
		md.inertia = glms_mat3_zero();
		md.inertia.m00 = 0.05f * i_rod; // a slender rod
		md.inertia.m11 = i_rod;
		md.inertia.m22 = i_rod;
		assert_int_equal(kl_body_set_mass_data(link, md), KL_OK);
		vec3s pivot = glms_vec3_add(origin, glms_vec3_scale(dir, i * l));
		kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, prev, link, pivot, kl_vec3(0.0f, 1.0f, 0.0f));
		joints[i] = make_joint(world, &jd);
		prev = link;
	}
}

/// Largest angle between the hinge axes of frames a and b (rad).
static float hinge_misalignment(kl_joint_id joint)
{
	kl_joint_def def = kl_joint_get_def(joint);
	versors qa = glms_quat_mul(kl_body_get_rotation(def.body_a), def.local_frame_a.q);
	versors qb = glms_quat_mul(kl_body_get_rotation(def.body_b), def.local_frame_b.q);
	vec3s za = kl_rotate(qa, kl_vec3(0.0f, 0.0f, 1.0f));
	vec3s zb = kl_rotate(qb, kl_vec3(0.0f, 0.0f, 1.0f));
	return asinf(fminf(glms_vec3_norm(glms_vec3_cross(za, zb)), 1.0f));
}

typedef struct chain_run
{
	float worst;	   ///< largest anchor separation over the run (m)
	float worst_first; ///< over the first 10 s
	float worst_last;  ///< over the last 10 s
	float worst_misalignment;
} chain_run;

/// Steps a 20-link chain released at angle a (below horizontal) for `seconds`.
static chain_run swing_chain(float joint_hertz, int substeps, float a, float seconds)
{
	enum
	{
		N = 20
	};
	kl_world_def def = kl_default_world_def();
	def.enable_sleep = false;
	def.joint_hertz = joint_hertz;
	kl_world_id world = kl_create_world(&def);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_joint_id joints[N];
	make_chain(world, ground, kl_vec3(0.0f, 0.0f, 20.0f), N, 0.25f, a, joints);
	chain_run run = {0};
	int steps = (int)(seconds / DT);
	int window = (int)(10.0f / DT);
	for (int s = 0; s < steps; ++s)
	{
		assert_int_equal(kl_world_step(world, DT, substeps), KL_OK);
		for (int j = 0; j < N; ++j)
		{
			float e = anchor_separation(joints[j]);
			run.worst = fmaxf(run.worst, e);
			run.worst_first = s < window ? fmaxf(run.worst_first, e) : run.worst_first;
			run.worst_last = s >= steps - window ? fmaxf(run.worst_last, e) : run.worst_last;
			run.worst_misalignment = fmaxf(run.worst_misalignment, hinge_misalignment(joints[j]));
		}
	}
	kl_destroy_world(world);
	return run;
}

// A hanging chain at rest: each joint stretches exactly as the soft constraint predicts,
// load · (1/m_a + 1/m_b) / (2π f)² — elastic compliance of the joint softness, not drift.
static void test_chain_compliance(void** state)
{
	(void)state;
	enum
	{
		N = 20
	};
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_joint_id joints[N];
	make_chain(world, ground, kl_vec3(0.0f, 0.0f, 20.0f), N, 0.25f, 0.5f * GLM_PIf, joints);
	step(world, 240);
	double omega = 2.0 * GLM_PI * kl_world_get_def(world).joint_hertz;
	for (int j = 0; j < N; ++j)
	{
		double load = (N - j) * 1.0 * G;
		double k = j == 0 ? 1.0 : 2.0; // 1/m_a + 1/m_b along the chain (static ground: 1/m_b)
		double expected = load * k / (omega * omega);
		if (j == 1)
		{
			print_message("hanging chain: joint 1 stretch %.4g m, predicted %.4g m\n", anchor_separation(joints[j]),
						  expected);
		}
		assert_near(anchor_separation(joints[j]), expected, 0.02 * expected + 2.0e-6);
	}
	assert_true(kl_body_get_linear_velocity(kl_joint_get_body_b(joints[N - 1])).z > -1.0e-4f);
	kl_destroy_world(world);
}

// A 20-link chain swinging for 60 s at 60 Hz, 4 sub-steps: the stretch stays within the soft
// joints' compliance under the swing's loads and does not grow over time; the hinge axes stay
// aligned. With stiffer joints (120 Hz, which needs 8 sub-steps to stay stable) it stays below
// 1 mm over 60 s (the acceptance figure). A violent release from horizontal stays bounded.
static void test_chain_drift(void** state)
{
	(void)state;
	double omega = 2.0 * GLM_PI * 60.0;
	double static_stretch = 19.0 * G * 2.0 / (omega * omega); // joint 1 hanging at rest
	chain_run run = swing_chain(60.0f, SUBSTEPS, GLM_PIf / 3.0f, 60.0f);
	print_message("chain 60 Hz: worst stretch %.3g m (first 10 s %.3g, last 10 s %.3g; at rest %.3g), "
				  "hinge misalignment %.3g rad\n",
				  run.worst, run.worst_first, run.worst_last, static_stretch, run.worst_misalignment);
	assert_true(run.worst < 1.5 * static_stretch);
	assert_true(run.worst_last <= run.worst_first + 1.0e-4f); // no drift
	assert_true(run.worst_misalignment < 1.0e-4f);

	chain_run stiff = swing_chain(120.0f, 2 * SUBSTEPS, GLM_PIf / 3.0f, 60.0f);
	print_message("chain 120 Hz, 8 sub-steps: worst stretch %.3g m (last 10 s %.3g)\n", stiff.worst, stiff.worst_last);
	assert_true(stiff.worst < 1.0e-3f);
	assert_true(stiff.worst_misalignment < 1.0e-4f);

	chain_run wild = swing_chain(60.0f, SUBSTEPS, 0.0f, 15.0f);
	print_message("chain from horizontal: worst stretch %.3g m (last 10 s %.3g)\n", wild.worst, wild.worst_last);
	assert_true(wild.worst < 0.04f);
	assert_true(wild.worst_last < 0.02f);
	assert_true(wild.worst_misalignment < 1.0e-3f);
}

/// An arm along +x from a pivot (revolute about world y): mass m with its centre at r from the pivot.
/// Gravity turns it positively about y (x towards −z).
static kl_joint_id make_arm(kl_world_id world, kl_body_id ground, float m, float r, kl_body_id* arm_out)
{
	vec3s pivot = kl_vec3(0.0f, 0.0f, 5.0f);
	kl_body_id arm = make_body(world, glms_vec3_add(pivot, kl_vec3(r, 0.0f, 0.0f)), m, kl_vec3(0.01f, 0.1f, 0.1f));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, arm, pivot, kl_vec3(0.0f, 1.0f, 0.0f));
	jd.enable_motor = true;
	jd.motor_mode = KL_MOTOR_POSITION;
	jd.motor_target = 0.0f;
	jd.max_motor_force = 50.0f;
	*arm_out = arm;
	return make_joint(world, &jd);
}

// A servo holds its target against gravity; with too little force it gives way at exactly its limit.
static void test_revolute_position_motor(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	const float m = 2.0f, r = 0.5f;
	kl_body_id arm;
	kl_joint_id joint = make_arm(world, ground, m, r, &arm);
	assert_int_equal(kl_joint_set_motor_target(joint, -0.4f), KL_OK);
	step(world, 180);
	float angle = kl_joint_get_angle(joint);
	float load = m * G * r * cosf(angle); // gravity torque about the pivot
	float force = kl_joint_get_motor_force(joint);
	print_message("servo: angle %.5f rad (target -0.4), motor torque %.4f N m, load %.4f N m\n", angle, force, load);
	assert_near(angle, -0.4f, 2.0e-3f);
	assert_near(kl_joint_get_speed(joint), 0.0f, 1.0e-3f);
	assert_near(fabsf(force), load, 0.01f * load);

	// A load above the force limit: the arm sinks and the motor pushes with exactly its maximum.
	// Damping lets the arm settle; it scales gravity's per-sub-step velocity change by 1/(1 + h c).
	const float damping = 5.0f;
	float gravity_scale = 1.0f / (1.0f + damping * DT / SUBSTEPS);
	assert_int_equal(kl_body_set_linear_damping(arm, damping), KL_OK);
	assert_int_equal(kl_joint_set_max_motor_force(joint, 4.0f), KL_OK);
	float saturated = 0.0f;
	for (int i = 0; i < 30; ++i)
	{
		step(world, 1);
		saturated = fmaxf(saturated, fabsf(fabsf(kl_joint_get_motor_force(joint)) - 4.0f));
	}
	assert_true(kl_joint_get_angle(joint) > -0.3f); // gave way
	assert_true(saturated < 1.0e-3f);
	step(world, 240);
	// It comes to rest where gravity's torque equals the motor's: m g r cos(angle) = 4.
	angle = kl_joint_get_angle(joint);
	print_message("saturated servo rests at %.4f rad, motor %.4f N m\n", angle, kl_joint_get_motor_force(joint));
	assert_near(fabsf(kl_joint_get_motor_force(joint)), 4.0f, 1.0e-3f);
	assert_near(gravity_scale * m * G * r * cosf(angle), 4.0f, 0.02f);

	// Enough force again: back to the target.
	assert_int_equal(kl_joint_set_max_motor_force(joint, 50.0f), KL_OK);
	assert_int_equal(kl_joint_set_motor_target(joint, 0.5f), KL_OK);
	step(world, 180);
	assert_near(kl_joint_get_angle(joint), 0.5f, 2.0e-3f);
	kl_destroy_world(world);
}

// A velocity motor spins a wheel up to its speed with the force limit's acceleration.
static void test_revolute_velocity_motor(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	const float inertia = 0.5f;
	kl_body_id wheel = make_body(world, kl_vec3(0.0f, 0.0f, 1.0f), 3.0f, kl_vec3(0.3f, inertia, 0.3f));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, wheel, kl_vec3(0.0f, 0.0f, 1.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	jd.enable_motor = true;
	jd.motor_speed = 4.0f;
	jd.max_motor_force = 2.0f; // 4 rad/s/s: 1 s to speed
	kl_joint_id joint = make_joint(world, &jd);
	step(world, 30);
	assert_near(kl_joint_get_speed(joint), 2.0f, 0.05f); // 0.5 s at 4 rad/s²
	assert_near(kl_joint_get_motor_force(joint), 2.0f, 1.0e-4f);
	step(world, 60);
	assert_near(kl_joint_get_speed(joint), 4.0f, 1.0e-3f);
	assert_near(kl_body_get_angular_velocity(wheel).y, 4.0f, 1.0e-3f);
	assert_near(anchor_separation(joint), 0.0f, 1.0e-4f);
	// Mode switch through the setter: drive back the other way.
	assert_int_equal(kl_joint_set_motor_speed(joint, -1.0f), KL_OK);
	step(world, 120);
	assert_near(kl_joint_get_speed(joint), -1.0f, 1.0e-3f);
	kl_destroy_world(world);
}

// A revolute spring swings an offset arm (no gravity) at the spring's frequency: the spring acts
// on the inertia about the hinge, not about the arm's centre.
static void test_revolute_spring(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	const float hertz = 1.5f;
	kl_body_id arm;
	kl_joint_id joint = make_arm(world, ground, 2.0f, 0.5f, &arm);
	assert_int_equal(kl_joint_enable_motor(joint, false), KL_OK);
	assert_int_equal(kl_joint_set_spring(joint, hertz, 0.0f), KL_OK);
	assert_int_equal(kl_joint_enable_spring(joint, true), KL_OK);
	// Start turned by 0.3 rad about the hinge (world y through the pivot at z = 5).
	versors q = glms_quatv(0.3f, kl_vec3(0.0f, 1.0f, 0.0f));
	vec3s pivot = kl_vec3(0.0f, 0.0f, 5.0f);
	assert_int_equal(kl_body_set_transform(arm, glms_vec3_add(pivot, kl_rotate(q, kl_vec3(0.5f, 0.0f, 0.0f))), q),
					 KL_OK);
	assert_near(kl_joint_get_angle(joint), 0.3f, 1.0e-5f);
	crossing_counter counter = {0};
	for (int i = 1; i <= 240; ++i)
	{
		step(world, 1);
		count_crossing(&counter, i * (double)DT, kl_joint_get_angle(joint));
	}
	double frequency = 1.0 / crossing_period(&counter);
	print_message("revolute spring: %.4f Hz (spring %.1f Hz)\n", frequency, hertz);
	assert_near(frequency, hertz, 0.03 * hertz);
	kl_destroy_world(world);
}

// Revolute limits stop a swinging arm.
static void test_revolute_limits(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id arm;
	kl_joint_id joint = make_arm(world, ground, 1.0f, 0.5f, &arm);
	assert_int_equal(kl_joint_enable_motor(joint, false), KL_OK);
	assert_int_equal(kl_joint_set_limits(joint, -0.2f, 0.6f), KL_OK);
	assert_int_equal(kl_joint_enable_limit(joint, true), KL_OK);
	float worst = 0.0f;
	for (int i = 0; i < 180; ++i)
	{
		step(world, 1);
		worst = fmaxf(worst, kl_joint_get_angle(joint));
	}
	print_message("revolute limit 0.6: largest angle %.5f, rest %.5f\n", worst, kl_joint_get_angle(joint));
	assert_true(worst < 0.6f + 0.01f);
	assert_near(kl_joint_get_angle(joint), 0.6f, 2.0e-3f);
	kl_destroy_world(world);
}

// A slider on a tilted axis: gravity pulls it to the lower limit, a motor to the upper one, and
// the body neither leaves the axis nor turns.
static void test_prismatic_limits(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	vec3s anchor = kl_vec3(1.0f, 2.0f, 3.0f);
	vec3s axis = glms_vec3_normalize(kl_vec3(1.0f, 0.0f, 1.0f));
	kl_body_id slider = make_body(world, anchor, 2.0f, kl_vec3(0.1f, 0.2f, 0.3f));
	assert_int_equal(kl_body_set_angular_velocity(slider, kl_vec3(1.0f, -2.0f, 0.5f)), KL_OK);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_PRISMATIC, ground, slider, anchor, axis);
	jd.enable_limit = true;
	jd.lower = -0.5f;
	jd.upper = 0.25f;
	kl_joint_id joint = make_joint(world, &jd);
	float lowest = 0.0f;
	for (int i = 0; i < 120; ++i)
	{
		step(world, 1);
		lowest = fminf(lowest, kl_joint_get_translation(joint));
	}
	print_message("prismatic: lowest %.5f (limit -0.5), rest %.5f\n", lowest, kl_joint_get_translation(joint));
	assert_true(lowest > -0.5f - 0.005f);
	assert_near(kl_joint_get_translation(joint), -0.5f, 1.0e-3f);
	vec3s p = kl_body_get_position(slider);
	vec3s along = glms_vec3_sub(p, anchor);
	vec3s off_axis = glms_vec3_sub(along, glms_vec3_scale(axis, glms_vec3_dot(along, axis)));
	assert_true(glms_vec3_norm(off_axis) < 1.0e-3f);
	versors q = kl_body_get_rotation(slider);
	assert_true(fabsf(q.w) > 1.0f - 1.0e-5f);
	assert_true(glms_vec3_norm(kl_body_get_angular_velocity(slider)) < 1.0e-3f);

	// A motor drives it up to the upper limit, which holds against the motor.
	assert_int_equal(kl_joint_set_motor_speed(joint, 1.0f), KL_OK);
	assert_int_equal(kl_joint_set_max_motor_force(joint, 100.0f), KL_OK);
	assert_int_equal(kl_joint_enable_motor(joint, true), KL_OK);
	float highest = -1.0f;
	for (int i = 0; i < 120; ++i)
	{
		step(world, 1);
		highest = fmaxf(highest, kl_joint_get_translation(joint));
	}
	assert_true(highest < 0.25f + 0.005f);
	assert_near(kl_joint_get_translation(joint), 0.25f, 1.0e-3f);
	assert_near(kl_joint_get_motor_force(joint), 100.0f, 1.0e-3f);

	// Position mode: the slider goes to the middle and stays.
	assert_int_equal(kl_joint_set_motor_target(joint, -0.1f), KL_OK);
	step(world, 120);
	assert_near(kl_joint_get_translation(joint), -0.1f, 1.0e-3f);
	kl_destroy_world(world);
}

/// Relative pose of b in a's frame.
static kl_transform relative_pose(kl_body_id a, kl_body_id b)
{
	kl_transform ta = kl_body_get_transform(a);
	kl_transform tb = kl_body_get_transform(b);
	versors ia = glms_quat_conjugate(ta.q);
	kl_transform r = {kl_inv_transform_point(ta, tb.p), glms_quat_mul(ia, tb.q)};
	return r;
}

// Two tumbling, falling bodies welded together keep their relative pose; a cantilever welded to
// the ground barely sags.
static void test_fixed_joint(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id a = make_body(world, kl_vec3(0.0f, 0.0f, 10.0f), 1.0f, kl_vec3(0.1f, 0.1f, 0.1f));
	kl_body_id b = make_body(world, kl_vec3(0.6f, 0.2f, 10.3f), 2.0f, kl_vec3(0.2f, 0.1f, 0.3f));
	kl_joint_def jd =
		kl_joint_def_from_world(KL_JOINT_FIXED, a, b, kl_vec3(0.3f, 0.1f, 10.1f), kl_vec3(0.0f, 0.0f, 1.0f));
	kl_joint_id weld = make_joint(world, &jd);
	kl_transform before = relative_pose(a, b);
	assert_int_equal(kl_body_set_angular_velocity(a, kl_vec3(3.0f, 1.0f, -2.0f)), KL_OK);
	assert_int_equal(kl_body_set_linear_velocity(b, kl_vec3(0.0f, 1.0f, 0.0f)), KL_OK);
	float worst_p = 0.0f, worst_q = 0.0f;
	for (int i = 0; i < 120; ++i)
	{
		step(world, 1);
		kl_transform now = relative_pose(a, b);
		worst_p = fmaxf(worst_p, glms_vec3_distance(now.p, before.p));
		versors d = glms_quat_mul(glms_quat_conjugate(before.q), now.q);
		worst_q = fmaxf(worst_q, 2.0f * asinf(fminf(sqrtf(d.x * d.x + d.y * d.y + d.z * d.z), 1.0f)));
	}
	print_message("weld: worst relative drift %.3g m, %.3g rad\n", worst_p, worst_q);
	assert_true(worst_p < 1.0e-3f);
	assert_true(worst_q < 1.0e-3f);
	assert_true(anchor_separation(weld) < 1.0e-3f);

	// Cantilever: a 1 kg body 0.5 m out from a weld on a static body.
	kl_body_id ground = make_static(world, kl_vec3(5.0f, 0.0f, 0.0f));
	kl_body_id beam = make_body(world, kl_vec3(5.5f, 0.0f, 0.0f), 1.0f, kl_vec3(0.01f, 0.083f, 0.083f)); // a 1 m rod
	kl_joint_def cd =
		kl_joint_def_from_world(KL_JOINT_FIXED, ground, beam, kl_vec3(5.0f, 0.0f, 0.0f), kl_vec3(1.0f, 0.0f, 0.0f));
	kl_joint_id cantilever = make_joint(world, &cd);
	step(world, 120);
	vec3s p = kl_body_get_position(beam);
	print_message("cantilever sag %.3g m\n", -p.z);
	assert_true(fabsf(p.z) < 1.0e-3f);
	// It carries the weight and the moment: force m g up, torque about y of m g r (on the beam).
	vec3s f = kl_joint_get_constraint_force(cantilever);
	vec3s t = kl_joint_get_constraint_torque(cantilever);
	assert_near(f.z, G, 0.01f * G);
	assert_near(f.x, 0.0f, 0.01f);
	assert_near(fabsf(t.y), 0.5f * G, 0.01f * G);
	kl_destroy_world(world);
}

// A spinning body on a ball joint off its centre keeps its anchor on the pivot.
static void test_spherical_joint(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id body = make_body(world, kl_vec3(0.4f, 0.3f, 4.0f), 1.5f, kl_vec3(0.25f, 0.3f, 0.1f));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, body, kl_vec3(0.0f, 0.0f, 5.0f),
											 kl_vec3(0.0f, 0.0f, 1.0f));
	kl_joint_id joint = make_joint(world, &jd);
	// Spinning about the pivot (the anchor starts at rest, consistent with the joint).
	vec3s w = kl_vec3(0.0f, 1.5f, 3.0f);
	assert_int_equal(kl_body_set_angular_velocity(body, w), KL_OK);
	vec3s arm = glms_vec3_sub(kl_body_get_position(body), kl_vec3(0.0f, 0.0f, 5.0f));
	assert_int_equal(kl_body_set_linear_velocity(body, glms_vec3_cross(w, arm)), KL_OK);
	float worst = 0.0f;
	for (int i = 0; i < 600; ++i)
	{
		step(world, 1);
		worst = fmaxf(worst, anchor_separation(joint));
	}
	float radius = glms_vec3_distance(kl_body_get_position(body), kl_vec3(0.0f, 0.0f, 5.0f));
	print_message("ball joint: worst anchor separation %.3g m, radius %.5f\n", worst, radius);
	assert_true(worst < 1.0e-3f);
	assert_near(radius, sqrtf(0.16f + 0.09f + 1.0f), 1.0e-3f);
	kl_destroy_world(world);
}

// A mass on an undamped distance spring oscillates at the spring's frequency; a rigid distance
// joint keeps its length; limits stop a free rope.
static void test_distance_joint(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	const float hertz = 2.0f, m = 1.5f, L = 1.0f;
	kl_body_id bob = make_ball(world, kl_vec3(0.0f, 0.0f, -L), m, 0.1f);
	kl_joint_def jd = kl_default_joint_def(KL_JOINT_DISTANCE);
	jd.body_a = ground;
	jd.body_b = bob;
	jd.length = L;
	jd.enable_spring = true;
	jd.spring_hertz = hertz;
	jd.spring_damping_ratio = 0.0f;
	kl_joint_id spring = make_joint(world, &jd);
	// Equilibrium: stretched by m g / k with k = m ω².
	double omega = 2.0 * GLM_PI * hertz;
	double rest_z = -L - G / (omega * omega);
	crossing_counter counter = {0};
	for (int i = 1; i <= 180; ++i)
	{
		step(world, 1);
		count_crossing(&counter, i * (double)DT, kl_body_get_position(bob).z - rest_z);
	}
	double frequency = 1.0 / crossing_period(&counter);
	print_message("distance spring: %.4f Hz (spring %.1f Hz)\n", frequency, hertz);
	assert_near(frequency, hertz, 0.05 * hertz);
	assert_near(kl_joint_get_translation(spring), -kl_body_get_position(bob).z, 1.0e-4f);

	// Rigid: a 1.2 m rod, swinging.
	kl_body_id b2 = make_ball(world, kl_vec3(3.0f, 0.0f, 0.0f), 1.0f, 0.1f);
	kl_joint_def rd = kl_default_joint_def(KL_JOINT_DISTANCE);
	rd.body_a = ground;
	rd.body_b = b2;
	rd.local_frame_a.p = kl_vec3(1.8f, 0.0f, 0.0f);
	rd.length = 1.2f;
	kl_joint_id rod = make_joint(world, &rd);
	float worst = 0.0f;
	for (int i = 0; i < 120; ++i)
	{
		step(world, 1);
		worst = fmaxf(worst, fabsf(kl_joint_get_translation(rod) - 1.2f));
	}
	assert_true(worst < 1.0e-3f);

	// Rope: no spring force (0 Hz), limited to [0.5, 1.5] m; the ball falls to 1.5 m and hangs.
	kl_body_id b3 = make_ball(world, kl_vec3(-3.0f, 0.0f, -0.8f), 1.0f, 0.1f);
	kl_joint_def pd = kl_default_joint_def(KL_JOINT_DISTANCE);
	pd.body_a = ground;
	pd.body_b = b3;
	pd.local_frame_a.p = kl_vec3(-3.0f, 0.0f, 0.0f);
	pd.enable_spring = true;
	pd.enable_limit = true;
	pd.lower = 0.5f;
	pd.upper = 1.5f;
	kl_joint_id rope = make_joint(world, &pd);
	float longest = 0.0f;
	for (int i = 0; i < 120; ++i)
	{
		step(world, 1);
		longest = fmaxf(longest, kl_joint_get_translation(rope));
	}
	assert_true(longest < 1.5f + 0.01f);
	assert_near(kl_joint_get_translation(rope), 1.5f, 1.0e-3f);
	assert_near(kl_joint_get_constraint_force(rope).z, G, 0.01f * G);

	// A winch: the motor reels the rope in at 0.5 m/s, then holds the ball at the lower limit.
	assert_int_equal(kl_joint_set_max_motor_force(rope, 50.0f), KL_OK);
	assert_int_equal(kl_joint_set_motor_speed(rope, -0.5f), KL_OK);
	assert_int_equal(kl_joint_enable_motor(rope, true), KL_OK);
	step(world, 30);
	assert_near(kl_joint_get_speed(rope), -0.5f, 1.0e-3f);
	assert_near(kl_joint_get_motor_force(rope), -G, 0.01f * G); // pulling: negative along the line
	step(world, 150);
	assert_near(kl_joint_get_translation(rope), 0.5f, 1.0e-3f);
	kl_destroy_world(world);
}

// A pendulum hanging at rest: the joint holds the weight, m g upwards on the bob.
static void test_joint_force(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	const float m = 3.0f;
	kl_body_id bob = make_ball(world, kl_vec3(0.0f, 0.0f, -1.0f), m, 0.1f);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, bob, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	kl_joint_id joint = make_joint(world, &jd);
	kl_body_id bob2 = make_ball(world, kl_vec3(2.0f, 0.0f, -1.0f), m, 0.1f);
	kl_joint_def sd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, bob2, kl_vec3(2.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 0.0f, 1.0f));
	kl_joint_id ball = make_joint(world, &sd);
	step(world, 60);
	vec3s f = kl_joint_get_constraint_force(joint);
	vec3s f2 = kl_joint_get_constraint_force(ball);
	print_message("hanging: force (%.4f, %.4f, %.4f), m g = %.4f\n", f.x, f.y, f.z, m * G);
	assert_near(f.z, m * G, 0.01 * m * G);
	assert_near(f.x, 0.0f, 1.0e-3f);
	assert_near(f.y, 0.0f, 1.0e-3f);
	assert_near(f2.z, m * G, 0.01 * m * G);
	assert_true(glms_vec3_norm(kl_joint_get_constraint_torque(joint)) < 1.0e-3f);
	kl_destroy_world(world);
}

/// A 0.1 m, 4 kg ball on an arm of 1 m from a static anchor at the origin, thrown at `speed` from
/// the bottom of its circle: `type` revolute (hinge about y), spherical, or distance (rod of 0.9 m
/// to the top of the ball, so the line's anchors are off the centre of mass).
static kl_joint_id make_fast_pendulum(kl_world_id world, kl_joint_type type, float speed, kl_body_id* bob)
{
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	*bob = make_ball(world, kl_vec3(0.0f, 0.0f, -1.0f), 4.0f, 0.1f);
	assert_int_equal(kl_body_set_linear_velocity(*bob, kl_vec3(speed, 0.0f, 0.0f)), KL_OK);
	kl_joint_def jd = kl_joint_def_from_world(type, ground, *bob, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(0.0f, 1.0f, 0.0f));
	if (type == KL_JOINT_DISTANCE)
	{
		jd.local_frame_b.p = kl_vec3(0.0f, 0.0f, 0.1f);
		jd.length = 0.9f;
	}
	return make_joint(world, &jd);
}

/// Kinetic plus potential energy of the 4 kg, 0.1 m ball, zero at rest at the bottom (z = −1).
static double fast_pendulum_energy(kl_body_id bob)
{
	const double m = 4.0, i = 0.4 * 4.0 * 0.1 * 0.1;
	vec3s v = kl_body_get_linear_velocity(bob);
	vec3s w = kl_body_get_angular_velocity(bob);
	double z = kl_body_get_position(bob).z;
	return 0.5 * m * glms_vec3_dot(v, v) + 0.5 * i * glms_vec3_dot(w, w) + m * G * (z + 1.0);
}

// A small ball on a long arm swung fast. Across the arm the ball row's effective mass is the
// ball's inertia at 1 m, 0.016 kg, against 4 kg along it, and each sub-step turns the arm by up to
// 0.1 rad. With the row's mass taken at the start of the sub-step, the relax pass (run after the
// positions moved) turned the centripetal impulse into a torque on the ball: the pendulum gained
// energy at 10 m/s (+56 % in 10 s) and reached NaN at 25 m/s. The soft step loses some energy at
// these rates (its relax pass drops the push-out velocity) but must never gain any.
static void test_fast_small_pendulum(void** state)
{
	(void)state;
	const kl_joint_type types[] = {KL_JOINT_REVOLUTE, KL_JOINT_SPHERICAL, KL_JOINT_DISTANCE};
	const char* names[] = {"revolute", "spherical", "distance"};
	const float speeds[] = {10.0f, 25.0f};
	for (int t = 0; t < 3; ++t)
	{
		for (int s = 0; s < 2; ++s)
		{
			kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
			kl_body_id bob;
			kl_joint_id joint = make_fast_pendulum(world, types[t], speeds[s], &bob);
			double start = fast_pendulum_energy(bob);
			double highest = start;
			float stretch = 0.0f, off_plane = 0.0f;
			for (int i = 0; i < 600; ++i)
			{
				step(world, 1);
				double e = fast_pendulum_energy(bob);
				assert_true(isfinite(e));
				highest = fmax(highest, e);
				float gap = types[t] == KL_JOINT_DISTANCE ? fabsf(kl_joint_get_translation(joint) - 0.9f)
														  : anchor_separation(joint);
				stretch = fmaxf(stretch, gap);
				off_plane = fmaxf(off_plane, fabsf(kl_body_get_position(bob).y));
			}
			double end = fast_pendulum_energy(bob);
			print_message("%s at %.0f m/s: stretch %.4f m, off plane %.2g m, energy highest %.4f, after 10 s %.3f of the start\n",
						  names[t], speeds[s], stretch, off_plane, highest / start, end / start);
			assert_true(stretch < 0.03f * (speeds[s] / 25.0f) * (speeds[s] / 25.0f) + 0.001f); // 19 mm at 25 m/s
			assert_true(off_plane < 1.0e-3f);
			assert_true(highest < 1.01 * start);
			if (speeds[s] <= 10.0f)
			{
				assert_true(end > 0.9 * start);
			}
			kl_destroy_world(world);
		}
	}
}

// A light ball 1 m below a hinge (about y), a weld or a slider (along z), with gravity along y: the
// joint's angular rows carry the moment m g L that keeps the ball in its plane. Solved alone, they
// met the ball as its inertia about its own centre and one pass per sub-step let it sag: 1.45 mm
// for a 0.5 m ball, 35 mm for 0.1 m, and a 0.02 m ball tore loose. Anchored at the joint, every
// size sags by the ball row's softness alone, and the joint reports the couple m g L.
static void test_light_body_held_against_moment(void** state)
{
	(void)state;
	const kl_joint_type types[] = {KL_JOINT_REVOLUTE, KL_JOINT_FIXED, KL_JOINT_PRISMATIC};
	const char* names[] = {"revolute", "fixed", "prismatic"};
	const float radii[] = {0.5f, 0.1f, 0.02f};
	const float m = 4.0f;
	for (int t = 0; t < 3; ++t)
	{
		for (int r = 0; r < 3; ++r)
		{
			kl_world_id world = make_world(kl_vec3(0.0f, -G, 0.0f), 1);
			kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
			kl_body_id ball = make_ball(world, kl_vec3(0.0f, 0.0f, -1.0f), m, radii[r]);
			vec3s axis = types[t] == KL_JOINT_PRISMATIC ? kl_vec3(0.0f, 0.0f, 1.0f) : kl_vec3(0.0f, 1.0f, 0.0f);
			kl_joint_def jd = kl_joint_def_from_world(types[t], ground, ball, kl_vec3(0.0f, 0.0f, 0.0f), axis);
			jd.enable_limit = types[t] == KL_JOINT_PRISMATIC; // the slide holds the ball up
			jd.lower = -0.1f;
			jd.upper = 0.1f;
			kl_joint_id joint = make_joint(world, &jd);
			float sag = 0.0f;
			for (int i = 0; i < 300; ++i)
			{
				step(world, 1);
				vec3s p = kl_body_get_position(ball);
				assert_true(isfinite(p.y));
				sag = fmaxf(sag, fabsf(p.y));
			}
			vec3s torque = kl_joint_get_constraint_torque(joint);
			vec3s force = kl_joint_get_constraint_force(joint);
			print_message("%s, ball of %.2f m: sag %.2g m, couple (%.3f, %.3f, %.3f) N m, force y %.3f N (m g L = m g = %.3f)\n",
						  names[t], radii[r], sag, torque.x, torque.y, torque.z, force.y, m * G);
			assert_true(sag < 2.0e-4f);
			assert_near(force.y, m * G, 0.01f * m * G);
			assert_near(torque.x, m * G, 0.01f * m * G); // about the ball's centre: r × f + t = 0
			kl_destroy_world(world);
		}
	}
}

// A hinge with limits [−0.2, 2.8] rad (a forbidden arc of 0.48 rad across ±π) put at −3.0 rad: the
// same as 3.28, 0.48 past its upper bound and 2.8 short of its lower one around the circle. It must
// come back past the upper bound through ±π; measured as −3.0 − (−0.2), the lower bound pushed it
// the long way round to −0.2. The same holds for a spherical joint's twist.
static void test_limit_past_half_turn(void** state)
{
	(void)state;
	const kl_joint_type types[] = {KL_JOINT_REVOLUTE, KL_JOINT_SPHERICAL};
	for (int t = 0; t < 2; ++t)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
		kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
		kl_body_id rod = make_body(world, kl_vec3(0.0f, 0.0f, -1.0f), 1.0f, kl_vec3(0.1f, 0.1f, 0.1f));
		kl_joint_def jd = kl_joint_def_from_world(types[t], ground, rod, kl_vec3(0.0f, 0.0f, 0.0f),
												 types[t] == KL_JOINT_REVOLUTE ? kl_vec3(0.0f, 1.0f, 0.0f)
																			   : kl_vec3(0.0f, 0.0f, 1.0f));
		jd.enable_limit = true;
		jd.lower = -0.2f;
		jd.upper = 2.8f;
		kl_joint_id joint = make_joint(world, &jd);
		// Turn the rod by −3.0 rad about the joint's axis (world y for the hinge: it swings round the
		// anchor; world z for the ball joint: it twists in place).
		const float angle = -3.0f;
		if (types[t] == KL_JOINT_REVOLUTE)
		{
			versors q = glms_quatv(angle, kl_vec3(0.0f, 1.0f, 0.0f));
			assert_int_equal(kl_body_set_transform(rod, kl_vec3(-sinf(angle), 0.0f, -cosf(angle)), q), KL_OK);
		}
		else
		{
			versors q = glms_quatv(angle, kl_vec3(0.0f, 0.0f, 1.0f));
			assert_int_equal(kl_body_set_transform(rod, kl_vec3(0.0f, 0.0f, -1.0f), q), KL_OK);
		}
		assert_near(kl_joint_get_angle(joint), angle, 1.0e-4f);
		// The push back leaves it drifting slowly into the range from the upper side; it never
		// comes near the lower bound.
		float lowest_inside = 10.0f;
		for (int i = 0; i < 120; ++i)
		{
			step(world, 1);
			float a = kl_joint_get_angle(joint);
			if (a > -0.2f)
			{
				lowest_inside = fminf(lowest_inside, a);
			}
		}
		float end = kl_joint_get_angle(joint);
		print_message("%s put at -3.0 rad, limits [-0.2, 2.8]: back in the range at %.4f rad, lowest in range %.4f\n",
					  types[t] == KL_JOINT_REVOLUTE ? "hinge" : "ball joint's twist", end, lowest_inside);
		assert_true(end > 2.5f && end <= 2.8f + 0.01f);
		assert_true(lowest_inside > 2.5f);
		kl_destroy_world(world);
	}
}

// A velocity motor spins a light arm fast: 1 kg at 0.5 m from the hinge, 0.001 kg m² about its
// centre, so the hinge row's coupling turns with the arm by up to 0.13 rad a sub-step. With the
// coupling and the ball row's mass from the step's start, the arm ran at 8.35 rad/s for 10 and
// reached NaN at 30 and 60.
static void test_fast_motor_on_light_arm(void** state)
{
	(void)state;
	const float speeds[] = {10.0f, 30.0f};
	for (int s = 0; s < 2; ++s)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
		kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
		kl_body_id arm = make_body(world, kl_vec3(0.5f, 0.0f, 0.0f), 1.0f, kl_vec3(0.001f, 0.001f, 0.001f));
		kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, arm, kl_vec3(0.0f, 0.0f, 0.0f),
												 kl_vec3(0.0f, 1.0f, 0.0f));
		jd.enable_motor = true;
		jd.motor_speed = speeds[s];
		jd.max_motor_force = 1000.0f;
		kl_joint_id joint = make_joint(world, &jd);
		step(world, 60);
		double mean = 0.0;
		float stretch = 0.0f;
		for (int i = 0; i < 240; ++i)
		{
			step(world, 1);
			float speed = kl_joint_get_speed(joint);
			assert_true(isfinite(speed));
			mean += speed / 240.0;
			stretch = fmaxf(stretch, anchor_separation(joint));
		}
		print_message("motor on a light arm at %.0f rad/s: mean speed %.4f, stretch %.4f m\n", speeds[s], mean, stretch);
		assert_near(mean, speeds[s], 0.01 * speeds[s]);
		assert_true(stretch < 0.02f);
		kl_destroy_world(world);
	}
}

// A target joint pulls a body to a point; a small force limit caps its acceleration.
static void test_target_joint(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id body = make_ball(world, kl_vec3(0.0f, 0.0f, 0.0f), 2.0f, 0.2f);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_TARGET, ground, body, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 0.0f, 1.0f));
	jd.spring_hertz = 3.0f;
	jd.spring_damping_ratio = 1.0f;
	jd.max_motor_force = 1000.0f;
	kl_joint_id joint = make_joint(world, &jd);
	step(world, 10);
	assert_true(glms_vec3_norm(kl_body_get_position(body)) < 1.0e-6f); // starts at rest on its target
	vec3s target = kl_vec3(1.0f, 2.0f, -1.5f);
	assert_int_equal(kl_joint_set_target(joint, target), KL_OK);
	assert_near(kl_joint_get_target(joint).y, 2.0f, 0.0f);
	step(world, 180);
	float miss = glms_vec3_distance(kl_body_get_position(body), target);
	print_message("target: miss %.3g m after 3 s\n", miss);
	assert_true(miss < 1.0e-3f);

	// A 1 N limit on 2 kg: at most 0.5 m/s² towards a far target.
	assert_int_equal(kl_joint_set_max_motor_force(joint, 1.0f), KL_OK);
	assert_int_equal(kl_joint_set_target(joint, kl_vec3(101.0f, 2.0f, -1.5f)), KL_OK);
	step(world, 60);
	float moved = kl_body_get_position(body).x - 1.0f;
	print_message("target: moved %.4f m in 1 s at 1 N (free: 0.25 m)\n", moved);
	assert_true(moved > 0.2f && moved < 0.26f);
	assert_near(kl_joint_get_motor_force(joint), 1.0f, 1.0e-4f);
	kl_destroy_world(world);
}

// A resting pendulum falls asleep; a motor command wakes it and it turns.
static void test_setter_wakes(void** state)
{
	(void)state;
	kl_world_def def = kl_default_world_def();
	kl_world_id world = kl_create_world(&def); // sleep enabled
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id bob = make_ball(world, kl_vec3(0.0f, 0.0f, -1.0f), 1.0f, 0.1f);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, bob, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	jd.max_motor_force = 20.0f;
	kl_joint_id joint = make_joint(world, &jd);
	step(world, 60);
	assert_false(kl_body_is_awake(bob));
	assert_int_equal(kl_joint_set_motor_target(joint, 0.5f), KL_OK);
	assert_true(kl_body_is_awake(bob));
	assert_int_equal(kl_joint_enable_motor(joint, true), KL_OK);
	// A force-limited move (20 N·m on 1 kg·m² about the pivot) arrives without overshoot and holds
	// the weight's torque m g L sin(0.5).
	float highest = 0.0f;
	for (int i = 0; i < 60; ++i)
	{
		step(world, 1);
		highest = fmaxf(highest, kl_joint_get_angle(joint));
	}
	print_message("servo move: highest %.5f rad (target 0.5), torque %.4f N m\n", highest,
				  kl_joint_get_motor_force(joint));
	assert_true(highest < 0.5f + 1.0e-3f);
	assert_near(kl_joint_get_angle(joint), 0.5f, 1.0e-3f);
	assert_near(kl_joint_get_motor_force(joint), G * sinf(0.5f), 0.01f);
	kl_destroy_world(world);
}

// A kinematic carrier moving and turning at constant rates carries a welded body and a ball-jointed
// one without lag.
static void test_kinematic_carrier(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.position = kl_vec3(0.0f, 0.0f, 2.0f);
	bd.linear_velocity = kl_vec3(1.0f, 0.0f, 0.0f);
	bd.angular_velocity = kl_vec3(0.0f, 0.0f, 1.0f);
	kl_body_id carrier = kl_create_body(world, &bd);
	kl_body_id load = make_body(world, kl_vec3(0.5f, 0.0f, 2.0f), 2.0f, kl_vec3(0.05f, 0.05f, 0.05f));
	kl_joint_def wd = kl_joint_def_from_world(KL_JOINT_FIXED, carrier, load, kl_vec3(0.25f, 0.0f, 2.0f),
											 kl_vec3(0.0f, 0.0f, 1.0f));
	kl_joint_id weld = make_joint(world, &wd);
	kl_transform before = relative_pose(carrier, load);
	step(world, 120);
	kl_transform now = relative_pose(carrier, load);
	print_message("carried load: offset drift %.3g m\n", glms_vec3_distance(now.p, before.p));
	assert_true(glms_vec3_distance(now.p, before.p) < 1.0e-3f);
	assert_true(anchor_separation(weld) < 1.0e-3f);
	// The carrier is kinematic: the joint did not move it.
	assert_near(kl_body_get_position(carrier).x, 2.0f, 1.0e-4f);
	kl_destroy_world(world);
}

// Bad input is refused with a clear error and changes nothing.
static void test_invalid_input(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), 1);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_body_id body = make_ball(world, kl_vec3(0.0f, 0.0f, -1.0f), 1.0f, 0.1f);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, body, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	kl_joint_id joint = make_joint(world, &jd);
	kl_joint_def sd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, ground, body, kl_vec3(0.0f, 0.0f, 0.0f),
											 kl_vec3(0.0f, 1.0f, 0.0f));
	kl_joint_id ball = make_joint(world, &sd);
	float nan = NAN, inf = INFINITY;
	assert_int_equal(kl_joint_set_motor_speed(joint, nan), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_motor_target(joint, inf), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_max_motor_force(joint, -1.0f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_max_motor_force(joint, nan), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_limits(joint, 1.0f, -1.0f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_limits(joint, -4.0f, 1.0f), KL_ERR_INVALID_ARGUMENT); // beyond -π
	assert_int_equal(kl_joint_set_limits(joint, nan, 1.0f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_spring(joint, -2.0f, 1.0f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_spring(joint, 2.0f, inf), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_joint_set_target(joint, kl_vec3(0.0f, 0.0f, 0.0f)), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_joint_set_motor_speed(ball, 1.0f), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_joint_set_cone_angle(joint, 1.0f), KL_ERR_UNSUPPORTED); // spherical only
	assert_int_equal(kl_joint_set_target(ball, kl_vec3(0.0f, 0.0f, 0.0f)), KL_ERR_UNSUPPORTED); // target joints only
	assert_near(kl_joint_get_translation(joint), 0.0f, 0.0f);
	assert_int_equal(kl_last_error_code(), KL_ERR_UNSUPPORTED);
	assert_true(strlen(kl_last_error()) > 0);
	assert_near(kl_joint_get_swing_angle(joint), 0.0f, 0.0f);
	assert_int_equal(kl_last_error_code(), KL_ERR_UNSUPPORTED);
	// Nothing changed.
	kl_joint_def now = kl_joint_get_def(joint);
	assert_near(now.motor_speed, 0.0f, 0.0f);
	assert_near(now.max_motor_force, 0.0f, 0.0f);
	assert_false(now.enable_limit);
	// Stale ids.
	assert_int_equal(kl_destroy_joint(ball), KL_OK);
	assert_int_equal(kl_joint_set_motor_speed(ball, 1.0f), KL_ERR_INVALID_ID);
	assert_int_equal(kl_joint_enable_motor(kl_null_joint_id, true), KL_ERR_INVALID_ID);
	assert_near(kl_joint_get_motor_force(ball), 0.0f, 0.0f);
	// Valid input still works and the simulation stays finite.
	assert_int_equal(kl_joint_set_limits(joint, -1.0f, 1.0f), KL_OK);
	assert_int_equal(kl_joint_enable_limit(joint, true), KL_OK);
	step(world, 10);
	assert_true(isfinite(kl_body_get_position(body).z));
	kl_destroy_world(world);
}

/// Several 20-link chains (enough rows per colour to go parallel) stepped for 2 s.
static uint32_t chain_hash(int workers)
{
	enum
	{
		CHAINS = 16,
		N = 20
	};
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -G), workers);
	kl_body_id ground = make_static(world, kl_vec3(0.0f, 0.0f, 0.0f));
	kl_joint_id joints[N];
	for (int c = 0; c < CHAINS; ++c)
	{
		make_chain(world, ground, kl_vec3(0.0f, 2.0f * c, 20.0f), N, 0.25f, 0.0f, joints);
		assert_int_equal(kl_joint_set_max_motor_force(joints[N / 2], 5.0f), KL_OK);
		assert_int_equal(kl_joint_set_motor_speed(joints[N / 2], 1.0f), KL_OK);
		assert_int_equal(kl_joint_enable_motor(joints[N / 2], true), KL_OK);
	}
	step(world, 120);
	uint32_t hash = kl_world_hash_transforms(world);
	kl_destroy_world(world);
	return hash;
}

static void test_determinism(void** state)
{
	(void)state;
	uint32_t h1 = chain_hash(1);
	uint32_t h2 = chain_hash(2);
	uint32_t h4 = chain_hash(4);
	print_message("chain hashes: %08x %08x %08x\n", h1, h2, h4);
	assert_int_equal(h1, h2);
	assert_int_equal(h1, h4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pendulum_period),
		cmocka_unit_test(test_chain_compliance),
		cmocka_unit_test(test_chain_drift),
		cmocka_unit_test(test_revolute_position_motor),
		cmocka_unit_test(test_revolute_velocity_motor),
		cmocka_unit_test(test_revolute_spring),
		cmocka_unit_test(test_revolute_limits),
		cmocka_unit_test(test_prismatic_limits),
		cmocka_unit_test(test_fixed_joint),
		cmocka_unit_test(test_spherical_joint),
		cmocka_unit_test(test_distance_joint),
		cmocka_unit_test(test_joint_force),
		cmocka_unit_test(test_fast_small_pendulum),
		cmocka_unit_test(test_fast_motor_on_light_arm),
		cmocka_unit_test(test_light_body_held_against_moment),
		cmocka_unit_test(test_limit_past_half_turn),
		cmocka_unit_test(test_target_joint),
		cmocka_unit_test(test_setter_wakes),
		cmocka_unit_test(test_kinematic_carrier),
		cmocka_unit_test(test_invalid_input),
		cmocka_unit_test(test_determinism),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
