// Broadphase batch path on CUDA against the CPU. The program runs the host reference, then the GPU
// comparisons; without a device (or without CUDA in the build) it says why and exits 77 after the
// reference, which ctest reports as Skipped. `test_broadphase_gpu host` runs the reference alone
// (ctest: test_broadphase_gpu_host), so that it is checked everywhere.
//
// Two levels: the CUDA glue alone (kl_sap_gpu_sweep on hand-made batches against the KL_HD kernels
// run on the host over the same items sorted on the host: same pairs, same order), and the
// broadphase as the engine uses it (BATCH mode with and without use_gpu: same pairs and events).
#include "broadphase.h"
#include "sap_kernels.h"

#include <kollide/kollide.h>

#include <stdlib.h>
#include <string.h>
#include "kl_test.h"

// Weak: kl_sap_gpu_sweep exists only in CUDA builds (broadphase/sap_batch.cu), and tests do not see
// KOLLIDE_HAVE_CUDA. Null when it is not linked in.
#pragma weak kl_sap_gpu_sweep

static uint32_t s_seed;

static float next_unit(void)
{
	s_seed = s_seed * 1664525u + 1013904223u;
	return (float)(s_seed >> 8) / 16777216.0f;
}

typedef struct box_set
{
	int count;
	float* lower[3];
	float* upper[3];
	int32_t* id;
} box_set;

typedef enum set_shape
{
	SET_CUBE,	   ///< ~1 m boxes in a cube, a few overlaps each
	SET_CLUSTERED, ///< boxes on an integer lattice: many equal coordinates, touching faces, -0 and +0
	SET_HUGE,	   ///< SET_CUBE plus a few boxes spanning everything
} set_shape;

static box_set make_set(int count, set_shape shape, uint32_t seed)
{
	s_seed = seed;
	box_set s = {count, {NULL}, {NULL}, NULL};
	for (int k = 0; k < 3; ++k)
	{
		s.lower[k] = malloc((size_t)count * sizeof(float));
		s.upper[k] = malloc((size_t)count * sizeof(float));
		assert_non_null(s.lower[k]);
		assert_non_null(s.upper[k]);
	}
	s.id = malloc((size_t)count * sizeof(int32_t));
	assert_non_null(s.id);
	float side = cbrtf(5.0f * (float)count);
	for (int i = 0; i < count; ++i)
	{
		s.id[i] = 3 * i + 7; // ids unlike indices, to catch a mix-up
		for (int k = 0; k < 3; ++k)
		{
			float lo, hi;
			if (shape == SET_CLUSTERED)
			{
				lo = (float)(int)(8.0f * next_unit()) - 4.0f;
				hi = lo + (float)(1 + (int)(2.0f * next_unit()));
				lo = lo == 0.0f && next_unit() < 0.5f ? -0.0f : lo;
			}
			else
			{
				float h = 0.4f + 0.2f * next_unit();
				float c = side * next_unit() - 0.5f * side;
				lo = c - h;
				hi = c + h;
				if (shape == SET_HUGE && i % 997 == 0)
				{
					lo = -side;
					hi = side;
				}
			}
			s.lower[k][i] = lo;
			s.upper[k][i] = hi;
		}
	}
	return s;
}

static void free_set(box_set* s)
{
	for (int k = 0; k < 3; ++k)
	{
		free(s->lower[k]);
		free(s->upper[k]);
	}
	free(s->id);
}

// ---------------------------------------------------------------------------------------------
// A batch as the broadphase hands it over: boxes expanded into the grid cells they touch on u and v,
// keyed by (cell, min on w), unsorted.

typedef struct batch_items
{
	uint64_t* keys;
	int32_t* source;
	int count;
	uint32_t* range; ///< per proxy: kl_sap_range of its box
} batch_items;

static kl_sap_grid make_grid(const box_set* s, int axis_u, int axis_v, int cells_u, int cells_v)
{
	float lo_u = s->lower[axis_u][0], hi_u = s->upper[axis_u][0];
	float lo_v = s->lower[axis_v][0], hi_v = s->upper[axis_v][0];
	for (int i = 1; i < s->count; ++i)
	{
		lo_u = fminf(lo_u, s->lower[axis_u][i]);
		hi_u = fmaxf(hi_u, s->upper[axis_u][i]);
		lo_v = fminf(lo_v, s->lower[axis_v][i]);
		hi_v = fmaxf(hi_v, s->upper[axis_v][i]);
	}
	kl_sap_grid g = {lo_u, (float)cells_u / fmaxf(hi_u - lo_u, 1.0e-6f), lo_v,
					 (float)cells_v / fmaxf(hi_v - lo_v, 1.0e-6f), cells_u, cells_v};
	return g;
}

static batch_items expand(const box_set* s, int axis_w, int axis_u, int axis_v, const kl_sap_grid* g)
{
	batch_items b = {NULL, NULL, 0, malloc((size_t)s->count * sizeof(uint32_t))};
	assert_non_null(b.range);
	int capacity = 0;
	for (int i = 0; i < s->count; ++i)
	{
		uint32_t r = kl_sap_range(g, s->lower[axis_u][i], s->upper[axis_u][i], s->lower[axis_v][i],
								  s->upper[axis_v][i]);
		b.range[i] = r;
		int u0 = (int)(r & 0xffu), u1 = (int)(r >> 8 & 0xffu), v0 = (int)(r >> 16 & 0xffu), v1 = (int)(r >> 24);
		for (int cu = u0; cu <= u1; ++cu)
		{
			for (int cv = v0; cv <= v1; ++cv)
			{
				if (b.count == capacity)
				{
					capacity = capacity > 0 ? 2 * capacity : 1024;
					b.keys = realloc(b.keys, (size_t)capacity * sizeof(uint64_t));
					b.source = realloc(b.source, (size_t)capacity * sizeof(int32_t));
					assert_non_null(b.keys);
					assert_non_null(b.source);
				}
				uint32_t cell = (uint32_t)(cu * g->count_v + cv);
				b.keys[b.count] = ((uint64_t)cell << 32) | kl_sap_float_key(s->lower[axis_w][i]);
				b.source[b.count] = i;
				b.count++;
			}
		}
	}
	return b;
}

static const uint64_t* s_sort_keys;

// Stable order by key: ties keep their item order, as a stable radix sort does.
static int compare_items(const void* a, const void* b)
{
	int x = *(const int*)a, y = *(const int*)b;
	if (s_sort_keys[x] != s_sort_keys[y])
	{
		return s_sort_keys[x] < s_sort_keys[y] ? -1 : 1;
	}
	return (x > y) - (x < y);
}

// The KL_HD kernels run on the host over the items sorted on the host: the GPU must give exactly
// these pairs in this order. Returns the pair count; *pairs is malloc'ed.
static int host_sweep(const box_set* s, const batch_items* b, int axis_w, int axis_u, int axis_v,
					  const kl_sap_grid* g, uint64_t** pairs)
{
	int n = b->count;
	int* order = malloc((size_t)n * sizeof(int));
	float* soa[6];
	for (int k = 0; k < 6; ++k)
	{
		soa[k] = malloc(((size_t)n + 8) * sizeof(float)); // + 8: the CPU kernels may read ahead
		assert_non_null(soa[k]);
	}
	int32_t* id = malloc((size_t)n * sizeof(int32_t));
	uint32_t* cell = malloc((size_t)n * sizeof(uint32_t));
	uint32_t* corner = malloc((size_t)n * sizeof(uint32_t));
	assert_non_null(corner);
	int32_t* cell_end = calloc((size_t)g->count_u * (size_t)g->count_v, sizeof(int32_t));
	assert_non_null(order);
	assert_non_null(id);
	assert_non_null(cell);
	assert_non_null(cell_end);
	for (int i = 0; i < n; ++i)
	{
		order[i] = i;
	}
	s_sort_keys = b->keys;
	qsort(order, (size_t)n, sizeof(int), compare_items);
	for (int i = 0; i < n; ++i)
	{
		int p = b->source[order[i]];
		soa[0][i] = s->lower[axis_w][p];
		soa[1][i] = s->upper[axis_w][p];
		soa[2][i] = s->lower[axis_u][p];
		soa[3][i] = s->upper[axis_u][p];
		soa[4][i] = s->lower[axis_v][p];
		soa[5][i] = s->upper[axis_v][p];
		id[i] = s->id[p];
		uint32_t c = (uint32_t)(b->keys[order[i]] >> 32);
		cell[i] = kl_sap_item_cell(c, b->range[p]);
		corner[i] = kl_sap_item_corner(b->range[p]);
		cell_end[c] = i + 1;
	}
	for (int k = 0; k < 6; ++k)
	{
		for (int pad = 0; pad < 8; ++pad)
		{
			soa[k][n + pad] = 0.0f;
		}
	}
	kl_sap_items items = {soa[0], soa[1], soa[2], soa[3], soa[4], soa[5], id, cell, corner, cell_end, n, *g};
	int total = 0;
	for (int i = 0; i < n; ++i)
	{
		total += kl_sap_count_pairs(&items, i);
	}
	*pairs = malloc(((size_t)total + 1) * sizeof(uint64_t));
	assert_non_null(*pairs);
	int written = 0;
	for (int i = 0; i < n; ++i)
	{
		written += kl_sap_write_pairs(&items, i, *pairs + written);
	}
	assert_int_equal(written, total);
	for (int k = 0; k < 6; ++k)
	{
		free(soa[k]);
	}
	free(order);
	free(id);
	free(cell);
	free(corner);
	free(cell_end);
	return total;
}

static int compare_u64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

static bool boxes_overlap(const box_set* s, int a, int b)
{
	for (int k = 0; k < 3; ++k)
	{
		if (s->lower[k][b] > s->upper[k][a] || s->lower[k][a] > s->upper[k][b])
		{
			return false;
		}
	}
	return true;
}

// The host reference itself, against all pairs tested directly (small sets; runs on every machine).
static void test_host_reference_matches_brute_force(void** state)
{
	(void)state;
	const set_shape shapes[] = {SET_CUBE, SET_CLUSTERED, SET_HUGE};
	for (int t = 0; t < 3; ++t)
	{
		box_set s = make_set(1500, shapes[t], 11u + (uint32_t)t);
		kl_sap_grid g = make_grid(&s, 0, 2, t == 0 ? 1 : 5, t == 0 ? 1 : 3);
		batch_items b = expand(&s, 1, 0, 2, &g);
		uint64_t* pairs = NULL;
		int count = host_sweep(&s, &b, 1, 0, 2, &g, &pairs);
		qsort(pairs, (size_t)count, sizeof(uint64_t), compare_u64);
		int expected = 0;
		for (int a = 0; a < s.count; ++a)
		{
			for (int c = a + 1; c < s.count; ++c)
			{
				if (boxes_overlap(&s, a, c))
				{
					uint64_t key = kl_sap_pair_key(s.id[a], s.id[c]);
					assert_true(expected < count);
					assert_true(pairs[expected] == key);
					expected++;
				}
			}
		}
		assert_int_equal(count, expected);
		free(pairs);
		free(b.keys);
		free(b.source);
		free(b.range);
		free_set(&s);
	}
}

static void check_glue(int count, set_shape shape, int axis_w, int axis_u, int axis_v, int cells_u, int cells_v)
{
	box_set s = make_set(count, shape, 1000u + (uint32_t)count);
	kl_sap_grid g = make_grid(&s, axis_u, axis_v, cells_u, cells_v);
	batch_items b = expand(&s, axis_w, axis_u, axis_v, &g);
	uint64_t* expected = NULL;
	int expected_count = host_sweep(&s, &b, axis_w, axis_u, axis_v, &g, &expected);

	kl_sap_gpu_batch batch;
	memset(&batch, 0, sizeof(batch));
	batch.keys = b.keys;
	batch.source = b.source;
	batch.item_count = b.count;
	for (int k = 0; k < 3; ++k)
	{
		batch.lower[k] = s.lower[k];
		batch.upper[k] = s.upper[k];
	}
	batch.id = s.id;
	batch.proxy_count = s.count;
	batch.axis_w = axis_w;
	batch.axis_u = axis_u;
	batch.axis_v = axis_v;
	batch.grid = g;

	// Too small a buffer: only the count comes back.
	uint64_t sentinel = 0x5a5a5a5a5a5a5a5aull;
	batch.pairs = &sentinel;
	batch.pair_capacity = expected_count > 0 ? expected_count - 1 : 0;
	assert_true(kl_sap_gpu_sweep(&batch));
	assert_int_equal(batch.pair_count, expected_count);
	assert_true(expected_count == 0 || sentinel == 0x5a5a5a5a5a5a5a5aull);

	batch.pairs = malloc(((size_t)expected_count + 1) * sizeof(uint64_t));
	assert_non_null(batch.pairs);
	batch.pair_capacity = expected_count;
	assert_true(kl_sap_gpu_sweep(&batch));
	assert_int_equal(batch.pair_count, expected_count);
	assert_memory_equal(batch.pairs, expected, (size_t)expected_count * sizeof(uint64_t));
	print_message("gpu glue: %d boxes, %d items, %dx%d cells: %d pairs\n", count, b.count, cells_u, cells_v,
				  expected_count);

	free(batch.pairs);
	free(expected);
	free(b.keys);
	free(b.source);
	free(b.range);
	free_set(&s);
}

static void test_gpu_glue_matches_host(void** state)
{
	(void)state;
	if (kl_sap_gpu_sweep == NULL)
	{
		fail_msg("a device but no kl_sap_gpu_sweep linked in: the broadphase does not call the GPU path");
	}
	check_glue(1, SET_CUBE, 0, 1, 2, 1, 1);
	check_glue(3000, SET_CLUSTERED, 2, 0, 1, 1, 1);
	check_glue(3000, SET_CLUSTERED, 0, 1, 2, 4, 4);
	check_glue(20000, SET_HUGE, 1, 0, 2, 8, 8);
	check_glue(300000, SET_CUBE, 0, 1, 2, 64, 64);
	check_glue(300000, SET_CUBE, 2, 0, 1, 1, 1);
}

// ---------------------------------------------------------------------------------------------
// The broadphase as the engine uses it.

static kl_broadphase* make_broadphase(bool use_gpu)
{
	kl_broadphase_def def = kl_default_broadphase_def();
	def.mode = KL_BROADPHASE_BATCH;
	def.use_gpu = use_gpu;
	kl_broadphase* bp = kl_broadphase_create(&def);
	assert_non_null(bp);
	return bp;
}

static kl_aabb box_of(const box_set* s, int i)
{
	return (kl_aabb){kl_vec3(s->lower[0][i], s->lower[1][i], s->lower[2][i]),
					 kl_vec3(s->upper[0][i], s->upper[1][i], s->upper[2][i])};
}

static void expect_same_pairs(const kl_broadphase* cpu, const kl_broadphase* gpu)
{
	int cpu_count = 0, gpu_count = 0;
	const kl_pair* a = kl_broadphase_get_pairs(cpu, &cpu_count);
	const kl_pair* b = kl_broadphase_get_pairs(gpu, &gpu_count);
	assert_int_equal(cpu_count, gpu_count);
	assert_memory_equal(a, b, (size_t)cpu_count * sizeof(kl_pair));
	kl_broadphase_events ea = kl_broadphase_get_events(cpu);
	kl_broadphase_events eb = kl_broadphase_get_events(gpu);
	assert_int_equal(ea.begin_count, eb.begin_count);
	assert_int_equal(ea.end_count, eb.end_count);
	assert_memory_equal(ea.begin, eb.begin, (size_t)ea.begin_count * sizeof(kl_pair));
	assert_memory_equal(ea.end, eb.end, (size_t)ea.end_count * sizeof(kl_pair));
}

static void check_broadphase(int count, set_shape shape)
{
	box_set s = make_set(count, shape, 77u + (uint32_t)count);
	kl_broadphase* cpu = make_broadphase(false);
	kl_broadphase* gpu = make_broadphase(true);
	int32_t* proxy_cpu = malloc((size_t)count * sizeof(int32_t));
	int32_t* proxy_gpu = malloc((size_t)count * sizeof(int32_t));
	assert_non_null(proxy_cpu);
	assert_non_null(proxy_gpu);
	for (int i = 0; i < count; ++i)
	{
		proxy_cpu[i] = kl_broadphase_create_proxy(cpu, box_of(&s, i), KL_PROXY_MOVING, s.id[i]);
		proxy_gpu[i] = kl_broadphase_create_proxy(gpu, box_of(&s, i), KL_PROXY_MOVING, s.id[i]);
		assert_true(proxy_cpu[i] >= 0 && proxy_gpu[i] >= 0);
	}
	bool used_gpu = false;
	for (int round = 0; round < 3; ++round)
	{
		assert_int_equal(kl_broadphase_update(cpu), KL_OK);
		assert_int_equal(kl_broadphase_update(gpu), KL_OK);
		assert_false(kl_broadphase_get_stats(cpu).used_gpu);
		used_gpu = used_gpu || kl_broadphase_get_stats(gpu).used_gpu;
		expect_same_pairs(cpu, gpu);
		// Teleport a third of the boxes: pairs begin and end.
		for (int i = round % 3; i < count; i += 3)
		{
			int j = (i * 7 + round) % count;
			assert_int_equal(kl_broadphase_move_proxy(cpu, proxy_cpu[i], box_of(&s, j)), KL_OK);
			assert_int_equal(kl_broadphase_move_proxy(gpu, proxy_gpu[i], box_of(&s, j)), KL_OK);
		}
	}
	int pairs = 0;
	kl_broadphase_get_pairs(gpu, &pairs);
	print_message("broadphase: %d boxes, %d pairs, GPU used: %s\n", count, pairs, used_gpu ? "yes" : "no");
	// Small batches may stay on the CPU by design; a large one must reach the device.
	if (count >= 100000)
	{
		assert_true(used_gpu);
	}
	kl_broadphase_destroy(cpu);
	kl_broadphase_destroy(gpu);
	free(proxy_cpu);
	free(proxy_gpu);
	free_set(&s);
}

static void test_broadphase_gpu_matches_cpu(void** state)
{
	(void)state;
	check_broadphase(500, SET_CLUSTERED);
	check_broadphase(20000, SET_HUGE);
	check_broadphase(200000, SET_CUBE);
}

int main(int argc, char** argv)
{
	bool host_only = argc > 1 && strcmp(argv[1], "host") == 0;
	if (argc > 2 || (argc > 1 && !host_only))
	{
		fprintf(stderr, "usage: test_broadphase_gpu [host]\n");
		return 2;
	}
	const struct CMUnitTest host_tests[] = {
		cmocka_unit_test(test_host_reference_matches_brute_force),
	};
	const struct CMUnitTest gpu_tests[] = {
		cmocka_unit_test(test_gpu_glue_matches_host),
		cmocka_unit_test(test_broadphase_gpu_matches_cpu),
	};
	int failed = cmocka_run_group_tests_name("host reference", host_tests, NULL, NULL);
	if (host_only)
	{
		return kl_test_exit_status(failed);
	}
	if (!kl_gpu_available())
	{
		printf("the broadphase's GPU comparisons are skipped: %s\n", kl_gpu_describe());
		return failed != 0 ? 1 : KL_TEST_SKIPPED;
	}
	failed += cmocka_run_group_tests_name("GPU against the host", gpu_tests, NULL, NULL);
	return kl_test_exit_status(failed);
}
