// Kollide — body type, name, mass properties, damping and other settings.
// SPDX-License-Identifier: MIT
#include "body.h"
#include "core.h"
#include "input_limits.h"
#include "island.h"
#include "world.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

kl_body_type kl_body_get_type(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL ? body->type : KL_BODY_STATIC;
}

kl_result kl_body_set_type(kl_body_id id, kl_body_type type)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if ((int)type < 0 || type >= KL_BODY_TYPE_COUNT)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body type %d is not a kl_body_type", (int)type);
	}
	if (type != KL_BODY_STATIC)
	{
		for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
		{
			if (world->shapes[s].type == KL_SHAPE_PLANE)
			{
				return kl_fail(KL_ERR_INVALID_ARGUMENT, "a body with a plane shape must stay static");
			}
		}
	}
	if (kl_check_body_mass(world, body, type, false, -1, NULL) != KL_OK)
	{
		return kl_last_error_code();
	}
	body->type = type;
	body->is_awake = type != KL_BODY_STATIC;
	body->sleep_time = 0.0f; // kl_update_body_mass wakes the body's sleeping set
	if (type == KL_BODY_STATIC)
	{
		world->states[body->id] = (kl_body_state){0};
	}
	kl_update_body_mass(world, body);
	kl_body_refresh_proxy_kinds(world, body->id);
	return KL_OK;
}

const char* kl_body_get_name(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL && body->name != NULL ? body->name : "";
}

kl_result kl_body_set_name(kl_body_id id, const char* name)
{
	kl_body* body = kl_get_body(id, NULL);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	char* copy = kl_strdup(name);
	if (name != NULL && copy == NULL)
	{
		return kl_last_error_code();
	}
	kl_free(body->name);
	body->name = copy;
	return KL_OK;
}

void* kl_body_get_user_data(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL ? body->user_data : NULL;
}

void kl_body_set_user_data(kl_body_id id, void* user_data)
{
	kl_body* body = kl_get_body(id, NULL);
	if (body != NULL)
	{
		body->user_data = user_data;
	}
}

kl_world_id kl_body_get_world(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? kl_make_world_id(world) : kl_null_world_id;
}

float kl_body_get_mass(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->sims[body->id].mass : 0.0f;
}

kl_mass_data kl_body_get_mass_data(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL ? body->mass_data : (kl_mass_data){0};
}

bool kl_body_has_custom_mass(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL && body->custom_mass;
}

static bool inertia_is_valid(mat3s inertia)
{
	for (int c = 0; c < 3; ++c)
	{
		for (int r = 0; r < 3; ++r)
		{
			if (!isfinite(inertia.raw[c][r]) || inertia.raw[c][r] != inertia.raw[r][c])
			{
				return false;
			}
		}
	}
	// Positive semi-definite with the triangle inequality on the principal moments.
	kl_principal_inertia p = kl_compute_principal_inertia(inertia);
	float tol = 1.0e-5f * (p.moments.x + p.moments.y + p.moments.z);
	return p.moments.x >= 0.0f && p.moments.x + p.moments.y + tol >= p.moments.z;
}

kl_result kl_body_set_mass_data(kl_body_id id, kl_mass_data md)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!(md.mass > 0.0f) || !isfinite(md.mass) || !kl_vec3_is_finite(md.center))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mass must be finite and positive (got %g) with a finite centre",
					   (double)md.mass);
	}
	if (!inertia_is_valid(md.inertia))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "inertia must be symmetric, finite and physically valid");
	}
	if (kl_check_dynamic_mass(world, &md, true, "mass override") != KL_OK ||
		kl_check_coordinates(world, md.center, KL_MAX_COORDINATE, "mass override: centre of mass") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	body->mass_data = md;
	body->custom_mass = true;
	kl_update_body_mass(world, body);
	return KL_OK;
}

kl_result kl_body_apply_mass_from_shapes(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (kl_check_body_mass(world, body, body->type, true, -1, NULL) != KL_OK)
	{
		return kl_last_error_code();
	}
	body->custom_mass = false;
	kl_update_body_mass(world, body);
	return KL_OK;
}

kl_principal_inertia kl_body_get_principal_inertia(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL ? body->principal : (kl_principal_inertia){0};
}

static kl_result set_non_negative(kl_body_id id, float value, size_t offset, const char* what)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!(value >= 0.0f) || !isfinite(value))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s must be finite and non-negative", what);
	}
	*(float*)((char*)&world->sims[body->id] + offset) = value;
	return KL_OK;
}

kl_result kl_body_set_linear_damping(kl_body_id id, float damping)
{
	return set_non_negative(id, damping, offsetof(kl_body_sim, linear_damping), "linear damping");
}

kl_result kl_body_set_angular_damping(kl_body_id id, float damping)
{
	return set_non_negative(id, damping, offsetof(kl_body_sim, angular_damping), "angular damping");
}

kl_result kl_body_set_gravity_scale(kl_body_id id, float scale)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!isfinite(scale))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "gravity scale must be finite");
	}
	world->sims[body->id].gravity_scale = scale;
	return KL_OK;
}

float kl_body_get_gravity_scale(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->sims[body->id].gravity_scale : 0.0f;
}

bool kl_body_is_awake(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL && body->is_awake;
}

kl_result kl_body_set_awake(kl_body_id id, bool awake)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (awake)
	{
		kl_wake_body(world, body->id); // the whole sleeping set
		return KL_OK;
	}
	if (body->is_awake)
	{
		// Just this body; an awake, restless body touching it wakes it again (island.c).
		body->is_awake = false;
		body->sleep_time = 0.0f;
		kl_refresh_body_sim(world, body);
		kl_body_refresh_proxy_kinds(world, body->id);
	}
	return KL_OK;
}

bool kl_body_is_gyroscopic(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL && (world->sims[body->id].flags & KL_SIM_GYROSCOPIC) != 0;
}

kl_body_def kl_body_get_def(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	kl_body_def def = kl_default_body_def();
	if (body == NULL)
	{
		return def;
	}
	const kl_body_sim* sim = &world->sims[body->id];
	def.type = body->type;
	def.position = sim->transform.p;
	def.rotation = sim->transform.q;
	def.linear_velocity = world->states[body->id].linear_velocity;
	def.angular_velocity = world->states[body->id].angular_velocity;
	def.linear_damping = sim->linear_damping;
	def.angular_damping = sim->angular_damping;
	def.gravity_scale = sim->gravity_scale;
	def.sleep_threshold = body->sleep_threshold;
	def.enable_sleep = body->enable_sleep;
	def.is_awake = body->is_awake;
	def.fixed_rotation = (sim->flags & KL_SIM_FIXED_ROTATION) != 0;
	def.is_bullet = body->is_bullet;
	def.enable_gyroscopic = (sim->flags & KL_SIM_GYROSCOPIC) != 0;
	def.name = body->name;
	def.user_data = body->user_data;
	return def;
}

int kl_body_get_shape_count(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL ? body->shape_count : 0;
}

int kl_body_get_shapes(kl_body_id id, kl_shape_id* shapes, int capacity)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL)
	{
		return 0;
	}
	int count = 0;
	for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		if (shapes != NULL && count < capacity)
		{
			shapes[count] = kl_make_shape_id(world, &world->shapes[s]);
		}
		++count;
	}
	return count;
}

int kl_body_get_joint_count(kl_body_id id)
{
	kl_body* body = kl_get_body(id, NULL);
	return body != NULL ? body->joint_count : 0;
}
