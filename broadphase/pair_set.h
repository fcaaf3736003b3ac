// Kollide broadphase — the set of overlapping proxy pairs: an open-addressing hash table keyed by
// the proxy pair, each entry holding the pair's state, so that a lookup and its update touch one
// cache line. Changes within an update are kept as entry states and turned into events at the
// end: a pair that ends and begins again in the same update (a re-evaluated proxy) makes no event.
//
// Ending all pairs of some proxies is one pass over the table (proxies keep a pair count, so that
// proxies without pairs cost nothing): cheaper overall than keeping per-proxy lists up to date at
// every begin and end, which costs cache misses on the hot path of every update.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef enum kl_pair_state
{
	KL_PAIR_NORMAL = 0, ///< in the set before this update and still
	KL_PAIR_ADDED,		///< began in this update
	KL_PAIR_DEAD_OLD,	///< was in the set, ends in this update
	KL_PAIR_DEAD_NEW,	///< began and ended in this update: no event
} kl_pair_state;

typedef struct kl_pair_entry
{
	uint64_t key;	///< kl_sap_pair_key of the two proxies; KL_PAIR_EMPTY when the slot is free
	uint32_t stamp; ///< update that last saw the pair (begun, or found by the batch sweep)
	uint8_t state;	///< kl_pair_state
	uint8_t listed; ///< in the added (1) / removed (2) list of this update
	uint16_t pad;
} kl_pair_entry;

#define KL_PAIR_EMPTY UINT64_MAX

typedef struct kl_pair_set
{
	kl_pair_entry* slots; ///< linear probing, backward-shift deletion (no tombstones)
	int capacity;		  ///< power of two
	int count;			  ///< entries, dead ones included
	int live_count;		  ///< NORMAL and ADDED entries
	uint64_t* added;	  ///< keys that began in this update (checked again at the end)
	int added_count;
	int added_capacity;
	uint64_t* removed;
	int removed_count;
	int removed_capacity;
} kl_pair_set;

bool kl_pair_set_init(kl_pair_set* set);
void kl_pair_set_destroy(kl_pair_set* set);

static inline uint32_t kl_pair_hash(uint64_t key, int capacity)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (uint32_t)(capacity - 1);
}

/// The slot of a pair key, or -1. Slots stay valid until the next add.
static inline int32_t kl_pair_set_find(const kl_pair_set* set, uint64_t key)
{
	uint32_t mask = (uint32_t)set->capacity - 1u;
	uint32_t h = kl_pair_hash(key, set->capacity);
	for (;;)
	{
		uint64_t k = set->slots[h].key;
		if (k == key)
		{
			return (int32_t)h;
		}
		if (k == KL_PAIR_EMPTY)
		{
			return -1;
		}
		h = (h + 1u) & mask;
	}
}

static inline bool kl_pair_is_live(const kl_pair_entry* e)
{
	return e->state == KL_PAIR_NORMAL || e->state == KL_PAIR_ADDED;
}

/// Makes the pair part of the set: revives the entry found dead in this update (slot, from
/// kl_pair_set_find) or inserts a new one (slot -1). counts: live pairs per proxy. False on OOM.
bool kl_pair_set_add(kl_pair_set* set, uint64_t key, int32_t slot, uint32_t stamp, int32_t* counts);

/// Ends a live pair (its entry stays, dead, until kl_pair_set_finish). False on OOM.
bool kl_pair_set_remove(kl_pair_set* set, int32_t slot, int32_t* counts);

/// Ends every live pair with a proxy whose bit is set in marked. False on OOM.
bool kl_pair_set_remove_marked(kl_pair_set* set, const uint64_t* marked, int32_t* counts);

/// The events of the update as pair keys (each pair once), then drops the dead entries. begin and
/// end need room for added_count and removed_count keys.
void kl_pair_set_finish(kl_pair_set* set, uint64_t* begin, int* begin_count, uint64_t* end, int* end_count);
