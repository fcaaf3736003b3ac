// Kollide — CUDA device probe. Any runtime error (no driver, no device) counts as zero devices.
// SPDX-License-Identifier: MIT
#include <cuda_runtime.h>

#include <stdio.h>

extern "C" int kl_cuda_probe(char* description, int capacity)
{
	int count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess || count <= 0)
	{
		snprintf(description, (size_t)capacity, "no CUDA device: %s (%d)",
				 err != cudaSuccess ? cudaGetErrorString(err) : "none found", (int)err);
		cudaGetLastError(); // clear the sticky error so later calls start clean
		return 0;
	}
	cudaDeviceProp prop;
	if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
	{
		snprintf(description, (size_t)capacity, "CUDA device 0 did not answer");
		return 0;
	}
	snprintf(description, (size_t)capacity, "%s, sm_%d%d, %.1f GiB, %d device(s)", prop.name, prop.major, prop.minor,
			 (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), count);
	return count;
}
