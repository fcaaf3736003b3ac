// Kollide internal — the point-shell mesh pairs of a step in one batch before the per-pair
// narrowphase: on the GPU, so that the device sees every conglomerate pair of the step in one launch
// sequence (the thesis's work units) instead of a call per pair; or over the world's thread pool,
// so that one heavy pair (a screw in its thread) is searched by every worker, not one. The pairs
// then build their contacts on the workers from these candidates, exactly as from their own search:
// the batch searches each within the margin that search would use (kl_mesh_search_margin), and
// GPU, CPU batch and a pair's own search give the same keys (test_pointshell).
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
	// The margin and motion the pair's contacts will use (collide_mesh_pair), so that the
	// candidates are the ones its own search would find.
	float margin = (c->flags & KL_CONTACT_SENSOR) ? 0.0f : kl_contact_speculative_distance(world, c, dt);
	kl_vertex_motion motion;
	kl_contact_mesh_motion(world, c, dt, &motion);
	q->a = kl_ps_body_make(sa.pointshell, sa.xf, sa.scale);
	q->b = kl_ps_body_make(sb.pointshell, sb.xf, sb.scale);
	q->margin = kl_mesh_search_margin(&sa, &sb, margin, &motion);
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

/// The batch on the GPU; false when there is no device or it failed (the CPU serves the pairs).
static bool search_on_gpu(kl_world* world, int n, kl_ps_stats* stats)
{
	if (!kl_ps_gpu_available())
	{
		kl_gpu_notice_once();
		return false;
	}
	return kl_ps_search_gpu(world->pointshell_queries, n, false, world->pointshell_batch, stats) == KL_OK;
}

void kl_pointshell_prepass(kl_world* world, float dt)
{
	clear_marks(world);
	world->pointshell_batch_pairs = 0;
	world->pointshell_batch_on_gpu = false;
	memset(&world->pointshell_batch_stats, 0, sizeof(world->pointshell_batch_stats));
	if (!world->def.use_gpu && world->pool == NULL)
	{
		return; // one worker: each pair searches its own as it is updated, the same work
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
				return; // out of memory: the pairs search on their own
			}
			world->pointshell_queries[n] = q;
			world->contacts[k].pointshell_pair = n++;
		}
	}
	if (n == 0)
	{
		return;
	}
	if (world->pointshell_batch == NULL)
	{
		world->pointshell_batch = kl_alloc_zero(1, sizeof(kl_ps_batch));
	}
	kl_ps_stats stats;
	bool on_gpu = world->pointshell_batch != NULL && world->def.use_gpu && search_on_gpu(world, n, &stats);
	if (!on_gpu && (world->pointshell_batch == NULL || world->pool == NULL ||
					kl_ps_search_cpu(world->pointshell_queries, n, false, world->pool, world->worker_count,
									 world->pointshell_batch, &stats) != KL_OK))
	{
		clear_marks(world); // the pairs search on their own this step
		return;
	}
	world->pointshell_batch_pairs = n;
	world->pointshell_batch_on_gpu = on_gpu;
	world->pointshell_batch_stats = stats;
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
	// Added up over a step's collision passes (kl_world_step clears the profile and these counters).
	world->counters.pointshell_pair_count += sum.searches + world->pointshell_batch_pairs;
	world->counters.pointshell_gpu_pair_count += world->pointshell_batch_on_gpu ? world->pointshell_batch_pairs : 0;
	kl_ps_stats_add(&sum, &world->pointshell_batch_stats);
	kl_profile* p = &world->profile;
	p->pointshell_obb += (float)sum.obb_ms;
	p->pointshell_shell += (float)sum.shell_ms;
	p->pointshell_sort += (float)sum.sort_ms;
	p->pointshell_triangle += (float)sum.triangle_ms;
	p->pointshell_transfer += (float)sum.transfer_ms;
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
