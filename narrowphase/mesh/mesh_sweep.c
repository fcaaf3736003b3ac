// Kollide — continuous collision for fast mesh pairs (mesh_sweep.h). Speculative contacts from the
// nearest surface points at a pass's start cannot foresee a part that travels farther than its
// thickness within the pass; the features that touch first, found at the pose where they touch, can.
// SPDX-License-Identifier: MIT
#include "mesh_sweep.h"

#include "core.h"

#include <float.h>

/// Feature ids of swept contacts differ from the pair's own, so neither warm-starts the other.
#define KL_SWEEP_ID_BIT 0x80000000u

float kl_sweep_travel(const kl_vertex_motion* motion, const float reach[2])
{
	float speed = glms_vec3_norm(glms_vec3_sub(motion->velocity[1], motion->velocity[0]));
	for (int i = 0; i < 2; ++i)
	{
		speed += glms_vec3_norm(motion->angular_velocity[i]) * reach[i];
	}
	return speed * motion->dt;
}

float kl_sweep_sample_length(const kl_triangle_set* a, const kl_triangle_set* b)
{
	float ta = a->thickness > 0.0f ? a->thickness : FLT_MAX;
	float tb = b->thickness > 0.0f ? b->thickness : FLT_MAX;
	float thinner = fminf(ta, tb);
	return thinner < FLT_MAX ? kl_maxf(0.5f * thinner, KL_LINEAR_SLOP) : KL_LINEAR_SLOP;
}

/// The body's turn over t at constant angular velocity w.
static versors turn(vec3s w, float t)
{
	float angle = glms_vec3_norm(w) * t;
	if (angle < 1.0e-12f)
	{
		return glms_quat_identity();
	}
	return glms_quatv(angle, glms_vec3_normalize(w));
}

/// Set `side` of the motion carried forward by t: its centre moves with the body's velocity and its
/// points turn about the centre.
static kl_triangle_set placed(const kl_triangle_set* set, const kl_vertex_motion* m, int side, float t)
{
	kl_triangle_set out = *set;
	versors dq = turn(m->angular_velocity[side], t);
	vec3s center = glms_vec3_add(m->center[side], glms_vec3_scale(m->velocity[side], t));
	out.xf.p = glms_vec3_add(center, kl_rotate(dq, glms_vec3_sub(set->xf.p, m->center[side])));
	out.xf.q = glms_quat_normalize(glms_quat_mul(dq, set->xf.q));
	return out;
}

/// World point x of body `side` at time t, carried back with the body to time 0.
static vec3s carried_back(const kl_vertex_motion* m, int side, float t, vec3s x)
{
	versors dq = turn(m->angular_velocity[side], t);
	vec3s center = glms_vec3_add(m->center[side], glms_vec3_scale(m->velocity[side], t));
	return glms_vec3_add(m->center[side], kl_inv_rotate(dq, glms_vec3_sub(x, center)));
}

/// Whether the sets' surfaces meet at time t of the motion; *failed when the walk ran out of memory.
static bool meet_at(const kl_triangle_set* a, const kl_triangle_set* b, const kl_vertex_motion* m, float t,
					bool* failed)
{
	kl_triangle_set pa = placed(a, m, 0, t);
	kl_triangle_set pb = placed(b, m, 1, t);
	return kl_triangle_set_surfaces_meet(&pa, &pb, failed);
}

/// The last time before the surfaces first meet, or a negative value when they meet at the start,
/// do not meet within the motion, or the walk failed.
static float first_meeting(const kl_triangle_set* a, const kl_triangle_set* b, const kl_vertex_motion* m, int samples)
{
	bool failed = false;
	if (meet_at(a, b, m, 0.0f, &failed) || failed)
	{
		return -1.0f;
	}
	float lo = 0.0f, hi = -1.0f;
	for (int k = 1; k <= samples && hi < 0.0f; ++k)
	{
		float t = m->dt * (float)k / (float)samples;
		if (meet_at(a, b, m, t, &failed))
		{
			hi = t;
		}
		else
		{
			lo = t;
		}
		if (failed)
		{
			return -1.0f;
		}
	}
	for (int i = 0; hi >= 0.0f && i < KL_SWEEP_BISECTIONS; ++i)
	{
		float mid = 0.5f * (lo + hi);
		bool meet = meet_at(a, b, m, mid, &failed);
		if (failed)
		{
			return -1.0f;
		}
		hi = meet ? mid : hi;
		lo = meet ? lo : mid;
	}
	return hi >= 0.0f ? lo : -1.0f;
}

/// Points within this of a manifold's least separation count as touching first (m).
#define KL_SWEEP_TIE 0.001f

/// The manifold reduced to one point: the mean of its points that touch first. One point per
/// manifold stops the approach in one solver iteration; four of them, each with its lever arm,
/// leave a fast body part of its speed (a plate shot at 20 m/s face first kept 5–7 m/s).
static void keep_first_touch(kl_manifold* manifold)
{
	float least = FLT_MAX;
	for (int k = 0; k < manifold->point_count; ++k)
	{
		least = fminf(least, manifold->points[k].separation);
	}
	vec3s sum = glms_vec3_zero();
	float separation = 0.0f;
	int count = 0;
	for (int k = 0; k < manifold->point_count; ++k)
	{
		const kl_manifold_point* p = &manifold->points[k];
		if (p->separation <= least + KL_SWEEP_TIE)
		{
			sum = glms_vec3_add(sum, p->point);
			separation += p->separation;
			count += 1;
		}
	}
	if (count > 0)
	{
		kl_manifold_point first = manifold->points[0];
		first.point = glms_vec3_scale(sum, 1.0f / (float)count);
		first.separation = separation / (float)count;
		manifold->points[0] = first;
		manifold->point_count = 1;
	}
}

/// A manifold found at time t carried back to time 0: each point's two surface points ride with
/// their bodies, the normal with body a. The solver moves a point with both bodies from one place,
/// so the point is put on the body whose turn carries its surface point farther (`ride`, 0 or 1):
/// there the constraint follows the faster surface exactly, and the slower one to first order.
static void carry_manifold_back(const kl_vertex_motion* m, float t, int ride, kl_manifold* manifold)
{
	keep_first_touch(manifold);
	vec3s n = manifold->normal;
	vec3s n0 = kl_inv_rotate(turn(m->angular_velocity[0], t), n);
	for (int k = 0; k < manifold->point_count; ++k)
	{
		kl_manifold_point* p = &manifold->points[k];
		vec3s half = glms_vec3_scale(n, 0.5f * p->separation);
		vec3s on_a = carried_back(m, 0, t, glms_vec3_sub(p->point, half));
		vec3s on_b = carried_back(m, 1, t, glms_vec3_add(p->point, half));
		p->point = ride == 0 ? on_a : on_b;
		p->separation = glms_vec3_dot(n0, glms_vec3_sub(on_b, on_a));
		p->id ^= KL_SWEEP_ID_BIT;
	}
	manifold->normal = n0;
}

int kl_sweep_triangle_sets(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
						   const kl_vertex_motion* motion, const float reach[2], kl_mesh_scratch* scratch,
						   kl_manifold* out, int max_manifolds)
{
	float sample = kl_sweep_sample_length(a, b);
	float travel = kl_sweep_travel(motion, reach);
	if (!(travel > sample) || max_manifolds <= 0)
	{
		return 0;
	}
	int samples = (int)fminf(ceilf(travel / sample), (float)KL_SWEEP_MAX_SAMPLES);
	float t = first_meeting(a, b, motion, samples);
	if (t < 0.0f)
	{
		return 0;
	}
	kl_triangle_set pa = placed(a, motion, 0, t);
	kl_triangle_set pb = placed(b, motion, 1, t);
	kl_vertex_motion rest = *motion;
	for (int i = 0; i < 2; ++i)
	{
		rest.center[i] = glms_vec3_add(motion->center[i], glms_vec3_scale(motion->velocity[i], t));
	}
	rest.dt = motion->dt - t;
	int count = kl_collide_triangle_sets(&pa, &pb, margin, &rest, scratch, out, max_manifolds);
	int ride =
		glms_vec3_norm(motion->angular_velocity[1]) * reach[1] > glms_vec3_norm(motion->angular_velocity[0]) * reach[0]
			? 1
			: 0;
	for (int i = 0; i < count; ++i)
	{
		carry_manifold_back(motion, t, ride, &out[i]);
	}
	return count;
}
