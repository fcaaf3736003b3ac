// Kollide — islands and sleeping. Each step, after the solver, every awake body's rest timer
// advances; islands are then rebuilt over the awake dynamic bodies (union–find over touching
// contacts and joints) and an island whose every body has rested for KL_TIME_TO_SLEEP falls
// asleep as one sleeping set. Waking any body of a set wakes the whole set.
// SPDX-License-Identifier: MIT
//
// Choices (Box2D v3 keeps persistent islands; rebuilding them each step is simpler and trivially
// deterministic, and costs one pass over the awake bodies, their joints and the contacts):
// - The union–find always links the larger root under the smaller one, so every island's root is
//   its lowest body slot whatever the order of the links: the result depends only on which bodies
//   touch, never on the awake list's order or on threads (this code runs serially).
// - A sleeping set is a list threaded through the bodies (kl_body::sleep_set is the slot of its
//   first, lowest body; sleep_next links them in ascending slot order), so it needs no storage.
// - Static bodies never link islands. Kinematic bodies do not link them either (a moving platform
//   would otherwise merge everything it carries), but a kinematic body counts as a member of every
//   island it touches (by contact or joint) for the rest timer only: while it moves at all (any
//   non-zero velocity, however slow: its velocity is a command), for KL_TIME_TO_SLEEP after it
//   stopped, or forever with enable_sleep off, the islands it touches stay awake. A kinematic body
//   at rest falls asleep on its own (no set).
// - An awake, restless body (rest timer below KL_TIME_TO_SLEEP) that touches or is jointed to a
//   sleeping dynamic body wakes that body's set. The narrowphase already wakes sets when a contact
//   begins; this catches contacts that began while both sides slept and a body was then woken
//   alone (for example by kl_body_set_awake), and sets that slept next to each other.
#include "island.h"

#include "contact.h"
#include "core.h"
#include "world.h"
#include "world_pairs.h"

#include <math.h>
#include <stdlib.h>

typedef struct kl_island_node
{
	int parent;		///< union–find parent (body slot); the root is the island's lowest slot
	int head;		///< root only: first body of the island's sleeping set, -1 until linked
	int tail;		///< root only: last body linked so far
	float rest;		///< this member's rest time, lowered by the kinematic bodies it touches
	float min_rest; ///< root only: the island's smallest rest time
} kl_island_node;

static bool is_dynamic(const kl_body* body)
{
	return body->type == KL_BODY_DYNAMIC;
}

/// In the awake list, so its island node is set up this step.
static bool is_awake_dynamic(const kl_body* body)
{
	return body->type == KL_BODY_DYNAMIC && body->awake_index >= 0;
}

static bool is_awake_kinematic(const kl_body* body)
{
	return body->type == KL_BODY_KINEMATIC && body->awake_index >= 0;
}

// ---------------------------------------------------------------------------------------------
// Waking

static void wake_one(kl_world* world, kl_body* body)
{
	body->sleep_time = 0.0f;
	if (!body->is_awake)
	{
		body->is_awake = true;
		kl_refresh_body_sim(world, body);
		kl_body_refresh_proxy_kinds(world, body->id);
	}
}

/// Dissolves the set that starts at head and wakes its movable bodies (a body may have turned
/// static since the set formed: it just leaves the set).
static void wake_set(kl_world* world, int head)
{
	int s = head;
	while (s >= 0)
	{
		kl_body* body = &world->bodies[s];
		int next = body->sleep_next;
		body->sleep_set = -1;
		body->sleep_next = -1;
		if (body->id >= 0 && body->type != KL_BODY_STATIC)
		{
			wake_one(world, body);
		}
		s = next;
	}
}

void kl_wake_body(kl_world* world, int body_slot)
{
	kl_body* body = &world->bodies[body_slot];
	if (body->sleep_set >= 0)
	{
		wake_set(world, body->sleep_set);
	}
	else if (body->type != KL_BODY_STATIC && !body->is_awake)
	{
		wake_one(world, body);
	}
}

// ---------------------------------------------------------------------------------------------
// Rest timers

/// Advances the awake bodies' rest timers; true if any body has rested long enough to sleep.
static bool update_rest_timers(kl_world* world, float dt)
{
	bool world_sleep = world->def.enable_sleep;
	bool any_sleepy = false;
	for (int k = 0; k < world->awake_count; ++k)
	{
		kl_body* body = &world->bodies[world->awake_bodies[k]];
		if (body->sleep_set >= 0)
		{
			wake_set(world, body->sleep_set); // woken by a path that missed its set: dissolve it
		}
		const kl_body_state* state = &world->states[body->id];
		float threshold = body->sleep_threshold;
		float v2 = glms_vec3_norm2(state->linear_velocity);
		float w2 = glms_vec3_norm2(state->angular_velocity) * body->max_extent * body->max_extent;
		bool restless = v2 > threshold * threshold || w2 > threshold * threshold;
		if (body->type == KL_BODY_KINEMATIC)
		{
			// Its velocity is the user's command, however slow: it never rests while moving.
			restless = v2 > 0.0f || glms_vec3_norm2(state->angular_velocity) > 0.0f;
		}
		if (!world_sleep || !body->enable_sleep || restless)
		{
			body->sleep_time = 0.0f;
		}
		else
		{
			body->sleep_time += dt;
			any_sleepy = any_sleepy || body->sleep_time >= KL_TIME_TO_SLEEP;
		}
	}
	return any_sleepy;
}

/// True if `awake` (an awake body) should wake `other`: `awake` is restless and `other` is a
/// sleeping dynamic body.
static bool should_wake(const kl_body* awake, const kl_body* other)
{
	return awake->is_awake && awake->type != KL_BODY_STATIC && awake->sleep_time < KL_TIME_TO_SLEEP &&
		   is_dynamic(other) && !other->is_awake;
}

/// Wakes the sleeping dynamic bodies that a restless awake body touches or is jointed to (serial,
/// in contact order, then in awake-list order: deterministic).
static void wake_touched_sleepers(kl_world* world)
{
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) != KL_CONTACT_TOUCHING || c->shape_a < 0)
		{
			continue;
		}
		kl_body* a = &world->bodies[c->body_a];
		kl_body* b = &world->bodies[c->body_b];
		if (a->is_awake == b->is_awake)
		{
			continue;
		}
		if (should_wake(a, b))
		{
			kl_wake_body(world, b->id);
		}
		else if (should_wake(b, a))
		{
			kl_wake_body(world, a->id);
		}
	}
	// The awake list grows while this runs: woken bodies pass their wake-up along their joints.
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		const kl_body* body = &world->bodies[i];
		for (int j = body->head_joint; j >= 0;)
		{
			const kl_joint* joint = &world->joints[j];
			int other = joint->body_a == i ? joint->body_b : joint->body_a;
			if (should_wake(body, &world->bodies[other]))
			{
				kl_wake_body(world, other);
			}
			j = kl_joint_next_of_body(joint, i);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Islands

static int find_root(kl_island_node* nodes, int i)
{
	while (nodes[i].parent != i)
	{
		nodes[i].parent = nodes[nodes[i].parent].parent; // path halving
		i = nodes[i].parent;
	}
	return i;
}

static void link(kl_island_node* nodes, int a, int b)
{
	int ra = find_root(nodes, a);
	int rb = find_root(nodes, b);
	if (ra < rb)
	{
		nodes[rb].parent = ra;
	}
	else if (rb < ra)
	{
		nodes[ra].parent = rb;
	}
}

/// Links two awake bodies, or lets an awake kinematic body hold a dynamic one awake.
static void connect(const kl_world* world, kl_island_node* nodes, int a, int b)
{
	const kl_body* ba = &world->bodies[a];
	const kl_body* bb = &world->bodies[b];
	if (is_awake_dynamic(ba) && is_awake_dynamic(bb))
	{
		link(nodes, a, b);
	}
	else if (is_awake_dynamic(ba) && is_awake_kinematic(bb))
	{
		nodes[a].rest = fminf(nodes[a].rest, bb->sleep_time);
	}
	else if (is_awake_kinematic(ba) && is_awake_dynamic(bb))
	{
		nodes[b].rest = fminf(nodes[b].rest, ba->sleep_time);
	}
}

/// Union–find over the awake dynamic bodies, then each island's smallest rest time at its root.
static void build_islands(kl_world* world, kl_island_node* nodes)
{
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		nodes[i] = (kl_island_node){i, -1, -1, world->bodies[i].sleep_time, INFINITY};
	}
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) == KL_CONTACT_TOUCHING && c->shape_a >= 0)
		{
			connect(world, nodes, c->body_a, c->body_b);
		}
	}
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		if (!is_dynamic(&world->bodies[i]))
		{
			continue;
		}
		for (int j = world->bodies[i].head_joint; j >= 0;)
		{
			const kl_joint* joint = &world->joints[j];
			int other = joint->body_a == i ? joint->body_b : joint->body_a;
			connect(world, nodes, i, other); // seen from both ends: linking twice is harmless
			j = kl_joint_next_of_body(joint, i);
		}
	}
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		if (is_dynamic(&world->bodies[i]))
		{
			int r = find_root(nodes, i);
			nodes[r].min_rest = fminf(nodes[r].min_rest, nodes[i].rest);
		}
	}
}

static int compare_slots(const void* a, const void* b)
{
	int x = *(const int*)a;
	int y = *(const int*)b;
	return (x > y) - (x < y);
}

/// Collects the bodies that fall asleep now into world->fell_asleep, in ascending slot order.
static bool collect_sleepers(kl_world* world, kl_island_node* nodes)
{
	world->fell_asleep_count = 0;
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		const kl_body* body = &world->bodies[i];
		bool sleeps = is_dynamic(body) ? nodes[find_root(nodes, i)].min_rest >= KL_TIME_TO_SLEEP
									   : body->sleep_time >= KL_TIME_TO_SLEEP;
		if (!sleeps)
		{
			continue;
		}
		if (!KL_ARRAY_RESERVE(world->fell_asleep, world->fell_asleep_capacity, world->fell_asleep_count + 1))
		{
			world->fell_asleep_count = 0;
			return false; // out of memory: everything stays awake this step
		}
		world->fell_asleep[world->fell_asleep_count++] = i;
	}
	if (world->fell_asleep_count > 1)
	{
		qsort(world->fell_asleep, (size_t)world->fell_asleep_count, sizeof(int), compare_slots);
	}
	return world->fell_asleep_count > 0;
}

/// Threads each island's bodies into its sleeping set (ascending slots) and puts them to sleep.
static void fall_asleep(kl_world* world, kl_island_node* nodes)
{
	for (int k = 0; k < world->fell_asleep_count; ++k)
	{
		int i = world->fell_asleep[k];
		kl_body* body = &world->bodies[i];
		body->sleep_set = -1;
		body->sleep_next = -1;
		if (is_dynamic(body))
		{
			kl_island_node* root = &nodes[find_root(nodes, i)];
			if (root->head < 0)
			{
				root->head = i;
			}
			else
			{
				world->bodies[root->tail].sleep_next = i;
			}
			root->tail = i;
			body->sleep_set = root->head;
		}
		body->is_awake = false;
		world->states[i] = (kl_body_state){0};
		world->sims[i].force = glms_vec3_zero();
		world->sims[i].torque = glms_vec3_zero();
		kl_refresh_body_sim(world, body); // leaves the awake list
		kl_body_refresh_proxy_kinds(world, i);
		kl_world_queue_enlarged_shapes(world, i);
	}
}

void kl_update_sleep(kl_world* world, float dt)
{
	world->fell_asleep_count = 0;
	bool any_sleepy = update_rest_timers(world, dt);
	wake_touched_sleepers(world);
	if (!any_sleepy || !world->def.enable_sleep)
	{
		return;
	}
	if (!KL_ARRAY_RESERVE(world->island_nodes, world->island_node_capacity, world->body_capacity))
	{
		return; // out of memory: nothing sleeps this step
	}
	kl_island_node* nodes = world->island_nodes;
	build_islands(world, nodes);
	if (collect_sleepers(world, nodes))
	{
		fall_asleep(world, nodes);
	}
}

void kl_islands_destroy(kl_world* world)
{
	kl_free(world->fell_asleep);
	kl_free(world->island_nodes);
	world->fell_asleep = NULL;
	world->island_nodes = NULL;
	world->fell_asleep_count = 0;
	world->fell_asleep_capacity = 0;
	world->island_node_capacity = 0;
}
