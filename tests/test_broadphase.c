// Broadphase against brute force: randomized worlds of static and moving proxies (random walks,
// teleports, creation and destruction, sleeping and waking, waves of hundreds of kind changes and
// filter changes with touch, moving statics, identical coordinates, zero-size boxes, touching
// faces, ±1e17 coordinates, rejected NaN/Inf/inverted bounds), checked at every update: the pair
// set must equal the O(n²) set (with the same filter) and the events its difference with the
// previous update's set. Every combination of mode (auto, incremental, batch), kernels (scalar,
// AVX2) and workers (1, a fake pool that runs partitions backwards in uneven ranges, a real pool)
// runs the same world, and all must produce the same events. Then invalid calls, a static grid
// with falling spheres (the large_world benchmark, scaled down) and the sortable float keys.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "bp_internal.h"
#include "core.h"
#include "simd.h"
#include "thread_pool.h"

#include <kollide/kollide.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// A randomized world

typedef enum box_style
{
	STYLE_LATTICE = 1, ///< coordinates and sizes on a 0.5 lattice: touching faces, identical boxes
	STYLE_HUGE = 2,	   ///< some boxes at ±1e17 and a few spanning everything
	STYLE_FLOAT = 4,   ///< arbitrary floats
} box_style;

typedef struct scenario
{
	int slots;
	int steps;
	int styles;
	float side;		   ///< the lattice cube
	float moving_odds; ///< chance that a new proxy is moving
	float move_odds;   ///< per update and moving proxy
	float churn;	   ///< scales creation, destruction, kind changes, touches, teleports
	float static_move_odds; ///< per update and static proxy (re-inserted in the static trees)
	float wave_odds;		///< per update: a wave of kind changes and touches over half the proxies
	kl_broadphase_mode mode;
	kl_simd_level simd;
	int workers; ///< 1: serial; 3: fake pool; -2: real thread pool of 2
	uint32_t seed;
	float oom_odds; ///< per update: one of its first 4 or 64 allocations fails (core.c's injection)
	bool sweep;			   ///< allocation sweep_allocation of update sweep_step fails
	int sweep_step;
	long sweep_allocation;
} scenario;

typedef struct slot
{
	bool alive;
	int32_t proxy;
	int32_t user;
	kl_proxy_kind kind;
	kl_aabb box;
} slot;

#define MAX_USERS 200000

typedef struct world
{
	scenario sc;
	kl_broadphase* bp;
	kl_thread_pool* pool;
	slot* slots;
	uint32_t rng;
	int next_user;
	uint32_t* mask; ///< per user: filter data; changing it requires a touch
	uint64_t* expected;
	int expected_count;
	uint64_t* previous;
	int previous_count;
	uint64_t* scratch;
	uint32_t event_hash; ///< over every event of the run: equal across worker counts
	int modes_used;		 ///< bit per kl_broadphase_mode that an update used
	int64_t filter_calls;
	int failed_updates; ///< updates that ran out of memory (oom_odds)
} world;

static uint32_t next_u32(world* w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 17;
	w->rng ^= w->rng << 5;
	return w->rng;
}

static float unit(world* w)
{
	return (float)(next_u32(w) >> 8) / 16777216.0f;
}

static bool chance(world* w, float p)
{
	return unit(w) < p;
}

static int below(world* w, int n)
{
	return (int)(next_u32(w) % (uint32_t)n);
}

static bool filter(int32_t a, int32_t b, void* context)
{
	world* w = context;
	assert_true(a < b);
	w->filter_calls++;
	uint32_t h = (uint32_t)a * 2654435761u ^ (uint32_t)b * 40503u ^ w->mask[a] * 7919u ^ w->mask[b];
	return h % 5u != 0u;
}

static void fake_parallel(kl_task_fn* task, int count, void* task_context, void* context)
{
	(void)context;
	// The world's pool runs worker_count partitions whatever it is asked: the broadphase must ask
	// for exactly that many.
	assert_int_equal(count, 3);
	// Backwards, in ranges of one or two partitions, with varying worker ids.
	for (int p = count; p > 0;)
	{
		int start = p >= 2 && (p & 1) ? p - 2 : p - 1;
		task(start, p, p % 3, task_context);
		p = start;
	}
}

static void pool_parallel(kl_task_fn* task, int count, void* task_context, void* context)
{
	kl_thread_pool_run(context, task, count, task_context);
}

static kl_aabb make_box(float x0, float y0, float z0, float x1, float y1, float z1)
{
	return (kl_aabb){{{x0, y0, z0}}, {{x1, y1, z1}}};
}

static float lattice(world* w, float side)
{
	return 0.5f * (float)below(w, (int)(2.0f * side) + 1);
}

static kl_aabb random_box(world* w)
{
	int styles = w->sc.styles;
	float side = w->sc.side;
	if ((styles & STYLE_HUGE) && chance(w, 0.08f))
	{
		if (chance(w, 0.15f))
		{
			return make_box(-1.0e17f, -1.0e17f, -1.0e17f, 1.0e17f, 1.0e17f, 1.0e17f);
		}
		float c[3], h[3];
		for (int k = 0; k < 3; ++k)
		{
			c[k] = 1.0e16f * (float)(below(w, 21) - 10);
			h[k] = 1.0e16f * (float)below(w, 3);
		}
		return make_box(c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]);
	}
	float lo[3], hi[3];
	bool on_lattice = (styles & STYLE_LATTICE) && (!(styles & STYLE_FLOAT) || chance(w, 0.5f));
	for (int k = 0; k < 3; ++k)
	{
		if (on_lattice)
		{
			lo[k] = lattice(w, side);
			hi[k] = lo[k] + 0.5f * (float)below(w, 4); // zero size included
		}
		else
		{
			lo[k] = side * unit(w);
			hi[k] = lo[k] + 1.5f * unit(w);
		}
	}
	return make_box(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
}

// A small step for most, a teleport for some; huge boxes stay huge.
static kl_aabb moved_box(world* w, kl_aabb b)
{
	if (chance(w, 0.03f * w->sc.churn) || fabsf(b.lower.x) > 1.0e6f || fabsf(b.upper.x) > 1.0e6f)
	{
		return random_box(w);
	}
	float step = (w->sc.styles & STYLE_LATTICE) ? 0.5f : 0.3f * unit(w);
	for (int k = 0; k < 3; ++k)
	{
		float d = step * (float)(below(w, 3) - 1);
		b.lower.raw[k] += d;
		b.upper.raw[k] += d;
	}
	if (chance(w, 0.1f))
	{
		b.upper.x = b.lower.x + 0.5f * (float)below(w, 4);
	}
	return b;
}

static void create_slot(world* w, slot* s)
{
	s->kind = chance(w, w->sc.moving_odds) ? KL_PROXY_MOVING : KL_PROXY_STATIC;
	s->box = random_box(w);
	s->user = w->next_user++;
	assert_true(s->user < MAX_USERS);
	w->mask[s->user] = next_u32(w);
	s->proxy = kl_broadphase_create_proxy(w->bp, s->box, s->kind, s->user);
	assert_true(s->proxy >= 0);
	s->alive = true;
}

// Invalid bounds are rejected and change nothing.
static void try_bad_move(world* w, slot* s)
{
	kl_aabb bad = s->box;
	float poison[3] = {NAN, INFINITY, -INFINITY};
	int axis = below(w, 3); // drawn first: the two sides of = have no order of evaluation in C
	bad.lower.raw[axis] = poison[below(w, 3)];
	if (chance(w, 0.3f))
	{
		bad = s->box;
		bad.lower.y = bad.upper.y + 1.0f + 0.5f * fabsf(bad.upper.y); // inverted
	}
	assert_int_equal(kl_broadphase_move_proxy(w->bp, s->proxy, bad), KL_ERR_INVALID_ARGUMENT);
	kl_aabb now = kl_broadphase_get_aabb(w->bp, s->proxy);
	assert_memory_equal(&now, &s->box, sizeof(kl_aabb));
}

// Many proxies re-evaluated in one update: an island falls asleep or wakes, filter data changes.
static void wave(world* w)
{
	int kind = below(w, 3);
	for (int i = 0; i < w->sc.slots; ++i)
	{
		slot* s = w->slots + i;
		if (!s->alive)
		{
			continue;
		}
		bool moving = s->kind == KL_PROXY_MOVING;
		if ((kind == 0 && moving && chance(w, 0.5f)) || (kind == 1 && !moving && chance(w, 0.5f)))
		{
			s->kind = moving ? KL_PROXY_STATIC : KL_PROXY_MOVING;
			assert_int_equal(kl_broadphase_set_proxy_kind(w->bp, s->proxy, s->kind), KL_OK);
		}
		else if (kind == 2 && chance(w, moving ? 0.1f : 0.9f))
		{
			w->mask[s->user] = next_u32(w);
			assert_int_equal(kl_broadphase_touch_proxy(w->bp, s->proxy), KL_OK);
		}
	}
}

static void mutate(world* w)
{
	float churn = w->sc.churn;
	if (chance(w, w->sc.wave_odds))
	{
		wave(w);
	}
	for (int i = 0; i < w->sc.slots; ++i)
	{
		slot* s = w->slots + i;
		if (!s->alive)
		{
			if (chance(w, 0.02f * churn))
			{
				create_slot(w, s);
			}
			continue;
		}
		if (chance(w, 0.01f * churn))
		{
			assert_int_equal(kl_broadphase_destroy_proxy(w->bp, s->proxy), KL_OK);
			s->alive = false;
			continue;
		}
		float move_odds = s->kind == KL_PROXY_MOVING ? w->sc.move_odds : w->sc.static_move_odds;
		if (chance(w, move_odds))
		{
			s->box = moved_box(w, s->box);
			assert_int_equal(kl_broadphase_move_proxy(w->bp, s->proxy, s->box), KL_OK);
		}
		if (chance(w, 0.01f * churn))
		{
			s->kind = s->kind == KL_PROXY_MOVING ? KL_PROXY_STATIC : KL_PROXY_MOVING;
			assert_int_equal(kl_broadphase_set_proxy_kind(w->bp, s->proxy, s->kind), KL_OK);
		}
		if (chance(w, 0.005f * churn))
		{
			w->mask[s->user] = next_u32(w);
			assert_int_equal(kl_broadphase_touch_proxy(w->bp, s->proxy), KL_OK);
		}
		if (chance(w, 0.003f))
		{
			try_bad_move(w, s);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// Brute force

static bool overlap(const kl_aabb* a, const kl_aabb* b)
{
	return a->lower.x <= b->upper.x && b->lower.x <= a->upper.x && a->lower.y <= b->upper.y &&
		   b->lower.y <= a->upper.y && a->lower.z <= b->upper.z && b->lower.z <= a->upper.z;
}

static uint64_t user_key(int32_t a, int32_t b)
{
	return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; // users are non-negative here
}

static int compare_keys(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a;
	uint64_t y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

static void brute_force(world* w)
{
	int64_t calls = w->filter_calls;
	int n = 0;
	for (int i = 0; i < w->sc.slots; ++i)
	{
		const slot* a = w->slots + i;
		for (int j = i + 1; j < w->sc.slots && a->alive; ++j)
		{
			const slot* b = w->slots + j;
			if (!b->alive || (a->kind == KL_PROXY_STATIC && b->kind == KL_PROXY_STATIC) || !overlap(&a->box, &b->box))
			{
				continue;
			}
			int32_t ua = a->user < b->user ? a->user : b->user;
			int32_t ub = a->user < b->user ? b->user : a->user;
			if (filter(ua, ub, w))
			{
				w->expected[n++] = user_key(ua, ub);
			}
		}
	}
	w->filter_calls = calls;
	qsort(w->expected, (size_t)n, sizeof(uint64_t), compare_keys);
	w->expected_count = n;
}

// a - b of two sorted key lists.
static int difference(const uint64_t* a, int na, const uint64_t* b, int nb, uint64_t* out)
{
	int n = 0, j = 0;
	for (int i = 0; i < na; ++i)
	{
		while (j < nb && b[j] < a[i])
		{
			j++;
		}
		if (j == nb || b[j] != a[i])
		{
			out[n++] = a[i];
		}
	}
	return n;
}

static void expect_pairs(const kl_pair* pairs, int count, const uint64_t* keys, int key_count, const char* what,
						 int step)
{
	if (count != key_count)
	{
		fail_msg("update %d: %d %s, brute force says %d", step, count, what, key_count);
	}
	for (int i = 0; i < count; ++i)
	{
		uint64_t k = user_key(pairs[i].user_a, pairs[i].user_b);
		if (pairs[i].user_a >= pairs[i].user_b || k != keys[i])
		{
			fail_msg("update %d: %s %d is (%d, %d), brute force says (%d, %d)", step, what, i, pairs[i].user_a,
					 pairs[i].user_b, (int)(keys[i] >> 32), (int)(keys[i] & 0xffffffffu));
		}
	}
}

static void hash_events(world* w, const kl_pair* pairs, int count)
{
	for (int i = 0; i < count; ++i)
	{
		w->event_hash = (w->event_hash ^ (uint32_t)pairs[i].user_a) * 16777619u;
		w->event_hash = (w->event_hash ^ (uint32_t)pairs[i].user_b) * 16777619u;
	}
}

static void check(world* w, int step)
{
	brute_force(w);
	kl_broadphase_events ev = kl_broadphase_get_events(w->bp);
	int n = difference(w->expected, w->expected_count, w->previous, w->previous_count, w->scratch);
	expect_pairs(ev.begin, ev.begin_count, w->scratch, n, "begin events", step);
	n = difference(w->previous, w->previous_count, w->expected, w->expected_count, w->scratch);
	expect_pairs(ev.end, ev.end_count, w->scratch, n, "end events", step);
	int count = -1;
	const kl_pair* pairs = kl_broadphase_get_pairs(w->bp, &count);
	expect_pairs(pairs, count, w->expected, w->expected_count, "pairs", step);
	kl_broadphase_stats stats = kl_broadphase_get_stats(w->bp);
	assert_int_equal(stats.pair_count, w->expected_count);
	// No id is lost: each is alive, free, or waiting in the list that frees it.
	int alive = 0;
	for (int32_t p = 0; p < w->bp->proxy_count; ++p)
	{
		alive += (w->bp->info[p].flags & KL_BP_ALIVE) != 0;
	}
	assert_int_equal(alive + w->bp->free_count + w->bp->destroyed.count, w->bp->proxy_count);
	w->modes_used |= 1 << stats.last_mode;
	hash_events(w, ev.begin, ev.begin_count);
	hash_events(w, ev.end, ev.end_count);
	memcpy(w->previous, w->expected, (size_t)w->expected_count * sizeof(uint64_t));
	w->previous_count = w->expected_count;
}

static void world_init(world* w, const scenario* sc)
{
	memset(w, 0, sizeof(*w));
	w->sc = *sc;
	w->rng = sc->seed;
	kl_broadphase_def def = kl_default_broadphase_def();
	def.filter = filter;
	def.filter_context = w;
	def.mode = sc->mode;
	if (sc->workers == 3)
	{
		def.parallel = fake_parallel;
		def.worker_count = 3;
	}
	else if (sc->workers < 0)
	{
		w->pool = kl_thread_pool_create(-sc->workers);
		assert_non_null(w->pool);
		def.parallel = pool_parallel;
		def.parallel_context = w->pool;
		def.worker_count = -sc->workers;
	}
	w->bp = kl_broadphase_create(&def);
	assert_non_null(w->bp);
	kl_broadphase_set_simd(w->bp, sc->simd);
	kl_broadphase_set_small_partitions(w->bp, sc->workers != 1);
	size_t max_pairs = (size_t)sc->slots * (size_t)sc->slots / 2 + 1;
	w->slots = calloc((size_t)sc->slots, sizeof(slot));
	w->mask = calloc(MAX_USERS, sizeof(uint32_t));
	w->expected = malloc(max_pairs * sizeof(uint64_t));
	w->previous = malloc(max_pairs * sizeof(uint64_t));
	w->scratch = malloc(max_pairs * sizeof(uint64_t));
	assert_true(w->slots != NULL && w->mask != NULL && w->expected != NULL && w->previous != NULL &&
				w->scratch != NULL);
}

static void world_free(world* w)
{
	kl_broadphase_destroy(w->bp);
	kl_thread_pool_destroy(w->pool);
	free(w->slots);
	free(w->mask);
	free(w->expected);
	free(w->previous);
	free(w->scratch);
}

static int s_auto_modes; ///< modes the automatic mode chose, over the runs so far
static int s_failed_updates; ///< updates that ran out of memory, over the runs so far
static long s_sweep_left;	 ///< the countdown after the sweep step's update (kl_fail_allocation)

// Runs the scenario against brute force; returns the hash of all its events.
static uint32_t run(const scenario* sc)
{
	world w;
	world_init(&w, sc);
	for (int i = 0; i < sc->slots; ++i)
	{
		if (chance(&w, 0.7f))
		{
			create_slot(&w, w.slots + i);
		}
	}
	for (int step = 0; step < sc->steps; ++step)
	{
		if (step > 0)
		{
			mutate(&w);
		}
		long fail_at = -1;
		if (sc->sweep && step == sc->sweep_step)
		{
			fail_at = sc->sweep_allocation;
		}
		else if (sc->oom_odds > 0.0f && chance(&w, sc->oom_odds))
		{
			fail_at = below(&w, chance(&w, 0.5f) ? 4 : 64);
		}
		kl_fail_allocation(fail_at);
		kl_result r = kl_broadphase_update(w.bp);
		long left = kl_fail_allocation_countdown();
		kl_fail_allocation(-1);
		s_sweep_left = sc->sweep && step == sc->sweep_step ? left : s_sweep_left;
		if (fail_at >= 0 && left < 0 && r != KL_OK)
		{
			// No events came out: the next update that succeeds reports every change since the
			// last one that did, and its pairs are exact again (checked against that update). The
			// pair list is read all the same, as the world reads it every step.
			assert_int_equal(r, KL_ERR_OUT_OF_MEMORY);
			w.failed_updates++;
			int count = 0;
			kl_broadphase_get_pairs(w.bp, &count);
			continue;
		}
		assert_int_equal(r, KL_OK);
		check(&w, step);
	}
	s_failed_updates += w.failed_updates;
	uint32_t hash = w.event_hash;
	if (sc->mode == KL_BROADPHASE_AUTO)
	{
		s_auto_modes |= w.modes_used;
	}
	world_free(&w);
	return hash;
}

// ---------------------------------------------------------------------------------------------
// Tests

static const kl_broadphase_mode s_modes[] = {KL_BROADPHASE_AUTO, KL_BROADPHASE_INCREMENTAL, KL_BROADPHASE_BATCH};
static const kl_simd_level s_simd[] = {KL_SIMD_SCALAR, KL_SIMD_AVX2};
static const int s_workers[] = {1, 3, -2};

// Every mode, kernel set and worker setup on the same world: the event hashes must agree too.
static void run_matrix(scenario sc)
{
	uint32_t first = 0;
	for (int m = 0; m < 3; ++m)
	{
		for (int s = 0; s < 2; ++s)
		{
			for (int k = 0; k < 3; ++k)
			{
				sc.mode = s_modes[m];
				sc.simd = s_simd[s];
				sc.workers = s_workers[k];
				uint32_t hash = run(&sc);
				if (m == 0 && s == 0 && k == 0)
				{
					first = hash;
				}
				assert_int_equal(hash, first);
			}
		}
	}
}

static void test_lattice_mixed(void** state)
{
	(void)state;
	scenario sc = {.slots = 90, .steps = 1000, .styles = STYLE_LATTICE, .side = 6.0f, .moving_odds = 0.6f,
				   .move_odds = 0.4f, .churn = 1.0f, .static_move_odds = 0.01f, .wave_odds = 0.02f, .seed = 12345u};
	s_auto_modes = 0;
	run_matrix(sc);
	// Waves and teleports make the automatic mode switch to the batch path and back.
	assert_int_equal(s_auto_modes, (1 << KL_BROADPHASE_INCREMENTAL) | (1 << KL_BROADPHASE_BATCH));
}

static void test_huge_coordinates(void** state)
{
	(void)state;
	scenario sc = {.slots = 80, .steps = 800, .styles = STYLE_LATTICE | STYLE_HUGE | STYLE_FLOAT, .side = 8.0f,
				   .moving_odds = 0.5f, .move_odds = 0.5f, .churn = 1.5f, .static_move_odds = 0.02f, .wave_odds = 0.02f,
				   .seed = 777u};
	run_matrix(sc);
}

// Enough moving proxies for the batch path to use a grid of cells, with few changes per update so
// that the incremental path sorts long arrays; waves re-evaluate hundreds of proxies at once.
static void test_dense_moving(void** state)
{
	(void)state;
	scenario sc = {.slots = 700, .steps = 60, .styles = STYLE_FLOAT, .side = 16.0f, .moving_odds = 0.9f,
				   .move_odds = 0.3f, .churn = 0.3f, .static_move_odds = 0.01f, .wave_odds = 0.1f, .seed = 99u};
	run_matrix(sc);
}

// Mostly statics that keep moving and changing kind: the static trees take insertions level by
// level, merge levels and rebuild the ones with many dead leaves.
static void test_static_churn(void** state)
{
	(void)state;
	for (int m = 0; m < 3; ++m)
	{
		scenario sc = {.slots = 800, .steps = 80, .styles = STYLE_LATTICE | STYLE_FLOAT, .side = 20.0f,
					   .moving_odds = 0.1f, .move_odds = 0.5f, .churn = 1.0f, .static_move_odds = 0.05f,
					   .wave_odds = 0.05f, .mode = s_modes[m], .simd = KL_SIMD_AVX2, .workers = 3, .seed = 31337u};
		run(&sc);
	}
}

// Long run, one configuration per mode: thousands of updates of slow random walks.
static void test_long_walk(void** state)
{
	(void)state;
	for (int m = 0; m < 3; ++m)
	{
		scenario sc = {.slots = 60, .steps = 4000, .styles = STYLE_LATTICE | STYLE_FLOAT, .side = 5.0f,
					   .moving_odds = 0.7f, .move_odds = 0.2f, .churn = 0.5f, .static_move_odds = 0.005f,
					   .wave_odds = 0.005f, .mode = s_modes[m],
					   .simd = KL_SIMD_AVX2, .workers = 1, .seed = 4242u};
		run(&sc);
	}
}

// Updates run out of memory at random allocations (creation, waves, merges of the static trees, the
// batch sweep, events): each failing update reports it, and the next ones recover, with the pair
// set exact and the events the difference from the last update that succeeded. Under the
// sanitizers, a leak or a bad access on the way fails the test too.
static void test_out_of_memory(void** state)
{
	(void)state;
	s_failed_updates = 0;
	for (int m = 0; m < 3; ++m)
	{
		for (int k = 0; k < 3; ++k)
		{
			scenario sc = {.slots = 300, .steps = KL_QUICK ? 60 : 200, .styles = STYLE_LATTICE | STYLE_FLOAT,
						   .side = 12.0f, .moving_odds = 0.5f, .move_odds = 0.4f, .churn = 1.0f,
						   .static_move_odds = 0.03f, .wave_odds = 0.05f, .mode = s_modes[m], .simd = KL_SIMD_AVX2,
						   .workers = s_workers[k], .seed = 2026u + (uint32_t)m, .oom_odds = 0.3f};
			run(&sc);
		}
	}
	printf("  %d updates ran out of memory and were recovered from\n", s_failed_updates);
	assert_true(s_failed_updates > (KL_QUICK ? 30 : 150));
}

// Every allocation of one update fails in turn (the first update, which begins hundreds of pairs;
// the second, the first to destroy proxies; and a later one amid waves and churn), in every mode,
// serial and on a fake pool: the update fails, the pair list is read anyway (as the world does),
// and the next update's pairs and events are exact and no id is lost, checked like every update.
static void test_out_of_memory_sweep(void** state)
{
	(void)state;
	int swept = 0;
	for (int m = 0; m < 3; ++m)
	{
		for (int k = 0; k < 2; ++k)
		{
			for (int at = 0; at < 3; ++at)
			{
				scenario sc = {.slots = 160, .styles = STYLE_LATTICE | STYLE_FLOAT, .side = 7.0f, .moving_odds = 0.6f,
							   .move_odds = 0.5f, .churn = 2.0f, .static_move_odds = 0.05f, .wave_odds = 0.3f,
							   .mode = s_modes[m], .simd = KL_SIMD_AVX2, .workers = s_workers[k],
							   .seed = 555u + (uint32_t)(3 * m + k), .sweep = true, .sweep_step = at == 2 ? 9 : at};
				sc.steps = sc.sweep_step + 3;
				const long many = 1L << 40;
				sc.sweep_allocation = many; // counts the update's allocations
				run(&sc);
				long total = many - s_sweep_left;
				long stride = KL_QUICK ? 1 + total / 8 : 1;
				for (long n = 0; n < total; n += stride)
				{
					sc.sweep_allocation = n;
					run(&sc);
					swept++;
				}
			}
		}
	}
	printf("  %d updates failed at each of their allocations in turn and were recovered from\n", swept);
	assert_true(swept > 50);
}

// Touching, moving, re-kinding and destroying proxies allocate nothing (room for one change per id
// is kept from creation): the world makes these calls where a failure could not be reported, and a
// lost move let a teleported body fall through a floor.
static void test_changes_do_not_allocate(void** state)
{
	(void)state;
	kl_broadphase* bp = kl_broadphase_create(NULL);
	assert_non_null(bp);
	int32_t proxies[100];
	for (int round = 0; round < 2; ++round)
	{
		for (int i = 0; i < 100; ++i)
		{
			proxies[i] = kl_broadphase_create_proxy(bp, make_box((float)i, 0.0f, 0.0f, (float)i + 1.5f, 1.0f, 1.0f),
													i % 2 ? KL_PROXY_MOVING : KL_PROXY_STATIC, round * 100 + i);
			assert_true(proxies[i] >= 0);
			assert_int_equal(kl_broadphase_update(bp), KL_OK); // one at a time: the change list stays short
		}
		kl_fail_allocation(0);
		for (int i = 0; i < 100; ++i)
		{
			assert_int_equal(kl_broadphase_touch_proxy(bp, proxies[i]), KL_OK);
			assert_int_equal(kl_broadphase_move_proxy(bp, proxies[i], make_box((float)i, 2.0f, 0.0f, (float)i + 1.0f, 3.0f, 1.0f)),
							 KL_OK);
			assert_int_equal(kl_broadphase_set_proxy_kind(bp, proxies[i], i % 2 ? KL_PROXY_STATIC : KL_PROXY_MOVING),
							 KL_OK);
			if (round == 1)
			{
				assert_int_equal(kl_broadphase_destroy_proxy(bp, proxies[i]), KL_OK);
			}
		}
		assert_int_equal(kl_fail_allocation_countdown(), 0); // armed, never reached
		kl_fail_allocation(-1);
		assert_int_equal(kl_broadphase_update(bp), KL_OK);
	}
	kl_broadphase_destroy(bp);
}

static void test_invalid_bounds(void** state)
{
	(void)state;
	kl_broadphase* bp = kl_broadphase_create(NULL);
	assert_non_null(bp);
	kl_aabb good = make_box(0, 0, 0, 1, 1, 1);
	int32_t a = kl_broadphase_create_proxy(bp, good, KL_PROXY_MOVING, 1);
	int32_t b = kl_broadphase_create_proxy(bp, make_box(0.5f, 0.5f, 0.5f, 2, 2, 2), KL_PROXY_STATIC, 2);
	assert_true(a >= 0 && b >= 0);
	kl_aabb bad[] = {make_box(NAN, 0, 0, 1, 1, 1), make_box(0, 0, 0, 1, INFINITY, 1),
					 make_box(-INFINITY, 0, 0, 1, 1, 1), make_box(0, 2, 0, 1, 1, 1)};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
	{
		assert_int_equal(kl_broadphase_create_proxy(bp, bad[i], KL_PROXY_MOVING, 3), -1);
		assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
		assert_int_equal(kl_broadphase_move_proxy(bp, a, bad[i]), KL_ERR_INVALID_ARGUMENT);
	}
	assert_int_equal(kl_broadphase_create_proxy(bp, good, (kl_proxy_kind)7, 3), -1);
	assert_int_equal(kl_broadphase_update(bp), KL_OK);
	kl_aabb now = kl_broadphase_get_aabb(bp, a);
	assert_memory_equal(&now, &good, sizeof(good));
	int count = 0;
	const kl_pair* pairs = kl_broadphase_get_pairs(bp, &count);
	assert_int_equal(count, 1);
	assert_int_equal(pairs[0].user_a, 1);
	assert_int_equal(pairs[0].user_b, 2);
	// Stale and foreign ids.
	assert_int_equal(kl_broadphase_destroy_proxy(bp, b), KL_OK);
	assert_int_equal(kl_broadphase_destroy_proxy(bp, b), KL_ERR_INVALID_ID);
	assert_int_equal(kl_broadphase_move_proxy(bp, 99, good), KL_ERR_INVALID_ID);
	assert_int_equal(kl_broadphase_touch_proxy(bp, -1), KL_ERR_INVALID_ID);
	assert_int_equal(kl_broadphase_update(bp), KL_OK);
	kl_broadphase_events ev = kl_broadphase_get_events(bp);
	assert_int_equal(ev.end_count, 1);
	assert_int_equal(ev.begin_count, 0);
	pairs = kl_broadphase_get_pairs(bp, &count);
	assert_int_equal(count, 0);
	kl_broadphase_destroy(bp);
}

// The static grid of the large_world benchmark, scaled down: spheres fall onto a grid of boxes,
// touching their tops, and fall asleep; the statics are never re-sorted.
static void static_grid(kl_broadphase_mode mode)
{
	kl_broadphase_def def = kl_default_broadphase_def();
	def.mode = mode;
	kl_broadphase* bp = kl_broadphase_create(&def);
	enum
	{
		GRID = 60,
		SPHERES = 40
	};
	static kl_aabb boxes[GRID * GRID + SPHERES];
	static int32_t proxies[GRID * GRID + SPHERES];
	static bool is_static[GRID * GRID + SPHERES];
	uint64_t* expected = malloc(sizeof(uint64_t) * 4096);
	int n = 0;
	for (int j = 0; j < GRID; ++j)
	{
		for (int i = 0; i < GRID; ++i)
		{
			float x = 10.0f * (float)i, y = 10.0f * (float)j;
			boxes[n] = make_box(x - 0.5f, y - 0.5f, -0.5f, x + 0.5f, y + 0.5f, 0.5f);
			is_static[n] = true;
			proxies[n] = kl_broadphase_create_proxy(bp, boxes[n], KL_PROXY_STATIC, n);
			n++;
		}
	}
	int statics = n;
	uint32_t rng = 5u;
	for (int step = 0; step < 400; ++step)
	{
		if (step % 5 == 0 && n < statics + SPHERES)
		{
			rng = rng * 1664525u + 1013904223u;
			float x = 10.0f * (float)((rng >> 8) % GRID), y = 10.0f * (float)((rng >> 16) % GRID);
			boxes[n] = make_box(x - 0.5f, y - 0.5f, 9.5f, x + 0.5f, y + 0.5f, 10.5f);
			is_static[n] = false;
			proxies[n] = kl_broadphase_create_proxy(bp, boxes[n], KL_PROXY_MOVING, n);
			n++;
		}
		for (int s = statics; s < n; ++s)
		{
			if (is_static[s])
			{
				continue;
			}
			kl_aabb* b = boxes + s;
			float dz = b->lower.z > 0.5f ? fminf(0.25f, b->lower.z - 0.5f) : 0.0f;
			if (dz > 0.0f)
			{
				b->lower.z -= dz;
				b->upper.z -= dz;
				assert_int_equal(kl_broadphase_move_proxy(bp, proxies[s], *b), KL_OK);
			}
			else if ((s + step) % 7 == 0)
			{
				is_static[s] = true; // resting on the top face: touching counts
				assert_int_equal(kl_broadphase_set_proxy_kind(bp, proxies[s], KL_PROXY_STATIC), KL_OK);
			}
		}
		assert_int_equal(kl_broadphase_update(bp), KL_OK);
		int e = 0;
		for (int s = statics; s < n; ++s)
		{
			for (int t = 0; t < n; ++t)
			{
				bool counted = t < statics || t > s; // each sphere pair once
				if (t != s && counted && !(is_static[s] && is_static[t]) && overlap(boxes + s, boxes + t))
				{
					expected[e++] = user_key(t < s ? t : s, t < s ? s : t);
				}
			}
		}
		qsort(expected, (size_t)e, sizeof(uint64_t), compare_keys);
		int count = 0;
		const kl_pair* pairs = kl_broadphase_get_pairs(bp, &count);
		expect_pairs(pairs, count, expected, e, "pairs", step);
	}
	kl_broadphase_stats stats = kl_broadphase_get_stats(bp);
	assert_true(stats.static_count >= GRID * GRID);
	free(expected);
	kl_broadphase_destroy(bp);
}

static void test_static_grid(void** state)
{
	(void)state;
	for (int m = 0; m < 3; ++m)
	{
		static_grid(s_modes[m]);
	}
}

// Pairs and events are sorted by signed user values.
static void test_negative_users(void** state)
{
	(void)state;
	kl_broadphase* bp = kl_broadphase_create(NULL);
	int32_t users[] = {7, -3, 2147483647, -2147483647 - 1, 0};
	int32_t proxies[5];
	for (int i = 0; i < 5; ++i)
	{
		proxies[i] = kl_broadphase_create_proxy(bp, make_box(0, 0, 0, 1, 1, 1), KL_PROXY_MOVING, users[i]);
	}
	assert_int_equal(kl_broadphase_update(bp), KL_OK);
	int count = 0;
	const kl_pair* pairs = kl_broadphase_get_pairs(bp, &count);
	assert_int_equal(count, 10);
	for (int i = 0; i < count; ++i)
	{
		assert_true(pairs[i].user_a < pairs[i].user_b);
		assert_true(i == 0 || pairs[i - 1].user_a < pairs[i].user_a ||
					(pairs[i - 1].user_a == pairs[i].user_a && pairs[i - 1].user_b < pairs[i].user_b));
	}
	assert_int_equal(pairs[0].user_a, INT32_MIN);
	assert_int_equal(pairs[0].user_b, -3);
	assert_int_equal(kl_broadphase_destroy_proxy(bp, proxies[1]), KL_OK);
	assert_int_equal(kl_broadphase_update(bp), KL_OK);
	kl_broadphase_events ev = kl_broadphase_get_events(bp);
	assert_int_equal(ev.end_count, 4);
	assert_int_equal(ev.end[0].user_a, INT32_MIN);
	assert_int_equal(ev.end[0].user_b, -3);
	assert_int_equal(ev.end[3].user_a, -3);
	assert_int_equal(ev.end[3].user_b, INT32_MAX);
	kl_broadphase_destroy(bp);
}

// The sortable float keys of the kernels keep float order, with -0 equal to +0.
static void test_float_keys(void** state)
{
	(void)state;
	float values[] = {-FLT_MAX, -1.0e17f, -2.5f, -1.0f, -1.0e-30f, -0.0f, 0.0f, 1.0e-30f, 1.0f, 2.5f, 1.0e17f, FLT_MAX};
	int n = (int)(sizeof(values) / sizeof(values[0]));
	for (int i = 0; i + 1 < n; ++i)
	{
		uint32_t a = kl_sap_float_key(values[i]), b = kl_sap_float_key(values[i + 1]);
		if (values[i] == values[i + 1])
		{
			assert_int_equal(a, b);
		}
		else
		{
			assert_true(a < b);
		}
		assert_true(kl_sap_key_float(a) == values[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_keys),
		cmocka_unit_test(test_invalid_bounds),
		cmocka_unit_test(test_negative_users),
		cmocka_unit_test(test_lattice_mixed),
		cmocka_unit_test(test_huge_coordinates),
		cmocka_unit_test(test_dense_moving),
		cmocka_unit_test(test_static_churn),
		cmocka_unit_test(test_long_walk),
		cmocka_unit_test(test_static_grid),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_out_of_memory_sweep),
		cmocka_unit_test(test_changes_do_not_allocate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
