// Kollide tests — helpers of the physics validation tests: run a scene of the shared library
// (demos/scenes) at 60 Hz with 4 sub-steps, list its bodies, measure poses, and check that the
// same run on two workers ends in the same state.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

#include "kl_test.h"
#include "scenes.h"

#include <stdlib.h>

#define KL_VAL_DT (1.0f / 60.0f)
#define KL_VAL_SUBSTEPS 4

/// Called once before the first step (step 0) and after every step (step = steps taken).
typedef void kl_val_step_fn(kl_world_id world, int step, void* context);

/// Starts the named scene on `workers` threads; fails the test if it is missing or does not build.
static inline void kl_val_start(const char* name, int workers, kl_scene_run* run)
{
	const kl_scene* scene = kl_scene_find(name);
	if (scene == NULL)
	{
		fail_msg("scene %s is not registered", name);
	}
	if (!kl_scene_start(scene, workers, run))
	{
		fail_msg("scene %s did not build: %s", name, kl_last_error());
	}
}

/// Runs the named scene for `steps` steps, calling fn (may be NULL) before and after each step.
/// Returns the transform hash at the end.
static inline uint32_t kl_val_run(const char* name, int workers, int steps, kl_val_step_fn* fn, void* context)
{
	kl_scene_run run;
	kl_val_start(name, workers, &run);
	if (fn != NULL)
	{
		fn(run.world, 0, context);
	}
	for (int i = 1; i <= steps; ++i)
	{
		assert_int_equal(kl_scene_step(&run, KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
		if (fn != NULL)
		{
			fn(run.world, i, context);
		}
	}
	uint32_t hash = kl_world_hash_transforms(run.world);
	kl_scene_stop(&run);
	return hash;
}

/// Runs the scene again on two workers for the same number of steps and requires the same final
/// state as the single-worker run gave (hash_one_worker).
static inline void kl_val_check_determinism(const char* name, int steps, uint32_t hash_one_worker)
{
	uint32_t hash_two = kl_val_run(name, 2, steps, NULL, NULL);
	printf("  %s determinism after %d steps: 1 worker %08x, 2 workers %08x\n", name, steps, hash_one_worker,
		   hash_two);
	assert_int_equal(hash_one_worker, hash_two);
}

/// The dynamic bodies of world in slot (creation) order; returns their count. *bodies is malloc'd.
static inline int kl_val_dynamic_bodies(kl_world_id world, kl_body_id** bodies)
{
	int total = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* all = malloc((size_t)(total > 0 ? total : 1) * sizeof(kl_body_id));
	assert_non_null(all);
	kl_world_get_bodies(world, all, total);
	int count = 0;
	for (int i = 0; i < total; ++i)
	{
		if (kl_body_get_type(all[i]) == KL_BODY_DYNAMIC)
		{
			all[count++] = all[i];
		}
	}
	*bodies = all;
	return count;
}

/// Rotation angle (rad) between two unit quaternions.
static inline double kl_val_angle_between(versors a, versors b)
{
	double d = fabs((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w);
	return 2.0 * acos(d < 1.0 ? d : 1.0);
}

static inline double kl_val_distance(vec3s a, vec3s b)
{
	double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
	return sqrt(dx * dx + dy * dy + dz * dz);
}

static inline double kl_val_horizontal_distance(vec3s a, vec3s b)
{
	double dx = (double)a.x - b.x, dy = (double)a.y - b.y;
	return sqrt(dx * dx + dy * dy);
}
