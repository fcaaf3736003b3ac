// Kollide tests — the non-convex mesh scenes (demos/scenes: mesh_pile, gear_train, screw_block,
// bowl_stack) run at 60 Hz with 4 sub-steps and meet their criteria: the pile settles with nothing
// sunk into the ground or into each other; the braked gear follows the motor-driven one by the
// tooth ratio; the screw comes to rest on its thread and then drifts less than 0.5 mm in 10 s with
// no growing penetration; the bowls nest in order. Every figure is printed, passing or not.
//
// Sanitizer and unoptimised builds run each scene for a shorter time and check only what holds
// within it (the quick checks below). Step times are printed, never judged: the benchmarks measure
// them (kollide-bench, kollide-pile-layouts).
// `test_mesh_scenes NAME` runs the tests whose names contain NAME (pile, gear, screw, bowl).
//
// The screw also runs with the point-shell backend: on the CPU until it comes to rest, matching the
// BVH's run bit for bit, and in full on a CUDA device with `test_mesh_scenes gpu` (ctest:
// test_mesh_scenes_pointshell_gpu), which exits 77, reported Skipped, where there is none.
//
// The pile is chaotic (any change reshuffles the heap), so it is judged over four layouts: the
// scene's own and seeds 1 to 3 (kl_scene_start_seeded), each on every criterion.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"
#include "world.h"

#include <string.h>
#include <time.h>


/// Steps for a duration in seconds: the full one, or the quick one in sanitizer builds.
#define STEPS(full_s, quick_s) ((int)((KL_QUICK ? (quick_s) : (full_s)) * 60.0f + 0.5f))

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

/// A scene being stepped and timed (the time is printed, not judged).
typedef struct timed_run
{
	kl_scene_run run;
	const char* name;
	double seconds; ///< wall time spent in kl_scene_step
	int steps;
} timed_run;

static void timed_start(timed_run* t, const char* name)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	kl_val_start(name, 1, &t->run);
}

/// timed_start for the layout a scene draws from seed.
static void timed_start_seeded(timed_run* t, const char* name, uint32_t seed)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	const kl_scene* scene = kl_scene_find(name);
	assert_non_null(scene);
	if (!kl_scene_start_seeded(scene, 1, seed, &t->run))
	{
		fail_msg("scene %s did not build from seed %u: %s", name, (unsigned)seed, kl_last_error());
	}
}

static double timed_ms_per_step(const timed_run* t)
{
	return t->steps > 0 ? 1000.0 * t->seconds / t->steps : 0.0;
}

/// One step, timed.
static void timed_step(timed_run* t)
{
	double t0 = now_seconds();
	assert_int_equal(kl_scene_step(&t->run, KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
	t->seconds += now_seconds() - t0;
	t->steps += 1;
}

// ---------------------------------------------------------------------------------------------
// Measures

/// Deepest penetration (m, >= 0) of any contact point of the body.
static float body_penetration(kl_body_id body)
{
	int count = kl_body_get_contact_data(body, NULL, 0);
	if (count <= 0)
	{
		return 0.0f;
	}
	kl_contact_data* data = malloc(sizeof(kl_contact_data) * (size_t)count);
	assert_non_null(data);
	count = kl_body_get_contact_data(body, data, count);
	float deepest = 0.0f;
	for (int m = 0; m < count; ++m)
	{
		for (int p = 0; p < data[m].point_count; ++p)
		{
			deepest = fmaxf(deepest, -data[m].points[p].separation);
		}
	}
	free(data);
	return deepest;
}

/// Lowest z of the body's mesh vertices (world).
static float lowest_vertex_z(kl_body_id body)
{
	kl_shape_id shape;
	assert_int_equal(kl_body_get_shapes(body, &shape, 1), 1);
	assert_int_equal(kl_shape_get_type(shape), KL_SHAPE_MESH);
	const kl_mesh* mesh = kl_shape_get_mesh(shape);
	vec3s scale = kl_shape_get_mesh_scale(shape);
	kl_transform xf = kl_transform_mul(kl_body_get_transform(body), kl_shape_get_local_pose(shape));
	const vec3s* v = kl_mesh_vertices(mesh);
	int n = kl_mesh_get_info(mesh).vertex_count;
	float lowest = INFINITY;
	for (int i = 0; i < n; ++i)
	{
		lowest = fminf(lowest, kl_transform_point(xf, glms_vec3_mul(v[i], scale)).z);
	}
	return lowest;
}

static bool pose_is_finite(kl_body_id body)
{
	kl_transform xf = kl_body_get_transform(body);
	return isfinite(xf.p.x) && isfinite(xf.p.y) && isfinite(xf.p.z) && isfinite(xf.q.x) && isfinite(xf.q.y) &&
		   isfinite(xf.q.z) && isfinite(xf.q.w);
}

/// What the dynamic bodies of a world do at one moment.
typedef struct world_state
{
	int dynamic;
	int awake;
	int settled;	   ///< asleep, or slower than the speed bound
	float max_speed;   ///< m/s, of a body's centre of mass
	float max_spin;	   ///< rad/s
	float penetration; ///< deepest contact point, m
	int deepest_body;  ///< index of the body with it
	float lowest_z;	   ///< lowest mesh vertex
	int lowest_body;
} world_state;

static world_state measure(const kl_body_id* bodies, int count, float speed_bound)
{
	world_state s = {0};
	s.lowest_z = INFINITY;
	s.deepest_body = s.lowest_body = -1;
	for (int i = 0; i < count; ++i)
	{
		assert_true(pose_is_finite(bodies[i]));
		float speed = glms_vec3_norm(kl_body_get_linear_velocity(bodies[i]));
		float spin = glms_vec3_norm(kl_body_get_angular_velocity(bodies[i]));
		bool awake = kl_body_is_awake(bodies[i]);
		s.dynamic += 1;
		s.awake += awake;
		s.settled += !awake || speed < speed_bound;
		s.max_speed = fmaxf(s.max_speed, speed);
		s.max_spin = fmaxf(s.max_spin, spin);
		float depth = body_penetration(bodies[i]);
		if (depth > s.penetration)
		{
			s.penetration = depth;
			s.deepest_body = i;
		}
		float z = lowest_vertex_z(bodies[i]);
		if (z < s.lowest_z)
		{
			s.lowest_z = z;
			s.lowest_body = i;
		}
	}
	return s;
}

static const char* mesh_source(kl_body_id body)
{
	kl_shape_id shape;
	if (kl_body_get_shapes(body, &shape, 1) != 1 || kl_shape_get_type(shape) != KL_SHAPE_MESH)
	{
		return "?";
	}
	return kl_mesh_source(kl_shape_get_mesh(shape));
}

// ---------------------------------------------------------------------------------------------
// mesh_pile

/// Bin inner half width (demo_mesh_pile.c), and how far beyond it a body's origin may end up.
static const float k_bin_half = 0.4f;
/// A resting body moves slower than this (m/s) where it has not fallen asleep.
static const float k_rest_speed = 0.02f;
/// Contact penetration allowed at rest (m): the meshes are 5–20 cm, their features millimetres.
static const float k_rest_penetration = 0.003f;
/// Penetration allowed in the drop (m): of any contact, and of any vertex below the ground.
static const float k_drop_penetration = 0.01f;
/// Deeper than this a part has gone through another (the thinnest parts are 2 cm thick).
static const float k_through = 0.025f;
/// How far below the ground's top (z = 0) a mesh vertex may be at rest.
static const float k_ground_tolerance = 0.003f;

/// The layouts the pile is judged over: the scene's own (create) and the first three seeds of
/// create_seeded, chosen before any was run. The pile is chaotic: any change reshuffles the heap,
/// and one layout says little about the next. Quick runs take the scene's own only.
#define PILE_LAYOUTS (KL_QUICK ? 1 : 4)
enum
{
	k_max_pile_layouts = 4
};

/// What one layout of the pile did.
typedef struct pile_result
{
	int settled;
	float rest_penetration;	 ///< deepest contact at the end, m
	float worst_penetration; ///< deepest contact seen (every 10 steps), m
	float end_lowest;		 ///< lowest vertex at the end, m
	float worst_lowest;		 ///< lowest vertex seen
	float outside;			 ///< largest distance of a body's origin beyond a bin wall, m
} pile_result;

/// Runs one layout of the pile (layout 0: the scene's own; k: seed k) for 6 s and measures it.
static pile_result run_pile(int layout)
{
	timed_run t;
	if (layout == 0)
	{
		timed_start(&t, "mesh_pile");
	}
	else
	{
		timed_start_seeded(&t, "mesh_pile", (uint32_t)layout);
	}
	kl_body_id* bodies = NULL;
	int n = kl_val_dynamic_bodies(t.run.world, &bodies);
	assert_int_equal(n, 30);
	const int steps = STEPS(6.0f, 1.0f);
	pile_result r = {0, 0.0f, 0.0f, 0.0f, INFINITY, -INFINITY};
	for (int i = 1; i <= steps; ++i)
	{
		timed_step(&t);
		if (i % 10 == 0 || i == steps)
		{
			world_state s = measure(bodies, n, k_rest_speed);
			r.worst_penetration = fmaxf(r.worst_penetration, s.penetration);
			r.worst_lowest = fminf(r.worst_lowest, s.lowest_z);
		}
	}
	world_state end = measure(bodies, n, k_rest_speed);
	for (int i = 0; i < n; ++i)
	{
		vec3s p = kl_body_get_position(bodies[i]);
		r.outside = fmaxf(r.outside, fmaxf(fabsf(p.x), fabsf(p.y)) - k_bin_half);
	}
	r.settled = end.settled;
	r.rest_penetration = end.penetration;
	r.end_lowest = end.lowest_z;
	printf("  mesh_pile layout %d after %.1f s: %d of %d settled (%d asleep, max speed %.3f m/s), deepest contact "
		   "%.2f mm (%s; worst seen %.2f), lowest vertex %+.2f mm (worst seen %+.2f), furthest origin %+.3f m beyond "
		   "the bin wall, %.1f ms/step\n",
		   layout, (double)steps / 60.0, end.settled, n, n - end.awake, (double)end.max_speed,
		   1000.0 * end.penetration, end.deepest_body >= 0 ? mesh_source(bodies[end.deepest_body]) : "-",
		   1000.0 * r.worst_penetration, 1000.0 * end.lowest_z, 1000.0 * r.worst_lowest, (double)r.outside,
		   timed_ms_per_step(&t));
	free(bodies);
	kl_scene_stop(&t.run);
	return r;
}

/// The pile over its layouts. In every layout nothing escapes the bin, nothing goes through the
/// ground or through another part, and at most one body is still moving at 6 s; in all but one
/// layout every body has settled. In every layout no contact and no vertex below the ground reads
/// deeper than 10 mm in the drop (sampled every 10 steps), and no contact deeper than 3 mm at rest.
/// Quick runs (sanitizers) stop one second in, while the pile still tumbles, and check only the bin,
/// the ground and that nothing went through.
static void test_mesh_pile(void** state)
{
	(void)state;
	pile_result r[k_max_pile_layouts];
	const int layouts = PILE_LAYOUTS;
	int all_settled = 0;
	bool drop_ok = true, rest_ok = true;
	for (int layout = 0; layout < layouts; ++layout)
	{
		r[layout] = run_pile(layout);
		all_settled += r[layout].settled == 30;
		drop_ok = drop_ok && r[layout].worst_penetration < k_drop_penetration &&
				  r[layout].worst_lowest > -k_drop_penetration;
		rest_ok = rest_ok && r[layout].rest_penetration < k_rest_penetration;
	}
	printf("  mesh_pile over %d layouts: %d settled in full; drop depth under %.0f mm in all: %s; rest depth under "
		   "%.0f mm in all: %s\n",
		   layouts, all_settled, 1000.0 * k_drop_penetration, drop_ok ? "yes" : "no",
		   1000.0 * k_rest_penetration, rest_ok ? "yes" : "no");
	for (int layout = 0; layout < layouts; ++layout)
	{
		assert_true(r[layout].outside < 0.0f);						  // nothing escaped the bin
		assert_true(r[layout].worst_lowest > -k_through);			  // nothing fell through the ground
		assert_true(r[layout].worst_penetration < k_through);		  // nor through another part
		assert_true(KL_QUICK || r[layout].end_lowest > -k_ground_tolerance); // not sunk into the ground at rest
		assert_true(KL_QUICK || r[layout].settled >= 29);
	}
	assert_true(KL_QUICK || all_settled >= layouts - 1);
	if (KL_QUICK)
	{
		return;
	}
	assert_true(drop_ok); // no contact nor vertex deeper than 10 mm in the drop
	assert_true(rest_ok); // no contact deeper than 3 mm at rest
}

/// A 0.5 kg L bar landing on a 31 g gear (pile layout 15, contacts found every 1 cm of travel):
/// when only the bar-on-gear manifold saw the gear as heavy as the bar and its side manifolds did
/// not, their rows disagreed on the gear's mass, Gauss-Seidel diverged, contact forces reached
/// 1,700 N and both parts flew off at 20 m/s in one step (solver/contact_solver.c: one support
/// scale per pair). Nothing in the pile's fall moves faster than 6 m/s.
static void test_pile_heavy_on_light_landing(void** state)
{
	(void)state;
	const kl_scene* scene = kl_scene_find("mesh_pile");
	assert_non_null(scene);
	kl_world_def def = kl_default_world_def();
	scene->configure(&def);
	def.max_collision_travel = 0.01f;
	kl_world_id world = kl_create_world(&def);
	void* scene_state = NULL;
	assert_true(scene->create_seeded(world, 15u, &scene_state));
	kl_body_id bodies[64];
	int count = kl_world_get_bodies(world, bodies, 64);
	float fastest = 0.0f;
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world, KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
		for (int b = 0; b < count; ++b)
		{
			fastest = fmaxf(fastest, glms_vec3_norm(kl_body_get_linear_velocity(bodies[b])));
		}
	}
	printf("  pile layout 15, passes every 1 cm: fastest body %.2f m/s over the first 30 steps\n", (double)fastest);
	assert_true(fastest < 6.0f);
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// gear_train

static const float k_gear_ratio = 14.0f / 21.0f; ///< driven turns per driver turn (opposite sense)
static const float k_gear_motor_speed = 2.0f;	  ///< rad/s (demo_gear_train.c)
/// Largest tracking error of the driven gear (rad): the backlash allows 0.005 rad, the faceted
/// flanks add a little through each tooth's mesh.
static const float k_gear_tolerance = 0.03f;
static const float k_gear_penetration = 0.002f; ///< teeth are 2.25 cm deep
static const float k_axle_tolerance = 0.001f;	///< a gear's centre off its axle (m)

static float wrap_angle(float a)
{
	while (a > GLM_PIf)
	{
		a -= 2.0f * GLM_PIf;
	}
	while (a < -GLM_PIf)
	{
		a += 2.0f * GLM_PIf;
	}
	return a;
}

/// The revolute joint whose body_b has that name.
static kl_joint_id joint_of(kl_world_id world, const char* name)
{
	kl_joint_id joints[8];
	int n = kl_world_get_joints(world, joints, 8);
	for (int j = 0; j < n && j < 8; ++j)
	{
		if (strcmp(kl_body_get_name(kl_joint_get_body_b(joints[j])), name) == 0)
		{
			return joints[j];
		}
	}
	fail_msg("gear_train: no joint turns %s", name);
	return kl_null_joint_id;
}

/// Distance between the two world anchors of a joint.
static float anchor_gap(kl_joint_id joint)
{
	kl_joint_def def = kl_joint_get_def(joint);
	vec3s a = kl_transform_point(kl_body_get_transform(def.body_a), def.local_frame_a.p);
	vec3s b = kl_transform_point(kl_body_get_transform(def.body_b), def.local_frame_b.p);
	return glms_vec3_distance(a, b);
}

static void test_gear_train(void** state)
{
	(void)state;
	timed_run t;
	timed_start(&t, "gear_train");
	kl_joint_id driver = joint_of(t.run.world, "driver");
	kl_joint_id driven = joint_of(t.run.world, "driven");
	kl_body_id gears[2] = {kl_joint_get_body_b(driver), kl_joint_get_body_b(driven)};
	const int spin_up = 30; // the motor reaches its speed and the teeth take up the backlash
	const int steps = STEPS(5.0f, 1.0f);
	float angle[2] = {kl_joint_get_angle(driver), kl_joint_get_angle(driven)};
	double turned[2] = {0.0, 0.0}; // unwrapped, since the end of the spin-up
	float worst_error = 0.0f, worst_gap = 0.0f, worst_penetration = 0.0f;
	for (int i = 1; i <= steps; ++i)
	{
		timed_step(&t);
		float now[2] = {kl_joint_get_angle(driver), kl_joint_get_angle(driven)};
		for (int g = 0; g < 2; ++g)
		{
			if (i > spin_up)
			{
				turned[g] += wrap_angle(now[g] - angle[g]);
			}
			angle[g] = now[g];
			worst_penetration = fmaxf(worst_penetration, body_penetration(gears[g]));
		}
		float error = (float)(turned[1] + k_gear_ratio * turned[0]);
		worst_error = fmaxf(worst_error, fabsf(error));
		worst_gap = fmaxf(worst_gap, fmaxf(anchor_gap(driver), anchor_gap(driven)));
		if (i % 60 == 0)
		{
			printf("  gear_train t=%.1f s: driver turned %+.3f rad, driven %+.3f rad (ratio %.4f), error %+.4f rad, "
				   "driver motor %.3f N·m\n",
				   (double)i / 60.0, turned[0], turned[1], turned[0] != 0.0 ? -turned[1] / turned[0] : 0.0,
				   (double)error, (double)kl_joint_get_motor_force(driver));
		}
	}
	double expected = (double)k_gear_motor_speed * (double)(steps - spin_up) / 60.0;
	printf("  gear_train over %.1f s: driver turned %.3f rad of the motor's %.3f, driven %.3f rad (ratio %.4f, "
		   "teeth %.4f), worst tracking error %.4f rad, worst axle offset %.3f mm, deepest tooth contact %.2f mm, "
		   "%.1f ms/step\n",
		   (double)(steps - spin_up) / 60.0, turned[0], expected, turned[1], -turned[1] / turned[0],
		   (double)k_gear_ratio, (double)worst_error, 1000.0 * worst_gap, 1000.0 * worst_penetration,
		   timed_ms_per_step(&t));
	kl_scene_stop(&t.run);
	assert_true(turned[0] > 0.8 * expected); // the teeth do not jam the driver
	assert_true(turned[1] < -0.5 * k_gear_ratio * expected); // the driven gear turns, the other way
	assert_true(worst_error < k_gear_tolerance);
	assert_true(worst_gap < k_axle_tolerance);
	assert_true(worst_penetration < k_gear_penetration);
}

// ---------------------------------------------------------------------------------------------
// screw_block

/// The criterion: less than 0.5 mm of drift over 10 s once at rest.
static const float k_screw_drift = 0.0005f;
/// "No growing penetration": the deepest contact of the window's last tenth may exceed that of its
/// first tenth by at most this (m).
static const float k_screw_growth = 0.0001f;
/// The thread is 5 mm deep with 0.26 mm of clearance: a screw that sinks further than this while
/// it settles is not resting on its flanks.
static const float k_screw_settle_drop = 0.002f;
static const float k_screw_penetration = 0.002f;
/// At rest: slower than this (m/s, rad/s) for half a second.
static const float k_screw_rest_speed = 0.005f;
static const float k_screw_rest_spin = 0.05f;

/// Largest displacement of the screw's head centre and tip from their places at the window start.
static float screw_drift(kl_body_id screw, kl_transform start)
{
	const vec3s head = kl_vec3(0.0f, 0.0f, -0.015f), tip = kl_vec3(0.0f, 0.0f, 0.12f); // screw frame
	kl_transform xf = kl_body_get_transform(screw);
	float d_head = glms_vec3_distance(kl_transform_point(xf, head), kl_transform_point(start, head));
	float d_tip = glms_vec3_distance(kl_transform_point(xf, tip), kl_transform_point(start, tip));
	return fmaxf(d_head, d_tip);
}

/// Switches every mesh shape of a body to a mesh backend.
static void use_mesh_backend(kl_body_id body, kl_mesh_backend backend)
{
	kl_shape_id shapes[8];
	int n = kl_body_get_shapes(body, shapes, 8);
	for (int i = 0; i < n && i < 8; ++i)
	{
		if (kl_shape_get_type(shapes[i]) == KL_SHAPE_MESH)
		{
			assert_int_equal(kl_shape_set_mesh_backend(shapes[i], backend), KL_OK);
		}
	}
}

static void run_screw_block(kl_mesh_backend backend)
{
	timed_run t;
	timed_start(&t, "screw_block");
	kl_body_id screw = kl_world_find_body(t.run.world, "screw");
	assert_true(KL_IS_NON_NULL(screw));
	if (backend == KL_MESH_BACKEND_POINTSHELL)
	{
		// The pair asks for point shells, served by the GPU in one batch per step.
		use_mesh_backend(screw, backend);
		assert_int_equal(kl_world_set_use_gpu(t.run.world, true), KL_OK);
	}
	const float z0 = kl_body_get_position(screw).z;
	const int settle_limit = STEPS(3.0f, 3.0f);
	const int window = STEPS(10.0f, 1.0f);
	const int segment = window / 10; // the first and last tenth of the window: 1 s each in the full run
	// "Once at rest": the window starts when the screw has been slower than the rest bounds for half
	// a second (it knocks about its thread for a second or two after the drop), within 3 s.
	int settle = 0, still = 0;
	int gpu_steps = 0; // steps whose point-shell pair the GPU served
	while (settle < settle_limit && still < 30)
	{
		timed_step(&t);
		gpu_steps += kl_world_get_counters(t.run.world).pointshell_gpu_pair_count > 0;
		++settle;
		bool slow = glms_vec3_norm(kl_body_get_linear_velocity(screw)) < k_screw_rest_speed &&
					glms_vec3_norm(kl_body_get_angular_velocity(screw)) < k_screw_rest_spin;
		still = slow ? still + 1 : 0;
	}
	assert_true(still >= 30); // it came to rest
	kl_transform start = kl_body_get_transform(screw);
	float drop = z0 - start.p.z;
	float first_second = 0.0f, last_second = 0.0f, deepest = 0.0f, drift = 0.0f;
	for (int i = 1; i <= window; ++i)
	{
		timed_step(&t);
		gpu_steps += kl_world_get_counters(t.run.world).pointshell_gpu_pair_count > 0;
		float depth = body_penetration(screw);
		deepest = fmaxf(deepest, depth);
		first_second = i <= segment ? fmaxf(first_second, depth) : first_second;
		last_second = i > window - segment ? fmaxf(last_second, depth) : last_second;
		drift = fmaxf(drift, screw_drift(screw, start));
		if (i % 120 == 0)
		{
			vec3s p = kl_body_get_position(screw);
			printf("  screw_block t=%.1f s: drift %.3f mm, z %+.3f mm from the start, deepest contact %.3f mm, "
				   "%.1f ms/step\n",
				   (double)(settle + i) / 60.0, 1000.0 * screw_drift(screw, start), 1000.0 * (p.z - z0),
				   1000.0 * depth, timed_ms_per_step(&t));
		}
	}
	kl_contact_data contacts[8];
	int manifolds = kl_body_get_contact_data(screw, contacts, 8);
	printf("  screw_block (%s, %d steps served by the GPU): dropped %.3f mm while settling (%.1f s); over the "
		   "next %.1f s largest drift %.3f mm, deepest contact %.3f mm in its first tenth and %.3f mm in its last (worst %.3f), %d contact "
		   "manifolds at the end, %.1f ms/step\n",
		   backend == KL_MESH_BACKEND_POINTSHELL ? "point shells" : "BVH", gpu_steps, 1000.0 * drop,
		   (double)settle / 60.0, (double)window / 60.0, 1000.0 * drift, 1000.0 * first_second, 1000.0 * last_second, 1000.0 * deepest, manifolds, timed_ms_per_step(&t));
	kl_scene_stop(&t.run);
	assert_true(fabsf(drop) < k_screw_settle_drop);
	assert_true(drift < k_screw_drift);
	assert_true(last_second <= first_second + k_screw_growth);
	assert_true(deepest < k_screw_penetration);
	assert_true(backend == KL_MESH_BACKEND_BVH ? gpu_steps == 0 : gpu_steps > 0);
}

static void test_screw_block(void** state)
{
	(void)state;
	run_screw_block(KL_MESH_BACKEND_BVH);
}

/// The screw rests as stably with the point-shell backend. Its CPU path takes 0.18 s a step on this
/// pair (dense contact: 75,000 triangle pairs within the alarm distance), so this test runs on a
/// CUDA device only (`test_mesh_scenes gpu`); test_screw_block_pointshell_cpu covers the CPU path.
static void test_screw_block_pointshell_gpu(void** state)
{
	(void)state;
	run_screw_block(KL_MESH_BACKEND_POINTSHELL);
}

/// On the CPU the point-shell backend's candidates give the screw exactly the BVH's contacts, so
/// from the drop until it comes to rest in the thread (the BVH run's rest criterion, as in
/// run_screw_block) it steps bit for bit as with the BVH, whose rest test_screw_block then checks in
/// full. Two workers, so that the pair is searched by the batch over the pool (contact_pointshell.c;
/// test_pointshell's gear checks a pair's own search): about 0.14 s a step for both worlds, some
/// 130 steps; 2 under the sanitizers.
static void test_screw_block_pointshell_cpu(void** state)
{
	(void)state;
	kl_scene_run runs[2];
	kl_body_id screws[2];
	for (int i = 0; i < 2; ++i)
	{
		kl_val_start("screw_block", 2, &runs[i]);
		screws[i] = kl_world_find_body(runs[i].world, "screw");
		assert_true(KL_IS_NON_NULL(screws[i]));
	}
	use_mesh_backend(screws[1], KL_MESH_BACKEND_POINTSHELL);
	const int limit = KL_QUICK ? 2 : STEPS(3.0f, 3.0f);
	int steps = 0, searched = 0, batched = 0, still = 0;
	double t0 = now_seconds();
	while (steps < limit && still < 30)
	{
		for (int i = 0; i < 2; ++i)
		{
			assert_int_equal(kl_scene_step(&runs[i], KL_VAL_DT, KL_VAL_SUBSTEPS), KL_OK);
		}
		++steps;
		searched += kl_world_get_counters(runs[1].world).pointshell_pair_count > 0;
		batched += kl_get_world(runs[1].world)->pointshell_batch_pairs > 0; // the pool's batch served it
		kl_transform a = kl_body_get_transform(screws[0]), b = kl_body_get_transform(screws[1]);
		assert_memory_equal(&a, &b, sizeof(a));
		bool slow = glms_vec3_norm(kl_body_get_linear_velocity(screws[0])) < k_screw_rest_speed &&
					glms_vec3_norm(kl_body_get_angular_velocity(screws[0])) < k_screw_rest_spin;
		still = slow ? still + 1 : 0;
	}
	vec3s p = kl_body_get_position(screws[1]);
	printf("  screw_block, point shells on the CPU: %d steps bit for bit as with the BVH (%d searched by point "
		   "shells), %s, screw at z %.4f m, %.0f ms a step for both worlds\n",
		   steps, searched, still >= 30 ? "at rest" : "not yet at rest", (double)p.z,
		   1e3 * (now_seconds() - t0) / steps);
	assert_int_equal(searched, steps);
	assert_int_equal(batched, steps);
	assert_true(KL_QUICK || still >= 30);
	for (int i = 0; i < 2; ++i)
	{
		kl_scene_stop(&runs[i]);
	}
}

// ---------------------------------------------------------------------------------------------
// bowl_stack

enum
{
	k_bowls = 5,
};

/// Nested bowls touch at the rim's inner edge: the outer sphere (R = 0.1) of the upper bowl meets
/// the circle of radius R − thickness at the lower bowl's rim height, sqrt(R² − (R − t)²) above it.
static const float k_nest_spacing = 0.04359f;
static const float k_bowl_offset = 0.01f; ///< largest horizontal offset of a bowl from the one below

static void test_bowl_stack(void** state)
{
	(void)state;
	timed_run t;
	timed_start(&t, "bowl_stack");
	kl_body_id bowls[k_bowls];
	for (int i = 0; i < k_bowls; ++i)
	{
		char name[8];
		snprintf(name, sizeof(name), "bowl%d", i);
		bowls[i] = kl_world_find_body(t.run.world, name);
		assert_true(KL_IS_NON_NULL(bowls[i]));
	}
	const int steps = STEPS(4.0f, 1.0f);
	float worst_penetration = 0.0f;
	for (int i = 1; i <= steps; ++i)
	{
		timed_step(&t);
		if (i % 30 == 0)
		{
			world_state s = measure(bowls, k_bowls, k_rest_speed);
			worst_penetration = fmaxf(worst_penetration, s.penetration);
		}
	}
	world_state end = measure(bowls, k_bowls, k_rest_speed);
	float worst_offset = 0.0f, min_dz = INFINITY, max_dz = -INFINITY;
	printf("  bowl_stack after %.1f s: rise over the bowl below (nested: %.1f mm)", (double)steps / 60.0,
		   1000.0 * k_nest_spacing);
	for (int i = 1; i < k_bowls; ++i)
	{
		vec3s lower = kl_body_get_position(bowls[i - 1]), upper = kl_body_get_position(bowls[i]);
		float dz = upper.z - lower.z;
		float offset = (float)kl_val_horizontal_distance(upper, lower);
		printf(" %.1f (off %.1f)", 1000.0 * dz, 1000.0 * offset);
		min_dz = fminf(min_dz, dz);
		max_dz = fmaxf(max_dz, dz);
		worst_offset = fmaxf(worst_offset, offset);
	}
	printf(" mm; max speed %.3f m/s, deepest contact %.2f mm (worst seen %.2f), lowest vertex %+.2f mm, "
		   "%.1f ms/step\n",
		   (double)end.max_speed, 1000.0 * end.penetration, 1000.0 * worst_penetration, 1000.0 * end.lowest_z,
		   timed_ms_per_step(&t));
	kl_scene_stop(&t.run);
	// Each bowl sits inside the one below: centred, above it, and neither perched nor sunk through.
	assert_true(worst_offset < k_bowl_offset);
	assert_true(min_dz > 0.5f * k_nest_spacing);
	assert_true(max_dz < 1.5f * k_nest_spacing);
	assert_true(end.lowest_z > -k_ground_tolerance);
	if (!KL_QUICK)
	{
		assert_int_equal(end.settled, k_bowls);
		assert_true(end.penetration < k_rest_penetration);
	}
}

/// `test_mesh_scenes [NAME]`: the CPU tests, or those whose names contain NAME; `test_mesh_scenes gpu`:
/// the screw on the GPU's point shells, or exit 77 (Skipped) without a CUDA device.
int main(int argc, char** argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	if (argc > 2)
	{
		fprintf(stderr, "usage: test_mesh_scenes [NAME | gpu]\n");
		return 2;
	}
	printf("  %s run (%s)\n", KL_QUICK ? "quick" : "full",
		   KL_QUICK ? "sanitizer or unoptimised build: shorter scenes" : "optimised build");
	if (argc > 1 && strcmp(argv[1], "gpu") == 0)
	{
		if (!kl_gpu_available())
		{
			printf("the point-shell screw on the GPU is skipped: %s\n", kl_gpu_describe());
			return KL_TEST_SKIPPED;
		}
		const struct CMUnitTest gpu_tests[] = {
			cmocka_unit_test(test_screw_block_pointshell_gpu),
		};
		return kl_test_exit_status(cmocka_run_group_tests(gpu_tests, NULL, NULL));
	}
	char filter[64];
	if (argc > 1)
	{
		snprintf(filter, sizeof(filter), "*%s*", argv[1]);
		cmocka_set_test_filter(filter);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gear_train),
		cmocka_unit_test(test_screw_block),
		cmocka_unit_test(test_screw_block_pointshell_cpu),
		cmocka_unit_test(test_bowl_stack),
		cmocka_unit_test(test_mesh_pile),
		cmocka_unit_test(test_pile_heavy_on_light_landing),
	};
	return kl_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
