// kollide-bench — the scene registry. A scene builds a world; the runner steps and times it.
#pragma once

#include <kollide/kollide.h>

typedef struct kl_bench_scene
{
	const char* name;
	const char* description;
	/// Builds the world with the given worker count (null id on failure).
	kl_world_id (*create)(int worker_count);
	int default_steps;
	float dt;
	int substeps;
} kl_bench_scene;

extern const kl_bench_scene kl_bench_scenes[];
extern const int kl_bench_scene_count;

kl_world_id kl_bench_free_fall(int worker_count);
