// kollide-bench — synthetic proxy motion for the broadphase scenes, shared by kollide-bench and
// kollide-bench-bullet so that both engines see bit-identical boxes (plain C, no Kollide headers).
//
// Every proxy keeps a fat box: the tight box enlarged by KL_BP_MARGIN and stretched along this
// step's displacement (prediction one step ahead). A proxy is reported as moved only when its tight
// box leaves its fat box, which is how the engine feeds its broadphase. Static proxies get no margin.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KL_BP_MARGIN 0.1f
#define KL_BP_DT (1.0f / 60.0f)
/// Updates before the timed ones: the first with every proxy new, then motion steps. Bullet's DBVT
/// moves the proxies that stayed put into its fixed tree on its second update, a one-off cost that
/// would dominate the few updates timed at 1M; both programs skip the same updates.
#define KL_BP_WARMUP_UPDATES 3

typedef enum kl_bp_motion_kind
{
	KL_BP_WALK = 0,	   ///< ~1 m boxes, each takes a small random step every update
	KL_BP_GAS = 1,	   ///< ~1 m boxes flying at several m/s, bouncing off the walls and each other
	KL_BP_LARGE_WORLD, ///< 1000 x 1000 static boxes on a 10 m grid, 100 falling spheres
} kl_bp_motion_kind;

typedef struct kl_bp_scene_info
{
	const char* name;
	kl_bp_motion_kind kind;
	int count; ///< moving boxes (walk, gas); ignored by large_world
	int steps; ///< default timed updates
	const char* description;
} kl_bp_scene_info;

extern const kl_bp_scene_info kl_bp_scene_infos[];
extern const int kl_bp_scene_info_count;
/// NULL when no broadphase scene has that name.
const kl_bp_scene_info* kl_bp_find_scene(const char* name);
/// Proxies at the end of a run of the scene.
int kl_bp_scene_proxies(const kl_bp_scene_info* scene);

typedef struct kl_bp_box
{
	float lower[3];
	float upper[3];
} kl_bp_box;

typedef struct kl_bp_motion
{
	kl_bp_motion_kind kind;
	int capacity;	  ///< proxies at the end of the run
	int static_count; ///< proxies [0, static_count) are static and never move
	int active_count; ///< proxies [0, active_count) exist now (large_world adds spheres over time)
	int new_begin;	  ///< proxies [new_begin, active_count) appeared in the last step: create them
	float world_lower[3]; ///< every fat box stays inside these bounds (Bullet's AxisSweep3 needs them)
	float world_upper[3];
	float side;		///< walk, gas: the boxes stay inside the cube [0, side]^3
	kl_bp_box* fat; ///< current fat box per proxy: what the broadphase holds
	float* center;	///< 3 per proxy
	float* half;	///< 3 per proxy (spheres: the radius three times)
	float* velocity; ///< 3 per proxy, m/s
	int32_t* moved;	 ///< proxies whose fat box changed in the last step (new ones excluded)
	int moved_count;
	int step;
	uint32_t seed;
} kl_bp_motion;

/// Builds the initial state: proxies [0, active_count), all new (new_begin = 0), with their fat boxes.
/// False when out of memory.
bool kl_bp_motion_init(kl_bp_motion* m, const kl_bp_scene_info* scene);
void kl_bp_motion_free(kl_bp_motion* m);
/// Advances one update of KL_BP_DT and fills moved / new_begin.
void kl_bp_motion_step(kl_bp_motion* m);

/// 32-bit FNV-1a over (a, b) pairs given as 2 * count int32 values, in the order given.
uint32_t kl_bp_hash_pairs(const int32_t* pairs, int count);
/// Sorts (a, b) pairs (a < b) by a, then b.
void kl_bp_sort_pairs(int32_t* pairs, int count);
/// True when the boxes overlap or touch (the rule both engines use).
static inline bool kl_bp_overlap(const kl_bp_box* a, const kl_bp_box* b)
{
	return a->lower[0] <= b->upper[0] && b->lower[0] <= a->upper[0] && a->lower[1] <= b->upper[1] &&
		   b->lower[1] <= a->upper[1] && a->lower[2] <= b->upper[2] && b->lower[2] <= a->upper[2];
}

/// The exact pair set of the current fat boxes (static-static pairs excluded) from a uniform grid,
/// independent of both engines: returns the pair count (-1 when out of memory) and its hash.
int kl_bp_reference_pairs(const kl_bp_motion* m, uint32_t* hash);

#ifdef __cplusplus
}
#endif
