// Kollide applications — PNG output (libpng).
// SPDX-License-Identifier: MIT
#include "app_png.h"

#include <png.h>
#include <stdio.h>

bool kl_app_write_png(const char* path, const uint8_t* rgb, int width, int height)
{
	if (path == NULL || rgb == NULL || width <= 0 || height <= 0)
	{
		return false;
	}
	FILE* file = fopen(path, "wb");
	if (file == NULL)
	{
		return false;
	}
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
	bool ok = info != NULL && setjmp(png_jmpbuf(png)) == 0;
	if (ok)
	{
		png_init_io(png, file);
		png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
					 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
		png_write_info(png, info);
		for (int y = 0; y < height; ++y)
		{
			png_write_row(png, (png_const_bytep)(rgb + (size_t)y * (size_t)width * 3));
		}
		png_write_end(png, NULL);
	}
	png_destroy_write_struct(&png, &info);
	return fclose(file) == 0 && ok;
}
