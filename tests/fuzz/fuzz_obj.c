// libFuzzer target: the OBJ parser (kl_mesh_data_parse_obj), then the collision model of what it
// accepted (kl_mesh_build). docs/fuzzing.md says how to run it.
// SPDX-License-Identifier: MIT
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	kl_mesh_data mesh;
	// The text is not NUL-terminated: the parser must stay within size.
	if (kl_mesh_data_parse_obj((const char*)data, size, &mesh) == KL_OK)
	{
		kl_fuzz_build_mesh(&mesh);
		kl_mesh_data_free(&mesh);
	}
	return 0;
}
