// Kollide tests — world queries with callbacks (kl_world_cast_ray_all, kl_world_overlap_aabb,
// kl_world_overlap_shape, kl_world_cast_shape), each against a brute-force answer over randomized
// scenes of every shape type: the per-shape ray casts, every shape's bounds, per-shape GJK distances
// (per triangle for meshes) and a fine sweep of the translation. Plus the callback conventions
// (clip, ignore, stop) and bad input.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "gjk.h"
#include "raycast.h"
#include "world.h"

#include <kollide/kollide.h>

#include <float.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Random scenes

typedef struct rng
{
	uint64_t s;
} rng;

static uint32_t rng_next(rng* r)
{
	// splitmix64
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float rng_float(rng* r, float lo, float hi)
{
	return lo + (hi - lo) * (float)(rng_next(r) >> 8) * (1.0f / 16777216.0f);
}

static vec3s rng_vec(rng* r, float lo, float hi)
{
	return kl_vec3(rng_float(r, lo, hi), rng_float(r, lo, hi), rng_float(r, lo, hi));
}

static versors rng_quat(rng* r)
{
	versors q;
	float n2 = 0.0f;
	do
	{
		q = (versors){{rng_float(r, -1, 1), rng_float(r, -1, 1), rng_float(r, -1, 1), rng_float(r, -1, 1)}};
		n2 = glms_quat_dot(q, q);
	} while (n2 < 0.01f || n2 > 1.0f);
	return glms_quat_normalize(q);
}

static kl_transform rng_transform(rng* r, float extent)
{
	kl_transform t = {rng_vec(r, -extent, extent), rng_quat(r)};
	return t;
}

/// A closed, star-shaped, non-convex solid: a latitude–longitude sphere with a bumpy radius.
static kl_mesh* make_bumpy_mesh(void)
{
	enum
	{
		RINGS = 8,
		SEGMENTS = 12
	};
	vec3s vertices[2 + (RINGS - 1) * SEGMENTS];
	int32_t indices[3 * 2 * SEGMENTS * (RINGS - 1)];
	int nv = 0, ni = 0;
	vertices[nv++] = kl_vec3(0.0f, 0.0f, 1.0f);
	for (int i = 1; i < RINGS; ++i)
	{
		float theta = GLM_PIf * (float)i / RINGS;
		for (int j = 0; j < SEGMENTS; ++j)
		{
			float phi = 2.0f * GLM_PIf * (float)j / SEGMENTS;
			float radius = 1.0f + 0.35f * sinf(3.0f * theta) * cosf(2.0f * phi);
			vertices[nv++] =
				kl_vec3(radius * sinf(theta) * cosf(phi), radius * sinf(theta) * sinf(phi), radius * cosf(theta));
		}
	}
	vertices[nv++] = kl_vec3(0.0f, 0.0f, -1.0f);
	int south = nv - 1;
	for (int j = 0; j < SEGMENTS; ++j)
	{
		int k = (j + 1) % SEGMENTS;
		indices[ni++] = 0;
		indices[ni++] = 1 + j;
		indices[ni++] = 1 + k;
		for (int i = 1; i + 1 < RINGS; ++i)
		{
			int a = 1 + (i - 1) * SEGMENTS + j, b = 1 + (i - 1) * SEGMENTS + k;
			int c = a + SEGMENTS, d = b + SEGMENTS;
			indices[ni++] = a;
			indices[ni++] = c;
			indices[ni++] = d;
			indices[ni++] = a;
			indices[ni++] = d;
			indices[ni++] = b;
		}
		indices[ni++] = south;
		indices[ni++] = 1 + (RINGS - 2) * SEGMENTS + k;
		indices[ni++] = 1 + (RINGS - 2) * SEGMENTS + j;
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = nv;
	def.indices = indices;
	def.triangle_count = ni / 3;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	assert_true(kl_mesh_get_info(mesh).closed);
	return mesh;
}

/// An open height field of 6 × 6 quads over [-1, 1]², two-sided.
static kl_mesh* make_terrain_mesh(void)
{
	enum
	{
		N = 6
	};
	vec3s vertices[(N + 1) * (N + 1)];
	int32_t indices[6 * N * N];
	int ni = 0;
	for (int i = 0; i <= N; ++i)
	{
		for (int j = 0; j <= N; ++j)
		{
			float x = -1.0f + 2.0f * (float)i / N, y = -1.0f + 2.0f * (float)j / N;
			vertices[i * (N + 1) + j] = kl_vec3(x, y, 0.25f * sinf(3.0f * x) * cosf(2.0f * y));
		}
	}
	for (int i = 0; i < N; ++i)
	{
		for (int j = 0; j < N; ++j)
		{
			int a = i * (N + 1) + j, b = a + 1, c = a + N + 1, d = c + 1;
			int32_t quad[6] = {a, c, d, a, d, b};
			memcpy(indices + ni, quad, sizeof(quad));
			ni += 6;
		}
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = (N + 1) * (N + 1);
	def.indices = indices;
	def.triangle_count = ni / 3;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	assert_false(kl_mesh_get_info(mesh).closed);
	return mesh;
}

static kl_hull* make_random_hull(rng* r, float size)
{
	vec3s points[12];
	for (int i = 0; i < 12; ++i)
	{
		points[i] = rng_vec(r, -size, size);
	}
	kl_hull* hull = kl_hull_build(points, 12);
	assert_non_null(hull);
	return hull;
}

typedef struct scene
{
	kl_world_id world;
	kl_mesh* meshes[2];
	kl_hull* hulls[4];
	int hull_count;
} scene;

/// count bodies in a 10 m cube, each with one or two shapes of random type and local pose; about
/// one shape in eight is a sensor and one in four has category 2; with_plane adds a tilted plane.
static scene make_scene(uint64_t seed, int count, bool with_plane)
{
	rng r = {seed};
	scene sc;
	memset(&sc, 0, sizeof(sc));
	kl_world_def wd = kl_default_world_def();
	sc.world = kl_create_world(&wd);
	assert_true(kl_world_is_valid(sc.world));
	sc.meshes[0] = make_bumpy_mesh();
	sc.meshes[1] = make_terrain_mesh();
	for (int i = 0; i < 4; ++i)
	{
		sc.hulls[i] = make_random_hull(&r, 0.6f);
	}
	for (int b = 0; b < count; ++b)
	{
		kl_body_def bd = kl_default_body_def();
		bd.type = (kl_body_type)(rng_next(&r) % 3);
		kl_transform t = rng_transform(&r, 5.0f);
		bd.position = t.p;
		bd.rotation = t.q;
		kl_body_id body = kl_create_body(sc.world, &bd);
		assert_true(KL_IS_NON_NULL(body));
		int shapes = 1 + (int)(rng_next(&r) % 2);
		for (int s = 0; s < shapes; ++s)
		{
			kl_shape_def sd = kl_default_shape_def();
			sd.local_pose = shapes > 1 ? rng_transform(&r, 0.7f) : kl_transform_identity();
			sd.is_sensor = rng_next(&r) % 8 == 0;
			sd.filter.category_bits = rng_next(&r) % 4 == 0 ? 2u : 1u;
			kl_shape_id id = kl_null_shape_id;
			switch (rng_next(&r) % 6)
			{
			case 0:
				id = kl_create_sphere_shape(body, &sd, rng_float(&r, 0.1f, 0.8f));
				break;
			case 1:
				id = kl_create_box_shape(body, &sd, rng_vec(&r, 0.1f, 0.8f));
				break;
			case 2:
				id = kl_create_capsule_shape(body, &sd, rng_float(&r, 0.1f, 0.5f), rng_float(&r, 0.0f, 0.7f));
				break;
			case 3:
				id = kl_create_hull_shape(body, &sd, sc.hulls[rng_next(&r) % 4]);
				break;
			case 4:
				id = kl_create_mesh_shape(body, &sd, sc.meshes[0], rng_vec(&r, 0.4f, 1.2f));
				break;
			default:
				id = kl_create_mesh_shape(body, &sd, sc.meshes[1], rng_vec(&r, 0.5f, 1.5f));
				break;
			}
			assert_true(KL_IS_NON_NULL(id));
		}
	}
	if (with_plane)
	{
		kl_body_def bd = kl_default_body_def();
		kl_body_id body = kl_create_body(sc.world, &bd);
		kl_shape_def sd = kl_default_shape_def();
		kl_plane plane = {glms_vec3_normalize(kl_vec3(0.2f, -0.1f, 1.0f)), -4.5f};
		assert_true(KL_IS_NON_NULL(kl_create_plane_shape(body, &sd, plane)));
	}
	return sc;
}

static void destroy_scene(scene* sc)
{
	kl_destroy_world(sc->world);
	kl_mesh_release(sc->meshes[0]);
	kl_mesh_release(sc->meshes[1]);
	for (int i = 0; i < 4; ++i)
	{
		kl_hull_destroy(sc->hulls[i]);
	}
}

/// Every shape of the world, through the public API (slot order is not assumed).
static int all_shapes(kl_world_id world, kl_shape_id* out, int capacity)
{
	kl_body_id bodies[512];
	int nb = kl_world_get_bodies(world, bodies, 512);
	assert_true(nb <= 512);
	int n = 0;
	for (int b = 0; b < nb; ++b)
	{
		kl_shape_id shapes[8];
		int ns = kl_body_get_shapes(bodies[b], shapes, 8);
		for (int s = 0; s < ns; ++s)
		{
			assert_true(n < capacity);
			out[n++] = shapes[s];
		}
	}
	return n;
}

static bool query_accepts(kl_shape_id shape, kl_filter filter)
{
	kl_filter f = kl_shape_get_filter(shape);
	return !kl_shape_get_def(shape).is_sensor && (f.category_bits & filter.mask_bits) != 0 &&
		   (filter.category_bits & f.mask_bits) != 0;
}

static kl_transform shape_world_transform(kl_shape_id shape)
{
	return kl_transform_mul(kl_body_get_transform(kl_shape_get_body(shape)), kl_shape_get_local_pose(shape));
}

static int find_shape(const kl_shape_id* shapes, int n, kl_shape_id id)
{
	for (int i = 0; i < n; ++i)
	{
		if (KL_ID_EQUALS(shapes[i], id))
		{
			return i;
		}
	}
	return -1;
}

static void assert_vec_near(vec3s a, vec3s b, float tol)
{
	assert_near(a.x, b.x, tol);
	assert_near(a.y, b.y, tol);
	assert_near(a.z, b.z, tol);
}

// ---------------------------------------------------------------------------------------------
// kl_world_cast_ray_all

/// Brute force: the segment against one shape with the per-shape tests of raycast.h.
static bool ray_one(kl_shape_id shape, vec3s origin, vec3s translation, kl_ray_output* out)
{
	kl_transform xf = shape_world_transform(shape);
	kl_ray_input in = {kl_inv_transform_point(xf, origin), kl_inv_rotate(xf.q, translation), 1.0f};
	bool hit = false;
	switch (kl_shape_get_type(shape))
	{
	case KL_SHAPE_SPHERE:
		hit = kl_ray_sphere(kl_shape_get_sphere_radius(shape), &in, out);
		break;
	case KL_SHAPE_BOX:
		hit = kl_ray_box(kl_shape_get_box_half_extents(shape), &in, out);
		break;
	case KL_SHAPE_CAPSULE:
	{
		float radius, half_height;
		kl_shape_get_capsule(shape, &radius, &half_height);
		hit = kl_ray_capsule(radius, half_height, &in, out);
		break;
	}
	case KL_SHAPE_HULL:
		hit = kl_ray_hull(kl_shape_get_hull(shape), &in, out);
		break;
	case KL_SHAPE_MESH:
		hit = kl_ray_mesh(kl_shape_get_mesh(shape), kl_shape_get_mesh_scale(shape), &in, out);
		break;
	case KL_SHAPE_PLANE:
		hit = kl_ray_plane(kl_shape_get_plane(shape), &in, out);
		break;
	default:
		break;
	}
	if (hit)
	{
		out->normal = glms_vec3_normalize(kl_rotate(xf.q, out->normal));
	}
	return hit;
}

enum
{
	MAX_HITS = 256,
	MAX_SHAPES = 512
};

typedef enum callback_mode
{
	MODE_ALL,	  ///< return 1
	MODE_CLIP,	  ///< return the fraction
	MODE_IGNORE,  ///< return -1 for `ignored`, else the fraction
	MODE_STOP,	  ///< return 0
} callback_mode;

typedef struct hit_log
{
	callback_mode mode;
	kl_shape_id ignored;
	int count;
	kl_shape_id shape[MAX_HITS];
	vec3s point[MAX_HITS];
	vec3s normal[MAX_HITS];
	float fraction[MAX_HITS];
} hit_log;

static float log_hit(kl_shape_id shape, vec3s point, vec3s normal, float fraction, void* context)
{
	hit_log* log = context;
	assert_true(log->count < MAX_HITS);
	int i = log->count++;
	log->shape[i] = shape;
	log->point[i] = point;
	log->normal[i] = normal;
	log->fraction[i] = fraction;
	switch (log->mode)
	{
	case MODE_ALL:
		return 1.0f;
	case MODE_CLIP:
		return fraction;
	case MODE_IGNORE:
		return KL_ID_EQUALS(shape, log->ignored) ? -1.0f : fraction;
	case MODE_STOP:
		return 0.0f;
	}
	return 1.0f;
}

/// The closest accepted hit of the brute force, skipping `skip`; -1 when none.
static int closest_of(const bool* hit, const kl_ray_output* out, int n, int skip)
{
	int best = -1;
	for (int i = 0; i < n; ++i)
	{
		if (hit[i] && i != skip && (best < 0 || out[i].fraction < out[best].fraction))
		{
			best = i;
		}
	}
	return best;
}

static void test_cast_ray_all_random(void** state)
{
	(void)state;
	int total_hits = 0, clipped = 0;
	for (uint64_t seed = 1; seed <= 6; ++seed)
	{
		scene sc = make_scene(seed, 60, seed % 2 == 0);
		kl_shape_id shapes[MAX_SHAPES];
		int n = all_shapes(sc.world, shapes, MAX_SHAPES);
		rng r = {seed * 977};
		for (int ray = 0; ray < 60; ++ray)
		{
			vec3s origin = rng_vec(&r, -7.0f, 7.0f);
			vec3s translation = glms_vec3_sub(rng_vec(&r, -7.0f, 7.0f), origin);
			kl_filter filter = kl_default_filter();
			filter.mask_bits = ray % 3 == 0 ? 1u : UINT64_MAX;
			bool expect[MAX_SHAPES];
			kl_ray_output out[MAX_SHAPES];
			int expected_count = 0;
			for (int i = 0; i < n; ++i)
			{
				expect[i] = query_accepts(shapes[i], filter) && ray_one(shapes[i], origin, translation, &out[i]);
				expected_count += expect[i];
			}

			// Returning 1: every hit, each exactly once, as the per-shape casts say.
			hit_log log = {.mode = MODE_ALL};
			assert_int_equal(kl_world_cast_ray_all(sc.world, origin, translation, filter, log_hit, &log), KL_OK);
			assert_int_equal(log.count, expected_count);
			for (int k = 0; k < log.count; ++k)
			{
				int i = find_shape(shapes, n, log.shape[k]);
				assert_true(i >= 0);
				assert_true(expect[i]);
				expect[i] = false; // reported once only
				assert_near(log.fraction[k], out[i].fraction, 1.0e-6f);
				assert_vec_near(log.normal[k], out[i].normal, 1.0e-5f);
				assert_vec_near(log.point[k], glms_vec3_add(origin, glms_vec3_scale(translation, out[i].fraction)),
								1.0e-4f);
			}
			for (int k = 0; k < log.count; ++k)
			{
				expect[find_shape(shapes, n, log.shape[k])] = true; // restore for the modes below
			}
			total_hits += log.count;

			// Returning the fraction: each hit is at most as far as the previous, the last the closest,
			// the same as kl_world_cast_ray.
			int best = closest_of(expect, out, n, -1);
			log = (hit_log){.mode = MODE_CLIP};
			assert_int_equal(kl_world_cast_ray_all(sc.world, origin, translation, filter, log_hit, &log), KL_OK);
			kl_ray_hit closest;
			bool any = kl_world_cast_ray(sc.world, origin, translation, filter, &closest);
			assert_int_equal(any, best >= 0);
			if (best < 0)
			{
				assert_int_equal(log.count, 0);
				continue;
			}
			for (int k = 1; k < log.count; ++k)
			{
				assert_true(log.fraction[k] <= log.fraction[k - 1]);
			}
			clipped += expected_count - log.count;
			assert_near(log.fraction[log.count - 1], out[best].fraction, 1.0e-6f);
			assert_near(closest.fraction, out[best].fraction, 1.0e-6f);
			assert_true(KL_ID_EQUALS(closest.shape, shapes[best]) ||
						out[find_shape(shapes, n, closest.shape)].fraction == out[best].fraction);

			// Ignoring the closest: the walk ends with the second closest.
			log = (hit_log){.mode = MODE_IGNORE, .ignored = shapes[best]};
			assert_int_equal(kl_world_cast_ray_all(sc.world, origin, translation, filter, log_hit, &log), KL_OK);
			int second = closest_of(expect, out, n, best);
			if (second >= 0)
			{
				float last = -1.0f;
				for (int k = 0; k < log.count; ++k)
				{
					last = KL_ID_EQUALS(log.shape[k], shapes[best]) ? last : log.fraction[k];
				}
				assert_near(last, out[second].fraction, 1.0e-6f);
			}

			// Returning 0: one call, then nothing.
			log = (hit_log){.mode = MODE_STOP};
			assert_int_equal(kl_world_cast_ray_all(sc.world, origin, translation, filter, log_hit, &log), KL_OK);
			assert_int_equal(log.count, 1);
		}
		destroy_scene(&sc);
	}
	// The scenes are busy enough to mean something: many hits, and clipping skipped some.
	print_message("ray hits %d, clipped %d\n", total_hits, clipped);
	assert_true(total_hits > 150);
	assert_true(clipped > 20);
}

static float never_called(kl_shape_id shape, vec3s point, vec3s normal, float fraction, void* context)
{
	(void)shape;
	(void)point;
	(void)normal;
	(void)fraction;
	*(int*)context += 1;
	return 1.0f;
}

static void test_cast_ray_all_bad_input(void** state)
{
	(void)state;
	scene sc = make_scene(7, 20, true);
	int calls = 0;
	kl_filter filter = kl_default_filter();
	vec3s origin = kl_vec3(0.0f, 0.0f, 9.0f), down = kl_vec3(0.0f, 0.0f, -18.0f);
	kl_clear_error();
	assert_int_equal(kl_world_cast_ray_all(sc.world, origin, down, filter, NULL, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(kl_last_error(), "kl_world_cast_ray_all"));
	assert_int_equal(kl_world_cast_ray_all(sc.world, kl_vec3(NAN, 0, 0), down, filter, never_called, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_ray_all(sc.world, origin, kl_vec3(0, INFINITY, 0), filter, never_called, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_ray_all(kl_null_world_id, origin, down, filter, never_called, &calls),
					 KL_ERR_INVALID_ID);
	kl_get_world(sc.world)->locked = true;
	assert_int_equal(kl_world_cast_ray_all(sc.world, origin, down, filter, never_called, &calls), KL_ERR_LOCKED);
	kl_get_world(sc.world)->locked = false;
	assert_int_equal(calls, 0);
	// The world is intact: the same cast works afterwards.
	assert_int_equal(kl_world_cast_ray_all(sc.world, origin, down, filter, never_called, &calls), KL_OK);
	assert_true(calls > 0);
	kl_world_id stale = sc.world;
	destroy_scene(&sc);
	assert_int_equal(kl_world_cast_ray_all(stale, origin, down, filter, never_called, &calls), KL_ERR_INVALID_ID);
}

// ---------------------------------------------------------------------------------------------
// kl_world_overlap_aabb

typedef struct id_set
{
	int count;
	kl_shape_id ids[MAX_SHAPES];
	int stop_after; ///< return false after this many (0: never)
} id_set;

static bool collect_id(kl_shape_id shape, void* context)
{
	id_set* set = context;
	assert_true(set->count < MAX_SHAPES);
	set->ids[set->count++] = shape;
	return set->stop_after == 0 || set->count < set->stop_after;
}

static bool boxes_overlap(kl_aabb a, kl_aabb b)
{
	return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y && b.lower.y <= a.upper.y &&
		   a.lower.z <= b.upper.z && b.lower.z <= a.upper.z;
}

static void test_overlap_aabb_random(void** state)
{
	(void)state;
	int reported = 0, boxes = 0;
	for (uint64_t seed = 11; seed <= 14; ++seed)
	{
		scene sc = make_scene(seed, 80, seed == 12);
		kl_shape_id shapes[MAX_SHAPES];
		int n = all_shapes(sc.world, shapes, MAX_SHAPES);
		rng r = {seed * 31};
		for (int q = 0; q < 80; ++q, ++boxes)
		{
			vec3s c = rng_vec(&r, -6.0f, 6.0f), h = rng_vec(&r, 0.05f, 2.5f);
			kl_aabb box = {glms_vec3_sub(c, h), glms_vec3_add(c, h)};
			kl_filter filter = kl_default_filter();
			filter.mask_bits = q % 4 == 0 ? 2u : UINT64_MAX;
			id_set got = {0};
			assert_int_equal(kl_world_overlap_aabb(sc.world, box, filter, collect_id, &got), KL_OK);
			int expected = 0;
			for (int i = 0; i < n; ++i)
			{
				bool expect = query_accepts(shapes[i], filter) && boxes_overlap(box, kl_shape_get_aabb(shapes[i]));
				bool found = find_shape(got.ids, got.count, shapes[i]) >= 0;
				if (expect != found)
				{
					fail_msg("seed %d box %d: shape %d expected %d, reported %d", (int)seed, q, shapes[i].index1,
							 expect, found);
				}
				expected += expect;
			}
			assert_int_equal(got.count, expected); // no shape twice
			reported += got.count;
			if (got.count > 1)
			{
				id_set first = {.stop_after = 1};
				assert_int_equal(kl_world_overlap_aabb(sc.world, box, filter, collect_id, &first), KL_OK);
				assert_int_equal(first.count, 1);
			}
		}
		destroy_scene(&sc);
	}
	print_message("aabb overlaps: %d over %d boxes\n", reported, boxes);
	assert_true(reported > 3 * boxes);
}

// ---------------------------------------------------------------------------------------------
// Brute force for the shape queries: distances from every shape, triangle by triangle for meshes

typedef struct test_proxy
{
	kl_shape_proxy proxy;
	kl_transform xf;
} test_proxy;

static test_proxy random_proxy(rng* r, const scene* sc)
{
	test_proxy p;
	p.xf = rng_transform(r, 6.0f);
	switch (rng_next(r) % 4)
	{
	case 0:
		p.proxy = kl_make_sphere_proxy(rng_float(r, 0.05f, 0.9f));
		break;
	case 1:
		p.proxy = kl_make_capsule_proxy(rng_float(r, 0.05f, 0.5f), rng_float(r, 0.0f, 0.8f));
		break;
	case 2:
		p.proxy = kl_make_box_proxy(rng_vec(r, 0.05f, 0.8f));
		break;
	default:
		p.proxy = kl_make_hull_proxy(sc->hulls[rng_next(r) % 4]);
		break;
	}
	return p;
}

/// The proxy's core as the narrowphase sees it (storage must outlive it).
static kl_gjk_proxy proxy_core(const kl_shape_proxy* p, vec3s storage[2])
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = p->type;
	if (p->type == KL_SHAPE_SPHERE)
	{
		c.radius = p->radius;
	}
	else if (p->type == KL_SHAPE_CAPSULE)
	{
		c.capsule.radius = p->radius;
		c.capsule.half_height = p->half_height;
	}
	else if (p->type == KL_SHAPE_BOX)
	{
		c.half_extents = p->half_extents;
	}
	else
	{
		c.hull = p->hull;
	}
	kl_gjk_proxy g;
	assert_true(kl_gjk_make_proxy(&c, storage, &g));
	return g;
}

static kl_collider shape_collider_of(kl_shape_id shape)
{
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = kl_shape_get_type(shape);
	switch (c.type)
	{
	case KL_SHAPE_SPHERE:
		c.radius = kl_shape_get_sphere_radius(shape);
		break;
	case KL_SHAPE_BOX:
		c.half_extents = kl_shape_get_box_half_extents(shape);
		break;
	case KL_SHAPE_CAPSULE:
		kl_shape_get_capsule(shape, &c.capsule.radius, &c.capsule.half_height);
		break;
	case KL_SHAPE_HULL:
		c.hull = kl_shape_get_hull(shape);
		break;
	default:
		break;
	}
	return c;
}

/// b's frame ← a's frame.
static kl_transform relative(kl_transform b, kl_transform a)
{
	versors conj = {{-b.q.x, -b.q.y, -b.q.z, b.q.w}};
	kl_transform r = {kl_inv_rotate(b.q, glms_vec3_sub(a.p, b.p)), glms_quat_mul(conj, a.q)};
	return r;
}

/// Two-sided crossings of the ray origin + t·dir, t > 0, with every triangle: odd inside a closed mesh.
static int crossings(const kl_mesh* mesh, vec3s scale, vec3s origin, vec3s dir)
{
	const vec3s* v = kl_mesh_vertices(mesh);
	const int32_t* idx = kl_mesh_indices(mesh);
	int count = 0;
	for (int t = 0; t < kl_mesh_get_info(mesh).triangle_count; ++t)
	{
		vec3s a = glms_vec3_mul(v[idx[3 * t]], scale), b = glms_vec3_mul(v[idx[3 * t + 1]], scale);
		vec3s c = glms_vec3_mul(v[idx[3 * t + 2]], scale);
		vec3s e1 = glms_vec3_sub(b, a), e2 = glms_vec3_sub(c, a);
		vec3s pv = glms_vec3_cross(dir, e2);
		float det = glms_vec3_dot(e1, pv);
		if (fabsf(det) < 1e-12f)
		{
			continue;
		}
		vec3s tv = glms_vec3_sub(origin, a);
		float u = glms_vec3_dot(tv, pv) / det;
		vec3s qv = glms_vec3_cross(tv, e1);
		float w = glms_vec3_dot(dir, qv) / det;
		float t_hit = glms_vec3_dot(e2, qv) / det;
		count += u >= 0.0f && w >= 0.0f && u + w <= 1.0f && t_hit > 0.0f;
	}
	return count;
}

/// The gap between the proxy (core g placed by xf, world) and the shape's surface: negative (-1)
/// for an overlap that GJK reports as zero distance, or a proxy inside a closed mesh.
static float brute_gap(kl_shape_id shape, const kl_gjk_proxy* g, kl_transform xf)
{
	kl_transform xf_b = shape_world_transform(shape);
	kl_transform xf_ab = relative(xf_b, xf);
	kl_shape_type type = kl_shape_get_type(shape);
	if (type == KL_SHAPE_PLANE)
	{
		kl_plane plane = kl_shape_get_plane(shape);
		float lowest = FLT_MAX;
		for (int i = 0; i < g->count; ++i)
		{
			vec3s h = g->half_extents;
			vec3s v = g->points != NULL ? g->points[i]
										: kl_vec3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
			lowest = fminf(lowest, glms_vec3_dot(plane.normal, kl_transform_point(xf_ab, v)));
		}
		return lowest - g->radius - plane.offset;
	}
	if (type == KL_SHAPE_MESH)
	{
		const kl_mesh* mesh = kl_shape_get_mesh(shape);
		vec3s scale = kl_shape_get_mesh_scale(shape);
		const vec3s* v = kl_mesh_vertices(mesh);
		const int32_t* idx = kl_mesh_indices(mesh);
		float best = FLT_MAX;
		for (int t = 0; t < kl_mesh_get_info(mesh).triangle_count; ++t)
		{
			vec3s tri[3];
			for (int k = 0; k < 3; ++k)
			{
				tri[k] = glms_vec3_mul(v[idx[3 * t + k]], scale);
			}
			kl_gjk_proxy b = {tri, 3, {{0.0f, 0.0f, 0.0f}}, 0.0f};
			kl_gjk_output out;
			kl_gjk(g, xf_ab, &b, 0, 0, &out);
			best = fminf(best, out.distance - g->radius);
		}
		if (best > 0.0f && kl_mesh_get_info(mesh).closed)
		{
			vec3s h = g->half_extents;
			vec3s p0 = kl_transform_point(xf_ab, g->points != NULL ? g->points[0] : glms_vec3_negate(h));
			if (crossings(mesh, scale, p0, glms_vec3_normalize(kl_vec3(0.31f, -0.72f, 0.45f))) % 2 == 1)
			{
				return -1.0f;
			}
		}
		return best <= 0.0f ? -1.0f : best;
	}
	vec3s storage[2];
	kl_collider c = shape_collider_of(shape);
	kl_gjk_proxy b;
	assert_true(kl_gjk_make_proxy(&c, storage, &b));
	kl_gjk_output out;
	kl_gjk(g, xf_ab, &b, 0, 0, &out);
	float gap = out.distance - g->radius - b.radius;
	return gap <= 0.0f ? -1.0f : gap;
}

/// Closest point on triangle abc to p (Ericson 5.1.5).
static vec3s closest_on_triangle(vec3s p, vec3s a, vec3s b, vec3s c)
{
	vec3s ab = glms_vec3_sub(b, a), ac = glms_vec3_sub(c, a), ap = glms_vec3_sub(p, a);
	float d1 = glms_vec3_dot(ab, ap), d2 = glms_vec3_dot(ac, ap);
	if (d1 <= 0.0f && d2 <= 0.0f)
	{
		return a;
	}
	vec3s bp = glms_vec3_sub(p, b);
	float d3 = glms_vec3_dot(ab, bp), d4 = glms_vec3_dot(ac, bp);
	if (d3 >= 0.0f && d4 <= d3)
	{
		return b;
	}
	float vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f)
	{
		return glms_vec3_add(a, glms_vec3_scale(ab, d1 / (d1 - d3)));
	}
	vec3s cp = glms_vec3_sub(p, c);
	float d5 = glms_vec3_dot(ab, cp), d6 = glms_vec3_dot(ac, cp);
	if (d6 >= 0.0f && d5 <= d6)
	{
		return c;
	}
	float vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f)
	{
		return glms_vec3_add(a, glms_vec3_scale(ac, d2 / (d2 - d6)));
	}
	float va = d3 * d6 - d5 * d4;
	if (va <= 0.0f && d4 - d3 >= 0.0f && d5 - d6 >= 0.0f)
	{
		return glms_vec3_add(b, glms_vec3_scale(glms_vec3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
	}
	float denom = 1.0f / (va + vb + vc);
	return glms_vec3_add(a, glms_vec3_add(glms_vec3_scale(ab, vb * denom), glms_vec3_scale(ac, vc * denom)));
}

/// Closed forms, no GJK: the signed-ish distance from a point (world) to a sphere, capsule, box,
/// plane or mesh surface (negative inside a solid); FLT_MAX for hulls (not covered).
static float closed_form_point_gap(kl_shape_id shape, vec3s point)
{
	kl_transform xf = shape_world_transform(shape);
	vec3s p = kl_inv_transform_point(xf, point);
	switch (kl_shape_get_type(shape))
	{
	case KL_SHAPE_SPHERE:
		return glms_vec3_norm(p) - kl_shape_get_sphere_radius(shape);
	case KL_SHAPE_CAPSULE:
	{
		float radius, h;
		kl_shape_get_capsule(shape, &radius, &h);
		vec3s q = kl_vec3(0.0f, 0.0f, fmaxf(-h, fminf(h, p.z)));
		return glms_vec3_distance(p, q) - radius;
	}
	case KL_SHAPE_BOX:
	{
		vec3s h = kl_shape_get_box_half_extents(shape);
		vec3s d = kl_vec3(fabsf(p.x) - h.x, fabsf(p.y) - h.y, fabsf(p.z) - h.z);
		float outside = glms_vec3_norm(glms_vec3_maxv(d, glms_vec3_zero()));
		return outside > 0.0f ? outside : fmaxf(d.x, fmaxf(d.y, d.z));
	}
	case KL_SHAPE_PLANE:
	{
		kl_plane plane = kl_shape_get_plane(shape);
		return glms_vec3_dot(plane.normal, p) - plane.offset;
	}
	case KL_SHAPE_MESH:
	{
		const kl_mesh* mesh = kl_shape_get_mesh(shape);
		vec3s scale = kl_shape_get_mesh_scale(shape);
		const vec3s* v = kl_mesh_vertices(mesh);
		const int32_t* idx = kl_mesh_indices(mesh);
		float best = FLT_MAX;
		for (int t = 0; t < kl_mesh_get_info(mesh).triangle_count; ++t)
		{
			vec3s a = glms_vec3_mul(v[idx[3 * t]], scale), b = glms_vec3_mul(v[idx[3 * t + 1]], scale);
			vec3s c = glms_vec3_mul(v[idx[3 * t + 2]], scale);
			best = fminf(best, glms_vec3_distance(p, closest_on_triangle(p, a, b, c)));
		}
		bool inside = kl_mesh_get_info(mesh).closed &&
					  crossings(mesh, scale, p, glms_vec3_normalize(kl_vec3(0.31f, -0.72f, 0.45f))) % 2 == 1;
		return inside ? -best : best;
	}
	default:
		return FLT_MAX;
	}
}

// ---------------------------------------------------------------------------------------------
// kl_world_overlap_shape

static void test_overlap_shape_random(void** state)
{
	(void)state;
	int overlaps = 0, closed_form_checks = 0, queries = 0, mesh_overlaps = 0;
	for (uint64_t seed = 21; seed <= 26; ++seed)
	{
		scene sc = make_scene(seed, 70, seed % 3 == 0);
		kl_shape_id shapes[MAX_SHAPES];
		int n = all_shapes(sc.world, shapes, MAX_SHAPES);
		rng r = {seed * 7919};
		for (int q = 0; q < 60; ++q, ++queries)
		{
			test_proxy p = random_proxy(&r, &sc);
			kl_filter filter = kl_default_filter();
			filter.mask_bits = q % 5 == 0 ? 1u : UINT64_MAX;
			id_set got = {0};
			assert_int_equal(kl_world_overlap_shape(sc.world, &p.proxy, p.xf, filter, collect_id, &got), KL_OK);
			vec3s storage[2];
			kl_gjk_proxy g = proxy_core(&p.proxy, storage);
			for (int i = 0; i < n; ++i)
			{
				bool found = find_shape(got.ids, got.count, shapes[i]) >= 0;
				if (!query_accepts(shapes[i], filter))
				{
					assert_false(found);
					continue;
				}
				float gap = brute_gap(shapes[i], &g, p.xf);
				if (fabsf(gap) < 1.0e-4f)
				{
					continue; // touching to round-off: either answer is right
				}
				if ((gap < 0.0f) != found)
				{
					fail_msg("seed %d query %d (proxy type %d): shape %d (type %d) gap %g, reported %d", (int)seed, q,
							 (int)p.proxy.type, shapes[i].index1, (int)kl_shape_get_type(shapes[i]), (double)gap,
							 found);
				}
				overlaps += found;
				mesh_overlaps += found && kl_shape_get_type(shapes[i]) == KL_SHAPE_MESH;
				// A sphere proxy against the closed forms too (no GJK in that answer).
				if (p.proxy.type == KL_SHAPE_SPHERE && kl_shape_get_type(shapes[i]) != KL_SHAPE_HULL)
				{
					float d = closed_form_point_gap(shapes[i], p.xf.p) - p.proxy.radius;
					if (fabsf(d) > 1.0e-4f)
					{
						assert_int_equal(d < 0.0f, found);
						closed_form_checks += 1;
					}
				}
			}
		}
		destroy_scene(&sc);
	}
	print_message("shape overlaps: %d (%d with meshes) over %d queries, %d closed-form checks\n", overlaps,
				  mesh_overlaps, queries, closed_form_checks);
	assert_true(overlaps > queries / 4);
	assert_true(mesh_overlaps > 10);
	assert_true(closed_form_checks > 200);
}

/// A small sphere wholly inside a closed mesh overlaps it; inside an open one it touches nothing.
static void test_overlap_shape_inside_mesh(void** state)
{
	(void)state;
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_mesh* closed = make_bumpy_mesh();
	kl_mesh* open = make_terrain_mesh();
	kl_body_def bd = kl_default_body_def();
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id solid = kl_create_mesh_shape(body, &sd, closed, kl_vec3(2.0f, 2.0f, 2.0f));
	bd.position = kl_vec3(10.0f, 0.0f, 0.0f);
	kl_body_id body2 = kl_create_body(world, &bd);
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(body2, &sd, open, kl_vec3(2.0f, 2.0f, 2.0f))));
	kl_shape_proxy sphere = kl_make_sphere_proxy(0.1f);
	kl_transform xf = kl_transform_identity();
	id_set got = {0};
	assert_int_equal(kl_world_overlap_shape(world, &sphere, xf, kl_default_filter(), collect_id, &got), KL_OK);
	assert_int_equal(got.count, 1);
	assert_true(KL_ID_EQUALS(got.ids[0], solid));
	// A cast from inside starts overlapping: fraction 0, no normal.
	hit_log log = {.mode = MODE_ALL};
	assert_int_equal(kl_world_cast_shape(world, &sphere, xf, kl_vec3(0.0f, 0.0f, 5.0f), kl_default_filter(), log_hit,
										 &log),
					 KL_OK);
	assert_int_equal(log.count, 1);
	assert_near(log.fraction[0], 0.0f, 0.0f);
	assert_near(glms_vec3_norm(log.normal[0]), 0.0f, 0.0f);
	// Just under the open terrain's surface (z about 0 at x = y = 0 there): nothing.
	got.count = 0;
	xf.p = kl_vec3(10.0f, 0.0f, -0.3f);
	assert_int_equal(kl_world_overlap_shape(world, &sphere, xf, kl_default_filter(), collect_id, &got), KL_OK);
	assert_int_equal(got.count, 0);
	kl_destroy_world(world);
	kl_mesh_release(closed);
	kl_mesh_release(open);
}

// ---------------------------------------------------------------------------------------------
// kl_world_cast_shape

static kl_aabb swept_bounds(const kl_gjk_proxy* g, kl_transform xf, vec3s translation)
{
	kl_aabb box = {kl_vec3(FLT_MAX, FLT_MAX, FLT_MAX), kl_vec3(-FLT_MAX, -FLT_MAX, -FLT_MAX)};
	for (int i = 0; i < g->count; ++i)
	{
		vec3s h = g->half_extents;
		vec3s v = kl_transform_point(
			xf, g->points != NULL ? g->points[i] : kl_vec3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z));
		box.lower = glms_vec3_minv(box.lower, glms_vec3_minv(v, glms_vec3_add(v, translation)));
		box.upper = glms_vec3_maxv(box.upper, glms_vec3_maxv(v, glms_vec3_add(v, translation)));
	}
	vec3s r = kl_vec3(g->radius + 0.01f, g->radius + 0.01f, g->radius + 0.01f);
	box.lower = glms_vec3_sub(box.lower, r);
	box.upper = glms_vec3_add(box.upper, r);
	return box;
}

static void test_cast_shape_random(void** state)
{
	(void)state;
	const int samples = KL_QUICK ? 150 : 500;
	const float tol = 0.1f * 0.005f; // KL_CAST_TOLERANCE
	const float eps = 2.0e-4f;
	int hits = 0, mesh_hits = 0, casts = 0, starts_inside = 0, clipped_checks = 0;
	for (uint64_t seed = 31; seed <= 35; ++seed)
	{
		scene sc = make_scene(seed, 60, seed % 2 == 1);
		kl_shape_id shapes[MAX_SHAPES];
		int n = all_shapes(sc.world, shapes, MAX_SHAPES);
		rng r = {seed * 104729};
		for (int q = 0; q < (KL_QUICK ? 12 : 30); ++q, ++casts)
		{
			test_proxy p = random_proxy(&r, &sc);
			vec3s translation = glms_vec3_scale(glms_vec3_normalize(rng_vec(&r, -1.0f, 1.0f)), rng_float(&r, 1.0f, 8.0f));
			kl_filter filter = kl_default_filter();
			hit_log log = {.mode = MODE_ALL};
			assert_int_equal(kl_world_cast_shape(sc.world, &p.proxy, p.xf, translation, filter, log_hit, &log), KL_OK);
			vec3s storage[2];
			kl_gjk_proxy g = proxy_core(&p.proxy, storage);
			kl_aabb swept = swept_bounds(&g, p.xf, translation);
			float min_fraction = 2.0f;
			for (int i = 0; i < n; ++i)
			{
				int k = find_shape(log.shape, log.count, shapes[i]);
				if (!query_accepts(shapes[i], filter))
				{
					assert_int_equal(k, -1);
					continue;
				}
				if (!boxes_overlap(swept, kl_shape_get_aabb(shapes[i])))
				{
					assert_int_equal(k, -1); // nowhere near
					continue;
				}
				float f = k >= 0 ? log.fraction[k] : 2.0f;
				// Before the hit (or anywhere, without one) the surfaces stay apart.
				for (int s = 0; s <= samples; ++s)
				{
					float t = (float)s / (float)samples;
					if (t >= f)
					{
						break;
					}
					kl_transform xt = {glms_vec3_add(p.xf.p, glms_vec3_scale(translation, t)), p.xf.q};
					float gap = brute_gap(shapes[i], &g, xt);
					if (!(gap > 0.5f * tol - eps))
					{
						fail_msg("seed %d cast %d: shape %d (type %d) gap %g at %g before the hit at %g", (int)seed, q,
								 shapes[i].index1, (int)kl_shape_get_type(shapes[i]), (double)gap, (double)t,
								 (double)f);
					}
				}
				if (k < 0)
				{
					continue;
				}
				// At the hit they are within the tolerance, the normal faces the cast and the point lies
				// on the hit shape's surface.
				kl_transform xf_hit = {glms_vec3_add(p.xf.p, glms_vec3_scale(translation, f)), p.xf.q};
				float gap = brute_gap(shapes[i], &g, xf_hit);
				assert_true(gap <= tol + eps);
				assert_true(f >= 0.0f && f <= 1.0f);
				hits += 1;
				mesh_hits += kl_shape_get_type(shapes[i]) == KL_SHAPE_MESH;
				min_fraction = fminf(min_fraction, f);
				if (glms_vec3_norm2(log.normal[k]) == 0.0f)
				{
					assert_near(f, 0.0f, 0.0f);
					assert_true(brute_gap(shapes[i], &g, p.xf) <= eps); // overlapping at the start
					starts_inside += 1;
					continue;
				}
				assert_near(glms_vec3_norm(log.normal[k]), 1.0f, 1.0e-4f);
				if (f > 0.0f)
				{
					assert_true(glms_vec3_dot(log.normal[k], translation) < 0.0f);
				}
				float point_gap = closed_form_point_gap(shapes[i], log.point[k]);
				if (point_gap != FLT_MAX)
				{
					assert_near(point_gap, 0.0f, 1.0e-3f);
				}
			}
			if (log.count == 0)
			{
				continue;
			}
			// Clipping ends with the nearest, ignoring it ends with the next, stopping after one.
			hit_log clip = {.mode = MODE_CLIP};
			assert_int_equal(kl_world_cast_shape(sc.world, &p.proxy, p.xf, translation, filter, log_hit, &clip), KL_OK);
			assert_near(clip.fraction[clip.count - 1], min_fraction, 1.0e-6f);
			for (int k = 1; k < clip.count; ++k)
			{
				assert_true(clip.fraction[k] <= clip.fraction[k - 1]);
			}
			hit_log ignore = {.mode = MODE_IGNORE, .ignored = clip.shape[clip.count - 1]};
			assert_int_equal(kl_world_cast_shape(sc.world, &p.proxy, p.xf, translation, filter, log_hit, &ignore),
							 KL_OK);
			float second = 2.0f, last = 2.0f;
			for (int k = 0; k < log.count; ++k)
			{
				second = KL_ID_EQUALS(log.shape[k], ignore.ignored) ? second : fminf(second, log.fraction[k]);
			}
			for (int k = 0; k < ignore.count; ++k)
			{
				last = KL_ID_EQUALS(ignore.shape[k], ignore.ignored) ? last : ignore.fraction[k];
			}
			if (second <= 1.0f)
			{
				assert_near(last, second, 1.0e-6f);
				clipped_checks += 1;
			}
			hit_log stop = {.mode = MODE_STOP};
			assert_int_equal(kl_world_cast_shape(sc.world, &p.proxy, p.xf, translation, filter, log_hit, &stop), KL_OK);
			assert_int_equal(stop.count, 1);
		}
		destroy_scene(&sc);
	}
	print_message("shape casts: %d hits (%d meshes, %d starting inside) over %d casts, %d ignore checks\n", hits,
				  mesh_hits, starts_inside, casts, clipped_checks);
	assert_true(2 * hits > casts);
	assert_true(mesh_hits > 5);
	assert_true(clipped_checks > 5);
}

/// Every proxy type dropped onto a box and a plane along an axis: the fraction is where the gap
/// closes to within the tolerance, in closed form.
static void test_cast_shape_exact(void** state)
{
	(void)state;
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_body_id ground = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id box = kl_create_box_shape(ground, &sd, kl_vec3(2.0f, 2.0f, 0.5f)); // top at z = 0.5
	bd.position = kl_vec3(20.0f, 0.0f, 0.0f);
	kl_body_id floor = kl_create_body(world, &bd);
	kl_shape_id plane = kl_create_plane_shape(floor, &sd, (kl_plane){kl_vec3(0.0f, 0.0f, 1.0f), -1.0f});
	vec3s hull_points[8];
	for (int i = 0; i < 8; ++i)
	{
		hull_points[i] = kl_vec3((i & 1) ? 0.3f : -0.3f, (i & 2) ? 0.2f : -0.2f, (i & 4) ? 0.4f : -0.4f);
	}
	kl_hull* hull = kl_hull_build(hull_points, 8);
	const kl_shape_proxy proxies[4] = {kl_make_sphere_proxy(0.5f), kl_make_capsule_proxy(0.25f, 0.5f),
									   kl_make_box_proxy(kl_vec3(0.3f, 0.3f, 0.6f)), kl_make_hull_proxy(hull)};
	const float bottom[4] = {0.5f, 0.75f, 0.6f, 0.4f}; // lowest point below the centre
	const float tol = 0.1f * 0.005f;
	for (int i = 0; i < 4; ++i)
	{
		for (int target = 0; target < 2; ++target)
		{
			float x = target == 0 ? 0.0f : 20.0f, top = target == 0 ? 0.5f : -1.0f;
			kl_transform xf = {kl_vec3(x, 0.0f, 5.0f), glms_quat_identity()};
			vec3s down = kl_vec3(0.0f, 0.0f, -10.0f);
			hit_log log = {.mode = MODE_CLIP};
			assert_int_equal(kl_world_cast_shape(world, &proxies[i], xf, down, kl_default_filter(), log_hit, &log),
							 KL_OK);
			assert_int_equal(log.count, 1);
			assert_true(KL_ID_EQUALS(log.shape[0], target == 0 ? box : plane));
			float touch = (5.0f - bottom[i] - top) / 10.0f; // fraction where the surfaces meet
			assert_true(log.fraction[0] <= touch - 0.5f * tol / 10.0f + 1.0e-6f);
			assert_true(log.fraction[0] >= touch - tol / 10.0f - 1.0e-6f);
			assert_vec_near(log.normal[0], kl_vec3(0.0f, 0.0f, 1.0f), 1.0e-5f);
			assert_near(log.point[0].z, top, 1.0e-4f);
			assert_near(log.point[0].y, 0.0f, 0.31f);
		}
	}
	kl_hull_destroy(hull);
	kl_destroy_world(world);
}

static bool count_overlap(kl_shape_id shape, void* context)
{
	(void)shape;
	*(int*)context += 1;
	return true;
}

static void test_shape_queries_bad_input(void** state)
{
	(void)state;
	scene sc = make_scene(41, 30, true);
	int calls = 0;
	kl_filter filter = kl_default_filter();
	kl_transform xf = kl_transform_identity();
	vec3s d = kl_vec3(0.0f, 0.0f, -3.0f);
	kl_shape_proxy good = kl_make_sphere_proxy(0.5f);
	kl_shape_proxy bad[] = {
		kl_make_sphere_proxy(0.0f),
		kl_make_sphere_proxy(NAN),
		kl_make_capsule_proxy(0.2f, -1.0f),
		kl_make_capsule_proxy(-0.2f, 1.0f),
		kl_make_box_proxy(kl_vec3(1.0f, 0.0f, 1.0f)),
		kl_make_box_proxy(kl_vec3(1.0f, 1.0f, INFINITY)),
		kl_make_hull_proxy(NULL),
		{.type = KL_SHAPE_MESH},
		{.type = KL_SHAPE_PLANE},
		{.type = (kl_shape_type)99},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
	{
		kl_clear_error();
		assert_int_equal(kl_world_overlap_shape(sc.world, &bad[i], xf, filter, count_overlap, &calls),
						 KL_ERR_INVALID_ARGUMENT);
		assert_non_null(strstr(kl_last_error(), "kl_world_overlap_shape"));
		assert_int_equal(kl_world_cast_shape(sc.world, &bad[i], xf, d, filter, never_called, &calls),
						 KL_ERR_INVALID_ARGUMENT);
		assert_non_null(strstr(kl_last_error(), "kl_world_cast_shape"));
	}
	assert_int_equal(kl_world_overlap_shape(sc.world, NULL, xf, filter, count_overlap, &calls), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_shape(sc.world, NULL, xf, d, filter, never_called, &calls), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_overlap_shape(sc.world, &good, xf, filter, NULL, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_shape(sc.world, &good, xf, d, filter, NULL, NULL), KL_ERR_INVALID_ARGUMENT);
	kl_transform nan_xf = {kl_vec3(0.0f, NAN, 0.0f), glms_quat_identity()};
	kl_transform zero_q = {kl_vec3(0.0f, 0.0f, 0.0f), {{0.0f, 0.0f, 0.0f, 0.0f}}};
	assert_int_equal(kl_world_overlap_shape(sc.world, &good, nan_xf, filter, count_overlap, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_overlap_shape(sc.world, &good, zero_q, filter, count_overlap, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_shape(sc.world, &good, zero_q, d, filter, never_called, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_shape(sc.world, &good, xf, kl_vec3(NAN, 0, 0), filter, never_called, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_cast_shape(sc.world, &good, xf, kl_vec3(3e38f, 3e38f, 0), filter, never_called, &calls),
					 KL_ERR_INVALID_ARGUMENT);
	kl_aabb inverted = {kl_vec3(1.0f, 0.0f, 0.0f), kl_vec3(0.0f, 1.0f, 1.0f)};
	kl_aabb nan_box = {kl_vec3(0.0f, 0.0f, 0.0f), kl_vec3(1.0f, NAN, 1.0f)};
	kl_aabb box = {kl_vec3(-8.0f, -8.0f, -8.0f), kl_vec3(8.0f, 8.0f, 8.0f)};
	assert_int_equal(kl_world_overlap_aabb(sc.world, inverted, filter, count_overlap, &calls), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_overlap_aabb(sc.world, nan_box, filter, count_overlap, &calls), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_overlap_aabb(sc.world, box, filter, NULL, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_world_overlap_aabb(kl_null_world_id, box, filter, count_overlap, &calls), KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_overlap_shape(kl_null_world_id, &good, xf, filter, count_overlap, &calls),
					 KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_cast_shape(kl_null_world_id, &good, xf, d, filter, never_called, &calls),
					 KL_ERR_INVALID_ID);
	kl_get_world(sc.world)->locked = true;
	assert_int_equal(kl_world_overlap_aabb(sc.world, box, filter, count_overlap, &calls), KL_ERR_LOCKED);
	assert_int_equal(kl_world_overlap_shape(sc.world, &good, xf, filter, count_overlap, &calls), KL_ERR_LOCKED);
	assert_int_equal(kl_world_cast_shape(sc.world, &good, xf, d, filter, never_called, &calls), KL_ERR_LOCKED);
	kl_get_world(sc.world)->locked = false;
	assert_int_equal(calls, 0);
	// The world is intact and answers afterwards.
	assert_int_equal(kl_world_overlap_aabb(sc.world, box, filter, count_overlap, &calls), KL_OK);
	assert_true(calls > 0);
	kl_world_id stale = sc.world;
	destroy_scene(&sc);
	assert_int_equal(kl_world_overlap_aabb(stale, box, filter, count_overlap, &calls), KL_ERR_INVALID_ID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cast_ray_all_random),
		cmocka_unit_test(test_cast_ray_all_bad_input),
		cmocka_unit_test(test_overlap_aabb_random),
		cmocka_unit_test(test_overlap_shape_random),
		cmocka_unit_test(test_overlap_shape_inside_mesh),
		cmocka_unit_test(test_cast_shape_random),
		cmocka_unit_test(test_cast_shape_exact),
		cmocka_unit_test(test_shape_queries_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
