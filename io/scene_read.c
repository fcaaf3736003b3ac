// Kollide — typed JSON reading for the scene loader: paths, first-error reporting, warnings,
// and conversions of JSON values to floats, vectors, quaternions, integers, masks and enums.
// SPDX-License-Identifier: MIT
#include "scene_read.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/// Warnings beyond this many are counted, not reported: a generated file with a typo in every
/// object should not flood the terminal.
#define KL_SCENE_MAX_WARNINGS 100

/// Doubles below this round to a finite float (FLT_MAX plus half its ulp, exclusive).
#define KL_FLOAT_LIMIT ((double)FLT_MAX + 0x1p103)

/// Integers up to 2^53 are exact in a JSON number (a double); larger ones need a string.
#define KL_MAX_EXACT_INTEGER 9007199254740992.0

// ---------------------------------------------------------------------------------------------
// Paths, errors and warnings

size_t kl_json_push(kl_json_reader* r, const char* key, int index)
{
	size_t old = r->path_length;
	size_t room = sizeof(r->path) - old;
	int n = key != NULL ? snprintf(r->path + old, room, "%s%s", old > 0 ? "." : "", key)
						: snprintf(r->path + old, room, "[%d]", index);
	if (n > 0)
	{
		r->path_length = old + (size_t)n < sizeof(r->path) ? old + (size_t)n : sizeof(r->path) - 1;
	}
	return old;
}

void kl_json_pop(kl_json_reader* r, size_t length)
{
	r->path_length = length;
	r->path[length] = '\0';
}

bool kl_json_fail(kl_json_reader* r, const char* key, kl_result code, const char* format, ...)
{
	if (r->failed)
	{
		return false;
	}
	char what[384];
	va_list args;
	va_start(args, format);
	vsnprintf(what, sizeof(what), format, args);
	va_end(args);
	const char* dot = r->path_length > 0 && key != NULL ? "." : "";
	key = key != NULL ? key : "";
	const char* colon = r->path_length > 0 || key[0] != '\0' ? ": " : "";
	int n = snprintf(r->message, sizeof(r->message), "%s%s%s%s%s", r->path, dot, key, colon, what);
	(void)n; // a message cut at 511 characters is still a message
	r->failed = true;
	r->code = code;
	return false;
}

bool kl_json_fail_api(kl_json_reader* r, const char* key)
{
	char copy[384];
	snprintf(copy, sizeof(copy), "%s", kl_last_error());
	kl_result code = kl_last_error_code();
	return kl_json_fail(r, key, code != KL_OK ? code : KL_ERR_INVALID_ARGUMENT, "%s", copy);
}

bool kl_json_missing(kl_json_reader* r, const char* key)
{
	return kl_json_fail(r, key, KL_ERR_PARSE, "required key is missing");
}

void kl_json_warn(kl_json_reader* r, const char* format, ...)
{
	r->warning_count += 1;
	if (r->warning_count > KL_SCENE_MAX_WARNINGS)
	{
		return;
	}
	char message[512];
	va_list args;
	va_start(args, format);
	int n = vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (r->warning_count == KL_SCENE_MAX_WARNINGS && n >= 0 && (size_t)n < sizeof(message))
	{
		snprintf(message + n, sizeof(message) - (size_t)n, " (further warnings are not reported)");
	}
	if (r->warning != NULL)
	{
		r->warning(message, r->warning_context);
	}
	else
	{
		fprintf(stderr, "kollide: scene: %s\n", message);
	}
}

const char* kl_json_type_name(const cJSON* item)
{
	if (cJSON_IsNumber(item))
	{
		return "a number";
	}
	if (cJSON_IsString(item))
	{
		return "a string";
	}
	if (cJSON_IsBool(item))
	{
		return "a boolean";
	}
	if (cJSON_IsNull(item))
	{
		return "null";
	}
	if (cJSON_IsArray(item))
	{
		return "an array";
	}
	return cJSON_IsObject(item) ? "an object" : "an invalid value";
}

// ---------------------------------------------------------------------------------------------
// Values

bool kl_json_expect_object(kl_json_reader* r, const cJSON* item)
{
	if (!cJSON_IsObject(item))
	{
		return kl_json_fail(r, NULL, KL_ERR_PARSE, "expected an object, got %s", kl_json_type_name(item));
	}
	return true;
}

bool kl_json_check_keys(kl_json_reader* r, const cJSON* object, const char* const* known, int count)
{
	uint64_t seen = 0;
	for (const cJSON* item = object->child; item != NULL; item = item->next)
	{
		int k = 0;
		while (k < count && strcmp(item->string, known[k]) != 0)
		{
			++k;
		}
		if (k == count)
		{
			kl_json_warn(r, "unknown key '%s' at %s", item->string, r->path_length > 0 ? r->path : "the top level");
			continue;
		}
		if ((seen & (1ull << k)) != 0)
		{
			return kl_json_fail(r, item->string, KL_ERR_PARSE, "key appears more than once");
		}
		seen |= 1ull << k;
	}
	return true;
}

bool kl_json_to_float(kl_json_reader* r, const cJSON* item, const char* key, float* out)
{
	if (!cJSON_IsNumber(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected a number, got %s", kl_json_type_name(item));
	}
	double v = item->valuedouble;
	if (!(fabs(v) < KL_FLOAT_LIMIT))
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "%g is outside the range of a float", v);
	}
	*out = (float)v;
	return true;
}

bool kl_json_to_floats(kl_json_reader* r, const cJSON* item, const char* key, float* out, int count)
{
	if (!cJSON_IsArray(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected an array of %d numbers, got %s", count,
							kl_json_type_name(item));
	}
	int size = cJSON_GetArraySize(item);
	if (size != count)
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected an array of %d numbers, got %d elements", count, size);
	}
	int i = 0;
	for (const cJSON* e = item->child; e != NULL; e = e->next, ++i)
	{
		char sub[96];
		snprintf(sub, sizeof(sub), "%s[%d]", key, i);
		if (!kl_json_to_float(r, e, sub, &out[i]))
		{
			return false;
		}
	}
	return true;
}

bool kl_json_to_vec3(kl_json_reader* r, const cJSON* item, const char* key, vec3s* out)
{
	float v[3];
	if (!kl_json_to_floats(r, item, key, v, 3))
	{
		return false;
	}
	*out = kl_vec3(v[0], v[1], v[2]);
	return true;
}

/// A quaternion written [w, x, y, z]; the API normalises it, but a zero one has no direction.
static bool to_quat(kl_json_reader* r, const cJSON* item, const char* key, versors* out)
{
	float v[4];
	if (!kl_json_to_floats(r, item, key, v, 4))
	{
		return false;
	}
	double n2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
	if (!(n2 > 1.0e-12))
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "zero quaternion: [w, x, y, z] needs a non-zero length");
	}
	*out = kl_quat_wxyz(v[0], v[1], v[2], v[3]);
	return true;
}

static bool to_bool(kl_json_reader* r, const cJSON* item, const char* key, bool* out)
{
	if (!cJSON_IsBool(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected true or false, got %s", kl_json_type_name(item));
	}
	*out = cJSON_IsTrue(item);
	return true;
}

static bool to_string(kl_json_reader* r, const cJSON* item, const char* key, const char** out)
{
	if (!cJSON_IsString(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected a string, got %s", kl_json_type_name(item));
	}
	*out = item->valuestring;
	return true;
}

bool kl_json_to_integer(kl_json_reader* r, const cJSON* item, const char* key, double lower, double upper, double* out)
{
	if (!cJSON_IsNumber(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected an integer, got %s", kl_json_type_name(item));
	}
	double v = item->valuedouble;
	if (!(v >= lower && v <= upper) || v != floor(v))
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "expected an integer in [%.0f, %.0f], got %g", lower,
							upper, v);
	}
	*out = v;
	return true;
}

static bool to_int(kl_json_reader* r, const cJSON* item, const char* key, int* out)
{
	double v = 0.0;
	if (!kl_json_to_integer(r, item, key, (double)INT32_MIN, (double)INT32_MAX, &v))
	{
		return false;
	}
	*out = (int)v;
	return true;
}

static bool to_uint32(kl_json_reader* r, const cJSON* item, const char* key, uint32_t* out)
{
	double v = 0.0;
	if (!kl_json_to_integer(r, item, key, 0.0, (double)UINT32_MAX, &v))
	{
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/// A 64-bit mask: a number up to 2^53, or a string in hex ("0xffffffffffffffff") or decimal.
static bool to_u64(kl_json_reader* r, const cJSON* item, const char* key, uint64_t* out)
{
	if (cJSON_IsNumber(item))
	{
		double v = item->valuedouble;
		if (!(v >= 0.0 && v <= KL_MAX_EXACT_INTEGER) || v != floor(v))
		{
			return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT,
								"expected an integer in [0, 2^53] (write larger masks as hex strings such as "
								"\"0xffffffffffffffff\"), got %g",
								v);
		}
		*out = (uint64_t)v;
		return true;
	}
	if (!cJSON_IsString(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected an integer or a hex string, got %s",
							kl_json_type_name(item));
	}
	const char* text = item->valuestring;
	bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	const char* digits = hex ? text + 2 : text;
	char* end = NULL;
	errno = 0;
	unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
	// strtoull also takes signs and spaces; a mask is written with digits only.
	bool valid = (hex ? isxdigit((unsigned char)digits[0]) : isdigit((unsigned char)digits[0])) && *end == '\0';
	if (!valid || errno == ERANGE)
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "'%s' is not a 64-bit unsigned integer", text);
	}
	*out = (uint64_t)v;
	return true;
}

// One reader per type: object[key] through the converter; an absent key keeps *out unless it is
// required.
#define KL_JSON_READER(name, type, convert)                                                                            \
	bool name(kl_json_reader* r, const cJSON* object, const char* key, bool required, type* out)                       \
	{                                                                                                                  \
		const cJSON* item = kl_json_get(object, key);                                                                  \
		if (item == NULL)                                                                                              \
		{                                                                                                              \
			return required ? kl_json_missing(r, key) : true;                                                          \
		}                                                                                                              \
		return convert(r, item, key, out);                                                                             \
	}

KL_JSON_READER(kl_json_read_float, float, kl_json_to_float)
KL_JSON_READER(kl_json_read_vec3, vec3s, kl_json_to_vec3)
KL_JSON_READER(kl_json_read_quat, versors, to_quat)
KL_JSON_READER(kl_json_read_bool, bool, to_bool)
KL_JSON_READER(kl_json_read_string, const char*, to_string)
KL_JSON_READER(kl_json_read_int, int, to_int)
KL_JSON_READER(kl_json_read_uint32, uint32_t, to_uint32)
KL_JSON_READER(kl_json_read_u64, uint64_t, to_u64)

bool kl_json_check_positive(kl_json_reader* r, const char* key, float value)
{
	if (!(value > 0.0f))
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "must be positive (got %g)", (double)value);
	}
	return true;
}

static bool check_non_negative(kl_json_reader* r, const char* key, float value)
{
	if (!(value >= 0.0f))
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "must not be negative (got %g)", (double)value);
	}
	return true;
}

bool kl_json_read_non_negative(kl_json_reader* r, const cJSON* object, const char* key, bool required, float* out)
{
	return kl_json_read_float(r, object, key, required, out) && check_non_negative(r, key, *out);
}

bool kl_json_check_positive_vec3(kl_json_reader* r, const char* key, vec3s v)
{
	for (int i = 0; i < 3; ++i)
	{
		if (!(v.raw[i] > 0.0f))
		{
			char sub[96];
			snprintf(sub, sizeof(sub), "%s[%d]", key, i);
			return kl_json_check_positive(r, sub, v.raw[i]);
		}
	}
	return true;
}

bool kl_json_read_enum(kl_json_reader* r, const cJSON* object, const char* key, bool required,
					   const char* (*name_of)(int), int count, const char* what, int* out)
{
	const char* text = NULL;
	if (!kl_json_read_string(r, object, key, required, &text))
	{
		return false;
	}
	if (text == NULL)
	{
		return true;
	}
	char expected[160] = "";
	size_t used = 0;
	for (int i = 0; i < count; ++i)
	{
		if (strcmp(text, name_of(i)) == 0)
		{
			*out = i;
			return true;
		}
		const char* separator = i == 0 ? "" : (i + 1 == count ? " or " : ", ");
		int n = snprintf(expected + used, sizeof(expected) - used, "%s%s", separator, name_of(i));
		used = n > 0 && used + (size_t)n < sizeof(expected) ? used + (size_t)n : used;
	}
	return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "unknown %s '%s' (expected %s)", what, text, expected);
}

bool kl_json_read_array(kl_json_reader* r, const cJSON* object, const char* key, kl_json_element_fn* read_element,
						void* context)
{
	const cJSON* array = kl_json_get(object, key);
	if (array == NULL)
	{
		return true;
	}
	if (!cJSON_IsArray(array))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected an array, got %s", kl_json_type_name(array));
	}
	size_t mark = kl_json_push(r, key, 0);
	int index = 0;
	bool ok = true;
	for (const cJSON* element = array->child; element != NULL && ok; element = element->next, ++index)
	{
		size_t inner = kl_json_push(r, NULL, index);
		ok = read_element(context, element);
		kl_json_pop(r, inner);
	}
	kl_json_pop(r, mark);
	return ok;
}

vec3s* kl_json_read_points(kl_json_reader* r, const cJSON* item, const char* key, int min_count, int max_count,
						   int* count_out)
{
	if (!cJSON_IsArray(item))
	{
		kl_json_fail(r, key, KL_ERR_PARSE, "expected an array of [x, y, z] points, got %s", kl_json_type_name(item));
		return NULL;
	}
	int count = cJSON_GetArraySize(item);
	if (count < min_count || count > max_count)
	{
		kl_json_fail(r, key, count > max_count ? KL_ERR_LIMIT : KL_ERR_INVALID_ARGUMENT,
					 "needs between %d and %d points, got %d", min_count, max_count, count);
		return NULL;
	}
	vec3s* points = kl_alloc((size_t)count, sizeof(vec3s));
	if (points == NULL)
	{
		kl_json_fail_api(r, key);
		return NULL;
	}
	int i = 0;
	for (const cJSON* e = item->child; e != NULL; e = e->next, ++i)
	{
		char sub[96];
		snprintf(sub, sizeof(sub), "%s[%d]", key, i);
		if (!kl_json_to_vec3(r, e, sub, &points[i]))
		{
			kl_free(points);
			return NULL;
		}
	}
	*count_out = count;
	return points;
}
