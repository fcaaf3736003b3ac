// Kollide internal — the mesh behind kl_mesh: welded, cleaned triangles, topology report, adjacency
// and the volume integrals that give exact mass properties at any per-axis scale. The geometric
// stages are welding and cleaning (mesh_weld.c), topology (mesh_topology.c), mass (mesh_mass.c) and
// adjacency (mesh.c); kl_mesh_build (narrowphase/mesh/mesh_model.c) runs them and then builds the
// narrowphase's representations, which this layer only points to.
// SPDX-License-Identifier: MIT
#pragma once

#include "core.h"
#include "mass_integrals.h"

#include <kollide/geometry.h>

#include <stdatomic.h>

/// Twice a triangle's area below (this · bounds diagonal)² counts as zero: float coordinates cannot
/// resolve a smaller triangle of a mesh that size.
#define KL_MESH_ZERO_AREA_RATIO 1.1920929e-7 // FLT_EPSILON

/// A closed mesh whose |volume| is below this · (bounds diagonal)³ encloses nothing (a double-sided
/// sheet, say); above it, the volume's sign is the orientation.
#define KL_MESH_ZERO_VOLUME_RATIO 1.0e-10

struct kl_mesh
{
	atomic_int ref_count;

	vec3s* vertices; ///< info.vertex_count welded vertices, each used by some triangle
	int32_t* indices; ///< 3 · info.triangle_count, outward counter-clockwise when info.closed
	char* source;	  ///< never NULL ("" when the def had none)
	kl_mesh_info info;

	/// The triangles were consistently oriented but enclosed a negative volume (inside out), so
	/// kl_mesh_build flipped every one of them; indices are the flipped ones.
	bool flipped;

	/// Unscaled integrals of the solid the mass comes from (the mesh itself, or its convex hull
	/// when info.mass_source says so); kl_mesh_mass scales them per axis.
	kl_volume_integrals integrals;

	/// The SIMD k-DOP BVH of the triangles (narrowphase/bvh/bvh.h), built by kl_mesh_build.
	struct kl_bvh* bvh;
	/// 3 per triangle: the vertex across each edge, -1 where no one neighbour is trusted
	/// (tri_adjacency.h). Mesh contacts read edge convexity from it.
	int32_t* opposite;
	/// Per vertex: the angle-weighted pseudo-normal (tri_adjacency.h), the inside test of the
	/// vertex contacts.
	vec3s* vertex_normals;
	float* vertex_cone_cos; ///< per vertex, the cosine of its normal cone's half-angle
	/// Conglomerates with point shells and octrees (narrowphase/pointshell/pointshell.h), built by
	/// kl_mesh_build: the point-shell backend's model.
	struct kl_pointshell* pointshell;
	/// Inner spheres (kl_mesh_def.inner_spheres) and their tree (narrowphase/ist/ist_mesh.c), built
	/// by kl_mesh_build: the penalty contact model's model.
	struct kl_sphere_packing* inner_spheres;
	struct kl_sphere_tree* sphere_tree;
};

// ---------------------------------------------------------------------------------------------
// The build's geometric part, run by kl_mesh_build before the narrowphase's stages.

/// Checks a def's counts, tolerances and finite values (kl_fail says what is wrong).
kl_result kl_mesh_validate_def(const kl_mesh_def* def);
/// Reports progress of a stage to a callback (NULL: none); false when it asked to stop (the failure,
/// KL_ERR_CANCELLED, is recorded).
bool kl_progress_report(kl_progress_fn* progress, void* context, const char* stage, float fraction);
/// kl_progress_report with the def's callback.
bool kl_mesh_report(const kl_mesh_def* def, const char* stage, float fraction);
/// Welding, cleaning, topology and mass, with their progress reports.
kl_result kl_mesh_build_geometry(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap);
/// The triangles' opposite vertices and the vertices' pseudo-normals and normal cones.
kl_result kl_mesh_build_adjacency(kl_mesh* mesh);
/// Frees what the geometric stages allocated (not the mesh itself).
void kl_mesh_free_geometry(kl_mesh* mesh);

// ---------------------------------------------------------------------------------------------
// Geometric stages, in the order kl_mesh_build_geometry runs them. Each returns KL_OK or why it stopped;
// a stage that fails leaves the mesh for kl_mesh_build to free.

/// Reports a long loop's progress every so many iterations (mesh.c). False when the progress
/// callback asked to stop; the failure is then recorded.
bool kl_mesh_report_loop(const kl_mesh_def* def, const char* stage, int i, int count);

/// 64-bit FNV-1a over the vertices' and indices' bytes: what a cache file built from a mesh is tied to.
uint64_t kl_mesh_geometry_hash(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count);

/// The length of the box's diagonal: the size the zero-area and zero-volume ratios scale with.
double kl_mesh_bounds_diagonal(kl_aabb box);

/// Welds def's vertices into mesh->vertices; remap[i] becomes the welded index of input vertex i.
kl_result kl_mesh_weld(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap);

/// Copies def's triangles through remap into mesh->indices without the degenerate ones, drops the
/// vertices no triangle uses (remap is reused for that) and sets the bounds.
kl_result kl_mesh_clean(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap);

/// Counts the open, non-manifold and inconsistently oriented edges into mesh->info.
kl_result kl_mesh_topology(kl_mesh* mesh);

/// Decides closed and orientation from the topology (flipping an inside-out mesh) and integrates
/// the solid the mass comes from into mesh->integrals.
kl_result kl_mesh_compute_mass(kl_mesh* mesh);
