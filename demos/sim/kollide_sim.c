// kollide-sim — runs a JSON scene headless, optionally writes the body states as CSV, and ends
// with one line of timing and a hash of the final transforms (for scripts and CI).
// SPDX-License-Identifier: MIT
#include <kollide/kollide.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{
	EXIT_LOAD = 1,	// the scene or the CSV file could not be read or written, or a step failed
	EXIT_USAGE = 2, // bad arguments
};

typedef struct sim_options
{
	const char* scene;
	long steps;
	float dt;
	int substeps;
	int threads;
	const char* csv;
	long every;
} sim_options;

static const char* const k_usage =
	"usage: kollide-sim SCENE.json [--steps N] [--dt S] [--substeps K] [--threads T] [--csv FILE] [--every M]\n"
	"\n"
	"Loads a JSON scene (docs/scene-format.md), steps it headless and prints, as the last line:\n"
	"  steps=N ms_per_step=X hash=0xHHHHHHHH\n"
	"where X is the wall time spent in kl_world_step divided by N and the hash is\n"
	"kl_world_hash_transforms of the final state.\n"
	"\n"
	"options:\n"
	"  --steps N      steps to run (default 600)\n"
	"  --dt S         step length in seconds, a number or a fraction such as 1/120 (default 1/60)\n"
	"  --substeps K   solver sub-steps per step, 1 to 64 (default 4)\n"
	"  --threads T    threads stepping the world, the caller's included (default 1);\n"
	"                 results are bit-identical for any T\n"
	"  --csv FILE     write body states to FILE (\"-\": standard output)\n"
	"  --every M      write the states after every M-th step (default 1); the last step is\n"
	"                 always written\n"
	"  --help         show this help\n"
	"\n"
	"CSV columns: step,body,name,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n"
	"  step        the step after which the row was taken (1 to N)\n"
	"  body, name  index of the body in creation order, and its name (empty if none)\n"
	"  px..pz      position of the body origin, world frame (m)\n"
	"  qw..qz      orientation of the body, quaternion [w, x, y, z]\n"
	"  vx..vz      linear velocity of the centre of mass, world frame (m/s)\n"
	"  wx..wz      angular velocity, world frame (rad/s)\n"
	"\n"
	"exit status: 0 success, 1 the scene or CSV file failed, 2 bad arguments\n";

static int usage_error(const char* format, const char* arg)
{
	fprintf(stderr, "kollide-sim: ");
	fprintf(stderr, format, arg);
	fprintf(stderr, "\n(kollide-sim --help shows the usage)\n");
	return EXIT_USAGE;
}

static bool parse_long(const char* text, long lower, long upper, long* out)
{
	char* end = NULL;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || *end != '\0' || errno == ERANGE || v < lower || v > upper)
	{
		return false;
	}
	*out = v;
	return true;
}

/// A positive step length: "0.01" or a fraction "1/60".
static bool parse_dt(const char* text, float* out)
{
	char* end = NULL;
	double v = strtod(text, &end);
	if (end != text && *end == '/')
	{
		const char* denominator = end + 1;
		double d = strtod(denominator, &end);
		v = end != denominator && d != 0.0 ? v / d : NAN;
	}
	if (end == text || *end != '\0' || !(v > 0.0 && v <= 10.0))
	{
		return false;
	}
	*out = (float)v;
	return true;
}

/// Parses argv; returns 0 to run, -1 after --help, or the exit code of a usage error.
static int parse_arguments(int argc, char** argv, sim_options* o)
{
	*o = (sim_options){NULL, 600, 1.0f / 60.0f, 4, 1, NULL, 1};
	for (int i = 1; i < argc; ++i)
	{
		const char* arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
		{
			fputs(k_usage, stdout);
			return -1;
		}
		if (strncmp(arg, "--", 2) != 0)
		{
			if (o->scene != NULL)
			{
				return usage_error("more than one scene given ('%s')", arg);
			}
			o->scene = arg;
			continue;
		}
		// Every option takes a value, as "--name value" or "--name=value".
		const char* value = strchr(arg, '=');
		size_t name_length = value != NULL ? (size_t)(value - arg) : strlen(arg);
		if (value != NULL)
		{
			value += 1;
		}
		else if (i + 1 < argc)
		{
			value = argv[++i];
		}
		else
		{
			return usage_error("option %s needs a value", arg);
		}
		long n = 0;
		bool ok = true;
		if (strncmp(arg, "--steps", name_length) == 0 && name_length == 7)
		{
			ok = parse_long(value, 0, 1000000000L, &o->steps);
		}
		else if (strncmp(arg, "--dt", name_length) == 0 && name_length == 4)
		{
			ok = parse_dt(value, &o->dt);
		}
		else if (strncmp(arg, "--substeps", name_length) == 0 && name_length == 10)
		{
			ok = parse_long(value, 1, 64, &n);
			o->substeps = (int)n;
		}
		else if (strncmp(arg, "--threads", name_length) == 0 && name_length == 9)
		{
			ok = parse_long(value, 1, 256, &n);
			o->threads = (int)n;
		}
		else if (strncmp(arg, "--every", name_length) == 0 && name_length == 7)
		{
			ok = parse_long(value, 1, 1000000000L, &o->every);
		}
		else if (strncmp(arg, "--csv", name_length) == 0 && name_length == 5)
		{
			ok = value[0] != '\0';
			o->csv = value;
		}
		else
		{
			return usage_error("unknown option '%s'", arg);
		}
		if (!ok)
		{
			return usage_error("bad value for %s", arg);
		}
	}
	if (o->scene == NULL)
	{
		return usage_error("%s", "no scene given");
	}
	return 0;
}

/// Names are quoted (RFC 4180) when they hold a separator, a quote or a line break.
static void write_name(FILE* f, const char* name)
{
	if (strpbrk(name, ",\"\r\n") == NULL)
	{
		fputs(name, f);
		return;
	}
	fputc('"', f);
	for (const char* c = name; *c != '\0'; ++c)
	{
		if (*c == '"')
		{
			fputc('"', f);
		}
		fputc(*c, f);
	}
	fputc('"', f);
}

static void write_rows(FILE* f, long step, const kl_body_id* bodies, int count)
{
	for (int i = 0; i < count; ++i)
	{
		kl_transform t = kl_body_get_transform(bodies[i]);
		vec3s v = kl_body_get_linear_velocity(bodies[i]);
		vec3s w = kl_body_get_angular_velocity(bodies[i]);
		fprintf(f, "%ld,%d,", step, i);
		write_name(f, kl_body_get_name(bodies[i]));
		const float values[13] = {t.p.x, t.p.y, t.p.z, t.q.w, t.q.x, t.q.y, t.q.z, v.x, v.y, v.z, w.x, w.y, w.z};
		for (int k = 0; k < 13; ++k)
		{
			fprintf(f, ",%.9g", (double)values[k]);
		}
		fputc('\n', f);
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

/// Steps the world, writing CSV rows after every M-th and the last step; returns the exit code.
static int run(const sim_options* o, kl_world_id world, FILE* csv)
{
	int count = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* bodies = malloc((size_t)(count > 0 ? count : 1) * sizeof(kl_body_id));
	if (bodies == NULL)
	{
		fprintf(stderr, "kollide-sim: out of memory\n");
		return EXIT_LOAD;
	}
	kl_world_get_bodies(world, bodies, count);
	if (csv != NULL)
	{
		fputs("step,body,name,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n", csv);
	}
	double stepping = 0.0;
	for (long step = 1; step <= o->steps; ++step)
	{
		double t0 = now_seconds();
		kl_result r = kl_world_step(world, o->dt, o->substeps);
		stepping += now_seconds() - t0;
		if (r != KL_OK)
		{
			fprintf(stderr, "kollide-sim: step %ld failed: %s\n", step, kl_last_error());
			free(bodies);
			return EXIT_LOAD;
		}
		if (csv != NULL && (step % o->every == 0 || step == o->steps))
		{
			write_rows(csv, step, bodies, count);
		}
	}
	free(bodies);
	double ms = o->steps > 0 ? 1000.0 * stepping / (double)o->steps : 0.0;
	printf("steps=%ld ms_per_step=%.4f hash=0x%08x\n", o->steps, ms, (unsigned)kl_world_hash_transforms(world));
	return 0;
}

int main(int argc, char** argv)
{
	sim_options o;
	int status = parse_arguments(argc, argv, &o);
	if (status != 0)
	{
		return status < 0 ? 0 : status;
	}
	kl_scene_load_options load = kl_default_scene_load_options();
	load.worker_count = o.threads;
	kl_world_id world = kl_scene_load_file(o.scene, &load);
	if (KL_IS_NULL(world))
	{
		fprintf(stderr, "kollide-sim: %s\n", kl_last_error());
		return EXIT_LOAD;
	}
	bool to_stdout = o.csv != NULL && strcmp(o.csv, "-") == 0;
	FILE* csv = to_stdout ? stdout : (o.csv != NULL ? fopen(o.csv, "w") : NULL);
	if (o.csv != NULL && csv == NULL)
	{
		fprintf(stderr, "kollide-sim: cannot write %s: %s\n", o.csv, strerror(errno));
		kl_destroy_world(world);
		return EXIT_LOAD;
	}
	kl_counters c = kl_world_get_counters(world);
	fprintf(to_stdout ? stderr : stdout, "kollide-sim: %s: %d bodies, %d shapes, %d joints, %d thread%s\n", o.scene,
			c.body_count, c.shape_count, c.joint_count, c.worker_count, c.worker_count == 1 ? "" : "s");
	status = run(&o, world, csv);
	if (csv != NULL && csv != stdout && fclose(csv) != 0 && status == 0)
	{
		fprintf(stderr, "kollide-sim: cannot write %s\n", o.csv);
		status = EXIT_LOAD;
	}
	kl_destroy_world(world);
	return status;
}
