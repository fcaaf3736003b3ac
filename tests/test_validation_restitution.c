// Kollide tests — restitution validation: balls dropped on a ground of restitution 0 (pairs take
// the maximum) bounce to e² of the drop height within 5 % for e = 0.2, 0.5, 0.8; e = 0 does not
// bounce. Heights are those of the ball's centre above its height when touching the ground.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"

#define BALL_STEPS 120 ///< 2 s: the fall takes 0.64 s and the highest bounce's apex comes 0.51 s later
#define MAX_BALLS 8
/// "Does not bounce": the e = 0 ball's centre rises less than this above its touching height.
#define NO_BOUNCE 0.003

typedef struct ball_record
{
	kl_body_id balls[MAX_BALLS];
	int count;
	double e[MAX_BALLS];
	double radius[MAX_BALLS];
	double start_z[MAX_BALLS];
	double ground_z; ///< top of the ground
	double fastest[MAX_BALLS]; ///< largest downward speed seen before the impact
	int impact_step[MAX_BALLS]; ///< first step whose velocity shows the impact (0: none yet)
	double apex[MAX_BALLS];		///< highest centre height after the impact
} ball_record;

static void read_balls(kl_world_id world, ball_record* r)
{
	kl_body_id ground = kl_world_find_body(world, "ground");
	assert_true(KL_IS_NON_NULL(ground));
	kl_shape_id ground_shape;
	assert_int_equal(kl_body_get_shapes(ground, &ground_shape, 1), 1);
	assert_near(kl_shape_get_material(ground_shape).restitution, 0.0, 0.0);
	r->ground_z = kl_body_get_position(ground).z + kl_shape_get_box_half_extents(ground_shape).z;
	kl_body_id* balls = NULL;
	r->count = kl_val_dynamic_bodies(world, &balls);
	assert_true(r->count > 0 && r->count <= MAX_BALLS);
	for (int i = 0; i < r->count; ++i)
	{
		kl_shape_id shape;
		assert_int_equal(kl_body_get_shapes(balls[i], &shape, 1), 1);
		r->balls[i] = balls[i];
		r->e[i] = kl_shape_get_material(shape).restitution;
		r->radius[i] = kl_shape_get_sphere_radius(shape);
		r->start_z[i] = kl_body_get_position(balls[i]).z;
	}
	free(balls);
}

/// The impact is the first step after which a ball that was falling faster than 1 m/s falls
/// slower than 0.5 m/s; the apex is the highest centre seen from then on (later bounces are lower).
static void record_balls(kl_world_id world, int step, void* context)
{
	ball_record* r = context;
	if (step == 0)
	{
		read_balls(world, r);
		return;
	}
	for (int i = 0; i < r->count; ++i)
	{
		double vz = kl_body_get_linear_velocity(r->balls[i]).z;
		double z = kl_body_get_position(r->balls[i]).z;
		if (r->impact_step[i] == 0)
		{
			r->fastest[i] = fmax(r->fastest[i], -vz);
			if (r->fastest[i] > 1.0 && vz > -0.5)
			{
				r->impact_step[i] = step;
				r->apex[i] = z;
			}
			continue;
		}
		r->apex[i] = fmax(r->apex[i], z);
	}
}

static void test_restitution_row(void** state)
{
	(void)state;
	ball_record r = {0};
	uint32_t hash = kl_val_run("restitution_row", 1, BALL_STEPS, record_balls, &r);
	int failures = 0, bouncing = 0;
	for (int i = 0; i < r.count; ++i)
	{
		double contact_z = r.ground_z + r.radius[i];
		double drop = r.start_z[i] - contact_z;
		double rise = r.apex[i] - contact_z;
		if (r.impact_step[i] == 0)
		{
			printf("  e %.1f: no impact seen in %d steps FAIL\n", r.e[i], BALL_STEPS);
			failures += 1;
			continue;
		}
		if (r.e[i] == 0.0)
		{
			bool ok = rise < NO_BOUNCE;
			printf("  e 0.0: impact %.2f m/s at step %d, rise after it %+.2f mm (limit %.0f mm) %s\n",
				   r.fastest[i], r.impact_step[i], 1000.0 * rise, 1000.0 * NO_BOUNCE, ok ? "ok" : "FAIL");
			failures += !ok;
			continue;
		}
		double ratio = rise / drop, wanted = r.e[i] * r.e[i];
		double error = ratio / wanted - 1.0;
		bool ok = fabs(error) < 0.05;
		printf("  e %.1f: impact %.2f m/s at step %d, drop %.3f m, apex %.4f m, ratio %.4f vs e^2 %.4f, "
			   "error %+.2f %% (limit 5 %%) %s\n",
			   r.e[i], r.fastest[i], r.impact_step[i], drop, rise, ratio, wanted, 100.0 * error, ok ? "ok" : "FAIL");
		failures += !ok;
		bouncing += 1;
	}
	assert_int_equal(bouncing, 3);
	assert_int_equal(failures, 0);
	kl_val_check_determinism("restitution_row", BALL_STEPS, hash);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restitution_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
