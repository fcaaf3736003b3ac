// Kollide internal — the mesh collision model behind kl_mesh: welded, cleaned triangles, topology
// report and the volume integrals that give exact mass properties at any per-axis scale.
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

	// Later stages add their representations here, each built once by kl_mesh_build and freed by
	// the last release: the SIMD k-DOP BVH, conglomerates with point shells and octrees, and
	// inner sphere trees.
};
