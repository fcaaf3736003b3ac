// Kollide internal — the solver stage of kl_world_step: builds the step's constraints from the
// touching contacts and the joints, colours them, and runs the sub-step loop (integrate velocities,
// warm start, solve, integrate positions, relax; restitution and impulse storage at the end).
// SPDX-License-Identifier: MIT
#pragma once

typedef struct kl_world kl_world;

/// Colours of the constraint graph: constraints of one colour share no dynamic body.
#define KL_GRAPH_COLOR_COUNT 24
/// Constraints between two dynamic bodies use the first colours; those with one dynamic body
/// start at colour 1 (as Box2D does), which keeps colour 0 large and the rest balanced.
#define KL_DYNAMIC_COLOR_COUNT (KL_GRAPH_COLOR_COUNT - 4)

void kl_solver_stage_run(kl_world* world, float dt, int substeps);
void kl_solver_storage_destroy(kl_world* world);
