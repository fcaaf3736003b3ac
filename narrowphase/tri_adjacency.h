// Kollide internal — triangle adjacency: for each edge of each triangle, the third vertex of the
// triangle on the other side. The mesh contact generator reads an edge's convexity and normal arc
// from it (tri_contact.h), which two triangles alone cannot tell.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

#include <stdint.h>

/// Fills opposite[3·t + k] with the vertex index across edge k (vertex k to k + 1) of triangle t:
/// the third vertex of the one other triangle that uses the edge in the opposite direction. An
/// open edge, an edge shared by more than two triangles, or one whose neighbour runs the same
/// direction (inconsistent orientation) gets -1: no neighbour is trusted there. O(n log n).
/// Returns KL_OK, or an error (bad arguments, out of memory) with opposite untouched.
kl_result kl_triangle_opposites(const int32_t* indices, int triangle_count, int32_t* opposite);
