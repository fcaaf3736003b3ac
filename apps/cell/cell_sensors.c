// Kollide robot cell — sensors: light barriers and reflex scanners as ray casts, presence as an
// overlap of a box volume, displacement from two bodies' relative pose. Each writes its discrete
// input and its input register after the step.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <math.h>

static bool count_movable(kl_shape_id shape, void* context)
{
	int* count = context;
	*count += kl_body_get_type(kl_shape_get_body(shape)) != KL_BODY_STATIC;
	return true;
}

static void read_sensor(kl_world_id world, kl_cell_sensor* s)
{
	switch (s->type)
	{
		case KL_CELL_LIGHT_BARRIER:
		case KL_CELL_REFLEX_SCANNER:
		{
			vec3s ray = glms_vec3_sub(s->to, s->from);
			kl_ray_hit hit;
			s->active = kl_world_cast_ray(world, s->from, ray, kl_cell_query_filter(), &hit);
			s->value = (s->active ? hit.fraction : 1.0f) * glms_vec3_norm(ray);
			break;
		}
		case KL_CELL_PRESENCE:
		{
			int count = 0;
			kl_shape_proxy box = kl_make_box_proxy(s->half_extents);
			kl_world_overlap_shape(world, &box, s->box_pose, kl_cell_query_filter(), count_movable, &count);
			s->active = count > 0;
			s->value = (float)count;
			break;
		}
		case KL_CELL_DISPLACEMENT:
		{
			kl_body_id body = kl_world_find_body(world, s->body);
			kl_body_id reference = kl_world_find_body(world, s->reference);
			if (KL_IS_NULL(body) || KL_IS_NULL(reference))
			{
				break; // a removed body keeps the last reading
			}
			kl_transform r = kl_body_get_transform(reference);
			vec3s offset = kl_inv_rotate(r.q, glms_vec3_sub(kl_body_get_position(body), r.p));
			s->value = glms_vec3_dot(offset, s->axis) - s->zero;
			s->active = fabsf(s->value) > s->threshold;
			break;
		}
	}
}

static void set_bit(uint8_t* bits, int address, bool on)
{
	if (address >= 0)
	{
		bits[address] = on ? 1 : 0;
	}
}

void kl_cell_read_sensors(kl_cell* cell)
{
	for (int i = 0; i < cell->sensor_count; ++i)
	{
		kl_cell_sensor* s = &cell->sensors[i];
		read_sensor(cell->world, s);
		set_bit(cell->map->tab_input_bits, s->discrete_input, s->active);
		if (s->input_register.address >= 0)
		{
			cell->map->tab_input_registers[s->input_register.address] = kl_cell_encode(s->input_register, s->value);
		}
	}
}
