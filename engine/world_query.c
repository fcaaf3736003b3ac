// Kollide — world queries: ray casts against every shape (picking and dragging in the viewer).
// SPDX-License-Identifier: MIT
#include "world.h"

#include "core.h"
#include "raycast.h"

#include <kollide/kollide.h>

/// The segment's parameter interval [0, max_fraction] clipped to the box; false when it misses.
/// Bounds of planes are ±KL_HUGE, so they pass and the exact test decides.
static bool segment_overlaps_aabb(vec3s origin, vec3s translation, float max_fraction, kl_aabb box)
{
	float lower = 0.0f, upper = max_fraction;
	for (int i = 0; i < 3; ++i)
	{
		float p = origin.raw[i], d = translation.raw[i];
		float lo = box.lower.raw[i], hi = box.upper.raw[i];
		if (d == 0.0f)
		{
			if (p < lo || hi < p)
			{
				return false;
			}
			continue;
		}
		float inv = 1.0f / d;
		float t1 = (lo - p) * inv, t2 = (hi - p) * inv;
		lower = fmaxf(lower, fminf(t1, t2));
		upper = fminf(upper, fmaxf(t1, t2));
		if (lower > upper)
		{
			return false;
		}
	}
	return true;
}

/// The ray against one shape, moved into its frame: body transform times local pose. A rigid
/// transform keeps fractions, so only the normal needs turning back.
static bool cast_shape(const kl_shape* shape, kl_transform xf, vec3s origin, vec3s translation, float max_fraction,
					   kl_ray_output* out)
{
	kl_ray_input in;
	in.origin = kl_inv_transform_point(xf, origin);
	in.translation = kl_inv_rotate(xf.q, translation);
	in.max_fraction = max_fraction;
	bool hit = false;
	switch (shape->type)
	{
		case KL_SHAPE_SPHERE: hit = kl_ray_sphere(shape->sphere_radius, &in, out); break;
		case KL_SHAPE_BOX: hit = kl_ray_box(shape->box_half_extents, &in, out); break;
		case KL_SHAPE_CAPSULE: hit = kl_ray_capsule(shape->capsule.radius, shape->capsule.half_height, &in, out); break;
		case KL_SHAPE_HULL: hit = kl_ray_hull(shape->hull, &in, out); break;
		case KL_SHAPE_MESH: hit = kl_ray_mesh(shape->mesh.mesh, shape->mesh.scale, &in, out); break;
		case KL_SHAPE_PLANE: hit = kl_ray_plane(shape->plane, &in, out); break;
		case KL_SHAPE_TYPE_COUNT: break;
	}
	if (hit)
	{
		out->normal = kl_rotate(xf.q, out->normal);
	}
	return hit;
}

static bool filter_accepts(const kl_shape* shape, kl_filter filter)
{
	return (shape->filter.category_bits & filter.mask_bits) != 0 &&
		   (filter.category_bits & shape->filter.mask_bits) != 0;
}

/// Linear in the number of shapes (each one's bounds are tested before its geometry): fine for
/// picking a body per mouse click. A broadphase ray query will replace the loop once the
/// broadphase has a tree to walk; the results will not change.
bool kl_world_cast_ray(kl_world_id id, vec3s origin, vec3s translation, kl_filter filter, kl_ray_hit* hit)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return false;
	}
	if (hit == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_world_cast_ray: hit is NULL");
		return false;
	}
	*hit = (kl_ray_hit){0};
	hit->fraction = 1.0f;
	if (world->locked)
	{
		kl_fail(KL_ERR_LOCKED, "cannot cast a ray while the world steps");
		return false;
	}
	vec3s end = glms_vec3_add(origin, translation);
	if (!kl_vec3_is_finite(origin) || !kl_vec3_is_finite(translation) || !kl_vec3_is_finite(end) ||
		!kl_is_finite(glms_vec3_norm2(translation)))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_world_cast_ray: origin (%g, %g, %g) or translation (%g, %g, %g) is not "
										 "finite or too long",
				(double)origin.x, (double)origin.y, (double)origin.z, (double)translation.x, (double)translation.y,
				(double)translation.z);
		return false;
	}
	hit->point = end;

	float best = 1.0f;
	int best_shape = -1;
	vec3s best_normal = glms_vec3_zero();
	int count = kl_id_pool_slot_count(&world->shape_pool);
	for (int s = 0; s < count; ++s)
	{
		const kl_shape* shape = world->shapes + s;
		if (shape->id < 0 || shape->is_sensor || !filter_accepts(shape, filter) ||
			!segment_overlaps_aabb(origin, translation, best, shape->aabb))
		{
			continue;
		}
		kl_transform xf = kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
		kl_ray_output out;
		// Strictly closer only: among equal fractions the lowest slot wins.
		if (cast_shape(shape, xf, origin, translation, best, &out) && (best_shape < 0 || out.fraction < best))
		{
			best = out.fraction;
			best_shape = s;
			best_normal = out.normal;
		}
	}
	if (best_shape < 0)
	{
		return false;
	}
	const kl_shape* shape = world->shapes + best_shape;
	hit->shape = kl_make_shape_id(world, shape);
	hit->body = kl_make_body_id(world, world->bodies + shape->body);
	hit->point = glms_vec3_add(origin, glms_vec3_scale(translation, best));
	hit->normal = glms_vec3_normalize(best_normal);
	hit->fraction = best;
	return true;
}
