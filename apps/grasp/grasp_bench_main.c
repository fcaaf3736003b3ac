// kollide-grasp-bench: the per-frame cost of grasp detection for two tracked hands and one object on
// one thread: each hand's contacts (sphere-tree queries), their stamps into the object's contact and
// force maps (unless --no-maps), and the classification. Prints microseconds per frame (median and 99th percentile).
// SPDX-License-Identifier: MIT
#include "generate.h"
#include "maps.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KG_BENCH_PAIRS 65536

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

int main(int argc, char** argv)
{
	int type = 3, frames = 2000;
	bool maps = true;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--type") == 0 && i + 1 < argc)
			type = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-maps") == 0)
			maps = false;
		else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
			frames = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: kollide-grasp-bench [--type 1..33] [--frames N] [--no-maps]\n");
			return 2;
		}
	}
	if (type < 1 || type > KG_TYPE_COUNT || frames < 1 || frames > 1000000)
	{
		fprintf(stderr, "kollide-grasp-bench: type 1 to 33, frames 1 to 1000000\n");
		return 2;
	}
	kg_object_set set;
	if (!kg_object_set_build(&set))
	{
		fprintf(stderr, "kollide-grasp-bench: %s\n", kg_error());
		return 1;
	}
	// Two hands grasping the same object: two sequences of the type, each with its own hand.
	kg_rng rng = {7};
	kg_recording rec[2];
	kg_session s[2];
	for (int h = 0; h < 2; ++h)
		if (!kg_generate_sequence(&set, type, &rng, &rec[h]) ||
			!kg_session_init(&s[h], rec[h].hand_length, set.trees[rec[h].object], rec[h].object_pose))
		{
			fprintf(stderr, "kollide-grasp-bench: %s\n", kg_error());
			return 1;
		}
	const kg_object* object = &set.objects[rec[0].object];
	kg_map map;
	if (!kg_map_create(&map, object, 128))
	{
		fprintf(stderr, "kollide-grasp-bench: %s\n", kg_error());
		return 1;
	}
	static kl_sphere_pair pairs[KG_BENCH_PAIRS];
	static int pair_part[KG_BENCH_PAIRS];
	static kg_map_contact contacts[KG_BENCH_PAIRS];
	double* cost = malloc(sizeof(double) * (size_t)frames);
	int total_pairs = 0;
	for (int f = 0; f < frames; ++f)
	{
		double start = now_seconds();
		for (int h = 0; h < 2; ++h)
		{
			const kg_frame* fr = &rec[h].frames[f % rec[h].frame_count];
			kg_frame_result r;
			kg_hand_pose_parts(&s[h].hand, fr->angles, r.parts);
			int n = 0;
			kg_hand_contacts(&s[h].hand, &s[h].trees, r.parts, fr->wrist, s[h].object, s[h].object_pose, &r.contacts,
							 maps ? pairs : NULL, pair_part, KG_BENCH_PAIRS, &n);
			if (maps)
				kg_map_stamp(&map, contacts,
							 kg_map_contacts_from_pairs(&s[h].hand, pairs, pair_part, n, s[h].object_pose, contacts));
			r.features = kg_compute_features(&s[h].hand, fr->angles, r.parts, &r.contacts);
			r.grasp = kg_classify(&r.features);
			total_pairs += n;
		}
		cost[f] = 1e6 * (now_seconds() - start);
	}
	qsort(cost, (size_t)frames, sizeof(double), compare_doubles);
	printf("type %d (%s) on the %s, two hands, %d frames, %s: %.1f sphere pairs per frame\n", type,
		   kg_grasp_type_get(type)->name, object->name, frames,
		   maps ? "contacts, maps, classification" : "contacts and classification", (double)total_pairs / frames);
	printf("per_frame_us_median=%.1f per_frame_us_p99=%.1f\n", cost[frames / 2], cost[(frames * 99) / 100]);
	free(cost);
	kg_map_destroy(&map);
	for (int h = 0; h < 2; ++h)
	{
		kg_session_destroy(&s[h]);
		kg_recording_free(&rec[h]);
	}
	kg_object_set_destroy(&set);
	return 0;
}
