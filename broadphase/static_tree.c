// Kollide broadphase — the static tree (see static_tree.h).
// SPDX-License-Identifier: MIT
#include "static_tree.h"

#include "core.h"
#include "radix_sort.h"
#include "sap_kernels.h"

#include <math.h>
#include <string.h>

#if defined(KOLLIDE_AVX2) && defined(__x86_64__)
#include <immintrin.h>
#define KL_TREE_AVX2 1
#endif

bool kl_id_list_push(kl_id_list* list, int32_t id)
{
	if (!KL_ARRAY_RESERVE(list->data, list->capacity, list->count + 1))
	{
		return false;
	}
	list->data[list->count++] = id;
	return true;
}

static void level_free(kl_tree_level* level)
{
	// One allocation holds the six arrays.
	kl_free(level->lower[0]);
	memset(level, 0, sizeof(*level));
}

static bool level_alloc(kl_tree_level* level, int count)
{
	int padded = (count + KL_TREE_WIDTH - 1) / KL_TREE_WIDTH * KL_TREE_WIDTH;
	float* block = kl_alloc((size_t)padded * 6, sizeof(float));
	if (block == NULL)
	{
		return false;
	}
	for (int k = 0; k < 3; ++k)
	{
		level->lower[k] = block + (size_t)k * padded;
		level->upper[k] = block + (size_t)(3 + k) * padded;
		// Padding is an empty box: +inf lower, -inf upper never overlaps a finite query.
		for (int i = count; i < padded; ++i)
		{
			level->lower[k][i] = INFINITY;
			level->upper[k][i] = -INFINITY;
		}
	}
	level->count = count;
	return true;
}

void kl_static_tree_destroy(kl_static_tree* tree)
{
	for (int l = 0; l < KL_TREE_MAX_LEVELS; ++l)
	{
		level_free(tree->levels + l);
	}
	kl_free(tree->ids);
	memset(tree, 0, sizeof(*tree));
}

// Spreads the low 21 bits of x to every third bit.
static uint64_t spread3(uint64_t x)
{
	x &= 0x1fffffull;
	x = (x | x << 32) & 0x1f00000000ffffull;
	x = (x | x << 16) & 0x1f0000ff0000ffull;
	x = (x | x << 8) & 0x100f00f00f00f00full;
	x = (x | x << 4) & 0x10c30c30c30c30c3ull;
	x = (x | x << 2) & 0x1249249249249249ull;
	return x;
}

// Morton code of the box centre in float-key space: the top 21 bits of each axis's sortable key.
static uint64_t morton_key(const kl_aabb* b)
{
	uint64_t code = 0;
	for (int k = 0; k < 3; ++k)
	{
		float c = 0.5f * b->lower.raw[k] + 0.5f * b->upper.raw[k];
		code |= spread3(kl_sap_float_key(c) >> 11) << (2 - k);
	}
	return code;
}

static void build_parent(kl_tree_level* parent, const kl_tree_level* child)
{
	for (int j = 0; j < parent->count; ++j)
	{
		int base = j * KL_TREE_WIDTH;
		for (int k = 0; k < 3; ++k)
		{
			float lo = child->lower[k][base];
			float hi = child->upper[k][base];
			for (int c = 1; c < KL_TREE_WIDTH; ++c)
			{
				lo = fminf(lo, child->lower[k][base + c]);
				hi = fmaxf(hi, child->upper[k][base + c]);
			}
			parent->lower[k][j] = lo;
			parent->upper[k][j] = hi;
		}
	}
}

static bool build_levels(kl_static_tree* tree)
{
	int l = 0;
	while (tree->levels[l].count > KL_TREE_WIDTH)
	{
		if (l + 1 >= KL_TREE_MAX_LEVELS)
		{
			kl_fail(KL_ERR_LIMIT, "too many static proxies");
			return false;
		}
		int count = (tree->levels[l].count + KL_TREE_WIDTH - 1) / KL_TREE_WIDTH;
		if (!level_alloc(tree->levels + l + 1, count))
		{
			return false;
		}
		build_parent(tree->levels + l + 1, tree->levels + l);
		l++;
	}
	tree->level_count = l + 1;
	return true;
}

bool kl_static_tree_build(kl_static_tree* tree, const int32_t* ids, int count, const kl_aabb* boxes)
{
	kl_static_tree_destroy(tree);
	if (count == 0)
	{
		return true;
	}
	uint64_t* keys = kl_alloc((size_t)count * 2, sizeof(uint64_t));
	int32_t* order = kl_alloc((size_t)count * 2, sizeof(int32_t));
	tree->ids = kl_alloc((size_t)count, sizeof(int32_t));
	bool ok = keys != NULL && order != NULL && tree->ids != NULL && level_alloc(tree->levels, count);
	if (ok)
	{
		for (int i = 0; i < count; ++i)
		{
			keys[i] = morton_key(boxes + ids[i]);
			order[i] = i;
		}
		ok = kl_radix_sort_u64_values(keys, order, keys + count, order + count, count);
	}
	if (ok)
	{
		kl_tree_level* leaves = tree->levels;
		for (int i = 0; i < count; ++i)
		{
			int32_t id = ids[order[i]];
			const kl_aabb* b = boxes + id;
			tree->ids[i] = id;
			for (int k = 0; k < 3; ++k)
			{
				leaves->lower[k][i] = b->lower.raw[k];
				leaves->upper[k][i] = b->upper.raw[k];
			}
		}
		tree->leaf_count = count;
		tree->live_count = count;
		ok = build_levels(tree);
	}
	kl_free(keys);
	kl_free(order);
	if (!ok)
	{
		kl_static_tree_destroy(tree);
	}
	return ok;
}

void kl_static_tree_kill(kl_static_tree* tree, int leaf)
{
	for (int k = 0; k < 3; ++k)
	{
		tree->levels[0].lower[k][leaf] = INFINITY;
		tree->levels[0].upper[k][leaf] = -INFINITY;
	}
	tree->live_count--;
}

// ---------------------------------------------------------------------------------------------
// Queries: depth-first, eight children per test.

typedef unsigned block_test_fn(const kl_tree_level* level, int base, const float* q);

static unsigned block_test_scalar(const kl_tree_level* level, int base, const float* q)
{
	unsigned mask = 0;
	for (int c = 0; c < KL_TREE_WIDTH; ++c)
	{
		int i = base + c;
		bool hit = level->lower[0][i] <= q[3] && q[0] <= level->upper[0][i] && level->lower[1][i] <= q[4] &&
				   q[1] <= level->upper[1][i] && level->lower[2][i] <= q[5] && q[2] <= level->upper[2][i];
		mask |= (unsigned)hit << c;
	}
	return mask;
}

static inline __attribute__((always_inline)) int traverse(const kl_static_tree* tree, const float* q,
														  kl_id_list* out, block_test_fn* test)
{
	int stack[KL_TREE_WIDTH * KL_TREE_MAX_LEVELS];
	int top = 0;
	int tests = 0;
	// An entry is level * 2^27 + block: blocks of a level are below 2^27 (8^11 / 8 leaves).
	stack[top++] = (tree->level_count - 1) << 27;
	while (top > 0)
	{
		int entry = stack[--top];
		int level = entry >> 27;
		int block = entry & ((1 << 27) - 1);
		unsigned mask = test(tree->levels + level, block * KL_TREE_WIDTH, q);
		tests++;
		// Children are pushed last-first so that they are visited in order.
		while (mask != 0)
		{
			int c = 31 - __builtin_clz(mask);
			mask &= ~(1u << c);
			int item = block * KL_TREE_WIDTH + c;
			if (level == 0)
			{
				if (!kl_id_list_push(out, tree->ids[item]))
				{
					return -1;
				}
			}
			else
			{
				stack[top++] = ((level - 1) << 27) | item;
			}
		}
	}
	return tests;
}

#if defined(KL_TREE_AVX2)
__attribute__((target("avx2,fma"))) static unsigned block_test_avx2(const kl_tree_level* level, int base,
																	  const float* q)
{
	__m256 m = _mm256_cmp_ps(_mm256_loadu_ps(level->lower[0] + base), _mm256_set1_ps(q[3]), _CMP_LE_OQ);
	m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_set1_ps(q[0]), _mm256_loadu_ps(level->upper[0] + base), _CMP_LE_OQ));
	m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_loadu_ps(level->lower[1] + base), _mm256_set1_ps(q[4]), _CMP_LE_OQ));
	m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_set1_ps(q[1]), _mm256_loadu_ps(level->upper[1] + base), _CMP_LE_OQ));
	m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_loadu_ps(level->lower[2] + base), _mm256_set1_ps(q[5]), _CMP_LE_OQ));
	m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_set1_ps(q[2]), _mm256_loadu_ps(level->upper[2] + base), _CMP_LE_OQ));
	return (unsigned)_mm256_movemask_ps(m);
}

__attribute__((target("avx2,fma"))) static int query_avx2(const kl_static_tree* tree, const float* q, kl_id_list* out)
{
	return traverse(tree, q, out, block_test_avx2);
}
#endif

int kl_static_tree_query(const kl_static_tree* tree, kl_aabb box, kl_simd_level simd, kl_id_list* out)
{
	if (tree->live_count == 0)
	{
		return 0;
	}
	float q[6] = {box.lower.x, box.lower.y, box.lower.z, box.upper.x, box.upper.y, box.upper.z};
#if defined(KL_TREE_AVX2)
	if (simd == KL_SIMD_AVX2)
	{
		return query_avx2(tree, q, out);
	}
#else
	(void)simd;
#endif
	return traverse(tree, q, out, block_test_scalar);
}
