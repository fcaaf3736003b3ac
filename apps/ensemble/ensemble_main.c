// kollide-ensemble: runs N perturbed copies of a scene on threads or MPI ranks and prints the
// probability of each outcome region (docs/ensembles.md).
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef KL_ENS_HAVE_MPI
#include <mpi.h>
#endif

static const char* const kl_ens_usage =
	"usage: kollide-ensemble SCENE.json --samples N --perturb BODY:KIND=σ[,σ,σ] [--perturb …]\n"
	"         [--region NAME[@BODY]=xmin,ymin,zmin,xmax,ymax,zmax|sensor:BODY …] --steps S [--dt H] [--substeps K]\n"
	"         [--track BODY …] [--threads T] [--seed K] [--out DIR] [--no-progress]\n"
	"  KIND: position, angle, velocity (σ, σx,σy,σz or the covariance c11,c12,c13,c22,c23,c33),\n"
	"        mass (relative σ), friction (σ)\n"
	"  writes DIR/states.csv, DIR/summary.txt and DIR/heatmap.png; under mpirun, rank 0 reports\n";

#define KL_ENS_MAX_TRACKS 32

typedef struct kl_ens_cli
{
	kl_ens_def def;
	const char* out_dir;
	const char* tracks[KL_ENS_MAX_TRACKS]; ///< bodies whose final-position moments are reported too
	int track_count;
} kl_ens_cli;

static bool kl_ens_parse_int(const char* text, long lo, long hi, long* out)
{
	char* end = NULL;
	errno = 0;
	long v = strtol(text, &end, 10);
	*out = v;
	return text[0] != '\0' && *end == '\0' && errno == 0 && v >= lo && v <= hi;
}

static bool kl_ens_parse_cli(int argc, char** argv, kl_ens_cli* cli, char* error, int capacity)
{
	cli->def = kl_default_ens_def();
	cli->def.progress = true;
	cli->out_dir = NULL;
	cli->track_count = 0;
	kl_ens_def* def = &cli->def;
	for (int i = 1; i < argc; ++i)
	{
		const char* arg = argv[i];
		const char* value = i + 1 < argc ? argv[i + 1] : NULL;
		long n = 0;
		bool takes_value = strncmp(arg, "--", 2) == 0 && strcmp(arg, "--no-progress") != 0;
		if (takes_value && value == NULL)
		{
			return snprintf(error, (size_t)capacity, "%s needs a value", arg), false;
		}
		if (takes_value)
		{
			++i;
		}
		if (strcmp(arg, "--no-progress") == 0)
		{
			def->progress = false;
		}
		else if (strcmp(arg, "--samples") == 0 && kl_ens_parse_int(value, 1, 100000000, &n))
		{
			def->sample_count = (int)n;
		}
		else if (strcmp(arg, "--steps") == 0 && kl_ens_parse_int(value, 0, 10000000, &n))
		{
			def->step_count = (int)n;
		}
		else if (strcmp(arg, "--substeps") == 0 && kl_ens_parse_int(value, 1, 64, &n))
		{
			def->substeps = (int)n;
		}
		else if (strcmp(arg, "--threads") == 0 && kl_ens_parse_int(value, 1, KL_ENS_MAX_THREADS, &n))
		{
			def->thread_count = (int)n;
		}
		else if (strcmp(arg, "--seed") == 0 && kl_ens_parse_int(value, 0, 0x7fffffffffffffffL, &n))
		{
			def->seed = (uint64_t)n;
		}
		else if (strcmp(arg, "--dt") == 0)
		{
			char* end = NULL;
			def->dt = strtof(value, &end);
			if (*end != '\0' || !(def->dt > 0.0f && def->dt <= 1.0f))
			{
				return snprintf(error, (size_t)capacity, "--dt '%s' is not in (0, 1]", value), false;
			}
		}
		else if (strcmp(arg, "--track") == 0)
		{
			if (cli->track_count == KL_ENS_MAX_TRACKS)
			{
				return snprintf(error, (size_t)capacity, "more than %d --track", KL_ENS_MAX_TRACKS), false;
			}
			cli->tracks[cli->track_count++] = value;
		}
		else if (strcmp(arg, "--out") == 0)
		{
			cli->out_dir = value;
		}
		else if (strcmp(arg, "--perturb") == 0)
		{
			if (def->perturb_count == KL_ENS_MAX_PERTURBS)
			{
				return snprintf(error, (size_t)capacity, "more than %d --perturb", KL_ENS_MAX_PERTURBS), false;
			}
			if (!kl_ens_parse_perturb(value, &def->perturbs[def->perturb_count++], error, capacity))
			{
				return false;
			}
		}
		else if (strcmp(arg, "--region") == 0)
		{
			if (def->region_count == KL_ENS_MAX_REGIONS)
			{
				return snprintf(error, (size_t)capacity, "more than %d --region", KL_ENS_MAX_REGIONS), false;
			}
			if (!kl_ens_parse_region(value, &def->regions[def->region_count++], error, capacity))
			{
				return false;
			}
		}
		else if (!takes_value && def->scene_path == NULL && arg[0] != '-')
		{
			def->scene_path = arg;
		}
		else
		{
			return snprintf(error, (size_t)capacity, "bad argument '%s'%s%s", arg, takes_value ? " " : "",
							takes_value ? value : ""),
				   false;
		}
	}
	if (def->scene_path == NULL)
	{
		return snprintf(error, (size_t)capacity, "no scene file given"), false;
	}
	return true;
}

// The lines every run with the same inputs prints identically (wall time is printed apart).
// The lines every run with the same inputs prints identically (wall time is printed apart): the
// regions, then the moments of the perturbed bodies and the tracked ones, each once.
static void kl_ens_summary(const kl_ensemble* ens, const kl_ens_cli* cli, FILE* out)
{
	for (int r = 0; r < ens->def.region_count; ++r)
	{
		fprintf(out, "region %s p=%.4f\n", ens->def.regions[r].name, kl_ens_region_probability(ens, r));
	}
	int bodies[KL_ENS_MAX_PERTURBS + KL_ENS_MAX_TRACKS], count = 0;
	for (int i = 0; i < ens->def.perturb_count + cli->track_count; ++i)
	{
		int b = i < ens->def.perturb_count ? ens->def.perturbs[i].body_index
										   : kl_ens_find_body(ens, cli->tracks[i - ens->def.perturb_count]);
		bool seen = false;
		for (int j = 0; j < count; ++j)
		{
			seen = seen || bodies[j] == b;
		}
		if (seen || b < 0)
		{
			continue;
		}
		bodies[count++] = b;
		double mean[3], cov[9];
		kl_ens_position_moments(ens, b, mean, cov);
		fprintf(out, "mean %s %.6f %.6f %.6f\n", ens->body_names[b], mean[0], mean[1], mean[2]);
		fprintf(out, "covariance %s %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", ens->body_names[b], cov[0], cov[1],
				cov[2], cov[3], cov[4], cov[5], cov[6], cov[7], cov[8]);
	}
	fprintf(out, "hash %08x\n", kl_ens_combined_hash(ens));
}

static bool kl_ens_write_outputs(const kl_ensemble* ens, const kl_ens_cli* cli, char* error, int capacity)
{
	const char* dir = cli->out_dir;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
	{
		return snprintf(error, (size_t)capacity, "cannot create '%s'", dir), false;
	}
	char path[1200];
	snprintf(path, sizeof(path), "%s/states.csv", dir);
	if (!kl_ens_write_csv(ens, path))
	{
		return snprintf(error, (size_t)capacity, "cannot write '%s'", path), false;
	}
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	FILE* file = fopen(path, "w");
	if (file == NULL)
	{
		return snprintf(error, (size_t)capacity, "cannot write '%s'", path), false;
	}
	kl_ens_summary(ens, cli, file);
	fclose(file);
	int body = ens->def.region_count > 0	? ens->def.regions[0].body_index
			   : ens->def.perturb_count > 0 ? ens->def.perturbs[0].body_index
											: -1;
	snprintf(path, sizeof(path), "%s/heatmap.png", dir);
	return body < 0 || kl_ens_write_heatmap(ens, body, path, 64, error, capacity);
}

static double kl_ens_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int kl_ens_main(int argc, char** argv, int rank, int ranks)
{
	kl_ens_cli cli;
	char error[1400] = "";
	kl_ensemble ens;
	if (!kl_ens_parse_cli(argc, argv, &cli, error, sizeof(error)))
	{
		if (rank == 0)
		{
			fprintf(stderr, "kollide-ensemble: %s\n%s", error, kl_ens_usage);
		}
		return 2;
	}
	if (!kl_ens_prepare(&ens, &cli.def, error, sizeof(error)))
	{
		if (rank == 0)
		{
			fprintf(stderr, "kollide-ensemble: %s\n", error);
		}
		return 1;
	}
	for (int i = 0; i < cli.track_count; ++i)
	{
		if (kl_ens_find_body(&ens, cli.tracks[i]) < 0)
		{
			if (rank == 0)
			{
				fprintf(stderr, "kollide-ensemble: --track: no body named '%s' in the scene\n", cli.tracks[i]);
			}
			kl_ens_free(&ens);
			return 1;
		}
	}
	double start = kl_ens_seconds();
	bool ok;
#ifdef KL_ENS_HAVE_MPI
	ok = ranks > 1 ? kl_ens_run_mpi(&ens, error, sizeof(error)) : kl_ens_run_threads(&ens, error, sizeof(error));
#else
	(void)ranks;
	ok = kl_ens_run_threads(&ens, error, sizeof(error));
#endif
	double wall = kl_ens_seconds() - start;
	if (ok && rank == 0)
	{
		kl_ens_summary(&ens, &cli, stdout);
		printf("samples=%d ranks=%d threads=%d wall_s=%.3f\n", cli.def.sample_count, ranks, cli.def.thread_count, wall);
		if (cli.out_dir != NULL)
		{
			ok = kl_ens_write_outputs(&ens, &cli, error, sizeof(error));
		}
	}
	if (!ok)
	{
		fprintf(stderr, "kollide-ensemble: %s\n", error);
	}
	kl_ens_free(&ens);
	return ok ? 0 : 1;
}

#ifdef KL_ENS_HAVE_MPI
// Started by a process manager (Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMIx and Hydra PMI_SIZE)?
// A plain start skips MPI_Init: Open MPI's singleton start costs tenths of a second and leaves
// allocations behind at exit.
static bool kl_ens_under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL || getenv("PMI_SIZE") != NULL;
}
#endif

int main(int argc, char** argv)
{
	int rank = 0, ranks = 1;
#ifdef KL_ENS_HAVE_MPI
	bool mpi = kl_ens_under_mpirun();
	if (mpi)
	{
		MPI_Init(&argc, &argv);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	}
#endif
	int status = kl_ens_main(argc, argv, rank, ranks);
#ifdef KL_ENS_HAVE_MPI
	if (mpi && status != 0 && ranks > 1)
	{
		MPI_Abort(MPI_COMM_WORLD, status);
	}
	if (mpi)
	{
		MPI_Finalize();
	}
#endif
	return status;
}
