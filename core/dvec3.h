// Kollide internal — small double-precision vectors for exact-ish triangle geometry: coordinates
// are taken relative to a local origin so that triangles far from the world origin keep their
// small gaps, and go back to float at the end.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/math.h>

typedef struct kl_d3
{
	double x, y, z;
} kl_d3;

static inline kl_d3 kl_d3_make(double x, double y, double z)
{
	kl_d3 r = {x, y, z};
	return r;
}

/// p − origin, in double.
static inline kl_d3 kl_d3_rel(vec3s p, vec3s origin)
{
	return kl_d3_make((double)p.x - origin.x, (double)p.y - origin.y, (double)p.z - origin.z);
}

static inline kl_d3 kl_d3_sub(kl_d3 a, kl_d3 b)
{
	return kl_d3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline kl_d3 kl_d3_add(kl_d3 a, kl_d3 b)
{
	return kl_d3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline kl_d3 kl_d3_scale(kl_d3 a, double s)
{
	return kl_d3_make(a.x * s, a.y * s, a.z * s);
}

static inline double kl_d3_dot(kl_d3 a, kl_d3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline kl_d3 kl_d3_cross(kl_d3 a, kl_d3 b)
{
	return kl_d3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

/// Back to a float world point: p + origin.
static inline vec3s kl_d3_world(kl_d3 p, vec3s origin)
{
	return kl_vec3((float)(p.x + origin.x), (float)(p.y + origin.y), (float)(p.z + origin.z));
}

/// A direction back to float.
static inline vec3s kl_d3_float(kl_d3 v)
{
	return kl_vec3((float)v.x, (float)v.y, (float)v.z);
}
