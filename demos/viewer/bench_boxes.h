// Kollide viewer — the hidden frame-time scene: a grid of many small boxes on a ground.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

/// Builds count unit boxes (0.5 m half extents) in square layers over a ground into world.
bool kl_viewer_build_bench_boxes(kl_world_id world, int count);
