// Kollide internal — ray casts against one shape in its own frame: sphere, capsule, box, hull,
// plane and triangle mesh. Pure geometry: no world, no allocation. kl_world_cast_ray
// (engine/world_query.c) moves the ray into each shape's frame and the result back out.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

/// A segment origin → origin + translation in the shape frame. Only hits with a fraction at most
/// max_fraction count, so that a caller looking for the closest of many shapes passes the best
/// fraction so far and lets each test stop early.
typedef struct kl_ray_input
{
	vec3s origin;
	vec3s translation;
	float max_fraction; ///< in [0, 1]
} kl_ray_input;

/// Where the segment enters the shape: fraction along it and the unit surface normal there
/// (shape frame, facing against the ray).
typedef struct kl_ray_output
{
	vec3s normal;
	float fraction;
} kl_ray_output;

// Each test returns true and fills out when the segment enters the solid within max_fraction.
// A segment that starts strictly inside the solid reports no hit: a picking ray that starts inside
// one body should find what lies beyond it, not the body it starts in. A segment that starts on the
// surface and points into the solid hits at fraction 0.

/// Sphere of that radius about the origin.
bool kl_ray_sphere(float radius, const kl_ray_input* input, kl_ray_output* out);
/// Capsule around the segment (0, 0, ±half_height).
bool kl_ray_capsule(float radius, float half_height, const kl_ray_input* input, kl_ray_output* out);
/// Box of those half extents about the origin (slab test).
bool kl_ray_box(vec3s half_extents, const kl_ray_input* input, kl_ray_output* out);
/// Convex hull: the segment is clipped against every face plane.
bool kl_ray_hull(const kl_hull* hull, const kl_ray_input* input, kl_ray_output* out);
/// Half-space dot(normal, x) <= offset.
bool kl_ray_plane(kl_plane plane, const kl_ray_input* input, kl_ray_output* out);
/// Triangle mesh with vertices scaled per axis. A closed mesh is a solid: when the nearest triangle
/// the segment crosses faces away from it, the segment started inside and there is no hit. An open
/// mesh is a two-sided surface.
bool kl_ray_mesh(const kl_mesh* mesh, vec3s scale, const kl_ray_input* input, kl_ray_output* out);

/// Whether the point lies inside a closed mesh scaled per axis: the nearest triangle a ray from it
/// crosses faces away from it (kl_ray_mesh's rule for segments that start inside). False for an
/// open mesh, which encloses nothing.
bool kl_point_in_mesh(const kl_mesh* mesh, vec3s scale, vec3s point);
