// Kollide narrowphase — CUDA launch glue of the point-shell search (pointshell_cuda.h): resident
// models, per-call buffers, one thread per query item and per candidate running the KL_HD kernels of
// pointshell_kernels.h, CUB's radix sort, unique and flagged selection. No per-item logic lives here.
//
// On the device, in one stream: upload the works, the pairs' world transforms and alarm distances
// (models are uploaded once per model and kept); points into octrees (a thread per triangle item,
// keys appended with an atomic counter; run again with a larger buffer when it overflowed); sort;
// unique; the triangle stage flags each key; select the flagged; download them.
// SPDX-License-Identifier: MIT
#include "pointshell_cuda.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include "device_buffer.cuh"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace
{

const int kBlock = 128;

int blocks_for(long long n)
{
	return static_cast<int>((n + kBlock - 1) / kBlock);
}

/// A model's arrays on the device.
struct resident
{
	std::vector<void*> buffers;
	kl_ps_model_view view;
};

enum buffer_slot
{
	slot_views,
	slot_works,
	slot_world,
	slot_alarm,
	slot_pair_models,
	slot_count_value,
	slot_keys,
	slot_sorted,
	slot_flags,
	slot_selected_count,
	slot_temp,
	slot_total
};

struct workspace
{
	kl_device_buffer buffer[slot_total];
	cudaStream_t stream;
	bool started;
	bool no_device;
	std::unordered_map<uint64_t, resident> models;
};

std::mutex s_mutex;
workspace s_work;

template <typename T> T* reserve(buffer_slot slot, size_t count)
{
	return kl_device_reserve<T>(s_work.buffer[slot], count);
}

bool start_locked()
{
	if (s_work.no_device)
	{
		return false;
	}
	if (!s_work.started)
	{
		int devices = 0;
		if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 ||
			cudaStreamCreateWithFlags(&s_work.stream, cudaStreamNonBlocking) != cudaSuccess)
		{
			cudaGetLastError();
			s_work.no_device = true;
			return false;
		}
		s_work.started = true;
	}
	return true;
}

template <typename T> const T* upload_array(resident& r, const T* host, size_t count)
{
	void* d = nullptr;
	size_t bytes = (count > 0 ? count : 1) * sizeof(T);
	if (cudaMalloc(&d, bytes) != cudaSuccess)
	{
		return nullptr;
	}
	r.buffers.push_back(d);
	if (count > 0 && cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
	{
		return nullptr;
	}
	return static_cast<const T*>(d);
}

void free_resident(resident& r)
{
	for (void* p : r.buffers)
	{
		cudaFree(p);
	}
	r.buffers.clear();
}

/// The model's device view, uploading it the first time.
const kl_ps_model_view* resident_view(const kl_pointshell* m)
{
	auto it = s_work.models.find(m->serial);
	if (it != s_work.models.end())
	{
		return &it->second.view;
	}
	resident r;
	kl_ps_model_view& v = r.view;
	v.vertices = upload_array(r, m->vertices, static_cast<size_t>(m->vertex_count));
	v.indices = upload_array(r, m->indices, 3 * static_cast<size_t>(m->triangle_count));
	v.tris = upload_array(r, m->tris, static_cast<size_t>(m->triangle_count));
	v.masks = upload_array(r, m->masks, static_cast<size_t>(m->triangle_count));
	v.coverage = upload_array(r, m->tri_coverage, static_cast<size_t>(m->triangle_count));
	v.points = upload_array(r, m->points, static_cast<size_t>(m->point_count));
	v.nodes = upload_array(r, m->nodes, static_cast<size_t>(m->node_count));
	v.congs = upload_array(r, m->congs, static_cast<size_t>(m->cong_count));
	v.cong_count = m->cong_count;
	v.triangle_count = m->triangle_count;
	if (!v.vertices || !v.indices || !v.tris || !v.masks || !v.coverage || !v.points || !v.nodes || !v.congs)
	{
		free_resident(r);
		return nullptr;
	}
	return &s_work.models.emplace(m->serial, r).first->second.view;
}

// A thread per sample: a thread per triangle left too few threads (11k in E1) walking 20-30
// searches each in turn.
__global__ void query_kernel(const kl_ps_model_view* views, const kl_ps_work* works, int work_count, int sample_count,
							 kl_ps_emitter out)
{
	int item = blockIdx.x * blockDim.x + threadIdx.x;
	if (item >= sample_count)
	{
		return;
	}
	const kl_ps_work* w = works + kl_ps_find_work(works, work_count, item, true);
	kl_ps_query_sample(views + w->p_model, views + w->q_model, w, item - w->sample_begin, &out);
}

// Flags every slot of the n the selection reads: past the unique keys (count) with 0, since those
// slots hold what the sort and an earlier search left there.
__global__ void triangle_kernel(const kl_ps_model_view* views, const int32_t* pair_models, const kl_ps_xform* world,
								const float* alarm, const uint64_t* keys, const int* count, int n, uint8_t* flags)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
	{
		return;
	}
	if (i >= *count)
	{
		flags[i] = 0;
		return;
	}
	uint64_t key = keys[i];
	int32_t pair = kl_ps_key_pair(key);
	const kl_ps_model_view* a = views + pair_models[2 * pair];
	const kl_ps_model_view* b = views + pair_models[2 * pair + 1];
	flags[i] = kl_ps_candidate_near(a, b, world, key, alarm[2 * pair], alarm[2 * pair + 1]) ? 1 : 0;
}

double elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0.0f;
	cudaEventElapsedTime(&ms, a, b);
	return ms;
}

double now_ms()
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename T> bool put(T* device, const T* host, size_t count)
{
	return count == 0 ||
		   cudaMemcpyAsync(device, host, count * sizeof(T), cudaMemcpyHostToDevice, s_work.stream) == cudaSuccess;
}

/// The device stages after upload; false on any CUDA error.
bool run_locked(const kl_ps_batch* batch, const kl_ps_pair_query* pairs, int pair_count, const float* alarm,
				uint32_t* kept_out, kl_ps_stats* stats)
{
	cudaStream_t stream = s_work.stream;
	double t0 = now_ms();
	std::vector<kl_ps_model_view> views(static_cast<size_t>(batch->model_count > 0 ? batch->model_count : 1));
	for (int i = 0; i < batch->model_count; ++i)
	{
		const kl_ps_model_view* v = resident_view(batch->models[i]);
		if (v == nullptr)
		{
			return false;
		}
		views[static_cast<size_t>(i)] = *v;
	}
	// Per pair: the indices of its models among the batch's (-1 when culled before planning).
	std::vector<int32_t> pair_models(2 * static_cast<size_t>(pair_count > 0 ? pair_count : 1), -1);
	for (int i = 0; i < pair_count; ++i)
	{
		for (int m = 0; m < batch->model_count; ++m)
		{
			if (batch->models[m] == pairs[i].a.model)
			{
				pair_models[2 * static_cast<size_t>(i)] = m;
			}
			if (batch->models[m] == pairs[i].b.model)
			{
				pair_models[2 * static_cast<size_t>(i) + 1] = m;
			}
		}
	}
	auto* d_views = reserve<kl_ps_model_view>(slot_views, views.size());
	auto* d_works = reserve<kl_ps_work>(slot_works, static_cast<size_t>(batch->work_count));
	auto* d_world = reserve<kl_ps_xform>(slot_world, 2 * static_cast<size_t>(pair_count));
	auto* d_alarm = reserve<float>(slot_alarm, 2 * static_cast<size_t>(pair_count));
	auto* d_pair_models = reserve<int32_t>(slot_pair_models, pair_models.size());
	auto* d_count = reserve<uint32_t>(slot_count_value, 1);
	auto* d_selected = reserve<int>(slot_selected_count, 2);
	if (!d_views || !d_works || !d_world || !d_alarm || !d_pair_models || !d_count || !d_selected ||
		!put(d_views, views.data(), views.size()) ||
		!put(d_works, batch->works, static_cast<size_t>(batch->work_count)) ||
		!put(d_world, batch->world, 2 * static_cast<size_t>(pair_count)) ||
		!put(d_alarm, alarm, 2 * static_cast<size_t>(pair_count)) ||
		!put(d_pair_models, pair_models.data(), pair_models.size()) ||
		cudaStreamSynchronize(stream) != cudaSuccess)
	{
		return false;
	}
	stats->transfer_ms += now_ms() - t0;

	cudaEvent_t ev[4];
	for (auto& e : ev)
	{
		cudaEventCreate(&e);
	}
	// Points into octrees; again with a larger buffer when the keys overflowed it.
	size_t capacity = s_work.buffer[slot_keys].size / sizeof(uint64_t);
	capacity = capacity > 4 * static_cast<size_t>(batch->sample_count) ? capacity : 4 * static_cast<size_t>(batch->sample_count);
	uint32_t count = 0;
	bool ok = true;
	cudaEventRecord(ev[0], stream);
	for (int attempt = 0; ok && attempt < 3; ++attempt)
	{
		auto* d_keys = reserve<uint64_t>(slot_keys, capacity);
		ok = d_keys != nullptr && cudaMemsetAsync(d_count, 0, sizeof(uint32_t), stream) == cudaSuccess;
		if (!ok)
		{
			break;
		}
		kl_ps_emitter out = {d_keys, d_count, static_cast<uint32_t>(capacity)};
		if (batch->sample_count > 0)
		{
			query_kernel<<<blocks_for(batch->sample_count), kBlock, 0, stream>>>(d_views, d_works, batch->work_count,
																				batch->sample_count, out);
		}
		ok = cudaMemcpyAsync(&count, d_count, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
			 cudaStreamSynchronize(stream) == cudaSuccess;
		if (ok && count <= capacity)
		{
			break;
		}
		capacity = static_cast<size_t>(count) + count / 4;
		ok = ok && attempt < 2;
	}
	cudaEventRecord(ev[1], stream);
	stats->raw_candidates = count;
	// Sort and unique.
	uint64_t* d_keys = static_cast<uint64_t*>(s_work.buffer[slot_keys].data);
	auto* d_sorted = reserve<uint64_t>(slot_sorted, count);
	size_t sort_bytes = 0, unique_bytes = 0, select_bytes = 0;
	int n = static_cast<int>(count);
	// Only the key's bits in use are sorted: two 24-bit triangles and the pair index above them.
	int end_bit = 48;
	while (end_bit < 64 && (static_cast<uint64_t>(pair_count > 0 ? pair_count - 1 : 0) >> (end_bit - 48)) != 0)
	{
		++end_bit;
	}
	ok = ok && d_sorted != nullptr &&
		 cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, d_keys, d_sorted, n, 0, end_bit, stream) == cudaSuccess &&
		 cub::DeviceSelect::Unique(nullptr, unique_bytes, d_sorted, d_keys, d_selected, n, stream) == cudaSuccess;
	auto* d_flags = ok ? reserve<uint8_t>(slot_flags, count) : nullptr;
	ok = ok && d_flags != nullptr &&
		 cub::DeviceSelect::Flagged(nullptr, select_bytes, d_keys, d_flags, d_sorted, d_selected + 1, n, stream) ==
			 cudaSuccess;
	size_t temp_bytes = sort_bytes > unique_bytes ? sort_bytes : unique_bytes;
	temp_bytes = temp_bytes > select_bytes ? temp_bytes : select_bytes;
	void* d_temp = ok ? reserve<uint8_t>(slot_temp, temp_bytes) : nullptr;
	ok = ok && d_temp != nullptr &&
		 cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys, d_sorted, n, 0, end_bit, stream) == cudaSuccess &&
		 cub::DeviceSelect::Unique(d_temp, temp_bytes, d_sorted, d_keys, d_selected, n, stream) == cudaSuccess;
	cudaEventRecord(ev[2], stream);
	// The triangle stage over the unique keys, then the survivors into d_sorted.
	if (ok && n > 0)
	{
		triangle_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_views, d_pair_models, d_world, d_alarm, d_keys,
															  d_selected, n, d_flags);
	}
	ok = ok && cub::DeviceSelect::Flagged(d_temp, temp_bytes, d_keys, d_flags, d_sorted, d_selected + 1, n, stream) ==
				   cudaSuccess;
	cudaEventRecord(ev[3], stream);
	int selected[2] = {0, 0};
	ok = ok && cudaMemcpyAsync(selected, d_selected, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
		 cudaStreamSynchronize(stream) == cudaSuccess;
	if (ok)
	{
		stats->shell_ms = elapsed_ms(ev[0], ev[1]);
		stats->sort_ms = elapsed_ms(ev[1], ev[2]);
		stats->triangle_ms = elapsed_ms(ev[2], ev[3]);
		stats->unique_candidates = n > 0 ? selected[0] : 0;
	}
	for (auto& e : ev)
	{
		cudaEventDestroy(e);
	}
	*kept_out = ok && n > 0 ? static_cast<uint32_t>(selected[1]) : 0u;
	return ok;
}

void describe(const char* what, char* message, size_t size)
{
	snprintf(message, size, "point shell: %s (%s)", what, cudaGetErrorString(cudaGetLastError()));
}

} // namespace

extern "C" bool kl_ps_cuda_available(void)
{
	std::lock_guard<std::mutex> lock(s_mutex);
	return start_locked();
}

extern "C" bool kl_ps_cuda_search(const kl_ps_batch* batch, const kl_ps_pair_query* pairs, int pair_count,
								  const float* alarm, uint32_t* kept, kl_ps_stats* stats, char* message,
								  size_t message_size)
{
	std::lock_guard<std::mutex> lock(s_mutex);
	*kept = 0;
	if (!start_locked())
	{
		snprintf(message, message_size, "point shell: no CUDA device");
		return false;
	}
	if (!run_locked(batch, pairs, pair_count, alarm, kept, stats))
	{
		describe("the GPU search failed", message, message_size);
		return false;
	}
	return true;
}

extern "C" bool kl_ps_cuda_download(uint64_t* keys, uint32_t kept, kl_ps_stats* stats, char* message,
									size_t message_size)
{
	std::lock_guard<std::mutex> lock(s_mutex);
	double t0 = now_ms();
	bool ok = kept == 0 || (cudaMemcpyAsync(keys, s_work.buffer[slot_sorted].data, kept * sizeof(uint64_t),
											cudaMemcpyDeviceToHost, s_work.stream) == cudaSuccess &&
							cudaStreamSynchronize(s_work.stream) == cudaSuccess);
	stats->transfer_ms += now_ms() - t0;
	if (!ok)
	{
		describe("downloading the candidates failed", message, message_size);
	}
	return ok;
}

extern "C" void kl_ps_cuda_forget(uint64_t serial)
{
	std::lock_guard<std::mutex> lock(s_mutex);
	auto it = s_work.models.find(serial);
	if (it != s_work.models.end())
	{
		free_resident(it->second);
		s_work.models.erase(it);
	}
}
