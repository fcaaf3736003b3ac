// Kollide — kollide-collide: boolean, contact or distance queries of one mesh pair over a file of poses
// (OpenCollBench-style), one output line per pose, then the median and mean query time; optionally
// per-vertex cost heatmaps as coloured PLY (collide_heatmap.h).
// SPDX-License-Identifier: MIT
#include "collide_heatmap.h"
#include "pair_core.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum query_kind
{
	QUERY_COLLIDE,
	QUERY_CONTACTS,
	QUERY_DISTANCE,
} query_kind;

typedef struct options
{
	const char* mesh_a;
	const char* mesh_b;
	const char* poses;
	query_kind query;
	bool brute; ///< hidden --method brute: every triangle pair (the reference of the tests)
	int threads;
	kl_bvh_build_def build;
	kl_pair_settings settings;
	bool stats;
	const char* heatmap; ///< output prefix: PREFIX_a.ply, PREFIX_b.ply (NULL: no heatmap)
	kl_heat_settings heat;
	bool heat_options; ///< a --heatmap-* option was given (needs --heatmap)
} options;

/// One pose's answer and its time.
typedef struct pose_result
{
	bool hit;
	kl_pair_contacts contacts;
	double distance;
	double seconds;
	int64_t bv_tests; ///< work of the timed query
	int64_t tri_tests;
	kl_pair_closest closest; ///< --heatmap: found after the timed query
	bool failed;
} pose_result;

typedef struct job
{
	const options* opt;
	const kl_pair_model* a;
	const kl_pair_model* b;
	const kl_pose_file* poses;
	pose_result* results;
	int begin;
	int end;
} job;

static void usage(FILE* out)
{
	fprintf(out,
			"usage: kollide-collide A B --poses FILE [--query collide|contacts|distance] [--method bvh]\n"
			"         [--threads T] [--builder bng|longest|median|middle] [--k 6|14|18|26|32|46]\n"
			"         [--width 2|4|8|16] [--simd auto|scalar] [--margin M] [--fp16] [--stats]\n"
			"         [--heatmap PREFIX [--heatmap-value time|bv|tri|density]\n"
			"          [--heatmap-stat mean|median|min|max|sd|mad] [--heatmap-iqr] [--heatmap-range LO:HI]]\n"
			"Defaults: the engine's tree (8-ary, k = 26, BNG) with SIMD traversal where the CPU allows (AVX2;\n"
			"AVX-512 for --width 16).\n"
			"A, B: OBJ/STL/OFF/PLY files or gen:gear[:teeth], gen:rock[:frequency], gen:screw, gen:nut,\n"
			"gen:bowl, gen:knot. The pose file holds one pose of B in A's frame per line: a row-major\n"
			"4x4 matrix (16 numbers); blank lines and # comments are allowed, \"# rel=X\" starts a group.\n"
			"Prints pose=I collide=0|1, pose=I contacts=N depth=D or pose=I distance=D per pose, then\n"
			"[--stats: per-group timing lines and] queries=N median_us=X mean_us=Y. Build times go to stderr.\n"
			"--heatmap writes PREFIX_a.ply and PREFIX_b.ply: per-vertex statistics (default: median time)\n"
			"of the poses whose closest point lies on a vertex's triangle, coloured, unassigned vertices grey.\n");
}

static bool parse_int(const char* s, int lo, int hi, int* out)
{
	char* end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
	{
		return false;
	}
	*out = (int)v;
	return true;
}

/// Index of value in names, or -1.
static int find_name(const char* value, const char* const* names, int count)
{
	for (int i = 0; i < count; ++i)
	{
		if (strcmp(value, names[i]) == 0)
		{
			return i;
		}
	}
	return -1;
}

/// "LO:HI" with LO < HI, both finite.
static bool parse_range(const char* value, kl_heat_settings* heat)
{
	char* end;
	heat->lo = strtod(value, &end);
	if (end == value || *end != ':')
	{
		return false;
	}
	const char* second = end + 1;
	heat->hi = strtod(second, &end);
	heat->fixed_range = true;
	return end != second && *end == '\0' && isfinite(heat->lo) && isfinite(heat->hi) && heat->lo < heat->hi;
}

static bool parse_heatmap_option(options* o, const char* name, const char* value)
{
	o->heat_options = true;
	if (strcmp(name, "--heatmap-value") == 0)
	{
		int i = find_name(value, kl_heat_value_names, KL_HEAT_VALUE_COUNT);
		o->heat.value = (kl_heat_value)(i >= 0 ? i : 0);
		return i >= 0;
	}
	if (strcmp(name, "--heatmap-stat") == 0)
	{
		int i = find_name(value, kl_heat_stat_names, KL_HEAT_STAT_COUNT);
		o->heat.stat = (kl_heat_stat)(i >= 0 ? i : 0);
		return i >= 0;
	}
	return strcmp(name, "--heatmap-range") == 0 && parse_range(value, &o->heat);
}

static bool parse_option(options* o, const char* name, const char* value)
{
	if (strncmp(name, "--heatmap-", 10) == 0)
	{
		return parse_heatmap_option(o, name, value);
	}
	if (strcmp(name, "--heatmap") == 0)
	{
		o->heatmap = value;
	}
	else if (strcmp(name, "--poses") == 0)
	{
		o->poses = value;
	}
	else if (strcmp(name, "--query") == 0)
	{
		if (strcmp(value, "collide") == 0)
			o->query = QUERY_COLLIDE;
		else if (strcmp(value, "contacts") == 0)
			o->query = QUERY_CONTACTS;
		else if (strcmp(value, "distance") == 0)
			o->query = QUERY_DISTANCE;
		else
			return false;
	}
	else if (strcmp(name, "--method") == 0)
	{
		if (strcmp(value, "bvh") != 0 && strcmp(value, "brute") != 0)
			return false;
		o->brute = strcmp(value, "brute") == 0;
	}
	else if (strcmp(name, "--threads") == 0)
	{
		return parse_int(value, 1, 256, &o->threads);
	}
	else if (strcmp(name, "--builder") == 0)
	{
		static const char* names[KL_BVH_BUILDER_COUNT] = {"longest", "median", "middle", "bng"};
		for (int i = 0; i < KL_BVH_BUILDER_COUNT; ++i)
		{
			if (strcmp(value, names[i]) == 0)
			{
				o->build.builder = (kl_bvh_builder)i;
				return true;
			}
		}
		return false;
	}
	else if (strcmp(name, "--k") == 0)
	{
		return parse_int(value, 6, 46, &o->build.k) && kl_kdop_dirs_get(o->build.k) != NULL;
	}
	else if (strcmp(name, "--width") == 0)
	{
		// Powers of two up to KL_BVH_MAX_WIDTH (16: the AVX-512 1-vs-16 kernels).
		int w = 0;
		if (!parse_int(value, 2, KL_BVH_MAX_WIDTH, &w) || (w & (w - 1)) != 0)
			return false;
		o->build.width = w;
	}
	else if (strcmp(name, "--simd") == 0)
	{
		if (strcmp(value, "scalar") == 0)
			o->settings.traversal = KL_BVH_TRAVERSE_SCALAR;
		else if (strcmp(value, "auto") == 0 || strcmp(value, "avx2") == 0) // "avx2": the older name of auto
			o->settings.traversal = KL_BVH_TRAVERSE_AUTO;
		else
			return false;
	}
	else if (strcmp(name, "--margin") == 0)
	{
		char* end;
		double m = strtod(value, &end);
		if (end == value || *end != '\0' || !(m >= 0.0 && m < 1e30))
			return false;
		o->settings.margin = (float)m;
	}
	else
	{
		return false;
	}
	return true;
}

/// 0: parsed; 2: usage error (message printed); -1: --help.
static int parse_args(int argc, char** argv, options* o)
{
	memset(o, 0, sizeof(*o));
	o->threads = 1;
	o->build = kl_bvh_default_build_def(); // the engine's default tree, so the tool measures what bodies use
	o->settings.traversal = KL_BVH_TRAVERSE_AUTO;
	o->heat.value = KL_HEAT_TIME;
	o->heat.stat = KL_HEAT_MEDIAN;
	int positional = 0;
	for (int i = 1; i < argc; ++i)
	{
		const char* arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			return -1;
		}
		if (strcmp(arg, "--stats") == 0)
		{
			o->stats = true;
		}
		else if (strcmp(arg, "--fp16") == 0)
		{
			o->build.fp16 = true;
		}
		else if (strcmp(arg, "--heatmap-iqr") == 0)
		{
			o->heat.iqr = true;
			o->heat_options = true;
		}
		else if (strncmp(arg, "--", 2) == 0)
		{
			if (i + 1 >= argc || !parse_option(o, arg, argv[i + 1]))
			{
				fprintf(stderr, "kollide-collide: bad or missing value for %s\n", arg);
				return 2;
			}
			++i;
		}
		else if (positional < 2)
		{
			*(positional++ == 0 ? &o->mesh_a : &o->mesh_b) = arg;
		}
		else
		{
			fprintf(stderr, "kollide-collide: unexpected argument '%s'\n", arg);
			return 2;
		}
	}
	if (positional != 2 || o->poses == NULL)
	{
		fprintf(stderr, "kollide-collide: two meshes and --poses FILE are required\n");
		return 2;
	}
	if (o->heat_options && o->heatmap == NULL)
	{
		fprintf(stderr, "kollide-collide: --heatmap-value, --heatmap-stat, --heatmap-iqr and --heatmap-range need "
						"--heatmap PREFIX\n");
		return 2;
	}
	return 0;
}

static void run_pose(const job* j, kl_pair_scratch* scratch, int i)
{
	kl_pair_pose pose;
	kl_pair_pose_make(j->poses->m34 + 12 * (size_t)i, &pose); // checked when the file was read
	pose_result* r = j->results + i;
	double start = kl_pair_now();
	switch (j->opt->query)
	{
		case QUERY_COLLIDE:
			r->hit = kl_pair_collide(j->a, j->b, &pose, &j->opt->settings, scratch, j->opt->brute);
			break;
		case QUERY_CONTACTS:
			r->failed = !kl_pair_contacts_query(j->a, j->b, &pose, &j->opt->settings, scratch, j->opt->brute,
												&r->contacts);
			break;
		case QUERY_DISTANCE:
			r->distance = kl_pair_distance(j->a, j->b, &pose, &j->opt->settings, scratch, j->opt->brute);
			r->failed = r->distance < 0.0;
			break;
	}
	r->seconds = kl_pair_now() - start;
	r->bv_tests = scratch->bv_tests;
	r->tri_tests = scratch->tri_tests;
	// The heatmap's closest triangles come from the exact distance search, outside the timed part.
	if (j->opt->heatmap != NULL && !r->failed &&
		!kl_pair_closest_query(j->a, j->b, &pose, &j->opt->settings, scratch, &r->closest))
	{
		r->failed = true;
	}
}

static void* run_job(void* arg)
{
	const job* j = arg;
	kl_pair_scratch scratch = {0};
	for (int i = j->begin; i < j->end; ++i)
	{
		run_pose(j, &scratch, i);
	}
	kl_pair_scratch_free(&scratch);
	return NULL;
}

/// Splits the poses into contiguous ranges, one per thread.
static bool run_all(const options* o, const kl_pair_model* a, const kl_pair_model* b, const kl_pose_file* poses,
					pose_result* results)
{
	int threads = o->threads < poses->count ? o->threads : poses->count;
	job jobs[256];
	pthread_t ids[256];
	for (int t = 0; t < threads; ++t)
	{
		jobs[t] = (job){o, a, b, poses, results, (int)((long)poses->count * t / threads),
						(int)((long)poses->count * (t + 1) / threads)};
	}
	int started = 0;
	bool ok = true;
	for (int t = 1; t < threads; ++t)
	{
		if (pthread_create(&ids[t], NULL, run_job, &jobs[t]) != 0)
		{
			ok = false;
			break;
		}
		started = t;
	}
	if (ok)
	{
		run_job(&jobs[0]);
	}
	for (int t = 1; t <= started; ++t)
	{
		pthread_join(ids[t], NULL);
	}
	return ok;
}

static void print_results(const options* o, const kl_pose_file* poses, const pose_result* results,
						  const kl_heat_summary* heat)
{
	double* us = malloc(sizeof(double) * (size_t)poses->count);
	if (us == NULL)
	{
		fprintf(stderr, "kollide-collide: out of memory\n");
		return;
	}
	double sum = 0.0;
	for (int i = 0; i < poses->count; ++i)
	{
		const pose_result* r = results + i;
		if (o->query == QUERY_COLLIDE)
			printf("pose=%d collide=%d", i, r->hit ? 1 : 0);
		else if (o->query == QUERY_CONTACTS)
			printf("pose=%d contacts=%d depth=%.9g", i, r->contacts.points, (double)r->contacts.depth);
		else
			printf("pose=%d distance=%.9f", i, r->distance);
		if (o->heatmap != NULL)
		{
			printf(" bv=%lld tri=%lld tri_a=%d tri_b=%d closest=%.9f", (long long)r->bv_tests, (long long)r->tri_tests,
				   r->closest.tri_a, r->closest.tri_b, r->closest.distance);
		}
		printf("\n");
		us[i] = 1e6 * r->seconds;
		sum += us[i];
	}
	if (o->stats)
	{
		for (int g = 0; g < poses->group_count; ++g)
		{
			int n = 0;
			for (int i = 0; i < poses->count; ++i)
			{
				if (poses->group[i] == g)
				{
					us[n++] = 1e6 * results[i].seconds;
				}
			}
			if (n > 0)
			{
				kl_pair_print_group_stats(poses->group_names[g], us, n);
			}
		}
	}
	for (int i = 0; i < poses->count; ++i)
	{
		us[i] = 1e6 * results[i].seconds;
	}
	if (heat != NULL)
	{
		printf("# heatmap value=%s stat=%s iqr=%d min=%.9g max=%.9g removed=%d vertices_a=%d vertices_b=%d\n",
			   kl_heat_value_names[o->heat.value], kl_heat_stat_names[o->heat.stat], o->heat.iqr ? 1 : 0, heat->lo,
			   heat->hi, heat->removed, heat->vertices_a, heat->vertices_b);
	}
	kl_pair_sort(us, poses->count);
	printf("queries=%d median_us=%.3f mean_us=%.3f\n", poses->count, kl_pair_median_sorted(us, poses->count),
		   sum / poses->count);
	free(us);
}

static bool load_model(const char* spec, const options* o, kl_pair_model* m)
{
	char err[512];
	if (!kl_pair_load(spec, m, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-collide: %s\n", err);
		return false;
	}
	if (!kl_pair_prepare(m, &o->build, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-collide: %s: %s\n", spec, err);
		kl_pair_free(m);
		return false;
	}
	fprintf(stderr, "build %s: triangles=%d nodes=%d depth=%d width=%d k=%d build_ms=%.3f prepare_ms=%.3f\n", spec,
			m->triangle_count, m->tree->node_count, m->tree->depth, m->tree->width, m->tree->dirs->k,
			1e3 * m->tree->build_seconds, 1e3 * m->prepare_seconds);
	return true;
}

/// The heatmap PLY files from the poses' times, counters and closest triangles.
static bool write_heatmap(const options* o, const kl_pair_model* a, const kl_pair_model* b, const kl_pose_file* poses,
						  const pose_result* results, kl_heat_summary* heat)
{
	kl_heat_sample* samples = malloc(sizeof(kl_heat_sample) * (size_t)poses->count);
	if (samples == NULL)
	{
		fprintf(stderr, "kollide-collide: out of memory\n");
		return false;
	}
	for (int i = 0; i < poses->count; ++i)
	{
		const pose_result* r = results + i;
		samples[i] = (kl_heat_sample){1e6 * r->seconds, r->bv_tests,		r->tri_tests,
									  r->closest.tri_a, r->closest.tri_b, poses->group[i]};
	}
	char err[512];
	bool ok = kl_heat_write(o->heatmap, a, o->mesh_a, b, o->mesh_b, samples, poses->count, &o->heat, heat, err,
							sizeof(err));
	if (!ok)
	{
		fprintf(stderr, "kollide-collide: heatmap: %s\n", err);
	}
	else
	{
		fprintf(stderr, "heatmap: wrote %s_a.ply and %s_b.ply\n", o->heatmap, o->heatmap);
	}
	free(samples);
	return ok;
}

int main(int argc, char** argv)
{
	options o;
	int rc = parse_args(argc, argv, &o);
	if (rc != 0)
	{
		usage(rc < 0 ? stdout : stderr);
		return rc < 0 ? 0 : rc;
	}
	kl_pose_file poses;
	char err[512];
	if (!kl_pose_file_read(o.poses, &poses, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-collide: %s\n", err);
		return 1;
	}
	kl_pair_model a = {0}, b = {0};
	pose_result* results = calloc((size_t)poses.count, sizeof(pose_result));
	rc = 1;
	if (results != NULL && load_model(o.mesh_a, &o, &a) && load_model(o.mesh_b, &o, &b))
	{
		if (!run_all(&o, &a, &b, &poses, results))
		{
			fprintf(stderr, "kollide-collide: cannot start threads\n");
		}
		else
		{
			rc = 0;
			for (int i = 0; i < poses.count; ++i)
			{
				if (results[i].failed)
				{
					fprintf(stderr, "kollide-collide: pose %d: out of memory\n", i);
					rc = 1;
				}
			}
			kl_heat_summary heat;
			if (rc == 0 && o.heatmap != NULL && !write_heatmap(&o, &a, &b, &poses, results, &heat))
			{
				rc = 1;
			}
			if (rc == 0)
			{
				print_results(&o, &poses, results, o.heatmap != NULL ? &heat : NULL);
			}
		}
	}
	free(results);
	kl_pair_free(&a);
	kl_pair_free(&b);
	kl_pose_file_free(&poses);
	return rc;
}
