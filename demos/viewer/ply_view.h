// Kollide viewer — --ply: coloured PLY meshes (cost heatmaps of kollide-collide --heatmap) shown
// statically side by side over an empty world, with a colour-map legend per file.
// SPDX-License-Identifier: MIT
#pragma once

#include "heatmap.h"
#include "options.h"

#include <kollide/kollide.h>

typedef struct kl_viewer_app kl_viewer_app;

/// One loaded file: its GPU mesh, where it stands, and what the legend says.
typedef struct kl_viewer_ply
{
	kl_heatmap* heatmap;
	kl_transform xf;   ///< side by side along x, resting on z = 0
	vec3s lower;	   ///< bounds in the world (after xf)
	vec3s upper;
	bool has_range;	   ///< the legend's range: the file's "min= max=" comment, else its values
	float lo;
	float hi;
	char name[48];	   ///< file name (legend)
	char words[48];	   ///< "value=… stat=…" from the comment (legend)
} kl_viewer_ply;

/// Loads app->options.ply_files (GL context current). False with the loader's message in error.
bool kl_viewer_ply_load(kl_viewer_app* app, char* error, int error_capacity);
void kl_viewer_ply_free(kl_viewer_app* app);
/// Bounds of every loaded mesh; false when none is loaded.
bool kl_viewer_ply_bounds(const kl_viewer_app* app, kl_aabb* out);
/// Queues the meshes (between kl_renderer_begin_frame and kl_renderer_end_frame).
void kl_viewer_ply_draw(kl_viewer_app* app);
/// Queues the legends (between kl_text_begin and kl_text_end), bottom right, one row per file.
void kl_viewer_ply_legend(kl_viewer_app* app);
