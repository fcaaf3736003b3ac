// kollide-bench — runs benchmark scenes and prints one CSV row per scene and thread count:
//   scene,bodies,threads,steps,ms_per_step,hash
// The scene library's benchmark scenes (demos/scenes: Box3D's set, Jolt's pyramid, free_fall,
// box_layers...) step a world: `steps` steps of 60 Hz with 4 sub-steps; the first is excluded and
// ms_per_step is the time of steps 2…N over N − 1, as in Box3D's benchmark program. The broadphase
// scenes (bench/) skip three updates, then time `steps` updates. The value is the median over
// repeats. The hash must agree across repeats and thread counts. --details adds CSV sections (each
// after a blank line and its header) with the statistics of the scenes that report some: the
// broadphase scenes' pair counts, the library scenes' counters and standing check.
// SPDX-License-Identifier: MIT
#include "bench_scenes.h"
#include "scenes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

// The --details rows, one section per header, printed after the main table so that it stays one
// plain CSV block.
#define KL_BENCH_MAX_DETAILS 4

typedef struct details_section
{
	const char* header;
	char* rows;
	size_t size;
} details_section;

static details_section s_details[KL_BENCH_MAX_DETAILS];

static void add_details(const char* header, const char* row)
{
	int k = 0;
	while (k < KL_BENCH_MAX_DETAILS && s_details[k].header != NULL && s_details[k].header != header)
	{
		++k;
	}
	if (k == KL_BENCH_MAX_DETAILS)
	{
		return;
	}
	details_section* d = &s_details[k];
	size_t n = strlen(row);
	char* grown = realloc(d->rows, d->size + n + 2);
	if (grown == NULL)
	{
		return;
	}
	d->header = header;
	d->rows = grown;
	memcpy(d->rows + d->size, row, n);
	d->rows[d->size + n] = '\n';
	d->size += n + 1;
	d->rows[d->size] = '\0';
}

static void print_and_free_details(bool print)
{
	for (int k = 0; k < KL_BENCH_MAX_DETAILS && s_details[k].header != NULL; ++k)
	{
		if (print)
		{
			printf("\n%s\n%s", s_details[k].header, s_details[k].rows);
		}
		free(s_details[k].rows);
		s_details[k] = (details_section){0};
	}
}

// Every scene: the table of bench_scenes.c, then the scene library's scenes. Library scenes that are
// not benchmark scenes (no step count of their own) run only when named, with --steps.
static kl_bench_scene* s_scenes;
static int s_scene_count;

static bool in_table(const char* name)
{
	for (int s = 0; s < kl_bench_scene_count; ++s)
	{
		if (strcmp(kl_bench_scenes[s].name, name) == 0)
		{
			return true;
		}
	}
	return false;
}

static bool gather_scenes(void)
{
	int library_count = 0;
	const kl_scene* const* library = kl_scene_list(&library_count);
	s_scenes = calloc((size_t)(kl_bench_scene_count + library_count), sizeof(kl_bench_scene));
	if (s_scenes == NULL)
	{
		return false;
	}
	memcpy(s_scenes, kl_bench_scenes, sizeof(kl_bench_scene) * (size_t)kl_bench_scene_count);
	s_scene_count = kl_bench_scene_count;
	for (int i = 0; i < library_count; ++i)
	{
		if (!in_table(library[i]->name))
		{
			s_scenes[s_scene_count++] = (kl_bench_scene){
				.name = library[i]->name,
				.description = library[i]->description,
				.default_steps = library[i]->benchmark_steps,
				.dt = 1.0f / 60.0f,
				.substeps = 4,
				.run = kl_bench_library_run,
				.details_header = kl_bench_library_details_header,
			};
		}
	}
	return true;
}

static bool is_library_scene(const kl_bench_scene* scene)
{
	return scene->run == kl_bench_library_run;
}

static int compare_doubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static void usage(FILE* out)
{
	fprintf(out, "usage: kollide-bench [--scene NAME|all|library] [--threads T[,T...]] [--steps N] [--repeats R]"
				 " [--details] [--gpu] [--list]\n"
				 "  Prints scene,bodies,threads,steps,ms_per_step,hash (median of R repeats; default 1,2 threads).\n"
				 "  World scenes take N steps and time steps 2..N (N >= 2); broadphase scenes time N updates.\n"
				 "  --scene library runs the scene library's benchmark scenes (Box3D's set, jolt_pyramid,\n"
				 "  free_fall, box_layers, the mesh scenes): every world scene.\n"
				 "  --details adds CSV sections with per-scene statistics (pair counts, update modes; body,\n"
				 "  shape, joint and contact counters and the standing check of large_pyramid).\n"
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
			for (int s = 0; s < s_scene_count; ++s)
			{
				printf("%-16s %5d  %s\n", s_scenes[s].name, s_scenes[s].default_steps, s_scenes[s].description);
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

// One repeat of a scene.
static bool run_once(const kl_bench_scene* scene, const kl_bench_run_options* options, double* ms,
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
	if (steps == 0)
	{
		fprintf(stderr, "kollide-bench: scene %s is not a benchmark scene: give --steps\n", scene->name);
		return 1;
	}
	if (is_library_scene(scene) && steps < 2)
	{
		fprintf(stderr, "kollide-bench: scene %s steps a world and needs --steps >= 2 (the first is untimed)\n",
				scene->name);
		return 1;
	}
	double samples[1000];
	int bodies = 0;
	kl_bench_result result = {0};
	for (int r = 0; r < o->repeats; ++r)
	{
		// The details row comes from the last repeat.
		kl_bench_run_options ro = {threads, steps, o->details && r == o->repeats - 1, o->gpu};
		if (!run_once(scene, &ro, &samples[r], &result))
		{
			return 1;
		}
		uint32_t h = result.hash;
		bodies = result.bodies;
		if (r > 0 && h != *hash)
		{
			fprintf(stderr, "kollide-bench: scene %s is not deterministic across repeats\n", scene->name);
			return 1;
		}
		*hash = h;
	}
	qsort(samples, (size_t)o->repeats, sizeof(double), compare_doubles);
	double median =
		o->repeats % 2 ? samples[o->repeats / 2] : 0.5 * (samples[o->repeats / 2 - 1] + samples[o->repeats / 2]);
	printf("%s,%d,%d,%d,%.4f,0x%08x\n", scene->name, bodies, threads, steps, median, *hash);
	fflush(stdout);
	if (o->details && result.details[0] != '\0')
	{
		add_details(scene->details_header != NULL ? scene->details_header : kl_bench_broadphase_details_header,
					result.details);
	}
	return 0;
}

static bool selected(const bench_options* o, const kl_bench_scene* scene)
{
	bool benchmark = scene->default_steps > 0;
	return strcmp(o->scene, scene->name) == 0 || (benchmark && strcmp(o->scene, "all") == 0) ||
		   (benchmark && strcmp(o->scene, "library") == 0 && is_library_scene(scene));
}

// Runs the scene for every thread count; the hashes must agree.
static int run_threads(const kl_bench_scene* scene, const bench_options* o)
{
	uint32_t first_hash = 0;
	for (int t = 0; t < o->thread_count; ++t)
	{
		uint32_t hash = 0;
		if (run_scene(scene, o->threads[t], o, &hash) != 0)
		{
			return 1;
		}
		if (t > 0 && hash != first_hash)
		{
			fprintf(stderr, "kollide-bench: scene %s gives a different hash with %d threads\n", scene->name,
					o->threads[t]);
			return 1;
		}
		first_hash = hash;
	}
	return 0;
}

int main(int argc, char** argv)
{
	if (!gather_scenes())
	{
		fprintf(stderr, "kollide-bench: out of memory\n");
		return 1;
	}
	bench_options o = {"all", {1, 2}, 2, 0, 5, false, false};
	int rc = parse_args(argc, argv, &o);
	bool found = false;
	if (rc < 0)
	{
		rc = 0;
		printf("scene,bodies,threads,steps,ms_per_step,hash\n");
		for (int s = 0; s < s_scene_count && rc == 0; ++s)
		{
			if (selected(&o, &s_scenes[s]))
			{
				found = true;
				rc = run_threads(&s_scenes[s], &o);
			}
		}
		if (!found)
		{
			fprintf(stderr, "kollide-bench: no scene named '%s' (see --list)\n", o.scene);
			rc = 2;
		}
	}
	print_and_free_details(rc == 0 && o.details);
	free(s_scenes);
	return rc;
}
