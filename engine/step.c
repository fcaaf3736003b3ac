// Kollide — kl_world_step and its stages.
// SPDX-License-Identifier: MIT
#include "step.h"

#include "core.h"
#include "integrate.h"
#include "island.h"
#include "solver_stage.h"
#include "contact.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

#include <string.h>

#define KL_MAX_SUBSTEPS 64

typedef struct kl_stage_context kl_stage_context;

/// What a body stage does to one awake body (slot i).
typedef void kl_body_fn(kl_stage_context* c, int i);

struct kl_stage_context
{
	kl_world* world;
	float h;
	kl_body_fn* body_fn;
};

/// Below this many awake bodies a stage runs all its partitions on the calling thread: waking the
/// workers costs more than the work. Partitions are the same either way, so results do not change.
#define KL_MIN_PARALLEL_BODIES 512

/// Entries [begin, end) of the awake list, c->body_fn on each body.
static void body_stage_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	(void)worker;
	kl_stage_context* c = context;
	for (int k = begin; k < end; ++k)
	{
		c->body_fn(c, c->world->awake_bodies[k]);
	}
}

/// Runs body_fn on every awake body, over the workers when there are enough.
static void run_body_stage(kl_world* world, kl_body_fn* body_fn, float h)
{
	kl_stage_context c = {world, h, body_fn};
	kl_parallel_ranges(kl_world_parallel(world), world->awake_count, KL_MIN_PARALLEL_BODIES, body_stage_range, &c);
}

/// The pose at the step's start, for interpolation.
static void remember_pose(kl_stage_context* c, int i)
{
	c->world->sims[i].transform0 = c->world->sims[i].transform;
}

void kl_step_prepare(kl_world* world)
{
	run_body_stage(world, remember_pose, 0.0f);
	world->move_event_count = 0;
	world->fell_asleep_count = 0;
	world->contact_begin_count = 0;
	world->contact_end_count = 0;
	world->contact_hit_count = 0;
	world->sensor_begin_count = 0;
	world->sensor_end_count = 0;
}

void kl_step_solve(kl_world* world, float dt, int substeps)
{
	kl_solver_stage_run(world, dt, substeps);
}

/// The shapes' bounds, fattened with the motion predicted over c->h, for the state the solve's
/// last pass left (held to the speed limit).
static void update_bounds(kl_stage_context* c, int i)
{
	if ((c->world->sims[i].flags & KL_SIM_DYNAMIC) != 0)
	{
		kl_limit_body_state(&c->world->states[i], c->world->def.max_linear_speed);
	}
	vec3s ahead = glms_vec3_scale(c->world->states[i].linear_velocity, c->h);
	kl_update_body_shape_bounds(c->world, i, KL_AABB_MARGIN, ahead);
}

/// The user's forces and torques apply for one step.
static void clear_forces(kl_stage_context* c, int i)
{
	kl_body_sim* sim = &c->world->sims[i];
	sim->force = glms_vec3_zero();
	sim->torque = glms_vec3_zero();
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
	run_body_stage(world, clear_forces, dt);
	if (dt > 0.0f)
	{
		kl_update_sleep(world, dt);
	}
	emit_move_events(world);
}

/// How many times this step finds contacts (kl_world_def.max_collision_travel): the fewest passes,
/// a divisor of the sub-steps, in which no awake body travels farther than the limit.
static int collision_passes(const kl_world* world, float dt, int substeps)
{
	float limit = world->def.max_collision_travel;
	if (!(limit > 0.0f) || dt <= 0.0f)
	{
		return 1;
	}
	float travel = 0.0f;
	for (int k = 0; k < world->awake_count; ++k)
	{
		int i = world->awake_bodies[k];
		const kl_body_state* state = &world->states[i];
		float speed = glms_vec3_norm(state->linear_velocity) +
					  glms_vec3_norm(state->angular_velocity) * world->bodies[i].max_extent;
		travel = fmaxf(travel, speed * dt);
	}
	for (int passes = 1; passes < substeps; ++passes)
	{
		if (substeps % passes == 0 && travel <= limit * (float)passes)
		{
			return passes;
		}
	}
	return substeps;
}

/// One pass of a step: the broadphase, contacts, the solver, and the shapes' bounds fattened for
/// the motion over `ahead` (the next pass, or the next step after the last pass), queued for the
/// next pass's broadphase unless this is the last (the move events queue them then); the
/// profile's stage times add up over the passes.
static void step_pass(kl_world* world, float dt, int substeps, float ahead, bool last)
{
	kl_profile* p = &world->profile;
	double tb = kl_time_seconds();
	kl_step_broadphase(world);
	double t1 = kl_time_seconds();
	bool found = kl_step_narrowphase(world, dt);
	double tn = kl_time_seconds();
	if (dt > 0.0f && found)
	{
		kl_step_solve(world, dt, substeps); // else out of memory: the bodies wait for their contacts
		kl_contact_hit_events(world);
	}
	double t2 = kl_time_seconds();
	run_body_stage(world, update_bounds, ahead);
	for (int k = 0; !last && k < world->awake_count; ++k)
	{
		kl_world_queue_enlarged_shapes(world, world->awake_bodies[k]);
	}
	double t3 = kl_time_seconds();
	p->broadphase += (float)(1000.0 * (t1 - tb));
	p->narrowphase += (float)(1000.0 * (tn - t1));
	p->solver += (float)(1000.0 * (t2 - tn));
	p->finalize += (float)(1000.0 * (t3 - t2));
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
	if (substeps < 1 || substeps > KL_MAX_SUBSTEPS)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "substeps %d outside [1, %d]", substeps, KL_MAX_SUBSTEPS);
	}
	// The sub-step is bounded, not only the step: contacts are at most a quarter of the sub-step
	// rate stiff, so a resting body sinks about g·h²/π² into its support (1 cm at h = 0.1 s under
	// 9.81 m/s², a 0.5 m ball through a 0.5 m floor from h = 0.7 s on).
	float max_dt = KL_MAX_SUBSTEP * (float)substeps;
	if (!(dt >= 0.0f && dt <= max_dt))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT,
					   "time step %g s is out of range [0, %g] for %d sub-steps (a sub-step is at most %g s)",
					   (double)dt, (double)max_dt, substeps, (double)KL_MAX_SUBSTEP);
	}
	// What fails inside the step (a batch out of memory) is worked around there (the pairs search on
	// their own), so the step succeeds and leaves the caller's error state as it was.
	kl_error_state caller_error;
	kl_error_save(&caller_error);
	world->locked = true;
	kl_profile* p = &world->profile;
	double t0 = kl_time_seconds();
	memset(p, 0, sizeof(*p)); // the stages add up over the collision passes
	world->counters.pointshell_pair_count = 0; // and so do these
	world->counters.pointshell_gpu_pair_count = 0;
	kl_step_prepare(world);
	p->prepare = (float)(1000.0 * (kl_time_seconds() - t0));
	int passes = collision_passes(world, dt, substeps);
	float pass_dt = dt / (float)passes;
	for (int pass = 0; pass < passes; ++pass)
	{
		bool last = pass + 1 == passes;
		step_pass(world, pass_dt, substeps / passes, last ? dt : pass_dt, last);
	}
	double t2 = kl_time_seconds();
	kl_step_finalize(world, dt);
	double t3 = kl_time_seconds();
	p->finalize += (float)(1000.0 * (t3 - t2));
	p->step = (float)(1000.0 * (t3 - t0));
	world->counters.substep_count = substeps;
	world->counters.collision_pass_count = passes;
	world->step_index += 1;
	world->last_substep = dt / (float)substeps;
	world->locked = false;
	kl_error_restore(&caller_error);
	return KL_OK;
}
