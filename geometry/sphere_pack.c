// Kollide — inner-sphere packing of a closed mesh (kollide/geometry.h, docs/inner-spheres.md): the
// def's checks, the cache file's use, the stages (sphere_pack.h) and the accessors.
// SPDX-License-Identifier: MIT
#include "sphere_pack.h"
#include "mesh.h"

#include <string.h>

/// Most threads a packing starts.
#define KL_SP_MAX_WORKERS 256
/// Partitions per worker of the parallel loops (the results do not depend on it).
#define KL_SP_PARTS_PER_WORKER 4

kl_sphere_pack_def kl_default_sphere_pack_def(void)
{
	kl_sphere_pack_def def;
	memset(&def, 0, sizeof(def));
	def.max_spheres = 1000;
	return def;
}

bool kl_sp_report(const kl_sphere_pack_def* def, const char* stage, float fraction)
{
	return kl_progress_report(def->progress, def->progress_context, stage, fraction);
}

static kl_result check_input(const kl_mesh* mesh, const kl_sphere_pack_def* def)
{
	if (mesh == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere pack: no mesh");
	}
	const kl_mesh_info* info = &mesh->info;
	if (!info->closed)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT,
					   "sphere pack: the mesh is not closed (%d open, %d non-manifold, %d inconsistent edges)",
					   info->open_edge_count, info->non_manifold_edge_count, info->inconsistent_edge_count);
	}
	if (!(info->volume > 0.0f) || mesh->vertex_normals == NULL)
	{
		return kl_fail(KL_ERR_DEGENERATE, "sphere pack: the mesh encloses no volume");
	}
	if (def->max_spheres < 1 || def->max_spheres > KL_SPHERE_PACK_MAX_SPHERES)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere pack: max_spheres %d is not in [1, %d]", def->max_spheres,
					   KL_SPHERE_PACK_MAX_SPHERES);
	}
	if (!(def->coverage >= 0.0f && def->coverage < 1.0f))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere pack: coverage %g is not in [0, 1)", (double)def->coverage);
	}
	double diagonal = kl_mesh_bounds_diagonal(info->bounds);
	if (!(def->min_radius >= 0.0f && def->min_radius < diagonal))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere pack: min_radius %g is not in [0, %g)", (double)def->min_radius,
					   diagonal);
	}
	if (def->resolution < 0 || def->resolution > KL_SPHERE_PACK_MAX_RESOLUTION)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere pack: resolution %d is not in [0, %d]", def->resolution,
					   KL_SPHERE_PACK_MAX_RESOLUTION);
	}
	if (def->worker_count < 0 || def->worker_count > KL_SP_MAX_WORKERS)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere pack: worker_count %d is not in [0, %d]", def->worker_count,
					   KL_SP_MAX_WORKERS);
	}
	return KL_OK;
}

static void free_builder(kl_sp_builder* b)
{
	kl_free(b->mesh.face_normals);
	kl_free(b->mesh.neighbours);
	kl_free(b->mesh.tri_bounds);
	for (int w = 0; b->stamps != NULL && w < b->worker_count; ++w)
	{
		kl_free(b->stamps[w].tri);
	}
	kl_free(b->stamps);
	kl_free(b->grid.clear);
	kl_free(b->grid.tri);
	kl_free(b->buckets.tri_start);
	kl_free(b->buckets.tri_items);
	kl_free(b->buckets.sphere_head);
	kl_free(b->buckets.entries);
	kl_free(b->spheres);
}

static kl_result run_stages(kl_sp_builder* b, const kl_mesh* mesh)
{
	kl_result r = kl_sp_grid_init(b, mesh->info.bounds);
	r = r == KL_OK ? kl_sp_mesh_init(b, mesh) : r;
	r = r == KL_OK ? kl_sp_field_build(b) : r;
	return r == KL_OK ? kl_sp_insert(b) : r;
}

/// Makes the packing with the def's threads; NULL with the failure recorded.
static kl_sphere_packing* build(const kl_mesh* mesh, const kl_sphere_pack_def* def)
{
	kl_sp_builder b;
	memset(&b, 0, sizeof(b));
	b.def = def;
	b.volume = mesh->info.volume;
	kl_aabb box = mesh->info.bounds;
	float largest = kl_maxf(glms_vec3_max(glms_vec3_abs(box.lower)), glms_vec3_max(glms_vec3_abs(box.upper)));
	b.margin = 1e-6 * (kl_mesh_bounds_diagonal(box) + largest);
	b.capacity = 64;
	b.spheres = kl_alloc((size_t)b.capacity, sizeof(kl_sphere));
	int workers = def->worker_count > 1 ? def->worker_count : 1;
	b.worker_count = workers;
	kl_thread_pool* pool = workers > 1 ? kl_thread_pool_create(workers) : NULL;
	b.where = kl_thread_pool_parallel(pool, workers * KL_SP_PARTS_PER_WORKER);
	kl_sphere_packing* packing = NULL;
	float* represented = NULL;
	if (b.spheres != NULL && (workers == 1 || pool != NULL) && run_stages(&b, mesh) == KL_OK)
	{
		represented = kl_alloc((size_t)(b.count > 0 ? b.count : 1), sizeof(float));
		if (represented == NULL)
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "sphere pack: %d represented volumes", b.count);
		}
		else if (kl_sp_share_gaps(&b, represented) == KL_OK)
		{
			packing = kl_alloc_zero(1, sizeof(kl_sphere_packing));
		}
	}
	if (packing == NULL)
	{
		kl_free(represented);
	}
	else
	{
		packing->represented = represented;
		packing->count = b.count;
		packing->coverage = (float)(b.covered / b.volume);
		packing->spheres = b.spheres;
		b.spheres = NULL;
	}
	kl_thread_pool_destroy(pool);
	free_builder(&b);
	return packing;
}

kl_sphere_packing* kl_sphere_pack(const kl_mesh* mesh, const kl_sphere_pack_def* def)
{
	kl_sphere_pack_def defaults = kl_default_sphere_pack_def();
	def = def != NULL ? def : &defaults;
	if (check_input(mesh, def) != KL_OK)
	{
		return NULL;
	}
	if (def->cache != NULL)
	{
		kl_sphere_packing* cached = kl_sp_cache_load(def->cache, mesh, def);
		if (cached != NULL)
		{
			cached->cache_status = KL_MESH_CACHE_READ;
			return cached;
		}
	}
	kl_sphere_packing* packing = build(mesh, def);
	if (packing != NULL && def->cache != NULL)
	{
		// A file that cannot be written costs the next run a build, not this one its packing.
		kl_error_state saved;
		kl_error_save(&saved);
		bool written = kl_sp_cache_save(def->cache, packing, mesh, def) == KL_OK;
		kl_error_restore(&saved);
		packing->cache_status = written ? KL_MESH_CACHE_WRITTEN : KL_MESH_CACHE_WRITE_FAILED;
	}
	return packing;
}

void kl_sphere_packing_destroy(kl_sphere_packing* packing)
{
	if (packing != NULL)
	{
		kl_free(packing->spheres);
		kl_free(packing->represented);
		kl_free(packing);
	}
}

int kl_sphere_packing_count(const kl_sphere_packing* packing)
{
	return packing != NULL ? packing->count : 0;
}

const kl_sphere* kl_sphere_packing_spheres(const kl_sphere_packing* packing)
{
	return packing != NULL ? packing->spheres : NULL;
}

const float* kl_sphere_packing_represented_volumes(const kl_sphere_packing* packing)
{
	return packing != NULL ? packing->represented : NULL;
}

float kl_sphere_packing_coverage(const kl_sphere_packing* packing)
{
	return packing != NULL ? packing->coverage : 0.0f;
}

kl_mesh_cache_status kl_sphere_packing_cache_status(const kl_sphere_packing* packing)
{
	return packing != NULL ? packing->cache_status : KL_MESH_CACHE_NONE;
}
