// Kollide — body creation, destruction, pose, velocity and mass.
// SPDX-License-Identifier: MIT
#include "body.h"

#include "core.h"
#include "input_limits.h"
#include "island.h"
#include "shape.h"
#include "world.h"

#include <kollide/kollide.h>

#include <string.h>

kl_body* kl_get_body(kl_body_id id, kl_world** world_out)
{
	kl_world* world = kl_get_world_from_index(id.world0);
	int slot = id.index1 - 1;
	if (world == NULL || slot < 0 || slot >= kl_id_pool_slot_count(&world->body_pool) ||
		world->bodies[slot].id != slot || world->bodies[slot].generation != id.generation)
	{
		kl_fail(KL_ERR_INVALID_ID, "invalid body id (index1 %d, world %u, generation %u): null, destroyed or foreign",
				id.index1, id.world0, id.generation);
		return NULL;
	}
	if (world_out != NULL)
	{
		*world_out = world;
	}
	return &world->bodies[slot];
}

kl_body* kl_get_body_unlocked(kl_body_id id, kl_world** world_out)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body != NULL && world->locked)
	{
		kl_fail(KL_ERR_LOCKED, "the world is stepping; bodies cannot change now");
		return NULL;
	}
	if (world_out != NULL)
	{
		*world_out = world;
	}
	return body;
}

kl_body_id kl_make_body_id(const kl_world* world, const kl_body* body)
{
	return (kl_body_id){body->id + 1, (uint16_t)world->index, body->generation};
}

static kl_result validate_body_def(const kl_world* world, const kl_body_def* def)
{
	if (def == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body def is NULL");
	}
	if ((int)def->type < 0 || def->type >= KL_BODY_TYPE_COUNT)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body type %d is not a kl_body_type", (int)def->type);
	}
	if (!kl_vec3_is_finite(def->position) || !kl_quat_is_finite(def->rotation))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body pose must be finite");
	}
	if (kl_check_coordinates(world, def->position, KL_MAX_COORDINATE, "body position") != KL_OK ||
		kl_check_linear_speed(world, def->linear_velocity, "body linear velocity") != KL_OK ||
		kl_check_angular_speed(def->angular_velocity, "body angular velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	if (!(def->linear_damping >= 0.0f) || !(def->angular_damping >= 0.0f) || !isfinite(def->linear_damping) ||
		!isfinite(def->angular_damping))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body damping must be finite and non-negative");
	}
	if (!isfinite(def->gravity_scale) || !(def->sleep_threshold >= 0.0f) || !isfinite(def->sleep_threshold))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body gravity_scale and sleep_threshold must be finite");
	}
	return KL_OK;
}

kl_body_id kl_create_body(kl_world_id world_id, const kl_body_def* def)
{
	kl_world* world = kl_get_world(world_id);
	if (world == NULL)
	{
		return kl_null_body_id;
	}
	if (world->locked)
	{
		kl_fail(KL_ERR_LOCKED, "cannot create a body while the world steps");
		return kl_null_body_id;
	}
	if (validate_body_def(world, def) != KL_OK)
	{
		return kl_null_body_id;
	}
	versors rotation = def->rotation;
	if (!kl_quat_normalize_checked(&rotation))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "body rotation is not a usable quaternion (zero length)");
		return kl_null_body_id;
	}
	char* name = kl_strdup(def->name);
	if (def->name != NULL && name == NULL)
	{
		return kl_null_body_id;
	}
	bool fresh = false;
	int slot = kl_id_pool_alloc(&world->body_pool, &fresh);
	if (slot < 0 || !kl_world_reserve_body_slot(world, slot))
	{
		if (slot >= 0)
		{
			kl_id_pool_cancel(&world->body_pool, slot, fresh);
		}
		kl_free(name);
		return kl_null_body_id;
	}
	uint16_t generation = fresh ? 1 : (uint16_t)(world->bodies[slot].generation + 1);

	kl_body* body = &world->bodies[slot];
	*body = (kl_body){0};
	body->name = name;
	body->user_data = def->user_data;
	body->id = slot;
	body->generation = generation;
	body->type = def->type;
	body->head_shape = -1;
	body->tail_shape = -1;
	body->head_joint = -1;
	body->awake_index = -1;
	body->sleep_set = -1;
	body->sleep_next = -1;
	body->sleep_threshold = def->sleep_threshold;
	body->enable_sleep = def->enable_sleep;
	// Static bodies never count as awake; a movable body may be created asleep (def->is_awake false).
	body->is_awake = def->is_awake && def->type != KL_BODY_STATIC;
	body->is_bullet = def->is_bullet;

	kl_body_sim* sim = &world->sims[slot];
	*sim = (kl_body_sim){0};
	sim->transform.p = def->position;
	sim->transform.q = rotation;
	sim->transform0 = sim->transform;
	sim->center = def->position;
	sim->linear_damping = def->linear_damping;
	sim->angular_damping = def->angular_damping;
	sim->gravity_scale = def->gravity_scale;
	sim->flags = (def->enable_gyroscopic ? KL_SIM_GYROSCOPIC : 0u) | (def->fixed_rotation ? KL_SIM_FIXED_ROTATION : 0u);

	kl_body_state* state = &world->states[slot];
	*state = (kl_body_state){0};
	if (def->type != KL_BODY_STATIC)
	{
		state->linear_velocity = def->linear_velocity;
		state->angular_velocity = def->angular_velocity;
	}
	world->body_count += 1;
	kl_update_body_mass(world, body);
	return kl_make_body_id(world, body);
}

kl_result kl_destroy_body(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	// Bodies resting on this one lose their support: wake its sleeping set.
	kl_wake_body(world, body->id);
	kl_destroy_body_joints(world, body->id);
	while (body->head_shape >= 0)
	{
		kl_shape* shape = &world->shapes[body->head_shape];
		kl_destroy_shape(kl_make_shape_id(world, shape));
	}
	kl_free(body->name);
	body->name = NULL;
	int slot = body->id;
	kl_world_update_awake_list(world, slot, false);
	body->id = -1;
	world->sims[slot].flags = 0;
	world->body_count -= 1;
	kl_id_pool_free(&world->body_pool, slot);
	return KL_OK;
}

bool kl_body_is_valid(kl_body_id id)
{
	kl_world* world = kl_get_world_from_index(id.world0);
	int slot = id.index1 - 1;
	return world != NULL && slot >= 0 && slot < kl_id_pool_slot_count(&world->body_pool) &&
		   world->bodies[slot].id == slot && world->bodies[slot].generation == id.generation;
}

void kl_refresh_body_sim(kl_world* world, kl_body* body)
{
	kl_body_sim* sim = &world->sims[body->id];
	uint32_t keep = sim->flags & (KL_SIM_GYROSCOPIC | KL_SIM_FIXED_ROTATION);
	sim->rotation_offset = glms_vec3_zero();
	sim->flags = keep | (body->type != KL_BODY_STATIC ? KL_SIM_MOVABLE : 0u) |
				 (body->type == KL_BODY_DYNAMIC ? KL_SIM_DYNAMIC : 0u) | (body->is_awake ? KL_SIM_AWAKE : 0u);
	const kl_mass_data* md = &body->mass_data;
	sim->local_center = md->center;
	sim->center = kl_transform_point(sim->transform, md->center);
	kl_world_update_awake_list(world, body->id, body->type != KL_BODY_STATIC && body->is_awake);
	if (body->type != KL_BODY_DYNAMIC)
	{
		sim->mass = 0.0f;
		sim->inv_mass = 0.0f;
		sim->inertia_local = glms_mat3_zero();
		sim->inv_inertia_local = glms_mat3_zero();
		return;
	}
	sim->mass = md->mass;
	sim->inv_mass = 1.0f / md->mass;
	sim->inertia_local = md->inertia;
	// Inverted at a power-of-two scale: the determinant, the cube of the moments, leaves float
	// from moments of 7e12 up (to Inf, and the inverse to NaN) and 2e-13 down (to 0, locking the
	// rotation), both inside the valid range of inertia.
	float scale = kl_pow2_scale(kl_mat3_largest(md->inertia));
	mat3s scaled = glms_mat3_scale(md->inertia, scale);
	if ((sim->flags & KL_SIM_FIXED_ROTATION) != 0 || !(glms_mat3_det(scaled) > 0.0f))
	{
		sim->inv_inertia_local = glms_mat3_zero();
	}
	else
	{
		sim->inv_inertia_local = glms_mat3_scale(glms_mat3_inv(scaled), scale);
	}
	// With equal principal moments (cubes, spheres) ω × Iω vanishes: the gyroscopic solve is skipped.
	const kl_principal_inertia* pi = &body->principal;
	float spread = pi->moments.z - pi->moments.x;
	if (spread <= 1.0e-6f * pi->moments.z)
	{
		sim->flags |= KL_SIM_ISOTROPIC;
	}
}

/// A dynamic body whose shapes give no mass (no shapes, zero density) still has to respond to
/// gravity and impulses: it gets 1 kg with the inertia of a 1 kg sphere of radius 0.5 m.
static kl_mass_data default_dynamic_mass(void)
{
	kl_mass_data md = {0};
	md.mass = 1.0f;
	float i = 0.4f * 1.0f * 0.25f;
	md.inertia = glms_mat3_zero();
	md.inertia.m00 = md.inertia.m11 = md.inertia.m22 = i;
	return md;
}

/// Farthest corner of the shapes' body-frame bounds from the centre of mass (1 m without shapes;
/// planes, only on static bodies, are left out).
static float max_extent(const kl_world* world, const kl_body* body)
{
	if (body->head_shape < 0)
	{
		return 1.0f;
	}
	vec3s c = body->mass_data.center;
	float extent2 = 0.0f;
	for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		const kl_shape* shape = &world->shapes[s];
		if (shape->type == KL_SHAPE_PLANE)
		{
			continue;
		}
		kl_aabb box = kl_compute_shape_aabb(shape, kl_transform_identity());
		vec3s d = glms_vec3_maxv(glms_vec3_abs(glms_vec3_sub(box.lower, c)), glms_vec3_abs(glms_vec3_sub(box.upper, c)));
		extent2 = fmaxf(extent2, glms_vec3_norm2(d));
	}
	return sqrtf(extent2);
}

static bool mass_data_is_finite(const kl_mass_data* md)
{
	return isfinite(md->mass) && kl_vec3_is_finite(md->center) && kl_vec3_is_finite(md->inertia.col[0]) &&
		   kl_vec3_is_finite(md->inertia.col[1]) && kl_vec3_is_finite(md->inertia.col[2]);
}

/// Adds the shape's mass to *total; for a dynamic body a shape with density must have a mass
/// within the valid ranges.
static kl_result add_shape_mass(const kl_world* world, const kl_shape* shape, bool dynamic, kl_mass_data* total)
{
	const kl_mass_data* md = &shape->mass_data;
	if (dynamic && shape->material.density > 0.0f)
	{
		if (!(md->mass > 0.0f))
		{
			return kl_fail(KL_ERR_DEGENERATE,
						   "a shape of density %g gives the dynamic body no mass: it has no volume (an open or flat "
						   "mesh) or too little density; give it density 0, or put it on a static or kinematic body",
						   (double)shape->material.density);
		}
		if (kl_check_dynamic_mass(world, md, false, "shape") != KL_OK)
		{
			return KL_ERR_INVALID_ARGUMENT;
		}
	}
	if (md->mass > 0.0f)
	{
		*total = kl_mass_data_add(*total, *md);
	}
	return KL_OK;
}

kl_result kl_check_body_mass(const kl_world* world, const kl_body* body, kl_body_type type, bool from_shapes,
							 int changed_slot, const kl_shape* changed)
{
	bool dynamic = type == KL_BODY_DYNAMIC && (from_shapes || !body->custom_mass);
	kl_mass_data total = {0};
	total.inertia = glms_mat3_zero();
	for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		const kl_shape* shape = s == changed_slot ? changed : &world->shapes[s];
		if (add_shape_mass(world, shape, dynamic, &total) != KL_OK)
		{
			return kl_last_error_code();
		}
	}
	if (changed_slot < 0 && changed != NULL && add_shape_mass(world, changed, dynamic, &total) != KL_OK)
	{
		return kl_last_error_code();
	}
	if (!mass_data_is_finite(&total))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "the body's mass properties overflow (mass %g kg)", (double)total.mass);
	}
	if (dynamic && total.mass > 0.0f)
	{
		return kl_check_dynamic_mass(world, &total, false, "body");
	}
	return KL_OK;
}

void kl_update_body_mass(kl_world* world, kl_body* body)
{
	if (!body->custom_mass)
	{
		kl_mass_data total = {0};
		total.inertia = glms_mat3_zero();
		for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
		{
			const kl_shape* shape = &world->shapes[s];
			if (shape->mass_data.mass > 0.0f)
			{
				total = kl_mass_data_add(total, shape->mass_data);
			}
		}
		if (body->type == KL_BODY_DYNAMIC && !(total.mass > 0.0f))
		{
			total = default_dynamic_mass();
		}
		body->mass_data = total;
	}
	body->principal = kl_compute_principal_inertia(body->mass_data.inertia);
	body->max_extent = max_extent(world, body);
	kl_refresh_body_sim(world, body);
	if (body->sleep_set >= 0)
	{
		// New shapes, mass or type: the set's resting state no longer holds.
		kl_wake_body(world, body->id);
	}
}
