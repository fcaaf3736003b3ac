// Kollide — the wide contact kernels on AVX2 (__m256, 8 lanes), chosen at run time after a CPU
// check (simd.h). No FMA: the same operations in the same order as the scalar-lane kernels.
// SPDX-License-Identifier: MIT
#include "contact_solver_wide.h"

#if defined(KOLLIDE_AVX2) && defined(__x86_64__)
#include <immintrin.h>

typedef __m256 kl_w;
typedef __m256 kl_m;

#define KL_WF static inline __attribute__((target("avx2,fma")))
#define KL_WK static __attribute__((target("avx2,fma")))
#define KL_WIDE_NAME(x) x##_avx2

KL_WF kl_w w_load(const float* p)
{
	return _mm256_loadu_ps(p);
}

KL_WF void w_store(float* p, kl_w a)
{
	_mm256_storeu_ps(p, a);
}

KL_WF kl_w w_set(float s)
{
	return _mm256_set1_ps(s);
}

KL_WF kl_w w_add(kl_w a, kl_w b)
{
	return _mm256_add_ps(a, b);
}

KL_WF kl_w w_sub(kl_w a, kl_w b)
{
	return _mm256_sub_ps(a, b);
}

KL_WF kl_w w_mul(kl_w a, kl_w b)
{
	return _mm256_mul_ps(a, b);
}

KL_WF kl_w w_div(kl_w a, kl_w b)
{
	return _mm256_div_ps(a, b);
}

KL_WF kl_w w_max(kl_w a, kl_w b)
{
	return _mm256_max_ps(a, b);
}

KL_WF kl_w w_min(kl_w a, kl_w b)
{
	return _mm256_min_ps(a, b);
}

KL_WF kl_w w_sqrt(kl_w a)
{
	return _mm256_sqrt_ps(a);
}

KL_WF kl_w w_neg(kl_w a)
{
	return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
}

KL_WF kl_m w_gt(kl_w a, kl_w b)
{
	return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}

KL_WF kl_m w_le(kl_w a, kl_w b)
{
	return _mm256_cmp_ps(a, b, _CMP_LE_OQ);
}

KL_WF kl_m w_ne(kl_w a, kl_w b)
{
	// Unordered counts as not equal, as a != b does in C.
	return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
}

KL_WF kl_m m_and(kl_m a, kl_m b)
{
	return _mm256_and_ps(a, b);
}

KL_WF bool m_any(kl_m a)
{
	return _mm256_movemask_ps(a) != 0;
}

/// m ? b : a, lane by lane.
KL_WF kl_w w_blend(kl_w a, kl_w b, kl_m m)
{
	return _mm256_blendv_ps(a, b, m);
}

#include "contact_solver_wide_kernel.h"

/// Lanes 0–7 of rows r[0..7] (4 floats each) as four vectors: x, y, z, w.
KL_WF void transpose_8x4(const __m128* r, __m256* out)
{
	__m256 t0 = _mm256_set_m128(r[4], r[0]);
	__m256 t1 = _mm256_set_m128(r[5], r[1]);
	__m256 t2 = _mm256_set_m128(r[6], r[2]);
	__m256 t3 = _mm256_set_m128(r[7], r[3]);
	__m256 u0 = _mm256_unpacklo_ps(t0, t1);
	__m256 u1 = _mm256_unpackhi_ps(t0, t1);
	__m256 u2 = _mm256_unpacklo_ps(t2, t3);
	__m256 u3 = _mm256_unpackhi_ps(t2, t3);
	out[0] = _mm256_shuffle_ps(u0, u2, 0x44);
	out[1] = _mm256_shuffle_ps(u0, u2, 0xEE);
	out[2] = _mm256_shuffle_ps(u1, u3, 0x44);
	out[3] = _mm256_shuffle_ps(u1, u3, 0xEE);
}

/// The inverse of transpose_8x4: row i holds lane i's x, y, z, w.
KL_WF void transpose_4x8(const __m256* in, __m128* r)
{
	__m256 u0 = _mm256_unpacklo_ps(in[0], in[1]);
	__m256 u1 = _mm256_unpackhi_ps(in[0], in[1]);
	__m256 u2 = _mm256_unpacklo_ps(in[2], in[3]);
	__m256 u3 = _mm256_unpackhi_ps(in[2], in[3]);
	__m256 t0 = _mm256_shuffle_ps(u0, u2, 0x44);
	__m256 t1 = _mm256_shuffle_ps(u0, u2, 0xEE);
	__m256 t2 = _mm256_shuffle_ps(u1, u3, 0x44);
	__m256 t3 = _mm256_shuffle_ps(u1, u3, 0xEE);
	r[0] = _mm256_castps256_ps128(t0);
	r[1] = _mm256_castps256_ps128(t1);
	r[2] = _mm256_castps256_ps128(t2);
	r[3] = _mm256_castps256_ps128(t3);
	r[4] = _mm256_extractf128_ps(t0, 1);
	r[5] = _mm256_extractf128_ps(t1, 1);
	r[6] = _mm256_extractf128_ps(t2, 1);
	r[7] = _mm256_extractf128_ps(t3, 1);
}

static const float kl_wide_zero_state[8] = {0.0f};
static const float kl_wide_identity_motion[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f};

// A body state is 6 floats (v, w): rows of 4 from floats 0..3 and 2..5 stay inside it.
_Static_assert(sizeof(kl_body_state) == 6 * sizeof(float), "kl_body_state is v, w");
_Static_assert(sizeof(vec3s) == 3 * sizeof(float) && sizeof(versors) == 4 * sizeof(float), "packed vectors");

KL_WF kl_side_w side_gather(const kl_solver_step* step, const int* index, const float* inv_mass, bool with_delta)
{
	// Transposes instead of lane-by-lane stores: 8 scalar stores read back as one vector stall.
	__m128 lo[8], hi[8];
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		int i = index[lane];
		const float* p = i >= 0 ? &step->states[i].linear_velocity.x : kl_wide_zero_state;
		lo[lane] = _mm_loadu_ps(p);		// vx vy vz wx
		hi[lane] = _mm_loadu_ps(p + 2); // vz wx wy wz
	}
	__m256 a[4], b[4];
	transpose_8x4(lo, a);
	transpose_8x4(hi, b);
	kl_side_w s;
	s.v = (kl_v3w){a[0], a[1], a[2]};
	s.w = (kl_v3w){b[1], b[2], b[3]};
	s.inv_mass = w_load(inv_mass);
	if (!with_delta)
	{
		s.dp = (kl_v3w){_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
		s.u = s.dp;
		s.qw = _mm256_set1_ps(1.0f);
		return s;
	}
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		int i = index[lane];
		const kl_solver_body* body = i >= 0 ? &step->bodies[i] : NULL;
		// dp.x dp.y dp.z (and one float of whatever follows, unused), then q.
		lo[lane] = _mm_loadu_ps(body != NULL ? &body->delta_position.x : kl_wide_identity_motion);
		hi[lane] = _mm_loadu_ps(body != NULL ? &body->delta_rotation.x : kl_wide_identity_motion + 4);
	}
	transpose_8x4(lo, a);
	transpose_8x4(hi, b);
	s.dp = (kl_v3w){a[0], a[1], a[2]};
	s.u = (kl_v3w){b[0], b[1], b[2]};
	s.qw = b[3];
	return s;
}

KL_WF void side_scatter(const kl_solver_step* step, const int* index, const int32_t* dynamic, const kl_side_w* s)
{
	__m256 lo_in[4] = {s->v.x, s->v.y, s->v.z, s->w.x};
	__m256 hi_in[4] = {s->v.z, s->w.x, s->w.y, s->w.z};
	__m128 lo[8], hi[8];
	transpose_4x8(lo_in, lo);
	transpose_4x8(hi_in, hi);
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		if (dynamic[lane] != 0)
		{
			float* p = &step->states[index[lane]].linear_velocity.x;
			_mm_storeu_ps(p, lo[lane]);
			_mm_storeu_ps(p + 2, hi[lane]);
		}
	}
}

#else

const kl_contact_wide_kernels* kl_contact_wide_kernels_avx2(void)
{
	return NULL;
}

#endif
