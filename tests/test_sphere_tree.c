// Kollide — tests of inner-sphere trees (kollide/sphere_tree.h): the lens volume, depth, normal and
// torque of two single spheres; tree invariants and deterministic builds; every traversal (scalar, AVX2,
// AVX-512) at branching 4 and 16 against brute force over all sphere pairs at random poses, and the
// walks against each other bit for bit; continuity of volume and force while sliding; the time-critical
// mode's estimate and bound; bad input. The inner spheres are a body-centred lattice packing of a box
// built here (disjoint spheres of two sizes), and free random spheres.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "core.h"
#include "ist.h"

#include <kollide/kollide.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------
// Helpers: PRNG, sphere sets, poses, brute force

static uint64_t s_rng = 0x5eed1234u;

static double rnd(void)
{
	s_rng = s_rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(s_rng >> 11) * (1.0 / 9007199254740992.0);
}

static double rnd_range(double lo, double hi)
{
	return lo + (hi - lo) * rnd();
}

/// A box [0, nx·s]×[0, ny·s]×[0, nz·s] (centred on the origin) packed with disjoint spheres: radius
/// 0.49·s on the lattice's corners, 0.36·s at the cells' centres. Returns the count (≤ capacity).
static int pack_box(int nx, int ny, int nz, float s, kl_sphere* out, int capacity)
{
	int n = 0;
	vec3s half = {{0.5f * nx * s, 0.5f * ny * s, 0.5f * nz * s}};
	for (int i = 0; i < nx; ++i)
	{
		for (int j = 0; j < ny; ++j)
		{
			for (int k = 0; k < nz; ++k)
			{
				vec3s corner = {{(i + 0.5f) * s - half.x, (j + 0.5f) * s - half.y, (k + 0.5f) * s - half.z}};
				if (n < capacity)
				{
					out[n++] = (kl_sphere){corner, 0.49f * s};
				}
				if (i + 1 < nx && j + 1 < ny && k + 1 < nz && n < capacity)
				{
					vec3s centre = {{corner.x + 0.5f * s, corner.y + 0.5f * s, corner.z + 0.5f * s}};
					out[n++] = (kl_sphere){centre, 0.36f * s};
				}
			}
		}
	}
	return n;
}

/// count spheres with random centres in a cube of half-size `extent` and radii in [rmin, rmax].
static void random_spheres(kl_sphere* out, int count, double extent, double rmin, double rmax)
{
	for (int i = 0; i < count; ++i)
	{
		out[i].center = (vec3s){
			{(float)rnd_range(-extent, extent), (float)rnd_range(-extent, extent), (float)rnd_range(-extent, extent)}};
		out[i].radius = (float)rnd_range(rmin, rmax);
	}
}

static versors random_rotation(void)
{
	versors q = {{(float)rnd_range(-1, 1), (float)rnd_range(-1, 1), (float)rnd_range(-1, 1), (float)rnd_range(-1, 1)}};
	return glms_quat_normalize(q);
}

static kl_transform random_pose(double reach)
{
	kl_transform t = {
		{{(float)rnd_range(-reach, reach), (float)rnd_range(-reach, reach), (float)rnd_range(-reach, reach)}},
		random_rotation()};
	return t;
}

static double lens(double ra, double rb, double d)
{
	if (d >= ra + rb)
	{
		return 0.0;
	}
	if (d <= fabs(ra - rb))
	{
		double r = fmin(ra, rb);
		return 4.0 / 3.0 * GLM_PI * r * r * r;
	}
	double s = ra + rb;
	double t = ra - rb;
	return GLM_PI * (s - d) * (s - d) * (d * d + 2.0 * d * s - 3.0 * t * t) / (12.0 * d);
}

/// World position of a shape-frame point, in double.
static void world(kl_transform t, vec3s p, double* out)
{
	vec3s r = kl_rotate(t.q, p);
	out[0] = (double)r.x + t.p.x;
	out[1] = (double)r.y + t.p.y;
	out[2] = (double)r.z + t.p.z;
}

typedef struct brute
{
	double volume;
	double force[3];
	double moment_a[3];
	int pairs;		   ///< with depth above the borderline
	int borderline;	   ///< pairs within 1e-5 of touching: either answer is right
	char* overlapping; ///< [na·nb]: 1 overlapping, 2 borderline
} brute;

/// All pairs of a's and b's spheres at the poses: lens volumes, Σ V n and Σ (p − o_a) × V n.
static brute brute_force(const kl_sphere* sa, int na, kl_transform pa, const kl_sphere* sb, int nb, kl_transform pb)
{
	brute r = {0};
	r.overlapping = calloc((size_t)na * nb, 1);
	double* wa = malloc(sizeof(double) * 3 * na);
	for (int i = 0; i < na; ++i)
	{
		world(pa, sa[i].center, wa + 3 * i);
	}
	for (int j = 0; j < nb; ++j)
	{
		double cb[3];
		world(pb, sb[j].center, cb);
		for (int i = 0; i < na; ++i)
		{
			double n[3] = {wa[3 * i] - cb[0], wa[3 * i + 1] - cb[1], wa[3 * i + 2] - cb[2]};
			double d = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
			double ra = sa[i].radius;
			double rb = sb[j].radius;
			double gap = d - (ra + rb);
			if (gap >= 1e-5)
			{
				continue;
			}
			bool border = fabs(gap) < 1e-5;
			r.overlapping[(size_t)i * nb + j] = border ? 2 : 1;
			r.borderline += border ? 1 : 0;
			r.pairs += border ? 0 : 1;
			double v = lens(ra, rb, d);
			r.volume += v;
			double along = 0.5 * (fmax(d - ra, -rb) + fmin(d + ra, rb));
			double p[3];
			for (int c = 0; c < 3; ++c)
			{
				n[c] /= d;
				p[c] = cb[c] + n[c] * along - pa.p.raw[c];
				r.force[c] += v * n[c];
			}
			r.moment_a[0] += v * (p[1] * n[2] - p[2] * n[1]);
			r.moment_a[1] += v * (p[2] * n[0] - p[0] * n[2]);
			r.moment_a[2] += v * (p[0] * n[1] - p[1] * n[0]);
		}
	}
	free(wa);
	return r;
}

static const kl_sphere_traversal k_traversals[] = {KL_SPHERE_TRAVERSE_SCALAR, KL_SPHERE_TRAVERSE_AVX2,
												   KL_SPHERE_TRAVERSE_AVX512};

static kl_sphere_tree* build_with(const kl_sphere* s, int n, int branching, bool magnification)
{
	kl_sphere_tree_def def = kl_default_sphere_tree_def();
	def.branching = branching;
	def.magnification = magnification;
	kl_sphere_tree* t = kl_sphere_tree_build(s, n, &def);
	assert_non_null(t);
	return t;
}

static kl_sphere_tree* build(const kl_sphere* s, int n, int branching)
{
	return build_with(s, n, branching, true);
}

static kl_sphere_overlap_result overlap(const kl_sphere_tree* a, kl_transform pa, const kl_sphere_tree* b,
										kl_transform pb, kl_sphere_traversal traversal, kl_sphere_pair* pairs,
										int capacity)
{
	kl_sphere_overlap_def def = kl_default_sphere_overlap_def();
	def.traversal = traversal;
	def.pairs = pairs;
	def.pair_capacity = capacity;
	kl_sphere_overlap_result r;
	assert_int_equal(kl_sphere_tree_overlap(a, pa, b, pb, &def, &r), KL_OK);
	return r;
}

// ---------------------------------------------------------------------------------------------------------
// Two single spheres

static void test_two_spheres(void** state)
{
	(void)state;
	kl_sphere one = {{{0.0f, 0.0f, 0.0f}}, 1.0f};
	kl_sphere small = {{{0.0f, 0.0f, 0.0f}}, 0.7f};
	kl_sphere_tree* a = build(&one, 1, 16);
	kl_sphere_tree* b = build(&small, 1, 16);
	kl_transform pa = {{{0.5f, -1.0f, 2.0f}}, random_rotation()};
	kl_transform pb = {{{0.5f + 1.2f, -1.0f, 2.0f}}, random_rotation()};
	kl_sphere_pair pair;
	kl_sphere_overlap_result r = overlap(a, pa, b, pb, KL_SPHERE_TRAVERSE_AUTO, &pair, 1);
	assert_int_equal(r.pair_count, 1);
	// The lens of R = 1, r = 0.7, d = 1.2 is 0.2863 (a Monte Carlo estimate gives 0.2874).
	assert_near(r.volume, 0.28634, 2e-4);
	assert_near(pair.volume, r.volume, 1e-6);
	assert_near(r.max_depth, 0.25, 1e-5);
	assert_near(pair.depth, 0.25, 1e-5);
	assert_near(pair.normal.x, -1.0, 1e-5); // from B's centre to A's: pushes A away
	assert_near(pair.normal.y, 0.0, 1e-5);
	assert_near(pair.normal.z, 0.0, 1e-5);
	// The lens spans world x ∈ [1.0, 1.5] (A reaches 1.5, B starts at 1.0): its middle is 1.25.
	assert_near(pair.point.x, 1.25, 1e-5);
	assert_near(r.force_a.x, -r.volume, 1e-5);
	assert_near(r.force_a.y, 0.0, 1e-6);
	// Along the line through both centres: no torque about either origin.
	assert_near(glms_vec3_norm(r.torque_a), 0.0, 1e-6);
	assert_near(glms_vec3_norm(r.torque_b), 0.0, 1e-6);
	assert_false(r.budget_cut);
	assert_near(r.volume_error_bound, 0.0, 0.0);

	// Stiffness scales the force, not the sums.
	kl_sphere_overlap_def def = kl_default_sphere_overlap_def();
	def.stiffness = 1000.0f;
	kl_sphere_overlap_result stiff;
	assert_int_equal(kl_sphere_tree_overlap(a, pa, b, pb, &def, &stiff), KL_OK);
	assert_near(stiff.force_a.x, 1000.0 * r.volume_normal_sum.x, 1e-2);
	assert_near(stiff.volume_normal_sum.x, r.volume_normal_sum.x, 1e-7);

	// A sphere off A's origin, B off the line: the torque about each origin is (p − o) × F.
	kl_sphere off = {{{0.0f, 0.4f, 0.0f}}, 1.0f};
	kl_sphere_tree* a_off = build(&off, 1, 16);
	kl_transform shifted = pb;
	shifted.p.y += 0.3f;
	r = overlap(a_off, pa, b, shifted, KL_SPHERE_TRAVERSE_SCALAR, &pair, 1);
	assert_int_equal(r.pair_count, 1);
	vec3s expect = glms_vec3_cross(glms_vec3_sub(pair.point, pa.p), r.force_a);
	vec3s expect_b = glms_vec3_cross(glms_vec3_sub(pair.point, shifted.p), glms_vec3_negate(r.force_a));
	for (int c = 0; c < 3; ++c)
	{
		assert_near(r.torque_a.raw[c], expect.raw[c], 1e-6);
		assert_near(r.torque_b.raw[c], expect_b.raw[c], 1e-6);
	}
	assert_true(glms_vec3_norm(r.torque_a) > 1e-3f);
	kl_sphere_tree_destroy(a_off);

	// Contained: the smaller sphere's volume, depth (r1 + r2 − d)/2.
	kl_transform inside = pa;
	inside.p.x += 0.1f;
	r = overlap(a, pa, b, inside, KL_SPHERE_TRAVERSE_AUTO, NULL, 0);
	assert_near(r.volume, 4.0 / 3.0 * GLM_PI * 0.343, 1e-4);
	assert_near(r.max_depth, 0.8, 1e-5);

	// Apart: nothing.
	kl_transform apart = pa;
	apart.p.x += 1.71f;
	r = overlap(a, pa, b, apart, KL_SPHERE_TRAVERSE_AUTO, NULL, 0);
	assert_int_equal(r.pair_count, 0);
	assert_near(r.volume, 0.0, 0.0);
	kl_sphere_tree_destroy(a);
	kl_sphere_tree_destroy(b);
}

// ---------------------------------------------------------------------------------------------------------
// Tree invariants

/// Every sphere below node lies inside each of its ancestors' bounding spheres (bounds[0..depth)), each
/// once; lanes of child nodes hold the child's bound. Returns the spheres below.
static int check_subtree(const kl_sphere_tree* t, int node, kl_sphere* bounds, int depth, char* seen)
{
	int W = t->width;
	const float* lanes = kl_ist_node(t, node);
	int total = 0;
	assert_true(depth <= t->depth);
	assert_true(t->count[node] >= (t->sphere_count > 1 ? 2 : 1) && t->count[node] <= W);
	bounds[depth] = t->node_bound[node];
	for (int i = 0; i < t->count[node]; ++i)
	{
		kl_sphere lane = {{{lanes[i], lanes[W + i], lanes[2 * W + i]}}, lanes[3 * W + i]};
		int32_t code = t->child[(size_t)node * W + i];
		if (code >= 0)
		{
			assert_true(code > node && code < t->node_count); // depth-first order
			assert_memory_equal(&lane, &t->node_bound[code], sizeof(kl_sphere));
			total += check_subtree(t, code, bounds, depth + 1, seen);
			continue;
		}
		int s = -1 - code;
		assert_false(seen[s]);
		seen[s] = 1;
		assert_memory_equal(&lane, &t->spheres[s], sizeof(kl_sphere));
		total += 1;
		for (int k = 0; k <= depth; ++k)
		{
			double reach = glms_vec3_distance(lane.center, bounds[k].center) + lane.radius;
			assert_true(reach <= bounds[k].radius);
		}
	}
	for (int i = t->count[node]; i < W; ++i)
	{
		assert_true(lanes[i] == 0.0f && lanes[3 * W + i] == 0.0f);
		assert_int_equal(t->child[(size_t)node * W + i], KL_IST_UNUSED);
	}
	return total;
}

static void test_tree_invariants(void** state)
{
	(void)state;
	enum
	{
		cap = 2000
	};
	kl_sphere* s = malloc(sizeof(kl_sphere) * cap);
	int n = pack_box(12, 9, 7, 0.1f, s, cap);
	for (int w = 0; w < 4; ++w)
	{
		int branching = w % 2 == 0 ? 4 : 16;
		bool magnification = w < 2;
		kl_sphere_tree* t = build_with(s, n, branching, magnification);
		kl_sphere_tree_info info = kl_sphere_tree_get_info(t);
		assert_int_equal(info.sphere_count, n);
		assert_int_equal(info.branching, branching);
		assert_true(info.node_count >= 1 && info.node_count < n);
		assert_true(info.depth >= 2 && info.bytes > 0);
		double volume = 0.0;
		for (int i = 0; i < n; ++i)
		{
			volume += 4.0 / 3.0 * GLM_PI * pow(s[i].radius, 3);
		}
		assert_near(info.sphere_volume, volume, 1e-5 * volume);
		char* seen = calloc((size_t)n, 1);
		kl_sphere bounds[64];
		assert_true(info.depth < 64);
		assert_memory_equal(&info.bound, &t->node_bound[0], sizeof(kl_sphere));
		assert_int_equal(check_subtree(t, 0, bounds, 0, seen), n);
		free(seen);
		// Deterministic: a second build is the same tree, byte for byte.
		kl_sphere_tree* again = build_with(s, n, branching, magnification);
		assert_int_equal(again->node_count, t->node_count);
		assert_memory_equal(again->lanes, t->lanes, (size_t)t->node_count * 4 * branching * sizeof(float));
		assert_memory_equal(again->child, t->child, (size_t)t->node_count * branching * sizeof(int32_t));
		kl_sphere_tree_destroy(again);
		kl_sphere_tree_destroy(t);
	}
	// One sphere: a root with one lane.
	kl_sphere_tree* one = build(s, 1, 4);
	assert_int_equal(kl_sphere_tree_get_info(one).node_count, 1);
	kl_sphere_tree_destroy(one);
	free(s);
}

// ---------------------------------------------------------------------------------------------------------
// Against brute force, every walk

/// Tree pairs against brute force: every overlapping pair found once, nothing else but borderline ones;
/// volume, Σ V n and the moment about A's origin within float tolerance.
static void check_against_brute(const brute* bf, const kl_sphere_overlap_result* r, const kl_sphere_pair* pairs, int nb,
								double scale)
{
	assert_false(r->pairs_truncated);
	assert_true(r->pair_count >= bf->pairs && r->pair_count <= bf->pairs + bf->borderline);
	int overlapping = 0;
	for (int k = 0; k < r->pair_count; ++k)
	{
		char* flag = &bf->overlapping[(size_t)pairs[k].sphere_a * nb + pairs[k].sphere_b];
		assert_true(*flag == 1 || *flag == 2);
		overlapping += *flag == 1 ? 1 : 0;
		*flag = *flag == 1 ? 3 : 4; // found: a second find of the same pair fails above
	}
	assert_int_equal(overlapping, bf->pairs);
	double tol = 1e-5 * fmax(bf->volume, scale * scale * scale);
	assert_near(r->volume, bf->volume, tol);
	assert_near(r->found_volume, r->volume, 0.0);
	assert_near(r->volume_normal_sum.x, bf->force[0], tol);
	assert_near(r->volume_normal_sum.y, bf->force[1], tol);
	assert_near(r->volume_normal_sum.z, bf->force[2], tol);
	assert_near(r->moment_a.x, bf->moment_a[0], 4 * tol * scale);
	assert_near(r->moment_a.y, bf->moment_a[1], 4 * tol * scale);
	assert_near(r->moment_a.z, bf->moment_a[2], 4 * tol * scale);
}

/// Each available walk on the same query: results equal the scalar walk's bit for bit.
static void check_walks(const kl_sphere_tree* a, const kl_sphere* sa, const kl_sphere_tree* b, const kl_sphere* sb,
						kl_transform pa, kl_transform pb, kl_sphere_pair* pairs, kl_sphere_pair* ref_pairs,
						int capacity, double scale, int* walks_run)
{
	brute bf = brute_force(sa, a->sphere_count, pa, sb, b->sphere_count, pb);
	kl_sphere_overlap_result ref = overlap(a, pa, b, pb, KL_SPHERE_TRAVERSE_SCALAR, ref_pairs, capacity);
	assert_int_equal(ref.used, KL_SPHERE_TRAVERSE_SCALAR);
	check_against_brute(&bf, &ref, ref_pairs, b->sphere_count, scale);
	for (int k = 1; k < 3; ++k)
	{
		if (!kl_sphere_traversal_available(k_traversals[k], a->width))
		{
			continue;
		}
		kl_sphere_overlap_result r = overlap(a, pa, b, pb, k_traversals[k], pairs, capacity);
		assert_int_equal(r.used, k_traversals[k]);
		assert_int_equal(r.pair_count, ref.pair_count);
		assert_memory_equal(pairs, ref_pairs, sizeof(kl_sphere_pair) * (size_t)ref.pair_count);
		assert_memory_equal(&r.volume, &ref.volume, sizeof(float));
		assert_memory_equal(&r.volume_normal_sum, &ref.volume_normal_sum, sizeof(vec3s));
		assert_memory_equal(&r.moment_a, &ref.moment_a, sizeof(vec3s));
		assert_memory_equal(&r.moment_b, &ref.moment_b, sizeof(vec3s));
		assert_true(r.node_visits == ref.node_visits && r.sphere_tests == ref.sphere_tests);
		walks_run[k] += 1;
	}
	free(bf.overlapping);
}

static void test_brute_force(void** state)
{
	(void)state;
	enum
	{
		cap = 1200,
		pair_cap = 200000
	};
	kl_sphere* pack_a = malloc(sizeof(kl_sphere) * cap);
	kl_sphere* pack_b = malloc(sizeof(kl_sphere) * cap);
	int na = pack_box(8, 6, 5, 0.1f, pack_a, cap);
	int nb = pack_box(5, 7, 6, 0.09f, pack_b, cap);
	kl_sphere* free_a = malloc(sizeof(kl_sphere) * cap);
	kl_sphere* free_b = malloc(sizeof(kl_sphere) * cap);
	int nf = 300;
	random_spheres(free_a, nf, 0.4, 0.01, 0.12);
	random_spheres(free_b, nf, 0.4, 0.02, 0.08);
	kl_sphere_pair* pairs = malloc(sizeof(kl_sphere_pair) * pair_cap);
	kl_sphere_pair* ref_pairs = malloc(sizeof(kl_sphere_pair) * pair_cap);
	int walks_run[3] = {0};
	int poses = KL_QUICK ? 6 : 20;
	int found = 0;
	for (int w = 0; w < 2; ++w)
	{
		int branching = w == 0 ? 4 : 16;
		kl_sphere_tree* ta = build(pack_a, na, branching);
		kl_sphere_tree* tb = build(pack_b, nb, branching);
		// The free spheres' trees cluster without volume weights.
		kl_sphere_tree* fa = build_with(free_a, nf, branching, false);
		kl_sphere_tree* fb = build_with(free_b, nf, branching, false);
		for (int p = 0; p < poses; ++p)
		{
			kl_transform pa = random_pose(0.3);
			kl_transform pb = random_pose(0.3);
			check_walks(ta, pack_a, tb, pack_b, pa, pb, pairs, ref_pairs, pair_cap, 0.1, walks_run);
			check_walks(fa, free_a, fb, free_b, pa, pb, pairs, ref_pairs, pair_cap, 0.1, walks_run);
			// The same body twice at nearly the same pose: heavy overlap.
			kl_transform near = pa;
			near.p.x += 0.01f;
			check_walks(ta, pack_a, ta, pack_a, pa, near, pairs, ref_pairs, pair_cap, 0.1, walks_run);
			found += overlap(ta, pa, tb, pb, KL_SPHERE_TRAVERSE_SCALAR, NULL, 0).pair_count;
		}
		kl_sphere_tree_destroy(ta);
		kl_sphere_tree_destroy(tb);
		kl_sphere_tree_destroy(fa);
		kl_sphere_tree_destroy(fb);
	}
	assert_true(found > 100); // the poses overlap: the comparison has pairs to compare
	print_message("walks compared with the scalar one: avx2 %d, avx512 %d\n", walks_run[1], walks_run[2]);
	free(pack_a);
	free(pack_b);
	free(free_a);
	free(free_b);
	free(pairs);
	free(ref_pairs);
}

// ---------------------------------------------------------------------------------------------------------
// Continuity while sliding

/// Σ over pairs of the bound on |d(V n)/dx| per unit of translation: π·min(ra, rb)² (the area of the
/// lens's circle bounds dV/dd) + V/d (the turn of n); and of |dV/dx| alone.
static void slope_bounds(const kl_sphere_pair* pairs, int count, const kl_sphere* sa, const kl_sphere* sb,
						 double* volume_slope, double* force_slope)
{
	*volume_slope = 0.0;
	*force_slope = 0.0;
	for (int k = 0; k < count; ++k)
	{
		double ra = sa[pairs[k].sphere_a].radius;
		double rb = sb[pairs[k].sphere_b].radius;
		double d = ra + rb - 2.0 * pairs[k].depth;
		double m = fmin(ra, rb);
		*volume_slope += GLM_PI * m * m;
		*force_slope += GLM_PI * m * m + pairs[k].volume / fmax(d, 1e-3 * m);
	}
}

static int compare_pairs(const void* pa, const void* pb)
{
	const kl_sphere_pair* a = pa;
	const kl_sphere_pair* b = pb;
	if (a->sphere_a != b->sphere_a)
	{
		return a->sphere_a < b->sphere_a ? -1 : 1;
	}
	return (a->sphere_b > b->sphere_b) - (a->sphere_b < b->sphere_b);
}

/// Each pair's volume between two poses `moved` apart (pairs sorted by compare_pairs; a pair missing
/// at one pose has volume 0 there) changes by at most π·min(ra, rb)²·moved: the lens's circle bounds
/// dV/dd. A pair that appeared or vanished with a volume of its own would fail. Returns the pairs that
/// appeared or vanished.
static int check_pairs_continuous(const kl_sphere_pair* p0, int n0, const kl_sphere_pair* p1, int n1,
								  const kl_sphere* sa, const kl_sphere* sb, double moved)
{
	int toggled = 0;
	for (int i = 0, j = 0; i < n0 || j < n1;)
	{
		int order = i == n0 ? 1 : (j == n1 ? -1 : compare_pairs(&p0[i], &p1[j]));
		const kl_sphere_pair* pair = order <= 0 ? &p0[i] : &p1[j];
		double v0 = order <= 0 ? p0[i].volume : 0.0;
		double v1 = order >= 0 ? p1[j].volume : 0.0;
		double m = fmin(sa[pair->sphere_a].radius, sb[pair->sphere_b].radius);
		assert_true(fabs(v1 - v0) <= 1.5 * GLM_PI * m * m * moved + 1e-6 * fmax(v0, v1) + 1e-12);
		toggled += order != 0 ? 1 : 0;
		i += order <= 0 ? 1 : 0;
		j += order >= 0 ? 1 : 0;
	}
	return toggled;
}

static void test_sliding_continuity(void** state)
{
	(void)state;
	enum
	{
		cap = 1200,
		pair_cap = 100000
	};
	kl_sphere* slab_s = malloc(sizeof(kl_sphere) * cap);
	kl_sphere* block_s = malloc(sizeof(kl_sphere) * cap);
	int n_slab = pack_box(10, 10, 2, 0.1f, slab_s, cap);
	int n_block = pack_box(4, 4, 4, 0.07f, block_s, cap); // pressed into the slab, sliding along x
	kl_sphere_tree* slab = build(slab_s, n_slab, 16);
	kl_sphere_tree* block = build(block_s, n_block, 16);
	kl_sphere_pair* p0 = malloc(sizeof(kl_sphere_pair) * pair_cap);
	kl_sphere_pair* p1 = malloc(sizeof(kl_sphere_pair) * pair_cap);
	kl_transform ground = kl_transform_identity();
	kl_transform pose = {{{-0.3f, 0.02f, 0.2f}}, glms_quat_normalize((versors){{0.05f, 0.02f, 0.1f, 1.0f}})};
	const float step = 2e-4f;
	int steps = KL_QUICK ? 600 : 3000;
	kl_sphere_overlap_result r0 = overlap(block, pose, slab, ground, KL_SPHERE_TRAVERSE_AUTO, p0, pair_cap);
	qsort(p0, (size_t)r0.pair_count, sizeof(kl_sphere_pair), compare_pairs);
	double variation = 0.0;
	int toggles = 0;
	for (int k = 1; k <= steps; ++k)
	{
		kl_transform next = pose;
		next.p.x += step;
		kl_sphere_overlap_result r1 = overlap(block, next, slab, ground, KL_SPHERE_TRAVERSE_AUTO, p1, pair_cap);
		assert_false(r1.pairs_truncated);
		qsort(p1, (size_t)r1.pair_count, sizeof(kl_sphere_pair), compare_pairs);
		double v0;
		double f0;
		double v1;
		double f1;
		slope_bounds(p0, r0.pair_count, block_s, slab_s, &v0, &f0);
		slope_bounds(p1, r1.pair_count, block_s, slab_s, &v1, &f1);
		double moved = fabs((double)next.p.x - pose.p.x);
		double dv = fabs((double)r1.volume - r0.volume);
		double df = glms_vec3_norm(glms_vec3_sub(r1.volume_normal_sum, r0.volume_normal_sum));
		// Float sums of thousands of lens volumes carry rounding of ~1e-7 of the total.
		double noise = 1e-6 * (fabs((double)r0.volume) + 1e-9);
		assert_true(dv <= 1.5 * fmax(v0, v1) * moved + noise);
		assert_true(df <= 1.5 * fmax(f0, f1) * moved + noise);
		variation += dv;
		toggles += check_pairs_continuous(p0, r0.pair_count, p1, r1.pair_count, block_s, slab_s, moved);
		memcpy(p0, p1, sizeof(kl_sphere_pair) * (size_t)r1.pair_count);
		r0 = r1;
		pose = next;
	}
	// The slide crossed many pair entries and exits and the volume changed along the way.
	assert_true(toggles > steps / 20);
	assert_true(variation > 1e-3 * r0.volume);
	assert_true(r0.volume > 0.0f);
	free(p0);
	free(p1);
	kl_sphere_tree_destroy(slab);
	kl_sphere_tree_destroy(block);
	free(slab_s);
	free(block_s);
}

// ---------------------------------------------------------------------------------------------------------
// Time-critical mode

static void test_node_budget(void** state)
{
	(void)state;
	enum
	{
		cap = 3000
	};
	kl_sphere* s = malloc(sizeof(kl_sphere) * cap);
	int n = pack_box(12, 10, 8, 0.1f, s, cap);
	for (int w = 0; w < 2; ++w)
	{
		kl_sphere_tree* t = build(s, n, w == 0 ? 4 : 16);
		kl_transform pa = kl_transform_identity();
		kl_transform pb = {{{0.35f, 0.2f, -0.1f}}, glms_quat_normalize((versors){{0.1f, 0.2f, 0.05f, 1.0f}})};
		kl_sphere_overlap_def def = kl_default_sphere_overlap_def();
		kl_sphere_overlap_result exact;
		assert_int_equal(kl_sphere_tree_overlap(t, pa, t, pb, &def, &exact), KL_OK);
		assert_false(exact.budget_cut);
		assert_true(exact.volume > 0.0f);
		assert_near(exact.estimated_volume, 0.0, 0.0);
		double first_error = -1.0;
		double last_error = -1.0;
		for (int64_t budget = 1; budget <= 2 * exact.node_visits; budget *= 2)
		{
			def.node_budget = budget;
			kl_sphere_overlap_result r;
			assert_int_equal(kl_sphere_tree_overlap(t, pa, t, pb, &def, &r), KL_OK);
			assert_true(r.node_visits <= budget);
			assert_true(r.found_volume <= exact.volume * (1.0f + 1e-5f));
			double error = fabs((double)r.volume - exact.volume);
			assert_true(error <= r.volume_error_bound * 1.0001 + 1e-6 * exact.volume);
			if (first_error < 0.0)
			{
				first_error = r.volume_error_bound;
			}
			last_error = r.volume_error_bound;
			if (budget >= exact.node_visits)
			{
				assert_false(r.budget_cut);
				assert_memory_equal(&r.volume, &exact.volume, sizeof(float));
			}
			else
			{
				assert_true(r.budget_cut);
				assert_true(r.estimated_volume > 0.0f);
			}
		}
		assert_true(first_error > 0.1 * exact.volume); // one visit leaves nearly everything to the estimate
		assert_near(last_error, 0.0, 0.0);
		// Half the visits already estimate the volume within a quarter.
		def.node_budget = exact.node_visits / 2;
		kl_sphere_overlap_result half;
		assert_int_equal(kl_sphere_tree_overlap(t, pa, t, pb, &def, &half), KL_OK);
		print_message("branching %d: exact %.5f in %lld visits; half the visits: %.5f (bound %.5f), one: %.5f\n",
					  t->width, (double)exact.volume, (long long)exact.node_visits, (double)half.volume,
					  (double)half.volume_error_bound, first_error);
		assert_true(fabs((double)half.volume - exact.volume) < 0.25 * exact.volume);
		kl_sphere_tree_destroy(t);
	}
	free(s);
}

// ---------------------------------------------------------------------------------------------------------
// Represented volumes

static void expect_build_fails(const kl_sphere* s, int n, const kl_sphere_tree_def* def);

/// Spheres of a that stand for twice their volume and spheres of b for three times: every pair's lens
/// counts six times in intersection_volume, also in the budget's estimate (the trees' ratios); every
/// walk gives the same float. Without represented volumes it equals volume; bad values are refused.
static void test_represented_volumes(void** state)
{
	(void)state;
	enum
	{
		cap = 3000
	};
	kl_sphere* s = malloc(sizeof(kl_sphere) * cap);
	float* twice = malloc(sizeof(float) * cap);
	float* thrice = malloc(sizeof(float) * cap);
	int n = pack_box(12, 10, 8, 0.1f, s, cap);
	for (int i = 0; i < n; ++i)
	{
		double own = 4.0 / 3.0 * GLM_PI * pow(s[i].radius, 3.0);
		twice[i] = (float)(2.0 * own);
		thrice[i] = (float)(3.0 * own);
	}
	kl_sphere_tree_def def = kl_default_sphere_tree_def();
	kl_sphere_tree* plain = kl_sphere_tree_build(s, n, &def);
	def.represented_volumes = twice;
	kl_sphere_tree* a = kl_sphere_tree_build(s, n, &def);
	def.represented_volumes = thrice;
	kl_sphere_tree* b = kl_sphere_tree_build(s, n, &def);
	assert_non_null(plain);
	assert_non_null(a);
	assert_non_null(b);
	kl_sphere_tree_info ia = kl_sphere_tree_get_info(a);
	assert_near(ia.represented_volume, 2.0 * ia.sphere_volume, 1e-5 * ia.sphere_volume);
	assert_true(kl_sphere_tree_get_info(plain).represented_volume == kl_sphere_tree_get_info(plain).sphere_volume);
	kl_transform pa = kl_transform_identity();
	kl_transform pb = {{{0.35f, 0.2f, -0.1f}}, glms_quat_normalize((versors){{0.1f, 0.2f, 0.05f, 1.0f}})};
	kl_sphere_overlap_result r0 = overlap(plain, pa, plain, pb, KL_SPHERE_TRAVERSE_SCALAR, NULL, 0);
	assert_true(r0.volume > 0.0f);
	assert_memory_equal(&r0.intersection_volume, &r0.volume, sizeof(float));
	kl_sphere_overlap_result scalar = overlap(a, pa, b, pb, KL_SPHERE_TRAVERSE_SCALAR, NULL, 0);
	assert_memory_equal(&scalar.volume, &r0.volume, sizeof(float));
	assert_near(scalar.intersection_volume, 6.0 * scalar.volume, 1e-5 * scalar.volume);
	for (size_t k = 1; k < sizeof(k_traversals) / sizeof(k_traversals[0]); ++k)
	{
		if (kl_sphere_traversal_available(k_traversals[k], 16))
		{
			kl_sphere_overlap_result r = overlap(a, pa, b, pb, k_traversals[k], NULL, 0);
			assert_memory_equal(&r.intersection_volume, &scalar.intersection_volume, sizeof(float));
		}
	}
	kl_sphere_overlap_def budget = kl_default_sphere_overlap_def();
	budget.node_budget = scalar.node_visits / 2;
	kl_sphere_overlap_result cut;
	assert_int_equal(kl_sphere_tree_overlap(a, pa, b, pb, &budget, &cut), KL_OK);
	assert_true(cut.budget_cut);
	assert_near(cut.intersection_volume, 6.0 * cut.volume, 1e-4 * cut.volume);
	kl_sphere_tree_destroy(plain);
	kl_sphere_tree_destroy(a);
	kl_sphere_tree_destroy(b);
	twice[7] = NAN;
	def.represented_volumes = twice;
	expect_build_fails(s, n, &def);
	twice[7] = -1.0f;
	expect_build_fails(s, n, &def);
	twice[7] = INFINITY;
	expect_build_fails(s, n, &def);
	twice[7] = (float)(2e6 * 4.0 / 3.0 * GLM_PI * pow(s[7].radius, 3.0)); // a density of 2·10⁶
	expect_build_fails(s, n, &def);
	free(s);
	free(twice);
	free(thrice);
}

// ---------------------------------------------------------------------------------------------------------
// Bad input

static void expect_build_fails(const kl_sphere* s, int n, const kl_sphere_tree_def* def)
{
	kl_clear_error();
	assert_null(kl_sphere_tree_build(s, n, def));
	assert_true(strlen(kl_last_error()) > 0);
}

static void expect_overlap_fails(const kl_sphere_tree* a, kl_transform pa, const kl_sphere_tree* b, kl_transform pb,
								 const kl_sphere_overlap_def* def, kl_result code)
{
	kl_sphere_overlap_result r;
	memset(&r, 0x7f, sizeof(r));
	kl_clear_error();
	assert_int_equal(kl_sphere_tree_overlap(a, pa, b, pb, def, &r), code);
	assert_true(strlen(kl_last_error()) > 0);
	assert_int_equal(r.pair_count, 0);
	assert_near(r.volume, 0.0, 0.0);
}

static void test_bad_input(void** state)
{
	(void)state;
	kl_sphere s[4] = {{{{0, 0, 0}}, 1.0f}, {{{1, 0, 0}}, 0.5f}, {{{0, 1, 0}}, 0.5f}, {{{0, 0, 1}}, 0.5f}};
	expect_build_fails(NULL, 4, NULL);
	expect_build_fails(s, 0, NULL);
	expect_build_fails(s, -3, NULL);
	kl_sphere bad[4];
	memcpy(bad, s, sizeof(s));
	bad[2].radius = -0.1f;
	expect_build_fails(bad, 4, NULL);
	bad[2].radius = NAN;
	expect_build_fails(bad, 4, NULL);
	bad[2].radius = 0.5f;
	bad[1].center.y = INFINITY;
	expect_build_fails(bad, 4, NULL);
	bad[1].center.y = 1e20f;
	expect_build_fails(bad, 4, NULL);
	kl_sphere_tree_def def = kl_default_sphere_tree_def();
	def.branching = 8;
	expect_build_fails(s, 4, &def);
	def = kl_default_sphere_tree_def();
	def.bng_lambda_final = NAN;
	expect_build_fails(s, 4, &def);
	def = kl_default_sphere_tree_def();
	def.bng_iterations = 0;
	expect_build_fails(s, 4, &def);

	kl_sphere_tree* t16 = build(s, 4, 16);
	kl_sphere_tree* t4 = build(s, 4, 4);
	kl_transform id = kl_transform_identity();
	kl_sphere_overlap_def q = kl_default_sphere_overlap_def();
	kl_transform nan_pose = id;
	nan_pose.p.x = NAN;
	expect_overlap_fails(t16, nan_pose, t16, id, &q, KL_ERR_INVALID_ARGUMENT);
	kl_transform zero_q = id;
	zero_q.q = (versors){{0, 0, 0, 0}};
	expect_overlap_fails(t16, id, t16, zero_q, &q, KL_ERR_INVALID_ARGUMENT);
	kl_transform far = id;
	far.p.z = 1e30f;
	expect_overlap_fails(t16, id, t16, far, &q, KL_ERR_INVALID_ARGUMENT);
	expect_overlap_fails(NULL, id, t16, id, &q, KL_ERR_INVALID_ARGUMENT);
	expect_overlap_fails(t16, id, t4, id, &q, KL_ERR_UNSUPPORTED);
	q.node_budget = -1;
	expect_overlap_fails(t16, id, t16, id, &q, KL_ERR_INVALID_ARGUMENT);
	q = kl_default_sphere_overlap_def();
	q.stiffness = NAN;
	expect_overlap_fails(t16, id, t16, id, &q, KL_ERR_INVALID_ARGUMENT);
	q = kl_default_sphere_overlap_def();
	q.pair_capacity = 5;
	expect_overlap_fails(t16, id, t16, id, &q, KL_ERR_INVALID_ARGUMENT);
	q = kl_default_sphere_overlap_def();
	q.traversal = (kl_sphere_traversal)99;
	expect_overlap_fails(t16, id, t16, id, &q, KL_ERR_UNSUPPORTED);
	assert_false(kl_sphere_traversal_available(KL_SPHERE_TRAVERSE_AUTO, 8));
	kl_clear_error();
	assert_int_equal(kl_sphere_tree_overlap(t16, id, t16, id, NULL, NULL), KL_ERR_INVALID_ARGUMENT);
	// A non-unit quaternion is normalised, not refused; the trees stay usable after the failures.
	kl_transform scaled = id;
	scaled.q.w = 3.0f;
	kl_sphere_overlap_result r;
	assert_int_equal(kl_sphere_tree_overlap(t16, id, t16, scaled, NULL, &r), KL_OK);
	kl_sphere_overlap_result r_id;
	assert_int_equal(kl_sphere_tree_overlap(t16, id, t16, id, NULL, &r_id), KL_OK);
	assert_near(r.volume, r_id.volume, 1e-6);
	assert_true(r.volume > 0.0f && isfinite(r.volume));
	kl_sphere_tree_destroy(t16);
	kl_sphere_tree_destroy(t4);
	kl_sphere_tree_destroy(NULL);
	kl_sphere_tree_info none = kl_sphere_tree_get_info(NULL);
	assert_int_equal(none.node_count, 0);
}

typedef struct query_job
{
	const kl_sphere_tree* a;
	const kl_sphere_tree* b;
	kl_transform pose[8];
	kl_sphere_overlap_result result[8];
} query_job;

static void* run_queries(void* arg)
{
	query_job* job = arg;
	for (int k = 0; k < 8; ++k)
	{
		kl_sphere_overlap_def def = kl_default_sphere_overlap_def();
		def.node_budget = k % 2 == 0 ? 0 : 50;
		if (kl_sphere_tree_overlap(job->a, kl_transform_identity(), job->b, job->pose[k], &def, &job->result[k]) !=
			KL_OK)
		{
			job->result[k].pair_count = -1;
		}
	}
	return NULL;
}

/// Two threads query the same trees at once and get what one thread gets.
static void test_two_threads(void** state)
{
	(void)state;
	enum
	{
		cap = 1500
	};
	kl_sphere* s = malloc(sizeof(kl_sphere) * cap);
	int n = pack_box(10, 9, 8, 0.1f, s, cap);
	kl_sphere_tree* t = build(s, n, 16);
	query_job jobs[2];
	query_job alone;
	alone.a = t;
	alone.b = t;
	for (int k = 0; k < 8; ++k)
	{
		alone.pose[k] = random_pose(0.3);
	}
	jobs[0] = alone;
	jobs[1] = alone;
	run_queries(&alone);
	pthread_t thread[2];
	for (int i = 0; i < 2; ++i)
	{
		assert_int_equal(pthread_create(&thread[i], NULL, run_queries, &jobs[i]), 0);
	}
	for (int i = 0; i < 2; ++i)
	{
		pthread_join(thread[i], NULL);
		for (int k = 0; k < 8; ++k)
		{
			assert_true(alone.result[k].pair_count > 0);
			assert_memory_equal(&jobs[i].result[k], &alone.result[k], sizeof(kl_sphere_overlap_result));
		}
	}
	kl_sphere_tree_destroy(t);
	free(s);
}

/// Every allocation of a build and of a query fails once in turn: a clean failure (out of memory, no
/// tree, a zeroed result), then success once the failure lies past the last allocation.
static void test_out_of_memory(void** state)
{
	(void)state;
	enum
	{
		cap = 400
	};
	kl_sphere* s = malloc(sizeof(kl_sphere) * cap);
	int n = pack_box(7, 6, 5, 0.1f, s, cap);
	kl_sphere_tree* t = NULL;
	int failures = 0;
	for (long k = 0; t == NULL; ++k)
	{
		kl_fail_allocation(k);
		t = kl_sphere_tree_build(s, n, NULL);
		bool fired = kl_fail_allocation_countdown() < 0;
		kl_fail_allocation(-1);
		if (fired)
		{
			assert_null(t);
			assert_int_equal(kl_last_error_code(), KL_ERR_OUT_OF_MEMORY);
			failures += 1;
		}
		assert_true(k < 1000);
	}
	kl_sphere_overlap_result expected;
	kl_transform id = kl_transform_identity();
	assert_int_equal(kl_sphere_tree_overlap(t, id, t, id, NULL, &expected), KL_OK);
	for (long k = 0;; ++k)
	{
		kl_sphere_overlap_result r;
		kl_fail_allocation(k);
		kl_result code = kl_sphere_tree_overlap(t, id, t, id, NULL, &r);
		bool fired = kl_fail_allocation_countdown() < 0;
		kl_fail_allocation(-1);
		if (!fired)
		{
			assert_int_equal(code, KL_OK);
			assert_memory_equal(&r.volume, &expected.volume, sizeof(float));
			break;
		}
		assert_int_equal(code, KL_ERR_OUT_OF_MEMORY);
		assert_int_equal(r.pair_count, 0);
		failures += 1;
		assert_true(k < 1000);
	}
	assert_true(failures >= 8); // the build's arrays and the query's growing stack
	kl_sphere_tree_destroy(t);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_spheres),	  cmocka_unit_test(test_tree_invariants),
		cmocka_unit_test(test_brute_force),	  cmocka_unit_test(test_sliding_continuity),
		cmocka_unit_test(test_node_budget),	  cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_out_of_memory), cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_represented_volumes),
	};
	return kl_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
