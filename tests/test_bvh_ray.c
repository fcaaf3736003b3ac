// One ray against a triangle BVH (narrowphase/bvh/bvh_ray.h): the nearest hit from inside a cube, the
// source triangle skipped, the length bound, and every width the trees are built with.
#include "kl_test.h"

#include "bvh_ray.h"

static const float k_cube[24] = {-0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, -0.5f, -0.5f, 0.5f, -0.5f,
								 -0.5f, -0.5f, 0.5f,  0.5f, -0.5f, 0.5f,  0.5f, 0.5f, 0.5f,  -0.5f, 0.5f, 0.5f};
static const int32_t k_cube_indices[36] = {
	0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5,
};

static void test_ray_inside_cube(void** state)
{
	(void)state;
	const int widths[3] = {2, 8, 16};
	for (int w = 0; w < 3; ++w)
	{
		kl_bvh_build_def def = kl_bvh_default_build_def();
		def.width = widths[w];
		kl_bvh* tree = kl_bvh_build(k_cube, 8, (const int*)k_cube_indices, 12, &def);
		assert_non_null(tree);
		const double centre[3] = {0.1, -0.2, 0.05};
		const double dirs[3][3] = {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}};
		const double expect[3] = {0.4, 0.3, 0.45};
		for (int d = 0; d < 3; ++d)
		{
			assert_near(kl_bvh_ray(tree, k_cube, k_cube_indices, centre, dirs[d], 0.0, 10.0, -1), expect[d], 1e-9);
			// Shorter than the wall: no hit, max_t + 1 back.
			assert_near(kl_bvh_ray(tree, k_cube, k_cube_indices, centre, dirs[d], 0.0, 0.25, -1), 1.25, 1e-12);
		}
		// From the top face (triangle 2 or 3 holds (0.1, 0.1, 0.5)) straight down: the source face is
		// skipped or hit at t = 0 (below min_t); the bottom face is 1 away.
		const double top[3] = {0.1, 0.1, 0.5}, down[3] = {0, 0, -1};
		assert_near(kl_bvh_ray(tree, k_cube, k_cube_indices, top, down, 1e-6, 10.0, 3), 1.0, 1e-9);
		// A ray that misses the cube altogether.
		const double outside[3] = {2.0, 2.0, 2.0}, away[3] = {1, 0, 0};
		assert_true(kl_bvh_ray(tree, k_cube, k_cube_indices, outside, away, 0.0, 5.0, -1) > 5.0);
		kl_bvh_destroy(tree);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ray_inside_cube),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
