// Kollide internal — the stages of kl_world_step, each a function so that every module slots
// its stage in (broadphase, narrowphase and the constraint solver arrive in their issues).
// SPDX-License-Identifier: MIT
#pragma once

#include "world.h"

/// Remembers the poses for interpolation and clears last step's events.
void kl_step_prepare(kl_world* world);
/// The sub-step loop: integrate velocities, (solve constraints), integrate positions, (relax).
void kl_step_solve(kl_world* world, float dt, int substeps);
/// The step's end: cleared force accumulators, sleep, body move events, counters. (Shape bounds are
/// updated after each collision pass, kl_world_step.)
void kl_step_finalize(kl_world* world, float dt);
