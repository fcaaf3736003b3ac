// Kollide — continuous collision for the world's fast mesh pairs: the contacts where their surfaces
// first meet within the pass, added to the pair's own (narrowphase/mesh/mesh_sweep.h).
// SPDX-License-Identifier: MIT
#include "contact.h"

#include "mesh_sweep.h"
#include "world.h"

/// Whether a pair is swept: two triangle sets (meshes, boxes, hulls), neither a plane nor round.
static bool sweepable(const kl_shape* a, const kl_shape* b)
{
	for (int i = 0; i < 2; ++i)
	{
		kl_shape_type type = (i == 0 ? a : b)->type;
		if (type == KL_SHAPE_PLANE || type == KL_SHAPE_SPHERE || type == KL_SHAPE_CAPSULE)
		{
			return false;
		}
	}
	return true;
}

int kl_contact_sweep(const kl_world* world, const kl_contact* c, float margin, float dt, kl_mesh_scratch* scratch,
					 kl_manifold* fresh, int count)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	kl_triangle_set sa, sb;
	if (dt <= 0.0f || !sweepable(a, b) || !kl_shape_triangle_set(world, a, &sa) ||
		!kl_shape_triangle_set(world, b, &sb))
	{
		return count;
	}
	kl_vertex_motion motion;
	kl_contact_mesh_motion(world, c, dt, &motion);
	float reach[2] = {kl_contact_shape_reach(world, a), kl_contact_shape_reach(world, b)};
	kl_manifold swept[KL_SWEEP_MAX_MANIFOLDS];
	int added = kl_sweep_triangle_sets(&sa, &sb, margin, &motion, reach, scratch, swept, KL_SWEEP_MAX_MANIFOLDS);
	// The pair's own manifolds come ranked, so the last give way.
	int kept = count + added <= KL_MESH_MAX_MANIFOLDS ? count : KL_MESH_MAX_MANIFOLDS - added;
	for (int i = 0; i < added; ++i)
	{
		fresh[kept + i] = swept[i];
	}
	return kept + added;
}
