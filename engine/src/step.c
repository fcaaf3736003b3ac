// Kollide — kl_world_step and its stages.
// SPDX-License-Identifier: MIT
#include "step.h"

#include "core.h"
#include "integrate.h"

#include <kollide/kollide.h>

#define KL_MAX_SUBSTEPS 64

typedef struct kl_stage_context
{
	kl_world* world;
	float h;
} kl_stage_context;

static void body_range(const kl_world* world, int part, int* begin, int* end)
{
	kl_partition_range(kl_id_pool_slot_count(&world->body_pool), world->worker_count, part, begin, end);
}

static void prepare_task(int start, int end, int worker, void* context)
{
	(void)worker;
	kl_stage_context* c = context;
	for (int part = start; part < end; ++part)
	{
		int b0, b1;
		body_range(c->world, part, &b0, &b1);
		for (int i = b0; i < b1; ++i)
		{
			c->world->sims[i].transform0 = c->world->sims[i].transform;
		}
	}
}

void kl_step_prepare(kl_world* world)
{
	kl_stage_context c = {world, 0.0f};
	kl_world_parallel_for(world, prepare_task, &c);
	world->move_event_count = 0;
	world->contact_begin_count = 0;
	world->contact_end_count = 0;
	world->sensor_begin_count = 0;
	world->sensor_end_count = 0;
}

static void integrate_velocities_task(int start, int end, int worker, void* context)
{
	(void)worker;
	kl_stage_context* c = context;
	for (int part = start; part < end; ++part)
	{
		int b0, b1;
		body_range(c->world, part, &b0, &b1);
		kl_integrate_velocities(c->world, b0, b1, c->h);
	}
}

static void integrate_positions_task(int start, int end, int worker, void* context)
{
	(void)worker;
	kl_stage_context* c = context;
	for (int part = start; part < end; ++part)
	{
		int b0, b1;
		body_range(c->world, part, &b0, &b1);
		kl_integrate_positions(c->world, b0, b1, c->h);
	}
}

void kl_step_solve(kl_world* world, float dt, int substeps)
{
	kl_stage_context c = {world, dt / (float)substeps};
	double velocities = 0.0, positions = 0.0;
	for (int k = 0; k < substeps; ++k)
	{
		double t0 = kl_time_seconds();
		kl_world_parallel_for(world, integrate_velocities_task, &c);
		double t1 = kl_time_seconds();
		kl_world_parallel_for(world, integrate_positions_task, &c);
		double t2 = kl_time_seconds();
		velocities += t1 - t0;
		positions += t2 - t1;
	}
	world->profile.integrate_velocities = (float)(1000.0 * velocities);
	world->profile.integrate_positions = (float)(1000.0 * positions);
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
		for (int i = b0; i < b1; ++i)
		{
			kl_body_sim* sim = &world->sims[i];
			if (world->bodies[i].id < 0 || (sim->flags & KL_SIM_MOVABLE) == 0)
			{
				continue;
			}
			sim->force = glms_vec3_zero();
			sim->torque = glms_vec3_zero();
			if ((sim->flags & KL_SIM_AWAKE) != 0)
			{
				kl_update_body_shape_bounds(world, i, KL_AABB_MARGIN);
			}
		}
	}
}

/// Move events in slot order (serial: cheap, and the order must not depend on workers).
static void emit_move_events(kl_world* world)
{
	int slots = kl_id_pool_slot_count(&world->body_pool);
	int awake = 0;
	if (!KL_ARRAY_RESERVE(world->move_events, world->move_event_capacity, world->body_count))
	{
		return; // out of memory: the step itself is done, only the events are lost
	}
	for (int i = 0; i < slots; ++i)
	{
		const kl_body* body = &world->bodies[i];
		const kl_body_sim* sim = &world->sims[i];
		if (body->id < 0 || (sim->flags & (KL_SIM_MOVABLE | KL_SIM_AWAKE)) != (KL_SIM_MOVABLE | KL_SIM_AWAKE))
		{
			continue;
		}
		awake += 1;
		kl_body_move_event* e = &world->move_events[world->move_event_count++];
		e->transform = sim->transform;
		e->body_id = kl_make_body_id(world, body);
		e->user_data = body->user_data;
		e->fell_asleep = false;
	}
	world->counters.awake_body_count = awake;
}

void kl_step_finalize(kl_world* world)
{
	kl_stage_context c = {world, 0.0f};
	kl_world_parallel_for(world, finalize_task, &c);
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
	double t1 = kl_time_seconds();
	// Broadphase and narrowphase stages slot in here.
	if (dt > 0.0f)
	{
		kl_step_solve(world, dt, substeps);
	}
	double t2 = kl_time_seconds();
	kl_step_finalize(world);
	double t3 = kl_time_seconds();
	p->prepare = (float)(1000.0 * (t1 - t0));
	p->solver = (float)(1000.0 * (t2 - t1));
	p->finalize = (float)(1000.0 * (t3 - t2));
	p->step = (float)(1000.0 * (t3 - t0));
	world->counters.substep_count = substeps;
	world->step_index += 1;
	world->locked = false;
	return KL_OK;
}
