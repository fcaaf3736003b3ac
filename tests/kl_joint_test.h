// Shared helpers of the joint tests: worlds without contacts, bodies with explicit mass data, and
// the distance between a joint's anchors.
#pragma once

#include <kollide/kollide.h>

#include "kl_test.h"

#define DT (1.0f / 60.0f)
#define SUBSTEPS 4
#define G 9.81f

static inline kl_world_id make_world(vec3s gravity, int workers)
{
	kl_world_def def = kl_default_world_def();
	def.gravity = gravity;
	def.worker_count = workers;
	def.enable_sleep = false;
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static inline kl_body_id make_static(kl_world_id world, vec3s position)
{
	kl_body_def bd = kl_default_body_def();
	bd.position = position;
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(body));
	return body;
}

/// A dynamic body without shapes, mass m at the body origin, diagonal inertia (ix, iy, iz).
static inline kl_body_id make_body(kl_world_id world, vec3s position, float m, vec3s inertia)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = position;
	bd.enable_gyroscopic = false;
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(body));
	kl_mass_data md = {0};
	md.mass = m;
	md.inertia = glms_mat3_zero();
	md.inertia.m00 = inertia.x;
	md.inertia.m11 = inertia.y;
	md.inertia.m22 = inertia.z;
	assert_int_equal(kl_body_set_mass_data(body, md), KL_OK);
	return body;
}

static inline kl_body_id make_ball(kl_world_id world, vec3s position, float m, float radius)
{
	float i = 0.4f * m * radius * radius;
	return make_body(world, position, m, kl_vec3(i, i, i));
}

static inline kl_joint_id make_joint(kl_world_id world, const kl_joint_def* def)
{
	kl_joint_id joint = kl_create_joint(world, def);
	assert_true(KL_IS_NON_NULL(joint));
	return joint;
}

static inline void step(kl_world_id world, int steps)
{
	for (int i = 0; i < steps; ++i)
	{
		assert_int_equal(kl_world_step(world, DT, SUBSTEPS), KL_OK);
	}
}

/// World distance between the joint's two anchors (frame origins).
static inline float anchor_separation(kl_joint_id joint)
{
	kl_joint_def def = kl_joint_get_def(joint);
	kl_transform ta = kl_body_get_transform(def.body_a);
	kl_transform tb = kl_body_get_transform(def.body_b);
	vec3s pa = kl_transform_point(ta, def.local_frame_a.p);
	vec3s pb = kl_transform_point(tb, def.local_frame_b.p);
	return glms_vec3_distance(pa, pb);
}
