// Kollide broadphase — CUDA launch glue for the batch sweep (kl_sap_gpu_sweep, declared in
// sap_kernels.h): memory management, CUB's radix sort and scan, and one thread per sorted item
// running the KL_HD kernels that the CPU path runs in its loops. No per-item logic lives here.
//
// Steps on the device: upload the expanded items (key, source) and the per-proxy bounds, sort the
// items by key (CUB's LSD radix sort is stable, as the CPU's), gather the sorted structure of
// arrays, mark where each cell ends, count every item's pairs, scan the counts into offsets, write
// the pairs, download them.
// SPDX-License-Identifier: MIT
#include "sap_kernels.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include "device_buffer.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <mutex>

namespace
{

const int kBlock = 256;

// Device buffers, grown on demand and kept for the next update (an allocation per update would
// cost more than a small sweep). One update at a time uses them: the mutex serialises worlds.
enum buffer_slot
{
	slot_keys_in,
	slot_keys_out,
	slot_source_in,
	slot_source_out,
	slot_lower_x,
	slot_lower_y,
	slot_lower_z,
	slot_upper_x,
	slot_upper_y,
	slot_upper_z,
	slot_id,
	slot_min_w,
	slot_max_w,
	slot_min_u,
	slot_max_u,
	slot_min_v,
	slot_max_v,
	slot_sorted_id,
	slot_cell,
	slot_corner,
	slot_cell_end,
	slot_counts,
	slot_offsets,
	slot_pairs,
	slot_temp,
	slot_count
};

struct workspace
{
	kl_device_buffer buffer[slot_count];
	cudaStream_t stream;
	bool started;
	bool no_device; ///< the stream could not be created: no driver or device, do not try again
};

std::mutex s_mutex;
workspace s_work;

template <typename T> T* reserve(buffer_slot slot, size_t count)
{
	return kl_device_reserve<T>(s_work.buffer[slot], count);
}

int blocks_for(int n)
{
	return (n + kBlock - 1) / kBlock;
}

// Step 2 of sap_kernels.h's recipe: the bounds in sweep axes in sorted order, with the cell flag
// and the corner from the box's cell range.
__global__ void gather_kernel(const uint64_t* keys, const int32_t* source, int n, const float* lower_w,
							  const float* upper_w, const float* lower_u, const float* upper_u, const float* lower_v,
							  const float* upper_v, const int32_t* proxy_id, kl_sap_grid g, float* min_w, float* max_w,
							  float* min_u, float* max_u, float* min_v, float* max_v, int32_t* id, uint32_t* cell,
							  uint32_t* corner)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
	{
		return;
	}
	int p = source[i];
	min_w[i] = lower_w[p];
	max_w[i] = upper_w[p];
	min_u[i] = lower_u[p];
	max_u[i] = upper_u[p];
	min_v[i] = lower_v[p];
	max_v[i] = upper_v[p];
	id[i] = proxy_id[p];
	uint32_t r = kl_sap_range(&g, lower_u[p], upper_u[p], lower_v[p], upper_v[p]);
	cell[i] = kl_sap_item_cell(static_cast<uint32_t>(keys[i] >> 32), r);
	corner[i] = kl_sap_item_corner(r);
}

// Cells without items get no entry: the kernels only read the end of an item's own cell.
__global__ void cell_end_kernel(const uint32_t* cell, int n, int32_t* cell_end)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
	{
		return;
	}
	uint32_t c = cell[i] & KL_SAP_CELL_MASK;
	if (i == n - 1 || (cell[i + 1] & KL_SAP_CELL_MASK) != c)
	{
		cell_end[c] = i + 1;
	}
}

__global__ void count_kernel(kl_sap_items items, long long* counts)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < items.count)
	{
		counts[i] = kl_sap_count_pairs(&items, i);
	}
}

__global__ void write_kernel(kl_sap_items items, const long long* offsets, uint64_t* pairs)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < items.count)
	{
		kl_sap_write_pairs(&items, i, pairs + offsets[i]);
	}
}

// The key bits that can differ: the float key (32) plus the cell index.
int key_end_bit(const kl_sap_grid& grid)
{
	uint64_t last_cell = static_cast<uint64_t>(grid.count_u) * static_cast<uint64_t>(grid.count_v) - 1;
	int bits = 32;
	while (bits < 64 && (last_cell >> (bits - 32)) != 0)
	{
		++bits;
	}
	return bits;
}

bool upload(void* device, const void* host, size_t bytes)
{
	return cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s_work.stream) == cudaSuccess;
}

// The body of kl_sap_gpu_sweep, under the mutex. False on any CUDA error.
bool sweep(kl_sap_gpu_batch* batch)
{
	if (s_work.no_device)
	{
		return false;
	}
	if (!s_work.started)
	{
		if (cudaStreamCreateWithFlags(&s_work.stream, cudaStreamNonBlocking) != cudaSuccess)
		{
			s_work.no_device = true;
			return false;
		}
		s_work.started = true;
	}
	int n = batch->item_count;
	size_t np = static_cast<size_t>(batch->proxy_count);
	size_t cells = static_cast<size_t>(batch->grid.count_u) * static_cast<size_t>(batch->grid.count_v);
	cudaStream_t stream = s_work.stream;

	uint64_t* keys_in = reserve<uint64_t>(slot_keys_in, n);
	uint64_t* keys_out = reserve<uint64_t>(slot_keys_out, n);
	int32_t* source_in = reserve<int32_t>(slot_source_in, n);
	int32_t* source_out = reserve<int32_t>(slot_source_out, n);
	float* bounds[6];
	for (int k = 0; k < 6; ++k)
	{
		bounds[k] = reserve<float>(static_cast<buffer_slot>(slot_lower_x + k), np);
	}
	int32_t* proxy_id = reserve<int32_t>(slot_id, np);
	float* sorted[6];
	for (int k = 0; k < 6; ++k)
	{
		sorted[k] = reserve<float>(static_cast<buffer_slot>(slot_min_w + k), n);
	}
	int32_t* sorted_id = reserve<int32_t>(slot_sorted_id, n);
	uint32_t* cell = reserve<uint32_t>(slot_cell, n);
	uint32_t* corner = reserve<uint32_t>(slot_corner, n);
	int32_t* cell_end = reserve<int32_t>(slot_cell_end, cells);
	long long* counts = reserve<long long>(slot_counts, static_cast<size_t>(n) + 1);
	long long* offsets = reserve<long long>(slot_offsets, static_cast<size_t>(n) + 1);
	if (keys_in == nullptr || keys_out == nullptr || source_in == nullptr || source_out == nullptr ||
		proxy_id == nullptr || sorted_id == nullptr || cell == nullptr || corner == nullptr || cell_end == nullptr ||
		counts == nullptr || offsets == nullptr)
	{
		return false;
	}
	for (int k = 0; k < 6; ++k)
	{
		if (bounds[k] == nullptr || sorted[k] == nullptr)
		{
			return false;
		}
	}

	bool ok = upload(keys_in, batch->keys, n * sizeof(uint64_t)) &&
			  upload(source_in, batch->source, n * sizeof(int32_t)) && upload(proxy_id, batch->id, np * sizeof(int32_t));
	for (int k = 0; k < 3 && ok; ++k)
	{
		ok = upload(bounds[k], batch->lower[k], np * sizeof(float)) &&
			 upload(bounds[3 + k], batch->upper[k], np * sizeof(float));
	}
	if (!ok)
	{
		return false;
	}

	// CUB's temporary storage: one buffer large enough for the sort and the scan.
	int end_bit = key_end_bit(batch->grid);
	size_t sort_bytes = 0, scan_bytes = 0;
	if (cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in, keys_out, source_in, source_out, n, 0, end_bit,
										stream) != cudaSuccess ||
		cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets, n + 1, stream) != cudaSuccess)
	{
		return false;
	}
	size_t temp_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
	void* temp = reserve<unsigned char>(slot_temp, temp_bytes);
	if (temp == nullptr || cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, source_in, source_out,
														   n, 0, end_bit, stream) != cudaSuccess)
	{
		return false;
	}

	// Sorted structure of arrays, in the sweep's axes.
	int w = batch->axis_w, u = batch->axis_u, v = batch->axis_v;
	gather_kernel<<<blocks_for(n), kBlock, 0, stream>>>(keys_out, source_out, n, bounds[w], bounds[3 + w], bounds[u],
														 bounds[3 + u], bounds[v], bounds[3 + v], proxy_id,
														 batch->grid, sorted[0], sorted[1], sorted[2], sorted[3],
														 sorted[4], sorted[5], sorted_id, cell, corner);
	cell_end_kernel<<<blocks_for(n), kBlock, 0, stream>>>(cell, n, cell_end);

	kl_sap_items items;
	items.min_w = sorted[0];
	items.max_w = sorted[1];
	items.min_u = sorted[2];
	items.max_u = sorted[3];
	items.min_v = sorted[4];
	items.max_v = sorted[5];
	items.id = sorted_id;
	items.cell = cell;
	items.corner = corner;
	items.cell_end = cell_end;
	items.count = n;
	items.grid = batch->grid;

	// counts[n] = 0, so offsets[n] is the total.
	if (cudaMemsetAsync(counts + n, 0, sizeof(long long), stream) != cudaSuccess)
	{
		return false;
	}
	count_kernel<<<blocks_for(n), kBlock, 0, stream>>>(items, counts);
	long long total = 0;
	if (cudaGetLastError() != cudaSuccess ||
		cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, n + 1, stream) != cudaSuccess ||
		cudaMemcpyAsync(&total, offsets + n, sizeof(long long), cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
		cudaStreamSynchronize(stream) != cudaSuccess)
	{
		return false;
	}
	if (total > INT_MAX)
	{
		return false;
	}
	batch->pair_count = static_cast<int>(total);
	if (total > batch->pair_capacity)
	{
		return true; // the caller grows its buffer and calls again
	}

	uint64_t* pairs = reserve<uint64_t>(slot_pairs, static_cast<size_t>(total));
	if (pairs == nullptr)
	{
		return false;
	}
	write_kernel<<<blocks_for(n), kBlock, 0, stream>>>(items, offsets, pairs);
	return cudaGetLastError() == cudaSuccess &&
		   cudaMemcpyAsync(batch->pairs, pairs, static_cast<size_t>(total) * sizeof(uint64_t), cudaMemcpyDeviceToHost,
						   stream) == cudaSuccess &&
		   cudaStreamSynchronize(stream) == cudaSuccess;
}

} // namespace

extern "C" bool kl_sap_gpu_sweep(kl_sap_gpu_batch* batch)
{
	if (batch == nullptr || batch->item_count < 0 || batch->proxy_count < 0 || batch->grid.count_u < 1 ||
		batch->grid.count_v < 1)
	{
		return false;
	}
	if (batch->item_count == 0)
	{
		batch->pair_count = 0;
		return true;
	}
	std::lock_guard<std::mutex> lock(s_mutex);
	bool ok = sweep(batch);
	if (!ok)
	{
		cudaGetLastError(); // clear a non-sticky error so that the next update may try again
	}
	return ok;
}
