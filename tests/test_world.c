// World, body, shape and joint API: ids, validation of bad input, and a world that stays usable.
#include <kollide/kollide.h>

#include <pthread.h>
#include <string.h>
#include "kl_test.h"

static kl_world_id make_world(void)
{
	kl_world_def def = kl_default_world_def();
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static kl_body_id make_dynamic(kl_world_id world, vec3s p)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = p;
	return kl_create_body(world, &bd);
}

static void expect_error(kl_result code)
{
	assert_int_equal(kl_last_error_code(), code);
	assert_true(strlen(kl_last_error()) > 0);
	kl_clear_error();
}

static void test_stale_and_foreign_ids(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_dynamic(world, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id shape = kl_create_sphere_shape(body, &sd, 0.5f);
	assert_true(kl_shape_is_valid(shape));
	assert_int_equal(kl_destroy_body(body), KL_OK);
	assert_false(kl_body_is_valid(body));
	assert_false(kl_shape_is_valid(shape)); // destroyed with its body

	// The slot is reused with a new generation: the old id stays invalid.
	kl_body_id again = make_dynamic(world, kl_vec3(1, 0, 0));
	assert_int_equal(again.index1, body.index1);
	assert_int_not_equal(again.generation, body.generation);
	assert_int_equal(kl_body_set_linear_velocity(body, kl_vec3(1, 0, 0)), KL_ERR_INVALID_ID);
	expect_error(KL_ERR_INVALID_ID);
	assert_int_equal(kl_destroy_body(body), KL_ERR_INVALID_ID);
	assert_int_equal(kl_destroy_shape(shape), KL_ERR_INVALID_ID);
	kl_clear_error();
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, 1.0f)));
	expect_error(KL_ERR_INVALID_ID);

	// Null ids and ids from nowhere.
	assert_false(kl_body_is_valid(kl_null_body_id));
	assert_int_equal(kl_destroy_body(kl_null_body_id), KL_ERR_INVALID_ID);
	kl_body_id bogus = {123456, 77, 3};
	assert_int_equal(kl_body_set_awake(bogus, true), KL_ERR_INVALID_ID);
	kl_clear_error();

	// Ids of a destroyed world.
	kl_world_id other = make_world();
	kl_body_id ob = make_dynamic(other, kl_vec3(0, 0, 0));
	kl_destroy_world(other);
	assert_false(kl_world_is_valid(other));
	assert_false(kl_body_is_valid(ob));
	assert_int_equal(kl_world_step(other, 0.01f, 1), KL_ERR_INVALID_ID);
	assert_int_equal(kl_destroy_world(other), KL_ERR_INVALID_ID);
	kl_clear_error();

	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	assert_int_equal(kl_world_get_bodies(world, NULL, 0), 1);
	kl_destroy_world(world);
}

static void test_nan_and_bad_sizes_rejected(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_dynamic(world, kl_vec3(0, 0, 5));
	kl_shape_def sd = kl_default_shape_def();
	kl_create_box_shape(body, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	uint32_t before = kl_world_hash_transforms(world);
	float mass_before = kl_body_get_mass(body);

	assert_int_equal(kl_body_set_transform(body, kl_vec3(NAN, 0, 0), glms_quat_identity()), KL_ERR_INVALID_ARGUMENT);
	expect_error(KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_set_transform(body, kl_vec3(0, 0, 0), kl_quat_wxyz(0, 0, 0, 0)), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_set_transform(body, kl_vec3(0, 0, 0), kl_quat_wxyz(INFINITY, 0, 0, 0)), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_set_linear_velocity(body, kl_vec3(0, INFINITY, 0)), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_apply_force(body, kl_vec3(1, 0, 0), kl_vec3(NAN, 0, 0), true), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_apply_torque(body, kl_vec3(NAN, 0, 0), true), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_set_linear_damping(body, -1.0f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_set_gravity_scale(body, NAN), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_set_type(body, (kl_body_type)42), KL_ERR_INVALID_ARGUMENT);

	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, 0.0f)));
	expect_error(KL_ERR_INVALID_ARGUMENT);
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, -1.0f)));
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, NAN)));
	assert_true(KL_IS_NULL(kl_create_box_shape(body, &sd, kl_vec3(1, 0, 1))));
	assert_true(KL_IS_NULL(kl_create_capsule_shape(body, &sd, 0.5f, -0.1f)));
	assert_true(KL_IS_NULL(kl_create_hull_shape(body, &sd, NULL)));
	assert_true(KL_IS_NULL(kl_create_mesh_shape(body, &sd, NULL, kl_vec3(1, 1, 1))));
	kl_shape_def bad = sd;
	bad.material.density = -5.0f;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	bad = sd;
	bad.material.rolling_resistance = -0.01f;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	bad = sd;
	bad.material.spin_resistance = -0.01f;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	bad.material.spin_resistance = NAN;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	bad.material.spin_resistance = INFINITY;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	expect_error(KL_ERR_INVALID_ARGUMENT);
	bad = sd;
	bad.local_pose.p.x = NAN;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	bad = sd;
	bad.local_pose.q = kl_quat_wxyz(0, 0, 0, 0);
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &bad, 1.0f)));
	// A plane belongs on static bodies only.
	kl_plane plane = {kl_vec3(0, 0, 1), 0.0f};
	assert_true(KL_IS_NULL(kl_create_plane_shape(body, &sd, plane)));
	expect_error(KL_ERR_INVALID_ARGUMENT);

	// Zero or negative mass overrides, broken inertia.
	kl_mass_data md = kl_body_get_mass_data(body);
	md.mass = 0.0f;
	assert_int_equal(kl_body_set_mass_data(body, md), KL_ERR_INVALID_ARGUMENT);
	md.mass = -2.0f;
	assert_int_equal(kl_body_set_mass_data(body, md), KL_ERR_INVALID_ARGUMENT);
	md = kl_body_get_mass_data(body);
	md.inertia.m00 = -1.0f;
	assert_int_equal(kl_body_set_mass_data(body, md), KL_ERR_INVALID_ARGUMENT);
	md = kl_body_get_mass_data(body);
	md.inertia.m00 = 100.0f * (md.inertia.m11 + md.inertia.m22); // violates the triangle inequality
	assert_int_equal(kl_body_set_mass_data(body, md), KL_ERR_INVALID_ARGUMENT);
	kl_clear_error();

	// Bad body definitions.
	kl_body_def bd = kl_default_body_def();
	bd.position.z = INFINITY;
	assert_true(KL_IS_NULL(kl_create_body(world, &bd)));
	bd = kl_default_body_def();
	bd.rotation = kl_quat_wxyz(0, 0, 0, 0);
	assert_true(KL_IS_NULL(kl_create_body(world, &bd)));
	assert_true(KL_IS_NULL(kl_create_body(world, NULL)));
	kl_clear_error();

	// Bad steps.
	assert_int_equal(kl_world_step(world, NAN, 4), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_step(world, -0.1f, 4), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_step(world, 0.01f, 0), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_set_gravity(world, kl_vec3(0, NAN, 0)), KL_ERR_INVALID_ARGUMENT);
	kl_clear_error();

	// Nothing changed, and the world still steps.
	assert_int_equal(kl_world_hash_transforms(world), before);
	assert_float_equal(kl_body_get_mass(body), mass_before, 0.0f);
	assert_int_equal(kl_body_get_shape_count(body), 1);
	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	assert_true(kl_body_get_position(body).z < 5.0f);
	kl_destroy_world(world);
}

static void test_quaternion_normalised(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_def bd = kl_default_body_def();
	bd.rotation = kl_quat_wxyz(2.0f, 0.0f, 0.0f, 0.0f);
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(kl_body_is_valid(body));
	assert_float_equal(kl_body_get_rotation(body).w, 1.0f, 1.0e-7f);
	kl_destroy_world(world);
}

static void test_compound_mass(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_dynamic(world, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	// Two unit cubes side by side = one 2x1x1 box centred between them.
	sd.local_pose.p = kl_vec3(-0.5f, 0, 0);
	kl_shape_id a = kl_create_box_shape(body, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	sd.local_pose.p = kl_vec3(0.5f, 0, 0);
	kl_create_box_shape(body, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_mass_data md = kl_body_get_mass_data(body);
	kl_mass_data ref = kl_compute_box_mass(kl_vec3(1.0f, 0.5f, 0.5f), 1000.0f);
	assert_float_equal(md.mass, ref.mass, 1.0e-2f);
	assert_float_equal(md.center.x, 0.0f, 1.0e-6f);
	assert_float_equal(md.inertia.m00, ref.inertia.m00, 1.0e-2f);
	assert_float_equal(md.inertia.m11, ref.inertia.m11, 1.0e-2f);
	assert_float_equal(md.inertia.m22, ref.inertia.m22, 1.0e-2f);
	// Removing one shape moves the centre of mass onto the other.
	assert_int_equal(kl_destroy_shape(a), KL_OK);
	md = kl_body_get_mass_data(body);
	assert_float_equal(md.mass, 1000.0f, 1.0e-2f);
	assert_float_equal(md.center.x, 0.5f, 1.0e-6f);
	assert_float_equal(kl_body_get_world_center_of_mass(body).x, 0.5f, 1.0e-6f);
	// A dynamic body without mass still falls, with a documented default of 1 kg.
	kl_body_id empty = make_dynamic(world, kl_vec3(0, 0, 0));
	assert_float_equal(kl_body_get_mass(empty), 1.0f, 0.0f);
	// A custom mass survives until kl_body_apply_mass_from_shapes.
	kl_mass_data custom = kl_compute_sphere_mass(1.0f, 10.0f);
	assert_int_equal(kl_body_set_mass_data(body, custom), KL_OK);
	assert_float_equal(kl_body_get_mass(body), custom.mass, 1.0e-4f);
	assert_int_equal(kl_body_apply_mass_from_shapes(body), KL_OK);
	assert_float_equal(kl_body_get_mass(body), 1000.0f, 1.0e-2f);
	kl_destroy_world(world);
}

static void test_joints_declared(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_def bd = kl_default_body_def();
	kl_body_id ground = kl_create_body(world, &bd);
	kl_body_id ball = make_dynamic(world, kl_vec3(0, 0, 2));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, ground, ball, kl_vec3(0, 0, 3), kl_vec3(0, 1, 0));
	jd.enable_limit = true;
	jd.lower = -1.0f;
	jd.upper = 1.0f;
	kl_joint_id joint = kl_create_joint(world, &jd);
	assert_true(kl_joint_is_valid(joint));
	assert_int_equal(kl_body_get_joint_count(ball), 1);
	// The frames share the world anchor and map local z onto the axis.
	kl_joint_def got = kl_joint_get_def(joint);
	vec3s anchor_b = kl_transform_point(kl_body_get_transform(ball), got.local_frame_b.p);
	assert_float_equal(anchor_b.z, 3.0f, 1.0e-6f);
	vec3s axis = kl_rotate(got.local_frame_a.q, kl_vec3(0, 0, 1));
	assert_float_equal(axis.y, 1.0f, 1.0e-6f);

	kl_joint_def self = jd;
	self.body_b = ground;
	assert_true(KL_IS_NULL(kl_create_joint(world, &self)));
	expect_error(KL_ERR_INVALID_ARGUMENT);
	kl_joint_def inverted = jd;
	inverted.lower = 2.0f;
	assert_true(KL_IS_NULL(kl_create_joint(world, &inverted)));
	kl_joint_def bad_type = jd;
	bad_type.type = (kl_joint_type)99;
	assert_true(KL_IS_NULL(kl_create_joint(world, &bad_type)));
	kl_clear_error();

	// Destroying a body removes its joints.
	assert_int_equal(kl_destroy_body(ball), KL_OK);
	assert_false(kl_joint_is_valid(joint));
	assert_int_equal(kl_world_get_joints(world, NULL, 0), 0);
	kl_destroy_world(world);
}

/// The ground's touching contacts, each checked to name live shapes.
static int ground_contacts(kl_body_id ground)
{
	kl_contact_data data[64];
	int n = kl_body_get_contact_data(ground, data, 64);
	assert_true(n <= 64);
	for (int i = 0; i < n; ++i)
	{
		assert_true(kl_shape_is_valid(data[i].shape_a));
		assert_true(kl_shape_is_valid(data[i].shape_b));
	}
	return n;
}

// Shapes destroyed between steps lose their contacts at once, and only theirs; the contacts are
// found through an index by shape, built on the first destruction after a step, which must also
// serve a shape slot freed and reused before the next step, and a shape made after the step.
static void test_destroy_between_steps(void** state)
{
	(void)state;
	kl_world_def def = kl_default_world_def();
	def.enable_sleep = false;
	kl_world_id world = kl_create_world(&def);
	kl_body_def gd = kl_default_body_def();
	gd.position = kl_vec3(0, 0, -1);
	kl_body_id ground = kl_create_body(world, &gd);
	kl_shape_def sd = kl_default_shape_def();
	kl_create_box_shape(ground, &sd, kl_vec3(20, 20, 1));
	kl_body_id boxes[36];
	kl_shape_id shapes[36];
	for (int i = 0; i < 36; ++i)
	{
		// Two layers of 18 boxes 1.5 m apart: each bottom box touches the ground and its top box.
		boxes[i] = make_dynamic(world, kl_vec3(1.5f * (float)(i % 18) - 12.0f, 0, i < 18 ? 0.5f : 1.5f));
		shapes[i] = kl_create_box_shape(boxes[i], &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	}
	for (int s = 0; s < 30; ++s)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_int_equal(ground_contacts(ground), 18);
	assert_int_equal(kl_body_get_contact_data(boxes[20], NULL, 0), 1); // on boxes[2]

	// Every third bottom box goes; its top box loses its support contact, the ground one contact.
	for (int i = 0; i < 18; i += 3)
	{
		assert_int_equal(kl_destroy_body(boxes[i]), KL_OK);
	}
	assert_int_equal(ground_contacts(ground), 12);
	assert_int_equal(kl_body_get_contact_data(boxes[18], NULL, 0), 0);
	assert_int_equal(kl_body_get_contact_data(boxes[19], NULL, 0), 1);
	// A shape made now (it takes a freed slot) and destroyed again has no contacts to drop; the
	// slot's old contacts stay dropped and the others stay.
	kl_shape_id extra = kl_create_sphere_shape(boxes[1], &sd, 0.2f);
	assert_true(KL_IS_NON_NULL(extra));
	assert_int_equal(kl_destroy_shape(extra), KL_OK);
	assert_int_equal(kl_destroy_shape(shapes[19]), KL_OK); // boxes[19] keeps no shape: it falls
	assert_int_equal(ground_contacts(ground), 12);
	assert_int_equal(kl_body_get_contact_data(boxes[1], NULL, 0), 1);

	// The next steps find the rest again: the top boxes over destroyed ones fall onto the ground.
	for (int s = 0; s < 90; ++s)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_int_equal(ground_contacts(ground), 18);
	assert_true(kl_body_get_position(boxes[18]).z < 0.6f);
	// Destroying after more steps uses a fresh index.
	assert_int_equal(kl_destroy_body(boxes[1]), KL_OK);
	assert_int_equal(ground_contacts(ground), 17);
	assert_int_equal(kl_body_get_contact_data(boxes[19], NULL, 0), 0);
	kl_destroy_world(world);
}

static int s_segments;
static int s_boxes;
static void count_segment(vec3s a, vec3s b, uint32_t color, void* ctx)
{
	(void)a, (void)b, (void)color, (void)ctx;
	s_segments++;
}
static void count_box(kl_transform xf, vec3s h, uint32_t color, void* ctx)
{
	(void)xf, (void)h, (void)color, (void)ctx;
	s_boxes++;
}

static void test_events_profile_draw(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_def bd = kl_default_body_def();
	kl_body_id ground = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_create_box_shape(ground, &sd, kl_vec3(10, 10, 1));
	kl_body_id b = make_dynamic(world, kl_vec3(0, 0, 5));
	kl_create_box_shape(b, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	kl_world_step(world, 1.0f / 60.0f, 4);
	kl_body_events ev = kl_world_get_body_events(world);
	assert_int_equal(ev.move_count, 1); // the static ground does not move
	assert_true(KL_ID_EQUALS(ev.move_events[0].body_id, b));
	assert_float_equal(ev.move_events[0].transform.p.z, kl_body_get_position(b).z, 0.0f);
	kl_counters c = kl_world_get_counters(world);
	assert_int_equal(c.body_count, 2);
	assert_int_equal(c.shape_count, 2);
	assert_int_equal(c.awake_body_count, 1);
	kl_profile p = kl_world_get_profile(world);
	assert_true(p.step >= p.solver && p.step > 0.0f);

	kl_aabb box = kl_shape_get_aabb(kl_null_shape_id);
	(void)box;
	kl_clear_error();

	kl_debug_draw draw = kl_default_debug_draw();
	draw.draw_box = count_box;
	draw.draw_segment = count_segment;
	kl_world_draw(world, &draw);
	assert_int_equal(s_boxes, 2);
	draw.use_drawing_bounds = true;
	draw.drawing_bounds = (kl_aabb){kl_vec3(100, 100, 100), kl_vec3(101, 101, 101)};
	kl_world_draw(world, &draw);
	assert_int_equal(s_boxes, 2); // culled

	// A joint draws 3 segments (centres to anchors); a spherical joint's swing cone 16 + 4 more.
	draw.use_drawing_bounds = false;
	kl_body_id arm = make_dynamic(world, kl_vec3(3, 0, 5));
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, b, arm, kl_vec3(2, 0, 5), kl_vec3(1, 0, 0));
	kl_joint_id joint = kl_create_joint(world, &jd);
	s_segments = 0;
	kl_world_draw(world, &draw);
	int plain = s_segments;
	assert_int_equal(kl_joint_set_limits(joint, -0.5f, 0.5f), KL_OK);
	assert_int_equal(kl_joint_set_cone_angle(joint, 0.7f), KL_OK);
	assert_int_equal(kl_joint_enable_limit(joint, true), KL_OK);
	s_segments = 0;
	kl_world_draw(world, &draw);
	assert_int_equal(s_segments, plain + 20);
	kl_destroy_world(world);
}

static void test_shape_bounds(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_vec3(1, 2, 3);
	bd.rotation = glms_quatv(GLM_PI_2f, kl_vec3(0, 0, 1));
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id box = kl_create_box_shape(body, &sd, kl_vec3(2, 1, 0.5f));
	kl_aabb a = kl_shape_get_aabb(box);
	// Rotated 90° about z: x and y extents swap.
	assert_float_equal(a.lower.x, 0.0f, 1.0e-5f);
	assert_float_equal(a.upper.x, 2.0f, 1.0e-5f);
	assert_float_equal(a.lower.y, 0.0f, 1.0e-5f);
	assert_float_equal(a.upper.y, 4.0f, 1.0e-5f);
	sd.local_pose.p = kl_vec3(0, 0, 1);
	kl_shape_id cap = kl_create_capsule_shape(body, &sd, 0.5f, 1.0f);
	a = kl_shape_get_aabb(cap);
	assert_float_equal(a.lower.z, 2.5f, 1.0e-5f);
	assert_float_equal(a.upper.z, 5.5f, 1.0e-5f);
	kl_body_def gd = kl_default_body_def();
	kl_body_id ground = kl_create_body(world, &gd);
	kl_shape_id plane = kl_create_plane_shape(ground, &sd, (kl_plane){kl_vec3(0, 0, 2), 0.0f});
	a = kl_shape_get_aabb(plane);
	assert_float_equal(a.upper.z, 1.0f, 1.0e-6f); // pose z = 1, normal normalised
	assert_true(a.lower.z <= -KL_HUGE && isfinite(a.lower.z));
	assert_float_equal(kl_shape_get_plane(plane).normal.z, 1.0f, 0.0f);
	// A body with a plane cannot become dynamic.
	assert_int_equal(kl_body_set_type(ground, KL_BODY_DYNAMIC), KL_ERR_INVALID_ARGUMENT);
	kl_clear_error();
	kl_destroy_world(world);
}

static void test_world_limits(void** state)
{
	(void)state;
	kl_world_id worlds[129];
	int n = 0;
	kl_world_def def = kl_default_world_def();
	for (; n < 129; ++n)
	{
		worlds[n] = kl_create_world(&def);
		if (KL_IS_NULL(worlds[n]))
		{
			break;
		}
	}
	assert_int_equal(n, 128);
	expect_error(KL_ERR_LIMIT);
	for (int i = 0; i < n; ++i)
	{
		assert_int_equal(kl_destroy_world(worlds[i]), KL_OK);
	}
	def.worker_count = -3;
	assert_true(KL_IS_NULL(kl_create_world(&def)));
	def = kl_default_world_def();
	def.gravity.x = NAN;
	assert_true(KL_IS_NULL(kl_create_world(&def)));
	expect_error(KL_ERR_INVALID_ARGUMENT);
}

// Asking for the GPU where there is none (or no CUDA in the build) still gives a working world.
static void test_gpu_fallback(void** state)
{
	(void)state;
	const char* description = kl_gpu_describe();
	assert_true(strlen(description) > 0);
	printf("gpu: %s (available: %d)\n", description, (int)kl_gpu_available());
	kl_world_def def = kl_default_world_def();
	def.use_gpu = true;
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	kl_body_id body = make_dynamic(world, kl_vec3(0, 0, 1));
	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	assert_true(kl_body_get_position(body).z < 1.0f);
	kl_destroy_world(world);
}

/// One thread's share of test_worlds_created_on_threads: worlds created, checked and destroyed in
/// turn, each with its own gravity so that two threads handed one slot would read the other's.
typedef struct world_churn
{
	float tag;
	int failures;
} world_churn;

static void* churn_worlds(void* context)
{
	world_churn* churn = context;
	for (int i = 0; i < 100; ++i)
	{
		kl_world_def wd = kl_default_world_def();
		wd.gravity = kl_vec3(0.0f, 0.0f, -churn->tag - (float)i);
		wd.worker_count = 2; // starting its threads holds a creation open long enough to overlap others
		kl_world_id world = kl_create_world(&wd);
		bool ok = kl_world_is_valid(world) && kl_world_get_gravity(world).z == wd.gravity.z;
		kl_body_def bd = kl_default_body_def();
		ok = ok && kl_body_is_valid(kl_create_body(world, &bd));
		ok = ok && kl_destroy_world(world) == KL_OK;
		churn->failures += ok ? 0 : 1;
	}
	return NULL;
}

/// Threads may create and destroy worlds at once (one world per ensemble sample): each gets a slot
/// of its own (slots were claimed without a lock, and two threads could take the same one).
static void test_worlds_created_on_threads(void** state)
{
	(void)state;
	enum { thread_count = 4 };
	pthread_t threads[thread_count];
	world_churn churn[thread_count];
	for (int t = 0; t < thread_count; ++t)
	{
		churn[t] = (world_churn){1000.0f * (float)(t + 1), 0};
		assert_int_equal(pthread_create(&threads[t], NULL, churn_worlds, &churn[t]), 0);
	}
	for (int t = 0; t < thread_count; ++t)
	{
		assert_int_equal(pthread_join(threads[t], NULL), 0);
		assert_int_equal(churn[t].failures, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_and_foreign_ids),
		cmocka_unit_test(test_worlds_created_on_threads),
		cmocka_unit_test(test_nan_and_bad_sizes_rejected),
		cmocka_unit_test(test_quaternion_normalised),
		cmocka_unit_test(test_compound_mass),
		cmocka_unit_test(test_joints_declared),
		cmocka_unit_test(test_destroy_between_steps),
		cmocka_unit_test(test_events_profile_draw),
		cmocka_unit_test(test_shape_bounds),
		cmocka_unit_test(test_world_limits),
		cmocka_unit_test(test_gpu_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
