// Wide (8-lane) contact constraints against the scalar ones: synthetic bodies and manifolds are
// prepared with kl_prepare_contact, then warm start, biased and relax passes with alternating
// point order, moving bodies and restitution run once through kl_*_contact one constraint at a
// time and once through the wide kernels of each SIMD level; velocities and impulses must agree.
// Covers partial groups, static / kinematic sides, speculative points, 1–4 points, rolling
// resistance and restitution. Ends with a micro-benchmark (printed, not asserted).
// `test_contact_wide avx2` runs the AVX2 comparison alone (ctest: test_contact_wide_avx2); where the
// build, the CPU or KOLLIDE_SIMD rule AVX2 out it exits 77, which ctest reports as Skipped.
#include "contact_solver_wide.h"
#include "world.h"

#include "kl_test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BODY_COUNT 24
#define FIRST_KINEMATIC 16
#define FIRST_STATIC 20
#define SUBSTEPS 4

typedef struct rng
{
	uint32_t state;
} rng;

static float rand_range(rng* r, float lo, float hi)
{
	r->state = r->state * 1664525u + 1013904223u;
	return lo + (hi - lo) * (float)(r->state >> 8) / 16777216.0f;
}

// Each draw is a statement of its own: C leaves the order in which a call's arguments (or an
// initializer's values) are evaluated open, and compilers differ.

static vec3s rand_vec3(rng* r, float lo, float hi)
{
	float x = rand_range(r, lo, hi);
	float y = rand_range(r, lo, hi);
	float z = rand_range(r, lo, hi);
	return kl_vec3(x, y, z);
}

static versors rand_rotation(rng* r, float spread)
{
	versors q;
	q.x = rand_range(r, -spread, spread);
	q.y = rand_range(r, -spread, spread);
	q.z = rand_range(r, -spread, spread);
	q.w = 1.0f;
	return glms_quat_normalize(q);
}

/// Bodies, manifolds and the step that the scalar and wide paths share.
typedef struct fixture
{
	kl_body_sim sims[BODY_COUNT];
	kl_solver_body bodies[BODY_COUNT];
	kl_body_state states[BODY_COUNT];
	kl_contact contacts[KL_WIDE_LANES];
	kl_contact_constraint constraints[KL_WIDE_LANES];
	kl_solver_step step;
	int lane_count;
} fixture;

static void make_bodies(fixture* f, rng* r)
{
	for (int i = 0; i < BODY_COUNT; ++i)
	{
		kl_solver_body* b = &f->bodies[i];
		memset(b, 0, sizeof(*b));
		b->center0 = rand_vec3(r, -5.0f, 5.0f);
		f->sims[i].center = b->center0;
		b->rotation0 = rand_rotation(r, 1.0f);
		b->delta_rotation = rand_rotation(r, 0.02f);
		b->delta_position = rand_vec3(r, -0.01f, 0.01f);
		f->states[i].linear_velocity = rand_vec3(r, -2.0f, 2.0f);
		f->states[i].angular_velocity = rand_vec3(r, -3.0f, 3.0f);
		if (i < FIRST_KINEMATIC)
		{
			b->inv_mass = rand_range(r, 0.2f, 2.0f);
			mat3s rot = glms_quat_mat3(rand_rotation(r, 1.0f));
			mat3s diag = glms_mat3_zero();
			diag.m00 = rand_range(r, 0.5f, 4.0f);
			diag.m11 = rand_range(r, 0.5f, 4.0f);
			diag.m22 = rand_range(r, 0.5f, 4.0f);
			b->inv_inertia = glms_mat3_mul(glms_mat3_mul(rot, diag), glms_mat3_transpose(rot));
		}
	}
}

/// Lane i: b is dynamic body 2i+1 (or static in lane 6); a cycles through dynamic, static and
/// kinematic. Points: 1–4, some speculative; restitution and rolling resistance on some lanes.
static void make_contact(fixture* f, rng* r, int lane, int seed, int* index_a, int* index_b)
{
	kl_contact* c = &f->contacts[lane];
	memset(c, 0, sizeof(*c));
	int kind = (lane + seed) % 4;
	*index_a = kind == 1 ? -1 : (kind == 2 ? FIRST_KINEMATIC + lane % 4 : 2 * lane);
	*index_b = lane == 6 ? -1 : 2 * lane + 1;
	if (*index_b < 0 && *index_a < 0)
	{
		*index_a = 2 * lane;
	}
	c->body_a = *index_a >= 0 ? *index_a : FIRST_STATIC + lane % 4;
	c->body_b = *index_b >= 0 ? *index_b : FIRST_STATIC + (lane + 1) % 4;
	c->friction = rand_range(r, 0.2f, 1.0f);
	c->restitution = (lane + seed) % 3 == 0 ? rand_range(r, 0.2f, 0.9f) : 0.0f;
	c->rolling_resistance = (lane + seed) % 2 == 0 ? rand_range(r, 0.01f, 0.2f) : 0.0f;
	// Spin resistance on its own, with rolling, and neither: every mix of the two in one group.
	c->spin_resistance = (lane + seed) % 3 != 2 ? rand_range(r, 0.01f, 0.2f) : 0.0f;
	kl_manifold* m = &c->manifold;
	m->normal = glms_vec3_normalize(rand_vec3(r, -1.0f, 1.0f));
	m->point_count = 1 + (lane + 3 * seed) % KL_MAX_MANIFOLD_POINTS;
	m->rolling_impulse = rand_vec3(r, -0.02f, 0.02f);
	vec3s ca = f->sims[c->body_a].center;
	if (*index_b >= 0)
	{
		// b sits on a along the normal (b is this lane's own body).
		vec3s center = glms_vec3_add(ca, glms_vec3_add(glms_vec3_scale(m->normal, 0.6f), rand_vec3(r, -0.1f, 0.1f)));
		f->bodies[*index_b].center0 = center;
		f->sims[*index_b].center = center;
	}
	vec3s cb = f->sims[c->body_b].center;
	vec3s mid = glms_vec3_scale(glms_vec3_add(ca, cb), 0.5f);
	for (int k = 0; k < m->point_count; ++k)
	{
		kl_manifold_point* p = &m->points[k];
		p->point = glms_vec3_add(mid, rand_vec3(r, -0.4f, 0.4f));
		p->separation = rand_range(r, -0.04f, 0.02f);
		p->normal_impulse = rand_range(r, 0.0f, 2.0f);
		p->tangent_impulse[0] = rand_range(r, -0.3f, 0.3f);
		p->tangent_impulse[1] = rand_range(r, -0.3f, 0.3f);
	}
	if (c->restitution > 0.0f && *index_b >= 0)
	{
		// Approach fast enough to bounce.
		f->states[*index_b].linear_velocity = glms_vec3_add(glms_vec3_scale(m->normal, -4.0f), rand_vec3(r, -0.5f, 0.5f));
		f->states[*index_b].angular_velocity = glms_vec3_scale(f->states[*index_b].angular_velocity, 0.1f);
	}
}

/// Prepares manifold 0 of contact k as the engine's solver stage does (centres of static sides
/// from sims).
static void prepare_contact_at(const kl_body_sim* sims, const kl_solver_step* step, const kl_contact* contact, int k,
							   int a, int b, kl_contact_constraint* c)
{
	kl_contact_source source = {&contact->manifold,	  contact->manifold.normal,
								sims[contact->body_a].center, sims[contact->body_b].center,
								contact->friction,	  contact->restitution,
								contact->rolling_resistance, contact->spin_resistance,
								k,					  0};
	// Every third contact runs on a conveyor belt, so that groups mix belts and plain surfaces.
	source.surface_velocity = k % 3 == 0 ? kl_vec3(0.1f * (float)(k % 7) - 0.3f, 0.2f, -0.1f) : glms_vec3_zero();
	kl_prepare_contact(step, &source, a, b, c);
}

static void make_fixture(fixture* f, int seed, int lane_count)
{
	memset(f, 0, sizeof(*f));
	rng r = {0x9e3779b9u * (uint32_t)(seed + 1)};
	make_bodies(f, &r);
	f->lane_count = lane_count;
	kl_solver_step* s = &f->step;
	s->sims = f->sims;
	s->states = f->states;
	s->bodies = f->bodies;
	s->substep_count = SUBSTEPS;
	s->dt = 1.0f / 60.0f;
	s->h = s->dt / SUBSTEPS;
	s->inv_h = 1.0f / s->h;
	s->contact_softness = kl_make_softness(30.0f, 10.0f, s->h);
	s->static_softness = kl_make_softness(60.0f, 10.0f, s->h);
	s->joint_softness = kl_make_softness(60.0f, 2.0f, s->h);
	s->max_push_speed = 3.0f;
	s->restitution_threshold = 1.0f;
	s->enable_warm_starting = true;
	for (int lane = 0; lane < lane_count; ++lane)
	{
		int a, b;
		make_contact(f, &r, lane, seed, &a, &b);
		prepare_contact_at(f->sims, s, &f->contacts[lane], lane, a, b, &f->constraints[lane]);
	}
}

/// Moves the bodies between passes, the same way for both paths.
static void move_bodies(kl_solver_body* bodies, int pass)
{
	for (int i = 0; i < BODY_COUNT; ++i)
	{
		float s = 0.001f * (float)(pass + 1);
		bodies[i].delta_position = glms_vec3_add(bodies[i].delta_position, kl_vec3(s, -0.5f * s, 0.25f * s));
	}
}

/// The scalar reference: one constraint at a time.
static void run_scalar(fixture* f, kl_contact_constraint* cons, kl_body_state* states, kl_solver_body* bodies)
{
	kl_solver_step step = f->step;
	step.states = states;
	step.bodies = bodies;
	for (int sub = 0; sub < SUBSTEPS; ++sub)
	{
		for (int i = 0; i < f->lane_count; ++i)
		{
			kl_warm_start_contact(&step, &cons[i]);
		}
		for (int i = 0; i < f->lane_count; ++i)
		{
			kl_solve_contact(&step, &cons[i], true);
		}
		step.pass++;
		move_bodies(bodies, step.pass);
		for (int i = 0; i < f->lane_count; ++i)
		{
			kl_solve_contact(&step, &cons[i], false);
		}
		step.pass++;
	}
	for (int i = 0; i < f->lane_count; ++i)
	{
		kl_apply_restitution(&step, &cons[i]);
	}
}

/// The same sequence on one wide constraint with the given kernels (NULL: the public functions).
static void run_wide(fixture* f, const kl_contact_wide_kernels* k, kl_contact_constraint* cons, kl_body_state* states,
					 kl_solver_body* bodies, kl_contact_constraint_wide* wide)
{
	kl_solver_step step = f->step;
	step.states = states;
	step.bodies = bodies;
	kl_gather_contacts_wide(&step, cons, f->lane_count, wide);
	for (int sub = 0; sub < SUBSTEPS; ++sub)
	{
		k != NULL ? k->warm_start(&step, wide) : kl_warm_start_contacts_wide(&step, wide);
		k != NULL ? k->solve(&step, wide, true) : kl_solve_contacts_wide(&step, wide, true);
		step.pass++;
		move_bodies(bodies, step.pass);
		k != NULL ? k->solve(&step, wide, false) : kl_solve_contacts_wide(&step, wide, false);
		step.pass++;
	}
	k != NULL ? k->restitution(&step, wide) : kl_apply_restitution_wide(&step, wide);
	kl_scatter_contacts_wide(wide, cons, f->lane_count);
}

static double s_max_error;
static int s_seed, s_lanes;

static void check_close(double ref, double got)
{
	double err = fabs(ref - got) / fmax(1.0, fabs(ref));
	s_max_error = fmax(s_max_error, err);
	if (err > 1e-5)
	{
		print_error("seed %d, %d lanes:\n", s_seed, s_lanes);
	}
	assert_near(got, ref, 1e-5 * fmax(1.0, fabs(ref)));
}

static void check_vec3_close(vec3s ref, vec3s got)
{
	check_close(ref.x, got.x);
	check_close(ref.y, got.y);
	check_close(ref.z, got.z);
}

/// Compares the wide kernels of one level against the scalar functions for one fixture.
static void compare_level(const kl_contact_wide_kernels* k, int seed, int lane_count, kl_body_state* states_out,
						  kl_contact_constraint* cons_out)
{
	fixture* f = malloc(sizeof(fixture));
	assert_non_null(f);
	make_fixture(f, seed, lane_count);
	s_seed = seed;
	s_lanes = lane_count;
	kl_contact_constraint cons_ref[KL_WIDE_LANES], cons_wide[KL_WIDE_LANES];
	kl_body_state states_ref[BODY_COUNT], states_wide[BODY_COUNT];
	kl_solver_body bodies_ref[BODY_COUNT], bodies_wide[BODY_COUNT];
	memcpy(cons_ref, f->constraints, sizeof(cons_ref));
	memcpy(cons_wide, f->constraints, sizeof(cons_wide));
	memcpy(states_ref, f->states, sizeof(states_ref));
	memcpy(states_wide, f->states, sizeof(states_wide));
	memcpy(bodies_ref, f->bodies, sizeof(bodies_ref));
	memcpy(bodies_wide, f->bodies, sizeof(bodies_wide));
	kl_contact_constraint_wide* wide = malloc(sizeof(*wide));
	assert_non_null(wide);

	run_scalar(f, cons_ref, states_ref, bodies_ref);
	run_wide(f, k, cons_wide, states_wide, bodies_wide, wide);

	int bounced = 0, rolled = 0, spun = 0, speculative = 0;
	for (int i = 0; i < lane_count; ++i)
	{
		assert_int_equal(cons_ref[i].point_count, cons_wide[i].point_count);
		for (int p = 0; p < cons_ref[i].point_count; ++p)
		{
			const kl_contact_constraint_point* a = &cons_ref[i].points[p];
			const kl_contact_constraint_point* b = &cons_wide[i].points[p];
			check_close(a->normal_impulse, b->normal_impulse);
			check_close(a->tangent_impulse[0], b->tangent_impulse[0]);
			check_close(a->tangent_impulse[1], b->tangent_impulse[1]);
			check_close(a->max_normal_impulse, b->max_normal_impulse);
			check_close(a->relative_velocity, b->relative_velocity);
			bounced += cons_ref[i].restitution > 0.0f && a->relative_velocity < -1.0f && a->max_normal_impulse > 0.0f;
			speculative += f->contacts[i].manifold.points[p].separation > 0.0f;
		}
		check_vec3_close(cons_ref[i].rolling_impulse, cons_wide[i].rolling_impulse);
		vec3s moved = glms_vec3_sub(cons_ref[i].rolling_impulse, f->constraints[i].rolling_impulse);
		rolled += (cons_ref[i].rolling_resistance > 0.0f || cons_ref[i].spin_resistance > 0.0f) &&
				  glms_vec3_norm(moved) > 0.0f;
		spun += cons_ref[i].spin_resistance > 0.0f && fabsf(glms_vec3_dot(moved, cons_ref[i].normal)) > 0.0f;
	}
	for (int i = 0; i < BODY_COUNT; ++i)
	{
		check_vec3_close(states_ref[i].linear_velocity, states_wide[i].linear_velocity);
		check_vec3_close(states_ref[i].angular_velocity, states_wide[i].angular_velocity);
		if (i >= FIRST_KINEMATIC)
		{
			// Kinematic and static bodies are read, never written.
			assert_memory_equal(&states_wide[i], &f->states[i], sizeof(kl_body_state));
		}
	}
	if (lane_count == KL_WIDE_LANES)
	{
		// The fixture must exercise what it claims to.
		if (bounced == 0)
		{
			print_error("seed %d: no point bounced\n", seed);
		}
		assert_true(bounced > 0);
		assert_true(rolled > 0);
		assert_true(spun > 0);
		assert_true(speculative > 0);
	}
	if (states_out != NULL)
	{
		memcpy(states_out, states_wide, sizeof(states_wide));
		memcpy(cons_out, cons_wide, sizeof(cons_wide));
	}
	free(wide);
	free(f);
}

static void test_scalar_lanes_match_scalar(void** state)
{
	(void)state;
	const kl_contact_wide_kernels* k = kl_contact_wide_kernels_get(KL_SIMD_SCALAR);
	assert_non_null(k);
	for (int seed = 0; seed < 12; ++seed)
	{
		for (int lanes = 1; lanes <= KL_WIDE_LANES; ++lanes)
		{
			compare_level(k, seed, lanes, NULL, NULL);
		}
	}
	print_message("scalar lanes: max relative difference %.3g\n", s_max_error);
}

static void test_avx2_matches_scalar(void** state)
{
	(void)state;
	const kl_contact_wide_kernels* k = kl_contact_wide_kernels_get(KL_SIMD_AVX2);
	assert_non_null(k);
	for (int seed = 0; seed < 12; ++seed)
	{
		for (int lanes = 1; lanes <= KL_WIDE_LANES; ++lanes)
		{
			kl_body_state sv[BODY_COUNT], av[BODY_COUNT];
			kl_contact_constraint sc[KL_WIDE_LANES], ac[KL_WIDE_LANES];
			compare_level(kl_contact_wide_kernels_get(KL_SIMD_SCALAR), seed, lanes, sv, sc);
			compare_level(k, seed, lanes, av, ac);
			// Same operations in the same order: the two levels agree to the bit.
			assert_memory_equal(sv, av, sizeof(sv));
			for (int i = 0; i < lanes; ++i)
			{
				assert_memory_equal(&sc[i], &ac[i], sizeof(sc[i]));
			}
		}
	}
	print_message("avx2: max relative difference %.3g\n", s_max_error);
}

static void test_dispatch_and_empty(void** state)
{
	(void)state;
	// The public functions use the process's level.
	compare_level(NULL, 3, KL_WIDE_LANES, NULL, NULL);
	// No lanes: nothing is read or written.
	fixture* f = malloc(sizeof(fixture));
	assert_non_null(f);
	make_fixture(f, 5, 0);
	kl_body_state before[BODY_COUNT];
	memcpy(before, f->states, sizeof(before));
	kl_contact_constraint_wide wide;
	kl_gather_contacts_wide(&f->step, f->constraints, 0, &wide);
	kl_warm_start_contacts_wide(&f->step, &wide);
	kl_solve_contacts_wide(&f->step, &wide, true);
	kl_apply_restitution_wide(&f->step, &wide);
	assert_memory_equal(before, f->states, sizeof(before));
	free(f);
}

// Micro-benchmark: many manifolds of 4 points between distinct dynamic bodies.

#define BENCH_MANIFOLDS 2048
#define BENCH_PASSES 16

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench
{
	kl_body_sim* sims;
	kl_solver_body* bodies;
	kl_body_state* states;
	kl_contact_constraint* cons;
	kl_contact_constraint_wide* wide;
	kl_solver_step step;
} bench;

static void bench_make(bench* b)
{
	int body_count = 2 * BENCH_MANIFOLDS;
	b->sims = calloc((size_t)body_count, sizeof(kl_body_sim));
	b->bodies = calloc((size_t)body_count, sizeof(kl_solver_body));
	b->states = calloc((size_t)body_count, sizeof(kl_body_state));
	b->cons = calloc(BENCH_MANIFOLDS, sizeof(kl_contact_constraint));
	b->wide = calloc(BENCH_MANIFOLDS / KL_WIDE_LANES, sizeof(kl_contact_constraint_wide));
	assert_true(b->sims && b->bodies && b->states && b->cons && b->wide);
	fixture* f = malloc(sizeof(fixture));
	assert_non_null(f);
	make_fixture(f, 1, KL_WIDE_LANES);
	b->step = f->step;
	b->step.sims = b->sims;
	b->step.states = b->states;
	b->step.bodies = b->bodies;
	rng r = {12345u};
	for (int i = 0; i < body_count; ++i)
	{
		b->bodies[i] = f->bodies[i % FIRST_KINEMATIC];
		b->sims[i].center = b->bodies[i].center0;
		b->states[i].linear_velocity = rand_vec3(&r, -1.0f, 1.0f);
		b->states[i].angular_velocity = rand_vec3(&r, -1.0f, 1.0f);
	}
	for (int i = 0; i < BENCH_MANIFOLDS; ++i)
	{
		kl_contact c = f->contacts[0];
		c.body_a = 2 * i;
		c.body_b = 2 * i + 1;
		c.manifold.point_count = 4;
		c.manifold.normal = glms_vec3_normalize(rand_vec3(&r, -1.0f, 1.0f));
		c.restitution = 0.0f;
		c.rolling_resistance = 0.0f;
		for (int k = 0; k < 4; ++k)
		{
			c.manifold.points[k].point = glms_vec3_add(b->bodies[2 * i].center0, rand_vec3(&r, -0.5f, 0.5f));
			c.manifold.points[k].separation = rand_range(&r, -0.02f, 0.01f);
		}
		prepare_contact_at(b->sims, &b->step, &c, i, 2 * i, 2 * i + 1, &b->cons[i]);
	}
	for (int g = 0; g < BENCH_MANIFOLDS / KL_WIDE_LANES; ++g)
	{
		kl_gather_contacts_wide(&b->step, b->cons + g * KL_WIDE_LANES, KL_WIDE_LANES, &b->wide[g]);
	}
	free(f);
}

static void bench_free(bench* b)
{
	free(b->sims);
	free(b->bodies);
	free(b->states);
	free(b->cons);
	free(b->wide);
}

/// ns per point row (one normal and two friction rows of one point) of kl_solve_contact or a level.
static double bench_run(bench* b, const kl_contact_wide_kernels* k)
{
	double best = 1e30;
	for (int rep = 0; rep < 3; ++rep)
	{
		double t0 = now_seconds();
		for (int pass = 0; pass < BENCH_PASSES; ++pass)
		{
			b->step.pass = pass;
			if (k == NULL)
			{
				for (int i = 0; i < BENCH_MANIFOLDS; ++i)
				{
					kl_solve_contact(&b->step, &b->cons[i], (pass & 1) == 0);
				}
			}
			else
			{
				for (int g = 0; g < BENCH_MANIFOLDS / KL_WIDE_LANES; ++g)
				{
					k->solve(&b->step, &b->wide[g], (pass & 1) == 0);
				}
			}
		}
		best = fmin(best, now_seconds() - t0);
	}
	return 1e9 * best / ((double)BENCH_MANIFOLDS * 4.0 * BENCH_PASSES);
}

static void test_benchmark(void** state)
{
	(void)state;
	bench b;
	bench_make(&b);
	double scalar = bench_run(&b, NULL);
	double lanes = bench_run(&b, kl_contact_wide_kernels_get(KL_SIMD_SCALAR));
	print_message("contact solve, ns per point: kl_solve_contact %.2f, wide scalar lanes %.2f (x%.2f)\n", scalar,
				  lanes, scalar / lanes);
	double t0 = now_seconds();
	for (int g = 0; g < BENCH_MANIFOLDS / KL_WIDE_LANES; ++g)
	{
		kl_gather_contacts_wide(&b.step, b.cons + g * KL_WIDE_LANES, KL_WIDE_LANES, &b.wide[g]);
		kl_scatter_contacts_wide(&b.wide[g], b.cons + g * KL_WIDE_LANES, KL_WIDE_LANES);
	}
	print_message("gather + scatter (once per step), ns per point: %.2f\n",
				  1e9 * (now_seconds() - t0) / (4.0 * BENCH_MANIFOLDS));
	const kl_contact_wide_kernels* avx2 = kl_contact_wide_kernels_get(KL_SIMD_AVX2);
	if (avx2 != NULL && kl_simd_level_get() == KL_SIMD_AVX2)
	{
		double wide = bench_run(&b, avx2);
		print_message("contact solve, ns per point: wide avx2 %.2f (x%.2f)\n", wide, scalar / wide);
	}
	for (int i = 0; i < 2 * BENCH_MANIFOLDS; ++i)
	{
		assert_true(isfinite(b.states[i].linear_velocity.x) && isfinite(b.states[i].angular_velocity.y));
	}
	bench_free(&b);
}

int main(int argc, char** argv)
{
	bool avx2 = argc > 1 && strcmp(argv[1], "avx2") == 0;
	if (argc > 2 || (argc > 1 && !avx2))
	{
		fprintf(stderr, "usage: test_contact_wide [avx2]\n");
		return 2;
	}
	if (avx2)
	{
		if (kl_contact_wide_kernels_get(KL_SIMD_AVX2) == NULL || kl_simd_level_get() != KL_SIMD_AVX2)
		{
			printf("AVX2 kernels not available here (build, CPU or KOLLIDE_SIMD): skipped\n");
			return KL_TEST_SKIPPED;
		}
		const struct CMUnitTest avx2_tests[] = {
			cmocka_unit_test(test_avx2_matches_scalar),
		};
		return kl_test_exit_status(cmocka_run_group_tests(avx2_tests, NULL, NULL));
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalar_lanes_match_scalar),
		cmocka_unit_test(test_dispatch_and_empty),
		cmocka_unit_test(test_benchmark),
	};
	return kl_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
