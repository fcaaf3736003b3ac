// Kollide internal — a small pthread worker pool. Worker w runs partitions w, w + W, w + 2W, ...
// so the assignment is static; the caller thread is worker 0.
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
	_Atomic uint64_t job_generation;
	_Atomic int pending;  ///< workers still running the current job
	_Atomic int sleepers; ///< workers blocked on work_ready
	_Atomic bool quit;
	kl_task_fn* task;
	void* context;
	int partition_count;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void run_share(kl_thread_pool* pool, int worker)
{
	for (int p = worker; p < pool->partition_count; p += pool->worker_count)
	{
		pool->task(p, p + 1, worker, pool->context);
	}
}

/// Waits until the job generation differs from `seen` (or the pool quits): spins first, then sleeps.
static uint64_t wait_for_job(kl_thread_pool* pool, uint64_t seen)
{
	int spins = 0;
	for (;;)
	{
		uint64_t g = atomic_load(&pool->job_generation);
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
	uint64_t seen = 0;
	for (;;)
	{
		seen = wait_for_job(pool, seen);
		if (atomic_load(&pool->quit))
		{
			break;
		}
		run_share(pool, self->index);
		atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_release);
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
	atomic_init(&pool->pending, 0);
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
	pool->task = task;
	pool->context = context;
	pool->partition_count = partition_count;
	atomic_store(&pool->pending, pool->started);
	atomic_fetch_add(&pool->job_generation, 1); // publishes the job (sequentially consistent)
	if (atomic_load(&pool->sleepers) > 0)
	{
		pthread_mutex_lock(&pool->mutex);
		pthread_cond_broadcast(&pool->work_ready);
		pthread_mutex_unlock(&pool->mutex);
	}

	run_share(pool, 0);

	// Workers finish within microseconds of the caller; yield only if one was descheduled.
	int spins = 0;
	while (atomic_load_explicit(&pool->pending, memory_order_acquire) > 0)
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
