// Kollide — mesh geometry: the def's checks, the geometric stages of a mesh build (welding, cleaning,
// topology, mass, adjacency), progress reports and accessors. Every stage reports progress and may be
// cancelled. The collision model around it (BVH, point shells, lifetime) is narrowphase/mesh/mesh_model.c.
// SPDX-License-Identifier: MIT
#include "mesh.h"

#include "tri_adjacency.h"

#include <string.h>

// Progress is reported per stage ("weld", "clean", "topology", "mass") as the fraction of that
// stage done: 0 when it starts, 1 when it ends, and in between for long loops.
#define KL_MESH_PROGRESS_STRIDE 0x10000

kl_mesh_def kl_default_mesh_def(void)
{
	kl_mesh_def def;
	memset(&def, 0, sizeof(def));
	return def;
}

bool kl_progress_report(kl_progress_fn* progress, void* context, const char* stage, float fraction)
{
	if (progress == NULL || progress(stage, fraction, context))
	{
		return true;
	}
	kl_fail(KL_ERR_CANCELLED, "cancelled by the progress callback (stage %s)", stage);
	return false;
}

bool kl_mesh_report(const kl_mesh_def* def, const char* stage, float fraction)
{
	return kl_progress_report(def->progress, def->progress_context, stage, fraction);
}

uint64_t kl_mesh_geometry_hash(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count)
{
	uint64_t h = kl_hash64_bytes(KL_HASH64_INIT, vertices, (size_t)vertex_count * sizeof(vec3s));
	return kl_hash64_bytes(h, indices, (size_t)triangle_count * 3 * sizeof(int32_t));
}

bool kl_mesh_report_loop(const kl_mesh_def* def, const char* stage, int i, int count)
{
	if ((i + 1) % KL_MESH_PROGRESS_STRIDE != 0)
	{
		return true;
	}
	return kl_mesh_report(def, stage, (float)i / (float)count);
}

kl_result kl_mesh_validate_def(const kl_mesh_def* def)
{
	if (def == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh def is NULL");
	}
	if (def->vertex_count < 0 || def->triangle_count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: negative count (%d vertices, %d triangles)",
					   def->vertex_count, def->triangle_count);
	}
	if (def->vertex_count > KL_MESH_MAX_VERTICES || def->triangle_count > KL_MESH_MAX_TRIANGLES)
	{
		return kl_fail(KL_ERR_LIMIT, "mesh: %d vertices, %d triangles exceed the limits (%d, %d)",
					   def->vertex_count, def->triangle_count, KL_MESH_MAX_VERTICES, KL_MESH_MAX_TRIANGLES);
	}
	if (!(def->weld_tolerance >= 0.0f) || !isfinite(def->weld_tolerance))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: weld tolerance %g must be finite and >= 0",
					   (double)def->weld_tolerance);
	}
	if (def->inner_spheres < 0 || def->inner_spheres > KL_SPHERE_PACK_MAX_SPHERES)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: inner spheres %d outside [0, %d]", def->inner_spheres,
					   KL_SPHERE_PACK_MAX_SPHERES);
	}
	if (def->triangle_count == 0)
	{
		return kl_fail(KL_ERR_DEGENERATE, "mesh has no triangles");
	}
	if ((def->vertices == NULL && def->vertex_count > 0) || def->indices == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: vertices or indices are NULL");
	}
	for (int i = 0; i < def->vertex_count; ++i)
	{
		vec3s v = def->vertices[i];
		if (!kl_vec3_is_finite(v))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: vertex %d is not finite (%g, %g, %g)", i, (double)v.x,
						   (double)v.y, (double)v.z);
		}
	}
	for (int i = 0; i < 3 * def->triangle_count; ++i)
	{
		int32_t index = def->indices[i];
		if (index < 0 || index >= def->vertex_count)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: triangle %d uses vertex %d, outside [0, %d)", i / 3,
						   (int)index, def->vertex_count);
		}
	}
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Geometric stages

kl_result kl_mesh_build_geometry(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
{
	kl_result r = kl_mesh_report(def, "weld", 0.0f) ? kl_mesh_weld(def, mesh, remap) : KL_ERR_INVALID_ARGUMENT;
	if (r == KL_OK)
	{
		bool go = kl_mesh_report(def, "weld", 1.0f) && kl_mesh_report(def, "clean", 0.0f);
		r = go ? kl_mesh_clean(def, mesh, remap) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		bool go = kl_mesh_report(def, "clean", 1.0f) && kl_mesh_report(def, "topology", 0.0f);
		r = go ? kl_mesh_topology(mesh) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		bool go = kl_mesh_report(def, "topology", 1.0f) && kl_mesh_report(def, "mass", 0.0f);
		r = go ? kl_mesh_compute_mass(mesh) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK && !kl_mesh_report(def, "mass", 1.0f))
	{
		r = KL_ERR_INVALID_ARGUMENT;
	}
	return r;
}

kl_result kl_mesh_build_adjacency(kl_mesh* mesh)
{
	int n = mesh->info.triangle_count;
	mesh->opposite = kl_alloc((size_t)(3 * (n > 0 ? n : 1)), sizeof(int32_t));
	kl_result r = mesh->opposite != NULL ? kl_triangle_opposites(mesh->indices, n, mesh->opposite) : KL_ERR_OUT_OF_MEMORY;
	if (r == KL_OK)
	{
		int v = mesh->info.vertex_count;
		mesh->vertex_normals = kl_alloc((size_t)(v > 0 ? v : 1), sizeof(vec3s));
		mesh->vertex_cone_cos = kl_alloc((size_t)(v > 0 ? v : 1), sizeof(float));
		r = mesh->vertex_normals != NULL && mesh->vertex_cone_cos != NULL
				? kl_vertex_pseudo_normals(mesh->vertices, v, mesh->indices, mesh->info.triangle_count,
										   mesh->vertex_normals, mesh->vertex_cone_cos)
				: KL_ERR_OUT_OF_MEMORY;
	}
	return r;
}

void kl_mesh_free_geometry(kl_mesh* mesh)
{
	kl_free(mesh->opposite);
	kl_free(mesh->vertex_normals);
	kl_free(mesh->vertex_cone_cos);
	kl_free(mesh->vertices);
	kl_free(mesh->indices);
	kl_free(mesh->source);
}

kl_mesh_info kl_mesh_get_info(const kl_mesh* mesh)
{
	if (mesh == NULL)
	{
		kl_mesh_info none;
		memset(&none, 0, sizeof(none));
		return none;
	}
	return mesh->info;
}

const vec3s* kl_mesh_vertices(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->vertices : NULL;
}

const int32_t* kl_mesh_indices(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->indices : NULL;
}

const char* kl_mesh_source(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->source : "";
}
