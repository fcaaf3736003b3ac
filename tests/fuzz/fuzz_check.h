// Shared pieces of the libFuzzer targets (tests/fuzz/): the check that stops a run on a broken
// promise, and the mesh loaders' common work on what they parsed.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/// Stops the run with a message: libFuzzer reports the abort as a crash and saves the input.
static inline void kl_fuzz_fail(const char* file, int line, const char* format, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

static inline void kl_fuzz_fail(const char* file, int line, const char* format, ...)
{
	fprintf(stderr, "%s:%d: fuzz check failed: ", file, line);
	va_list args;
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fprintf(stderr, " (last error: %s)\n", kl_last_error());
	abort();
}

#define KL_FUZZ_CHECK(condition, ...)                                                                                  \
	do                                                                                                                 \
	{                                                                                                                  \
		if (!(condition))                                                                                              \
		{                                                                                                              \
			kl_fuzz_fail(__FILE__, __LINE__, __VA_ARGS__);                                                             \
		}                                                                                                              \
	} while (0)

/// What a loader promises of a mesh it accepted: counts within the limits, finite vertices, at
/// least one triangle, every index in range.
static inline void kl_fuzz_check_mesh_data(const kl_mesh_data* mesh)
{
	KL_FUZZ_CHECK(mesh->vertex_count > 0 && mesh->vertex_count <= KL_MESH_MAX_VERTICES, "vertex count %d",
				  mesh->vertex_count);
	KL_FUZZ_CHECK(mesh->triangle_count > 0 && mesh->triangle_count <= KL_MESH_MAX_TRIANGLES, "triangle count %d",
				  mesh->triangle_count);
	KL_FUZZ_CHECK(mesh->vertices != NULL && mesh->indices != NULL, "accepted mesh without arrays");
	for (int i = 0; i < mesh->vertex_count; ++i)
	{
		vec3s v = mesh->vertices[i];
		KL_FUZZ_CHECK(isfinite(v.x) && isfinite(v.y) && isfinite(v.z), "vertex %d is (%g, %g, %g)", i, (double)v.x,
					  (double)v.y, (double)v.z);
	}
	for (int i = 0; i < 3 * mesh->triangle_count; ++i)
	{
		KL_FUZZ_CHECK(mesh->indices[i] >= 0 && mesh->indices[i] < mesh->vertex_count, "index %d is %d of %d vertices",
					  i, (int)mesh->indices[i], mesh->vertex_count);
	}
}

/// Meshes up to this many triangles are also built with the point-shell model (the rest with the
/// BVH only), so that the more costly build is fuzzed too without slowing large inputs down.
#define KL_FUZZ_POINTSHELL_TRIANGLES 64

/// Builds the collision model of a parsed mesh, as kl_mesh_load does after loading. The build may
/// refuse the mesh (degenerate, no area); one it accepts must be within the mesh's bounds and keep
/// its indices in range.
static inline void kl_fuzz_build_mesh(const kl_mesh_data* mesh)
{
	kl_fuzz_check_mesh_data(mesh);
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = mesh->vertices;
	def.vertex_count = mesh->vertex_count;
	def.indices = mesh->indices;
	def.triangle_count = mesh->triangle_count;
	def.build_pointshell = mesh->triangle_count <= KL_FUZZ_POINTSHELL_TRIANGLES;
	kl_mesh* built = kl_mesh_build(&def);
	if (built == NULL)
	{
		return;
	}
	kl_mesh_info info = kl_mesh_get_info(built);
	KL_FUZZ_CHECK(info.vertex_count > 0 && info.vertex_count <= mesh->vertex_count, "built %d vertices of %d",
				  info.vertex_count, mesh->vertex_count);
	KL_FUZZ_CHECK(info.triangle_count > 0 && info.triangle_count <= mesh->triangle_count, "built %d triangles of %d",
				  info.triangle_count, mesh->triangle_count);
	KL_FUZZ_CHECK(info.has_pointshell == def.build_pointshell, "point-shell model %d, asked %d",
				  (int)info.has_pointshell, (int)def.build_pointshell);
	const int32_t* indices = kl_mesh_indices(built);
	for (int i = 0; i < 3 * info.triangle_count; ++i)
	{
		KL_FUZZ_CHECK(indices[i] >= 0 && indices[i] < info.vertex_count, "built index %d is %d of %d vertices", i,
					  (int)indices[i], info.vertex_count);
	}
	kl_mesh_release(built);
}
