// Kollide internal — the device half of the point-shell search (pointshell.cu), called by
// pointshell_gpu.c after planning. C linkage both ways.
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Whether a CUDA device is there (probed once, thread-safe).
bool kl_ps_cuda_available(void);

/// Grows the caller's key buffer to room for count keys and returns it; NULL when out of memory.
typedef uint64_t* kl_ps_key_reserve(void* context, uint32_t count);

/// Runs the planned works of batch on the device: uploads the batch's models that are not resident
/// yet, the works and the world transforms; points into octrees with repeats removed on the way,
/// the triangle stage (alarm: 2 floats per pair, the distance and the tolerance). The *kept
/// surviving keys go into the buffer reserve_keys(context, *kept) returns; *sorted says whether
/// they come sorted (the device sorts many, the caller a few). Fills the stage times and counts of
/// stats (sort_ms where the device sorted). Thread-safe. On failure, why goes to message.
bool kl_ps_cuda_search(const kl_ps_batch* batch, const kl_ps_pair_query* pairs, int pair_count, const float* alarm,
					   kl_ps_key_reserve* reserve_keys, void* context, uint32_t* kept, bool* sorted, kl_ps_stats* stats,
					   char* message, size_t message_size);

/// Frees the resident copy of a model (by serial), if any; called when the model is destroyed.
void kl_ps_cuda_forget(uint64_t serial);

#ifdef __cplusplus
}
#endif
