// Kollide — JSON scene loading of shapes: the common shape fields and each shape type, with the
// mesh files a scene names (loaded once per load) and inline meshes.
// SPDX-License-Identifier: MIT

// realpath() is POSIX.1-2008 base, but glibc declares it only for X/Open.
#define _XOPEN_SOURCE 700

#include "scene_json.h"
#include "scene_load.h"

#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Fields every shape has

static const char* const k_shape_keys[] = {
	"type",		   "name",		  "position",			"orientation",	   "density",
	"friction",	   "restitution", "rolling_resistance", "spin_resistance", "surface_velocity",
	"material_id", "sensor",	  "contact_events",		"sensor_events",   "filter",
};

#define KL_SHAPE_COMMON_KEYS KL_COUNT_OF(k_shape_keys)

#define KL_SHAPE_TYPE_KEYS 9

/// Keys of each shape type beyond the common ones, indexed by kl_shape_type.
static const char* const k_shape_type_keys[KL_SHAPE_TYPE_COUNT][KL_SHAPE_TYPE_KEYS] = {
	[KL_SHAPE_SPHERE] = {"radius"},
	[KL_SHAPE_BOX] = {"half_extents"},
	[KL_SHAPE_CAPSULE] = {"radius", "half_height"},
	[KL_SHAPE_HULL] = {"points"},
	[KL_SHAPE_MESH] = {"file", "scale", "vertices", "triangles", "backend", "inner_spheres", "contact_model",
					   "penalty_stiffness", "penalty_damping"},
	[KL_SHAPE_PLANE] = {"normal", "offset"},
};

static bool check_shape_keys(kl_json_reader* r, const cJSON* object, kl_shape_type type)
{
	const char* known[KL_SHAPE_COMMON_KEYS + KL_SHAPE_TYPE_KEYS];
	int count = 0;
	for (int i = 0; i < KL_SHAPE_COMMON_KEYS; ++i)
	{
		known[count++] = k_shape_keys[i];
	}
	for (int i = 0; i < KL_SHAPE_TYPE_KEYS && k_shape_type_keys[type][i] != NULL; ++i)
	{
		known[count++] = k_shape_type_keys[type][i];
	}
	return kl_json_check_keys(r, object, known, count);
}

static const char* const k_filter_keys[] = {"category", "mask", "group"};

static bool read_filter(kl_json_reader* r, const cJSON* object, kl_filter* filter)
{
	const cJSON* item = kl_json_get(object, "filter");
	if (item == NULL)
	{
		return true;
	}
	size_t mark = kl_json_push(r, "filter", 0);
	int group = filter->group_index;
	bool ok = kl_json_expect_object(r, item) && kl_json_check_keys(r, item, k_filter_keys, 3) &&
			  kl_json_read_u64(r, item, "category", false, &filter->category_bits) &&
			  kl_json_read_u64(r, item, "mask", false, &filter->mask_bits) &&
			  kl_json_read_int(r, item, "group", false, &group);
	filter->group_index = group;
	kl_json_pop(r, mark);
	return ok;
}

static bool read_shape_def(kl_json_reader* r, const cJSON* object, kl_shape_def* def)
{
	*def = kl_default_shape_def();
	kl_material* m = &def->material;
	return kl_json_read_string(r, object, "name", false, &def->name) &&
		   kl_json_read_vec3(r, object, "position", false, &def->local_pose.p) &&
		   kl_json_read_quat(r, object, "orientation", false, &def->local_pose.q) &&
		   kl_json_read_non_negative(r, object, "density", false, &m->density) &&
		   kl_json_read_non_negative(r, object, "friction", false, &m->friction) &&
		   kl_json_read_non_negative(r, object, "restitution", false, &m->restitution) &&
		   kl_json_read_non_negative(r, object, "rolling_resistance", false, &m->rolling_resistance) &&
		   kl_json_read_non_negative(r, object, "spin_resistance", false, &m->spin_resistance) &&
		   kl_json_read_vec3(r, object, "surface_velocity", false, &m->surface_velocity) &&
		   kl_json_read_uint32(r, object, "material_id", false, &m->user_material_id) &&
		   kl_json_read_bool(r, object, "sensor", false, &def->is_sensor) &&
		   kl_json_read_bool(r, object, "contact_events", false, &def->enable_contact_events) &&
		   kl_json_read_bool(r, object, "sensor_events", false, &def->enable_sensor_events) &&
		   read_filter(r, object, &def->filter);
}

// ---------------------------------------------------------------------------------------------
// Spheres, boxes, capsules, hulls and planes

static kl_shape_id create_sphere(kl_json_reader* r, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	float radius = 0.0f;
	if (!kl_json_read_float(r, object, "radius", true, &radius) || !kl_json_check_positive(r, "radius", radius))
	{
		return kl_null_shape_id;
	}
	return kl_create_sphere_shape(body, def, radius);
}

static kl_shape_id create_box(kl_json_reader* r, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	vec3s h = {0};
	if (!kl_json_read_vec3(r, object, "half_extents", true, &h) || !kl_json_check_positive_vec3(r, "half_extents", h))
	{
		return kl_null_shape_id;
	}
	return kl_create_box_shape(body, def, h);
}

static kl_shape_id create_capsule(kl_json_reader* r, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	float radius = 0.0f;
	float half_height = 0.0f;
	if (!kl_json_read_float(r, object, "radius", true, &radius) || !kl_json_check_positive(r, "radius", radius) ||
		!kl_json_read_non_negative(r, object, "half_height", true, &half_height))
	{
		return kl_null_shape_id;
	}
	return kl_create_capsule_shape(body, def, radius, half_height);
}

static kl_shape_id create_hull(kl_json_reader* r, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	const cJSON* item = kl_json_get(object, "points");
	int count = 0;
	vec3s* points = item != NULL ? kl_json_read_points(r, item, "points", 1, KL_HULL_MAX_INPUT_POINTS, &count) : NULL;
	if (points == NULL)
	{
		if (item == NULL)
		{
			kl_json_missing(r, "points");
		}
		return kl_null_shape_id;
	}
	kl_hull* hull = kl_hull_build(points, count);
	kl_free(points);
	if (hull == NULL)
	{
		kl_json_fail_api(r, "points");
		return kl_null_shape_id;
	}
	kl_shape_id id = kl_create_hull_shape(body, def, hull);
	kl_hull_destroy(hull);
	return id;
}

static kl_shape_id create_plane(kl_json_reader* r, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	kl_plane plane = {{{0.0f, 0.0f, 1.0f}}, 0.0f};
	if (!kl_json_read_vec3(r, object, "normal", true, &plane.normal) ||
		!kl_json_read_float(r, object, "offset", false, &plane.offset))
	{
		return kl_null_shape_id;
	}
	if (!(glms_vec3_norm2(plane.normal) > 1.0e-12f))
	{
		kl_json_fail(r, "normal", KL_ERR_INVALID_ARGUMENT, "must have a non-zero length");
		return kl_null_shape_id;
	}
	return kl_create_plane_shape(body, def, plane);
}

// ---------------------------------------------------------------------------------------------
// Meshes: files, loaded once per scene load, or vertices and triangles given inline

char* kl_scene_resolve_path(const kl_scene_loader* s, const char* file)
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

/// The build settings a mesh shape asks of its mesh: the point-shell model, inner spheres.
typedef struct mesh_request
{
	bool pointshell;
	int inner_spheres;
} mesh_request;

/// The build settings of a scene's meshes: the point-shell model and the inner spheres where a shape
/// asks for them.
static kl_mesh_def mesh_settings(mesh_request q)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.build_pointshell = q.pointshell;
	def.inner_spheres = q.inner_spheres;
	return def;
}

/// Loads a mesh file once per scene load; every shape naming the same file with the same build
/// settings shares it (one with the point-shell model for the shapes that use it, one without for the
/// others; one per inner-sphere count).
static kl_mesh* cached_mesh(kl_scene_loader* s, const char* file, mesh_request q)
{
	kl_json_reader* r = &s->json;
	if (file[0] == '\0')
	{
		kl_json_fail(r, "file", KL_ERR_INVALID_ARGUMENT, "empty file name");
		return NULL;
	}
	char* path = kl_scene_resolve_path(s, file);
	if (path == NULL)
	{
		kl_json_fail_api(r, "file");
		return NULL;
	}
	for (int i = 0; i < s->mesh_count; ++i)
	{
		if (strcmp(s->meshes[i].path, path) == 0 && s->meshes[i].pointshell == q.pointshell &&
			s->meshes[i].inner_spheres == q.inner_spheres)
		{
			kl_free(path);
			return s->meshes[i].mesh;
		}
	}
	kl_mesh* mesh = NULL;
	if (KL_ARRAY_RESERVE(s->meshes, s->mesh_capacity, s->mesh_count + 1))
	{
		kl_mesh_def settings = mesh_settings(q);
		mesh = kl_mesh_load_with(path, &settings);
	}
	if (mesh == NULL)
	{
		kl_json_fail_api(r, "file");
		kl_free(path);
		return NULL;
	}
	s->meshes[s->mesh_count++] = (kl_scene_mesh){path, mesh, q.pointshell, q.inner_spheres};
	return mesh;
}

static int32_t* read_triangles(kl_json_reader* r, const cJSON* item, int vertex_count, int* count_out)
{
	if (!cJSON_IsArray(item))
	{
		kl_json_fail(r, "triangles", KL_ERR_PARSE, "expected an array of [i, j, k] triangles, got %s",
					 kl_json_type_name(item));
		return NULL;
	}
	int count = cJSON_GetArraySize(item);
	if (count < 1 || count > KL_MESH_MAX_TRIANGLES)
	{
		kl_json_fail(r, "triangles", KL_ERR_INVALID_ARGUMENT, "needs between 1 and %d triangles, got %d",
					 KL_MESH_MAX_TRIANGLES, count);
		return NULL;
	}
	int32_t* indices = kl_alloc((size_t)count * 3, sizeof(int32_t));
	if (indices == NULL)
	{
		kl_json_fail_api(r, "triangles");
		return NULL;
	}
	int t = 0;
	for (const cJSON* e = item->child; e != NULL; e = e->next, ++t)
	{
		char sub[64];
		snprintf(sub, sizeof(sub), "triangles[%d]", t);
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3)
		{
			kl_json_fail(r, sub, KL_ERR_PARSE, "expected an array of 3 vertex indices");
			kl_free(indices);
			return NULL;
		}
		int k = 0;
		for (const cJSON* v = e->child; v != NULL; v = v->next, ++k)
		{
			double index = 0.0;
			if (!kl_json_to_integer(r, v, sub, 0.0, (double)vertex_count - 1.0, &index))
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
static kl_mesh* inline_mesh(kl_json_reader* r, const cJSON* object, mesh_request q)
{
	const cJSON* vertices_item = kl_json_get(object, "vertices");
	const cJSON* triangles_item = kl_json_get(object, "triangles");
	if (vertices_item == NULL || triangles_item == NULL)
	{
		kl_json_missing(r, vertices_item == NULL ? "vertices" : "triangles");
		return NULL;
	}
	int vertex_count = 0;
	int triangle_count = 0;
	vec3s* vertices = kl_json_read_points(r, vertices_item, "vertices", 3, KL_MESH_MAX_VERTICES, &vertex_count);
	int32_t* indices = vertices != NULL ? read_triangles(r, triangles_item, vertex_count, &triangle_count) : NULL;
	kl_mesh* mesh = NULL;
	if (indices != NULL)
	{
		kl_mesh_def def = mesh_settings(q);
		def.vertices = vertices;
		def.vertex_count = vertex_count;
		def.indices = indices;
		def.triangle_count = triangle_count;
		mesh = kl_mesh_build(&def);
		if (mesh == NULL)
		{
			kl_json_fail_api(r, "vertices");
		}
	}
	kl_free(vertices);
	kl_free(indices);
	return mesh;
}

static bool read_mesh_scale(kl_json_reader* r, const cJSON* object, vec3s* scale)
{
	const cJSON* item = kl_json_get(object, "scale");
	*scale = kl_vec3(1.0f, 1.0f, 1.0f);
	if (item == NULL)
	{
		return true;
	}
	if (cJSON_IsNumber(item))
	{
		float k = 1.0f;
		if (!kl_json_to_float(r, item, "scale", &k) || !kl_json_check_positive(r, "scale", k))
		{
			return false;
		}
		*scale = kl_vec3(k, k, k);
		return true;
	}
	if (!cJSON_IsArray(item))
	{
		return kl_json_fail(r, "scale", KL_ERR_PARSE, "expected a number or [sx, sy, sz], got %s",
							kl_json_type_name(item));
	}
	return kl_json_to_vec3(r, item, "scale", scale) && kl_json_check_positive_vec3(r, "scale", *scale);
}

static kl_shape_id create_mesh(kl_scene_loader* s, kl_body_id body, const cJSON* object, const kl_shape_def* def)
{
	kl_json_reader* r = &s->json;
	vec3s scale;
	const char* file = NULL;
	int backend = KL_MESH_BACKEND_BVH;
	int model = KL_CONTACT_CONSTRAINT;
	kl_shape_def with_backend = *def;
	mesh_request q = {false, 0};
	if (!read_mesh_scale(r, object, &scale) || !kl_json_read_string(r, object, "file", false, &file) ||
		!kl_json_read_enum(r, object, "backend", false, kl_scene_mesh_backend_name, KL_MESH_BACKEND_POINTSHELL + 1,
						   "mesh backend", &backend) ||
		!kl_json_read_enum(r, object, "contact_model", false, kl_scene_contact_model_name, KL_CONTACT_PENALTY + 1,
						   "contact model", &model) ||
		!kl_json_read_int(r, object, "inner_spheres", false, &q.inner_spheres) ||
		!kl_json_read_float(r, object, "penalty_stiffness", false, &with_backend.penalty_stiffness) ||
		!kl_json_read_float(r, object, "penalty_damping", false, &with_backend.penalty_damping_ratio))
	{
		return kl_null_shape_id;
	}
	q.pointshell = backend == KL_MESH_BACKEND_POINTSHELL;
	with_backend.mesh_backend = (kl_mesh_backend)backend;
	with_backend.contact_model = (kl_contact_model)model;
	bool has_inline = kl_json_get(object, "vertices") != NULL || kl_json_get(object, "triangles") != NULL;
	if (file != NULL && has_inline)
	{
		kl_json_fail(r, NULL, KL_ERR_INVALID_ARGUMENT,
					 "give either \"file\" or \"vertices\" and \"triangles\", not both");
		return kl_null_shape_id;
	}
	if (file == NULL && !has_inline)
	{
		kl_json_missing(r, "file");
		return kl_null_shape_id;
	}
	kl_mesh* mesh = file != NULL ? cached_mesh(s, file, q) : inline_mesh(r, object, q);
	if (mesh == NULL)
	{
		return kl_null_shape_id;
	}
	kl_shape_id id = kl_create_mesh_shape(body, &with_backend, mesh, scale);
	if (file == NULL)
	{
		kl_mesh_release(mesh); // the shape holds its own reference
	}
	return id;
}

// ---------------------------------------------------------------------------------------------
// The shapes of a body

/// What each shape of a body is created with.
typedef struct shape_context
{
	kl_scene_loader* loader;
	kl_body_id body;
} shape_context;

static bool load_shape(void* context, const cJSON* object)
{
	kl_scene_loader* s = ((shape_context*)context)->loader;
	kl_body_id body = ((shape_context*)context)->body;
	kl_json_reader* r = &s->json;
	int type = 0;
	if (!kl_json_expect_object(r, object) ||
		!kl_json_read_enum(r, object, "type", true, kl_scene_shape_type_name, KL_SHAPE_TYPE_COUNT, "shape type",
						   &type) ||
		!check_shape_keys(r, object, (kl_shape_type)type))
	{
		return false;
	}
	kl_shape_def def;
	if (!read_shape_def(r, object, &def))
	{
		return false;
	}
	kl_shape_id id = kl_null_shape_id;
	switch ((kl_shape_type)type)
	{
		case KL_SHAPE_SPHERE: id = create_sphere(r, body, object, &def); break;
		case KL_SHAPE_BOX: id = create_box(r, body, object, &def); break;
		case KL_SHAPE_CAPSULE: id = create_capsule(r, body, object, &def); break;
		case KL_SHAPE_HULL: id = create_hull(r, body, object, &def); break;
		case KL_SHAPE_MESH: id = create_mesh(s, body, object, &def); break;
		case KL_SHAPE_PLANE: id = create_plane(r, body, object, &def); break;
		case KL_SHAPE_TYPE_COUNT: break;
	}
	if (KL_IS_NULL(id))
	{
		return r->failed ? false : kl_json_fail_api(r, NULL);
	}
	return true;
}

bool kl_scene_load_shapes(kl_scene_loader* s, kl_body_id body, const cJSON* object)
{
	shape_context context = {s, body};
	return kl_json_read_array(&s->json, object, "shapes", load_shape, &context);
}
