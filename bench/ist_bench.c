// Kollide — inner-sphere tree benchmark (docs/sphere-trees.md). Two measurements, each query repeated
// R times (default 127) and the median taken, on one thread:
//  - swap: two copies of one packed shape approach along x, overlap fully and swap places (the seed's
//    dragon-swap scene, §2.5); per step the penetration-volume query with the scalar, AVX2 and AVX-512
//    walks at branching 4 and 16, and the SIMD walks' speed-up over the scalar one.
//  - haptic: two heavily overlapping trees of N spheres (default 10,000), every walk and branching.
// Until the inner-sphere packer of geometry/ lands, the shape is a torus (major radius 1, minor 0.4)
// packed here: lattices of decreasing spacing, each point taking the largest sphere that fits between
// the surface and the spheres already placed (capped at the lattice spacing), points visited in a
// seeded order, until N spheres. Usage:
//   kollide-ist-bench [--spheres N (5000)] [--haptic-spheres N (10000)] [--steps S (41)] [--reps R (127)]
//                     [--clock cpu|wall (cpu: the thread's CPU time)] [--no-magnification] [--csv FILE]
// SPDX-License-Identifier: MIT
#include "core.h"

#include <kollide/sphere_tree.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TORUS_MAJOR 1.0f
#define TORUS_MINOR 0.4f

// ---------------------------------------------------------------------------------------------------------
// The stand-in packing

/// Placed spheres with a uniform grid over the torus's box; each cell lists the spheres that reach it.
typedef struct packing
{
	kl_sphere* s;
	int count;
	int capacity;
	float cell;
	int dim[3];
	float lo[3];
	int* head;	///< per cell: first entry or −1
	int* entry; ///< pairs (sphere, next entry)
	int entry_count;
	int entry_capacity;
} packing;

static float torus_depth(const float* p)
{
	float q = sqrtf(p[0] * p[0] + p[1] * p[1]) - TORUS_MAJOR;
	return TORUS_MINOR - sqrtf(q * q + p[2] * p[2]);
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/// The cells [lo, hi] a ball of radius r at p covers.
static void cell_range(const packing* pk, const float* p, float r, int* lo, int* hi)
{
	for (int c = 0; c < 3; ++c)
	{
		lo[c] = clampi((int)floorf((p[c] - r - pk->lo[c]) / pk->cell), 0, pk->dim[c] - 1);
		hi[c] = clampi((int)floorf((p[c] + r - pk->lo[c]) / pk->cell), 0, pk->dim[c] - 1);
	}
}

static void add_sphere(packing* pk, const float* p, float r)
{
	pk->s[pk->count] = (kl_sphere){{{p[0], p[1], p[2]}}, r};
	int lo[3];
	int hi[3];
	cell_range(pk, p, r, lo, hi);
	for (int x = lo[0]; x <= hi[0]; ++x)
	{
		for (int y = lo[1]; y <= hi[1]; ++y)
		{
			for (int z = lo[2]; z <= hi[2]; ++z)
			{
				if (!KL_ARRAY_RESERVE(pk->entry, pk->entry_capacity, 2 * pk->entry_count + 2))
				{
					exit(1);
				}
				int cell = (x * pk->dim[1] + y) * pk->dim[2] + z;
				pk->entry[2 * pk->entry_count] = pk->count;
				pk->entry[2 * pk->entry_count + 1] = pk->head[cell];
				pk->head[cell] = pk->entry_count++;
			}
		}
	}
	pk->count += 1;
}

/// The largest radius ≤ cap of a sphere at p inside the torus and clear of the placed spheres.
static float clearance(const packing* pk, const float* p, float cap)
{
	float best = kl_minf(torus_depth(p), cap);
	if (best <= 0.0f)
	{
		return 0.0f;
	}
	int lo[3];
	int hi[3];
	cell_range(pk, p, best, lo, hi);
	for (int x = lo[0]; x <= hi[0]; ++x)
	{
		for (int y = lo[1]; y <= hi[1]; ++y)
		{
			for (int z = lo[2]; z <= hi[2]; ++z)
			{
				for (int e = pk->head[(x * pk->dim[1] + y) * pk->dim[2] + z]; e >= 0; e = pk->entry[2 * e + 1])
				{
					const kl_sphere* s = &pk->s[pk->entry[2 * e]];
					float dx = p[0] - s->center.x;
					float dy = p[1] - s->center.y;
					float dz = p[2] - s->center.z;
					best = kl_minf(best, sqrtf(dx * dx + dy * dy + dz * dz) - s->radius);
					if (best <= 0.0f)
					{
						return 0.0f;
					}
				}
			}
		}
	}
	return best;
}

/// n disjoint spheres inside the torus, largest lattice first.
static kl_sphere* pack_torus(int n)
{
	packing pk = {.capacity = n, .cell = 0.05f};
	pk.s = malloc(sizeof(kl_sphere) * (size_t)n);
	float reach = TORUS_MAJOR + TORUS_MINOR;
	float extent[3] = {reach, reach, TORUS_MINOR};
	for (int c = 0; c < 3; ++c)
	{
		pk.lo[c] = -extent[c];
		pk.dim[c] = (int)ceilf(2.0f * extent[c] / pk.cell);
	}
	pk.head = malloc(sizeof(int) * (size_t)pk.dim[0] * pk.dim[1] * pk.dim[2]);
	memset(pk.head, 0xff, sizeof(int) * (size_t)pk.dim[0] * pk.dim[1] * pk.dim[2]);
	uint64_t rng = 0x2545F4914F6CDD1Dull;
	for (float spacing = 0.2f; pk.count < n && spacing > 1e-3f; spacing *= 0.5f)
	{
		int m[3];
		for (int c = 0; c < 3; ++c)
		{
			m[c] = (int)(2.0f * extent[c] / spacing) + 1;
		}
		int points = m[0] * m[1] * m[2];
		int* order = malloc(sizeof(int) * (size_t)points);
		for (int i = 0; i < points; ++i)
		{
			order[i] = i;
		}
		for (int i = points - 1; i > 0; --i) // seeded shuffle: a cut-off level spreads over the shape
		{
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			int j = (int)(rng % (uint64_t)(i + 1));
			int t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (int i = 0; i < points && pk.count < n; ++i)
		{
			int k = order[i];
			float p[3] = {pk.lo[0] + spacing * (float)(k / (m[1] * m[2])),
						  pk.lo[1] + spacing * (float)((k / m[2]) % m[1]), pk.lo[2] + spacing * (float)(k % m[2])};
			float r = clearance(&pk, p, spacing);
			if (r >= 0.35f * spacing)
			{
				add_sphere(&pk, p, 0.999f * r);
			}
		}
		free(order);
	}
	free(pk.head);
	free(pk.entry);
	if (pk.count < n)
	{
		fprintf(stderr, "kollide-ist-bench: the packing stopped at %d spheres\n", pk.count);
		exit(1);
	}
	return pk.s;
}

// ---------------------------------------------------------------------------------------------------------
// Timing

/// The clock queries are timed with: the thread's CPU time (--clock cpu), which a loaded machine's
/// preemption does not stretch, or the monotonic wall clock (--clock wall).
static clockid_t s_clock = CLOCK_THREAD_CPUTIME_ID;

static double now(void)
{
	struct timespec ts;
	clock_gettime(s_clock, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void* a, const void* b)
{
	double x = *(const double*)a;
	double y = *(const double*)b;
	return (x > y) - (x < y);
}

static const kl_sphere_traversal k_walks[3] = {KL_SPHERE_TRAVERSE_SCALAR, KL_SPHERE_TRAVERSE_AVX2,
											   KL_SPHERE_TRAVERSE_AVX512};
static const char* const k_walk_names[3] = {"scalar", "avx2", "avx512"};

/// Median seconds of reps queries with each walk available for the branching (0 for the others), the
/// walks taking turns query by query so that a machine's changing load falls on all of them alike;
/// and the scalar walk's result.
static void time_walks(const kl_sphere_tree* a, kl_transform pa, const kl_sphere_tree* b, kl_transform pb, int reps,
					   double* median, kl_sphere_overlap_result* r)
{
	kl_sphere_overlap_def def[3];
	double* t[3] = {NULL, NULL, NULL};
	for (int v = 0; v < 3; ++v)
	{
		median[v] = 0.0;
		def[v] = kl_default_sphere_overlap_def();
		def[v].traversal = k_walks[v];
		if (kl_sphere_traversal_available(k_walks[v], kl_sphere_tree_get_info(a).branching))
		{
			t[v] = malloc(sizeof(double) * (size_t)reps);
		}
	}
	if (kl_sphere_tree_overlap(a, pa, b, pb, &def[0], r) != KL_OK)
	{
		fprintf(stderr, "kollide-ist-bench: %s\n", kl_last_error());
		exit(1);
	}
	kl_sphere_overlap_result scratch;
	for (int i = 0; i < reps; ++i)
	{
		for (int v = 0; v < 3; ++v)
		{
			if (t[v] != NULL)
			{
				double t0 = now();
				kl_sphere_tree_overlap(a, pa, b, pb, &def[v], &scratch);
				t[v][i] = now() - t0;
			}
		}
	}
	for (int v = 0; v < 3; ++v)
	{
		if (t[v] != NULL)
		{
			qsort(t[v], (size_t)reps, sizeof(double), compare_doubles);
			median[v] = t[v][reps / 2];
			free(t[v]);
		}
	}
}

/// --no-magnification: trees clustered without volume weights.
static bool s_magnification = true;

static kl_sphere_tree* build(const kl_sphere* s, int n, int branching, double* seconds)
{
	kl_sphere_tree_def def = kl_default_sphere_tree_def();
	def.branching = branching;
	def.magnification = s_magnification;
	double t0 = kl_time_seconds();
	kl_sphere_tree* t = kl_sphere_tree_build(s, n, &def);
	*seconds = kl_time_seconds() - t0;
	if (t == NULL)
	{
		fprintf(stderr, "kollide-ist-bench: %s\n", kl_last_error());
		exit(1);
	}
	return t;
}

/// The swap: A from x = −d to +d, B the other way, B turned a quarter about z (S steps).
static void swap_scene(const kl_sphere* s, int n, int steps, int reps, FILE* csv)
{
	printf("swap: %d spheres per torus, %d steps, median of %d queries per step\n", n, steps, reps);
	const float d = 2.0f * (TORUS_MAJOR + TORUS_MINOR) * 0.55f;
	versors quarter = glms_quatv(GLM_PI_2f, (vec3s){{0.0f, 0.0f, 1.0f}});
	for (int w = 0; w < 2; ++w)
	{
		int branching = w == 0 ? 4 : 16;
		double build_s;
		kl_sphere_tree* t = build(s, n, branching, &build_s);
		kl_sphere_tree_info info = kl_sphere_tree_get_info(t);
		printf("branching %d: %d nodes, depth %d, %.1f KiB, built in %.1f ms\n", branching, info.node_count, info.depth,
			   (double)info.bytes / 1024.0, build_s * 1e3);
		double* ratios[3] = {NULL, malloc(sizeof(double) * (size_t)steps), malloc(sizeof(double) * (size_t)steps)};
		int overlapping = 0;
		double heavy_ratio[3] = {0.0, 0.0, 0.0};
		double heavy_time[3] = {0.0, 0.0, 0.0};
		int heavy_pairs = -1;
		for (int k = 0; k < steps; ++k)
		{
			float x = -d + 2.0f * d * (float)k / (float)(steps - 1);
			kl_transform pa = {{{x, 0.0f, 0.0f}}, glms_quat_identity()};
			kl_transform pb = {{{-x, 0.0f, 0.0f}}, quarter};
			double time[3];
			kl_sphere_overlap_result r;
			time_walks(t, pa, t, pb, reps, time, &r);
			if (csv != NULL)
			{
				fprintf(csv, "%d,%d,%.4f,%d,%.6f,%lld,%.3f,%.3f,%.3f\n", branching, k, (double)x, r.pair_count,
						(double)r.volume, (long long)r.node_visits, time[0] * 1e6, time[1] * 1e6, time[2] * 1e6);
			}
			for (int v = 1; v < 3 && r.pair_count > 0; ++v)
			{
				ratios[v][overlapping] = time[v] > 0.0 ? time[0] / time[v] : 0.0;
			}
			overlapping += r.pair_count > 0 ? 1 : 0;
			if (r.pair_count > heavy_pairs)
			{
				heavy_pairs = r.pair_count;
				for (int v = 0; v < 3; ++v)
				{
					heavy_time[v] = time[v];
					heavy_ratio[v] = time[v] > 0.0 ? time[0] / time[v] : 0.0;
				}
			}
		}
		printf("  heaviest step (%d pairs): scalar %.1f us", heavy_pairs, heavy_time[0] * 1e6);
		for (int v = 1; v < 3; ++v)
		{
			if (heavy_time[v] > 0.0)
			{
				printf(", %s %.1f us (%.2fx)", k_walk_names[v], heavy_time[v] * 1e6, heavy_ratio[v]);
			}
		}
		printf("\n  speed-up over the %d overlapping steps, median [min, max]:", overlapping);
		for (int v = 1; v < 3; ++v)
		{
			qsort(ratios[v], (size_t)overlapping, sizeof(double), compare_doubles);
			if (overlapping > 0 && ratios[v][0] > 0.0)
			{
				printf(" %s %.2fx [%.2f, %.2f]", k_walk_names[v], ratios[v][overlapping / 2], ratios[v][0],
					   ratios[v][overlapping - 1]);
			}
			free(ratios[v]);
		}
		printf("\n");
		kl_sphere_tree_destroy(t);
	}
}

/// Two trees of n spheres, the second shifted by a tenth of the torus's minor diameter and turned a
/// little: nearly every sphere overlaps some of the other's.
static void haptic_scene(const kl_sphere* s, int n, int reps)
{
	printf("haptic: two %d-sphere tori overlapping heavily, median of %d queries, one thread\n", n, reps);
	kl_transform pa = kl_transform_identity();
	kl_transform pb = {{{0.08f, 0.0f, 0.0f}}, glms_quatv(0.05f, (vec3s){{0.0f, 0.0f, 1.0f}})};
	for (int w = 0; w < 2; ++w)
	{
		int branching = w == 0 ? 4 : 16;
		double build_s;
		kl_sphere_tree* t = build(s, n, branching, &build_s);
		printf("branching %d (built in %.1f ms):", branching, build_s * 1e3);
		double time[3];
		kl_sphere_overlap_result r;
		time_walks(t, pa, t, pb, reps, time, &r);
		printf(" scalar %.3f ms (%d pairs, volume %.4f of %.4f per torus, %lld node visits);", time[0] * 1e3,
			   r.pair_count, (double)r.volume, (double)kl_sphere_tree_get_info(t).sphere_volume,
			   (long long)r.node_visits);
		for (int v = 1; v < 3; ++v)
		{
			if (time[v] > 0.0)
			{
				printf(" %s %.3f ms", k_walk_names[v], time[v] * 1e3);
			}
		}
		printf("\n");
		kl_sphere_tree_destroy(t);
	}
}

int main(int argc, char** argv)
{
	int spheres = 5000;
	int haptic_spheres = 10000;
	int steps = 41;
	int reps = 127;
	const char* csv_path = NULL;
	for (int i = 1; i < argc; ++i)
	{
		bool more = i + 1 < argc;
		if (more && strcmp(argv[i], "--spheres") == 0)
		{
			spheres = atoi(argv[++i]);
		}
		else if (more && strcmp(argv[i], "--haptic-spheres") == 0)
		{
			haptic_spheres = atoi(argv[++i]);
		}
		else if (more && strcmp(argv[i], "--steps") == 0)
		{
			steps = atoi(argv[++i]);
		}
		else if (more && strcmp(argv[i], "--reps") == 0)
		{
			reps = atoi(argv[++i]);
		}
		else if (strcmp(argv[i], "--no-magnification") == 0)
		{
			s_magnification = false;
		}
		else if (more && strcmp(argv[i], "--clock") == 0)
		{
			++i;
			s_clock = strcmp(argv[i], "wall") == 0 ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
		}
		else if (more && strcmp(argv[i], "--csv") == 0)
		{
			csv_path = argv[++i];
		}
		else
		{
			fprintf(stderr, "usage: kollide-ist-bench [--spheres N] [--haptic-spheres N] [--steps S] [--reps R] "
							"[--clock cpu|wall] [--no-magnification] [--csv FILE]\n");
			return 2;
		}
	}
	if (spheres < 1 || haptic_spheres < 1 || steps < 2 || reps < 1)
	{
		fprintf(stderr, "kollide-ist-bench: counts must be positive (steps at least 2)\n");
		return 2;
	}
	FILE* csv = csv_path != NULL ? fopen(csv_path, "w") : NULL;
	if (csv_path != NULL && csv == NULL)
	{
		fprintf(stderr, "kollide-ist-bench: cannot write %s\n", csv_path);
		return 1;
	}
	if (csv != NULL)
	{
		fprintf(csv, "branching,step,x,pairs,volume,node_visits,scalar_us,avx2_us,avx512_us\n");
	}
	kl_sphere* s = pack_torus(spheres);
	swap_scene(s, spheres, steps, reps, csv);
	free(s);
	s = pack_torus(haptic_spheres);
	haptic_scene(s, haptic_spheres, reps);
	free(s);
	if (csv != NULL)
	{
		fclose(csv);
	}
	return 0;
}
