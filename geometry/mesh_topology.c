// Kollide — mesh topology: every directed edge as a key (low vertex, high vertex, direction),
// sorted so that the uses of an edge lie together, then counted as open, non-manifold or
// inconsistently oriented.
// SPDX-License-Identifier: MIT
#include "mesh.h"

// LSD radix sort, 11 bits a pass; returns whichever buffer ends up sorted.
static uint64_t* sort_keys(uint64_t* keys, uint64_t* scratch, int count, int bits)
{
	enum
	{
		digit_bits = 11,
		digits = 1 << digit_bits
	};
	for (int shift = 0; shift < bits; shift += digit_bits)
	{
		int offsets[digits] = {0};
		for (int i = 0; i < count; ++i)
		{
			offsets[(keys[i] >> shift) & (digits - 1)] += 1;
		}
		int sum = 0;
		for (int d = 0; d < digits; ++d)
		{
			int n = offsets[d];
			offsets[d] = sum;
			sum += n;
		}
		for (int i = 0; i < count; ++i)
		{
			scratch[offsets[(keys[i] >> shift) & (digits - 1)]++] = keys[i];
		}
		uint64_t* t = keys;
		keys = scratch;
		scratch = t;
	}
	return keys;
}

static void count_edges(kl_mesh_info* info, const uint64_t* keys, int count)
{
	for (int i = 0; i < count;)
	{
		int j = i, forward = 0;
		while (j < count && keys[j] >> 1 == keys[i] >> 1)
		{
			forward += (int)(keys[j] & 1);
			j += 1;
		}
		int uses = j - i;
		if (uses == 1)
		{
			info->open_edge_count += 1;
		}
		else if (uses > 2)
		{
			info->non_manifold_edge_count += 1;
		}
		else if (forward != 1)
		{
			// Two neighbours that agree on orientation traverse their edge in opposite directions.
			info->inconsistent_edge_count += 1;
		}
		i = j;
	}
}

kl_result kl_mesh_topology(kl_mesh* mesh)
{
	int count = 3 * mesh->info.triangle_count;
	uint64_t* keys = kl_alloc((size_t)count, sizeof(uint64_t));
	uint64_t* scratch = kl_alloc((size_t)count, sizeof(uint64_t));
	if (keys == NULL || scratch == NULL)
	{
		kl_free(keys);
		kl_free(scratch);
		return KL_ERR_OUT_OF_MEMORY;
	}
	int vertex_bits = 1;
	while ((1 << vertex_bits) < mesh->info.vertex_count)
	{
		vertex_bits += 1;
	}
	for (int i = 0; i < count; ++i)
	{
		uint64_t a = (uint64_t)mesh->indices[i];
		uint64_t b = (uint64_t)mesh->indices[i % 3 == 2 ? i - 2 : i + 1];
		uint64_t low = a < b ? a : b, high = a < b ? b : a;
		keys[i] = ((low << vertex_bits | high) << 1) | (a < b ? 1u : 0u);
	}
	const uint64_t* sorted = sort_keys(keys, scratch, count, 2 * vertex_bits + 1);
	count_edges(&mesh->info, sorted, count);
	kl_free(keys);
	kl_free(scratch);
	return KL_OK;
}
