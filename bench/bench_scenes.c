// kollide-bench — the table of the scenes that live in bench/: the broadphase scenes, which time the
// broadphase alone on synthetic motion (no world). The scene library's benchmark scenes
// (demos/scenes: Box3D's set, Jolt's pyramid, free_fall, box_layers...) are appended at run time
// by bench_main.c.
// SPDX-License-Identifier: MIT
#include "bench_scenes.h"

// The bp_* scenes and large_world drive the broadphase alone; their motion and default update
// counts are kept in step with kl_bp_scene_infos (bp_motion.c), which kollide-bench-bullet uses.
const kl_bench_scene kl_bench_scenes[] = {
	{"bp_walk_10k", "broadphase only: 10,000 ~1 m boxes, small random steps", 200, 0, 0, kl_bench_broadphase},
	{"bp_walk_100k", "broadphase only: 100,000 ~1 m boxes, small random steps", 50, 0, 0, kl_bench_broadphase},
	{"bp_walk_1m", "broadphase only: 1,000,000 ~1 m boxes, small random steps", 20, 0, 0, kl_bench_broadphase},
	{"bp_gas_10k", "broadphase only: 10,000 ~1 m boxes flying at up to 16 m/s per axis", 200, 0, 0,
	 kl_bench_broadphase},
	{"bp_gas_100k", "broadphase only: 100,000 ~1 m boxes flying at up to 16 m/s per axis", 50, 0, 0,
	 kl_bench_broadphase},
	{"bp_gas_1m", "broadphase only: 1,000,000 ~1 m boxes flying at up to 16 m/s per axis", 20, 0, 0,
	 kl_bench_broadphase},
	{"large_world", "broadphase only: 1000x1000 static boxes on a 10 m grid, 100 spheres dropped every 5 updates", 500,
	 0, 0, kl_bench_broadphase},
};

const int kl_bench_scene_count = (int)(sizeof(kl_bench_scenes) / sizeof(kl_bench_scenes[0]));
