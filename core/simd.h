// Kollide internal — run-time SIMD selection. Kernels compiled with __attribute__((target("avx2,fma")))
// are chosen once when the CPU has AVX2 and FMA; KOLLIDE_SIMD=scalar|avx2 overrides the choice so that
// tests can cover both paths on one machine. The build never uses -march=native.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>

typedef enum kl_simd_level
{
	KL_SIMD_SCALAR = 0,
	KL_SIMD_AVX2 = 1, ///< AVX2 + FMA
} kl_simd_level;

/// The level kernels should use: the CPU's, capped by the build (KOLLIDE_AVX2) and KOLLIDE_SIMD.
kl_simd_level kl_simd_level_get(void);
const char* kl_simd_level_name(kl_simd_level level);

/// Whether AVX-512F kernels (functions with target("avx2,fma,f16c,avx512f")) may run: the build has
/// AVX2 kernels, the CPU has AVX-512F, AVX2, FMA and F16C with the OS saving their registers
/// (__builtin_cpu_supports checks XCR0), and KOLLIDE_SIMD does not cap the level at avx2 or scalar.
bool kl_simd_avx512_allowed(void);

/// Whether the CPU has F16C (half-float conversions), read from CPUID: a feature of its own, which
/// AVX2 does not imply, and one that clang's __builtin_cpu_supports cannot name. Whether the OS saves
/// the registers its instructions use is the AVX2 check's (__builtin_cpu_supports("avx2")).
bool kl_cpu_has_f16c(void);
