// Kollide render — heatmap overlays: a per-vertex scalar field on a triangle mesh drawn with a
// perceptual colour map (viridis-like, computed, not copied) between a minimum and a maximum, for
// contact maps, grasp force maps and uncertainty distributions. The legend is drawn with text.h.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

typedef struct kl_renderer kl_renderer;
typedef struct kl_heatmap kl_heatmap;

/// Uploads a mesh (vertices in its own frame, 3 indices per triangle) with one scalar per vertex.
kl_heatmap* kl_heatmap_create(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
							  const float* values);
/// Uploads a mesh with a fixed sRGB colour per vertex (3 bytes each, e.g. a coloured PLY file):
/// drawn lit like a heatmap, but with these colours (lo and hi of kl_renderer_draw_heatmap are
/// ignored, and kl_heatmap_set_values does nothing).
kl_heatmap* kl_heatmap_create_colored(const vec3s* vertices, int vertex_count, const int32_t* indices,
									  int triangle_count, const uint8_t* rgb);
/// Replaces the scalars (vertex_count values).
void kl_heatmap_set_values(kl_heatmap* heatmap, const float* values);
void kl_heatmap_destroy(kl_heatmap* heatmap);
/// Draws it at xf in the current frame (between begin_frame and end_frame), values mapped from
/// [lo, hi] onto the colour map.
void kl_renderer_draw_heatmap(kl_renderer* renderer, const kl_heatmap* heatmap, kl_transform xf, float lo, float hi);

/// The colour map: t in [0, 1] → RGB in [0, 1] (perceptually ordered, dark blue → green → yellow).
vec3s kl_colormap(float t);
