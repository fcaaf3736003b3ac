// Kollide applications — PNG output shared by the applications (apps/), which use only the public
// API and so cannot reach the renderer's writer.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

/// Writes an 8-bit RGB image (rows top to bottom, 3 bytes a pixel) as a PNG file; false when the
/// file cannot be written.
bool kl_app_write_png(const char* path, const uint8_t* rgb, int width, int height);
