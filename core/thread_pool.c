// Kollide internal — a small pthread worker pool. The caller (worker 0) and the workers claim a
// job's partitions one at a time from a shared counter, so a worker that another process keeps off
// its core leaves its share to the others instead of holding up the step. Which thread runs a
// partition never changes a result: tasks write per partition and use per-worker memory only as
// scratch.
// SPDX-License-Identifier: MIT
#include "thread_pool.h"

#include "core.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

/// Spin iterations (each a pause, tens of nanoseconds) a worker waits for the next job before it
/// sleeps on the condition variable: the solver issues a job per colour and stage, often a hundred
/// per step, and waking a sleeping thread costs more than most of those jobs.
#define KL_SPIN_LIMIT 4000

typedef struct kl_worker
{
	kl_thread_pool* pool;
	pthread_t thread;
	int index;
} kl_worker;

struct kl_thread_pool
{
	pthread_mutex_t mutex;
	pthread_cond_t work_ready;
	kl_worker* workers;
	int worker_count;
	int started; ///< threads successfully started
	_Atomic uint32_t job_generation; ///< the current job's number; workers wait for it to change
	/// The current job's number (high 32 bits) and its next unclaimed partition (low 32 bits): a
	/// claim is one compare-and-swap that fails once the job is over, so a late worker never runs
	/// a partition of a job it did not see start.
	_Atomic uint64_t claim;
	_Atomic int done;	  ///< partitions of the current job finished
	_Atomic int sleepers; ///< workers blocked on work_ready
	_Atomic bool quit;
	kl_task_fn* task;
	void* context;
	_Atomic int partition_count;
	uint32_t generation; ///< the caller's job counter
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/// Claims and runs partitions of job `generation` until none is left (or the job is over).
static void run_claims(kl_thread_pool* pool, uint32_t generation, int worker)
{
	uint64_t claim = atomic_load(&pool->claim);
	for (;;)
	{
		int p = (int)(claim & 0xffffffffu);
		if ((uint32_t)(claim >> 32) != generation ||
			p >= atomic_load_explicit(&pool->partition_count, memory_order_relaxed))
		{
			return;
		}
		// A failed exchange reloads the claim word: another thread took p, or a new job began.
		if (atomic_compare_exchange_weak(&pool->claim, &claim, claim + 1))
		{
			pool->task(p, p + 1, worker, pool->context);
			atomic_fetch_add_explicit(&pool->done, 1, memory_order_release);
			claim = atomic_load(&pool->claim);
		}
	}
}

/// Waits until the job generation differs from `seen` (or the pool quits): spins first, then sleeps.
static uint32_t wait_for_job(kl_thread_pool* pool, uint32_t seen)
{
	int spins = 0;
	for (;;)
	{
		uint32_t g = atomic_load(&pool->job_generation);
		if (g != seen || atomic_load(&pool->quit))
		{
			return g;
		}
		if (++spins < KL_SPIN_LIMIT)
		{
			cpu_relax();
			continue;
		}
		// The caller publishes a job and then checks `sleepers` (both sequentially consistent);
		// registering under the mutex before re-checking means a broadcast is never missed.
		pthread_mutex_lock(&pool->mutex);
		atomic_fetch_add(&pool->sleepers, 1);
		while (atomic_load(&pool->job_generation) == seen && !atomic_load(&pool->quit))
		{
			pthread_cond_wait(&pool->work_ready, &pool->mutex);
		}
		atomic_fetch_sub(&pool->sleepers, 1);
		pthread_mutex_unlock(&pool->mutex);
		spins = 0;
	}
}

static void* worker_main(void* arg)
{
	kl_worker* self = arg;
	kl_thread_pool* pool = self->pool;
	uint32_t seen = 0;
	for (;;)
	{
		seen = wait_for_job(pool, seen);
		if (atomic_load(&pool->quit))
		{
			break;
		}
		run_claims(pool, seen, self->index);
	}
	return NULL;
}

kl_thread_pool* kl_thread_pool_create(int worker_count)
{
	kl_thread_pool* pool = kl_alloc_zero(1, sizeof(kl_thread_pool));
	if (pool == NULL)
	{
		return NULL;
	}
	pool->worker_count = worker_count;
	pool->workers = kl_alloc_zero((size_t)worker_count, sizeof(kl_worker));
	if (pool->workers == NULL)
	{
		kl_free(pool);
		return NULL;
	}
	pthread_mutex_init(&pool->mutex, NULL);
	pthread_cond_init(&pool->work_ready, NULL);
	atomic_init(&pool->job_generation, 0);
	atomic_init(&pool->claim, 0);
	atomic_init(&pool->done, 0);
	atomic_init(&pool->partition_count, 0);
	atomic_init(&pool->sleepers, 0);
	atomic_init(&pool->quit, false);
	for (int i = 1; i < worker_count; ++i)
	{
		kl_worker* w = &pool->workers[i];
		w->pool = pool;
		w->index = i;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "could not start worker thread %d of %d", i, worker_count);
			kl_thread_pool_destroy(pool);
			return NULL;
		}
		pool->started = i;
	}
	return pool;
}

void kl_thread_pool_destroy(kl_thread_pool* pool)
{
	if (pool == NULL)
	{
		return;
	}
	pthread_mutex_lock(&pool->mutex);
	atomic_store(&pool->quit, true);
	pthread_cond_broadcast(&pool->work_ready);
	pthread_mutex_unlock(&pool->mutex);
	for (int i = 1; i <= pool->started; ++i)
	{
		pthread_join(pool->workers[i].thread, NULL);
	}
	pthread_cond_destroy(&pool->work_ready);
	pthread_mutex_destroy(&pool->mutex);
	kl_free(pool->workers);
	kl_free(pool);
}

void kl_thread_pool_run(kl_thread_pool* pool, kl_task_fn* task, int partition_count, void* context)
{
	uint32_t generation = ++pool->generation;
	pool->task = task;
	pool->context = context;
	atomic_store_explicit(&pool->partition_count, partition_count, memory_order_relaxed);
	atomic_store_explicit(&pool->done, 0, memory_order_relaxed);
	// Both stores are sequentially consistent: a worker that sees the new claim word sees the job.
	atomic_store(&pool->claim, (uint64_t)generation << 32);
	atomic_store(&pool->job_generation, generation);
	if (atomic_load(&pool->sleepers) > 0)
	{
		pthread_mutex_lock(&pool->mutex);
		pthread_cond_broadcast(&pool->work_ready);
		pthread_mutex_unlock(&pool->mutex);
	}

	run_claims(pool, generation, 0);

	// Every partition is claimed; wait for those still running on workers. They finish within
	// microseconds unless their thread lost its core, and then yielding gives it back.
	int spins = 0;
	while (atomic_load_explicit(&pool->done, memory_order_acquire) < partition_count)
	{
		if (++spins < KL_SPIN_LIMIT)
		{
			cpu_relax();
		}
		else
		{
			sched_yield();
		}
	}
}

typedef struct kl_range_job
{
	kl_range_fn* fn;
	void* context;
	int count;
	int parts;
} kl_range_job;

/// Partitions [start, end) of a kl_parallel_ranges loop (a kl_task_fn).
static void range_task(int start, int end, int worker, void* context)
{
	const kl_range_job* job = context;
	for (int part = start; part < end; ++part)
	{
		int begin, stop;
		kl_partition_range(job->count, job->parts, part, &begin, &stop);
		job->fn(begin, stop, part, worker, job->context);
	}
}

void kl_parallel_ranges(kl_parallel where, int count, int min_parallel, kl_range_fn* fn, void* context)
{
	kl_range_job job = {fn, context, count, where.parts};
	if (where.run == NULL || where.parts <= 1 || count < min_parallel)
	{
		range_task(0, where.parts, 0, &job);
	}
	else
	{
		where.run(range_task, where.parts, &job, where.context);
	}
}

static void pool_run(kl_task_fn* task, int partition_count, void* task_context, void* context)
{
	kl_thread_pool_run(context, task, partition_count, task_context);
}

kl_parallel kl_thread_pool_parallel(kl_thread_pool* pool, int parts)
{
	return (kl_parallel){pool != NULL ? pool_run : NULL, pool, parts};
}
