// Kollide — k-DOPs (discrete oriented polytopes): fixed direction sets, conservative bounds, FP16 storage
// helpers and the conservative realignment of a DOP into another frame (rigid or affine motion).
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <kollide/base.h>

/// Largest number of slab axes (k/2) of any direction set; k = 46 uses 23.
#define KL_KDOP_MAX_AXES 23
/// Upper bound on the triangles of the convex hull of the 2·axes normals ±d (Euler: 2N−4, N ≤ 46),
/// plus room for the extra triangles of coplanar hull faces.
#define KL_KDOP_MAX_FACES 255
/// Cells per cube-face edge of the face lookup that starts the decomposition of a direction.
#define KL_KDOP_GRID 16
#define KL_KDOP_CELLS (6 * KL_KDOP_GRID * KL_KDOP_GRID)
#define KL_KDOP_CELL_FACES 8192

/// One hull triangle of the normal set: its cone holds every direction that is a non-negative
/// combination of its three normals. `g` scores a direction v by g·v (the ray from the origin along v
/// leaves the hull through the face with the largest score); `inv` solves v = Σ λ n.
typedef struct kl_kdop_face
{
	int n[3];			///< normal index: j < axes is +d_j, j >= axes is −d_(j−axes)
	double g[3];		///< face plane normal divided by its offset
	double inv[3][3];	///< inverse of the matrix whose columns are the three normals
} kl_kdop_face;

/// A direction set for k-DOPs with k = 2·axes slabs. Directions are unit length (as floats). Every DOP of
/// the set stores lo[axes] (the minima of d·x) and hi[axes] (the maxima).
typedef struct kl_kdop_dirs
{
	int k;
	int axes;
	float dir[KL_KDOP_MAX_AXES][3];
	int face_count;
	kl_kdop_face face[KL_KDOP_MAX_FACES];
	/// Cube-map lookup: the hull faces whose cones hold directions of each cell (6 cube faces × GRID²
	/// cells; cell c's faces are cell_face[cell_first[c] .. cell_first[c+1])): one face for the cells that
	/// lie inside one cone (most), a few for cells across cone borders. The decomposition tries them first
	/// and searches every face only when none holds the direction.
	uint16_t cell_first[KL_KDOP_CELLS + 1];
	uint8_t cell_face[KL_KDOP_CELL_FACES];
} kl_kdop_dirs;

/// The direction set for k ∈ {6, 14, 18, 26, 32, 46}: 6 = axes, 14 = axes + cube corners, 18 = axes +
/// cube edges, 26 = all three, 32 and 46 = the 26 set padded with well-spread directions (greedy
/// farthest directions from a spherical Fibonacci set; k = 32 and 46 are the seed's choices).
/// Returns NULL (and records KL_ERR_INVALID_ARGUMENT) for any other k. Thread-safe, built once.
const kl_kdop_dirs* kl_kdop_dirs_get(int k);

/// Sets lo = +big and hi = −big (a DOP that contains nothing and merges as the identity).
void kl_kdop_set_empty(int axes, float* lo, float* hi);

/// Grows the DOP to contain p. The slab values are evaluated in double and rounded outward to float, so
/// the float DOP contains the exact point (not just its float-rounded projection).
void kl_kdop_add_point(const kl_kdop_dirs* dirs, float* lo, float* hi, const float p[3]);

/// lo/hi ← the smallest DOP containing both (per-slab min/max; exact, no rounding).
void kl_kdop_merge(int axes, float* lo, float* hi, const float* lo2, const float* hi2);

/// True when no slab separates the two DOPs (touching counts as overlap). Same direction set.
bool kl_kdop_overlap(int axes, const float* alo, const float* ahi, const float* blo, const float* bhi);

/// Per-query plan that realigns DOPs of a source direction set into a destination frame and set.
/// Output row r (r < axes_out: lo of axis r, else hi of axis r − axes_out) is
/// ((coef[r][0]·s[row[r][0]] + coef[r][1]·s[row[r][1]]) + coef[r][2]·s[row[r][2]]) + c[r], where s holds the
/// source rows lo[0..axes_in) then hi[0..axes_in). Each output slab is a support-function bound: the
/// destination direction, mapped into the source frame, is written as a non-negative combination of three
/// source normals (the hull triangle whose cone contains it); sublinearity of the support function then
/// bounds the source polytope's extent, and c adds the translation, stored offsets, a rounding allowance
/// and an optional margin. The result contains the moved source DOP, hence everything inside it.
typedef struct kl_kdop_plan
{
	int axes_in;
	int axes_out;
	int16_t row[2 * KL_KDOP_MAX_AXES][3];
	float coef[2 * KL_KDOP_MAX_AXES][3];
	float c[2 * KL_KDOP_MAX_AXES];
	double max_residual; ///< largest |v − Σλn| of the decompositions (diagnostic)
} kl_kdop_plan;

/// Describes how DOP values are stored: value = stored + offset[axis]; |stored| ≤ stored_abs_max; every
/// point the DOP bounds has |x| ≤ point_radius (in its own frame). Used for the rounding allowance.
typedef struct kl_kdop_storage
{
	const kl_kdop_dirs* dirs;
	const float* offset; ///< axes values, or NULL for zero
	double stored_abs_max;
	double point_radius;
} kl_kdop_storage;

/// Builds the plan for moving DOPs stored as `src` by the affine map x_dst = m·x_src + t (m row-major 3×3,
/// any invertible matrix; a rotation for rigid motion) into the storage convention of `dst` (its
/// direction set and offsets). The realigned DOP is inflated by margin (≥ 0) along every unit direction.
void kl_kdop_plan_make(kl_kdop_plan* plan, const kl_kdop_storage* src, const kl_kdop_storage* dst,
					   const double m[3][3], const double t[3], float margin);

/// Applies the plan to one DOP (lo/hi with `stride` floats between consecutive axes; stride 1 for
/// plain arrays). Writes out_lo[axes_out], out_hi[axes_out].
void kl_kdop_realign(const kl_kdop_plan* plan, const float* lo, const float* hi, int stride, float* out_lo,
					 float* out_hi);

/// IEEE binary16 helpers. kl_half_from_double rounds toward −∞ (dir < 0), +∞ (dir > 0) or to nearest
/// even (dir == 0); with dir ≠ 0 the half value never lies on the wrong side of x, overflow included.
uint16_t kl_half_from_double(double x, int dir);
float kl_half_to_float(uint16_t h);
