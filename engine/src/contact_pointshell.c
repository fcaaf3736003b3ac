// Kollide internal — the point-shell mesh pairs of a step on the GPU: one batch for all of them
// before the per-pair narrowphase, so that the device sees every conglomerate pair of the step in one
// launch sequence (the thesis's work units) instead of a call per pair. The pairs then build their
// contacts on the workers from these candidates, exactly as from their own CPU search (the same
// keys: test_pointshell checks GPU = CPU).
// SPDX-License-Identifier: MIT
#include "contact.h"

#include "collide_mesh.h"
#include "gpu.h"
#include "pointshell.h"
#include "shape.h"
#include "world.h"

#include <string.h>

static void clear_marks(kl_world* world)
{
	for (int k = 0; k < world->contact_count; ++k)
	{
		world->contacts[k].pointshell_pair = -1;
	}
}

/// The query of contact c when it is a point-shell mesh pair updated this step.
static bool pair_query(const kl_world* world, const kl_contact* c, float dt, kl_ps_pair_query* q)
{
	if (!(c->flags & KL_CONTACT_MESH) ||
		!(kl_body_slot_awake(world, c->body_a) || kl_body_slot_awake(world, c->body_b)))
	{
		return false;
	}
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	kl_triangle_set sa, sb;
	if (a->type != KL_SHAPE_MESH || b->type != KL_SHAPE_MESH || !kl_shape_triangle_set(world, a, &sa) ||
		!kl_shape_triangle_set(world, b, &sb) || !kl_mesh_pair_uses_pointshell(&sa, &sb))
	{
		return false;
	}
	// The margin the pair's contacts will use (collide_mesh_pair), so that the candidates are the
	// ones its own search would find.
	float margin = (c->flags & KL_CONTACT_SENSOR) ? 0.0f : kl_contact_speculative_distance(world, c, dt);
	q->a = kl_ps_body_make(sa.pointshell, sa.xf, sa.scale);
	q->b = kl_ps_body_make(sb.pointshell, sb.xf, sb.scale);
	q->margin = kl_mesh_pair_config(&sa, &sb, margin).margin;
	return true;
}

static bool reserve_queries(kl_world* world, int need)
{
	if (need <= world->pointshell_query_capacity)
	{
		return true;
	}
	int grown = world->pointshell_query_capacity > 0 ? 2 * world->pointshell_query_capacity : 64;
	grown = grown < need ? need : grown;
	kl_ps_pair_query* q = kl_realloc(world->pointshell_queries, (size_t)grown, sizeof(kl_ps_pair_query));
	if (q == NULL)
	{
		return false;
	}
	world->pointshell_queries = q;
	world->pointshell_query_capacity = grown;
	return true;
}

void kl_pointshell_prepass(kl_world* world, float dt)
{
	clear_marks(world);
	world->pointshell_gpu_pairs = 0;
	memset(world->pointshell_gpu_ms, 0, sizeof(world->pointshell_gpu_ms));
	if (!world->def.use_gpu)
	{
		return;
	}
	int n = 0;
	for (int k = 0; k < world->contact_count && n < KL_PS_MAX_PAIRS; ++k)
	{
		kl_ps_pair_query q;
		if (pair_query(world, world->contacts + k, dt, &q))
		{
			if (!reserve_queries(world, n + 1))
			{
				clear_marks(world);
				return; // out of memory: the pairs search on the CPU
			}
			world->pointshell_queries[n] = q;
			world->contacts[k].pointshell_pair = n++;
		}
	}
	if (n == 0)
	{
		return;
	}
	if (!kl_ps_gpu_available())
	{
		kl_gpu_notice_once();
		clear_marks(world);
		return;
	}
	if (world->pointshell_batch == NULL)
	{
		world->pointshell_batch = kl_alloc_zero(1, sizeof(kl_ps_batch));
	}
	kl_ps_stats stats;
	if (world->pointshell_batch == NULL ||
		kl_ps_search_gpu(world->pointshell_queries, n, false, world->pointshell_batch, &stats) != KL_OK)
	{
		clear_marks(world); // the CPU serves them this step
		return;
	}
	world->pointshell_gpu_pairs = n;
	double ms[5] = {stats.obb_ms, stats.shell_ms, stats.sort_ms, stats.triangle_ms, stats.transfer_ms};
	memcpy(world->pointshell_gpu_ms, ms, sizeof(ms));
}

bool kl_pointshell_found(const kl_world* world, const kl_contact* c, kl_mesh_candidates* out)
{
	if (c->pointshell_pair < 0 || world->pointshell_batch == NULL)
	{
		return false;
	}
	const kl_ps_batch* b = world->pointshell_batch;
	out->keys = b->keys + b->pair_begin[c->pointshell_pair];
	out->count = b->pair_begin[c->pointshell_pair + 1] - b->pair_begin[c->pointshell_pair];
	return true;
}

void kl_pointshell_profile(kl_world* world)
{
	kl_ps_stats sum;
	memset(&sum, 0, sizeof(sum));
	for (int w = 0; world->mesh_scratch != NULL && w < world->worker_count; ++w)
	{
		kl_ps_stats_add(&sum, &world->mesh_scratch[w].pointshell_stats);
		memset(&world->mesh_scratch[w].pointshell_stats, 0, sizeof(kl_ps_stats));
	}
	kl_profile* p = &world->profile;
	// Added up over a step's collision passes (kl_world_step clears the profile).
	p->pointshell_obb += (float)(sum.obb_ms + world->pointshell_gpu_ms[0]);
	p->pointshell_shell += (float)(sum.shell_ms + world->pointshell_gpu_ms[1]);
	p->pointshell_sort += (float)(sum.sort_ms + world->pointshell_gpu_ms[2]);
	p->pointshell_triangle += (float)(sum.triangle_ms + world->pointshell_gpu_ms[3]);
	p->pointshell_transfer += (float)world->pointshell_gpu_ms[4];
	world->counters.pointshell_pair_count = sum.searches + world->pointshell_gpu_pairs;
	world->counters.pointshell_gpu_pair_count = world->pointshell_gpu_pairs;
}

void kl_pointshell_prepass_free(kl_world* world)
{
	if (world->pointshell_batch != NULL)
	{
		kl_ps_batch_free(world->pointshell_batch);
		kl_free(world->pointshell_batch);
		world->pointshell_batch = NULL;
	}
	kl_free(world->pointshell_queries);
	world->pointshell_queries = NULL;
	world->pointshell_query_capacity = 0;
}
