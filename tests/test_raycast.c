// Kollide tests — ray casts: each shape type's analytic entry point, fraction and normal, misses,
// rays from inside, moved and rotated bodies and local poses, filters, sensors, the closest of
// several shapes and bad input (kl_world_cast_ray and the per-shape tests of narrowphase/convex/raycast.h).
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "raycast.h"
#include "world.h"

#include <kollide/kollide.h>

#include <string.h>

static const float k_tol = 2.0e-5f;

static kl_world_id make_world(void)
{
	kl_world_def def = kl_default_world_def();
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static kl_body_id make_body(kl_world_id world, kl_body_type type, vec3s position, versors rotation)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = type;
	bd.position = position;
	bd.rotation = rotation;
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(body));
	return body;
}

/// Unit quaternion of angle (rad) about a unit axis.
static versors axis_angle(vec3s axis, float angle)
{
	return glms_quatv(angle, axis);
}

static void assert_vec_near(vec3s a, vec3s b, float tol)
{
	assert_near(a.x, b.x, tol);
	assert_near(a.y, b.y, tol);
	assert_near(a.z, b.z, tol);
}

/// Casts with the default filter and checks the hit against the expectation.
static kl_ray_hit expect_hit(kl_world_id world, vec3s origin, vec3s translation, float fraction, vec3s normal)
{
	kl_ray_hit hit;
	bool ok = kl_world_cast_ray(world, origin, translation, kl_default_filter(), &hit);
	if (!ok)
	{
		fail_msg("expected a hit at fraction %g", (double)fraction);
	}
	assert_near(hit.fraction, fraction, k_tol);
	assert_vec_near(hit.normal, normal, k_tol);
	assert_vec_near(hit.point, glms_vec3_add(origin, glms_vec3_scale(translation, fraction)), 1.0e-4f);
	assert_near(glms_vec3_norm(hit.normal), 1.0f, 1.0e-5);
	// The normal faces against the ray.
	assert_true(glms_vec3_dot(hit.normal, translation) <= 0.0f);
	return hit;
}

static void expect_miss(kl_world_id world, vec3s origin, vec3s translation)
{
	kl_ray_hit hit;
	assert_false(kl_world_cast_ray(world, origin, translation, kl_default_filter(), &hit));
	assert_true(KL_IS_NULL(hit.shape));
	assert_true(KL_IS_NULL(hit.body));
}

// ---------------------------------------------------------------------------------------------

static void test_sphere(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(1.0f, 2.0f, 3.0f), glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id shape = kl_create_sphere_shape(body, &sd, 0.5f);
	assert_true(KL_IS_NON_NULL(shape));

	kl_ray_hit hit = expect_hit(world, kl_vec3(1.0f, 2.0f, 10.0f), kl_vec3(0.0f, 0.0f, -10.0f), 0.65f,
								kl_vec3(0.0f, 0.0f, 1.0f));
	assert_true(KL_ID_EQUALS(hit.shape, shape));
	assert_true(KL_ID_EQUALS(hit.body, body));
	assert_vec_near(hit.point, kl_vec3(1.0f, 2.0f, 3.5f), 1.0e-5f);

	// Off-centre: x offset 0.3 enters at z = 3 + 0.4, normal (0.6, 0, 0.8).
	expect_hit(world, kl_vec3(1.3f, 2.0f, 10.0f), kl_vec3(0.0f, 0.0f, -10.0f), 0.66f, kl_vec3(0.6f, 0.0f, 0.8f));
	expect_miss(world, kl_vec3(1.51f, 2.0f, 10.0f), kl_vec3(0.0f, 0.0f, -10.0f)); // passes beside
	expect_miss(world, kl_vec3(1.0f, 2.0f, 10.0f), kl_vec3(0.0f, 0.0f, -6.0f));	  // stops short
	expect_miss(world, kl_vec3(1.0f, 2.0f, 10.0f), kl_vec3(0.0f, 0.0f, 10.0f));	  // points away
	expect_miss(world, kl_vec3(1.0f, 2.0f, 3.2f), kl_vec3(0.0f, 0.0f, -10.0f));	  // starts inside
	expect_miss(world, kl_vec3(1.0f, 2.0f, 10.0f), kl_vec3(0.0f, 0.0f, 0.0f));	  // goes nowhere
	kl_destroy_world(world);
}

/// A capsule turned to lie along world x: the side, the rounded end dead on and off axis.
static void test_capsule(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 0.0f),
								axis_angle(kl_vec3(0.0f, 1.0f, 0.0f), 0.5f * GLM_PIf));
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_capsule_shape(body, &sd, 0.25f, 1.0f)));

	expect_hit(world, kl_vec3(0.9f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -10.0f), 0.475f, kl_vec3(0.0f, 0.0f, 1.0f));
	expect_hit(world, kl_vec3(-5.0f, 0.0f, 0.0f), kl_vec3(10.0f, 0.0f, 0.0f), 0.375f, kl_vec3(-1.0f, 0.0f, 0.0f));
	// End sphere about (−1, 0, 0) seen at height 0.2: enters at x = −1.15, normal (−0.6, 0, 0.8).
	expect_hit(world, kl_vec3(-5.0f, 0.0f, 0.2f), kl_vec3(10.0f, 0.0f, 0.0f), 0.385f, kl_vec3(-0.6f, 0.0f, 0.8f));
	// Just beyond the end, straight down: the rounded end, not the (infinite) cylinder.
	expect_hit(world, kl_vec3(1.15f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -10.0f), 0.48f, kl_vec3(0.6f, 0.0f, 0.8f));
	expect_miss(world, kl_vec3(1.3f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -10.0f));
	expect_miss(world, kl_vec3(0.0f, 0.3f, 5.0f), kl_vec3(0.0f, 0.0f, -10.0f));
	expect_miss(world, kl_vec3(0.5f, 0.0f, 0.1f), kl_vec3(0.0f, 0.0f, 10.0f)); // inside the side
	expect_miss(world, kl_vec3(1.1f, 0.0f, 0.0f), kl_vec3(-10.0f, 0.0f, 0.0f)); // inside an end
	kl_destroy_world(world);
}

/// A box turned 45° about z on a translated body with an offset local pose: a ray along a face
/// normal towards the centre enters one half extent short of it.
static void test_box_rotated(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	versors q = axis_angle(kl_vec3(0.0f, 0.0f, 1.0f), 0.25f * GLM_PIf);
	kl_body_id body = make_body(world, KL_BODY_DYNAMIC, kl_vec3(2.0f, 0.0f, 0.0f), q);
	kl_shape_def sd = kl_default_shape_def();
	sd.local_pose.p = kl_vec3(0.0f, 0.0f, 1.0f);
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(1.0f, 0.5f, 0.25f))));
	vec3s center = kl_vec3(2.0f, 0.0f, 1.0f);
	vec3s nx = kl_rotate(q, kl_vec3(1.0f, 0.0f, 0.0f));
	vec3s ny = kl_rotate(q, kl_vec3(0.0f, 1.0f, 0.0f));

	expect_hit(world, glms_vec3_add(center, glms_vec3_scale(nx, 5.0f)), glms_vec3_scale(nx, -5.0f), 0.8f, nx);
	expect_hit(world, glms_vec3_sub(center, glms_vec3_scale(ny, 4.0f)), glms_vec3_scale(ny, 4.0f), 0.875f,
			   glms_vec3_scale(ny, -1.0f));
	expect_hit(world, kl_vec3(2.0f, 0.0f, 3.0f), kl_vec3(0.0f, 0.0f, -4.0f), 0.4375f, kl_vec3(0.0f, 0.0f, 1.0f));
	// Past the corner: 1.2 along the long axis is beyond its half extent 1.
	vec3s beside = glms_vec3_add(center, glms_vec3_scale(nx, 1.2f));
	expect_miss(world, glms_vec3_add(beside, kl_vec3(0.0f, 0.0f, 2.0f)), kl_vec3(0.0f, 0.0f, -4.0f));
	expect_miss(world, center, kl_vec3(0.0f, 0.0f, -4.0f)); // inside
	kl_destroy_world(world);
}

/// A square pyramid hull (base z = 0, apex z = 1): slanted face, base, inside, beside.
static void test_hull(void** state)
{
	(void)state;
	const vec3s points[5] = {{{-1.0f, -1.0f, 0.0f}}, {{1.0f, -1.0f, 0.0f}}, {{1.0f, 1.0f, 0.0f}},
							 {{-1.0f, 1.0f, 0.0f}},	 {{0.0f, 0.0f, 1.0f}}};
	kl_hull* hull = kl_hull_build(points, 5);
	assert_non_null(hull);
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 0.0f), glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_hull_shape(body, &sd, hull)));
	kl_hull_destroy(hull);

	float s = sqrtf(0.5f);
	// Face x + z = 1: entered at z = 0.75 from (0.25, 0, 5).
	expect_hit(world, kl_vec3(0.25f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -5.0f), 0.85f, kl_vec3(s, 0.0f, s));
	expect_hit(world, kl_vec3(0.0f, -0.25f, 5.0f), kl_vec3(0.0f, 0.0f, -5.0f), 0.85f, kl_vec3(0.0f, -s, s));
	expect_hit(world, kl_vec3(0.25f, 0.5f, -5.0f), kl_vec3(0.0f, 0.0f, 10.0f), 0.5f, kl_vec3(0.0f, 0.0f, -1.0f));
	expect_hit(world, kl_vec3(-5.0f, 0.0f, 0.5f), kl_vec3(10.0f, 0.0f, 0.0f), 0.45f, kl_vec3(-s, 0.0f, s));
	expect_miss(world, kl_vec3(0.8f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -4.5f)); // stops at z 0.5 > 0.2
	expect_miss(world, kl_vec3(1.1f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -10.0f));
	expect_miss(world, kl_vec3(0.0f, 0.0f, 0.2f), kl_vec3(0.0f, 0.0f, 10.0f)); // inside
	expect_miss(world, kl_vec3(0.0f, 0.0f, 0.2f), kl_vec3(0.0f, 0.0f, -10.0f));
	kl_destroy_world(world);
}

/// A tilted plane on a static body: the solid is below it; rays from below and parallel miss.
static void test_plane(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 1.0f), glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	kl_plane plane = {{{0.0f, 0.0f, 1.0f}}, 0.5f}; // world z = 1.5
	assert_true(KL_IS_NON_NULL(kl_create_plane_shape(body, &sd, plane)));

	expect_hit(world, kl_vec3(0.0f, 0.0f, 3.5f), kl_vec3(1.0f, 0.0f, -4.0f), 0.5f, kl_vec3(0.0f, 0.0f, 1.0f));
	expect_miss(world, kl_vec3(0.0f, 0.0f, 1.0f), kl_vec3(0.0f, 0.0f, 4.0f));  // from inside
	expect_miss(world, kl_vec3(0.0f, 0.0f, 1.0f), kl_vec3(0.0f, 0.0f, -4.0f)); // inside, deeper
	expect_miss(world, kl_vec3(0.0f, 0.0f, 2.0f), kl_vec3(5.0f, 3.0f, 0.0f));  // parallel
	expect_miss(world, kl_vec3(0.0f, 0.0f, 2.0f), kl_vec3(0.0f, 0.0f, -0.4f)); // short
	kl_destroy_world(world);

	// A plane turned by its body: normal (0, 0, 1) turned 90° about x becomes (0, −1, 0).
	world = make_world();
	body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 0.0f),
					 axis_angle(kl_vec3(1.0f, 0.0f, 0.0f), 0.5f * GLM_PIf));
	plane.offset = 0.0f;
	assert_true(KL_IS_NON_NULL(kl_create_plane_shape(body, &sd, plane)));
	expect_hit(world, kl_vec3(0.0f, -2.0f, 0.0f), kl_vec3(0.0f, 4.0f, 0.0f), 0.5f, kl_vec3(0.0f, -1.0f, 0.0f));
	expect_miss(world, kl_vec3(0.0f, 2.0f, 0.0f), kl_vec3(0.0f, -4.0f, 0.0f));
	kl_destroy_world(world);
}

/// The unit cube [−0.5, 0.5]³ as 12 outward triangles; open drops the top face (z = +0.5).
static kl_mesh* cube_mesh(bool open)
{
	static const vec3s v[8] = {{{-0.5f, -0.5f, -0.5f}}, {{0.5f, -0.5f, -0.5f}}, {{0.5f, 0.5f, -0.5f}},
							   {{-0.5f, 0.5f, -0.5f}},	{{-0.5f, -0.5f, 0.5f}}, {{0.5f, -0.5f, 0.5f}},
							   {{0.5f, 0.5f, 0.5f}},	{{-0.5f, 0.5f, 0.5f}}};
	static const int32_t idx[36] = {
		0, 2, 1, 0, 3, 2, // bottom (−z)
		0, 1, 5, 0, 5, 4, // −y
		1, 2, 6, 1, 6, 5, // +x
		2, 3, 7, 2, 7, 6, // +y
		3, 0, 4, 3, 4, 7, // −x
		4, 5, 6, 4, 6, 7, // top (+z), last
	};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 8;
	def.indices = idx;
	def.triangle_count = open ? 10 : 12;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	assert_int_equal(kl_mesh_get_info(mesh).closed, !open);
	return mesh;
}

/// A closed cube mesh scaled (2, 1, 1) on a turned body: faces, inside; an open box (no lid):
/// two-sided, the inner bottom face seen from above.
static void test_mesh(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_mesh* closed = cube_mesh(false);
	versors q = axis_angle(kl_vec3(0.0f, 0.0f, 1.0f), 0.5f * GLM_PIf); // local x → world y
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 3.0f), q);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(body, &sd, closed, kl_vec3(2.0f, 1.0f, 1.0f))));
	kl_mesh_release(closed);

	// Scaled half extents (1, 0.5, 0.5) in the body frame; in the world (0.5, 1, 0.5) about (0, 0, 3).
	expect_hit(world, kl_vec3(0.0f, 5.0f, 3.0f), kl_vec3(0.0f, -10.0f, 0.0f), 0.4f, kl_vec3(0.0f, 1.0f, 0.0f));
	expect_hit(world, kl_vec3(5.0f, 0.3f, 3.1f), kl_vec3(-10.0f, 0.0f, 0.0f), 0.45f, kl_vec3(1.0f, 0.0f, 0.0f));
	expect_hit(world, kl_vec3(0.2f, -0.7f, 0.0f), kl_vec3(0.0f, 0.0f, 5.0f), 0.5f, kl_vec3(0.0f, 0.0f, -1.0f));
	expect_miss(world, kl_vec3(0.0f, 0.0f, 3.0f), kl_vec3(0.0f, 0.0f, 5.0f));  // inside
	expect_miss(world, kl_vec3(0.0f, 0.0f, 3.0f), kl_vec3(0.0f, 3.0f, 0.0f));  // inside
	expect_miss(world, kl_vec3(0.6f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -5.0f)); // beside
	kl_destroy_world(world);

	world = make_world();
	kl_mesh* open = cube_mesh(true);
	body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 0.0f), glms_quat_identity());
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(body, &sd, open, kl_vec3(1.0f, 1.0f, 1.0f))));
	kl_mesh_release(open);
	// Through the missing lid onto the inside of the bottom: the normal still faces the ray.
	expect_hit(world, kl_vec3(0.1f, 0.1f, 2.0f), kl_vec3(0.0f, 0.0f, -5.0f), 0.5f, kl_vec3(0.0f, 0.0f, 1.0f));
	expect_hit(world, kl_vec3(0.1f, 0.1f, -2.0f), kl_vec3(0.0f, 0.0f, 5.0f), 0.3f, kl_vec3(0.0f, 0.0f, -1.0f));
	// From within the open box sideways: the inside of the +x wall.
	expect_hit(world, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(2.0f, 0.0f, 0.0f), 0.25f, kl_vec3(-1.0f, 0.0f, 0.0f));
	kl_destroy_world(world);
}

/// The ray follows a body that moved: a dropped sphere is hit where it is after the steps.
static void test_moved_body(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0.0f, 0.0f, 10.0f), glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 0.5f)));
	for (int i = 0; i < 30; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	float z = kl_body_get_position(body).z;
	assert_true(z < 9.0f);
	float fraction = (20.0f - (z + 0.5f)) / 20.0f;
	kl_ray_hit hit = expect_hit(world, kl_vec3(0.0f, 0.0f, 20.0f), kl_vec3(0.0f, 0.0f, -20.0f), fraction,
								kl_vec3(0.0f, 0.0f, 1.0f));
	assert_true(KL_ID_EQUALS(hit.body, body));

	// A compound: a second sphere at local (0, 2, 0) on a body turned 90° about z sits at world
	// (−2, 0, z).
	kl_body_id turned = make_body(world, KL_BODY_KINEMATIC, kl_vec3(0.0f, 0.0f, -5.0f),
								  axis_angle(kl_vec3(0.0f, 0.0f, 1.0f), 0.5f * GLM_PIf));
	sd.local_pose.p = kl_vec3(0.0f, 2.0f, 0.0f);
	kl_shape_id off = kl_create_sphere_shape(turned, &sd, 0.25f);
	assert_true(KL_IS_NON_NULL(off));
	hit = expect_hit(world, kl_vec3(-2.0f, 0.0f, 0.0f), kl_vec3(0.0f, 0.0f, -10.0f), 0.475f,
					 kl_vec3(0.0f, 0.0f, 1.0f));
	assert_true(KL_ID_EQUALS(hit.shape, off));
	expect_miss(world, kl_vec3(2.0f, 0.0f, 0.0f), kl_vec3(0.0f, 0.0f, -10.0f));
	kl_destroy_world(world);
}

/// Three spheres on one line, created far to near: the nearest wins; the filter and sensors skip.
static void test_closest_filter_sensor(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_shape_id shapes[3];
	const float heights[3] = {1.0f, 3.0f, 5.0f};
	for (int i = 0; i < 3; ++i)
	{
		kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, heights[i]), glms_quat_identity());
		kl_shape_def sd = kl_default_shape_def();
		sd.filter.category_bits = 1u << i;
		shapes[i] = kl_create_sphere_shape(body, &sd, 0.5f);
		assert_true(KL_IS_NON_NULL(shapes[i]));
	}
	vec3s origin = kl_vec3(0.0f, 0.0f, 10.0f), down = kl_vec3(0.0f, 0.0f, -10.0f);
	kl_ray_hit hit = expect_hit(world, origin, down, 0.45f, kl_vec3(0.0f, 0.0f, 1.0f));
	assert_true(KL_ID_EQUALS(hit.shape, shapes[2]));

	// The ray's mask leaves out the top sphere's category.
	kl_filter filter = kl_default_filter();
	filter.mask_bits = ~(uint64_t)4;
	assert_true(kl_world_cast_ray(world, origin, down, filter, &hit));
	assert_true(KL_ID_EQUALS(hit.shape, shapes[1]));
	assert_near(hit.fraction, 0.65f, k_tol);

	// The middle sphere's own mask refuses the ray's category.
	filter.category_bits = 8;
	kl_filter middle = kl_shape_get_filter(shapes[1]);
	middle.mask_bits = ~(uint64_t)8;
	assert_int_equal(kl_shape_set_filter(shapes[1], middle), KL_OK);
	assert_true(kl_world_cast_ray(world, origin, down, filter, &hit));
	assert_true(KL_ID_EQUALS(hit.shape, shapes[0]));
	assert_near(hit.fraction, 0.85f, k_tol);
	filter.mask_bits = 0;
	assert_false(kl_world_cast_ray(world, origin, down, filter, &hit));

	// A sensor in front of everything is not hit.
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 7.0f), glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	sd.is_sensor = true;
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 1.0f)));
	hit = expect_hit(world, origin, down, 0.45f, kl_vec3(0.0f, 0.0f, 1.0f));
	assert_true(KL_ID_EQUALS(hit.shape, shapes[2]));

	// From inside the top sphere the ray finds the one below it.
	hit = expect_hit(world, kl_vec3(0.0f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -5.0f), 0.3f, kl_vec3(0.0f, 0.0f, 1.0f));
	assert_true(KL_ID_EQUALS(hit.shape, shapes[1]));
	kl_destroy_world(world);
}

static void test_bad_input(void** state)
{
	(void)state;
	kl_world_id world = make_world();
	kl_body_id body = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, 0.0f), glms_quat_identity());
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, 1.0f)));
	vec3s origin = kl_vec3(0.0f, 0.0f, 5.0f), down = kl_vec3(0.0f, 0.0f, -10.0f);
	kl_filter filter = kl_default_filter();
	kl_ray_hit hit;

	kl_clear_error();
	assert_false(kl_world_cast_ray(world, kl_vec3(NAN, 0.0f, 5.0f), down, filter, &hit));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(kl_last_error(), "cast_ray"));
	kl_clear_error();
	assert_false(kl_world_cast_ray(world, origin, kl_vec3(0.0f, INFINITY, 0.0f), filter, &hit));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	kl_clear_error();
	assert_false(kl_world_cast_ray(world, origin, kl_vec3(3.0e38f, 3.0e38f, 0.0f), filter, &hit)); // overflows
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	kl_clear_error();
	assert_false(kl_world_cast_ray(world, origin, down, filter, NULL));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	kl_clear_error();
	assert_false(kl_world_cast_ray(kl_null_world_id, origin, down, filter, &hit));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ID);

	// While the world steps (as from a callback inside the step) casts are refused.
	kl_get_world(world)->locked = true;
	kl_clear_error();
	assert_false(kl_world_cast_ray(world, origin, down, filter, &hit));
	assert_int_equal(kl_last_error_code(), KL_ERR_LOCKED);
	kl_get_world(world)->locked = false;

	// A good cast after all that still works and a destroyed world is refused.
	assert_true(kl_world_cast_ray(world, origin, down, filter, &hit));
	assert_near(hit.fraction, 0.4f, k_tol);
	kl_destroy_world(world);
	kl_clear_error();
	assert_false(kl_world_cast_ray(world, origin, down, filter, &hit));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ID);
}

/// The per-shape tests directly: surface starts, max_fraction, zero radius and degenerate rays.
static void test_shape_functions(void** state)
{
	(void)state;
	kl_ray_output out;
	kl_ray_input in = {{{0.0f, 0.0f, 1.0f}}, {{0.0f, 0.0f, -1.0f}}, 1.0f};
	// On the surface pointing in: fraction 0; pointing out: nothing.
	assert_true(kl_ray_sphere(1.0f, &in, &out));
	assert_near(out.fraction, 0.0f, 0.0f);
	assert_true(kl_ray_box(kl_vec3(1.0f, 1.0f, 1.0f), &in, &out));
	assert_near(out.fraction, 0.0f, 0.0f);
	assert_vec_near(out.normal, kl_vec3(0.0f, 0.0f, 1.0f), 0.0f);
	in.translation = kl_vec3(0.0f, 0.0f, 1.0f);
	assert_false(kl_ray_sphere(1.0f, &in, &out));
	assert_false(kl_ray_box(kl_vec3(1.0f, 1.0f, 1.0f), &in, &out));

	// max_fraction cuts the segment.
	kl_ray_input far = {{{0.0f, 0.0f, 3.0f}}, {{0.0f, 0.0f, -4.0f}}, 1.0f};
	assert_true(kl_ray_capsule(0.5f, 1.0f, &far, &out));
	assert_near(out.fraction, 0.375f, k_tol);
	far.max_fraction = 0.3f;
	assert_false(kl_ray_capsule(0.5f, 1.0f, &far, &out));
	assert_false(kl_ray_box(kl_vec3(1.0f, 1.0f, 1.0f), &far, &out));
	far.max_fraction = 0.5f;
	assert_true(kl_ray_box(kl_vec3(1.0f, 1.0f, 1.0f), &far, &out));
	assert_near(out.fraction, 0.5f, k_tol);

	// A far-away small sphere keeps its digits (the discriminant form would not).
	kl_ray_input long_ray = {{{0.001f, 0.0f, 1.0e4f}}, {{0.0f, 0.0f, -2.0e4f}}, 1.0f};
	assert_true(kl_ray_sphere(0.01f, &long_ray, &out));
	float expected = (1.0e4f - sqrtf(0.01f * 0.01f - 0.001f * 0.001f)) / 2.0e4f;
	assert_near(out.fraction, expected, 1.0e-7);

	// A capsule parallel to its axis, right through the core: the end cap.
	kl_ray_input axial = {{{0.0f, 0.0f, -3.0f}}, {{0.0f, 0.0f, 6.0f}}, 1.0f};
	assert_true(kl_ray_capsule(0.5f, 1.0f, &axial, &out));
	assert_near(out.fraction, 0.25f, k_tol);
	assert_vec_near(out.normal, kl_vec3(0.0f, 0.0f, -1.0f), k_tol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sphere),
		cmocka_unit_test(test_capsule),
		cmocka_unit_test(test_box_rotated),
		cmocka_unit_test(test_hull),
		cmocka_unit_test(test_plane),
		cmocka_unit_test(test_mesh),
		cmocka_unit_test(test_moved_body),
		cmocka_unit_test(test_closest_filter_sensor),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_shape_functions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
