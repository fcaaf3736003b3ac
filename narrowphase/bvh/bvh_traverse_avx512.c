// Kollide — the SIMDop traversal kernels (bvh_traverse_kernel.h) for 16-ary trees on AVX-512, chosen at
// run time (kl_bvh_kernels_avx512): a node's sixteen lanes in one __m512, compares into mask registers;
// no N-vs-N (16×16 pairs). Only functions marked with the target attribute use AVX-512; the build never
// passes -mavx512f.
// SPDX-License-Identifier: MIT
#include "bvh.h"

#if defined(KL_BVH_AVX512)
#include "bvh_simd_ops.h"

#define KL_V(op) kl_f16_##op
#define KL_BVH_TARGET "avx2,fma,f16c,avx512f"
#define KL_BVH_NAME(x) x##_avx512_w16
#define KL_BVH_SIMD KL_BVH_SIMD_AVX512

#include "bvh_traverse_kernel.h"
#endif
