// Kollide narrowphase — the OBB stage of the point-shell search (kl_ps_plan), shared by the CPU and
// GPU paths: object boxes, then the conglomerate boxes of each body pair, planned into works of
// both directions; and the small helpers of bodies, figures and growing arrays.
// SPDX-License-Identifier: MIT
#include "pointshell.h"

#include <string.h>

bool kl_ps_grow(void** array, int* capacity, int need, size_t size)
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
	if (!kl_ps_grow((void**)&b->models, &b->model_capacity, b->model_count + 1, sizeof(*b->models)))
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
	if (!kl_ps_grow((void**)&b->works, &b->work_capacity, b->work_count + 1, sizeof(kl_ps_work)))
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
	// The slack grows with the size of the coordinates the searches round, not only the cube's.
	w->reach = margin / q->min_scale * 1.0001f +
			   1e-6f * (qc->root_edge + fabsf(qc->root_min.x) + fabsf(qc->root_min.y) + fabsf(qc->root_min.z));
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
				return kl_last_error_code(); // out of memory, or past the samples one search holds
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
	if (!kl_ps_grow((void**)&b->world, &b->world_capacity, 2 * pair_count + 2, sizeof(kl_ps_xform)) ||
		!kl_ps_grow((void**)&b->pair_begin, &b->pair_capacity, pair_count + 1, sizeof(int)))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	if (!kl_ps_grow((void**)&b->boxes, &b->box_capacity, most_congs > 0 ? most_congs : 1, sizeof(kl_ps_box)))
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

