// Kollide tests — running out of memory (core.c's injected allocation failures): every allocation
// fails in turn while a world is built, while it takes its first steps, while a running world is
// changed, while a mesh and its point-shell model are built (and read from their cache), and while
// scenes and mesh files load. Each failing call reports out of memory and leaves things as they
// were, or the failure is worked around; none crashes (under the sanitizers, a leak or a bad access
// fails the test too); a step leaves the caller's error state as it was; and the world steps on.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "core.h"
#include "kl_pointshell_test.h"
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The scene: a floor, a box stack, a hull, a capsule on a revolute joint, and a gear dropped on a
/// gear through point shells, on two workers (so the pool's point-shell batch runs).
typedef struct oom_scene
{
	kl_world_id world;
	kl_body_id bodies[8];
	int body_count;
	int made_bodies; ///< calls that succeeded, to check a world that a failed call leaves
	int made_shapes;
} oom_scene;

static const vec3s k_hull_points[] = {{{-0.2f, -0.2f, -0.2f}}, {{0.2f, -0.2f, -0.2f}}, {{0.0f, 0.25f, -0.2f}},
									  {{0.0f, 0.0f, 0.22f}}};

/// Creates a body and counts it; null on failure.
static kl_body_id add_body(oom_scene* s, const kl_body_def* bd)
{
	kl_body_id b = kl_create_body(s->world, bd);
	s->made_bodies += KL_IS_NON_NULL(b);
	return b;
}

/// Counts a shape that was created; false for the null id.
static bool added_shape(oom_scene* s, kl_shape_id shape)
{
	s->made_shapes += KL_IS_NON_NULL(shape);
	return KL_IS_NON_NULL(shape);
}

/// Builds the scene; false (with an error) where a call failed. What was built is in s.
static bool build_scene(oom_scene* s, kl_mesh* gear)
{
	memset(s, 0, sizeof(*s));
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = 2;
	s->world = kl_create_world(&wd);
	if (KL_IS_NULL(s->world))
	{
		return false;
	}
	kl_body_def bd = kl_default_body_def();
	kl_shape_def sd = kl_default_shape_def();
	bd.position = kl_vec3(0.0f, 0.0f, -0.5f);
	kl_body_id floor = add_body(s, &bd);
	if (KL_IS_NULL(floor) || !added_shape(s, kl_create_box_shape(floor, &sd, kl_vec3(5.0f, 5.0f, 0.5f))))
	{
		return false;
	}
	bd.position = kl_vec3(3.0f, 0.0f, 0.01f);
	kl_body_id base = add_body(s, &bd);
	sd.mesh_backend = KL_MESH_BACKEND_POINTSHELL;
	if (KL_IS_NULL(base) || !added_shape(s, kl_create_mesh_shape(base, &sd, gear, kl_vec3(1.0f, 1.0f, 1.0f))))
	{
		return false;
	}
	bd.type = KL_BODY_DYNAMIC;
	for (int i = 0; i < 8; ++i)
	{
		bd.position = i < 3 ? kl_vec3(0.0f, 0.0f, 0.2f + 0.41f * (float)i)
				: i < 5	   ? kl_vec3(-1.5f + 0.6f * (float)(i - 3), 1.0f, 0.4f)
				: i < 7	   ? kl_vec3(1.0f, -1.0f + 0.9f * (float)(i - 5), 0.5f)
						   : kl_vec3(3.003f, 0.002f, 0.035f);
		kl_body_id b = add_body(s, &bd);
		if (KL_IS_NULL(b))
		{
			return false;
		}
		s->bodies[s->body_count++] = b;
		kl_shape_id shape = kl_null_shape_id;
		if (i < 3)
		{
			shape = kl_create_box_shape(b, &sd, kl_vec3(0.2f, 0.2f, 0.2f));
		}
		else if (i < 5)
		{
			kl_hull* hull = kl_hull_build(k_hull_points, 4);
			shape = hull != NULL ? kl_create_hull_shape(b, &sd, hull) : kl_null_shape_id;
			kl_hull_destroy(hull);
		}
		else if (i < 7)
		{
			shape = kl_create_capsule_shape(b, &sd, 0.1f, 0.3f);
		}
		else
		{
			shape = kl_create_mesh_shape(b, &sd, gear, kl_vec3(1.0f, 1.0f, 1.0f));
		}
		if (!added_shape(s, shape))
		{
			return false;
		}
	}
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, s->bodies[5], s->bodies[6], kl_vec3(1.0f, -0.55f, 0.5f),
											  kl_vec3(0.0f, 1.0f, 0.0f));
	return KL_IS_NON_NULL(kl_create_joint(s->world, &jd));
}

/// Steps n times; every step must succeed and keep the marker error the caller set.
static void step_keeping_error(kl_world_id world, int n)
{
	for (int i = 0; i < n; ++i)
	{
		kl_fail(KL_ERR_IO, "marker");
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
		assert_int_equal(kl_last_error_code(), KL_ERR_IO);
		assert_string_equal(kl_last_error(), "marker");
	}
}

static long s_failed_allocation = -1; // for the messages

#define SETTLE_STEPS 15

/// Where the bodies are after the first three steps and SETTLE_STEPS more, with nothing failing.
static vec3s s_reference[8];

static void record_positions(const oom_scene* s, vec3s* out)
{
	for (int i = 0; i < s->body_count; ++i)
	{
		out[i] = kl_body_get_position(s->bodies[i]);
	}
}

/// After the failures: the world steps on, its bodies stay finite and end within 5 cm of where
/// they end when nothing fails (a box that lost its floor has fallen 30 cm by then).
static void assert_world_intact(oom_scene* s)
{
	step_keeping_error(s->world, SETTLE_STEPS);
	vec3s now[8];
	record_positions(s, now);
	for (int i = 0; i < s->body_count; ++i)
	{
		assert_true(kl_transform_is_finite(kl_body_get_transform(s->bodies[i])));
		float off = glms_vec3_distance(now[i], s_reference[i]);
		if (!(off < 0.05f))
		{
			fail_msg("body %d is %g m from its place after the failure of allocation %ld", i, (double)off,
					 s_failed_allocation);
		}
	}
}

/// A small gear (6 teeth, no bore: 96 triangles) with its point-shell model, so that the sweeps
/// stay quick.
static kl_mesh* make_small_gear(void)
{
	kl_meshgen_gear_params g = kl_meshgen_default_gear_params();
	g.tooth_count = 6;
	g.bore_radius = 0.0f;
	kl_meshgen_mesh gm;
	assert_int_equal(kl_meshgen_gear(&g, &gm), KL_OK);
	kl_mesh* mesh = build_cached(&gm, NULL);
	kl_meshgen_free(&gm);
	assert_non_null(mesh);
	return mesh;
}

/// Allocations that `run(context)` makes from the state it starts in (nothing fails).
static long count_allocations(void (*run)(void*), void* context)
{
	const long many = 1L << 40;
	kl_fail_allocation(many);
	run(context);
	long left = kl_fail_allocation_countdown();
	kl_fail_allocation(-1);
	return many - left;
}

static void build_and_destroy(void* gear)
{
	oom_scene s;
	build_scene(&s, gear);
	kl_destroy_world(s.world);
}

/// Every allocation of building the scene fails in turn: the failing call reports out of memory
/// and leaves the world as it was (what was made before it, and nothing of it), a world that steps.
static void test_build_out_of_memory(void** state)
{
	(void)state;
	kl_mesh* gear = make_small_gear();
	long total = count_allocations(build_and_destroy, gear);
	assert_true(total > 20);
	int failed = 0;
	for (long n = 0; n < total; ++n)
	{
		kl_clear_error();
		kl_fail_allocation(n);
		oom_scene s;
		bool built = build_scene(&s, gear);
		bool fired = kl_fail_allocation_countdown() < 0;
		kl_fail_allocation(-1);
		if (!built)
		{
			assert_true(fired);
			assert_int_equal(kl_last_error_code(), KL_ERR_OUT_OF_MEMORY);
			++failed;
		}
		if (!built && KL_IS_NON_NULL(s.world))
		{
			// The failed call left the world as it was: what was made before it is there, nothing
			// of it, and the world steps.
			kl_counters c = kl_world_get_counters(s.world);
			assert_int_equal(c.body_count, s.made_bodies);
			assert_int_equal(c.shape_count, s.made_shapes);
			assert_int_equal(c.joint_count, 0);
			for (int i = 0; i < 3; ++i)
			{
				assert_int_equal(kl_world_step(s.world, 1.0f / 60.0f, 4), KL_OK);
			}
		}
		kl_destroy_world(s.world);
	}
	printf("  %ld allocations building the scene; %d failures refused a call, the rest were worked around\n", total,
		   failed);
	assert_true(failed > 0);
	kl_mesh_release(gear);
}

static void first_steps(void* scene)
{
	step_keeping_error(((oom_scene*)scene)->world, 3);
}

/// Every allocation of a new world's first three steps fails in turn (on whichever thread makes
/// it): the steps succeed and keep the caller's error, and the world goes on to rest intact.
static void test_step_out_of_memory(void** state)
{
	(void)state;
	kl_mesh* gear = make_small_gear();
	oom_scene s;
	assert_true(build_scene(&s, gear));
	int batched = 0; // steps whose gear pair the pool's point-shell batch served
	for (int i = 0; i < 3 + SETTLE_STEPS; ++i)
	{
		step_keeping_error(s.world, 1);
		batched += kl_get_world(s.world)->pointshell_batch_pairs > 0;
	}
	assert_true(batched >= 3 + SETTLE_STEPS / 2);
	record_positions(&s, s_reference);
	kl_destroy_world(s.world);
	assert_true(build_scene(&s, gear));
	long total = count_allocations(first_steps, &s);
	kl_destroy_world(s.world);
	assert_true(total > 20);
	long stride = KL_QUICK ? 1 + total / 25 : 1;
	int fired = 0;
	for (long n = 0; n < total; n += stride)
	{
		assert_true(build_scene(&s, gear));
		s_failed_allocation = n;
		kl_fail_allocation(n);
		step_keeping_error(s.world, 3);
		fired += kl_fail_allocation_countdown() < 0;
		kl_fail_allocation(-1);
		assert_world_intact(&s);
		kl_destroy_world(s.world);
	}
	printf("  %ld allocations in the first three steps; %d of the injected failures happened\n", total, fired);
	assert_true(fired > 0);
	kl_mesh_release(gear);
}

/// A hull and a mesh shape created when the broadphase's change list is full (eight shapes made
/// since the last step), every allocation failing in turn: a failed creation leaves the caller's
/// hull and mesh reference as they were (it freed the hull copy twice, and dropped the caller's
/// mesh reference), and the body as it was.
static void test_shape_creation_out_of_memory(void** state)
{
	(void)state;
	kl_mesh* gear = make_small_gear();
	kl_hull* hull = kl_hull_build(k_hull_points, 4);
	assert_non_null(hull);
	int failed = 0;
	for (int kind = 0; kind < 2; ++kind)
	{
		for (long n = 0;; ++n)
		{
			kl_world_def wd = kl_default_world_def();
			kl_world_id world = kl_create_world(&wd);
			kl_body_def bd = kl_default_body_def();
			bd.type = KL_BODY_DYNAMIC;
			kl_body_id body = kl_create_body(world, &bd);
			kl_shape_def sd = kl_default_shape_def();
			for (int i = 0; i < 8; ++i)
			{
				assert_true(KL_IS_NON_NULL(kl_create_box_shape(body, &sd, kl_vec3(0.1f, 0.1f, 0.1f))));
			}
			float mass = kl_body_get_mass(body);
			kl_fail_allocation(n);
			kl_shape_id shape = kind == 0 ? kl_create_hull_shape(body, &sd, hull)
										  : kl_create_mesh_shape(body, &sd, gear, kl_vec3(1.0f, 1.0f, 1.0f));
			bool fired = kl_fail_allocation_countdown() < 0;
			kl_fail_allocation(-1);
			if (KL_IS_NULL(shape))
			{
				assert_true(fired);
				assert_int_equal(kl_last_error_code(), KL_ERR_OUT_OF_MEMORY);
				assert_int_equal(kl_world_get_counters(world).shape_count, 8);
				assert_true(kl_body_get_mass(body) == mass);
				assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
				++failed;
			}
			kl_destroy_world(world);
			if (!fired)
			{
				break;
			}
		}
	}
	// Both are still the caller's: the hull is whole and the mesh has its reference.
	assert_int_equal(kl_hull_vertex_count(hull), 4);
	assert_true(kl_mesh_get_info(gear).has_pointshell);
	printf("  %d shape creations failed for memory\n", failed);
	assert_true(failed > 0);
	kl_hull_destroy(hull);
	kl_mesh_release(gear);
}

/// Fast bodies (25 m/s) meet a 4 cm floor in the steps whose allocations fail in turn: a step that
/// cannot find its contacts holds the bodies still (moved, they passed through the floor), and the
/// contact events stay consistent (no end without a begin, no begin twice).
typedef struct fast_scene
{
	kl_world_id world;
	kl_body_id bodies[6];
	int touching[6]; ///< per body: touching pairs its events say it is in
} fast_scene;

static void build_fast_scene(fast_scene* f)
{
	memset(f, 0, sizeof(*f));
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = 2;
	f->world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_shape_def sd = kl_default_shape_def();
	sd.enable_contact_events = true;
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(kl_create_body(f->world, &bd), &sd, kl_vec3(10.0f, 10.0f, 0.02f))));
	bd.type = KL_BODY_DYNAMIC;
	bd.linear_velocity = kl_vec3(0.0f, 0.0f, -25.0f);
	for (int i = 0; i < 6; ++i)
	{
		bd.position = kl_vec3(-3.0f + 1.2f * (float)i, 0.0f, 1.0f + 0.3f * (float)i);
		f->bodies[i] = kl_create_body(f->world, &bd);
		kl_shape_id shape = i % 2 == 0 ? kl_create_sphere_shape(f->bodies[i], &sd, 0.1f)
									   : kl_create_box_shape(f->bodies[i], &sd, kl_vec3(0.1f, 0.1f, 0.1f));
		assert_true(KL_IS_NON_NULL(shape));
	}
}

static int body_index(const fast_scene* f, kl_shape_id a, kl_shape_id b)
{
	for (int i = 0; i < 6; ++i)
	{
		kl_body_id body = kl_shape_get_body(a);
		kl_body_id other = kl_shape_get_body(b);
		if (KL_ID_EQUALS(body, f->bodies[i]) || KL_ID_EQUALS(other, f->bodies[i]))
		{
			return i;
		}
	}
	return -1;
}

/// Steps once, applying its contact events to the bodies' touching counts.
static void step_fast_scene(fast_scene* f)
{
	step_keeping_error(f->world, 1);
	kl_contact_events ev = kl_world_get_contact_events(f->world);
	for (int i = 0; i < ev.end_count; ++i)
	{
		int b = body_index(f, ev.end_events[i].shape_a, ev.end_events[i].shape_b);
		assert_true(b >= 0 && f->touching[b] > 0); // an end without a begin
		f->touching[b]--;
	}
	for (int i = 0; i < ev.begin_count; ++i)
	{
		int b = body_index(f, ev.begin_events[i].shape_a, ev.begin_events[i].shape_b);
		assert_true(b >= 0 && f->touching[b] == 0); // the floor is each body's only partner
		f->touching[b]++;
	}
}

/// The 12 steps of impact.
static void impact_steps(void* scene)
{
	for (int i = 0; i < 12; ++i)
	{
		step_fast_scene(scene);
	}
}

static void test_fast_bodies_out_of_memory(void** state)
{
	(void)state;
	fast_scene counted;
	build_fast_scene(&counted);
	long total = count_allocations(impact_steps, &counted);
	kl_destroy_world(counted.world);
	assert_true(total > 20);
	long stride = KL_QUICK ? 1 + total / 15 : 1;
	for (long n = 0; n < total; n += stride)
	{
		fast_scene f;
		build_fast_scene(&f);
		kl_fail_allocation(n);
		impact_steps(&f);
		kl_fail_allocation(-1);
		for (int i = 0; i < 48; ++i)
		{
			step_fast_scene(&f);
		}
		for (int i = 0; i < 6; ++i)
		{
			float z = kl_body_get_position(f.bodies[i]).z;
			if (!(z > 0.0f && z < 0.3f))
			{
				fail_msg("body %d at z = %g after the failure of allocation %ld", i, (double)z, n);
			}
			assert_int_equal(f.touching[i], 1); // resting on the floor, as its events say
		}
		kl_destroy_world(f.world);
	}
	printf("  %ld allocations in the steps of impact, each failed in turn\n", total);
}

/// A sleeping body woken, and a static one made dynamic, when the awake list is full: each call
/// either fails with out of memory and changes nothing, or the body moves (it stayed flagged awake
/// and frozen in mid-air when the list could not grow).
static void test_wake_out_of_memory(void** state)
{
	(void)state;
	int calls = 0;
	for (int which = 0; which < 2; ++which)
	{
		for (long n = 0;; ++n)
		{
			kl_world_def wd = kl_default_world_def();
			kl_world_id world = kl_create_world(&wd);
			kl_body_def bd = kl_default_body_def();
			kl_shape_def sd = kl_default_shape_def();
			bd.type = KL_BODY_DYNAMIC;
			for (int i = 0; i < 8; ++i)
			{
				bd.position = kl_vec3((float)i, 0.0f, 50.0f);
				kl_create_sphere_shape(kl_create_body(world, &bd), &sd, 0.1f);
			}
			bd.type = which == 0 ? KL_BODY_STATIC : KL_BODY_DYNAMIC;
			bd.is_awake = false;
			bd.position = kl_vec3(0.0f, 5.0f, 5.0f);
			kl_body_id body = kl_create_body(world, &bd);
			kl_create_sphere_shape(body, &sd, 0.1f);
			step_keeping_error(world, 1);
			kl_fail_allocation(n);
			kl_result r = which == 0 ? kl_body_set_type(body, KL_BODY_DYNAMIC) : kl_body_set_awake(body, true);
			bool fired = kl_fail_allocation_countdown() < 0;
			// Waking allocates nothing (the awake list has room for every body): in a step, where a
			// contact wakes a body, a failure could not be reported.
			assert_int_equal(kl_fail_allocation_countdown(), n);
			kl_fail_allocation(-1);
			step_keeping_error(world, 30);
			float z = kl_body_get_position(body).z;
			if (r == KL_OK)
			{
				assert_true(z < 4.0f); // it falls
			}
			else
			{
				assert_int_equal(r, KL_ERR_OUT_OF_MEMORY);
				assert_true(z == 5.0f);
			}
			calls++;
			kl_destroy_world(world);
			if (!fired)
			{
				break;
			}
		}
	}
	printf("  %d calls, each allocation of them failing in turn\n", calls);
}

static kl_mesh* s_changed_gear;

/// Changes to a world that has run a while (a body destroyed, one made kinematic, one teleported,
/// one created, one woken), then three steps; the caller's error must survive the steps.
static void change_and_step(void* scene)
{
	oom_scene* s = scene;
	kl_destroy_body(s->bodies[1]);
	kl_body_set_type(s->bodies[3], KL_BODY_KINEMATIC);
	kl_body_set_transform(s->bodies[4], kl_vec3(-2.0f, -1.5f, 0.6f), glms_quat_identity());
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.0f, 1.5f, 0.5f);
	kl_body_id b = kl_create_body(s->world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	if (KL_IS_NON_NULL(b))
	{
		kl_create_sphere_shape(b, &sd, 0.2f);
	}
	kl_body_set_awake(s->bodies[0], true);
	step_keeping_error(s->world, 3);
}

static void warm_scene(oom_scene* s)
{
	assert_true(build_scene(s, s_changed_gear));
	step_keeping_error(s->world, 40);
}

/// Every allocation of changing a world that has run a while, and of its next three steps, fails
/// in turn: each change either happens or fails with out of memory, the steps succeed, and the
/// world steps on with every body finite and none through the floor.
static void test_changes_out_of_memory(void** state)
{
	(void)state;
	s_changed_gear = make_small_gear();
	oom_scene warmed;
	warm_scene(&warmed);
	long total = count_allocations(change_and_step, &warmed);
	kl_destroy_world(warmed.world);
	assert_true(total > 0);
	long stride = KL_QUICK ? 1 + total / 12 : 1;
	int fired = 0;
	for (long n = 0; n < total; n += stride)
	{
		oom_scene s;
		warm_scene(&s);
		s_failed_allocation = n;
		kl_fail_allocation(n);
		change_and_step(&s);
		fired += kl_fail_allocation_countdown() < 0;
		kl_fail_allocation(-1);
		step_keeping_error(s.world, SETTLE_STEPS);
		for (int i = 0; i < s.body_count; ++i)
		{
			if (!kl_body_is_valid(s.bodies[i]))
			{
				continue; // destroyed
			}
			kl_transform xf = kl_body_get_transform(s.bodies[i]);
			assert_true(kl_transform_is_finite(xf));
			if (!(xf.p.z > -0.05f))
			{
				fail_msg("body %d at z = %g after the failure of allocation %ld", i, (double)xf.p.z, n);
			}
		}
		kl_destroy_world(s.world);
	}
	printf("  %ld allocations changing a running world and stepping it; %d failures happened\n", total, fired);
	assert_true(fired > 0);
	kl_mesh_release(s_changed_gear);
}

static kl_meshgen_mesh s_gear_mesh;
static const char* s_cache_path = KL_TEST_OUT_DIR "/out_of_memory_gear.klps";

static kl_mesh* build_gear_with_model(void)
{
	kl_mesh_def md = mesh_def_of(&s_gear_mesh);
	md.build_pointshell = true;
	md.pointshell_cache = s_cache_path;
	return kl_mesh_build(&md);
}

static void build_gear_and_release(void* unused)
{
	(void)unused;
	kl_mesh_release(build_gear_with_model());
}

/// Every allocation of building a mesh with its point-shell model (and writing its cache), then of
/// building it from the cache, fails in turn: the build fails with out of memory, or gives the
/// model it gives when nothing fails (a cache that could not be read or written is rebuilt or
/// skipped, never half used).
static void test_mesh_build_out_of_memory(void** state)
{
	(void)state;
	kl_meshgen_gear_params g = kl_meshgen_default_gear_params();
	g.tooth_count = 6;
	assert_int_equal(kl_meshgen_gear(&g, &s_gear_mesh), KL_OK);
	remove(s_cache_path);
	kl_mesh* reference = build_gear_with_model();
	assert_non_null(reference);
	kl_mesh_info want = kl_mesh_get_info(reference);
	assert_true(want.has_pointshell && want.pointshell_cache == KL_MESH_CACHE_WRITTEN);
	for (int from_cache = 0; from_cache < 2; ++from_cache)
	{
		remove(s_cache_path);
		if (from_cache)
		{
			kl_mesh_release(build_gear_with_model()); // writes the file
		}
		long total = count_allocations(build_gear_and_release, NULL);
		long stride = KL_QUICK ? 1 + total / 60 : 1 + total / 600;
		int failed = 0, worked_around = 0;
		for (long n = 0; n < total; n += stride)
		{
			if (!from_cache)
			{
				remove(s_cache_path);
			}
			kl_clear_error();
			kl_fail_allocation(n);
			kl_mesh* mesh = build_gear_with_model();
			kl_fail_allocation(-1);
			if (mesh == NULL)
			{
				if (kl_last_error_code() != KL_ERR_OUT_OF_MEMORY)
				{
					fail_msg("allocation %ld failed: %s (%s)", n, kl_result_name(kl_last_error_code()), kl_last_error());
				}
				++failed;
				continue;
			}
			kl_mesh_info got = kl_mesh_get_info(mesh);
			if (from_cache && got.pointshell_cache != KL_MESH_CACHE_READ)
			{
				remove(s_cache_path); // rebuilt (and maybe written): the next one reads the file again
				kl_mesh_release(build_gear_with_model());
			}
			assert_true(got.has_pointshell);
			assert_true(got.pointshell_bytes == want.pointshell_bytes);
			assert_true(got.triangle_count == want.triangle_count);
			worked_around += got.pointshell_cache != (from_cache ? KL_MESH_CACHE_READ : KL_MESH_CACHE_WRITTEN);
			kl_mesh_release(mesh);
		}
		printf("  %s: %ld allocations, every %ld-th failed: %d builds failed, %d worked around\n",
			   from_cache ? "from the cache" : "building and writing the cache", total, stride, failed, worked_around);
		assert_true(failed > 0);
	}
	kl_mesh_release(reference);
	kl_meshgen_free(&s_gear_mesh);
	remove(s_cache_path);
}

static const char* s_scene_path;

static void load_scene_and_destroy(void* unused)
{
	(void)unused;
	kl_destroy_world(kl_scene_load_file(s_scene_path, NULL));
}

static void quiet(const char* message, void* context)
{
	(void)message;
	(void)context;
}

/// Every allocation of loading each example scene (meshes included) fails in turn: the load fails
/// with out of memory and leaves nothing behind, or gives the world it gives when nothing fails.
static void test_scene_load_out_of_memory(void** state)
{
	(void)state;
	const char* scenes[] = {"falling_shapes.json", "hinge_ball.json", "mesh_drop.json", "tumbling_box.json"};
	kl_scene_load_options options = kl_default_scene_load_options();
	options.warning = quiet;
	char path[512];
	for (size_t i = 0; i < sizeof(scenes) / sizeof(scenes[0]); ++i)
	{
		snprintf(path, sizeof(path), "%s/scenes/%s", KL_ASSETS_DIR, scenes[i]);
		s_scene_path = path;
		kl_world_id reference = kl_scene_load_file(path, &options);
		assert_true(KL_IS_NON_NULL(reference));
		char* want = kl_scene_save_string(reference);
		assert_non_null(want);
		kl_destroy_world(reference);
		long total = count_allocations(load_scene_and_destroy, NULL);
		long stride = KL_QUICK ? 1 + total / 40 : 1;
		int failed = 0;
		for (long n = 0; n < total; n += stride)
		{
			kl_clear_error();
			kl_fail_allocation(n);
			kl_world_id world = kl_scene_load_file(path, &options);
			kl_fail_allocation(-1);
			if (KL_IS_NULL(world))
			{
				if (kl_last_error_code() != KL_ERR_OUT_OF_MEMORY)
				{
					fail_msg("%s, allocation %ld: %s (%s)", scenes[i], n, kl_result_name(kl_last_error_code()),
							 kl_last_error());
				}
				++failed;
				continue;
			}
			char* got = kl_scene_save_string(world);
			assert_non_null(got);
			assert_string_equal(got, want);
			free(got);
			kl_destroy_world(world);
		}
		printf("  %s: %ld allocations, %d loads failed\n", scenes[i], total, failed);
		assert_true(failed > 0);
		free(want);
	}
}

static const char* s_mesh_path;

static void load_mesh_and_release(void* unused)
{
	(void)unused;
	kl_mesh_release(kl_mesh_load(s_mesh_path, NULL, NULL));
}

/// Every allocation of loading meshes in each file format fails in turn: the load fails with out
/// of memory, or gives the mesh it gives when nothing fails.
static void test_mesh_load_out_of_memory(void** state)
{
	(void)state;
	const char* files[] = {KL_ASSETS_DIR "/meshes/gear.obj", KL_ASSETS_DIR "/meshes/nut.obj",
						   KL_TEST_DATA_DIR "/cube.off", KL_TEST_DATA_DIR "/cube.stl"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); ++i)
	{
		s_mesh_path = files[i];
		kl_mesh* reference = kl_mesh_load(files[i], NULL, NULL);
		assert_non_null(reference);
		kl_mesh_info want = kl_mesh_get_info(reference);
		long total = count_allocations(load_mesh_and_release, NULL);
		long stride = KL_QUICK ? 1 + total / 40 : 1;
		int failed = 0;
		for (long n = 0; n < total; n += stride)
		{
			kl_clear_error();
			kl_fail_allocation(n);
			kl_mesh* mesh = kl_mesh_load(files[i], NULL, NULL);
			kl_fail_allocation(-1);
			if (mesh == NULL)
			{
				if (kl_last_error_code() != KL_ERR_OUT_OF_MEMORY)
				{
					fail_msg("%s, allocation %ld: %s (%s)", files[i], n, kl_result_name(kl_last_error_code()),
							 kl_last_error());
				}
				++failed;
				continue;
			}
			kl_mesh_info got = kl_mesh_get_info(mesh);
			assert_int_equal(got.vertex_count, want.vertex_count);
			assert_int_equal(got.triangle_count, want.triangle_count);
			assert_true(got.volume == want.volume && got.closed == want.closed);
			kl_mesh_release(mesh);
		}
		printf("  %s: %ld allocations, %d loads failed\n", strrchr(files[i], '/') + 1, total, failed);
		assert_true(failed > 0);
		kl_mesh_release(reference);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_out_of_memory),
		cmocka_unit_test(test_step_out_of_memory),
		cmocka_unit_test(test_shape_creation_out_of_memory),
		cmocka_unit_test(test_fast_bodies_out_of_memory),
		cmocka_unit_test(test_wake_out_of_memory),
		cmocka_unit_test(test_changes_out_of_memory),
		cmocka_unit_test(test_mesh_build_out_of_memory),
		cmocka_unit_test(test_scene_load_out_of_memory),
		cmocka_unit_test(test_mesh_load_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
