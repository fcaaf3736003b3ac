// Kollide — kollide-sphere-pack: packs a mesh with inner spheres (kl_sphere_pack, docs/inner-spheres.md)
// at several sphere counts and prints, per count, the spheres placed, the volume they cover and the
// time the packing took. (tests/test_sphere_pack.c checks that the spheres stay inside and apart.)
// SPDX-License-Identifier: MIT
#include "pair_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_COUNTS 32

typedef struct options
{
	const char* mesh;
	int counts[MAX_COUNTS];
	int count_total;
	float coverage;
	uint32_t seed;
	int resolution;
	int threads;
} options;

/// The process's CPU seconds (all threads): less sensitive than wall time to a busy machine.
static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE* out)
{
	fprintf(out, "usage: kollide-sphere-pack MESH [--spheres 1000,2000,5000,10000] [--coverage F] [--seed S]\n"
				 "                           [--resolution R] [--threads T]\n"
				 "MESH: an OBJ/STL/OFF/PLY file or gen:NAME[:N] as for kollide-collide. Prints, per sphere count,\n"
				 "the spheres placed, the fraction of the mesh's volume they fill, and the wall and CPU seconds the\n"
				 "packing took.\n");
}

static bool parse_counts(const char* list, options* o)
{
	o->count_total = 0;
	for (const char* s = list; *s != '\0';)
	{
		char token[16];
		size_t len = strcspn(s, ",");
		int v;
		if (o->count_total == MAX_COUNTS || len == 0 || len >= sizeof(token))
		{
			return false;
		}
		memcpy(token, s, len);
		token[len] = '\0';
		if (!kl_pair_parse_int(token, 1, KL_SPHERE_PACK_MAX_SPHERES, &v))
		{
			return false;
		}
		o->counts[o->count_total++] = v;
		s += s[len] == ',' ? len + 1 : len;
	}
	return o->count_total > 0;
}

static bool parse(int argc, char** argv, options* o)
{
	memset(o, 0, sizeof(*o));
	o->counts[0] = 1000;
	o->count_total = 1;
	o->threads = 1;
	for (int i = 1; i < argc; ++i)
	{
		const char* a = argv[i];
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		int n;
		if (a[0] != '-')
		{
			if (o->mesh != NULL)
			{
				return false;
			}
			o->mesh = a;
			continue;
		}
		if (v == NULL)
		{
			return false;
		}
		++i;
		if (strcmp(a, "--spheres") == 0 && parse_counts(v, o))
		{
		}
		else if (strcmp(a, "--coverage") == 0)
		{
			char* end;
			o->coverage = strtof(v, &end);
			if (*end != '\0' || !(o->coverage >= 0.0f && o->coverage < 1.0f))
			{
				return false;
			}
		}
		else if (strcmp(a, "--seed") == 0 && kl_pair_parse_int(v, 0, INT32_MAX, &n))
		{
			o->seed = (uint32_t)n;
		}
		else if (strcmp(a, "--resolution") == 0 && kl_pair_parse_int(v, 0, KL_SPHERE_PACK_MAX_RESOLUTION, &n))
		{
			o->resolution = n;
		}
		else if (strcmp(a, "--threads") == 0 && kl_pair_parse_int(v, 1, 256, &n))
		{
			o->threads = n;
		}
		else
		{
			return false;
		}
	}
	return o->mesh != NULL;
}

int main(int argc, char** argv)
{
	options o;
	if (!parse(argc, argv, &o))
	{
		usage(stderr);
		return 2;
	}
	kl_pair_model model;
	char err[512];
	if (!kl_pair_load(o.mesh, false, NULL, &model, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-sphere-pack: %s\n", err);
		return 1;
	}
	kl_mesh_info info = kl_mesh_get_info(model.mesh);
	printf("# %s: %d triangles, volume %g, threads %d, seed %u\n", o.mesh, info.triangle_count, (double)info.volume,
		   o.threads, o.seed);
	printf("%10s %10s %10s %10s %10s\n", "asked", "spheres", "coverage", "seconds", "cpu_s");
	int status = 0;
	for (int c = 0; c < o.count_total && status == 0; ++c)
	{
		kl_sphere_pack_def def = kl_default_sphere_pack_def();
		def.max_spheres = o.counts[c];
		def.coverage = o.coverage;
		def.seed = o.seed;
		def.resolution = o.resolution;
		def.worker_count = o.threads;
		double t0 = kl_pair_now(), c0 = cpu_seconds();
		kl_sphere_packing* p = kl_sphere_pack(model.mesh, &def);
		double seconds = kl_pair_now() - t0, cpu = cpu_seconds() - c0;
		if (p == NULL)
		{
			fprintf(stderr, "kollide-sphere-pack: %s\n", kl_last_error());
			status = 1;
			break;
		}
		printf("%10d %10d %10.4f %10.3f %10.3f\n", o.counts[c], kl_sphere_packing_count(p),
			   (double)kl_sphere_packing_coverage(p), seconds, cpu);
		kl_sphere_packing_destroy(p);
	}
	kl_pair_free(&model);
	return status;
}
