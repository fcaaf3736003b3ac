// kollide-bench — the scene registry. Every scene runs itself: it sets up, times the updates and
// hands back the mean and a hash. The table holds the broadphase scenes (bench/); the scenes of the
// shared scene library (demos/scenes) with a benchmark step count are added at run time and run
// through kl_bench_library_run.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

/// What a scene hands back for one repeat.
typedef struct kl_bench_result
{
	uint32_t hash;	   ///< must not depend on threads or repeat
	int bodies;		   ///< what the scene counts: bodies, proxies...
	char details[320]; ///< optional row for the --details section ("" when none)
} kl_bench_result;

/// How a scene is run.
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
	int default_steps;
	float dt;	  ///< step of the library scenes (0 for the broadphase scenes)
	int substeps; ///< sub-steps of the library scenes (0 for the broadphase scenes)
	/// Sets up, warms up, times options->steps updates and returns the mean ms per update
	/// (negative on failure).
	double (*run)(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result);
	/// Header of the --details rows the scene writes (NULL: the broadphase header).
	const char* details_header;
};

extern const kl_bench_scene kl_bench_scenes[];
extern const int kl_bench_scene_count;

/// The broadphase scenes (scene_broadphase.c): synthetic motion from bp_motion.c, found by name.
double kl_bench_broadphase(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result);
/// The header of the rows kl_bench_broadphase writes into result->details.
extern const char kl_bench_broadphase_details_header[];

/// Runs the scene-library scene of the same name (scene_library.c): options->steps steps, the first
/// untimed; returns the mean ms of steps 2…N. The details row has kl_bench_library_details_header's
/// columns, with the standing check of scenes that name a body "top" (large_pyramid).
double kl_bench_library_run(const kl_bench_scene* scene, const kl_bench_run_options* options, kl_bench_result* result);
extern const char kl_bench_library_details_header[];
