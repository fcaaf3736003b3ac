// Kollide — the convex narrowphase dispatcher: picks the pair function for two collider types.
// SPDX-License-Identifier: MIT
#include "gjk.h"

#include "core.h"

// Pair functions take their shapes in a fixed order: plane, then capsule, then sphere, then
// polyhedra (box or hull). A pair given the other way round is swapped, and only the normal is
// flipped: points are symmetric (midway between the surfaces) and ids name the same features.

/// Position of a type in the pair order; -1 for types without a convex pair function.
static int kl_pair_rank(kl_shape_type type)
{
	switch (type)
	{
		case KL_SHAPE_PLANE:
			return 0;
		case KL_SHAPE_CAPSULE:
			return 1;
		case KL_SHAPE_SPHERE:
			return 2;
		case KL_SHAPE_BOX:
		case KL_SHAPE_HULL:
			return 3;
		default:
			return -1;
	}
}

/// The polyhedron of a box or hull collider (a box is built in storage).
static const kl_hull* kl_collider_hull(const kl_collider* c, kl_box_hull* storage)
{
	return c->type == KL_SHAPE_BOX ? kl_make_box_hull(storage, c->half_extents) : c->hull;
}

/// a and b in pair order (rank(a) <= rank(b)).
static void kl_collide_ordered(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
							   float speculative, kl_collide_cache* cache, kl_manifold* m)
{
	kl_box_hull box_a, box_b;
	switch (a->type)
	{
		case KL_SHAPE_PLANE:
			if (b->type == KL_SHAPE_SPHERE || b->type == KL_SHAPE_CAPSULE)
			{
				kl_collide_plane_round(a->plane, xf_a, b, xf_b, speculative, m);
			}
			else if (b->type != KL_SHAPE_PLANE)
			{
				kl_collide_plane_hull(a->plane, xf_a, kl_collider_hull(b, &box_b), xf_b, speculative, m);
			}
			return;
		case KL_SHAPE_CAPSULE:
			if (b->type == KL_SHAPE_CAPSULE)
			{
				kl_collide_capsules(a, xf_a, b, xf_b, speculative, m);
			}
			else if (b->type == KL_SHAPE_SPHERE)
			{
				kl_collide_capsule_sphere(a, xf_a, b->radius, xf_b, speculative, m);
			}
			else
			{
				kl_collide_round_hull(a, xf_a, kl_collider_hull(b, &box_b), xf_b, speculative, cache, m);
			}
			return;
		case KL_SHAPE_SPHERE:
			if (b->type == KL_SHAPE_SPHERE)
			{
				kl_collide_spheres(a->radius, xf_a, b->radius, xf_b, speculative, m);
			}
			else if (b->type == KL_SHAPE_BOX)
			{
				kl_collide_sphere_box(a->radius, xf_a, b->half_extents, xf_b, speculative, m);
			}
			else
			{
				kl_collide_round_hull(a, xf_a, b->hull, xf_b, speculative, cache, m);
			}
			return;
		default:
			if (a->type == KL_SHAPE_BOX && b->type == KL_SHAPE_BOX)
			{
				kl_collide_boxes(a->half_extents, xf_a, b->half_extents, xf_b, speculative, cache, m);
				return;
			}
			kl_collide_hulls(kl_collider_hull(a, &box_a), xf_a, kl_collider_hull(b, &box_b), xf_b, speculative, cache,
							 m);
			return;
	}
}

void kl_collide(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b, float speculative,
				kl_collide_cache* cache, kl_manifold* manifold)
{
	if (manifold == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collide: NULL manifold");
		return;
	}
	kl_clear_manifold(manifold);
	if (a == NULL || b == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collide: NULL collider");
		return;
	}
	if (a->type == KL_SHAPE_MESH || b->type == KL_SHAPE_MESH)
	{
		return; // meshes have their own backend
	}
	int rank_a = kl_pair_rank(a->type), rank_b = kl_pair_rank(b->type);
	if (rank_a < 0 || rank_b < 0)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collide: shape types %d and %d are not colliders", (int)a->type,
				(int)b->type);
		return;
	}
	if ((a->type == KL_SHAPE_HULL && a->hull == NULL) || (b->type == KL_SHAPE_HULL && b->hull == NULL))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collide: hull collider without a hull");
		return;
	}
	if (rank_a <= rank_b)
	{
		kl_collide_ordered(a, xf_a, b, xf_b, speculative, cache, manifold);
		return;
	}
	kl_collide_ordered(b, xf_b, a, xf_a, speculative, cache, manifold);
	manifold->normal = glms_vec3_negate(manifold->normal);
}
