// Kollide — body pose, velocity, forces and impulses.
// SPDX-License-Identifier: MIT
#include "body.h"
#include "core.h"
#include "input_limits.h"
#include "island.h"
#include "world.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

kl_transform kl_body_get_transform(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->sims[body->id].transform : kl_transform_identity();
}

vec3s kl_body_get_position(kl_body_id id)
{
	return kl_body_get_transform(id).p;
}

versors kl_body_get_rotation(kl_body_id id)
{
	return kl_body_get_transform(id).q;
}

kl_result kl_body_set_transform(kl_body_id id, vec3s position, versors rotation)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!kl_vec3_is_finite(position) || !kl_quat_normalize_checked(&rotation))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "body transform must be finite with a non-zero quaternion");
	}
	if (kl_check_coordinates(world, position, KL_MAX_COORDINATE, "body position") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	kl_body_sim* sim = &world->sims[body->id];
	sim->transform.p = position;
	sim->transform.q = rotation;
	sim->transform0 = sim->transform;
	sim->center = kl_transform_point(sim->transform, sim->local_center);
	kl_update_body_shape_bounds(world, body->id, KL_AABB_MARGIN, glms_vec3_zero());
	kl_world_queue_enlarged_shapes(world, body->id);
	if (body->type == KL_BODY_DYNAMIC)
	{
		// A teleported body must not hang asleep where it was put, nor keep the resting contacts
		// of its old place: it and its sleeping set wake and find their contacts again.
		kl_wake_body(world, body->id);
	}
	return KL_OK;
}

kl_transform kl_body_get_interpolated_transform(kl_body_id id, float alpha)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL)
	{
		return kl_transform_identity();
	}
	const kl_body_sim* sim = &world->sims[body->id];
	alpha = alpha < 0.0f ? 0.0f : (alpha > 1.0f ? 1.0f : alpha);
	kl_transform t;
	t.p = glms_vec3_lerp(sim->transform0.p, sim->transform.p, alpha);
	t.q = glms_quat_slerp(sim->transform0.q, sim->transform.q, alpha);
	return t;
}

vec3s kl_body_get_world_center_of_mass(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->sims[body->id].center : kl_vec3(0.0f, 0.0f, 0.0f);
}

vec3s kl_body_get_local_center_of_mass(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->sims[body->id].local_center : kl_vec3(0.0f, 0.0f, 0.0f);
}

vec3s kl_body_get_linear_velocity(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->states[body->id].linear_velocity : kl_vec3(0.0f, 0.0f, 0.0f);
}

vec3s kl_body_get_angular_velocity(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	return body != NULL ? world->states[body->id].angular_velocity : kl_vec3(0.0f, 0.0f, 0.0f);
}

/// Looks up a movable body for a velocity or force change; static bodies are rejected.
static kl_body* get_movable_body(kl_body_id id, kl_world** world, vec3s value, const char* what)
{
	kl_body* body = kl_get_body_unlocked(id, world);
	if (body == NULL)
	{
		return NULL;
	}
	if (!kl_vec3_is_finite(value))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "%s must be finite", what);
		return NULL;
	}
	if (body->type == KL_BODY_STATIC)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: static bodies do not move", what);
		return NULL;
	}
	return body;
}

/// Wakes the body with its whole sleeping set (island.c).
static void wake_body(kl_world* world, kl_body* body)
{
	kl_wake_body(world, body->id);
}

kl_result kl_body_set_linear_velocity(kl_body_id id, vec3s v)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, v, "linear velocity");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (kl_check_linear_speed(world, v, "linear velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	world->states[body->id].linear_velocity = v;
	wake_body(world, body);
	return KL_OK;
}

kl_result kl_body_set_angular_velocity(kl_body_id id, vec3s w)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, w, "angular velocity");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (kl_check_angular_speed(w, "angular velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	world->states[body->id].angular_velocity = w;
	wake_body(world, body);
	return KL_OK;
}

kl_result kl_body_set_target_transform(kl_body_id id, kl_transform target, float dt)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, target.p, "target position");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!(dt > 0.0f) || !isfinite(dt) || !kl_quat_normalize_checked(&target.q))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "target transform needs dt > 0 and a finite, non-zero quaternion");
	}
	// The velocities are the move scaled by 1/dt, which is Inf for a denormal dt: a coordinate
	// that does not move would become 0 · Inf = NaN.
	if (!isfinite(1.0f / dt))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "target transform: dt %g s is too short (1/dt overflows)", (double)dt);
	}
	if (kl_check_coordinates(world, target.p, KL_MAX_COORDINATE, "target position") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	kl_body_sim* sim = &world->sims[body->id];
	vec3s target_center = kl_transform_point(target, sim->local_center);
	vec3s v = glms_vec3_scale(glms_vec3_sub(target_center, sim->center), 1.0f / dt);
	// Shortest rotation from the current to the target orientation, as an angular velocity.
	versors dq = glms_quat_mul(target.q, glms_quat_conjugate(sim->transform.q));
	if (dq.w < 0.0f)
	{
		dq = glms_quat_init(-dq.x, -dq.y, -dq.z, -dq.w);
	}
	float s = sqrtf(dq.x * dq.x + dq.y * dq.y + dq.z * dq.z);
	vec3s w = kl_vec3(0.0f, 0.0f, 0.0f);
	if (s > 1.0e-9f)
	{
		float angle = 2.0f * atan2f(s, dq.w);
		w = glms_vec3_scale(kl_vec3(dq.x, dq.y, dq.z), angle / (s * dt));
	}
	// The move must be one the body may be given as velocities (a far target over a short dt is not).
	if (kl_check_linear_speed(world, v, "target transform: linear velocity") != KL_OK ||
		kl_check_angular_speed(w, "target transform: angular velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	world->states[body->id].linear_velocity = v;
	world->states[body->id].angular_velocity = w;
	wake_body(world, body);
	return KL_OK;
}

kl_result kl_body_apply_force(kl_body_id id, vec3s force, vec3s point, bool wake)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, force, "force");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!kl_vec3_is_finite(point))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "force point must be finite");
	}
	kl_body_sim* sim = &world->sims[body->id];
	sim->force = glms_vec3_add(sim->force, force);
	sim->torque = glms_vec3_add(sim->torque, glms_vec3_cross(glms_vec3_sub(point, sim->center), force));
	if (wake)
	{
		wake_body(world, body);
	}
	return KL_OK;
}

kl_result kl_body_apply_force_to_center(kl_body_id id, vec3s force, bool wake)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, force, "force");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	world->sims[body->id].force = glms_vec3_add(world->sims[body->id].force, force);
	if (wake)
	{
		wake_body(world, body);
	}
	return KL_OK;
}

kl_result kl_body_apply_torque(kl_body_id id, vec3s torque, bool wake)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, torque, "torque");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	world->sims[body->id].torque = glms_vec3_add(world->sims[body->id].torque, torque);
	if (wake)
	{
		wake_body(world, body);
	}
	return KL_OK;
}

/// World inverse inertia R I⁻¹ Rᵀ.
static mat3s world_inv_inertia(const kl_body_sim* sim)
{
	mat3s r = glms_quat_mat3(sim->transform.q);
	return glms_mat3_mul(glms_mat3_mul(r, sim->inv_inertia_local), glms_mat3_transpose(r));
}

kl_result kl_body_apply_linear_impulse(kl_body_id id, vec3s impulse, vec3s point, bool wake)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, impulse, "impulse");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	if (!kl_vec3_is_finite(point))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "impulse point must be finite");
	}
	kl_body_sim* sim = &world->sims[body->id];
	kl_body_state* state = &world->states[body->id];
	vec3s v = glms_vec3_add(state->linear_velocity, glms_vec3_scale(impulse, sim->inv_mass));
	vec3s angular = glms_vec3_cross(glms_vec3_sub(point, sim->center), impulse);
	vec3s w = glms_vec3_add(state->angular_velocity, glms_mat3_mulv(world_inv_inertia(sim), angular));
	if (kl_check_linear_speed(world, v, "linear impulse: the new linear velocity") != KL_OK ||
		kl_check_angular_speed(w, "linear impulse: the new angular velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	state->linear_velocity = v;
	state->angular_velocity = w;
	if (wake)
	{
		wake_body(world, body);
	}
	return KL_OK;
}

kl_result kl_body_apply_angular_impulse(kl_body_id id, vec3s impulse, bool wake)
{
	kl_world* world = NULL;
	kl_body* body = get_movable_body(id, &world, impulse, "angular impulse");
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	kl_body_sim* sim = &world->sims[body->id];
	kl_body_state* state = &world->states[body->id];
	vec3s w = glms_vec3_add(state->angular_velocity, glms_mat3_mulv(world_inv_inertia(sim), impulse));
	if (kl_check_angular_speed(w, "angular impulse: the new angular velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	state->angular_velocity = w;
	if (wake)
	{
		wake_body(world, body);
	}
	return KL_OK;
}

kl_result kl_body_clear_forces(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body_unlocked(id, &world);
	if (body == NULL)
	{
		return kl_last_error_code();
	}
	world->sims[body->id].force = kl_vec3(0.0f, 0.0f, 0.0f);
	world->sims[body->id].torque = kl_vec3(0.0f, 0.0f, 0.0f);
	return KL_OK;
}

float kl_body_get_kinetic_energy(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL || body->type != KL_BODY_DYNAMIC)
	{
		return 0.0f;
	}
	const kl_body_sim* sim = &world->sims[body->id];
	const kl_body_state* st = &world->states[body->id];
	vec3s wb = kl_inv_rotate(sim->transform.q, st->angular_velocity);
	float linear = sim->mass * glms_vec3_dot(st->linear_velocity, st->linear_velocity);
	float angular = glms_vec3_dot(wb, glms_mat3_mulv(sim->inertia_local, wb));
	return 0.5f * (linear + angular);
}

vec3s kl_body_get_angular_momentum(kl_body_id id)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL || body->type != KL_BODY_DYNAMIC)
	{
		return kl_vec3(0.0f, 0.0f, 0.0f);
	}
	const kl_body_sim* sim = &world->sims[body->id];
	vec3s wb = kl_inv_rotate(sim->transform.q, world->states[body->id].angular_velocity);
	return kl_rotate(sim->transform.q, glms_mat3_mulv(sim->inertia_local, wb));
}
