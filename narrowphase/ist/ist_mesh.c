// Kollide — a mesh's inner spheres and their tree, built with the mesh and freed with it.
// SPDX-License-Identifier: MIT
#include "ist_mesh.h"

#include "ist.h"

kl_result kl_mesh_build_inner_spheres(const kl_mesh_def* def, kl_mesh* mesh)
{
	if (!mesh->info.closed)
	{
		return kl_fail(KL_ERR_DEGENERATE, "mesh: inner spheres need a closed mesh");
	}
	if (!kl_mesh_report(def, "inner spheres", 0.0f))
	{
		return KL_ERR_CANCELLED;
	}
	kl_sphere_pack_def pd = kl_default_sphere_pack_def();
	pd.max_spheres = def->inner_spheres;
	pd.cache = def->inner_sphere_cache;
	mesh->inner_spheres = kl_sphere_pack(mesh, &pd);
	if (mesh->inner_spheres == NULL)
	{
		return kl_last_error_code() != KL_OK ? kl_last_error_code() : KL_ERR_INVALID_ARGUMENT;
	}
	// With the represented volumes, queries on the mesh's tree also estimate the solids'
	// intersection volume (kl_sphere_overlap_result.intersection_volume).
	kl_sphere_tree_def td = kl_default_sphere_tree_def();
	td.represented_volumes = kl_sphere_packing_represented_volumes(mesh->inner_spheres);
	mesh->sphere_tree = kl_sphere_tree_build(kl_sphere_packing_spheres(mesh->inner_spheres),
											 kl_sphere_packing_count(mesh->inner_spheres), &td);
	if (mesh->sphere_tree == NULL)
	{
		return kl_last_error_code() != KL_OK ? kl_last_error_code() : KL_ERR_OUT_OF_MEMORY;
	}
	mesh->info.inner_spheres = def->inner_spheres;
	mesh->info.inner_sphere_count = kl_sphere_packing_count(mesh->inner_spheres);
	mesh->info.inner_sphere_coverage = kl_sphere_packing_coverage(mesh->inner_spheres);
	mesh->info.inner_sphere_cache = kl_sphere_packing_cache_status(mesh->inner_spheres);
	return kl_mesh_report(def, "inner spheres", 1.0f) ? KL_OK : KL_ERR_CANCELLED;
}

void kl_mesh_free_inner_spheres(kl_mesh* mesh)
{
	kl_sphere_tree_destroy(mesh->sphere_tree);
	kl_sphere_packing_destroy(mesh->inner_spheres);
	mesh->sphere_tree = NULL;
	mesh->inner_spheres = NULL;
}

const kl_sphere_tree* kl_mesh_sphere_tree(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->sphere_tree : NULL;
}

const kl_sphere* kl_mesh_inner_spheres(const kl_mesh* mesh, int* count)
{
	int n = mesh != NULL && mesh->inner_spheres != NULL ? kl_sphere_packing_count(mesh->inner_spheres) : 0;
	if (count != NULL)
	{
		*count = n;
	}
	return n > 0 ? kl_sphere_packing_spheres(mesh->inner_spheres) : NULL;
}
