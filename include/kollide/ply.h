// Kollide — PLY (Stanford polygon format) meshes with optional per-vertex colours and one scalar per
// vertex: read (ASCII, binary little and big endian) and written (ASCII). kollide-collide --heatmap
// writes cost heatmaps in this form and kollide-viewer --ply shows them; kl_mesh_data_load reads the
// geometry of any .ply file like the other mesh formats.
// SPDX-License-Identifier: MIT
#pragma once

#include "io.h"

KL_C_BEGIN

/// A PLY mesh: geometry plus what a heatmap needs (owned arrays; free with kl_ply_free).
typedef struct kl_ply_mesh
{
	kl_mesh_data mesh; ///< vertices and triangles; polygons are fan-triangulated
	uint8_t* colors;   ///< NULL, or red, green, blue per vertex (float colours in [0, 1] are scaled to 255)
	float* values;	   ///< NULL, or the vertex property "value" per vertex
	int32_t* counts;   ///< NULL, or the vertex property "count" per vertex (samples behind the value)
	/// NULL, or the header's comment lines without the "comment " keyword, each ended by '\n'.
	char* comments;
	/// A comment holds the words "min=X max=Y": the range the colours were mapped from (the reader
	/// sets these; the writer only writes the comments).
	bool has_range;
	float range_min;
	float range_max;
} kl_ply_mesh;

/// Parses a PLY file held in memory. The vertex element needs x, y, z; the face element a list
/// property vertex_indices (or vertex_index) with at least 3 in-range indices per face. Other
/// properties and elements are skipped. Errors (KL_ERR_PARSE, KL_ERR_INVALID_ARGUMENT for NaN/Inf
/// or out-of-range indices, KL_ERR_LIMIT for counts beyond KL_MESH_MAX_*) name the header line,
/// the body line (ASCII) or the byte offset (binary).
KL_API kl_result kl_ply_parse(const void* bytes, size_t length, kl_ply_mesh* out);
/// Reads a file; messages start with the path.
KL_API kl_result kl_ply_load(const char* path, kl_ply_mesh* out);
/// Writes ASCII PLY: vertex x y z [red green blue] [value] [count] (the optional arrays that are not
/// NULL, floats with 9 significant digits so that they read back exactly), then the triangles as
/// faces. Each line of mesh->comments becomes a "comment" line of the header.
KL_API kl_result kl_ply_save(const char* path, const kl_ply_mesh* mesh);
KL_API void kl_ply_free(kl_ply_mesh* mesh);

/// Geometry only, as the other loaders of io.h (kl_mesh_data_load dispatches ".ply" here).
KL_API kl_result kl_mesh_data_load_ply(const char* path, kl_mesh_data* out);
KL_API kl_result kl_mesh_data_parse_ply(const void* bytes, size_t length, kl_mesh_data* out);

KL_C_END
