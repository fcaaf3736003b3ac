// Kollide internal — the world's worker pool. Work is split into a fixed number of partitions
// (one per worker) by index range, so results never depend on scheduling.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

typedef struct kl_thread_pool kl_thread_pool;

/// Starts worker_count - 1 threads (the caller is worker 0). NULL on failure.
kl_thread_pool* kl_thread_pool_create(int worker_count);
void kl_thread_pool_destroy(kl_thread_pool* pool);

/// Runs task(start, end, worker, context) for the partitions [0, partition_count) and waits.
void kl_thread_pool_run(kl_thread_pool* pool, kl_task_fn* task, int partition_count, void* context);

/// The half-open item range of partition p when count items are split into parts partitions.
static inline void kl_partition_range(int count, int parts, int p, int* begin, int* end)
{
	*begin = (int)((int64_t)count * p / parts);
	*end = (int)((int64_t)count * (p + 1) / parts);
}

/// Runs task(start, end, worker, task_context) over the partitions [0, partition_count) on some workers
/// (the pool, a user task system) and waits.
typedef void kl_parallel_fn(kl_task_fn* task, int partition_count, void* task_context, void* context);

/// Where a parallel loop runs.
typedef struct kl_parallel
{
	kl_parallel_fn* run; ///< NULL: the calling thread runs every partition
	void* context;		 ///< run's context
	int parts;			 ///< partitions: results may depend on them, never on the thread that runs one
} kl_parallel;

/// One partition of a parallel loop: its items [begin, end), partition index part, run by worker.
typedef void kl_range_fn(int begin, int end, int part, int worker, void* context);

/// The parallel loop: count items split into where.parts ranges (kl_partition_range), fn once per
/// partition, each call's partitions in ascending order. With one partition, no where.run or fewer than
/// min_parallel items, all run on the calling thread: waking workers would cost more than the work, and
/// the ranges are the same either way. Each caller sets min_parallel for its loop, as the work of one
/// item differs from loop to loop.
void kl_parallel_ranges(kl_parallel where, int count, int min_parallel, kl_range_fn* fn, void* context);

/// The pool's workers over parts partitions; a NULL pool runs them on the calling thread.
kl_parallel kl_thread_pool_parallel(kl_thread_pool* pool, int parts);
