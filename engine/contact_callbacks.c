// Kollide — the user's hooks into the contact pipeline, as Box3D's: the custom pair filter (asked by
// the broadphase stage), the pre-solve callback (asked by the narrowphase, per manifold) and hit
// events (the approach speeds the narrowphase saw, reported after the solver for the points it
// pushed).
// SPDX-License-Identifier: MIT
#include "contact.h"

#include "core.h"
#include "world.h"

#include <kollide/kollide.h>

static kl_world* unlocked_world(kl_world_id id, const char* name)
{
	kl_world* world = kl_get_world(id);
	if (world != NULL && world->locked)
	{
		kl_fail(KL_ERR_LOCKED, "%s: the world is stepping", name);
		return NULL;
	}
	return world;
}

kl_result kl_world_set_custom_filter_callback(kl_world_id id, kl_custom_filter_fn* fcn, void* context)
{
	kl_world* world = unlocked_world(id, "kl_world_set_custom_filter_callback");
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	world->custom_filter_fn = fcn;
	world->custom_filter_context = context;
	return KL_OK;
}

kl_result kl_world_set_pre_solve_callback(kl_world_id id, kl_pre_solve_fn* fcn, void* context)
{
	kl_world* world = unlocked_world(id, "kl_world_set_pre_solve_callback");
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	world->pre_solve_fn = fcn;
	world->pre_solve_context = context;
	return KL_OK;
}

kl_result kl_world_set_hit_event_threshold(kl_world_id id, float threshold)
{
	kl_world* world = unlocked_world(id, "kl_world_set_hit_event_threshold");
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	if (!(threshold >= 0.0f) || !isfinite(threshold))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "hit event threshold %g must be finite and non-negative",
					   (double)threshold);
	}
	world->def.hit_event_threshold = threshold;
	return KL_OK;
}

static kl_shape_id shape_id(const kl_world* world, int slot)
{
	return kl_make_shape_id(world, &world->shapes[slot]);
}

bool kl_contact_custom_filter(const kl_world* world, const kl_shape* a, const kl_shape* b)
{
	if (world->custom_filter_fn == NULL || (!a->enable_custom_filtering && !b->enable_custom_filtering))
	{
		return true;
	}
	return world->custom_filter_fn(kl_make_shape_id(world, a), kl_make_shape_id(world, b),
								   world->custom_filter_context);
}

int kl_contact_pre_solve(const kl_world* world, const kl_contact* c, kl_manifold* manifolds, int count)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	if (world->pre_solve_fn == NULL || (!a->enable_pre_solve_events && !b->enable_pre_solve_events))
	{
		return count;
	}
	kl_shape_id id_a = shape_id(world, c->shape_a), id_b = shape_id(world, c->shape_b);
	int kept = 0;
	for (int i = 0; i < count; ++i)
	{
		const kl_manifold* m = &manifolds[i];
		if (m->point_count > 0 &&
			world->pre_solve_fn(id_a, id_b, m->points[0].point, m->normal, world->pre_solve_context))
		{
			if (kept != i)
			{
				manifolds[kept] = manifolds[i];
			}
			kept += 1;
		}
	}
	return kept;
}

void kl_contact_approach(const kl_world* world, const kl_contact* c, kl_manifold* manifolds, int count)
{
	if (!world->shapes[c->shape_a].enable_hit_events && !world->shapes[c->shape_b].enable_hit_events)
	{
		return;
	}
	const kl_body_state* sa = &world->states[c->body_a];
	const kl_body_state* sb = &world->states[c->body_b];
	vec3s ca = world->sims[c->body_a].center, cb = world->sims[c->body_b].center;
	for (int i = 0; i < count; ++i)
	{
		kl_manifold* m = &manifolds[i];
		for (int p = 0; p < m->point_count; ++p)
		{
			kl_manifold_point* mp = &m->points[p];
			vec3s va = glms_vec3_add(sa->linear_velocity, glms_vec3_cross(sa->angular_velocity, glms_vec3_sub(mp->point, ca)));
			vec3s vb = glms_vec3_add(sb->linear_velocity, glms_vec3_cross(sb->angular_velocity, glms_vec3_sub(mp->point, cb)));
			mp->normal_velocity = glms_vec3_dot(m->normal, glms_vec3_sub(vb, va));
		}
	}
}

void kl_contact_hit_events(kl_world* world)
{
	float threshold = world->def.hit_event_threshold;
	for (int k = 0; k < world->contact_count; ++k)
	{
		kl_contact* c = &world->contacts[k];
		// The contacts the solver just ran: touching, not a sensor, an awake body on one side.
		if (c->shape_a < 0 || (c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) != KL_CONTACT_TOUCHING ||
			(!world->shapes[c->shape_a].enable_hit_events && !world->shapes[c->shape_b].enable_hit_events) ||
			(!kl_body_slot_awake(world, c->body_a) && !kl_body_slot_awake(world, c->body_b)))
		{
			continue;
		}
		kl_contact_hit_event e = {0};
		e.approach_speed = threshold;
		bool found = false;
		for (int m = 0; m < c->manifold_count; ++m)
		{
			const kl_manifold* manifold = kl_contact_manifold(c, m);
			for (int p = 0; p < manifold->point_count; ++p)
			{
				const kl_manifold_point* mp = &manifold->points[p];
				// A speculative point that never pushed did not hit anything (it may close next step).
				if (-mp->normal_velocity > e.approach_speed && mp->max_normal_impulse > 0.0f)
				{
					e.approach_speed = -mp->normal_velocity;
					e.point = mp->point;
					e.normal = manifold->normal;
					found = true;
				}
			}
		}
		if (!found ||
			!KL_ARRAY_RESERVE(world->contact_hit_events, world->contact_hit_capacity, world->contact_hit_count + 1))
		{
			continue; // out of memory: the event is lost, the step goes on
		}
		e.shape_a = shape_id(world, c->shape_a);
		e.shape_b = shape_id(world, c->shape_b);
		world->contact_hit_events[world->contact_hit_count++] = e;
	}
}
