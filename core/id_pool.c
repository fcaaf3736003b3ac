// Kollide internal — slot pool.
// SPDX-License-Identifier: MIT
#include "id_pool.h"

#include "core.h"

int kl_id_pool_alloc(kl_id_pool* pool, bool* fresh)
{
	*fresh = pool->free_count == 0;
	if (pool->free_count > 0)
	{
		return pool->free_slots[--pool->free_count];
	}
	if (pool->next_slot == INT32_MAX)
	{
		kl_fail(KL_ERR_LIMIT, "too many objects");
		return -1;
	}
	return pool->next_slot++;
}

bool kl_id_pool_free(kl_id_pool* pool, int slot)
{
	if (!KL_ARRAY_RESERVE(pool->free_slots, pool->free_capacity, pool->free_count + 1))
	{
		return false;
	}
	pool->free_slots[pool->free_count++] = slot;
	return true;
}

void kl_id_pool_destroy(kl_id_pool* pool)
{
	kl_free(pool->free_slots);
	*pool = (kl_id_pool){0};
}

void kl_id_pool_cancel(kl_id_pool* pool, int slot, bool fresh)
{
	if (fresh)
	{
		pool->next_slot -= 1;
	}
	else
	{
		// The slot came off the free list, so there is room to push it back.
		pool->free_slots[pool->free_count++] = slot;
	}
}
