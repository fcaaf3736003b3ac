// Kollide robot cell — actuators: conveyor belts (a shape's surface velocity), joint position
// motors, a two-jaw gripper, a suction cup, part sources and sinks. Each reads its coil and
// holding register before the step and changes the world only when they changed.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <math.h>
#include <stdio.h>

static bool coil_on(const kl_cell* cell, const kl_cell_actuator* a)
{
	return a->coil < 0 || cell->map->tab_bits[a->coil] != 0;
}

/// The register's value, or fallback where none is mapped.
static float register_value(const kl_cell* cell, const kl_cell_actuator* a, float fallback)
{
	kl_cell_scaled r = a->holding_register;
	return r.address >= 0 ? kl_cell_decode(r, cell->map->tab_registers[r.address]) : fallback;
}

/// True when (on, value) differ from what was applied last (and records them).
static bool changed(kl_cell_actuator* a, bool on, float value)
{
	bool differs = !a->applied || a->applied_on != on || a->applied_value != value;
	a->applied = true;
	a->applied_on = on;
	a->applied_value = value;
	return differs;
}

static void report_failure(kl_cell* cell, const kl_cell_actuator* a)
{
	kl_cell_add_event(cell, "actuator %s: %s", a->name, kl_last_error());
}

static void apply_conveyor(kl_cell* cell, kl_cell_actuator* a, bool on)
{
	float speed = register_value(cell, a, a->speed);
	if (changed(a, on, speed))
	{
		kl_material m = kl_shape_get_material(a->shape);
		m.surface_velocity = glms_vec3_scale(a->direction, on ? speed : 0.0f);
		if (kl_shape_set_material(a->shape, m) != KL_OK)
		{
			report_failure(cell, a);
		}
	}
}

static void drive_joint(kl_cell* cell, const kl_cell_actuator* a, kl_joint_id joint, bool on, float target)
{
	if (kl_joint_set_max_motor_force(joint, a->max_force) != KL_OK ||
		kl_joint_set_motor_target(joint, target) != KL_OK || kl_joint_enable_motor(joint, on) != KL_OK)
	{
		report_failure(cell, a);
	}
}

/// Gripper: holding while closed and a jaw stopped short of its closed target (on a part).
static bool gripper_holds(const kl_cell_actuator* a, bool on)
{
	const float tolerance = 0.002f;
	return on && (fabsf(kl_joint_get_translation(a->joints[0]) - a->closed) > tolerance ||
				  fabsf(kl_joint_get_translation(a->joints[1]) - a->closed) > tolerance);
}

/// Gripper: jaw a drives toward the coil's target with the force limit; jaw b follows jaw a's
/// stroke with a stiffer motor (a synchronised parallel gripper, as a rack and pinion couples real
/// ones), so a squeezed part stays centred: two equal force-limited motors would balance in force
/// only and let the part drift.
/// How much more force the following jaw may use than the driving one.
#define KL_CELL_FOLLOWER_FORCE 10.0f

static void apply_gripper(kl_cell* cell, kl_cell_actuator* a, bool on)
{
	float low = a->open < a->closed ? a->open : a->closed;
	float high = a->open < a->closed ? a->closed : a->open;
	float follow = kl_joint_get_translation(a->joints[0]);
	follow = follow < low ? low : (follow > high ? high : follow);
	if (changed(a, on, 0.0f))
	{
		drive_joint(cell, a, a->joints[0], true, on ? a->closed : a->open);
		drive_joint(cell, a, a->joints[1], true, follow);
		// A stiff follower: the grip force is jaw a's limit, jaw b only mirrors it.
		kl_joint_set_max_motor_force(a->joints[1], KL_CELL_FOLLOWER_FORCE * a->max_force);
	}
	else if (follow != a->follow && kl_joint_set_motor_target(a->joints[1], follow) != KL_OK)
	{
		report_failure(cell, a);
	}
	a->follow = follow;
}

/// Suction: on, weld the first movable body the cup touches at its current pose; off, let go.
static void apply_suction(kl_cell* cell, kl_cell_actuator* a, bool on)
{
	if (!on && KL_IS_NON_NULL(a->weld))
	{
		kl_destroy_joint(a->weld);
		a->weld = kl_null_joint_id;
		kl_cell_add_event(cell, "suction %s released", a->name);
	}
	if (!on || KL_IS_NON_NULL(a->weld))
	{
		return;
	}
	kl_contact_data contacts[8];
	int n = kl_body_get_contact_data(a->body, contacts, 8);
	for (int i = 0; i < n && i < 8; ++i)
	{
		kl_body_id other = kl_shape_get_body(contacts[i].shape_a);
		other = KL_ID_EQUALS(other, a->body) ? kl_shape_get_body(contacts[i].shape_b) : other;
		if (kl_body_get_type(other) == KL_BODY_DYNAMIC && contacts[i].point_count > 0)
		{
			kl_joint_def def = kl_joint_def_from_world(KL_JOINT_FIXED, a->body, other, contacts[i].points[0].point,
													   kl_vec3(0.0f, 0.0f, 1.0f));
			a->weld = kl_create_joint(kl_body_get_world(a->body), &def);
			const char* name = kl_body_get_name(other);
			kl_cell_add_event(cell, "suction %s holds %s", a->name, name != NULL ? name : "a part");
			return;
		}
	}
}

static void apply_source(kl_cell* cell, kl_cell_actuator* a, bool on)
{
	if (on && !a->last_coil)
	{
		char name[KL_CELL_NAME_SIZE + 16];
		snprintf(name, sizeof(name), "%s#%d", a->name, a->count + 1);
		kl_body_def bd = kl_default_body_def();
		bd.type = KL_BODY_DYNAMIC;
		bd.position = a->box_pose.p;
		bd.rotation = a->box_pose.q;
		bd.name = name;
		kl_body_id body = kl_create_body(cell->world, &bd);
		kl_shape_def sd = kl_default_shape_def();
		sd.material.density = a->density;
		if (KL_IS_NULL(body) || KL_IS_NULL(kl_create_box_shape(body, &sd, a->half_extents)))
		{
			report_failure(cell, a);
		}
		else
		{
			++a->count;
			kl_cell_add_event(cell, "source %s made %s", a->name, name);
		}
	}
	a->last_coil = on;
}

void kl_cell_apply_actuators(kl_cell* cell)
{
	for (int i = 0; i < cell->actuator_count; ++i)
	{
		kl_cell_actuator* a = &cell->actuators[i];
		bool on = coil_on(cell, a);
		bool holding = false;
		switch (a->type)
		{
			case KL_CELL_CONVEYOR: apply_conveyor(cell, a, on); break;
			case KL_CELL_JOINT_MOTOR:
			{
				float target = register_value(cell, a, 0.0f);
				if (changed(a, on, target))
				{
					drive_joint(cell, a, a->joints[0], on, target);
				}
				break;
			}
			case KL_CELL_GRIPPER:
				apply_gripper(cell, a, on);
				holding = gripper_holds(a, on);
				break;
			case KL_CELL_SUCTION:
				apply_suction(cell, a, on);
				holding = KL_IS_NON_NULL(a->weld);
				break;
			case KL_CELL_SOURCE: apply_source(cell, a, on); break;
			case KL_CELL_SINK: break;
			case KL_CELL_ROBOT: kl_cell_apply_robot(cell, a, on); break;
		}
		if (a->discrete_input >= 0)
		{
			cell->map->tab_input_bits[a->discrete_input] = holding;
		}
		if (a->input_register.address >= 0)
		{
			cell->map->tab_input_registers[a->input_register.address] =
				kl_cell_encode(a->input_register, (float)a->count);
		}
	}
}

typedef struct sink_query
{
	kl_body_id found[16];
	int count;
} sink_query;

static bool collect_dynamic(kl_shape_id shape, void* context)
{
	sink_query* q = context;
	kl_body_id body = kl_shape_get_body(shape);
	if (kl_body_get_type(body) == KL_BODY_DYNAMIC && q->count < 16)
	{
		q->found[q->count++] = body;
	}
	return q->count < 16;
}

void kl_cell_run_sinks(kl_cell* cell)
{
	for (int i = 0; i < cell->actuator_count; ++i)
	{
		kl_cell_actuator* a = &cell->actuators[i];
		if (a->type != KL_CELL_SINK || !coil_on(cell, a))
		{
			continue;
		}
		sink_query q = {.count = 0};
		kl_shape_proxy box = kl_make_box_proxy(a->half_extents);
		kl_world_overlap_shape(cell->world, &box, a->box_pose, kl_cell_query_filter(), collect_dynamic, &q);
		for (int k = 0; k < q.count; ++k)
		{
			// Only a body whose centre is inside goes (a part touching the sink's edge stays).
			if (kl_cell_inside_box(a->box_pose, a->half_extents, kl_body_get_position(q.found[k])) &&
				kl_body_is_valid(q.found[k]))
			{
				const char* name = kl_body_get_name(q.found[k]);
				kl_cell_add_event(cell, "sink %s removed %s", a->name, name != NULL ? name : "a part");
				kl_destroy_body(q.found[k]);
				++a->count;
			}
		}
		if (a->input_register.address >= 0)
		{
			cell->map->tab_input_registers[a->input_register.address] =
				kl_cell_encode(a->input_register, (float)a->count);
		}
	}
}
