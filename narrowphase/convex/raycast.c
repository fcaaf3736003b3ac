// Kollide — ray casts against one shape in its own frame (see raycast.h).
// SPDX-License-Identifier: MIT
#include "raycast.h"

#include "core.h"
#include "hull.h"

#include <float.h>
#include <math.h>

/// Translation components below this count as parallel to an axis or plane: dividing by them would
/// overflow, and a segment that short along the normal cannot cross anything of finite size.
#define KL_RAY_PARALLEL 1.0e-20f

/// Entry into a sphere of radius r about the origin. Works with the unit direction and the
/// perpendicular distance rather than the quadratic's discriminant, which loses every digit for a
/// small sphere seen from far away.
bool kl_ray_sphere(float radius, const kl_ray_input* input, kl_ray_output* out)
{
	vec3s p = input->origin;
	float c = glms_vec3_dot(p, p) - radius * radius;
	float length = glms_vec3_norm(input->translation);
	if (c < 0.0f || length == 0.0f)
	{
		return false; // starts inside, or goes nowhere
	}
	vec3s u = glms_vec3_scale(input->translation, 1.0f / length);
	float b = glms_vec3_dot(p, u);
	vec3s q = glms_vec3_sub(p, glms_vec3_scale(u, b)); // closest point of the line to the centre
	float h2 = radius * radius - glms_vec3_dot(q, q);
	if (h2 < 0.0f)
	{
		return false;
	}
	float s = -b - sqrtf(h2);
	if (s < 0.0f || s > input->max_fraction * length)
	{
		return false;
	}
	float fraction = fminf(s / length, input->max_fraction);
	vec3s point = glms_vec3_add(p, glms_vec3_scale(input->translation, fraction));
	out->fraction = fraction;
	out->normal = glms_vec3_normalize(point);
	if (!kl_vec3_is_finite(out->normal) || glms_vec3_norm2(out->normal) == 0.0f)
	{
		out->normal = glms_vec3_scale(u, -1.0f); // zero radius: the point is the centre
	}
	return true;
}

/// The capsule is the union of its finite cylinder and its two end spheres, so the entry is the
/// earliest of: the infinite cylinder's entry where it lies between the ends, and the two sphere
/// entries (the cylinder's flat caps lie inside the spheres and are never entered first).
bool kl_ray_capsule(float radius, float half_height, const kl_ray_input* input, kl_ray_output* out)
{
	vec3s p = input->origin;
	vec3s d = input->translation;
	float z = fminf(fmaxf(p.z, -half_height), half_height);
	float dz = p.z - z;
	if (p.x * p.x + p.y * p.y + dz * dz < radius * radius)
	{
		return false; // starts inside
	}
	bool hit = false;
	kl_ray_input sub = *input;
	float length2 = sqrtf(d.x * d.x + d.y * d.y);
	float c2 = p.x * p.x + p.y * p.y - radius * radius;
	if (length2 > 0.0f && c2 >= 0.0f)
	{
		float ux = d.x / length2, uy = d.y / length2;
		float b = p.x * ux + p.y * uy;
		float qx = p.x - b * ux, qy = p.y - b * uy;
		float h2 = radius * radius - (qx * qx + qy * qy);
		float s = h2 >= 0.0f ? -b - sqrtf(h2) : -1.0f;
		if (s >= 0.0f && s <= input->max_fraction * length2)
		{
			float fraction = fminf(s / length2, input->max_fraction);
			vec3s point = glms_vec3_add(p, glms_vec3_scale(d, fraction));
			if (-half_height <= point.z && point.z <= half_height)
			{
				out->fraction = fraction;
				out->normal = glms_vec3_normalize(kl_vec3(point.x, point.y, 0.0f));
				sub.max_fraction = fraction;
				hit = true;
			}
		}
	}
	for (int end = 0; end < 2; ++end)
	{
		kl_ray_output cap;
		sub.origin = kl_vec3(p.x, p.y, p.z - (end == 0 ? -half_height : half_height));
		if (kl_ray_sphere(radius, &sub, &cap) && (!hit || cap.fraction < out->fraction))
		{
			*out = cap;
			sub.max_fraction = cap.fraction;
			hit = true;
		}
	}
	return hit;
}

/// Slab test: the segment's parameter interval inside each pair of faces, intersected; the entry is
/// the last slab entered, and its face gives the normal.
bool kl_ray_box(vec3s half_extents, const kl_ray_input* input, kl_ray_output* out)
{
	const float* p = input->origin.raw;
	const float* d = input->translation.raw;
	const float* h = half_extents.raw;
	if (fabsf(p[0]) < h[0] && fabsf(p[1]) < h[1] && fabsf(p[2]) < h[2])
	{
		return false; // starts inside
	}
	float lower = -FLT_MAX, upper = FLT_MAX;
	int axis = -1;
	float sign = 0.0f;
	for (int i = 0; i < 3; ++i)
	{
		if (fabsf(d[i]) < KL_RAY_PARALLEL)
		{
			if (p[i] < -h[i] || h[i] < p[i])
			{
				return false;
			}
			continue;
		}
		float inv = 1.0f / d[i];
		float t1 = (-h[i] - p[i]) * inv;
		float t2 = (h[i] - p[i]) * inv;
		float s = -1.0f; // entering through the −h face when moving towards +
		if (t1 > t2)
		{
			float t = t1;
			t1 = t2;
			t2 = t;
			s = 1.0f;
		}
		if (t1 > lower)
		{
			lower = t1;
			axis = i;
			sign = s;
		}
		upper = fminf(upper, t2);
		if (lower > upper)
		{
			return false;
		}
	}
	if (axis < 0 || lower < 0.0f || lower > input->max_fraction)
	{
		return false;
	}
	out->fraction = lower;
	out->normal = glms_vec3_zero();
	out->normal.raw[axis] = sign;
	return true;
}

/// Clips the segment against every face plane (dot(n, x) <= offset): entering planes raise the
/// lower end, leaving planes lower the upper end. The last plane entered is the hit face.
bool kl_ray_hull(const kl_hull* hull, const kl_ray_input* input, kl_ray_output* out)
{
	float lower = -FLT_MAX, upper = input->max_fraction;
	int index = -1;
	for (int f = 0; f < hull->face_count; ++f)
	{
		const kl_hull_face* face = hull->faces + f;
		float num = face->offset - glms_vec3_dot(face->normal, input->origin);
		float den = glms_vec3_dot(face->normal, input->translation);
		if (fabsf(den) < KL_RAY_PARALLEL)
		{
			if (num < 0.0f)
			{
				return false; // runs parallel outside this face
			}
			continue;
		}
		float t = num / den;
		if (den < 0.0f)
		{
			if (t > lower)
			{
				lower = t;
				index = f;
			}
		}
		else if (t < upper)
		{
			upper = t;
		}
		if (upper < lower)
		{
			return false;
		}
	}
	// lower < 0 with every plane passed: the origin is behind every entering plane, i.e. inside.
	if (index < 0 || lower < 0.0f)
	{
		return false;
	}
	out->fraction = lower;
	out->normal = hull->faces[index].normal;
	return true;
}

bool kl_ray_plane(kl_plane plane, const kl_ray_input* input, kl_ray_output* out)
{
	float s = glms_vec3_dot(plane.normal, input->origin) - plane.offset;
	float den = glms_vec3_dot(plane.normal, input->translation);
	if (s < 0.0f || den > -KL_RAY_PARALLEL)
	{
		return false; // starts inside, or does not approach the surface
	}
	float t = s / -den;
	if (t > input->max_fraction)
	{
		return false;
	}
	out->fraction = t;
	out->normal = plane.normal;
	return true;
}

/// The nearest triangle the segment crosses within max_fraction: its fraction, its normal (unnormalised,
/// counter-clockwise) and whether the segment meets its front; false when it crosses none.
/// Brute force over every triangle (Möller–Trumbore, two-sided), O(triangles) per ray: enough for
/// picking in the viewer. The mesh BVH, when it lands in kl_mesh, will replace the loop with a
/// traversal that visits only the triangles near the segment.
static bool mesh_first_crossing(const kl_mesh* mesh, vec3s scale, const kl_ray_input* input, float* fraction_out,
								vec3s* normal_out, bool* front_out)
{
	kl_mesh_info info = kl_mesh_get_info(mesh);
	const vec3s* vertices = kl_mesh_vertices(mesh);
	const int32_t* indices = kl_mesh_indices(mesh);
	vec3s p = input->origin;
	vec3s d = input->translation;
	float best = input->max_fraction;
	bool best_front = false;
	vec3s best_normal = glms_vec3_zero();
	int found = -1;
	for (int t = 0; t < info.triangle_count; ++t)
	{
		vec3s a = glms_vec3_mul(vertices[indices[3 * t]], scale);
		vec3s b = glms_vec3_mul(vertices[indices[3 * t + 1]], scale);
		vec3s c = glms_vec3_mul(vertices[indices[3 * t + 2]], scale);
		vec3s e1 = glms_vec3_sub(b, a);
		vec3s e2 = glms_vec3_sub(c, a);
		vec3s pv = glms_vec3_cross(d, e2);
		float det = glms_vec3_dot(e1, pv); // = −dot(d, e1 × e2): positive when the ray meets the front
		if (fabsf(det) < KL_RAY_PARALLEL)
		{
			continue;
		}
		float inv = 1.0f / det;
		vec3s tv = glms_vec3_sub(p, a);
		float u = glms_vec3_dot(tv, pv) * inv;
		if (!(u >= 0.0f && u <= 1.0f))
		{
			continue;
		}
		vec3s qv = glms_vec3_cross(tv, e1);
		float v = glms_vec3_dot(d, qv) * inv;
		if (!(v >= 0.0f && u + v <= 1.0f))
		{
			continue;
		}
		float fraction = glms_vec3_dot(e2, qv) * inv;
		bool front = det > 0.0f;
		if (!(fraction >= 0.0f && fraction <= best))
		{
			continue;
		}
		// On an edge shared by a front and a back face at the same fraction, the front one wins:
		// a ray grazing a closed mesh's silhouette enters it there.
		if (found >= 0 && fraction == best && (best_front || !front))
		{
			continue;
		}
		best = fraction;
		best_front = front;
		best_normal = glms_vec3_cross(e1, e2);
		found = t;
	}
	*fraction_out = best;
	*normal_out = best_normal;
	*front_out = best_front;
	return found >= 0;
}

bool kl_ray_mesh(const kl_mesh* mesh, vec3s scale, const kl_ray_input* input, kl_ray_output* out)
{
	float fraction;
	vec3s normal;
	bool front;
	if (!mesh_first_crossing(mesh, scale, input, &fraction, &normal, &front) ||
		(kl_mesh_get_info(mesh).closed && !front))
	{
		return false; // nothing, or the first crossing leaves a closed mesh: the ray started inside
	}
	out->fraction = fraction;
	out->normal = glms_vec3_normalize(front ? normal : glms_vec3_scale(normal, -1.0f));
	return true;
}

bool kl_point_in_mesh(const kl_mesh* mesh, vec3s scale, vec3s point)
{
	kl_mesh_info info = kl_mesh_get_info(mesh);
	if (!info.closed)
	{
		return false;
	}
	// A ray out of the bounds, in a direction no axis-aligned edge or face lies along.
	vec3s lower = glms_vec3_mul(info.bounds.lower, scale), upper = glms_vec3_mul(info.bounds.upper, scale);
	float reach = 2.0f * (glms_vec3_distance(lower, upper) + glms_vec3_norm(glms_vec3_sub(point, lower))) + 1.0f;
	vec3s dir = glms_vec3_normalize(kl_vec3(0.8017837f, 0.2672612f, 0.5345225f));
	kl_ray_input in = {point, glms_vec3_scale(dir, reach), 1.0f};
	float fraction;
	vec3s normal;
	bool front;
	return mesh_first_crossing(mesh, scale, &in, &fraction, &normal, &front) && !front;
}
