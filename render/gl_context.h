// Kollide render — an SDL2 window with an OpenGL 3.3 core context and the glad loader.
// Headless runs use SDL's offscreen driver (SDL_VIDEODRIVER=offscreen) over Mesa's EGL.
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct kl_gl_context kl_gl_context;

/// Opens a window (hidden when headless) with a GL 3.3 core context, 24-bit depth, double buffer.
/// Returns NULL and fills error (if given) on failure.
kl_gl_context* kl_gl_context_create(int width, int height, const char* title, char* error, int error_capacity);
void kl_gl_context_destroy(kl_gl_context* context);

/// "renderer | version | video driver", for logs and the HUD.
const char* kl_gl_context_describe(const kl_gl_context* context);
void kl_gl_context_size(const kl_gl_context* context, int* width, int* height);

/// Reads the back buffer as tightly packed RGB rows, top row first (width * height * 3 bytes).
bool kl_gl_context_read_rgb(const kl_gl_context* context, uint8_t* pixels);
void kl_gl_context_swap(kl_gl_context* context);
