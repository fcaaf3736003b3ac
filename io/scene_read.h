// Kollide internal — typed JSON reading for the scene loader. Every value is read at a JSON path
// ("bodies[2].shapes[0]") that prefixes its error, the first error is kept and later ones are
// ignored, unknown keys are warned about and repeated ones refused. It knows the scene format's
// conventions for values (quaternions [w, x, y, z], 64-bit masks as hex strings) but not what
// a scene holds.
// SPDX-License-Identifier: MIT
#pragma once

#include "core.h"

#include <kollide/io.h>

#include <cjson/cJSON.h>

#define KL_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct kl_json_reader
{
	kl_scene_warning_fn* warning; ///< NULL: warnings go to stderr
	void* warning_context;
	int warning_count;
	char path[256]; ///< JSON path of the value being read, e.g. "bodies[2].shapes[0]"
	size_t path_length;
	bool failed;
	kl_result code;
	char message[768]; ///< path and text (kl_fail keeps the first 511 characters)
} kl_json_reader;

// ---------------------------------------------------------------------------------------------
// Paths, errors and warnings

/// Appends ".key", or "[index]" when key is NULL, to the JSON path; returns the length to restore.
size_t kl_json_push(kl_json_reader* r, const char* key, int index);
void kl_json_pop(kl_json_reader* r, size_t length);

/// Records the first failure as "<path>.<key>: <message>" and returns false.
bool kl_json_fail(kl_json_reader* r, const char* key, kl_result code, const char* format, ...) KL_PRINTF(4, 5);
/// Fails with the message of the API call that just failed, at the current path.
bool kl_json_fail_api(kl_json_reader* r, const char* key);
bool kl_json_missing(kl_json_reader* r, const char* key);

/// Reports a warning through the callback, or to stderr; beyond the first hundred, only counts it.
void kl_json_warn(kl_json_reader* r, const char* format, ...) KL_PRINTF(2, 3);

/// "a number", "an array", ...: what an error says it got.
const char* kl_json_type_name(const cJSON* item);

// ---------------------------------------------------------------------------------------------
// Values. The kl_json_to_* functions convert a value, named key in errors; the kl_json_read_*
// functions read object[key], where an absent key keeps *out unless it is required.

static inline const cJSON* kl_json_get(const cJSON* object, const char* key)
{
	return cJSON_GetObjectItemCaseSensitive(object, key);
}

/// Checks that the value at the current path is an object.
bool kl_json_expect_object(kl_json_reader* r, const cJSON* item);

/// Warns about keys that are not in known (a misspelt key would otherwise be silently ignored)
/// and fails on a repeated known key, whose meaning would be ambiguous. At most 64 known keys.
bool kl_json_check_keys(kl_json_reader* r, const cJSON* object, const char* const* known, int count);

/// A number that rounds to a finite float.
bool kl_json_to_float(kl_json_reader* r, const cJSON* item, const char* key, float* out);
/// An array of exactly count numbers.
bool kl_json_to_floats(kl_json_reader* r, const cJSON* item, const char* key, float* out, int count);
bool kl_json_to_vec3(kl_json_reader* r, const cJSON* item, const char* key, vec3s* out);
/// An integral number in [lower, upper].
bool kl_json_to_integer(kl_json_reader* r, const cJSON* item, const char* key, double lower, double upper,
						double* out);

bool kl_json_read_float(kl_json_reader* r, const cJSON* object, const char* key, bool required, float* out);
bool kl_json_read_vec3(kl_json_reader* r, const cJSON* object, const char* key, bool required, vec3s* out);
/// A quaternion written [w, x, y, z], not zero.
bool kl_json_read_quat(kl_json_reader* r, const cJSON* object, const char* key, bool required, versors* out);
bool kl_json_read_bool(kl_json_reader* r, const cJSON* object, const char* key, bool required, bool* out);
/// The string stays owned by the document.
bool kl_json_read_string(kl_json_reader* r, const cJSON* object, const char* key, bool required, const char** out);
bool kl_json_read_int(kl_json_reader* r, const cJSON* object, const char* key, bool required, int* out);
bool kl_json_read_uint32(kl_json_reader* r, const cJSON* object, const char* key, bool required, uint32_t* out);
/// A 64-bit mask: a number up to 2^53, or a string in hex ("0xffffffffffffffff") or decimal.
bool kl_json_read_u64(kl_json_reader* r, const cJSON* object, const char* key, bool required, uint64_t* out);
bool kl_json_read_non_negative(kl_json_reader* r, const cJSON* object, const char* key, bool required, float* out);

bool kl_json_check_positive(kl_json_reader* r, const char* key, float value);
bool kl_json_check_positive_vec3(kl_json_reader* r, const char* key, vec3s v);

/// Looks an enum name up through its name function (one of kl_scene_*_name in scene_json.h), for
/// values 0 to count - 1.
bool kl_json_read_enum(kl_json_reader* r, const cJSON* object, const char* key, bool required,
					   const char* (*name_of)(int), int count, const char* what, int* out);

/// Reads each element of the array object[key] (absent: none) through read_element, at the path
/// "key[i]", and stops at the first that fails.
typedef bool kl_json_element_fn(void* context, const cJSON* element);
bool kl_json_read_array(kl_json_reader* r, const cJSON* object, const char* key, kl_json_element_fn* read_element,
						void* context);

/// An array of [x, y, z] points, at least min_count and at most max_count (owned result).
vec3s* kl_json_read_points(kl_json_reader* r, const cJSON* item, const char* key, int min_count, int max_count,
						   int* count_out);
