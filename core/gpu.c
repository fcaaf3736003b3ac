// Kollide — GPU backend availability. Without CUDA in the build, or without a device at run time,
// every stage runs its CPU path (the same KL_HD kernels in loops).
// SPDX-License-Identifier: MIT
#include "gpu.h"

#include <pthread.h>
#include <stdio.h>

static pthread_once_t s_probe_once = PTHREAD_ONCE_INIT;
static pthread_once_t s_notice_once = PTHREAD_ONCE_INIT;
static bool s_available;
static char s_description[256];

static void probe(void)
{
#if defined(KOLLIDE_HAVE_CUDA)
	s_available = kl_cuda_probe(s_description, (int)sizeof(s_description)) > 0;
#else
	snprintf(s_description, sizeof(s_description), "this build of Kollide has no CUDA backend");
	s_available = false;
#endif
}

bool kl_gpu_available(void)
{
	pthread_once(&s_probe_once, probe);
	return s_available;
}

const char* kl_gpu_describe(void)
{
	pthread_once(&s_probe_once, probe);
	return s_description;
}

static void print_notice(void)
{
	fprintf(stderr, "kollide: GPU requested but unavailable (%s); using the CPU path\n", kl_gpu_describe());
}

void kl_gpu_notice_once(void)
{
	if (!kl_gpu_available())
	{
		pthread_once(&s_notice_once, print_notice);
	}
}
