// Kollide viewer — PNG output of the back buffer through render/png.h (libpng).
// SPDX-License-Identifier: MIT
#include "record.h"

#include "png.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

bool kl_viewer_write_frame(kl_viewer_app* app, const char* path, char* error, int error_capacity)
{
	const uint8_t* pixels = kl_viewer_app_read_pixels(app);
	if (pixels == NULL)
	{
		snprintf(error, (size_t)error_capacity, "cannot read the frame back for '%s'", path);
		return false;
	}
	return kl_write_png(path, pixels, app->width, app->height, error, error_capacity);
}

void kl_viewer_screenshot_name(char* name, int capacity)
{
	time_t now = time(NULL);
	struct tm local;
	localtime_r(&now, &local);
	strftime(name, (size_t)capacity, "kollide-%Y%m%d-%H%M%S.png", &local);
}

void kl_viewer_record_name(const char* dir, int frame, char* name, int capacity)
{
	snprintf(name, (size_t)capacity, "%s/frame_%06d.png", dir, frame);
}

bool kl_viewer_ensure_dir(const char* dir, char* error, int error_capacity)
{
	struct stat st;
	if (stat(dir, &st) == 0)
	{
		if (S_ISDIR(st.st_mode))
		{
			return true;
		}
		snprintf(error, (size_t)error_capacity, "--record: '%s' exists and is not a directory", dir);
		return false;
	}
	if (mkdir(dir, 0777) != 0)
	{
		snprintf(error, (size_t)error_capacity, "--record: cannot create '%s': %s", dir, strerror(errno));
		return false;
	}
	return true;
}
