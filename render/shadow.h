// Kollide render — the sun's shadow map: one depth texture, an orthographic light frustum fitted
// each frame around the camera's focus, so that a 100 m pyramid and a 2 m card house both get
// sharp shadows from the same texture size.
// SPDX-License-Identifier: MIT
#pragma once

#include <glad/gl.h>
#include <kollide/math.h>

typedef struct kl_shadow_map
{
	GLuint fbo;
	GLuint texture;
	int size;
	mat4s view_proj;
	float texel_world; ///< metres per texel at the fitted extent
} kl_shadow_map;

bool kl_shadow_map_create(kl_shadow_map* shadow, int size, char* error, int error_capacity);
void kl_shadow_map_destroy(kl_shadow_map* shadow);
/// Fits the light frustum: a square of half width `radius` around focus across the light, deep
/// enough to hold every caster in `casters`. light_dir points towards the sun.
void kl_shadow_map_fit(kl_shadow_map* shadow, vec3s light_dir, vec3s focus, float radius, kl_aabb casters);
/// Binds the shadow framebuffer for the depth pass (viewport, clear, polygon offset).
void kl_shadow_map_begin(const kl_shadow_map* shadow);
void kl_shadow_map_end(const kl_shadow_map* shadow);
