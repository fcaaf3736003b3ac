// kollide-bench — the scenes of the shared scene library (demos/scenes) that declare a benchmark
// step count: Box3D's benchmark set and Jolt's pyramid. They run through kl_scene_start and
// kl_scene_step, exactly as the viewer and the tests run them. N steps of 60 Hz with 4 sub-steps
// are taken; the first (which builds every contact) is excluded and the result is the time of
// steps 2…N divided by N − 1, as Box3D's benchmark program measures.
// SPDX-License-Identifier: MIT
#include "bench_scenes.h"
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char kl_bench_library_details_header[] =
	"scene,threads,bodies,shapes,joints,pairs,contacts,awake_bodies,first_step_ms,check,top_dz,min_z_drop";

/// How far the top body may move sideways, how much of its height it may lose, and how far any
/// dynamic body may sink below the lowest start height before a stack counts as fallen
/// (large_pyramid: top within 0.25 m sideways and 2 % of its 99.5 m height, no cube below 0.4 m).
/// Soft contacts compress a 100-layer pyramid by a few millimetres per layer (docs/solver.md),
/// so the height criterion is relative; a collapse drops the top by metres.
static const float k_top_tolerance = 0.25f;
static const float k_top_sag_fraction = 0.02f;
static const float k_sink_tolerance = 0.1f;

/// The standing check of the stacking scenes: it applies to scenes with a body named "top".
typedef struct standing_check
{
	kl_body_id top;
	float top_z0;
	float top_x0;
	float top_y0;
	float min_z0;
} standing_check;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return 1000.0 * (double)ts.tv_sec + 1.0e-6 * (double)ts.tv_nsec;
}

/// Lowest z of the dynamic bodies' origins (+inf when there is none).
static float lowest_dynamic_z(kl_world_id world)
{
	int count = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* bodies = malloc(sizeof(kl_body_id) * (size_t)(count > 0 ? count : 1));
	float lowest = INFINITY;
	if (bodies == NULL)
	{
		return lowest;
	}
	count = kl_world_get_bodies(world, bodies, count);
	for (int i = 0; i < count; ++i)
	{
		if (kl_body_get_type(bodies[i]) == KL_BODY_DYNAMIC)
		{
			lowest = fminf(lowest, kl_body_get_position(bodies[i]).z);
		}
	}
	free(bodies);
	return lowest;
}

static standing_check standing_begin(kl_world_id world)
{
	standing_check c = {kl_world_find_body(world, "top"), 0.0f, 0.0f, 0.0f, 0.0f};
	if (KL_IS_NON_NULL(c.top))
	{
		c.top_z0 = kl_body_get_position(c.top).z;
		c.top_x0 = kl_body_get_position(c.top).x;
		c.top_y0 = kl_body_get_position(c.top).y;
		c.min_z0 = lowest_dynamic_z(world);
	}
	kl_clear_error(); // a scene without a "top" body is not an error
	return c;
}

/// Writes "check,top_dz,min_z_drop": standing, FELL or "-" (no check).
static void standing_end(kl_world_id world, const standing_check* c, char* text, size_t size)
{
	if (KL_IS_NULL(c->top))
	{
		snprintf(text, size, "-,-,-");
		return;
	}
	vec3s top = kl_body_get_position(c->top);
	float top_dz = top.z - c->top_z0;
	float sideways = hypotf(top.x - c->top_x0, top.y - c->top_y0);
	float drop = c->min_z0 - lowest_dynamic_z(world);
	bool standing = sideways <= k_top_tolerance && -top_dz <= k_top_sag_fraction * fabsf(c->top_z0) &&
					drop <= k_sink_tolerance;
	snprintf(text, size, "%s,%.4f,%.4f", standing ? "standing" : "FELL", top_dz, drop);
}

double kl_bench_library_run(const kl_bench_scene* bench, const kl_bench_run_options* options, kl_bench_result* result)
{
	const kl_scene* scene = kl_scene_find(bench->name);
	if (scene == NULL || options->steps < 2)
	{
		fprintf(stderr, "kollide-bench: %s: %s\n", bench->name,
				scene == NULL ? "not in the scene library" : "library scenes need --steps >= 2 (the first is untimed)");
		return -1.0;
	}
	kl_scene_run run;
	if (!kl_scene_start(scene, options->threads, &run))
	{
		fprintf(stderr, "kollide-bench: %s: could not be built: %s\n", scene->name, kl_last_error());
		kl_scene_stop(&run);
		return -1.0;
	}
	standing_check check = standing_begin(run.world);
	double t0 = now_ms();
	kl_result step = kl_scene_step(&run, bench->dt, bench->substeps);
	double first_ms = now_ms() - t0;
	t0 = now_ms();
	for (int s = 1; s < options->steps && step == KL_OK; ++s)
	{
		step = kl_scene_step(&run, bench->dt, bench->substeps);
	}
	double total_ms = now_ms() - t0;
	if (step != KL_OK)
	{
		fprintf(stderr, "kollide-bench: %s: step failed: %s\n", scene->name, kl_last_error());
		kl_scene_stop(&run);
		return -1.0;
	}
	kl_counters counters = kl_world_get_counters(run.world);
	result->hash = kl_world_hash_transforms(run.world);
	result->bodies = counters.body_count;
	char standing[96];
	standing_end(run.world, &check, standing, sizeof(standing));
	snprintf(result->details, sizeof(result->details), "%s,%d,%d,%d,%d,%d,%d,%d,%.3f,%s", scene->name,
			 options->threads, counters.body_count, counters.shape_count, counters.joint_count, counters.pair_count,
			 counters.contact_count, counters.awake_body_count, first_ms, standing);
	kl_scene_stop(&run);
	return total_ms / (double)(options->steps - 1);
}
