// Kollide — kollide-poses: the configuration generator of the OpenCollBench "sphere method"
// (docs/collide.md, design BENCHMARKS.md §2). A stays at the identity; for each relative distance rel and
// each of N poses: a direction u uniform on the sphere and a uniform random rotation R (Shoemake), B's
// AABB centre placed at cA + s·u, s chosen so that the true minimum distance is rel·rA (rel 0: barely
// penetrating). Writes one row-major 4×4 matrix per line, with a "# rel=X" comment per group.
// SPDX-License-Identifier: MIT
#include "pair_core.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RELS 16
#define POSES_PI 3.14159265358979323846

typedef struct options
{
	const char* mesh_a;
	const char* mesh_b;
	const char* output;
	double rel[MAX_RELS];
	int rel_count;
	int count;
	uint64_t seed;
	int threads;
} options;

/// One pose to solve: its random draws and, once solved, s and the distance reached.
typedef struct pose_task
{
	double rel;
	double u[3];
	double r[3][3];
	double s;
	double distance;
	int steps;
	bool converged;
	bool failed;
} pose_task;

typedef struct job
{
	const kl_pair_model* a;
	const kl_pair_model* b;
	pose_task* tasks;
	int begin;
	int end;
} job;

static void usage(FILE* out)
{
	fprintf(out, "usage: kollide-poses A B -o FILE [--rel 0,0.2,0.4] [--count N (100)] [--seed S (1)] [--threads T]\n"
				 "A, B: OBJ/STL/OFF/PLY files or gen:NAME[:N] as for kollide-collide. Writes N poses of B in A's frame\n"
				 "per relative distance rel (minimum distance rel * rA; rel 0 = barely penetrating).\n");
}

static uint64_t next_random(uint64_t* state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/// Uniform in [0, 1).
static double uniform(uint64_t* state)
{
	return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

/// A direction uniform on the sphere (z uniform in [−1, 1], azimuth uniform).
static void random_direction(uint64_t* state, double u[3])
{
	double z = 2.0 * uniform(state) - 1.0, phi = 2.0 * POSES_PI * uniform(state);
	double rho = sqrt(fmax(0.0, 1.0 - z * z));
	u[0] = rho * cos(phi), u[1] = rho * sin(phi), u[2] = z;
}

/// Shoemake's uniform random rotation (Graphics Gems III): a uniform unit quaternion from three uniforms.
static void random_rotation(uint64_t* state, double r[3][3])
{
	double u1 = uniform(state), u2 = 2.0 * POSES_PI * uniform(state), u3 = 2.0 * POSES_PI * uniform(state);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	double x = a * sin(u2), y = a * cos(u2), z = b * sin(u3), w = b * cos(u3);
	r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
	r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
	r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

/// The pose with B's centre at cA + s·u: x_a = R·(x_b − cB) + cA + s·u.
static void task_m34(const kl_pair_model* a, const kl_pair_model* b, const pose_task* t, double s, double m34[12])
{
	for (int row = 0; row < 3; ++row)
	{
		const double* cb = b->info.center;
		double rc = t->r[row][0] * cb[0] + t->r[row][1] * cb[1] + t->r[row][2] * cb[2];
		for (int c = 0; c < 3; ++c)
		{
			m34[4 * row + c] = t->r[row][c];
		}
		m34[4 * row + 3] = a->info.center[row] + s * t->u[row] - rc;
	}
}

/// The exact minimum distance at s (the BVH distance query), or -1 when the query failed.
static double distance_at(const job* j, const pose_task* t, double s, kl_collision_scratch* scratch)
{
	double m34[12];
	task_m34(j->a, j->b, t, s, m34);
	kl_collision_pose identity = kl_collision_pose_identity(), pose = kl_pair_pose(m34);
	kl_collision_distance_result d;
	if (kl_collision_distance(j->a->model, &identity, j->b->model, &pose, NULL, scratch, &d) != KL_OK)
	{
		fprintf(stderr, "kollide-poses: %s\n", kl_last_error());
		return -1.0;
	}
	return d.distance;
}

/// Moves B in from outside both bounding spheres. The distance changes by at most δ when B moves by δ,
/// so stepping in by (d − target) never passes the outermost s where the distance is target (sphere
/// tracing): the search ends at that s from outside, to within 1e-6·rA. rel 0 then steps in by at least
/// 1e-5·rA until the meshes intersect, bisects the last step down to 1e-6·rA and goes 1e-6·(|cA| + rA)
/// deeper, which leaves B barely penetrating (a translation of at most ~1e-5·rA along u separates
/// them) but past float rounding.
static void solve_task(const job* j, pose_task* t, kl_collision_scratch* scratch)
{
	double ra = j->a->info.radius, rb = j->b->info.radius, target = t->rel * ra;
	double s = ra + rb + target + 1e-3 * ra, s_out = s;
	double tol = 1e-6 * ra, min_step = t->rel > 0.0 ? 0.0 : 1e-5 * ra;
	t->converged = false;
	for (t->steps = 0; t->steps < 100000; ++t->steps)
	{
		double d = distance_at(j, t, s, scratch);
		if (d < 0.0)
		{
			t->failed = true;
			return;
		}
		if (t->rel > 0.0 && d - target <= tol)
		{
			t->s = s, t->distance = d, t->converged = true;
			return;
		}
		if (t->rel == 0.0 && d == 0.0)
		{
			break;
		}
		s_out = s;
		s -= fmax(d - target, min_step);
		if (s < -(ra + rb))
		{
			break; // went through: give up on this pose (reported)
		}
	}
	if (t->rel > 0.0 || s < -(ra + rb) || t->steps == 100000)
	{
		t->s = s, t->distance = -1.0;
		return;
	}
	double s_in = s;
	while (s_out - s_in > tol)
	{
		double mid = 0.5 * (s_in + s_out);
		double d = distance_at(j, t, mid, scratch);
		if (d < 0.0)
		{
			t->failed = true;
			return;
		}
		*(d == 0.0 ? &s_in : &s_out) = mid;
	}
	// One step deeper by float rounding at the meshes' coordinates: a pose that penetrates by less
	// than that is intersecting in double but may not be once the vertices are floats, so tests
	// in float (Kollide) and in double (FCL) would both be right and disagree.
	const double* c = j->a->info.center;
	double push = 1e-6 * (sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) + ra);
	double d = distance_at(j, t, s_in - push, scratch);
	t->s = d == 0.0 ? s_in - push : s_in;
	t->distance = 0.0, t->converged = true;
}

static void* run_job(void* arg)
{
	const job* j = arg;
	kl_collision_scratch* scratch = kl_collision_scratch_create();
	for (int i = j->begin; i < j->end; ++i)
	{
		if (scratch != NULL)
		{
			solve_task(j, j->tasks + i, scratch);
		}
		else
		{
			j->tasks[i].failed = true; // out of memory
		}
	}
	kl_collision_scratch_destroy(scratch);
	return NULL;
}

static bool parse_rels(const char* text, options* o)
{
	const char* p = text;
	o->rel_count = 0;
	while (*p != '\0')
	{
		char* end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno != 0 || !(v >= 0.0 && v <= 100.0) || o->rel_count == MAX_RELS)
		{
			return false;
		}
		o->rel[o->rel_count++] = v;
		p = end;
		if (*p == ',')
		{
			++p;
		}
		else if (*p != '\0')
		{
			return false;
		}
	}
	return o->rel_count > 0;
}

static bool parse_option(options* o, const char* name, const char* value)
{
	char* end;
	errno = 0;
	if (strcmp(name, "--rel") == 0)
	{
		return parse_rels(value, o);
	}
	if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0)
	{
		o->output = value;
		return true;
	}
	if (strcmp(name, "--seed") == 0)
	{
		o->seed = strtoull(value, &end, 0);
		return errno == 0 && end != value && *end == '\0';
	}
	long v = strtol(value, &end, 10);
	bool ok = errno == 0 && end != value && *end == '\0';
	if (strcmp(name, "--count") == 0 && ok && v >= 1 && v <= 10000000)
	{
		o->count = (int)v;
		return true;
	}
	if (strcmp(name, "--threads") == 0 && ok && v >= 1 && v <= 256)
	{
		o->threads = (int)v;
		return true;
	}
	return false;
}

/// 0: parsed; 2: usage error; -1: --help.
static int parse_args(int argc, char** argv, options* o)
{
	memset(o, 0, sizeof(*o));
	o->rel[0] = 0.0, o->rel[1] = 0.2, o->rel[2] = 0.4, o->rel_count = 3;
	o->count = 100, o->seed = 1, o->threads = 1;
	int positional = 0;
	for (int i = 1; i < argc; ++i)
	{
		const char* arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			return -1;
		}
		if (arg[0] == '-' && arg[1] != '\0')
		{
			if (i + 1 >= argc || !parse_option(o, arg, argv[i + 1]))
			{
				fprintf(stderr, "kollide-poses: bad or missing value for %s\n", arg);
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
			fprintf(stderr, "kollide-poses: unexpected argument '%s'\n", arg);
			return 2;
		}
	}
	if (positional != 2 || o->output == NULL)
	{
		fprintf(stderr, "kollide-poses: two meshes and -o FILE are required\n");
		return 2;
	}
	return 0;
}

/// The random draws happen here, in pose order, so the file depends only on the seed (not on threads).
static pose_task* make_tasks(const options* o)
{
	int n = o->rel_count * o->count;
	pose_task* tasks = calloc((size_t)n, sizeof(pose_task));
	if (tasks == NULL)
	{
		return NULL;
	}
	uint64_t state = o->seed;
	for (int g = 0; g < o->rel_count; ++g)
	{
		for (int i = 0; i < o->count; ++i)
		{
			pose_task* t = tasks + g * o->count + i;
			t->rel = o->rel[g];
			random_direction(&state, t->u);
			random_rotation(&state, t->r);
		}
	}
	return tasks;
}

static bool solve_all(const options* o, const kl_pair_model* a, const kl_pair_model* b, pose_task* tasks, int n)
{
	int threads = o->threads < n ? o->threads : n;
	job jobs[256];
	pthread_t ids[256];
	for (int t = 0; t < threads; ++t)
	{
		jobs[t] = (job){a, b, tasks, (int)((long)n * t / threads), (int)((long)n * (t + 1) / threads)};
	}
	int started = 0;
	bool ok = true;
	for (int t = 1; t < threads && ok; ++t)
	{
		ok = pthread_create(&ids[t], NULL, run_job, &jobs[t]) == 0;
		started = ok ? t : started;
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

static bool write_poses(const options* o, const kl_pair_model* a, const kl_pair_model* b, const pose_task* tasks)
{
	FILE* f = fopen(o->output, "w");
	if (f == NULL)
	{
		fprintf(stderr, "kollide-poses: cannot write '%s': %s\n", o->output, strerror(errno));
		return false;
	}
	fprintf(f, "# kollide-poses A=%s B=%s rA=%.9f rB=%.9f seed=%llu count=%d\n", o->mesh_a, o->mesh_b, a->info.radius,
			b->info.radius, (unsigned long long)o->seed, o->count);
	fprintf(f, "# row-major 4x4 matrices mapping B's file coordinates into A's frame\n");
	for (int g = 0; g < o->rel_count; ++g)
	{
		fprintf(f, "# rel=%g target=%.9f\n", o->rel[g], o->rel[g] * a->info.radius);
		for (int i = 0; i < o->count; ++i)
		{
			const pose_task* t = tasks + g * o->count + i;
			double m34[12];
			task_m34(a, b, t, t->s, m34);
			for (int k = 0; k < 12; ++k)
			{
				fprintf(f, "%.12g ", m34[k]);
			}
			fprintf(f, "0 0 0 1\n");
		}
	}
	bool ok = ferror(f) == 0;
	ok = (fclose(f) == 0) && ok;
	if (!ok)
	{
		fprintf(stderr, "kollide-poses: error writing '%s'\n", o->output);
	}
	return ok;
}

static bool load_model(const char* spec, kl_pair_model* m)
{
	char err[512];
	kl_collision_model_def def = kl_default_collision_model_def(); // the engine's tree
	if (!kl_pair_load(spec, false, &def, m, err, sizeof(err)))
	{
		fprintf(stderr, "kollide-poses: %s\n", err);
		return false;
	}
	return true;
}

/// Poses the search could not place (a pass-through or no convergence) are reported, and fail the run.
static int count_failures(const options* o, const pose_task* tasks, int n)
{
	int failures = 0;
	for (int i = 0; i < n; ++i)
	{
		if (!tasks[i].converged)
		{
			fprintf(stderr, "kollide-poses: rel=%g pose %d: %s\n", tasks[i].rel, i % o->count,
					tasks[i].failed ? "the distance query failed" : "distance search did not converge");
			failures += 1;
		}
	}
	return failures;
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
	kl_pair_model a = {0}, b = {0};
	if (!load_model(o.mesh_a, &a) || !load_model(o.mesh_b, &b))
	{
		kl_pair_free(&a);
		return 1;
	}
	int n = o.rel_count * o.count;
	pose_task* tasks = make_tasks(&o);
	rc = 1;
	double start = kl_pair_now();
	if (tasks == NULL || !solve_all(&o, &a, &b, tasks, n))
	{
		fprintf(stderr, "kollide-poses: out of memory or cannot start threads\n");
	}
	else if (count_failures(&o, tasks, n) == 0 && write_poses(&o, &a, &b, tasks))
	{
		int steps = 0;
		for (int i = 0; i < n; ++i)
		{
			steps += tasks[i].steps;
		}
		fprintf(stderr, "kollide-poses: %d poses, %.1f distance steps per pose, %.3f s\n", n, (double)steps / n,
				kl_pair_now() - start);
		rc = 0;
	}
	free(tasks);
	kl_pair_free(&a);
	kl_pair_free(&b);
	return rc;
}
