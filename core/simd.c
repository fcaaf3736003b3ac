// Kollide internal — run-time SIMD selection.
// SPDX-License-Identifier: MIT
#include "simd.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static kl_simd_level s_level = KL_SIMD_SCALAR;

static kl_simd_level cpu_level(void)
{
#if defined(KOLLIDE_AVX2) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
	{
		return KL_SIMD_AVX2;
	}
#endif
	return KL_SIMD_SCALAR;
}

static void detect(void)
{
	kl_simd_level cpu = cpu_level();
	s_level = cpu;
	const char* env = getenv("KOLLIDE_SIMD");
	if (env == NULL || env[0] == '\0')
	{
		return;
	}
	if (strcmp(env, "scalar") == 0)
	{
		s_level = KL_SIMD_SCALAR;
	}
	else if (strcmp(env, "avx2") == 0 && cpu == KL_SIMD_AVX2)
	{
		s_level = KL_SIMD_AVX2;
	}
	else
	{
		fprintf(stderr, "kollide: KOLLIDE_SIMD=%s is not available here; using %s\n", env, kl_simd_level_name(cpu));
	}
}

kl_simd_level kl_simd_level_get(void)
{
	pthread_once(&s_once, detect);
	return s_level;
}

const char* kl_simd_level_name(kl_simd_level level)
{
	return level == KL_SIMD_AVX2 ? "avx2" : "scalar";
}
