// Kollide — JSON scene loading (format: docs/scene-format.md): the document, the world and its
// bodies. Shapes and joints are in scene_load_shapes.c and scene_load_joints.c.
// SPDX-License-Identifier: MIT
#include "scene_json.h"
#include "scene_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// World

static const char* const k_world_keys[] = {
	"gravity",	   "worker_count",			"contact_hertz",		 "contact_damping_ratio",
	"max_contact_push_speed", "joint_hertz", "joint_damping_ratio", "restitution_threshold",
	"max_linear_speed",		  "enable_sleep", "enable_continuous",	 "use_gpu", "max_collision_travel",
	"length_units_per_meter",
};

static bool read_world_fields(kl_json_reader* r, const cJSON* object, kl_world_def* def)
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
		{"max_collision_travel", &def->max_collision_travel},
		{"length_units_per_meter", &def->length_units_per_meter},
	};
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); ++i)
	{
		if (!kl_json_read_non_negative(r, object, params[i].key, false, params[i].value))
		{
			return false;
		}
	}
	if (!kl_json_read_vec3(r, object, "gravity", false, &def->gravity) ||
		!kl_json_read_int(r, object, "worker_count", false, &def->worker_count) ||
		!kl_json_read_bool(r, object, "enable_sleep", false, &def->enable_sleep) ||
		!kl_json_read_bool(r, object, "enable_continuous", false, &def->enable_continuous) ||
		!kl_json_read_bool(r, object, "use_gpu", false, &def->use_gpu))
	{
		return false;
	}
	if (def->worker_count < 0 || def->worker_count > 256)
	{
		return kl_json_fail(r, "worker_count", KL_ERR_INVALID_ARGUMENT, "must be in [0, 256] (got %d)",
							def->worker_count);
	}
	return true;
}

static bool read_world_def(kl_json_reader* r, const cJSON* object, kl_world_def* def)
{
	*def = kl_default_world_def();
	if (object == NULL)
	{
		return true;
	}
	size_t mark = kl_json_push(r, "world", 0);
	bool ok = kl_json_expect_object(r, object) &&
			  kl_json_check_keys(r, object, k_world_keys, KL_COUNT_OF(k_world_keys)) &&
			  read_world_fields(r, object, def);
	kl_json_pop(r, mark);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Bodies

static const char* const k_body_keys[] = {
	"name",			  "type",			 "position",		  "orientation", "linear_velocity", "angular_velocity",
	"linear_damping", "angular_damping", "gravity_scale",	  "sleep_threshold", "enable_sleep", "awake",
	"fixed_rotation", "bullet",			 "gyroscopic",		  "mass",		 "shapes",
};

static bool read_body_def(kl_json_reader* r, const cJSON* object, kl_body_def* def)
{
	*def = kl_default_body_def();
	int type = def->type;
	bool ok =
		kl_json_read_string(r, object, "name", false, &def->name) &&
		kl_json_read_enum(r, object, "type", false, kl_scene_body_type_name, KL_BODY_TYPE_COUNT, "body type", &type) &&
		kl_json_read_vec3(r, object, "position", false, &def->position) &&
		kl_json_read_quat(r, object, "orientation", false, &def->rotation) &&
		kl_json_read_vec3(r, object, "linear_velocity", false, &def->linear_velocity) &&
		kl_json_read_vec3(r, object, "angular_velocity", false, &def->angular_velocity) &&
		kl_json_read_non_negative(r, object, "linear_damping", false, &def->linear_damping) &&
		kl_json_read_non_negative(r, object, "angular_damping", false, &def->angular_damping) &&
		kl_json_read_float(r, object, "gravity_scale", false, &def->gravity_scale) &&
		kl_json_read_non_negative(r, object, "sleep_threshold", false, &def->sleep_threshold) &&
		kl_json_read_bool(r, object, "enable_sleep", false, &def->enable_sleep) &&
		kl_json_read_bool(r, object, "awake", false, &def->is_awake) &&
		kl_json_read_bool(r, object, "fixed_rotation", false, &def->fixed_rotation) &&
		kl_json_read_bool(r, object, "bullet", false, &def->is_bullet) &&
		kl_json_read_bool(r, object, "gyroscopic", false, &def->enable_gyroscopic);
	def->type = (kl_body_type)type;
	return ok;
}

/// Reads an inertia tensor: three rows of three, or the diagonal of a principal-axes body.
static bool to_inertia(kl_json_reader* r, const cJSON* item, const char* key, mat3s* out)
{
	bool rows = cJSON_IsArray(item) && cJSON_GetArraySize(item) == 3 && cJSON_IsArray(item->child);
	if (!rows)
	{
		float d[3];
		if (!kl_json_to_floats(r, item, key, d, 3))
		{
			return false;
		}
		*out = glms_mat3_zero();
		out->m00 = d[0];
		out->m11 = d[1];
		out->m22 = d[2];
		return true;
	}
	int i = 0;
	for (const cJSON* row = item->child; row != NULL; row = row->next, ++i)
	{
		char sub[64];
		snprintf(sub, sizeof(sub), "%s[%d]", key, i);
		float v[3];
		if (!kl_json_to_floats(r, row, sub, v, 3))
		{
			return false;
		}
		for (int c = 0; c < 3; ++c)
		{
			out->raw[c][i] = v[c]; // cglm matrices are column-major
		}
	}
	return true;
}

static const char* const k_mass_keys[] = {"mass", "center", "inertia"};

/// A mass override; a missing centre or inertia keeps the value computed from the shapes.
static bool apply_mass(kl_json_reader* r, kl_body_id body, const cJSON* item)
{
	size_t mark = kl_json_push(r, "mass", 0);
	kl_mass_data md = kl_body_get_mass_data(body);
	const cJSON* inertia = kl_json_get(item, "inertia");
	bool ok = kl_json_expect_object(r, item) && kl_json_check_keys(r, item, k_mass_keys, 3) &&
			  kl_json_read_float(r, item, "mass", true, &md.mass) && kl_json_check_positive(r, "mass", md.mass) &&
			  kl_json_read_vec3(r, item, "center", false, &md.center) &&
			  (inertia == NULL || to_inertia(r, inertia, "inertia", &md.inertia));
	if (ok && kl_body_set_mass_data(body, md) != KL_OK)
	{
		ok = kl_json_fail_api(r, NULL);
	}
	kl_json_pop(r, mark);
	return ok;
}

static bool is_zero(vec3s v)
{
	return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f;
}

static bool load_body(void* context, const cJSON* object)
{
	kl_scene_loader* s = context;
	kl_json_reader* r = &s->json;
	kl_body_def def;
	if (!kl_json_expect_object(r, object) || !kl_json_check_keys(r, object, k_body_keys, KL_COUNT_OF(k_body_keys)) ||
		!read_body_def(r, object, &def))
	{
		return false;
	}
	if (def.type == KL_BODY_STATIC && (!is_zero(def.linear_velocity) || !is_zero(def.angular_velocity)))
	{
		kl_json_warn(r, "velocities of the static body at %s are ignored", r->path);
	}
	kl_body_id body = kl_create_body(s->world, &def);
	if (KL_IS_NULL(body))
	{
		return kl_json_fail_api(r, NULL);
	}
	s->bodies[s->body_count++] = (kl_scene_body){def.name, body};
	const cJSON* mass = kl_json_get(object, "mass");
	return kl_scene_load_shapes(s, body, object) && (mass == NULL || apply_mass(r, body, mass));
}

static bool load_bodies(kl_scene_loader* s, const cJSON* root)
{
	// The table of created bodies, where joints look their bodies up, has room for every element.
	const cJSON* bodies = kl_json_get(root, "bodies");
	if (cJSON_IsArray(bodies))
	{
		s->bodies = kl_alloc((size_t)cJSON_GetArraySize(bodies), sizeof(kl_scene_body));
		if (s->bodies == NULL)
		{
			return kl_json_fail_api(&s->json, "bodies");
		}
	}
	bool ok = kl_json_read_array(&s->json, root, "bodies", load_body, s);
	s->listed_count = s->body_count;
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Documents

static const char* const k_root_keys[] = {"version", "world", "bodies", "robots", "joints"};

static bool load_root(kl_scene_loader* s, const cJSON* root)
{
	kl_json_reader* r = &s->json;
	if (!cJSON_IsObject(root))
	{
		return kl_json_fail(r, NULL, KL_ERR_PARSE, "a scene is a JSON object, got %s", kl_json_type_name(root));
	}
	int version = KL_SCENE_VERSION;
	kl_world_def def;
	if (!kl_json_check_keys(r, root, k_root_keys, KL_COUNT_OF(k_root_keys)) || !kl_json_read_int(r, root, "version", false, &version))
	{
		return false;
	}
	if (version < 1 || version > KL_SCENE_VERSION)
	{
		return kl_json_fail(r, "version", KL_ERR_UNSUPPORTED, "version %d is not supported (this build reads 1 to %d)",
							version, KL_SCENE_VERSION);
	}
	if (!read_world_def(r, kl_json_get(root, "world"), &def))
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
		return kl_json_fail_api(r, "world");
	}
	return load_bodies(s, root) && kl_scene_load_robots(s, root) && kl_scene_load_joints(s, root);
}

/// Runs the load; on failure destroys the partial world and reports the first error.
static kl_world_id load_document(kl_scene_loader* s, const cJSON* root)
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
	kl_fail(s->json.code, "%s%s%s", s->file != NULL ? s->file : "", s->file != NULL ? ": " : "", s->json.message);
	return kl_null_world_id;
}

/// Fails with the line and column of a JSON syntax error and the text found there.
static kl_world_id syntax_error(const kl_scene_loader* s, const char* text, size_t length, const char* end)
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

static kl_world_id load_text(kl_scene_loader* s, const char* text, size_t length)
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

static bool init_loader(kl_scene_loader* s, const kl_scene_load_options* options, const char* file,
						const char* base_dir)
{
	*s = (kl_scene_loader){0};
	s->options = options != NULL ? *options : kl_default_scene_load_options();
	s->json.warning = s->options.warning;
	s->json.warning_context = s->options.warning_context;
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
	kl_scene_loader s;
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
	kl_scene_loader s;
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
