// Kollide internal — error reporting, allocation and small helpers shared by every module.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/base.h>
#include <kollide/math.h>

#include <math.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define KL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KL_PRINTF(f, a)
#endif

/// Records a failure for kl_last_error() and returns the code, so that callers can write
/// `return kl_fail(KL_ERR_INVALID_ARGUMENT, "radius %g must be positive", r);`.
kl_result kl_fail(kl_result code, const char* format, ...) KL_PRINTF(2, 3);

/// A thread's error state, kept across work that may fail and be worked around, so that a call
/// that succeeds leaves kl_last_error() as it found it (kl_world_step).
typedef struct kl_error_state
{
	kl_result code;
	char message[512];
} kl_error_state;
void kl_error_save(kl_error_state* out);
void kl_error_restore(const kl_error_state* state);

/// Fault injection for tests: the allocation `index` calls from now (0: the next one, on any
/// thread) fails as if out of memory; negative disarms. kl_alloc, kl_alloc_zero, kl_realloc and
/// kl_array_reserve go through it.
void kl_fail_allocation(long index);
/// Allocations left before the armed failure; negative once it happened (or none is armed).
long kl_fail_allocation_countdown(void);

/// Allocation that reports failure through kl_fail (returns NULL then). Sizes are checked for overflow.
void* kl_alloc(size_t count, size_t size);
void* kl_alloc_zero(size_t count, size_t size);
void* kl_realloc(void* p, size_t count, size_t size);
void kl_free(void* p);
char* kl_strdup(const char* s);

static inline bool kl_is_finite(float x)
{
	return isfinite(x);
}

static inline bool kl_vec3_is_finite(vec3s v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static inline bool kl_quat_is_finite(versors q)
{
	return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

static inline bool kl_transform_is_finite(kl_transform t)
{
	return kl_vec3_is_finite(t.p) && kl_quat_is_finite(t.q);
}

/// The power of two s that brings `largest` into [0.5, 1) (1 for 0, subnormal or non-finite input).
/// A matrix scaled by it inverts by cofactors without their products (up to the cube of the
/// largest entry) leaving float: inv(A) = inv(s A) s. The scaling is exact, so where inverting A
/// itself stays in range the result is bit-identical to it.
static inline float kl_pow2_scale(float largest)
{
	union
	{
		float f;
		uint32_t u;
	} v = {largest};
	int biased = (int)((v.u >> 23) & 0xffu);
	if (biased == 0 || biased == 0xff)
	{
		return 1.0f;
	}
	// largest lies in [2^(biased - 127), 2^(biased - 126)); s = 2^(126 - biased), kept normal.
	int scale = 253 - biased;
	scale = scale < 1 ? 1 : (scale > 254 ? 254 : scale);
	v.u = (uint32_t)scale << 23;
	return v.f;
}

/// The larger of a and b (b when either is NaN). fmaxf is a libm call without -ffinite-math-only,
/// and the solver's inner loops run millions of times per step.
static inline float kl_maxf(float a, float b)
{
	return a > b ? a : b;
}

/// The smaller of a and b (b when either is NaN); see kl_maxf.
static inline float kl_minf(float a, float b)
{
	return a < b ? a : b;
}

/// Largest |entry| of a 3×3 matrix (NaN entries are skipped: callers check finiteness).
static inline float kl_mat3_largest(mat3s m)
{
	float largest = 0.0f;
	for (int c = 0; c < 3; ++c)
	{
		for (int r = 0; r < 3; ++r)
		{
			largest = kl_maxf(fabsf(m.raw[c][r]), largest);
		}
	}
	return largest;
}

/// Normalises q; returns false (q untouched) for a non-finite or near-zero quaternion.
/// A quaternion that is already unit to float precision is left bit-for-bit unchanged.
bool kl_quat_normalize_checked(versors* q);

/// Grows a dynamic array so that it holds at least count items (doubling). Returns false on OOM.
bool kl_array_reserve(void** data, int* capacity, int count, size_t item_size);
#define KL_ARRAY_RESERVE(data, capacity, count) \
	kl_array_reserve((void**)&(data), &(capacity), (count), sizeof(*(data)))

/// A float sort key with the index of what it belongs to, for qsort with kl_compare_float_keys.
typedef struct kl_float_key
{
	float key;
	int index;
} kl_float_key;

/// qsort comparator of kl_float_key: ascending key, ties by ascending index (a deterministic order).
int kl_compare_float_keys(const void* a, const void* b);

/// 32-bit FNV-1a, continued from a previous value (start with KL_HASH_INIT).
#define KL_HASH_INIT 2166136261u
uint32_t kl_hash_bytes(uint32_t hash, const void* data, size_t size);

/// 64-bit FNV-1a, continued from a previous value (start with KL_HASH64_INIT): the cache files'
/// fingerprints of meshes and payloads, where 32 bits would collide too easily.
#define KL_HASH64_INIT 0xcbf29ce484222325ull
uint64_t kl_hash64_bytes(uint64_t hash, const void* data, size_t size);

/// Monotonic clock in seconds.
double kl_time_seconds(void);
