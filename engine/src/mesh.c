// Kollide — mesh collision models: the def's checks, the build that runs the stages (welding,
// cleaning, topology, mass), progress reports, reference counting and accessors. Every stage
// reports progress and may be cancelled.
// SPDX-License-Identifier: MIT
#include "mesh.h"

#include "pointshell.h"
#include "tri_adjacency.h"

#include <kollide/io.h>

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

// False when the callback asked to stop; the failure is then recorded.
static bool report(const kl_mesh_def* def, const char* stage, float fraction)
{
	if (def->progress == NULL || def->progress(stage, fraction, def->progress_context))
	{
		return true;
	}
	kl_fail(KL_ERR_CANCELLED, "mesh build cancelled by the progress callback (stage %s)", stage);
	return false;
}

bool kl_mesh_report_loop(const kl_mesh_def* def, const char* stage, int i, int count)
{
	if ((i + 1) % KL_MESH_PROGRESS_STRIDE != 0)
	{
		return true;
	}
	return report(def, stage, (float)i / (float)count);
}

static kl_result validate_def(const kl_mesh_def* def)
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
// Build and lifetime

static void mesh_free(kl_mesh* mesh)
{
	kl_bvh_destroy(mesh->bvh);
	kl_pointshell_destroy(mesh->pointshell);
	kl_free(mesh->opposite);
	kl_free(mesh->vertex_normals);
	kl_free(mesh->vertex_cone_cos);
	kl_free(mesh->vertices);
	kl_free(mesh->indices);
	kl_free(mesh->source);
	kl_free(mesh);
}

struct shell_progress
{
	const kl_mesh_def* def;
};

static bool shell_progress_report(float fraction, void* context)
{
	const struct shell_progress* sp = context;
	return report(sp->def, "pointshell", fraction);
}

/// The point-shell backend's model (narrowphase/pointshell_build.c), from the cache file when it
/// holds this mesh's, else built (and written there).
static kl_result build_pointshell(const kl_mesh_def* def, kl_mesh* mesh)
{
	kl_pointshell_build_def bd = kl_pointshell_default_build_def();
	bd.max_triangles = def->pointshell_max_triangles != 0 ? def->pointshell_max_triangles : bd.max_triangles;
	bd.spacing = def->pointshell_spacing;
	bd.grouping = def->pointshell_surface_groups ? KL_PS_GROUP_SURFACE : KL_PS_GROUP_MEDIAN_CUT;
	bd.leaf_bucket = def->pointshell_leaf_bucket;
	const char* cache = def->pointshell_cache;
	if (cache != NULL)
	{
		mesh->pointshell = kl_pointshell_load(cache, mesh->vertices, mesh->info.vertex_count, mesh->indices,
											  mesh->info.triangle_count, &bd);
		if (mesh->pointshell != NULL)
		{
			mesh->info.pointshell_cache = KL_MESH_CACHE_READ;
			return report(def, "pointshell", 1.0f) ? KL_OK : KL_ERR_CANCELLED;
		}
	}
	struct shell_progress sp = {def};
	mesh->pointshell = kl_pointshell_build(mesh->vertices, mesh->info.vertex_count, mesh->indices,
										   mesh->info.triangle_count, &bd, shell_progress_report, &sp);
	if (mesh->pointshell == NULL)
	{
		return kl_last_error_code() != KL_OK ? kl_last_error_code() : KL_ERR_INVALID_ARGUMENT;
	}
	if (cache != NULL)
	{
		// A cache that cannot be written costs the next run a build, nothing more: the mesh is
		// fine, and the status says so (kl_last_error holds why).
		kl_result saved = kl_pointshell_save(cache, mesh->pointshell, &bd);
		mesh->info.pointshell_cache = saved == KL_OK ? KL_MESH_CACHE_WRITTEN : KL_MESH_CACHE_WRITE_FAILED;
	}
	return KL_OK;
}

static kl_result run_stages(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
{
	kl_result r = report(def, "weld", 0.0f) ? kl_mesh_weld(def, mesh, remap) : KL_ERR_INVALID_ARGUMENT;
	if (r == KL_OK)
	{
		bool go = report(def, "weld", 1.0f) && report(def, "clean", 0.0f);
		r = go ? kl_mesh_clean(def, mesh, remap) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		bool go = report(def, "clean", 1.0f) && report(def, "topology", 0.0f);
		r = go ? kl_mesh_topology(mesh) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		bool go = report(def, "topology", 1.0f) && report(def, "mass", 0.0f);
		r = go ? kl_mesh_compute_mass(mesh) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK && !report(def, "mass", 1.0f))
	{
		r = KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK && !report(def, "bvh", 0.0f))
	{
		r = KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		int n = mesh->info.triangle_count;
		mesh->opposite = kl_alloc((size_t)(3 * (n > 0 ? n : 1)), sizeof(int32_t));
		r = mesh->opposite != NULL ? kl_triangle_opposites(mesh->indices, n, mesh->opposite) : KL_ERR_OUT_OF_MEMORY;
	}
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
	if (r == KL_OK)
	{
		// The SIMD k-DOP tree of the mesh narrowphase (8-ary, k = 26, Batch Neural Gas).
		kl_bvh_build_def bd = kl_bvh_default_build_def();
		mesh->bvh = kl_bvh_build((const float*)mesh->vertices, mesh->info.vertex_count, (const int*)mesh->indices,
								 mesh->info.triangle_count, &bd);
		r = mesh->bvh != NULL ? (report(def, "bvh", 1.0f) ? KL_OK : KL_ERR_INVALID_ARGUMENT) : kl_last_error_code();
	}
	if (r == KL_OK && (def->build_pointshell || def->pointshell_cache != NULL))
	{
		r = report(def, "pointshell", 0.0f) ? build_pointshell(def, mesh) : KL_ERR_CANCELLED;
		mesh->info.has_pointshell = r == KL_OK;
		if (r == KL_OK)
		{
			kl_pointshell_memory bytes = kl_pointshell_memory_of(mesh->pointshell);
			mesh->info.pointshell_bytes = bytes.shells + bytes.coverage + bytes.octrees + bytes.conglomerates;
		}
	}
	return r;
}

kl_mesh* kl_mesh_build(const kl_mesh_def* def)
{
	if (validate_def(def) != KL_OK)
	{
		return NULL;
	}
	kl_mesh* mesh = kl_alloc_zero(1, sizeof(kl_mesh));
	int32_t* remap = kl_alloc((size_t)def->vertex_count, sizeof(int32_t));
	if (mesh == NULL || remap == NULL)
	{
		kl_free(mesh);
		kl_free(remap);
		return NULL;
	}
	atomic_init(&mesh->ref_count, 1);
	mesh->source = kl_strdup(def->source != NULL ? def->source : "");
	kl_result r = mesh->source != NULL ? run_stages(def, mesh, remap) : KL_ERR_OUT_OF_MEMORY;
	kl_free(remap);
	if (r != KL_OK)
	{
		mesh_free(mesh);
		return NULL;
	}
	return mesh;
}

kl_mesh* kl_mesh_retain(kl_mesh* mesh)
{
	if (mesh != NULL)
	{
		atomic_fetch_add_explicit(&mesh->ref_count, 1, memory_order_relaxed);
	}
	return mesh;
}

void kl_mesh_release(kl_mesh* mesh)
{
	// acq_rel: the thread that frees sees every other holder's last use.
	if (mesh != NULL && atomic_fetch_sub_explicit(&mesh->ref_count, 1, memory_order_acq_rel) == 1)
	{
		mesh_free(mesh);
	}
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
