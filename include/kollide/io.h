// Kollide — files: triangle-mesh loaders (OBJ, STL, OFF) and JSON scene files.
// SPDX-License-Identifier: MIT
#pragma once

#include "id.h"
#include "types.h"

KL_C_BEGIN

/// A triangle soup as read from a file (owned arrays; free with kl_mesh_data_free).
typedef struct kl_mesh_data
{
	vec3s* vertices;
	int vertex_count;
	int32_t* indices; ///< 3 per triangle; polygons are fan-triangulated
	int triangle_count;
} kl_mesh_data;

/// Loads OBJ, STL (ASCII or binary), OFF or PLY (kollide/ply.h) by the file's extension (case-insensitive).
/// Rejects NaN/Inf coordinates, out-of-range indices, truncated files and counts beyond the limits.
KL_API kl_result kl_mesh_data_load(const char* path, kl_mesh_data* out);
KL_API kl_result kl_mesh_data_load_obj(const char* path, kl_mesh_data* out);
KL_API kl_result kl_mesh_data_load_stl(const char* path, kl_mesh_data* out);
KL_API kl_result kl_mesh_data_load_off(const char* path, kl_mesh_data* out);
/// Parses from memory (the same parsers the file loaders use).
KL_API kl_result kl_mesh_data_parse_obj(const char* text, size_t length, kl_mesh_data* out);
KL_API kl_result kl_mesh_data_parse_stl(const void* bytes, size_t length, kl_mesh_data* out);
KL_API kl_result kl_mesh_data_parse_off(const char* text, size_t length, kl_mesh_data* out);
KL_API void kl_mesh_data_free(kl_mesh_data* data);

/// Loads a mesh file and builds its collision model (welded; source = path). NULL on failure.
KL_API kl_mesh* kl_mesh_load(const char* path, kl_progress_fn* progress, void* progress_context);
/// kl_mesh_load with the build settings of `settings` (weld tolerance, progress, build_pointshell,
/// pointshell_cache and the pointshell_* model settings, inner spheres and their cache; its geometry
/// and source are the file's).
/// NULL settings: the defaults.
KL_API kl_mesh* kl_mesh_load_with(const char* path, const kl_mesh_def* settings);

// ---------------------------------------------------------------------------------------------
// JSON scenes (format: docs/scene-format.md)

/// Receives a non-fatal remark (unknown key, ignored value) with its JSON path.
typedef void kl_scene_warning_fn(const char* message, void* context);

typedef struct kl_scene_load_options
{
	/// NULL: warnings go to stderr prefixed "kollide: scene: ".
	kl_scene_warning_fn* warning;
	void* warning_context;
	/// Threads for the world (overrides the file's world.worker_count when > 0).
	int worker_count;
	/// Directory relative mesh paths are resolved against (NULL: the scene file's directory).
	const char* base_dir;
} kl_scene_load_options;

KL_API kl_scene_load_options kl_default_scene_load_options(void);

/// Creates a world from a scene file. Returns the null id on failure; nothing is left behind.
KL_API kl_world_id kl_scene_load_file(const char* path, const kl_scene_load_options* options);
KL_API kl_world_id kl_scene_load_string(const char* json, const kl_scene_load_options* options);
/// Writes the world as a scene; loading it again gives bit-identical bodies, shapes and joints.
KL_API kl_result kl_scene_save_file(kl_world_id world, const char* path);
/// Returns a malloc'd JSON string (free with free()), or NULL.
KL_API char* kl_scene_save_string(kl_world_id world);

KL_C_END
