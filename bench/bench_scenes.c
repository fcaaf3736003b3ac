// kollide-bench — the table of scenes. Later stages add theirs here.
#include "bench_scenes.h"

const kl_bench_scene kl_bench_scenes[] = {
	{"free_fall", "10,000 spinning boxes, spheres, capsules and compounds in free fall (integration only)",
	 kl_bench_free_fall, 200, 1.0f / 60.0f, 4},
};

const int kl_bench_scene_count = (int)(sizeof(kl_bench_scenes) / sizeof(kl_bench_scenes[0]));
