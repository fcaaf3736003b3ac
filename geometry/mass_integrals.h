// Kollide internal — volume integrals of closed triangle meshes (volume, first and second moments),
// shared by kl_compute_polyhedron_mass, hulls and mesh collision models.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/geometry.h>

/// Volume integrals of a solid, taken relative to a reference point near it (not the origin) so
/// that far-away meshes keep their precision. All moments are signed: an inside-out mesh gives a
/// negative volume.
typedef struct kl_volume_integrals
{
	double reference[3]; ///< r: the point the moments are taken about
	double volume;		 ///< V = ∫ dV
	double first[3];	 ///< f = ∫ (x - r) dV
	double second[3][3]; ///< C = ∫ (x - r)(x - r)^T dV, the covariance (second moment) about r
} kl_volume_integrals;

/// Integrates over the solid bounded by a closed triangle mesh (outward, counter-clockwise), summing
/// signed tetrahedra (r, a, b, c) in double precision. Indices must be valid; the reference is the
/// centre of the bounds of the referenced vertices. No triangles give all zeros.
kl_volume_integrals kl_polyhedron_integrals(const vec3s* vertices, const int32_t* indices, int triangle_count);

/// The integrals of the solid after x -> S x with S = diag(scale): V' = det(S) V,
/// f' = det(S) S f, C' = det(S) S C S and r' = S r. Any per-axis scale is exact.
kl_volume_integrals kl_volume_integrals_scale(const kl_volume_integrals* integrals, const double scale[3]);

/// Mass properties for a uniform density: mass ρV, centre r + f/V, inertia about the centre
/// ρ (tr(C_c) E − C_c) with C_c = C − f f^T / V. A volume that is not positive gives zero mass and
/// inertia with the centre at the reference point.
kl_mass_data kl_volume_integrals_mass(const kl_volume_integrals* integrals, double density);
