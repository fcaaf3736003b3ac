// Kollide render — PNG output through libpng.
// SPDX-License-Identifier: MIT
#include "png.h"

// This module's own header is also called png.h and the render folder is on the include path, so
// libpng's header is named through its versioned folder.
#if __has_include(<libpng16/png.h>)
#include <libpng16/png.h>
#else
#include <libpng/png.h>
#endif

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static void set_error(char* error, int capacity, const char* fmt, const char* a, const char* b)
{
	if (error != NULL && capacity > 0)
	{
		snprintf(error, (size_t)capacity, fmt, a, b);
	}
}

/// libpng reports errors through longjmp; the message is kept for the caller.
static void on_png_error(png_structp png, png_const_charp message)
{
	char* buffer = png_get_error_ptr(png);
	if (buffer != NULL)
	{
		snprintf(buffer, 256, "%s", message);
	}
	png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
	(void)png;
	(void)message;
}

bool kl_write_png(const char* path, const uint8_t* rgb, int width, int height, char* error, int error_capacity)
{
	if (path == NULL || rgb == NULL || width <= 0 || height <= 0 || width > (1 << 16) || height > (1 << 16))
	{
		set_error(error, error_capacity, "kl_write_png: invalid arguments (%s%s)", path ? path : "no path", "");
		return false;
	}
	FILE* file = fopen(path, "wb");
	if (file == NULL)
	{
		set_error(error, error_capacity, "kl_write_png: cannot open %s: %s", path, strerror(errno));
		return false;
	}
	char message[256] = "";
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, message, on_png_error, on_png_warning);
	png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
	if (info == NULL)
	{
		png_destroy_write_struct(&png, NULL);
		fclose(file);
		set_error(error, error_capacity, "kl_write_png: %s: %s", path, "libpng initialisation failed");
		return false;
	}
	bool ok = false;
	if (setjmp(png_jmpbuf(png)) == 0)
	{
		png_init_io(png, file);
		png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
					 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
		// Screenshots and frame sequences favour speed over the last few percent of size.
		png_set_compression_level(png, 3);
		png_write_info(png, info);
		for (int y = 0; y < height; ++y)
		{
			png_write_row(png, (png_const_bytep)(rgb + (size_t)y * (size_t)width * 3));
		}
		png_write_end(png, NULL);
		ok = true;
	}
	png_destroy_write_struct(&png, &info);
	if (fclose(file) != 0 && ok)
	{
		set_error(error, error_capacity, "kl_write_png: cannot write %s: %s", path, strerror(errno));
		return false;
	}
	if (!ok)
	{
		set_error(error, error_capacity, "kl_write_png: %s: %s", path, message);
	}
	return ok;
}
