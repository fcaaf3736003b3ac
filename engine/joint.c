// Kollide — joint creation, destruction, queries and runtime changes (motors, limits, springs,
// targets); the constraint rows live in solver/joint_*.c.
// SPDX-License-Identifier: MIT
#include "joint.h"

#include "core.h"
#include "input_limits.h"
#include "island.h"
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

/// Joints whose coordinate is an angle: their motor speed is rad/s, their motor target rad.
static bool is_angular_joint(kl_joint_type type)
{
	return type == KL_JOINT_REVOLUTE || type == KL_JOINT_SPHERICAL || type == KL_JOINT_FIXED;
}

/// Motor speed and position target of a joint of this type within the valid ranges: an angular
/// speed (rad/s) or a linear one; a length for prismatic and distance joints (a revolute target
/// is wrapped to the nearest turn: any finite angle).
static kl_result check_motor_values(const kl_world* world, kl_joint_type type, float speed, float target)
{
	if (is_angular_joint(type))
	{
		if (!(fabsf(speed) <= KL_MAX_ANGULAR_SPEED))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint motor speed %g rad/s is out of range [-%g, %g]",
						   (double)speed, (double)KL_MAX_ANGULAR_SPEED, (double)KL_MAX_ANGULAR_SPEED);
		}
		if (!isfinite(target))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint motor target %g must be finite", (double)target);
		}
		return KL_OK;
	}
	if (kl_check_scaled_value(world, speed, KL_MAX_LINEAR_SPEED, "joint motor speed") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return kl_check_scaled_value(world, target, KL_MAX_JOINT_LENGTH, "joint motor target");
}

/// Limits of prismatic and distance joints are lengths within the joint length range.
static kl_result check_limit_lengths(const kl_world* world, kl_joint_type type, float lower, float upper)
{
	if (type != KL_JOINT_PRISMATIC && type != KL_JOINT_DISTANCE)
	{
		return KL_OK;
	}
	if (kl_check_scaled_value(world, lower, KL_MAX_JOINT_LENGTH, "joint lower limit") != KL_OK ||
		kl_check_scaled_value(world, upper, KL_MAX_JOINT_LENGTH, "joint upper limit") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return KL_OK;
}

static kl_result validate_joint_def(const kl_world* world, const kl_joint_def* def)
{
	if ((int)def->type < 0 || def->type >= KL_JOINT_TYPE_COUNT)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint type %d is not a kl_joint_type", (int)def->type);
	}
	if (!kl_transform_is_finite(def->local_frame_a) || !kl_transform_is_finite(def->local_frame_b))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint frames must be finite");
	}
	if (kl_check_coordinates(world, def->local_frame_a.p, KL_MAX_JOINT_LENGTH, "joint frame a origin") != KL_OK ||
		kl_check_coordinates(world, def->local_frame_b.p, KL_MAX_JOINT_LENGTH, "joint frame b origin") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	if (!isfinite(def->lower) || !isfinite(def->upper) || (def->enable_limit && def->lower > def->upper))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint limits must be finite with lower <= upper");
	}
	if (!isfinite(def->cone_angle) ||
		(def->type == KL_JOINT_SPHERICAL && def->enable_limit && !(def->cone_angle > 0.0f && def->cone_angle <= GLM_PIf)))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "spherical joint cone angle %g must lie in (0, pi]", def->cone_angle);
	}
	if (def->type == KL_JOINT_SPHERICAL && def->enable_limit && (def->lower < -GLM_PIf || def->upper > GLM_PIf))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "spherical twist limits [%g, %g] must lie within [-pi, pi]",
					   def->lower, def->upper);
	}
	if (!isfinite(def->motor_speed) || !isfinite(def->motor_target) || !non_negative(def->max_motor_force) ||
		!kl_vec3_is_finite(def->motor_angular_velocity))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint motor values must be finite, max force >= 0");
	}
	if (def->type == KL_JOINT_SPHERICAL && def->enable_motor && def->motor_mode != KL_MOTOR_VELOCITY)
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "spherical joint motors drive an angular velocity only");
	}
	if (!non_negative(def->spring_hertz) || !non_negative(def->spring_damping_ratio) || !non_negative(def->length))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint spring and length must be finite and >= 0");
	}
	if (check_limit_lengths(world, def->type, def->lower, def->upper) != KL_OK ||
		check_motor_values(world, def->type, def->motor_speed, def->motor_target) != KL_OK ||
		kl_check_angular_speed(def->motor_angular_velocity, "joint motor angular velocity") != KL_OK ||
		kl_check_hertz(def->spring_hertz, "joint spring frequency") != KL_OK ||
		kl_check_damping_ratio(def->spring_damping_ratio, "joint spring damping ratio") != KL_OK ||
		kl_check_scaled_value(world, def->length, KL_MAX_JOINT_LENGTH, "joint length") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
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
	if (validate_joint_def(world, def) != KL_OK)
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
	// A target joint starts at rest: its target is frame a's origin, where the def put it.
	joint->target = kl_transform_point(world->sims[a->id].transform, copy.local_frame_a.p);
	joint->next_joint[0] = a->head_joint;
	joint->next_joint[1] = b->head_joint;
	a->head_joint = slot;
	b->head_joint = slot;
	a->joint_count += 1;
	b->joint_count += 1;
	world->joint_count += 1;
	kl_touch_body_proxies(world, a->id);
	kl_touch_body_proxies(world, b->id);
	// A constraint from an awake body pulls on the other: both wake, with their sleeping sets. A
	// joint between sleeping (or static) bodies leaves them asleep, as a loaded scene saved them;
	// when one wakes, the islands pass wakes the other (island.c).
	if (a->is_awake || b->is_awake)
	{
		kl_wake_body(world, a->id);
		kl_wake_body(world, b->id);
	}
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

const char* kl_joint_get_name(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->name : NULL;
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
	return joint != NULL ? joint->solver.constraint_force : glms_vec3_zero();
}

vec3s kl_joint_get_constraint_torque(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->solver.constraint_torque : glms_vec3_zero();
}

// ---------------------------------------------------------------------------------------------
// Runtime changes. Each validates its input, refuses while the world steps and wakes both bodies
// so that a sleeping mechanism responds.

/// Looks up a joint for a change: valid id, world not stepping, and a type that has the feature.
static kl_joint* begin_change(kl_joint_id id, kl_world** world_out, uint32_t type_mask, const char* what)
{
	kl_world* world = NULL;
	kl_joint* joint = kl_get_joint(id, &world);
	if (joint == NULL)
	{
		return NULL;
	}
	if (world->locked)
	{
		kl_fail(KL_ERR_LOCKED, "cannot change a joint's %s while the world steps", what);
		return NULL;
	}
	if ((type_mask & (1u << joint->def.type)) == 0)
	{
		kl_fail(KL_ERR_UNSUPPORTED, "joint type %d has no %s", (int)joint->def.type, what);
		return NULL;
	}
	*world_out = world;
	return joint;
}

static kl_result end_change(kl_world* world, const kl_joint* joint)
{
	kl_wake_body(world, joint->body_a);
	kl_wake_body(world, joint->body_b);
	return KL_OK;
}

#define KL_AXIAL_JOINTS ((1u << KL_JOINT_REVOLUTE) | (1u << KL_JOINT_PRISMATIC) | (1u << KL_JOINT_DISTANCE))
#define KL_SPRING_JOINTS (KL_AXIAL_JOINTS | (1u << KL_JOINT_FIXED) | (1u << KL_JOINT_TARGET))
#define KL_FORCE_JOINTS (KL_AXIAL_JOINTS | (1u << KL_JOINT_TARGET))
#define KL_LIMIT_JOINTS (KL_AXIAL_JOINTS | (1u << KL_JOINT_SPHERICAL))
#define KL_MOTOR_JOINTS (KL_AXIAL_JOINTS | (1u << KL_JOINT_SPHERICAL))

kl_result kl_joint_enable_motor(kl_joint_id id, bool enable)
{
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_MOTOR_JOINTS, "motor");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	if (enable && joint->def.type == KL_JOINT_SPHERICAL && joint->def.motor_mode != KL_MOTOR_VELOCITY)
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "spherical joint motors drive an angular velocity only");
	}
	if (joint->def.enable_motor != enable)
	{
		joint->solver.motor_impulse = 0.0f;
		joint->solver.motor_angular_impulse = glms_vec3_zero();
	}
	joint->def.enable_motor = enable;
	return end_change(world, joint);
}

kl_result kl_joint_set_motor_speed(kl_joint_id id, float speed)
{
	if (!isfinite(speed))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "motor speed %g must be finite", speed);
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_AXIAL_JOINTS, "motor");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	if (check_motor_values(world, joint->def.type, speed, 0.0f) != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	joint->def.motor_mode = KL_MOTOR_VELOCITY;
	joint->def.motor_speed = speed;
	return end_change(world, joint);
}

kl_result kl_joint_set_motor_target(kl_joint_id id, float target)
{
	if (!isfinite(target))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "motor target %g must be finite", target);
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_AXIAL_JOINTS, "motor");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	if (check_motor_values(world, joint->def.type, 0.0f, target) != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	joint->def.motor_mode = KL_MOTOR_POSITION;
	joint->def.motor_target = target;
	return end_change(world, joint);
}

kl_result kl_joint_set_max_motor_force(kl_joint_id id, float force)
{
	if (!(force >= 0.0f) || !isfinite(force))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "max motor force %g must be finite and >= 0", force);
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_FORCE_JOINTS | (1u << KL_JOINT_SPHERICAL), "motor force");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	joint->def.max_motor_force = force;
	return end_change(world, joint);
}

kl_result kl_joint_enable_limit(kl_joint_id id, bool enable)
{
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_LIMIT_JOINTS, "limits");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	if (enable && joint->def.lower > joint->def.upper)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint limits lower %g > upper %g", joint->def.lower, joint->def.upper);
	}
	if (enable && joint->def.type == KL_JOINT_SPHERICAL &&
		(joint->def.lower < -GLM_PIf || joint->def.upper > GLM_PIf ||
		 !(joint->def.cone_angle > 0.0f && joint->def.cone_angle <= GLM_PIf)))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "spherical limits need twist within [-pi, pi] and a cone angle in (0, pi]");
	}
	if (joint->def.enable_limit != enable)
	{
		joint->solver.lower_impulse = 0.0f;
		joint->solver.upper_impulse = 0.0f;
		joint->solver.cone_impulse = 0.0f;
	}
	joint->def.enable_limit = enable;
	return end_change(world, joint);
}

kl_result kl_joint_set_limits(kl_joint_id id, float lower, float upper)
{
	if (!isfinite(lower) || !isfinite(upper) || lower > upper)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "joint limits [%g, %g] must be finite with lower <= upper", lower,
					   upper);
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_LIMIT_JOINTS, "limits");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	bool angular = joint->def.type == KL_JOINT_REVOLUTE || joint->def.type == KL_JOINT_SPHERICAL;
	if (angular && (lower < -GLM_PIf || upper > GLM_PIf))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "angle limits [%g, %g] must lie within [-pi, pi]", lower, upper);
	}
	if (check_limit_lengths(world, joint->def.type, lower, upper) != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	joint->def.lower = lower;
	joint->def.upper = upper;
	joint->solver.lower_impulse = 0.0f;
	joint->solver.upper_impulse = 0.0f;
	return end_change(world, joint);
}

kl_result kl_joint_set_cone_angle(kl_joint_id id, float angle)
{
	if (!(angle > 0.0f && angle <= GLM_PIf))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "cone angle %g must lie in (0, pi]", angle);
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, 1u << KL_JOINT_SPHERICAL, "cone limit");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	joint->def.cone_angle = angle;
	joint->solver.cone_impulse = 0.0f;
	return end_change(world, joint);
}

kl_result kl_joint_enable_spring(kl_joint_id id, bool enable)
{
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_AXIAL_JOINTS | (1u << KL_JOINT_FIXED) | (1u << KL_JOINT_SPHERICAL),
								   "spring");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	if (joint->def.enable_spring != enable)
	{
		joint->solver.spring_impulse = 0.0f;
		joint->solver.linear_impulse = glms_vec3_zero(); // distance: the rigid row comes and goes with the spring
		if (joint->def.type == KL_JOINT_SPHERICAL)
		{
			joint->solver.angular_impulse = glms_vec3_zero(); // the spherical spring's rows
		}
	}
	joint->def.enable_spring = enable;
	return end_change(world, joint);
}

kl_result kl_joint_set_spring(kl_joint_id id, float hertz, float damping_ratio)
{
	if (kl_check_hertz(hertz, "joint spring frequency") != KL_OK ||
		kl_check_damping_ratio(damping_ratio, "joint spring damping ratio") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, KL_SPRING_JOINTS | (1u << KL_JOINT_SPHERICAL), "spring");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	joint->def.spring_hertz = hertz;
	joint->def.spring_damping_ratio = damping_ratio;
	if (hertz == 0.0f && joint->def.type == KL_JOINT_SPHERICAL)
	{
		joint->solver.angular_impulse = glms_vec3_zero(); // the spring's rows are off
	}
	return end_change(world, joint);
}

kl_result kl_joint_set_motor_angular_velocity(kl_joint_id id, vec3s velocity)
{
	if (kl_check_angular_speed(velocity, "motor angular velocity") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, 1u << KL_JOINT_SPHERICAL, "angular velocity motor");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	joint->def.motor_mode = KL_MOTOR_VELOCITY; // the only mode of a spherical motor
	joint->def.motor_angular_velocity = velocity;
	return end_change(world, joint);
}

kl_result kl_joint_set_target(kl_joint_id id, vec3s target)
{
	kl_world* world = NULL;
	kl_joint* joint = begin_change(id, &world, 1u << KL_JOINT_TARGET, "target");
	if (joint == NULL)
	{
		return kl_last_error_code(); // set by begin_change
	}
	if (kl_check_coordinates(world, target, KL_MAX_COORDINATE, "joint target") != KL_OK)
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	joint->target = target;
	return end_change(world, joint);
}

vec3s kl_joint_get_target(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->target : glms_vec3_zero();
}

float kl_joint_get_motor_force(kl_joint_id id)
{
	kl_joint* joint = kl_get_joint(id, NULL);
	return joint != NULL ? joint->solver.motor_force : 0.0f;
}

// ---------------------------------------------------------------------------------------------
// Joint coordinates from the bodies' current poses.

typedef struct joint_pose
{
	versors qa; ///< world rotation of frame a
	versors qb;
	vec3s pa; ///< world anchors
	vec3s pb;
	vec3s va; ///< velocity of body a's material point at anchor b
	vec3s vb; ///< velocity of body b at anchor b
	vec3s vpa; ///< velocity of body a at anchor a
	vec3s wa;
	vec3s wb;
} joint_pose;

static joint_pose measure_joint(const kl_world* world, const kl_joint* joint)
{
	const kl_body_sim* sa = &world->sims[joint->body_a];
	const kl_body_sim* sb = &world->sims[joint->body_b];
	const kl_body_state* xa = &world->states[joint->body_a];
	const kl_body_state* xb = &world->states[joint->body_b];
	joint_pose p;
	p.qa = glms_quat_mul(sa->transform.q, joint->def.local_frame_a.q);
	p.qb = glms_quat_mul(sb->transform.q, joint->def.local_frame_b.q);
	p.pa = kl_transform_point(sa->transform, joint->def.local_frame_a.p);
	p.pb = kl_transform_point(sb->transform, joint->def.local_frame_b.p);
	p.wa = xa->angular_velocity;
	p.wb = xb->angular_velocity;
	p.va = glms_vec3_add(xa->linear_velocity, glms_vec3_cross(p.wa, glms_vec3_sub(p.pb, sa->center)));
	p.vpa = glms_vec3_add(xa->linear_velocity, glms_vec3_cross(p.wa, glms_vec3_sub(p.pa, sa->center)));
	p.vb = glms_vec3_add(xb->linear_velocity, glms_vec3_cross(p.wb, glms_vec3_sub(p.pb, sb->center)));
	return p;
}

static kl_joint* joint_of_types(kl_joint_id id, kl_world** world_out, uint32_t type_mask, const char* what)
{
	kl_joint* joint = kl_get_joint(id, world_out);
	if (joint != NULL && (type_mask & (1u << joint->def.type)) == 0)
	{
		kl_fail(KL_ERR_UNSUPPORTED, "joint type %d has no %s", (int)joint->def.type, what);
		return NULL;
	}
	return joint;
}

float kl_joint_get_angle(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = joint_of_types(id, &world, (1u << KL_JOINT_REVOLUTE) | (1u << KL_JOINT_SPHERICAL), "angle");
	if (joint == NULL)
	{
		return 0.0f;
	}
	joint_pose p = measure_joint(world, joint);
	versors qb = glms_quat_dot(p.qa, p.qb) < 0.0f ? glms_quat_init(-p.qb.x, -p.qb.y, -p.qb.z, -p.qb.w) : p.qb;
	versors rel = glms_quat_mul(glms_quat_conjugate(p.qa), qb);
	return 2.0f * atan2f(rel.z, rel.w);
}

float kl_joint_get_swing_angle(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = joint_of_types(id, &world, 1u << KL_JOINT_SPHERICAL, "swing angle");
	if (joint == NULL)
	{
		return 0.0f;
	}
	joint_pose p = measure_joint(world, joint);
	vec3s za = kl_rotate(p.qa, kl_vec3(0.0f, 0.0f, 1.0f));
	vec3s zb = kl_rotate(p.qb, kl_vec3(0.0f, 0.0f, 1.0f));
	return atan2f(glms_vec3_norm(glms_vec3_cross(za, zb)), glms_vec3_dot(za, zb));
}

float kl_joint_get_translation(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = joint_of_types(id, &world, (1u << KL_JOINT_PRISMATIC) | (1u << KL_JOINT_DISTANCE), "translation");
	if (joint == NULL)
	{
		return 0.0f;
	}
	joint_pose p = measure_joint(world, joint);
	vec3s d = glms_vec3_sub(p.pb, p.pa);
	if (joint->def.type == KL_JOINT_DISTANCE)
	{
		return glms_vec3_norm(d);
	}
	return glms_vec3_dot(kl_rotate(p.qa, kl_vec3(0.0f, 0.0f, 1.0f)), d);
}

float kl_joint_get_speed(kl_joint_id id)
{
	kl_world* world = NULL;
	kl_joint* joint = joint_of_types(id, &world, KL_AXIAL_JOINTS, "speed");
	if (joint == NULL)
	{
		return 0.0f;
	}
	joint_pose p = measure_joint(world, joint);
	vec3s axis = kl_rotate(p.qa, kl_vec3(0.0f, 0.0f, 1.0f));
	switch (joint->def.type)
	{
		case KL_JOINT_REVOLUTE:
			return glms_vec3_dot(axis, glms_vec3_sub(p.wb, p.wa));
		case KL_JOINT_PRISMATIC:
			return glms_vec3_dot(axis, glms_vec3_sub(p.vb, p.va));
		default:
		{
			vec3s d = glms_vec3_sub(p.pb, p.pa);
			float length = glms_vec3_norm(d);
			if (!(length > 1.0e-9f))
			{
				return 0.0f;
			}
			return glms_vec3_dot(d, glms_vec3_sub(p.vb, p.vpa)) / length;
		}
	}
}
