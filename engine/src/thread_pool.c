// Kollide internal — a small pthread worker pool. Worker w runs partitions w, w + W, w + 2W, ...
// so the assignment is static; the caller thread is worker 0.
// SPDX-License-Identifier: MIT
#include "thread_pool.h"

#include "core.h"

#include <pthread.h>

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
	pthread_cond_t work_done;
	kl_worker* workers;
	int worker_count;
	int started; ///< threads successfully started
	uint64_t job_generation;
	int pending; ///< workers still running the current job
	bool quit;
	kl_task_fn* task;
	void* context;
	int partition_count;
};

static void run_share(kl_thread_pool* pool, int worker)
{
	for (int p = worker; p < pool->partition_count; p += pool->worker_count)
	{
		pool->task(p, p + 1, worker, pool->context);
	}
}

static void* worker_main(void* arg)
{
	kl_worker* self = arg;
	kl_thread_pool* pool = self->pool;
	uint64_t seen = 0;
	pthread_mutex_lock(&pool->mutex);
	for (;;)
	{
		while (!pool->quit && pool->job_generation == seen)
		{
			pthread_cond_wait(&pool->work_ready, &pool->mutex);
		}
		if (pool->quit)
		{
			break;
		}
		seen = pool->job_generation;
		pthread_mutex_unlock(&pool->mutex);
		run_share(pool, self->index);
		pthread_mutex_lock(&pool->mutex);
		if (--pool->pending == 0)
		{
			pthread_cond_signal(&pool->work_done);
		}
	}
	pthread_mutex_unlock(&pool->mutex);
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
	pthread_cond_init(&pool->work_done, NULL);
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
	pool->quit = true;
	pthread_cond_broadcast(&pool->work_ready);
	pthread_mutex_unlock(&pool->mutex);
	for (int i = 1; i <= pool->started; ++i)
	{
		pthread_join(pool->workers[i].thread, NULL);
	}
	pthread_cond_destroy(&pool->work_done);
	pthread_cond_destroy(&pool->work_ready);
	pthread_mutex_destroy(&pool->mutex);
	kl_free(pool->workers);
	kl_free(pool);
}

void kl_thread_pool_run(kl_thread_pool* pool, kl_task_fn* task, int partition_count, void* context)
{
	pthread_mutex_lock(&pool->mutex);
	pool->task = task;
	pool->context = context;
	pool->partition_count = partition_count;
	pool->pending = pool->worker_count - 1;
	pool->job_generation += 1;
	pthread_cond_broadcast(&pool->work_ready);
	pthread_mutex_unlock(&pool->mutex);

	run_share(pool, 0);

	pthread_mutex_lock(&pool->mutex);
	while (pool->pending > 0)
	{
		pthread_cond_wait(&pool->work_done, &pool->mutex);
	}
	pthread_mutex_unlock(&pool->mutex);
}
