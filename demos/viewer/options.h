// Kollide viewer — command-line options.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdio.h>

enum
{
	KL_VIEWER_MAX_PLY = 4, ///< --ply files shown side by side
};

/// What the command line asked for. Strings point into argv.
typedef struct kl_viewer_options
{
	const char* scene_name; ///< a registered scene (NULL: the default one)
	const char* scene_file; ///< a JSON scene file instead
	const char* cell_file;	///< --cell: a robot cell file (apps/cell), its sensors and signals shown
	int frames;				///< > 0: exit after that many frames, each advancing a fixed 1/60 s
	const char* screenshot; ///< PNG of the last frame
	const char* record_dir; ///< DIR/frame_000000.png … one per frame
	int width;
	int height;
	int threads;
	int bench_boxes; ///< > 0: the box_layers scene at that many boxes (frame-time measurements)
	const char* ply_files[KL_VIEWER_MAX_PLY]; ///< --ply: coloured meshes shown statically
	int ply_count;
	bool list;
	bool help;
	bool paused;   ///< start paused (render-only timings)
	bool hide_hud; ///< start with the HUD hidden
	bool stats;	   ///< print frame-time medians at exit
} kl_viewer_options;

kl_viewer_options kl_viewer_default_options(void);

/// Parses argv into options. False with a one-line message in error for an unknown flag, a missing
/// or malformed value, a value out of range, an unknown scene or conflicting flags.
bool kl_viewer_parse_args(int argc, char** argv, kl_viewer_options* options, char* error, int error_capacity);

void kl_viewer_print_usage(FILE* out);
/// One line per scene: name, then its description.
void kl_viewer_print_scenes(FILE* out);
