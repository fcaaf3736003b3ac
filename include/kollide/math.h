// Kollide — math types of the public API. Vectors and quaternions are cglm's struct types
// (vec3s, versors; quaternion memory order x, y, z, w). Frames: SI units, right-handed, z up.
// SPDX-License-Identifier: MIT
#pragma once

#include <cglm/struct.h>

#include "base.h"

KL_C_BEGIN

/// A rigid transform: rotate by q, then translate by p.
typedef struct kl_transform
{
	vec3s p;
	versors q;
} kl_transform;

/// Axis-aligned bounding box.
typedef struct kl_aabb
{
	vec3s lower;
	vec3s upper;
} kl_aabb;

/// A big finite coordinate used for the bounds of unbounded shapes (planes), so that
/// bounds stay finite and NaN/Inf can always be treated as an error.
#define KL_HUGE 1.0e18f

static inline vec3s kl_vec3(float x, float y, float z)
{
	vec3s v = {{x, y, z}};
	return v;
}

/// Quaternion from components in (w, x, y, z) order, the order used by scene files.
static inline versors kl_quat_wxyz(float w, float x, float y, float z)
{
	versors q = {{x, y, z, w}};
	return q;
}

static inline kl_transform kl_transform_identity(void)
{
	kl_transform t = {{{0.0f, 0.0f, 0.0f}}, {{0.0f, 0.0f, 0.0f, 1.0f}}};
	return t;
}

/// Rotates v by the unit quaternion q. (cglm's glms_quat_rotatev normalises q on every call,
/// which costs a square root and a division in the innermost loops; poses here stay unit.)
static inline vec3s kl_rotate(versors q, vec3s v)
{
	// t = 2 q.xyz × v;  v' = v + w t + q.xyz × t
	vec3s u = {{q.x, q.y, q.z}};
	vec3s t = glms_vec3_scale(glms_vec3_cross(u, v), 2.0f);
	return glms_vec3_add(glms_vec3_add(v, glms_vec3_scale(t, q.w)), glms_vec3_cross(u, t));
}

/// Rotates v by the inverse of the unit quaternion q.
static inline vec3s kl_inv_rotate(versors q, vec3s v)
{
	versors c = {{-q.x, -q.y, -q.z, q.w}};
	return kl_rotate(c, v);
}

/// Maps a point from the frame t into its parent frame.
static inline vec3s kl_transform_point(kl_transform t, vec3s p)
{
	return glms_vec3_add(kl_rotate(t.q, p), t.p);
}

/// Maps a point from the parent frame into the frame t.
static inline vec3s kl_inv_transform_point(kl_transform t, vec3s p)
{
	return kl_inv_rotate(t.q, glms_vec3_sub(p, t.p));
}

/// a * b: the frame b expressed in a's parent.
static inline kl_transform kl_transform_mul(kl_transform a, kl_transform b)
{
	kl_transform r;
	r.q = glms_quat_mul(a.q, b.q);
	r.p = kl_transform_point(a, b.p);
	return r;
}

KL_C_END
