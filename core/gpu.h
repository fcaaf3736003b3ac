// Kollide internal — the CUDA backend's presence, probed once.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/base.h>

/// Prints one line to stderr the first time a world asks for the GPU and none can serve it.
void kl_gpu_notice_once(void);

#if defined(KOLLIDE_HAVE_CUDA)
/// Implemented in gpu_probe.cu: number of CUDA devices (0 on any error) and a description.
int kl_cuda_probe(char* description, int capacity);
#endif
