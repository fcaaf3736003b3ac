// Kollide — world queries: ray casts against every shape, the closest hit (picking and dragging in
// the viewer) or every hit through a callback.
// SPDX-License-Identifier: MIT
#include "world_query.h"

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
static bool ray_shape(const kl_shape* shape, kl_transform xf, vec3s origin, vec3s translation, float max_fraction,
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

kl_world* kl_query_world(kl_world_id id, const char* name)
{
	kl_world* world = kl_get_world(id);
	if (world != NULL && world->locked)
	{
		kl_fail(KL_ERR_LOCKED, "%s: the world is stepping", name);
		return NULL;
	}
	return world;
}

/// Checks a segment: origin, translation and their sum finite, and its length squared too.
static bool segment_is_valid(vec3s origin, vec3s translation, const char* name)
{
	vec3s end = glms_vec3_add(origin, translation);
	if (!kl_vec3_is_finite(origin) || !kl_vec3_is_finite(translation) || !kl_vec3_is_finite(end) ||
		!kl_is_finite(glms_vec3_norm2(translation)))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: origin (%g, %g, %g) or translation (%g, %g, %g) is not finite or too long",
				name, (double)origin.x, (double)origin.y, (double)origin.z, (double)translation.x,
				(double)translation.y, (double)translation.z);
		return false;
	}
	return true;
}

/// What a ray walk does with a hit: the value of a cast callback (kl_query_cast_continue).
typedef float ray_visit_fn(const kl_world* world, const kl_shape* shape, vec3s point, vec3s normal, float fraction,
						   void* context);

/// The segment against every shape the filter accepts (sensors skipped), in slot order; each hit
/// within the current clip goes to visit, whose value clips or stops the walk.
///
/// Linear in the number of shapes (each one's bounds are tested before its geometry): fine for
/// picking a body per mouse click. A broadphase ray query will replace the loop once the
/// broadphase has a tree to walk; the results will not change.
static void ray_walk(const kl_world* world, vec3s origin, vec3s translation, kl_filter filter, ray_visit_fn* visit,
					 void* context)
{
	float max_fraction = 1.0f;
	// Slots are read afresh each time: a callback must not change the world, but reading by index
	// keeps a misbehaving one from reading freed memory.
	for (int s = 0; s < kl_id_pool_slot_count(&world->shape_pool); ++s)
	{
		const kl_shape* shape = world->shapes + s;
		if (shape->id < 0 || shape->is_sensor || !kl_query_filter_accepts(shape, filter) ||
			!segment_overlaps_aabb(origin, translation, max_fraction, shape->aabb))
		{
			continue;
		}
		kl_transform xf = kl_query_shape_transform(world, shape);
		kl_ray_output out;
		if (!ray_shape(shape, xf, origin, translation, max_fraction, &out))
		{
			continue;
		}
		vec3s point = glms_vec3_add(origin, glms_vec3_scale(translation, out.fraction));
		float value = visit(world, shape, point, glms_vec3_normalize(out.normal), out.fraction, context);
		if (!kl_query_cast_continue(value, &max_fraction))
		{
			return;
		}
	}
}

/// kl_world_cast_ray's visit: keeps the closest hit and clips the walk to it. Strictly closer
/// only: among equal fractions the lowest slot wins.
static float closest_visit(const kl_world* world, const kl_shape* shape, vec3s point, vec3s normal, float fraction,
						   void* context)
{
	kl_ray_hit* hit = context;
	if (KL_IS_NON_NULL(hit->shape) && !(fraction < hit->fraction))
	{
		return -1.0f;
	}
	hit->shape = kl_make_shape_id(world, shape);
	hit->body = kl_make_body_id(world, world->bodies + shape->body);
	hit->point = point;
	hit->normal = normal;
	hit->fraction = fraction;
	return fraction;
}

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
	if (!segment_is_valid(origin, translation, "kl_world_cast_ray"))
	{
		return false;
	}
	hit->point = glms_vec3_add(origin, translation);
	ray_walk(world, origin, translation, filter, closest_visit, hit);
	return KL_IS_NON_NULL(hit->shape);
}

typedef struct ray_all_context
{
	kl_cast_result_fn* fcn;
	void* context;
} ray_all_context;

static float ray_all_visit(const kl_world* world, const kl_shape* shape, vec3s point, vec3s normal, float fraction,
						   void* context)
{
	const ray_all_context* c = context;
	return c->fcn(kl_make_shape_id(world, shape), point, normal, fraction, c->context);
}

kl_result kl_world_cast_ray_all(kl_world_id id, vec3s origin, vec3s translation, kl_filter filter,
								kl_cast_result_fn* fcn, void* context)
{
	kl_world* world = kl_query_world(id, "kl_world_cast_ray_all");
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	if (fcn == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_world_cast_ray_all: the callback is NULL");
	}
	if (!segment_is_valid(origin, translation, "kl_world_cast_ray_all"))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	ray_all_context c = {fcn, context};
	ray_walk(world, origin, translation, filter, ray_all_visit, &c);
	return KL_OK;
}
