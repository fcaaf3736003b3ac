// Kollide viewer — the frame-time scene behind --bench-boxes N: unit boxes in square layers with
// small gaps, so that the first frames render all of them and the step has real contacts once the
// layers settle. Not in the scene menu: it exists to measure the renderer against the step.
// SPDX-License-Identifier: MIT
#include "bench_boxes.h"

#include "scenes.h"

#include <math.h>

enum
{
	kl_bench_layer_side = 40, ///< boxes per row: 1,600 per layer
};

bool kl_viewer_build_bench_boxes(kl_world_id world, int count)
{
	int side =
		count < kl_bench_layer_side * kl_bench_layer_side ? (int)ceilf(sqrtf((float)count)) : kl_bench_layer_side;
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
