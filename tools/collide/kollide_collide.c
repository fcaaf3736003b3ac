// Kollide — kollide-collide: boolean, contact or distance queries of one mesh pair over a file of poses
// (OpenCollBench-style) through the public collision API (kollide/collision.h), with either mesh
// backend or the inner-sphere trees (--method ist: collide, contacts as overlapping sphere pairs, or
// the penetration volume; collide_ist.h), one output line per pose, then the median and mean query
// time; optionally per-vertex cost heatmaps as coloured PLY (collide_heatmap.h).
// SPDX-License-Identifier: MIT
#include "collide_heatmap.h"
#include "collide_ist.h"
#include "pair_core.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum query_kind
{
	QUERY_COLLIDE,
	QUERY_CONTACTS,
	QUERY_DISTANCE,
	QUERY_VOLUME, ///< --method ist only
} query_kind;

typedef struct options
{
	const char* mesh_a;
	const char* mesh_b;
	const char* poses;
	query_kind query;
	int threads;
	kl_collision_model_def build;
	/// --method: backend (bvh, pointshell) or, hidden, brute (exhaustive: every triangle pair, the
	/// reference of the tests); --simd, --margin.
	kl_collision_query_def settings;
	bool ist;	 ///< --method ist: inner-sphere trees
	int spheres; ///< --spheres: inner spheres per mesh (0: not given)
	bool stats;
	const char* heatmap; ///< output prefix: PREFIX_a.ply, PREFIX_b.ply (NULL: no heatmap)
	kl_heat_settings heat;
	bool heat_options; ///< a --heatmap-* option was given (needs --heatmap)
} options;

/// One pose's answer and its time.
typedef struct pose_result
{
	bool hit;
	int points; ///< contacts: points after minimal contact sets
	float depth; ///< contacts: deepest penetration among them
	double distance;
	float volume;	   ///< ist: the intersection volume estimate
	float lens_volume; ///< ist: Σ lens volume of the overlapping sphere pairs
	double seconds;
	kl_collision_counters counters; ///< work of the timed query
	kl_collision_distance_result closest; ///< --heatmap: found after the timed query
	bool failed;
} pose_result;

typedef struct job
{
	const options* opt;
	const kl_pair_model* a;
	const kl_pair_model* b;
	const kl_ist_model* ist_a; ///< --method ist
	const kl_ist_model* ist_b;
	const kl_pose_file* poses;
	pose_result* results;
	int begin;
	int end;
	kl_collision_contact_result* contacts; ///< the thread's contact result (3 kB: not on the stack)
} job;

static void usage(FILE* out)
{
	fprintf(out,
			"usage: kollide-collide A B --poses FILE [--query collide|contacts|distance|volume]\n"
			"         [--method bvh|pointshell|ist] [--spheres N] [--threads T]\n"
			"         [--builder bng|longest|median|middle] [--k 6|14|18|26|32|46]\n"
			"         [--width 2|4|8|16] [--simd auto|scalar] [--margin M] [--fp16] [--stats]\n"
			"         [--heatmap PREFIX [--heatmap-value time|bv|tri|density]\n"
			"          [--heatmap-stat mean|median|min|max|sd|mad] [--heatmap-iqr] [--heatmap-range LO:HI]]\n"
			"Defaults: the engine's tree (8-ary, k = 26, BNG) with SIMD traversal where the CPU allows (AVX2;\n"
			"AVX-512 for --width 16). --method pointshell: the point-shell backend on the same poses (the\n"
			"meshes are built with point shells; the tree options then apply to nothing but the build line).\n"
			"--method ist: each mesh packed with N inner spheres (--spheres, default 10000) and their tree\n"
			"(branching 16; --simd scalar for the scalar walk); --query volume prints pose=I volume=V pairs=N\n"
			"lens_volume=L (V: the solids' intersection volume estimate, L: the sum of lens volumes),\n"
			"contacts the overlapping sphere pairs and their largest depth; no distance or heatmap.\n"
			"A, B: OBJ/STL/OFF/PLY files or gen:gear[:teeth], gen:rock[:frequency], gen:screw, gen:nut,\n"
			"gen:bowl, gen:knot. The pose file holds one pose of B in A's frame per line: a row-major\n"
			"4x4 matrix (16 numbers); blank lines and # comments are allowed, \"# rel=X\" starts a group.\n"
			"Prints pose=I collide=0|1, pose=I contacts=N depth=D or pose=I distance=D per pose, then\n"
			"[--stats: per-group timing lines and] queries=N median_us=X mean_us=Y. Build times go to stderr.\n"
			"--heatmap writes PREFIX_a.ply and PREFIX_b.ply: per-vertex statistics (default: median time)\n"
			"of the poses whose closest point lies on a vertex's triangle, coloured, unassigned vertices grey.\n");
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
		else if (strcmp(value, "volume") == 0)
			o->query = QUERY_VOLUME;
		else
			return false;
	}
	else if (strcmp(name, "--method") == 0)
	{
		if (strcmp(value, "bvh") != 0 && strcmp(value, "pointshell") != 0 && strcmp(value, "brute") != 0 &&
			strcmp(value, "ist") != 0)
			return false;
		o->ist = strcmp(value, "ist") == 0;
		o->settings.exhaustive = strcmp(value, "brute") == 0;
		o->settings.backend = strcmp(value, "pointshell") == 0 ? KL_MESH_BACKEND_POINTSHELL : KL_MESH_BACKEND_BVH;
	}
	else if (strcmp(name, "--spheres") == 0)
	{
		return kl_pair_parse_int(value, 1, KL_SPHERE_PACK_MAX_SPHERES, &o->spheres);
	}
	else if (strcmp(name, "--threads") == 0)
	{
		return kl_pair_parse_int(value, 1, 256, &o->threads);
	}
	else if (strcmp(name, "--builder") == 0)
	{
		static const char* names[KL_COLLISION_BVH_BUILDER_COUNT] = {"bng", "longest", "median", "middle"};
		int i = find_name(value, names, KL_COLLISION_BVH_BUILDER_COUNT);
		o->build.bvh_builder = (kl_collision_bvh_builder)(i >= 0 ? i : 0);
		return i >= 0;
	}
	else if (strcmp(name, "--k") == 0)
	{
		static const char* names[] = {"6", "14", "18", "26", "32", "46"};
		return find_name(value, names, 6) >= 0 && kl_pair_parse_int(value, 6, 46, &o->build.bvh_k);
	}
	else if (strcmp(name, "--width") == 0)
	{
		// Powers of two up to 16 (the AVX-512 1-vs-16 kernels).
		int w = 0;
		if (!kl_pair_parse_int(value, 2, 16, &w) || (w & (w - 1)) != 0)
			return false;
		o->build.bvh_width = w;
	}
	else if (strcmp(name, "--simd") == 0)
	{
		if (strcmp(value, "scalar") == 0)
			o->settings.scalar_traversal = true;
		else if (strcmp(value, "auto") == 0 || strcmp(value, "avx2") == 0) // "avx2": the older name of auto
			o->settings.scalar_traversal = false;
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
	o->build = kl_default_collision_model_def(); // the engine's tree, so the tool measures what bodies use
	o->settings = kl_default_collision_query_def();
	// Every patch a pose gives (the engine keeps KL_COLLISION_ENGINE_MANIFOLDS per body pair).
	o->settings.max_manifolds = KL_COLLISION_MAX_MANIFOLDS;
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
			o->build.bvh_fp16 = true;
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
	if (o->ist ? (o->query == QUERY_DISTANCE || o->heatmap != NULL) : (o->query == QUERY_VOLUME || o->spheres != 0))
	{
		fprintf(stderr, "kollide-collide: --query volume and --spheres need --method ist, which has no distance "
						"query or heatmap\n");
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

/// Reports a failed query (the API's message) and marks the pose.
static void query_failed(pose_result* r, int i, kl_result code)
{
	if (code != KL_OK)
	{
		fprintf(stderr, "kollide-collide: pose %d: %s\n", i, kl_last_error());
		r->failed = true;
	}
}

/// One pose of --method ist.
static void run_ist_pose(const job* j, int i)
{
	kl_collision_pose pose = kl_pair_pose(j->poses->m34 + 12 * (size_t)i);
	pose_result* r = j->results + i;
	kl_sphere_traversal traversal =
		j->opt->settings.scalar_traversal ? KL_SPHERE_TRAVERSE_SCALAR : KL_SPHERE_TRAVERSE_AUTO;
	kl_sphere_overlap_result o;
	double start = kl_pair_now();
	kl_result code = kl_ist_model_query(j->ist_a, j->ist_b, &pose, traversal, &o);
	r->seconds = kl_pair_now() - start;
	r->hit = o.pair_count > 0;
	r->points = o.pair_count;
	r->depth = o.max_depth;
	r->volume = o.intersection_volume;
	r->lens_volume = o.volume;
	query_failed(r, i, code);
}

static void run_pose(const job* j, kl_collision_scratch* scratch, int i)
{
	if (j->opt->ist)
	{
		run_ist_pose(j, i);
		return;
	}
	const kl_collision_model* a = j->a->model;
	const kl_collision_model* b = j->b->model;
	const kl_collision_query_def* def = &j->opt->settings;
	kl_collision_pose identity = kl_collision_pose_identity();
	kl_collision_pose pose = kl_pair_pose(j->poses->m34 + 12 * (size_t)i); // checked when the file was read
	pose_result* r = j->results + i;
	kl_result code = KL_OK;
	double start = kl_pair_now();
	switch (j->opt->query)
	{
		case QUERY_COLLIDE:
		{
			kl_collision_test_result t;
			code = kl_collision_test(a, &identity, b, &pose, def, scratch, &t);
			r->hit = t.hit;
			r->counters = t.counters;
			break;
		}
		case QUERY_CONTACTS:
		{
			kl_collision_contact_result* c = j->contacts;
			code = kl_collision_contacts(a, &identity, b, &pose, def, scratch, c);
			r->points = c->point_count;
			r->depth = c->depth;
			r->counters = c->counters;
			break;
		}
		case QUERY_VOLUME: break; // --method ist only
		case QUERY_DISTANCE:
		{
			kl_collision_distance_result d;
			code = kl_collision_distance(a, &identity, b, &pose, def, scratch, &d);
			r->distance = d.distance;
			r->counters = d.counters;
			break;
		}
	}
	r->seconds = kl_pair_now() - start;
	query_failed(r, i, code);
	// The heatmap's closest triangles come from the exact distance query, outside the timed part; of
	// intersecting meshes it takes the lowest intersecting pair, which no tree or traversal changes.
	if (j->opt->heatmap != NULL && !r->failed)
	{
		kl_collision_query_def closest = *def;
		closest.lowest_pair = true;
		query_failed(r, i, kl_collision_distance(a, &identity, b, &pose, &closest, scratch, &r->closest));
	}
}

static void* run_job(void* arg)
{
	job* j = arg;
	kl_collision_scratch* scratch = kl_collision_scratch_create();
	j->contacts = malloc(sizeof(kl_collision_contact_result));
	if (scratch == NULL || j->contacts == NULL)
	{
		fprintf(stderr, "kollide-collide: out of memory\n");
		for (int i = j->begin; i < j->end; ++i)
		{
			j->results[i].failed = true;
		}
	}
	for (int i = j->begin; scratch != NULL && j->contacts != NULL && i < j->end; ++i)
	{
		run_pose(j, scratch, i);
	}
	free(j->contacts);
	kl_collision_scratch_destroy(scratch);
	return NULL;
}
/// Splits the poses into contiguous ranges, one per thread.
static bool run_all(const options* o, const kl_pair_model* a, const kl_pair_model* b, const kl_ist_model* ist,
					const kl_pose_file* poses, pose_result* results)
{
	int threads = o->threads < poses->count ? o->threads : poses->count;
	job jobs[256];
	pthread_t ids[256];
	for (int t = 0; t < threads; ++t)
	{
		jobs[t] = (job){o, a, b, ist, ist + 1, poses, results, (int)((long)poses->count * t / threads),
						(int)((long)poses->count * (t + 1) / threads), NULL};
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
			printf("pose=%d contacts=%d depth=%.9g", i, r->points, (double)r->depth);
		else if (o->query == QUERY_VOLUME)
			printf("pose=%d volume=%.9g pairs=%d lens_volume=%.9g", i, (double)r->volume, r->points,
				   (double)r->lens_volume);
		else
			printf("pose=%d distance=%.9f", i, r->distance);
		if (o->heatmap != NULL)
		{
			printf(" bv=%lld tri=%lld tri_a=%d tri_b=%d closest=%.9f", (long long)r->counters.bv_tests,
				   (long long)r->counters.triangle_tests, r->closest.triangle_a, r->closest.triangle_b,
				   r->closest.distance);
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
	bool pointshell = !o->settings.exhaustive && o->settings.backend == KL_MESH_BACKEND_POINTSHELL;
	if (!kl_pair_load(spec, pointshell, &o->build, m, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-collide: %s\n", err);
		return false;
	}
	const kl_collision_model_info* i = &m->info;
	fprintf(stderr, "build %s: triangles=%d nodes=%d depth=%d width=%d k=%d build_ms=%.3f prepare_ms=%.3f", spec,
			i->triangle_count, i->bvh_node_count, i->bvh_depth, i->bvh_width, i->bvh_k, 1e3 * i->bvh_build_seconds,
			1e3 * i->prepare_seconds);
	if (pointshell)
	{
		fprintf(stderr, " mesh_ms=%.3f pointshell_bytes=%zu", 1e3 * m->mesh_seconds,
				kl_mesh_get_info(m->mesh).pointshell_bytes);
	}
	fprintf(stderr, "\n");
	return true;
}

/// The inner-sphere tree of a loaded mesh (--method ist); build figures to stderr.
static bool load_ist(const char* spec, const options* o, const kl_pair_model* m, kl_ist_model* out)
{
	char err[512];
	if (!kl_ist_model_load(m, o->spheres > 0 ? o->spheres : 10000, out, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-collide: %s: %s\n", spec, err);
		return false;
	}
	kl_sphere_tree_info info = kl_sphere_tree_get_info(out->tree);
	fprintf(stderr, "ist %s: spheres=%d coverage=%.4f nodes=%d depth=%d pack_ms=%.3f tree_ms=%.3f\n", spec,
			out->sphere_count, (double)out->coverage, info.node_count, info.depth, 1e3 * out->pack_seconds,
			1e3 * out->tree_seconds);
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
		samples[i] = (kl_heat_sample){1e6 * r->seconds,	  r->counters.bv_tests, r->counters.triangle_tests,
									  r->closest.triangle_a, r->closest.triangle_b, poses->group[i]};
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
	kl_ist_model ist[2] = {{0}, {0}};
	pose_result* results = calloc((size_t)poses.count, sizeof(pose_result));
	rc = 1;
	if (results != NULL && load_model(o.mesh_a, &o, &a) && load_model(o.mesh_b, &o, &b) &&
		(!o.ist || (load_ist(o.mesh_a, &o, &a, &ist[0]) && load_ist(o.mesh_b, &o, &b, &ist[1]))))
	{
		if (!run_all(&o, &a, &b, ist, &poses, results))
		{
			fprintf(stderr, "kollide-collide: cannot start threads\n");
		}
		else
		{
			rc = 0;
			for (int i = 0; i < poses.count; ++i)
			{
				rc = results[i].failed ? 1 : rc; // the query's message is printed
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
	kl_ist_model_free(&ist[0]);
	kl_ist_model_free(&ist[1]);
	kl_pair_free(&a);
	kl_pair_free(&b);
	kl_pose_file_free(&poses);
	return rc;
}
