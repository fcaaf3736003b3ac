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

/// Rotates v by the unit quaternion q.
static inline vec3s kl_rotate(versors q, vec3s v)
{
	return glms_quat_rotatev(q, v);
}

/// Rotates v by the inverse of the unit quaternion q.
static inline vec3s kl_inv_rotate(versors q, vec3s v)
{
	return glms_quat_rotatev(glms_quat_conjugate(q), v);
}

/// Maps a point from the frame t into its parent frame.
static inline vec3s kl_transform_point(kl_transform t, vec3s p)
{
	return glms_vec3_add(glms_quat_rotatev(t.q, p), t.p);
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
