// libFuzzer target: the PLY parser, ASCII and binary (kl_ply_parse with colours, values, counts
// and comments; kl_mesh_data_parse_ply, the geometry the other loaders' callers get), then the
// collision model of what it accepted (kl_mesh_build). docs/fuzzing.md says how to run it.
// SPDX-License-Identifier: MIT
#include "fuzz_check.h"

#include <kollide/ply.h>

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	kl_ply_mesh ply;
	bool full = kl_ply_parse(data, size, &ply) == KL_OK;
	kl_mesh_data mesh;
	bool geometry = kl_mesh_data_parse_ply(data, size, &mesh) == KL_OK;
	// Both read the same geometry through the same parser.
	KL_FUZZ_CHECK(full == geometry, "kl_ply_parse %s the input, kl_mesh_data_parse_ply %s it",
				  full ? "accepts" : "refuses", geometry ? "accepts" : "refuses");
	if (!full)
	{
		return 0;
	}
	kl_fuzz_check_mesh_data(&ply.mesh);
	KL_FUZZ_CHECK(ply.mesh.vertex_count == mesh.vertex_count && ply.mesh.triangle_count == mesh.triangle_count,
				  "kl_ply_parse: %d vertices, %d triangles; kl_mesh_data_parse_ply: %d, %d", ply.mesh.vertex_count,
				  ply.mesh.triangle_count, mesh.vertex_count, mesh.triangle_count);
	KL_FUZZ_CHECK(memcmp(ply.mesh.vertices, mesh.vertices, sizeof(vec3s) * (size_t)mesh.vertex_count) == 0 &&
					  memcmp(ply.mesh.indices, mesh.indices, 3 * sizeof(int32_t) * (size_t)mesh.triangle_count) == 0,
				  "kl_ply_parse and kl_mesh_data_parse_ply read different geometry");
	// The optional per-vertex arrays are read whole: touching the last entry finds a short one.
	int last = ply.mesh.vertex_count - 1;
	volatile uint32_t sink = 0;
	if (ply.colors != NULL)
	{
		sink += ply.colors[3 * last + 2];
	}
	if (ply.values != NULL)
	{
		sink += (uint32_t)isnan(ply.values[last]);
	}
	if (ply.counts != NULL)
	{
		sink += (uint32_t)ply.counts[last];
	}
	if (ply.comments != NULL)
	{
		size_t n = strlen(ply.comments);
		KL_FUZZ_CHECK(n > 0 && ply.comments[n - 1] == '\n', "comments do not end with a newline");
	}
	(void)sink;
	kl_fuzz_build_mesh(&ply.mesh);
	kl_mesh_data_free(&mesh);
	kl_ply_free(&ply);
	return 0;
}
