// kollide-bench — the broadphase scenes: bp_motion's synthetic boxes fed straight into the
// broadphase, no world. An update is timed as the engine would pay for it: creating the proxies
// that appeared, moving those whose fat box changed, then kl_broadphase_update. The motion itself
// is computed outside the timed part (kollide-bench-bullet does the same for Bullet).
// SPDX-License-Identifier: MIT
#include "bench_scenes.h"
#include "bp_motion.h"
#include "broadphase.h"
#include "thread_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char kl_bench_broadphase_details_header[] =
	"scene,threads,proxies,pairs,reference_pairs,reference_match,moved_per_update,created_per_update,"
	"incremental_updates,batch_updates,gpu_updates,swaps_per_update,tests_per_update,first_update_ms";

typedef struct bp_counters
{
	int64_t moved;
	int64_t created;
	int64_t swaps;
	int64_t tests;
	int incremental;
	int batch;
	int gpu;
} bp_counters;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1000.0 * (double)ts.tv_sec + 1.0e-6 * (double)ts.tv_nsec;
}

static void run_on_pool(kl_task_fn* task, int partition_count, void* task_context, void* context)
{
	kl_thread_pool_run(context, task, partition_count, task_context);
}

static kl_aabb to_aabb(const kl_bp_box* b)
{
	return (kl_aabb){kl_vec3(b->lower[0], b->lower[1], b->lower[2]), kl_vec3(b->upper[0], b->upper[1], b->upper[2])};
}

// Creates the proxies that appeared and moves the changed ones; false on any broadphase error.
static bool feed(kl_broadphase* bp, const kl_bp_motion* m, int32_t* proxies)
{
	bool ok = true;
	for (int i = m->new_begin; i < m->active_count; ++i)
	{
		kl_proxy_kind kind = i < m->static_count ? KL_PROXY_STATIC : KL_PROXY_MOVING;
		proxies[i] = kl_broadphase_create_proxy(bp, to_aabb(&m->fat[i]), kind, i);
		ok = ok && proxies[i] >= 0;
	}
	for (int k = 0; k < m->moved_count; ++k)
	{
		int i = m->moved[k];
		ok = ok && kl_broadphase_move_proxy(bp, proxies[i], to_aabb(&m->fat[i])) == KL_OK;
	}
	return ok;
}

static void count_update(const kl_broadphase* bp, const kl_bp_motion* m, bp_counters* c)
{
	kl_broadphase_stats s = kl_broadphase_get_stats(bp);
	c->moved += m->moved_count;
	c->created += m->active_count - m->new_begin;
	c->swaps += s.endpoint_swaps;
	c->tests += s.overlap_tests;
	c->incremental += s.last_mode == KL_BROADPHASE_INCREMENTAL;
	c->batch += s.last_mode == KL_BROADPHASE_BATCH;
	c->gpu += s.used_gpu;
}

static void write_details(const kl_bench_scene* scene, int threads, int steps, const kl_bp_motion* m, int pair_count,
						  uint32_t hash, const bp_counters* c, double first_ms, kl_bench_result* result)
{
	uint32_t reference_hash = 0;
	int reference = kl_bp_reference_pairs(m, &reference_hash);
	bool match = reference == pair_count && reference_hash == hash;
	snprintf(result->details, sizeof(result->details), "%s,%d,%d,%d,%d,%s,%.1f,%.2f,%d,%d,%d,%.0f,%.0f,%.3f",
			 scene->name, threads, m->active_count, pair_count, reference, match ? "yes" : "NO",
			 (double)c->moved / steps, (double)c->created / steps, c->incremental, c->batch, c->gpu,
			 (double)c->swaps / steps, (double)c->tests / steps, first_ms);
}

// Warms up (KL_BP_WARMUP_UPDATES, the first of which sorts everything from scratch), then times
// steps updates.
static double time_updates(const kl_bench_scene* scene, kl_broadphase* bp, kl_bp_motion* m, int32_t* proxies,
						   const kl_bench_run_options* options, kl_bench_result* result)
{
	int steps = options->steps;
	double t0 = now_ms();
	double first_ms = 0.0;
	for (int w = 0; w < KL_BP_WARMUP_UPDATES; ++w)
	{
		if (w > 0)
		{
			kl_bp_motion_step(m);
		}
		if (!feed(bp, m, proxies) || kl_broadphase_update(bp) != KL_OK)
		{
			fprintf(stderr, "kollide-bench: %s: broadphase error in warm-up update %d\n", scene->name, w);
			return -1.0;
		}
		if (w == 0)
		{
			first_ms = now_ms() - t0;
		}
	}

	bp_counters counters = {0};
	double total = 0.0;
	for (int s = 0; s < steps; ++s)
	{
		kl_bp_motion_step(m);
		t0 = now_ms();
		bool ok = feed(bp, m, proxies) && kl_broadphase_update(bp) == KL_OK;
		total += now_ms() - t0;
		if (!ok)
		{
			fprintf(stderr, "kollide-bench: %s: broadphase error at update %d\n", scene->name, s);
			return -1.0;
		}
		count_update(bp, m, &counters);
	}

	int pair_count = 0;
	const kl_pair* pairs = kl_broadphase_get_pairs(bp, &pair_count);
	// kl_pair is two int32 with no padding: hashed as the same bytes kollide-bench-bullet hashes.
	result->hash = kl_bp_hash_pairs((const int32_t*)pairs, pair_count);
	result->bodies = m->active_count;
	result->details[0] = '\0';
	if (options->details)
	{
		write_details(scene, options->threads, steps, m, pair_count, result->hash, &counters, first_ms, result);
	}
	return total / steps;
}

double kl_bench_broadphase(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result)
{
	int threads = options->threads;
	const kl_bp_scene_info* info = kl_bp_find_scene(scene->name);
	kl_bp_motion m;
	if (info == NULL || !kl_bp_motion_init(&m, info))
	{
		fprintf(stderr, "kollide-bench: %s: no such broadphase scene or out of memory\n", scene->name);
		return -1.0;
	}
	kl_thread_pool* pool = threads > 1 ? kl_thread_pool_create(threads) : NULL;
	kl_broadphase_def def = kl_default_broadphase_def();
	def.worker_count = threads;
	def.parallel = pool != NULL ? run_on_pool : NULL;
	def.parallel_context = pool;
	def.use_gpu = options->gpu;
	kl_broadphase* bp = kl_broadphase_create(&def);
	int32_t* proxies = malloc((size_t)m.capacity * sizeof(int32_t));
	double ms = -1.0;
	if (bp != NULL && proxies != NULL && (threads == 1 || pool != NULL))
	{
		ms = time_updates(scene, bp, &m, proxies, options, result);
	}
	else
	{
		fprintf(stderr, "kollide-bench: %s: setup failed\n", scene->name);
	}
	if (bp != NULL)
	{
		kl_broadphase_destroy(bp);
	}
	kl_thread_pool_destroy(pool);
	free(proxies);
	kl_bp_motion_free(&m);
	return ms;
}
