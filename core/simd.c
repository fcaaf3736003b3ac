// Kollide internal — run-time SIMD selection.
// SPDX-License-Identifier: MIT
#include "simd.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#include <cpuid.h>
#define KL_HAVE_CPUID 1
#endif

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

static pthread_once_t s_avx512_once = PTHREAD_ONCE_INIT;
static bool s_avx512_allowed;

static void detect_avx512(void)
{
#if defined(KOLLIDE_AVX2) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	__builtin_cpu_init();
	const char* env = getenv("KOLLIDE_SIMD");
	bool capped = env != NULL && (strcmp(env, "avx2") == 0 || strcmp(env, "scalar") == 0);
	s_avx512_allowed = !capped && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
					   __builtin_cpu_supports("fma") && kl_cpu_has_f16c();
#endif
}

bool kl_simd_avx512_allowed(void)
{
	pthread_once(&s_avx512_once, detect_avx512);
	return s_avx512_allowed;
}

static pthread_once_t s_f16c_once = PTHREAD_ONCE_INIT;
static bool s_f16c;

static void detect_f16c(void)
{
#ifdef KL_HAVE_CPUID
	unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
	s_f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
#endif
}

bool kl_cpu_has_f16c(void)
{
	// Read once: CPUID is slow, and under a hypervisor it leaves the guest.
	pthread_once(&s_f16c_once, detect_f16c);
	return s_f16c;
}
