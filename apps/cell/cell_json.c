// Kollide robot cell — JSON getters with ranges and error paths (cell_json.h).
// SPDX-License-Identifier: MIT
#include "cell_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/// Coordinates a cell may use (m): the engine's own bounds are larger; a cell is a room.
#define KL_CELL_MAX_COORDINATE 1e4

cJSON* kl_cell_json_open(kl_cell_json* j, const char* path, char* error, int size)
{
	memset(j, 0, sizeof(*j));
	j->file = path;
	j->error = error;
	j->error_size = size;
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		kl_cell_json_fail(j, "cannot open the file");
		return NULL;
	}
	char* text = NULL;
	long length = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (length >= 0 && length < (1 << 24) && fseek(f, 0, SEEK_SET) == 0 &&
		(text = malloc((size_t)length + 1)) != NULL && fread(text, 1, (size_t)length, f) == (size_t)length)
	{
		text[length] = '\0';
	}
	else
	{
		free(text);
		text = NULL;
	}
	fclose(f);
	cJSON* root = text != NULL ? cJSON_Parse(text) : NULL;
	free(text);
	if (root == NULL)
	{
		kl_cell_json_fail(j, "not a readable JSON file (under 16 MiB)");
	}
	return root;
}

void kl_cell_json_dirname(const char* path, char* dir, int size)
{
	const char* slash = strrchr(path, '/');
	int n = slash != NULL ? (int)(slash - path) : 1;
	snprintf(dir, (size_t)size, "%.*s", n, slash != NULL ? path : ".");
}

void kl_cell_json_push(kl_cell_json* j, const char* key, int index)
{
	if (j->depth < KL_CELL_JSON_DEPTH)
	{
		j->keys[j->depth] = key;
		j->indices[j->depth] = index;
	}
	++j->depth;
}

void kl_cell_json_pop(kl_cell_json* j)
{
	--j->depth;
}

bool kl_cell_json_fail(kl_cell_json* j, const char* format, ...)
{
	int n = snprintf(j->error, (size_t)j->error_size, "%s: ", j->file);
	for (int i = 0; i < j->depth && i < KL_CELL_JSON_DEPTH && n < j->error_size; ++i)
	{
		const char* dot = i > 0 ? "." : "";
		n += j->indices[i] >= 0
				 ? snprintf(j->error + n, (size_t)(j->error_size - n), "%s%s[%d]", dot, j->keys[i], j->indices[i])
				 : snprintf(j->error + n, (size_t)(j->error_size - n), "%s%s", dot, j->keys[i]);
	}
	if (j->depth > 0 && n < j->error_size)
	{
		n += snprintf(j->error + n, (size_t)(j->error_size - n), ": ");
	}
	if (n < j->error_size)
	{
		va_list args;
		va_start(args, format);
		vsnprintf(j->error + n, (size_t)(j->error_size - n), format, args);
		va_end(args);
	}
	return false;
}

bool kl_cell_json_check(kl_cell_json* j, bool condition, const char* message)
{
	return condition || kl_cell_json_fail(j, "%s", message);
}

bool kl_cell_json_keys(kl_cell_json* j, const cJSON* object, const char* const* keys, int count)
{
	const cJSON* item;
	cJSON_ArrayForEach(item, object)
	{
		int k = 0;
		while (k < count && strcmp(item->string, keys[k]) != 0)
		{
			++k;
		}
		if (k == count)
		{
			return kl_cell_json_fail(j, "unknown key \"%s\"", item->string);
		}
	}
	return true;
}

static const cJSON* member(kl_cell_json* j, const cJSON* o, const char* key, bool required, bool* ok)
{
	const cJSON* item = cJSON_GetObjectItemCaseSensitive(o, key);
	*ok = item != NULL || !required || kl_cell_json_fail(j, "%s is required", key);
	return item;
}

static bool number(kl_cell_json* j, const cJSON* item, const char* key, double limit, double* out)
{
	if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || fabs(item->valuedouble) > limit)
	{
		return kl_cell_json_fail(j, "%s must be a number within ±%g", key, limit);
	}
	*out = item->valuedouble;
	return true;
}

bool kl_cell_json_float(kl_cell_json* j, const cJSON* o, const char* key, bool required, float* out)
{
	bool ok;
	const cJSON* item = member(j, o, key, required, &ok);
	double v = 0.0;
	if (item == NULL || !ok)
	{
		return ok;
	}
	if (!number(j, item, key, 1e9, &v))
	{
		return false;
	}
	*out = (float)v;
	return true;
}

bool kl_cell_json_int(kl_cell_json* j, const cJSON* o, const char* key, bool required, int min, int max, int* out)
{
	bool ok;
	const cJSON* item = member(j, o, key, required, &ok);
	if (item == NULL || !ok)
	{
		return ok;
	}
	if (!cJSON_IsNumber(item) || !(item->valuedouble >= min && item->valuedouble <= max) ||
		item->valuedouble != floor(item->valuedouble))
	{
		return kl_cell_json_fail(j, "%s must be an integer in [%d, %d]", key, min, max);
	}
	*out = (int)item->valuedouble;
	return true;
}

static bool numbers(kl_cell_json* j, const cJSON* item, const char* key, int count, double limit, double* out)
{
	if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != count)
	{
		return kl_cell_json_fail(j, "%s must be an array of %d numbers", key, count);
	}
	const cJSON* e = item->child;
	for (int i = 0; i < count; ++i, e = e->next)
	{
		if (!number(j, e, key, limit, &out[i]))
		{
			return false;
		}
	}
	return true;
}

bool kl_cell_json_vec3(kl_cell_json* j, const cJSON* o, const char* key, bool required, vec3s* out)
{
	bool ok;
	const cJSON* item = member(j, o, key, required, &ok);
	double v[3];
	if (item == NULL || !ok)
	{
		return ok;
	}
	if (!numbers(j, item, key, 3, KL_CELL_MAX_COORDINATE, v))
	{
		return false;
	}
	*out = kl_vec3((float)v[0], (float)v[1], (float)v[2]);
	return true;
}

bool kl_cell_json_unit(kl_cell_json* j, const cJSON* o, const char* key, vec3s* out)
{
	vec3s v = *out;
	if (!kl_cell_json_vec3(j, o, key, false, &v))
	{
		return false;
	}
	float length = glms_vec3_norm(v);
	if (!(length > 1e-6f))
	{
		return kl_cell_json_fail(j, "%s must not be zero", key);
	}
	*out = glms_vec3_scale(v, 1.0f / length);
	return true;
}

bool kl_cell_json_name(kl_cell_json* j, const cJSON* o, const char* key, bool required, char out[KL_CELL_NAME_SIZE])
{
	bool ok;
	const cJSON* item = member(j, o, key, required, &ok);
	if (item == NULL || !ok)
	{
		return ok;
	}
	if (!cJSON_IsString(item) || item->valuestring[0] == '\0' || strlen(item->valuestring) >= KL_CELL_NAME_SIZE)
	{
		return kl_cell_json_fail(j, "%s must be a string of 1 to %d characters", key, KL_CELL_NAME_SIZE - 1);
	}
	strcpy(out, item->valuestring);
	return true;
}

bool kl_cell_json_enum(kl_cell_json* j, const cJSON* o, const char* key, const char* const* names, int count, int* out)
{
	char name[KL_CELL_NAME_SIZE];
	if (!kl_cell_json_name(j, o, key, true, name))
	{
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		if (strcmp(name, names[i]) == 0)
		{
			*out = i;
			return true;
		}
	}
	return kl_cell_json_fail(j, "unknown %s \"%s\"", key, name);
}

bool kl_cell_json_pose(kl_cell_json* j, const cJSON* o, kl_transform* pose)
{
	bool ok;
	const cJSON* q = member(j, o, "orientation", false, &ok);
	double v[4];
	if (!kl_cell_json_vec3(j, o, "position", true, &pose->p))
	{
		return false;
	}
	if (q == NULL)
	{
		return true;
	}
	if (!numbers(j, q, "orientation", 4, 1e3, v))
	{
		return false;
	}
	double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
	if (!(n > 1e-6))
	{
		return kl_cell_json_fail(j, "orientation must not be zero");
	}
	pose->q = kl_quat_wxyz((float)(v[0] / n), (float)(v[1] / n), (float)(v[2] / n), (float)(v[3] / n));
	return true;
}

bool kl_cell_json_extents(kl_cell_json* j, const cJSON* o, vec3s* out)
{
	vec3s e = *out;
	if (!kl_cell_json_vec3(j, o, "half_extents", false, &e))
	{
		return false;
	}
	if (!(e.x > 0.0f && e.y > 0.0f && e.z > 0.0f && e.x <= 1e3f && e.y <= 1e3f && e.z <= 1e3f))
	{
		return kl_cell_json_fail(j, "half_extents must be in (0, 1000]");
	}
	*out = e;
	return true;
}

bool kl_cell_json_scaled(kl_cell_json* j, const cJSON* o, const char* key, kl_cell_scaled* out)
{
	static const char* const keys[] = {"address", "scale", "offset"};
	const cJSON* item = cJSON_GetObjectItemCaseSensitive(o, key);
	if (item == NULL)
	{
		return true;
	}
	if (cJSON_IsNumber(item))
	{
		return kl_cell_json_int(j, o, key, true, 0, KL_CELL_MAX_ADDRESS - 1, &out->address);
	}
	kl_cell_json_push(j, key, -1);
	bool ok = kl_cell_json_check(j, cJSON_IsObject(item), "must be an address or an object") &&
			  kl_cell_json_keys(j, item, keys, 3) &&
			  kl_cell_json_int(j, item, "address", true, 0, KL_CELL_MAX_ADDRESS - 1, &out->address) &&
			  kl_cell_json_float(j, item, "scale", false, &out->scale) &&
			  kl_cell_json_float(j, item, "offset", false, &out->offset) &&
			  kl_cell_json_check(j, fabsf(out->scale) >= 1e-9f, "scale must not be zero");
	kl_cell_json_pop(j);
	return ok;
}

bool kl_cell_json_path(kl_cell_json* j, const cJSON* o, const char* key, const char* dir, char* out, int size)
{
	char name[KL_CELL_NAME_SIZE * 4];
	const cJSON* item = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsString(item) || item->valuestring[0] == '\0' || strlen(item->valuestring) >= sizeof(name))
	{
		return kl_cell_json_fail(j, "%s must be a file name", key);
	}
	strcpy(name, item->valuestring);
	int n = name[0] == '/' ? snprintf(out, (size_t)size, "%s", name) : snprintf(out, (size_t)size, "%s/%s", dir, name);
	return (n > 0 && n < size) || kl_cell_json_fail(j, "%s: the path is too long", key);
}
