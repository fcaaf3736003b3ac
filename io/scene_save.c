// Kollide — JSON scene saving: the world settings, every body, shape and joint, losslessly.
// SPDX-License-Identifier: MIT

// realpath() is POSIX.1-2008 base, but glibc declares it only for X/Open.
#define _XOPEN_SOURCE 700

#include "core.h"
#include "scene_json.h"

#include <kollide/kollide.h>

#include <cjson/cJSON.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct scene_saver
{
	bool failed; ///< the first failure has been recorded with kl_fail
} scene_saver;

static void fail(scene_saver* w, kl_result code, const char* what)
{
	if (!w->failed)
	{
		kl_fail(code, "scene save: %s", what);
		w->failed = true;
	}
}

/// Shortest decimal that reads back as the same float, read the way the loader reads it (as a
/// double, then rounded). Nine significant digits always suffice; fewer keep files readable:
/// cJSON would print the double's digits, 0.1f as 0.10000000149011612 (exact, but noisy).
static void format_float(float value, char* text, size_t size)
{
	for (int digits = 6; digits <= 9; ++digits)
	{
		snprintf(text, size, "%.*g", digits, (double)value);
		float back = (float)strtod(text, NULL);
		if (memcmp(&back, &value, sizeof(float)) == 0)
		{
			return;
		}
	}
}

static cJSON* float_item(scene_saver* w, float value)
{
	if (!isfinite(value))
	{
		fail(w, KL_ERR_INVALID_ARGUMENT, "the world holds a non-finite value");
		return NULL;
	}
	char text[32];
	format_float(value, text, sizeof(text));
	return cJSON_CreateRaw(text);
}

/// Adds item under key (or to the array when key is NULL); takes ownership of item.
static cJSON* add(scene_saver* w, cJSON* parent, const char* key, cJSON* item)
{
	bool ok = parent != NULL && item != NULL &&
			  (key != NULL ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item));
	if (!ok)
	{
		cJSON_Delete(item);
		fail(w, KL_ERR_OUT_OF_MEMORY, "out of memory");
		return NULL;
	}
	return item;
}

static void add_floats(scene_saver* w, cJSON* parent, const char* key, const float* values, int count)
{
	cJSON* array = add(w, parent, key, cJSON_CreateArray());
	for (int i = 0; i < count && array != NULL; ++i)
	{
		add(w, array, NULL, float_item(w, values[i]));
	}
}

static void add_float(scene_saver* w, cJSON* parent, const char* key, float value)
{
	add(w, parent, key, float_item(w, value));
}

static void add_vec3(scene_saver* w, cJSON* parent, const char* key, vec3s v)
{
	add_floats(w, parent, key, v.raw, 3);
}

/// Quaternions are written [w, x, y, z].
static void add_quat(scene_saver* w, cJSON* parent, const char* key, versors q)
{
	float wxyz[4] = {q.w, q.x, q.y, q.z};
	add_floats(w, parent, key, wxyz, 4);
}

static void add_bool(scene_saver* w, cJSON* parent, const char* key, bool value)
{
	add(w, parent, key, cJSON_CreateBool(value));
}

static void add_string(scene_saver* w, cJSON* parent, const char* key, const char* value)
{
	add(w, parent, key, cJSON_CreateString(value));
}

static void add_integer(scene_saver* w, cJSON* parent, const char* key, long long value)
{
	char text[32];
	snprintf(text, sizeof(text), "%lld", value);
	add(w, parent, key, cJSON_CreateRaw(text));
}

/// Masks above 2^53 would lose bits as JSON numbers (doubles): they are written as hex strings.
static void add_u64(scene_saver* w, cJSON* parent, const char* key, uint64_t value)
{
	char text[32];
	if (value <= (1ull << 53))
	{
		snprintf(text, sizeof(text), "%llu", (unsigned long long)value);
		add(w, parent, key, cJSON_CreateRaw(text));
	}
	else
	{
		snprintf(text, sizeof(text), "0x%016llx", (unsigned long long)value);
		add(w, parent, key, cJSON_CreateString(text));
	}
}

static void add_pose(scene_saver* w, cJSON* parent, kl_transform pose)
{
	add_vec3(w, parent, "position", pose.p);
	add_quat(w, parent, "orientation", pose.q);
}

// ---------------------------------------------------------------------------------------------
// World

static void save_world_def(scene_saver* w, cJSON* root, kl_world_def def)
{
	cJSON* o = add(w, root, "world", cJSON_CreateObject());
	add_float(w, o, "length_units_per_meter", def.length_units_per_meter);
	add_vec3(w, o, "gravity", def.gravity);
	add_integer(w, o, "worker_count", def.worker_count);
	add_float(w, o, "contact_hertz", def.contact_hertz);
	add_float(w, o, "contact_damping_ratio", def.contact_damping_ratio);
	add_float(w, o, "max_contact_push_speed", def.max_contact_push_speed);
	add_float(w, o, "joint_hertz", def.joint_hertz);
	add_float(w, o, "joint_damping_ratio", def.joint_damping_ratio);
	add_float(w, o, "restitution_threshold", def.restitution_threshold);
	add_float(w, o, "max_linear_speed", def.max_linear_speed);
	add_float(w, o, "max_collision_travel", def.max_collision_travel);
	add_bool(w, o, "enable_sleep", def.enable_sleep);
	add_bool(w, o, "enable_continuous", def.enable_continuous);
	add_bool(w, o, "use_gpu", def.use_gpu);
}

// ---------------------------------------------------------------------------------------------
// Shapes

/// An absolute path, so that the scene file can be moved; canonical when the file exists.
static void add_mesh_file(scene_saver* w, cJSON* o, const char* source)
{
	char* canonical = realpath(source, NULL);
	add_string(w, o, "file", canonical != NULL ? canonical : source);
	free(canonical);
}

/// A mesh without a source file is written out: its welded vertices and triangles.
static void add_inline_mesh(scene_saver* w, cJSON* o, const kl_mesh* mesh)
{
	kl_mesh_info info = kl_mesh_get_info(mesh);
	const vec3s* vertices = kl_mesh_vertices(mesh);
	const int32_t* indices = kl_mesh_indices(mesh);
	cJSON* v = add(w, o, "vertices", cJSON_CreateArray());
	for (int i = 0; i < info.vertex_count && v != NULL; ++i)
	{
		add_vec3(w, v, NULL, vertices[i]);
	}
	cJSON* t = add(w, o, "triangles", cJSON_CreateArray());
	for (int i = 0; i < info.triangle_count && t != NULL; ++i)
	{
		cJSON* tri = add(w, t, NULL, cJSON_CreateArray());
		for (int k = 0; k < 3 && tri != NULL; ++k)
		{
			char text[16];
			snprintf(text, sizeof(text), "%d", (int)indices[3 * i + k]);
			add(w, tri, NULL, cJSON_CreateRaw(text));
		}
	}
}

/// The mesh's inner spheres and the shape's contact model, each left out at its default.
static void save_penalty(scene_saver* w, cJSON* o, kl_shape_id id, const kl_mesh* mesh)
{
	kl_shape_def def = kl_shape_get_def(id);
	kl_shape_def defaults = kl_default_shape_def();
	int inner_spheres = kl_mesh_get_info(mesh).inner_spheres;
	if (inner_spheres > 0)
	{
		add_integer(w, o, "inner_spheres", inner_spheres);
	}
	if (def.contact_model != KL_CONTACT_CONSTRAINT)
	{
		add_string(w, o, "contact_model", kl_scene_contact_model_name(def.contact_model));
	}
	if (def.penalty_stiffness != defaults.penalty_stiffness)
	{
		add_float(w, o, "penalty_stiffness", def.penalty_stiffness);
	}
	if (def.penalty_damping_ratio != defaults.penalty_damping_ratio)
	{
		add_float(w, o, "penalty_damping", def.penalty_damping_ratio);
	}
}

static void save_mesh(scene_saver* w, cJSON* o, kl_shape_id id)
{
	const kl_mesh* mesh = kl_shape_get_mesh(id);
	vec3s scale = kl_shape_get_mesh_scale(id);
	const char* source = kl_mesh_source(mesh);
	if (source != NULL && source[0] != '\0')
	{
		add_mesh_file(w, o, source);
	}
	else
	{
		add_inline_mesh(w, o, mesh);
	}
	if (kl_shape_get_mesh_backend(id) != KL_MESH_BACKEND_BVH) // the default, left out
	{
		add_string(w, o, "backend", kl_scene_mesh_backend_name(kl_shape_get_mesh_backend(id)));
	}
	save_penalty(w, o, id, mesh);
	if (scale.x == scale.y && scale.x == scale.z)
	{
		add_float(w, o, "scale", scale.x);
	}
	else
	{
		add_vec3(w, o, "scale", scale);
	}
}

/// The hull's vertices in the hull's own order: kl_hull_build rebuilds a hull from its vertices,
/// in that order, into the same hull bit for bit (mass data included), so load → save → load is
/// exact from the first round trip. Sorting them would hand the builder another input.
static void save_hull(scene_saver* w, cJSON* o, const kl_hull* hull)
{
	int count = kl_hull_vertex_count(hull);
	const vec3s* vertices = kl_hull_vertices(hull);
	cJSON* points = add(w, o, "points", cJSON_CreateArray());
	for (int i = 0; i < count && points != NULL; ++i)
	{
		add_vec3(w, points, NULL, vertices[i]);
	}
}

static void save_geometry(scene_saver* w, cJSON* o, kl_shape_id id, kl_shape_type type)
{
	switch (type)
	{
		case KL_SHAPE_SPHERE: add_float(w, o, "radius", kl_shape_get_sphere_radius(id)); break;
		case KL_SHAPE_BOX: add_vec3(w, o, "half_extents", kl_shape_get_box_half_extents(id)); break;
		case KL_SHAPE_CAPSULE:
		{
			float radius = 0.0f;
			float half_height = 0.0f;
			kl_shape_get_capsule(id, &radius, &half_height);
			add_float(w, o, "radius", radius);
			add_float(w, o, "half_height", half_height);
			break;
		}
		case KL_SHAPE_HULL: save_hull(w, o, kl_shape_get_hull(id)); break;
		case KL_SHAPE_MESH: save_mesh(w, o, id); break;
		case KL_SHAPE_PLANE:
		{
			kl_plane plane = kl_shape_get_plane(id);
			add_vec3(w, o, "normal", plane.normal);
			add_float(w, o, "offset", plane.offset);
			break;
		}
		case KL_SHAPE_TYPE_COUNT: break;
	}
}

static void save_shape(scene_saver* w, cJSON* shapes, kl_shape_id id)
{
	cJSON* o = add(w, shapes, NULL, cJSON_CreateObject());
	kl_shape_type type = kl_shape_get_type(id);
	kl_shape_def def = kl_shape_get_def(id);
	add_string(w, o, "type", kl_scene_shape_type_name(type));
	if (def.name != NULL)
	{
		add_string(w, o, "name", def.name);
	}
	save_geometry(w, o, id, type);
	add_pose(w, o, def.local_pose);
	add_float(w, o, "density", def.material.density);
	add_float(w, o, "friction", def.material.friction);
	add_float(w, o, "restitution", def.material.restitution);
	add_float(w, o, "rolling_resistance", def.material.rolling_resistance);
	add_float(w, o, "spin_resistance", def.material.spin_resistance);
	if (!glms_vec3_eqv(def.material.surface_velocity, glms_vec3_zero()))
	{
		add_vec3(w, o, "surface_velocity", def.material.surface_velocity);
	}
	add_integer(w, o, "material_id", def.material.user_material_id);
	add_bool(w, o, "sensor", def.is_sensor);
	add_bool(w, o, "contact_events", def.enable_contact_events);
	add_bool(w, o, "sensor_events", def.enable_sensor_events);
	cJSON* filter = add(w, o, "filter", cJSON_CreateObject());
	add_u64(w, filter, "category", def.filter.category_bits);
	add_u64(w, filter, "mask", def.filter.mask_bits);
	add_integer(w, filter, "group", def.filter.group_index);
}

// ---------------------------------------------------------------------------------------------
// Bodies

/// Inertia as three rows (cglm matrices are column-major).
static void save_mass(scene_saver* w, cJSON* o, kl_mass_data md)
{
	cJSON* m = add(w, o, "mass", cJSON_CreateObject());
	add_float(w, m, "mass", md.mass);
	add_vec3(w, m, "center", md.center);
	cJSON* rows = add(w, m, "inertia", cJSON_CreateArray());
	for (int r = 0; r < 3 && rows != NULL; ++r)
	{
		float row[3] = {md.inertia.raw[0][r], md.inertia.raw[1][r], md.inertia.raw[2][r]};
		add_floats(w, rows, NULL, row, 3);
	}
}

static void save_body(scene_saver* w, cJSON* bodies, kl_body_id id)
{
	cJSON* o = add(w, bodies, NULL, cJSON_CreateObject());
	kl_body_def def = kl_body_get_def(id);
	if (def.name != NULL)
	{
		add_string(w, o, "name", def.name);
	}
	add_string(w, o, "type", kl_scene_body_type_name(def.type));
	add_vec3(w, o, "position", def.position);
	add_quat(w, o, "orientation", def.rotation);
	add_vec3(w, o, "linear_velocity", def.linear_velocity);
	add_vec3(w, o, "angular_velocity", def.angular_velocity);
	add_float(w, o, "linear_damping", def.linear_damping);
	add_float(w, o, "angular_damping", def.angular_damping);
	add_float(w, o, "gravity_scale", def.gravity_scale);
	add_float(w, o, "sleep_threshold", def.sleep_threshold);
	add_bool(w, o, "enable_sleep", def.enable_sleep);
	if (def.type != KL_BODY_STATIC)
	{
		add_bool(w, o, "awake", def.is_awake); // static bodies are never awake
	}
	add_bool(w, o, "fixed_rotation", def.fixed_rotation);
	add_bool(w, o, "bullet", def.is_bullet);
	add_bool(w, o, "gyroscopic", def.enable_gyroscopic);
	// Only an override is written: mass computed from the shapes is computed again on load.
	if (kl_body_has_custom_mass(id))
	{
		save_mass(w, o, kl_body_get_mass_data(id));
	}
	int count = kl_body_get_shapes(id, NULL, 0);
	kl_shape_id* ids = kl_alloc((size_t)count, sizeof(kl_shape_id));
	cJSON* shapes = add(w, o, "shapes", cJSON_CreateArray());
	if (ids == NULL)
	{
		fail(w, KL_ERR_OUT_OF_MEMORY, "out of memory");
		return;
	}
	kl_body_get_shapes(id, ids, count);
	for (int i = 0; i < count; ++i)
	{
		save_shape(w, shapes, ids[i]);
	}
	kl_free(ids);
}

// ---------------------------------------------------------------------------------------------
// Joints

/// How joints name their bodies: by name where it is unique, else by index in "bodies".
typedef struct body_refs
{
	int* index_of_slot; ///< body slot -> index in the saved "bodies" array
	const char** names; ///< per index; NULL where the name is missing or shared
	int count;
} body_refs;

static int compare_names(const void* a, const void* b)
{
	const char* x = *(const char* const*)a;
	const char* y = *(const char* const*)b;
	return strcmp(x, y);
}

/// Clears the names that several bodies share (sorting finds them in n log n).
static bool drop_shared_names(body_refs* refs)
{
	const char** sorted = kl_alloc((size_t)refs->count, sizeof(const char*));
	if (sorted == NULL)
	{
		return false;
	}
	int n = 0;
	for (int i = 0; i < refs->count; ++i)
	{
		if (refs->names[i] != NULL)
		{
			sorted[n++] = refs->names[i];
		}
	}
	qsort(sorted, (size_t)n, sizeof(const char*), compare_names);
	for (int i = 0; i < refs->count; ++i)
	{
		const char* name = refs->names[i];
		if (name == NULL)
		{
			continue;
		}
		const char** hit = bsearch(&name, sorted, (size_t)n, sizeof(const char*), compare_names);
		bool shared = (hit > sorted && strcmp(hit[-1], name) == 0) ||
					  (hit + 1 < sorted + n && strcmp(hit[1], name) == 0);
		if (shared || name[0] == '\0')
		{
			refs->names[i] = NULL;
		}
	}
	kl_free(sorted);
	return true;
}

static bool build_body_refs(body_refs* refs, const kl_body_id* ids, int count)
{
	int slots = 0;
	for (int i = 0; i < count; ++i)
	{
		slots = ids[i].index1 > slots ? ids[i].index1 : slots;
	}
	refs->count = count;
	refs->index_of_slot = kl_alloc((size_t)slots, sizeof(int));
	refs->names = kl_alloc((size_t)count, sizeof(const char*));
	if (refs->index_of_slot == NULL || refs->names == NULL)
	{
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		refs->index_of_slot[ids[i].index1 - 1] = i;
		refs->names[i] = kl_body_get_def(ids[i]).name;
	}
	return drop_shared_names(refs);
}

static void add_body_ref(scene_saver* w, cJSON* o, const char* key, const body_refs* refs, kl_body_id id)
{
	int index = refs->index_of_slot[id.index1 - 1];
	if (refs->names[index] != NULL)
	{
		add_string(w, o, key, refs->names[index]);
	}
	else
	{
		add_integer(w, o, key, index);
	}
}

static void add_frame(scene_saver* w, cJSON* o, const char* key, kl_transform frame)
{
	add_pose(w, add(w, o, key, cJSON_CreateObject()), frame);
}

/// Limit, motor and spring are written when enabled or when they hold values other than the
/// defaults, with an explicit "enabled" so that a disabled limit keeps its bounds.
static void save_joint_options(scene_saver* w, cJSON* o, const kl_joint_def* def)
{
	kl_joint_def d = kl_default_joint_def(def->type);
	if (def->enable_limit || def->lower != d.lower || def->upper != d.upper || def->cone_angle != d.cone_angle)
	{
		cJSON* limit = add(w, o, "limit", cJSON_CreateObject());
		add_bool(w, limit, "enabled", def->enable_limit);
		add_float(w, limit, "lower", def->lower);
		add_float(w, limit, "upper", def->upper);
		if (def->cone_angle != d.cone_angle)
		{
			add_float(w, limit, "cone_angle", def->cone_angle);
		}
	}
	bool turning = def->motor_angular_velocity.x != 0.0f || def->motor_angular_velocity.y != 0.0f ||
				   def->motor_angular_velocity.z != 0.0f;
	if (def->enable_motor || def->motor_mode != d.motor_mode || def->motor_speed != d.motor_speed ||
		def->motor_target != d.motor_target || def->max_motor_force != d.max_motor_force || turning)
	{
		cJSON* motor = add(w, o, "motor", cJSON_CreateObject());
		add_bool(w, motor, "enabled", def->enable_motor);
		add_string(w, motor, "mode", kl_scene_motor_mode_name(def->motor_mode));
		add_float(w, motor, "speed", def->motor_speed);
		add_float(w, motor, "target", def->motor_target);
		add_float(w, motor, "max_force", def->max_motor_force);
		if (turning)
		{
			add_vec3(w, motor, "angular_velocity", def->motor_angular_velocity);
		}
	}
	if (def->enable_spring || def->spring_hertz != d.spring_hertz ||
		def->spring_damping_ratio != d.spring_damping_ratio)
	{
		cJSON* spring = add(w, o, "spring", cJSON_CreateObject());
		add_bool(w, spring, "enabled", def->enable_spring);
		add_float(w, spring, "hertz", def->spring_hertz);
		add_float(w, spring, "damping_ratio", def->spring_damping_ratio);
	}
	if (def->type == KL_JOINT_DISTANCE || def->length != d.length)
	{
		add_float(w, o, "length", def->length);
	}
}

/// Joints are written with their body frames, not world anchors: exact, whatever the poses.
static void save_joint(scene_saver* w, cJSON* joints, kl_joint_id id, const body_refs* refs)
{
	cJSON* o = add(w, joints, NULL, cJSON_CreateObject());
	kl_joint_def def = kl_joint_get_def(id);
	add_string(w, o, "type", kl_scene_joint_type_name(def.type));
	if (def.name != NULL)
	{
		add_string(w, o, "name", def.name);
	}
	add_body_ref(w, o, "body_a", refs, kl_joint_get_body_a(id));
	add_body_ref(w, o, "body_b", refs, kl_joint_get_body_b(id));
	add_frame(w, o, "frame_a", def.local_frame_a);
	add_frame(w, o, "frame_b", def.local_frame_b);
	add_bool(w, o, "collide_connected", def.collide_connected);
	save_joint_options(w, o, &def);
}

// ---------------------------------------------------------------------------------------------
// Documents

static void save_contents(scene_saver* w, cJSON* root, kl_world_id world, const kl_body_id* bodies, int body_count)
{
	add_integer(w, root, "version", KL_SCENE_VERSION);
	save_world_def(w, root, kl_world_get_def(world));
	cJSON* body_array = add(w, root, "bodies", cJSON_CreateArray());
	for (int i = 0; i < body_count && !w->failed; ++i)
	{
		save_body(w, body_array, bodies[i]);
	}
	int joint_count = kl_world_get_joints(world, NULL, 0);
	if (joint_count == 0 || w->failed)
	{
		return;
	}
	kl_joint_id* joints = kl_alloc((size_t)joint_count, sizeof(kl_joint_id));
	body_refs refs = {0};
	if (joints == NULL || !build_body_refs(&refs, bodies, body_count))
	{
		fail(w, KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	else
	{
		kl_world_get_joints(world, joints, joint_count);
		cJSON* joint_array = add(w, root, "joints", cJSON_CreateArray());
		for (int i = 0; i < joint_count && !w->failed; ++i)
		{
			save_joint(w, joint_array, joints[i], &refs);
		}
	}
	kl_free(refs.index_of_slot);
	kl_free(refs.names);
	kl_free(joints);
}

char* kl_scene_save_string(kl_world_id world)
{
	if (!kl_world_is_valid(world))
	{
		kl_fail(KL_ERR_INVALID_ID, "invalid world id (index1 %u, generation %u)", world.index1, world.generation);
		return NULL;
	}
	scene_saver w = {0};
	int body_count = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* bodies = kl_alloc((size_t)body_count, sizeof(kl_body_id));
	cJSON* root = cJSON_CreateObject();
	if (bodies == NULL || root == NULL)
	{
		fail(&w, KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	else
	{
		kl_world_get_bodies(world, bodies, body_count);
		save_contents(&w, root, world, bodies, body_count);
	}
	kl_free(bodies);
	char* printed = w.failed ? NULL : cJSON_Print(root);
	cJSON_Delete(root);
	if (printed == NULL)
	{
		fail(&w, KL_ERR_OUT_OF_MEMORY, "out of memory");
		return NULL;
	}
	// A copy from malloc with a final newline: the caller frees it with free(), whatever
	// allocator cJSON was set up with.
	size_t length = strlen(printed);
	char* text = malloc(length + 2);
	if (text != NULL)
	{
		memcpy(text, printed, length);
		text[length] = '\n';
		text[length + 1] = '\0';
	}
	else
	{
		fail(&w, KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	cJSON_free(printed);
	return text;
}

kl_result kl_scene_save_file(kl_world_id world, const char* path)
{
	if (path == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "scene path is NULL");
	}
	char* text = kl_scene_save_string(world);
	if (text == NULL)
	{
		return kl_last_error_code();
	}
	FILE* f = fopen(path, "wb");
	if (f == NULL)
	{
		kl_result r = kl_fail(KL_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
		free(text);
		return r;
	}
	size_t length = strlen(text);
	bool ok = fwrite(text, 1, length, f) == length;
	ok = fclose(f) == 0 && ok;
	free(text);
	return ok ? KL_OK : kl_fail(KL_ERR_IO, "%s: write failed", path);
}
