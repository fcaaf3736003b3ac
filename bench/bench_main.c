// kollide-bench — runs benchmark scenes and prints one CSV row per scene and thread count:
//   scene,bodies,threads,steps,ms_per_step,hash
// ms_per_step is the median over repeats of the mean step time, after one warm-up step (scenes that
// run themselves warm up as they document: the broadphase scenes skip three updates). The hash
// must agree across repeats and thread counts. --details adds a second CSV section (after a blank
// line) with the statistics of the scenes that report some (the broadphase scenes).
#include "bench_scenes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KL_BENCH_MAX_THREADS 16

typedef struct bench_options
{
	const char* scene;
	int threads[KL_BENCH_MAX_THREADS];
	int thread_count;
	int steps; ///< 0: the scene's default
	int repeats;
	bool details;
	bool gpu;
} bench_options;

// The --details rows, printed after the main table so that it stays one plain CSV block.
static char* s_details;
static size_t s_details_size;

static void add_details(const char* row)
{
	size_t n = strlen(row);
	char* grown = realloc(s_details, s_details_size + n + 2);
	if (grown == NULL)
	{
		return;
	}
	s_details = grown;
	memcpy(s_details + s_details_size, row, n);
	s_details[s_details_size + n] = '\n';
	s_details_size += n + 1;
	s_details[s_details_size] = '\0';
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static void usage(FILE* out)
{
	fprintf(out, "usage: kollide-bench [--scene NAME|all] [--threads T[,T...]] [--steps N] [--repeats R] [--details]"
				 " [--gpu] [--list]\n"
				 "  Prints scene,bodies,threads,steps,ms_per_step,hash (median of R repeats; default 1,2 threads).\n"
				 "  --details adds a second CSV section with per-scene statistics (pair counts, update modes).\n"
				 "  --gpu runs the broadphase scenes' batch path on CUDA where a device exists.\n");
}

static bool parse_int(const char* text, int lo, int hi, int* out)
{
	char* end = NULL;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
	{
		return false;
	}
	*out = (int)v;
	return true;
}

static bool parse_threads(char* text, bench_options* o)
{
	o->thread_count = 0;
	for (char* tok = strtok(text, ","); tok != NULL; tok = strtok(NULL, ","))
	{
		if (o->thread_count == KL_BENCH_MAX_THREADS || !parse_int(tok, 1, 256, &o->threads[o->thread_count]))
		{
			return false;
		}
		o->thread_count++;
	}
	return o->thread_count > 0;
}

static int parse_args(int argc, char** argv, bench_options* o)
{
	for (int i = 1; i < argc; ++i)
	{
		const char* a = argv[i];
		bool has_value = i + 1 < argc;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
		{
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "--list") == 0)
		{
			for (int s = 0; s < kl_bench_scene_count; ++s)
			{
				printf("%-16s %s\n", kl_bench_scenes[s].name, kl_bench_scenes[s].description);
			}
			return 0;
		}
		if (strcmp(a, "--details") == 0)
		{
			o->details = true;
		}
		else if (strcmp(a, "--gpu") == 0)
		{
			o->gpu = true;
		}
		else if (strcmp(a, "--scene") == 0 && has_value)
		{
			o->scene = argv[++i];
		}
		else if (strcmp(a, "--threads") == 0 && has_value)
		{
			if (!parse_threads(argv[++i], o))
			{
				fprintf(stderr, "kollide-bench: --threads takes counts 1..256 separated by commas\n");
				return 2;
			}
		}
		else if (strcmp(a, "--steps") == 0 && has_value)
		{
			if (!parse_int(argv[++i], 1, 1000000, &o->steps))
			{
				fprintf(stderr, "kollide-bench: --steps takes 1..1000000\n");
				return 2;
			}
		}
		else if (strcmp(a, "--repeats") == 0 && has_value)
		{
			if (!parse_int(argv[++i], 1, 1000, &o->repeats))
			{
				fprintf(stderr, "kollide-bench: --repeats takes 1..1000\n");
				return 2;
			}
		}
		else
		{
			fprintf(stderr, "kollide-bench: unknown or incomplete argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	return -1; // run
}

// One repeat of a scene that runs itself.
static bool run_self(const kl_bench_scene* scene, const kl_bench_run_options* options, double* ms,
					 kl_bench_result* result)
{
	*ms = scene->run(scene, options, result);
	if (*ms < 0.0)
	{
		fprintf(stderr, "kollide-bench: scene %s failed\n", scene->name);
		return false;
	}
	return true;
}

static int run_scene(const kl_bench_scene* scene, int threads, const bench_options* o, uint32_t* hash)
{
	int steps = o->steps > 0 ? o->steps : scene->default_steps;
	double samples[1000];
	int bodies = 0;
	kl_bench_result result = {0};
	for (int r = 0; r < o->repeats; ++r)
	{
		if (scene->run != NULL)
		{
			uint32_t h = result.hash;
			// The details row comes from the last repeat.
			kl_bench_run_options ro = {threads, steps, o->details && r == o->repeats - 1, o->gpu};
			if (!run_self(scene, &ro, &samples[r], &result))
			{
				return 1;
			}
			if (r > 0 && result.hash != h)
			{
				fprintf(stderr, "kollide-bench: scene %s is not deterministic across repeats\n", scene->name);
				return 1;
			}
			*hash = result.hash;
			bodies = result.bodies;
			continue;
		}
		kl_world_id world = scene->create(threads);
		if (KL_IS_NULL(world))
		{
			fprintf(stderr, "kollide-bench: scene %s failed: %s\n", scene->name, kl_last_error());
			return 1;
		}
		bodies = kl_world_get_bodies(world, NULL, 0);
		kl_world_step(world, scene->dt, scene->substeps); // warm-up: first step excluded
		double t0 = now_seconds();
		for (int s = 0; s < steps; ++s)
		{
			kl_world_step(world, scene->dt, scene->substeps);
		}
		samples[r] = 1000.0 * (now_seconds() - t0) / steps;
		uint32_t h = kl_world_hash_transforms(world);
		if (r > 0 && h != *hash)
		{
			fprintf(stderr, "kollide-bench: scene %s is not deterministic across repeats\n", scene->name);
			return 1;
		}
		*hash = h;
		kl_destroy_world(world);
	}
	qsort(samples, (size_t)o->repeats, sizeof(double), compare_doubles);
	double median = o->repeats % 2 ? samples[o->repeats / 2]
								   : 0.5 * (samples[o->repeats / 2 - 1] + samples[o->repeats / 2]);
	printf("%s,%d,%d,%d,%.4f,0x%08x\n", scene->name, bodies, threads, steps, median, *hash);
	fflush(stdout);
	if (result.details[0] != '\0')
	{
		add_details(result.details);
	}
	return 0;
}

int main(int argc, char** argv)
{
	bench_options o = {"all", {1, 2}, 2, 0, 5, false, false};
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
	{
		return rc;
	}
	bool all = strcmp(o.scene, "all") == 0;
	bool found = false;
	printf("scene,bodies,threads,steps,ms_per_step,hash\n");
	for (int s = 0; s < kl_bench_scene_count; ++s)
	{
		if (!all && strcmp(o.scene, kl_bench_scenes[s].name) != 0)
		{
			continue;
		}
		found = true;
		uint32_t first_hash = 0;
		for (int t = 0; t < o.thread_count; ++t)
		{
			uint32_t hash = 0;
			if (run_scene(&kl_bench_scenes[s], o.threads[t], &o, &hash) != 0)
			{
				return 1;
			}
			if (t > 0 && hash != first_hash)
			{
				fprintf(stderr, "kollide-bench: scene %s gives a different hash with %d threads\n",
						kl_bench_scenes[s].name, o.threads[t]);
				return 1;
			}
			first_hash = hash;
		}
	}
	if (!found)
	{
		fprintf(stderr, "kollide-bench: no scene named '%s' (see --list)\n", o.scene);
		return 2;
	}
	if (o.details)
	{
		printf("\n%s\n%s", kl_bench_broadphase_details_header, s_details != NULL ? s_details : "");
	}
	free(s_details);
	return 0;
}
