// Kollide robot cell — one step of the cell and its system block.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint16_t kl_cell_encode(kl_cell_scaled s, float value)
{
	double raw = ((double)value - s.offset) / s.scale;
	raw = isnan(raw) ? 0.0 : round(raw);
	raw = raw < -32768.0 ? -32768.0 : (raw > 32767.0 ? 32767.0 : raw);
	return (uint16_t)(int16_t)raw;
}

float kl_cell_decode(kl_cell_scaled s, uint16_t raw)
{
	return (float)((int16_t)raw) * s.scale + s.offset;
}

bool kl_cell_inside_box(kl_transform pose, vec3s half_extents, vec3s point)
{
	vec3s p = kl_inv_transform_point(pose, point);
	return fabsf(p.x) <= half_extents.x && fabsf(p.y) <= half_extents.y && fabsf(p.z) <= half_extents.z;
}

kl_filter kl_cell_query_filter(void)
{
	kl_filter f = {UINT64_MAX, UINT64_MAX, 0};
	return f;
}

static void put32(uint16_t* registers, int high, uint32_t value)
{
	registers[high] = (uint16_t)(value >> 16);
	registers[high + 1] = (uint16_t)(value & 0xffffu);
}

void kl_cell_write_system_block(kl_cell* cell)
{
	uint16_t* ir = cell->map->tab_input_registers;
	put32(ir, KL_CELL_IR_STEP_HIGH, (uint32_t)cell->step_count);
	ir[KL_CELL_IR_STATE] = (uint16_t)cell->state;
	put32(ir, KL_CELL_IR_OVERRUNS_HIGH, cell->overruns);
	put32(ir, KL_CELL_IR_CYCLES_HIGH, cell->cycles);
	ir[KL_CELL_IR_STEP_US] = (uint16_t)cell->step_us;
}

void kl_cell_step(kl_cell* cell)
{
	if (cell->state == KL_CELL_IDLE)
	{
		cell->state = KL_CELL_RUNNING;
	}
	kl_cell_log_outputs(cell);
	kl_cell_apply_actuators(cell);
	kl_world_step(cell->world, cell->dt, cell->substeps);
	++cell->step_count;
	kl_cell_run_sinks(cell);
	kl_cell_read_sensors(cell);
	kl_cell_run_oracle(cell);
	kl_cell_write_system_block(cell);
}
