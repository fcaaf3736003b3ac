// Kollide internal — slot pool: reuses freed indices (LIFO) so that arrays indexed by slot stay dense.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>

typedef struct kl_id_pool
{
	int* free_slots;
	int free_count;
	int free_capacity;
	int next_slot; ///< slots [0, next_slot) have been handed out at least once
} kl_id_pool;

/// Returns a slot, or -1 on failure. *fresh tells whether the slot was never handed out before
/// (its generation starts at 1) or is reused (its generation bumps).
int kl_id_pool_alloc(kl_id_pool* pool, bool* fresh);
/// Undoes kl_id_pool_alloc when the caller could not complete the creation.
void kl_id_pool_cancel(kl_id_pool* pool, int slot, bool fresh);
bool kl_id_pool_free(kl_id_pool* pool, int slot);
void kl_id_pool_destroy(kl_id_pool* pool);
static inline int kl_id_pool_slot_count(const kl_id_pool* pool)
{
	return pool->next_slot;
}
