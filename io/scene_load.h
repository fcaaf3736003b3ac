// Kollide internal — the state of one JSON scene load, shared by its parts: the document, world
// and bodies (scene_load.c), shapes and meshes (scene_load_shapes.c) and joints
// (scene_load_joints.c). Values are read through scene_read.h.
// SPDX-License-Identifier: MIT
#pragma once

#include "scene_read.h"

#include <kollide/kollide.h>

typedef struct kl_scene_body
{
	const char* name; ///< points into the parsed document (a robot link's: the body's name); NULL if unnamed
	kl_body_id id;
} kl_scene_body;

typedef struct kl_scene_mesh
{
	char* path;	   ///< resolved file path, the cache key
	kl_mesh* mesh; ///< one reference, released when the load ends
	bool pointshell; ///< built with its point-shell model (kl_mesh_def.build_pointshell)
	/// Built with these inner spheres (kl_mesh_def.inner_spheres).
	int inner_spheres;
} kl_scene_mesh;

typedef struct kl_scene_loader
{
	kl_json_reader json; ///< the JSON path being read and the first error
	kl_scene_load_options options;
	const char* file; ///< scene file, prefixed to messages; NULL for strings
	char* base_dir;	  ///< relative mesh paths resolve against it ("" = working directory)
	kl_world_id world;
	kl_scene_body* bodies; ///< the "bodies" array's, then the robots' links (joints find them by name)
	int body_count;
	int listed_count; ///< bodies of the "bodies" array: the range of joints' body indices
	kl_scene_body** sorted_bodies; ///< named bodies by name, built on the first joint lookup
	int sorted_count;
	kl_scene_mesh* meshes; ///< mesh files loaded so far, each once
	int mesh_count;
	int mesh_capacity;
} kl_scene_loader;

/// A file path of the scene: absolute as given, else relative to the base directory; canonical when
/// the file exists, so that saved scenes can name it from anywhere. Owned result (kl_free).
char* kl_scene_resolve_path(const kl_scene_loader* s, const char* file);

/// Creates the robots of the "robots" array of the root object (scene_load_robots.c), after the
/// bodies and before the joints.
bool kl_scene_load_robots(kl_scene_loader* s, const cJSON* root);

/// Creates the shapes of a body from the "shapes" array of its object (scene_load_shapes.c).
bool kl_scene_load_shapes(kl_scene_loader* s, kl_body_id body, const cJSON* object);

/// Creates the joints from the "joints" array of the root object, after every body exists
/// (scene_load_joints.c).
bool kl_scene_load_joints(kl_scene_loader* s, const cJSON* root);
