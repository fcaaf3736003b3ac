// Kollide — a model of the GPU's point-shell search run on the CPU (bench/pointshell_warp_model.c): the
// sample items of a planned batch in the GPU's order, 32 to a warp, counting each search's steps.
// A warp runs its lanes in lock step, so it lasts about as long as its longest search; the sum over
// warps of that longest search is a device-free figure for changes to the search's shape.
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell.h"

typedef struct ps_warp_model
{
	long long samples;	  ///< sample items (GPU threads)
	long long idle;		  ///< items whose search stopped at the octree's root
	long long nodes;	  ///< node tests, all items
	long long entries;	  ///< leaf entry tests, all items
	long long emits;	  ///< keys offered to the set (each an atomic on the GPU)
	long long warps;
	long long warp_steps; ///< sum over warps of the longest item's nodes + entries
	long long worst_warp; ///< the longest item of any warp
} ps_warp_model;

/// Runs every sample item of the planned batch on this thread (the batch's views must be set, as
/// kl_ps_plan leaves them) and fills the model.
void ps_warp_model_run(const kl_ps_batch* batch, ps_warp_model* model);
