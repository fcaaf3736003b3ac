// Kollide narrowphase — the point-shell search on the CPU (pointshell.h): the plan of the OBB stage
// (pointshell_plan.c), then the kernels of pointshell_kernels.h over the worker threads, a radix
// sort with unique, and the triangle stage.
// SPDX-License-Identifier: MIT
#include "pointshell.h"

#include "radix_sort.h"
#include "thread_pool.h"

#include <string.h>

/// One worker's candidate keys, grown on demand.
struct kl_ps_worker_keys
{
	uint64_t* keys;
	uint32_t count;
	uint32_t capacity;
};

static bool grow_u64(uint64_t** array, uint32_t* capacity, uint64_t need)
{
	if (need <= *capacity)
	{
		return true;
	}
	if (need > UINT32_MAX / 2)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "point shell: %llu candidates", (unsigned long long)need);
		return false;
	}
	uint32_t grown = *capacity > 0 ? *capacity : 1024;
	while (grown < need)
	{
		grown *= 2;
	}
	uint64_t* p = kl_realloc(*array, grown, sizeof(uint64_t));
	if (p == NULL)
	{
		return false;
	}
	*array = p;
	*capacity = grown;
	return true;
}


void kl_ps_batch_free(kl_ps_batch* b)
{
	kl_free(b->works);
	kl_free(b->models);
	kl_free(b->world);
	kl_free(b->keys);
	kl_free(b->spare);
	kl_free(b->pair_begin);
	kl_free(b->views);
	kl_free(b->boxes);
	for (int w = 0; w < b->worker_capacity; ++w)
	{
		kl_free(b->per_worker[w].keys);
	}
	kl_free(b->per_worker);
	memset(b, 0, sizeof(*b));
}


// ---------------------------------------------------------------------------------------------
// Point shells into octrees, on the workers

typedef struct shell_task
{
	kl_ps_batch* batch;
	kl_ps_model_view* views;
	bool failed[64];
} shell_task;

/// Runs one item (a triangle, or one sample with sample_items) into the worker's keys, growing
/// them and running it again when it overflowed. False when out of memory.
static bool run_item(const kl_ps_batch* b, const shell_task* t, const kl_ps_work* work, int index,
					 struct kl_ps_worker_keys* out)
{
	const kl_ps_model_view* p = t->views + work->p_model;
	const kl_ps_model_view* q = t->views + work->q_model;
	for (;;)
	{
		uint32_t before = out->count;
		if (out->capacity - out->count < 4096 && !grow_u64(&out->keys, &out->capacity, out->count + 4096u))
		{
			return false;
		}
		kl_ps_emitter e = {out->keys, &out->count, out->capacity, NULL, 0u, NULL};
		if (b->sample_items)
		{
			kl_ps_query_sample(p, q, work, index, &e);
		}
		else
		{
			kl_ps_query_triangle(p, q, work, p->tris[p->congs[work->p_cong].tri_begin + index], &e);
		}
		if (out->count <= out->capacity)
		{
			return true;
		}
		uint64_t need = out->count;
		out->count = before;
		if (!grow_u64(&out->keys, &out->capacity, need))
		{
			return false;
		}
	}
}

/// The items [begin, stop) of one partition into its own key list.
static void run_partition(int begin, int stop, int part, int worker, void* context)
{
	(void)worker;
	shell_task* t = context;
	kl_ps_batch* b = t->batch;
	bool by_sample = b->sample_items;
	struct kl_ps_worker_keys* out = b->per_worker + part;
	out->count = 0;
	int w = begin < stop ? kl_ps_find_work(b->works, b->work_count, begin, by_sample) : 0;
	for (int item = begin; item < stop; ++item)
	{
		while (w + 1 < b->work_count && (by_sample ? b->works[w + 1].sample_begin : b->works[w + 1].item_begin) <= item)
		{
			++w;
		}
		const kl_ps_work* work = b->works + w;
		if (!run_item(b, t, work, item - (by_sample ? work->sample_begin : work->item_begin), out))
		{
			t->failed[part] = true;
			return;
		}
	}
}

typedef struct triangle_task
{
	const kl_ps_batch* batch;
	const kl_ps_pair_query* pairs;
	uint8_t* keep;
} triangle_task;

/// The alarm test of one key, as the GPU runs it.
static bool key_near(const kl_ps_batch* b, const kl_ps_pair_query* pairs, uint64_t key)
{
	const kl_ps_pair_query* q = pairs + kl_ps_key_pair(key);
	kl_ps_model_view a = kl_pointshell_view(q->a.model), v = kl_pointshell_view(q->b.model);
	float tolerance = 1e-5f * (q->a.model->coverage * q->a.max_scale + q->b.model->coverage * q->b.max_scale) + 1e-7f;
	return kl_ps_candidate_near(&a, &v, b->world, key, q->margin, tolerance, 0, 1);
}

/// The triangle stage of keys [begin, end).
static void run_triangles(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	triangle_task* t = context;
	for (int i = begin; i < end; ++i)
	{
		t->keep[i] = key_near(t->batch, t->pairs, t->batch->keys[i]) ? 1 : 0;
	}
}

/// Gathers the workers' keys into batch->keys.
static bool gather_keys(kl_ps_batch* b, int parts, kl_ps_stats* stats)
{
	uint64_t total = 0;
	for (int p = 0; p < parts; ++p)
	{
		total += b->per_worker[p].count;
	}
	if (!grow_u64(&b->keys, &b->key_capacity, total) || !grow_u64(&b->spare, &b->spare_capacity, total))
	{
		return false;
	}
	b->key_count = 0;
	for (int p = 0; p < parts; ++p)
	{
		if (b->per_worker[p].count > 0) // a worker without items has no buffer yet
		{
			memcpy(b->keys + b->key_count, b->per_worker[p].keys, b->per_worker[p].count * sizeof(uint64_t));
			b->key_count += b->per_worker[p].count;
		}
	}
	stats->raw_candidates = (long long)total;
	return true;
}

/// Sorts the keys and drops repeats.
bool kl_ps_sort_unique(kl_ps_batch* b)
{
	if (!grow_u64(&b->spare, &b->spare_capacity, b->key_count))
	{
		return false;
	}
	if (b->key_count > 1 && !kl_radix_sort_u64(b->keys, b->spare, (int)b->key_count))
	{
		return false;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < b->key_count; ++i)
	{
		if (n == 0 || b->keys[n - 1] != b->keys[i])
		{
			b->keys[n++] = b->keys[i];
		}
	}
	b->key_count = n;
	return true;
}

/// pair_begin from the sorted keys.
void kl_ps_pair_ranges(kl_ps_batch* b, int pair_count)
{
	uint32_t k = 0;
	for (int p = 0; p <= pair_count; ++p)
	{
		while (k < b->key_count && kl_ps_key_pair(b->keys[k]) < p)
		{
			++k;
		}
		b->pair_begin[p] = (int)k;
	}
	b->pair_begin[pair_count] = (int)b->key_count;
}

kl_result kl_ps_search_cpu(const kl_ps_pair_query* pairs, int pair_count, bool force_all, kl_thread_pool* pool,
						   int worker_count, kl_ps_batch* b, kl_ps_stats* stats)
{
	kl_ps_stats ignored;
	stats = stats != NULL ? stats : &ignored;
	memset(stats, 0, sizeof(*stats));
	kl_result r = kl_ps_plan(pairs, pair_count, force_all, b, stats);
	if (r != KL_OK)
	{
		return r;
	}
	// Static partitions, 64 across a pool, one on the calling thread: the results do not depend on
	// them (the sort orders the keys).
	int parts = pool != NULL ? 64 : 1;
	(void)worker_count;
	int had = b->worker_capacity;
	if (!kl_ps_grow((void**)&b->per_worker, &b->worker_capacity, parts, sizeof(struct kl_ps_worker_keys)))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	memset(b->per_worker + had, 0, (size_t)(b->worker_capacity - had) * sizeof(struct kl_ps_worker_keys));
	if (!kl_ps_grow((void**)&b->views, &b->view_capacity, b->model_count > 0 ? b->model_count : 1, sizeof(kl_ps_model_view)))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_ps_model_view* views = b->views;
	for (int i = 0; i < b->model_count; ++i)
	{
		views[i] = kl_pointshell_view(b->models[i]);
	}
	double t0 = kl_time_seconds();
	shell_task task;
	memset(&task, 0, sizeof(task));
	task.batch = b;
	task.views = views;
	kl_parallel workers = kl_thread_pool_parallel(pool, parts);
	kl_parallel_ranges(workers, b->sample_items ? b->sample_count : b->item_count, 0, run_partition, &task);
	for (int p = 0; p < parts; ++p)
	{
		if (task.failed[p])
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
	}
	double t1 = kl_time_seconds();
	stats->shell_ms = 1e3 * (t1 - t0);
	if (!gather_keys(b, parts, stats) || !kl_ps_sort_unique(b))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	stats->unique_candidates = (int)b->key_count;
	double t2 = kl_time_seconds();
	stats->sort_ms = 1e3 * (t2 - t1);
	// The spare buffer holds the flags of the triangle stage (a byte per key fits in 8).
	triangle_task tt = {b, pairs, (uint8_t*)b->spare};
	kl_parallel_ranges(workers, (int)b->key_count, 0, run_triangles, &tt);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < b->key_count; ++i)
	{
		if (tt.keep[i])
		{
			b->keys[kept++] = b->keys[i];
		}
	}
	b->key_count = kept;
	kl_ps_pair_ranges(b, pair_count);
	stats->near_pairs = (int)kept;
	stats->triangle_ms = 1e3 * (kl_time_seconds() - t2);
	return KL_OK;
}

