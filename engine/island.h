// Kollide internal — islands and sleeping. Islands are rebuilt each step over the awake bodies
// (union–find over touching contacts and joints, deterministic); an island whose bodies all stayed
// below their sleep threshold for KL_TIME_TO_SLEEP seconds falls asleep as one set, and waking any
// body of a sleeping set wakes all of it.
// SPDX-License-Identifier: MIT
#pragma once

typedef struct kl_world kl_world;

/// Seconds a body must rest before its island may sleep.
#define KL_TIME_TO_SLEEP 0.5f

/// Wakes the body and its sleeping set (no-op for static or already awake bodies). Not for use
/// inside a parallel stage.
void kl_wake_body(kl_world* world, int body_slot);
/// End of a step: advances the bodies' rest timers, builds islands and puts resting islands to sleep.
void kl_update_sleep(kl_world* world, float dt);
/// Frees the sleeping-set storage.
void kl_islands_destroy(kl_world* world);
