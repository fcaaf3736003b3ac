// Kollide — kl_world_step and its stages.
// SPDX-License-Identifier: MIT
#include "step.h"

#include "core.h"
#include "island.h"
#include "solver_stage.h"
#include "contact.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

#define KL_MAX_SUBSTEPS 64

typedef struct kl_stage_context
{
	kl_world* world;
	float h;
} kl_stage_context;

/// Below this many awake bodies a stage runs all its partitions on the calling thread: waking the
/// workers costs more than the work. Partitions are the same either way, so results do not change.
#define KL_MIN_PARALLEL_BODIES 512

static void run_body_stage(kl_world* world, kl_task_fn* task, kl_stage_context* c)
{
	if (world->awake_count < KL_MIN_PARALLEL_BODIES)
	{
		task(0, world->worker_count, 0, c);
	}
	else
	{
		kl_world_parallel_for(world, task, c);
	}
}

/// Partition `part` of the awake list.
static void body_range(const kl_world* world, int part, int* begin, int* end)
{
	kl_partition_range(world->awake_count, world->worker_count, part, begin, end);
}

static void prepare_task(int start, int end, int worker, void* context)
{
	(void)worker;
	kl_stage_context* c = context;
	for (int part = start; part < end; ++part)
	{
		int b0, b1;
		body_range(c->world, part, &b0, &b1);
		for (int k = b0; k < b1; ++k)
		{
			int i = c->world->awake_bodies[k];
			c->world->sims[i].transform0 = c->world->sims[i].transform;
		}
	}
}

void kl_step_prepare(kl_world* world)
{
	kl_stage_context c = {world, 0.0f};
	run_body_stage(world, prepare_task, &c);
	world->move_event_count = 0;
	world->fell_asleep_count = 0;
	world->contact_begin_count = 0;
	world->contact_end_count = 0;
	world->sensor_begin_count = 0;
	world->sensor_end_count = 0;
}

void kl_step_solve(kl_world* world, float dt, int substeps)
{
	kl_solver_stage_run(world, dt, substeps);
}

static void finalize_task(int start, int end, int worker, void* context)
{
	(void)worker;
	kl_stage_context* c = context;
	kl_world* world = c->world;
	for (int part = start; part < end; ++part)
	{
		int b0, b1;
		body_range(world, part, &b0, &b1);
		for (int k = b0; k < b1; ++k)
		{
			int i = world->awake_bodies[k];
			kl_body_sim* sim = &world->sims[i];
			sim->force = glms_vec3_zero();
			sim->torque = glms_vec3_zero();
			vec3s ahead = glms_vec3_scale(world->states[i].linear_velocity, c->h);
			kl_update_body_shape_bounds(world, i, KL_AABB_MARGIN, ahead);
		}
	}
}

static int compare_move_events(const void* a, const void* b)
{
	int x = ((const kl_body_move_event*)a)->body_id.index1;
	int y = ((const kl_body_move_event*)b)->body_id.index1;
	return (x > y) - (x < y);
}

static void push_move_event(kl_world* world, int slot, bool fell_asleep)
{
	const kl_body* body = &world->bodies[slot];
	kl_body_move_event* e = &world->move_events[world->move_event_count++];
	e->transform = world->sims[slot].transform;
	e->body_id = kl_make_body_id(world, body);
	e->user_data = body->user_data;
	e->fell_asleep = fell_asleep;
}

/// Move events sorted by slot (the awake list's order depends on history, not on workers, but a
/// slot order is what users expect), one with fell_asleep for every body that fell asleep this
/// step, and the enlarged shapes queued for the broadphase.
static void emit_move_events(kl_world* world)
{
	int count = world->awake_count + world->fell_asleep_count;
	if (!KL_ARRAY_RESERVE(world->move_events, world->move_event_capacity, count))
	{
		return; // out of memory: the step itself is done, only the events are lost
	}
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		push_move_event(world, i, false);
		kl_world_queue_enlarged_shapes(world, i);
	}
	for (int k = 0; k < world->fell_asleep_count; ++k)
	{
		push_move_event(world, world->fell_asleep[k], true);
	}
	if (world->move_event_count > 1) // move_events may still be NULL when nothing ever moved
	{
		qsort(world->move_events, (size_t)world->move_event_count, sizeof(kl_body_move_event), compare_move_events);
	}
	world->counters.awake_body_count = world->awake_count;
}

void kl_step_finalize(kl_world* world, float dt)
{
	kl_stage_context c = {world, dt};
	run_body_stage(world, finalize_task, &c);
	if (dt > 0.0f)
	{
		kl_update_sleep(world, dt);
	}
	emit_move_events(world);
}

kl_result kl_world_step(kl_world_id id, float dt, int substeps)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL)
	{
		return KL_ERR_INVALID_ID;
	}
	if (world->locked)
	{
		return kl_fail(KL_ERR_LOCKED, "kl_world_step called from inside a step");
	}
	if (!(dt >= 0.0f) || !isfinite(dt) || dt > 10.0f)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "time step %g outside [0, 10] s", (double)dt);
	}
	if (substeps < 1 || substeps > KL_MAX_SUBSTEPS)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "substeps %d outside [1, %d]", substeps, KL_MAX_SUBSTEPS);
	}
	world->locked = true;
	kl_profile* p = &world->profile;
	double t0 = kl_time_seconds();
	kl_step_prepare(world);
	double tb = kl_time_seconds();
	kl_step_broadphase(world);
	double t1 = kl_time_seconds();
	kl_step_narrowphase(world, dt);
	double tn = kl_time_seconds();
	if (dt > 0.0f)
	{
		kl_step_solve(world, dt, substeps);
	}
	double t2 = kl_time_seconds();
	kl_step_finalize(world, dt);
	double t3 = kl_time_seconds();
	p->prepare = (float)(1000.0 * (tb - t0));
	p->broadphase = (float)(1000.0 * (t1 - tb));
	p->narrowphase = (float)(1000.0 * (tn - t1));
	p->solver = (float)(1000.0 * (t2 - tn));
	p->finalize = (float)(1000.0 * (t3 - t2));
	p->step = (float)(1000.0 * (t3 - t0));
	world->counters.substep_count = substeps;
	world->step_index += 1;
	world->last_substep = dt / (float)substeps;
	world->locked = false;
	return KL_OK;
}
