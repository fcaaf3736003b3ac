// Kollide internal — error state (thread-local), allocation, hashing, timing.
// SPDX-License-Identifier: MIT
#include "core.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static _Thread_local char s_error_message[512];
static _Thread_local kl_result s_error_code = KL_OK;

kl_result kl_fail(kl_result code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(s_error_message, sizeof(s_error_message), format, args);
	va_end(args);
	s_error_code = code;
	return code;
}

const char* kl_last_error(void)
{
	return s_error_message;
}

kl_result kl_last_error_code(void)
{
	return s_error_code;
}

void kl_clear_error(void)
{
	s_error_message[0] = '\0';
	s_error_code = KL_OK;
}

_Static_assert(sizeof(((kl_error_state*)0)->message) == sizeof(s_error_message), "a saved message fits whole");

void kl_error_save(kl_error_state* out)
{
	out->code = s_error_code;
	memcpy(out->message, s_error_message, sizeof(out->message));
}

void kl_error_restore(const kl_error_state* state)
{
	s_error_code = state->code;
	memcpy(s_error_message, state->message, sizeof(s_error_message));
}

const char* kl_result_name(kl_result result)
{
	switch (result)
	{
		case KL_OK: return "ok";
		case KL_ERR_INVALID_ARGUMENT: return "invalid argument";
		case KL_ERR_INVALID_ID: return "invalid id";
		case KL_ERR_DEGENERATE: return "degenerate geometry";
		case KL_ERR_IO: return "i/o error";
		case KL_ERR_PARSE: return "parse error";
		case KL_ERR_LIMIT: return "limit exceeded";
		case KL_ERR_OUT_OF_MEMORY: return "out of memory";
		case KL_ERR_LOCKED: return "world is locked";
		case KL_ERR_UNSUPPORTED: return "unsupported";
		case KL_ERR_CANCELLED: return "cancelled";
	}
	return "unknown result";
}

const char* kl_version_string(void)
{
	return "0.1.0";
}

// The armed failure's distance in allocations; negative when none is armed. Each allocation reads
// it once (a relaxed load).
static atomic_long s_fail_countdown = -1;

void kl_fail_allocation(long index)
{
	atomic_store(&s_fail_countdown, index < 0 ? -1 : index);
}

long kl_fail_allocation_countdown(void)
{
	return atomic_load(&s_fail_countdown);
}

/// True when this allocation is the armed one (which disarms).
static bool injected_failure(size_t bytes)
{
	if (atomic_load_explicit(&s_fail_countdown, memory_order_relaxed) < 0 ||
		atomic_fetch_sub(&s_fail_countdown, 1) != 0)
	{
		return false;
	}
	kl_fail(KL_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes (injected)", bytes);
	return true;
}

void* kl_alloc(size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "allocation of %zu x %zu bytes overflows", count, size);
		return NULL;
	}
	size_t bytes = count * size;
	if (injected_failure(bytes))
	{
		return NULL;
	}
	void* p = malloc(bytes > 0 ? bytes : 1);
	if (p == NULL)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes", bytes);
	}
	return p;
}

void* kl_alloc_zero(size_t count, size_t size)
{
	void* p = kl_alloc(count, size);
	if (p != NULL)
	{
		memset(p, 0, count * size);
	}
	return p;
}

void* kl_realloc(void* p, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "allocation of %zu x %zu bytes overflows", count, size);
		return NULL;
	}
	size_t bytes = count * size;
	if (injected_failure(bytes))
	{
		return NULL;
	}
	void* q = realloc(p, bytes > 0 ? bytes : 1);
	if (q == NULL)
	{
		kl_fail(KL_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes", bytes);
	}
	return q;
}

void kl_free(void* p)
{
	free(p);
}

char* kl_strdup(const char* s)
{
	if (s == NULL)
	{
		return NULL;
	}
	size_t n = strlen(s) + 1;
	char* d = kl_alloc(n, 1);
	if (d != NULL)
	{
		memcpy(d, s, n);
	}
	return d;
}

bool kl_quat_normalize_checked(versors* q)
{
	if (!kl_quat_is_finite(*q))
	{
		return false;
	}
	double n2 = (double)q->x * q->x + (double)q->y * q->y + (double)q->z * q->z + (double)q->w * q->w;
	if (!(n2 > 1.0e-12))
	{
		return false;
	}
	// Already unit to float precision: keep the bits. Renormalising is not idempotent in float,
	// and a pose that is saved and loaded again (scene files) must come back bit-identical.
	if (fabs(n2 - 1.0) <= 2.0e-6)
	{
		return true;
	}
	float inv = (float)(1.0 / sqrt(n2));
	q->x *= inv;
	q->y *= inv;
	q->z *= inv;
	q->w *= inv;
	return true;
}

bool kl_array_reserve(void** data, int* capacity, int count, size_t item_size)
{
	if (count <= *capacity)
	{
		return true;
	}
	int new_capacity = *capacity > 0 ? *capacity : 8;
	while (new_capacity < count)
	{
		if (new_capacity > INT32_MAX / 2)
		{
			kl_fail(KL_ERR_LIMIT, "array capacity overflow (%d items)", count);
			return false;
		}
		new_capacity *= 2;
	}
	void* p = kl_realloc(*data, (size_t)new_capacity, item_size);
	if (p == NULL)
	{
		return false;
	}
	*data = p;
	*capacity = new_capacity;
	return true;
}

int kl_compare_float_keys(const void* a, const void* b)
{
	const kl_float_key* x = a;
	const kl_float_key* y = b;
	if (x->key != y->key)
	{
		return x->key < y->key ? -1 : 1;
	}
	return (x->index > y->index) - (x->index < y->index);
}

uint32_t kl_hash_bytes(uint32_t hash, const void* data, size_t size)
{
	const unsigned char* bytes = data;
	for (size_t i = 0; i < size; ++i)
	{
		hash ^= bytes[i];
		hash *= 16777619u;
	}
	return hash;
}

uint64_t kl_hash64_bytes(uint64_t hash, const void* data, size_t size)
{
	const unsigned char* bytes = data;
	for (size_t i = 0; i < size; ++i)
	{
		hash = (hash ^ bytes[i]) * 0x100000001b3ull;
	}
	return hash;
}

double kl_time_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}
