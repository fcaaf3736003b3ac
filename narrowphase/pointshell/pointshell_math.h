// Kollide narrowphase — the plain float vectors and affine maps of the point-shell kernels (KL_HD:
// the CPU path and CUDA share them; cglm is host-only).
// SPDX-License-Identifier: MIT
#pragma once

#include "hd.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct kl_ps_f3
{
	float x, y, z;
} kl_ps_f3;

/// p' = M p + t, row-major 3 × 4 (rotation times scale, then translation).
typedef struct kl_ps_xform
{
	float m[12];
} kl_ps_xform;


KL_HD static inline kl_ps_f3 kl_ps_make(float x, float y, float z)
{
	kl_ps_f3 r;
	r.x = x;
	r.y = y;
	r.z = z;
	return r;
}
KL_HD static inline kl_ps_f3 kl_ps_sub(kl_ps_f3 a, kl_ps_f3 b)
{
	return kl_ps_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
KL_HD static inline kl_ps_f3 kl_ps_add(kl_ps_f3 a, kl_ps_f3 b)
{
	return kl_ps_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
KL_HD static inline kl_ps_f3 kl_ps_scale(kl_ps_f3 a, float s)
{
	return kl_ps_make(a.x * s, a.y * s, a.z * s);
}
KL_HD static inline float kl_ps_dot(kl_ps_f3 a, kl_ps_f3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}
KL_HD static inline kl_ps_f3 kl_ps_cross(kl_ps_f3 a, kl_ps_f3 b)
{
	return kl_ps_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
KL_HD static inline float kl_ps_clamp01(float t)
{
	return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
}

KL_HD static inline kl_ps_f3 kl_ps_apply(const kl_ps_xform* x, kl_ps_f3 p)
{
	const float* m = x->m;
	return kl_ps_make(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[3], m[4] * p.x + m[5] * p.y + m[6] * p.z + m[7],
					  m[8] * p.x + m[9] * p.y + m[10] * p.z + m[11]);
}

/// Triangle tri of a model, in its object frame.
