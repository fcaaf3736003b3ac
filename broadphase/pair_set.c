// Kollide broadphase — the pair set (see pair_set.h).
// SPDX-License-Identifier: MIT
#include "pair_set.h"

#include "core.h"
#include "sap_kernels.h"

#include <string.h>

enum
{
	LISTED_ADDED = 1,
	LISTED_REMOVED = 2,
};

static bool table_alloc(kl_pair_set* set, int capacity)
{
	uint64_t* keys = kl_alloc((size_t)capacity, sizeof(uint64_t));
	int32_t* slots = kl_alloc((size_t)capacity, sizeof(int32_t));
	if (keys == NULL || slots == NULL)
	{
		kl_free(keys);
		kl_free(slots);
		return false;
	}
	memset(keys, 0xff, (size_t)capacity * sizeof(uint64_t));
	set->keys = keys;
	set->slots = slots;
	set->table_capacity = capacity;
	set->table_count = 0;
	return true;
}

bool kl_pair_set_init(kl_pair_set* set)
{
	memset(set, 0, sizeof(*set));
	set->free_record = -1;
	return table_alloc(set, 64);
}

void kl_pair_set_destroy(kl_pair_set* set)
{
	kl_free(set->records);
	kl_free(set->keys);
	kl_free(set->slots);
	kl_free(set->added);
	kl_free(set->removed);
	memset(set, 0, sizeof(*set));
}

static void table_put(kl_pair_set* set, uint64_t key, int32_t record)
{
	uint32_t mask = (uint32_t)set->table_capacity - 1u;
	uint32_t h = kl_pair_hash(key, set->table_capacity);
	while (set->keys[h] != KL_PAIR_EMPTY)
	{
		h = (h + 1u) & mask;
	}
	set->keys[h] = key;
	set->slots[h] = record;
	set->table_count++;
}

// Keeps the load at most one half.
static bool table_reserve(kl_pair_set* set, int count)
{
	if (2 * (int64_t)count <= set->table_capacity)
	{
		return true;
	}
	int capacity = set->table_capacity;
	while (2 * (int64_t)count > capacity)
	{
		if (capacity > (1 << 29))
		{
			kl_fail(KL_ERR_LIMIT, "too many broadphase pairs");
			return false;
		}
		capacity *= 2;
	}
	uint64_t* old_keys = set->keys;
	int32_t* old_slots = set->slots;
	int old_capacity = set->table_capacity;
	if (!table_alloc(set, capacity))
	{
		set->keys = old_keys;
		set->slots = old_slots;
		return false;
	}
	for (int i = 0; i < old_capacity; ++i)
	{
		if (old_keys[i] != KL_PAIR_EMPTY)
		{
			table_put(set, old_keys[i], old_slots[i]);
		}
	}
	kl_free(old_keys);
	kl_free(old_slots);
	return true;
}

// Backward-shift deletion: later entries of the probe run move up so that no tombstones remain.
static void table_delete(kl_pair_set* set, uint64_t key)
{
	uint32_t mask = (uint32_t)set->table_capacity - 1u;
	uint32_t i = kl_pair_hash(key, set->table_capacity);
	while (set->keys[i] != key)
	{
		i = (i + 1u) & mask;
	}
	uint32_t j = i;
	for (;;)
	{
		j = (j + 1u) & mask;
		uint64_t k = set->keys[j];
		if (k == KL_PAIR_EMPTY)
		{
			break;
		}
		uint32_t home = kl_pair_hash(k, set->table_capacity);
		// The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (!stays)
		{
			set->keys[i] = k;
			set->slots[i] = set->slots[j];
			i = j;
		}
	}
	set->keys[i] = KL_PAIR_EMPTY;
	set->table_count--;
}

static int32_t record_alloc(kl_pair_set* set)
{
	if (set->free_record >= 0)
	{
		int32_t r = set->free_record;
		set->free_record = set->records[r].next[0];
		return r;
	}
	if (!KL_ARRAY_RESERVE(set->records, set->record_capacity, set->record_count + 1))
	{
		return -1;
	}
	return set->record_count++;
}

static void link(kl_pair_set* set, int32_t* heads, int32_t r)
{
	kl_pair_record* rec = set->records + r;
	for (int k = 0; k < 2; ++k)
	{
		int32_t p = rec->proxy[k];
		int32_t h = heads[p];
		rec->prev[k] = -1;
		rec->next[k] = h;
		if (h >= 0)
		{
			kl_pair_record* hr = set->records + h;
			hr->prev[hr->proxy[0] == p ? 0 : 1] = r;
		}
		heads[p] = r;
	}
}

static void unlink(kl_pair_set* set, int32_t* heads, int32_t r)
{
	kl_pair_record* rec = set->records + r;
	for (int k = 0; k < 2; ++k)
	{
		int32_t p = rec->proxy[k];
		int32_t prev = rec->prev[k];
		int32_t next = rec->next[k];
		if (prev >= 0)
		{
			kl_pair_record* pr = set->records + prev;
			pr->next[pr->proxy[0] == p ? 0 : 1] = next;
		}
		else
		{
			heads[p] = next;
		}
		if (next >= 0)
		{
			kl_pair_record* nr = set->records + next;
			nr->prev[nr->proxy[0] == p ? 0 : 1] = prev;
		}
	}
}

static bool list_push(int32_t** list, int* count, int* capacity, int32_t r)
{
	if (!KL_ARRAY_RESERVE(*list, *capacity, *count + 1))
	{
		return false;
	}
	(*list)[(*count)++] = r;
	return true;
}

static bool mark_added(kl_pair_set* set, int32_t r)
{
	kl_pair_record* rec = set->records + r;
	if ((rec->listed & LISTED_ADDED) == 0)
	{
		if (!list_push(&set->added, &set->added_count, &set->added_capacity, r))
		{
			return false;
		}
		rec->listed |= LISTED_ADDED;
	}
	return true;
}

bool kl_pair_set_add(kl_pair_set* set, int32_t* heads, int32_t a, int32_t b, int32_t record, uint32_t stamp)
{
	if (record >= 0)
	{
		kl_pair_record* rec = set->records + record;
		rec->stamp = stamp;
		if (rec->state == KL_PAIR_DEAD_OLD)
		{
			rec->state = KL_PAIR_NORMAL;
			set->live_count++;
		}
		else if (rec->state == KL_PAIR_DEAD_NEW)
		{
			rec->state = KL_PAIR_ADDED;
			set->live_count++;
		}
		return true;
	}
	if (!table_reserve(set, set->table_count + 1))
	{
		return false;
	}
	int32_t r = record_alloc(set);
	if (r < 0)
	{
		return false;
	}
	kl_pair_record* rec = set->records + r;
	rec->proxy[0] = a < b ? a : b;
	rec->proxy[1] = a < b ? b : a;
	rec->stamp = stamp;
	rec->state = KL_PAIR_ADDED;
	rec->listed = 0;
	if (!mark_added(set, r))
	{
		rec->next[0] = set->free_record;
		set->free_record = r;
		rec->state = KL_PAIR_FREE;
		return false;
	}
	link(set, heads, r);
	table_put(set, kl_sap_pair_key(a, b), r);
	set->live_count++;
	return true;
}

bool kl_pair_set_remove(kl_pair_set* set, int32_t record)
{
	kl_pair_record* rec = set->records + record;
	if (!kl_pair_is_live(rec))
	{
		return true;
	}
	if ((rec->listed & LISTED_REMOVED) == 0)
	{
		if (!list_push(&set->removed, &set->removed_count, &set->removed_capacity, record))
		{
			return false;
		}
		rec->listed |= LISTED_REMOVED;
	}
	rec->state = rec->state == KL_PAIR_NORMAL ? KL_PAIR_DEAD_OLD : KL_PAIR_DEAD_NEW;
	set->live_count--;
	return true;
}

bool kl_pair_set_remove_all(kl_pair_set* set, const int32_t* heads, int32_t proxy)
{
	int32_t r = heads[proxy];
	while (r >= 0)
	{
		kl_pair_record* rec = set->records + r;
		int32_t next = rec->next[rec->proxy[0] == proxy ? 0 : 1];
		if (!kl_pair_set_remove(set, r))
		{
			return false;
		}
		r = next;
	}
	return true;
}

static void release(kl_pair_set* set, int32_t* heads, int32_t r)
{
	kl_pair_record* rec = set->records + r;
	unlink(set, heads, r);
	table_delete(set, kl_sap_pair_key(rec->proxy[0], rec->proxy[1]));
	rec->state = KL_PAIR_FREE;
	rec->next[0] = set->free_record;
	set->free_record = r;
}

void kl_pair_set_finish(kl_pair_set* set, int32_t* heads, int32_t* begin, int* begin_count, int32_t* end,
						int* end_count)
{
	int nb = 0;
	for (int i = 0; i < set->added_count; ++i)
	{
		kl_pair_record* rec = set->records + set->added[i];
		rec->listed &= (uint8_t)~LISTED_ADDED;
		if (rec->state == KL_PAIR_ADDED)
		{
			rec->state = KL_PAIR_NORMAL;
			begin[2 * nb] = rec->proxy[0];
			begin[2 * nb + 1] = rec->proxy[1];
			nb++;
		}
	}
	int ne = 0;
	for (int i = 0; i < set->removed_count; ++i)
	{
		int32_t r = set->removed[i];
		kl_pair_record* rec = set->records + r;
		rec->listed &= (uint8_t)~LISTED_REMOVED;
		if (rec->state == KL_PAIR_DEAD_OLD)
		{
			end[2 * ne] = rec->proxy[0];
			end[2 * ne + 1] = rec->proxy[1];
			ne++;
			release(set, heads, r);
		}
		else if (rec->state == KL_PAIR_DEAD_NEW)
		{
			release(set, heads, r);
		}
	}
	set->added_count = 0;
	set->removed_count = 0;
	*begin_count = nb;
	*end_count = ne;
}
