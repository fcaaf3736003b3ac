// kollide-bench — runs benchmark scenes and prints one CSV row per scene and thread count:
//   scene,bodies,threads,steps,ms_per_step,hash
// ms_per_step is the median over repeats of the mean step time, after one warm-up step.
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
} bench_options;

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
	fprintf(out, "usage: kollide-bench [--scene NAME|all] [--threads T[,T...]] [--steps N] [--repeats R] [--list]\n"
				 "  Prints scene,bodies,threads,steps,ms_per_step,hash (median of R repeats; default 1,2 threads).\n");
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
		if (strcmp(a, "--scene") == 0 && has_value)
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

static int run_scene(const kl_bench_scene* scene, int threads, const bench_options* o)
{
	int steps = o->steps > 0 ? o->steps : scene->default_steps;
	double samples[1000];
	uint32_t hash = 0;
	int bodies = 0;
	for (int r = 0; r < o->repeats; ++r)
	{
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
		if (r > 0 && h != hash)
		{
			fprintf(stderr, "kollide-bench: scene %s is not deterministic across repeats\n", scene->name);
			return 1;
		}
		hash = h;
		kl_destroy_world(world);
	}
	qsort(samples, (size_t)o->repeats, sizeof(double), compare_doubles);
	double median = o->repeats % 2 ? samples[o->repeats / 2]
								   : 0.5 * (samples[o->repeats / 2 - 1] + samples[o->repeats / 2]);
	printf("%s,%d,%d,%d,%.4f,0x%08x\n", scene->name, bodies, threads, steps, median, hash);
	fflush(stdout);
	return 0;
}

int main(int argc, char** argv)
{
	bench_options o = {"all", {1, 2}, 2, 0, 5};
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
		for (int t = 0; t < o.thread_count; ++t)
		{
			if (run_scene(&kl_bench_scenes[s], o.threads[t], &o) != 0)
			{
				return 1;
			}
		}
	}
	if (!found)
	{
		fprintf(stderr, "kollide-bench: no scene named '%s' (see --list)\n", o.scene);
		return 2;
	}
	return 0;
}
