// Kollide narrowphase — the point-shell search on the GPU: the host half (the OBB stage plans the
// works, as for the CPU), then the device stages of pointshell.cu. Without CUDA in the build, or
// without a device, it answers KL_ERR_UNSUPPORTED and the caller runs kl_ps_search_cpu.
// SPDX-License-Identifier: MIT
#include "pointshell.h"
#include "pointshell_cuda.h"

#include <string.h>

#if defined(KOLLIDE_HAVE_CUDA)

bool kl_ps_gpu_available(void)
{
	return kl_ps_cuda_available();
}

/// The batch's key buffer with room for count keys (kl_ps_key_reserve).
static uint64_t* reserve_keys(void* context, uint32_t count)
{
	kl_ps_batch* batch = context;
	if (count > batch->key_capacity)
	{
		uint64_t* keys = kl_realloc(batch->keys, count, sizeof(uint64_t));
		if (keys == NULL)
		{
			return NULL;
		}
		batch->keys = keys;
		batch->key_capacity = count;
	}
	return batch->keys;
}

kl_result kl_ps_search_gpu(const kl_ps_pair_query* pairs, int pair_count, bool force_all, kl_ps_batch* batch,
						   kl_ps_stats* stats)
{
	kl_ps_stats ignored;
	stats = stats != NULL ? stats : &ignored;
	memset(stats, 0, sizeof(*stats));
	if (!kl_ps_cuda_available())
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "point shell: no CUDA device");
	}
	kl_result r = kl_ps_plan(pairs, pair_count, force_all, batch, stats);
	if (r != KL_OK)
	{
		return r;
	}
	float* alarm = kl_alloc((size_t)(pair_count > 0 ? pair_count : 1), 2 * sizeof(float));
	if (alarm == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	// Per pair: the alarm distance and the triangle stage's tolerance, as the CPU sets them.
	for (int i = 0; i < pair_count; ++i)
	{
		const kl_ps_pair_query* q = pairs + i;
		alarm[2 * i] = q->margin;
		alarm[2 * i + 1] =
			1e-5f * (q->a.model->coverage * q->a.max_scale + q->b.model->coverage * q->b.max_scale) + 1e-7f;
	}
	char message[256];
	uint32_t kept = 0;
	bool sorted = false;
	bool ok = kl_ps_cuda_search(batch, pairs, pair_count, alarm, reserve_keys, batch, &kept, &sorted, stats, message,
								sizeof(message));
	kl_free(alarm);
	if (!ok)
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "%s", message);
	}
	batch->key_count = kept;
	if (!sorted)
	{
		// A few keys: the host sorts them sooner than the device could with its readbacks.
		double t0 = kl_time_seconds();
		if (!kl_ps_sort_unique(batch))
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		stats->sort_ms = 1e3 * (kl_time_seconds() - t0);
	}
	kl_ps_pair_ranges(batch, pair_count);
	stats->near_pairs = (int)kept;
	return KL_OK;
}

#else

bool kl_ps_gpu_available(void)
{
	return false;
}

kl_result kl_ps_search_gpu(const kl_ps_pair_query* pairs, int pair_count, bool force_all, kl_ps_batch* batch,
						   kl_ps_stats* stats)
{
	(void)pairs;
	(void)pair_count;
	(void)force_all;
	(void)batch;
	if (stats != NULL)
	{
		memset(stats, 0, sizeof(*stats));
	}
	return kl_fail(KL_ERR_UNSUPPORTED, "point shell: this build has no CUDA backend");
}

#endif
