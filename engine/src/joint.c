// Kollide — joint creation, destruction and queries. The solver issue adds the constraint rows.
// SPDX-License-Identifier: MIT
#include "joint.h"

#include "core.h"
#include "world.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

kl_joint* kl_get_joint(kl_joint_id id, kl_world** world_out)
{
	kl_world* world = kl_get_world_from_index(id.world0);
	int slot = id.index1 - 1;
	if (world == NULL || slot < 0 || slot >= kl_id_pool_slot_count(&world->joint_pool) ||
		world->joints[slot].id != slot || world->joints[slot].generation != id.generation)
	{
		kl_fail(KL_ERR_INVALID_ID, "invalid joint id (index1 %d, world %u, generation %u): null, destroyed or foreign",
				id.index1, id.world0, id.generation);
		return NULL;
	}
	if (world_out != NULL)
	{
		*world_out = world;
	}
	return &world->joints[slot];
}

kl_joint_id kl_make_joint_id(const kl_world* world, const kl_joint* joint)
{
	return (kl_joint_id){joint->id + 1, (uint16_t)world->index, joint->generation};
}

bool kl_joint_is_valid(kl_joint_id id)
{
	kl_world* world = kl_get_world_from_index(id.world0);
	int slot = id.index1 - 1;
	return world != NULL && slot >= 0 && slot < kl_id_pool_slot_count(&world->joint_pool) &&
		   world->joints[slot].id == slot && world->joints[slot].generation == id.generation;
}

static bool non_negative(float x)
{
	return x >= 0.0f && isfinite(x);
}

static kl_result validate_joint_def(const kl_joint_def* def)
{
	if ((int)def->type < 0 || def->type >= KL_JOINT_TYPE_COUNT)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint type %d is not a kl_joint_type", (int)def->type);
	}
	if (!kl_transform_is_finite(def->local_frame_a) || !kl_transform_is_finite(def->local_frame_b))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint frames must be finite");
	}
	if (!isfinite(def->lower) || !isfinite(def->upper) || (def->enable_limit && def->lower > def->upper))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint limits must be finite with lower <= upper");
	}
	if (!isfinite(def->motor_speed) || !isfinite(def->motor_target) || !non_negative(def->max_motor_force))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint motor values must be finite, max force >= 0");
	}
	if (!non_negative(def->spring_hertz) || !non_negative(def->spring_damping_ratio) || !non_negative(def->length))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint spring and length must be finite and >= 0");
	}
	return KL_OK;
}

kl_joint_id kl_create_joint(kl_world_id world_id, const kl_joint_def* def)
{
	kl_world* world = kl_get_world(world_id);
	if (world == NULL)
	{
		return kl_null_joint_id;
	}
	if (def == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "joint def is NULL");
		return kl_null_joint_id;
	}
	kl_world* wa = NULL;
	kl_world* wb = NULL;
	kl_body* a = kl_get_body_unlocked(def->body_a, &wa);
	kl_body* b = a != NULL ? kl_get_body_unlocked(def->body_b, &wb) : NULL;
	if (a == NULL || b == NULL)
	{
		return kl_null_joint_id;
	}
	if (wa != world || wb != world)
	{
		kl_fail(KL_ERR_INVALID_ID, "joint bodies belong to another world");
		return kl_null_joint_id;
	}
	if (a == b)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "a joint needs two different bodies");
		return kl_null_joint_id;
	}
	if (validate_joint_def(def) != KL_OK)
	{
		return kl_null_joint_id;
	}
	kl_joint_def copy = *def;
	if (!kl_quat_normalize_checked(&copy.local_frame_a.q) || !kl_quat_normalize_checked(&copy.local_frame_b.q))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "joint frame rotation is a zero quaternion");
		return kl_null_joint_id;
	}
	char* name = kl_strdup(def->name);
	if (def->name != NULL && name == NULL)
	{
		return kl_null_joint_id;
	}
	bool fresh = false;
	int slot = kl_id_pool_alloc(&world->joint_pool, &fresh);
	if (slot < 0 || !kl_world_reserve_joint_slot(world, slot))
	{
		if (slot >= 0)
		{
			kl_id_pool_cancel(&world->joint_pool, slot, fresh);
		}
		kl_free(name);
		return kl_null_joint_id;
	}
	kl_joint* joint = &world->joints[slot];
	uint16_t generation = fresh ? 1 : (uint16_t)(joint->generation + 1);
	*joint = (kl_joint){0};
	joint->id = slot;
	joint->generation = generation;
	joint->body_a = a->id;
	joint->body_b = b->id;
	joint->name = name;
	copy.name = name;
	joint->def = copy;
	joint->next_joint[0] = a->head_joint;
	joint->next_joint[1] = b->head_joint;
	a->head_joint = slot;
	b->head_joint = slot;
	a->joint_count += 1;
	b->joint_count += 1;
	world->joint_count += 1;
	kl_touch_body_proxies(world, a->id);
	kl_touch_body_proxies(world, b->id);
	return kl_make_joint_id(world, joint);
}

kl_joint_def kl_joint_def_from_world(kl_joint_type type, kl_body_id body_a, kl_body_id body_b, vec3s anchor, vec3s axis)
{
	kl_joint_def def = kl_default_joint_def(type);
	def.body_a = body_a;
	def.body_b = body_b;
	// The frame's z axis is the joint axis: rotate world z onto the given axis.
	versors q = glms_quat_identity();
	float length = glms_vec3_norm(axis);
	if (length > 1.0e-9f && isfinite(length))
	{
		vec3s n = glms_vec3_scale(axis, 1.0f / length);
		vec3s z = kl_vec3(0.0f, 0.0f, 1.0f);
		float d = glms_vec3_dot(z, n);
		if (d < -0.999999f)
		{
			q = glms_quatv(GLM_PIf, kl_vec3(1.0f, 0.0f, 0.0f));
		}
		else
		{
			vec3s c = glms_vec3_cross(z, n);
			q = glms_quat_init(c.x, c.y, c.z, 1.0f + d);
			q = glms_quat_normalize(q);
		}
	}
	kl_transform world_frame = {anchor, q};
	kl_transform ta = kl_body_get_transform(body_a);
	kl_transform tb = kl_body_get_transform(body_b);
	versors ia = glms_quat_conjugate(ta.q);
	versors ib = glms_quat_conjugate(tb.q);
	def.local_frame_a = (kl_transform){kl_inv_transform_point(ta, anchor), glms_quat_mul(ia, world_frame.q)};
	def.local_frame_b = (kl_transform){kl_inv_transform_point(tb, anchor), glms_quat_mul(ib, world_frame.q)};
	return def;
}

/// Unlinks the joint from one body's singly linked joint list (lists are short).
static void unlink_joint(kl_world* world, int body_slot, int joint_slot)
{
	kl_body* body = &world->bodies[body_slot];
	int* link = &body->head_joint;
	while (*link != joint_slot)
	{
		kl_joint* j = &world->joints[*link];
		link = &j->next_joint[j->body_a == body_slot ? 0 : 1];
	}
	*link = kl_joint_next_of_body(&world->joints[joint_slot], body_slot);
	body->joint_count -= 1;
}

static void destroy_joint_slot(kl_world* world, kl_joint* joint)
{
	unlink_joint(world, joint->body_a, joint->id);
	unlink_joint(world, joint->body_b, joint->id);
	kl_touch_body_proxies(world, joint->body_a);
	kl_touch_body_proxies(world, joint->body_b);
	world->joint_count -= 1;
	kl_free(joint->name);
	joint->name = NULL;
	int slot = joint->id;
	joint->id = -1;
	kl_id_pool_free(&world->joint_pool, slot);
}

kl_result kl_destroy_joint(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = kl_get_joint(id, &world);
	if (joint == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "cannot destroy a joint while the world steps");
	}
	destroy_joint_slot(world, joint);
	return KL_OK;
}

void kl_destroy_body_joints(kl_world* world, int body_slot)
{
	while (world->bodies[body_slot].head_joint >= 0)
	{
		destroy_joint_slot(world, &world->joints[world->bodies[body_slot].head_joint]);
	}
}

bool kl_joint_blocks_collision(const kl_world* world, int body_a, int body_b)
{
	// Walk the shorter list.
	if (world->bodies[body_b].joint_count < world->bodies[body_a].joint_count)
	{
		int t = body_a;
		body_a = body_b;
		body_b = t;
	}
	for (int j = world->bodies[body_a].head_joint; j >= 0; j = kl_joint_next_of_body(&world->joints[j], body_a))
	{
		const kl_joint* joint = &world->joints[j];
		int other = joint->body_a == body_a ? joint->body_b : joint->body_a;
		if (other == body_b && !joint->def.collide_connected)
		{
			return true;
		}
	}
	return false;
}

kl_joint_type kl_joint_get_type(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->def.type : KL_JOINT_TYPE_COUNT;
}

kl_joint_def kl_joint_get_def(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->def : kl_default_joint_def(KL_JOINT_FIXED);
}

kl_body_id kl_joint_get_body_a(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = kl_get_joint(id, &world);
	return joint != NULL ? kl_make_body_id(world, &world->bodies[joint->body_a]) : kl_null_body_id;
}

kl_body_id kl_joint_get_body_b(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = kl_get_joint(id, &world);
	return joint != NULL ? kl_make_body_id(world, &world->bodies[joint->body_b]) : kl_null_body_id;
}

vec3s kl_joint_get_constraint_force(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->constraint_force : glms_vec3_zero();
}

vec3s kl_joint_get_constraint_torque(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->constraint_torque : glms_vec3_zero();
}
