// Kollide — the point-shell backend against the SIMD BVH on the thesis's experiments (Aichele,
// seed-004 §6.2, §8.2), with generated stand-in meshes of the same sizes:
//   E1a  a ~1,500-triangle pair (two torus knots), static close contact, 250 iterations
//   E1b  the same pair, one knot falling through the other under gravity (no response), 250 × 1 ms
//   E2   ten gears of 448 triangles, five static and five turning into their static mates, 250 steps
//   E3   two ~1,300-triangle screwdrivers in a ~4,500-triangle housing, every conglomerate pair forced
//   E4   two coincident ~10k-triangle robot arms, every conglomerate pair forced
// Per scene and backend: per-stage milliseconds (median, mean, max) and the first iteration's counts
// (the same pose for every backend) of the point-shell search on CPU
// threads and on the GPU (when one is present), and the SIMD k-DOP BVH's within-margin query for the
// same pairs; both give the triangle pairs within the alarm distance, and the run checks that they agree
// (and that the GPU's keys are the CPU's), exiting with 1 when they do not.
// With --warp-model it also runs the first iteration's GPU items on the CPU, 32 to a warp, and prints
// their search steps (pointshell_warp_model.h): a figure for the GPU's search without a GPU.
// Usage: kollide-pointshell-bench [--scene E1a|E1b|E2|E3|E4] [--iterations N] [--cpu-iterations N]
//                                 [--threads T] [--spacing S] [--grouping surface|median] [--no-gpu]
//                                 [--leaf-bucket N] [--warp-model]
// SPDX-License-Identifier: MIT
#include "../tools/meshgen/meshgen.h"
#include "bvh.h"
#include "core.h"
#include "pointshell.h"
#include "pointshell_warp_model.h"
#include "thread_pool.h"
#include "tri_tri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BODIES 12
#define MAX_PAIRS 16
#define ALARM 0.001f // 1 mm, the engine's speculative band order

typedef struct bench_body
{
	kl_meshgen_mesh mesh;
	kl_pointshell* shell;
	kl_bvh* bvh;
	double build_ms;
} bench_body;

typedef struct scene
{
	const char* name;
	int body_count;
	bench_body* bodies[MAX_BODIES];
	int pair_count;
	int pair_a[MAX_PAIRS], pair_b[MAX_PAIRS];
	bool force_all;
	int iterations;
	/// Pose of body i at iteration k.
	kl_transform (*pose)(int body, int iteration);
} scene;

static kl_transform make_xf(float x, float y, float z, float angle_z)
{
	kl_transform xf;
	xf.p = kl_vec3(x, y, z);
	xf.q = (versors){{0.0f, 0.0f, sinf(0.5f * angle_z), cosf(0.5f * angle_z)}};
	return xf;
}

static kl_pointshell_build_def s_shell_def;

static bench_body* make_body(kl_meshgen_mesh mesh)
{
	bench_body* b = calloc(1, sizeof(bench_body));
	b->mesh = mesh;
	double t0 = kl_time_seconds();
	b->shell = kl_pointshell_build(mesh.vertices, mesh.vertex_count, mesh.indices, mesh.triangle_count, &s_shell_def,
								   NULL, NULL);
	b->build_ms = 1e3 * (kl_time_seconds() - t0);
	kl_bvh_build_def bd = kl_bvh_default_build_def();
	b->bvh = kl_bvh_build((const float*)mesh.vertices, mesh.vertex_count, (const int*)mesh.indices, mesh.triangle_count,
						  &bd);
	if (b->shell == NULL || b->bvh == NULL)
	{
		fprintf(stderr, "model build failed: %s\n", kl_last_error());
		exit(1);
	}
	return b;
}

static void free_body(bench_body* b)
{
	kl_pointshell_destroy(b->shell);
	kl_bvh_destroy(b->bvh);
	kl_meshgen_free(&b->mesh);
	free(b);
}

static kl_meshgen_mesh knot_mesh(void)
{
	kl_meshgen_torus_knot_params k = kl_meshgen_default_torus_knot_params();
	k.segments = 48;
	k.sides = 8;
	kl_meshgen_mesh m;
	kl_meshgen_torus_knot(&k, &m);
	return m;
}

// ---------------------------------------------------------------------------------------------
// Scenes

static kl_transform pose_e1a(int body, int k)
{
	(void)k;
	// The knot's tube is 15 mm thick at 0.1 m; the second, turned, sits 5 mm into the first.
	return body == 0 ? make_xf(0.0f, 0.0f, 0.0f, 0.0f) : make_xf(0.0f, 0.0f, 0.025f, 0.35f);
}

static kl_transform pose_e1b(int body, int k)
{
	float t = 0.001f * (float)k;
	return body == 0 ? make_xf(0.0f, 0.0f, 0.0f, 0.0f) : make_xf(0.0f, 0.0f, 0.035f - 4.905f * t * t, 0.35f);
}

static kl_meshgen_gear_params s_gear;

static kl_transform pose_e2(int body, int k)
{
	// Pairs 0.3 m apart on x; the static gear at the pair's origin, the moving one at the mate
	// distance, turning through a tenth of a tooth pitch back and forth (its teeth press into the
	// static gear's flanks and out again).
	int pair = body / 2;
	float x0 = 0.3f * (float)pair;
	if (body % 2 == 0)
	{
		return make_xf(x0, 0.0f, 0.0f, 0.0f);
	}
	float pitch = 2.0f * 3.14159265f / (float)s_gear.tooth_count;
	float swing = 0.25f * pitch * sinf(0.05f * (float)k + (float)pair);
	return make_xf(x0 + kl_meshgen_gear_center_distance(&s_gear, &s_gear), 0.0f, 0.0f,
				   kl_meshgen_gear_mate_angle(&s_gear) + swing);
}

static kl_transform pose_e3(int body, int k)
{
	(void)k;
	// The housing at the origin; the screwdrivers stand in it, tips down, 6 cm apart.
	if (body == 0)
	{
		return make_xf(0.0f, 0.0f, 0.0f, 0.0f);
	}
	return make_xf(body == 1 ? -0.03f : 0.03f, 0.0f, 0.0f, 0.3f * (float)body);
}

static kl_transform pose_e4(int body, int k)
{
	(void)body;
	(void)k;
	return make_xf(0.0f, 0.0f, 0.0f, 0.0f);
}

static void build_scene(const char* name, scene* s)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	if (strcmp(name, "E1a") == 0 || strcmp(name, "E1b") == 0)
	{
		s->body_count = 2;
		s->bodies[0] = make_body(knot_mesh());
		s->bodies[1] = make_body(knot_mesh());
		s->pair_count = 1;
		s->pair_a[0] = 0, s->pair_b[0] = 1;
		s->iterations = 250;
		s->pose = name[2] == 'a' ? pose_e1a : pose_e1b;
	}
	else if (strcmp(name, "E2") == 0)
	{
		s_gear = kl_meshgen_default_gear_params();
		s->body_count = 10;
		for (int i = 0; i < 10; ++i)
		{
			kl_meshgen_mesh m;
			kl_meshgen_gear(&s_gear, &m);
			s->bodies[i] = make_body(m);
		}
		s->pair_count = 5;
		for (int p = 0; p < 5; ++p)
		{
			s->pair_a[p] = 2 * p, s->pair_b[p] = 2 * p + 1;
		}
		s->iterations = 250;
		s->pose = pose_e2;
	}
	else if (strcmp(name, "E3") == 0)
	{
		kl_meshgen_housing_params hp = kl_meshgen_default_housing_params();
		kl_meshgen_screwdriver_params sp = kl_meshgen_default_screwdriver_params();
		kl_meshgen_mesh m;
		kl_meshgen_housing(&hp, &m);
		s->bodies[0] = make_body(m);
		for (int i = 1; i <= 2; ++i)
		{
			kl_meshgen_screwdriver(&sp, &m);
			s->bodies[i] = make_body(m);
		}
		s->body_count = 3;
		s->pair_count = 3;
		s->pair_a[0] = 0, s->pair_b[0] = 1;
		s->pair_a[1] = 0, s->pair_b[1] = 2;
		s->pair_a[2] = 1, s->pair_b[2] = 2;
		s->force_all = true;
		s->iterations = 50;
		s->pose = pose_e3;
	}
	else if (strcmp(name, "E4") == 0)
	{
		kl_meshgen_robot_arm_params rp = kl_meshgen_default_robot_arm_params();
		for (int i = 0; i < 2; ++i)
		{
			kl_meshgen_mesh m;
			kl_meshgen_robot_arm(&rp, &m);
			s->bodies[i] = make_body(m);
		}
		s->body_count = 2;
		s->pair_count = 1;
		s->pair_a[0] = 0, s->pair_b[0] = 1;
		s->force_all = true;
		s->iterations = 50;
		s->pose = pose_e4;
	}
	else
	{
		fprintf(stderr, "unknown scene %s\n", name);
		exit(2);
	}
}

// ---------------------------------------------------------------------------------------------
// Figures

typedef struct series
{
	double* v;
	int n;
} series;

static void add(series* s, double x)
{
	s->v[s->n++] = x;
}

static int compare_double(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static void summary(const series* s, double* median, double* mean, double* max)
{
	double* c = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(double));
	memcpy(c, s->v, (size_t)s->n * sizeof(double));
	qsort(c, (size_t)s->n, sizeof(double), compare_double);
	*median = s->n > 0 ? c[s->n / 2] : 0.0;
	*mean = 0.0;
	*max = 0.0;
	for (int i = 0; i < s->n; ++i)
	{
		*mean += c[i] / s->n;
		*max = fmax(*max, c[i]);
	}
	free(c);
}

enum stage
{
	STAGE_OBB,
	STAGE_SHELL,
	STAGE_SORT,
	STAGE_TRIANGLE,
	STAGE_TRANSFER,
	STAGE_TOTAL,
	STAGE_COUNT
};

typedef struct backend_figures
{
	const char* name;
	series stage[STAGE_COUNT];
	kl_ps_stats first; ///< the counts of the first iteration, the same pose for every backend
	long long near_total;
} backend_figures;

static void figures_init(backend_figures* f, const char* name, int n)
{
	memset(f, 0, sizeof(*f));
	f->name = name;
	for (int s = 0; s < STAGE_COUNT; ++s)
	{
		f->stage[s].v = calloc((size_t)n + 1, sizeof(double));
	}
}

static void figures_add(backend_figures* f, const kl_ps_stats* st, double total_ms)
{
	if (f->stage[STAGE_TOTAL].n == 0)
	{
		f->first = *st;
	}
	add(&f->stage[STAGE_OBB], st->obb_ms);
	add(&f->stage[STAGE_SHELL], st->shell_ms);
	add(&f->stage[STAGE_SORT], st->sort_ms);
	add(&f->stage[STAGE_TRIANGLE], st->triangle_ms);
	add(&f->stage[STAGE_TRANSFER], st->transfer_ms);
	add(&f->stage[STAGE_TOTAL], total_ms);
	f->near_total += st->near_pairs;
}

static void figures_print(const char* scene_name, const backend_figures* f)
{
	if (f->stage[STAGE_TOTAL].n == 0)
	{
		return;
	}
	static const char* names[STAGE_COUNT] = {"obb", "shell", "sort", "triangle", "transfer", "total"};
	printf("%-4s %-18s n=%-3d", scene_name, f->name, f->stage[STAGE_TOTAL].n);
	for (int s = 0; s < STAGE_COUNT; ++s)
	{
		double median, mean, max;
		summary(&f->stage[s], &median, &mean, &max);
		printf(" %s=%.3f/%.3f/%.3f", names[s], median, mean, max);
	}
	printf(" | first: cong_pairs=%d items=%d raw=%lld unique=%d near=%d\n", f->first.cong_pairs, f->first.items,
		   f->first.raw_candidates, f->first.unique_candidates, f->first.near_pairs);
}

static void figures_free(backend_figures* f)
{
	for (int s = 0; s < STAGE_COUNT; ++s)
	{
		free(f->stage[s].v);
	}
}

// ---------------------------------------------------------------------------------------------
// The BVH side: triangle pairs within the alarm distance

typedef struct bvh_leaf_context
{
	const bench_body* a;
	const bench_body* b;
	kl_transform b_in_a;
} bvh_leaf_context;

static bool bvh_leaf_near(int tri_a, int tri_b, void* ctx)
{
	const bvh_leaf_context* c = ctx;
	vec3s ta[3], tb[3];
	for (int k = 0; k < 3; ++k)
	{
		ta[k] = c->a->mesh.vertices[c->a->mesh.indices[3 * tri_a + k]];
		tb[k] = kl_transform_point(c->b_in_a, c->b->mesh.vertices[c->b->mesh.indices[3 * tri_b + k]]);
	}
	return kl_tri_tri_distance(ta, tb).distance <= ALARM;
}

/// The BVH's within-margin pairs of every scene pair at iteration k; returns their count.
static long long bvh_query(const scene* s, int k, kl_bvh_pair* buffer, int capacity)
{
	long long total = 0;
	for (int p = 0; p < s->pair_count; ++p)
	{
		const bench_body* a = s->bodies[s->pair_a[p]];
		const bench_body* b = s->bodies[s->pair_b[p]];
		kl_transform xa = s->pose(s->pair_a[p], k), xb = s->pose(s->pair_b[p], k);
		kl_transform b_in_a = {kl_inv_transform_point(xa, xb.p), glms_quat_mul(glms_quat_conjugate(xa.q), xb.q)};
		bvh_leaf_context c = {a, b, b_in_a};
		kl_bvh_query q;
		memset(&q, 0, sizeof(q));
		q.mode = KL_BVH_ALL_PAIRS;
		q.traversal = KL_BVH_TRAVERSE_AUTO;
		q.margin = ALARM;
		q.leaf_test = bvh_leaf_near;
		q.ctx = &c;
		q.pairs = buffer;
		q.pair_capacity = capacity;
		kl_bvh_result r;
		kl_bvh_collide(a->bvh, b->bvh, c.b_in_a, &q, &r);
		total += r.pair_count;
	}
	return total;
}

// ---------------------------------------------------------------------------------------------

static void make_queries(const scene* s, int k, kl_ps_pair_query* q)
{
	for (int p = 0; p < s->pair_count; ++p)
	{
		q[p].a = kl_ps_body_make(s->bodies[s->pair_a[p]]->shell, s->pose(s->pair_a[p], k), kl_vec3(1.0f, 1.0f, 1.0f));
		q[p].b = kl_ps_body_make(s->bodies[s->pair_b[p]]->shell, s->pose(s->pair_b[p], k), kl_vec3(1.0f, 1.0f, 1.0f));
		q[p].margin = ALARM;
	}
}

/// Prints the first keys one backend has and the other lacks, with their exact distance.
static void report_mismatch(const scene* s, int k, const kl_ps_batch* cpu, const kl_ps_batch* gpu)
{
	printf("%-4s iteration %d: CPU %u keys, GPU %u keys\n", s->name, k, cpu->key_count, gpu->key_count);
	uint32_t i = 0, j = 0;
	int shown = 0;
	while ((i < cpu->key_count || j < gpu->key_count) && shown < 6)
	{
		uint64_t x = i < cpu->key_count ? cpu->keys[i] : UINT64_MAX;
		uint64_t y = j < gpu->key_count ? gpu->keys[j] : UINT64_MAX;
		if (x == y)
		{
			++i, ++j;
			continue;
		}
		uint64_t key = x < y ? x : y;
		int p = kl_ps_key_pair(key);
		const bench_body* a = s->bodies[s->pair_a[p]];
		const bench_body* b = s->bodies[s->pair_b[p]];
		kl_transform xa = s->pose(s->pair_a[p], k), xb = s->pose(s->pair_b[p], k);
		vec3s ta[3], tb[3];
		for (int v = 0; v < 3; ++v)
		{
			ta[v] = kl_transform_point(xa, a->mesh.vertices[a->mesh.indices[3 * kl_ps_key_tri_a(key) + v]]);
			tb[v] = kl_transform_point(xb, b->mesh.vertices[b->mesh.indices[3 * kl_ps_key_tri_b(key) + v]]);
		}
		printf("  only %s: pair %d triangles (%d, %d), distance %.6f mm\n", x < y ? "CPU" : "GPU", p,
			   kl_ps_key_tri_a(key), kl_ps_key_tri_b(key), 1e3 * kl_tri_tri_distance(ta, tb).distance);
		if (x < y)
		{
			++i;
		}
		else
		{
			++j;
		}
		++shown;
	}
}

static void describe_models(const scene* s)
{
	for (int i = 0; i < s->body_count; ++i)
	{
		const bench_body* b = s->bodies[i];
		bool repeat = false;
		for (int j = 0; j < i; ++j)
		{
			repeat = repeat || s->bodies[j]->mesh.triangle_count == b->mesh.triangle_count;
		}
		if (repeat)
		{
			continue;
		}
		kl_pointshell_memory m = kl_pointshell_memory_of(b->shell);
		int n = b->mesh.triangle_count;
		int leaves = 0;
		for (int k = 0; k < b->shell->node_count; ++k)
		{
			leaves += b->shell->nodes[k].child_count == 0;
		}
		printf("%-4s model: %d triangles, %d conglomerates (%.0f per), %u samples (%.1f per triangle), %d nodes, "
			   "%.1f triangles per leaf (bucket %d), spacing %.2f mm, coverage %.2f mm; bytes per triangle: "
			   "shells %.1f, octrees %.1f, conglomerates %.1f; build %.1f ms (point shell)\n",
			   s->name, n, b->shell->cong_count, (double)n / b->shell->cong_count, b->shell->point_count,
			   (double)b->shell->point_count / n, b->shell->node_count,
			   (double)b->shell->entry_count / (leaves > 0 ? leaves : 1), b->shell->leaf_bucket, 1e3 * b->shell->spacing,
			   1e3 * b->shell->coverage, (double)m.shells / n, (double)m.octrees / n, (double)m.conglomerates / n,
			   b->build_ms);
	}
}

/// The GPU's items of the first iteration, modelled on this thread (pointshell_warp_model.h).
static void print_warp_model(const scene* s)
{
	kl_ps_pair_query q[MAX_PAIRS];
	make_queries(s, 0, q);
	kl_ps_batch batch;
	memset(&batch, 0, sizeof(batch));
	kl_ps_stats stats;
	memset(&stats, 0, sizeof(stats));
	if (kl_ps_plan(q, s->pair_count, s->force_all, &batch, &stats) != KL_OK)
	{
		fprintf(stderr, "plan: %s\n", kl_last_error());
		exit(1);
	}
	ps_warp_model m;
	ps_warp_model_run(&batch, &m);
	double samples = m.samples > 0 ? (double)m.samples : 1.0;
	printf("%-4s warp model (first iteration, 32 items a warp): %lld items (%.0f %% stop at the root), per item %.2f "
		   "node and %.2f entry tests; %lld warps, lock-step steps %lld (%.1f per warp, longest %lld); %lld keys "
		   "offered to the set\n",
		   s->name, m.samples, 100.0 * (double)m.idle / samples, (double)m.nodes / samples,
		   (double)m.entries / samples, m.warps, m.warp_steps, (double)m.warp_steps / (double)(m.warps > 0 ? m.warps : 1),
		   m.worst_warp, m.emits);
	kl_ps_batch_free(&batch);
}

/// Runs one scene; returns how many iterations disagreed (BVH against point shells on the CPU, GPU
/// against CPU keys).
static int run_scene(const char* name, int iterations, int cpu_iterations, int threads, bool gpu, bool warp_model)
{
	scene s;
	build_scene(name, &s);
	if (iterations > 0)
	{
		s.iterations = iterations;
	}
	int cpu_n = cpu_iterations > 0 && cpu_iterations < s.iterations ? cpu_iterations : s.iterations;
	describe_models(&s);
	if (warp_model)
	{
		print_warp_model(&s);
	}
	kl_thread_pool* pool = threads > 1 ? kl_thread_pool_create(threads) : NULL;
	kl_ps_batch cpu_batch, gpu_batch;
	memset(&cpu_batch, 0, sizeof(cpu_batch));
	memset(&gpu_batch, 0, sizeof(gpu_batch));
	backend_figures cpu, dev, bvh;
	char cpu_name[32];
	snprintf(cpu_name, sizeof(cpu_name), "pointshell-cpu(%d)", threads);
	figures_init(&cpu, cpu_name, s.iterations);
	figures_init(&dev, "pointshell-gpu", s.iterations);
	figures_init(&bvh, "simd-bvh", s.iterations);
	int capacity = 1 << 22;
	kl_bvh_pair* pairs = malloc((size_t)capacity * sizeof(kl_bvh_pair));
	int disagreements = 0, gpu_mismatches = 0;
	kl_ps_pair_query q[MAX_PAIRS];
	for (int k = 0; k < s.iterations; ++k)
	{
		make_queries(&s, k, q);
		kl_ps_stats st;
		long long cpu_near = -1;
		if (k < cpu_n)
		{
			double t0 = kl_time_seconds();
			if (kl_ps_search_cpu(q, s.pair_count, s.force_all, pool, threads, &cpu_batch, &st) != KL_OK)
			{
				fprintf(stderr, "cpu search: %s\n", kl_last_error());
				exit(1);
			}
			figures_add(&cpu, &st, 1e3 * (kl_time_seconds() - t0));
			cpu_near = st.near_pairs;
			kl_ps_stats bs;
			memset(&bs, 0, sizeof(bs));
			t0 = kl_time_seconds();
			long long n = bvh_query(&s, k, pairs, capacity);
			bs.near_pairs = (int)n;
			figures_add(&bvh, &bs, 1e3 * (kl_time_seconds() - t0));
			disagreements += n != cpu_near;
		}
		if (gpu)
		{
			double t0 = kl_time_seconds();
			if (kl_ps_search_gpu(q, s.pair_count, s.force_all, &gpu_batch, &st) != KL_OK)
			{
				fprintf(stderr, "gpu search: %s\n", kl_last_error());
				exit(1);
			}
			figures_add(&dev, &st, 1e3 * (kl_time_seconds() - t0));
			if (cpu_near >= 0 && (gpu_batch.key_count != cpu_batch.key_count ||
								  memcmp(gpu_batch.keys, cpu_batch.keys, cpu_batch.key_count * sizeof(uint64_t)) != 0))
			{
				if (gpu_mismatches++ == 0)
				{
					report_mismatch(&s, k, &cpu_batch, &gpu_batch);
				}
			}
		}
	}
	figures_print(s.name, &cpu);
	figures_print(s.name, &dev);
	figures_print(s.name, &bvh);
	printf("%-4s check: BVH and point-shell CPU pair counts differ on %d of %d iterations; GPU and CPU key sets "
		   "differ on %d%s\n",
		   s.name, disagreements, cpu_n, gpu_mismatches, gpu ? "" : " (no GPU run)");
	figures_free(&cpu);
	figures_free(&dev);
	figures_free(&bvh);
	free(pairs);
	kl_ps_batch_free(&cpu_batch);
	kl_ps_batch_free(&gpu_batch);
	if (pool != NULL)
	{
		kl_thread_pool_destroy(pool);
	}
	for (int i = 0; i < s.body_count; ++i)
	{
		free_body(s.bodies[i]);
	}
	return disagreements + gpu_mismatches;
}

int main(int argc, char** argv)
{
	const char* only = NULL;
	int iterations = 0, cpu_iterations = 0, threads = 1;
	bool gpu = true, warp_model = false;
	s_shell_def = kl_pointshell_default_build_def();
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc)
		{
			only = argv[++i];
		}
		else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
		{
			iterations = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--cpu-iterations") == 0 && i + 1 < argc)
		{
			cpu_iterations = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
		{
			threads = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--spacing") == 0 && i + 1 < argc)
		{
			s_shell_def.spacing = (float)atof(argv[++i]);
		}
		else if (strcmp(argv[i], "--grouping") == 0 && i + 1 < argc)
		{
			++i;
			if (strcmp(argv[i], "surface") != 0 && strcmp(argv[i], "median") != 0)
			{
				fprintf(stderr, "--grouping: surface or median, not '%s'\n", argv[i]);
				return 2;
			}
			s_shell_def.grouping = strcmp(argv[i], "surface") == 0 ? KL_PS_GROUP_SURFACE : KL_PS_GROUP_MEDIAN_CUT;
		}
		else if (strcmp(argv[i], "--leaf-bucket") == 0 && i + 1 < argc)
		{
			s_shell_def.leaf_bucket = atoi(argv[++i]);
			if (s_shell_def.leaf_bucket < 1)
			{
				fprintf(stderr, "--leaf-bucket: a positive number of samples\n");
				return 2;
			}
		}
		else if (strcmp(argv[i], "--no-gpu") == 0)
		{
			gpu = false;
		}
		else if (strcmp(argv[i], "--warp-model") == 0)
		{
			warp_model = true;
		}
		else
		{
			fprintf(stderr, "usage: kollide-pointshell-bench [--scene E1a|E1b|E2|E3|E4] [--iterations N] "
							"[--cpu-iterations N] [--threads T] [--spacing S] [--grouping surface|median] "
							"[--leaf-bucket N] [--no-gpu] [--warp-model]\n");
			return 2;
		}
	}
	const char* scenes[] = {"E1a", "E1b", "E2", "E3", "E4"};
	bool known = only == NULL;
	for (int i = 0; i < 5; ++i)
	{
		known = known || strcmp(only, scenes[i]) == 0;
	}
	if (!known)
	{
		fprintf(stderr, "--scene: E1a, E1b, E2, E3 or E4, not '%s'\n", only);
		return 2;
	}
	gpu = gpu && kl_ps_gpu_available();
	printf("# point-shell vs SIMD BVH, alarm %.1f mm, stage ms as median/mean/max; GPU %s\n", 1e3 * ALARM,
		   gpu ? "present" : "absent (CPU figures only)");
	int disagreed = 0;
	for (int i = 0; i < 5; ++i)
	{
		if (only == NULL || strcmp(only, scenes[i]) == 0)
		{
			disagreed += run_scene(scenes[i], iterations, cpu_iterations, threads, gpu, warp_model);
		}
	}
	if (disagreed > 0)
	{
		fprintf(stderr, "kollide-pointshell-bench: %d iterations disagreed (see the check lines)\n", disagreed);
		return 1;
	}
	return 0;
}
