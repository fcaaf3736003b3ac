// Kollide render — screen-space text and panels for the HUD: glyphs rasterised once by SDL2_ttf from
// a font Debian ships (fonts-dejavu-core) into a texture atlas, drawn as textured quads.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct kl_text kl_text;

/// Loads the font at pixel_size (font_path NULL: DejaVu Sans Mono from fonts-dejavu-core). GL context
/// must be current. NULL on failure with a message in error.
kl_text* kl_text_create(const char* font_path, int pixel_size, char* error, int error_capacity);
void kl_text_destroy(kl_text* text);

/// Starts a 2D frame of the given viewport size (pixels, origin top-left).
void kl_text_begin(kl_text* text, int width, int height);
/// Queues a string at (x, y) (top-left of the first line; '\n' starts a new line). Colour 0xRRGGBB.
/// Returns the width in pixels of the widest line.
float kl_text_draw(kl_text* text, float x, float y, const char* string, uint32_t color);
/// Queues a filled rectangle (panels, legend swatches); alpha in [0, 1].
void kl_text_rect(kl_text* text, float x, float y, float w, float h, uint32_t color, float alpha);
/// Queues a horizontal colour bar sampling the perceptual colour map (heatmap legends).
void kl_text_colormap_bar(kl_text* text, float x, float y, float w, float h);
/// Draws what was queued (alpha blended over the frame).
void kl_text_end(kl_text* text);
/// Line height in pixels.
float kl_text_line_height(const kl_text* text);
