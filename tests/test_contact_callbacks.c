// Kollide tests — the step's hooks as Box3D has them: hit events (their approach speed against the
// bodies' relative normal velocity as the step began, the threshold, the per-shape switch), and
// their bad input.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "contact.h"
#include "world.h"

#include <kollide/kollide.h>

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

	kl_get_world(world)->locked = true;
	assert_int_equal(kl_world_set_hit_event_threshold(world, 2.0f), KL_ERR_LOCKED);
	kl_get_world(world)->locked = false;
	kl_world_id stale = world;
	kl_destroy_world(world);
	assert_int_equal(kl_world_set_hit_event_threshold(stale, 1.0f), KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_get_contact_events(stale).hit_count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_events_approach_speed),
		cmocka_unit_test(test_hit_events_landing),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
