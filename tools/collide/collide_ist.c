// Kollide — kollide-collide's --method ist (collide_ist.h).
// SPDX-License-Identifier: MIT
#include "collide_ist.h"

#include <string.h>

bool kl_ist_model_load(const kl_pair_model* mesh, int spheres, kl_ist_model* out, char* err, size_t err_size)
{
	memset(out, 0, sizeof(*out));
	kl_sphere_pack_def pack = kl_default_sphere_pack_def();
	pack.max_spheres = spheres;
	double start = kl_pair_now();
	kl_sphere_packing* packing = kl_sphere_pack(mesh->mesh, &pack);
	out->pack_seconds = kl_pair_now() - start;
	if (packing == NULL)
	{
		snprintf(err, err_size, "sphere packing: %s", kl_last_error());
		return false;
	}
	kl_sphere_tree_def def = kl_default_sphere_tree_def();
	def.represented_volumes = kl_sphere_packing_represented_volumes(packing);
	out->sphere_count = kl_sphere_packing_count(packing);
	out->coverage = kl_sphere_packing_coverage(packing);
	start = kl_pair_now();
	out->tree = kl_sphere_tree_build(kl_sphere_packing_spheres(packing), out->sphere_count, &def);
	out->tree_seconds = kl_pair_now() - start;
	kl_sphere_packing_destroy(packing);
	if (out->tree == NULL)
	{
		snprintf(err, err_size, "sphere tree: %s", kl_last_error());
		return false;
	}
	return true;
}

void kl_ist_model_free(kl_ist_model* model)
{
	kl_sphere_tree_destroy(model->tree);
	memset(model, 0, sizeof(*model));
}

/// The transform of a checked pose (a rotation matrix).
static kl_transform transform_of(const kl_collision_pose* pose)
{
	mat3s m;
	for (int row = 0; row < 3; ++row)
	{
		for (int col = 0; col < 3; ++col)
		{
			m.raw[col][row] = (float)pose->rotation[row][col]; // cglm: column-major
		}
	}
	kl_transform xf = {{{(float)pose->translation[0], (float)pose->translation[1], (float)pose->translation[2]}},
					   glms_mat3_quat(m)};
	return xf;
}

kl_result kl_ist_model_query(const kl_ist_model* a, const kl_ist_model* b, const kl_collision_pose* pose,
							 kl_sphere_traversal traversal, kl_sphere_overlap_result* result)
{
	kl_transform identity = {{{0.0f, 0.0f, 0.0f}}, glms_quat_identity()};
	kl_sphere_overlap_def def = kl_default_sphere_overlap_def();
	def.traversal = traversal;
	return kl_sphere_tree_overlap(a->tree, identity, b->tree, transform_of(pose), &def, result);
}
