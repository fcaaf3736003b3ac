// libFuzzer target: JSON scene files. A scene that loads (kl_scene_load_string) must save
// (kl_scene_save_string), load again from what was saved, and give the same world: the same body
// transforms (kl_world_hash_transforms), the same saved text, and the same transforms after each
// of a few steps of both worlds. docs/fuzzing.md says how to run it.
// SPDX-License-Identifier: MIT
#include "fuzz_check.h"

#include <string.h>

/// Where the scenes' relative mesh paths point (tests/data: cube.obj, cube.off, cube.stl).
#ifndef KL_FUZZ_MESH_DIR
#error "KL_FUZZ_MESH_DIR names the directory of the scenes' mesh files"
#endif

/// Larger scenes are skipped: loading one is linear in its size, and small inputs reach every key.
#define KL_FUZZ_SCENE_MAX_BYTES (64 * 1024)
#define KL_FUZZ_SCENE_STEPS 3

static void ignore_warning(const char* message, void* context)
{
	(void)message;
	(void)context;
}

static kl_world_id load(const char* text)
{
	kl_scene_load_options options = kl_default_scene_load_options();
	options.warning = ignore_warning;
	options.worker_count = 1; // overrides the file's count: no threads, and one world per input is cheap
	options.base_dir = KL_FUZZ_MESH_DIR;
	return kl_scene_load_string(text, &options);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size > KL_FUZZ_SCENE_MAX_BYTES)
	{
		return 0;
	}
	char* text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	kl_world_id world = load(text);
	free(text);
	if (KL_IS_NULL(world))
	{
		return 0;
	}
	char* saved = kl_scene_save_string(world);
	KL_FUZZ_CHECK(saved != NULL, "a loaded scene does not save");
	kl_world_id again = load(saved);
	KL_FUZZ_CHECK(KL_IS_NON_NULL(again), "the saved scene does not load:\n%s\n", saved);
	uint32_t hash = kl_world_hash_transforms(world);
	uint32_t hash_again = kl_world_hash_transforms(again);
	KL_FUZZ_CHECK(hash == hash_again, "transforms hash %08x, after saving and loading %08x", (unsigned)hash,
				  (unsigned)hash_again);
	char* saved_again = kl_scene_save_string(again);
	KL_FUZZ_CHECK(saved_again != NULL, "a reloaded scene does not save");
	KL_FUZZ_CHECK(strcmp(saved, saved_again) == 0, "saving the reloaded scene gives other text:\n%s\n----\n%s\n", saved,
				  saved_again);
	for (int step = 0; step < KL_FUZZ_SCENE_STEPS; ++step)
	{
		KL_FUZZ_CHECK(kl_world_step(world, 1.0f / 60.0f, 4) == KL_OK, "step %d fails", step);
		KL_FUZZ_CHECK(kl_world_step(again, 1.0f / 60.0f, 4) == KL_OK, "step %d of the reloaded world fails", step);
		hash = kl_world_hash_transforms(world);
		hash_again = kl_world_hash_transforms(again);
		KL_FUZZ_CHECK(hash == hash_again, "step %d: transforms hash %08x, of the reloaded world %08x", step,
					  (unsigned)hash, (unsigned)hash_again);
	}
	free(saved_again);
	free(saved);
	kl_destroy_world(again);
	kl_destroy_world(world);
	return 0;
}
