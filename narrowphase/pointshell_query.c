// Kollide narrowphase — the point-shell search on the CPU (pointshell.h): the OBB stage that plans
// the works (shared with the GPU path), then the kernels of pointshell_kernels.h over the worker
// threads, a radix sort with unique, and the triangle stage.
// SPDX-License-Identifier: MIT
#include "pointshell.h"

#include "radix_sort.h"
#include "thread_pool.h"

#include <float.h>
#include <string.h>

/// One worker's candidate keys, grown on demand.
struct kl_ps_worker_keys
{
	uint64_t* keys;
	uint32_t count;
	uint32_t capacity;
};

static bool grow(void** array, int* capacity, int need, size_t size)
{
	if (need <= *capacity)
	{
		return true;
	}
	int grown = *capacity > 0 ? *capacity : 16;
	while (grown < need)
	{
		grown *= 2;
	}
	void* p = kl_realloc(*array, (size_t)grown, size);
	if (p == NULL)
	{
		return false;
	}
	*array = p;
	*capacity = grown;
	return true;
}

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

kl_ps_body kl_ps_body_make(const kl_pointshell* model, kl_transform xf, vec3s scale)
{
	kl_ps_body b;
	b.model = model;
	vec3s axes[3] = {kl_rotate(xf.q, kl_vec3(scale.x, 0.0f, 0.0f)), kl_rotate(xf.q, kl_vec3(0.0f, scale.y, 0.0f)),
					 kl_rotate(xf.q, kl_vec3(0.0f, 0.0f, scale.z))};
	float t[3] = {xf.p.x, xf.p.y, xf.p.z};
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			b.xf.m[4 * r + c] = axes[c].raw[r];
		}
		b.xf.m[4 * r + 3] = t[r];
	}
	b.min_scale = fminf(scale.x, fminf(scale.y, scale.z));
	b.max_scale = fmaxf(scale.x, fmaxf(scale.y, scale.z));
	return b;
}

void kl_ps_stats_add(kl_ps_stats* a, const kl_ps_stats* b)
{
	a->obb_ms += b->obb_ms;
	a->shell_ms += b->shell_ms;
	a->sort_ms += b->sort_ms;
	a->triangle_ms += b->triangle_ms;
	a->transfer_ms += b->transfer_ms;
	a->searches += b->searches;
	a->cong_pairs += b->cong_pairs;
	a->items += b->items;
	a->raw_candidates += b->raw_candidates;
	a->unique_candidates += b->unique_candidates;
	a->near_pairs += b->near_pairs;
}

// ---------------------------------------------------------------------------------------------
// The OBB stage

/// inverse(to) ∘ from, in double: the map from `from`'s object frame into `to`'s. False when `to`
/// is singular.
static bool relative_xform(const kl_ps_xform* from, const kl_ps_xform* to, kl_ps_xform* out)
{
	const float* b = to->m;
	double m[3][3] = {{b[0], b[1], b[2]}, {b[4], b[5], b[6]}, {b[8], b[9], b[10]}};
	double inv[3][3];
	inv[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
	inv[0][1] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
	inv[0][2] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
	inv[1][0] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
	inv[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
	inv[1][2] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
	inv[2][0] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
	inv[2][1] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
	inv[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
	double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
	if (!(fabs(det) > 1e-30) || !isfinite(det))
	{
		return false;
	}
	const float* a = from->m;
	double d[3] = {(double)a[3] - b[3], (double)a[7] - b[7], (double)a[11] - b[11]};
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			double s = 0.0;
			for (int k = 0; k < 3; ++k)
			{
				s += inv[r][k] * a[4 * k + c];
			}
			out->m[4 * r + c] = (float)(s / det);
		}
		out->m[4 * r + 3] = (float)((inv[r][0] * d[0] + inv[r][1] * d[1] + inv[r][2] * d[2]) / det);
	}
	return true;
}

static int model_index(kl_ps_batch* b, const kl_pointshell* m)
{
	for (int i = 0; i < b->model_count; ++i)
	{
		if (b->models[i] == m)
		{
			return i;
		}
	}
	if (!grow((void**)&b->models, &b->model_capacity, b->model_count + 1, sizeof(*b->models)))
	{
		return -1;
	}
	b->models[b->model_count] = m;
	return b->model_count++;
}

static bool xform_finite(const kl_ps_xform* x)
{
	for (int i = 0; i < 12; ++i)
	{
		if (!isfinite(x->m[i]))
		{
			return false;
		}
	}
	return true;
}

static kl_result check_pair(const kl_ps_pair_query* q, int i)
{
	if (q->a.model == NULL || q->b.model == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: pair %d has no model", i);
	}
	if (!xform_finite(&q->a.xf) || !xform_finite(&q->b.xf) || !(q->margin >= 0.0f) || !isfinite(q->margin) ||
		!(q->a.min_scale > 0.0f) || !(q->b.min_scale > 0.0f) || !isfinite(q->a.max_scale) ||
		!isfinite(q->b.max_scale))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: pair %d has a bad transform, scale or margin", i);
	}
	return KL_OK;
}

/// Adds the work of one direction: p_cong of body p into q_cong of body q.
static bool add_work(kl_ps_batch* b, int pair, const kl_ps_body* p, int p_model, int p_cong, const kl_ps_body* q,
					 int q_model, int q_cong, bool swap, const kl_ps_xform* p_to_q, float margin)
{
	if (!grow((void**)&b->works, &b->work_capacity, b->work_count + 1, sizeof(kl_ps_work)))
	{
		return false;
	}
	const kl_ps_conglomerate* pc = p->model->congs + p_cong;
	const kl_ps_conglomerate* qc = q->model->congs + q_cong;
	kl_ps_work* w = b->works + b->work_count++;
	w->pair = pair;
	w->p_model = p_model;
	w->q_model = q_model;
	w->p_cong = p_cong;
	w->q_cong = q_cong;
	w->swap = swap ? 1 : 0;
	// Samples of two triangles within the alarm distance lie within both coverages plus it (world),
	// measured in q's unscaled frame; a little slack for the float transforms.
	w->p_factor = p->max_scale / q->min_scale * 1.0001f;
	w->q_factor = q->max_scale / q->min_scale * 1.0001f;
	w->reach = margin / q->min_scale * 1.0001f + 1e-6f * qc->root_edge;
	if ((long long)b->sample_count + pc->point_count > INT32_MAX)
	{
		kl_fail(KL_ERR_LIMIT, "point shell: more than %d samples in one search", INT32_MAX);
		return false;
	}
	w->item_begin = b->item_count;
	w->sample_begin = b->sample_count;
	w->p_to_q = *p_to_q;
	b->item_count += pc->tri_count;
	b->sample_count += (int)pc->point_count;
	return true;
}

/// Every conglomerate pair of one body pair whose boxes come within the margin (all when forced).
static kl_result plan_pair(kl_ps_batch* b, const kl_ps_pair_query* q, int pair, bool force_all, kl_ps_box* boxes,
						   kl_ps_stats* stats)
{
	kl_ps_box oa = kl_ps_place_obb(&q->a.model->obb, &q->a.xf);
	kl_ps_box ob = kl_ps_place_obb(&q->b.model->obb, &q->b.xf);
	if (!force_all && !kl_ps_boxes_overlap(&oa, &ob, q->margin))
	{
		return KL_OK;
	}
	kl_ps_xform a_to_b, b_to_a;
	if (!relative_xform(&q->a.xf, &q->b.xf, &a_to_b) || !relative_xform(&q->b.xf, &q->a.xf, &b_to_a))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: pair %d has a singular transform", pair);
	}
	int ma = model_index(b, q->a.model), mb = model_index(b, q->b.model);
	if (ma < 0 || mb < 0)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	int na = q->a.model->cong_count, nb = q->b.model->cong_count;
	for (int i = 0; i < na; ++i)
	{
		boxes[i] = kl_ps_place_obb(&q->a.model->congs[i].obb, &q->a.xf);
	}
	for (int j = 0; j < nb; ++j)
	{
		boxes[na + j] = kl_ps_place_obb(&q->b.model->congs[j].obb, &q->b.xf);
	}
	for (int i = 0; i < na; ++i)
	{
		for (int j = 0; j < nb; ++j)
		{
			if (!force_all && !kl_ps_boxes_overlap(boxes + i, boxes + na + j, q->margin))
			{
				continue;
			}
			if (!add_work(b, pair, &q->a, ma, i, &q->b, mb, j, false, &a_to_b, q->margin) ||
				!add_work(b, pair, &q->b, mb, j, &q->a, ma, i, true, &b_to_a, q->margin))
			{
				return KL_ERR_OUT_OF_MEMORY;
			}
			stats->cong_pairs++;
		}
	}
	return KL_OK;
}

kl_result kl_ps_plan(const kl_ps_pair_query* pairs, int pair_count, bool force_all, kl_ps_batch* b, kl_ps_stats* stats)
{
	double start = kl_time_seconds();
	b->work_count = 0;
	b->item_count = 0;
	b->sample_count = 0;
	b->model_count = 0;
	b->key_count = 0;
	if (pair_count < 0 || pair_count > KL_PS_MAX_PAIRS || (pair_count > 0 && pairs == NULL))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: %d pairs (at most %d)", pair_count, KL_PS_MAX_PAIRS);
	}
	int most_congs = 0;
	for (int i = 0; i < pair_count; ++i)
	{
		kl_result r = check_pair(pairs + i, i);
		if (r != KL_OK)
		{
			return r;
		}
		most_congs = (int)fmax(most_congs, pairs[i].a.model->cong_count + pairs[i].b.model->cong_count);
	}
	if (!grow((void**)&b->world, &b->world_capacity, 2 * pair_count + 2, sizeof(kl_ps_xform)) ||
		!grow((void**)&b->pair_begin, &b->pair_capacity, pair_count + 1, sizeof(int)))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	if (!grow((void**)&b->boxes, &b->box_capacity, most_congs > 0 ? most_congs : 1, sizeof(kl_ps_box)))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_result r = KL_OK;
	for (int i = 0; r == KL_OK && i < pair_count; ++i)
	{
		b->world[2 * i] = pairs[i].a.xf;
		b->world[2 * i + 1] = pairs[i].b.xf;
		r = plan_pair(b, pairs + i, i, force_all, b->boxes, stats);
	}
	stats->items = b->item_count;
	stats->searches = pair_count;
	stats->obb_ms += 1e3 * (kl_time_seconds() - start);
	return r;
}

// ---------------------------------------------------------------------------------------------
// Point shells into octrees, on the workers

typedef struct shell_task
{
	kl_ps_batch* batch;
	kl_ps_model_view* views;
	int parts;
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
		kl_ps_emitter e = {out->keys, &out->count, out->capacity};
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

static void run_items(int start, int end, int worker, void* context)
{
	shell_task* t = context;
	kl_ps_batch* b = t->batch;
	(void)end;
	(void)worker;
	bool by_sample = b->sample_items;
	int begin, stop;
	kl_partition_range(by_sample ? b->sample_count : b->item_count, t->parts, start, &begin, &stop);
	struct kl_ps_worker_keys* out = b->per_worker + start;
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
			t->failed[start] = true;
			return;
		}
	}
}

typedef struct triangle_task
{
	const kl_ps_batch* batch;
	const kl_ps_pair_query* pairs;
	uint8_t* keep;
	int parts;
} triangle_task;

/// The alarm test of one key, as the GPU runs it.
static bool key_near(const kl_ps_batch* b, const kl_ps_pair_query* pairs, uint64_t key)
{
	const kl_ps_pair_query* q = pairs + kl_ps_key_pair(key);
	kl_ps_model_view a = kl_pointshell_view(q->a.model), v = kl_pointshell_view(q->b.model);
	float tolerance = 1e-5f * (q->a.model->coverage * q->a.max_scale + q->b.model->coverage * q->b.max_scale) + 1e-7f;
	return kl_ps_candidate_near(&a, &v, b->world, key, q->margin, tolerance);
}

static void run_triangles(int start, int end, int worker, void* context)
{
	triangle_task* t = context;
	(void)worker;
	(void)end;
	int begin, stop;
	kl_partition_range((int)t->batch->key_count, t->parts, start, &begin, &stop);
	for (int i = begin; i < stop; ++i)
	{
		t->keep[i] = key_near(t->batch, t->pairs, t->batch->keys[i]) ? 1 : 0;
	}
}

static void run_tasks(kl_thread_pool* pool, kl_task_fn* fn, int parts, void* context)
{
	if (pool != NULL)
	{
		kl_thread_pool_run(pool, fn, parts, context);
		return;
	}
	for (int p = 0; p < parts; ++p)
	{
		fn(p, p + 1, 0, context);
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
	if (!grow((void**)&b->per_worker, &b->worker_capacity, parts, sizeof(struct kl_ps_worker_keys)))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	memset(b->per_worker + had, 0, (size_t)(b->worker_capacity - had) * sizeof(struct kl_ps_worker_keys));
	if (!grow((void**)&b->views, &b->view_capacity, b->model_count > 0 ? b->model_count : 1, sizeof(kl_ps_model_view)))
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
	task.parts = parts;
	run_tasks(pool, run_items, parts, &task);
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
	triangle_task tt = {b, pairs, (uint8_t*)b->spare, parts};
	run_tasks(pool, run_triangles, parts, &tt);
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
