// Kollide — the world's candidate pairs (broadphase proxies, filtering, the broadphase stage).
// SPDX-License-Identifier: MIT
#include "world_pairs.h"

#include "broadphase.h"
#include "contact.h"
#include "core.h"
#include "joint.h"

static kl_proxy_kind proxy_kind_of(const kl_body* body)
{
	return body->type != KL_BODY_STATIC && body->is_awake ? KL_PROXY_MOVING : KL_PROXY_STATIC;
}

bool kl_shapes_should_collide(const kl_world* world, const kl_shape* a, const kl_shape* b)
{
	if (a->body == b->body)
	{
		return false;
	}
	const kl_body* ba = &world->bodies[a->body];
	const kl_body* bb = &world->bodies[b->body];
	if (ba->type != KL_BODY_DYNAMIC && bb->type != KL_BODY_DYNAMIC)
	{
		return false; // static and kinematic bodies never push each other
	}
	if (a->filter.group_index != 0 && a->filter.group_index == b->filter.group_index)
	{
		return a->filter.group_index > 0;
	}
	if ((a->filter.category_bits & b->filter.mask_bits) == 0 || (b->filter.category_bits & a->filter.mask_bits) == 0)
	{
		return false;
	}
	if (ba->joint_count > 0 && bb->joint_count > 0 && kl_joint_blocks_collision(world, a->body, b->body))
	{
		return false;
	}
	return true;
}

static bool pair_filter(int32_t user_a, int32_t user_b, void* context)
{
	const kl_world* world = context;
	const kl_shape* a = &world->shapes[user_a];
	const kl_shape* b = &world->shapes[user_b];
	return kl_shapes_should_collide(world, a, b) && kl_contact_custom_filter(world, a, b);
}

bool kl_world_pairs_create(kl_world* world)
{
	kl_broadphase_def def = kl_default_broadphase_def();
	def.filter = pair_filter;
	def.filter_context = world;
	kl_parallel workers = kl_world_parallel(world); // the broadphase partitions by the world's worker count
	def.parallel = workers.run;
	def.parallel_context = workers.context;
	def.worker_count = workers.parts;
	def.use_gpu = world->def.use_gpu;
	world->broadphase = kl_broadphase_create(&def);
	return world->broadphase != NULL;
}

void kl_world_pairs_destroy(kl_world* world)
{
	kl_broadphase_destroy(world->broadphase);
	world->broadphase = NULL;
}

bool kl_shape_create_proxy(kl_world* world, kl_shape* shape)
{
	kl_proxy_kind kind = proxy_kind_of(&world->bodies[shape->body]);
	shape->proxy_key = kl_broadphase_create_proxy(world->broadphase, shape->fat_aabb, kind, shape->id);
	shape->enlarged = false;
	return shape->proxy_key >= 0;
}

void kl_shape_destroy_proxy(kl_world* world, kl_shape* shape)
{
	if (shape->proxy_key >= 0)
	{
		kl_broadphase_destroy_proxy(world->broadphase, shape->proxy_key);
		shape->proxy_key = -1;
	}
}

void kl_body_refresh_proxy_kinds(kl_world* world, int body_slot)
{
	const kl_body* body = &world->bodies[body_slot];
	kl_proxy_kind kind = proxy_kind_of(body);
	for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		kl_shape* shape = &world->shapes[s];
		if (shape->proxy_key >= 0)
		{
			kl_broadphase_set_proxy_kind(world->broadphase, shape->proxy_key, kind);
			kl_broadphase_touch_proxy(world->broadphase, shape->proxy_key);
		}
	}
}

void kl_touch_body_proxies(kl_world* world, int body_slot)
{
	const kl_body* body = &world->bodies[body_slot];
	for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
	{
		if (world->shapes[s].proxy_key >= 0)
		{
			kl_broadphase_touch_proxy(world->broadphase, world->shapes[s].proxy_key);
		}
	}
}

void kl_step_broadphase(kl_world* world)
{
	int kept = 0;
	for (int k = 0; k < world->enlarged_count; ++k)
	{
		int slot = world->enlarged_shapes[k];
		kl_shape* shape = &world->shapes[slot];
		shape->queued = false;
		if (shape->id < 0 || !shape->enlarged)
		{
			continue; // destroyed (slot maybe reused) or already seen
		}
		kl_result moved = kl_broadphase_move_proxy(world->broadphase, shape->proxy_key, shape->fat_aabb);
		if (moved == KL_ERR_OUT_OF_MEMORY)
		{
			// Stays queued with its new bounds: the next step moves it. (Dropped, a shape teleported
			// onto a floor kept its old proxy and fell through.)
			shape->queued = true;
			world->enlarged_shapes[kept++] = slot;
			continue;
		}
		shape->enlarged = false;
		if (moved != KL_OK)
		{
			// Bounds overflowed (a body flew off to infinity): the proxy keeps its last bounds; the
			// structure is never corrupted.
			world->counters.rejected_bounds_count += 1;
		}
	}
	world->enlarged_count = kept;
	world->broadphase_failed = kl_broadphase_update(world->broadphase) != KL_OK;
	kl_broadphase_stats stats = kl_broadphase_get_stats(world->broadphase);
	world->counters.pair_count = stats.pair_count;
}
