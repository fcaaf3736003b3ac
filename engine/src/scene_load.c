// Kollide — JSON scene loading (format: docs/scene-format.md).
// SPDX-License-Identifier: MIT

// realpath() is POSIX.1-2008 base, but glibc declares it only for X/Open.
#define _XOPEN_SOURCE 700

#include "core.h"
#include "scene_json.h"

#include <kollide/kollide.h>

#include <cjson/cJSON.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/// Warnings beyond this many are counted, not reported: a generated file with a typo in every
/// object should not flood the terminal.
#define KL_SCENE_MAX_WARNINGS 100

/// Doubles below this round to a finite float (FLT_MAX plus half its ulp, exclusive).
#define KL_FLOAT_LIMIT ((double)FLT_MAX + 0x1p103)

/// Integers up to 2^53 are exact in a JSON number (a double); larger ones need a string.
#define KL_MAX_EXACT_INTEGER 9007199254740992.0

#define KL_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct scene_body
{
	const char* name; ///< points into the parsed document; NULL if unnamed
	kl_body_id id;
} scene_body;

typedef struct scene_mesh
{
	char* path;	   ///< resolved file path, the cache key
	kl_mesh* mesh; ///< one reference, released when the load ends
} scene_mesh;

typedef struct scene_loader
{
	kl_scene_load_options options;
	const char* file; ///< scene file, prefixed to messages; NULL for strings
	char* base_dir;	  ///< relative mesh paths resolve against it ("" = working directory)
	kl_world_id world;
	scene_body* bodies;
	int body_count;
	scene_body** sorted_bodies; ///< named bodies by name, built on the first joint lookup
	int sorted_count;
	scene_mesh* meshes;
	int mesh_count;
	int mesh_capacity;
	int warning_count;
	char path[256]; ///< JSON path of the value being read, e.g. "bodies[2].shapes[0]"
	size_t path_length;
	bool failed;
	kl_result code;
	char message[768]; ///< path and text (kl_fail keeps the first 511 characters)
} scene_loader;

// ---------------------------------------------------------------------------------------------
// Paths, errors and warnings

/// Appends ".key", or "[index]" when key is NULL, to the JSON path; returns the length to restore.
static size_t path_push(scene_loader* s, const char* key, int index)
{
	size_t old = s->path_length;
	size_t room = sizeof(s->path) - old;
	int n = key != NULL ? snprintf(s->path + old, room, "%s%s", old > 0 ? "." : "", key)
						: snprintf(s->path + old, room, "[%d]", index);
	if (n > 0)
	{
		s->path_length = old + (size_t)n < sizeof(s->path) ? old + (size_t)n : sizeof(s->path) - 1;
	}
	return old;
}

static void path_pop(scene_loader* s, size_t length)
{
	s->path_length = length;
	s->path[length] = '\0';
}

/// Records the first failure as "<path>.<key>: <message>" and returns false.
static bool fail_at(scene_loader* s, const char* key, kl_result code, const char* format, ...) KL_PRINTF(4, 5);

static bool fail_at(scene_loader* s, const char* key, kl_result code, const char* format, ...)
{
	if (s->failed)
	{
		return false;
	}
	char what[384];
	va_list args;
	va_start(args, format);
	vsnprintf(what, sizeof(what), format, args);
	va_end(args);
	const char* dot = s->path_length > 0 && key != NULL ? "." : "";
	key = key != NULL ? key : "";
	const char* colon = s->path_length > 0 || key[0] != '\0' ? ": " : "";
	int n = snprintf(s->message, sizeof(s->message), "%s%s%s%s%s", s->path, dot, key, colon, what);
	(void)n; // a message cut at 511 characters is still a message
	s->failed = true;
	s->code = code;
	return false;
}

/// Fails with the message of the API call that just failed, at the current path.
static bool fail_api(scene_loader* s, const char* key)
{
	char copy[384];
	snprintf(copy, sizeof(copy), "%s", kl_last_error());
	kl_result code = kl_last_error_code();
	return fail_at(s, key, code != KL_OK ? code : KL_ERR_INVALID_ARGUMENT, "%s", copy);
}

static bool missing(scene_loader* s, const char* key)
{
	return fail_at(s, key, KL_ERR_PARSE, "required key is missing");
}

static void warn(scene_loader* s, const char* format, ...) KL_PRINTF(2, 3);

static void warn(scene_loader* s, const char* format, ...)
{
	s->warning_count += 1;
	if (s->warning_count > KL_SCENE_MAX_WARNINGS)
	{
		return;
	}
	char message[512];
	va_list args;
	va_start(args, format);
	int n = vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (s->warning_count == KL_SCENE_MAX_WARNINGS && n >= 0 && (size_t)n < sizeof(message))
	{
		snprintf(message + n, sizeof(message) - (size_t)n, " (further warnings are not reported)");
	}
	if (s->options.warning != NULL)
	{
		s->options.warning(message, s->options.warning_context);
	}
	else
	{
		fprintf(stderr, "kollide: scene: %s\n", message);
	}
}

static const char* json_type_name(const cJSON* item)
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

static const cJSON* get(const cJSON* object, const char* key)
{
	return cJSON_GetObjectItemCaseSensitive(object, key);
}

/// Checks that the value at the current path is an object.
static bool expect_object(scene_loader* s, const cJSON* item)
{
	if (!cJSON_IsObject(item))
	{
		return fail_at(s, NULL, KL_ERR_PARSE, "expected an object, got %s", json_type_name(item));
	}
	return true;
}

/// Warns about keys that are not in known (a misspelt key would otherwise be silently ignored)
/// and fails on a repeated known key, whose meaning would be ambiguous.
static bool check_keys(scene_loader* s, const cJSON* object, const char* const* known, int count)
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
			warn(s, "unknown key '%s' at %s", item->string, s->path_length > 0 ? s->path : "the top level");
			continue;
		}
		if ((seen & (1ull << k)) != 0)
		{
			return fail_at(s, item->string, KL_ERR_PARSE, "key appears more than once");
		}
		seen |= 1ull << k;
	}
	return true;
}

static bool to_float(scene_loader* s, const cJSON* item, const char* key, float* out)
{
	if (!cJSON_IsNumber(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected a number, got %s", json_type_name(item));
	}
	double v = item->valuedouble;
	if (!(fabs(v) < KL_FLOAT_LIMIT))
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "%g is outside the range of a float", v);
	}
	*out = (float)v;
	return true;
}

/// Reads an array of exactly count numbers.
static bool to_floats(scene_loader* s, const cJSON* item, const char* key, float* out, int count)
{
	if (!cJSON_IsArray(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected an array of %d numbers, got %s", count, json_type_name(item));
	}
	int size = cJSON_GetArraySize(item);
	if (size != count)
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected an array of %d numbers, got %d elements", count, size);
	}
	int i = 0;
	for (const cJSON* e = item->child; e != NULL; e = e->next, ++i)
	{
		char sub[96];
		snprintf(sub, sizeof(sub), "%s[%d]", key, i);
		if (!to_float(s, e, sub, &out[i]))
		{
			return false;
		}
	}
	return true;
}

static bool to_vec3(scene_loader* s, const cJSON* item, const char* key, vec3s* out)
{
	float v[3];
	if (!to_floats(s, item, key, v, 3))
	{
		return false;
	}
	*out = kl_vec3(v[0], v[1], v[2]);
	return true;
}

/// A quaternion written [w, x, y, z]; the API normalises it, but a zero one has no direction.
static bool to_quat(scene_loader* s, const cJSON* item, const char* key, versors* out)
{
	float v[4];
	if (!to_floats(s, item, key, v, 4))
	{
		return false;
	}
	double n2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
	if (!(n2 > 1.0e-12))
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "zero quaternion: [w, x, y, z] needs a non-zero length");
	}
	*out = kl_quat_wxyz(v[0], v[1], v[2], v[3]);
	return true;
}

static bool to_bool(scene_loader* s, const cJSON* item, const char* key, bool* out)
{
	if (!cJSON_IsBool(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected true or false, got %s", json_type_name(item));
	}
	*out = cJSON_IsTrue(item);
	return true;
}

static bool to_string(scene_loader* s, const cJSON* item, const char* key, const char** out)
{
	if (!cJSON_IsString(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected a string, got %s", json_type_name(item));
	}
	*out = item->valuestring;
	return true;
}

/// An integral number in [lower, upper].
static bool to_integer(scene_loader* s, const cJSON* item, const char* key, double lower, double upper, double* out)
{
	if (!cJSON_IsNumber(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected an integer, got %s", json_type_name(item));
	}
	double v = item->valuedouble;
	if (!(v >= lower && v <= upper) || v != floor(v))
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "expected an integer in [%.0f, %.0f], got %g", lower, upper, v);
	}
	*out = v;
	return true;
}

static bool to_int(scene_loader* s, const cJSON* item, const char* key, int* out)
{
	double v = 0.0;
	if (!to_integer(s, item, key, (double)INT32_MIN, (double)INT32_MAX, &v))
	{
		return false;
	}
	*out = (int)v;
	return true;
}

static bool to_uint32(scene_loader* s, const cJSON* item, const char* key, uint32_t* out)
{
	double v = 0.0;
	if (!to_integer(s, item, key, 0.0, (double)UINT32_MAX, &v))
	{
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/// A 64-bit mask: a number up to 2^53, or a string in hex ("0xffffffffffffffff") or decimal.
static bool to_u64(scene_loader* s, const cJSON* item, const char* key, uint64_t* out)
{
	if (cJSON_IsNumber(item))
	{
		double v = item->valuedouble;
		if (!(v >= 0.0 && v <= KL_MAX_EXACT_INTEGER) || v != floor(v))
		{
			return fail_at(s, key, KL_ERR_INVALID_ARGUMENT,
						   "expected an integer in [0, 2^53] (write larger masks as hex strings such as "
						   "\"0xffffffffffffffff\"), got %g",
						   v);
		}
		*out = (uint64_t)v;
		return true;
	}
	if (!cJSON_IsString(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected an integer or a hex string, got %s", json_type_name(item));
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
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "'%s' is not a 64-bit unsigned integer", text);
	}
	*out = (uint64_t)v;
	return true;
}

/// Reads object[key] through convert; an absent key keeps *out unless it is required.
#define KL_SCENE_READER(name, type, convert)                                                       \
	static bool name(scene_loader* s, const cJSON* object, const char* key, bool required, type* out) \
	{                                                                                              \
		const cJSON* item = get(object, key);                                                      \
		if (item == NULL)                                                                          \
		{                                                                                          \
			return required ? missing(s, key) : true;                                              \
		}                                                                                          \
		return convert(s, item, key, out);                                                         \
	}

KL_SCENE_READER(read_float, float, to_float)
KL_SCENE_READER(read_vec3, vec3s, to_vec3)
KL_SCENE_READER(read_quat, versors, to_quat)
KL_SCENE_READER(read_bool, bool, to_bool)
KL_SCENE_READER(read_string, const char*, to_string)
KL_SCENE_READER(read_int, int, to_int)
KL_SCENE_READER(read_uint32, uint32_t, to_uint32)
KL_SCENE_READER(read_u64, uint64_t, to_u64)

static bool check_positive(scene_loader* s, const char* key, float value)
{
	if (!(value > 0.0f))
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "must be positive (got %g)", (double)value);
	}
	return true;
}

static bool check_non_negative(scene_loader* s, const char* key, float value)
{
	if (!(value >= 0.0f))
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "must not be negative (got %g)", (double)value);
	}
	return true;
}

static bool read_non_negative(scene_loader* s, const cJSON* object, const char* key, bool required, float* out)
{
	return read_float(s, object, key, required, out) && check_non_negative(s, key, *out);
}

static bool check_positive_vec3(scene_loader* s, const char* key, vec3s v)
{
	for (int i = 0; i < 3; ++i)
	{
		if (!(v.raw[i] > 0.0f))
		{
			char sub[96];
			snprintf(sub, sizeof(sub), "%s[%d]", key, i);
			return check_positive(s, sub, v.raw[i]);
		}
	}
	return true;
}

/// Looks an enum name up through its name function (one of kl_scene_*_name).
static bool read_enum(scene_loader* s, const cJSON* object, const char* key, bool required,
					  const char* (*name_of)(int), int count, const char* what, int* out)
{
	const char* text = NULL;
	if (!read_string(s, object, key, required, &text))
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
	return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "unknown %s '%s' (expected %s)", what, text, expected);
}

/// An array of [x, y, z] points, at least min_count and at most max_count (owned result).
static vec3s* read_points(scene_loader* s, const cJSON* item, const char* key, int min_count, int max_count,
						  int* count_out)
{
	if (!cJSON_IsArray(item))
	{
		fail_at(s, key, KL_ERR_PARSE, "expected an array of [x, y, z] points, got %s", json_type_name(item));
		return NULL;
	}
	int count = cJSON_GetArraySize(item);
	if (count < min_count || count > max_count)
	{
		fail_at(s, key, count > max_count ? KL_ERR_LIMIT : KL_ERR_INVALID_ARGUMENT,
				"needs between %d and %d points, got %d", min_count, max_count, count);
		return NULL;
	}
	vec3s* points = kl_alloc((size_t)count, sizeof(vec3s));
	if (points == NULL)
	{
		fail_api(s, key);
		return NULL;
	}
	int i = 0;
	for (const cJSON* e = item->child; e != NULL; e = e->next, ++i)
	{
		char sub[96];
		snprintf(sub, sizeof(sub), "%s[%d]", key, i);
		if (!to_vec3(s, e, sub, &points[i]))
		{
			kl_free(points);
			return NULL;
		}
	}
	*count_out = count;
	return points;
}

// ---------------------------------------------------------------------------------------------
// World

static const char* const k_world_keys[] = {
	"gravity",	   "worker_count",			"contact_hertz",		 "contact_damping_ratio",
	"max_contact_push_speed", "joint_hertz", "joint_damping_ratio", "restitution_threshold",
	"max_linear_speed",		  "enable_sleep", "enable_continuous",	 "use_gpu",
};

static bool read_world_fields(scene_loader* s, const cJSON* object, kl_world_def* def)
{
	struct
	{
		const char* key;
		float* value;
	} params[] = {
		{"contact_hertz", &def->contact_hertz},
		{"contact_damping_ratio", &def->contact_damping_ratio},
		{"max_contact_push_speed", &def->max_contact_push_speed},
		{"joint_hertz", &def->joint_hertz},
		{"joint_damping_ratio", &def->joint_damping_ratio},
		{"restitution_threshold", &def->restitution_threshold},
		{"max_linear_speed", &def->max_linear_speed},
	};
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); ++i)
	{
		if (!read_non_negative(s, object, params[i].key, false, params[i].value))
		{
			return false;
		}
	}
	if (!read_vec3(s, object, "gravity", false, &def->gravity) ||
		!read_int(s, object, "worker_count", false, &def->worker_count) ||
		!read_bool(s, object, "enable_sleep", false, &def->enable_sleep) ||
		!read_bool(s, object, "enable_continuous", false, &def->enable_continuous) ||
		!read_bool(s, object, "use_gpu", false, &def->use_gpu))
	{
		return false;
	}
	if (def->worker_count < 0 || def->worker_count > 256)
	{
		return fail_at(s, "worker_count", KL_ERR_INVALID_ARGUMENT, "must be in [0, 256] (got %d)", def->worker_count);
	}
	return true;
}

static bool read_world_def(scene_loader* s, const cJSON* object, kl_world_def* def)
{
	*def = kl_default_world_def();
	if (object == NULL)
	{
		return true;
	}
	size_t mark = path_push(s, "world", 0);
	bool ok = expect_object(s, object) && check_keys(s, object, k_world_keys, KL_COUNT_OF(k_world_keys)) &&
			  read_world_fields(s, object, def);
	path_pop(s, mark);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Shapes

static const char* const k_shape_keys[] = {
	"type",			"name",			   "position",		"orientation",	  "density",
	"friction",		"restitution",	   "rolling_resistance", "material_id", "sensor",
	"contact_events", "sensor_events", "filter",
};

#define KL_SHAPE_COMMON_KEYS KL_COUNT_OF(k_shape_keys)

/// Keys of each shape type beyond the common ones, indexed by kl_shape_type.
static const char* const k_shape_type_keys[KL_SHAPE_TYPE_COUNT][4] = {
	[KL_SHAPE_SPHERE] = {"radius"},
	[KL_SHAPE_BOX] = {"half_extents"},
	[KL_SHAPE_CAPSULE] = {"radius", "half_height"},
	[KL_SHAPE_HULL] = {"points"},
	[KL_SHAPE_MESH] = {"file", "scale", "vertices", "triangles"},
	[KL_SHAPE_PLANE] = {"normal", "offset"},
};

static bool check_shape_keys(scene_loader* s, const cJSON* object, kl_shape_type type)
{
	const char* known[KL_SHAPE_COMMON_KEYS + 4];
	int count = 0;
	for (int i = 0; i < KL_SHAPE_COMMON_KEYS; ++i)
	{
		known[count++] = k_shape_keys[i];
	}
	for (int i = 0; i < 4 && k_shape_type_keys[type][i] != NULL; ++i)
	{
		known[count++] = k_shape_type_keys[type][i];
	}
	return check_keys(s, object, known, count);
}

static const char* const k_filter_keys[] = {"category", "mask", "group"};

static bool read_filter(scene_loader* s, const cJSON* object, kl_filter* filter)
{
	const cJSON* item = get(object, "filter");
	if (item == NULL)
	{
		return true;
	}
	size_t mark = path_push(s, "filter", 0);
	int group = filter->group_index;
	bool ok = expect_object(s, item) && check_keys(s, item, k_filter_keys, 3) &&
			  read_u64(s, item, "category", false, &filter->category_bits) &&
			  read_u64(s, item, "mask", false, &filter->mask_bits) && read_int(s, item, "group", false, &group);
	filter->group_index = group;
	path_pop(s, mark);
	return ok;
}

static bool read_shape_def(scene_loader* s, const cJSON* object, kl_shape_def* def)
{
	*def = kl_default_shape_def();
	kl_material* m = &def->material;
	return read_string(s, object, "name", false, &def->name) &&
		   read_vec3(s, object, "position", false, &def->local_pose.p) &&
		   read_quat(s, object, "orientation", false, &def->local_pose.q) &&
		   read_non_negative(s, object, "density", false, &m->density) &&
		   read_non_negative(s, object, "friction", false, &m->friction) &&
		   read_non_negative(s, object, "restitution", false, &m->restitution) &&
		   read_non_negative(s, object, "rolling_resistance", false, &m->rolling_resistance) &&
		   read_uint32(s, object, "material_id", false, &m->user_material_id) &&
		   read_bool(s, object, "sensor", false, &def->is_sensor) &&
		   read_bool(s, object, "contact_events", false, &def->enable_contact_events) &&
		   read_bool(s, object, "sensor_events", false, &def->enable_sensor_events) &&
		   read_filter(s, object, &def->filter);
}

static kl_shape_id create_sphere(scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	float radius = 0.0f;
	if (!read_float(s, object, "radius", true, &radius) || !check_positive(s, "radius", radius))
	{
		return kl_null_shape_id;
	}
	return kl_create_sphere_shape(body, def, radius);
}

static kl_shape_id create_box(scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	vec3s h = {0};
	if (!read_vec3(s, object, "half_extents", true, &h) || !check_positive_vec3(s, "half_extents", h))
	{
		return kl_null_shape_id;
	}
	return kl_create_box_shape(body, def, h);
}

static kl_shape_id create_capsule(scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	float radius = 0.0f;
	float half_height = 0.0f;
	if (!read_float(s, object, "radius", true, &radius) || !check_positive(s, "radius", radius) ||
		!read_non_negative(s, object, "half_height", true, &half_height))
	{
		return kl_null_shape_id;
	}
	return kl_create_capsule_shape(body, def, radius, half_height);
}

static kl_shape_id create_hull(scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	const cJSON* item = get(object, "points");
	int count = 0;
	vec3s* points = item != NULL ? read_points(s, item, "points", 1, KL_HULL_MAX_INPUT_POINTS, &count) : NULL;
	if (points == NULL)
	{
		if (item == NULL)
		{
			missing(s, "points");
		}
		return kl_null_shape_id;
	}
	kl_hull* hull = kl_hull_build(points, count);
	kl_free(points);
	if (hull == NULL)
	{
		fail_api(s, "points");
		return kl_null_shape_id;
	}
	kl_shape_id id = kl_create_hull_shape(body, def, hull);
	kl_hull_destroy(hull);
	return id;
}

/// The mesh file path: absolute as given, else relative to the base directory; canonical when
/// the file exists, so that saved scenes can name it from anywhere. Owned result.
static char* resolve_mesh_path(scene_loader* s, const char* file)
{
	size_t base_length = strlen(s->base_dir);
	size_t file_length = strlen(file);
	char* joined = NULL;
	if (file[0] == '/' || base_length == 0)
	{
		joined = kl_strdup(file);
	}
	else
	{
		joined = kl_alloc(base_length + file_length + 2, 1);
		if (joined != NULL)
		{
			bool slash = s->base_dir[base_length - 1] == '/';
			snprintf(joined, base_length + file_length + 2, "%s%s%s", s->base_dir, slash ? "" : "/", file);
		}
	}
	if (joined == NULL)
	{
		return NULL;
	}
	char* canonical = realpath(joined, NULL);
	if (canonical == NULL)
	{
		return joined; // the loader reports the missing file with the path as written
	}
	char* copy = kl_strdup(canonical);
	free(canonical);
	kl_free(joined);
	return copy;
}

/// Loads a mesh file once per scene load; every shape naming the same file shares it.
static kl_mesh* cached_mesh(scene_loader* s, const char* file)
{
	if (file[0] == '\0')
	{
		fail_at(s, "file", KL_ERR_INVALID_ARGUMENT, "empty file name");
		return NULL;
	}
	char* path = resolve_mesh_path(s, file);
	if (path == NULL)
	{
		fail_api(s, "file");
		return NULL;
	}
	for (int i = 0; i < s->mesh_count; ++i)
	{
		if (strcmp(s->meshes[i].path, path) == 0)
		{
			kl_free(path);
			return s->meshes[i].mesh;
		}
	}
	kl_mesh* mesh = NULL;
	if (KL_ARRAY_RESERVE(s->meshes, s->mesh_capacity, s->mesh_count + 1))
	{
		mesh = kl_mesh_load(path, NULL, NULL);
	}
	if (mesh == NULL)
	{
		fail_api(s, "file");
		kl_free(path);
		return NULL;
	}
	s->meshes[s->mesh_count++] = (scene_mesh){path, mesh};
	return mesh;
}

static int32_t* read_triangles(scene_loader* s, const cJSON* item, int vertex_count, int* count_out)
{
	if (!cJSON_IsArray(item))
	{
		fail_at(s, "triangles", KL_ERR_PARSE, "expected an array of [i, j, k] triangles, got %s", json_type_name(item));
		return NULL;
	}
	int count = cJSON_GetArraySize(item);
	if (count < 1 || count > KL_MESH_MAX_TRIANGLES)
	{
		fail_at(s, "triangles", KL_ERR_INVALID_ARGUMENT, "needs between 1 and %d triangles, got %d",
				KL_MESH_MAX_TRIANGLES, count);
		return NULL;
	}
	int32_t* indices = kl_alloc((size_t)count * 3, sizeof(int32_t));
	if (indices == NULL)
	{
		fail_api(s, "triangles");
		return NULL;
	}
	int t = 0;
	for (const cJSON* e = item->child; e != NULL; e = e->next, ++t)
	{
		char sub[64];
		snprintf(sub, sizeof(sub), "triangles[%d]", t);
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3)
		{
			fail_at(s, sub, KL_ERR_PARSE, "expected an array of 3 vertex indices");
			kl_free(indices);
			return NULL;
		}
		int k = 0;
		for (const cJSON* v = e->child; v != NULL; v = v->next, ++k)
		{
			double index = 0.0;
			if (!to_integer(s, v, sub, 0.0, (double)vertex_count - 1.0, &index))
			{
				kl_free(indices);
				return NULL;
			}
			indices[3 * t + k] = (int32_t)index;
		}
	}
	*count_out = count;
	return indices;
}

/// A mesh given inline as "vertices" and "triangles" (the saver writes meshes without a file so).
static kl_mesh* inline_mesh(scene_loader* s, const cJSON* object)
{
	const cJSON* vertices_item = get(object, "vertices");
	const cJSON* triangles_item = get(object, "triangles");
	if (vertices_item == NULL || triangles_item == NULL)
	{
		missing(s, vertices_item == NULL ? "vertices" : "triangles");
		return NULL;
	}
	int vertex_count = 0;
	int triangle_count = 0;
	vec3s* vertices = read_points(s, vertices_item, "vertices", 3, KL_MESH_MAX_VERTICES, &vertex_count);
	int32_t* indices = vertices != NULL ? read_triangles(s, triangles_item, vertex_count, &triangle_count) : NULL;
	kl_mesh* mesh = NULL;
	if (indices != NULL)
	{
		kl_mesh_def def = kl_default_mesh_def();
		def.vertices = vertices;
		def.vertex_count = vertex_count;
		def.indices = indices;
		def.triangle_count = triangle_count;
		mesh = kl_mesh_build(&def);
		if (mesh == NULL)
		{
			fail_api(s, "vertices");
		}
	}
	kl_free(vertices);
	kl_free(indices);
	return mesh;
}

static bool read_mesh_scale(scene_loader* s, const cJSON* object, vec3s* scale)
{
	const cJSON* item = get(object, "scale");
	*scale = kl_vec3(1.0f, 1.0f, 1.0f);
	if (item == NULL)
	{
		return true;
	}
	if (cJSON_IsNumber(item))
	{
		float k = 1.0f;
		if (!to_float(s, item, "scale", &k) || !check_positive(s, "scale", k))
		{
			return false;
		}
		*scale = kl_vec3(k, k, k);
		return true;
	}
	if (!cJSON_IsArray(item))
	{
		return fail_at(s, "scale", KL_ERR_PARSE, "expected a number or [sx, sy, sz], got %s", json_type_name(item));
	}
	return to_vec3(s, item, "scale", scale) && check_positive_vec3(s, "scale", *scale);
}

static kl_shape_id create_mesh(scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	vec3s scale;
	const char* file = NULL;
	if (!read_mesh_scale(s, object, &scale) || !read_string(s, object, "file", false, &file))
	{
		return kl_null_shape_id;
	}
	bool has_inline = get(object, "vertices") != NULL || get(object, "triangles") != NULL;
	if (file != NULL && has_inline)
	{
		fail_at(s, NULL, KL_ERR_INVALID_ARGUMENT, "give either \"file\" or \"vertices\" and \"triangles\", not both");
		return kl_null_shape_id;
	}
	if (file == NULL && !has_inline)
	{
		missing(s, "file");
		return kl_null_shape_id;
	}
	kl_mesh* mesh = file != NULL ? cached_mesh(s, file) : inline_mesh(s, object);
	if (mesh == NULL)
	{
		return kl_null_shape_id;
	}
	kl_shape_id id = kl_create_mesh_shape(body, def, mesh, scale);
	if (file == NULL)
	{
		kl_mesh_release(mesh); // the shape holds its own reference
	}
	return id;
}

static kl_shape_id create_plane(scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	kl_plane plane = {{{0.0f, 0.0f, 1.0f}}, 0.0f};
	if (!read_vec3(s, object, "normal", true, &plane.normal) || !read_float(s, object, "offset", false, &plane.offset))
	{
		return kl_null_shape_id;
	}
	if (!(glms_vec3_norm2(plane.normal) > 1.0e-12f))
	{
		fail_at(s, "normal", KL_ERR_INVALID_ARGUMENT, "must have a non-zero length");
		return kl_null_shape_id;
	}
	return kl_create_plane_shape(body, def, plane);
}

static bool load_shape(scene_loader* s, kl_body_id body, const cJSON* object)
{
	int type = 0;
	if (!expect_object(s, object) ||
		!read_enum(s, object, "type", true, kl_scene_shape_type_name, KL_SHAPE_TYPE_COUNT, "shape type", &type) ||
		!check_shape_keys(s, object, (kl_shape_type)type))
	{
		return false;
	}
	kl_shape_def def;
	if (!read_shape_def(s, object, &def))
	{
		return false;
	}
	kl_shape_id id = kl_null_shape_id;
	switch ((kl_shape_type)type)
	{
		case KL_SHAPE_SPHERE: id = create_sphere(s, body, object, &def); break;
		case KL_SHAPE_BOX: id = create_box(s, body, object, &def); break;
		case KL_SHAPE_CAPSULE: id = create_capsule(s, body, object, &def); break;
		case KL_SHAPE_HULL: id = create_hull(s, body, object, &def); break;
		case KL_SHAPE_MESH: id = create_mesh(s, body, object, &def); break;
		case KL_SHAPE_PLANE: id = create_plane(s, body, object, &def); break;
		case KL_SHAPE_TYPE_COUNT: break;
	}
	if (KL_IS_NULL(id))
	{
		return s->failed ? false : fail_api(s, NULL);
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Bodies

static const char* const k_body_keys[] = {
	"name",			  "type",			 "position",		  "orientation", "linear_velocity", "angular_velocity",
	"linear_damping", "angular_damping", "gravity_scale",	  "sleep_threshold", "enable_sleep", "awake",
	"fixed_rotation", "bullet",			 "gyroscopic",		  "mass",		 "shapes",
};

static bool read_body_def(scene_loader* s, const cJSON* object, kl_body_def* def)
{
	*def = kl_default_body_def();
	int type = def->type;
	bool ok = read_string(s, object, "name", false, &def->name) &&
			  read_enum(s, object, "type", false, kl_scene_body_type_name, KL_BODY_TYPE_COUNT, "body type", &type) &&
			  read_vec3(s, object, "position", false, &def->position) &&
			  read_quat(s, object, "orientation", false, &def->rotation) &&
			  read_vec3(s, object, "linear_velocity", false, &def->linear_velocity) &&
			  read_vec3(s, object, "angular_velocity", false, &def->angular_velocity) &&
			  read_non_negative(s, object, "linear_damping", false, &def->linear_damping) &&
			  read_non_negative(s, object, "angular_damping", false, &def->angular_damping) &&
			  read_float(s, object, "gravity_scale", false, &def->gravity_scale) &&
			  read_non_negative(s, object, "sleep_threshold", false, &def->sleep_threshold) &&
			  read_bool(s, object, "enable_sleep", false, &def->enable_sleep) &&
			  read_bool(s, object, "awake", false, &def->is_awake) &&
			  read_bool(s, object, "fixed_rotation", false, &def->fixed_rotation) &&
			  read_bool(s, object, "bullet", false, &def->is_bullet) &&
			  read_bool(s, object, "gyroscopic", false, &def->enable_gyroscopic);
	def->type = (kl_body_type)type;
	return ok;
}

/// Reads an inertia tensor: three rows of three, or the diagonal of a principal-axes body.
static bool to_inertia(scene_loader* s, const cJSON* item, const char* key, mat3s* out)
{
	bool rows = cJSON_IsArray(item) && cJSON_GetArraySize(item) == 3 && cJSON_IsArray(item->child);
	if (!rows)
	{
		float d[3];
		if (!to_floats(s, item, key, d, 3))
		{
			return false;
		}
		*out = glms_mat3_zero();
		out->m00 = d[0];
		out->m11 = d[1];
		out->m22 = d[2];
		return true;
	}
	int r = 0;
	for (const cJSON* row = item->child; row != NULL; row = row->next, ++r)
	{
		char sub[64];
		snprintf(sub, sizeof(sub), "%s[%d]", key, r);
		float v[3];
		if (!to_floats(s, row, sub, v, 3))
		{
			return false;
		}
		for (int c = 0; c < 3; ++c)
		{
			out->raw[c][r] = v[c]; // cglm matrices are column-major
		}
	}
	return true;
}

static const char* const k_mass_keys[] = {"mass", "center", "inertia"};

/// A mass override; a missing centre or inertia keeps the value computed from the shapes.
static bool apply_mass(scene_loader* s, kl_body_id body, const cJSON* item)
{
	size_t mark = path_push(s, "mass", 0);
	kl_mass_data md = kl_body_get_mass_data(body);
	const cJSON* inertia = get(item, "inertia");
	bool ok = expect_object(s, item) && check_keys(s, item, k_mass_keys, 3) &&
			  read_float(s, item, "mass", true, &md.mass) && check_positive(s, "mass", md.mass) &&
			  read_vec3(s, item, "center", false, &md.center) &&
			  (inertia == NULL || to_inertia(s, inertia, "inertia", &md.inertia));
	if (ok && kl_body_set_mass_data(body, md) != KL_OK)
	{
		ok = fail_api(s, NULL);
	}
	path_pop(s, mark);
	return ok;
}

static bool load_shapes(scene_loader* s, kl_body_id body, const cJSON* shapes)
{
	if (shapes == NULL)
	{
		return true;
	}
	if (!cJSON_IsArray(shapes))
	{
		return fail_at(s, "shapes", KL_ERR_PARSE, "expected an array, got %s", json_type_name(shapes));
	}
	size_t mark = path_push(s, "shapes", 0);
	int index = 0;
	bool ok = true;
	for (const cJSON* shape = shapes->child; shape != NULL && ok; shape = shape->next, ++index)
	{
		size_t inner = path_push(s, NULL, index);
		ok = load_shape(s, body, shape);
		path_pop(s, inner);
	}
	path_pop(s, mark);
	return ok;
}

static bool is_zero(vec3s v)
{
	return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f;
}

static bool load_body(scene_loader* s, const cJSON* object)
{
	kl_body_def def;
	if (!expect_object(s, object) || !check_keys(s, object, k_body_keys, KL_COUNT_OF(k_body_keys)) ||
		!read_body_def(s, object, &def))
	{
		return false;
	}
	if (def.type == KL_BODY_STATIC && (!is_zero(def.linear_velocity) || !is_zero(def.angular_velocity)))
	{
		warn(s, "velocities of the static body at %s are ignored", s->path);
	}
	kl_body_id body = kl_create_body(s->world, &def);
	if (KL_IS_NULL(body))
	{
		return fail_api(s, NULL);
	}
	s->bodies[s->body_count++] = (scene_body){def.name, body};
	const cJSON* mass = get(object, "mass");
	return load_shapes(s, body, get(object, "shapes")) && (mass == NULL || apply_mass(s, body, mass));
}

static bool load_bodies(scene_loader* s, const cJSON* bodies)
{
	if (bodies == NULL)
	{
		return true;
	}
	if (!cJSON_IsArray(bodies))
	{
		return fail_at(s, "bodies", KL_ERR_PARSE, "expected an array, got %s", json_type_name(bodies));
	}
	int count = cJSON_GetArraySize(bodies);
	s->bodies = kl_alloc((size_t)count, sizeof(scene_body));
	if (s->bodies == NULL)
	{
		return fail_api(s, "bodies");
	}
	size_t mark = path_push(s, "bodies", 0);
	int index = 0;
	bool ok = true;
	for (const cJSON* body = bodies->child; body != NULL && ok; body = body->next, ++index)
	{
		size_t inner = path_push(s, NULL, index);
		ok = load_body(s, body);
		path_pop(s, inner);
	}
	path_pop(s, mark);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Joints

static int compare_body_names(const void* a, const void* b)
{
	const scene_body* x = *(const scene_body* const*)a;
	const scene_body* y = *(const scene_body* const*)b;
	return strcmp(x->name, y->name);
}

/// Named bodies sorted by name, so that each joint finds its bodies by binary search.
static bool sort_bodies(scene_loader* s)
{
	s->sorted_bodies = kl_alloc((size_t)s->body_count, sizeof(scene_body*));
	if (s->sorted_bodies == NULL)
	{
		return false;
	}
	for (int i = 0; i < s->body_count; ++i)
	{
		if (s->bodies[i].name != NULL)
		{
			s->sorted_bodies[s->sorted_count++] = &s->bodies[i];
		}
	}
	qsort(s->sorted_bodies, (size_t)s->sorted_count, sizeof(scene_body*), compare_body_names);
	return true;
}

/// Index of the first sorted body named name (or where it would be), and how many share it.
static int count_named(const scene_loader* s, const char* name, int* first)
{
	int lo = 0;
	int hi = s->sorted_count;
	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		if (strcmp(s->sorted_bodies[mid]->name, name) < 0)
		{
			lo = mid + 1;
		}
		else
		{
			hi = mid;
		}
	}
	int end = lo;
	while (end < s->sorted_count && strcmp(s->sorted_bodies[end]->name, name) == 0)
	{
		++end;
	}
	*first = lo;
	return end - lo;
}

/// A joint's body: a name (unique among the bodies) or an index into "bodies".
static bool find_body(scene_loader* s, const cJSON* object, const char* key, kl_body_id* out)
{
	const cJSON* item = get(object, key);
	if (item == NULL)
	{
		return missing(s, key);
	}
	if (cJSON_IsNumber(item))
	{
		double index = 0.0;
		if (s->body_count == 0)
		{
			return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "the scene has no bodies");
		}
		if (!to_integer(s, item, key, 0.0, (double)s->body_count - 1.0, &index))
		{
			return false;
		}
		*out = s->bodies[(int)index].id;
		return true;
	}
	if (!cJSON_IsString(item))
	{
		return fail_at(s, key, KL_ERR_PARSE, "expected a body name or index, got %s", json_type_name(item));
	}
	if (s->sorted_bodies == NULL && !sort_bodies(s))
	{
		return fail_api(s, key);
	}
	int first = 0;
	int count = count_named(s, item->valuestring, &first);
	if (count == 0)
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "no body is named '%s'", item->valuestring);
	}
	if (count > 1)
	{
		return fail_at(s, key, KL_ERR_INVALID_ARGUMENT, "body name '%s' is not unique; a joint cannot refer to it",
					   item->valuestring);
	}
	*out = s->sorted_bodies[first]->id;
	return true;
}

static const char* const k_frame_keys[] = {"position", "orientation"};

static bool read_frame(scene_loader* s, const cJSON* object, const char* key, kl_transform* frame)
{
	const cJSON* item = get(object, key);
	if (item == NULL)
	{
		return true;
	}
	size_t mark = path_push(s, key, 0);
	bool ok = expect_object(s, item) && check_keys(s, item, k_frame_keys, 2) &&
			  read_vec3(s, item, "position", false, &frame->p) && read_quat(s, item, "orientation", false, &frame->q);
	path_pop(s, mark);
	return ok;
}

/// Frames from world anchors: one shared "anchor", or "anchor_a" and "anchor_b"; the frames' z is "axis".
static bool read_world_anchors(scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	vec3s anchor = {0};
	vec3s axis = kl_vec3(0.0f, 0.0f, 1.0f);
	bool shared = get(object, "anchor") != NULL;
	if (!read_vec3(s, object, "anchor", false, &anchor) || !read_vec3(s, object, "axis", false, &axis))
	{
		return false;
	}
	vec3s pa = anchor;
	vec3s pb = anchor;
	bool has_a = get(object, "anchor_a") != NULL;
	bool has_b = get(object, "anchor_b") != NULL;
	if ((!shared && !has_a) || (!shared && !has_b))
	{
		return missing(s, has_a || has_b ? (has_a ? "anchor_b" : "anchor_a") : "anchor");
	}
	if (!read_vec3(s, object, "anchor_a", false, &pa) || !read_vec3(s, object, "anchor_b", false, &pb))
	{
		return false;
	}
	if (!(glms_vec3_norm2(axis) > 1.0e-12f))
	{
		return fail_at(s, "axis", KL_ERR_INVALID_ARGUMENT, "must have a non-zero length");
	}
	def->local_frame_a = kl_joint_def_from_world(def->type, def->body_a, def->body_b, pa, axis).local_frame_a;
	def->local_frame_b = kl_joint_def_from_world(def->type, def->body_a, def->body_b, pb, axis).local_frame_b;
	return true;
}

static bool read_joint_frames(scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	bool frames = get(object, "frame_a") != NULL || get(object, "frame_b") != NULL;
	bool anchors = get(object, "anchor") != NULL || get(object, "anchor_a") != NULL ||
				   get(object, "anchor_b") != NULL || get(object, "axis") != NULL;
	if (frames && anchors)
	{
		return fail_at(s, NULL, KL_ERR_INVALID_ARGUMENT,
					   "give either anchor/axis (world frame) or frame_a/frame_b (body frames), not both");
	}
	if (!frames && !anchors)
	{
		return fail_at(s, NULL, KL_ERR_PARSE,
					   "needs \"anchor\" (world point) or \"frame_a\"/\"frame_b\" (body frames)");
	}
	if (anchors)
	{
		return read_world_anchors(s, object, def);
	}
	return read_frame(s, object, "frame_a", &def->local_frame_a) &&
		   read_frame(s, object, "frame_b", &def->local_frame_b);
}

static const char* const k_limit_keys[] = {"enabled", "lower", "upper"};
static const char* const k_motor_keys[] = {"enabled", "mode", "speed", "target", "max_force"};
static const char* const k_spring_keys[] = {"enabled", "hertz", "damping_ratio"};

/// Opens an optional sub-object such as "limit"; false with *item NULL when it is absent.
static bool open_section(scene_loader* s, const cJSON* object, const char* key, const char* const* keys, int count,
						 const cJSON** item, size_t* mark)
{
	*item = get(object, key);
	if (*item == NULL)
	{
		return false;
	}
	*mark = path_push(s, key, 0);
	if (!expect_object(s, *item) || !check_keys(s, *item, keys, count))
	{
		*item = NULL;
	}
	return true;
}

static bool read_limit(scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	const cJSON* item = NULL;
	size_t mark = 0;
	if (!open_section(s, object, "limit", k_limit_keys, 3, &item, &mark))
	{
		return true;
	}
	def->enable_limit = true;
	bool ok = item != NULL && read_bool(s, item, "enabled", false, &def->enable_limit) &&
			  read_float(s, item, "lower", true, &def->lower) && read_float(s, item, "upper", true, &def->upper);
	path_pop(s, mark);
	return ok;
}

static bool read_motor(scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	const cJSON* item = NULL;
	size_t mark = 0;
	if (!open_section(s, object, "motor", k_motor_keys, 5, &item, &mark))
	{
		return true;
	}
	def->enable_motor = true;
	int mode = def->motor_mode;
	bool ok = item != NULL && read_bool(s, item, "enabled", false, &def->enable_motor) &&
			  read_enum(s, item, "mode", false, kl_scene_motor_mode_name, 2, "motor mode", &mode) &&
			  read_float(s, item, "speed", false, &def->motor_speed) &&
			  read_float(s, item, "target", false, &def->motor_target) &&
			  read_non_negative(s, item, "max_force", true, &def->max_motor_force);
	def->motor_mode = (kl_motor_mode)mode;
	path_pop(s, mark);
	return ok;
}

static bool read_spring(scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	const cJSON* item = NULL;
	size_t mark = 0;
	if (!open_section(s, object, "spring", k_spring_keys, 3, &item, &mark))
	{
		return true;
	}
	def->enable_spring = true;
	bool ok = item != NULL && read_bool(s, item, "enabled", false, &def->enable_spring) &&
			  read_non_negative(s, item, "hertz", true, &def->spring_hertz) &&
			  read_non_negative(s, item, "damping_ratio", false, &def->spring_damping_ratio);
	path_pop(s, mark);
	return ok;
}

/// Distance joints without a "length" keep the current distance between their attachment points.
static float current_length(const kl_joint_def* def)
{
	vec3s pa = kl_transform_point(kl_body_get_transform(def->body_a), def->local_frame_a.p);
	vec3s pb = kl_transform_point(kl_body_get_transform(def->body_b), def->local_frame_b.p);
	return glms_vec3_distance(pa, pb);
}

static const char* const k_joint_keys[] = {
	"type",	  "name",	 "body_a", "body_b",			"anchor", "anchor_a", "anchor_b", "axis",
	"frame_a", "frame_b", "collide_connected", "limit", "motor",	 "spring",	 "length",
};

static bool read_joint_def(scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	int type = 0;
	if (!read_enum(s, object, "type", true, kl_scene_joint_type_name, KL_JOINT_TYPE_COUNT, "joint type", &type))
	{
		return false;
	}
	*def = kl_default_joint_def((kl_joint_type)type);
	bool ok = find_body(s, object, "body_a", &def->body_a) && find_body(s, object, "body_b", &def->body_b) &&
			  read_string(s, object, "name", false, &def->name) && read_joint_frames(s, object, def) &&
			  read_bool(s, object, "collide_connected", false, &def->collide_connected) && read_limit(s, object, def) &&
			  read_motor(s, object, def) && read_spring(s, object, def);
	if (ok && def->type == KL_JOINT_DISTANCE && get(object, "length") == NULL)
	{
		def->length = current_length(def);
	}
	return ok && read_non_negative(s, object, "length", false, &def->length);
}

static bool load_joint(scene_loader* s, const cJSON* object)
{
	kl_joint_def def;
	if (!expect_object(s, object) ||
		!check_keys(s, object, k_joint_keys, KL_COUNT_OF(k_joint_keys)) ||
		!read_joint_def(s, object, &def))
	{
		return false;
	}
	kl_joint_id joint = kl_create_joint(s->world, &def);
	return KL_IS_NON_NULL(joint) || fail_api(s, NULL);
}

static bool load_joints(scene_loader* s, const cJSON* joints)
{
	if (joints == NULL)
	{
		return true;
	}
	if (!cJSON_IsArray(joints))
	{
		return fail_at(s, "joints", KL_ERR_PARSE, "expected an array, got %s", json_type_name(joints));
	}
	size_t mark = path_push(s, "joints", 0);
	int index = 0;
	bool ok = true;
	for (const cJSON* joint = joints->child; joint != NULL && ok; joint = joint->next, ++index)
	{
		size_t inner = path_push(s, NULL, index);
		ok = load_joint(s, joint);
		path_pop(s, inner);
	}
	path_pop(s, mark);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Documents

static const char* const k_root_keys[] = {"version", "world", "bodies", "joints"};

static bool load_root(scene_loader* s, const cJSON* root)
{
	if (!cJSON_IsObject(root))
	{
		return fail_at(s, NULL, KL_ERR_PARSE, "a scene is a JSON object, got %s", json_type_name(root));
	}
	int version = KL_SCENE_VERSION;
	kl_world_def def;
	if (!check_keys(s, root, k_root_keys, 4) || !read_int(s, root, "version", false, &version))
	{
		return false;
	}
	if (version < 1 || version > KL_SCENE_VERSION)
	{
		return fail_at(s, "version", KL_ERR_UNSUPPORTED, "version %d is not supported (this build reads 1 to %d)",
					   version, KL_SCENE_VERSION);
	}
	if (!read_world_def(s, get(root, "world"), &def))
	{
		return false;
	}
	if (s->options.worker_count > 0)
	{
		def.worker_count = s->options.worker_count;
	}
	s->world = kl_create_world(&def);
	if (KL_IS_NULL(s->world))
	{
		return fail_api(s, "world");
	}
	return load_bodies(s, get(root, "bodies")) && load_joints(s, get(root, "joints"));
}

/// Runs the load; on failure destroys the partial world and reports the first error.
static kl_world_id load_document(scene_loader* s, const cJSON* root)
{
	bool ok = load_root(s, root);
	for (int i = 0; i < s->mesh_count; ++i)
	{
		kl_mesh_release(s->meshes[i].mesh);
		kl_free(s->meshes[i].path);
	}
	kl_free(s->meshes);
	kl_free(s->bodies);
	kl_free(s->sorted_bodies);
	if (ok)
	{
		return s->world;
	}
	if (KL_IS_NON_NULL(s->world))
	{
		kl_destroy_world(s->world);
	}
	kl_fail(s->code, "%s%s%s", s->file != NULL ? s->file : "", s->file != NULL ? ": " : "", s->message);
	return kl_null_world_id;
}

/// Fails with the line and column of a JSON syntax error and the text found there.
static kl_world_id syntax_error(const scene_loader* s, const char* text, size_t length, const char* end)
{
	size_t offset = end != NULL && end >= text && (size_t)(end - text) <= length ? (size_t)(end - text) : 0;
	int line = 1;
	size_t line_start = 0;
	for (size_t i = 0; i < offset; ++i)
	{
		if (text[i] == '\n')
		{
			line += 1;
			line_start = i + 1;
		}
	}
	char near[24];
	size_t n = 0;
	for (size_t i = offset; i < length && n + 1 < sizeof(near) && text[i] != '\n' && text[i] != '\r'; ++i)
	{
		near[n++] = (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?';
	}
	near[n] = '\0';
	const char* prefix = s->file != NULL ? s->file : "";
	const char* colon = s->file != NULL ? ": " : "";
	if (n == 0)
	{
		kl_fail(KL_ERR_PARSE, "%s%sJSON syntax error at line %d, column %zu: unexpected end of input", prefix, colon,
				line, offset - line_start + 1);
	}
	else
	{
		kl_fail(KL_ERR_PARSE, "%s%sJSON syntax error at line %d, column %zu near '%s'", prefix, colon, line,
				offset - line_start + 1, near);
	}
	return kl_null_world_id;
}

static kl_world_id load_text(scene_loader* s, const char* text, size_t length)
{
	const char* end = NULL;
	// The length includes the terminator: cJSON then rejects anything after the document.
	cJSON* root = cJSON_ParseWithLengthOpts(text, length + 1, &end, true);
	if (root == NULL)
	{
		return syntax_error(s, text, length, end);
	}
	kl_world_id world = load_document(s, root);
	cJSON_Delete(root);
	return world;
}

static bool init_loader(scene_loader* s, const kl_scene_load_options* options, const char* file, const char* base_dir)
{
	*s = (scene_loader){0};
	s->options = options != NULL ? *options : kl_default_scene_load_options();
	s->file = file;
	s->base_dir = kl_strdup(s->options.base_dir != NULL ? s->options.base_dir : base_dir);
	return s->base_dir != NULL;
}

kl_scene_load_options kl_default_scene_load_options(void)
{
	kl_scene_load_options options = {0};
	return options;
}

kl_world_id kl_scene_load_string(const char* json, const kl_scene_load_options* options)
{
	if (json == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "scene text is NULL");
		return kl_null_world_id;
	}
	scene_loader s;
	if (!init_loader(&s, options, NULL, ""))
	{
		return kl_null_world_id;
	}
	kl_world_id world = load_text(&s, json, strlen(json));
	kl_free(s.base_dir);
	return world;
}

/// Reads a whole file, refusing more than limit bytes before allocating for them. Owned result.
static char* read_file(const char* path, size_t limit, size_t* length_out)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		kl_fail(KL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	// Regular files say their size up front; pipes are read until the limit.
	if (fseek(f, 0, SEEK_END) == 0)
	{
		long size = ftell(f);
		if (size > 0 && (unsigned long)size > limit)
		{
			fclose(f);
			kl_fail(KL_ERR_LIMIT, "%s: %ld bytes exceed the %zu MiB scene limit", path, size, limit >> 20);
			return NULL;
		}
		rewind(f);
	}
	char* data = NULL;
	size_t length = 0;
	size_t capacity = 0;
	bool ok = true;
	while (ok)
	{
		if (capacity - length < 2)
		{
			size_t grown = capacity == 0 ? 65536 : 2 * capacity;
			grown = grown < limit + 2 ? grown : limit + 2;
			char* bigger = kl_realloc(data, grown, 1);
			ok = bigger != NULL;
			data = ok ? bigger : data;
			capacity = ok ? grown : capacity;
			continue;
		}
		size_t n = fread(data + length, 1, capacity - length - 1, f);
		length += n;
		if (length > limit)
		{
			ok = false;
			kl_fail(KL_ERR_LIMIT, "%s: exceeds the %zu MiB scene limit", path, limit >> 20);
		}
		else if (n == 0)
		{
			break;
		}
	}
	if (ok && ferror(f))
	{
		ok = false;
		kl_fail(KL_ERR_IO, "%s: read error", path);
	}
	fclose(f);
	if (!ok)
	{
		kl_free(data);
		return NULL;
	}
	data[length] = '\0';
	*length_out = length;
	return data;
}

/// The directory part of path ("" for a bare file name, which then resolves in the working directory).
static char* directory_of(const char* path)
{
	const char* slash = strrchr(path, '/');
	if (slash == NULL)
	{
		return kl_strdup("");
	}
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char* dir = kl_alloc(n + 1, 1);
	if (dir != NULL)
	{
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return dir;
}

kl_world_id kl_scene_load_file(const char* path, const kl_scene_load_options* options)
{
	if (path == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "scene path is NULL");
		return kl_null_world_id;
	}
	size_t length = 0;
	char* text = read_file(path, KL_SCENE_MAX_FILE_SIZE, &length);
	if (text == NULL)
	{
		return kl_null_world_id;
	}
	kl_world_id world = kl_null_world_id;
	const char* nul = memchr(text, '\0', length);
	char* dir = directory_of(path);
	scene_loader s;
	if (nul != NULL)
	{
		kl_fail(KL_ERR_PARSE, "%s: NUL byte at offset %zu; a scene is JSON text", path, (size_t)(nul - text));
	}
	else if (dir != NULL && init_loader(&s, options, path, dir))
	{
		world = load_text(&s, text, length);
		kl_free(s.base_dir);
	}
	kl_free(dir);
	kl_free(text);
	return world;
}
