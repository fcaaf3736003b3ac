// kollide-grasp: classifies each frame of a recorded hand (docs/grasp.md has the format) against the
// recording's object or --object, and writes the object's contact and force maps as PNG.
// SPDX-License-Identifier: MIT
#include "generate.h"
#include "maps.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KG_MAX_PAIRS 65536

static void usage(void)
{
	fprintf(stderr, "usage: kollide-grasp RECORDING [--object NAME] [--out DIR] [--tile N] [--quiet]\n"
					"  objects: ");
	for (int k = 0; k < KG_OBJ_COUNT; ++k)
		fprintf(stderr, "\"%s\"%s", kg_object_shape((kg_object_kind)k).name, k + 1 < KG_OBJ_COUNT ? ", " : "\n");
}

static int fail(const char* what)
{
	fprintf(stderr, "kollide-grasp: %s%s%s\n", what, *kg_error() ? ": " : "", kg_error());
	return 1;
}

int main(int argc, char** argv)
{
	const char *path = NULL, *object_name = NULL, *out_dir = ".";
	int tile = 128;
	bool quiet = false;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--object") == 0 && i + 1 < argc)
			object_name = argv[++i];
		else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out_dir = argv[++i];
		else if (strcmp(argv[i], "--tile") == 0 && i + 1 < argc)
			tile = atoi(argv[++i]);
		else if (strcmp(argv[i], "--quiet") == 0)
			quiet = true;
		else if (argv[i][0] != '-' && path == NULL)
			path = argv[i];
		else
		{
			usage();
			return 2;
		}
	}
	if (path == NULL)
	{
		usage();
		return 2;
	}
	kg_recording rec;
	if (!kg_recording_read(&rec, path))
		return fail("reading the recording");
	int kind = object_name != NULL ? kg_object_find(object_name) : rec.object;
	if (object_name != NULL && kind < 0)
	{
		kg_recording_free(&rec);
		fprintf(stderr, "kollide-grasp: no object named \"%s\"\n", object_name);
		usage();
		return 2;
	}
	kg_object object = {0};
	kl_sphere_tree* tree = NULL;
	kg_map map = {0};
	if (kind >= 0)
	{
		object = kg_object_shape((kg_object_kind)kind);
		if (!kg_object_fill(&object) || (tree = kg_object_tree_build(&object)) == NULL ||
			!kg_map_create(&map, &object, tile))
			return fail("building the object");
	}
	kg_session s;
	if (!kg_session_init(&s, rec.hand_length, tree, rec.object_pose))
		return fail("building the hand");
	static kl_sphere_pair pairs[KG_MAX_PAIRS];
	static int pair_part[KG_MAX_PAIRS];
	static kg_map_contact contacts[KG_MAX_PAIRS];
	for (int i = 0; i < rec.frame_count; ++i)
	{
		const kg_frame* f = &rec.frames[i];
		kg_frame_result r;
		if (!kg_session_classify(&s, &f->wrist, f->angles, &r))
			return fail("classifying");
		if (tree != NULL)
		{
			int n = 0;
			kg_contacts unused;
			kg_hand_contacts(&s.hand, &s.trees, r.parts, f->wrist, tree, rec.object_pose, &unused, pairs, pair_part,
							 KG_MAX_PAIRS, &n);
			kg_map_stamp(&map, contacts,
						 kg_map_contacts_from_pairs(&s.hand, pairs, pair_part, n, rec.object_pose, contacts));
		}
		if (!quiet)
		{
			char text[256];
			kg_describe(&r.grasp, &r.features, text, sizeof(text));
			printf("%.4f %s\n", f->time, text);
		}
	}
	int status = 0;
	if (tree != NULL)
	{
		uint8_t* rgb = malloc((size_t)map.width * (size_t)map.height * 3);
		char file[1024];
		snprintf(file, sizeof(file), "%s/contact_map.png", out_dir);
		kg_map_contact_image(&map, rgb);
		bool ok = rgb != NULL && kg_write_png(file, rgb, map.width, map.height);
		snprintf(file, sizeof(file), "%s/force_map.png", out_dir);
		if (ok)
			kg_map_force_image(&map, rgb);
		ok = ok && kg_write_png(file, rgb, map.width, map.height);
		if (!ok)
			status = fail("writing the maps");
		else if (!quiet)
			printf("maps: %s/contact_map.png %s/force_map.png (%d x %d texels)\n", out_dir, out_dir, map.width,
				   map.height);
		free(rgb);
	}
	kg_session_destroy(&s);
	kg_map_destroy(&map);
	kl_sphere_tree_destroy(tree);
	kg_object_destroy(&object);
	kg_recording_free(&rec);
	return status;
}
