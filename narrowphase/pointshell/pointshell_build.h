// Kollide narrowphase — the stages of kl_pointshell_build (pointshell_build.c), each in its own
// file: point shells (pointshell_shells.c), conglomerates and their boxes (pointshell_groups.c),
// octrees (pointshell_octree.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell.h"

#include <kollide/types.h>

/// The largest vertex coordinate a point-shell model is built for: the farthest out a world holds a
/// shape (KL_MAX_COORDINATE at the largest length unit). Squared edge lengths, which the spacing
/// and each triangle's grid frame are computed from, overflow float from about 1.8e19 on.
#define KL_PS_MAX_COORDINATE (KL_MAX_COORDINATE * KL_MAX_LENGTH_UNITS)

/// Checks a mesh and build settings before a model is built or read from a file: triangles present,
/// indices in range, settings valid, every vertex within ±KL_PS_MAX_COORDINATE.
kl_result kl_ps_check_input(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
							const kl_pointshell_build_def* def);

/// A third of the median edge length of the model's triangles: about four grid samples along a
/// typical edge (the default sampling distance). -1 when out of memory.
float kl_ps_auto_spacing(const kl_ps_model_view* v);

/// Rasterises one triangle's point shell into mask; returns its coverage radius.
float kl_ps_rasterise(const kl_ps_f3 t[3], float spacing, kl_ps_mask* mask);

/// A triangle with a sort key (the median cut's scratch).
typedef struct kl_ps_keyed
{
	float key;
	int32_t tri;
} kl_ps_keyed;

/// Splits tris[0, count) at the median of their centroids' longest axis, recursively, until a group
/// holds at most max_tris; appends each final group's size to sizes (work: room for count).
void kl_ps_median_cut(const kl_ps_model_view* v, int32_t* tris, int count, int max_tris, kl_ps_keyed* work, int* sizes,
					  int* group_count);

/// Surface clustering of all n triangles (pointshell_surface.c): tris (0 .. n-1 on entry) grouped
/// region by region, each region's size appended to sizes; false when out of memory.
bool kl_ps_surface_clusters(const kl_ps_model_view* v, int n, int max_tris, int32_t* tris, kl_ps_keyed* work,
							int* sizes, int* group_count);

/// Groups the model's triangles into conglomerates (m->tris, m->congs, m->cong_count) as
/// def->grouping says; false when out of memory.
bool kl_ps_build_conglomerates(kl_pointshell* m, const kl_ps_model_view* v, const kl_pointshell_build_def* def);

/// The PCA box of the triangles' vertices.
kl_ps_obb kl_ps_pca_box(const kl_ps_model_view* v, const int32_t* tris, int count);

/// The nodes and leaf entries of all conglomerates' octrees, grown as they are built.
typedef struct kl_ps_octree_builder
{
	kl_ps_node* nodes;
	int count;
	int capacity;
	kl_ps_entry* entries;
	uint32_t entry_count;
	uint32_t entry_capacity;
	int leaf_bucket; ///< kl_pointshell_build_def.leaf_bucket
} kl_ps_octree_builder;

/// Builds conglomerate c's octree over its triangles' samples (with its leaves' entries) and appends
/// its points to the model (growing m->points, whose capacity point_capacity tracks); false when out
/// of memory. The triangles' coverage must be set.
bool kl_ps_add_octree(kl_pointshell* m, const kl_ps_model_view* v, kl_ps_conglomerate* c, kl_ps_octree_builder* b,
					  uint32_t* point_capacity);

/// Whether a model read from a file can be searched: indices in range, octrees that are trees with
/// the walk's skip links and nested cells, finite numbers (pointshell_validate.c).
bool kl_pointshell_valid(const kl_pointshell* m);
