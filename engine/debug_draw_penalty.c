// Kollide — debug drawing of the penalty contact model (docs/penalty-contact.md): the inner spheres
// of the shapes that use it, and the lens centres of the last step's overlapping sphere pairs
// coloured by depth.
// SPDX-License-Identifier: MIT
#include "debug_draw.h"

#include "contact_penalty.h"
#include "mesh.h"
#include "shape.h"

#include <kollide/kollide.h>
#include <kollide/sphere_tree.h>

static kl_transform shape_pose(const kl_world* world, const kl_shape* shape)
{
	return kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
}

static void draw_inner_spheres(const kl_world* world, const kl_debug_draw* d)
{
	for (int s = 0; s < kl_id_pool_slot_count(&world->shape_pool); ++s)
	{
		const kl_shape* shape = &world->shapes[s];
		if (shape->id < 0 || shape->type != KL_SHAPE_MESH || shape->contact_model != KL_CONTACT_PENALTY ||
			(d->use_drawing_bounds && !kl_draw_bounds_overlap(shape->aabb, d->drawing_bounds)))
		{
			continue;
		}
		kl_transform xf = shape_pose(world, shape);
		int count = 0;
		const kl_sphere* spheres = kl_mesh_inner_spheres(shape->mesh.mesh, &count);
		for (int i = 0; i < count; ++i)
		{
			kl_transform at = {kl_transform_point(xf, spheres[i].center), xf.q};
			d->draw_sphere(at, spheres[i].radius, KL_COLOR_INNER_SPHERE, d->context);
		}
	}
}

/// The colour t of the way from a to b (0xRRGGBB, t in [0, 1]).
static uint32_t blend(uint32_t a, uint32_t b, float t)
{
	uint32_t out = 0;
	for (int shift = 0; shift <= 16; shift += 8)
	{
		float ca = (float)((a >> shift) & 0xffu), cb = (float)((b >> shift) & 0xffu);
		out |= (uint32_t)(ca + (cb - ca) * t + 0.5f) << shift;
	}
	return out;
}

/// One pair's overlapping sphere pairs, into a buffer made here (the caller frees it); their count.
static int query_pairs(const kl_world* world, const kl_penalty_pair* pp, kl_sphere_pair** out)
{
	const kl_shape* a = &world->shapes[pp->shape_a];
	const kl_shape* b = &world->shapes[pp->shape_b];
	*out = NULL;
	if (a->id < 0 || b->id < 0 || a->type != KL_SHAPE_MESH || b->type != KL_SHAPE_MESH ||
		a->mesh.mesh->sphere_tree == NULL || b->mesh.mesh->sphere_tree == NULL)
	{
		return 0; // destroyed (and the slot maybe reused) since the step
	}
	kl_sphere_overlap_def od = kl_default_sphere_overlap_def();
	kl_sphere_overlap_result r;
	const kl_sphere_tree* ta = a->mesh.mesh->sphere_tree;
	const kl_sphere_tree* tb = b->mesh.mesh->sphere_tree;
	kl_transform xa = shape_pose(world, a), xb = shape_pose(world, b);
	if (kl_sphere_tree_overlap(ta, xa, tb, xb, &od, &r) != KL_OK || r.pair_count == 0)
	{
		return 0;
	}
	od.pairs = kl_alloc((size_t)r.pair_count, sizeof(kl_sphere_pair));
	od.pair_capacity = r.pair_count;
	if (od.pairs == NULL || kl_sphere_tree_overlap(ta, xa, tb, xb, &od, &r) != KL_OK)
	{
		kl_free(od.pairs);
		return 0;
	}
	*out = od.pairs;
	return r.pair_count < od.pair_capacity ? r.pair_count : od.pair_capacity;
}

static void draw_pairs(const kl_world* world, const kl_debug_draw* d)
{
	float deepest = 0.0f;
	for (int k = 0; k < world->penalty_pair_count; ++k)
	{
		deepest = kl_maxf(deepest, world->penalty_pairs[k].max_depth);
	}
	for (int k = 0; k < world->penalty_pair_count; ++k)
	{
		kl_sphere_pair* pairs = NULL;
		int n = query_pairs(world, &world->penalty_pairs[k], &pairs);
		for (int i = 0; i < n; ++i)
		{
			float t = deepest > 0.0f ? kl_minf(pairs[i].depth / deepest, 1.0f) : 0.0f;
			d->draw_point(pairs[i].point, 6.0f, blend(KL_COLOR_PENALTY_SHALLOW, KL_COLOR_PENALTY_DEEP, t), d->context);
		}
		kl_free(pairs);
	}
}

void kl_draw_penalty(const kl_world* world, const kl_debug_draw* d)
{
	if (world->penalty_shape_count == 0)
	{
		return;
	}
	if (d->draw_inner_spheres && d->draw_sphere != NULL)
	{
		draw_inner_spheres(world, d);
	}
	if (d->draw_penalty_pairs && d->draw_point != NULL)
	{
		draw_pairs(world, d);
	}
}
