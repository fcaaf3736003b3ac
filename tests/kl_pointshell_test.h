// Kollide tests — helpers shared by the point-shell tests (test_pointshell.c, test_pointshell_cache.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "../tools/meshgen/meshgen.h"

#include <kollide/kollide.h>

/// The engine's mesh def of a generated mesh.
static inline kl_mesh_def mesh_def_of(const kl_meshgen_mesh* g)
{
	kl_mesh_def md = kl_default_mesh_def();
	md.vertices = g->vertices;
	md.vertex_count = g->vertex_count;
	md.indices = g->indices;
	md.triangle_count = g->triangle_count;
	return md;
}

/// The engine's mesh of a generated one with its point-shell model, read from or written to the
/// cache file `path` (NULL: none).
static inline kl_mesh* build_cached(const kl_meshgen_mesh* g, const char* path)
{
	kl_mesh_def md = mesh_def_of(g);
	md.build_pointshell = true;
	md.pointshell_cache = path;
	return kl_mesh_build(&md);
}
