// Kollide — tests of triangle-pair contact generation and contact patches (minimal contact sets)
// on small triangle meshes: boxes, tetrahedra, a triangle fan and an L-shaped body.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "contact_patches.h"

#include <math.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Tiny triangle soups

#define MAX_TRIS 64

typedef struct soup
{
	vec3s v[MAX_TRIS][3];
	int count;
} soup;

/// Appends a triangle wound counter-clockwise seen from outside, "outside" being away from inner.
static void soup_add(soup* s, vec3s a, vec3s b, vec3s c, vec3s inner)
{
	vec3s n = glms_vec3_cross(glms_vec3_sub(b, a), glms_vec3_sub(c, a));
	vec3s centre = glms_vec3_scale(glms_vec3_add(glms_vec3_add(a, b), c), 1.0f / 3.0f);
	bool flip = glms_vec3_dot(n, glms_vec3_sub(centre, inner)) < 0.0f;
	s->v[s->count][0] = a;
	s->v[s->count][1] = flip ? c : b;
	s->v[s->count][2] = flip ? b : c;
	s->count++;
}

/// A box as 12 triangles, rotated by q about its centre.
static void soup_box(soup* s, vec3s centre, vec3s half, versors q)
{
	vec3s corner[8];
	for (int i = 0; i < 8; ++i)
	{
		vec3s local = kl_vec3(i & 1 ? half.x : -half.x, i & 2 ? half.y : -half.y, i & 4 ? half.z : -half.z);
		corner[i] = glms_vec3_add(centre, kl_rotate(q, local));
	}
	static const int quads[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
	for (int f = 0; f < 6; ++f)
	{
		const int* k = quads[f];
		soup_add(s, corner[k[0]], corner[k[1]], corner[k[2]], centre);
		soup_add(s, corner[k[0]], corner[k[2]], corner[k[3]], centre);
	}
}

static versors quat_axis_angle(vec3s axis, float angle)
{
	vec3s a = glms_vec3_normalize(axis);
	float s = sinf(0.5f * angle);
	versors q = {{a.x * s, a.y * s, a.z * s, cosf(0.5f * angle)}};
	return q;
}

static versors quat_identity(void)
{
	return kl_quat_wxyz(1.0f, 0.0f, 0.0f, 0.0f);
}

/// All raw contacts between two soups (every triangle pair: the BVH's job in the engine).
static int soup_contacts(const soup* a, const soup* b, kl_tri_contact* out, int capacity)
{
	kl_tri_contact_config config = kl_tri_contact_config_default();
	int count = 0;
	for (int i = 0; i < a->count; ++i)
	{
		for (int j = 0; j < b->count; ++j)
		{
			kl_tri_contact buf[KL_TRI_MAX_CONTACTS];
			int n = kl_tri_contacts(a->v[i], b->v[j], (uint32_t)i, (uint32_t)j, &config, buf);
			for (int k = 0; k < n && count < capacity; ++k)
			{
				out[count++] = buf[k];
			}
		}
	}
	return count;
}

#define MAX_CONTACTS 4096

typedef struct patch_result
{
	kl_manifold m[4];
	int count;
	int raw;
} patch_result;

static patch_result soup_patches(const soup* a, const soup* b)
{
	static kl_tri_contact contacts[MAX_CONTACTS];
	static kl_manifold_point scratch[3 * MAX_CONTACTS + 2];
	patch_result r;
	memset(&r, 0, sizeof(r));
	r.raw = soup_contacts(a, b, contacts, MAX_CONTACTS);
	kl_patch_config config = kl_patch_config_default();
	r.count = kl_contact_patches(contacts, r.raw, &config, scratch, r.m, 4);
	return r;
}

static float min_separation(const kl_manifold* m)
{
	float s = INFINITY;
	for (int i = 0; i < m->point_count; ++i)
	{
		s = fminf(s, m->points[i].separation);
	}
	return s;
}

// ---------------------------------------------------------------------------------------------
// Triangle-pair contacts

static void test_pair_cases(void** state)
{
	(void)state;
	kl_tri_contact_config config = kl_tri_contact_config_default();
	kl_tri_contact out[KL_TRI_MAX_CONTACTS];
	vec3s floor_tri[3] = {kl_vec3(-1, -1, 0), kl_vec3(2, -1, 0), kl_vec3(-1, 2, 0)};

	// A downward face hovering 5 mm above: face clipping, three corners, normal +z.
	vec3s hover[3] = {kl_vec3(0, 0, 0.005f), kl_vec3(0, 0.5f, 0.005f), kl_vec3(0.5f, 0, 0.005f)};
	int n = kl_tri_contacts(floor_tri, hover, 7, 9, &config, out);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; ++i)
	{
		assert_near(out[i].normal.z, 1.0, 1e-6);
		assert_near(out[i].separation, 0.005, 1e-6);
		assert_near(out[i].point.z, 0.0025, 1e-6);
		assert_int_equal(out[i].kind, KL_TRI_CONTACT_FACE);
		assert_int_equal(out[i].feature_a, KL_TRI_FACE);
		assert_int_equal(out[i].feature_b, KL_TRI_VERTEX0 + i);
		assert_int_equal(out[i].tri_a, 7);
		assert_int_equal(out[i].tri_b, 9);
	}
	// The same face sunk 3 mm: penetration, same normal.
	vec3s sunk[3] = {kl_vec3(0, 0, -0.003f), kl_vec3(0, 0.5f, -0.003f), kl_vec3(0.5f, 0, -0.003f)};
	n = kl_tri_contacts(floor_tri, sunk, 0, 0, &config, out);
	assert_int_equal(n, 3);
	assert_near(out[0].separation, -0.003, 1e-6);
	assert_near(out[0].normal.z, 1.0, 1e-6);
	// Beyond the margin: nothing.
	vec3s high[3] = {kl_vec3(0, 0, 0.05f), kl_vec3(0, 0.5f, 0.05f), kl_vec3(0.5f, 0, 0.05f)};
	assert_int_equal(kl_tri_contacts(floor_tri, high, 0, 0, &config, out), 0);
	// Deep behind the face (an inner face of a deep overlap): nothing.
	vec3s deep[3] = {kl_vec3(0, 0, -0.5f), kl_vec3(0, 0.5f, -0.5f), kl_vec3(0.5f, 0, -0.5f)};
	assert_int_equal(kl_tri_contacts(floor_tri, deep, 0, 0, &config, out), 0);

	// A vertical triangle (the side of a box) sunk 1 cm into the floor: crossing; the floor is
	// penetrated least, so the normal is +z and the depth 1 cm at both ends.
	vec3s side[3] = {kl_vec3(0, 0, -0.01f), kl_vec3(0.5f, 0, -0.01f), kl_vec3(0, 0, 0.49f)};
	n = kl_tri_contacts(floor_tri, side, 0, 0, &config, out);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; ++i)
	{
		assert_int_equal(out[i].kind, KL_TRI_CONTACT_CROSSING);
		assert_near(out[i].normal.z, 1.0, 1e-6);
		assert_near(out[i].separation, -0.01, 1e-6);
		assert_near(out[i].point.z, -0.005, 1e-6);
	}
	// Swapped roles: the normal still points from a to b, now the side face's outward normal
	// reversed... the floor is still penetrated least, so the normal is -z (from side to floor).
	n = kl_tri_contacts(side, floor_tri, 0, 0, &config, out);
	assert_int_equal(n, 2);
	assert_near(out[0].normal.z, -1.0, 1e-6);
	assert_near(out[0].separation, -0.01, 1e-6);

	// A crossing deeper than max_depth on both faces (a pass-through): nothing.
	vec3s through[3] = {kl_vec3(0, 0, -0.5f), kl_vec3(0.5f, 0, -0.5f), kl_vec3(0.25f, 0, 0.5f)};
	assert_int_equal(kl_tri_contacts(floor_tri, through, 0, 0, &config, out), 0);
	kl_tri_contact_config deep_config = config;
	deep_config.max_depth = 1.0f;
	assert_int_equal(kl_tri_contacts(floor_tri, through, 0, 0, &deep_config, out), 2);

	// Separated edge over a face, within the margin: one point, normal along the gap.
	vec3s edge_above[3] = {kl_vec3(0, 0, 0.01f), kl_vec3(0.5f, 0, 0.01f), kl_vec3(0.25f, -0.3f, 0.4f)};
	n = kl_tri_contacts(floor_tri, edge_above, 0, 0, &config, out);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].kind, KL_TRI_CONTACT_SEPARATED);
	assert_near(out[0].normal.z, 1.0, 1e-5);
	assert_near(out[0].separation, 0.01, 1e-6);
	// The same below the face (inside the body under the floor): a back face, dropped.
	vec3s edge_below[3] = {kl_vec3(0, 0, -0.01f), kl_vec3(0.5f, 0, -0.01f), kl_vec3(0.25f, -0.3f, -0.4f)};
	assert_int_equal(kl_tri_contacts(floor_tri, edge_below, 0, 0, &config, out), 0);

	// Bad input: a clear error, no contacts, no crash.
	vec3s nan_tri[3] = {kl_vec3(NAN, 0, 0), kl_vec3(1, 0, 0), kl_vec3(0, 1, 0)};
	assert_int_equal(kl_tri_contacts(floor_tri, nan_tri, 0, 0, &config, out), 0);
	assert_int_equal(kl_tri_contacts(floor_tri, hover, 0, 0, NULL, out), 0);
	// A degenerate triangle gives nothing.
	vec3s flat[3] = {kl_vec3(0, 0, 0), kl_vec3(1, 0, 0), kl_vec3(2, 0, 0)};
	assert_int_equal(kl_tri_contacts(floor_tri, flat, 0, 0, &config, out), 0);
}

static void test_two_tetrahedra(void** state)
{
	(void)state;
	// A wide tetrahedron with its top face at z = 0, and a small one standing on its apex,
	// 4 mm into that face.
	soup a = {0}, b = {0};
	vec3s ta[4] = {kl_vec3(-1, -1, 0), kl_vec3(1.5f, -1, 0), kl_vec3(-1, 1.5f, 0), kl_vec3(0, 0, -1)};
	vec3s ca = kl_vec3(0, 0, -0.25f);
	soup_add(&a, ta[0], ta[1], ta[2], ca);
	soup_add(&a, ta[0], ta[1], ta[3], ca);
	soup_add(&a, ta[1], ta[2], ta[3], ca);
	soup_add(&a, ta[2], ta[0], ta[3], ca);
	vec3s tb[4] = {kl_vec3(0, 0, -0.004f), kl_vec3(-0.2f, -0.2f, 0.3f), kl_vec3(0.3f, -0.1f, 0.3f),
				   kl_vec3(-0.1f, 0.3f, 0.3f)};
	vec3s cb = kl_vec3(0, 0, 0.22f);
	soup_add(&b, tb[0], tb[1], tb[2], cb);
	soup_add(&b, tb[0], tb[2], tb[3], cb);
	soup_add(&b, tb[0], tb[3], tb[1], cb);
	soup_add(&b, tb[1], tb[2], tb[3], cb);
	patch_result r = soup_patches(&a, &b);
	assert_true(r.raw >= 3);
	assert_int_equal(r.count, 1);
	assert_near(r.m[0].normal.z, 1.0, 1e-3);
	assert_near(min_separation(&r.m[0]), -0.004, 1e-5);
	// The apex is one point: all contacts weld to one place at the tip.
	for (int i = 0; i < r.m[0].point_count; ++i)
	{
		assert_near(r.m[0].points[i].point.x, 0.0, 0.01);
		assert_near(r.m[0].points[i].point.y, 0.0, 0.01);
	}
}

static void test_triangle_on_fan(void** state)
{
	(void)state;
	// A hexagonal fan (6 triangles, normal +z) and a downward triangle resting 2 mm above it.
	soup fan = {0}, t = {0};
	vec3s centre = kl_vec3(0, 0, 0);
	for (int k = 0; k < 6; ++k)
	{
		float a0 = (float)k * 1.0471976f, a1 = (float)(k + 1) * 1.0471976f;
		soup_add(&fan, centre, kl_vec3(cosf(a0), sinf(a0), 0), kl_vec3(cosf(a1), sinf(a1), 0), kl_vec3(0, 0, -1));
	}
	soup_add(&t, kl_vec3(-0.4f, -0.3f, 0.002f), kl_vec3(0.5f, -0.2f, 0.002f), kl_vec3(0.0f, 0.5f, 0.002f),
			 kl_vec3(0, 0, 1));
	patch_result r = soup_patches(&fan, &t);
	assert_int_equal(r.count, 1);
	assert_near(r.m[0].normal.z, 1.0, 1e-5);
	assert_true(r.m[0].point_count >= 3);
	for (int i = 0; i < r.m[0].point_count; ++i)
	{
		assert_near(r.m[0].points[i].separation, 0.002, 1e-5);
	}
	// The three corners of the resting triangle must be among the points (the support).
	vec3s corners[3] = {kl_vec3(-0.4f, -0.3f, 0.001f), kl_vec3(0.5f, -0.2f, 0.001f), kl_vec3(0.0f, 0.5f, 0.001f)};
	for (int c = 0; c < 3; ++c)
	{
		float best = INFINITY;
		for (int i = 0; i < r.m[0].point_count; ++i)
		{
			best = fminf(best, glms_vec3_distance(corners[c], r.m[0].points[i].point));
		}
		assert_near(best, 0.0, 1e-5);
	}
}

// ---------------------------------------------------------------------------------------------
// Patches

static void box_on_box(soup* a, soup* b, vec3s offset, float depth, versors qb)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	soup_box(a, kl_vec3(0, 0, 0), kl_vec3(1, 1, 0.5f), quat_identity());
	soup_box(b, glms_vec3_add(kl_vec3(0, 0, 0.5f + 0.25f - depth), offset), kl_vec3(0.25f, 0.25f, 0.25f), qb);
}

static void test_box_on_box_one_patch(void** state)
{
	(void)state;
	soup a, b;
	box_on_box(&a, &b, kl_vec3(0.1f, -0.2f, 0), 0.01f, quat_identity());
	patch_result r = soup_patches(&a, &b);
	print_message("box on box: %d raw contacts -> %d patch(es)\n", r.raw, r.count);
	assert_true(r.raw > 4);
	assert_int_equal(r.count, 1);
	const kl_manifold* m = &r.m[0];
	assert_near(m->normal.x, 0.0, 1e-5);
	assert_near(m->normal.y, 0.0, 1e-5);
	assert_near(m->normal.z, 1.0, 1e-5);
	assert_int_equal(m->point_count, 4);
	// The four bottom corners of the small box, 1 cm deep, midway (z = 0.495).
	for (int c = 0; c < 4; ++c)
	{
		vec3s corner = kl_vec3(0.1f + (c & 1 ? 0.25f : -0.25f), -0.2f + (c & 2 ? 0.25f : -0.25f), 0.495f);
		float best = INFINITY;
		for (int i = 0; i < 4; ++i)
		{
			best = fminf(best, glms_vec3_distance(corner, m->points[i].point));
		}
		assert_near(best, 0.0, 1e-4);
	}
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m->points[i].separation, -0.01, 1e-5);
		for (int j = 0; j < i; ++j)
		{
			assert_true(m->points[i].id != m->points[j].id);
		}
	}
}

static void test_tilted_box_one_patch(void** state)
{
	(void)state;
	// Tilted by 3°: one patch, normal still the floor's, deepest point the lowest corner. Its
	// contacts more than depth_band shallower than the lowest corner follow in a manifold of their
	// own, with the same normal.
	soup a, b;
	box_on_box(&a, &b, kl_vec3(0, 0, 0), 0.02f, quat_axis_angle(kl_vec3(1, 0, 0), 0.05236f));
	patch_result r = soup_patches(&a, &b);
	assert_true(r.count == 1 || r.count == 2);
	for (int p = 0; p < r.count; ++p)
	{
		assert_near(r.m[p].normal.z, 1.0, 1e-3);
		assert_true(min_separation(&r.m[p]) >= min_separation(&r.m[0]));
	}
	assert_near(r.m[0].normal.z, 1.0, 1e-3);
	assert_true(r.m[0].point_count >= 3);
	// Lowest corner: 0.25 (sin 3° + cos 3°) below the centre → depth 0.02 + 0.25 (sin + cos - 1).
	float expected = -(0.02f + 0.25f * (sinf(0.05236f) + cosf(0.05236f) - 1.0f));
	assert_near(min_separation(&r.m[0]), expected, 2e-3);
}

/// Eight corners in one patch, like the tips of two gear teeth a gear stands on: the inner corners
/// touch (0.5 mm deep), the outer ones are 0.5 mm up. Four points span the largest area with outer
/// corners, so the corners the reduction leaves out must follow in a second manifold with the same
/// normal when there is room (a gear on its rim wobbled for ever without them), and only then.
static void test_outline_rest_second_manifold(void** state)
{
	(void)state;
	const float xs[4] = {0.0f, 0.003f, 0.020f, 0.023f}; // outer, inner (tooth A); inner, outer (tooth B)
	kl_tri_contact contacts[8];
	memset(contacts, 0, sizeof(contacts));
	for (int i = 0; i < 8; ++i)
	{
		int x = i / 2;
		contacts[i].point = kl_vec3(xs[x], i % 2 ? 0.01f : -0.01f, 0.0f);
		contacts[i].normal = kl_vec3(0.0f, 0.0f, 1.0f);
		contacts[i].separation = x == 1 || x == 2 ? -0.0005f : 0.0005f;
		contacts[i].tri_a = (uint32_t)i;
		contacts[i].tri_b = 100u;
		contacts[i].kind = KL_TRI_CONTACT_VERTEX;
	}
	static kl_manifold_point scratch[3 * 8 + 2];
	kl_patch_config config = kl_patch_config_default();
	kl_manifold m[4];
	int count = kl_contact_patches(contacts, 8, &config, scratch, m, 4);
	assert_int_equal(count, 2);
	assert_int_equal(m[0].point_count, 4);
	int covered = 0;
	for (int i = 0; i < 8; ++i)
	{
		bool found = false;
		for (int k = 0; k < count; ++k)
		{
			assert_near(m[k].normal.z, 1.0, 1e-6);
			for (int j = 0; j < m[k].point_count; ++j)
			{
				found = found || glms_vec3_distance(m[k].points[j].point, contacts[i].point) < 1e-6f;
			}
		}
		covered += found;
	}
	assert_int_equal(covered, 8); // every corner is in one of the two manifolds
	assert_int_equal(m[0].point_count + m[1].point_count, 8);
	// Without room, the one manifold of four points stays.
	assert_int_equal(kl_contact_patches(contacts, 8, &config, scratch, m, 1), 1);
	assert_int_equal(m[0].point_count, 4);
}

/// The far contacts of a patch (beyond depth_band) are speculative points for what closes in during
/// the step; with the bodies' motion they are chosen by the separation predicted at its end. Six
/// far corners of a hexagon, all 1 cm away, and a spin that brings corner 0 down fastest: the
/// reduction keeps four, and corner 0 must be among them (by geometry alone it is not), while the
/// points keep their separation now.
static int far_manifold_with_corner(const kl_patch_config* config, int corner, float* separation)
{
	kl_tri_contact contacts[7];
	memset(contacts, 0, sizeof(contacts));
	for (int i = 0; i < 7; ++i)
	{
		float angle = (float)i * GLM_PIf / 3.0f;
		contacts[i].point =
			i < 6 ? kl_vec3(0.05f * cosf(angle), 0.05f * sinf(angle), 0.0f) : kl_vec3(0.2f, 0.0f, 0.0f);
		contacts[i].normal = kl_vec3(0.0f, 0.0f, 1.0f);
		contacts[i].separation = i < 6 ? 0.01f : -0.001f; // the seventh touches: the hexagon is far
		contacts[i].tri_a = (uint32_t)i;
		contacts[i].tri_b = 100u;
		contacts[i].kind = KL_TRI_CONTACT_VERTEX;
	}
	static kl_manifold_point scratch[3 * 7 + 2];
	kl_manifold m[4];
	int count = kl_contact_patches(contacts, 7, config, scratch, m, 4);
	float angle = (float)corner * GLM_PIf / 3.0f;
	vec3s target = kl_vec3(0.05f * cosf(angle), 0.05f * sinf(angle), 0.0f);
	for (int k = 0; k < count; ++k)
	{
		for (int j = 0; j < m[k].point_count; ++j)
		{
			if (glms_vec3_distance(m[k].points[j].point, target) < 1e-6f)
			{
				*separation = m[k].points[j].separation;
				return k;
			}
		}
	}
	return -1;
}

static void test_far_points_by_predicted_separation(void** state)
{
	(void)state;
	kl_patch_config config = kl_patch_config_default();
	float separation = 0.0f;
	assert_int_equal(far_manifold_with_corner(&config, 0, &separation), -1); // by geometry: left out
	config.relative_spin = kl_vec3(0.0f, 10.0f, 0.0f); // 10 rad/s about y: corner 0 closes at 0.5 m/s
	config.dt = 1.0f / 60.0f;
	assert_true(far_manifold_with_corner(&config, 0, &separation) >= 1); // the far manifold holds it
	assert_near(separation, 0.01, 1e-6);								  // its separation now
}

/// A curved part tilted on a face (a bowl resting on its outer wall): the deepest vertex and a
/// touching neighbour 9 mm from it, inside a ring of vertices 16 mm out and about 1 mm up. The
/// outline is the ring; reduced by area alone, the set held the deepest vertex and ring vertices,
/// the part stood on one point and rocked over to the neighbour, and back, for ever. The touching
/// pair must both be in the manifold, which the ring completes.
static void test_touching_neighbour_inside_outline(void** state)
{
	(void)state;
	enum { RING = 8, COUNT = RING + 2 };
	kl_tri_contact contacts[COUNT];
	memset(contacts, 0, sizeof(contacts));
	for (int i = 0; i < COUNT; ++i)
	{
		float angle = 2.0f * GLM_PIf * (float)i / (float)RING;
		contacts[i].point = i < RING ? kl_vec3(0.016f * cosf(angle), 0.016f * sinf(angle), 0.0f)
									 : kl_vec3(i == RING ? 0.0f : 0.009f, 0.0f, 0.0f);
		contacts[i].normal = kl_vec3(0.0f, 0.0f, 1.0f);
		contacts[i].separation = i < RING ? 0.0009f + 0.0001f * (float)(i % 2) : (i == RING ? -0.0006f : -0.00038f);
		contacts[i].tri_a = (uint32_t)i;
		contacts[i].tri_b = 100u;
		contacts[i].kind = KL_TRI_CONTACT_VERTEX;
	}
	static kl_manifold_point scratch[3 * COUNT + 2];
	kl_patch_config config = kl_patch_config_default();
	kl_manifold m[4];
	assert_int_equal(kl_contact_patches(contacts, COUNT, &config, scratch, m, 1), 1);
	assert_int_equal(m[0].point_count, 4);
	int touching = 0, ring = 0;
	for (int k = 0; k < 4; ++k)
	{
		vec3s p = m[0].points[k].point;
		touching += fabsf(p.y) < 1e-6f && (fabsf(p.x) < 1e-6f || fabsf(p.x - 0.009f) < 1e-6f);
		ring += fabsf(glms_vec3_norm(p) - 0.016f) < 1e-5f;
	}
	assert_int_equal(touching, 2);
	assert_int_equal(ring, 2);
	// A flat patch, all of it touching, reduces as before: four vertices of the ring.
	for (int i = 0; i < RING; ++i)
	{
		contacts[i].separation = -0.0005f;
	}
	contacts[RING].separation = contacts[RING + 1].separation = -0.0005f;
	assert_int_equal(kl_contact_patches(contacts, COUNT, &config, scratch, m, 1), 1);
	for (int k = 0; k < m[0].point_count; ++k)
	{
		assert_near(glms_vec3_norm(m[0].points[k].point), 0.016, 1e-5);
	}
}

static void test_l_shape_two_patches(void** state)
{
	(void)state;
	// Body A: a floor slab and a wall standing on it at x <= -0.5. Body B: a box pushed 1 cm into
	// both the floor and the wall.
	soup a = {0}, b = {0};
	soup_box(&a, kl_vec3(0, 0, -0.5f), kl_vec3(1, 1, 0.5f), quat_identity());
	soup_box(&a, kl_vec3(-0.75f, 0, 0.5f), kl_vec3(0.25f, 1, 0.5f), quat_identity());
	soup_box(&b, kl_vec3(-0.5f + 0.25f - 0.01f, 0, 0.25f - 0.01f), kl_vec3(0.25f, 0.25f, 0.25f), quat_identity());
	patch_result r = soup_patches(&a, &b);
	print_message("L shape: %d raw contacts -> %d manifold(s)\n", r.raw, r.count);
	// Two patches (floor and wall); a patch's shallower contacts may add a manifold of their own.
	int floor_patch = -1, wall_patch = -1;
	for (int p = 0; p < r.count; ++p)
	{
		bool floor = r.m[p].normal.z > 0.99f, wall = r.m[p].normal.x > 0.99f;
		assert_true(floor || wall);
		if (floor && floor_patch < 0)
		{
			floor_patch = p;
		}
		if (wall && wall_patch < 0)
		{
			wall_patch = p;
		}
	}
	assert_true(floor_patch >= 0 && wall_patch >= 0);
	assert_int_equal(r.m[floor_patch].point_count, 4);
	assert_int_equal(r.m[wall_patch].point_count, 4);
	assert_near(min_separation(&r.m[floor_patch]), -0.01, 1e-4);
	assert_near(min_separation(&r.m[wall_patch]), -0.01, 1e-4);
}

static bool manifolds_equal(const patch_result* x, const patch_result* y)
{
	if (x->count != y->count)
	{
		return false;
	}
	for (int p = 0; p < x->count; ++p)
	{
		const kl_manifold* a = x->m + p;
		const kl_manifold* b = y->m + p;
		if (a->point_count != b->point_count || memcmp(&a->normal, &b->normal, sizeof(vec3s)) != 0)
		{
			return false;
		}
		for (int i = 0; i < a->point_count; ++i)
		{
			if (a->points[i].id != b->points[i].id ||
				memcmp(&a->points[i].point, &b->points[i].point, sizeof(vec3s)) != 0 ||
				a->points[i].separation != b->points[i].separation)
			{
				return false;
			}
		}
	}
	return true;
}

static void test_permutation_determinism(void** state)
{
	(void)state;
	soup a = {0}, b = {0};
	soup_box(&a, kl_vec3(0, 0, -0.5f), kl_vec3(1, 1, 0.5f), quat_identity());
	soup_box(&a, kl_vec3(-0.75f, 0, 0.5f), kl_vec3(0.25f, 1, 0.5f), quat_identity());
	soup_box(&b, kl_vec3(-0.26f, 0.1f, 0.23f), kl_vec3(0.25f, 0.25f, 0.25f),
			 quat_axis_angle(kl_vec3(1, 2, 0), 0.02f));
	static kl_tri_contact contacts[MAX_CONTACTS], shuffled[MAX_CONTACTS];
	static kl_manifold_point scratch[3 * MAX_CONTACTS + 2];
	int n = soup_contacts(&a, &b, contacts, MAX_CONTACTS);
	assert_true(n > 10);
	kl_patch_config config = kl_patch_config_default();
	memcpy(shuffled, contacts, sizeof(kl_tri_contact) * (size_t)n);
	patch_result first;
	first.count = kl_contact_patches(contacts, n, &config, scratch, first.m, 4);
	assert_true(first.count >= 1);
	uint32_t rng = 12345u;
	for (int round = 0; round < 20; ++round)
	{
		for (int i = n - 1; i > 0; --i)
		{
			rng = rng * 1664525u + 1013904223u;
			int j = (int)((rng >> 8) % (uint32_t)(i + 1));
			kl_tri_contact t = shuffled[i];
			shuffled[i] = shuffled[j];
			shuffled[j] = t;
		}
		kl_tri_contact work[MAX_CONTACTS];
		memcpy(work, shuffled, sizeof(kl_tri_contact) * (size_t)n);
		patch_result again;
		again.count = kl_contact_patches(work, n, &config, scratch, again.m, 4);
		assert_true(manifolds_equal(&first, &again));
	}
}

static int sorted_ids(const patch_result* r, uint32_t* ids)
{
	int n = 0;
	for (int p = 0; p < r->count; ++p)
	{
		for (int i = 0; i < r->m[p].point_count; ++i)
		{
			ids[n++] = r->m[p].points[i].id;
		}
	}
	for (int i = 1; i < n; ++i)
	{
		for (int j = i; j > 0 && ids[j - 1] > ids[j]; --j)
		{
			uint32_t t = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	}
	return n;
}

static void test_perturbation_keeps_ids(void** state)
{
	(void)state;
	// Box resting on box: tiny moves (tenths of a micrometre, micro-radians) must keep the ids of
	// the chosen points, or warm starting would lose the impulses every step.
	soup a, b;
	box_on_box(&a, &b, kl_vec3(0.1f, -0.2f, 0), 0.005f, quat_identity());
	patch_result base = soup_patches(&a, &b);
	uint32_t base_ids[16], ids[16];
	int n0 = sorted_ids(&base, base_ids);
	assert_int_equal(n0, 4);
	int mismatches = 0;
	for (int trial = 0; trial < 40; ++trial)
	{
		float e = 2e-7f * (float)(trial + 1);
		vec3s offset = kl_vec3(0.1f + e * (float)((trial % 3) - 1), -0.2f + e * (float)((trial % 5) - 2) * 0.5f,
							   e * (float)((trial % 2) * 2 - 1));
		versors q = quat_axis_angle(kl_vec3((float)(trial % 3) + 0.5f, 1.0f, 0.3f), 1e-6f * (float)(trial % 7));
		box_on_box(&a, &b, offset, 0.005f, q);
		patch_result r = soup_patches(&a, &b);
		int n = sorted_ids(&r, ids);
		mismatches += n != n0 || memcmp(ids, base_ids, sizeof(uint32_t) * (size_t)n0) != 0;
	}
	assert_int_equal(mismatches, 0);
}

/// Appends `count` contacts of one patch (normal n, separation sep) spread 1 cm apart across it.
static int push_patch(kl_tri_contact* c, int at, vec3s n, float sep, int count, uint32_t first_tri)
{
	vec3s t = fabsf(n.x) < 0.9f ? kl_vec3(1, 0, 0) : kl_vec3(0, 1, 0);
	t = glms_vec3_normalize(glms_vec3_sub(t, glms_vec3_scale(n, glms_vec3_dot(t, n))));
	for (int k = 0; k < count; ++k)
	{
		memset(c + at + k, 0, sizeof(*c));
		c[at + k].point = glms_vec3_add(glms_vec3_scale(n, 0.1f), glms_vec3_scale(t, 0.01f * (float)k));
		c[at + k].normal = n;
		c[at + k].separation = sep;
		c[at + k].tri_a = first_tri + (uint32_t)k;
		c[at + k].kind = KL_TRI_CONTACT_VERTEX;
	}
	return at + count;
}

/// Whether one of the manifolds has normal n.
static bool has_normal(const kl_manifold* m, int count, vec3s n)
{
	for (int i = 0; i < count; ++i)
	{
		if (glms_vec3_dot(m[i].normal, n) > 0.999f)
		{
			return true;
		}
	}
	return false;
}

static void test_closing_patch_before_far_ones(void** state)
{
	(void)state;
	// Five patches of three contacts 40 mm off and one of a single contact, with room for four
	// manifolds: size ranks the far ones first, but the single contact may touch this step. A part
	// landing at 16 rad/s had its manifolds taken by faces 27-54 mm off while the corner its turn
	// brought down went 13 mm deep.
	const vec3s far_normals[5] = {{{1, 0, 0}}, {{-1, 0, 0}}, {{0, 1, 0}}, {{0, -1, 0}}, {{0, 0, 1}}};
	kl_tri_contact c[16];
	kl_manifold m[4];
	kl_manifold_point scratch[3 * 16 + 2];
	kl_patch_config config = kl_patch_config_default();
	int n = 0;
	for (int i = 0; i < 5; ++i)
	{
		n = push_patch(c, n, far_normals[i], 0.04f, 3, 10u * (uint32_t)i);
	}
	int touching = push_patch(c, n, kl_vec3(0, 0, -1), 0.001f, 1, 100u);
	int written = kl_contact_patches(c, touching, &config, scratch, m, 4);
	assert_int_equal(written, 4);
	assert_true(has_normal(m, written, kl_vec3(0, 0, -1)));
	// 20 mm off: not touching now, and without motion not this step either; closing at 1.5 m/s,
	// it will be 5 mm deep by the step's end, while the +z patch moves away.
	int closing = push_patch(c, n, kl_vec3(0, 0, -1), 0.02f, 1, 100u);
	written = kl_contact_patches(c, closing, &config, scratch, m, 4);
	assert_false(has_normal(m, written, kl_vec3(0, 0, -1)));
	config.relative_offset = kl_vec3(0.0f, 0.0f, 1.5f);
	config.dt = 1.0f / 60.0f;
	written = kl_contact_patches(c, closing, &config, scratch, m, 4);
	assert_int_equal(written, 4);
	assert_true(has_normal(m, written, kl_vec3(0, 0, -1)));
}

static void test_patch_bad_input(void** state)
{
	(void)state;
	kl_patch_config config = kl_patch_config_default();
	kl_manifold m[4];
	kl_manifold_point scratch[3 * 4 + 2];
	kl_tri_contact c[2];
	memset(c, 0, sizeof(c));
	c[0].normal = kl_vec3(0, 0, 1);
	c[1].normal = kl_vec3(0, 0, 1);
	c[1].point = kl_vec3(NAN, 0, 0);
	assert_int_equal(kl_contact_patches(NULL, 3, &config, scratch, m, 4), 0);
	assert_int_equal(kl_contact_patches(c, -1, &config, scratch, m, 4), 0);
	assert_int_equal(kl_contact_patches(c, 0, &config, scratch, m, 4), 0);
	// The non-finite contact is dropped, the other gives one patch of one point.
	assert_int_equal(kl_contact_patches(c, 2, &config, scratch, m, 4), 1);
	assert_int_equal(m[0].point_count, 1);
	kl_patch_config bad = config;
	bad.max_patches = 0;
	assert_int_equal(kl_contact_patches(c, 1, &bad, scratch, m, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_cases),
		cmocka_unit_test(test_two_tetrahedra),
		cmocka_unit_test(test_triangle_on_fan),
		cmocka_unit_test(test_box_on_box_one_patch),
		cmocka_unit_test(test_tilted_box_one_patch),
		cmocka_unit_test(test_outline_rest_second_manifold),
		cmocka_unit_test(test_far_points_by_predicted_separation),
		cmocka_unit_test(test_touching_neighbour_inside_outline),
		cmocka_unit_test(test_closing_patch_before_far_ones),
		cmocka_unit_test(test_l_shape_two_patches),
		cmocka_unit_test(test_permutation_determinism),
		cmocka_unit_test(test_perturbation_keeps_ids),
		cmocka_unit_test(test_patch_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
