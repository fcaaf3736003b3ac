// Kollide render — GLSL 3.30 programs of the renderer, compiled with their logs checked.
// SPDX-License-Identifier: MIT
#pragma once

#include <glad/gl.h>

#include <stdbool.h>

typedef struct kl_shaders
{
	GLuint solid[2];   ///< lit instanced shapes and heatmaps: [0] unshadowed, [1] shadowed
	GLuint depth;	   ///< the same vertex stage into the shadow map
	GLuint edges;	   ///< the same vertex stage, unlit (wireframe)
	GLuint plane[2];   ///< planes and the ground grid, lit: [0] unshadowed, [1] shadowed
	GLuint background; ///< sky gradient
	GLuint lines;	   ///< lines and round points
} kl_shaders;

/// Compiles and links every program. False with the GLSL log in error on failure.
bool kl_shaders_create(kl_shaders* shaders, char* error, int error_capacity);
void kl_shaders_destroy(kl_shaders* shaders);

/// Compiles one program from vertex and fragment sources (name appears in the error message).
GLuint kl_shader_program(const char* name, const char* vertex_source, const char* fragment_source, char* error,
						 int error_capacity);
