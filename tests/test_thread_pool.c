// The worker pool: every partition of every job runs exactly once, whatever the worker and
// partition counts, and a thread held up in one partition leaves the job's other partitions to the
// other threads (a worker that loses its core to another process does not stall the step).
// SPDX-License-Identifier: MIT
#include "thread_pool.h"

#include "kl_test.h"

#include <sched.h>
#include <stdatomic.h>

#define MAX_PARTS 64

typedef struct count_job
{
	_Atomic int runs[MAX_PARTS];
	_Atomic int wrong_range;
} count_job;

static void count_task(int start, int end, int worker, void* context)
{
	count_job* job = context;
	(void)worker;
	if (end != start + 1 || start < 0 || start >= MAX_PARTS)
	{
		atomic_fetch_add(&job->wrong_range, 1);
		return;
	}
	atomic_fetch_add(&job->runs[start], 1);
}

static void test_every_partition_runs_once(void** state)
{
	(void)state;
	for (int workers = 1; workers <= 4; ++workers)
	{
		kl_thread_pool* pool = kl_thread_pool_create(workers);
		assert_non_null(pool);
		for (int round = 0; round < 2000; ++round)
		{
			int parts = round % (MAX_PARTS + 1); // 0 to MAX_PARTS, fewer and more than the workers
			count_job job = {0};
			kl_thread_pool_run(pool, count_task, parts, &job);
			assert_int_equal(atomic_load(&job.wrong_range), 0);
			for (int p = 0; p < MAX_PARTS; ++p)
			{
				assert_int_equal(atomic_load(&job.runs[p]), p < parts ? 1 : 0);
			}
		}
		kl_thread_pool_destroy(pool);
	}
}

typedef struct held_job
{
	_Atomic int started;
	_Atomic int finished;
	int parts;
} held_job;

/// The first partition to start waits until every other one has finished. With partitions dealt
/// to threads in advance, the held thread would own more of them and the job would never end.
static void held_task(int start, int end, int worker, void* context)
{
	held_job* job = context;
	(void)worker;
	for (int p = start; p < end; ++p)
	{
		if (atomic_fetch_add(&job->started, 1) == 0)
		{
			while (atomic_load(&job->finished) < job->parts - 1)
			{
				sched_yield();
			}
		}
		atomic_fetch_add(&job->finished, 1);
	}
}

static void test_held_thread_leaves_its_share(void** state)
{
	(void)state;
	for (int workers = 2; workers <= 3; ++workers)
	{
		kl_thread_pool* pool = kl_thread_pool_create(workers);
		assert_non_null(pool);
		for (int round = 0; round < 200; ++round)
		{
			held_job job = {.parts = 4 * workers};
			kl_thread_pool_run(pool, held_task, job.parts, &job);
			assert_int_equal(atomic_load(&job.finished), job.parts);
		}
		kl_thread_pool_destroy(pool);
	}
}

typedef struct items_job
{
	_Atomic int visits[1000];
	_Atomic int bad_part;
} items_job;

static void visit_range(int begin, int end, int part, int worker, void* context)
{
	items_job* job = context;
	(void)worker;
	int expected_begin, expected_end;
	kl_partition_range(1000, 5, part, &expected_begin, &expected_end);
	if (begin != expected_begin || end != expected_end)
	{
		atomic_fetch_add(&job->bad_part, 1);
	}
	for (int i = begin; i < end; ++i)
	{
		atomic_fetch_add(&job->visits[i], 1);
	}
}

static void test_parallel_ranges_cover_items_once(void** state)
{
	(void)state;
	kl_thread_pool* pool = kl_thread_pool_create(3);
	assert_non_null(pool);
	for (int min_parallel = 0; min_parallel <= 2000; min_parallel += 2000) // on the pool, then inline
	{
		items_job job = {0};
		kl_parallel_ranges(kl_thread_pool_parallel(pool, 5), 1000, min_parallel, visit_range, &job);
		assert_int_equal(atomic_load(&job.bad_part), 0);
		for (int i = 0; i < 1000; ++i)
		{
			assert_int_equal(atomic_load(&job.visits[i]), 1);
		}
	}
	kl_thread_pool_destroy(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_partition_runs_once),
		cmocka_unit_test(test_held_thread_leaves_its_share),
		cmocka_unit_test(test_parallel_ranges_cover_items_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
