// Kollide robot cell — reading JSON with cJSON: typed getters that check ranges and report the
// first problem with its path ("sensors[2].from: ..."). The library's scene reader is internal to
// io/, so the application keeps its own small one on the public API.
// SPDX-License-Identifier: MIT
#pragma once

#include "cell.h"

#include <cjson/cJSON.h>

#define KL_CELL_JSON_DEPTH 4

typedef struct kl_cell_json
{
	const char* file;
	char* error;
	int error_size;
	int depth;
	const char* keys[KL_CELL_JSON_DEPTH];
	int indices[KL_CELL_JSON_DEPTH]; ///< -1: an object member
} kl_cell_json;

/// Parses the file; NULL with the message in error.
cJSON* kl_cell_json_open(kl_cell_json* j, const char* path, char* error, int size);
void kl_cell_json_dirname(const char* path, char* dir, int size);

void kl_cell_json_push(kl_cell_json* j, const char* key, int index);
void kl_cell_json_pop(kl_cell_json* j);
/// Records "file: path: message"; returns false.
bool kl_cell_json_fail(kl_cell_json* j, const char* format, ...);
bool kl_cell_json_check(kl_cell_json* j, bool condition, const char* message);
/// Fails on a key outside keys.
bool kl_cell_json_keys(kl_cell_json* j, const cJSON* object, const char* const* keys, int count);

// Each leaves *out unchanged when the key is absent and not required.
bool kl_cell_json_float(kl_cell_json* j, const cJSON* o, const char* key, bool required, float* out);
bool kl_cell_json_int(kl_cell_json* j, const cJSON* o, const char* key, bool required, int min, int max, int* out);
bool kl_cell_json_vec3(kl_cell_json* j, const cJSON* o, const char* key, bool required, vec3s* out);
/// A direction, normalised; fails for a zero or non-finite one.
bool kl_cell_json_unit(kl_cell_json* j, const cJSON* o, const char* key, vec3s* out);
bool kl_cell_json_name(kl_cell_json* j, const cJSON* o, const char* key, bool required, char out[KL_CELL_NAME_SIZE]);
bool kl_cell_json_enum(kl_cell_json* j, const cJSON* o, const char* key, const char* const* names, int count, int* out);
/// "position" and "orientation" ([w, x, y, z], normalised) into a pose.
bool kl_cell_json_pose(kl_cell_json* j, const cJSON* o, kl_transform* pose);
/// "half_extents": each in (0, 1000] m.
bool kl_cell_json_extents(kl_cell_json* j, const cJSON* o, vec3s* out);
/// A register: an address, or {"address", "scale" (≠ 0), "offset"}.
bool kl_cell_json_scaled(kl_cell_json* j, const cJSON* o, const char* key, kl_cell_scaled* out);
/// A file path relative to dir (unless absolute).
bool kl_cell_json_path(kl_cell_json* j, const cJSON* o, const char* key, const char* dir, char* out, int size);
