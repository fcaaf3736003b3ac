// Kollide — the inner-sphere tree object: settings, input checks, storage, info (kollide/sphere_tree.h).
// SPDX-License-Identifier: MIT
#include "ist.h"

#include "bvh_internal.h"
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Coordinates and radii beyond this are refused: squared distances of sums of them stay finite.
#define KL_IST_MAX_COORD 1e15f
/// Most a sphere's represented volume may exceed its own (a packing's reach about 10).
#define KL_IST_MAX_DENSITY 1e6

kl_sphere_tree_def kl_default_sphere_tree_def(void)
{
	kl_sphere_tree_def def = {
		.branching = 16,
		.seed = 1,
		.bng_iterations = 30,
		.bng_lambda_final = 0.01f,
		.bng_sample_limit = 2048,
		.magnification = true,
	};
	return def;
}

static kl_result check_def(const kl_sphere_tree_def* def)
{
	if (def->branching != 4 && def->branching != 16)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_sphere_tree_build: branching %d is not 4 or 16", def->branching);
	}
	if (def->bng_iterations < 1 || def->bng_iterations > 10000)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_sphere_tree_build: bng_iterations %d is not in [1, 10000]",
					   def->bng_iterations);
	}
	if (!(def->bng_lambda_final > 0.0f) || !kl_is_finite(def->bng_lambda_final))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_sphere_tree_build: bng_lambda_final %g must be positive",
					   (double)def->bng_lambda_final);
	}
	if (def->bng_sample_limit < 1)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_sphere_tree_build: bng_sample_limit %d must be positive",
					   def->bng_sample_limit);
	}
	return KL_OK;
}

static kl_result check_spheres(const kl_sphere* spheres, int count)
{
	if (spheres == NULL || count < 1 || count > KL_SPHERE_TREE_MAX_SPHERES)
	{
		return kl_fail(count > KL_SPHERE_TREE_MAX_SPHERES ? KL_ERR_LIMIT : KL_ERR_INVALID_ARGUMENT,
					   "kl_sphere_tree_build: %d spheres at %p (1 to %d needed)", count, (const void*)spheres,
					   KL_SPHERE_TREE_MAX_SPHERES);
	}
	for (int i = 0; i < count; ++i)
	{
		const kl_sphere* s = &spheres[i];
		bool finite = kl_vec3_is_finite(s->center) && kl_is_finite(s->radius);
		float size = kl_maxf(kl_maxf(fabsf(s->center.x), fabsf(s->center.y)), kl_maxf(fabsf(s->center.z), s->radius));
		if (!finite || !(s->radius >= 0.0f) || size > KL_IST_MAX_COORD)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT,
						   "kl_sphere_tree_build: sphere %d (%g, %g, %g) radius %g: not finite, negative or beyond "
						   "%g",
						   i, (double)s->center.x, (double)s->center.y, (double)s->center.z, (double)s->radius,
						   (double)KL_IST_MAX_COORD);
		}
	}
	return KL_OK;
}

/// Represented volumes must be finite, non-negative and at most KL_IST_MAX_DENSITY times the sphere's.
static kl_result check_represented(const float* represented, const kl_sphere* spheres, int count)
{
	for (int i = 0; represented != NULL && i < count; ++i)
	{
		double own = kl_ist_sphere_volume(spheres[i].radius);
		if (!kl_is_finite(represented[i]) || !(represented[i] >= 0.0f) || represented[i] > KL_IST_MAX_DENSITY * own)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT,
						   "kl_sphere_tree_build: represented volume %d is %g (finite, from 0 to %g times the "
						   "sphere's %g needed)",
						   i, (double)represented[i], KL_IST_MAX_DENSITY, own);
		}
	}
	return KL_OK;
}

/// ρ = represented / own volume per sphere (0 for a sphere of no volume) and the represented total.
static bool set_density(kl_sphere_tree* t, const float* represented)
{
	t->represented_volume = t->sphere_volume;
	if (represented == NULL)
	{
		return true;
	}
	t->density = kl_alloc((size_t)t->sphere_count, sizeof(float));
	if (t->density == NULL)
	{
		return false;
	}
	double total = 0.0;
	for (int i = 0; i < t->sphere_count; ++i)
	{
		double own = kl_ist_sphere_volume(t->spheres[i].radius);
		t->density[i] = own > 0.0 ? (float)(represented[i] / own) : 0.0f;
		total += represented[i];
	}
	t->represented_volume = (float)total;
	return true;
}

/// Gives back the node storage the build did not use (it reserves a node per sphere). Keeps the larger
/// arrays when the smaller ones cannot be had.
static void shrink(kl_sphere_tree* t)
{
	size_t n = (size_t)t->node_count;
	size_t lane_bytes = n * 4 * (size_t)t->width * sizeof(float);
	float* lanes = kl_bvh_alloc_big(lane_bytes);
	if (lanes != NULL)
	{
		memcpy(lanes, t->lanes, lane_bytes);
		free(t->lanes);
		t->lanes = lanes;
	}
	int32_t* child = realloc(t->child, n * (size_t)t->width * sizeof(int32_t));
	t->child = child != NULL ? child : t->child;
	int32_t* count = realloc(t->count, n * sizeof(int32_t));
	t->count = count != NULL ? count : t->count;
	kl_sphere* bound = realloc(t->node_bound, n * sizeof(kl_sphere));
	t->node_bound = bound != NULL ? bound : t->node_bound;
	float* volume = realloc(t->node_volume, n * sizeof(float));
	t->node_volume = volume != NULL ? volume : t->node_volume;
}

kl_sphere_tree* kl_sphere_tree_build(const kl_sphere* spheres, int count, const kl_sphere_tree_def* def)
{
	kl_sphere_tree_def d = def != NULL ? *def : kl_default_sphere_tree_def();
	if (check_def(&d) != KL_OK || check_spheres(spheres, count) != KL_OK ||
		check_represented(d.represented_volumes, spheres, count) != KL_OK)
	{
		return NULL;
	}
	kl_sphere_tree* t = kl_alloc_zero(1, sizeof(kl_sphere_tree));
	if (t == NULL)
	{
		return NULL;
	}
	// Every node has at least two children, so count nodes hold any tree (one for a single sphere).
	int W = d.branching;
	size_t lane_bytes = (size_t)count * 4 * (size_t)W * sizeof(float);
	t->width = W;
	t->sphere_count = count;
	t->lanes = kl_bvh_alloc_big(lane_bytes);
	t->child = kl_alloc((size_t)count, (size_t)W * sizeof(int32_t));
	t->count = kl_alloc((size_t)count, sizeof(int32_t));
	t->spheres = kl_alloc((size_t)count, sizeof(kl_sphere));
	t->node_bound = kl_alloc((size_t)count, sizeof(kl_sphere));
	t->node_volume = kl_alloc((size_t)count, sizeof(float));
	if (t->lanes == NULL || t->child == NULL || t->count == NULL || t->spheres == NULL || t->node_bound == NULL ||
		t->node_volume == NULL)
	{
		if (t->lanes == NULL)
		{
			kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_sphere_tree_build: %zu bytes of nodes", lane_bytes);
		}
		kl_sphere_tree_destroy(t);
		return NULL;
	}
	memset(t->lanes, 0, lane_bytes);
	for (size_t i = 0; i < (size_t)count * (size_t)W; ++i)
	{
		t->child[i] = KL_IST_UNUSED;
	}
	memcpy(t->spheres, spheres, (size_t)count * sizeof(kl_sphere));
	if (!kl_ist_build_nodes(t, &d) || !set_density(t, d.represented_volumes))
	{
		kl_sphere_tree_destroy(t);
		return NULL;
	}
	shrink(t);
	t->bytes = sizeof(kl_sphere_tree) +
			   (size_t)t->node_count * (4 * (size_t)W * sizeof(float) + (size_t)W * sizeof(int32_t) + sizeof(int32_t) +
										sizeof(kl_sphere) + sizeof(float)) +
			   (size_t)count * (sizeof(kl_sphere) + (t->density != NULL ? sizeof(float) : 0));
	return t;
}

void kl_sphere_tree_destroy(kl_sphere_tree* tree)
{
	if (tree == NULL)
	{
		return;
	}
	free(tree->lanes); // kl_bvh_alloc_big: aligned_alloc
	kl_free(tree->child);
	kl_free(tree->count);
	kl_free(tree->spheres);
	kl_free(tree->node_bound);
	kl_free(tree->node_volume);
	kl_free(tree->density);
	kl_free(tree);
}

kl_sphere_tree_info kl_sphere_tree_get_info(const kl_sphere_tree* tree)
{
	kl_sphere_tree_info info = {0};
	if (tree == NULL)
	{
		return info;
	}
	info.sphere_count = tree->sphere_count;
	info.branching = tree->width;
	info.node_count = tree->node_count;
	info.depth = tree->depth;
	info.bytes = tree->bytes;
	info.bound = tree->node_bound[0];
	info.sphere_volume = tree->sphere_volume;
	info.represented_volume = tree->represented_volume;
	return info;
}
