// Kollide — JSON scene loading of joints: the bodies they connect (by unique name or index), their
// frames (world anchors or body frames), limits, motors and springs.
// SPDX-License-Identifier: MIT
#include "scene_json.h"
#include "scene_load.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------
// Bodies, by unique name or by index

static int compare_body_names(const void* a, const void* b)
{
	const kl_scene_body* x = *(const kl_scene_body* const*)a;
	const kl_scene_body* y = *(const kl_scene_body* const*)b;
	return strcmp(x->name, y->name);
}

/// Named bodies sorted by name, so that each joint finds its bodies by binary search.
static bool sort_bodies(kl_scene_loader* s)
{
	s->sorted_bodies = kl_alloc((size_t)s->body_count, sizeof(kl_scene_body*));
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
	qsort(s->sorted_bodies, (size_t)s->sorted_count, sizeof(kl_scene_body*), compare_body_names);
	return true;
}

/// Index of the first sorted body named name (or where it would be), and how many share it.
static int count_named(const kl_scene_loader* s, const char* name, int* first)
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
static bool find_body(kl_scene_loader* s, const cJSON* object, const char* key, kl_body_id* out)
{
	kl_json_reader* r = &s->json;
	const cJSON* item = kl_json_get(object, key);
	if (item == NULL)
	{
		return kl_json_missing(r, key);
	}
	if (cJSON_IsNumber(item))
	{
		double index = 0.0;
		if (s->listed_count == 0)
		{
			return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "the scene has no bodies");
		}
		if (!kl_json_to_integer(r, item, key, 0.0, (double)s->listed_count - 1.0, &index))
		{
			return false;
		}
		*out = s->bodies[(int)index].id;
		return true;
	}
	if (!cJSON_IsString(item))
	{
		return kl_json_fail(r, key, KL_ERR_PARSE, "expected a body name or index, got %s", kl_json_type_name(item));
	}
	if (s->sorted_bodies == NULL && !sort_bodies(s))
	{
		return kl_json_fail_api(r, key);
	}
	int first = 0;
	int count = count_named(s, item->valuestring, &first);
	if (count == 0)
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "no body is named '%s'", item->valuestring);
	}
	if (count > 1)
	{
		return kl_json_fail(r, key, KL_ERR_INVALID_ARGUMENT, "body name '%s' is not unique; a joint cannot refer to it",
							item->valuestring);
	}
	*out = s->sorted_bodies[first]->id;
	return true;
}

// ---------------------------------------------------------------------------------------------
// Frames: world anchors and axis, or a frame on each body

static const char* const k_frame_keys[] = {"position", "orientation"};

static bool read_frame(kl_json_reader* r, const cJSON* object, const char* key, kl_transform* frame)
{
	const cJSON* item = kl_json_get(object, key);
	if (item == NULL)
	{
		return true;
	}
	size_t mark = kl_json_push(r, key, 0);
	bool ok = kl_json_expect_object(r, item) && kl_json_check_keys(r, item, k_frame_keys, 2) &&
			  kl_json_read_vec3(r, item, "position", false, &frame->p) &&
			  kl_json_read_quat(r, item, "orientation", false, &frame->q);
	kl_json_pop(r, mark);
	return ok;
}

/// Frames from world anchors: one shared "anchor", or "anchor_a" and "anchor_b"; the frames' z is "axis".
static bool read_world_anchors(kl_json_reader* r, const cJSON* object, kl_joint_def* def)
{
	vec3s anchor = {0};
	vec3s axis = kl_vec3(0.0f, 0.0f, 1.0f);
	bool shared = kl_json_get(object, "anchor") != NULL;
	if (!kl_json_read_vec3(r, object, "anchor", false, &anchor) || !kl_json_read_vec3(r, object, "axis", false, &axis))
	{
		return false;
	}
	vec3s pa = anchor;
	vec3s pb = anchor;
	bool has_a = kl_json_get(object, "anchor_a") != NULL;
	bool has_b = kl_json_get(object, "anchor_b") != NULL;
	if ((!shared && !has_a) || (!shared && !has_b))
	{
		return kl_json_missing(r, has_a || has_b ? (has_a ? "anchor_b" : "anchor_a") : "anchor");
	}
	if (!kl_json_read_vec3(r, object, "anchor_a", false, &pa) || !kl_json_read_vec3(r, object, "anchor_b", false, &pb))
	{
		return false;
	}
	if (!(glms_vec3_norm2(axis) > 1.0e-12f))
	{
		return kl_json_fail(r, "axis", KL_ERR_INVALID_ARGUMENT, "must have a non-zero length");
	}
	def->local_frame_a = kl_joint_def_from_world(def->type, def->body_a, def->body_b, pa, axis).local_frame_a;
	def->local_frame_b = kl_joint_def_from_world(def->type, def->body_a, def->body_b, pb, axis).local_frame_b;
	return true;
}

static bool read_joint_frames(kl_json_reader* r, const cJSON* object, kl_joint_def* def)
{
	bool frames = kl_json_get(object, "frame_a") != NULL || kl_json_get(object, "frame_b") != NULL;
	bool anchors = kl_json_get(object, "anchor") != NULL || kl_json_get(object, "anchor_a") != NULL ||
				   kl_json_get(object, "anchor_b") != NULL || kl_json_get(object, "axis") != NULL;
	if (frames && anchors)
	{
		return kl_json_fail(r, NULL, KL_ERR_INVALID_ARGUMENT,
							"give either anchor/axis (world frame) or frame_a/frame_b (body frames), not both");
	}
	if (!frames && !anchors)
	{
		return kl_json_fail(r, NULL, KL_ERR_PARSE,
							"needs \"anchor\" (world point) or \"frame_a\"/\"frame_b\" (body frames)");
	}
	if (anchors)
	{
		return read_world_anchors(r, object, def);
	}
	return read_frame(r, object, "frame_a", &def->local_frame_a) &&
		   read_frame(r, object, "frame_b", &def->local_frame_b);
}

// ---------------------------------------------------------------------------------------------
// Limits, motors and springs

static const char* const k_limit_keys[] = {"enabled", "lower", "upper", "cone_angle"};
static const char* const k_motor_keys[] = {"enabled", "mode", "speed", "target", "max_force", "angular_velocity"};
static const char* const k_spring_keys[] = {"enabled", "hertz", "damping_ratio"};

/// Opens an optional sub-object such as "limit"; false with *item NULL when it is absent.
static bool open_section(kl_json_reader* r, const cJSON* object, const char* key, const char* const* keys, int count,
						 const cJSON** item, size_t* mark)
{
	*item = kl_json_get(object, key);
	if (*item == NULL)
	{
		return false;
	}
	*mark = kl_json_push(r, key, 0);
	if (!kl_json_expect_object(r, *item) || !kl_json_check_keys(r, *item, keys, count))
	{
		*item = NULL;
	}
	return true;
}

static bool read_limit(kl_json_reader* r, const cJSON* object, kl_joint_def* def)
{
	const cJSON* item = NULL;
	size_t mark = 0;
	if (!open_section(r, object, "limit", k_limit_keys, 4, &item, &mark))
	{
		return true;
	}
	def->enable_limit = true;
	bool ok = item != NULL && kl_json_read_bool(r, item, "enabled", false, &def->enable_limit) &&
			  kl_json_read_float(r, item, "lower", true, &def->lower) &&
			  kl_json_read_float(r, item, "upper", true, &def->upper) &&
			  kl_json_read_float(r, item, "cone_angle", false, &def->cone_angle);
	kl_json_pop(r, mark);
	return ok;
}

static bool read_motor(kl_json_reader* r, const cJSON* object, kl_joint_def* def)
{
	const cJSON* item = NULL;
	size_t mark = 0;
	if (!open_section(r, object, "motor", k_motor_keys, 6, &item, &mark))
	{
		return true;
	}
	def->enable_motor = true;
	int mode = def->motor_mode;
	bool ok = item != NULL && kl_json_read_bool(r, item, "enabled", false, &def->enable_motor) &&
			  kl_json_read_enum(r, item, "mode", false, kl_scene_motor_mode_name, 2, "motor mode", &mode) &&
			  kl_json_read_float(r, item, "speed", false, &def->motor_speed) &&
			  kl_json_read_float(r, item, "target", false, &def->motor_target) &&
			  kl_json_read_non_negative(r, item, "max_force", true, &def->max_motor_force) &&
			  kl_json_read_vec3(r, item, "angular_velocity", false, &def->motor_angular_velocity);
	def->motor_mode = (kl_motor_mode)mode;
	kl_json_pop(r, mark);
	return ok;
}

static bool read_spring(kl_json_reader* r, const cJSON* object, kl_joint_def* def)
{
	const cJSON* item = NULL;
	size_t mark = 0;
	if (!open_section(r, object, "spring", k_spring_keys, 3, &item, &mark))
	{
		return true;
	}
	def->enable_spring = true;
	bool ok = item != NULL && kl_json_read_bool(r, item, "enabled", false, &def->enable_spring) &&
			  kl_json_read_non_negative(r, item, "hertz", true, &def->spring_hertz) &&
			  kl_json_read_non_negative(r, item, "damping_ratio", false, &def->spring_damping_ratio);
	kl_json_pop(r, mark);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Joints

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

static bool read_joint_def(kl_scene_loader* s, const cJSON* object, kl_joint_def* def)
{
	kl_json_reader* r = &s->json;
	int type = 0;
	if (!kl_json_read_enum(r, object, "type", true, kl_scene_joint_type_name, KL_JOINT_TYPE_COUNT, "joint type", &type))
	{
		return false;
	}
	*def = kl_default_joint_def((kl_joint_type)type);
	bool ok = find_body(s, object, "body_a", &def->body_a) && find_body(s, object, "body_b", &def->body_b) &&
			  kl_json_read_string(r, object, "name", false, &def->name) && read_joint_frames(r, object, def) &&
			  kl_json_read_bool(r, object, "collide_connected", false, &def->collide_connected) &&
			  read_limit(r, object, def) && read_motor(r, object, def) && read_spring(r, object, def);
	if (ok && def->type == KL_JOINT_DISTANCE && kl_json_get(object, "length") == NULL)
	{
		def->length = current_length(def);
	}
	return ok && kl_json_read_non_negative(r, object, "length", false, &def->length);
}

static bool load_joint(void* context, const cJSON* object)
{
	kl_scene_loader* s = context;
	kl_json_reader* r = &s->json;
	kl_joint_def def;
	if (!kl_json_expect_object(r, object) || !kl_json_check_keys(r, object, k_joint_keys, KL_COUNT_OF(k_joint_keys)) ||
		!read_joint_def(s, object, &def))
	{
		return false;
	}
	kl_joint_id joint = kl_create_joint(s->world, &def);
	return KL_IS_NON_NULL(joint) || kl_json_fail_api(r, NULL);
}

bool kl_scene_load_joints(kl_scene_loader* s, const cJSON* root)
{
	return kl_json_read_array(&s->json, root, "joints", load_joint, s);
}
