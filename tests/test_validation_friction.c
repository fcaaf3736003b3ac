// Kollide tests — friction validation on the 30° ramp: boxes whose pair friction is at least
// tan 30° stay put (under 1 mm in 2 s); the others slide with a = g (sin θ − μ cos θ) within 5 %.
// And torsional friction: a ball spinning on one point slows at r g / (0.4 R²) within 5 %.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"

#define RAMP_STEPS 120 ///< 2 s
/// Acceleration window: from 0.5 s (sliding is under way) to 1.5 s (every box still on the ramp).
#define WINDOW_START 30
#define WINDOW_END 90
#define MAX_BOXES 8

typedef struct ramp_record
{
	kl_body_id boxes[MAX_BOXES];
	int count;
	double mu[MAX_BOXES];	///< pair friction √(μ_box·μ_ramp)
	vec3s start[MAX_BOXES]; ///< centre of mass
	double v_start[MAX_BOXES]; ///< down-slope speed at WINDOW_START
	double v_end[MAX_BOXES];
	double s_end[MAX_BOXES];	 ///< down-slope travel at WINDOW_END
	double moved[MAX_BOXES];	 ///< distance travelled by the end of the run
	vec3s down;					 ///< unit down-slope direction
	double sin_theta, cos_theta; ///< of the slope angle
	double g;
} ramp_record;

static double friction_of(kl_body_id body)
{
	kl_shape_id shape;
	assert_int_equal(kl_body_get_shapes(body, &shape, 1), 1);
	return kl_shape_get_material(shape).friction;
}

/// Reads the slope from the ramp's pose (its box's top face normal) and gravity from the world.
static void read_setup(kl_world_id world, ramp_record* r)
{
	kl_body_id ramp = kl_world_find_body(world, "ramp");
	assert_true(KL_IS_NON_NULL(ramp));
	vec3s n = kl_rotate(kl_body_get_rotation(ramp), kl_vec3(0.0f, 0.0f, 1.0f));
	vec3s g = kl_world_get_gravity(world);
	r->g = glms_vec3_norm(g);
	r->cos_theta = -glms_vec3_dot(n, g) / r->g;
	r->sin_theta = sqrt(1.0 - r->cos_theta * r->cos_theta);
	vec3s along = glms_vec3_sub(g, glms_vec3_scale(n, glms_vec3_dot(g, n)));
	r->down = glms_vec3_normalize(along);
	double mu_ramp = friction_of(ramp);
	kl_body_id* boxes = NULL;
	r->count = kl_val_dynamic_bodies(world, &boxes);
	assert_true(r->count > 0 && r->count <= MAX_BOXES);
	for (int i = 0; i < r->count; ++i)
	{
		r->boxes[i] = boxes[i];
		r->mu[i] = sqrt(friction_of(boxes[i]) * mu_ramp);
		r->start[i] = kl_body_get_world_center_of_mass(boxes[i]);
	}
	free(boxes);
}

static void record_ramp(kl_world_id world, int step, void* context)
{
	ramp_record* r = context;
	if (step == 0)
	{
		read_setup(world, r);
		return;
	}
	for (int i = 0; i < r->count; ++i)
	{
		double v = glms_vec3_dot(kl_body_get_linear_velocity(r->boxes[i]), r->down);
		vec3s p = kl_body_get_world_center_of_mass(r->boxes[i]);
		if (step == WINDOW_START)
		{
			r->v_start[i] = v;
		}
		if (step == WINDOW_END)
		{
			r->v_end[i] = v;
			r->s_end[i] = glms_vec3_dot(glms_vec3_sub(p, r->start[i]), r->down);
		}
		if (step == RAMP_STEPS)
		{
			r->moved[i] = kl_val_distance(p, r->start[i]);
		}
	}
}

static void test_friction_ramp(void** state)
{
	(void)state;
	ramp_record r = {0};
	uint32_t hash = kl_val_run("friction_ramp", 1, RAMP_STEPS, record_ramp, &r);
	double tan_theta = r.sin_theta / r.cos_theta;
	printf("  slope %.3f deg, tan %.4f\n", atan(tan_theta) * 180.0 / 3.14159265358979, tan_theta);
	int sticking = 0, sliding = 0, failures = 0;
	for (int i = 0; i < r.count; ++i)
	{
		if (r.mu[i] >= tan_theta)
		{
			bool ok = r.moved[i] < 0.001;
			printf("  mu %.3f: moved %.4f mm in 2 s (limit 1 mm) %s\n", r.mu[i], 1000.0 * r.moved[i],
				   ok ? "ok" : "FAIL");
			failures += !ok;
			sticking += 1;
			continue;
		}
		double t = (WINDOW_END - WINDOW_START) * (double)KL_VAL_DT;
		double a = (r.v_end[i] - r.v_start[i]) / t;
		double expected = r.g * (r.sin_theta - r.mu[i] * r.cos_theta);
		double error = a / expected - 1.0;
		bool ok = fabs(error) < 0.05;
		printf("  mu %.3f: a %.4f m/s^2 over [0.5 s, 1.5 s], expected %.4f, error %+.2f %% (limit 5 %%), "
			   "slid %.2f m by 1.5 s %s\n",
			   r.mu[i], a, expected, 100.0 * error, r.s_end[i], ok ? "ok" : "FAIL");
		failures += !ok;
		sliding += 1;
	}
	assert_true(sticking >= 2 && sliding >= 2);
	assert_int_equal(failures, 0);
	kl_val_check_determinism("friction_ramp", RAMP_STEPS, hash);
}

/// A ball spinning about the vertical on one contact point, with spin resistance r (m): no friction
/// force at one point can stop that spin, the torsional limit r·m·g does, at α = r g / (0.4 R²) for a
/// solid ball (4.9 rad/s² here). Returns the spin after `seconds`.
static double spin_after(float spin_resistance, float seconds)
{
	kl_world_def def = kl_default_world_def();
	def.gravity = kl_vec3(0.0f, 0.0f, -9.81f);
	kl_world_id world = kl_create_world(&def);
	assert_true(KL_IS_NON_NULL(kl_scene_add_ground(world, 1.0f, 1.0f, 0.6f)));
	kl_shape_def sd = kl_default_shape_def();
	kl_body_def ball_def = kl_default_body_def();
	ball_def.type = KL_BODY_DYNAMIC;
	ball_def.position = kl_vec3(0.0f, 0.0f, 0.1f);
	ball_def.angular_velocity = kl_vec3(0.0f, 0.0f, 4.0f);
	kl_body_id ball = kl_create_body(world, &ball_def);
	sd.material.spin_resistance = spin_resistance;
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(ball, &sd, 0.1f)));
	int steps = (int)(seconds * 60.0f + 0.5f);
	for (int i = 0; i < steps; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	double spin = kl_body_get_angular_velocity(ball).z;
	kl_destroy_world(world);
	return spin;
}

static void test_spin_resistance(void** state)
{
	(void)state;
	const double alpha = 0.002 * 9.81 / (0.4 * 0.1 * 0.1);
	double half = spin_after(0.002f, 0.5f), later = spin_after(0.002f, 1.5f), free = spin_after(0.0f, 1.0f);
	printf("  spin resistance 2 mm, ball of 0.1 m from 4 rad/s: %.3f rad/s at 0.5 s (expected %.3f), %.4f at "
		   "1.5 s (stopped at %.2f s); without it %.4f at 1 s\n",
		   half, 4.0 - 0.5 * alpha, later, 4.0 / alpha, free);
	assert_true(fabs(half - (4.0 - 0.5 * alpha)) < 0.05 * (4.0 - 0.5 * alpha));
	assert_true(fabs(later) < 0.01); // stopped, not turned back
	assert_true(fabs(free - 4.0) < 0.01 * 4.0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_friction_ramp),
		cmocka_unit_test(test_spin_resistance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
