// Kollide render — PNG output (libpng) for screenshots and frame sequences.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

/// Writes tightly packed RGB rows (top row first). False with a message in error on failure.
bool kl_write_png(const char* path, const uint8_t* rgb, int width, int height, char* error, int error_capacity);
