// Motion without contacts against closed-form solutions, and determinism across worker counts.
#include <kollide/kollide.h>

#include "kl_test.h"

static kl_world_id make_world(vec3s gravity, int workers)
{
	kl_world_def def = kl_default_world_def();
	def.gravity = gravity;
	def.worker_count = workers;
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static kl_body_id make_box_body(kl_world_id world, vec3s position, vec3s half_extents)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = position;
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, half_extents)));
	return body;
}

// Semi-implicit Euler over sub-steps h: v is exact, z lags the parabola by g h t / 2.
static void test_free_fall(void** state)
{
	(void)state;
	const float g = -9.81f, dt = 1.0f / 60.0f;
	const int substeps = 4, steps = 120;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, g), 1);
	kl_body_id body = make_box_body(world, kl_vec3(1.0f, 2.0f, 100.0f), kl_vec3(0.5f, 0.5f, 0.5f));
	assert_int_equal(kl_body_set_linear_velocity(body, kl_vec3(3.0f, 0.0f, 5.0f)), KL_OK);
	for (int i = 0; i < steps; ++i)
	{
		assert_int_equal(kl_world_step(world, dt, substeps), KL_OK);
	}
	double t = steps * (double)dt, h = dt / substeps;
	vec3s p = kl_body_get_position(body);
	vec3s v = kl_body_get_linear_velocity(body);
	double z_exact = 100.0 + 5.0 * t + 0.5 * g * t * t;
	double lag = -0.5 * g * h * t; // first-order method: z = z_exact + g h t / 2
	assert_near(v.z, 5.0 + g * t, 1.0e-3);
	assert_near(v.x, 3.0, 1.0e-6);
	assert_near(p.x, 1.0 + 3.0 * t, 1.0e-3);
	assert_near(p.y, 2.0, 1.0e-6);
	assert_near(p.z, z_exact - lag, 2.0e-3);
	assert_true(fabs(p.z - z_exact) < 0.05); // and the parabola itself within 5 cm after 2 s
	kl_destroy_world(world);
}

// A step split into collision passes (kl_world_def.max_collision_travel) keeps the sub-step length:
// a free body moves exactly as in one pass, the forces applied before the step act over all of it,
// and the passes are a divisor of the sub-steps that keeps each pass's travel under the limit.
static void test_collision_passes(void** state)
{
	(void)state;
	const float dt = 1.0f / 60.0f;
	kl_world_id worlds[2];
	kl_body_id bodies[2];
	for (int w = 0; w < 2; ++w)
	{
		kl_world_def def = kl_default_world_def();
		def.max_collision_travel = w == 0 ? 0.0f : 0.03f;
		worlds[w] = kl_create_world(&def);
		assert_true(kl_world_is_valid(worlds[w]));
		bodies[w] = make_box_body(worlds[w], kl_vec3(0.0f, 0.0f, 10.0f), kl_vec3(0.1f, 0.1f, 0.1f));
		// 5 m/s and 2 rad/s: 83 mm + 6 mm (0.17 m extent) a step, 3 passes of 30 mm needed: 4 of 4.
		assert_int_equal(kl_body_set_linear_velocity(bodies[w], kl_vec3(5.0f, 0.0f, 0.0f)), KL_OK);
		assert_int_equal(kl_body_set_angular_velocity(bodies[w], kl_vec3(0.0f, 0.0f, 2.0f)), KL_OK);
	}
	for (int step = 0; step < 3; ++step)
	{
		for (int w = 0; w < 2; ++w)
		{
			assert_int_equal(kl_body_apply_force_to_center(bodies[w], kl_vec3(0.0f, 30.0f, 0.0f), true), KL_OK);
			assert_int_equal(kl_world_step(worlds[w], dt, 4), KL_OK);
		}
		assert_int_equal(kl_world_get_counters(worlds[0]).collision_pass_count, 1);
		assert_int_equal(kl_world_get_counters(worlds[1]).collision_pass_count, 4);
		vec3s p0 = kl_body_get_position(bodies[0]), p1 = kl_body_get_position(bodies[1]);
		vec3s v0 = kl_body_get_linear_velocity(bodies[0]), v1 = kl_body_get_linear_velocity(bodies[1]);
		for (int k = 0; k < 3; ++k)
		{
			assert_float_equal(p0.raw[k], p1.raw[k], 1e-6f);
			assert_float_equal(v0.raw[k], v1.raw[k], 1e-6f);
		}
		assert_true(v1.y > 0.01f); // the force acted
	}
	// 2 m/s: 33 mm a step, two passes of 17 mm.
	assert_int_equal(kl_body_set_linear_velocity(bodies[1], kl_vec3(2.0f, 0.0f, 0.0f)), KL_OK);
	assert_int_equal(kl_body_set_angular_velocity(bodies[1], kl_vec3(0.0f, 0.0f, 0.0f)), KL_OK);
	assert_int_equal(kl_world_step(worlds[1], dt, 4), KL_OK);
	assert_int_equal(kl_world_get_counters(worlds[1]).collision_pass_count, 2);
	for (int w = 0; w < 2; ++w)
	{
		kl_destroy_world(worlds[w]);
	}
	kl_world_def bad = kl_default_world_def();
	bad.max_collision_travel = -1.0f;
	assert_false(kl_world_is_valid(kl_create_world(&bad)));
}

// Each pass finds the pairs the last one's motion brought: a spinning ball pushed down at 2,160 m/s²
// from 15 cm over a static box travels 30 cm in the step, past the bounds the step started with;
// found again every quarter step it stops on the box, as once per step it cannot.
static void test_collision_passes_find_new_pairs(void** state)
{
	(void)state;
	const float dt = 1.0f / 60.0f;
	float rest_z[2];
	for (int w = 0; w < 2; ++w)
	{
		kl_world_def def = kl_default_world_def();
		def.gravity = kl_vec3(0.0f, 0.0f, 0.0f);
		def.max_collision_travel = w == 0 ? 0.0f : 0.05f;
		kl_world_id world = kl_create_world(&def);
		kl_body_def ground_def = kl_default_body_def();
		ground_def.position = kl_vec3(0.0f, 0.0f, -0.5f);
		kl_body_id ground = kl_create_body(world, &ground_def);
		kl_shape_def sd = kl_default_shape_def();
		assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, kl_vec3(1.0f, 1.0f, 0.5f))));
		kl_body_def ball_def = kl_default_body_def();
		ball_def.type = KL_BODY_DYNAMIC;
		ball_def.position = kl_vec3(0.0f, 0.0f, 0.2f);
		ball_def.angular_velocity = kl_vec3(0.0f, 0.0f, 200.0f);
		kl_body_id ball = kl_create_body(world, &ball_def);
		assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(ball, &sd, 0.05f)));
		float force = 2160.0f * kl_body_get_mass(ball);
		assert_int_equal(kl_body_apply_force_to_center(ball, kl_vec3(0.0f, 0.0f, -force), true), KL_OK);
		assert_int_equal(kl_world_step(world, dt, 4), KL_OK);
		assert_int_equal(kl_world_get_counters(world).collision_pass_count, w == 0 ? 1 : 4);
		rest_z[w] = kl_body_get_position(ball).z;
		kl_destroy_world(world);
	}
	assert_true(rest_z[0] < 0.0f);	 // once per step: into the box
	assert_true(rest_z[1] > 0.045f); // in passes: on its top (the ball's centre 5 cm over it)
}

// Jacobi elliptic functions sn, cn, dn of parameter m = k² by the arithmetic-geometric mean
// (Abramowitz & Stegun 16.4).
static void jacobi_sn_cn_dn(double u, double m, double* sn, double* cn, double* dn)
{
	double a[16], c[16];
	double b = sqrt(1.0 - m);
	a[0] = 1.0;
	c[0] = sqrt(m);
	int n = 0;
	while (fabs(c[n]) > 1.0e-15 && n < 15)
	{
		a[n + 1] = 0.5 * (a[n] + b);
		c[n + 1] = 0.5 * (a[n] - b);
		b = sqrt(a[n] * b);
		++n;
	}
	double phi = ldexp(a[n] * u, n);
	for (int j = n; j > 0; --j)
	{
		phi = 0.5 * (phi + asin(c[j] / a[j] * sin(phi)));
	}
	*sn = sin(phi);
	*cn = cos(phi);
	*dn = sqrt(1.0 - m * *sn * *sn);
}

// A box with I1 < I2 < I3 spinning about an axis between its short and long principal axes,
// without gravity: body-frame ω follows Euler's equations, solved by Jacobi elliptic functions.
static void test_torque_free_asymmetric_body(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	// Longest along x gives the smallest moment about x: I1 (x) < I2 (y) < I3 (z).
	kl_body_id body = make_box_body(world, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(0.6f, 0.35f, 0.1f));
	kl_mass_data md = kl_body_get_mass_data(body);
	double i1 = md.inertia.m00, i2 = md.inertia.m11, i3 = md.inertia.m22;
	assert_true(i1 < i2 && i2 < i3);
	const double w10 = 2.0, w30 = 3.0;
	assert_int_equal(kl_body_set_angular_velocity(body, kl_vec3((float)w10, 0.0f, (float)w30)), KL_OK);

	double energy2 = i1 * w10 * w10 + i3 * w30 * w30; // 2E
	double l2 = i1 * i1 * w10 * w10 + i3 * i3 * w30 * w30;
	assert_true(l2 > energy2 * i2); // this branch of the solution
	double a1 = sqrt((energy2 * i3 - l2) / (i1 * (i3 - i1)));
	double a2 = sqrt((energy2 * i3 - l2) / (i2 * (i3 - i2)));
	double a3 = sqrt((l2 - energy2 * i1) / (i3 * (i3 - i1)));
	double rate = sqrt((i3 - i2) * (l2 - energy2 * i1) / (i1 * i2 * i3));
	double m = (i2 - i1) * (energy2 * i3 - l2) / ((i3 - i2) * (l2 - energy2 * i1));
	assert_true(m > 0.05 && m < 1.0); // a real tumble, not a trivial spin

	vec3s l0 = kl_body_get_angular_momentum(body);
	float e0 = kl_body_get_kinetic_energy(body);
	const float dt = 1.0f / 60.0f;
	double max_error = 0.0;
	for (int step = 1; step <= 300; ++step)
	{
		assert_int_equal(kl_world_step(world, dt, 4), KL_OK);
		double t = step * (double)dt, sn, cn, dn;
		jacobi_sn_cn_dn(rate * t, m, &sn, &cn, &dn);
		vec3s wb = kl_inv_rotate(kl_body_get_rotation(body), kl_body_get_angular_velocity(body));
		double ex = wb.x - a1 * cn, ey = wb.y - a2 * sn, ez = wb.z - a3 * dn;
		double err = sqrt(ex * ex + ey * ey + ez * ez);
		max_error = err > max_error ? err : max_error;
	}
	// 5 s, several tumbling periods: ω within 2 % of |ω0|, invariants within 0.1 %.
	assert_true(max_error < 0.02 * sqrt(w10 * w10 + w30 * w30));
	vec3s l1 = kl_body_get_angular_momentum(body);
	assert_true(glms_vec3_norm(glms_vec3_sub(l1, l0)) < 1.0e-3 * glms_vec3_norm(l0));
	assert_true(fabsf(kl_body_get_kinetic_energy(body) - e0) < 1.0e-3f * e0);
	kl_destroy_world(world);
}

// Without the gyroscopic term the same body keeps ω fixed in the world: the term must matter.
static void test_gyroscopic_term_switch(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.enable_gyroscopic = false;
	bd.angular_velocity = kl_vec3(2.0f, 0.0f, 3.0f);
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_create_box_shape(body, &sd, kl_vec3(0.6f, 0.35f, 0.1f));
	for (int i = 0; i < 60; ++i)
	{
		kl_world_step(world, 1.0f / 60.0f, 4);
	}
	vec3s w = kl_body_get_angular_velocity(body);
	assert_float_equal(w.x, 2.0f, 1.0e-5f);
	assert_float_equal(w.z, 3.0f, 1.0e-5f);
	assert_false(kl_body_is_gyroscopic(body));
	kl_destroy_world(world);
}

// A force and torque applied for one step change momentum by F dt and L by τ dt, then stop.
static void test_forces_and_impulses(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_id body = make_box_body(world, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(0.5f, 0.5f, 0.5f));
	float mass = kl_body_get_mass(body);
	assert_float_equal(mass, 1000.0f, 1.0e-2f);
	const float dt = 0.01f;
	assert_int_equal(kl_body_apply_force_to_center(body, kl_vec3(100.0f, 0.0f, 0.0f), true), KL_OK);
	assert_int_equal(kl_body_apply_torque(body, kl_vec3(0.0f, 0.0f, 50.0f), true), KL_OK);
	kl_world_step(world, dt, 4);
	kl_world_step(world, dt, 4); // the accumulators were cleared after the first step
	assert_float_equal(kl_body_get_linear_velocity(body).x, 100.0f * dt / mass, 1.0e-6f);
	vec3s l = kl_body_get_angular_momentum(body);
	assert_float_equal(l.z, 50.0f * dt, 1.0e-5f);
	// An off-centre impulse gives both linear and angular momentum: Δp = J, ΔL = r × J.
	kl_body_id b2 = make_box_body(world, kl_vec3(5.0f, 0.0f, 0.0f), kl_vec3(0.5f, 0.5f, 0.5f));
	assert_int_equal(kl_body_apply_linear_impulse(b2, kl_vec3(0.0f, 10.0f, 0.0f), kl_vec3(5.5f, 0.0f, 0.0f), true), KL_OK);
	assert_float_equal(kl_body_get_linear_velocity(b2).y, 10.0f / mass, 1.0e-6f);
	assert_float_equal(kl_body_get_angular_momentum(b2).z, 0.5f * 10.0f, 1.0e-4f);
	kl_destroy_world(world);
}

// Linear damping: v' = v / (1 + h c) per sub-step.
static void test_damping(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), 1);
	kl_body_id body = make_box_body(world, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(0.5f, 0.5f, 0.5f));
	kl_body_set_linear_damping(body, 0.5f);
	kl_body_set_linear_velocity(body, kl_vec3(4.0f, 0.0f, 0.0f));
	for (int i = 0; i < 60; ++i)
	{
		kl_world_step(world, 1.0f / 60.0f, 4);
	}
	double expected = 4.0 * pow(1.0 / (1.0 + 0.5 / 240.0), 240);
	assert_near(kl_body_get_linear_velocity(body).x, expected, 1.0e-4);
	assert_true(expected < 4.0 * exp(-0.5) * 1.01); // close to the continuous decay
	kl_destroy_world(world);
}

// A kinematic body reaches its target pose at the end of the step.
static void test_kinematic_target(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -9.81f), 1);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_create_box_shape(body, &sd, kl_vec3(0.2f, 0.2f, 0.2f));
	kl_transform target = {kl_vec3(1.0f, -2.0f, 0.5f), glms_quatv(1.2f, glms_vec3_normalize(kl_vec3(1.0f, 1.0f, 0.0f)))};
	const float dt = 1.0f / 60.0f;
	assert_int_equal(kl_body_set_target_transform(body, target, dt), KL_OK);
	kl_world_step(world, dt, 4);
	kl_transform t = kl_body_get_transform(body);
	assert_float_equal(t.p.x, 1.0f, 1.0e-4f);
	assert_float_equal(t.p.y, -2.0f, 1.0e-4f);
	assert_float_equal(t.p.z, 0.5f, 1.0e-4f);
	assert_true(fabsf(glms_quat_dot(t.q, target.q)) > 1.0f - 1.0e-5f);
	// Gravity does not act on kinematic bodies: the velocity is what the target asked for.
	assert_float_equal(kl_body_get_linear_velocity(body).z, 0.5f / dt, 1.0e-2f);
	kl_destroy_world(world);
}

// Accumulator: 2.5 steps of real time give 2 steps and alpha 0.5; a stall is capped.
static void test_fixed_timestep(void** state)
{
	(void)state;
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -10.0f), 1);
	kl_body_id body = make_box_body(world, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(0.5f, 0.5f, 0.5f));
	kl_fixed_timestep ts = kl_default_fixed_timestep(0.01f, 2);
	assert_int_equal(kl_fixed_timestep_advance(world, &ts, 0.025), 2);
	assert_float_equal(kl_fixed_timestep_alpha(&ts), 0.5f, 1.0e-3f);
	kl_transform prev = kl_body_get_interpolated_transform(body, 0.0f);
	kl_transform cur = kl_body_get_interpolated_transform(body, 1.0f);
	kl_transform mid = kl_body_get_interpolated_transform(body, 0.5f);
	assert_true(prev.p.z > cur.p.z);
	assert_float_equal(mid.p.z, 0.5f * (prev.p.z + cur.p.z), 1.0e-6f);
	assert_int_equal(kl_fixed_timestep_advance(world, &ts, 10.0), ts.max_steps_per_frame);
	assert_true(ts.accumulator < ts.dt);
	assert_int_equal(kl_fixed_timestep_advance(world, &ts, -1.0), -1);
	assert_int_equal(kl_world_get_counters(world).step_index, 2 + ts.max_steps_per_frame);
	kl_destroy_world(world);
}

static uint32_t run_scene(int workers, bool user_tasks);

// Same binary, same input: bit-identical transforms for 1 and 2 workers, and with a user task system.
static void test_determinism_across_workers(void** state)
{
	(void)state;
	uint32_t h1 = run_scene(1, false);
	uint32_t h2 = run_scene(2, false);
	uint32_t h3 = run_scene(3, false);
	uint32_t hu = run_scene(2, true);
	assert_int_equal(h1, h2);
	assert_int_equal(h1, h3);
	assert_int_equal(h1, hu);
}

// A user task system that runs partitions inline in reverse order: the result must not change.
static void* reverse_enqueue(kl_task_fn* task, int count, void* task_context, void* user_context)
{
	(void)user_context;
	for (int p = count - 1; p >= 0; --p)
	{
		task(p, p + 1, p, task_context);
	}
	return NULL;
}

static void noop_finish(void* task, void* user_context)
{
	(void)task;
	(void)user_context;
}

static uint32_t run_scene(int workers, bool user_tasks)
{
	kl_world_def def = kl_default_world_def();
	def.worker_count = workers;
	if (user_tasks)
	{
		def.enqueue_task = reverse_enqueue;
		def.finish_task = noop_finish;
	}
	kl_world_id world = kl_create_world(&def);
	uint32_t seed = 12345u;
	// More bodies than the stage threshold for going parallel, so the workers really run.
	for (int i = 0; i < 1500; ++i)
	{
		seed = seed * 1664525u + 1013904223u;
		float r = (float)(seed >> 8) / 16777216.0f;
		kl_body_def bd = kl_default_body_def();
		bd.type = i % 7 == 0 ? KL_BODY_KINEMATIC : KL_BODY_DYNAMIC;
		bd.position = kl_vec3((float)(i % 40), (float)(i / 40), 10.0f * r);
		bd.angular_velocity = kl_vec3(3.0f * r, 1.0f - r, 2.0f);
		bd.linear_damping = 0.1f * r;
		kl_body_id body = kl_create_body(world, &bd);
		kl_shape_def sd = kl_default_shape_def();
		kl_create_box_shape(body, &sd, kl_vec3(0.1f + r, 0.2f, 0.3f));
		if (i % 3 == 0)
		{
			kl_create_sphere_shape(body, &sd, 0.2f); // compound
		}
	}
	for (int s = 0; s < 100; ++s)
	{
		kl_world_step(world, 1.0f / 60.0f, 4);
	}
	uint32_t hash = kl_world_hash_transforms(world);
	kl_destroy_world(world);
	return hash;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_fall),
		cmocka_unit_test(test_torque_free_asymmetric_body),
		cmocka_unit_test(test_gyroscopic_term_switch),
		cmocka_unit_test(test_forces_and_impulses),
		cmocka_unit_test(test_damping),
		cmocka_unit_test(test_kinematic_target),
		cmocka_unit_test(test_fixed_timestep),
		cmocka_unit_test(test_collision_passes),
		cmocka_unit_test(test_collision_passes_find_new_pairs),
		cmocka_unit_test(test_determinism_across_workers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
