// Kollide — the wide contact kernels on plain loops over the 8 lanes (any CPU; the compiler may
// vectorise them). Same operations in the same order as the AVX2 kernels, so the same results.
// SPDX-License-Identifier: MIT
#include "contact_solver_wide.h"

#include <math.h>
#include <string.h>

typedef struct kl_w
{
	float v[KL_WIDE_LANES];
} kl_w;

typedef struct kl_m
{
	int32_t v[KL_WIDE_LANES];
} kl_m;

#define KL_WF static inline
#define KL_WK static
#define KL_WIDE_NAME(x) x##_scalar

#define KL_W_BINARY(name, expr)                                                                                        \
	static inline kl_w name(kl_w a, kl_w b)                                                                            \
	{                                                                                                                  \
		kl_w r;                                                                                                        \
		for (int i = 0; i < KL_WIDE_LANES; ++i)                                                                        \
		{                                                                                                              \
			r.v[i] = (expr);                                                                                           \
		}                                                                                                              \
		return r;                                                                                                      \
	}

#define KL_W_COMPARE(name, expr)                                                                                       \
	static inline kl_m name(kl_w a, kl_w b)                                                                            \
	{                                                                                                                  \
		kl_m r;                                                                                                        \
		for (int i = 0; i < KL_WIDE_LANES; ++i)                                                                        \
		{                                                                                                              \
			r.v[i] = (expr) ? -1 : 0;                                                                                  \
		}                                                                                                              \
		return r;                                                                                                      \
	}

KL_W_BINARY(w_add, a.v[i] + b.v[i])
KL_W_BINARY(w_sub, a.v[i] - b.v[i])
KL_W_BINARY(w_mul, a.v[i] * b.v[i])
KL_W_BINARY(w_div, a.v[i] / b.v[i])
/// _mm256_max_ps's rule: b unless a > b (NaN gives b).
KL_W_BINARY(w_max, a.v[i] > b.v[i] ? a.v[i] : b.v[i])
/// _mm256_min_ps's rule: a if a < b, else b.
KL_W_BINARY(w_min, a.v[i] < b.v[i] ? a.v[i] : b.v[i])
KL_W_COMPARE(w_gt, a.v[i] > b.v[i])
KL_W_COMPARE(w_le, a.v[i] <= b.v[i])
KL_W_COMPARE(w_ne, a.v[i] != b.v[i])

static inline kl_w w_load(const float* p)
{
	kl_w r;
	memcpy(r.v, p, sizeof(r.v));
	return r;
}

static inline void w_store(float* p, kl_w a)
{
	memcpy(p, a.v, sizeof(a.v));
}

static inline kl_w w_set(float s)
{
	kl_w r;
	for (int i = 0; i < KL_WIDE_LANES; ++i)
	{
		r.v[i] = s;
	}
	return r;
}

static inline kl_w w_sqrt(kl_w a)
{
	kl_w r;
	for (int i = 0; i < KL_WIDE_LANES; ++i)
	{
		r.v[i] = sqrtf(a.v[i]);
	}
	return r;
}

static inline kl_w w_neg(kl_w a)
{
	kl_w r;
	for (int i = 0; i < KL_WIDE_LANES; ++i)
	{
		r.v[i] = -a.v[i];
	}
	return r;
}

static inline kl_m m_and(kl_m a, kl_m b)
{
	kl_m r;
	for (int i = 0; i < KL_WIDE_LANES; ++i)
	{
		r.v[i] = a.v[i] & b.v[i];
	}
	return r;
}

static inline bool m_any(kl_m a)
{
	int32_t any = 0;
	for (int i = 0; i < KL_WIDE_LANES; ++i)
	{
		any |= a.v[i];
	}
	return any != 0;
}

/// m ? b : a, lane by lane.
static inline kl_w w_blend(kl_w a, kl_w b, kl_m m)
{
	kl_w r;
	for (int i = 0; i < KL_WIDE_LANES; ++i)
	{
		r.v[i] = m.v[i] != 0 ? b.v[i] : a.v[i];
	}
	return r;
}

#include "contact_solver_wide_kernel.h"

KL_WF kl_side_w side_gather(const kl_solver_step* step, const int* index, const float* inv_mass, bool with_delta)
{
	kl_wide_bodies b;
	kl_wide_gather_bodies(step, index, with_delta, &b);
	kl_side_w s;
	s.v = v3_load3(b.v);
	s.w = v3_load3(b.w);
	s.inv_mass = w_load(inv_mass);
	if (with_delta)
	{
		s.dp = v3_load3(b.dp);
		s.u = v3_load3(b.dq);
		s.qw = w_load(b.dq[3]);
	}
	else
	{
		s.dp = (kl_v3w){w_set(0.0f), w_set(0.0f), w_set(0.0f)};
		s.u = s.dp;
		s.qw = w_set(1.0f);
	}
	return s;
}

KL_WF void side_scatter(const kl_solver_step* step, const int* index, const int32_t* dynamic, const kl_side_w* s)
{
	kl_wide_bodies b;
	v3_store3(b.v, s->v);
	v3_store3(b.w, s->w);
	kl_wide_scatter_bodies(step, index, dynamic, &b);
}
