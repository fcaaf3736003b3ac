// kollide-grasp-eval: generates the labelled set of a seed, classifies the last frame of each
// sequence and prints the confusion matrices (types, categories) and the accuracies.
// SPDX-License-Identifier: MIT
#include "generate.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Frames at the end of each sequence that hold the grasp (the generator's last frames).
#define KG_HOLD_FRAMES 6

static void usage(void)
{
	fprintf(stderr, "usage: kollide-grasp-eval [--seed S] [--count N] [--verbose] [--features] [--write-dir DIR]\n"
					"  N labelled sequences per grasp type (default 30), generated from seed S (default 1)\n");
}

static void print_matrix(const char* title, const int* m, int n)
{
	printf("%s (rows: true, columns: classified; last column: no grasp)\n    ", title);
	for (int j = 0; j < n; ++j)
		printf("%4d", j + 1);
	printf("   -\n");
	for (int i = 0; i < n; ++i)
	{
		printf("%4d", i + 1);
		for (int j = 0; j <= n; ++j)
			printf(m[i * (n + 1) + j] ? "%4d" : "   .", m[i * (n + 1) + j]);
		printf("\n");
	}
}

// One misclassified sequence: its features, for looking into the rules.
static void print_miss(int truth, const kg_frame_result* r)
{
	const kg_features* f = &r->features;
	char text[256];
	kg_describe(&r->grasp, f, text, sizeof(text));
	printf(
		"miss %2d -> %s | phalanges %d%d%d%d%d | shape %d%d%d%d%d | side %d%d%d%d%d | aperture %.1f mm | wrap %.2f\n",
		truth, text, f->phalanges_touching[0], f->phalanges_touching[1], f->phalanges_touching[2],
		f->phalanges_touching[3], f->phalanges_touching[4], f->shape[0], f->shape[1], f->shape[2], f->shape[3],
		f->shape[4], f->side[0], f->side[1], f->side[2], f->side[3], f->side[4], 1000.0 * f->aperture,
		(double)f->fingers_wrapping);
}

int main(int argc, char** argv)
{
	uint64_t seed = 1;
	long count = 30;
	const char* write_dir = NULL;
	bool verbose = false, features = false;
	for (int i = 1; i < argc; ++i)
	{
		char* end = NULL;
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], &end, 10);
		else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
		{
			count = strtol(argv[++i], &end, 10);
			if (count < 1 || count > 100000)
				end = argv[i];
		}
		else if (strcmp(argv[i], "--features") == 0)
			features = true;
		else if (strcmp(argv[i], "--verbose") == 0)
			verbose = true;
		else if (strcmp(argv[i], "--write-dir") == 0 && i + 1 < argc)
			write_dir = argv[++i];
		else
		{
			usage();
			return 2;
		}
		if (end != NULL && *end != '\0')
		{
			fprintf(stderr, "kollide-grasp-eval: bad number %s\n", argv[i]);
			return 2;
		}
	}
	kg_object_set set;
	if (!kg_object_set_build(&set))
	{
		fprintf(stderr, "kollide-grasp-eval: %s\n", kg_error());
		return 1;
	}
	int* types = calloc(KG_TYPE_COUNT * (KG_TYPE_COUNT + 1), sizeof(int));
	int* cats = calloc(KG_CATEGORY_COUNT * (KG_CATEGORY_COUNT + 1), sizeof(int));
	double touch_rate[KG_TYPE_COUNT][KG_FINGER_COUNT + 2] = {{0}};
	long right_types = 0, right_cats = 0, total = 0;
	kg_rng rng = {seed};
	for (int t = 1; t <= KG_TYPE_COUNT; ++t)
		for (long n = 0; n < count; ++n)
		{
			kg_recording rec;
			kg_session s;
			if (!kg_generate_sequence(&set, t, &rng, &rec))
			{
				fprintf(stderr, "kollide-grasp-eval: %s\n", kg_error());
				return 1;
			}
			if (write_dir != NULL)
			{
				char path[1024];
				snprintf(path, sizeof(path), "%s/type%02d_%03ld.txt", write_dir, t, n);
				kg_recording_write(&rec, path);
			}
			if (!kg_session_init(&s, rec.hand_length, set.trees[rec.object], rec.object_pose))
			{
				fprintf(stderr, "kollide-grasp-eval: %s\n", kg_error());
				return 1;
			}
			// The sequence's label: the type classified most often over the frames that hold the grasp.
			int votes[KG_TYPE_COUNT + 1] = {0}, best = -1;
			kg_frame_result r, vote_r;
			for (int k = rec.frame_count - KG_HOLD_FRAMES; k < rec.frame_count; ++k)
			{
				kg_session_classify(&s, &rec.frames[k].wrist, rec.frames[k].angles, &r);
				int v = r.grasp.type != NULL ? r.grasp.type->number - 1 : KG_TYPE_COUNT;
				if (++votes[v] >= (best >= 0 ? votes[best] : 0))
				{
					best = v;
					vote_r = r;
				}
			}
			r = vote_r;
			const kg_grasp_type* truth = kg_grasp_type_get(t);
			int got = r.grasp.type != NULL ? r.grasp.type->number - 1 : KG_TYPE_COUNT;
			int got_cat = r.grasp.type != NULL ? r.grasp.category : KG_CATEGORY_COUNT;
			types[(t - 1) * (KG_TYPE_COUNT + 1) + got]++;
			cats[truth->category * (KG_CATEGORY_COUNT + 1) + got_cat]++;
			for (int f = 0; f <= KG_FINGER_COUNT; ++f)
				touch_rate[t - 1][f] += r.features.touching[f] / (double)count;
			touch_rate[t - 1][KG_FINGER_COUNT + 1] += 1000.0 * r.features.aperture / (double)count;
			if (features)
			{
				const kg_features* f = &r.features;
				printf("features %d %d%d%d%d%d%d abd %d ip %d shape %d%d%d%d%d side %d%d%d%d%d phal %d%d%d%d%d ap %.1f "
					   "curl %.0f grip %.1f span %.1f\n",
					   t, f->touching[0], f->touching[1], f->touching[2], f->touching[3], f->touching[4],
					   f->touching[5], f->thumb_abducted, f->thumb_ip_bent, f->shape[0], f->shape[1], f->shape[2],
					   f->shape[3], f->shape[4], f->side[0], f->side[1], f->side[2], f->side[3], f->side[4],
					   f->phalanges_touching[0], f->phalanges_touching[1], f->phalanges_touching[2],
					   f->phalanges_touching[3], f->phalanges_touching[4], 1000.0 * f->aperture, (double)f->curl,
					   1000.0 * f->grip_width, 1000.0 * f->span);
			}
			if (verbose && got != t - 1)
				print_miss(t, &r);
			right_types += got == t - 1;
			right_cats += got_cat == truth->category;
			++total;
			kg_session_destroy(&s);
			kg_recording_free(&rec);
		}
	if (verbose)
		for (int t = 0; t < KG_TYPE_COUNT; ++t)
			printf("type %2d touching T %.2f I %.2f M %.2f R %.2f P %.2f palm %.2f aperture %.1f mm\n", t + 1,
				   touch_rate[t][0], touch_rate[t][1], touch_rate[t][2], touch_rate[t][3], touch_rate[t][4],
				   touch_rate[t][5], touch_rate[t][6]);
	print_matrix("grasp types", types, KG_TYPE_COUNT);
	print_matrix("categories", cats, KG_CATEGORY_COUNT);
	printf("sequences=%ld seed=%llu\n", total, (unsigned long long)seed);
	printf("accuracy_types=%.4f accuracy_categories=%.4f\n", (double)right_types / (double)total,
		   (double)right_cats / (double)total);
	free(types);
	free(cats);
	kg_object_set_destroy(&set);
	return 0;
}
