// Kollide — shape bounds and mass, and shape accessors.
// SPDX-License-Identifier: MIT
#include "shape.h"

#include "core.h"
#include "broadphase.h"
#include "input_limits.h"
#include "island.h"
#include "world.h"

#include <kollide/kollide.h>

/// Bounds of a box of half extents h centred at c and rotated by q.
static kl_aabb rotated_box_aabb(vec3s c, versors q, vec3s h)
{
	mat3s r = glms_quat_mat3(q);
	vec3s e;
	for (int i = 0; i < 3; ++i)
	{
		e.raw[i] = fabsf(r.raw[0][i]) * h.x + fabsf(r.raw[1][i]) * h.y + fabsf(r.raw[2][i]) * h.z;
	}
	return (kl_aabb){glms_vec3_sub(c, e), glms_vec3_add(c, e)};
}

static kl_aabb points_aabb(kl_transform xf, const vec3s* points, int count, vec3s scale)
{
	kl_aabb box = {{{KL_HUGE, KL_HUGE, KL_HUGE}}, {{-KL_HUGE, -KL_HUGE, -KL_HUGE}}};
	for (int i = 0; i < count; ++i)
	{
		vec3s p = kl_transform_point(xf, glms_vec3_mul(points[i], scale));
		box.lower = glms_vec3_minv(box.lower, p);
		box.upper = glms_vec3_maxv(box.upper, p);
	}
	return box;
}

/// A plane's solid is unbounded except along a world axis its normal is aligned with.
static kl_aabb plane_aabb(kl_plane plane, kl_transform xf)
{
	vec3s n = kl_rotate(xf.q, plane.normal);
	float d = plane.offset + glms_vec3_dot(n, xf.p);
	kl_aabb box = {{{-KL_HUGE, -KL_HUGE, -KL_HUGE}}, {{KL_HUGE, KL_HUGE, KL_HUGE}}};
	for (int axis = 0; axis < 3; ++axis)
	{
		if (fabsf(n.raw[axis]) > 0.99999f)
		{
			if (n.raw[axis] > 0.0f)
			{
				box.upper.raw[axis] = d;
			}
			else
			{
				box.lower.raw[axis] = -d;
			}
		}
	}
	return box;
}

kl_aabb kl_compute_shape_aabb(const kl_shape* shape, kl_transform body_transform)
{
	kl_transform xf = kl_transform_mul(body_transform, shape->local_pose);
	switch (shape->type)
	{
		case KL_SHAPE_SPHERE:
		{
			vec3s r = glms_vec3_broadcast(shape->sphere_radius);
			return (kl_aabb){glms_vec3_sub(xf.p, r), glms_vec3_add(xf.p, r)};
		}
		case KL_SHAPE_BOX: return rotated_box_aabb(xf.p, xf.q, shape->box_half_extents);
		case KL_SHAPE_CAPSULE:
		{
			vec3s axis = glms_vec3_scale(kl_rotate(xf.q, kl_vec3(0.0f, 0.0f, 1.0f)), shape->capsule.half_height);
			vec3s e = glms_vec3_adds(glms_vec3_abs(axis), shape->capsule.radius);
			return (kl_aabb){glms_vec3_sub(xf.p, e), glms_vec3_add(xf.p, e)};
		}
		case KL_SHAPE_HULL:
			return points_aabb(xf, kl_hull_vertices(shape->hull), kl_hull_vertex_count(shape->hull),
							   glms_vec3_one());
		case KL_SHAPE_MESH:
		{
			kl_aabb b = kl_mesh_get_info(shape->mesh.mesh).bounds;
			vec3s s = shape->mesh.scale;
			vec3s c = glms_vec3_scale(glms_vec3_mul(glms_vec3_add(b.lower, b.upper), s), 0.5f);
			vec3s h = glms_vec3_scale(glms_vec3_mul(glms_vec3_sub(b.upper, b.lower), s), 0.5f);
			return rotated_box_aabb(kl_transform_point(xf, c), xf.q, h);
		}
		case KL_SHAPE_PLANE: return plane_aabb(shape->plane, xf);
		case KL_SHAPE_TYPE_COUNT: break;
	}
	return (kl_aabb){xf.p, xf.p};
}

kl_mass_data kl_compute_shape_mass(const kl_shape* shape)
{
	float density = shape->material.density;
	kl_mass_data md = {0};
	switch (shape->type)
	{
		case KL_SHAPE_SPHERE: md = kl_compute_sphere_mass(shape->sphere_radius, density); break;
		case KL_SHAPE_BOX: md = kl_compute_box_mass(shape->box_half_extents, density); break;
		case KL_SHAPE_CAPSULE:
			md = kl_compute_capsule_mass(shape->capsule.radius, shape->capsule.half_height, density);
			break;
		case KL_SHAPE_HULL: md = kl_hull_mass(shape->hull, density); break;
		case KL_SHAPE_MESH: md = kl_mesh_mass(shape->mesh.mesh, density, shape->mesh.scale); break;
		case KL_SHAPE_PLANE:
		case KL_SHAPE_TYPE_COUNT: return (kl_mass_data){0};
	}
	return kl_mass_data_transform(md, shape->local_pose);
}

static bool aabb_contains(kl_aabb outer, kl_aabb inner)
{
	return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y && outer.lower.z <= inner.lower.z &&
		   inner.upper.x <= outer.upper.x && inner.upper.y <= outer.upper.y && inner.upper.z <= outer.upper.z;
}

void kl_update_body_shape_bounds(kl_world* world, int body_slot, float margin, vec3s displacement)
{
	const kl_body* body = &world->bodies[body_slot];
	kl_transform xf = world->sims[body_slot].transform;
	bool is_static = body->type == KL_BODY_STATIC;
	float m = is_static ? 0.0f : margin;
	// Stretch the fat box along the predicted motion so that a steadily moving body re-inserts
	// its proxy every few steps, not every step.
	vec3s ahead_lo = glms_vec3_minv(displacement, glms_vec3_zero());
	vec3s ahead_hi = glms_vec3_maxv(displacement, glms_vec3_zero());
	for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		kl_shape* shape = &world->shapes[s];
		shape->aabb = kl_compute_shape_aabb(shape, xf);
		// The fat box must hold where the shape will be during the next step, not only where it is:
		// the pair has to exist when that step's narrowphase runs, before the motion.
		kl_aabb swept = {glms_vec3_add(shape->aabb.lower, ahead_lo), glms_vec3_add(shape->aabb.upper, ahead_hi)};
		if (!aabb_contains(shape->fat_aabb, swept))
		{
			vec3s lo2 = glms_vec3_scale(ahead_lo, 2.0f), hi2 = glms_vec3_scale(ahead_hi, 2.0f);
			shape->fat_aabb.lower = glms_vec3_add(glms_vec3_subs(shape->aabb.lower, m), lo2);
			shape->fat_aabb.upper = glms_vec3_add(glms_vec3_adds(shape->aabb.upper, m), hi2);
			shape->enlarged = true;
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Accessors

kl_shape_type kl_shape_get_type(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->type : KL_SHAPE_TYPE_COUNT;
}

kl_body_id kl_shape_get_body(kl_shape_id id)
{
	kl_world* world = NULL;
	kl_shape* shape = kl_get_shape(id, &world);
	return shape != NULL ? kl_make_body_id(world, &world->bodies[shape->body]) : kl_null_body_id;
}

kl_shape_def kl_shape_get_def(kl_shape_id id)
{
	kl_shape_def def = kl_default_shape_def();
	kl_shape* shape = kl_get_shape(id, NULL);
	if (shape != NULL)
	{
		def.local_pose = shape->local_pose;
		def.material = shape->material;
		def.filter = shape->filter;
		def.is_sensor = shape->is_sensor;
		def.mesh_backend = shape->mesh_backend;
		def.contact_model = shape->contact_model;
		def.penalty_stiffness = shape->penalty_stiffness;
		def.penalty_damping_ratio = shape->penalty_damping_ratio;
		def.enable_contact_events = shape->enable_contact_events;
		def.enable_sensor_events = shape->enable_sensor_events;
		def.enable_hit_events = shape->enable_hit_events;
		def.enable_custom_filtering = shape->enable_custom_filtering;
		def.enable_pre_solve_events = shape->enable_pre_solve_events;
		def.name = shape->name;
		def.user_data = shape->user_data;
	}
	return def;
}

kl_transform kl_shape_get_local_pose(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->local_pose : kl_transform_identity();
}

kl_material kl_shape_get_material(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->material : kl_default_material();
}

/// Wakes the bodies whose contacts touch the shape in this slot: a belt started or stopped under a
/// sleeping part must move it.
static void wake_touching(kl_world* world, int shape_slot)
{
	for (int i = 0; i < world->contact_count; ++i)
	{
		const kl_contact* c = &world->contacts[i];
		if (c->shape_a == shape_slot || c->shape_b == shape_slot)
		{
			kl_wake_body(world, c->body_a);
			kl_wake_body(world, c->body_b);
		}
	}
}

kl_result kl_shape_set_material(kl_shape_id id, kl_material material)
{
	kl_world* world = NULL;
	kl_shape* shape = kl_get_shape(id, &world);
	if (shape == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (kl_check_material(world, &material) != KL_OK)
	{
		return kl_last_error_code();
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot change a material while the world steps");
	}
	// A new density gives a new mass, which must suit the body as on creation (kl_create_*_shape).
	kl_shape changed = *shape;
	changed.material = material;
	kl_error_state caller_error;
	kl_error_save(&caller_error);
	changed.mass_data = kl_compute_shape_mass(&changed);
	kl_body* body = &world->bodies[shape->body];
	if (kl_check_body_mass(world, body, body->type, false, shape->id, &changed) != KL_OK)
	{
		return kl_last_error_code();
	}
	kl_error_restore(&caller_error);
	bool belt_changed = !glms_vec3_eqv(shape->material.surface_velocity, material.surface_velocity);
	shape->material = material;
	shape->mass_data = changed.mass_data;
	kl_update_body_mass(world, body);
	if (belt_changed)
	{
		wake_touching(world, shape->id);
	}
	return KL_OK;
}

kl_filter kl_shape_get_filter(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->filter : kl_default_filter();
}

kl_result kl_shape_set_filter(kl_shape_id id, kl_filter filter)
{
	kl_world* world = NULL;
	kl_shape* shape = kl_get_shape(id, &world);
	if (shape == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot change a filter while the world steps");
	}
	shape->filter = filter;
	kl_broadphase_touch_proxy(world->broadphase, shape->proxy_key); // re-filter its pairs
	return KL_OK;
}

kl_mesh_backend kl_shape_get_mesh_backend(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->mesh_backend : KL_MESH_BACKEND_BVH;
}

kl_result kl_shape_set_mesh_backend(kl_shape_id id, kl_mesh_backend backend)
{
	kl_world* world = NULL;
	kl_shape* shape = kl_get_shape(id, &world);
	if (shape == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (backend != KL_MESH_BACKEND_BVH && backend != KL_MESH_BACKEND_POINTSHELL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "unknown mesh backend %d", (int)backend);
	}
	if (shape->type != KL_SHAPE_MESH)
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "only mesh shapes choose a mesh backend");
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot change a mesh backend while the world steps");
	}
	if (backend == KL_MESH_BACKEND_POINTSHELL && !kl_mesh_get_info(shape->mesh.mesh).has_pointshell)
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "the shape's mesh was built without build_pointshell: no point shells");
	}
	shape->mesh_backend = backend;
	return KL_OK;
}

kl_aabb kl_shape_get_aabb(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->aabb : (kl_aabb){0};
}

kl_mass_data kl_shape_get_mass_data(kl_shape_id id)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	return shape != NULL ? shape->mass_data : (kl_mass_data){0};
}

/// Looks up a shape of the expected type, or records an error.
static kl_shape* get_typed_shape(kl_shape_id id, kl_shape_type type)
{
	kl_shape* shape = kl_get_shape(id, NULL);
	if (shape != NULL && shape->type != type)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "shape has type %d, not %d", (int)shape->type, (int)type);
		return NULL;
	}
	return shape;
}

float kl_shape_get_sphere_radius(kl_shape_id id)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_SPHERE);
	return shape != NULL ? shape->sphere_radius : 0.0f;
}

vec3s kl_shape_get_box_half_extents(kl_shape_id id)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_BOX);
	return shape != NULL ? shape->box_half_extents : glms_vec3_zero();
}

kl_result kl_shape_get_capsule(kl_shape_id id, float* radius, float* half_height)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_CAPSULE);
	if (shape == NULL)
	{
		return kl_last_error_code();
	}
	if (radius != NULL)
	{
		*radius = shape->capsule.radius;
	}
	if (half_height != NULL)
	{
		*half_height = shape->capsule.half_height;
	}
	return KL_OK;
}

const kl_hull* kl_shape_get_hull(kl_shape_id id)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_HULL);
	return shape != NULL ? shape->hull : NULL;
}

kl_mesh* kl_shape_get_mesh(kl_shape_id id)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_MESH);
	return shape != NULL ? shape->mesh.mesh : NULL;
}

vec3s kl_shape_get_mesh_scale(kl_shape_id id)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_MESH);
	return shape != NULL ? shape->mesh.scale : glms_vec3_zero();
}

kl_plane kl_shape_get_plane(kl_shape_id id)
{
	kl_shape* shape = get_typed_shape(id, KL_SHAPE_PLANE);
	return shape != NULL ? shape->plane : (kl_plane){0};
}
