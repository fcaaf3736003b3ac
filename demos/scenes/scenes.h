// Kollide scenes — demo, validation and benchmark scenes built through the public API. The viewer,
// kollide-bench and the validation tests run the same definitions, so what the tests check is
// what people see and what the benchmarks time.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

typedef struct kl_scene kl_scene;

struct kl_scene
{
	const char* name;		 ///< snake_case, unique (command lines use it)
	const char* description; ///< one line
	/// Steps a benchmark times (0: not a benchmark scene). Steps are 60 Hz with 4 sub-steps.
	int benchmark_steps;
	/// Changes the world definition before the world is created (sleeping off, gravity...). May be NULL.
	void (*configure)(kl_world_def* def);
	/// Builds the bodies into world; may allocate a state (freed by destroy). False on failure.
	bool (*create)(kl_world_id world, void** state);
	/// Builds the variant of a scene with a random layout drawn from seed (create draws from the
	/// scene's own seed). NULL for scenes without one. A chaotic scene is judged over several seeds.
	bool (*create_seeded)(kl_world_id world, uint32_t seed, void** state);
	/// Builds the scene at a size of count bodies (create builds the scene's own size). NULL for
	/// scenes without a size; box_layers has one (the viewer's --bench-boxes N).
	bool (*create_sized)(kl_world_id world, int count, void** state);
	/// Called before every step (kinematic drivers). May be NULL.
	void (*before_step)(kl_world_id world, void* state, int step_index, float dt);
	/// Frees the state. May be NULL.
	void (*destroy)(void* state);
};

/// Every registered scene, in menu order.
const kl_scene* const* kl_scene_list(int* count);
/// The scene of that name, or NULL.
const kl_scene* kl_scene_find(const char* name);

/// A running scene: its world and state.
typedef struct kl_scene_run
{
	const kl_scene* scene;
	kl_world_id world;
	void* state;
	int step_index;
} kl_scene_run;

/// Creates the world (default def, configured by the scene, with worker_count workers) and builds
/// the scene. Returns false (world destroyed) on failure.
bool kl_scene_start(const kl_scene* scene, int worker_count, kl_scene_run* run);
/// kl_scene_start with the layout drawn from seed (create_seeded); false for scenes without one.
bool kl_scene_start_seeded(const kl_scene* scene, int worker_count, uint32_t seed, kl_scene_run* run);
/// kl_scene_start with count bodies (create_sized); false for scenes without a size.
bool kl_scene_start_sized(const kl_scene* scene, int worker_count, int count, kl_scene_run* run);
/// before_step, then kl_world_step(dt, substeps).
kl_result kl_scene_step(kl_scene_run* run, float dt, int substeps);
void kl_scene_stop(kl_scene_run* run);

// Small builders shared by the scenes.

/// A static ground box with its top face at z = 0 (half extents hx, hy in x and y, 1 m thick).
kl_body_id kl_scene_add_ground(kl_world_id world, float hx, float hy, float friction);
/// A dynamic box at a pose with the given half extents, density and friction.
kl_body_id kl_scene_add_box(kl_world_id world, vec3s position, versors rotation, vec3s half_extents, float density,
							float friction);
