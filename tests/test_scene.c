// JSON scenes: the example scenes load, save → load is bit-exact, unknown keys warn, bad files
// fail with the JSON path in the message and leave no world behind.
#include <kollide/kollide.h>

#include "body.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "kl_test.h"

#define MESH_FILE KL_ASSETS_DIR "/meshes/l_prism.obj"

// ---------------------------------------------------------------------------------------------
// Helpers

/// Equal bits (floats, vectors, quaternions, matrices: types without padding).
#define assert_same(a, b)                                                  \
	do                                                                     \
	{                                                                      \
		__typeof__(a) x_ = (a);                                            \
		__typeof__(b) y_ = (b);                                            \
		assert_int_equal(sizeof(x_), sizeof(y_));                          \
		assert_memory_equal(&x_, &y_, sizeof(x_));                         \
	} while (0)

static void assert_same_string(const char* a, const char* b)
{
	assert_int_equal(a == NULL, b == NULL);
	if (a != NULL)
	{
		assert_string_equal(a, b);
	}
}

/// The slot a new world gets: the lowest free one. A load that leaked a world would take it.
static int free_world_slot(void)
{
	kl_world_def def = kl_default_world_def();
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	kl_destroy_world(world);
	return world.index1;
}

static kl_body_id body_at(kl_world_id world, int index)
{
	kl_body_id ids[64];
	int count = kl_world_get_bodies(world, ids, 64);
	assert_true(index < count && count <= 64);
	return ids[index];
}

static kl_shape_id shape_at(kl_body_id body, int index)
{
	kl_shape_id ids[16];
	int count = kl_body_get_shapes(body, ids, 16);
	assert_true(index < count && count <= 16);
	return ids[index];
}

typedef struct warnings
{
	int count;
	char text[8][256];
} warnings;

static void collect_warning(const char* message, void* context)
{
	warnings* w = context;
	if (w->count < 8)
	{
		snprintf(w->text[w->count], sizeof(w->text[0]), "%s", message);
	}
	w->count += 1;
}

static bool has_warning(const warnings* w, const char* text)
{
	for (int i = 0; i < w->count && i < 8; ++i)
	{
		if (strcmp(w->text[i], text) == 0)
		{
			return true;
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------
// Example scenes

static kl_world_id load_asset(const char* name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/scenes/%s", KL_ASSETS_DIR, name);
	warnings w = {0};
	kl_scene_load_options options = kl_default_scene_load_options();
	options.warning = collect_warning;
	options.warning_context = &w;
	kl_world_id world = kl_scene_load_file(path, &options);
	if (KL_IS_NULL(world))
	{
		fprintf(stderr, "%s: %s\n", name, kl_last_error());
	}
	assert_true(kl_world_is_valid(world));
	assert_int_equal(w.count, 0); // the examples use only documented keys
	for (int i = 0; i < 10; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	return world;
}

static void test_example_scenes_load(void** state)
{
	(void)state;
	kl_world_id world = load_asset("falling_shapes.json");
	kl_counters c = kl_world_get_counters(world);
	assert_int_equal(c.body_count, 14);
	assert_int_equal(c.shape_count, 21);
	kl_body_id table = kl_world_find_body(world, "table");
	assert_int_equal(kl_body_get_shape_count(table), 5);
	assert_int_equal(kl_shape_get_type(shape_at(kl_world_find_body(world, "gem"), 0)), KL_SHAPE_HULL);
	kl_filter f = kl_shape_get_filter(shape_at(kl_world_find_body(world, "hammer"), 1));
	assert_true(f.category_bits == 2 && f.mask_bits == UINT64_MAX);
	kl_destroy_world(world);

	world = load_asset("tumbling_box.json");
	assert_same(kl_world_get_gravity(world), kl_vec3(0, 0, 0));
	assert_true(kl_body_is_gyroscopic(body_at(world, 0)));
	kl_destroy_world(world);

	world = load_asset("hinge_ball.json");
	assert_int_equal(kl_world_get_joints(world, NULL, 0), 1);
	kl_destroy_world(world);

	// Both prisms name one file: one mesh, shared.
	world = load_asset("mesh_drop.json");
	kl_mesh* a = kl_shape_get_mesh(shape_at(kl_world_find_body(world, "l_prism"), 0));
	kl_mesh* b = kl_shape_get_mesh(shape_at(kl_world_find_body(world, "l_prism_small"), 0));
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_true(kl_mesh_get_info(a).closed);
	assert_same(kl_shape_get_mesh_scale(shape_at(kl_world_find_body(world, "l_prism"), 0)), kl_vec3(0.5f, 0.5f, 1.0f));
	assert_same(kl_shape_get_mesh_scale(shape_at(kl_world_find_body(world, "l_prism_small"), 0)), kl_vec3(0.3f, 0.3f, 0.3f));
	kl_destroy_world(world);
}

/// The scene form the format page documents, verbatim.
static const char* const k_format_example =
	"{\n"
	"  \"world\": {\"gravity\": [0, 0, -9.81]},\n"
	"  \"bodies\": [\n"
	"    {\"name\": \"ground\", \"type\": \"static\",\n"
	"     \"shapes\": [{\"type\": \"box\", \"half_extents\": [20, 20, 0.5], \"position\": [0, 0, -0.5], \"friction\": 0.6}]},\n"
	"    {\"name\": \"ball\", \"type\": \"dynamic\", \"position\": [0, 0, 2], \"orientation\": [1, 0, 0, 0],\n"
	"     \"linear_velocity\": [0, 0, 0], \"angular_velocity\": [0, 0, 0],\n"
	"     \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.25, \"density\": 1000, \"friction\": 0.5, \"restitution\": 0.5}]}\n"
	"  ],\n"
	"  \"joints\": [{\"type\": \"revolute\", \"name\": \"hinge\", \"body_a\": \"ground\", \"body_b\": \"ball\",\n"
	"              \"anchor\": [0, 0, 3], \"axis\": [0, 1, 0]}]\n"
	"}\n";

static void test_issue_example(void** state)
{
	(void)state;
	kl_world_id world = kl_scene_load_string(k_format_example, NULL);
	assert_true(kl_world_is_valid(world));
	assert_same(kl_world_get_gravity(world), kl_vec3(0, 0, -9.81f));

	kl_body_id ground = body_at(world, 0);
	kl_body_id ball = body_at(world, 1);
	assert_string_equal(kl_body_get_name(ground), "ground");
	assert_int_equal(kl_body_get_type(ground), KL_BODY_STATIC);
	kl_shape_id box = shape_at(ground, 0);
	assert_same(kl_shape_get_box_half_extents(box), kl_vec3(20, 20, 0.5f));
	assert_same(kl_shape_get_local_pose(box).p, kl_vec3(0, 0, -0.5f));
	assert_same(kl_shape_get_material(box).friction, 0.6f);

	assert_int_equal(kl_body_get_type(ball), KL_BODY_DYNAMIC);
	assert_same(kl_body_get_position(ball), kl_vec3(0, 0, 2));
	kl_shape_id sphere = shape_at(ball, 0);
	assert_same(kl_shape_get_sphere_radius(sphere), 0.25f);
	kl_material m = kl_shape_get_material(sphere);
	assert_same(m.density, 1000.0f);
	assert_same(m.friction, 0.5f);
	assert_same(m.restitution, 0.5f);

	// World anchor and axis become body frames whose z is the axis.
	kl_joint_id joint;
	assert_int_equal(kl_world_get_joints(world, &joint, 1), 1);
	kl_joint_def jd = kl_joint_get_def(joint);
	assert_int_equal(jd.type, KL_JOINT_REVOLUTE);
	assert_string_equal(jd.name, "hinge");
	assert_true(KL_ID_EQUALS(kl_joint_get_body_a(joint), ground));
	assert_true(KL_ID_EQUALS(kl_joint_get_body_b(joint), ball));
	assert_near(jd.local_frame_a.p.z, 3.0, 1e-6);
	assert_near(jd.local_frame_b.p.z, 1.0, 1e-6);
	vec3s axis = kl_rotate(jd.local_frame_a.q, kl_vec3(0, 0, 1));
	assert_near(axis.x, 0.0, 1e-6);
	assert_near(axis.y, 1.0, 1e-6);
	assert_near(axis.z, 0.0, 1e-6);
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Round trip

/// A world that uses every saved field with values other than the defaults.
static kl_world_id build_rich_world(void)
{
	kl_world_def wd = kl_default_world_def();
	wd.gravity = kl_vec3(0.25f, -0.0f, -9.80665f);
	wd.worker_count = 2;
	wd.contact_hertz = 45.5f;
	wd.contact_damping_ratio = 7.0f;
	wd.max_contact_push_speed = 2.5f;
	wd.joint_hertz = 55.0f;
	wd.joint_damping_ratio = 1.5f;
	wd.restitution_threshold = 0.75f;
	wd.max_linear_speed = KL_MAX_LINEAR_SPEED * 2.0f;
	wd.length_units_per_meter = 2.0f;
	wd.enable_sleep = false;
	wd.enable_continuous = false;
	kl_world_id world = kl_create_world(&wd);
	assert_true(kl_world_is_valid(world));

	kl_body_def bd = kl_default_body_def();
	bd.name = "floor";
	kl_body_id floor = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.name = "floor_plane";
	kl_create_plane_shape(floor, &sd, (kl_plane){kl_vec3(0.0f, 0.6f, 0.8f), -0.125f});
	sd.name = NULL;
	sd.local_pose.p = kl_vec3(0, 0, -1);
	kl_create_box_shape(floor, &sd, kl_vec3(10, 10, 1));

	// A body destroyed again leaves a free slot: saving must not depend on slot numbers.
	kl_body_id doomed = kl_create_body(world, &bd);

	bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.name = "twin"; // shared name: joints must refer to these by index
	bd.position = kl_vec3(1.0f / 3.0f, -2.0f / 7.0f, 5.0f);
	bd.rotation = glms_quat_normalize(kl_quat_wxyz(0.9f, 0.1f, -0.3f, 0.2f));
	bd.linear_velocity = kl_vec3(0.1f, -0.0f, 3.0f);
	bd.angular_velocity = kl_vec3(1.5f, -2.25f, 0.125f);
	bd.linear_damping = 0.05f;
	bd.angular_damping = 0.15f;
	bd.gravity_scale = -0.5f;
	bd.sleep_threshold = 0.2f;
	bd.enable_sleep = false;
	bd.is_bullet = true;
	bd.enable_gyroscopic = false;
	kl_body_id twin1 = kl_create_body(world, &bd);
	sd = kl_default_shape_def();
	sd.name = "ball";
	sd.local_pose = (kl_transform){kl_vec3(0.1f, 0.2f, 0.3f), glms_quat_normalize(kl_quat_wxyz(1, 2, 3, 4))};
	sd.material = (kl_material){1234.5f, 0.33f, 0.66f, 0.01f, 42u};
	sd.filter = (kl_filter){0x8000000000000001ull, 0x00ff00ff00ff00ffull, -3};
	sd.is_sensor = true;
	sd.enable_contact_events = false;
	sd.enable_sensor_events = true;
	kl_create_sphere_shape(twin1, &sd, 0.3f);
	sd = kl_default_shape_def();
	sd.filter = (kl_filter){(1ull << 53), (1ull << 53) + 1, 7};
	kl_create_capsule_shape(twin1, &sd, 0.1f, 0.7f);

	bd.position = kl_vec3(-1, 2, 3);
	bd.fixed_rotation = true;
	bd.is_awake = false;
	bd.is_bullet = false;
	kl_body_id twin2 = kl_create_body(world, &bd);
	vec3s points[] = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}, {{0.2f, 0.2f, 0.2f}}, {{1, 1, 1}}};
	kl_hull* hull = kl_hull_build(points, 6);
	assert_non_null(hull);
	kl_create_hull_shape(twin2, &sd, hull);
	kl_hull_destroy(hull);
	// A custom mass override (set after the shapes).
	kl_mass_data md = {2.5f, kl_vec3(0.1f, 0.0f, -0.1f), glms_mat3_identity()};
	md.inertia.m01 = md.inertia.m10 = 0.125f;
	assert_int_equal(kl_body_set_mass_data(twin2, md), KL_OK);

	bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.name = "mover";
	bd.position = kl_vec3(0, 0, 8);
	bd.linear_velocity = kl_vec3(0, 1, 0);
	bd.angular_velocity = kl_vec3(0, 0, 0.5f);
	kl_body_id mover = kl_create_body(world, &bd);
	kl_mesh* mesh = kl_mesh_load(MESH_FILE, NULL, NULL);
	assert_non_null(mesh);
	sd = kl_default_shape_def();
	kl_create_mesh_shape(mover, &sd, mesh, kl_vec3(0.5f, 2.0f, 1.5f));
	kl_create_mesh_shape(mover, &sd, mesh, kl_vec3(0.25f, 0.25f, 0.25f));
	kl_mesh_release(mesh);

	// A mesh built in memory has no file: it is saved inline.
	bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	kl_body_id unnamed = kl_create_body(world, &bd);
	vec3s octa[] = {{{1, 0, 0}}, {{-1, 0, 0}}, {{0, 1, 0}}, {{0, -1, 0}}, {{0, 0, 1}}, {{0, 0, -1}}};
	int32_t tris[] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
	kl_mesh_def mdef = kl_default_mesh_def();
	mdef.vertices = octa;
	mdef.vertex_count = 6;
	mdef.indices = tris;
	mdef.triangle_count = 8;
	kl_mesh* inline_mesh = kl_mesh_build(&mdef);
	assert_non_null(inline_mesh);
	kl_create_mesh_shape(unnamed, &sd, inline_mesh, kl_vec3(1, 1, 1));
	kl_mesh_release(inline_mesh);
	kl_create_box_shape(unnamed, &sd, kl_vec3(0.1f, 0.2f, 0.3f));

	// A hull with mass of its own, from more points than it keeps (a tilted grid on the faces of a
	// box and points inside): the saved vertices alone must rebuild it with bit-identical mass.
	bd.name = "crate";
	bd.position = kl_vec3(2, -3, 1);
	kl_body_id crate = kl_create_body(world, &bd);
	versors tilt = glms_quatv(0.7f, glms_vec3_normalize(kl_vec3(1, 2, 3)));
	vec3s grid[6 * 16 + 4];
	int grid_count = 0;
	for (int axis = 0; axis < 3; ++axis)
	{
		for (int side = -1; side <= 1; side += 2)
		{
			for (int k = 0; k < 16; ++k)
			{
				float c[3];
				c[axis] = 0.5f * (float)side;
				c[(axis + 1) % 3] = -0.3f + 0.2f * (float)(k % 4);
				c[(axis + 2) % 3] = -0.45f + 0.3f * (float)(k / 4);
				grid[grid_count++] = kl_rotate(tilt, kl_vec3(c[0], c[1], c[2]));
			}
		}
	}
	for (int k = 0; k < 4; ++k)
	{
		grid[grid_count++] = kl_vec3(0.1f * (float)k, -0.05f * (float)k, 0.02f);
	}
	kl_hull* crate_hull = kl_hull_build(grid, grid_count);
	assert_non_null(crate_hull);
	sd = kl_default_shape_def();
	sd.material.density = 700.0f;
	sd.material.rolling_resistance = 0.01f;
	sd.material.spin_resistance = 0.003f;
	kl_create_hull_shape(crate, &sd, crate_hull);
	kl_hull_destroy(crate_hull);

	kl_destroy_body(doomed);

	// One joint of each type, with limits, motors and springs in various states.
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, floor, twin1, kl_vec3(0.5f, 0.25f, 4.0f), kl_vec3(1, 1, 0));
	jd.name = "hinge";
	jd.enable_limit = true;
	jd.lower = -0.5f;
	jd.upper = 1.25f;
	jd.enable_motor = true;
	jd.motor_speed = 2.0f;
	jd.max_motor_force = 15.0f;
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	jd = kl_joint_def_from_world(KL_JOINT_PRISMATIC, twin1, twin2, kl_vec3(0, 1, 4), kl_vec3(0, 0, 1));
	jd.lower = -1.0f; // a disabled limit keeps its bounds
	jd.upper = 1.0f;
	jd.enable_spring = true;
	jd.spring_hertz = 4.0f;
	jd.spring_damping_ratio = 0.3f;
	jd.motor_mode = KL_MOTOR_POSITION;
	jd.motor_target = 0.5f;
	jd.collide_connected = true;
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	jd = kl_joint_def_from_world(KL_JOINT_DISTANCE, twin2, mover, kl_vec3(-1, 2, 3), kl_vec3(0, 0, 1));
	jd.local_frame_b.p = kl_vec3(0.1f, 0.1f, 0.1f);
	jd.length = 5.5f;
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, mover, unnamed, kl_vec3(0, 0, 6), kl_vec3(0, 0, 1));
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, twin1, unnamed, kl_vec3(0, 1, 6), kl_vec3(0, 0, 1));
	jd.enable_limit = true; // swing cone and twist range, an angular motor and a spring
	jd.cone_angle = 0.7f;
	jd.lower = -0.25f;
	jd.upper = 0.5f;
	jd.enable_motor = true;
	jd.max_motor_force = 3.0f;
	jd.motor_angular_velocity = kl_vec3(0.25f, -0.5f, 1.0f);
	jd.enable_spring = true;
	jd.spring_hertz = 2.5f;
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	jd = kl_joint_def_from_world(KL_JOINT_FIXED, floor, unnamed, kl_vec3(0, 0, 1), kl_vec3(0, 0, -1));
	jd.length = 2.0f;
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	jd = kl_joint_def_from_world(KL_JOINT_TARGET, floor, twin2, kl_vec3(1, 1, 1), kl_vec3(0, 0, 1));
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));

	// Moving gives the poses and velocities arbitrary bits.
	for (int i = 0; i < 7; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 3), KL_OK);
	}
	return world;
}

static void compare_world_defs(kl_world_def a, kl_world_def b)
{
	assert_same(a.length_units_per_meter, b.length_units_per_meter);
	assert_same(a.gravity, b.gravity);
	assert_int_equal(a.worker_count, b.worker_count);
	assert_same(a.contact_hertz, b.contact_hertz);
	assert_same(a.contact_damping_ratio, b.contact_damping_ratio);
	assert_same(a.max_contact_push_speed, b.max_contact_push_speed);
	assert_same(a.joint_hertz, b.joint_hertz);
	assert_same(a.joint_damping_ratio, b.joint_damping_ratio);
	assert_same(a.restitution_threshold, b.restitution_threshold);
	assert_same(a.max_linear_speed, b.max_linear_speed);
	assert_int_equal(a.enable_sleep, b.enable_sleep);
	assert_int_equal(a.enable_continuous, b.enable_continuous);
	assert_int_equal(a.use_gpu, b.use_gpu);
}

static void assert_mass_same(kl_mass_data a, kl_mass_data b)
{
	assert_same(a.mass, b.mass);
	assert_same(a.center, b.center);
	assert_same(a.inertia, b.inertia);
}

/// Every bit, mass included: a hull is rebuilt from its saved vertices into the same hull.
static void compare_bodies(kl_body_id x, kl_body_id y)
{
	kl_body_def a = kl_body_get_def(x);
	kl_body_def b = kl_body_get_def(y);
	assert_int_equal(a.type, b.type);
	assert_same(a.position, b.position);
	assert_same(a.rotation, b.rotation);
	assert_same(a.linear_velocity, b.linear_velocity);
	assert_same(a.angular_velocity, b.angular_velocity);
	assert_same(a.linear_damping, b.linear_damping);
	assert_same(a.angular_damping, b.angular_damping);
	assert_same(a.gravity_scale, b.gravity_scale);
	assert_same(a.sleep_threshold, b.sleep_threshold);
	assert_int_equal(a.enable_sleep, b.enable_sleep);
	assert_int_equal(a.is_awake, b.is_awake);
	assert_int_equal(a.fixed_rotation, b.fixed_rotation);
	assert_int_equal(a.is_bullet, b.is_bullet);
	assert_int_equal(a.enable_gyroscopic, b.enable_gyroscopic);
	assert_same_string(a.name, b.name);
	assert_mass_same(kl_body_get_mass_data(x), kl_body_get_mass_data(y));
	assert_same(kl_body_get_mass(x), kl_body_get_mass(y));
	assert_int_equal(kl_get_body(x, NULL)->custom_mass, kl_get_body(y, NULL)->custom_mass);
}

static void compare_geometry(kl_shape_id x, kl_shape_id y)
{
	switch (kl_shape_get_type(x))
	{
		case KL_SHAPE_SPHERE: assert_same(kl_shape_get_sphere_radius(x), kl_shape_get_sphere_radius(y)); break;
		case KL_SHAPE_BOX: assert_same(kl_shape_get_box_half_extents(x), kl_shape_get_box_half_extents(y)); break;
		case KL_SHAPE_CAPSULE:
		{
			float r[2], h[2];
			kl_shape_get_capsule(x, &r[0], &h[0]);
			kl_shape_get_capsule(y, &r[1], &h[1]);
			assert_same(r[0], r[1]);
			assert_same(h[0], h[1]);
			break;
		}
		case KL_SHAPE_HULL:
		{
			const kl_hull* a = kl_shape_get_hull(x);
			const kl_hull* b = kl_shape_get_hull(y);
			// The same hull: vertices in the same order, faces and the triangles the mass comes from.
			int n = kl_hull_vertex_count(a);
			int t = kl_hull_triangle_count(a);
			assert_int_equal(n, kl_hull_vertex_count(b));
			assert_int_equal(kl_hull_face_count(a), kl_hull_face_count(b));
			assert_int_equal(t, kl_hull_triangle_count(b));
			assert_memory_equal(kl_hull_vertices(a), kl_hull_vertices(b), sizeof(vec3s) * (size_t)n);
			assert_memory_equal(kl_hull_triangle_indices(a), kl_hull_triangle_indices(b),
								sizeof(int32_t) * 3 * (size_t)t);
			break;
		}
		case KL_SHAPE_MESH:
		{
			const kl_mesh* a = kl_shape_get_mesh(x);
			const kl_mesh* b = kl_shape_get_mesh(y);
			kl_mesh_info ia = kl_mesh_get_info(a);
			kl_mesh_info ib = kl_mesh_get_info(b);
			assert_int_equal(ia.vertex_count, ib.vertex_count);
			assert_int_equal(ia.triangle_count, ib.triangle_count);
			assert_memory_equal(kl_mesh_vertices(a), kl_mesh_vertices(b), sizeof(vec3s) * (size_t)ia.vertex_count);
			assert_memory_equal(kl_mesh_indices(a), kl_mesh_indices(b), sizeof(int32_t) * 3 * (size_t)ia.triangle_count);
			assert_same(kl_shape_get_mesh_scale(x), kl_shape_get_mesh_scale(y));
			assert_int_equal(kl_mesh_source(a)[0] == '\0', kl_mesh_source(b)[0] == '\0');
			break;
		}
		case KL_SHAPE_PLANE:
			assert_same(kl_shape_get_plane(x).normal, kl_shape_get_plane(y).normal);
			assert_same(kl_shape_get_plane(x).offset, kl_shape_get_plane(y).offset);
			break;
		case KL_SHAPE_TYPE_COUNT: fail();
	}
}

static void compare_shapes(kl_shape_id x, kl_shape_id y)
{
	assert_int_equal(kl_shape_get_type(x), kl_shape_get_type(y));
	kl_shape_def a = kl_shape_get_def(x);
	kl_shape_def b = kl_shape_get_def(y);
	assert_same(a.local_pose.p, b.local_pose.p);
	assert_same(a.local_pose.q, b.local_pose.q);
	assert_same(a.material.density, b.material.density);
	assert_same(a.material.friction, b.material.friction);
	assert_same(a.material.restitution, b.material.restitution);
	assert_same(a.material.rolling_resistance, b.material.rolling_resistance);
	assert_same(a.material.spin_resistance, b.material.spin_resistance);
	assert_int_equal(a.material.user_material_id, b.material.user_material_id);
	assert_true(a.filter.category_bits == b.filter.category_bits);
	assert_true(a.filter.mask_bits == b.filter.mask_bits);
	assert_int_equal(a.filter.group_index, b.filter.group_index);
	assert_int_equal(a.is_sensor, b.is_sensor);
	assert_int_equal(a.enable_contact_events, b.enable_contact_events);
	assert_int_equal(a.enable_sensor_events, b.enable_sensor_events);
	assert_same_string(a.name, b.name);
	assert_mass_same(kl_shape_get_mass_data(x), kl_shape_get_mass_data(y));
	compare_geometry(x, y);
}

/// Position of a body in its world's body list.
static int body_index(kl_world_id world, kl_body_id body)
{
	kl_body_id ids[64];
	int count = kl_world_get_bodies(world, ids, 64);
	for (int i = 0; i < count; ++i)
	{
		if (KL_ID_EQUALS(ids[i], body))
		{
			return i;
		}
	}
	fail();
	return -1;
}

static void compare_joints(kl_world_id wx, kl_joint_id x, kl_world_id wy, kl_joint_id y)
{
	kl_joint_def a = kl_joint_get_def(x);
	kl_joint_def b = kl_joint_get_def(y);
	assert_int_equal(a.type, b.type);
	assert_int_equal(body_index(wx, kl_joint_get_body_a(x)), body_index(wy, kl_joint_get_body_a(y)));
	assert_int_equal(body_index(wx, kl_joint_get_body_b(x)), body_index(wy, kl_joint_get_body_b(y)));
	assert_same(a.local_frame_a.p, b.local_frame_a.p);
	assert_same(a.local_frame_a.q, b.local_frame_a.q);
	assert_same(a.local_frame_b.p, b.local_frame_b.p);
	assert_same(a.local_frame_b.q, b.local_frame_b.q);
	assert_int_equal(a.collide_connected, b.collide_connected);
	assert_int_equal(a.enable_limit, b.enable_limit);
	assert_same(a.lower, b.lower);
	assert_same(a.upper, b.upper);
	assert_same(a.cone_angle, b.cone_angle);
	assert_same(a.motor_angular_velocity, b.motor_angular_velocity);
	assert_int_equal(a.enable_motor, b.enable_motor);
	assert_int_equal(a.motor_mode, b.motor_mode);
	assert_same(a.motor_speed, b.motor_speed);
	assert_same(a.motor_target, b.motor_target);
	assert_same(a.max_motor_force, b.max_motor_force);
	assert_int_equal(a.enable_spring, b.enable_spring);
	assert_same(a.spring_hertz, b.spring_hertz);
	assert_same(a.spring_damping_ratio, b.spring_damping_ratio);
	assert_same(a.length, b.length);
	assert_same_string(a.name, b.name);
}

static void compare_worlds(kl_world_id x, kl_world_id y)
{
	compare_world_defs(kl_world_get_def(x), kl_world_get_def(y));
	kl_body_id bx[64], by[64];
	int count = kl_world_get_bodies(x, bx, 64);
	assert_int_equal(count, kl_world_get_bodies(y, by, 64));
	for (int i = 0; i < count; ++i)
	{
		compare_bodies(bx[i], by[i]);
		kl_shape_id sx[16], sy[16];
		int shapes = kl_body_get_shapes(bx[i], sx, 16);
		assert_int_equal(shapes, kl_body_get_shapes(by[i], sy, 16));
		for (int s = 0; s < shapes; ++s)
		{
			compare_shapes(sx[s], sy[s]);
		}
	}
	kl_joint_id jx[16], jy[16];
	int joints = kl_world_get_joints(x, jx, 16);
	assert_int_equal(joints, kl_world_get_joints(y, jy, 16));
	for (int i = 0; i < joints; ++i)
	{
		compare_joints(x, jx[i], y, jy[i]);
	}
	assert_int_equal(kl_world_hash_transforms(x), kl_world_hash_transforms(y));
}

static kl_world_id reload(const char* text)
{
	warnings w = {0};
	kl_scene_load_options options = kl_default_scene_load_options();
	options.warning = collect_warning;
	options.warning_context = &w;
	kl_world_id world = kl_scene_load_string(text, &options);
	if (KL_IS_NULL(world))
	{
		fprintf(stderr, "reload failed: %s\n", kl_last_error());
	}
	assert_true(kl_world_is_valid(world));
	assert_int_equal(w.count, 0); // the saver writes only keys the loader knows
	return world;
}

/// Saves x, loads the text and compares; returns the copy and (owned) the text.
static kl_world_id save_and_reload(kl_world_id x, char** text)
{
	*text = kl_scene_save_string(x);
	assert_non_null(*text);
	kl_world_id copy = reload(*text);
	compare_worlds(x, copy);
	return copy;
}

static void test_round_trip_is_exact(void** state)
{
	(void)state;
	kl_world_id original = build_rich_world();
	char* first = NULL;
	char* second = NULL;
	char* third = NULL;
	// Exact from the first round trip on, hulls included: their saved vertices rebuild them bit
	// for bit, mass data too.
	kl_world_id copy = save_and_reload(original, &first);
	kl_world_id copy2 = save_and_reload(copy, &second);
	kl_destroy_world(original);
	original = save_and_reload(copy2, &third);
	assert_string_equal(first, second);
	assert_string_equal(second, third);
	free(first);
	free(second);
	free(third);
	kl_destroy_world(original);
	kl_destroy_world(copy);
	kl_destroy_world(copy2);
}

static void test_round_trip_examples_and_file(void** state)
{
	(void)state;
	const char* names[] = {"falling_shapes.json", "hinge_ball.json", "tumbling_box.json", "mesh_drop.json"};
	for (int i = 0; i < 4; ++i)
	{
		kl_world_id world = load_asset(names[i]);
		char path[512];
		snprintf(path, sizeof(path), "%s/round_trip_%d.json", KL_TEST_OUT_DIR, i);
		assert_int_equal(kl_scene_save_file(world, path), KL_OK);
		kl_world_id copy = kl_scene_load_file(path, NULL);
		assert_true(kl_world_is_valid(copy));
		compare_worlds(world, copy);
		char* text = NULL;
		kl_world_id copy2 = save_and_reload(copy, &text);
		free(text);
		kl_destroy_world(world);
		kl_destroy_world(copy);
		kl_destroy_world(copy2);
	}
}

/// x scaled by 2⁻²⁰ until it lies within ±bound: the same significand, so the same digits to format.
static float into_range(float x, float bound)
{
	while (fabsf(x) > bound)
	{
		x *= 0x1p-20f;
	}
	return x;
}

/// Random finite floats (subnormals, huge, -0) survive the shortest-digits formatting: in the
/// gravity scale and dampings, which take any finite value, and in positions and velocities,
/// brought into their valid ranges with the same significands.
static void test_floats_round_trip_bit_exact(void** state)
{
	(void)state;
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	uint32_t seed = 12345u;
	const float specials[] = {-0.0f, FLT_MIN, -FLT_MAX, FLT_MAX, 1.0e-45f, 0.1f, 1.0f / 3.0f, 16777217.0f};
	for (int b = 0; b < 60; ++b)
	{
		float v[6];
		for (int k = 0; k < 6; ++k)
		{
			uint32_t bits;
			do
			{
				seed = seed * 1664525u + 1013904223u;
				bits = seed;
			} while (((bits >> 23) & 0xffu) == 0xffu); // skip Inf and NaN
			memcpy(&v[k], &bits, sizeof(float));
		}
		if (b < 8)
		{
			v[b % 6] = specials[b];
		}
		bd.gravity_scale = v[0];
		bd.linear_damping = fabsf(v[1]);
		bd.angular_damping = fabsf(v[2]);
		bd.sleep_threshold = fabsf(v[3]);
		bd.position = kl_vec3(into_range(v[4], KL_MAX_COORDINATE), into_range(v[5], KL_MAX_COORDINATE),
							  into_range(v[0], KL_MAX_COORDINATE));
		float speed = 0.5f * KL_MAX_LINEAR_SPEED; // each component: the speed stays in range
		bd.linear_velocity = kl_vec3(into_range(v[1], speed), into_range(v[2], speed), into_range(v[3], speed));
		assert_true(kl_body_is_valid(kl_create_body(world, &bd)));
	}
	char* text = NULL;
	kl_world_id copy = save_and_reload(world, &text);
	free(text);
	kl_destroy_world(world);
	kl_destroy_world(copy);
}

// ---------------------------------------------------------------------------------------------
// Options and alternative forms

static void test_unknown_keys_warn(void** state)
{
	(void)state;
	const char* text = "{\"colour\": 1, \"world\": {\"gravity\": [0, 0, -1], \"gravitee\": 2},\n"
					   " \"bodies\": [{\"name\": \"a\"},\n"
					   "  {\"type\": \"dynamic\", \"shapes\": [{\"type\": \"sphere\", \"radius\": 1, \"colour\": \"red\","
					   " \"half_extents\": [1, 1, 1]}]}]}";
	warnings w = {0};
	kl_scene_load_options options = kl_default_scene_load_options();
	options.warning = collect_warning;
	options.warning_context = &w;
	kl_world_id world = kl_scene_load_string(text, &options);
	assert_true(kl_world_is_valid(world));
	assert_int_equal(w.count, 4);
	assert_true(has_warning(&w, "unknown key 'colour' at the top level"));
	assert_true(has_warning(&w, "unknown key 'gravitee' at world"));
	assert_true(has_warning(&w, "unknown key 'colour' at bodies[1].shapes[0]"));
	// A key of another shape type is unknown for this one.
	assert_true(has_warning(&w, "unknown key 'half_extents' at bodies[1].shapes[0]"));
	assert_same(kl_shape_get_sphere_radius(shape_at(body_at(world, 1), 0)), 1.0f);
	kl_destroy_world(world);
}

static void test_forms_and_options(void** state)
{
	(void)state;
	// Masks as hex strings and numbers; inertia as a diagonal; bodies by index; frames given
	// explicitly; a distance joint between two world anchors takes their distance as length.
	const char* text =
		"{\"world\": {\"worker_count\": 1},\n"
		" \"bodies\": [\n"
		"  {\"name\": \"a\", \"type\": \"dynamic\", \"position\": [0, 0, 0],\n"
		"   \"mass\": {\"mass\": 3, \"inertia\": [1, 2, 2.5]},\n"
		"   \"shapes\": [{\"type\": \"box\", \"half_extents\": [1, 1, 1],\n"
		"                \"filter\": {\"category\": \"0x8000000000000000\", \"mask\": 9007199254740992, \"group\": -2}}]},\n"
		"  {\"type\": \"dynamic\", \"position\": [3, 4, 0]},\n"
		"  {\"name\": \"m\", \"type\": \"dynamic\", \"position\": [0, 0, 5],\n"
		"   \"shapes\": [{\"type\": \"mesh\", \"file\": \"l_prism.obj\", \"scale\": 2}]}],\n"
		" \"joints\": [\n"
		"  {\"type\": \"distance\", \"body_a\": 0, \"body_b\": 1, \"anchor_a\": [0, 0, 0], \"anchor_b\": [3, 4, 0]},\n"
		"  {\"type\": \"prismatic\", \"body_a\": \"a\", \"body_b\": 1,\n"
		"   \"frame_a\": {\"position\": [1, 2, 3], \"orientation\": [0, 0, 0, 1]}, \"frame_b\": {}}]}";
	kl_scene_load_options options = kl_default_scene_load_options();
	options.base_dir = KL_ASSETS_DIR "/meshes";
	options.worker_count = 3;
	kl_world_id world = kl_scene_load_string(text, &options);
	if (KL_IS_NULL(world))
	{
		fprintf(stderr, "%s\n", kl_last_error());
	}
	assert_true(kl_world_is_valid(world));
	assert_int_equal(kl_world_get_worker_count(world), 3);
	kl_body_id a = body_at(world, 0);
	kl_filter f = kl_shape_get_filter(shape_at(a, 0));
	assert_true(f.category_bits == 0x8000000000000000ull);
	assert_true(f.mask_bits == (1ull << 53));
	assert_int_equal(f.group_index, -2);
	kl_mass_data md = kl_body_get_mass_data(a);
	assert_same(md.mass, 3.0f);
	assert_same(md.inertia.m11, 2.0f);
	assert_same(md.inertia.m01, 0.0f);
	assert_int_equal(kl_body_get_shape_count(body_at(world, 2)), 1);

	kl_joint_id joints[2];
	assert_int_equal(kl_world_get_joints(world, joints, 2), 2);
	kl_joint_def distance = kl_joint_get_def(joints[0]);
	assert_near(distance.length, 5.0, 1e-6);
	assert_same(distance.local_frame_b.p, kl_vec3(0, 0, 0));
	kl_joint_def prismatic = kl_joint_get_def(joints[1]);
	assert_same(prismatic.local_frame_a.p, kl_vec3(1, 2, 3));
	assert_same(prismatic.local_frame_a.q, kl_quat_wxyz(0, 0, 0, 1));
	assert_true(KL_ID_EQUALS(kl_joint_get_body_b(joints[1]), body_at(world, 1)));
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Failures

typedef struct bad_case
{
	const char* json;
	kl_result code;
	const char* message; ///< must appear in kl_last_error()
} bad_case;

#define SPHERE_BODY(shape) "{\"bodies\": [{\"type\": \"dynamic\", \"shapes\": [" shape "]}]}"
#define TWO_BODIES "\"bodies\": [{\"name\": \"a\"}, {\"name\": \"b\", \"type\": \"dynamic\"}]"

static const bad_case k_bad_cases[] = {
	// Malformed JSON: the line and column of the error.
	{"{\"bodies\": [{\"type\": \"dynamic\"", KL_ERR_PARSE, "JSON syntax error at line 1, column 31: unexpected end of input"},
	{"{\n  \"world\": {\n    \"gravity\": [0, 0 -9.81]\n  }\n}", KL_ERR_PARSE, "line 3, column"},
	{"", KL_ERR_PARSE, "JSON syntax error at line 1, column 1"},
	{"{} trailing", KL_ERR_PARSE, "near 'trailing'"},
	{"[1, 2]", KL_ERR_PARSE, "a scene is a JSON object"},
	// Wrong types and lengths.
	{"{\"world\": {\"gravity\": \"down\"}}", KL_ERR_PARSE, "world.gravity: expected an array of 3 numbers, got a string"},
	{"{\"world\": {\"gravity\": [0, 0]}}", KL_ERR_PARSE, "world.gravity: expected an array of 3 numbers, got 2 elements"},
	{"{\"world\": {\"gravity\": [0, \"x\", 0]}}", KL_ERR_PARSE, "world.gravity[1]: expected a number, got a string"},
	{"{\"world\": {\"enable_sleep\": 1}}", KL_ERR_PARSE, "world.enable_sleep: expected true or false"},
	{"{\"world\": {\"worker_count\": 1.5}}", KL_ERR_INVALID_ARGUMENT, "world.worker_count: expected an integer"},
	{"{\"world\": {\"contact_hertz\": -1}}", KL_ERR_INVALID_ARGUMENT, "world.contact_hertz: must not be negative"},
	{"{\"world\": [], \"bodies\": []}", KL_ERR_PARSE, "world: expected an object, got an array"},
	{"{\"bodies\": {}}", KL_ERR_PARSE, "bodies: expected an array, got an object"},
	{"{\"world\": {}, \"world\": {}}", KL_ERR_PARSE, "world: key appears more than once"},
	{"{\"version\": 2}", KL_ERR_UNSUPPORTED, "version: version 2 is not supported"},
	// Bodies.
	{"{\"bodies\": [{\"type\": \"floating\"}]}", KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].type: unknown body type 'floating' (expected static, kinematic or dynamic)"},
	{"{\"bodies\": [{}, {\"orientation\": [0, 0, 0, 0]}]}", KL_ERR_INVALID_ARGUMENT,
	 "bodies[1].orientation: zero quaternion"},
	{"{\"bodies\": [{\"position\": [1e300, 0, 0]}]}", KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].position[0]: 1e+300 is outside the range of a float"},
	{"{\"bodies\": [{\"linear_damping\": -0.5}]}", KL_ERR_INVALID_ARGUMENT, "bodies[0].linear_damping: must not be negative"},
	{"{\"bodies\": [{\"type\": \"dynamic\", \"mass\": {\"center\": [0, 0, 0]}}]}", KL_ERR_PARSE,
	 "bodies[0].mass.mass: required key is missing"},
	{"{\"bodies\": [{\"type\": \"dynamic\", \"mass\": {\"mass\": 1, \"inertia\": [[1, 0, 0], [0, 1, 0], [0, 0, 5]]}}]}",
	 KL_ERR_INVALID_ARGUMENT, "bodies[0].mass: inertia must be"},
	// Shapes.
	{SPHERE_BODY("{\"type\": \"sphere\"}"), KL_ERR_PARSE, "bodies[0].shapes[0].radius: required key is missing"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1}, {\"type\": \"sphere\", \"radius\": -0.5}"),
	 KL_ERR_INVALID_ARGUMENT, "bodies[0].shapes[1].radius: must be positive (got -0.5)"},
	{SPHERE_BODY("{\"type\": \"cone\", \"radius\": 1}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].type: unknown shape type 'cone' (expected sphere, box, capsule, hull, mesh or plane)"},
	{SPHERE_BODY("{\"radius\": 1}"), KL_ERR_PARSE, "bodies[0].shapes[0].type: required key is missing"},
	{SPHERE_BODY("{\"type\": \"mesh\", \"backend\": \"octree\", \"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "
				 "\"triangles\": [[0, 1, 2]]}"),
	 KL_ERR_INVALID_ARGUMENT, "bodies[0].shapes[0].backend: unknown mesh backend 'octree' (expected bvh or pointshell)"},
	{SPHERE_BODY("{\"type\": \"box\", \"half_extents\": [1, 0, 1]}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].half_extents[1]: must be positive"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1, \"density\": 1e39}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].density: 1e+39 is outside the range of a float"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1, \"orientation\": [0, 0, 0, 0]}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].orientation: zero quaternion"},
	{SPHERE_BODY("{\"type\": \"plane\", \"normal\": [0, 0, 1]}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0]: plane shapes are infinite and belong on static bodies only"},
	{SPHERE_BODY("{\"type\": \"hull\", \"points\": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}"), KL_ERR_DEGENERATE,
	 "bodies[0].shapes[0].points: "},
	{SPHERE_BODY("{\"type\": \"hull\", \"points\": [[0, 0, 0], [1, 0]]}"), KL_ERR_PARSE,
	 "bodies[0].shapes[0].points[1]: expected an array of 3 numbers, got 2 elements"},
	{SPHERE_BODY("{\"type\": \"mesh\", \"file\": \"no_such_mesh.obj\"}"), KL_ERR_IO, "bodies[0].shapes[0].file: "},
	{SPHERE_BODY("{\"type\": \"mesh\"}"), KL_ERR_PARSE, "bodies[0].shapes[0].file: required key is missing"},
	{SPHERE_BODY("{\"type\": \"mesh\", \"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], \"triangles\": [[0, 1, 3]]}"),
	 KL_ERR_INVALID_ARGUMENT, "bodies[0].shapes[0].triangles[0]: expected an integer in [0, 2]"},
	{SPHERE_BODY("{\"type\": \"mesh\", \"file\": \"x.obj\", \"scale\": [1, -1, 1]}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].scale[1]: must be positive"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1, \"filter\": {\"mask\": 1e17}}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].filter.mask: expected an integer in [0, 2^53]"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1, \"filter\": {\"mask\": \"0xZZ\"}}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].filter.mask: '0xZZ' is not a 64-bit unsigned integer"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1, \"filter\": {\"mask\": \"0x1ffffffffffffffff\"}}"),
	 KL_ERR_INVALID_ARGUMENT, "is not a 64-bit unsigned integer"},
	{SPHERE_BODY("{\"type\": \"sphere\", \"radius\": 1, \"material_id\": -1}"), KL_ERR_INVALID_ARGUMENT,
	 "bodies[0].shapes[0].material_id: expected an integer in [0, 4294967295]"},
	// Joints.
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"revolute\", \"body_a\": \"a\", \"body_b\": \"nobody\", \"anchor\": [0, 0, 0]}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0].body_b: no body is named 'nobody'"},
	{"{\"bodies\": [{\"name\": \"twin\"}, {\"name\": \"twin\"}, {\"name\": \"c\"}],"
	 " \"joints\": [{\"type\": \"fixed\", \"body_a\": \"twin\", \"body_b\": \"c\", \"anchor\": [0, 0, 0]}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0].body_a: body name 'twin' is not unique"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"fixed\", \"body_a\": 0, \"body_b\": 2, \"anchor\": [0, 0, 0]}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0].body_b: expected an integer in [0, 1]"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"hinge\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0]}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0].type: unknown joint type 'hinge'"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"fixed\", \"body_a\": \"a\", \"body_b\": \"b\"}]}", KL_ERR_PARSE,
	 "joints[0]: needs \"anchor\""},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"fixed\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0],"
	 " \"frame_a\": {}}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0]: give either anchor/axis"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"revolute\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0],"
	 " \"axis\": [0, 0, 0]}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0].axis: must have a non-zero length"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"revolute\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0],"
	 " \"limit\": {\"lower\": 1, \"upper\": -1}}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0]: joint limits must be finite with lower <= upper"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"spherical\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0],"
	 " \"limit\": {\"lower\": -1, \"upper\": 1, \"cone_angle\": 4}}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0]: spherical joint cone angle 4 must lie in (0, pi]"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"revolute\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0],"
	 " \"motor\": {\"mode\": \"torque\", \"max_force\": 1}}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0].motor.mode: unknown motor mode 'torque' (expected velocity or position)"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"revolute\", \"body_a\": \"a\", \"body_b\": \"a\", \"anchor\": [0, 0, 0]}]}",
	 KL_ERR_INVALID_ARGUMENT, "joints[0]: a joint needs two different bodies"},
	{"{" TWO_BODIES ", \"joints\": [{\"type\": \"revolute\", \"body_a\": \"a\", \"body_b\": \"b\", \"anchor\": [0, 0, 0],"
	 " \"spring\": {\"damping_ratio\": 1}}]}",
	 KL_ERR_PARSE, "joints[0].spring.hertz: required key is missing"},
};

/// A mesh shape's backend (docs/pointshell.md) is read, built for (the mesh gets its point-shell
/// model) and saved; a file named by shapes of both backends gives two meshes, one with the model.
static void test_mesh_backend(void** state)
{
	(void)state;
	const char* text = "{\"bodies\": [\n"
					   "  {\"name\": \"m\", \"type\": \"dynamic\", \"shapes\": [\n"
					   "   {\"type\": \"mesh\", \"file\": \"l_prism.obj\", \"backend\": \"pointshell\"},\n"
					   "   {\"type\": \"mesh\", \"file\": \"l_prism.obj\", \"backend\": \"bvh\"},\n"
					   "   {\"type\": \"mesh\", \"backend\": \"pointshell\", \"vertices\": [[0, 0, 0], [1, 0, 0], [0, 1, 0], "
					   "[0, 0, 1]], \"triangles\": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]}]}]}";
	kl_scene_load_options options = kl_default_scene_load_options();
	options.base_dir = KL_ASSETS_DIR "/meshes";
	kl_world_id world = kl_scene_load_string(text, &options);
	if (KL_IS_NULL(world))
	{
		fprintf(stderr, "%s\n", kl_last_error());
	}
	assert_true(kl_world_is_valid(world));
	kl_body_id m = kl_world_find_body(world, "m");
	const kl_mesh_backend expected[3] = {KL_MESH_BACKEND_POINTSHELL, KL_MESH_BACKEND_BVH, KL_MESH_BACKEND_POINTSHELL};
	for (int i = 0; i < 3; ++i)
	{
		kl_shape_id shape = shape_at(m, i);
		assert_int_equal(kl_shape_get_mesh_backend(shape), expected[i]);
		assert_int_equal(kl_mesh_get_info(kl_shape_get_mesh(shape)).has_pointshell, expected[i] == KL_MESH_BACKEND_POINTSHELL);
	}
	assert_ptr_not_equal(kl_shape_get_mesh(shape_at(m, 0)), kl_shape_get_mesh(shape_at(m, 1)));
	char* saved = kl_scene_save_string(world);
	assert_non_null(saved);
	assert_non_null(strstr(saved, "\"backend\":\t\"pointshell\""));
	assert_null(strstr(saved, "\"bvh\"")); // the default is left out
	kl_world_id again = kl_scene_load_string(saved, &options);
	assert_true(kl_world_is_valid(again));
	kl_body_id m2 = kl_world_find_body(again, "m");
	for (int i = 0; i < 3; ++i)
	{
		assert_int_equal(kl_shape_get_mesh_backend(shape_at(m2, i)), expected[i]);
	}
	char* resaved = kl_scene_save_string(again);
	assert_string_equal(saved, resaved);
	free(saved);
	free(resaved);
	kl_destroy_world(again);
	kl_destroy_world(world);
}

static void test_bad_scenes_fail_cleanly(void** state)
{
	(void)state;
	kl_scene_load_options quiet = kl_default_scene_load_options();
	warnings w = {0};
	quiet.warning = collect_warning;
	quiet.warning_context = &w;
	int free_slot = free_world_slot();
	for (size_t i = 0; i < sizeof(k_bad_cases) / sizeof(k_bad_cases[0]); ++i)
	{
		const bad_case* c = &k_bad_cases[i];
		kl_clear_error();
		kl_world_id world = kl_scene_load_string(c->json, &quiet);
		if (KL_IS_NON_NULL(world) || strstr(kl_last_error(), c->message) == NULL || kl_last_error_code() != c->code)
		{
			fprintf(stderr, "case %zu: %s\n  expected [%s] %s\n  got      [%s] %s\n", i, c->json, kl_result_name(c->code),
						c->message, kl_result_name(kl_last_error_code()), kl_last_error());
			fail();
		}
		assert_int_equal(free_world_slot(), free_slot);
	}
	// With no world alive before, all 128 world slots are free again.
	if (free_slot == 1)
	{
		kl_world_id worlds[128];
		kl_world_def def = kl_default_world_def();
		for (int i = 0; i < 128; ++i)
		{
			worlds[i] = kl_create_world(&def);
			assert_true(kl_world_is_valid(worlds[i]));
		}
		for (int i = 0; i < 128; ++i)
		{
			kl_destroy_world(worlds[i]);
		}
	}
}

static void test_bad_files(void** state)
{
	(void)state;
	int free_slot = free_world_slot();
	assert_true(KL_IS_NULL(kl_scene_load_file(KL_TEST_OUT_DIR "/no/such/scene.json", NULL)));
	assert_int_equal(kl_last_error_code(), KL_ERR_IO);
	assert_non_null(strstr(kl_last_error(), "no/such/scene.json"));

	// Errors in files name the file; a NUL byte is not JSON.
	const char* path = KL_TEST_OUT_DIR "/bad_scene.json";
	FILE* f = fopen(path, "wb");
	assert_non_null(f);
	fputs("{\"bodies\": [{\"type\": \"dynamic\",\n \"shapes\": [{\"type\": \"sphere\", \"radius\": true}]}]}", f);
	fclose(f);
	assert_true(KL_IS_NULL(kl_scene_load_file(path, NULL)));
	assert_non_null(strstr(kl_last_error(), "bad_scene.json: bodies[0].shapes[0].radius: expected a number"));

	f = fopen(path, "wb");
	fwrite("{}\0{}", 1, 5, f);
	fclose(f);
	assert_true(KL_IS_NULL(kl_scene_load_file(path, NULL)));
	assert_int_equal(kl_last_error_code(), KL_ERR_PARSE);
	assert_non_null(strstr(kl_last_error(), "NUL byte at offset 2"));

	// A relative mesh path resolves next to the scene file (here: a copy of the prism).
	FILE* in = fopen(MESH_FILE, "rb");
	assert_non_null(in);
	char mesh_text[4096];
	size_t n = fread(mesh_text, 1, sizeof(mesh_text), in);
	fclose(in);
	f = fopen(KL_TEST_OUT_DIR "/scene_relative_mesh.obj", "wb");
	fwrite(mesh_text, 1, n, f);
	fclose(f);
	f = fopen(path, "wb");
	fputs("{\"bodies\": [{\"type\": \"dynamic\", \"shapes\": [{\"type\": \"mesh\", \"file\": \"scene_relative_mesh.obj\"}]}]}", f);
	fclose(f);
	kl_world_id world = kl_scene_load_file(path, NULL);
	assert_true(kl_world_is_valid(world));
	const char* source = kl_mesh_source(kl_shape_get_mesh(shape_at(body_at(world, 0), 0)));
	assert_int_equal(source[0], '/'); // saved scenes can name it from anywhere
	kl_destroy_world(world);

	assert_int_equal(kl_scene_save_file(kl_null_world_id, path), KL_ERR_INVALID_ID);
	assert_null(kl_scene_save_string(kl_null_world_id));
	assert_int_equal(free_world_slot(), free_slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_scenes_load),
		cmocka_unit_test(test_issue_example),
		cmocka_unit_test(test_round_trip_is_exact),
		cmocka_unit_test(test_round_trip_examples_and_file),
		cmocka_unit_test(test_floats_round_trip_bit_exact),
		cmocka_unit_test(test_unknown_keys_warn),
		cmocka_unit_test(test_forms_and_options),
		cmocka_unit_test(test_mesh_backend),
		cmocka_unit_test(test_bad_scenes_fail_cleanly),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
