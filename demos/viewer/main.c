// Kollide viewer — kollide-viewer: the interactive viewer with every demo scene (see docs/viewer.md).
// SPDX-License-Identifier: MIT
#include "app.h"

#include <stdio.h>

int main(int argc, char** argv)
{
	kl_viewer_options options;
	char error[1024];
	if (!kl_viewer_parse_args(argc, argv, &options, error, (int)sizeof(error)))
	{
		fprintf(stderr, "kollide-viewer: %s\n", error);
		return 2;
	}
	if (options.help)
	{
		kl_viewer_print_usage(stdout);
		return 0;
	}
	if (options.list)
	{
		kl_viewer_print_scenes(stdout);
		return 0;
	}
	kl_viewer_app* app = kl_viewer_app_create(&options, error, (int)sizeof(error));
	if (app == NULL)
	{
		fprintf(stderr, "kollide-viewer: %s\n", error);
		return 1;
	}
	int code = kl_viewer_app_run(app);
	kl_viewer_app_destroy(app);
	return code;
}
