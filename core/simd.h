// Kollide internal — run-time SIMD selection. Kernels compiled with __attribute__((target("avx2,fma")))
// are chosen once when the CPU has AVX2 and FMA; KOLLIDE_SIMD=scalar|avx2 overrides the choice so that
// tests can cover both paths on one machine. The build never uses -march=native.
// SPDX-License-Identifier: MIT
#pragma once

typedef enum kl_simd_level
{
	KL_SIMD_SCALAR = 0,
	KL_SIMD_AVX2 = 1, ///< AVX2 + FMA
} kl_simd_level;

/// The level kernels should use: the CPU's, capped by the build (KOLLIDE_AVX2) and KOLLIDE_SIMD.
kl_simd_level kl_simd_level_get(void);
const char* kl_simd_level_name(kl_simd_level level);
