// Kollide internal — stable LSD radix sorts on 64-bit keys (broadphase pairs, point-shell
// candidates). The digit width adapts to the bits that matter (up to 12 per pass), and a pass whose
// digit is the same for every key is skipped.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

/// Sorts keys by their bits [low_bit, low_bit + bits), moving values along when not NULL. Stable:
/// keys equal in those bits keep their order. The scratch arrays hold n items. False on OOM (keys
/// unchanged).
bool kl_radix_sort(uint64_t* keys, int32_t* values, uint64_t* key_scratch, int32_t* value_scratch, int n, int low_bit,
				   int bits);

/// The histogram entries kl_radix_sort_into needs for n keys sorted by that many bits.
int kl_radix_sort_histogram_size(int n, int low_bit, int bits);

/// kl_radix_sort with the caller's histogram memory (kl_radix_sort_histogram_size entries), so that
/// it cannot fail: for a sort that must not run out of memory half-way through an update.
void kl_radix_sort_into(uint64_t* keys, int32_t* values, uint64_t* key_scratch, int32_t* value_scratch, int n,
						int low_bit, int bits, uint32_t* histogram);

/// Sorts keys ascending; scratch holds n keys. False on OOM.
static inline bool kl_radix_sort_u64(uint64_t* keys, uint64_t* scratch, int n)
{
	return kl_radix_sort(keys, 0, scratch, 0, n, 0, 64);
}

/// Sorts keys ascending and moves values along (stable); the scratch arrays hold n items.
static inline bool kl_radix_sort_u64_values(uint64_t* keys, int32_t* values, uint64_t* key_scratch,
											int32_t* value_scratch, int n)
{
	return kl_radix_sort(keys, values, key_scratch, value_scratch, n, 0, 64);
}


/// Bits needed for values up to max (at least 1).
static inline int kl_bit_count(uint64_t max)
{
	return max == 0 ? 1 : 64 - __builtin_clzll(max);
}
