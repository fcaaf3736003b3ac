// Kollide tests — the point-shell search on a CUDA device gives the CPU's keys and pair ranges, key
// for key: culled and forced searches, a smaller search after larger ones (stale device buffers),
// and many identical pairs (the device's lists grow, the triangle stage gives each key a thread
// instead of 8 lanes, and the device sorts). Without a device the program exits 77, which ctest
// reports as Skipped; tools/gpu_checks.sh runs it where one is lent.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "kl_pointshell_test.h"
#include "pointshell.h"

#include <stdlib.h>
#include <string.h>

static void test_gpu_matches_cpu(void** state)
{
	(void)state;
	test_mesh a, b;
	make_gear(&a);
	make_knot(&b, 96);
	uint32_t seed = 3u;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	kl_ps_pair_query q[4];
	for (int i = 0; i < 4; ++i)
	{
		q[i].a = kl_ps_body_make(a.model, ident, kl_vec3(1.0f, 1.0f, 1.0f));
		q[i].b = kl_ps_body_make(i % 2 ? a.model : b.model, random_pose(&seed, 0.06f), kl_vec3(1.0f, 1.2f, 0.9f));
		q[i].margin = 0.002f;
	}
	kl_ps_batch cpu, gpu;
	memset(&cpu, 0, sizeof(cpu));
	memset(&gpu, 0, sizeof(gpu));
	kl_ps_stats sc, sg;
	// Rounds 1 and 2 reuse the device buffers of larger searches before them (stale slots past the
	// unique keys must not come back).
	for (int round = 0; round < 3; ++round)
	{
		if (round == 2)
		{
			for (int i = 0; i < 4; ++i)
			{
				q[i].b.xf.m[3] += 0.03f; // fewer pairs than before
			}
		}
		assert_int_equal(kl_ps_search_cpu(q, 4, round != 0, NULL, 1, &cpu, &sc), KL_OK);
		assert_int_equal(kl_ps_search_gpu(q, 4, round != 0, &gpu, &sg), KL_OK);
		printf("  round %d: CPU %u pairs, GPU %u pairs; raw %lld / %lld\n", round, cpu.key_count, gpu.key_count,
			   sc.raw_candidates, sg.raw_candidates);
		assert_int_equal(cpu.key_count, gpu.key_count);
		assert_memory_equal(cpu.keys, gpu.keys, cpu.key_count * sizeof(uint64_t));
		assert_memory_equal(cpu.pair_begin, gpu.pair_begin, 5 * sizeof(int));
	}
	// Many identical pairs: the same triangle pairs under every pair index (they must not crowd one
	// probe run of the device's set). 30 pairs keep more keys than were prefetched with the counters
	// (the rest is fetched from the device) but few enough for the host to sort; 160 pairs give more
	// keys than the device's first lists hold (it grows them and searches again), more than the
	// triangle stage splits (17,000 on 132 multiprocessors), and more kept keys than the host sorts
	// (the device sorts them).
	const int counts[2] = {30, 160};
	for (int round = 0; round < 2; ++round)
	{
		int many = counts[round];
		kl_ps_pair_query* same = calloc((size_t)many, sizeof(kl_ps_pair_query));
		assert_non_null(same);
		for (int i = 0; i < many; ++i)
		{
			same[i] = q[1];
		}
		assert_int_equal(kl_ps_search_cpu(same, many, false, NULL, 1, &cpu, &sc), KL_OK);
		assert_true(round == 0 ? cpu.key_count > 8192u && cpu.key_count <= 16384u : cpu.key_count > 16384u);
		// Twice: the first grows the device's lists, the second runs in the grown ones.
		for (int again = 0; again < 2; ++again)
		{
			assert_int_equal(kl_ps_search_gpu(same, many, false, &gpu, &sg), KL_OK);
			printf("  %d identical pairs: CPU %u pairs, GPU %u pairs (%d candidates)\n", many, cpu.key_count,
				   gpu.key_count, sg.unique_candidates);
			assert_int_equal(cpu.key_count, gpu.key_count);
			assert_memory_equal(cpu.keys, gpu.keys, cpu.key_count * sizeof(uint64_t));
			assert_memory_equal(cpu.pair_begin, gpu.pair_begin, ((size_t)many + 1) * sizeof(int));
		}
		free(same);
	}
	kl_ps_batch_free(&cpu);
	kl_ps_batch_free(&gpu);
	free_mesh(&a);
	free_mesh(&b);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!kl_ps_gpu_available())
	{
		printf("the point-shell search on the GPU is skipped: %s\n", kl_gpu_describe());
		return KL_TEST_SKIPPED;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_matches_cpu),
	};
	return kl_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
