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
	MAX_HITS = 256
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
	enum
	{
		MAX_SHAPES = 512
	};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cast_ray_all_random),
		cmocka_unit_test(test_cast_ray_all_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
