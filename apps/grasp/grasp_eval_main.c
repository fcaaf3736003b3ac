// kollide-grasp-eval: generates the labelled set of a seed, classifies the last frame of each
// sequence and prints the confusion matrices (types, categories) and the accuracies.
// SPDX-License-Identifier: MIT
#include "generate.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
	fprintf(stderr, "usage: kollide-grasp-eval [--seed S] [--count N] [--verbose] [--write-dir DIR]\n"
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
	printf("miss %2d -> %s | phalanges %d%d%d%d%d | shape %d%d%d%d%d | side %d%d%d%d%d | aperture %.1f mm | wrap %.2f\n",
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
	bool verbose = false;
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
			const kg_frame* last = &rec.frames[rec.frame_count - 1];
			kg_frame_result r;
			kg_session_classify(&s, &last->wrist, last->angles, &r);
			const kg_grasp_type* truth = kg_grasp_type_get(t);
			int got = r.grasp.type != NULL ? r.grasp.type->number - 1 : KG_TYPE_COUNT;
			int got_cat = r.grasp.type != NULL ? r.grasp.category : KG_CATEGORY_COUNT;
			types[(t - 1) * (KG_TYPE_COUNT + 1) + got]++;
			cats[truth->category * (KG_CATEGORY_COUNT + 1) + got_cat]++;
			if (verbose && got != t - 1)
				print_miss(t, &r);
			right_types += got == t - 1;
			right_cats += got_cat == truth->category;
			++total;
			kg_session_destroy(&s);
			kg_recording_free(&rec);
		}
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
