// Kollide broadphase — the pair set (see pair_set.h).
// SPDX-License-Identifier: MIT
#include "pair_set.h"

#include "core.h"

#include <string.h>

enum
{
	LISTED_ADDED = 1,
	LISTED_REMOVED = 2,
};

static bool table_alloc(kl_pair_set* set, int capacity)
{
	kl_pair_entry* slots = kl_alloc((size_t)capacity, sizeof(kl_pair_entry));
	if (slots == NULL)
	{
		return false;
	}
	for (int i = 0; i < capacity; ++i)
	{
		slots[i].key = KL_PAIR_EMPTY;
	}
	set->slots = slots;
	set->capacity = capacity;
	set->count = 0;
	return true;
}

bool kl_pair_set_init(kl_pair_set* set)
{
	memset(set, 0, sizeof(*set));
	return table_alloc(set, 64);
}

void kl_pair_set_destroy(kl_pair_set* set)
{
	kl_free(set->slots);
	kl_free(set->added);
	kl_free(set->removed);
	memset(set, 0, sizeof(*set));
}

static void table_put(kl_pair_set* set, const kl_pair_entry* entry)
{
	uint32_t mask = (uint32_t)set->capacity - 1u;
	uint32_t h = kl_pair_hash(entry->key, set->capacity);
	while (set->slots[h].key != KL_PAIR_EMPTY)
	{
		h = (h + 1u) & mask;
	}
	set->slots[h] = *entry;
	set->count++;
}

// Keeps the load at most one half.
static bool table_reserve(kl_pair_set* set, int count)
{
	if (2 * (int64_t)count <= set->capacity)
	{
		return true;
	}
	int capacity = set->capacity;
	while (2 * (int64_t)count > capacity)
	{
		if (capacity > (1 << 29))
		{
			kl_fail(KL_ERR_LIMIT, "too many broadphase pairs");
			return false;
		}
		capacity *= 2;
	}
	kl_pair_entry* old = set->slots;
	int old_capacity = set->capacity;
	if (!table_alloc(set, capacity))
	{
		set->slots = old;
		return false;
	}
	for (int i = 0; i < old_capacity; ++i)
	{
		if (old[i].key != KL_PAIR_EMPTY)
		{
			table_put(set, old + i);
		}
	}
	kl_free(old);
	return true;
}

// Backward-shift deletion: later entries of the probe run move up so that no tombstones remain.
static void table_delete(kl_pair_set* set, uint32_t i)
{
	uint32_t mask = (uint32_t)set->capacity - 1u;
	uint32_t j = i;
	for (;;)
	{
		j = (j + 1u) & mask;
		uint64_t k = set->slots[j].key;
		if (k == KL_PAIR_EMPTY)
		{
			break;
		}
		uint32_t home = kl_pair_hash(k, set->capacity);
		// The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (!stays)
		{
			set->slots[i] = set->slots[j];
			i = j;
		}
	}
	set->slots[i].key = KL_PAIR_EMPTY;
	set->count--;
}

static bool list_push(uint64_t** list, int* count, int* capacity, uint64_t key)
{
	if (*count == *capacity && !KL_ARRAY_RESERVE(*list, *capacity, *count + 1))
	{
		return false;
	}
	(*list)[(*count)++] = key;
	return true;
}

static void count_pair(uint64_t key, int32_t* counts, int32_t delta)
{
	counts[key >> 32] += delta;
	counts[key & 0xffffffffu] += delta;
}

bool kl_pair_set_add(kl_pair_set* set, uint64_t key, int32_t slot, uint32_t stamp, int32_t* counts)
{
	if (slot >= 0)
	{
		kl_pair_entry* e = set->slots + slot;
		e->stamp = stamp;
		if (!kl_pair_is_live(e))
		{
			e->state = e->state == KL_PAIR_DEAD_OLD ? KL_PAIR_NORMAL : KL_PAIR_ADDED;
			set->live_count++;
			count_pair(key, counts, 1);
		}
		return true;
	}
	if (!table_reserve(set, set->count + 1) || !list_push(&set->added, &set->added_count, &set->added_capacity, key))
	{
		return false;
	}
	kl_pair_entry e = {key, stamp, KL_PAIR_ADDED, LISTED_ADDED, 0};
	table_put(set, &e);
	set->live_count++;
	count_pair(key, counts, 1);
	return true;
}

bool kl_pair_set_remove(kl_pair_set* set, int32_t slot, int32_t* counts)
{
	kl_pair_entry* e = set->slots + slot;
	if (!kl_pair_is_live(e))
	{
		return true;
	}
	if ((e->listed & LISTED_REMOVED) == 0)
	{
		if (!list_push(&set->removed, &set->removed_count, &set->removed_capacity, e->key))
		{
			return false;
		}
		e->listed |= LISTED_REMOVED;
	}
	e->state = e->state == KL_PAIR_NORMAL ? KL_PAIR_DEAD_OLD : KL_PAIR_DEAD_NEW;
	set->live_count--;
	count_pair(e->key, counts, -1);
	return true;
}

static bool marked(const uint64_t* bits, uint64_t proxy)
{
	return ((bits[proxy >> 6] >> (proxy & 63)) & 1u) != 0;
}

bool kl_pair_set_remove_marked(kl_pair_set* set, const uint64_t* bits, int32_t* counts)
{
	for (int i = 0; i < set->capacity; ++i)
	{
		uint64_t key = set->slots[i].key;
		if (key != KL_PAIR_EMPTY && (marked(bits, key >> 32) || marked(bits, key & 0xffffffffu)) &&
			!kl_pair_set_remove(set, i, counts))
		{
			return false;
		}
	}
	return true;
}

void kl_pair_set_finish(kl_pair_set* set, uint64_t* begin, int* begin_count, uint64_t* end, int* end_count)
{
	int nb = 0;
	for (int i = 0; i < set->added_count; ++i)
	{
		int32_t slot = kl_pair_set_find(set, set->added[i]);
		kl_pair_entry* e = set->slots + slot;
		e->listed &= (uint8_t)~LISTED_ADDED;
		if (e->state == KL_PAIR_ADDED)
		{
			e->state = KL_PAIR_NORMAL;
			begin[nb++] = e->key;
		}
	}
	int ne = 0;
	for (int i = 0; i < set->removed_count; ++i)
	{
		int32_t slot = kl_pair_set_find(set, set->removed[i]);
		kl_pair_entry* e = set->slots + slot;
		e->listed &= (uint8_t)~LISTED_REMOVED;
		if (e->state == KL_PAIR_DEAD_OLD)
		{
			end[ne++] = e->key;
		}
		if (e->state == KL_PAIR_DEAD_OLD || e->state == KL_PAIR_DEAD_NEW)
		{
			table_delete(set, (uint32_t)slot);
		}
	}
	set->added_count = 0;
	set->removed_count = 0;
	*begin_count = nb;
	*end_count = ne;
}
