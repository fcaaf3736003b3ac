// Kollide internal — the world: object pools, per-slot arrays, events, profile and step state.
// SPDX-License-Identifier: MIT
#pragma once

#include "body.h"
#include "contact.h"
#include "id_pool.h"
#include "joint.h"
#include "pointshell_types.h"
#include "shape.h"
#include "thread_pool.h"

#define KL_MAX_WORLDS 128

/// Margin added around shape bounds so that slowly moving shapes keep their broadphase proxy.
#define KL_AABB_MARGIN 0.1f

typedef struct kl_world
{
	int index;
	uint16_t generation;
	kl_world_def def;
	bool locked; ///< inside kl_world_step

	kl_id_pool body_pool;
	/// Slots of the movable, awake bodies: every per-step loop runs over these only, so static
	/// and sleeping bodies cost nothing per step. Unordered (swap-remove); order-sensitive output
	/// (events) is sorted by slot.
	int* awake_bodies;
	int awake_count;
	int awake_capacity;
	/// Shapes whose fat bounds changed since the broadphase last saw them.
	int* enlarged_shapes;
	int enlarged_count;
	int enlarged_capacity;
	kl_body* bodies;	   ///< per body slot
	kl_body_sim* sims;	   ///< per body slot
	kl_body_state* states; ///< per body slot
	int body_capacity;
	int body_count;

	kl_id_pool shape_pool;
	kl_shape* shapes;
	int shape_capacity;
	int shape_count;

	kl_id_pool joint_pool;
	kl_joint* joints;
	int joint_capacity;
	int joint_count;

	// Per-worker scratch for events, merged in worker order after each parallel stage.
	kl_body_move_event* move_events;
	int move_event_count;
	int move_event_capacity;
	kl_contact_begin_event* contact_begin_events;
	int contact_begin_count;
	int contact_begin_capacity;
	kl_contact_end_event* contact_end_events;
	int contact_end_count;
	int contact_end_capacity;
	kl_contact_hit_event* contact_hit_events;
	int contact_hit_count;
	int contact_hit_capacity;
	kl_sensor_event* sensor_begin_events;
	int sensor_begin_count;
	int sensor_begin_capacity;
	kl_sensor_event* sensor_end_events;
	int sensor_end_count;
	int sensor_end_capacity;

	// The user's step callbacks (contact_callbacks.c).
	kl_custom_filter_fn* custom_filter_fn;
	void* custom_filter_context;
	kl_pre_solve_fn* pre_solve_fn;
	void* pre_solve_context;

	struct kl_broadphase* broadphase;
	bool broadphase_failed; ///< the last update ran out of memory: its pair list is partial

	/// One per broadphase pair (plus the kept pairs of sleeping bodies), sorted by (shape_a, shape_b).
	struct kl_contact* contacts;
	int contact_count;
	int contact_capacity;
	struct kl_contact* contact_scratch; ///< merge target, swapped with contacts each step
	int contact_scratch_capacity;
	/// Per-worker working memory of the mesh narrowphase (worker_count entries, made on first need).
	struct kl_mesh_scratch* mesh_scratch;
	/// The batch of this pass's point-shell pairs (contact_pointshell.c), made on first need.
	struct kl_ps_batch* pointshell_batch;
	struct kl_ps_pair_query* pointshell_queries;
	int pointshell_query_capacity;
	int pointshell_batch_pairs;	 ///< pairs the batch served this pass (0: each pair searched its own)
	bool pointshell_batch_on_gpu; ///< and whether the GPU ran it
	kl_ps_stats pointshell_batch_stats;
	/// Contacts whose shape was destroyed since the last narrowphase (dropped at the next merge).
	int dead_contact_count;
	/// The contacts of each shape slot (contact_index.c): [start[s], start[s + 1]) of the items,
	/// built on the first shape destruction after a merge, invalid after the next merge.
	int* shape_contact_start;
	int* shape_contact_items;
	int shape_contact_start_capacity;
	int shape_contact_item_capacity;
	int shape_contact_slots;
	bool shape_contact_index_valid;

	/// Shapes that ask for the penalty contact model; none: the step skips the penalty stage.
	int penalty_shape_count;
	/// This pass's penalty pairs and their results (contact_penalty.c).
	struct kl_penalty_pair* penalty_pairs;
	int penalty_pair_count;
	int penalty_pair_capacity;
	/// Per worker: room for the overlapping sphere pairs of one penalty pair's query.
	struct kl_penalty_scratch* penalty_scratch;

	/// The constraint solver's per-step storage (engine/solver_stage.c).
	struct kl_solver_storage* solver;

	kl_thread_pool* pool;
	int worker_count;

	kl_profile profile;
	kl_counters counters;
	int64_t step_index;
	float last_substep; ///< sub-step length of the last step (s): impulses per sub-step → forces

	// ---- Islands and sleeping (island.c). Sleeping sets need no storage of their own: they are
	// lists threaded through kl_body::sleep_set / sleep_next.
	/// Body slots that fell asleep in the last kl_update_sleep, ascending: their move events say
	/// fell_asleep (they have already left the awake list).
	int* fell_asleep;
	int fell_asleep_count;
	int fell_asleep_capacity;
	struct kl_island_node* island_nodes; ///< union–find scratch, per body slot
	int island_node_capacity;
} kl_world;

/// Looks up a live world; records KL_ERR_INVALID_ID and returns NULL otherwise.
kl_world* kl_get_world(kl_world_id id);
kl_world* kl_get_world_from_index(int world0);
kl_world_id kl_make_world_id(const kl_world* world);

/// Runs task over the world's workers (the user task system if given, else the pool).
void kl_world_parallel_for(kl_world* world, kl_task_fn* task, void* context);

/// The world's workers (kl_world_parallel_for) as a kl_parallel: one partition per worker.
kl_parallel kl_world_parallel(kl_world* world);

/// Grows the per-body arrays to hold slot (false on OOM).
bool kl_world_reserve_body_slot(kl_world* world, int slot);
bool kl_world_reserve_shape_slot(kl_world* world, int slot);
bool kl_world_reserve_joint_slot(kl_world* world, int slot);

/// Puts the body into the awake list if it is movable and awake, and takes it out otherwise.
void kl_world_update_awake_list(kl_world* world, int body_slot, bool active);
/// Queues the body's shapes whose `enlarged` flag is set for the next broadphase update.
void kl_world_queue_enlarged_shapes(kl_world* world, int body_slot);
