// Kollide scenes — box_layers (Kollide benchmark): unit boxes in square layers with small gaps over
// a ground, sleeping off. The first frames draw every box and, once the layers settle, every step
// has real contacts: the viewer's --bench-boxes N runs it at N boxes to weigh rendering against
// the step, and kollide-bench times its step at 10,000 boxes.
// SPDX-License-Identifier: MIT
#include "scenes.h"

#include <math.h>

enum
{
	k_default_count = 10000,
	k_layer_side = 40, ///< boxes per row: 1,600 per layer
};

/// Sleeping off: every step works on every box, so the step cost stays measurable.
static void configure(kl_world_def* def)
{
	def->enable_sleep = false;
}

/// count boxes (half extent 0.5 m, density 1000, friction 0.6) on a 1.1 m grid centred on the
/// origin, k_layer_side to a row (fewer when all fit in one layer), filling a layer row by row
/// before the next one starts 1.05 m higher; a ground reaching 2 m past the grid on each side.
static bool create_sized(kl_world_id world, int count, void** state)
{
	(void)state;
	if (count < 1)
	{
		return false;
	}
	int side = count < k_layer_side * k_layer_side ? (int)ceilf(sqrtf((float)count)) : k_layer_side;
	float pitch = 1.1f;
	float half = 0.5f * pitch * (float)side + 2.0f;
	if (KL_IS_NULL(kl_scene_add_ground(world, half, half, 0.6f)))
	{
		return false;
	}
	for (int i = 0; i < count; ++i)
	{
		int layer = i / (side * side);
		int row = (i / side) % side;
		int column = i % side;
		vec3s p = kl_vec3(pitch * ((float)column - 0.5f * (float)(side - 1)),
						  pitch * ((float)row - 0.5f * (float)(side - 1)), 0.5f + 1.05f * (float)layer);
		kl_body_id body = kl_scene_add_box(world, p, glms_quat_identity(), kl_vec3(0.5f, 0.5f, 0.5f), 1000.0f, 0.6f);
		if (KL_IS_NULL(body))
		{
			return false;
		}
	}
	return true;
}

static bool create(kl_world_id world, void** state)
{
	return create_sized(world, k_default_count, state);
}

const kl_scene kl_scene_box_layers = {
	.name = "box_layers",
	.description = "Kollide benchmark: 10,000 unit boxes in 40x40 layers settling on a ground, sleeping off",
	.benchmark_steps = 120,
	.configure = configure,
	.create = create,
	.create_sized = create_sized,
};
