// Kollide internal — per-body integration of velocities (gravity, forces, damping, gyroscopic
// term) and positions (exponential map), over ranges of body slots.
// SPDX-License-Identifier: MIT
#pragma once

#include "solver.h"

/// Sub-step of step->h seconds for the velocities of the dynamic bodies in awake_bodies[begin, end).
void kl_integrate_velocities(const kl_solver_step* step, int begin, int end);
/// Sub-step of step->h seconds for the poses of the bodies in awake_bodies[begin, end).
void kl_integrate_positions(const kl_solver_step* step, int begin, int end);
/// Stops a body whose velocities overflowed to Inf or NaN: a solve on joints of absurd inertia
/// ratios must not turn its pose or the caller's reads into NaN. Holds the linear speed to
/// max_speed, which the solve's result may exceed, and the spin to KL_MAX_ANGULAR_SPEED.
void kl_limit_body_state(kl_body_state* state, float max_speed);

/// Body-frame angular velocity after h seconds of I ω̇ = (Iω) × ω + τ, by the implicit midpoint
/// rule (it conserves kinetic energy and |L| of a free body exactly) solved with Newton steps.
vec3s kl_integrate_gyroscopic(mat3s inertia, vec3s omega, vec3s torque, float h);
