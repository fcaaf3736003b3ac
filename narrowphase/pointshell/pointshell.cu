// Kollide narrowphase — CUDA launch glue of the point-shell search (pointshell_cuda.h): resident
// models, per-call buffers, one thread per query item and per candidate running the KL_HD kernels of
// pointshell_kernels.h. No per-item logic lives here.
//
// On the device, in one stream, with one synchronisation per call: one copy of the packed inputs
// from page-locked memory (models are uploaded once per model and kept); points into octrees (a
// thread per sample), each key entering an open-addressing set so that the list of candidates holds
// it once; the triangle stage over that list (a grid-stride loop: only the device knows its
// length), appending the kept keys; the counters and the first kept keys back. The host sorts a
// few kept keys (pointshell_gpu.c); many (over kSortOnDeviceFrom) are sorted here with CUB, at the
// price of a second synchronisation. With light contact a sort of all candidates on the device and
// the readbacks it needs cost more than the search (E1: a CUB sort, unique and select took a
// quarter of the call).
// SPDX-License-Identifier: MIT
#include "pointshell_cuda.h"

#include "device_buffer.cuh"

#include <cub/device/device_radix_sort.cuh>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace
{

const int kBlock = 128;
const uint32_t kTriangleLanes = 8; ///< lanes per key in the triangle stage (few keys): 21 parts, 2-3 a lane
const uint32_t kSortOnDeviceFrom = 16384;

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
	slot_upload,   ///< the per-call inputs, packed
	slot_set,	   ///< the open-addressing set of emitted keys
	slot_unique,   ///< each emitted key once, unsorted
	slot_kept,	   ///< the keys the triangle stage keeps, unsorted
	slot_counters, ///< counter_*
	slot_temp,	   ///< CUB's sort of many kept keys
	slot_total
};

enum counter
{
	counter_unique,
	counter_kept,
	counter_raw,
	counter_overflow,
	counter_total
};

enum event
{
	event_start,
	event_uploaded,
	event_searched,
	event_tested,
	event_downloaded,
	event_total
};

/// Page-locked host memory, grown as needed: copies from and to it run asynchronously.
struct pinned_buffer
{
	void* data;
	size_t size;
};

struct workspace
{
	kl_device_buffer buffer[slot_total];
	pinned_buffer upload;
	pinned_buffer download; ///< the counters, then the kept keys
	cudaStream_t stream;
	cudaEvent_t events[event_total];
	int grid_limit; ///< blocks for the grid-stride kernels: a few per multiprocessor
	uint32_t capacity; ///< room in the unique and kept lists; grows on overflow and stays
	uint32_t set_mask;
	uint32_t kept; ///< of the last search
	uint32_t downloaded; ///< kept keys already in download
	bool sorted;		 ///< and sorted
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

void* reserve_pinned(pinned_buffer& b, size_t bytes)
{
	if (b.size < bytes)
	{
		cudaFreeHost(b.data);
		b.data = nullptr;
		b.size = 0;
		bytes += bytes / 4;
		if (cudaHostAlloc(&b.data, bytes, cudaHostAllocDefault) != cudaSuccess)
		{
			return nullptr;
		}
		b.size = bytes;
	}
	return b.data;
}

bool start_locked()
{
	if (s_work.no_device)
	{
		return false;
	}
	if (!s_work.started)
	{
		int devices = 0, sms = 0;
		bool ok = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0 &&
				  cudaStreamCreateWithFlags(&s_work.stream, cudaStreamNonBlocking) == cudaSuccess &&
				  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess;
		for (int i = 0; ok && i < event_total; ++i)
		{
			ok = cudaEventCreate(&s_work.events[i]) == cudaSuccess;
		}
		if (!ok)
		{
			cudaGetLastError();
			s_work.no_device = true;
			return false;
		}
		s_work.grid_limit = 8 * (sms > 0 ? sms : 1);
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
	// On the work stream, so that the searches after it see the whole copy (a pageable copy on the
	// legacy stream may return before its transfer lands, and the work stream does not wait for it).
	if (count > 0 && cudaMemcpyAsync(d, host, count * sizeof(T), cudaMemcpyHostToDevice, s_work.stream) != cudaSuccess)
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

/// The model's device copy, uploading it the first time.
const resident* resident_of(const kl_pointshell* m)
{
	auto it = s_work.models.find(m->serial);
	if (it != s_work.models.end())
	{
		return &it->second;
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
	v.entries = upload_array(r, m->entries, static_cast<size_t>(m->entry_count));
	v.congs = upload_array(r, m->congs, static_cast<size_t>(m->cong_count));
	v.cong_count = m->cong_count;
	v.triangle_count = m->triangle_count;
	if (!v.vertices || !v.indices || !v.tris || !v.masks || !v.coverage || !v.points || !v.nodes || !v.entries ||
		!v.congs)
	{
		free_resident(r);
		return nullptr;
	}
	return &s_work.models.emplace(m->serial, r).first->second;
}

// A thread per sample: a thread per triangle left too few threads (11k in E1) walking 20-30
// searches each in turn. Keys go through the emitter's set, so the list holds each once. Measured
// on an H100 and dropped (2026-11-27): copying a block's octree into shared memory first (E1 gained
// 5 %, E3 and E4, whose forced pairs stop most searches at the root, lost a half); a block's own set
// of keys in shared memory before the global one (within 5 % either way); and the triangle test
// run by the thread that inserts a key, in one kernel (93 registers instead of 55: E1 8 % faster
// than the two kernels then were, E3 and E4 25-40 % slower, and slower than the split triangle
// stage everywhere); launch bounds of 12 or 16 blocks per multiprocessor, for 40 or 32 registers
// and all of E1's 204,000 threads in one wave (E1a 0.053 -> 0.061 ms by ncu, E3 0.50 -> 0.86:
// the spills cost more than the wave gains); a grid of the blocks that fit at once whose warps take
// 32 samples at a time from a queue (an atomic counter), against the 29 % occupancy ncu measured
// (of 56 % possible) and the last partial wave (shell stage E1a 0.059 -> 0.066 ms, E2 0.060 ->
// 0.078, E3 0.50 -> 0.65, E4 5.0 -> 6.1).
__global__ void query_kernel(const kl_ps_model_view* views, const kl_ps_work* works, int work_count, int sample_count,
							 kl_ps_emitter out, uint32_t* raw)
{
	int item = blockIdx.x * blockDim.x + threadIdx.x;
	if (item >= sample_count)
	{
		return;
	}
	const kl_ps_work* w = works + kl_ps_find_work(works, work_count, item, true);
	uint32_t emitted =
		static_cast<uint32_t>(kl_ps_query_sample(views + w->p_model, views + w->q_model, w, item - w->sample_begin, &out));
	// One atomic per group of threads that arrive together, not one per thread on a single address.
	cooperative_groups::coalesced_group arrived = cooperative_groups::coalesced_threads();
	uint32_t sum = cooperative_groups::reduce(arrived, emitted, cooperative_groups::plus<uint32_t>());
	if (arrived.thread_rank() == 0 && sum > 0)
	{
		atomicAdd(raw, sum);
	}
}

// The triangle stage over the unique keys, whose count only the device knows: a grid-stride loop
// over a grid sized for the list's capacity. The kept keys are appended. A search whose set or list
// overflowed is run again, so its keys are not tested. When the grid holds kTriangleLanes threads for
// every key, that many neighbouring threads share a key, each testing every kTriangleLanes-th part of
// it (kl_ps_triangles_near): one key's test is a long chain of dependent operations, which a few
// thousand keys leave the device waiting on (E1a on an H100: 0.025 ms, 0.008 split). Past that
// (E4: 200,000 keys) the stage is bound by the work, and a thread tests whole keys (0.037 ms, 0.103
// split).
__global__ void triangle_kernel(kl_ps_triangle_stage stage, const uint64_t* unique, uint32_t capacity,
								uint32_t* counters, uint64_t* kept)
{
	static_assert(kTriangleLanes <= 32 && (kTriangleLanes & (kTriangleLanes - 1)) == 0, "a key's lanes in one warp");
	bool again = counters[counter_overflow] != 0u || counters[counter_unique] > capacity;
	uint32_t n = again ? 0u : counters[counter_unique];
	uint32_t threads = gridDim.x * blockDim.x;
	uint32_t lanes = n <= threads / kTriangleLanes ? kTriangleLanes : 1u; // the same for the whole grid
	uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
	int part = static_cast<int>(thread % lanes);
	// The key's lanes: every thread of them runs the same iterations, so they meet at the vote.
	unsigned key_lanes = (0xffffffffu >> (32u - lanes)) << ((threadIdx.x & 31u) & ~(lanes - 1u));
	for (uint32_t i = thread / lanes; i < n; i += threads / lanes)
	{
		uint64_t key = unique[i];
		bool near = kl_ps_stage_keeps(&stage, key, part, static_cast<int>(lanes));
		near = lanes > 1u ? __any_sync(key_lanes, near) : near;
		if (near && part == 0)
		{
			kept[atomicAdd(counters + counter_kept, 1u)] = key;
		}
	}
}

double elapsed_ms(event from, event to)
{
	float ms = 0.0f;
	cudaEventElapsedTime(&ms, s_work.events[from], s_work.events[to]);
	return ms;
}

/// The per-call inputs packed into one page-locked block, so that one asynchronous copy moves them.
struct upload_layout
{
	size_t views, works, world, alarm, pair_models, bytes;
};

size_t place(size_t& at, size_t bytes)
{
	size_t here = at;
	at = (at + bytes + 63) & ~static_cast<size_t>(63);
	return here;
}

upload_layout layout_for(const kl_ps_batch* batch, int pair_count)
{
	upload_layout l;
	size_t at = 0, pairs = static_cast<size_t>(pair_count);
	l.views = place(at, static_cast<size_t>(batch->model_count) * sizeof(kl_ps_model_view));
	l.works = place(at, static_cast<size_t>(batch->work_count) * sizeof(kl_ps_work));
	l.world = place(at, 2 * pairs * sizeof(kl_ps_xform));
	l.alarm = place(at, 2 * pairs * sizeof(float));
	l.pair_models = place(at, 2 * pairs * sizeof(int32_t));
	l.bytes = at > 0 ? at : 64;
	return l;
}

/// Packs the models' device views, the works, transforms, alarm distances and each pair's models
/// (their indices among the batch's; -1 when culled before planning) into host.
bool pack_inputs(const kl_ps_batch* batch, const kl_ps_pair_query* pairs, int pair_count, const float* alarm,
				 const upload_layout& l, uint8_t* host)
{
	auto* views = reinterpret_cast<kl_ps_model_view*>(host + l.views);
	for (int i = 0; i < batch->model_count; ++i)
	{
		const resident* r = resident_of(batch->models[i]);
		if (r == nullptr)
		{
			return false;
		}
		views[i] = r->view;
	}
	if (batch->work_count > 0)
	{
		memcpy(host + l.works, batch->works, static_cast<size_t>(batch->work_count) * sizeof(kl_ps_work));
	}
	if (pair_count > 0)
	{
		memcpy(host + l.world, batch->world, 2 * static_cast<size_t>(pair_count) * sizeof(kl_ps_xform));
		memcpy(host + l.alarm, alarm, 2 * static_cast<size_t>(pair_count) * sizeof(float));
	}
	auto* pair_models = reinterpret_cast<int32_t*>(host + l.pair_models);
	for (int i = 0; i < pair_count; ++i)
	{
		pair_models[2 * i] = pair_models[2 * i + 1] = -1;
		for (int m = 0; m < batch->model_count; ++m)
		{
			pair_models[2 * i] = batch->models[m] == pairs[i].a.model ? m : pair_models[2 * i];
			pair_models[2 * i + 1] = batch->models[m] == pairs[i].b.model ? m : pair_models[2 * i + 1];
		}
	}
	return true;
}

/// Room for the capacity in the set (at most half full) and the lists; false when out of memory.
bool reserve_lists(uint32_t capacity)
{
	uint32_t set_size = 1024;
	while (set_size < 2 * static_cast<uint64_t>(capacity) && set_size < (1u << 31))
	{
		set_size *= 2;
	}
	s_work.set_mask = set_size - 1;
	return reserve<uint64_t>(slot_set, set_size) != nullptr && reserve<uint64_t>(slot_unique, capacity) != nullptr &&
		   reserve<uint64_t>(slot_kept, capacity) != nullptr &&
		   reserve_pinned(s_work.download, counter_total * sizeof(uint32_t) + capacity * sizeof(uint64_t)) != nullptr;
}

uint64_t* downloaded_keys()
{
	return reinterpret_cast<uint64_t*>(static_cast<uint32_t*>(s_work.download.data) + counter_total);
}

/// One pass of the device stages at the workspace's capacity: the search, then the triangle stage;
/// the counters come back in download, with the first of the kept keys (as many as the last search
/// kept, and some).
bool search_pass(const kl_ps_batch* batch, const upload_layout& l, uint32_t prefetch)
{
	cudaStream_t stream = s_work.stream;
	auto* base = static_cast<uint8_t*>(s_work.buffer[slot_upload].data);
	auto* views = reinterpret_cast<const kl_ps_model_view*>(base + l.views);
	auto* works = reinterpret_cast<const kl_ps_work*>(base + l.works);
	auto* world = reinterpret_cast<const kl_ps_xform*>(base + l.world);
	auto* alarm = reinterpret_cast<const float*>(base + l.alarm);
	auto* pair_models = reinterpret_cast<const int32_t*>(base + l.pair_models);
	auto* set = static_cast<uint64_t*>(s_work.buffer[slot_set].data);
	auto* unique = static_cast<uint64_t*>(s_work.buffer[slot_unique].data);
	auto* kept = static_cast<uint64_t*>(s_work.buffer[slot_kept].data);
	auto* counters = static_cast<uint32_t*>(s_work.buffer[slot_counters].data);
	uint32_t capacity = s_work.capacity;
	bool ok = cudaMemsetAsync(counters, 0, counter_total * sizeof(uint32_t), stream) == cudaSuccess &&
			  cudaMemsetAsync(set, 0xff, (s_work.set_mask + 1ull) * sizeof(uint64_t), stream) == cudaSuccess;
	kl_ps_triangle_stage stage = {views, pair_models, world, alarm};
	kl_ps_emitter out = {unique, counters + counter_unique, capacity, set, s_work.set_mask,
						 counters + counter_overflow};
	if (ok && batch->sample_count > 0)
	{
		query_kernel<<<blocks_for(batch->sample_count), kBlock, 0, stream>>>(views, works, batch->work_count,
																			batch->sample_count, out,
																			counters + counter_raw);
		ok = cudaGetLastError() == cudaSuccess; // a launch that cannot start says so only here
	}
	ok = ok && cudaEventRecord(s_work.events[event_searched], stream) == cudaSuccess;
	// Threads enough to split the test of as many keys as the lists hold (up to the grid's limit).
	long long threads = static_cast<long long>(capacity) * kTriangleLanes;
	int blocks = blocks_for(threads) < s_work.grid_limit ? blocks_for(threads) : s_work.grid_limit;
	if (ok && batch->sample_count > 0)
	{
		triangle_kernel<<<blocks, kBlock, 0, stream>>>(stage, unique, capacity, counters, kept);
		ok = cudaGetLastError() == cudaSuccess;
	}
	prefetch = prefetch < capacity ? prefetch : capacity;
	return ok && cudaEventRecord(s_work.events[event_tested], stream) == cudaSuccess &&
		   cudaMemcpyAsync(s_work.download.data, counters, counter_total * sizeof(uint32_t), cudaMemcpyDeviceToHost,
						   stream) == cudaSuccess &&
		   cudaMemcpyAsync(downloaded_keys(), kept, prefetch * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream) ==
			   cudaSuccess &&
		   cudaEventRecord(s_work.events[event_downloaded], stream) == cudaSuccess &&
		   cudaStreamSynchronize(stream) == cudaSuccess;
}

/// Sorts the kept keys on the device into the unique list (free by now) and fetches them all: many
/// keys (E4: 150,000) take the host's radix sort longer than this extra synchronisation.
bool sort_on_device(int pair_count, kl_ps_stats* stats)
{
	auto t0 = std::chrono::steady_clock::now();
	cudaStream_t stream = s_work.stream;
	auto* kept = static_cast<uint64_t*>(s_work.buffer[slot_kept].data);
	auto* sorted = static_cast<uint64_t*>(s_work.buffer[slot_unique].data);
	int n = static_cast<int>(s_work.kept);
	// Only the key's bits in use: two 24-bit triangles and the pair index above them.
	int end_bit = 48;
	while (end_bit < 64 && (static_cast<uint64_t>(pair_count > 0 ? pair_count - 1 : 0) >> (end_bit - 48)) != 0)
	{
		++end_bit;
	}
	size_t bytes = 0;
	bool ok = cub::DeviceRadixSort::SortKeys(nullptr, bytes, kept, sorted, n, 0, end_bit, stream) == cudaSuccess;
	void* temp = ok ? reserve<uint8_t>(slot_temp, bytes) : nullptr;
	ok = temp != nullptr &&
		 cub::DeviceRadixSort::SortKeys(temp, bytes, kept, sorted, n, 0, end_bit, stream) == cudaSuccess &&
		 cudaMemcpyAsync(downloaded_keys(), sorted, s_work.kept * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream) ==
			 cudaSuccess &&
		 cudaStreamSynchronize(stream) == cudaSuccess;
	s_work.downloaded = ok ? s_work.kept : 0;
	s_work.sorted = ok;
	stats->sort_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	return ok;
}

/// The device stages: one upload, the search with its set, the triangle stage (search_pass), one
/// synchronisation (again with a larger set and lists when they overflowed); false on any CUDA error.
bool search_locked(const kl_ps_batch* batch, const kl_ps_pair_query* pairs, int pair_count, const float* alarm,
				   uint32_t* kept_out, kl_ps_stats* stats)
{
	upload_layout l = layout_for(batch, pair_count);
	auto* host = static_cast<uint8_t*>(reserve_pinned(s_work.upload, l.bytes));
	if (host == nullptr || reserve<uint8_t>(slot_upload, l.bytes) == nullptr ||
		reserve<uint32_t>(slot_counters, counter_total) == nullptr ||
		!pack_inputs(batch, pairs, pair_count, alarm, l, host))
	{
		return false;
	}
	s_work.capacity = s_work.capacity > 16384 ? s_work.capacity : 16384;
	cudaStream_t stream = s_work.stream;
	bool ok = cudaEventRecord(s_work.events[event_start], stream) == cudaSuccess &&
			  cudaMemcpyAsync(s_work.buffer[slot_upload].data, host, l.bytes, cudaMemcpyHostToDevice, stream) ==
				  cudaSuccess &&
			  cudaEventRecord(s_work.events[event_uploaded], stream) == cudaSuccess;
	const uint32_t* counters = static_cast<const uint32_t*>(s_work.download.data);
	uint32_t prefetch = 0;
	for (int attempt = 0; ok; ++attempt)
	{
		// As many as the last search kept, and some; more than the device sorts itself is never needed.
		prefetch = 4096 + s_work.kept + s_work.kept / 2;
		prefetch = prefetch < kSortOnDeviceFrom ? prefetch : kSortOnDeviceFrom;
		ok = reserve_lists(s_work.capacity) && search_pass(batch, l, prefetch);
		if (!ok)
		{
			break; // the counters may not have come back (or their buffer is gone)
		}
		counters = static_cast<const uint32_t*>(s_work.download.data);
		if (counters[counter_unique] <= s_work.capacity && counters[counter_overflow] == 0)
		{
			break;
		}
		if (attempt == 3)
		{
			return false;
		}
		// The set and the lists hold every new key: grow for them. After the set overflowed the new keys
		// were not all counted; the keys offered bound them.
		uint32_t most = counters[counter_unique];
		most = counters[counter_overflow] != 0 && counters[counter_raw] > most ? counters[counter_raw] : most;
		uint64_t need = most + most / 4ull;
		need = need > 2ull * s_work.capacity ? need : 2ull * s_work.capacity;
		if (need > (1u << 30))
		{
			return false;
		}
		s_work.capacity = static_cast<uint32_t>(need);
	}
	if (!ok)
	{
		return false;
	}
	s_work.kept = counters[counter_kept];
	s_work.downloaded = s_work.kept < prefetch ? s_work.kept : prefetch;
	s_work.sorted = false;
	if (s_work.kept > kSortOnDeviceFrom && !sort_on_device(pair_count, stats))
	{
		return false;
	}
	stats->transfer_ms += elapsed_ms(event_start, event_uploaded) + elapsed_ms(event_tested, event_downloaded);
	stats->shell_ms = elapsed_ms(event_uploaded, event_searched);
	stats->triangle_ms = elapsed_ms(event_searched, event_tested);
	stats->raw_candidates = counters[counter_raw];
	stats->unique_candidates = static_cast<int>(counters[counter_unique]);
	*kept_out = s_work.kept;
	return true;
}

/// The kept keys of the last search into the caller's buffer: the prefetched ones from page-locked
/// memory, the rest from the device.
bool fetch_locked(kl_ps_key_reserve* reserve_keys, void* context, kl_ps_stats* stats)
{
	uint32_t kept = s_work.kept;
	uint64_t* keys = kept > 0 ? reserve_keys(context, kept) : nullptr;
	if (kept > 0 && keys == nullptr)
	{
		return false;
	}
	uint32_t have = kept < s_work.downloaded ? kept : s_work.downloaded;
	if (have > 0)
	{
		memcpy(keys, downloaded_keys(), have * sizeof(uint64_t));
	}
	if (have == kept)
	{
		return true;
	}
	// More than the search fetched with its counters.
	auto t0 = std::chrono::steady_clock::now();
	bool ok = cudaMemcpyAsync(keys + have, static_cast<uint64_t*>(s_work.buffer[slot_kept].data) + have,
							  (kept - have) * sizeof(uint64_t), cudaMemcpyDeviceToHost, s_work.stream) == cudaSuccess &&
			  cudaStreamSynchronize(s_work.stream) == cudaSuccess;
	stats->transfer_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
								  const float* alarm, kl_ps_key_reserve* reserve_keys, void* context, uint32_t* kept,
								  bool* sorted, kl_ps_stats* stats, char* message, size_t message_size)
{
	// One lock over the search and the copy out: another world's search in between would replace
	// the workspace's keys.
	std::lock_guard<std::mutex> lock(s_mutex);
	*kept = 0;
	*sorted = false;
	if (!start_locked())
	{
		snprintf(message, message_size, "point shell: no CUDA device");
		return false;
	}
	if (!search_locked(batch, pairs, pair_count, alarm, kept, stats))
	{
		describe("the GPU search failed", message, message_size);
		cudaStreamSynchronize(s_work.stream); // nothing may still read or write the page-locked buffers
		*kept = 0;
		return false;
	}
	if (!fetch_locked(reserve_keys, context, stats))
	{
		describe("fetching the candidates failed", message, message_size);
		cudaStreamSynchronize(s_work.stream);
		*kept = 0;
		return false;
	}
	*sorted = s_work.sorted;
	return true;
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
