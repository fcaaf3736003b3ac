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
