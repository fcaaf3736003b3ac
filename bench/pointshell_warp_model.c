// Kollide — the GPU's point-shell search modelled on the CPU (pointshell_warp_model.h). The kernels'
// step counter is defined here, before their header, so only this file's copies of them count.
// SPDX-License-Identifier: MIT
#define KL_PS_COUNT(step) (++s_steps.step)
#define KL_PS_EMITTED_SLOTS 16 // as on the device

typedef struct step_counts
{
	long long node, entry, emit;
} step_counts;

static step_counts s_steps;

#include "pointshell_warp_model.h"

#include <stdlib.h>
#include <string.h>

enum
{
	warp_size = 32,
	model_key_capacity = 1 << 16
};

void ps_warp_model_run(const kl_ps_batch* b, ps_warp_model* m)
{
	memset(m, 0, sizeof(*m));
	kl_ps_model_view* views = malloc((size_t)(b->model_count > 0 ? b->model_count : 1) * sizeof(kl_ps_model_view));
	uint64_t* keys = malloc(model_key_capacity * sizeof(uint64_t));
	if (views == NULL || keys == NULL)
	{
		free(views);
		free(keys);
		return;
	}
	for (int i = 0; i < b->model_count; ++i)
	{
		views[i] = kl_pointshell_view(b->models[i]);
	}
	long long longest = 0;
	int w = 0;
	for (int item = 0; item < b->sample_count; ++item)
	{
		while (w + 1 < b->work_count && b->works[w + 1].sample_begin <= item)
		{
			++w;
		}
		const kl_ps_work* work = b->works + w;
		uint32_t count = 0; // the keys themselves are not kept: only the steps matter here
		kl_ps_emitter out = {keys, &count, model_key_capacity, NULL, 0u, NULL};
		step_counts before = s_steps;
		kl_ps_query_sample(views + work->p_model, views + work->q_model, work, item - work->sample_begin, &out);
		long long nodes = s_steps.node - before.node, entries = s_steps.entry - before.entry;
		m->idle += nodes == 1 && entries == 0;
		longest = nodes + entries > longest ? nodes + entries : longest;
		m->worst_warp = longest > m->worst_warp ? longest : m->worst_warp;
		if ((item + 1) % warp_size == 0 || item + 1 == b->sample_count)
		{
			m->warp_steps += longest;
			m->warps += 1;
			longest = 0;
		}
	}
	m->samples = b->sample_count;
	m->nodes = s_steps.node;
	m->entries = s_steps.entry;
	m->emits = s_steps.emit;
	s_steps = (step_counts){0, 0, 0};
	free(views);
	free(keys);
}
