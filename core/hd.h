// Kollide internal — KL_HD marks per-item kernel functions shared by the CPU backend and CUDA.
// Under nvcc they become __host__ __device__; under a C compiler they are plain static inline.
// Such functions use only the plain structs and math of this header family (cglm is host-only).
// SPDX-License-Identifier: MIT
#pragma once

#if defined(__CUDACC__)
#define KL_HD __host__ __device__
#else
#define KL_HD
#endif
