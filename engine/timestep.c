// Kollide — fixed time step with an accumulator, for real-time loops.
// SPDX-License-Identifier: MIT
#include "core.h"

#include <kollide/kollide.h>

kl_fixed_timestep kl_default_fixed_timestep(float dt, int substeps)
{
	kl_fixed_timestep ts = {dt, substeps, 8, 0.0};
	return ts;
}

int kl_fixed_timestep_advance(kl_world_id world, kl_fixed_timestep* ts, double frame_seconds)
{
	if (ts == NULL || !(ts->dt > 0.0f) || !isfinite(ts->dt) || ts->max_steps_per_frame < 1)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "fixed time step needs dt > 0 and max_steps_per_frame >= 1");
		return -1;
	}
	if (!(frame_seconds >= 0.0) || !isfinite(frame_seconds))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "frame time must be finite and non-negative");
		return -1;
	}
	ts->accumulator += frame_seconds;
	int steps = 0;
	while (ts->accumulator >= (double)ts->dt && steps < ts->max_steps_per_frame)
	{
		if (kl_world_step(world, ts->dt, ts->substeps) != KL_OK)
		{
			return -1;
		}
		ts->accumulator -= (double)ts->dt;
		steps += 1;
	}
	if (ts->accumulator >= (double)ts->dt)
	{
		// A stall (debugger, window drag): drop the backlog instead of spiralling.
		ts->accumulator = fmod(ts->accumulator, (double)ts->dt);
	}
	return steps;
}

float kl_fixed_timestep_alpha(const kl_fixed_timestep* ts)
{
	if (ts == NULL || !(ts->dt > 0.0f))
	{
		return 0.0f;
	}
	float alpha = (float)(ts->accumulator / (double)ts->dt);
	return alpha < 0.0f ? 0.0f : (alpha >= 1.0f ? 0.999999f : alpha);
}
