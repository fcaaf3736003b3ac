// Kollide internal — the world's candidate pairs: keeps a broadphase proxy per shape in step with
// shapes and bodies, decides which pairs may collide, and runs the broadphase stage of the step.
// SPDX-License-Identifier: MIT
#pragma once

#include "world.h"

bool kl_world_pairs_create(kl_world* world);
void kl_world_pairs_destroy(kl_world* world);

/// Adds the shape's proxy (kind from its body). False (with a message) if the bounds are unusable.
bool kl_shape_create_proxy(kl_world* world, kl_shape* shape);
void kl_shape_destroy_proxy(kl_world* world, kl_shape* shape);
/// After a body changes type or sleep state: its proxies become static or moving.
void kl_body_refresh_proxy_kinds(kl_world* world, int body_slot);
/// After a filter-relevant change (joint created or destroyed): re-evaluate the body's pairs.
void kl_touch_body_proxies(kl_world* world, int body_slot);

/// True if the two shapes may collide: different bodies, not both static, categories and masks
/// (or a shared group) agree, and no joint between their bodies disables collision.
bool kl_shapes_should_collide(const kl_world* world, const kl_shape* a, const kl_shape* b);

/// The broadphase stage: moves the proxies of enlarged shapes, then updates the pair set.
void kl_step_broadphase(kl_world* world);
