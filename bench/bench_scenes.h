// kollide-bench — the scene registry. A scene builds a world and the runner steps and times it,
// or, for scenes that time something other than kl_world_step, the scene runs itself. The scenes
// of the shared scene library (demos/scenes) with a benchmark step count are added at run time.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

/// What a self-running scene hands back for one repeat.
typedef struct kl_bench_result
{
	uint32_t hash;	   ///< must not depend on threads or repeat
	int bodies;		   ///< what the scene counts: bodies, proxies...
	char details[320]; ///< optional row for the --details section ("" when none)
} kl_bench_result;

/// How a self-running scene is run.
typedef struct kl_bench_run_options
{
	int threads;
	int steps;
	bool details; ///< fill result->details (may be slow: the broadphase scenes compute a reference)
	bool gpu;	  ///< use the CUDA path where the scene has one
} kl_bench_run_options;

typedef struct kl_bench_scene kl_bench_scene;

struct kl_bench_scene
{
	const char* name;
	const char* description;
	/// Builds the world with the given worker count (null id on failure).
	kl_world_id (*create)(int worker_count);
	int default_steps;
	float dt;
	int substeps;
	/// Optional, used instead of create: sets up, warms up, times options->steps updates and
	/// returns the mean ms per update (negative on failure).
	double (*run)(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result);
	/// Header of the --details rows the scene writes (NULL: the broadphase header).
	const char* details_header;
};

extern const kl_bench_scene kl_bench_scenes[];
extern const int kl_bench_scene_count;

kl_world_id kl_bench_free_fall(int worker_count);

/// The broadphase scenes (scene_broadphase.c): synthetic motion from bp_motion.c, found by name.
double kl_bench_broadphase(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result);
/// The header of the rows kl_bench_broadphase writes into result->details.
extern const char kl_bench_broadphase_details_header[];

/// Runs the scene-library scene of the same name (scene_library.c): options->steps steps, the first
/// untimed; returns the mean ms of steps 2…N. The details row has kl_bench_library_details_header's
/// columns, with the standing check of scenes that name a body "top" (large_pyramid).
double kl_bench_library_run(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result);
extern const char kl_bench_library_details_header[];
