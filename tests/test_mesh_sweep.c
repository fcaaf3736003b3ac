// Continuous collision for fast mesh pairs (narrowphase/mesh/mesh_sweep.c, engine/contact_sweep.c):
// a 2 cm mesh plate shot at a 2 cm mesh wall faster than the speculative reach covers, and a 2 cm
// mesh bar spinning into a 2 cm post, stop at the surface instead of passing through or sinking
// deep. Both run with one collision pass per step (the world's default), so the sweep alone finds
// where the parts first meet. Without it the plate passes through the wall and the bar sinks
// 9.8 mm into the post.
// SPDX-License-Identifier: MIT
#include "kl_test.h"
#include "kl_test_contact.h"
#include "kl_test_cube.h"

#include "mesh_sweep.h"

#include <kollide/kollide.h>

#include <string.h>

#define SWEEP_DT (1.0f / 60.0f)
#define SWEEP_SUBSTEPS 4
/// Deepest contact allowed (m): a quarter of the parts' 2 cm thickness.
#define SWEEP_DEPTH_LIMIT 0.005f

/// A body holding the unit cube mesh scaled by `scale`.
static kl_body_id add_block(kl_world_id world, kl_mesh* mesh, kl_body_type type, vec3s position, vec3s scale)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = type;
	bd.position = position;
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(body, &sd, mesh, scale)));
	return body;
}

static kl_world_id make_world(void)
{
	kl_world_def wd = kl_default_world_def();
	wd.gravity = kl_vec3(0.0f, 0.0f, 0.0f);
	wd.enable_sleep = false;
	return kl_create_world(&wd);
}

/// A 2 cm plate flying face first at 20 m/s (33 cm a step, beyond the 25 cm speculative reach)
/// towards a 2 cm static wall, 30 cm short of it after its first step: it stops at the wall.
static void test_fast_plate_stopped_by_wall(void** state)
{
	(void)state;
	kl_mesh* mesh = kl_test_cube_mesh();
	kl_world_id world = make_world();
	const float wall_x = 0.3f, half = 0.01f;
	add_block(world, mesh, KL_BODY_STATIC, kl_vec3(wall_x, 0.0f, 0.0f), kl_vec3(2 * half, 0.4f, 0.4f));
	kl_body_id plate =
		add_block(world, mesh, KL_BODY_DYNAMIC, kl_vec3(-0.35f, 0.0f, 0.0f), kl_vec3(2 * half, 0.2f, 0.2f));
	assert_int_equal(kl_body_set_linear_velocity(plate, kl_vec3(20.0f, 0.0f, 0.0f)), KL_OK);
	float deepest = 0.0f, farthest = -INFINITY;
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world, SWEEP_DT, SWEEP_SUBSTEPS), KL_OK);
		deepest = fmaxf(deepest, kl_test_deepest_contact(plate));
		farthest = fmaxf(farthest, kl_body_get_position(plate).x);
	}
	printf("  plate at 20 m/s: farthest x %.4f m (touching at %.4f), deepest contact %.2f mm\n", (double)farthest,
		   (double)(wall_x - 2 * half), 1000.0 * deepest);
	assert_true(farthest < wall_x - 2 * half + SWEEP_DEPTH_LIMIT); // not through, not deep
	assert_true(deepest < SWEEP_DEPTH_LIMIT);
	kl_destroy_world(world);
	kl_mesh_release(mesh);
}

/// A 40 cm bar, 2 cm thick, hinged at its middle and spinning at 40 rad/s (its ends at 8 m/s, 38°
/// a step) into a 2 cm static post 15 cm from the hinge: the bar stops at the post's side.
static void test_spinning_bar_stopped_by_post(void** state)
{
	(void)state;
	kl_mesh* mesh = kl_test_cube_mesh();
	kl_world_id world = make_world();
	const float half = 0.01f, bar_half = 0.2f;
	const vec3s post = kl_vec3(0.0f, 0.15f, 0.0f);
	add_block(world, mesh, KL_BODY_STATIC, post, kl_vec3(2 * half, 2 * half, 0.1f));
	kl_body_def hinge_def = kl_default_body_def(); // a body of its own: jointed bodies do not collide
	kl_body_id hinge = kl_create_body(world, &hinge_def);
	// The bar lies 30° short of the post (which lies along +y) and turns about +z towards it.
	kl_body_id bar =
		add_block(world, mesh, KL_BODY_DYNAMIC, kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(2 * bar_half, 2 * half, 2 * half));
	versors start = glms_quatv(glm_rad(60.0f), kl_vec3(0.0f, 0.0f, 1.0f));
	assert_int_equal(kl_body_set_transform(bar, kl_vec3(0.0f, 0.0f, 0.0f), start), KL_OK);
	kl_joint_def jd = kl_default_joint_def(KL_JOINT_REVOLUTE);
	jd.body_a = hinge;
	jd.body_b = bar;
	jd.local_frame_a = (kl_transform){kl_vec3(0.0f, 0.0f, 0.0f), glms_quat_identity()};
	jd.local_frame_b = (kl_transform){kl_vec3(0.0f, 0.0f, 0.0f), glms_quat_identity()};
	assert_true(KL_IS_NON_NULL(kl_create_joint(world, &jd)));
	assert_int_equal(kl_body_set_angular_velocity(bar, kl_vec3(0.0f, 0.0f, 40.0f)), KL_OK);
	float deepest = 0.0f, lowest = INFINITY;
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world, SWEEP_DT, SWEEP_SUBSTEPS), KL_OK);
		deepest = fmaxf(deepest, kl_test_deepest_contact(bar));
		// The post's centre in the bar's frame: it starts on the bar's +y side.
		vec3s local = kl_inv_rotate(kl_body_get_rotation(bar), glms_vec3_sub(post, kl_body_get_position(bar)));
		lowest = fminf(lowest, fabsf(local.x) < bar_half ? local.y : INFINITY);
	}
	printf("  bar at 40 rad/s: post centre at least %.2f mm off the bar's axis (touching at %.0f), deepest "
		   "contact %.2f mm\n",
		   1000.0 * lowest, 2000.0 * half, 1000.0 * deepest);
	assert_true(lowest > 2 * half - SWEEP_DEPTH_LIMIT); // not into the post, nor through it
	assert_true(deepest < SWEEP_DEPTH_LIMIT);
	kl_destroy_world(world);
	kl_mesh_release(mesh);
}

/// The travel that decides whether a pair is swept: relative speed of the centres plus each
/// body's spin times its reach, over dt; one sample is half the thinner set.
static void test_sweep_travel(void** state)
{
	(void)state;
	kl_vertex_motion m;
	memset(&m, 0, sizeof(m));
	m.velocity[0] = kl_vec3(1.0f, 0.0f, 0.0f);
	m.velocity[1] = kl_vec3(-2.0f, 0.0f, 0.0f);
	m.angular_velocity[0] = kl_vec3(0.0f, 0.0f, 10.0f);
	m.angular_velocity[1] = kl_vec3(0.0f, 20.0f, 0.0f);
	m.dt = 0.01f;
	const float reach[2] = {0.1f, 0.05f};
	assert_float_equal(kl_sweep_travel(&m, reach), (3.0f + 1.0f + 1.0f) * 0.01f, 1e-6f);
	kl_triangle_set a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.thickness = 0.04f;
	b.thickness = 0.02f;
	assert_float_equal(kl_sweep_sample_length(&a, &b), 0.01f, 1e-7f);
	b.thickness = 0.001f; // never shorter than the slop
	assert_float_equal(kl_sweep_sample_length(&a, &b), KL_LINEAR_SLOP, 1e-7f);
	b.thickness = 0.0f; // unknown: the other's
	assert_float_equal(kl_sweep_sample_length(&a, &b), 0.02f, 1e-7f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_travel),
		cmocka_unit_test(test_fast_plate_stopped_by_wall),
		cmocka_unit_test(test_spinning_bar_stopped_by_post),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
