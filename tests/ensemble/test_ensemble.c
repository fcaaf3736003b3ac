// Ensembles (apps/ensemble): the counter-based random stream, bit-identical results for any thread
// count, argument checks, and the knife edge, whose outcome probability is known in closed form.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include "kl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A sphere (r 0.1 m) dropped from 0.19 m above a horizontal knife edge along y (a static capsule of
// radius 1 cm) at sideways offset mu: it rolls off to +x exactly when its start x is positive. The
// pad, a sensor on the floor for x > 0.1, sees the balls that end there.
static const char* kl_knife_scene =
	"{\"world\": {\"enable_sleep\": false},\n"
	" \"bodies\": [\n"
	"  {\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"box\", \"half_extents\": [4, 4, 0.5],"
	" \"position\": [0, 0, -0.5], \"friction\": 0.6}]},\n"
	"  {\"name\": \"knife\", \"type\": \"static\", \"position\": [0, 0, 0.5], \"orientation\": [0.70710678, "
	"-0.70710678, 0, 0],"
	" \"shapes\": [{\"type\": \"capsule\", \"radius\": 0.01, \"half_height\": 0.5, \"friction\": 0.6}]},\n"
	"  {\"name\": \"ball\", \"type\": \"dynamic\", \"position\": [%.9g, 0, 0.8],"
	" \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1, \"density\": 1000, \"friction\": 0.6}]},\n"
	"  {\"name\": \"pad\", \"type\": \"static\", \"position\": [2.05, 0, 0.15], \"shapes\": [{\"type\": \"box\","
	" \"half_extents\": [1.95, 4, 0.15], \"sensor\": true, \"sensor_events\": true}]}]}\n";

static void kl_write_knife_scene(const char* path, double mu)
{
	FILE* file = fopen(path, "w");
	assert_non_null(file);
	fprintf(file, kl_knife_scene, mu);
	assert_int_equal(fclose(file), 0);
}

static kl_ens_def kl_knife_def(const char* path, int samples, int steps, int threads)
{
	kl_ens_def def = kl_default_ens_def();
	def.scene_path = path;
	def.sample_count = samples;
	def.step_count = steps;
	def.thread_count = threads;
	def.seed = 7;
	char error[256];
	assert_true(kl_ens_parse_perturb("ball:position=0.02,0,0", &def.perturbs[0], error, sizeof(error)));
	assert_true(kl_ens_parse_region("right=0.1,-10,-10,10,10,10", &def.regions[0], error, sizeof(error)));
	assert_true(kl_ens_parse_region("on_pad=sensor:pad", &def.regions[1], error, sizeof(error)));
	def.perturb_count = 1;
	def.region_count = 2;
	return def;
}

// A draw depends on (seed, sample, counter) only, not on the order draws are made in, and the
// normals have mean 0 and variance 1 (20,000 draws: standard errors 0.007 and 0.01; bounds 5 SE).
static void test_random_stream(void** state)
{
	(void)state;
	double forward[64];
	for (int i = 0; i < 64; ++i)
	{
		forward[i] = kl_ens_normal(3, (uint64_t)(i / 8), (uint64_t)(i % 8));
	}
	for (int i = 63; i >= 0; --i)
	{
		assert_true(kl_ens_normal(3, (uint64_t)(i / 8), (uint64_t)(i % 8)) == forward[i]);
	}
	assert_true(kl_ens_random_u64(3, 0, 1) != kl_ens_random_u64(3, 1, 0));
	assert_true(kl_ens_random_u64(3, 0, 0) != kl_ens_random_u64(4, 0, 0));
	double sum = 0.0, squares = 0.0;
	int n = 20000;
	for (int i = 0; i < n; ++i)
	{
		double x = kl_ens_normal(11, (uint64_t)i, 0);
		sum += x;
		squares += x * x;
	}
	assert_near(sum / n, 0.0, 0.035);
	assert_near(squares / n, 1.0, 0.05);
}

static void kl_run_knife(kl_ensemble* ens, double mu, int samples, int steps, int threads)
{
	char path[512], error[512];
	snprintf(path, sizeof(path), "%s/ensemble_knife_%d.json", KL_TEST_OUT_DIR, threads);
	kl_write_knife_scene(path, mu);
	kl_ens_def def = kl_knife_def(path, samples, steps, threads);
	if (!kl_ens_prepare(ens, &def, error, sizeof(error)))
	{
		fail_msg("%s", error);
	}
	if (!kl_ens_run_threads(ens, error, sizeof(error)))
	{
		fail_msg("%s", error);
	}
}

// The same states and hashes, bit for bit, on 1, 2 and 3 threads.
static void test_threads_identical(void** state)
{
	(void)state;
	int samples = KL_QUICK ? 24 : 64;
	kl_ensemble one, other;
	kl_run_knife(&one, 0.0, samples, 60, 1);
	for (int threads = 2; threads <= 3; ++threads)
	{
		kl_run_knife(&other, 0.0, samples, 60, threads);
		size_t bytes = sizeof(float) * (size_t)samples * (size_t)one.body_count * KL_ENS_BODY_STRIDE;
		assert_memory_equal(one.states, other.states, bytes);
		assert_memory_equal(one.hashes, other.hashes, sizeof(uint32_t) * (size_t)samples);
		assert_int_equal(kl_ens_combined_hash(&one), kl_ens_combined_hash(&other));
		kl_ens_free(&other);
	}
	// Different samples draw different offsets.
	assert_true(kl_ens_state(&one, 0, 2)[0] != kl_ens_state(&one, 1, 2)[0]);
	kl_ens_free(&one);
}

// P(falls right) = Φ(μ/σ). Two parts: the physics sends each ball to the side of its drawn offset
// (the region's p may differ from the fraction of positive draws by at most 1 %: a ball still on
// the edge after 3 s counts nowhere), and 400 draws estimate Φ with standard error
// sqrt(p(1-p)/400) <= 0.025, so ±0.05 is at least two standard errors. The seed is fixed, so the
// verdict is the same on every run.
static void test_knife_edge_probability(void** state)
{
	(void)state;
	const double ratios[3] = {-1.0, 0.5, 1.5};
	const double phi[3] = {0.158655, 0.691462, 0.933193}; // Φ(-1), Φ(0.5), Φ(1.5)
	int samples = 400;
	for (int k = 0; k < 3; ++k)
	{
		kl_ensemble ens;
		kl_run_knife(&ens, ratios[k] * 0.02, samples, 180, 2);
		int positive = 0;
		for (int i = 0; i < samples; ++i)
		{
			positive += kl_ens_state(&ens, i, 2)[0] > 0.0f;
		}
		double p = kl_ens_region_probability(&ens, 0);
		print_message("mu/sigma %+.1f: p(right) %.4f, positive draws %.4f, Phi %.4f\n", ratios[k], p,
					  (double)positive / samples, phi[k]);
		assert_near(p, (double)positive / samples, 0.01);
		assert_near(p, phi[k], 0.05);
		// The sensor region agrees sample by sample: every ball right of x = 0.1 lies on the pad.
		for (int i = 0; i < samples; ++i)
		{
			const float* flags = kl_ens_state(&ens, i, ens.body_count);
			assert_true(flags[0] == flags[1]);
		}
		assert_true(kl_ens_region_probability(&ens, 1) == p && p > 0.0);
		kl_ens_free(&ens);
	}
}

// A full covariance: the start positions of 2,000 samples (no steps) have it. The standard error of
// a sample covariance is sqrt((c_ii c_jj + c_ij²)/N) <= 0.0022 m² here; the bound is 5 of them.
static void test_correlated_position(void** state)
{
	(void)state;
	char path[512], error[512];
	snprintf(path, sizeof(path), "%s/ensemble_knife_cov.json", KL_TEST_OUT_DIR);
	kl_write_knife_scene(path, 0.0);
	kl_ens_def def = kl_knife_def(path, 2000, 0, 2);
	assert_true(
		kl_ens_parse_perturb("ball:position=0.04,0.02,0,0.09,-0.01,0.01", &def.perturbs[0], error, sizeof(error)));
	kl_ensemble ens;
	if (!kl_ens_prepare(&ens, &def, error, sizeof(error)) || !kl_ens_run_threads(&ens, error, sizeof(error)))
	{
		fail_msg("%s", error);
	}
	const double expected[9] = {0.04, 0.02, 0.0, 0.02, 0.09, -0.01, 0.0, -0.01, 0.01};
	double mean[3], covariance[9];
	kl_ens_position_moments(&ens, 2, mean, covariance); // no steps: the final positions are the start
	assert_near(mean[0], 0.0, 0.03);
	assert_near(mean[2], 0.8, 0.015);
	for (int k = 0; k < 9; ++k)
	{
		assert_near(covariance[k], expected[k], 0.011);
	}
	kl_ens_free(&ens);
}

// Bad arguments are refused with a message; nothing is half-filled into a run.
static void test_bad_arguments(void** state)
{
	(void)state;
	kl_ens_perturb perturb;
	kl_ens_region region;
	char error[256];
	const char* bad_perturbs[] = {"ball",
								  "ball:position",
								  "ball:spin=1",
								  ":position=1",
								  "ball:position=nan",
								  "ball:position=-1",
								  "ball:mass=1,2,3",
								  "ball:position=1,2",
								  "ball:angle=1e30"};
	for (size_t i = 0; i < sizeof(bad_perturbs) / sizeof(bad_perturbs[0]); ++i)
	{
		error[0] = '\0';
		assert_false(kl_ens_parse_perturb(bad_perturbs[i], &perturb, error, sizeof(error)));
		assert_true(strlen(error) > 0);
	}
	assert_true(kl_ens_parse_perturb("my:ball:angle=0.1", &perturb, error, sizeof(error)));
	assert_string_equal(perturb.body, "my:ball");
	assert_int_equal(perturb.kind, KL_ENS_ANGLE);
	const char* bad_regions[] = {"r=1,2,3",		   "r=1,1,1,0,0,0",	  "=0,0,0,1,1,1",
								 "r@=0,0,0,1,1,1", "r=0,0,0,1,1,inf", "r=sensor:"};
	for (size_t i = 0; i < sizeof(bad_regions) / sizeof(bad_regions[0]); ++i)
	{
		assert_false(kl_ens_parse_region(bad_regions[i], &region, error, sizeof(error)));
	}
	assert_true(kl_ens_parse_region("in@box=0,0,0,1,1,1", &region, error, sizeof(error)));
	assert_string_equal(region.body, "box");

	char path[512];
	snprintf(path, sizeof(path), "%s/ensemble_knife_bad.json", KL_TEST_OUT_DIR);
	kl_write_knife_scene(path, 0.0);
	kl_ens_def def = kl_knife_def(path, 4, 1, 1);
	snprintf(def.perturbs[0].body, sizeof(def.perturbs[0].body), "nobody");
	kl_ensemble ens;
	assert_false(kl_ens_prepare(&ens, &def, error, sizeof(error)));
	assert_non_null(strstr(error, "nobody"));
	def = kl_knife_def(path, 4, 1, 1);
	assert_true(kl_ens_parse_region("bad=sensor:knife", &def.regions[1], error, sizeof(error)));
	assert_false(kl_ens_prepare(&ens, &def, error, sizeof(error)));
	assert_non_null(strstr(error, "sensor"));
	// A draw the engine refuses fails the run with its message, not a sample left unperturbed.
	def = kl_knife_def(path, 4, 1, 2);
	assert_true(kl_ens_parse_perturb("ball:position=1e8", &def.perturbs[0], error, sizeof(error)));
	assert_true(kl_ens_prepare(&ens, &def, error, sizeof(error)));
	assert_false(kl_ens_run_threads(&ens, error, sizeof(error)));
	assert_non_null(strstr(error, "out of range"));
	kl_ens_free(&ens);
	def = kl_knife_def("/nonexistent/scene.json", 4, 1, 1);
	assert_false(kl_ens_prepare(&ens, &def, error, sizeof(error)));
	def = kl_knife_def(path, 0, 1, 1);
	assert_false(kl_ens_prepare(&ens, &def, error, sizeof(error)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_stream),		   cmocka_unit_test(test_threads_identical),
		cmocka_unit_test(test_knife_edge_probability), cmocka_unit_test(test_correlated_position),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
