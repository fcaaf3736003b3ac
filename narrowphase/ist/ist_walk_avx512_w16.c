// Kollide — the walk of two inner-sphere trees (ist_walk.h) of width 16 on avx512, chosen at run time: a node's
// sixteen lanes in one __m512, compares into a mask register. Only functions marked with the target attribute use
// these instructions.
// SPDX-License-Identifier: MIT
#include "ist.h"

#include "bvh.h" // the build's SIMD switches that bvh_simd_ops.h reads

#if defined(KL_IST_AVX512)
#include "ist_simd_ops.h"

#define KL_V(op) kl_f16_##op
#define KL_IST_FN static inline __attribute__((always_inline, target("avx2,fma,f16c,avx512f")))
#define KL_IST_NAME_ATTR __attribute__((target("avx2,fma,f16c,avx512f")))
#define KL_IST_NAME kl_ist_walk_avx512_w16
#define KL_IST_W 16
#include "ist_walk.h"
#endif
