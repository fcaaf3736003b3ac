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

/// Runs the planned works of batch on the device: uploads the batch's models that are not resident
/// yet, the works and the world transforms; points into octrees with repeats removed on the way,
/// the triangle stage (alarm: 2 floats per pair, the distance and the tolerance). *kept says how
/// many keys survive, kl_ps_cuda_download fetches them. Fills the stage times and counts of stats
/// (sort_ms where the device sorted). On failure, why goes to message.
bool kl_ps_cuda_search(const kl_ps_batch* batch, const kl_ps_pair_query* pairs, int pair_count, const float* alarm,
					   uint32_t* kept, kl_ps_stats* stats, char* message, size_t message_size);

/// Copies the kept keys of the last search into keys (room for kept). *sorted says whether they
/// come sorted: the device sorts many keys, the caller sorts a few.
bool kl_ps_cuda_download(uint64_t* keys, uint32_t kept, bool* sorted, kl_ps_stats* stats, char* message,
						 size_t message_size);

/// Frees the resident copy of a model (by serial), if any; called when the model is destroyed.
void kl_ps_cuda_forget(uint64_t serial);

#ifdef __cplusplus
}
#endif
