// Kollide — shape creation and destruction; a body's shapes form a compound.
// SPDX-License-Identifier: MIT
#include "shape.h"

#include "bvh.h"
#include "contact.h"
#include "contact_penalty.h"

#include "core.h"
#include "input_limits.h"
#include "world.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

#include <float.h>
#include <stdio.h>

kl_shape* kl_get_shape(kl_shape_id id, kl_world** world_out)
{
	kl_world* world = kl_get_world_from_index(id.world0);
	int slot = id.index1 - 1;
	if (world == NULL || slot < 0 || slot >= kl_id_pool_slot_count(&world->shape_pool) ||
		world->shapes[slot].id != slot || world->shapes[slot].generation != id.generation)
	{
		kl_fail(KL_ERR_INVALID_ID, "invalid shape id (index1 %d, world %u, generation %u): null, destroyed or foreign",
				id.index1, id.world0, id.generation);
		return NULL;
	}
	if (world_out != NULL)
	{
		*world_out = world;
	}
	return &world->shapes[slot];
}

kl_shape_id kl_make_shape_id(const kl_world* world, const kl_shape* shape)
{
	return (kl_shape_id){shape->id + 1, (uint16_t)world->index, shape->generation};
}

bool kl_shape_is_valid(kl_shape_id id)
{
	kl_world* world = kl_get_world_from_index(id.world0);
	int slot = id.index1 - 1;
	return world != NULL && slot >= 0 && slot < kl_id_pool_slot_count(&world->shape_pool) &&
		   world->shapes[slot].id == slot && world->shapes[slot].generation == id.generation;
}

static kl_result validate_shape_def(const kl_world* world, const kl_shape_def* def)
{
	if (def == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "shape def is NULL");
	}
	if (!kl_transform_is_finite(def->local_pose))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "shape local pose must be finite");
	}
	if (kl_check_coordinates(world, def->local_pose.p, KL_MAX_COORDINATE, "shape offset") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	if (def->mesh_backend != KL_MESH_BACKEND_BVH && def->mesh_backend != KL_MESH_BACKEND_POINTSHELL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "unknown mesh backend %d", (int)def->mesh_backend);
	}
	if (kl_check_penalty_def(def) != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return kl_check_material(world, &def->material);
}

/// Checks that points (scaled per axis) lie within the coordinate range and that their bounds'
/// largest half extent is at least the smallest shape size.
static kl_result check_points(const kl_world* world, const vec3s* points, int count, vec3s scale,
							  const char* point_name, const char* size_name)
{
	kl_aabb box = {{{FLT_MAX, FLT_MAX, FLT_MAX}}, {{-FLT_MAX, -FLT_MAX, -FLT_MAX}}};
	float bound = KL_MAX_COORDINATE * kl_length_unit(world);
	for (int i = 0; i < count; ++i)
	{
		vec3s p = glms_vec3_mul(points[i], scale);
		float largest = kl_maxf(fabsf(p.x), kl_maxf(fabsf(p.y), fabsf(p.z)));
		if (!(largest <= bound) || !kl_vec3_is_finite(p))
		{
			// Formatted only for the error: a scene may create thousands of hull shapes.
			char label[64];
			snprintf(label, sizeof(label), "%s %d", point_name, i);
			return kl_check_coordinates(world, p, KL_MAX_COORDINATE, label);
		}
		box.lower = glms_vec3_minv(box.lower, p);
		box.upper = glms_vec3_maxv(box.upper, p);
	}
	vec3s half = glms_vec3_scale(glms_vec3_sub(box.upper, box.lower), 0.5f);
	return kl_check_shape_size(world, glms_vec3_max(half), size_name);
}

/// The shape's sizes within the valid ranges (docs/engine-core.md, "Valid ranges").
static kl_result check_geometry(const kl_world* world, const kl_shape* proto)
{
	switch (proto->type)
	{
		case KL_SHAPE_SPHERE: return kl_check_shape_size(world, proto->sphere_radius, "sphere radius");
		case KL_SHAPE_BOX:
		{
			const char* axes[3] = {"box half extent x", "box half extent y", "box half extent z"};
			for (int i = 0; i < 3; ++i)
			{
				if (kl_check_shape_size(world, proto->box_half_extents.raw[i], axes[i]) != KL_OK)
				{
					return KL_ERR_INVALID_ARGUMENT;
				}
			}
			return KL_OK;
		}
		case KL_SHAPE_CAPSULE:
			if (kl_check_shape_size(world, proto->capsule.radius, "capsule radius") != KL_OK)
			{
				return KL_ERR_INVALID_ARGUMENT;
			}
			return kl_check_scaled_value(world, proto->capsule.half_height, KL_MAX_COORDINATE, "capsule half height");
		case KL_SHAPE_HULL:
			return check_points(world, kl_hull_vertices(proto->hull), kl_hull_vertex_count(proto->hull),
								glms_vec3_one(), "hull vertex", "hull size (largest half extent)");
		case KL_SHAPE_MESH:
		{
			// The mesh's bounds stand for its vertices: every vertex lies within them.
			kl_aabb b = kl_mesh_get_info(proto->mesh.mesh).bounds;
			vec3s corners[2] = {b.lower, b.upper};
			return check_points(world, corners, 2, proto->mesh.scale, "scaled mesh bounds corner",
								"scaled mesh size (largest half extent)");
		}
		case KL_SHAPE_PLANE:
			return kl_check_scaled_value(world, proto->plane.offset, KL_MAX_COORDINATE, "plane offset");
		case KL_SHAPE_TYPE_COUNT: break;
	}
	return KL_OK;
}

/// Common part of every kl_create_*_shape: validation, slot, linking, mass and bounds.
/// The geometry has been filled into *proto by the caller; on failure the caller still owns it.
static kl_shape_id create_shape(kl_body_id body_id, const kl_shape_def* def, kl_shape* proto)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(body_id, &world);
	if (body == NULL || validate_shape_def(world, def) != KL_OK)
	{
		return kl_null_shape_id;
	}
	kl_transform pose = def->local_pose;
	if (!kl_quat_normalize_checked(&pose.q))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "shape local rotation is a zero quaternion");
		return kl_null_shape_id;
	}
	if (proto->type == KL_SHAPE_PLANE && body->type != KL_BODY_STATIC)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "plane shapes are infinite and belong on static bodies only");
		return kl_null_shape_id;
	}
	proto->local_pose = pose;
	proto->material = def->material;
	if (check_geometry(world, proto) != KL_OK)
	{
		return kl_null_shape_id;
	}
	// Bounds that overflow would poison the broadphase: refuse them up front (the ranges keep
	// them finite; this holds whatever they are).
	kl_aabb aabb = kl_compute_shape_aabb(proto, world->sims[body->id].transform);
	if (!kl_vec3_is_finite(aabb.lower) || !kl_vec3_is_finite(aabb.upper))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "shape bounds are not finite (coordinates too large?)");
		return kl_null_shape_id;
	}
	// The mass it gives must suit the body. A shape with density but no volume (an open, flat mesh)
	// gives none: a static or kinematic body takes it so, a dynamic one refuses it. A mass the
	// computation could not give records its reason; when the body takes the shape anyway, the
	// caller's error state is left as it was.
	kl_error_state caller_error;
	kl_error_save(&caller_error);
	proto->mass_data = kl_compute_shape_mass(proto);
	if (kl_check_body_mass(world, body, body->type, false, -1, proto) != KL_OK)
	{
		return kl_null_shape_id;
	}
	kl_error_restore(&caller_error);
	char* name = kl_strdup(def->name);
	if (def->name != NULL && name == NULL)
	{
		return kl_null_shape_id;
	}
	bool fresh = false;
	int slot = kl_id_pool_alloc(&world->shape_pool, &fresh);
	if (slot < 0 || !kl_world_reserve_shape_slot(world, slot))
	{
		if (slot >= 0)
		{
			kl_id_pool_cancel(&world->shape_pool, slot, fresh);
		}
		kl_free(name);
		return kl_null_shape_id;
	}
	kl_shape* shape = &world->shapes[slot];
	uint16_t generation = fresh ? 1 : (uint16_t)(shape->generation + 1);
	*shape = *proto;
	shape->id = slot;
	shape->generation = generation;
	shape->body = body->id;
	shape->next_shape = -1;
	shape->local_pose = pose;
	shape->material = def->material;
	shape->filter = def->filter;
	shape->is_sensor = def->is_sensor;
	// Only mesh shapes choose; the others keep the BVH, as kl_shape_get_mesh_backend documents.
	shape->mesh_backend = proto->type == KL_SHAPE_MESH ? def->mesh_backend : KL_MESH_BACKEND_BVH;
	shape->contact_model = proto->type == KL_SHAPE_MESH ? def->contact_model : KL_CONTACT_CONSTRAINT;
	shape->penalty_stiffness = def->penalty_stiffness;
	shape->penalty_damping_ratio = def->penalty_damping_ratio;
	world->penalty_shape_count += shape->contact_model == KL_CONTACT_PENALTY ? 1 : 0;
	shape->enable_contact_events = def->enable_contact_events;
	shape->enable_sensor_events = def->enable_sensor_events;
	shape->enable_hit_events = def->enable_hit_events;
	shape->enable_custom_filtering = def->enable_custom_filtering;
	shape->enable_pre_solve_events = def->enable_pre_solve_events;
	shape->name = name;
	shape->user_data = def->user_data;
	shape->proxy_key = -1;

	if (body->tail_shape >= 0)
	{
		world->shapes[body->tail_shape].next_shape = slot;
	}
	else
	{
		body->head_shape = slot;
	}
	body->tail_shape = slot;
	body->shape_count += 1;
	world->shape_count += 1;

	kl_update_body_mass(world, body);
	shape->aabb = aabb;
	shape->fat_aabb = aabb;
	if (!kl_shape_create_proxy(world, shape))
	{
		// Out of memory in the broadphase: unwind the creation, but leave the hull copy and the mesh
		// reference to the caller (kl_create_hull_shape frees the copy, kl_create_mesh_shape retains
		// the mesh only on success).
		if (shape->type == KL_SHAPE_HULL)
		{
			shape->hull = NULL;
		}
		else if (shape->type == KL_SHAPE_MESH)
		{
			shape->mesh.mesh = NULL;
		}
		kl_destroy_shape(kl_make_shape_id(world, shape));
		return kl_null_shape_id;
	}
	return kl_make_shape_id(world, shape);
}

static bool check_positive(float value, const char* what)
{
	if (!(value > 0.0f) || !isfinite(value))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "%s must be finite and positive (got %g)", what, (double)value);
		return false;
	}
	return true;
}

kl_shape_id kl_create_sphere_shape(kl_body_id body, const kl_shape_def* def, float radius)
{
	if (!check_positive(radius, "sphere radius"))
	{
		return kl_null_shape_id;
	}
	kl_shape proto = {.type = KL_SHAPE_SPHERE, .sphere_radius = radius};
	return create_shape(body, def, &proto);
}

kl_shape_id kl_create_box_shape(kl_body_id body, const kl_shape_def* def, vec3s half_extents)
{
	if (!check_positive(half_extents.x, "box half extent x") || !check_positive(half_extents.y, "box half extent y") ||
		!check_positive(half_extents.z, "box half extent z"))
	{
		return kl_null_shape_id;
	}
	kl_shape proto = {.type = KL_SHAPE_BOX, .box_half_extents = half_extents};
	return create_shape(body, def, &proto);
}

kl_shape_id kl_create_capsule_shape(kl_body_id body, const kl_shape_def* def, float radius, float half_height)
{
	if (!check_positive(radius, "capsule radius"))
	{
		return kl_null_shape_id;
	}
	if (!(half_height >= 0.0f) || !isfinite(half_height))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "capsule half height must be finite and non-negative");
		return kl_null_shape_id;
	}
	kl_shape proto = {.type = KL_SHAPE_CAPSULE, .capsule = {radius, half_height}};
	return create_shape(body, def, &proto);
}

kl_shape_id kl_create_hull_shape(kl_body_id body, const kl_shape_def* def, const kl_hull* hull)
{
	if (hull == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "hull is NULL");
		return kl_null_shape_id;
	}
	kl_hull* copy = kl_hull_clone(hull);
	if (copy == NULL)
	{
		return kl_null_shape_id;
	}
	kl_shape proto = {.type = KL_SHAPE_HULL, .hull = copy};
	kl_shape_id id = create_shape(body, def, &proto);
	if (KL_IS_NULL(id))
	{
		kl_hull_destroy(copy);
	}
	return id;
}

kl_shape_id kl_create_mesh_shape(kl_body_id body, const kl_shape_def* def, kl_mesh* mesh, vec3s scale)
{
	if (mesh == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh is NULL");
		return kl_null_shape_id;
	}
	if (!check_positive(scale.x, "mesh scale x") || !check_positive(scale.y, "mesh scale y") ||
		!check_positive(scale.z, "mesh scale z"))
	{
		return kl_null_shape_id;
	}
	if (def != NULL && def->mesh_backend == KL_MESH_BACKEND_POINTSHELL && !kl_mesh_get_info(mesh).has_pointshell)
	{
		kl_fail(KL_ERR_UNSUPPORTED, "mesh shape asks for point shells, but its mesh was built without build_pointshell");
		return kl_null_shape_id;
	}
	if (def != NULL && def->contact_model == KL_CONTACT_PENALTY && kl_check_penalty_mesh(mesh, scale) != KL_OK)
	{
		return kl_null_shape_id;
	}
	kl_shape proto = {.type = KL_SHAPE_MESH, .mesh = {mesh, scale}};
	kl_shape_id id = create_shape(body, def, &proto);
	if (KL_IS_NON_NULL(id))
	{
		kl_mesh_retain(mesh);
	}
	return id;
}

kl_shape_id kl_create_plane_shape(kl_body_id body, const kl_shape_def* def, kl_plane plane)
{
	float length = glms_vec3_norm(plane.normal);
	if (!kl_vec3_is_finite(plane.normal) || !isfinite(plane.offset) || !(length > 1.0e-6f))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "plane needs a finite, non-zero normal and a finite offset");
		return kl_null_shape_id;
	}
	// A normal that is already unit keeps its bits, so that saved scenes load back exactly.
	if (fabsf(length - 1.0f) > 4.0f * FLT_EPSILON)
	{
		plane.normal = glms_vec3_scale(plane.normal, 1.0f / length);
		plane.offset /= length;
	}
	kl_shape proto = {.type = KL_SHAPE_PLANE, .plane = plane};
	return create_shape(body, def, &proto);
}

void kl_shape_release_geometry(kl_shape* shape)
{
	if (shape->type == KL_SHAPE_HULL)
	{
		kl_hull_destroy(shape->hull);
		shape->hull = NULL;
	}
	else if (shape->type == KL_SHAPE_MESH)
	{
		kl_mesh_release(shape->mesh.mesh);
		shape->mesh.mesh = NULL;
	}
	kl_free(shape->name);
	shape->name = NULL;
	kl_bvh_destroy(shape->tri_bvh);
	kl_free(shape->tri_vertices);
	kl_free(shape->tri_indices);
	kl_free(shape->tri_opposite);
	shape->tri_opposite = NULL;
	kl_free(shape->tri_vertex_normals);
	shape->tri_vertex_normals = NULL;
	kl_free(shape->tri_vertex_cone_cos);
	shape->tri_vertex_cone_cos = NULL;
	shape->tri_bvh = NULL;
	shape->tri_vertices = NULL;
	shape->tri_vertex_count = 0;
	shape->tri_indices = NULL;
}

kl_result kl_destroy_shape(kl_shape_id id)
{
	kl_world* world = NULL;
	kl_shape* shape = kl_get_shape(id, &world);
	if (shape == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot destroy a shape while the world steps");
	}
	kl_body* body = &world->bodies[shape->body];
	int prev = -1;
	for (int s = body->head_shape; s != shape->id; s = world->shapes[s].next_shape)
	{
		prev = s;
	}
	if (prev >= 0)
	{
		world->shapes[prev].next_shape = shape->next_shape;
	}
	else
	{
		body->head_shape = shape->next_shape;
	}
	if (body->tail_shape == shape->id)
	{
		body->tail_shape = prev;
	}
	body->shape_count -= 1;
	world->shape_count -= 1;
	world->penalty_shape_count -= shape->contact_model == KL_CONTACT_PENALTY ? 1 : 0;
	kl_shape_destroy_proxy(world, shape);
	kl_destroy_shape_contacts(world, shape->id);
	kl_shape_release_geometry(shape);
	int slot = shape->id;
	shape->id = -1;
	kl_id_pool_free(&world->shape_pool, slot);
	kl_update_body_mass(world, body);
	return KL_OK;
}
