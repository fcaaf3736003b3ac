// Kollide tests — stacking validation: a vertical stack of 15 cubes, a pyramid of base 20 and a
// 100:1 mass ratio must stand for 10 s (600 steps at 60 Hz, 4 sub-steps); each run must end in
// the same state on one and on two workers.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"

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

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vertical_stack),
		cmocka_unit_test(test_pyramid),
		cmocka_unit_test(test_mass_ratio),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
