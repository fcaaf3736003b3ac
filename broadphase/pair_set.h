// Kollide broadphase — the set of overlapping proxy pairs. Records live in a pool (stable indices)
// found by a hash table keyed by the proxy pair, and each proxy threads its records into a list,
// so that the pairs of one proxy end without a scan of the whole set.
//
// Changes within an update are kept as record states and turned into events at the end: a pair
// that ends and begins again in the same update (a re-evaluated proxy) produces no event.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef enum kl_pair_state
{
	KL_PAIR_FREE = 0,
	KL_PAIR_NORMAL,	  ///< in the set before this update and still
	KL_PAIR_ADDED,	  ///< began in this update
	KL_PAIR_DEAD_OLD, ///< was in the set, ends in this update
	KL_PAIR_DEAD_NEW, ///< began and ended in this update: no event
} kl_pair_state;

typedef struct kl_pair_record
{
	int32_t proxy[2]; ///< proxy[0] < proxy[1]
	int32_t next[2];  ///< next record in the list of proxy[k]
	int32_t prev[2];
	uint32_t stamp; ///< update in which the batch path saw the pair
	uint8_t state;	///< kl_pair_state
	uint8_t listed; ///< in the added (1) / removed (2) lists of this update
} kl_pair_record;

typedef struct kl_pair_set
{
	kl_pair_record* records;
	int record_count; ///< high-water mark; records below it may be free
	int record_capacity;
	int32_t free_record; ///< free list through next[0]

	// Open addressing with linear probing, backward-shift deletion; empty slots hold KL_PAIR_EMPTY.
	uint64_t* keys;
	int32_t* slots;
	int table_capacity; ///< power of two
	int table_count;

	int32_t* added; ///< records that began in this update (may repeat states: checked at the end)
	int added_count;
	int added_capacity;
	int32_t* removed;
	int removed_count;
	int removed_capacity;

	int live_count; ///< NORMAL and ADDED records
} kl_pair_set;

#define KL_PAIR_EMPTY UINT64_MAX

bool kl_pair_set_init(kl_pair_set* set);
void kl_pair_set_destroy(kl_pair_set* set);

static inline uint32_t kl_pair_hash(uint64_t key, int capacity)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (uint32_t)(capacity - 1);
}

/// The record of a pair key, or -1.
static inline int32_t kl_pair_set_find(const kl_pair_set* set, uint64_t key)
{
	uint32_t mask = (uint32_t)set->table_capacity - 1u;
	uint32_t h = kl_pair_hash(key, set->table_capacity);
	for (;;)
	{
		uint64_t k = set->keys[h];
		if (k == key)
		{
			return set->slots[h];
		}
		if (k == KL_PAIR_EMPTY)
		{
			return -1;
		}
		h = (h + 1u) & mask;
	}
}

static inline bool kl_pair_is_live(const kl_pair_record* r)
{
	return r->state == KL_PAIR_NORMAL || r->state == KL_PAIR_ADDED;
}

/// Makes the pair (a, b) part of the set: revives a record found dead in this update or inserts a
/// new one. record is kl_pair_set_find's answer. heads: per proxy, its first record. The record is
/// stamped (a pair that begins in an update counts as seen by it). False on OOM.
bool kl_pair_set_add(kl_pair_set* set, int32_t* heads, int32_t a, int32_t b, int32_t record, uint32_t stamp);

/// Ends a live pair (it stays in the table, dead, until kl_pair_set_finish).
bool kl_pair_set_remove(kl_pair_set* set, int32_t record);

/// Ends every live pair of a proxy. False on OOM.
bool kl_pair_set_remove_all(kl_pair_set* set, const int32_t* heads, int32_t proxy);

/// The events of the update as proxy pairs (each pair once), then drops the dead records. begin and
/// end need room for added_count and removed_count pairs (2 ints each).
void kl_pair_set_finish(kl_pair_set* set, int32_t* heads, int32_t* begin, int* begin_count, int32_t* end,
						int* end_count);
