// Kollide — contacts: kept in step with the broadphase pairs, updated by the convex narrowphase,
// and turned into begin/end events and wake-ups.
// SPDX-License-Identifier: MIT
#include "contact.h"

#include "broadphase.h"
#include "core.h"
#include "island.h"
#include "world.h"

#include <kollide/kollide.h>

#include <string.h>

/// The narrowphase view of a shape, or false for shapes without a convex pair function (meshes).
static bool shape_collider(const kl_shape* shape, kl_collider* c)
{
	c->type = shape->type;
	switch (shape->type)
	{
	case KL_SHAPE_SPHERE:
		c->radius = shape->sphere_radius;
		return true;
	case KL_SHAPE_BOX:
		c->half_extents = shape->box_half_extents;
		return true;
	case KL_SHAPE_CAPSULE:
		c->capsule.radius = shape->capsule.radius;
		c->capsule.half_height = shape->capsule.half_height;
		return true;
	case KL_SHAPE_HULL:
		c->hull = shape->hull;
		return true;
	case KL_SHAPE_PLANE:
		c->plane = shape->plane;
		return true;
	default:
		return false;
	}
}

static bool body_is_awake(const kl_world* world, int body_slot)
{
	return world->bodies[body_slot].is_awake;
}

/// Mixed material of a pair (world callbacks first).
static void mix_materials(const kl_world* world, kl_contact* c)
{
	const kl_material* a = &world->shapes[c->shape_a].material;
	const kl_material* b = &world->shapes[c->shape_b].material;
	c->friction = world->def.friction_callback != NULL
					  ? world->def.friction_callback(a->friction, a->user_material_id, b->friction, b->user_material_id)
					  : sqrtf(a->friction * b->friction);
	c->restitution = world->def.restitution_callback != NULL
						 ? world->def.restitution_callback(a->restitution, a->user_material_id, b->restitution,
														   b->user_material_id)
						 : fmaxf(a->restitution, b->restitution);
	c->rolling_resistance = fmaxf(a->rolling_resistance, b->rolling_resistance);
	// A callback returning garbage must not poison the solver.
	if (!(c->friction >= 0.0f) || !isfinite(c->friction))
	{
		c->friction = 0.0f;
	}
	if (!(c->restitution >= 0.0f) || !isfinite(c->restitution))
	{
		c->restitution = 0.0f;
	}
}

static void init_contact(const kl_world* world, kl_contact* c, int shape_a, int shape_b)
{
	memset(c, 0, sizeof(*c));
	const kl_shape* a = &world->shapes[shape_a];
	const kl_shape* b = &world->shapes[shape_b];
	c->shape_a = shape_a;
	c->shape_b = shape_b;
	c->body_a = a->body;
	c->body_b = b->body;
	kl_collider unused;
	if (!shape_collider(a, &unused) || !shape_collider(b, &unused))
	{
		c->flags |= KL_CONTACT_UNSUPPORTED;
	}
	if (a->is_sensor || b->is_sensor)
	{
		c->flags |= KL_CONTACT_SENSOR;
	}
	if (a->enable_contact_events || b->enable_contact_events)
	{
		c->flags |= KL_CONTACT_EVENTS;
	}
}

static int compare_key(int a0, int b0, int a1, int b1)
{
	if (a0 != a1)
	{
		return a0 < a1 ? -1 : 1;
	}
	return b0 < b1 ? -1 : (b0 > b1 ? 1 : 0);
}

static void push_end_event(kl_world* world, const kl_contact* c);

/// A contact the broadphase no longer reports stays while neither body is awake (a sleeping
/// pile keeps its warm-start impulses and wakes with them).
static bool keep_unreported(const kl_world* world, const kl_contact* c)
{
	return c->shape_a >= 0 && !body_is_awake(world, c->body_a) && !body_is_awake(world, c->body_b);
}

/// Merges the sorted broadphase pairs into the sorted contact array (serial, linear).
static bool merge_pairs(kl_world* world)
{
	int pair_count = 0;
	const kl_pair* pairs = kl_broadphase_get_pairs(world->broadphase, &pair_count);
	int upper = pair_count + world->contact_count;
	if (!KL_ARRAY_RESERVE(world->contact_scratch, world->contact_scratch_capacity, upper))
	{
		return false;
	}
	kl_contact* out = world->contact_scratch;
	int n = 0, i = 0, j = 0;
	while (i < pair_count || j < world->contact_count)
	{
		kl_contact* old = j < world->contact_count ? &world->contacts[j] : NULL;
		if (old != NULL && old->shape_a < 0)
		{
			j += 1; // its shape was destroyed
			continue;
		}
		int order = old == NULL ? -1
					: i == pair_count
						? 1
						: compare_key(pairs[i].user_a, pairs[i].user_b, old->shape_a, old->shape_b);
		if (order == 0)
		{
			out[n++] = *old;
			i += 1;
			j += 1;
		}
		else if (order < 0)
		{
			init_contact(world, &out[n++], pairs[i].user_a, pairs[i].user_b);
			i += 1;
		}
		else
		{
			if (keep_unreported(world, old))
			{
				out[n++] = *old;
			}
			else if (old->flags & KL_CONTACT_TOUCHING)
			{
				push_end_event(world, old);
			}
			j += 1;
		}
	}
	kl_contact* t = world->contacts;
	int tc = world->contact_capacity;
	world->contacts = world->contact_scratch;
	world->contact_capacity = world->contact_scratch_capacity;
	world->contact_scratch = t;
	world->contact_scratch_capacity = tc;
	world->contact_count = n;
	world->dead_contact_count = 0;
	return true;
}

static kl_transform shape_transform(const kl_world* world, const kl_shape* shape)
{
	return kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
}

/// Recomputes one contact's manifold, keeping last step's impulses by feature id.
/// Longest speculative reach: beyond this the current features are a poor guess of where two
/// bodies will meet (ghost contacts), and continuous collision is the better tool.
#define KL_MAX_SPECULATIVE_DISTANCE 0.25f

/// How far apart points may be and still matter this step: the slop band plus the closing the
/// bodies' linear velocities and gravity can do within dt.
static float speculative_distance(const kl_world* world, const kl_contact* c, float dt)
{
	vec3s dv = glms_vec3_sub(world->states[c->body_b].linear_velocity, world->states[c->body_a].linear_velocity);
	float closing = dt * (glms_vec3_norm(dv) + dt * glms_vec3_norm(world->def.gravity));
	return KL_SPECULATIVE_DISTANCE + fminf(closing, KL_MAX_SPECULATIVE_DISTANCE);
}

static void update_contact(const kl_world* world, kl_contact* c, float dt)
{
	uint32_t flags = c->flags & ~(KL_CONTACT_STARTED | KL_CONTACT_STOPPED);
	bool was_touching = (flags & KL_CONTACT_TOUCHING) != 0;
	bool touching = false;
	if (!(flags & KL_CONTACT_UNSUPPORTED))
	{
		const kl_shape* a = &world->shapes[c->shape_a];
		const kl_shape* b = &world->shapes[c->shape_b];
		kl_collider ca, cb;
		shape_collider(a, &ca);
		shape_collider(b, &cb);
		kl_manifold m;
		float speculative = (flags & KL_CONTACT_SENSOR) ? 0.0f : speculative_distance(world, c, dt);
		kl_collide(&ca, shape_transform(world, a), &cb, shape_transform(world, b), speculative, &c->cache, &m);
		if (flags & KL_CONTACT_SENSOR)
		{
			m.point_count = m.point_count > 0 && m.points[0].separation <= 0.0f ? m.point_count : 0;
		}
		else
		{
			kl_manifold_keep_impulses(&c->manifold, &m);
			mix_materials(world, c);
		}
		c->manifold = m;
		touching = m.point_count > 0;
	}
	else
	{
		c->manifold.point_count = 0;
	}
	flags = touching ? flags | KL_CONTACT_TOUCHING : flags & ~(uint32_t)KL_CONTACT_TOUCHING;
	if (touching && !was_touching)
	{
		flags |= KL_CONTACT_STARTED;
	}
	else if (!touching && was_touching)
	{
		flags |= KL_CONTACT_STOPPED;
	}
	c->flags = flags;
}

typedef struct kl_narrowphase_context
{
	kl_world* world;
	float dt;
} kl_narrowphase_context;

static void update_task(int start, int end, int worker, void* context)
{
	(void)worker;
	kl_narrowphase_context* nc = context;
	kl_world* world = nc->world;
	for (int part = start; part < end; ++part)
	{
		int c0, c1;
		kl_partition_range(world->contact_count, world->worker_count, part, &c0, &c1);
		for (int k = c0; k < c1; ++k)
		{
			kl_contact* c = &world->contacts[k];
			if (body_is_awake(world, c->body_a) || body_is_awake(world, c->body_b))
			{
				update_contact(world, c, nc->dt);
			}
			else
			{
				c->flags &= ~(uint32_t)(KL_CONTACT_STARTED | KL_CONTACT_STOPPED);
			}
		}
	}
}

static kl_shape_id shape_id_of(const kl_world* world, int slot)
{
	return kl_make_shape_id(world, &world->shapes[slot]);
}

static void push_sensor_event(kl_world* world, const kl_contact* c, bool begin)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	const kl_shape* sensor = a->is_sensor ? a : b;
	const kl_shape* visitor = a->is_sensor ? b : a;
	if (!sensor->enable_sensor_events)
	{
		return;
	}
	kl_sensor_event e = {kl_make_shape_id(world, sensor), kl_make_shape_id(world, visitor)};
	if (begin && KL_ARRAY_RESERVE(world->sensor_begin_events, world->sensor_begin_capacity,
								  world->sensor_begin_count + 1))
	{
		world->sensor_begin_events[world->sensor_begin_count++] = e;
	}
	else if (!begin &&
			 KL_ARRAY_RESERVE(world->sensor_end_events, world->sensor_end_capacity, world->sensor_end_count + 1))
	{
		world->sensor_end_events[world->sensor_end_count++] = e;
	}
}

static void push_end_event(kl_world* world, const kl_contact* c)
{
	if (c->flags & KL_CONTACT_SENSOR)
	{
		push_sensor_event(world, c, false);
		return;
	}
	if (!(c->flags & KL_CONTACT_EVENTS) ||
		!KL_ARRAY_RESERVE(world->contact_end_events, world->contact_end_capacity, world->contact_end_count + 1))
	{
		return;
	}
	kl_contact_end_event* e = &world->contact_end_events[world->contact_end_count++];
	e->shape_a = shape_id_of(world, c->shape_a);
	e->shape_b = shape_id_of(world, c->shape_b);
}

static void push_begin_event(kl_world* world, const kl_contact* c)
{
	if (c->flags & KL_CONTACT_SENSOR)
	{
		push_sensor_event(world, c, true);
		return;
	}
	if (!(c->flags & KL_CONTACT_EVENTS) ||
		!KL_ARRAY_RESERVE(world->contact_begin_events, world->contact_begin_capacity, world->contact_begin_count + 1))
	{
		return;
	}
	kl_contact_begin_event* e = &world->contact_begin_events[world->contact_begin_count++];
	e->shape_a = shape_id_of(world, c->shape_a);
	e->shape_b = shape_id_of(world, c->shape_b);
	e->normal = c->manifold.normal;
	e->point = c->manifold.points[0].point;
}

/// Serial pass in contact order: events, wake-ups and the touching count.
static void finish_contacts(kl_world* world)
{
	int touching = 0;
	for (int k = 0; k < world->contact_count; ++k)
	{
		kl_contact* c = &world->contacts[k];
		if (c->flags & KL_CONTACT_STARTED)
		{
			push_begin_event(world, c);
			if (!(c->flags & KL_CONTACT_SENSOR))
			{
				// An awake body touching a sleeping one wakes it (and its sleeping set).
				bool awake_a = body_is_awake(world, c->body_a);
				bool awake_b = body_is_awake(world, c->body_b);
				if (awake_a != awake_b)
				{
					kl_wake_body(world, awake_a ? c->body_b : c->body_a);
				}
			}
		}
		else if (c->flags & KL_CONTACT_STOPPED)
		{
			push_end_event(world, c);
		}
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) == KL_CONTACT_TOUCHING)
		{
			touching += 1;
		}
	}
	world->counters.contact_count = touching;
}

/// Below this many contacts the update runs on the calling thread.
#define KL_MIN_PARALLEL_CONTACTS 256

void kl_step_narrowphase(kl_world* world, float dt)
{
	kl_narrowphase_context nc = {world, dt};
	if (!merge_pairs(world))
	{
		return; // out of memory: last step's contacts stay as they were
	}
	if (world->contact_count < KL_MIN_PARALLEL_CONTACTS)
	{
		update_task(0, world->worker_count, 0, &nc);
	}
	else
	{
		kl_world_parallel_for(world, update_task, &nc);
	}
	finish_contacts(world);
}

void kl_destroy_shape_contacts(kl_world* world, int shape_slot)
{
	for (int k = 0; k < world->contact_count; ++k)
	{
		kl_contact* c = &world->contacts[k];
		if (c->shape_a == shape_slot || c->shape_b == shape_slot)
		{
			// No end event: events are cleared when the next step begins, so it could not be read.
			c->shape_a = -1; // dropped at the next merge; the slot may be reused before then
			c->shape_b = -1;
			c->flags = 0;
			world->dead_contact_count += 1;
		}
	}
}

void kl_contacts_destroy(kl_world* world)
{
	kl_free(world->contacts);
	kl_free(world->contact_scratch);
	world->contacts = NULL;
	world->contact_scratch = NULL;
	world->contact_count = 0;
	world->contact_capacity = 0;
	world->contact_scratch_capacity = 0;
}

int kl_body_get_contact_data(kl_body_id id, kl_contact_data* data, int capacity)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL || (data == NULL && capacity > 0))
	{
		return 0;
	}
	float inv_h = world->last_substep > 0.0f ? 1.0f / world->last_substep : 0.0f;
	int n = 0;
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) != KL_CONTACT_TOUCHING ||
			(c->body_a != body->id && c->body_b != body->id))
		{
			continue;
		}
		if (n < capacity)
		{
			kl_contact_data* d = &data[n];
			d->shape_a = shape_id_of(world, c->shape_a);
			d->shape_b = shape_id_of(world, c->shape_b);
			d->normal = c->manifold.normal;
			d->point_count = c->manifold.point_count;
			for (int i = 0; i < c->manifold.point_count; ++i)
			{
				const kl_manifold_point* mp = &c->manifold.points[i];
				d->points[i] = (kl_contact_point_data){mp->point, mp->separation, mp->normal_impulse * inv_h, mp->id};
			}
		}
		n += 1;
	}
	return n;
}
