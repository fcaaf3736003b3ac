// Kollide render — SDL2 window and OpenGL context.
#include "gl_context.h"

#include <glad/gl.h>
#include <SDL.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kl_gl_context
{
	SDL_Window* window;
	SDL_GLContext gl;
	int width;
	int height;
	char description[256];
};

static void set_error(char* error, int capacity, const char* what)
{
	if (error != NULL && capacity > 0)
	{
		snprintf(error, (size_t)capacity, "%s: %s", what, SDL_GetError());
	}
}

kl_gl_context* kl_gl_context_create(int width, int height, const char* title, char* error, int error_capacity)
{
	if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
	{
		set_error(error, error_capacity, "SDL video init failed");
		return NULL;
	}
	SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
	SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
	SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
	SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
	SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
	kl_gl_context* c = calloc(1, sizeof(kl_gl_context));
	if (c == NULL)
	{
		return NULL;
	}
	c->width = width;
	c->height = height;
	c->window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height,
								 SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE);
	if (c->window == NULL)
	{
		set_error(error, error_capacity, "SDL_CreateWindow failed");
		kl_gl_context_destroy(c);
		return NULL;
	}
	c->gl = SDL_GL_CreateContext(c->window);
	if (c->gl == NULL)
	{
		set_error(error, error_capacity, "OpenGL 3.3 core context failed");
		kl_gl_context_destroy(c);
		return NULL;
	}
	if (gladLoadGL((GLADloadfunc)SDL_GL_GetProcAddress) == 0)
	{
		set_error(error, error_capacity, "glad could not load OpenGL");
		kl_gl_context_destroy(c);
		return NULL;
	}
	snprintf(c->description, sizeof(c->description), "%s | %s | %s", (const char*)glGetString(GL_RENDERER),
			 (const char*)glGetString(GL_VERSION), SDL_GetCurrentVideoDriver());
	return c;
}

void kl_gl_context_destroy(kl_gl_context* c)
{
	if (c == NULL)
	{
		return;
	}
	if (c->gl != NULL)
	{
		SDL_GL_DeleteContext(c->gl);
	}
	if (c->window != NULL)
	{
		SDL_DestroyWindow(c->window);
	}
	free(c);
	SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

const char* kl_gl_context_describe(const kl_gl_context* c)
{
	return c->description;
}

void kl_gl_context_size(const kl_gl_context* c, int* width, int* height)
{
	*width = c->width;
	*height = c->height;
}

bool kl_gl_context_read_rgb(const kl_gl_context* c, uint8_t* pixels)
{
	size_t row = (size_t)c->width * 3;
	uint8_t* flipped = malloc(row * (size_t)c->height);
	if (flipped == NULL)
	{
		return false;
	}
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadBuffer(GL_BACK);
	glReadPixels(0, 0, c->width, c->height, GL_RGB, GL_UNSIGNED_BYTE, flipped);
	// GL's rows start at the bottom; images start at the top.
	for (int y = 0; y < c->height; ++y)
	{
		memcpy(pixels + (size_t)y * row, flipped + (size_t)(c->height - 1 - y) * row, row);
	}
	free(flipped);
	return glGetError() == GL_NO_ERROR;
}

void kl_gl_context_swap(kl_gl_context* c)
{
	SDL_GL_SwapWindow(c->window);
}
