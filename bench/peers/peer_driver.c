// Kollide — the shared driver of the peer-library mesh-pair benchmarks (see peer_driver.h). Meshes and
// pose files go through tools/collide/pair_core, so a peer sees the very same triangles and poses as
// kollide-collide, and the output lines are printed by the same format strings.
// SPDX-License-Identifier: MIT
#include "peer_driver.h"

#include "pair_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct peer_options
{
	const char* mesh_a;
	const char* mesh_b;
	const char* poses;
	bool stats;
} peer_options;

static void usage(FILE* out, const kl_peer_backend* backend)
{
	fprintf(out,
			"usage: %s A B --poses FILE [--query collide] [--stats]\n"
			"A, B: OBJ/STL/OFF files or gen:NAME[:N] as for kollide-collide. Runs the peer library's boolean\n"
			"query of B posed in A's frame for every pose of the file and prints, in kollide-collide's format,\n"
			"pose=I collide=0|1 per pose, [--stats: per-group timing lines and] queries=N median_us=X\n"
			"mean_us=Y. Build times go to stderr.\n",
			backend->tool);
}

/// 0: parsed; 2: usage error (message printed); -1: --help.
static int parse_args(int argc, char** argv, const kl_peer_backend* backend, peer_options* o)
{
	memset(o, 0, sizeof(*o));
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
		else if (strcmp(arg, "--poses") == 0 && i + 1 < argc)
		{
			o->poses = argv[++i];
		}
		else if (strcmp(arg, "--query") == 0 && i + 1 < argc && strcmp(argv[i + 1], "collide") == 0)
		{
			++i; // the only query a peer answers here
		}
		else if (strncmp(arg, "--", 2) == 0)
		{
			fprintf(stderr, "%s: bad or missing value for %s (this peer takes --poses FILE, --query collide and --stats)\n",
					backend->tool, arg);
			return 2;
		}
		else if (positional < 2)
		{
			*(positional++ == 0 ? &o->mesh_a : &o->mesh_b) = arg;
		}
		else
		{
			fprintf(stderr, "%s: unexpected argument '%s'\n", backend->tool, arg);
			return 2;
		}
	}
	if (positional != 2 || o->poses == NULL)
	{
		fprintf(stderr, "%s: two meshes and --poses FILE are required\n", backend->tool);
		return 2;
	}
	return 0;
}

static bool print_results(const peer_options* o, const kl_pose_file* poses, const bool* hits, const double* seconds)
{
	double* us = malloc(sizeof(double) * (size_t)poses->count);
	if (us == NULL)
	{
		return false;
	}
	double sum = 0.0;
	for (int i = 0; i < poses->count; ++i)
	{
		printf("pose=%d collide=%d\n", i, hits[i] ? 1 : 0);
		sum += 1e6 * seconds[i];
	}
	for (int g = 0; o->stats && g < poses->group_count; ++g)
	{
		int n = 0;
		for (int i = 0; i < poses->count; ++i)
		{
			if (poses->group[i] == g)
			{
				us[n++] = 1e6 * seconds[i];
			}
		}
		if (n > 0)
		{
			kl_pair_print_group_stats(poses->group_names[g], us, n);
		}
	}
	for (int i = 0; i < poses->count; ++i)
	{
		us[i] = 1e6 * seconds[i];
	}
	kl_pair_sort(us, poses->count);
	printf("queries=%d median_us=%.3f mean_us=%.3f\n", poses->count, kl_pair_median_sorted(us, poses->count),
		   sum / poses->count);
	free(us);
	return true;
}

/// Loads a mesh through pair_core and builds the peer's model of it (timed).
static void* load_model(const kl_peer_backend* backend, const char* spec, kl_pair_model* mesh)
{
	char err[512] = {0};
	if (!kl_pair_load(spec, false, NULL, mesh, err, sizeof(err)))
	{
		fprintf(stderr, "%s: %s\n", backend->tool, err);
		return NULL;
	}
	// The engine's mesh (welded, degenerate triangles dropped), as kollide-collide queries it.
	kl_peer_mesh view = {spec, (const float*)mesh->vertices, mesh->vertex_count, mesh->indices, mesh->triangle_count};
	double start = kl_pair_now();
	void* model = backend->build(&view, err, sizeof(err));
	double seconds = kl_pair_now() - start;
	if (model == NULL)
	{
		fprintf(stderr, "%s: %s: %s\n", backend->tool, spec, err);
		return NULL;
	}
	fprintf(stderr, "build %s: triangles=%d nodes=%d bv=%s build_ms=%.3f prepare_ms=0.000\n", spec,
			mesh->triangle_count, backend->node_count(model), backend->bv, 1e3 * seconds);
	return model;
}

/// One query per pose, in file order; the pose is set before the clock starts, as kollide-collide
/// converts its pose before timing.
static bool run_all(const kl_peer_backend* backend, void* query, const kl_pose_file* poses, bool* hits,
					double* seconds)
{
	for (int i = 0; i < poses->count; ++i)
	{
		backend->set_pose(query, poses->m34 + 12 * (size_t)i);
		bool failed = false;
		char err[512] = {0};
		double start = kl_pair_now();
		hits[i] = backend->collide(query, &failed, err, sizeof(err));
		seconds[i] = kl_pair_now() - start;
		if (failed)
		{
			fprintf(stderr, "%s: pose %d: %s\n", backend->tool, i, err);
			return false;
		}
	}
	return true;
}

int kl_peer_main(int argc, char** argv, const kl_peer_backend* backend)
{
	peer_options o;
	int rc = parse_args(argc, argv, backend, &o);
	if (rc != 0)
	{
		usage(rc < 0 ? stdout : stderr, backend);
		return rc < 0 ? 0 : rc;
	}
	kl_pose_file poses;
	char err[512] = {0};
	if (!kl_pose_file_read(o.poses, &poses, err, sizeof(err)))
	{
		fprintf(stderr, "%s: %s\n", backend->tool, err);
		return 1;
	}
	kl_pair_model mesh_a = {0}, mesh_b = {0};
	void *a = NULL, *b = NULL, *query = NULL;
	bool* hits = calloc((size_t)poses.count, sizeof(bool));
	double* seconds = calloc((size_t)poses.count, sizeof(double));
	rc = 1;
	if (hits == NULL || seconds == NULL)
	{
		fprintf(stderr, "%s: out of memory\n", backend->tool);
	}
	else if ((a = load_model(backend, o.mesh_a, &mesh_a)) != NULL &&
			 (b = load_model(backend, o.mesh_b, &mesh_b)) != NULL)
	{
		query = backend->query_create(a, b, err, sizeof(err));
		if (query == NULL)
		{
			fprintf(stderr, "%s: %s\n", backend->tool, err);
		}
		else if (run_all(backend, query, &poses, hits, seconds))
		{
			rc = print_results(&o, &poses, hits, seconds) ? 0 : 1;
		}
	}
	if (query != NULL)
	{
		backend->query_destroy(query);
	}
	if (b != NULL)
	{
		backend->destroy(b);
	}
	if (a != NULL)
	{
		backend->destroy(a);
	}
	kl_pair_free(&mesh_a);
	kl_pair_free(&mesh_b);
	free(hits);
	free(seconds);
	kl_pose_file_free(&poses);
	return rc;
}
