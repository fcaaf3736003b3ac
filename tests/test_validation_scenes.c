// Kollide tests — the validation scenes are registered and built as intended: body counts, and
// every body starts touching its support without overlapping anything (checked by exact geometry,
// without the engine's narrowphase), so the scenes test resting contact and not recovery.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"

#include <string.h>

typedef struct scene_expect
{
	const char* name;
	int dynamic_count;
	bool resting; ///< every dynamic body starts touching something
} scene_expect;

static const scene_expect expected[] = {
	{"vertical_stack", 15, true}, {"pyramid", 210, true},		   {"mass_ratio", 11, true},
	{"friction_ramp", 6, true},	  {"restitution_row", 4, false}, {"card_house", 7, true},
};
#define EXPECTED_COUNT ((int)(sizeof(expected) / sizeof(expected[0])))

/// Largest tolerated overlap and gap: float rounding of the rotated placements (all sizes ≤ 20 m).
#define PLACEMENT_TOLERANCE 2.0e-5

typedef struct placed_shape
{
	kl_shape_type type;
	kl_transform xf; ///< world pose of the shape frame
	vec3s half;		 ///< box half extents
	float radius;	 ///< sphere radius
	int body;		 ///< index into the body list
	bool dynamic;
} placed_shape;

static vec3s axis_of(versors q, int i)
{
	vec3s e = kl_vec3(i == 0 ? 1.0f : 0.0f, i == 1 ? 1.0f : 0.0f, i == 2 ? 1.0f : 0.0f);
	return kl_rotate(q, e);
}

static double dot3(vec3s a, vec3s b)
{
	return (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z;
}

/// Half the extent of a box along a unit axis.
static double box_radius(const placed_shape* s, vec3s axis)
{
	double r = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		r += s->half.raw[i] * fabs(dot3(axis_of(s->xf.q, i), axis));
	}
	return r;
}

/// Separation of two oriented boxes by the separating axis theorem: the largest gap over the 15
/// candidate axes (positive: apart by at least that; negative: overlapping by about that much).
static double box_box_separation(const placed_shape* a, const placed_shape* b)
{
	vec3s axes[15];
	int n = 0;
	for (int i = 0; i < 3; ++i)
	{
		axes[n++] = axis_of(a->xf.q, i);
		axes[n++] = axis_of(b->xf.q, i);
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			vec3s c = glms_vec3_cross(axis_of(a->xf.q, i), axis_of(b->xf.q, j));
			float len = glms_vec3_norm(c);
			if (len > 1.0e-4f)
			{
				axes[n++] = glms_vec3_scale(c, 1.0f / len);
			}
		}
	}
	vec3s d = glms_vec3_sub(b->xf.p, a->xf.p);
	double best = -1.0e30;
	for (int k = 0; k < n; ++k)
	{
		double gap = fabs(dot3(d, axes[k])) - box_radius(a, axes[k]) - box_radius(b, axes[k]);
		best = gap > best ? gap : best;
	}
	return best;
}

/// Signed distance from a sphere's surface to a box (negative inside).
static double sphere_box_separation(const placed_shape* sphere, const placed_shape* box)
{
	vec3s local = kl_inv_transform_point(box->xf, sphere->xf.p);
	double outside = 0.0, inside = 1.0e30;
	for (int i = 0; i < 3; ++i)
	{
		double excess = fabs(local.raw[i]) - box->half.raw[i];
		outside += excess > 0.0 ? excess * excess : 0.0;
		inside = fmin(inside, -excess);
	}
	double d = outside > 0.0 ? sqrt(outside) : -inside;
	return d - sphere->radius;
}

static double separation(const placed_shape* a, const placed_shape* b)
{
	if (a->type == KL_SHAPE_BOX && b->type == KL_SHAPE_BOX)
	{
		return box_box_separation(a, b);
	}
	if (a->type == KL_SHAPE_SPHERE && b->type == KL_SHAPE_SPHERE)
	{
		return kl_val_distance(a->xf.p, b->xf.p) - a->radius - b->radius;
	}
	if (a->type == KL_SHAPE_SPHERE && b->type == KL_SHAPE_BOX)
	{
		return sphere_box_separation(a, b);
	}
	if (a->type == KL_SHAPE_BOX && b->type == KL_SHAPE_SPHERE)
	{
		return sphere_box_separation(b, a);
	}
	fail_msg("unexpected shape types %d, %d", (int)a->type, (int)b->type);
	return 0.0;
}

/// Every shape of the world at its world pose.
static int collect_shapes(kl_world_id world, placed_shape** out, int* body_count)
{
	int total = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* bodies = malloc((size_t)total * sizeof(kl_body_id));
	assert_non_null(bodies);
	kl_world_get_bodies(world, bodies, total);
	int shape_total = 0;
	for (int i = 0; i < total; ++i)
	{
		shape_total += kl_body_get_shape_count(bodies[i]);
	}
	placed_shape* shapes = calloc((size_t)shape_total, sizeof(placed_shape));
	assert_non_null(shapes);
	int n = 0;
	for (int i = 0; i < total; ++i)
	{
		kl_shape_id ids[8];
		int count = kl_body_get_shapes(bodies[i], ids, 8);
		assert_true(count <= 8);
		for (int k = 0; k < count; ++k)
		{
			placed_shape* s = &shapes[n++];
			s->type = kl_shape_get_type(ids[k]);
			s->xf = kl_transform_mul(kl_body_get_transform(bodies[i]), kl_shape_get_local_pose(ids[k]));
			s->body = i;
			s->dynamic = kl_body_get_type(bodies[i]) == KL_BODY_DYNAMIC;
			if (s->type == KL_SHAPE_BOX)
			{
				s->half = kl_shape_get_box_half_extents(ids[k]);
			}
			else
			{
				assert_int_equal(s->type, KL_SHAPE_SPHERE);
				s->radius = kl_shape_get_sphere_radius(ids[k]);
			}
			kl_aabb box = kl_shape_get_aabb(ids[k]);
			assert_true(isfinite(box.lower.x) && isfinite(box.upper.z) && box.lower.z <= box.upper.z);
		}
	}
	free(bodies);
	*out = shapes;
	*body_count = total;
	return n;
}

static void test_registry(void** state)
{
	(void)state;
	int count = 0;
	const kl_scene* const* list = kl_scene_list(&count);
	for (int i = 0; i < EXPECTED_COUNT; ++i)
	{
		const kl_scene* scene = kl_scene_find(expected[i].name);
		assert_non_null(scene);
		assert_non_null(scene->create);
		assert_non_null(scene->description);
		int seen = 0;
		for (int k = 0; k < count; ++k)
		{
			seen += strcmp(list[k]->name, expected[i].name) == 0;
		}
		assert_int_equal(seen, 1);
	}
}

/// Body counts; no overlap anywhere; where the scene starts at rest, each dynamic body touches
/// something (a gap of zero within rounding). Also steps once on a bare world for the hash.
static void test_initial_placement(void** state)
{
	(void)state;
	for (int i = 0; i < EXPECTED_COUNT; ++i)
	{
		kl_scene_run run;
		kl_val_start(expected[i].name, 1, &run);
		kl_body_id* dynamic = NULL;
		assert_int_equal(kl_val_dynamic_bodies(run.world, &dynamic), expected[i].dynamic_count);
		free(dynamic);

		placed_shape* shapes = NULL;
		int body_count = 0;
		int n = collect_shapes(run.world, &shapes, &body_count);
		double* nearest = malloc((size_t)body_count * sizeof(double));
		assert_non_null(nearest);
		for (int b = 0; b < body_count; ++b)
		{
			nearest[b] = 1.0e30;
		}
		double worst_overlap = 1.0e30;
		for (int a = 0; a < n; ++a)
		{
			for (int b = a + 1; b < n; ++b)
			{
				if (shapes[a].body == shapes[b].body || (!shapes[a].dynamic && !shapes[b].dynamic))
				{
					continue;
				}
				double sep = separation(&shapes[a], &shapes[b]);
				worst_overlap = fmin(worst_overlap, sep);
				nearest[shapes[a].body] = fmin(nearest[shapes[a].body], sep);
				nearest[shapes[b].body] = fmin(nearest[shapes[b].body], sep);
			}
		}
		double worst_gap = -1.0e30;
		for (int a = 0; a < n; ++a)
		{
			if (shapes[a].dynamic)
			{
				worst_gap = fmax(worst_gap, nearest[shapes[a].body]);
			}
		}
		printf("  %-16s %3d bodies, smallest pair separation %+.2e m, largest gap of a body to its "
			   "nearest neighbour %+.2e m\n",
			   expected[i].name, body_count, worst_overlap, worst_gap);
		assert_true(worst_overlap > -PLACEMENT_TOLERANCE);
		if (expected[i].resting)
		{
			assert_true(worst_gap < PLACEMENT_TOLERANCE);
		}
		free(nearest);
		free(shapes);
		kl_scene_stop(&run);
	}
}

/// The friction ramp's pair friction √(μ_box·μ_ramp) spans both sides of tan 30°.
static void test_friction_ramp_materials(void** state)
{
	(void)state;
	static const double wanted[] = {0.2, 0.4, 0.5, 0.6, 0.7, 0.8};
	kl_scene_run run;
	kl_val_start("friction_ramp", 1, &run);
	kl_body_id ramp = kl_world_find_body(run.world, "ramp");
	assert_true(KL_IS_NON_NULL(ramp));
	kl_shape_id ramp_shape;
	assert_int_equal(kl_body_get_shapes(ramp, &ramp_shape, 1), 1);
	double mu_ramp = kl_shape_get_material(ramp_shape).friction;
	kl_body_id* boxes = NULL;
	int count = kl_val_dynamic_bodies(run.world, &boxes);
	assert_int_equal(count, 6);
	for (int i = 0; i < count; ++i)
	{
		kl_shape_id shape;
		assert_int_equal(kl_body_get_shapes(boxes[i], &shape, 1), 1);
		double mu = sqrt(kl_shape_get_material(shape).friction * mu_ramp);
		assert_near(mu, wanted[i], 1.0e-6);
	}
	free(boxes);
	kl_scene_stop(&run);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_initial_placement),
		cmocka_unit_test(test_friction_ramp_materials),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
