// Kollide viewer — command-line parsing. Everything is checked before a window opens, so a typo
// gives a clear message and a non-zero exit instead of a half-started viewer.
// SPDX-License-Identifier: MIT
#include "options.h"

#include "scenes.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

kl_viewer_options kl_viewer_default_options(void)
{
	kl_viewer_options o = {0};
	o.width = 1280;
	o.height = 720;
	o.threads = 1;
	return o;
}

/// Reads a whole decimal integer in [lo, hi]; false for junk, overflow or a value out of range.
static bool parse_int(const char* text, int lo, int hi, int* value)
{
	if (text == NULL || *text == '\0')
	{
		return false;
	}
	errno = 0;
	char* end = NULL;
	long v = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
	{
		return false;
	}
	*value = (int)v;
	return true;
}

typedef struct int_flag
{
	const char* name;
	int lo;
	int hi;
	size_t offset;
} int_flag;

static const int_flag int_flags[] = {
	{"--frames", 1, 100000000, offsetof(kl_viewer_options, frames)},
	{"--width", 64, 8192, offsetof(kl_viewer_options, width)},
	{"--height", 64, 8192, offsetof(kl_viewer_options, height)},
	{"--threads", 1, 256, offsetof(kl_viewer_options, threads)},
	{"--bench-boxes", 1, 1000000, offsetof(kl_viewer_options, bench_boxes)},
};

typedef struct string_flag
{
	const char* name;
	size_t offset;
} string_flag;

static const string_flag string_flags[] = {
	{"--scene", offsetof(kl_viewer_options, scene_name)},  {"--scene-file", offsetof(kl_viewer_options, scene_file)},
	{"--cell", offsetof(kl_viewer_options, cell_file)},	   {"--screenshot", offsetof(kl_viewer_options, screenshot)},
	{"--record", offsetof(kl_viewer_options, record_dir)},
};

typedef struct bool_flag
{
	const char* name;
	size_t offset;
} bool_flag;

static const bool_flag bool_flags[] = {
	{"--list", offsetof(kl_viewer_options, list)},		 {"--help", offsetof(kl_viewer_options, help)},
	{"-h", offsetof(kl_viewer_options, help)},			 {"--paused", offsetof(kl_viewer_options, paused)},
	{"--no-hud", offsetof(kl_viewer_options, hide_hud)}, {"--stats", offsetof(kl_viewer_options, stats)},
};

#define KL_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/// Handles argv[*i] if it is a known flag; returns 1 handled, 0 not a flag of ours, -1 error.
static int parse_flag(int argc, char** argv, int* i, kl_viewer_options* o, char* error, int cap)
{
	const char* arg = argv[*i];
	for (int k = 0; k < KL_COUNT(bool_flags); ++k)
	{
		if (strcmp(arg, bool_flags[k].name) == 0)
		{
			*(bool*)((char*)o + bool_flags[k].offset) = true;
			return 1;
		}
	}
	const char* value = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (strcmp(arg, "--ply") == 0) // repeatable: the files stand side by side
	{
		if (value == NULL || value[0] == '\0' || o->ply_count == KL_VIEWER_MAX_PLY)
		{
			snprintf(error, (size_t)cap,
					 value == NULL || value[0] == '\0' ? "--ply needs a value" : "at most %d --ply files",
					 KL_VIEWER_MAX_PLY);
			return -1;
		}
		o->ply_files[o->ply_count++] = value;
		*i += 1;
		return 1;
	}
	for (int k = 0; k < KL_COUNT(string_flags); ++k)
	{
		if (strcmp(arg, string_flags[k].name) == 0)
		{
			if (value == NULL || value[0] == '\0')
			{
				snprintf(error, (size_t)cap, "%s needs a value", arg);
				return -1;
			}
			*(const char**)((char*)o + string_flags[k].offset) = value;
			*i += 1;
			return 1;
		}
	}
	for (int k = 0; k < KL_COUNT(int_flags); ++k)
	{
		const int_flag* f = int_flags + k;
		if (strcmp(arg, f->name) == 0)
		{
			if (!parse_int(value, f->lo, f->hi, (int*)((char*)o + f->offset)))
			{
				snprintf(error, (size_t)cap, "%s needs a whole number in [%d, %d], got '%s'", arg, f->lo, f->hi,
						 value != NULL ? value : "");
				return -1;
			}
			*i += 1;
			return 1;
		}
	}
	return 0;
}

bool kl_viewer_parse_args(int argc, char** argv, kl_viewer_options* options, char* error, int error_capacity)
{
	kl_viewer_options o = kl_viewer_default_options();
	error[0] = '\0';
	for (int i = 1; i < argc; ++i)
	{
		int r = parse_flag(argc, argv, &i, &o, error, error_capacity);
		if (r < 0)
		{
			return false;
		}
		if (r == 0)
		{
			snprintf(error, (size_t)error_capacity, "unknown argument '%s' (--help lists the options)", argv[i]);
			return false;
		}
	}
	int sources = (o.scene_name != NULL) + (o.scene_file != NULL) + (o.bench_boxes > 0) + (o.ply_count > 0) +
				  (o.cell_file != NULL);
	if (sources > 1)
	{
		snprintf(error, (size_t)error_capacity,
				 "--scene, --scene-file, --cell, --bench-boxes and --ply exclude each other");
		return false;
	}
	if (o.scene_name != NULL && kl_scene_find(o.scene_name) == NULL)
	{
		snprintf(error, (size_t)error_capacity, "unknown scene '%s' (kollide-viewer --list shows the scenes)",
				 o.scene_name);
		return false;
	}
	*options = o;
	return true;
}

void kl_viewer_print_usage(FILE* out)
{
	fprintf(out, "usage: kollide-viewer [--scene NAME] [--scene-file F.json] [--cell CELL.json] [--frames N]\n"
				 "                      [--screenshot FILE.png]\n"
				 "                      [--record DIR] [--list] [--width W --height H] [--threads T]\n"
				 "                      [--paused] [--no-hud] [--stats] [--bench-boxes N] [--ply F.ply ...]\n"
				 "  --list          print the scene names with their descriptions\n"
				 "  --cell F.json   a robot cell (kollide-cell's file) stepped in the viewer: sensor rays,\n"
				 "                  trigger volumes and oracle regions drawn, signal values in a panel\n"
				 "  --frames N      exit after N frames; each advances a fixed 1/60 s (deterministic output)\n"
				 "  --screenshot F  write the last frame as PNG\n"
				 "  --record DIR    write DIR/frame_000000.png ... for every frame\n"
				 "  --stats         print frame, step and render time medians at exit\n"
				 "  --bench-boxes N the box_layers scene at N boxes (frame-time measurements)\n"
				 "  --ply F.ply     show a coloured PLY mesh (repeat for up to 4, side by side) with\n"
				 "                  a legend of its value range (kollide-collide --heatmap files)\n"
				 "Keys: F1 help on screen.\n");
}

void kl_viewer_print_scenes(FILE* out)
{
	int count = 0;
	const kl_scene* const* scenes = kl_scene_list(&count);
	for (int i = 0; i < count; ++i)
	{
		fprintf(out, "%-20s %s\n", scenes[i]->name, scenes[i]->description != NULL ? scenes[i]->description : "");
	}
}
