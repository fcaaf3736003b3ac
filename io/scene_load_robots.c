// Kollide — the "robots" of JSON scene files: each entry loads a URDF and places it as a robot
// (kollide/urdf.h); its bodies and joints then belong to the world like any others.
// SPDX-License-Identifier: MIT
#include "scene_json.h"
#include "scene_load.h"

#include <math.h>

static const char* const k_robot_keys[] = {"name",		 "urdf",  "package_paths",	 "pose",
										   "fixed_base", "drive", "joint_positions", "self_collision"};
static const char* const k_pose_keys[] = {"position", "orientation"};

static bool read_pose(kl_json_reader* r, const cJSON* object, kl_transform* pose)
{
	const cJSON* item = kl_json_get(object, "pose");
	if (item == NULL)
	{
		return true;
	}
	size_t mark = kl_json_push(r, "pose", 0);
	bool ok = kl_json_expect_object(r, item) && kl_json_check_keys(r, item, k_pose_keys, KL_COUNT_OF(k_pose_keys)) &&
			  kl_json_read_vec3(r, item, "position", false, &pose->p) &&
			  kl_json_read_quat(r, item, "orientation", false, &pose->q);
	kl_json_pop(r, mark);
	return ok;
}

typedef struct robot_entry
{
	char* urdf;
	char* package_paths[KL_URDF_MAX_PACKAGE_PATHS];
	int package_path_count;
	kl_urdf_model* model;
	double* positions;
} robot_entry;

static void free_entry(robot_entry* e)
{
	kl_free(e->urdf);
	for (int i = 0; i < e->package_path_count; ++i)
	{
		kl_free(e->package_paths[i]);
	}
	kl_urdf_model_free(e->model);
	kl_free(e->positions);
}

static bool read_package_paths(kl_scene_loader* s, const cJSON* object, robot_entry* e)
{
	kl_json_reader* r = &s->json;
	const cJSON* array = kl_json_get(object, "package_paths");
	if (array == NULL)
	{
		return true;
	}
	if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) > KL_URDF_MAX_PACKAGE_PATHS)
	{
		return kl_json_fail(r, "package_paths", KL_ERR_PARSE, "expected an array of at most %d folder names",
							KL_URDF_MAX_PACKAGE_PATHS);
	}
	for (const cJSON* item = array->child; item != NULL; item = item->next)
	{
		if (!cJSON_IsString(item))
		{
			return kl_json_fail(r, "package_paths", KL_ERR_PARSE, "expected folder names, got %s",
								kl_json_type_name(item));
		}
		e->package_paths[e->package_path_count] = kl_scene_resolve_path(s, item->valuestring);
		if (e->package_paths[e->package_path_count] == NULL)
		{
			return kl_json_fail_api(r, "package_paths");
		}
		e->package_path_count += 1;
	}
	return true;
}

/// Zero (moved into the limits) for every joint, then the values the object names.
static bool read_positions(kl_json_reader* r, const cJSON* object, robot_entry* e)
{
	const kl_urdf_model* m = e->model;
	e->positions = kl_alloc_zero((size_t)m->joint_count + 1, sizeof(double));
	if (e->positions == NULL)
	{
		return kl_json_fail_api(r, "joint_positions");
	}
	for (int j = 0; j < m->joint_count; ++j)
	{
		const kl_urdf_joint* joint = &m->joints[j];
		e->positions[j] = !joint->has_limit	   ? 0.0
						  : joint->lower > 0.0 ? joint->lower
						  : joint->upper < 0.0 ? joint->upper
											   : 0.0;
	}
	const cJSON* values = kl_json_get(object, "joint_positions");
	if (values == NULL)
	{
		return true;
	}
	size_t mark = kl_json_push(r, "joint_positions", 0);
	bool ok = kl_json_expect_object(r, values);
	for (const cJSON* item = ok ? values->child : NULL; item != NULL && ok; item = item->next)
	{
		int j = kl_urdf_find_joint(m, item->string);
		float value = 0.0f;
		if (j < 0)
		{
			ok = kl_json_fail(r, item->string, KL_ERR_INVALID_ARGUMENT, "robot '%s' has no such joint", m->name);
		}
		else if ((ok = kl_json_to_float(r, item, item->string, &value)))
		{
			e->positions[j] = value;
		}
	}
	kl_json_pop(r, mark);
	return ok;
}

/// Adds the robot's links to the bodies the scene's joints find by name ("ROBOT/LINK").
static bool list_links(kl_scene_loader* s, const kl_robot* robot)
{
	const kl_urdf_model* m = kl_robot_get_model(robot);
	kl_scene_body* bodies = kl_realloc(s->bodies, (size_t)s->body_count + (size_t)m->link_count, sizeof(kl_scene_body));
	if (bodies == NULL)
	{
		return kl_json_fail_api(&s->json, NULL);
	}
	s->bodies = bodies;
	for (int i = 0; i < m->link_count; ++i)
	{
		kl_body_id body = kl_robot_get_body(robot, i);
		s->bodies[s->body_count++] = (kl_scene_body){kl_body_get_name(body), body};
	}
	return true;
}

static bool load_robot(void* context, const cJSON* object)
{
	kl_scene_loader* s = context;
	kl_json_reader* r = &s->json;
	kl_robot_def def = kl_default_robot_def();
	const char* urdf = NULL;
	int drive = def.drive;
	if (!kl_json_expect_object(r, object) || !kl_json_check_keys(r, object, k_robot_keys, KL_COUNT_OF(k_robot_keys)) ||
		!kl_json_read_string(r, object, "name", true, &def.name) ||
		!kl_json_read_string(r, object, "urdf", true, &urdf) || !read_pose(r, object, &def.pose) ||
		!kl_json_read_bool(r, object, "fixed_base", false, &def.fixed_base) ||
		!kl_json_read_bool(r, object, "self_collision", false, &def.self_collision) ||
		!kl_json_read_enum(r, object, "drive", false, kl_scene_robot_drive_name, KL_ROBOT_DRIVE_MOTOR + 1,
						   "robot drive", &drive))
	{
		return false;
	}
	def.drive = (kl_robot_drive)drive;
	robot_entry e = {0};
	bool ok = read_package_paths(s, object, &e);
	e.urdf = ok ? kl_scene_resolve_path(s, urdf) : NULL;
	if (ok && e.urdf == NULL)
	{
		ok = kl_json_fail_api(r, "urdf");
	}
	if (ok)
	{
		kl_urdf_load_options options = kl_default_urdf_load_options();
		options.package_paths = (const char* const*)e.package_paths;
		options.package_path_count = e.package_path_count;
		e.model = kl_urdf_load_file(e.urdf, &options);
		ok = e.model != NULL || kl_json_fail_api(r, "urdf");
	}
	ok = ok && read_positions(r, object, &e);
	if (ok)
	{
		def.joint_positions = e.positions;
		kl_robot* robot = kl_robot_create(s->world, e.model, &def);
		ok = (robot != NULL || kl_json_fail_api(r, NULL)) && list_links(s, robot);
		kl_robot_free(robot); // the bodies and joints stay
	}
	free_entry(&e);
	return ok;
}

bool kl_scene_load_robots(kl_scene_loader* s, const cJSON* root)
{
	return kl_json_read_array(&s->json, root, "robots", load_robot, s);
}
