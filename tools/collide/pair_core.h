// Kollide — what kollide-collide and kollide-poses share: loading a mesh (files or meshgen) into a
// collision model of the public API (kollide/collision.h), pose files, timing and statistics.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/collision.h>

#include <stdio.h>

/// One mesh: the engine's model of it (welded, degenerate triangles dropped) and its collision model.
typedef struct kl_pair_model
{
	kl_mesh* mesh;
	kl_collision_model* model;
	kl_collision_model_info info;
	const vec3s* vertices; ///< the mesh's
	int vertex_count;
	const int32_t* indices; ///< 3 per triangle
	int triangle_count;
	double mesh_seconds; ///< kl_mesh_build (welding, adjacency, the engine's tree, point shells)
} kl_pair_model;

/// Loads a mesh file (OBJ, STL, OFF, PLY) or makes one with meshgen for "gen:NAME[:N]": gear (N teeth),
/// rock (frequency N: 20·N² triangles), screw, nut, bowl, knot; builds the mesh (with point shells when
/// pointshell) and its collision model with def. False with a message in err.
bool kl_pair_load(const char* spec, bool pointshell, const kl_collision_model_def* def, kl_pair_model* model,
				  char* err, size_t err_size);
void kl_pair_free(kl_pair_model* model);

/// The pose of a row-major 3×4 [R | t] (not checked: kl_collision_pose_check).
kl_collision_pose kl_pair_pose(const double m34[12]);

/// A pose file: one 4×4 row-major matrix per line, '#' comments, "# rel=X" starting a group.
typedef struct kl_pose_file
{
	double* m34; ///< 12 per pose
	int* group;	 ///< group index per pose (0 when the file has no "# rel=" comments)
	int count;
	char** group_names; ///< "rel=0.2" …, or "all"
	int group_count;
} kl_pose_file;

/// False with "path:line: why" in err for a malformed line.
bool kl_pose_file_read(const char* path, kl_pose_file* out, char* err, size_t err_size);
void kl_pose_file_free(kl_pose_file* file);

/// Monotonic clock in seconds.
double kl_pair_now(void);

/// A whole decimal integer in [lo, hi] (nothing after it); false otherwise.
bool kl_pair_parse_int(const char* s, int lo, int hi, int* out);

/// Sorts n doubles ascending.
void kl_pair_sort(double* v, int n);
/// The median of n >= 1 sorted values.
double kl_pair_median_sorted(const double* v, int n);
/// Prints the statistics line of one pose group, `group NAME n= mean_us= median_us= min_us= max_us=
/// sd_us= mad_us=` (MAD: median absolute deviation), as kollide-collide and the peers print it.
/// Reorders us.
void kl_pair_print_group_stats(const char* name, double* us, int n);
