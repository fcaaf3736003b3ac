// Sensor events: a body passing through a sensor gives one begin and one end event, whatever its
// shape (sphere, capsule, box, hull, mesh) and whether the sensor is a box or a mesh, also while it
// lies wholly inside; a sensor reports only with sensor events enabled on its own shape.
#include "kl_test.h"
#include "kl_test_cube.h"

#include <kollide/kollide.h>

#include "demo_mesh_common.h"
#include "meshgen.h"

#define DT (1.0f / 60.0f)
#define STEPS 90

typedef enum visitor_kind
{
	VISITOR_SPHERE,
	VISITOR_CAPSULE,
	VISITOR_BOX,
	VISITOR_HULL,
	VISITOR_MESH,
	VISITOR_COUNT,
} visitor_kind;

static const char* const k_visitor_names[VISITOR_COUNT] = {"sphere", "capsule", "box", "hull", "mesh (torus knot)"};


/// The torus knot of the mesh pile (a 9 mm tube, about 0.25 m across).
static kl_mesh* knot_mesh(void)
{
	kl_meshgen_mesh generated = {0};
	kl_meshgen_torus_knot_params params = kl_demo_pile_knot_params();
	assert_int_equal(kl_meshgen_torus_knot(&params, &generated), KL_OK);
	kl_mesh* mesh = kl_demo_mesh_from_meshgen(&generated, "knot");
	assert_non_null(mesh);
	return mesh;
}

/// A static sensor, 0.6 m cube centred 1 m up: a box shape, or (mesh_sensor) the cube mesh.
static void add_sensor(kl_world_id world, bool mesh_sensor, bool sensor_events, kl_mesh* cube)
{
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_vec3(0.0f, 0.0f, 1.0f);
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.is_sensor = true;
	sd.enable_sensor_events = sensor_events;
	kl_shape_id shape = mesh_sensor ? kl_create_mesh_shape(body, &sd, cube, kl_vec3(0.6f, 0.6f, 0.6f))
									: kl_create_box_shape(body, &sd, kl_vec3(0.3f, 0.3f, 0.3f));
	assert_true(KL_IS_NON_NULL(shape));
}

/// A dynamic body of the kind, 0.1 to 0.2 m across, dropped from 2 m up tilted and turning; its
/// shape has sensor events off (the sensor's own setting decides).
static kl_body_id add_visitor(kl_world_id world, visitor_kind kind, kl_mesh* knot)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.02f, -0.03f, 2.0f);
	bd.rotation = glms_quatv(0.4f, glms_vec3_normalize(kl_vec3(1.0f, 0.5f, 0.0f)));
	bd.angular_velocity = kl_vec3(1.0f, -2.0f, 0.5f);
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id shape = kl_null_shape_id;
	switch (kind)
	{
	case VISITOR_SPHERE: shape = kl_create_sphere_shape(body, &sd, 0.1f); break;
	case VISITOR_CAPSULE: shape = kl_create_capsule_shape(body, &sd, 0.05f, 0.08f); break;
	case VISITOR_BOX: shape = kl_create_box_shape(body, &sd, kl_vec3(0.1f, 0.06f, 0.08f)); break;
	case VISITOR_HULL:
	{
		const vec3s points[5] = {{{0.1f, 0.0f, -0.05f}}, {{-0.05f, 0.09f, -0.05f}}, {{-0.05f, -0.09f, -0.05f}},
								 {{0.0f, 0.0f, 0.1f}},	 {{0.02f, 0.02f, -0.07f}}};
		kl_hull* hull = kl_hull_build(points, 5);
		assert_non_null(hull);
		shape = kl_create_hull_shape(body, &sd, hull);
		kl_hull_destroy(hull);
		break;
	}
	default: shape = kl_create_mesh_shape(body, &sd, knot, kl_vec3(1.0f, 1.0f, 1.0f)); break;
	}
	assert_true(KL_IS_NON_NULL(shape));
	return body;
}

typedef struct pass_events
{
	int begins;
	int ends;
	int first_begin; ///< step of the first begin event, -1 if none
	int last_end;	 ///< step of the last end event, -1 if none
	int inside_steps; ///< steps whose end found the visitor's centre inside the sensor's box
} pass_events;

/// Drops the visitor through the sensor and counts the sensor events of every step.
static pass_events drop_through(visitor_kind kind, bool mesh_sensor, bool sensor_events, kl_mesh* cube, kl_mesh* knot)
{
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	add_sensor(world, mesh_sensor, sensor_events, cube);
	kl_body_id visitor = add_visitor(world, kind, knot);
	pass_events e = {0, 0, -1, -1, 0};
	for (int step = 1; step <= STEPS; ++step)
	{
		assert_int_equal(kl_world_step(world, DT, 4), KL_OK);
		kl_sensor_events events = kl_world_get_sensor_events(world);
		e.begins += events.begin_count;
		e.ends += events.end_count;
		e.first_begin = events.begin_count > 0 && e.first_begin < 0 ? step : e.first_begin;
		e.last_end = events.end_count > 0 ? step : e.last_end;
		vec3s p = kl_body_get_position(visitor);
		e.inside_steps += fabsf(p.x) < 0.3f && fabsf(p.y) < 0.3f && fabsf(p.z - 1.0f) < 0.3f;
	}
	kl_destroy_world(world);
	return e;
}

/// Every kind of visitor falls through a box sensor and through a mesh sensor, at 4.4 m/s as it
/// enters, turning: one begin, then one end, with the visitor's centre inside the sensor for
/// several steps between. Mesh contacts cannot tell this: while the knot lies wholly inside, its
/// vertices are deeper than their depth bound, and from contacts it would end and begin again.
static void test_one_begin_one_end_per_pass(void** state)
{
	(void)state;
	kl_mesh* cube = kl_test_cube_mesh();
	kl_mesh* knot = knot_mesh();
	for (int sensor = 0; sensor < 2; ++sensor)
	{
		for (int kind = 0; kind < VISITOR_COUNT; ++kind)
		{
			pass_events e = drop_through((visitor_kind)kind, sensor == 1, true, cube, knot);
			print_message("%s sensor, %s: %d begin (step %d), %d end (step %d), centre inside for %d steps\n",
						  sensor == 1 ? "mesh" : "box", k_visitor_names[kind], e.begins, e.first_begin, e.ends,
						  e.last_end, e.inside_steps);
			assert_int_equal(e.begins, 1);
			assert_int_equal(e.ends, 1);
			assert_true(e.first_begin < e.last_end);
			assert_true(e.inside_steps >= 3);
		}
	}
	kl_mesh_release(knot);
	kl_mesh_release(cube);
}

/// As in Box3D, sensor events are off by default, also on sensor shapes: a sensor reports its
/// visitors only when its own shape enables them (kl_shape_def.enable_sensor_events).
static void test_sensor_needs_sensor_events(void** state)
{
	(void)state;
	kl_mesh* cube = kl_test_cube_mesh();
	kl_mesh* knot = knot_mesh();
	for (int kind = 0; kind < VISITOR_COUNT; ++kind)
	{
		pass_events e = drop_through((visitor_kind)kind, false, false, cube, knot);
		assert_int_equal(e.begins, 0);
		assert_int_equal(e.ends, 0);
		assert_true(e.inside_steps >= 3); // it did pass through
	}
	kl_mesh_release(knot);
	kl_mesh_release(cube);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_begin_one_end_per_pass),
		cmocka_unit_test(test_sensor_needs_sensor_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
