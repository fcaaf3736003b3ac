// Kollide — world registry, creation, destruction and queries.
// SPDX-License-Identifier: MIT
#include "world.h"

#include "contact.h"
#include "solver_stage.h"

#include "broadphase.h"
#include "core.h"
#include "gpu.h"
#include "island.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

#include <float.h>
#include <stdatomic.h>
#include <string.h>

// The world registry. Threads may create and destroy worlds at once (an ensemble runs one world per
// sample on each thread), so a slot is claimed by a compare-and-swap from empty to a reservation and
// published with the finished world; a slot's generation is written only by its claimant.
static _Atomic(kl_world*) s_worlds[KL_MAX_WORLDS];
static uint16_t s_world_generations[KL_MAX_WORLDS];
static char s_world_reserved;
#define KL_WORLD_RESERVED ((kl_world*)&s_world_reserved)

/// The world in a slot, or NULL where the slot is empty or still being filled.
static kl_world* world_in_slot(int slot)
{
	kl_world* world = atomic_load_explicit(&s_worlds[slot], memory_order_acquire);
	return world == KL_WORLD_RESERVED ? NULL : world;
}

kl_world* kl_get_world(kl_world_id id)
{
	int slot = (int)id.index1 - 1;
	kl_world* world = slot >= 0 && slot < KL_MAX_WORLDS ? world_in_slot(slot) : NULL;
	if (world == NULL || world->generation != id.generation)
	{
		kl_fail(KL_ERR_INVALID_ID, "invalid world id (index1 %u, generation %u)", id.index1, id.generation);
		return NULL;
	}
	return world;
}

kl_world* kl_get_world_from_index(int world0)
{
	if (world0 < 0 || world0 >= KL_MAX_WORLDS)
	{
		return NULL;
	}
	return world_in_slot(world0);
}

/// Claims an empty slot for a world being created; -1 when every slot is taken.
static int claim_world_slot(void)
{
	for (int i = 0; i < KL_MAX_WORLDS; ++i)
	{
		kl_world* empty = NULL;
		if (atomic_compare_exchange_strong_explicit(&s_worlds[i], &empty, KL_WORLD_RESERVED, memory_order_acq_rel,
													memory_order_relaxed))
		{
			return i;
		}
	}
	return -1;
}

kl_world_id kl_make_world_id(const kl_world* world)
{
	return (kl_world_id){(uint16_t)(world->index + 1), world->generation};
}

static kl_result validate_world_def(const kl_world_def* def)
{
	if (def == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "world def is NULL");
	}
	if (!kl_vec3_is_finite(def->gravity))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "world gravity must be finite");
	}
	if (def->worker_count < 0 || def->worker_count > 256)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "worker_count %d outside [0, 256]", def->worker_count);
	}
	if ((def->enqueue_task == NULL) != (def->finish_task == NULL))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "enqueue_task and finish_task must be given together");
	}
	float l = def->length_units_per_meter;
	if (!(l >= KL_MIN_LENGTH_UNITS && l <= KL_MAX_LENGTH_UNITS))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "world length_units_per_meter %g is out of range [%g, %g]", (double)l,
					   (double)KL_MIN_LENGTH_UNITS, (double)KL_MAX_LENGTH_UNITS);
	}
	const struct
	{
		const char* name;
		float value;
		float max; ///< NAN: any finite value
	} params[] = {
		{"contact_hertz", def->contact_hertz, KL_MAX_HERTZ},
		{"contact_damping_ratio", def->contact_damping_ratio, KL_MAX_DAMPING_RATIO},
		{"max_contact_push_speed", def->max_contact_push_speed, KL_MAX_LINEAR_SPEED * l},
		{"joint_hertz", def->joint_hertz, KL_MAX_HERTZ},
		{"joint_damping_ratio", def->joint_damping_ratio, KL_MAX_DAMPING_RATIO},
		{"restitution_threshold", def->restitution_threshold, NAN},
		{"max_linear_speed", def->max_linear_speed, KL_MAX_LINEAR_SPEED * l},
		{"max_collision_travel", def->max_collision_travel, NAN},
		{"hit_event_threshold", def->hit_event_threshold, NAN},
	};
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); ++i)
	{
		float v = params[i].value;
		float max = isnan(params[i].max) ? FLT_MAX : params[i].max;
		if (!(v >= 0.0f && v <= max))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "world %s %g is out of range [0, %g]", params[i].name, (double)v,
						   (double)max);
		}
	}
	return KL_OK;
}

kl_world_id kl_create_world(const kl_world_def* def)
{
	if (validate_world_def(def) != KL_OK)
	{
		return kl_null_world_id;
	}
	int slot = claim_world_slot();
	if (slot < 0)
	{
		kl_fail(KL_ERR_LIMIT, "at most %d worlds can exist at once", KL_MAX_WORLDS);
		return kl_null_world_id;
	}
	kl_world* world = kl_alloc_zero(1, sizeof(kl_world));
	if (world == NULL)
	{
		atomic_store_explicit(&s_worlds[slot], NULL, memory_order_release);
		return kl_null_world_id;
	}
	world->def = *def;
	world->index = slot;
	world->generation = ++s_world_generations[slot];
	world->worker_count = def->worker_count < 1 ? 1 : def->worker_count;
	if (def->enqueue_task == NULL && world->worker_count > 1)
	{
		world->pool = kl_thread_pool_create(world->worker_count);
		if (world->pool == NULL)
		{
			kl_free(world);
			atomic_store_explicit(&s_worlds[slot], NULL, memory_order_release);
			return kl_null_world_id;
		}
	}
	if (def->use_gpu)
	{
		kl_gpu_notice_once();
	}
	if (!kl_world_pairs_create(world))
	{
		kl_thread_pool_destroy(world->pool);
		kl_free(world);
		atomic_store_explicit(&s_worlds[slot], NULL, memory_order_release);
		return kl_null_world_id;
	}
	atomic_store_explicit(&s_worlds[slot], world, memory_order_release);
	return kl_make_world_id(world);
}

kl_result kl_destroy_world(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot destroy a world while it steps");
	}
	for (int i = 0; i < kl_id_pool_slot_count(&world->shape_pool); ++i)
	{
		if (world->shapes[i].id >= 0)
		{
			kl_shape_release_geometry(&world->shapes[i]);
		}
	}
	for (int i = 0; i < kl_id_pool_slot_count(&world->body_pool); ++i)
	{
		kl_free(world->bodies[i].name);
	}
	for (int i = 0; i < kl_id_pool_slot_count(&world->joint_pool); ++i)
	{
		kl_free(world->joints[i].name);
	}
	kl_world_pairs_destroy(world);
	kl_islands_destroy(world);
	kl_contacts_destroy(world);
	kl_solver_storage_destroy(world);
	kl_thread_pool_destroy(world->pool);
	kl_free(world->bodies);
	kl_free(world->sims);
	kl_free(world->states);
	kl_free(world->shapes);
	kl_free(world->joints);
	kl_free(world->awake_bodies);
	kl_free(world->enlarged_shapes);
	kl_free(world->move_events);
	kl_free(world->contact_begin_events);
	kl_free(world->contact_end_events);
	kl_free(world->contact_hit_events);
	kl_free(world->sensor_begin_events);
	kl_free(world->sensor_end_events);
	kl_id_pool_destroy(&world->body_pool);
	kl_id_pool_destroy(&world->shape_pool);
	kl_id_pool_destroy(&world->joint_pool);
	int slot = world->index;
	kl_free(world);
	atomic_store_explicit(&s_worlds[slot], NULL, memory_order_release);
	return KL_OK;
}

bool kl_world_is_valid(kl_world_id id)
{
	int slot = (int)id.index1 - 1;
	kl_world* world = slot >= 0 && slot < KL_MAX_WORLDS ? world_in_slot(slot) : NULL;
	return world != NULL && world->generation == id.generation;
}

bool kl_world_reserve_body_slot(kl_world* world, int slot)
{
	int capacity = world->body_capacity;
	if (slot < capacity)
	{
		return true;
	}
	int new_capacity = capacity > 0 ? capacity : 16;
	while (new_capacity <= slot)
	{
		new_capacity *= 2;
	}
	kl_body* bodies = kl_realloc(world->bodies, (size_t)new_capacity, sizeof(kl_body));
	if (bodies == NULL)
	{
		return false;
	}
	world->bodies = bodies;
	kl_body_sim* sims = kl_realloc(world->sims, (size_t)new_capacity, sizeof(kl_body_sim));
	if (sims == NULL)
	{
		return false;
	}
	world->sims = sims;
	kl_body_state* states = kl_realloc(world->states, (size_t)new_capacity, sizeof(kl_body_state));
	if (states == NULL)
	{
		return false;
	}
	world->states = states;
	// Room for every body in the awake list, so that waking one never allocates: in a step, a body
	// woken without room stayed flagged awake and was never moved again.
	if (!KL_ARRAY_RESERVE(world->awake_bodies, world->awake_capacity, new_capacity))
	{
		return false;
	}
	world->body_capacity = new_capacity;
	return true;
}

bool kl_world_reserve_shape_slot(kl_world* world, int slot)
{
	return KL_ARRAY_RESERVE(world->shapes, world->shape_capacity, slot + 1);
}

bool kl_world_reserve_joint_slot(kl_world* world, int slot)
{
	return KL_ARRAY_RESERVE(world->joints, world->joint_capacity, slot + 1);
}

void kl_world_update_awake_list(kl_world* world, int body_slot, bool active)
{
	kl_body* body = &world->bodies[body_slot];
	if (active && body->awake_index < 0)
	{
		if (!KL_ARRAY_RESERVE(world->awake_bodies, world->awake_capacity, world->awake_count + 1))
		{
			return; // cannot happen: reserved with the body slots (kl_world_reserve_body_slot)
		}
		body->awake_index = world->awake_count;
		world->awake_bodies[world->awake_count++] = body_slot;
	}
	else if (!active && body->awake_index >= 0)
	{
		int last = world->awake_bodies[--world->awake_count];
		world->awake_bodies[body->awake_index] = last;
		world->bodies[last].awake_index = body->awake_index;
		body->awake_index = -1;
		world->sims[body_slot].transform0 = world->sims[body_slot].transform;
	}
}

void kl_world_queue_enlarged_shapes(kl_world* world, int body_slot)
{
	for (int s = world->bodies[body_slot].head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		kl_shape* shape = &world->shapes[s];
		if (shape->enlarged && !shape->queued &&
			KL_ARRAY_RESERVE(world->enlarged_shapes, world->enlarged_capacity, world->enlarged_count + 1))
		{
			shape->queued = true;
			world->enlarged_shapes[world->enlarged_count++] = s;
		}
	}
}

void kl_world_parallel_for(kl_world* world, kl_task_fn* task, void* context)
{
	int parts = world->worker_count;
	if (world->def.enqueue_task != NULL)
	{
		// NULL means the user's system already ran every partition (inline), as in Box2D.
		void* handle = world->def.enqueue_task(task, parts, context, world->def.user_task_context);
		if (handle != NULL)
		{
			world->def.finish_task(handle, world->def.user_task_context);
		}
		return;
	}
	if (world->pool == NULL)
	{
		task(0, parts, 0, context);
		return;
	}
	kl_thread_pool_run(world->pool, task, parts, context);
}

static void world_run(kl_task_fn* task, int partition_count, void* task_context, void* context)
{
	(void)partition_count; // the world's worker count
	kl_world_parallel_for(context, task, task_context);
}

kl_parallel kl_world_parallel(kl_world* world)
{
	return (kl_parallel){world_run, world, world->worker_count};
}

kl_result kl_world_set_gravity(kl_world_id id, vec3s gravity)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (!kl_vec3_is_finite(gravity))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "gravity must be finite");
	}
	world->def.gravity = gravity;
	return KL_OK;
}

kl_result kl_world_set_use_gpu(kl_world_id id, bool use_gpu)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot switch the GPU backends while the world steps");
	}
	if (use_gpu)
	{
		kl_gpu_notice_once();
	}
	world->def.use_gpu = use_gpu;
	kl_broadphase_set_use_gpu(world->broadphase, use_gpu);
	return KL_OK;
}

vec3s kl_world_get_gravity(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	return world != NULL ? world->def.gravity : kl_vec3(0.0f, 0.0f, 0.0f);
}

kl_world_def kl_world_get_def(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	return world != NULL ? world->def : kl_default_world_def();
}

int kl_world_get_worker_count(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	return world != NULL ? world->worker_count : 0;
}

kl_profile kl_world_get_profile(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	return world != NULL ? world->profile : (kl_profile){0};
}

kl_counters kl_world_get_counters(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return (kl_counters){0};
	}
	kl_counters c = world->counters;
	c.body_count = world->body_count;
	c.shape_count = world->shape_count;
	c.joint_count = world->joint_count;
	c.worker_count = world->worker_count;
	c.step_index = world->step_index;
	return c;
}

kl_body_events kl_world_get_body_events(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return (kl_body_events){0};
	}
	return (kl_body_events){world->move_events, world->move_event_count};
}

kl_contact_events kl_world_get_contact_events(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return (kl_contact_events){0};
	}
	return (kl_contact_events){world->contact_begin_events, world->contact_begin_count, world->contact_end_events,
							   world->contact_end_count, world->contact_hit_events, world->contact_hit_count};
}

kl_sensor_events kl_world_get_sensor_events(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return (kl_sensor_events){0};
	}
	return (kl_sensor_events){world->sensor_begin_events, world->sensor_begin_count, world->sensor_end_events,
							  world->sensor_end_count};
}

int kl_world_get_bodies(kl_world_id id, kl_body_id* bodies, int capacity)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return 0;
	}
	int count = 0;
	for (int i = 0; i < kl_id_pool_slot_count(&world->body_pool); ++i)
	{
		if (world->bodies[i].id < 0)
		{
			continue;
		}
		if (bodies != NULL && count < capacity)
		{
			bodies[count] = kl_make_body_id(world, &world->bodies[i]);
		}
		++count;
	}
	return count;
}

int kl_world_get_joints(kl_world_id id, kl_joint_id* joints, int capacity)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return 0;
	}
	int count = 0;
	for (int i = 0; i < kl_id_pool_slot_count(&world->joint_pool); ++i)
	{
		if (world->joints[i].id < 0)
		{
			continue;
		}
		if (joints != NULL && count < capacity)
		{
			joints[count] = kl_make_joint_id(world, &world->joints[i]);
		}
		++count;
	}
	return count;
}

uint32_t kl_world_hash_transforms(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return 0;
	}
	uint32_t hash = KL_HASH_INIT;
	for (int i = 0; i < kl_id_pool_slot_count(&world->body_pool); ++i)
	{
		if (world->bodies[i].id < 0)
		{
			continue;
		}
		const kl_transform* t = &world->sims[i].transform;
		float bits[7] = {t->p.x, t->p.y, t->p.z, t->q.w, t->q.x, t->q.y, t->q.z};
		hash = kl_hash_bytes(hash, bits, sizeof(bits));
	}
	return hash;
}

kl_body_id kl_world_find_body(kl_world_id id, const char* name)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL || name == NULL)
	{
		return kl_null_body_id;
	}
	for (int i = 0; i < kl_id_pool_slot_count(&world->body_pool); ++i)
	{
		const kl_body* body = &world->bodies[i];
		if (body->id >= 0 && body->name != NULL && strcmp(body->name, name) == 0)
		{
			return kl_make_body_id(world, body);
		}
	}
	return kl_null_body_id;
}

kl_joint_id kl_world_find_joint(kl_world_id id, const char* name)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL || name == NULL)
	{
		return kl_null_joint_id;
	}
	for (int i = 0; i < kl_id_pool_slot_count(&world->joint_pool); ++i)
	{
		const kl_joint* joint = &world->joints[i];
		if (joint->id >= 0 && joint->name != NULL && strcmp(joint->name, name) == 0)
		{
			return kl_make_joint_id(world, joint);
		}
	}
	return kl_null_joint_id;
}
