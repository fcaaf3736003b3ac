// Kollide internal — the one-lane "register set" the reference walk (ist_walk_scalar_w*.c) instantiates
// ist_walk.h with: a float, its operations the scalar ones in the same order as the SIMD sets'.
// SPDX-License-Identifier: MIT
#pragma once

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef float kl_f1_v;
typedef bool kl_f1_m;
enum
{
	kl_f1_lanes = 1
};

static inline float kl_f1_load(const float* p)
{
	return *p;
}

static inline void kl_f1_store(float* p, float a)
{
	*p = a;
}

static inline float kl_f1_set1(float s)
{
	return s;
}

static inline float kl_f1_add(float a, float b)
{
	return a + b;
}

static inline float kl_f1_mul(float a, float b)
{
	return a * b;
}

static inline bool kl_f1_lt(float a, float b)
{
	return a < b;
}

static inline uint32_t kl_f1_bits(bool m)
{
	return m ? 1u : 0u;
}

static inline float kl_f1_sub(float a, float b)
{
	return a - b;
}

static inline float kl_f1_div(float a, float b)
{
	return a / b;
}

static inline float kl_f1_sqrt(float a)
{
	return sqrtf(a);
}

static inline float kl_f1_min(float a, float b)
{
	return a < b ? a : b;
}

static inline float kl_f1_max(float a, float b)
{
	return a > b ? a : b;
}

static inline bool kl_f1_le(float a, float b)
{
	return a <= b;
}

static inline float kl_f1_sel(bool m, float a, float b)
{
	return m ? a : b;
}
