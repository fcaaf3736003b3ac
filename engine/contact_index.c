// Kollide — the contacts of each shape, for destroying shapes between steps. The contact array is
// sorted by shape pair, so a shape's contacts as shape b lie scattered: a scan per destroyed shape
// cost 150 µs at 60,000 contacts, and clearing 20,000 bodies one by one took 3 s. The index is
// built on the first destruction after a merge (O(contacts + shape slots)) and serves every
// destruction until the next merge, so a step never pays for it.
// SPDX-License-Identifier: MIT
#include "contact.h"

#include "core.h"
#include "world.h"

/// Counts, offsets and fills the contacts of each shape slot (CSR); false when out of memory.
static bool build_index(kl_world* world)
{
	int slots = kl_id_pool_slot_count(&world->shape_pool);
	if (!KL_ARRAY_RESERVE(world->shape_contact_start, world->shape_contact_start_capacity, slots + 1) ||
		!KL_ARRAY_RESERVE(world->shape_contact_items, world->shape_contact_item_capacity, 2 * world->contact_count))
	{
		return false;
	}
	int* start = world->shape_contact_start;
	for (int s = 0; s <= slots; ++s)
	{
		start[s] = 0;
	}
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		if (c->shape_a >= 0)
		{
			start[c->shape_a] += 1;
			start[c->shape_b] += 1;
		}
	}
	// Inclusive sums make start[s] the end of slot s; filling backwards moves it to its beginning.
	for (int s = 1; s < slots; ++s)
	{
		start[s] += start[s - 1];
	}
	start[slots] = slots > 0 ? start[slots - 1] : 0;
	for (int k = world->contact_count - 1; k >= 0; --k)
	{
		const kl_contact* c = &world->contacts[k];
		if (c->shape_a >= 0)
		{
			world->shape_contact_items[--start[c->shape_a]] = k;
			world->shape_contact_items[--start[c->shape_b]] = k;
		}
	}
	world->shape_contact_slots = slots;
	world->shape_contact_index_valid = true;
	return true;
}

static void drop_contact(kl_world* world, kl_contact* c)
{
	// No end event: events are cleared when the next step begins, so it could not be read.
	kl_free(c->extra);
	c->extra = NULL;
	c->manifold_count = 0;
	c->shape_a = -1; // dropped at the next merge; the slot may be reused before then
	c->shape_b = -1;
	c->flags = 0;
	world->dead_contact_count += 1;
}

void kl_destroy_shape_contacts(kl_world* world, int shape_slot)
{
	if (world->contact_count == 0)
	{
		return;
	}
	if (!world->shape_contact_index_valid && !build_index(world))
	{
		// Out of memory for the index: the scan needs none.
		for (int k = 0; k < world->contact_count; ++k)
		{
			kl_contact* c = &world->contacts[k];
			if (c->shape_a == shape_slot || c->shape_b == shape_slot)
			{
				drop_contact(world, c);
			}
		}
		return;
	}
	if (shape_slot >= world->shape_contact_slots)
	{
		return; // a shape made after the last merge has no contacts yet
	}
	// A slot freed and reused since the merge lists its old shape's contacts, all dropped already.
	const int* items = world->shape_contact_items;
	for (int i = world->shape_contact_start[shape_slot]; i < world->shape_contact_start[shape_slot + 1]; ++i)
	{
		kl_contact* c = &world->contacts[items[i]];
		if (c->shape_a == shape_slot || c->shape_b == shape_slot)
		{
			drop_contact(world, c);
		}
	}
}

void kl_contact_index_destroy(kl_world* world)
{
	kl_free(world->shape_contact_start);
	kl_free(world->shape_contact_items);
	world->shape_contact_start = NULL;
	world->shape_contact_items = NULL;
	world->shape_contact_start_capacity = 0;
	world->shape_contact_item_capacity = 0;
	world->shape_contact_slots = 0;
	world->shape_contact_index_valid = false;
}
