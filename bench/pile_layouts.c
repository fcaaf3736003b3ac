// Kollide — the mesh pile over many seeded layouts. The pile is chaotic: any change to contacts or
// the solver reshuffles the heap, so one layout says little about a change; its rare failures (a part
// driven deep in the drop, two parts left interlocked) show only over tens of layouts.
// Usage: kollide-pile-layouts [FIRST (1)] [LAST (10)] [--steps N (360)]
// One line per layout (seed), then a summary. Layouts are independent: run ranges in parallel
// processes and add the lines up (docs/mesh-narrowphase.md).
// SPDX-License-Identifier: MIT
#include "scenes.h"

#include <kollide/kollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PILE_MAX_BODIES 64
#define PILE_DT (1.0f / 60.0f)
#define PILE_SUBSTEPS 4
#define PILE_LANDING_STEPS 30
#define PILE_DROP_LIMIT 0.010f // deepest contact in the drop (m)
#define PILE_REST_LIMIT 0.003f // deepest contact at rest (m)

typedef struct layout_result
{
	int settled; ///< asleep, or slower than 2 cm/s
	int asleep;
	int bodies;
	int below_ground; ///< origins below z = -5 cm: fallen through
	float max_speed;  ///< of the awake bodies
	float rest_depth; ///< deepest contact at the end
	float drop_depth; ///< deepest contact seen at any step
	double landing_ms; ///< mean step time over the first PILE_LANDING_STEPS steps
	double mean_ms;	   ///< over all steps
} layout_result;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/// Most contact manifolds read per body: a part in the heap has up to ~60 (16 per body pair).
#define PILE_MAX_MANIFOLDS 1024

/// The deepest contact point of the body's contacts (0 when none penetrates).
static float deepest_contact(kl_body_id body)
{
	static kl_contact_data data[PILE_MAX_MANIFOLDS];
	int count = kl_body_get_contact_data(body, data, PILE_MAX_MANIFOLDS);
	if (count > PILE_MAX_MANIFOLDS)
	{
		fprintf(stderr, "kollide-pile-layouts: %d contact manifolds on a body, read %d\n", count, PILE_MAX_MANIFOLDS);
	}
	float deepest = 0.0f;
	for (int i = 0; i < count && i < PILE_MAX_MANIFOLDS; ++i)
	{
		for (int k = 0; k < data[i].point_count; ++k)
		{
			deepest = fmaxf(deepest, -data[i].points[k].separation);
		}
	}
	return deepest;
}

static bool run_layout(uint32_t seed, int steps, layout_result* r)
{
	memset(r, 0, sizeof(*r));
	const kl_scene* scene = kl_scene_find("mesh_pile");
	kl_scene_run run;
	if (scene == NULL || !kl_scene_start_seeded(scene, 1, seed, &run))
	{
		return false;
	}
	kl_body_id bodies[PILE_MAX_BODIES];
	int count = kl_world_get_bodies(run.world, bodies, PILE_MAX_BODIES);
	count = count < PILE_MAX_BODIES ? count : PILE_MAX_BODIES;
	double total = 0.0;
	for (int s = 0; s < steps; ++s)
	{
		double start = now_ms();
		if (kl_scene_step(&run, PILE_DT, PILE_SUBSTEPS) != KL_OK)
		{
			kl_scene_stop(&run);
			return false;
		}
		double ms = now_ms() - start;
		total += ms;
		r->landing_ms += s < PILE_LANDING_STEPS ? ms / PILE_LANDING_STEPS : 0.0;
		for (int b = 0; b < count; ++b)
		{
			r->drop_depth = fmaxf(r->drop_depth, deepest_contact(bodies[b]));
		}
	}
	r->mean_ms = total / (double)steps;
	for (int b = 0; b < count; ++b)
	{
		if (kl_body_get_type(bodies[b]) != KL_BODY_DYNAMIC)
		{
			continue;
		}
		r->bodies += 1;
		float speed = glms_vec3_norm(kl_body_get_linear_velocity(bodies[b]));
		bool awake = kl_body_is_awake(bodies[b]);
		r->settled += !awake || speed < 0.02f;
		r->asleep += !awake;
		r->max_speed = awake ? fmaxf(r->max_speed, speed) : r->max_speed;
		r->below_ground += kl_body_get_position(bodies[b]).z < -0.05f;
		r->rest_depth = fmaxf(r->rest_depth, deepest_contact(bodies[b]));
	}
	kl_scene_stop(&run);
	return true;
}

static int compare_double(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

int main(int argc, char** argv)
{
	int first = 1, last = 10, steps = 360, positional = 0;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
		{
			steps = atoi(argv[++i]);
		}
		else if (positional < 2 && atoi(argv[i]) > 0)
		{
			*(positional++ == 0 ? &first : &last) = atoi(argv[i]);
		}
		else
		{
			fprintf(stderr, "usage: kollide-pile-layouts [FIRST] [LAST] [--steps N]\n");
			return 2;
		}
	}
	if (last < first || steps < PILE_LANDING_STEPS)
	{
		fprintf(stderr, "kollide-pile-layouts: need FIRST <= LAST and at least %d steps\n", PILE_LANDING_STEPS);
		return 2;
	}
	int layouts = last - first + 1, full = 0, short_of_29 = 0, deep_drops = 0, deep_rests = 0, fallen = 0;
	float worst_drop = 0.0f, worst_rest = 0.0f;
	double* landing = malloc(sizeof(double) * (size_t)layouts);
	if (landing == NULL)
	{
		return 1;
	}
	for (int seed = first; seed <= last; ++seed)
	{
		layout_result r;
		if (!run_layout((uint32_t)seed, steps, &r))
		{
			fprintf(stderr, "kollide-pile-layouts: seed %d failed: %s\n", seed, kl_last_error());
			free(landing);
			return 1;
		}
		printf("seed=%d settled=%d/%d asleep=%d max_speed=%.3f rest_mm=%.2f drop_mm=%.2f fallen=%d landing_ms=%.1f "
			   "mean_ms=%.1f\n",
			   seed, r.settled, r.bodies, r.asleep, (double)r.max_speed, 1e3 * (double)r.rest_depth,
			   1e3 * (double)r.drop_depth, r.below_ground, r.landing_ms, r.mean_ms);
		fflush(stdout);
		full += r.settled == r.bodies;
		short_of_29 += r.settled < r.bodies - 1;
		deep_drops += r.drop_depth > PILE_DROP_LIMIT;
		deep_rests += r.rest_depth > PILE_REST_LIMIT;
		fallen += r.below_ground > 0;
		worst_drop = fmaxf(worst_drop, r.drop_depth);
		worst_rest = fmaxf(worst_rest, r.rest_depth);
		landing[seed - first] = r.landing_ms;
	}
	qsort(landing, (size_t)layouts, sizeof(double), compare_double);
	printf("layouts=%d settled_in_full=%d short_of_29=%d drop_over_10mm=%d worst_drop_mm=%.2f rest_over_3mm=%d "
		   "worst_rest_mm=%.2f fallen=%d median_landing_ms=%.1f\n",
		   layouts, full, short_of_29, deep_drops, 1e3 * (double)worst_drop, deep_rests, 1e3 * (double)worst_rest,
		   fallen, landing[layouts / 2]);
	free(landing);
	return 0;
}
