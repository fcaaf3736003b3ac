// Kollide internal — inner-sphere packing (kl_sphere_pack, docs/inner-spheres.md). The stages: a
// signed distance grid of the mesh (sphere_pack_field.c), greedy insertion of the largest empty
// sphere with its centre refined off the grid (sphere_pack_insert.c, its queue in
// sphere_pack_queue.c), exact distance queries over a
// bucket grid of triangles and spheres (sphere_pack_query.c), and the cache file
// (sphere_pack_cache.c); sphere_pack.c checks the input and drives them.
// SPDX-License-Identifier: MIT
#pragma once

#include "core.h"
#include "dvec3.h"
#include "thread_pool.h"

#include <kollide/geometry.h>

struct kl_sphere_packing
{
	kl_sphere* spheres;
	float* represented; ///< per sphere, the volume of the solid it stands for (sphere_pack_share.c)
	int count;
	float coverage;
	kl_mesh_cache_status cache_status;
};

/// The triangles the distance queries read, with what the inside test by pseudo-normals needs.
typedef struct kl_sp_mesh
{
	const vec3s* vertices;
	const int32_t* indices;
	int triangle_count;
	const vec3s* vertex_normals; ///< the mesh's angle-weighted pseudo-normals
	vec3s* face_normals;		 ///< unit, per triangle
	int32_t* neighbours;		 ///< 3 per triangle: across each edge (-1: none trusted)
	kl_aabb* tri_bounds;
} kl_sp_mesh;

/// A sphere filed in a bucket, and the bucket's next entry (-1: the last).
typedef struct kl_sp_entry
{
	int32_t sphere;
	int32_t next;
} kl_sp_entry;

/// A uniform grid of buckets (two grid cells wide) over the sample grid: the triangles whose bounds
/// touch a bucket (fixed lists), and the spheres placed so far that touch it (linked lists).
typedef struct kl_sp_buckets
{
	vec3s origin;
	float size;
	int n[3];
	int32_t* tri_start; ///< n0·n1·n2 + 1 offsets into tri_items
	int32_t* tri_items;
	int32_t* sphere_head; ///< per bucket, the first entry (-1: none)
	kl_sp_entry* entries;
	int entry_count;
	int entry_capacity;
} kl_sp_buckets;

/// The sample grid: point (i, j, k) lies at origin + h·(i, j, k).
typedef struct kl_sp_grid
{
	vec3s origin;
	float h;
	int n[3];
	/// Clearance: the signed distance to the surface (negative outside), lowered by the spheres
	/// placed so far (distance to their surfaces). Exact within h of the surface; farther in, the
	/// distance to a triangle propagated from neighbours, so never below the true distance.
	float* clear;
	int32_t* tri; ///< the triangle that clear's surface distance is measured to (-1: none)
} kl_sp_grid;

/// Per triangle, the surface query that last measured it (one set per worker).
typedef struct kl_sp_stamps
{
	uint32_t* tri;
	uint32_t now;
} kl_sp_stamps;

/// Everything one packing run works on.
typedef struct kl_sp_builder
{
	kl_sp_mesh mesh;
	kl_sp_grid grid;
	kl_sp_buckets buckets;
	const kl_sphere_pack_def* def;
	kl_parallel where;
	double volume;		  ///< the mesh's
	double margin;		  ///< taken off each exact clearance, so that float rounding never lets a sphere out
	kl_sp_stamps* stamps; ///< one per worker
	int worker_count;
	kl_sphere* spheres;
	int count;
	int capacity;
	double covered; ///< the spheres' total volume
} kl_sp_builder;

static inline int64_t kl_sp_grid_index(const kl_sp_grid* g, int i, int j, int k)
{
	return ((int64_t)k * g->n[1] + j) * g->n[0] + i;
}

static inline vec3s kl_sp_grid_point(const kl_sp_grid* g, int i, int j, int k)
{
	return kl_vec3(g->origin.x + g->h * (float)i, g->origin.y + g->h * (float)j, g->origin.z + g->h * (float)k);
}

/// Squared distance from p to a box (0 inside).
static inline double kl_sp_box_distance2(vec3s p, kl_aabb box)
{
	double d2 = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		double d = kl_maxf(box.lower.raw[a] - p.raw[a], p.raw[a] - box.upper.raw[a]);
		d2 += d > 0.0 ? d * d : 0.0;
	}
	return d2;
}

// ---------------------------------------------------------------------------------------------
// sphere_pack_field.c

/// Sizes the sample grid for the def (resolution, seed offset) over the mesh's bounds.
kl_result kl_sp_grid_init(kl_sp_builder* b, kl_aabb bounds);
/// Normals, neighbours and bounds of the triangles; the triangle buckets.
kl_result kl_sp_mesh_init(kl_sp_builder* b, const struct kl_mesh* mesh);
/// Fills the grid's clearance with the signed distance to the surface.
kl_result kl_sp_field_build(kl_sp_builder* b);

// ---------------------------------------------------------------------------------------------
// sphere_pack_query.c

/// The closest surface point found by a query.
typedef struct kl_sp_surface_hit
{
	double distance; ///< the bound when no triangle lies within it
	int32_t tri;	 ///< -1: none within the bound
	uint8_t feature; ///< KL_TRI_VERTEX0 + k, KL_TRI_EDGE0 + k or KL_TRI_FACE
	kl_d3 offset;	 ///< p minus the closest point
} kl_sp_surface_hit;

/// Distance from p to triangle t, with the closest feature and p minus the closest point.
double kl_sp_triangle_distance(const kl_sp_mesh* m, int t, vec3s p, uint8_t* feature, kl_d3* offset);
/// Whether p lies outside, from its closest point on triangle t (pseudo-normal of the feature).
bool kl_sp_outside(const kl_sp_mesh* m, int t, uint8_t feature, kl_d3 offset);
/// The closest triangle to p among those within bound (exact), with one worker's stamps.
kl_sp_surface_hit kl_sp_surface_query(const kl_sp_builder* b, kl_sp_stamps* stamps, vec3s p, double bound);
/// The smallest |p − c| − r over the placed spheres within bound of p (bound when none); *sphere
/// gets its index (-1: none).
double kl_sp_sphere_query(const kl_sp_builder* b, vec3s p, double bound, int* sphere);
/// Files a placed sphere in the buckets it touches.
bool kl_sp_buckets_add_sphere(kl_sp_builder* b, int sphere);
/// The bucket range [lo, hi] that the box p ± r touches (clamped; false when it misses the grid).
bool kl_sp_bucket_range(const kl_sp_buckets* k, vec3s p, double r, int lo[3], int hi[3]);

// ---------------------------------------------------------------------------------------------
// sphere_pack_queue.c

/// A grid point and its clearance when queued.
typedef struct kl_sp_item
{
	float value;
	int32_t index;
} kl_sp_item;

/// A binary max-heap of grid points.
typedef struct kl_sp_queue
{
	kl_sp_item* items;
	int count;
} kl_sp_queue;

/// The grid points whose clearance exceeds floor (items NULL when out of memory).
kl_sp_queue kl_sp_queue_start(const kl_sp_grid* g, float floor);
/// Pushes an item; the queue never holds more than the grid points it started with.
void kl_sp_queue_push(kl_sp_queue* q, kl_sp_item item);
kl_sp_item kl_sp_queue_pop(kl_sp_queue* q);

// ---------------------------------------------------------------------------------------------
// sphere_pack_insert.c

/// Places spheres until the def's count, coverage or minimum radius stops it.
kl_result kl_sp_insert(kl_sp_builder* b);

// ---------------------------------------------------------------------------------------------
// sphere_pack_share.c

/// Each placed sphere's volume plus its share of the gaps (count floats): the grid points inside
/// that no sphere covers go to the sphere whose surface is nearest; the shares sum to the mesh's volume.
kl_result kl_sp_share_gaps(const kl_sp_builder* b, float* represented);

// ---------------------------------------------------------------------------------------------
// sphere_pack_cache.c

/// Reads a packing from a cache file made for this mesh and def; NULL when the file is missing,
/// made for something else, or does not check out (nothing recorded: the caller builds instead).
kl_sphere_packing* kl_sp_cache_load(const char* path, const struct kl_mesh* mesh, const kl_sphere_pack_def* def);
kl_result kl_sp_cache_save(const char* path, const kl_sphere_packing* packing, const struct kl_mesh* mesh,
						   const kl_sphere_pack_def* def);

/// Reports progress; false (and the failure recorded) when the callback asks to stop.
bool kl_sp_report(const kl_sphere_pack_def* def, const char* stage, float fraction);
