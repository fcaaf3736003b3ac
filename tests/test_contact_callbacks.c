// Kollide tests — the step's hooks as Box3D has them: hit events (their approach speed against the
// bodies' relative normal velocity as the step began, the threshold, the per-shape switch), the
// pre-solve callback and the custom pair filter (each able to drop a box through the ground, each
// only for shapes that ask, on the threads the docs name), and their bad input.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "contact.h"
#include "world.h"

#include <kollide/kollide.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

typedef struct rng
{
	uint64_t s;
} rng;

static float rng_float(rng* r, float lo, float hi)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return lo + (hi - lo) * (float)(z >> 40) * (1.0f / 16777216.0f);
}

static kl_world_id make_world(vec3s gravity, int workers)
{
	kl_world_def def = kl_default_world_def();
	def.gravity = gravity;
	def.worker_count = workers;
	def.enable_sleep = false;
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static kl_body_id make_body(kl_world_id world, kl_body_type type, vec3s position, vec3s velocity, vec3s spin)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = type;
	bd.position = position;
	bd.linear_velocity = velocity;
	bd.angular_velocity = spin;
	bd.enable_gyroscopic = false; // the spin stays as set until the contact acts
	kl_body_id body = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(body));
	return body;
}

// ---------------------------------------------------------------------------------------------
// Hit events

enum
{
	PAIRS = 48
};

typedef struct pair_setup
{
	kl_shape_id a, b;
	kl_body_id body_a, body_b;
	bool events; ///< either shape enables hit events
	vec3s va, vb, wa, wb, ca, cb; ///< velocities and centres of mass before the step
} pair_setup;

static int find_pair(const pair_setup* pairs, kl_shape_id a, kl_shape_id b)
{
	for (int i = 0; i < PAIRS; ++i)
	{
		if ((KL_ID_EQUALS(pairs[i].a, a) && KL_ID_EQUALS(pairs[i].b, b)) ||
			(KL_ID_EQUALS(pairs[i].a, b) && KL_ID_EQUALS(pairs[i].b, a)))
		{
			return i;
		}
	}
	return -1;
}

/// The approach speed at p along n (from the event's shape a to b), from the velocities before the step.
static float expected_approach(const pair_setup* s, kl_shape_id shape_a, vec3s p, vec3s n)
{
	bool swapped = !KL_ID_EQUALS(shape_a, s->a);
	vec3s va = glms_vec3_add(s->va, glms_vec3_cross(s->wa, glms_vec3_sub(p, s->ca)));
	vec3s vb = glms_vec3_add(s->vb, glms_vec3_cross(s->wb, glms_vec3_sub(p, s->cb)));
	vec3s rel = swapped ? glms_vec3_sub(va, vb) : glms_vec3_sub(vb, va);
	return -glms_vec3_dot(n, rel);
}

/// If the solver pushed the pair's contact in the last step: the fastest approach of its pushed
/// points, from the velocities recorded before the step (brute force over world->contacts); else -1.
static float pushed_approach(kl_world_id id, const pair_setup* s)
{
	const kl_world* world = kl_get_world(id);
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		kl_shape_id a = kl_make_shape_id(world, &world->shapes[c->shape_a]);
		kl_shape_id b = kl_make_shape_id(world, &world->shapes[c->shape_b]);
		bool pair = (KL_ID_EQUALS(a, s->a) && KL_ID_EQUALS(b, s->b)) || (KL_ID_EQUALS(a, s->b) && KL_ID_EQUALS(b, s->a));
		if (!pair || !(c->flags & KL_CONTACT_TOUCHING))
		{
			continue;
		}
		float best = -1.0f;
		for (int p = 0; p < c->manifold.point_count; ++p)
		{
			if (c->manifold.points[p].max_normal_impulse > 0.0f)
			{
				best = fmaxf(best, fmaxf(0.0f, expected_approach(s, a, c->manifold.points[p].point, c->manifold.normal)));
			}
		}
		return best;
	}
	return -1.0f;
}

/// Pairs far apart in zero gravity, 20 cm apart and closing at random speeds: spheres on spheres
/// (head-on and glancing), spinning boxes on spheres, spheres onto a static box. Every hit event's
/// approach speed is the relative normal velocity at its point as its step began; every pair that
/// closes faster than the threshold with events on reports, the others do not.
static void test_hit_events_approach_speed(void** state)
{
	(void)state;
	const float threshold = 2.0f, gap = 0.2f;
	int events = 0, expected_events = 0, silent_fast = 0, spinning = 0;
	for (int workers = 1; workers <= 2; ++workers)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, 0.0f), workers);
		assert_int_equal(kl_world_set_hit_event_threshold(world, threshold), KL_OK);
		rng r = {(uint64_t)workers * 17};
		pair_setup pairs[PAIRS];
		float closing[PAIRS]; ///< the approach speed in the first step the solver pushed the pair apart
		for (int i = 0; i < PAIRS; ++i)
		{
			pair_setup* s = &pairs[i];
			vec3s base = kl_vec3(10.0f * (float)i, 0.0f, 0.0f);
			float speed = rng_float(&r, 0.5f, 6.0f);
			kl_shape_def sd = kl_default_shape_def();
			kl_shape_def sd_b = kl_default_shape_def();
			int on = i % 6; // 0: neither shape, 1-2: a, 3-4: b, 5: both
			sd.enable_hit_events = on == 1 || on == 2 || on == 5;
			sd_b.enable_hit_events = on >= 3;
			s->events = on != 0;
			int kind = i % 3;
			float offset = rng_float(&r, -0.3f, 0.3f); // glancing
			if (kind == 0)
			{
				// Two spheres of radius 0.5 along x, offset sideways.
				float d = 1.0f + gap, dx = sqrtf(d * d - offset * offset);
				s->body_a = make_body(world, KL_BODY_DYNAMIC, base, kl_vec3(0.5f * speed, 0.0f, 0.0f), glms_vec3_zero());
				s->body_b = make_body(world, KL_BODY_DYNAMIC, glms_vec3_add(base, kl_vec3(dx, offset, 0.0f)),
									  kl_vec3(-0.5f * speed, 0.0f, 0.0f), glms_vec3_zero());
				s->a = kl_create_sphere_shape(s->body_a, &sd, 0.5f);
				s->b = kl_create_sphere_shape(s->body_b, &sd_b, 0.5f);
			}
			else if (kind == 1)
			{
				// A box spinning about z (its +x face at x = 0.3 turns a little) meets a sphere off its
				// centre line, so the spin adds to or takes from the approach.
				vec3s spin = kl_vec3(0.0f, 0.0f, rng_float(&r, -3.0f, 3.0f));
				s->body_a = make_body(world, KL_BODY_DYNAMIC, base, kl_vec3(speed, 0.0f, 0.0f), spin);
				s->body_b = make_body(world, KL_BODY_DYNAMIC,
									  glms_vec3_add(base, kl_vec3(0.8f + gap, offset, 0.2f * offset)), glms_vec3_zero(),
									  glms_vec3_zero());
				s->a = kl_create_box_shape(s->body_a, &sd, kl_vec3(0.3f, 0.6f, 0.6f));
				s->b = kl_create_sphere_shape(s->body_b, &sd_b, 0.5f);
			}
			else
			{
				// A sphere falls onto a static box (top at z = 0.5), sliding sideways.
				s->body_a = make_body(world, KL_BODY_STATIC, base, glms_vec3_zero(), glms_vec3_zero());
				s->body_b = make_body(world, KL_BODY_DYNAMIC, glms_vec3_add(base, kl_vec3(offset, 0.0f, 0.8f + gap)),
									  kl_vec3(rng_float(&r, -1.0f, 1.0f), 0.0f, -speed),
									  kl_vec3(rng_float(&r, -5.0f, 5.0f), 0.0f, 0.0f));
				s->a = kl_create_box_shape(s->body_a, &sd, kl_vec3(2.0f, 2.0f, 0.5f));
				s->b = kl_create_sphere_shape(s->body_b, &sd_b, 0.3f);
			}
			closing[i] = -1.0f;
			assert_true(KL_IS_NON_NULL(s->a) && KL_IS_NON_NULL(s->b));
			assert_int_equal(kl_shape_get_def(s->a).enable_hit_events, sd.enable_hit_events);
		}
		int pair_events[PAIRS] = {0};
		for (int step = 0; step < 32; ++step)
		{
			for (int i = 0; i < PAIRS; ++i)
			{
				pair_setup* s = &pairs[i];
				s->va = kl_body_get_linear_velocity(s->body_a);
				s->vb = kl_body_get_linear_velocity(s->body_b);
				s->wa = kl_body_get_angular_velocity(s->body_a);
				s->wb = kl_body_get_angular_velocity(s->body_b);
				s->ca = kl_body_get_world_center_of_mass(s->body_a);
				s->cb = kl_body_get_world_center_of_mass(s->body_b);
			}
			assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
			kl_contact_events ev = kl_world_get_contact_events(world);
			for (int k = 0; k < ev.hit_count; ++k)
			{
				const kl_contact_hit_event* e = &ev.hit_events[k];
				int i = find_pair(pairs, e->shape_a, e->shape_b);
				assert_true(i >= 0);
				assert_true(pairs[i].events);
				assert_near(glms_vec3_norm(e->normal), 1.0f, 1.0e-5f);
				float expected = expected_approach(&pairs[i], e->shape_a, e->point, e->normal);
				assert_near(e->approach_speed, expected, 1.0e-4f * fmaxf(1.0f, expected));
				assert_true(e->approach_speed > threshold);
				pair_events[i] += 1;
				events += 1;
				spinning += i % 3 == 1 && fabsf(pairs[i].wa.z * pairs[i].cb.y - pairs[i].wa.z * pairs[i].ca.y) > 0.1f;
			}
			for (int i = 0; i < PAIRS; ++i)
			{
				if (closing[i] < 0.0f)
				{
					closing[i] = pushed_approach(world, &pairs[i]);
				}
			}
			for (int k = 1; k < ev.hit_count; ++k)
			{
				assert_false(find_pair(pairs, ev.hit_events[k].shape_a, ev.hit_events[k].shape_b) ==
							 find_pair(pairs, ev.hit_events[k - 1].shape_a, ev.hit_events[k - 1].shape_b));
			}
		}
		// Each pair collided once; the fast ones with events on reported it, no other did.
		for (int i = 0; i < PAIRS; ++i)
		{
			assert_true(closing[i] >= 0.0f);
			bool fast = closing[i] > threshold + 0.05f, slow = closing[i] < threshold - 0.05f;
			if (fast && pairs[i].events)
			{
				assert_int_equal(pair_events[i], 1);
				expected_events += 1;
			}
			if (slow || !pairs[i].events)
			{
				assert_int_equal(pair_events[i], 0);
				silent_fast += fast;
			}
		}
		kl_destroy_world(world);
	}
	print_message("hit events: %d (%d expected, %d of spinning boxes), %d fast pairs without events\n", events,
				  expected_events, spinning, silent_fast);
	assert_true(expected_events > 30);
	assert_true(spinning > 5);
	assert_true(silent_fast > 5);
}

/// A box dropped onto the ground under gravity: one hit event as it lands, with the approach speed
/// of its fall as that step began, none while it rests, none with a threshold above the speed.
static void test_hit_events_landing(void** state)
{
	(void)state;
	for (int pass = 0; pass < 2; ++pass)
	{
		kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -10.0f), 1);
		if (pass == 1)
		{
			assert_int_equal(kl_world_set_hit_event_threshold(world, 50.0f), KL_OK);
		}
		kl_body_id ground = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, -0.5f), glms_vec3_zero(), glms_vec3_zero());
		kl_shape_def sd = kl_default_shape_def();
		kl_shape_id ground_shape = kl_create_box_shape(ground, &sd, kl_vec3(5.0f, 5.0f, 0.5f));
		kl_body_id box = make_body(world, KL_BODY_DYNAMIC, kl_vec3(0.0f, 0.0f, 3.0f), kl_vec3(0.0f, 0.0f, -2.0f),
								   glms_vec3_zero());
		sd.enable_hit_events = true;
		kl_shape_id box_shape = kl_create_box_shape(box, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
		const float dt = 1.0f / 60.0f;
		int hits = 0;
		for (int step = 0; step < 180; ++step)
		{
			float before = -kl_body_get_linear_velocity(box).z;
			assert_int_equal(kl_world_step(world, dt, 4), KL_OK);
			kl_contact_events ev = kl_world_get_contact_events(world);
			for (int k = 0; k < ev.hit_count; ++k)
			{
				const kl_contact_hit_event* e = &ev.hit_events[k];
				assert_true((KL_ID_EQUALS(e->shape_a, ground_shape) && KL_ID_EQUALS(e->shape_b, box_shape)) ||
							(KL_ID_EQUALS(e->shape_b, ground_shape) && KL_ID_EQUALS(e->shape_a, box_shape)));
				assert_near(e->approach_speed, before, 1.0e-4f);
				assert_near(fabsf(e->normal.z), 1.0f, 1.0e-4f);
				// Midway between the surfaces as the step began: they may be a step's travel apart.
				assert_true(e->point.z >= -0.01f && e->point.z <= 0.5f * before * dt + 0.01f);
				hits += 1;
			}
		}
		assert_int_equal(hits, pass == 0 ? 1 : 0);
		assert_near(kl_body_get_position(box).z, 0.5f, 0.02f); // resting, so no more events
		kl_destroy_world(world);
	}
}

// ---------------------------------------------------------------------------------------------
// Pre-solve and custom filter: a box over the ground

typedef struct hook_log
{
	atomic_int calls;
	atomic_int off_main_thread;
	pthread_t main_thread;
	bool answer;
	kl_shape_id refuse_a; ///< when non-null, only this pair is refused (answer ignored)
	kl_shape_id refuse_b;
	atomic_int bad_args;
} hook_log;

static bool decide(hook_log* log, kl_shape_id a, kl_shape_id b)
{
	atomic_fetch_add(&log->calls, 1);
	if (!pthread_equal(pthread_self(), log->main_thread))
	{
		atomic_fetch_add(&log->off_main_thread, 1);
	}
	if (!kl_shape_is_valid(a) || !kl_shape_is_valid(b))
	{
		atomic_fetch_add(&log->bad_args, 1);
	}
	if (KL_IS_NON_NULL(log->refuse_a))
	{
		bool pair = (KL_ID_EQUALS(a, log->refuse_a) && KL_ID_EQUALS(b, log->refuse_b)) ||
					(KL_ID_EQUALS(a, log->refuse_b) && KL_ID_EQUALS(b, log->refuse_a));
		return !pair;
	}
	return log->answer;
}

static bool pre_solve(kl_shape_id a, kl_shape_id b, vec3s point, vec3s normal, void* context)
{
	hook_log* log = context;
	if (!isfinite(point.x) || !isfinite(point.y) || !isfinite(point.z) || fabsf(glms_vec3_norm(normal) - 1.0f) > 1.0e-4f)
	{
		atomic_fetch_add(&log->bad_args, 1);
	}
	return decide(log, a, b);
}

static bool custom_filter(kl_shape_id a, kl_shape_id b, void* context)
{
	return decide(context, a, b);
}

typedef enum hook_kind
{
	HOOK_PRE_SOLVE,
	HOOK_CUSTOM_FILTER,
} hook_kind;

typedef struct drop_result
{
	float z_asked;	   ///< final height of the box whose shape asks for the hook
	float z_not_asked; ///< of the box whose shape does not
	int begin_events_asked;
} drop_result;

/// Two boxes fall 0.5 m onto a static ground box for 2 s; only the first one's shape enables the hook.
static drop_result drop_boxes(hook_kind kind, hook_log* log)
{
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -10.0f), 1);
	log->main_thread = pthread_self();
	if (kind == HOOK_PRE_SOLVE)
	{
		assert_int_equal(kl_world_set_pre_solve_callback(world, pre_solve, log), KL_OK);
	}
	else
	{
		assert_int_equal(kl_world_set_custom_filter_callback(world, custom_filter, log), KL_OK);
	}
	kl_body_id ground = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, -0.5f), glms_vec3_zero(), glms_vec3_zero());
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id ground_shape = kl_create_box_shape(ground, &sd, kl_vec3(10.0f, 10.0f, 0.5f));
	kl_body_id asked = make_body(world, KL_BODY_DYNAMIC, kl_vec3(-2.0f, 0.0f, 1.0f), glms_vec3_zero(), glms_vec3_zero());
	kl_body_id not_asked = make_body(world, KL_BODY_DYNAMIC, kl_vec3(2.0f, 0.0f, 1.0f), glms_vec3_zero(), glms_vec3_zero());
	kl_shape_def plain = kl_default_shape_def();
	sd.enable_pre_solve_events = kind == HOOK_PRE_SOLVE;
	sd.enable_custom_filtering = kind == HOOK_CUSTOM_FILTER;
	kl_shape_id asked_shape = kl_create_box_shape(asked, &sd, kl_vec3(0.5f, 0.5f, 0.5f));
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(not_asked, &plain, kl_vec3(0.5f, 0.5f, 0.5f))));
	assert_int_equal(kl_shape_get_def(asked_shape).enable_pre_solve_events, kind == HOOK_PRE_SOLVE);
	assert_int_equal(kl_shape_get_def(asked_shape).enable_custom_filtering, kind == HOOK_CUSTOM_FILTER);
	if (KL_IS_NON_NULL(log->refuse_a))
	{
		log->refuse_a = asked_shape;
		log->refuse_b = ground_shape;
	}
	drop_result result = {0};
	for (int step = 0; step < 120; ++step)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
		kl_contact_events ev = kl_world_get_contact_events(world);
		for (int k = 0; k < ev.begin_count; ++k)
		{
			result.begin_events_asked += KL_ID_EQUALS(ev.begin_events[k].shape_a, asked_shape) ||
										 KL_ID_EQUALS(ev.begin_events[k].shape_b, asked_shape);
		}
	}
	result.z_asked = kl_body_get_position(asked).z;
	result.z_not_asked = kl_body_get_position(not_asked).z;
	kl_destroy_world(world);
	return result;
}

static void test_pre_solve_drops_box_through_ground(void** state)
{
	(void)state;
	// Refusing every manifold: the box that asks falls through; the other one lands.
	hook_log refuse = {.answer = false};
	drop_result r = drop_boxes(HOOK_PRE_SOLVE, &refuse);
	assert_true(r.z_asked < -5.0f);
	assert_near(r.z_not_asked, 0.5f, 0.02f);
	assert_int_equal(r.begin_events_asked, 0);
	assert_true(atomic_load(&refuse.calls) > 0);
	assert_int_equal(atomic_load(&refuse.bad_args), 0);

	// Accepting: both land, and the hook was asked every step the box touched.
	hook_log accept = {.answer = true};
	r = drop_boxes(HOOK_PRE_SOLVE, &accept);
	assert_near(r.z_asked, 0.5f, 0.02f);
	assert_near(r.z_not_asked, 0.5f, 0.02f);
	assert_int_equal(r.begin_events_asked, 1);
	assert_true(atomic_load(&accept.calls) > 60);
	assert_int_equal(atomic_load(&accept.off_main_thread), 0); // one worker: the calling thread
}

static void test_custom_filter_drops_box_through_ground(void** state)
{
	(void)state;
	// Refusing the pair of the asking box and the ground (drop_boxes fills in their ids): it falls
	// through.
	hook_log refuse = {.refuse_a = {1, 0, 0}};
	drop_result r = drop_boxes(HOOK_CUSTOM_FILTER, &refuse);
	assert_true(r.z_asked < -5.0f);
	assert_near(r.z_not_asked, 0.5f, 0.02f);
	assert_int_equal(r.begin_events_asked, 0);
	int asked = atomic_load(&refuse.calls);
	assert_true(asked >= 1 && asked <= 4); // when the pair begins, not every step
	assert_int_equal(atomic_load(&refuse.bad_args), 0);

	// Refusing everything: only the shape that asks is refused.
	hook_log refuse_all = {.answer = false};
	r = drop_boxes(HOOK_CUSTOM_FILTER, &refuse_all);
	assert_true(r.z_asked < -5.0f);
	assert_near(r.z_not_asked, 0.5f, 0.02f);

	hook_log accept = {.answer = true};
	r = drop_boxes(HOOK_CUSTOM_FILTER, &accept);
	assert_near(r.z_asked, 0.5f, 0.02f);
	assert_near(r.z_not_asked, 0.5f, 0.02f);
	assert_true(atomic_load(&accept.calls) >= 1);
}

// ---------------------------------------------------------------------------------------------
// Threads: a pile big enough for the narrowphase to run on the workers

static bool pure_pre_solve(kl_shape_id a, kl_shape_id b, vec3s point, vec3s normal, void* context)
{
	(void)point;
	(void)normal;
	hook_log* log = context;
	decide(log, a, b);
	return ((a.index1 + b.index1) % 7) != 0; // a pure function of the pair: the same on any thread
}

static bool pure_filter(kl_shape_id a, kl_shape_id b, void* context)
{
	hook_log* log = context;
	decide(log, a, b);
	return ((a.index1 * 3 + b.index1) % 5) != 0;
}

static uint32_t run_pile(int workers, hook_log* pre, hook_log* filter)
{
	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -10.0f), workers);
	pre->main_thread = filter->main_thread = pthread_self();
	assert_int_equal(kl_world_set_pre_solve_callback(world, pure_pre_solve, pre), KL_OK);
	assert_int_equal(kl_world_set_custom_filter_callback(world, pure_filter, filter), KL_OK);
	kl_body_id ground = make_body(world, KL_BODY_STATIC, kl_vec3(0.0f, 0.0f, -0.5f), glms_vec3_zero(), glms_vec3_zero());
	kl_shape_def sd = kl_default_shape_def();
	sd.enable_pre_solve_events = true;
	sd.enable_custom_filtering = true;
	kl_create_box_shape(ground, &sd, kl_vec3(20.0f, 20.0f, 0.5f));
	rng r = {5};
	for (int i = 0; i < 400; ++i)
	{
		vec3s p = kl_vec3(-6.0f + 0.6f * (float)(i % 20), -6.0f + 0.6f * (float)((i / 20) % 20), 0.35f + 0.01f * (float)i / 20.0f);
		kl_body_id body = make_body(world, KL_BODY_DYNAMIC, p, glms_vec3_zero(), glms_vec3_zero());
		assert_true(KL_IS_NON_NULL(kl_create_sphere_shape(body, &sd, rng_float(&r, 0.28f, 0.34f))));
	}
	for (int step = 0; step < 20; ++step)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	uint32_t hash = kl_world_hash_transforms(world);
	kl_destroy_world(world);
	return hash;
}

static void test_callback_threads(void** state)
{
	(void)state;
	hook_log pre1 = {0}, filter1 = {0}, pre4 = {0}, filter4 = {0};
	uint32_t h1 = run_pile(1, &pre1, &filter1);
	uint32_t h4 = run_pile(4, &pre4, &filter4);
	// Pure callbacks leave the step deterministic for any worker count.
	assert_int_equal(h1, h4);
	assert_int_equal(atomic_load(&pre1.calls), atomic_load(&pre4.calls));
	assert_int_equal(atomic_load(&filter1.calls), atomic_load(&filter4.calls));
	assert_true(atomic_load(&pre4.calls) > 256 * 10);
	// The custom filter runs on the stepping thread; pre-solve on whichever thread claims the
	// contacts' range (on a busy machine that may be the stepping thread for all of them).
	assert_int_equal(atomic_load(&filter4.off_main_thread), 0);
	assert_int_equal(atomic_load(&pre1.off_main_thread), 0);
	print_message("pre-solve calls %d (%d on workers), filter calls %d\n", atomic_load(&pre4.calls),
				  atomic_load(&pre4.off_main_thread), atomic_load(&filter4.calls));
}

// ---------------------------------------------------------------------------------------------
// Bad input

static void test_bad_input(void** state)
{
	(void)state;
	kl_world_def def = kl_default_world_def();
	def.hit_event_threshold = NAN;
	kl_clear_error();
	assert_false(kl_world_is_valid(kl_create_world(&def)));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	def.hit_event_threshold = -1.0f;
	assert_false(kl_world_is_valid(kl_create_world(&def)));

	kl_world_id world = make_world(kl_vec3(0.0f, 0.0f, -10.0f), 1);
	assert_near(kl_world_get_def(world).hit_event_threshold, 1.0f, 0.0f);
	assert_int_equal(kl_world_set_hit_event_threshold(world, NAN), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_set_hit_event_threshold(world, -0.5f), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_set_hit_event_threshold(world, INFINITY), KL_ERR_INVALID_ARGUMENT);
	assert_near(kl_world_get_def(world).hit_event_threshold, 1.0f, 0.0f); // unchanged
	assert_int_equal(kl_world_set_hit_event_threshold(world, 0.0f), KL_OK);
	assert_near(kl_world_get_def(world).hit_event_threshold, 0.0f, 0.0f);

	hook_log log = {0};
	kl_get_world(world)->locked = true;
	assert_int_equal(kl_world_set_pre_solve_callback(world, pre_solve, &log), KL_ERR_LOCKED);
	assert_int_equal(kl_world_set_custom_filter_callback(world, custom_filter, &log), KL_ERR_LOCKED);
	assert_int_equal(kl_world_set_hit_event_threshold(world, 2.0f), KL_ERR_LOCKED);
	kl_get_world(world)->locked = false;
	assert_null(kl_get_world(world)->pre_solve_fn);
	assert_null(kl_get_world(world)->custom_filter_fn);
	// NULL removes a callback.
	assert_int_equal(kl_world_set_pre_solve_callback(world, pre_solve, &log), KL_OK);
	assert_int_equal(kl_world_set_pre_solve_callback(world, NULL, NULL), KL_OK);
	assert_null(kl_get_world(world)->pre_solve_fn);
	kl_world_id stale = world;
	kl_destroy_world(world);
	assert_int_equal(kl_world_set_pre_solve_callback(stale, pre_solve, &log), KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_set_custom_filter_callback(stale, custom_filter, &log), KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_set_hit_event_threshold(stale, 1.0f), KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_get_contact_events(stale).hit_count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_events_approach_speed),
		cmocka_unit_test(test_hit_events_landing),
		cmocka_unit_test(test_pre_solve_drops_box_through_ground),
		cmocka_unit_test(test_custom_filter_drops_box_through_ground),
		cmocka_unit_test(test_callback_threads),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
