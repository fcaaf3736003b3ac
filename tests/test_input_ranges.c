// Valid ranges of input (docs/engine-core.md, "Valid ranges"): absurd but finite numbers are
// refused with a message that names the value and the range, and leave the world as it was;
// everything accepted steps without NaN; a call that succeeds leaves no error behind.
#include <kollide/kollide.h>

#include <float.h>
#include <string.h>
#include "kl_test.h"

static kl_world_id make_world_units(float units)
{
	kl_world_def def = kl_default_world_def();
	def.length_units_per_meter = units;
	def.gravity = glms_vec3_scale(def.gravity, units);
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static kl_world_id make_world(void)
{
	return make_world_units(1.0f);
}

static kl_body_id make_body(kl_world_id world, kl_body_type type, vec3s position)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = type;
	bd.position = position;
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(body));
	return body;
}

/// The last call failed with `code`, and its message names `a` and `b` (NULL: anything); clears it.
static void expect_refused(kl_result code, const char* a, const char* b)
{
	const char* message = kl_last_error();
	if (kl_last_error_code() != code || (a != NULL && strstr(message, a) == NULL) ||
		(b != NULL && strstr(message, b) == NULL))
	{
		print_error("expected %s naming '%s' and '%s', got %s: %s\n", kl_result_name(code), a ? a : "",
					b ? b : "", kl_result_name(kl_last_error_code()), message);
		fail();
	}
	kl_clear_error();
}

/// A call that succeeded left no error behind.
static void expect_no_error(void)
{
	if (kl_last_error_code() != KL_OK)
	{
		print_error("a call succeeded with an error set: %s\n", kl_last_error());
		fail();
	}
}

static bool finite3(vec3s v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool body_is_finite(kl_body_id body)
{
	kl_transform t = kl_body_get_transform(body);
	return finite3(t.p) && isfinite(t.q.x) && isfinite(t.q.y) && isfinite(t.q.z) && isfinite(t.q.w) &&
		   finite3(kl_body_get_linear_velocity(body)) && finite3(kl_body_get_angular_velocity(body)) &&
		   finite3(kl_body_get_world_center_of_mass(body));
}

static bool mass_is_finite(kl_body_id body)
{
	kl_mass_data md = kl_body_get_mass_data(body);
	kl_principal_inertia p = kl_body_get_principal_inertia(body);
	return isfinite(md.mass) && finite3(md.center) && finite3(md.inertia.col[0]) && finite3(md.inertia.col[1]) &&
		   finite3(md.inertia.col[2]) && finite3(p.moments);
}

/// The unit right tetrahedron: its corners and its outward triangles.
static const vec3s k_tetra[4] = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}};
static const int32_t k_tetra_indices[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

static kl_mesh* build_tetra_mesh(int triangle_count)
{
	kl_mesh_def md = kl_default_mesh_def();
	md.vertices = k_tetra;
	md.vertex_count = 4;
	md.indices = k_tetra_indices;
	md.triangle_count = triangle_count;
	kl_mesh* mesh = kl_mesh_build(&md);
	assert_non_null(mesh);
	return mesh;
}

static kl_hull* build_scaled_tetra_hull(float scale)
{
	vec3s points[4];
	for (int i = 0; i < 4; ++i)
	{
		points[i] = glms_vec3_scale(k_tetra[i], scale);
	}
	kl_hull* hull = kl_hull_build(points, 4);
	assert_non_null(hull);
	return hull;
}

// ---------------------------------------------------------------------------------------------
// Defect 1: finite but absurd values became NaN within a step.

// A sphere of radius 1e20 (the scene of kollide-sim that printed px=-nan) and a capsule of radius
// 1e20 gave mass Inf: the body's position was NaN after one step.
static void test_huge_round_shapes_refused(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	kl_clear_error();
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, 1.0e20f)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "sphere radius 1e+20", "100000");
	assert_true(KL_IS_NULL(kl_create_capsule_shape(body, &sd, 1.0e20f, 1.0f)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "capsule radius 1e+20", "100000");
	assert_true(KL_IS_NULL(kl_create_capsule_shape(body, &sd, 1.0f, 1.0e20f)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "capsule half height 1e+20", "100000");
	assert_int_equal(kl_body_get_shape_count(body), 0);
	assert_true(kl_body_get_mass(body) == 1.0f); // the mass of a body without shapes, as before

	// The largest accepted sphere and capsule, light enough for a dynamic body, step finite.
	sd.material.density = 1.0e-3f;
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 1.0e5f)));
	kl_body_id capsule = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 5.0e4f));
	assert_true(KL_IS_NON_NULL(kl_create_capsule_shape(capsule, &sd, 1.0e5f, 1.0e5f)));
	expect_no_error();
	for (int i = 0; i < 10; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_true(body_is_finite(body) && body_is_finite(capsule));
	kl_destroy_world(world);

	// The scene file of the report fails to load, naming where.
	kl_world_id scene = kl_scene_load_string(
		"{\"bodies\":[{\"type\":\"dynamic\",\"shapes\":[{\"type\":\"sphere\",\"radius\":1e20}]}]}", NULL);
	assert_false(kl_world_is_valid(scene));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "bodies[0].shapes[0]", "sphere radius 1e+20 is out of range");
}

// A kinematic body spinning at 1e20 rad/s had a NaN rotation after one step (the speed limits
// held dynamic bodies only).
static void test_kinematic_speeds(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.angular_velocity = kl_vec3(0, 0, 1.0e20f);
	kl_clear_error();
	assert_true(KL_IS_NULL(kl_create_body(world, &bd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "1e+20", "10000");
	assert_int_equal(kl_world_get_bodies(world, NULL, 0), 0);

	// The fastest accepted kinematic body moves and turns as told, at any accepted step.
	bd.angular_velocity = kl_vec3(0, 0.6f * KL_MAX_ANGULAR_SPEED, 0.8f * KL_MAX_ANGULAR_SPEED);
	bd.linear_velocity = kl_vec3(KL_MAX_LINEAR_SPEED, 0, 0);
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(body));
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(1, 2, 3))));
	expect_no_error();
	for (int i = 0; i < 20; ++i)
	{
		assert_int_equal(kl_world_step(world, i < 10 ? 1.0f / 60.0f : 0.4f, 4), KL_OK);
		assert_true(body_is_finite(body));
	}
	versors q = kl_body_get_rotation(body);
	assert_near(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-5);
	assert_near(kl_body_get_angular_velocity(body).z, 0.8f * KL_MAX_ANGULAR_SPEED, 1e-2);
	assert_near(kl_body_get_linear_velocity(body).x, KL_MAX_LINEAR_SPEED, 1e-2);

	// Setters and target moves hold the same ranges and change nothing when they refuse.
	uint32_t hash = kl_world_hash_transforms(world);
	assert_int_equal(kl_body_set_angular_velocity(body, kl_vec3(1.0e20f, 0, 0)), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "1e+20", "10000");
	kl_transform far = {kl_vec3(1.0e4f, 0, 0), glms_quat_identity()};
	assert_int_equal(kl_body_set_target_transform(body, far, 1.0e-6f), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "target transform", "100000");
	assert_near(kl_body_get_angular_velocity(body).z, 0.8f * KL_MAX_ANGULAR_SPEED, 1e-2);
	assert_int_equal(kl_world_hash_transforms(world), hash);
	kl_destroy_world(world);
}

// kl_body_set_target_transform scales the move by 1/dt. For a denormal dt (1e-43 s) that is Inf, and
// a coordinate that does not move became 0 · Inf = NaN: such a dt is refused, and the body keeps its
// velocities. A dt of 1e-30 s still works for a target the body is already at.
static void test_target_transform_short_dt(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_KINEMATIC, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 0.5f)));
	assert_int_equal(kl_body_set_linear_velocity(body, kl_vec3(1, 2, 3)), KL_OK);
	kl_clear_error();
	uint32_t hash = kl_world_hash_transforms(world);
	kl_transform moved = {kl_vec3(1, 0, 0), glms_quat_identity()};
	kl_transform here = {kl_vec3(0, 0, 0), glms_quat_identity()};
	const float tiny = 1.0e-43f;
	assert_true(tiny > 0.0f && isinf(1.0f / tiny));
	assert_int_equal(kl_body_set_target_transform(body, moved, tiny), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "is too short", "1/dt overflows");
	assert_int_equal(kl_body_set_target_transform(body, here, tiny), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "is too short", "1/dt overflows");
	vec3s v = kl_body_get_linear_velocity(body);
	assert_true(v.x == 1.0f && v.y == 2.0f && v.z == 3.0f);
	assert_true(body_is_finite(body));
	assert_int_equal(kl_world_hash_transforms(world), hash);

	assert_int_equal(kl_body_set_target_transform(body, here, 1.0e-30f), KL_OK);
	expect_no_error();
	v = kl_body_get_linear_velocity(body);
	assert_true(v.x == 0.0f && v.y == 0.0f && v.z == 0.0f);
	assert_int_equal(kl_body_set_target_transform(body, moved, 1.0e-30f), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "target transform", "100000");
	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	assert_true(body_is_finite(body));
	kl_destroy_world(world);
}

// A dynamic sphere of radius 2048 m at density 1000 (3.6e13 kg, principal moments 6e19 kg m²) with
// a dynamic capsule inside it: a float determinant of that inertia overflows, and the capsule's pose
// became NaN at the first contact. Inverted at a power-of-two scale, both stay finite, and the big
// sphere still turns under an angular impulse.
static void test_large_sphere_inertia(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id big = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_body_id small = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = 1000.0f;
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(big, &sd, 2048.0f)));
	assert_true(KL_IS_NON_NULL(kl_create_capsule_shape(small, &sd, 0.625f, 0.625f)));
	expect_no_error();
	kl_principal_inertia p = kl_body_get_principal_inertia(big);
	assert_true(p.moments.x > 1e19f && p.moments.x < KL_MAX_INERTIA);
	assert_true(mass_is_finite(big) && mass_is_finite(small));
	assert_int_equal(kl_body_apply_angular_impulse(big, kl_vec3(0, 0, 1e19f), true), KL_OK);
	for (int i = 0; i < 30; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
		assert_true(body_is_finite(big) && body_is_finite(small));
	}
	assert_true(kl_body_get_angular_velocity(big).z > 0.0f);
	kl_destroy_world(world);
}

// A box at local offset 1e20 next to one at the origin gave infinite inertia through the
// parallel-axis term; bodies placed at 1e7 with joints, joint anchors of 1e5 and more, and
// densities of 1e26 ended in NaN.
static void test_offsets_positions_and_densities(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(1, 1, 1))));
	kl_mass_data before = kl_body_get_mass_data(body);
	kl_clear_error();
	sd.local_pose.p = kl_vec3(1.0e20f, 0, 0);
	assert_true(KL_IS_NULL(kl_create_box_shape(body, &sd, kl_vec3(1, 1, 1))));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "shape offset (1e+20, 0, 0)", "100000");
	assert_true(kl_body_get_mass_data(body).mass == before.mass && mass_is_finite(body));

	// The farthest accepted offset gives a finite, valid inertia that steps.
	sd.local_pose.p = kl_vec3(KL_MAX_COORDINATE, 0, 0);
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(1, 1, 1))));
	expect_no_error();
	assert_true(mass_is_finite(body));

	sd = kl_default_shape_def();
	sd.material.density = 1.0e26f;
	assert_true(KL_IS_NULL(kl_create_box_shape(body, &sd, kl_vec3(1, 1, 1))));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "density 1e+26", "100000");

	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(1.0e7f, 0, 0);
	assert_true(KL_IS_NULL(kl_create_body(world, &bd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "body position (1e+07, 0, 0)", "100000");
	assert_int_equal(kl_body_set_transform(body, kl_vec3(0, 2.0e5f, 0), glms_quat_identity()), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "body position", "100000");

	kl_body_id other = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 5));
	kl_joint_def jd = kl_default_joint_def(KL_JOINT_REVOLUTE);
	jd.body_a = body;
	jd.body_b = other;
	jd.local_frame_a.p = kl_vec3(1.0e6f, 0, 0);
	assert_true(KL_IS_NULL(kl_create_joint(world, &jd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "joint frame a origin (1e+06, 0, 0)", "200000");
	assert_int_equal(kl_body_get_joint_count(body), 0);

	// Bodies at the edge of the valid region with joints anchored across it step finite.
	kl_body_id far_a = make_body(world, KL_BODY_DYNAMIC, kl_vec3(KL_MAX_COORDINATE, KL_MAX_COORDINATE, 0));
	kl_body_id far_b = make_body(world, KL_BODY_DYNAMIC, kl_vec3(-KL_MAX_COORDINATE, -KL_MAX_COORDINATE, 0));
	sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(far_a, &sd, kl_vec3(0.5f, 0.5f, 0.5f))));
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(far_b, &sd, 0.01f)));
	for (int type = 0; type < KL_JOINT_TYPE_COUNT; ++type)
	{
		jd = kl_joint_def_from_world((kl_joint_type)type, far_a, far_b, kl_vec3(0, 0, 0), kl_vec3(0, 0, 1));
		assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	}
	expect_no_error();
	for (int i = 0; i < 60; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_true(body_is_finite(body) && body_is_finite(far_a) && body_is_finite(far_b));
	kl_destroy_world(world);
}

// Mass overrides and joint values hold the same ranges.
static void test_mass_overrides_and_joint_values(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id a = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_body_id b = make_body(world, KL_BODY_DYNAMIC, kl_vec3(1, 0, 0));
	kl_mass_data md = {0};
	md.mass = 1.0e30f;
	md.inertia = glms_mat3_identity();
	kl_clear_error();
	assert_int_equal(kl_body_set_mass_data(a, md), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "mass 1e+30", "1e+15");
	md.mass = 1.0f;
	md.inertia = glms_mat3_scale(glms_mat3_identity(), 1.0e-30f);
	assert_int_equal(kl_body_set_mass_data(a, md), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "1e-30", "1e-20");
	assert_false(kl_body_has_custom_mass(a));
	md.inertia = glms_mat3_zero(); // exactly zero: rotation locked, as before
	assert_int_equal(kl_body_set_mass_data(a, md), KL_OK);
	md.inertia = glms_mat3_scale(glms_mat3_identity(), 1.0e-12f); // tiny but valid: turns freely
	assert_int_equal(kl_body_set_mass_data(b, md), KL_OK);
	expect_no_error();

	kl_joint_def jd = kl_default_joint_def(KL_JOINT_PRISMATIC);
	jd.body_a = a;
	jd.body_b = b;
	jd.spring_hertz = 1.0e30f;
	assert_true(KL_IS_NULL(kl_create_joint(world, &jd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "spring frequency 1e+30", "1e+06");
	jd.spring_hertz = 5.0f;
	jd.motor_speed = 1.0e20f;
	assert_true(KL_IS_NULL(kl_create_joint(world, &jd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "motor speed 1e+20", "100000");
	jd.motor_speed = 1.0f;
	jd.lower = -1.0e20f;
	assert_true(KL_IS_NULL(kl_create_joint(world, &jd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "lower limit -1e+20", "200000");
	jd.lower = -1.0f;
	kl_joint_id joint = kl_create_joint(world, &jd);
	assert_true(KL_IS_NON_NULL(joint));
	expect_no_error();
	assert_int_equal(kl_joint_set_spring(joint, 5.0f, 1.0e30f), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "damping ratio 1e+30", "1e+06");
	assert_int_equal(kl_joint_set_motor_speed(joint, -1.0e20f), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "motor speed -1e+20", "100000");
	assert_int_equal(kl_joint_set_limits(joint, -1.0f, 1.0e20f), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "upper limit 1e+20", "200000");
	kl_joint_def kept = kl_joint_get_def(joint);
	assert_true(kept.spring_damping_ratio == jd.spring_damping_ratio && kept.upper == jd.upper);
	for (int i = 0; i < 30; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_true(body_is_finite(a) && body_is_finite(b));
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Defect 2: speeds above 1.8e19 were accepted and the body silently stopped (the square of the
// speed overflowed and the state was zeroed).

static void test_speeds_refused_or_held(void** state)
{
	(void)state;
	kl_world_def def = kl_default_world_def();
	def.gravity = kl_vec3(0, 0, 0);
	kl_world_id world = kl_create_world(&def);
	kl_body_id body = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 0.5f)));
	kl_clear_error();

	// Given: refused, the state kept.
	assert_int_equal(kl_body_set_linear_velocity(body, kl_vec3(2.0e19f, 0, 0)), KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "speed 2e+19", "100000");
	assert_true(kl_body_get_linear_velocity(body).x == 0.0f);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.linear_velocity = kl_vec3(0, 2.0e19f, 0);
	assert_true(KL_IS_NULL(kl_create_body(world, &bd)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "speed 2e+19", "100000");
	assert_int_equal(kl_body_apply_linear_impulse(body, kl_vec3(1.0e30f, 0, 0), kl_vec3(0, 0, 0), true),
					 KL_ERR_INVALID_ARGUMENT);
	expect_refused(KL_ERR_INVALID_ARGUMENT, "impulse", "100000");
	assert_true(kl_body_get_linear_velocity(body).x == 0.0f);

	// Accepted above the world's limit: a dynamic body is held to max_linear_speed, not stopped.
	assert_int_equal(kl_body_set_linear_velocity(body, kl_vec3(KL_MAX_LINEAR_SPEED, 0, 0)), KL_OK);
	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	assert_near(kl_body_get_linear_velocity(body).x, def.max_linear_speed, 1e-2);

	// A finite force so large that the square of the speed it gives overflows float: held too.
	assert_int_equal(kl_body_apply_force_to_center(body, kl_vec3(0, 1.0e30f, 0), true), KL_OK);
	vec3s p = kl_body_get_position(body);
	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	vec3s v = kl_body_get_linear_velocity(body);
	assert_near(glms_vec3_norm(v), def.max_linear_speed, 1e-2);
	assert_true(v.y > 0.99f * def.max_linear_speed); // turned into the force's direction
	float moved = glms_vec3_distance(kl_body_get_position(body), p);
	assert_true(moved > 0.9f * def.max_linear_speed / 60.0f); // and still moving
	assert_true(body_is_finite(body));
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Defect 3: time steps up to 10 s were accepted, but at 4 sub-steps a ball resting on a 0.5 m box
// fell through it (z 0.5 → −1196 after 5 steps of dt = 5; 23 cm down at dt = 2). The sub-step is
// now at most KL_MAX_SUBSTEP (0.1 s), where it sinks about g·h²/π² = 1 cm.

static kl_body_id resting_ball(kl_world_id world)
{
	kl_body_id ground = make_body(world, KL_BODY_STATIC, kl_vec3(0, 0, -0.25f));
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, kl_vec3(5, 5, 0.25f))));
	kl_body_id ball = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0.5f));
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(ball, &sd, 0.5f)));
	for (int i = 0; i < 60; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	return ball;
}

static void test_large_time_steps(void** state)
{
	(void)state;
	kl_world_def def = kl_default_world_def();
	def.enable_sleep = false;
	kl_world_id world = kl_create_world(&def);
	kl_body_id ball = resting_ball(world);
	kl_clear_error();

	// Longer sub-steps are refused, and the world is left as it was.
	uint32_t hash = kl_world_hash_transforms(world);
	int64_t steps = kl_world_get_counters(world).step_index;
	const float refused[][2] = {{5.0f, 4}, {2.0f, 4}, {0.5f, 4}, {0.11f, 1}, {10.0f, 64}};
	for (int i = 0; i < 5; ++i)
	{
		assert_int_equal(kl_world_step(world, refused[i][0], (int)refused[i][1]), KL_ERR_INVALID_ARGUMENT);
		expect_refused(KL_ERR_INVALID_ARGUMENT, "time step", "sub-step is at most 0.1 s");
	}
	assert_int_equal(kl_world_hash_transforms(world), hash);
	assert_int_equal(kl_world_get_counters(world).step_index, steps);

	// The largest accepted steps hold the resting ball on the ground.
	const float accepted[][2] = {{0.4f, 4}, {0.1f, 1}, {6.4f, 64}};
	for (int i = 0; i < 3; ++i)
	{
		float lowest = 1.0f;
		for (int k = 0; k < (i == 2 ? 5 : 25); ++k)
		{
			assert_int_equal(kl_world_step(world, accepted[i][0], (int)accepted[i][1]), KL_OK);
			lowest = fminf(lowest, kl_body_get_position(ball).z);
		}
		print_message("dt %g s, %d sub-steps: lowest z %.4f m (resting at 0.5)\n", accepted[i][0],
					  (int)accepted[i][1], lowest);
		assert_true(lowest > 0.5f - 0.02f);
		assert_true(kl_body_get_position(ball).z < 0.5f + 0.01f);
	}
	expect_no_error();
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Defect 4: calls that succeeded with an error message set, and masses that were not the
// shape's. A mesh scaled by 1e30 or a hull with 3e38 coordinates gave a valid shape while
// kl_last_error() reported a non-finite inertia, and the body kept mass 1; a sphere of radius
// 1e-30, a hull 1e-20 across and a one-triangle open mesh silently gave mass 1.

static void test_shapes_give_their_mass_or_fail(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0));
	kl_shape_def sd = kl_default_shape_def();
	kl_mesh* tetra = build_tetra_mesh(4);
	kl_clear_error();

	assert_true(KL_IS_NULL(kl_create_mesh_shape(body, &sd, tetra, kl_vec3(1.0e30f, 1.0e30f, 1.0e30f))));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "scaled mesh", "100000");
	assert_true(KL_IS_NULL(kl_create_mesh_shape(body, &sd, tetra, kl_vec3(1.0e-20f, 1.0e-20f, 1.0e-20f))));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "scaled mesh size", "0.001");
	kl_hull* huge = build_scaled_tetra_hull(3.0e38f);
	assert_true(KL_IS_NULL(kl_create_hull_shape(body, &sd, huge)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "hull vertex", "100000");
	kl_hull* tiny = build_scaled_tetra_hull(1.0e-20f);
	assert_true(KL_IS_NULL(kl_create_hull_shape(body, &sd, tiny)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "hull size", "0.001");
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, 1.0e-30f)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "sphere radius 1e-30", "0.001");
	assert_int_equal(kl_body_get_shape_count(body), 0);
	kl_hull_destroy(huge);
	kl_hull_destroy(tiny);

	// What is accepted gives the shape's own mass: the unit tetrahedron at scale 2, 8/6 m³.
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(body, &sd, tetra, kl_vec3(2, 2, 2))));
	expect_no_error();
	assert_near(kl_body_get_mass(body), 1000.0 * 8.0 / 6.0, 1e-2);

	// A one-triangle open mesh has no volume: its build succeeds and leaves no error; a dynamic
	// body refuses it as a mass source, a static one takes it without mass.
	kl_mesh* triangle = build_tetra_mesh(1);
	expect_no_error();
	kl_body_id light = make_body(world, KL_BODY_DYNAMIC, kl_vec3(5, 0, 0));
	assert_true(KL_IS_NULL(kl_create_mesh_shape(light, &sd, triangle, kl_vec3(1, 1, 1))));
	expect_refused(KL_ERR_DEGENERATE, "no mass", "no volume");
	assert_int_equal(kl_body_get_shape_count(light), 0);
	kl_body_id ground = make_body(world, KL_BODY_STATIC, kl_vec3(0, 0, -3));
	kl_shape_id floor = kl_create_mesh_shape(ground, &sd, triangle, kl_vec3(10, 10, 10));
	assert_true(KL_IS_NON_NULL(floor));
	expect_no_error();
	assert_true(kl_shape_get_mass_data(floor).mass == 0.0f);
	assert_int_equal(kl_body_set_type(ground, KL_BODY_DYNAMIC), KL_ERR_DEGENERATE);
	expect_refused(KL_ERR_DEGENERATE, "no volume", NULL);
	assert_int_equal(kl_body_get_type(ground), KL_BODY_STATIC);
	assert_int_equal(kl_body_set_type(ground, KL_BODY_KINEMATIC), KL_OK);

	// Without density it is no mass source: a dynamic body takes it, and refuses density later.
	sd.material.density = 0.0f;
	kl_shape_id massless = kl_create_mesh_shape(light, &sd, triangle, kl_vec3(1, 1, 1));
	assert_true(KL_IS_NON_NULL(massless));
	expect_no_error();
	assert_true(kl_body_get_mass(light) == 1.0f); // the documented mass of a body without mass
	kl_material m = kl_shape_get_material(massless);
	m.density = 1000.0f;
	assert_int_equal(kl_shape_set_material(massless, m), KL_ERR_DEGENERATE);
	expect_refused(KL_ERR_DEGENERATE, "no volume", NULL);
	assert_true(kl_shape_get_material(massless).density == 0.0f);

	kl_mesh_release(tetra);
	kl_mesh_release(triangle);
	for (int i = 0; i < 10; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_true(body_is_finite(body) && body_is_finite(light));
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Scene files go through the same checks, and their errors carry the JSON path.

static void test_scene_errors_carry_the_path(void** state)
{
	(void)state;
	const struct
	{
		const char* json;
		const char* path;
		const char* what;
	} cases[] = {
		{"{\"bodies\":[{\"type\":\"dynamic\",\"shapes\":[{\"type\":\"box\",\"half_extents\":[1,1,1]},"
		 "{\"type\":\"sphere\",\"radius\":1,\"position\":[1e20,0,0]}]}]}",
		 "bodies[0].shapes[1]", "shape offset (1e+20, 0, 0)"},
		{"{\"bodies\":[{\"type\":\"kinematic\",\"angular_velocity\":[0,0,1e20]}]}", "bodies[0]", "angular speed 1e+20"},
		{"{\"bodies\":[{\"type\":\"dynamic\","
		 "\"shapes\":[{\"type\":\"box\",\"half_extents\":[1,1,1],\"density\":1e26}]}]}",
		 "bodies[0].shapes[0]", "density 1e+26"},
		{"{\"bodies\":[{\"type\":\"dynamic\",\"position\":[1e7,0,0]}]}", "bodies[0]", "body position (1e+07, 0, 0)"},
		{"{\"bodies\":[{\"type\":\"dynamic\",\"mass\":{\"mass\":1e30}}]}", "bodies[0].mass", "mass 1e+30"},
		{"{\"bodies\":[{\"name\":\"a\",\"type\":\"dynamic\"},{\"name\":\"b\",\"type\":\"dynamic\"}],"
		 "\"joints\":[{\"type\":\"revolute\",\"body_a\":\"a\",\"body_b\":\"b\",\"anchor\":[0,0,0],"
		 "\"spring\":{\"hertz\":1e30}}]}",
		 "joints[0]", "spring frequency 1e+30"},
		{"{\"world\":{\"length_units_per_meter\":1e6}}", "world", "length_units_per_meter 1e+06"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
	{
		kl_clear_error();
		kl_world_id world = kl_scene_load_string(cases[i].json, NULL);
		if (kl_world_is_valid(world))
		{
			print_error("scene %zu loaded: %s\n", i, cases[i].json);
			fail();
		}
		expect_refused(KL_ERR_INVALID_ARGUMENT, cases[i].path, cases[i].what);
	}
}

// ---------------------------------------------------------------------------------------------
// The length unit scales the ranges of lengths, positions and speeds (and densities by its cube).

static void test_length_units_scale_the_ranges(void** state)
{
	(void)state;
	kl_world_def def = kl_default_world_def();
	const float bad_units[] = {0.0f, -1.0f, NAN, INFINITY, 1.0e-4f, 1.0e4f};
	for (int i = 0; i < 6; ++i)
	{
		def.length_units_per_meter = bad_units[i];
		assert_true(KL_IS_NULL(kl_create_world(&def)));
		expect_refused(KL_ERR_INVALID_ARGUMENT, "length_units_per_meter", "[0.001, 1000]");
	}

	// Centimetres: 100 units per metre.
	kl_world_id world = make_world_units(100.0f);
	kl_body_id ground = make_body(world, KL_BODY_STATIC, kl_vec3(5.0e6f, 0, -5.0e6f));
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = 1.0e-3f; // kg/cm³, water
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(ground, &sd, kl_vec3(5.0e6f, 5.0e6f, 5.0e6f))));
	kl_body_id ball = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0, 0, 0.5f));
	assert_true(KL_IS_NULL(kl_create_sphere_shape(ball, &sd, 0.05f)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "sphere radius 0.05", "[0.1, 1e+07]");
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(ball, &sd, 0.5f)));
	assert_int_equal(kl_body_set_linear_velocity(ball, kl_vec3(5.0e6f, 0, 0)), KL_OK);
	expect_no_error();
	assert_near(kl_body_get_mass(ball), 1.0e-3 * 4.0 / 3.0 * GLM_PI * 0.125, 1e-6);
	sd.material.density = 1.0f; // 1000 t/m³
	assert_true(KL_IS_NULL(kl_create_sphere_shape(ball, &sd, 0.5f)));
	expect_refused(KL_ERR_INVALID_ARGUMENT, "density 1", "[0, 0.1]");

	// Saved and loaded, the unit comes back, and so do the ranges it scales.
	char* text = kl_scene_save_string(world);
	assert_non_null(text);
	kl_world_id copy = kl_scene_load_string(text, NULL);
	free(text);
	assert_true(kl_world_is_valid(copy));
	assert_true(kl_world_get_def(copy).length_units_per_meter == 100.0f);
	assert_int_equal(kl_world_hash_transforms(copy), kl_world_hash_transforms(world));
	for (int i = 0; i < 10; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_true(body_is_finite(ball));
	kl_destroy_world(copy);
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Everything accepted steps without NaN: random worlds whose every value is at the low end, in
// the middle or at the high end of its range, in three unit systems, at the shortest and the
// longest sub-steps. A creation that succeeds leaves no error; one that is refused is skipped.

static unsigned next_random(unsigned* s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static float pick(unsigned* s, float lo, float mid, float hi)
{
	unsigned r = next_random(s) % 3u;
	return r == 0 ? lo : (r == 1 ? mid : hi);
}

static float sign(unsigned* s)
{
	return (next_random(s) & 1u) != 0 ? 1.0f : -1.0f;
}

static kl_shape_id random_shape(unsigned* s, kl_body_id body, float units)
{
	float l3 = units * units * units;
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = pick(s, 1.0e-3f / l3, 1000.0f / l3, KL_MAX_DENSITY / l3);
	sd.material.restitution = pick(s, 0.0f, 0.5f, 1.0f);
	float far = KL_MAX_COORDINATE * units;
	sd.local_pose.p = kl_vec3(sign(s) * pick(s, 0.0f, units, far), sign(s) * pick(s, 0.0f, 0.5f * units, far), 0.0f);
	float lo = KL_MIN_SHAPE_SIZE * units, mid = 0.5f * units, hi = KL_MAX_COORDINATE * units;
	switch (next_random(s) % 4u)
	{
		case 0: return kl_create_sphere_shape(body, &sd, pick(s, lo, mid, hi));
		case 1:
		{
			float x = pick(s, lo, mid, hi), y = pick(s, lo, mid, hi), z = pick(s, lo, mid, hi);
			return kl_create_box_shape(body, &sd, kl_vec3(x, y, z));
		}
		case 2:
		{
			float r = pick(s, lo, mid, hi);
			return kl_create_capsule_shape(body, &sd, r, pick(s, 0.0f, mid, hi));
		}
		default:
		{
			float a = pick(s, lo, mid, hi), c = pick(s, lo, mid, hi);
			vec3s points[8];
			for (int k = 0; k < 8; ++k)
			{
				points[k] = kl_vec3((k & 1) ? a : -a, (k & 2) ? c : -c, (k & 4) ? a : -0.5f * a);
			}
			kl_hull* hull = kl_hull_build(points, 8);
			if (hull == NULL)
			{
				return kl_null_shape_id; // too flat for a hull (its welding tolerance is relative)
			}
			kl_shape_id id = kl_create_hull_shape(body, &sd, hull);
			kl_hull_destroy(hull);
			return id;
		}
	}
}

/// One random world; returns false when a body's state is not finite after a step.
static bool random_world_stays_finite(unsigned seed, int steps, int* accepted, int* refused)
{
	unsigned s = seed;
	const float unit_choices[3] = {1.0f, 1.0e-3f, 1.0e3f};
	float units = unit_choices[seed % 3u];
	kl_world_def def = kl_default_world_def();
	def.length_units_per_meter = units;
	def.gravity = kl_vec3(0.0f, 0.0f, -9.81f * units);
	def.max_linear_speed = pick(&s, 400.0f, 1000.0f, KL_MAX_LINEAR_SPEED) * units;
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	kl_body_id bodies[6];
	int body_count = 0;
	float far = KL_MAX_COORDINATE * units;
	for (int i = 0; i < 6; ++i)
	{
		kl_body_def bd = kl_default_body_def();
		unsigned type = next_random(&s) % 4u;
		bd.type = type == 0 ? KL_BODY_STATIC : (type == 1 ? KL_BODY_KINEMATIC : KL_BODY_DYNAMIC);
		float base = pick(&s, 0.0f, 0.5f * far, far);
		bd.position = kl_vec3(sign(&s) * base, sign(&s) * pick(&s, 0.0f, base, far), sign(&s) * 0.999f * base);
		float v = KL_MAX_LINEAR_SPEED * units / 1.5f, w = KL_MAX_ANGULAR_SPEED / 1.5f;
		bd.linear_velocity = kl_vec3(pick(&s, 0.0f, units, v), pick(&s, 0.0f, -units, -v), 0.0f);
		bd.angular_velocity = kl_vec3(pick(&s, 0.0f, 1.0f, w), 0.0f, pick(&s, 0.0f, -3.0f, w));
		bd.enable_sleep = (next_random(&s) & 1u) != 0;
		bd.fixed_rotation = next_random(&s) % 5u == 0;
		bd.is_bullet = (next_random(&s) & 1u) != 0;
		bd.enable_gyroscopic = (next_random(&s) & 1u) != 0;
		kl_clear_error();
		kl_body_id body = kl_create_body(world, &bd);
		assert_true(KL_IS_NON_NULL(body));
		expect_no_error();
		int shapes = 1 + (int)(next_random(&s) % 3u);
		for (int k = 0; k < shapes; ++k)
		{
			kl_clear_error();
			if (KL_IS_NULL(random_shape(&s, body, units)))
			{
				assert_int_not_equal(kl_last_error_code(), KL_OK);
				*refused += 1;
				continue;
			}
			expect_no_error();
			*accepted += 1;
		}
		bodies[body_count++] = body;
	}
	for (int j = 0; j < 4; ++j)
	{
		int a = (int)(next_random(&s) % (unsigned)body_count), b = (int)(next_random(&s) % (unsigned)body_count);
		kl_joint_def jd = kl_default_joint_def((kl_joint_type)(next_random(&s) % KL_JOINT_TYPE_COUNT));
		jd.body_a = bodies[a];
		jd.body_b = bodies[b];
		float span = KL_MAX_JOINT_LENGTH * units;
		float ax = sign(&s) * pick(&s, 0.0f, units, span), ay = sign(&s) * pick(&s, 0.0f, units, span);
		float by = sign(&s) * pick(&s, 0.0f, units, span), bz = sign(&s) * pick(&s, 0.0f, units, span);
		jd.local_frame_a.p = kl_vec3(ax, ay, 0.0f);
		jd.local_frame_b.p = kl_vec3(0.0f, by, bz);
		jd.enable_spring = (next_random(&s) & 1u) != 0;
		jd.spring_hertz = pick(&s, 0.0f, 5.0f, KL_MAX_HERTZ);
		jd.spring_damping_ratio = pick(&s, 0.0f, 1.0f, KL_MAX_DAMPING_RATIO);
		jd.enable_motor = (next_random(&s) & 1u) != 0;
		jd.max_motor_force = pick(&s, 0.0f, 100.0f, 1.0e30f);
		jd.motor_speed = pick(&s, 0.0f, 1.0f, KL_MAX_ANGULAR_SPEED * (units < 1.0f ? units : 1.0f));
		jd.length = pick(&s, 0.0f, units, span);
		jd.enable_limit = (next_random(&s) & 1u) != 0;
		jd.lower = -1.0f;
		jd.upper = 1.0f;
		kl_clear_error();
		if (a == b || KL_IS_NULL(kl_create_joint(world, &jd)))
		{
			*refused += a == b ? 0 : 1;
			continue;
		}
		expect_no_error();
		*accepted += 1;
	}
	int substeps = (next_random(&s) & 1u) != 0 ? 1 : 4;
	float dt = (next_random(&s) & 1u) != 0 ? KL_MAX_SUBSTEP * (float)substeps : 1.0f / 60.0f;
	bool finite = true;
	for (int k = 0; k < steps && finite; ++k)
	{
		assert_int_equal(kl_world_step(world, dt, substeps), KL_OK);
		for (int i = 0; i < body_count && finite; ++i)
		{
			finite = body_is_finite(bodies[i]);
		}
	}
	kl_destroy_world(world);
	return finite;
}

static void test_accepted_extremes_stay_finite(void** state)
{
	(void)state;
	int worlds = KL_QUICK ? 200 : 2000, failed = 0, accepted = 0, refused = 0;
	for (int w = 0; w < worlds; ++w)
	{
		if (!random_world_stays_finite(4321u + (unsigned)w * 7919u, KL_QUICK ? 10 : 30, &accepted, &refused))
		{
			print_error("random extreme world %d reached NaN\n", w);
			failed += 1;
		}
	}
	print_message("%d worlds: %d shapes and joints accepted, %d refused (mass or speed out of range), %d reached NaN\n",
				  worlds, accepted, refused, failed);
	assert_true(accepted > 4 * refused); // the draws mostly land in range
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_round_shapes_refused),
		cmocka_unit_test(test_kinematic_speeds),
		cmocka_unit_test(test_target_transform_short_dt),
		cmocka_unit_test(test_large_sphere_inertia),
		cmocka_unit_test(test_offsets_positions_and_densities),
		cmocka_unit_test(test_mass_overrides_and_joint_values),
		cmocka_unit_test(test_speeds_refused_or_held),
		cmocka_unit_test(test_large_time_steps),
		cmocka_unit_test(test_shapes_give_their_mass_or_fail),
		cmocka_unit_test(test_scene_errors_carry_the_path),
		cmocka_unit_test(test_length_units_scale_the_ranges),
		cmocka_unit_test(test_accepted_extremes_stay_finite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
