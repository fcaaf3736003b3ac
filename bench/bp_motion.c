// kollide-bench — synthetic proxy motion for the broadphase scenes (see bp_motion.h). The same
// seed, the same LCG and single-threaded float code give both benchmark programs the same boxes.
// SPDX-License-Identifier: MIT
#include "bp_motion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Walk and gas fill a cube of side cbrt(KL_BP_VOLUME_PER_BOX * n): with ~1.2 m fat boxes a box
// overlaps about three others, so there are about 1.5 n pairs whatever n is.
#define KL_BP_VOLUME_PER_BOX 5.0f
#define KL_BP_WALK_STEP 0.025f	   // per axis per update: up to 1.5 m/s, a few hundredths of the margin
// Gas: per-axis speeds up to 16 m/s (8 box sizes per second on average) and a new random velocity
// at half of the updates (collisions), so that the one-step prediction misses and most proxies
// (about 60 %) move at every update; with straight flight at most half of them would.
#define KL_BP_GAS_SPEED 16.0f
#define KL_BP_GAS_COLLISION 0.5f
// large_world: boxes of half-extent 0.5 centred at z = 0 on a 10 m grid, x and y = (k - 500) * 10.
#define KL_BP_GRID 1000
#define KL_BP_GRID_SPACING 10.0f
#define KL_BP_SPHERES 100
#define KL_BP_SPHERE_RADIUS 0.5f
#define KL_BP_DROP_EVERY 5
#define KL_BP_DROP_HEIGHT 10.0f
#define KL_BP_GRAVITY 10.0f
#define KL_BP_RESTITUTION 0.5f
#define KL_BP_REST_SPEED 1.0f // a bounce slower than this ends in rest
// Walk and gas run this many updates before the benchmark sees them, so that the fat boxes have
// reached their steady state (at first every walking box has a fresh fat box and none moves).
#define KL_BP_SETTLE_STEPS 60

const kl_bp_scene_info kl_bp_scene_infos[] = {
	{"bp_walk_10k", KL_BP_WALK, 10000, 200, "broadphase only: 10,000 ~1 m boxes, small random steps"},
	{"bp_walk_100k", KL_BP_WALK, 100000, 50, "broadphase only: 100,000 ~1 m boxes, small random steps"},
	{"bp_walk_1m", KL_BP_WALK, 1000000, 20, "broadphase only: 1,000,000 ~1 m boxes, small random steps"},
	{"bp_gas_10k", KL_BP_GAS, 10000, 200, "broadphase only: 10,000 ~1 m boxes flying at up to 16 m/s per axis"},
	{"bp_gas_100k", KL_BP_GAS, 100000, 50, "broadphase only: 100,000 ~1 m boxes flying at up to 16 m/s per axis"},
	{"bp_gas_1m", KL_BP_GAS, 1000000, 20, "broadphase only: 1,000,000 ~1 m boxes flying at up to 16 m/s per axis"},
	{"large_world", KL_BP_LARGE_WORLD, 0, 500,
	 "broadphase only: 1000x1000 static boxes on a 10 m grid, 100 spheres dropped every 5 updates"},
};

const int kl_bp_scene_info_count = (int)(sizeof(kl_bp_scene_infos) / sizeof(kl_bp_scene_infos[0]));

const kl_bp_scene_info* kl_bp_find_scene(const char* name)
{
	for (int i = 0; i < kl_bp_scene_info_count; ++i)
	{
		if (strcmp(kl_bp_scene_infos[i].name, name) == 0)
		{
			return &kl_bp_scene_infos[i];
		}
	}
	return NULL;
}

int kl_bp_scene_proxies(const kl_bp_scene_info* scene)
{
	return scene->kind == KL_BP_LARGE_WORLD ? KL_BP_GRID * KL_BP_GRID + KL_BP_SPHERES : scene->count;
}

static float next_unit(uint32_t* seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (float)(*seed >> 8) / 16777216.0f;
}

static float next_symmetric(uint32_t* seed)
{
	return 2.0f * next_unit(seed) - 1.0f;
}

static int next_index(uint32_t* seed, int n)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (int)((*seed >> 8) % (uint32_t)n);
}

// The engine's rule: refresh the fat box only when the tight box has left it; the new one is the
// tight box plus the margin, stretched one step along the current velocity.
static bool refresh_fat_box(kl_bp_motion* m, int i, float margin)
{
	const float* c = m->center + 3 * i;
	const float* h = m->half + 3 * i;
	kl_bp_box* fat = m->fat + i;
	bool inside = true;
	for (int k = 0; k < 3; ++k)
	{
		inside = inside && fat->lower[k] <= c[k] - h[k] && c[k] + h[k] <= fat->upper[k];
	}
	if (inside)
	{
		return false;
	}
	for (int k = 0; k < 3; ++k)
	{
		float d = m->velocity[3 * i + k] * KL_BP_DT;
		fat->lower[k] = c[k] - h[k] - margin + (d < 0.0f ? d : 0.0f);
		fat->upper[k] = c[k] + h[k] + margin + (d > 0.0f ? d : 0.0f);
	}
	return true;
}

static void step_boxes(kl_bp_motion* m);

static bool allocate(kl_bp_motion* m, int capacity)
{
	m->capacity = capacity;
	m->fat = malloc((size_t)capacity * sizeof(kl_bp_box));
	m->center = malloc((size_t)capacity * 3 * sizeof(float));
	m->half = malloc((size_t)capacity * 3 * sizeof(float));
	m->velocity = calloc((size_t)capacity * 3, sizeof(float));
	m->moved = malloc((size_t)capacity * sizeof(int32_t));
	if (m->fat == NULL || m->center == NULL || m->half == NULL || m->velocity == NULL || m->moved == NULL)
	{
		kl_bp_motion_free(m);
		return false;
	}
	return true;
}

static void init_boxes(kl_bp_motion* m, int n)
{
	float side = cbrtf(KL_BP_VOLUME_PER_BOX * (float)n);
	m->side = side;
	for (int k = 0; k < 3; ++k)
	{
		m->world_lower[k] = -1.0f;
		m->world_upper[k] = side + 1.0f;
	}
	for (int i = 0; i < n; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			float h = 0.4f + 0.2f * next_unit(&m->seed);
			m->half[3 * i + k] = h;
			m->center[3 * i + k] = h + (side - 2.0f * h) * next_unit(&m->seed);
			m->velocity[3 * i + k] = m->kind == KL_BP_GAS ? KL_BP_GAS_SPEED * next_symmetric(&m->seed) : 0.0f;
		}
		// An empty fat box forces the first refresh.
		m->fat[i] = (kl_bp_box){{1.0f, 1.0f, 1.0f}, {0.0f, 0.0f, 0.0f}};
		refresh_fat_box(m, i, KL_BP_MARGIN);
	}
	m->static_count = 0;
	m->active_count = n;
}

static void init_large_world(kl_bp_motion* m)
{
	float extent = 0.5f * KL_BP_GRID * KL_BP_GRID_SPACING;
	m->world_lower[0] = m->world_lower[1] = -extent - 2.0f;
	m->world_upper[0] = m->world_upper[1] = extent + 2.0f;
	m->world_lower[2] = -2.0f;
	m->world_upper[2] = KL_BP_DROP_HEIGHT + 2.0f;
	for (int j = 0; j < KL_BP_GRID; ++j)
	{
		for (int i = 0; i < KL_BP_GRID; ++i)
		{
			int s = j * KL_BP_GRID + i;
			float c[3] = {(float)(i - KL_BP_GRID / 2) * KL_BP_GRID_SPACING,
						  (float)(j - KL_BP_GRID / 2) * KL_BP_GRID_SPACING, 0.0f};
			for (int k = 0; k < 3; ++k)
			{
				m->center[3 * s + k] = c[k];
				m->half[3 * s + k] = 0.5f;
				m->fat[s].lower[k] = c[k] - 0.5f; // static: no margin, as in the engine
				m->fat[s].upper[k] = c[k] + 0.5f;
			}
		}
	}
	m->static_count = KL_BP_GRID * KL_BP_GRID;
	m->active_count = m->static_count;
}

bool kl_bp_motion_init(kl_bp_motion* m, const kl_bp_scene_info* scene)
{
	memset(m, 0, sizeof(*m));
	m->kind = scene->kind;
	m->seed = 42u;
	int capacity = kl_bp_scene_proxies(scene);
	if (capacity <= 0 || !allocate(m, capacity))
	{
		return false;
	}
	if (scene->kind == KL_BP_LARGE_WORLD)
	{
		init_large_world(m);
	}
	else
	{
		init_boxes(m, scene->count);
		for (int s = 0; s < KL_BP_SETTLE_STEPS; ++s)
		{
			m->moved_count = 0;
			step_boxes(m);
		}
	}
	m->moved_count = 0;
	m->new_begin = 0; // every proxy is new
	return true;
}

void kl_bp_motion_free(kl_bp_motion* m)
{
	free(m->fat);
	free(m->center);
	free(m->half);
	free(m->velocity);
	free(m->moved);
	memset(m, 0, sizeof(*m));
}

// Keeps the box inside [h, side - h] on each axis by turning the step around at a wall.
static void step_box(kl_bp_motion* m, int i, const float* d)
{
	float side = m->side;
	for (int k = 0; k < 3; ++k)
	{
		float* c = m->center + 3 * i + k;
		float h = m->half[3 * i + k];
		float dk = d[k];
		if (*c + dk < h || *c + dk > side - h)
		{
			dk = -dk;
			if (m->kind == KL_BP_GAS)
			{
				m->velocity[3 * i + k] = -m->velocity[3 * i + k];
			}
		}
		*c += dk;
		if (m->kind == KL_BP_WALK)
		{
			m->velocity[3 * i + k] = dk / KL_BP_DT; // the prediction follows the last step
		}
	}
}

static void step_boxes(kl_bp_motion* m)
{
	for (int i = 0; i < m->active_count; ++i)
	{
		float d[3];
		if (m->kind == KL_BP_WALK)
		{
			for (int k = 0; k < 3; ++k)
			{
				d[k] = KL_BP_WALK_STEP * next_symmetric(&m->seed);
			}
		}
		else
		{
			if (next_unit(&m->seed) < KL_BP_GAS_COLLISION)
			{
				for (int k = 0; k < 3; ++k)
				{
					m->velocity[3 * i + k] = KL_BP_GAS_SPEED * next_symmetric(&m->seed);
				}
			}
			for (int k = 0; k < 3; ++k)
			{
				d[k] = m->velocity[3 * i + k] * KL_BP_DT;
			}
		}
		step_box(m, i, d);
		if (refresh_fat_box(m, i, KL_BP_MARGIN))
		{
			m->moved[m->moved_count++] = i;
		}
	}
}

// Falling spheres: semi-implicit Euler under gravity, a bounce on the box top below (the drop
// point is within 0.4 m of a box centre, so the sphere always lands on a top), rest when slow.
static void step_spheres(kl_bp_motion* m)
{
	float rest_z = 0.5f + KL_BP_SPHERE_RADIUS;
	for (int i = m->static_count; i < m->active_count; ++i)
	{
		float* c = m->center + 3 * i;
		float* v = m->velocity + 3 * i;
		if (c[2] == rest_z && v[2] == 0.0f)
		{
			continue;
		}
		v[2] -= KL_BP_GRAVITY * KL_BP_DT;
		c[2] += v[2] * KL_BP_DT;
		if (c[2] < rest_z)
		{
			c[2] = rest_z;
			v[2] = -KL_BP_RESTITUTION * v[2];
			if (v[2] < KL_BP_REST_SPEED)
			{
				v[2] = 0.0f;
			}
		}
		if (refresh_fat_box(m, i, KL_BP_MARGIN))
		{
			m->moved[m->moved_count++] = i;
		}
	}
	if (m->step % KL_BP_DROP_EVERY == 0 && m->active_count < m->capacity)
	{
		int s = m->active_count++;
		int gi = next_index(&m->seed, KL_BP_GRID);
		int gj = next_index(&m->seed, KL_BP_GRID);
		float* c = m->center + 3 * s;
		c[0] = (float)(gi - KL_BP_GRID / 2) * KL_BP_GRID_SPACING + 0.4f * next_symmetric(&m->seed);
		c[1] = (float)(gj - KL_BP_GRID / 2) * KL_BP_GRID_SPACING + 0.4f * next_symmetric(&m->seed);
		c[2] = KL_BP_DROP_HEIGHT;
		for (int k = 0; k < 3; ++k)
		{
			m->half[3 * s + k] = KL_BP_SPHERE_RADIUS;
			m->velocity[3 * s + k] = 0.0f;
		}
		m->fat[s] = (kl_bp_box){{1.0f, 1.0f, 1.0f}, {0.0f, 0.0f, 0.0f}};
		refresh_fat_box(m, s, KL_BP_MARGIN);
	}
}

void kl_bp_motion_step(kl_bp_motion* m)
{
	m->moved_count = 0;
	m->new_begin = m->active_count;
	if (m->kind == KL_BP_LARGE_WORLD)
	{
		step_spheres(m);
	}
	else
	{
		step_boxes(m);
	}
	m->step++;
}

uint32_t kl_bp_hash_pairs(const int32_t* pairs, int count)
{
	uint32_t hash = 2166136261u;
	const unsigned char* bytes = (const unsigned char*)pairs;
	size_t size = (size_t)count * 2 * sizeof(int32_t);
	for (size_t i = 0; i < size; ++i)
	{
		hash ^= bytes[i];
		hash *= 16777619u;
	}
	return hash;
}

static int compare_pairs(const void* a, const void* b)
{
	const int32_t* x = a;
	const int32_t* y = b;
	if (x[0] != y[0])
	{
		return (x[0] > y[0]) - (x[0] < y[0]);
	}
	return (x[1] > y[1]) - (x[1] < y[1]);
}

void kl_bp_sort_pairs(int32_t* pairs, int count)
{
	qsort(pairs, (size_t)count, 2 * sizeof(int32_t), compare_pairs);
}

// ---------------------------------------------------------------------------------------------
// Reference pairs: boxes binned by the cell of their lower corner, cells at least as large as any
// box, so a box's partners lie in the 27 cells around its own.

typedef struct ref_item
{
	uint64_t key;
	int32_t index;
} ref_item;

static int compare_items(const void* a, const void* b)
{
	const ref_item* x = a;
	const ref_item* y = b;
	if (x->key != y->key)
	{
		return (x->key > y->key) - (x->key < y->key);
	}
	return (x->index > y->index) - (x->index < y->index);
}

static uint64_t cell_key(const int64_t* c)
{
	return ((uint64_t)c[2] << 42) | ((uint64_t)c[1] << 21) | (uint64_t)c[0];
}

static int first_with_key(const ref_item* items, int n, uint64_t key)
{
	int lo = 0, hi = n;
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (items[mid].key < key)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	return lo;
}

int kl_bp_reference_pairs(const kl_bp_motion* m, uint32_t* hash)
{
	int n = m->active_count;
	float cell = 0.0f;
	for (int i = 0; i < n; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			cell = fmaxf(cell, m->fat[i].upper[k] - m->fat[i].lower[k]);
		}
	}
	cell = cell * 1.001f + 1.0e-4f;
	ref_item* items = malloc((size_t)n * sizeof(ref_item));
	int capacity = 1024, count = 0;
	int32_t* pairs = malloc((size_t)capacity * 2 * sizeof(int32_t));
	if (items == NULL || pairs == NULL)
	{
		free(items);
		free(pairs);
		return -1;
	}
	for (int i = 0; i < n; ++i)
	{
		int64_t c[3];
		for (int k = 0; k < 3; ++k)
		{
			// One empty cell of border keeps every neighbour coordinate non-negative.
			c[k] = 1 + (int64_t)floorf((m->fat[i].lower[k] - m->world_lower[k]) / cell);
		}
		items[i] = (ref_item){cell_key(c), i};
	}
	qsort(items, (size_t)n, sizeof(ref_item), compare_items);
	for (int i = 0; i < n; ++i)
	{
		int a = items[i].index;
		int64_t base[3] = {(int64_t)(items[i].key & 0x1fffff), (int64_t)((items[i].key >> 21) & 0x1fffff),
						   (int64_t)(items[i].key >> 42)};
		for (int nb = 0; nb < 27; ++nb)
		{
			int64_t c[3] = {base[0] + nb % 3 - 1, base[1] + (nb / 3) % 3 - 1, base[2] + nb / 9 - 1};
			uint64_t key = cell_key(c);
			for (int j = first_with_key(items, n, key); j < n && items[j].key == key; ++j)
			{
				int b = items[j].index;
				if (b <= a || (a < m->static_count && b < m->static_count) || !kl_bp_overlap(&m->fat[a], &m->fat[b]))
				{
					continue;
				}
				if (count == capacity)
				{
					capacity *= 2;
					int32_t* grown = realloc(pairs, (size_t)capacity * 2 * sizeof(int32_t));
					if (grown == NULL)
					{
						free(items);
						free(pairs);
						return -1;
					}
					pairs = grown;
				}
				pairs[2 * count] = a;
				pairs[2 * count + 1] = b;
				count++;
			}
		}
	}
	kl_bp_sort_pairs(pairs, count);
	*hash = kl_bp_hash_pairs(pairs, count);
	free(items);
	free(pairs);
	return count;
}
