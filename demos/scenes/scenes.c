// Kollide scenes — the registry and the runner.
// SPDX-License-Identifier: MIT
#include "scenes.h"

#include <stdlib.h>
#include <string.h>

// Each scene is one file, <kind>_<name>.c (kind: demo, validation or bench), that defines
// `const kl_scene kl_scene_<name>`; list it here, in menu order.
// -- demo scenes (the viewer's menu starts with them)
extern const kl_scene kl_scene_falling_boxes;
extern const kl_scene kl_scene_dominoes;
extern const kl_scene kl_scene_joint_chain;
extern const kl_scene kl_scene_ragdoll;
extern const kl_scene kl_scene_tumbler;
extern const kl_scene kl_scene_robot_arm;
extern const kl_scene kl_scene_urdf_arm;
// -- mesh scenes (non-convex triangle meshes against each other)
extern const kl_scene kl_scene_mesh_pile;
extern const kl_scene kl_scene_gear_train;
extern const kl_scene kl_scene_screw_block;
extern const kl_scene kl_scene_bowl_stack;
extern const kl_scene kl_scene_penalty_meshes;
// -- benchmark scenes (Box3D's set, BENCHMARKS.md; Jolt's pyramid; Kollide's own)
extern const kl_scene kl_scene_large_pyramid;
extern const kl_scene kl_scene_many_pyramids;
extern const kl_scene kl_scene_convex_pile;
extern const kl_scene kl_scene_joint_grid;
extern const kl_scene kl_scene_washer;
extern const kl_scene kl_scene_junkyard;
extern const kl_scene kl_scene_jolt_pyramid;
extern const kl_scene kl_scene_free_fall;
extern const kl_scene kl_scene_box_layers;
// -- validation scenes
extern const kl_scene kl_scene_vertical_stack;
extern const kl_scene kl_scene_pyramid;
extern const kl_scene kl_scene_mass_ratio;
extern const kl_scene kl_scene_friction_ramp;
extern const kl_scene kl_scene_restitution_row;
extern const kl_scene kl_scene_card_house;
// -- joint scenes

static const kl_scene* const scenes[] = {
	// -- demo scenes
	&kl_scene_falling_boxes,
	&kl_scene_dominoes,
	&kl_scene_joint_chain,
	&kl_scene_ragdoll,
	&kl_scene_tumbler,
	&kl_scene_robot_arm,
	&kl_scene_urdf_arm,
	// -- mesh scenes
	&kl_scene_mesh_pile,
	&kl_scene_gear_train,
	&kl_scene_screw_block,
	&kl_scene_bowl_stack,
	&kl_scene_penalty_meshes,
	// -- benchmark scenes
	&kl_scene_large_pyramid,
	&kl_scene_many_pyramids,
	&kl_scene_convex_pile,
	&kl_scene_joint_grid,
	&kl_scene_washer,
	&kl_scene_junkyard,
	&kl_scene_jolt_pyramid,
	&kl_scene_free_fall,
	&kl_scene_box_layers,
	// -- validation scenes
	&kl_scene_vertical_stack,
	&kl_scene_pyramid,
	&kl_scene_mass_ratio,
	&kl_scene_friction_ramp,
	&kl_scene_restitution_row,
	&kl_scene_card_house,
	// -- joint scenes
	NULL,
};

const kl_scene* const* kl_scene_list(int* count)
{
	*count = (int)(sizeof(scenes) / sizeof(scenes[0])) - 1;
	return scenes;
}

const kl_scene* kl_scene_find(const char* name)
{
	for (int i = 0; scenes[i] != NULL; ++i)
	{
		if (strcmp(scenes[i]->name, name) == 0)
		{
			return scenes[i];
		}
	}
	return NULL;
}

/// Creates the world of a run: the default definition with worker_count workers, configured by
/// the scene. False if the world cannot be created.
static bool create_world(const kl_scene* scene, int worker_count, kl_scene_run* run)
{
	memset(run, 0, sizeof(*run));
	kl_world_def def = kl_default_world_def();
	def.worker_count = worker_count;
	if (scene->configure != NULL)
	{
		scene->configure(&def);
	}
	run->scene = scene;
	run->world = kl_create_world(&def);
	return kl_world_is_valid(run->world);
}

/// Ends a start with the result of the scene's builder: a world the scene failed to build into
/// is destroyed.
static bool finish_start(kl_scene_run* run, bool built)
{
	if (!built)
	{
		kl_destroy_world(run->world);
		run->world = (kl_world_id){0};
	}
	return built;
}

bool kl_scene_start(const kl_scene* scene, int worker_count, kl_scene_run* run)
{
	return create_world(scene, worker_count, run) && finish_start(run, scene->create(run->world, &run->state));
}

bool kl_scene_start_seeded(const kl_scene* scene, int worker_count, uint32_t seed, kl_scene_run* run)
{
	if (scene->create_seeded == NULL)
	{
		memset(run, 0, sizeof(*run));
		return false;
	}
	return create_world(scene, worker_count, run) &&
		   finish_start(run, scene->create_seeded(run->world, seed, &run->state));
}

bool kl_scene_start_sized(const kl_scene* scene, int worker_count, int count, kl_scene_run* run)
{
	if (scene->create_sized == NULL)
	{
		memset(run, 0, sizeof(*run));
		return false;
	}
	return create_world(scene, worker_count, run) &&
		   finish_start(run, scene->create_sized(run->world, count, &run->state));
}

kl_result kl_scene_step(kl_scene_run* run, float dt, int substeps)
{
	if (run->scene->before_step != NULL)
	{
		run->scene->before_step(run->world, run->state, run->step_index, dt);
	}
	run->step_index += 1;
	return kl_world_step(run->world, dt, substeps);
}

void kl_scene_stop(kl_scene_run* run)
{
	if (run->scene != NULL && run->scene->destroy != NULL)
	{
		run->scene->destroy(run->state);
	}
	if (kl_world_is_valid(run->world))
	{
		kl_destroy_world(run->world);
	}
	memset(run, 0, sizeof(*run));
}

kl_body_id kl_scene_add_ground(kl_world_id world, float hx, float hy, float friction)
{
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_vec3(0.0f, 0.0f, -1.0f);
	bd.name = "ground";
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.material.friction = friction;
	kl_create_box_shape(body, &sd, kl_vec3(hx, hy, 1.0f));
	return body;
}

kl_body_id kl_scene_add_box(kl_world_id world, vec3s position, versors rotation, vec3s half_extents, float density,
							float friction)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = position;
	bd.rotation = rotation;
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = density;
	sd.material.friction = friction;
	kl_create_box_shape(body, &sd, half_extents);
	return body;
}
