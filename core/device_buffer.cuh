// Kollide internal, CUDA glue only — a grow-only device buffer. The launch glue keeps one per array
// and reuses it from call to call: an allocation per call would cost more than a small kernel.
// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

struct kl_device_buffer
{
	void* data;
	size_t size; ///< bytes
};

/// Room for at least count items of T (one when count is 0). The contents are not kept when it
/// grows, and it grows with a quarter of slack for a growing scene. nullptr when out of memory.
template <typename T> T* kl_device_reserve(kl_device_buffer& b, size_t count)
{
	size_t bytes = (count > 0 ? count : 1) * sizeof(T);
	if (b.size < bytes)
	{
		cudaFree(b.data);
		b.data = nullptr;
		b.size = 0;
		bytes += bytes / 4;
		if (cudaMalloc(&b.data, bytes) != cudaSuccess)
		{
			return nullptr;
		}
		b.size = bytes;
	}
	return static_cast<T*>(b.data);
}
