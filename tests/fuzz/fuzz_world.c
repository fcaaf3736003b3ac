// libFuzzer target: a world built from fuzzed numbers through the public API. The input is a
// program: world settings, then operations (create bodies, shapes of every type, joints of every
// type, with fuzzed definitions; set velocities and poses, apply forces and impulses, change mass,
// type, materials, filters, joint motors, limits and springs; destroy; run queries; step) until 30
// steps have run. Whatever the API accepts must leave every body's position, rotation and
// velocities finite: the target checks them after each operation and each step and aborts with
// the operation that broke them. KL_FUZZ_TRACE=1 in the environment prints the operations as they
// run (to read a reproducer). docs/fuzzing.md says how to run it.
// SPDX-License-Identifier: MIT
#include "fuzz_check.h"

#include <float.h>
#include <string.h>

#define STEPS 30
#define MAX_OPS 256
#define MAX_BODIES 16
#define MAX_SHAPES 32
#define MAX_JOINTS 16

// ---------------------------------------------------------------------------------------------
// Reading the input. Past its end every read gives zeros, so any input is a complete program.

typedef struct reader
{
	const uint8_t* p;
	size_t n;
} reader;

static uint8_t u8(reader* r)
{
	if (r->n == 0)
	{
		return 0;
	}
	r->n -= 1;
	return *r->p++;
}

static uint16_t u16(reader* r)
{
	uint16_t lo = u8(r);
	return (uint16_t)(lo | (uint16_t)u8(r) << 8);
}

static uint32_t u32(reader* r)
{
	uint32_t lo = u16(r);
	return lo | (uint32_t)u16(r) << 16;
}

static uint64_t u64(reader* r)
{
	uint64_t lo = u32(r);
	return lo | (uint64_t)u32(r) << 32;
}

static bool read_flag(reader* r)
{
	return (u8(r) & 1) != 0;
}

static const float k_special[] = {
	0.0f,		 -0.0f,		 1.0f,		 -1.0f,		   0.5f,	 2.0f,		1.0e-3f,  1.0e-6f,
	1.0e-12f,	 1.0e-30f,	 1.0e-38f,	 1.0e-45f,	   1.0e3f,	 1.0e6f,	1.0e9f,	  1.0e12f,
	1.0e18f,	 1.0e30f,	 1.0e38f,	 FLT_MAX,	   -FLT_MAX, FLT_MIN,	-1.0e18f, -1.0e30f,
	3.14159265f, 6.2831853f, 1.5707963f, 1.0f / 60.0f, INFINITY, -INFINITY, NAN,	  -NAN,
};

/// A number: mostly of everyday size (multiples of 1/16 or 1/64), sometimes a value from a table of
/// edges (zero, tiny, huge, the float limits, NaN, infinities), a wide magnitude, or raw bits.
static float read_number(reader* r)
{
	uint8_t kind = u8(r);
	switch (kind & 7)
	{
		case 0:
		case 1:
		case 2: return (float)(int8_t)u8(r) / 16.0f;
		case 3: return (float)(int16_t)u16(r) / 64.0f;
		case 4: return k_special[u8(r) % (sizeof(k_special) / sizeof(k_special[0]))];
		case 5:
		{
			float mantissa = (float)(int16_t)u16(r);
			return ldexpf(mantissa, (int)(int8_t)u8(r) % 128);
		}
		default:
		{
			uint32_t bits = u32(r);
			float f;
			memcpy(&f, &bits, sizeof(f));
			return f;
		}
	}
}

static vec3s read_vec3(reader* r)
{
	float x = read_number(r);
	float y = read_number(r);
	return kl_vec3(x, y, read_number(r));
}

static versors read_quat(reader* r)
{
	if (read_flag(r))
	{
		return glms_quat_identity();
	}
	float w = read_number(r);
	float x = read_number(r);
	float y = read_number(r);
	return kl_quat_wxyz(w, x, y, read_number(r));
}

static kl_transform read_transform(reader* r)
{
	kl_transform t;
	t.p = read_vec3(r);
	t.q = read_quat(r);
	return t;
}

// ---------------------------------------------------------------------------------------------
// Trace

static bool s_trace;

#define TRACE(...)                                                                                                     \
	do                                                                                                                 \
	{                                                                                                                  \
		if (s_trace)                                                                                                   \
		{                                                                                                              \
			fprintf(stderr, __VA_ARGS__);                                                                              \
		}                                                                                                              \
	} while (0)

#define V3(v) (double)(v).x, (double)(v).y, (double)(v).z
#define Q4(q) (double)(q).w, (double)(q).x, (double)(q).y, (double)(q).z
#define V3F "(%.9g, %.9g, %.9g)"
#define Q4F "[w %.9g, %.9g, %.9g, %.9g]"

// ---------------------------------------------------------------------------------------------
// The world under test

typedef struct fuzz_world
{
	kl_world_id world;
	kl_body_id bodies[MAX_BODIES];
	int body_count;
	kl_shape_id shapes[MAX_SHAPES];
	int shape_count;
	kl_joint_id joints[MAX_JOINTS];
	int joint_count;
	int steps;
	int op;
	const char* op_name;
} fuzz_world;

/// Meshes built once: a closed box, and the same box with the point-shell model.
static kl_mesh* s_box_mesh;
static kl_mesh* s_box_mesh_pointshell;

static kl_mesh* build_box_mesh(bool pointshell)
{
	static const float corners[8][3] = {{-0.5f, -0.5f, -0.5f}, {0.5f, -0.5f, -0.5f}, {0.5f, 0.5f, -0.5f},
										{-0.5f, 0.5f, -0.5f},  {-0.5f, -0.5f, 0.5f}, {0.5f, -0.5f, 0.5f},
										{0.5f, 0.5f, 0.5f},	   {-0.5f, 0.5f, 0.5f}};
	static const int32_t triangles[36] = {0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
										  3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
	vec3s vertices[8];
	for (int i = 0; i < 8; ++i)
	{
		vertices[i] = kl_vec3(corners[i][0], corners[i][1], corners[i][2]);
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = 8;
	def.indices = triangles;
	def.triangle_count = 12;
	def.build_pointshell = pointshell;
	kl_mesh* mesh = kl_mesh_build(&def);
	KL_FUZZ_CHECK(mesh != NULL, "the box mesh does not build");
	return mesh;
}

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
	(void)argc;
	(void)argv;
	const char* trace = getenv("KL_FUZZ_TRACE");
	s_trace = trace != NULL && trace[0] != '\0' && strcmp(trace, "0") != 0;
	s_box_mesh = build_box_mesh(false);
	s_box_mesh_pointshell = build_box_mesh(true);
	return 0;
}

static bool vec3_finite(vec3s v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/// Every body's pose and velocities must be finite after whatever the API accepted.
static void check_bodies(const fuzz_world* w)
{
	kl_body_id ids[MAX_BODIES];
	int count = kl_world_get_bodies(w->world, ids, MAX_BODIES);
	KL_FUZZ_CHECK(count >= 0 && count <= w->body_count, "the world reports %d bodies, %d were created", count,
				  w->body_count);
	for (int i = 0; i < count; ++i)
	{
		int index = -1;
		for (int j = 0; j < w->body_count; ++j)
		{
			if (memcmp(&w->bodies[j], &ids[i], sizeof(kl_body_id)) == 0)
			{
				index = j;
			}
		}
		kl_transform t = kl_body_get_transform(ids[i]);
		vec3s v = kl_body_get_linear_velocity(ids[i]);
		vec3s omega = kl_body_get_angular_velocity(ids[i]);
		bool rotation = isfinite(t.q.x) && isfinite(t.q.y) && isfinite(t.q.z) && isfinite(t.q.w);
		if (!vec3_finite(t.p) || !rotation || !vec3_finite(v) || !vec3_finite(omega))
		{
			kl_fuzz_fail(__FILE__, __LINE__,
						 "body %d (%s) after operation %d (%s), %d steps run: position " V3F ", rotation " Q4F
						 ", linear velocity " V3F ", angular velocity " V3F,
						 index,
						 !vec3_finite(t.p) ? "position"
						 : !rotation	   ? "rotation"
										   : "velocity",
						 w->op, w->op_name, w->steps, V3(t.p), Q4(t.q), V3(v), V3(omega));
		}
	}
}

static kl_body_id pick_body(reader* r, const fuzz_world* w, int* index)
{
	// One past the last is the null id: the API must refuse it.
	int i = u8(r) % (w->body_count + 1);
	*index = i < w->body_count ? i : -1;
	return i < w->body_count ? w->bodies[i] : kl_null_body_id;
}

static kl_shape_id pick_shape(reader* r, const fuzz_world* w)
{
	int i = u8(r) % (w->shape_count + 1);
	return i < w->shape_count ? w->shapes[i] : kl_null_shape_id;
}

static kl_joint_id pick_joint(reader* r, const fuzz_world* w)
{
	int i = u8(r) % (w->joint_count + 1);
	return i < w->joint_count ? w->joints[i] : kl_null_joint_id;
}

static const char* result_name(kl_result result)
{
	return kl_result_name(result);
}

// ---------------------------------------------------------------------------------------------
// Creation

static void create_world(reader* r, fuzz_world* w)
{
	kl_world_def def = kl_default_world_def();
	if (read_flag(r))
	{
		def.gravity = read_vec3(r);
	}
	if (read_flag(r))
	{
		def.contact_hertz = read_number(r);
		def.contact_damping_ratio = read_number(r);
		def.max_contact_push_speed = read_number(r);
		def.joint_hertz = read_number(r);
		def.joint_damping_ratio = read_number(r);
	}
	if (read_flag(r))
	{
		def.restitution_threshold = read_number(r);
		def.hit_event_threshold = read_number(r);
		def.max_linear_speed = read_number(r);
		def.max_collision_travel = read_number(r);
	}
	uint8_t flags = u8(r);
	def.enable_sleep = (flags & 1) != 0;
	def.enable_continuous = (flags & 2) != 0;
	def.worker_count = 1; // deterministic, and no threads to start per input
	w->world = kl_create_world(&def);
	TRACE("world: gravity " V3F ", contact %.9g Hz ζ %.9g push %.9g, joint %.9g Hz ζ %.9g, restitution threshold "
		  "%.9g, hit threshold %.9g, max speed %.9g, max travel %.9g, sleep %d, continuous %d -> %s\n",
		  V3(def.gravity), (double)def.contact_hertz, (double)def.contact_damping_ratio,
		  (double)def.max_contact_push_speed, (double)def.joint_hertz, (double)def.joint_damping_ratio,
		  (double)def.restitution_threshold, (double)def.hit_event_threshold, (double)def.max_linear_speed,
		  (double)def.max_collision_travel, def.enable_sleep, def.enable_continuous,
		  KL_IS_NULL(w->world) ? "refused" : "ok");
}

static void create_body(reader* r, fuzz_world* w)
{
	kl_body_def def = kl_default_body_def();
	def.type = (kl_body_type)(u8(r) % (KL_BODY_TYPE_COUNT + 1));
	def.position = read_vec3(r);
	def.rotation = read_quat(r);
	def.linear_velocity = read_vec3(r);
	def.angular_velocity = read_vec3(r);
	if (read_flag(r))
	{
		def.linear_damping = read_number(r);
		def.angular_damping = read_number(r);
		def.gravity_scale = read_number(r);
		def.sleep_threshold = read_number(r);
	}
	uint8_t flags = u8(r);
	def.enable_sleep = (flags & 1) != 0;
	def.is_awake = (flags & 2) == 0;
	def.fixed_rotation = (flags & 4) != 0;
	def.is_bullet = (flags & 8) != 0;
	def.enable_gyroscopic = (flags & 16) == 0;
	def.name = (flags & 32) != 0 ? "body" : NULL;
	kl_body_id id = w->body_count < MAX_BODIES ? kl_create_body(w->world, &def) : kl_null_body_id;
	TRACE("create body %d: type %d, position " V3F ", rotation " Q4F ", v " V3F ", ω " V3F
		  ", damping %.9g %.9g, gravity scale %.9g, sleep threshold %.9g, flags 0x%02x -> %s\n",
		  w->body_count, (int)def.type, V3(def.position), Q4(def.rotation), V3(def.linear_velocity),
		  V3(def.angular_velocity), (double)def.linear_damping, (double)def.angular_damping, (double)def.gravity_scale,
		  (double)def.sleep_threshold, flags, KL_IS_NULL(id) ? "refused" : "ok");
	if (KL_IS_NON_NULL(id))
	{
		w->bodies[w->body_count++] = id;
	}
}

static kl_material material(reader* r)
{
	kl_material m = kl_default_material();
	if (read_flag(r))
	{
		m.density = read_number(r);
		m.friction = read_number(r);
		m.restitution = read_number(r);
		m.rolling_resistance = read_number(r);
		m.spin_resistance = read_number(r);
		m.user_material_id = u8(r);
	}
	return m;
}

static kl_filter filter(reader* r)
{
	kl_filter f = kl_default_filter();
	if (read_flag(r))
	{
		f.category_bits = u64(r);
		f.mask_bits = u64(r);
		f.group_index = (int8_t)u8(r);
	}
	return f;
}

static kl_shape_def shape_def(reader* r)
{
	kl_shape_def def = kl_default_shape_def();
	if (read_flag(r))
	{
		def.local_pose = read_transform(r);
	}
	def.material = material(r);
	def.filter = filter(r);
	uint8_t flags = u8(r);
	def.is_sensor = (flags & 1) != 0;
	def.enable_contact_events = (flags & 2) != 0;
	def.enable_sensor_events = (flags & 4) != 0;
	def.enable_hit_events = (flags & 8) != 0;
	def.mesh_backend = (kl_mesh_backend)((flags >> 4) % 3); // 2 is no backend: refused
	def.name = (flags & 64) != 0 ? "shape" : NULL;
	return def;
}

/// A small triangle soup from the input, built with or without the point-shell model; NULL when the
/// build refuses it.
static kl_mesh* fuzzed_mesh(reader* r)
{
	vec3s vertices[8];
	int32_t indices[3 * 8];
	int vertex_count = 3 + u8(r) % 6;
	int triangle_count = 1 + u8(r) % 8;
	for (int i = 0; i < vertex_count; ++i)
	{
		vertices[i] = read_vec3(r);
	}
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		indices[i] = u8(r) % vertex_count;
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = vertex_count;
	def.indices = indices;
	def.triangle_count = triangle_count;
	def.weld_tolerance = read_flag(r) ? read_number(r) : 0.0f;
	def.build_pointshell = read_flag(r);
	kl_mesh* mesh = kl_mesh_build(&def);
	TRACE("  mesh: %d vertices, %d triangles, weld %.9g, point shell %d -> %s\n", vertex_count, triangle_count,
		  (double)def.weld_tolerance, def.build_pointshell, mesh != NULL ? "ok" : "refused");
	return mesh;
}

static void create_shape(reader* r, fuzz_world* w)
{
	int body_index;
	kl_body_id body = pick_body(r, w, &body_index);
	kl_shape_type type = (kl_shape_type)(u8(r) % KL_SHAPE_TYPE_COUNT);
	kl_shape_def def = shape_def(r);
	kl_shape_id id = kl_null_shape_id;
	if (w->shape_count >= MAX_SHAPES)
	{
		return;
	}
	TRACE("create shape %d on body %d: pose " V3F " " Q4F ", density %.9g, friction %.9g, restitution %.9g, "
		  "rolling %.9g, spin %.9g, filter %016llx/%016llx/%d, sensor %d, backend %d\n",
		  w->shape_count, body_index, V3(def.local_pose.p), Q4(def.local_pose.q), (double)def.material.density,
		  (double)def.material.friction, (double)def.material.restitution, (double)def.material.rolling_resistance,
		  (double)def.material.spin_resistance, (unsigned long long)def.filter.category_bits,
		  (unsigned long long)def.filter.mask_bits, (int)def.filter.group_index, def.is_sensor, (int)def.mesh_backend);
	switch (type)
	{
		case KL_SHAPE_SPHERE:
		{
			float radius = read_number(r);
			id = kl_create_sphere_shape(body, &def, radius);
			TRACE("  sphere radius %.9g", (double)radius);
			break;
		}
		case KL_SHAPE_BOX:
		{
			vec3s half = read_vec3(r);
			id = kl_create_box_shape(body, &def, half);
			TRACE("  box half extents " V3F, V3(half));
			break;
		}
		case KL_SHAPE_CAPSULE:
		{
			float radius = read_number(r);
			float half_height = read_number(r);
			id = kl_create_capsule_shape(body, &def, radius, half_height);
			TRACE("  capsule radius %.9g, half height %.9g", (double)radius, (double)half_height);
			break;
		}
		case KL_SHAPE_HULL:
		{
			vec3s points[12];
			int count = 1 + u8(r) % 12;
			TRACE("  hull of %d points:", count);
			for (int i = 0; i < count; ++i)
			{
				points[i] = read_vec3(r);
				TRACE(" " V3F, V3(points[i]));
			}
			kl_hull* hull = kl_hull_build(points, count);
			if (hull != NULL)
			{
				id = kl_create_hull_shape(body, &def, hull);
				kl_hull_destroy(hull);
			}
			else
			{
				TRACE(" (no hull)");
			}
			break;
		}
		case KL_SHAPE_MESH:
		{
			uint8_t which = u8(r) % 3;
			vec3s scale = read_flag(r) ? read_vec3(r) : kl_vec3(1.0f, 1.0f, 1.0f);
			TRACE("  mesh %s, scale " V3F "\n",
				  which == 0   ? "box"
				  : which == 1 ? "box with point shell"
							   : "from the input",
				  V3(scale));
			kl_mesh* mesh = which == 0	 ? kl_mesh_retain(s_box_mesh)
							: which == 1 ? kl_mesh_retain(s_box_mesh_pointshell)
										 : fuzzed_mesh(r);
			if (mesh != NULL)
			{
				id = kl_create_mesh_shape(body, &def, mesh, scale);
				kl_mesh_release(mesh);
			}
			break;
		}
		default:
		{
			kl_plane plane;
			plane.normal = read_vec3(r);
			plane.offset = read_number(r);
			id = kl_create_plane_shape(body, &def, plane);
			TRACE("  plane normal " V3F ", offset %.9g", V3(plane.normal), (double)plane.offset);
			break;
		}
	}
	TRACE(" -> %s\n", KL_IS_NULL(id) ? "refused" : "ok");
	if (KL_IS_NON_NULL(id))
	{
		w->shapes[w->shape_count++] = id;
	}
}

static void create_joint(reader* r, fuzz_world* w)
{
	// One past the last type is no type: refused.
	int type = u8(r) % (KL_JOINT_TYPE_COUNT + 1);
	int a_index, b_index;
	kl_body_id a = pick_body(r, w, &a_index);
	kl_body_id b = pick_body(r, w, &b_index);
	kl_joint_type known = (kl_joint_type)(type % KL_JOINT_TYPE_COUNT);
	kl_joint_def def;
	if (read_flag(r))
	{
		vec3s anchor = read_vec3(r);
		vec3s axis = read_vec3(r);
		def = kl_joint_def_from_world(known, a, b, anchor, axis);
		TRACE("create joint %d, type %d, bodies %d %d, from world anchor " V3F ", axis " V3F "\n", w->joint_count, type,
			  a_index, b_index, V3(anchor), V3(axis));
	}
	else
	{
		def = kl_default_joint_def(known);
		def.body_a = a;
		def.body_b = b;
		def.local_frame_a = read_transform(r);
		def.local_frame_b = read_transform(r);
		TRACE("create joint %d, type %d, bodies %d %d, frames " V3F " " Q4F ", " V3F " " Q4F "\n", w->joint_count, type,
			  a_index, b_index, V3(def.local_frame_a.p), Q4(def.local_frame_a.q), V3(def.local_frame_b.p),
			  Q4(def.local_frame_b.q));
	}
	def.type = (kl_joint_type)type;
	uint8_t flags = u8(r);
	def.collide_connected = (flags & 1) != 0;
	if ((flags & 2) != 0)
	{
		def.enable_limit = true;
		def.lower = read_number(r);
		def.upper = read_number(r);
		def.cone_angle = read_number(r);
		TRACE("  limit [%.9g, %.9g], cone %.9g\n", (double)def.lower, (double)def.upper, (double)def.cone_angle);
	}
	if ((flags & 4) != 0)
	{
		def.enable_motor = true;
		def.motor_mode = (kl_motor_mode)(u8(r) % 3); // 2 is no mode: refused
		def.motor_speed = read_number(r);
		def.motor_target = read_number(r);
		def.max_motor_force = read_number(r);
		def.motor_angular_velocity = read_vec3(r);
		TRACE("  motor mode %d, speed %.9g, target %.9g, max force %.9g, ω " V3F "\n", (int)def.motor_mode,
			  (double)def.motor_speed, (double)def.motor_target, (double)def.max_motor_force,
			  V3(def.motor_angular_velocity));
	}
	if ((flags & 8) != 0)
	{
		def.enable_spring = true;
		def.spring_hertz = read_number(r);
		def.spring_damping_ratio = read_number(r);
		TRACE("  spring %.9g Hz, ζ %.9g\n", (double)def.spring_hertz, (double)def.spring_damping_ratio);
	}
	if ((flags & 16) != 0)
	{
		def.length = read_number(r);
		TRACE("  length %.9g\n", (double)def.length);
	}
	kl_joint_id id = w->joint_count < MAX_JOINTS ? kl_create_joint(w->world, &def) : kl_null_joint_id;
	TRACE("  -> %s\n", KL_IS_NULL(id) ? "refused" : "ok");
	if (KL_IS_NON_NULL(id))
	{
		w->joints[w->joint_count++] = id;
	}
}

// ---------------------------------------------------------------------------------------------
// Changes

static void change_body(reader* r, fuzz_world* w)
{
	int index;
	kl_body_id body = pick_body(r, w, &index);
	uint8_t what = u8(r) % 18;
	kl_result result = KL_OK;
	switch (what)
	{
		case 0:
		{
			vec3s v = read_vec3(r);
			result = kl_body_set_linear_velocity(body, v);
			TRACE("body %d: set linear velocity " V3F, index, V3(v));
			break;
		}
		case 1:
		{
			vec3s omega = read_vec3(r);
			result = kl_body_set_angular_velocity(body, omega);
			TRACE("body %d: set angular velocity " V3F, index, V3(omega));
			break;
		}
		case 2:
		{
			vec3s force = read_vec3(r);
			vec3s point = read_vec3(r);
			bool wake = read_flag(r);
			result = kl_body_apply_force(body, force, point, wake);
			TRACE("body %d: apply force " V3F " at " V3F ", wake %d", index, V3(force), V3(point), wake);
			break;
		}
		case 3:
		{
			vec3s force = read_vec3(r);
			result = kl_body_apply_force_to_center(body, force, true);
			TRACE("body %d: apply force " V3F " to the centre", index, V3(force));
			break;
		}
		case 4:
		{
			vec3s torque = read_vec3(r);
			result = kl_body_apply_torque(body, torque, true);
			TRACE("body %d: apply torque " V3F, index, V3(torque));
			break;
		}
		case 5:
		{
			vec3s impulse = read_vec3(r);
			vec3s point = read_vec3(r);
			result = kl_body_apply_linear_impulse(body, impulse, point, true);
			TRACE("body %d: apply linear impulse " V3F " at " V3F, index, V3(impulse), V3(point));
			break;
		}
		case 6:
		{
			vec3s impulse = read_vec3(r);
			result = kl_body_apply_angular_impulse(body, impulse, true);
			TRACE("body %d: apply angular impulse " V3F, index, V3(impulse));
			break;
		}
		case 7:
		{
			kl_transform t = read_transform(r);
			result = kl_body_set_transform(body, t.p, t.q);
			TRACE("body %d: set transform " V3F " " Q4F, index, V3(t.p), Q4(t.q));
			break;
		}
		case 8:
		{
			kl_transform t = read_transform(r);
			float dt = read_number(r);
			result = kl_body_set_target_transform(body, t, dt);
			TRACE("body %d: set target transform " V3F " " Q4F " in %.9g s", index, V3(t.p), Q4(t.q), (double)dt);
			break;
		}
		case 9:
		{
			kl_body_type type = (kl_body_type)(u8(r) % (KL_BODY_TYPE_COUNT + 1));
			result = kl_body_set_type(body, type);
			TRACE("body %d: set type %d", index, (int)type);
			break;
		}
		case 10:
		{
			kl_mass_data md;
			md.mass = read_number(r);
			md.center = read_vec3(r);
			md.inertia = glms_mat3_zero();
			md.inertia.m00 = read_number(r);
			md.inertia.m11 = read_number(r);
			md.inertia.m22 = read_number(r);
			if (read_flag(r))
			{
				md.inertia.m01 = md.inertia.m10 = read_number(r);
				md.inertia.m02 = md.inertia.m20 = read_number(r);
				md.inertia.m12 = md.inertia.m21 = read_number(r);
			}
			result = kl_body_set_mass_data(body, md);
			TRACE("body %d: set mass %.9g, centre " V3F ", inertia [%.9g %.9g %.9g; %.9g %.9g %.9g]", index,
				  (double)md.mass, V3(md.center), (double)md.inertia.m00, (double)md.inertia.m11,
				  (double)md.inertia.m22, (double)md.inertia.m01, (double)md.inertia.m02, (double)md.inertia.m12);
			break;
		}
		case 11:
			result = kl_body_apply_mass_from_shapes(body);
			TRACE("body %d: mass from shapes", index);
			break;
		case 12:
		{
			float damping = read_number(r);
			result = kl_body_set_linear_damping(body, damping);
			TRACE("body %d: set linear damping %.9g", index, (double)damping);
			break;
		}
		case 13:
		{
			float damping = read_number(r);
			result = kl_body_set_angular_damping(body, damping);
			TRACE("body %d: set angular damping %.9g", index, (double)damping);
			break;
		}
		case 14:
		{
			float scale = read_number(r);
			result = kl_body_set_gravity_scale(body, scale);
			TRACE("body %d: set gravity scale %.9g", index, (double)scale);
			break;
		}
		case 15:
		{
			bool awake = read_flag(r);
			result = kl_body_set_awake(body, awake);
			TRACE("body %d: set awake %d", index, awake);
			break;
		}
		case 16:
			result = kl_body_clear_forces(body);
			TRACE("body %d: clear forces", index);
			break;
		default:
			result = kl_destroy_body(body);
			TRACE("body %d: destroy", index);
			break;
	}
	TRACE(" -> %s\n", result_name(result));
}

static void change_shape(reader* r, fuzz_world* w)
{
	kl_shape_id shape = pick_shape(r, w);
	uint8_t what = u8(r) % 4;
	kl_result result;
	switch (what)
	{
		case 0:
		{
			kl_material m = material(r);
			result = kl_shape_set_material(shape, m);
			TRACE("shape: set material density %.9g, friction %.9g, restitution %.9g, rolling %.9g, spin %.9g",
				  (double)m.density, (double)m.friction, (double)m.restitution, (double)m.rolling_resistance,
				  (double)m.spin_resistance);
			break;
		}
		case 1:
		{
			kl_filter f = filter(r);
			result = kl_shape_set_filter(shape, f);
			TRACE("shape: set filter %016llx/%016llx/%d", (unsigned long long)f.category_bits,
				  (unsigned long long)f.mask_bits, (int)f.group_index);
			break;
		}
		case 2:
		{
			kl_mesh_backend backend = (kl_mesh_backend)(u8(r) % 3);
			result = kl_shape_set_mesh_backend(shape, backend);
			TRACE("shape: set mesh backend %d", (int)backend);
			break;
		}
		default:
			result = kl_destroy_shape(shape);
			TRACE("shape: destroy");
			break;
	}
	TRACE(" -> %s\n", result_name(result));
}

static void change_joint(reader* r, fuzz_world* w)
{
	kl_joint_id joint = pick_joint(r, w);
	uint8_t what = u8(r) % 12;
	kl_result result;
	switch (what)
	{
		case 0:
		{
			bool enable = read_flag(r);
			result = kl_joint_enable_motor(joint, enable);
			TRACE("joint: enable motor %d", enable);
			break;
		}
		case 1:
		{
			float speed = read_number(r);
			result = kl_joint_set_motor_speed(joint, speed);
			TRACE("joint: motor speed %.9g", (double)speed);
			break;
		}
		case 2:
		{
			float target = read_number(r);
			result = kl_joint_set_motor_target(joint, target);
			TRACE("joint: motor target %.9g", (double)target);
			break;
		}
		case 3:
		{
			float force = read_number(r);
			result = kl_joint_set_max_motor_force(joint, force);
			TRACE("joint: max motor force %.9g", (double)force);
			break;
		}
		case 4:
		{
			vec3s omega = read_vec3(r);
			result = kl_joint_set_motor_angular_velocity(joint, omega);
			TRACE("joint: motor angular velocity " V3F, V3(omega));
			break;
		}
		case 5:
		{
			bool enable = read_flag(r);
			result = kl_joint_enable_limit(joint, enable);
			TRACE("joint: enable limit %d", enable);
			break;
		}
		case 6:
		{
			float lower = read_number(r);
			float upper = read_number(r);
			result = kl_joint_set_limits(joint, lower, upper);
			TRACE("joint: limits [%.9g, %.9g]", (double)lower, (double)upper);
			break;
		}
		case 7:
		{
			float angle = read_number(r);
			result = kl_joint_set_cone_angle(joint, angle);
			TRACE("joint: cone angle %.9g", (double)angle);
			break;
		}
		case 8:
		{
			bool enable = read_flag(r);
			result = kl_joint_enable_spring(joint, enable);
			TRACE("joint: enable spring %d", enable);
			break;
		}
		case 9:
		{
			float hertz = read_number(r);
			float ratio = read_number(r);
			result = kl_joint_set_spring(joint, hertz, ratio);
			TRACE("joint: spring %.9g Hz, ζ %.9g", (double)hertz, (double)ratio);
			break;
		}
		case 10:
		{
			vec3s target = read_vec3(r);
			result = kl_joint_set_target(joint, target);
			TRACE("joint: target " V3F, V3(target));
			break;
		}
		default:
			result = kl_destroy_joint(joint);
			TRACE("joint: destroy");
			break;
	}
	TRACE(" -> %s\n", result_name(result));
}

static float ignore_cast(kl_shape_id shape, vec3s point, vec3s normal, float fraction, void* context)
{
	(void)shape;
	(void)point;
	(void)normal;
	(void)context;
	return fraction;
}

static bool ignore_overlap(kl_shape_id shape, void* context)
{
	(void)shape;
	(void)context;
	return true;
}

/// Queries change nothing; they must not crash on what the input makes of the world.
static void query(reader* r, fuzz_world* w)
{
	uint8_t what = u8(r) % 4;
	vec3s origin = read_vec3(r);
	vec3s translation = read_vec3(r);
	kl_filter f = kl_default_filter();
	switch (what)
	{
		case 0:
		{
			kl_ray_hit hit;
			bool found = kl_world_cast_ray(w->world, origin, translation, f, &hit);
			TRACE("cast ray from " V3F " by " V3F " -> %s\n", V3(origin), V3(translation), found ? "hit" : "none");
			break;
		}
		case 1:
		{
			kl_aabb box = {origin, glms_vec3_add(origin, translation)};
			kl_result result = kl_world_overlap_aabb(w->world, box, f, ignore_overlap, NULL);
			TRACE("overlap box " V3F " to " V3F " -> %s\n", V3(box.lower), V3(box.upper), result_name(result));
			break;
		}
		default:
		{
			float radius = read_number(r);
			kl_shape_proxy proxy =
				what == 2 ? kl_make_sphere_proxy(radius) : kl_make_box_proxy(kl_vec3(radius, radius, radius));
			kl_transform start = {origin, read_quat(r)};
			kl_result result = kl_world_cast_shape(w->world, &proxy, start, translation, f, ignore_cast, NULL);
			TRACE("cast %s %.9g from " V3F " by " V3F " -> %s\n", what == 2 ? "sphere" : "box", (double)radius,
				  V3(origin), V3(translation), result_name(result));
			result = kl_world_overlap_shape(w->world, &proxy, start, f, ignore_overlap, NULL);
			TRACE("  overlap -> %s\n", result_name(result));
			break;
		}
	}
}

static void world_setting(reader* r, fuzz_world* w)
{
	if (read_flag(r))
	{
		vec3s gravity = read_vec3(r);
		kl_result result = kl_world_set_gravity(w->world, gravity);
		TRACE("world: gravity " V3F " -> %s\n", V3(gravity), result_name(result));
	}
	else
	{
		float threshold = read_number(r);
		kl_result result = kl_world_set_hit_event_threshold(w->world, threshold);
		TRACE("world: hit event threshold %.9g -> %s\n", (double)threshold, result_name(result));
	}
}

static void step(reader* r, fuzz_world* w, bool custom)
{
	float dt = 1.0f / 60.0f;
	int substeps = 4;
	if (custom)
	{
		dt = read_number(r);
		substeps = u8(r) % 70; // past 64, and 0: refused
	}
	kl_result result = kl_world_step(w->world, dt, substeps);
	w->steps += 1;
	TRACE("step %d: dt %.9g, %d sub-steps -> %s\n", w->steps, (double)dt, substeps, result_name(result));
}

// ---------------------------------------------------------------------------------------------

typedef enum op_kind
{
	OP_BODY,
	OP_SHAPE,
	OP_SHAPE_AGAIN, ///< shapes are the most varied: twice the weight
	OP_JOINT,
	OP_CHANGE_BODY,
	OP_CHANGE_BODY_AGAIN,
	OP_CHANGE_SHAPE,
	OP_CHANGE_JOINT,
	OP_QUERY,
	OP_WORLD,
	OP_STEP,
	OP_STEP_CUSTOM,
	OP_COUNT
} op_kind;

static const char* const k_op_names[OP_COUNT] = {
	"create body",	"create shape", "create shape", "create joint",	 "change body", "change body",
	"change shape", "change joint", "query",		"world setting", "step",		"step (custom)",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	reader r = {data, size};
	fuzz_world w;
	memset(&w, 0, sizeof(w));
	w.op_name = "create world";
	create_world(&r, &w);
	if (KL_IS_NULL(w.world))
	{
		return 0;
	}
	// Operations until the input runs out, then plain steps; 30 steps in all.
	for (int op = 1; op <= MAX_OPS + STEPS && w.steps < STEPS; ++op)
	{
		op_kind kind = r.n > 0 && op <= MAX_OPS ? (op_kind)(u8(&r) % OP_COUNT) : OP_STEP;
		w.op = op;
		w.op_name = k_op_names[kind];
		switch (kind)
		{
			case OP_BODY: create_body(&r, &w); break;
			case OP_SHAPE:
			case OP_SHAPE_AGAIN: create_shape(&r, &w); break;
			case OP_JOINT: create_joint(&r, &w); break;
			case OP_CHANGE_BODY:
			case OP_CHANGE_BODY_AGAIN: change_body(&r, &w); break;
			case OP_CHANGE_SHAPE: change_shape(&r, &w); break;
			case OP_CHANGE_JOINT: change_joint(&r, &w); break;
			case OP_QUERY: query(&r, &w); break;
			case OP_WORLD: world_setting(&r, &w); break;
			case OP_STEP: step(&r, &w, false); break;
			default: step(&r, &w, true); break;
		}
		check_bodies(&w);
	}
	kl_destroy_world(w.world);
	return 0;
}
