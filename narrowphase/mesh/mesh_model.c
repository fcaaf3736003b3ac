// Kollide — the mesh collision model behind kl_mesh: the build that runs the geometric stages
// (geometry/mesh.c) and then the narrowphase's own (the SIMD k-DOP BVH and the point shells),
// reference counting and release.
// SPDX-License-Identifier: MIT
#include "mesh.h"

#include "bvh.h"
#include "ist_mesh.h"
#include "pointshell.h"

static void mesh_free(kl_mesh* mesh)
{
	kl_bvh_destroy(mesh->bvh);
	kl_pointshell_destroy(mesh->pointshell);
	kl_mesh_free_inner_spheres(mesh);
	kl_mesh_free_geometry(mesh);
	kl_free(mesh);
}

struct shell_progress
{
	const kl_mesh_def* def;
};

static bool shell_progress_report(float fraction, void* context)
{
	const struct shell_progress* sp = context;
	return kl_mesh_report(sp->def, "pointshell", fraction);
}

/// The point-shell backend's model (pointshell/pointshell_build.c), from the cache file when it
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
			return kl_mesh_report(def, "pointshell", 1.0f) ? KL_OK : KL_ERR_CANCELLED;
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
	kl_result r = kl_mesh_build_geometry(def, mesh, remap);
	if (r == KL_OK && !kl_mesh_report(def, "bvh", 0.0f))
	{
		r = KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		r = kl_mesh_build_adjacency(mesh);
	}
	if (r == KL_OK)
	{
		// The SIMD k-DOP tree of the mesh narrowphase (8-ary, k = 26, Batch Neural Gas).
		kl_bvh_build_def bd = kl_bvh_default_build_def();
		mesh->bvh = kl_bvh_build((const float*)mesh->vertices, mesh->info.vertex_count, (const int*)mesh->indices,
								 mesh->info.triangle_count, &bd);
		r = mesh->bvh != NULL ? (kl_mesh_report(def, "bvh", 1.0f) ? KL_OK : KL_ERR_INVALID_ARGUMENT)
							  : kl_last_error_code();
	}
	if (r == KL_OK && (def->build_pointshell || def->pointshell_cache != NULL))
	{
		r = kl_mesh_report(def, "pointshell", 0.0f) ? build_pointshell(def, mesh) : KL_ERR_CANCELLED;
		mesh->info.has_pointshell = r == KL_OK;
		if (r == KL_OK)
		{
			kl_pointshell_memory bytes = kl_pointshell_memory_of(mesh->pointshell);
			mesh->info.pointshell_bytes = bytes.shells + bytes.coverage + bytes.octrees + bytes.conglomerates;
		}
	}
	if (r == KL_OK && def->inner_spheres > 0)
	{
		r = kl_mesh_build_inner_spheres(def, mesh);
	}
	return r;
}

kl_mesh* kl_mesh_build(const kl_mesh_def* def)
{
	if (kl_mesh_validate_def(def) != KL_OK)
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
