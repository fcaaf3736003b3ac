// Mass properties against closed forms: primitives, meshes (box, tetrahedron, sphere), hull
// prisms, composition with the parallel-axis theorem and principal axes.
// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <kollide/kollide.h>

#include "hull.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

// |a - b| <= rel * max(|b|, floor): relative comparison that tolerates expected zeros.
static void assert_close(double a, double b, double rel, double floor_value)
{
	double scale = fmax(fabs(b), floor_value);
	if (!(fabs(a - b) <= rel * scale))
	{
		fail_msg("%.9g differs from %.9g by more than %g relative", a, b, rel);
	}
}

// Inertia element (row i, column j) of a cglm column-major matrix.
static double at(mat3s m, int i, int j)
{
	return m.raw[j][i];
}

static void assert_inertia(mat3s m, const double expected[3][3], double rel)
{
	double scale = fmax(fabs(expected[0][0]), fmax(fabs(expected[1][1]), fabs(expected[2][2])));
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			if (!(fabs(at(m, i, j) - expected[i][j]) <= rel * scale))
			{
				fail_msg("inertia[%d][%d] = %.9g, expected %.9g", i, j, at(m, i, j), expected[i][j]);
			}
		}
	}
}

static void assert_diag(mat3s m, double xx, double yy, double zz, double rel)
{
	const double e[3][3] = {{xx, 0, 0}, {0, yy, 0}, {0, 0, zz}};
	assert_inertia(m, e, rel);
}

static void assert_vec(vec3s v, double x, double y, double z, double tol)
{
	if (!(fabs(v.x - x) <= tol && fabs(v.y - y) <= tol && fabs(v.z - z) <= tol))
	{
		fail_msg("(%g, %g, %g) is not (%g, %g, %g) within %g", v.x, v.y, v.z, x, y, z, tol);
	}
}

// ---------------------------------------------------------------------------------------------
// Primitives

static void test_sphere(void** state)
{
	(void)state;
	double r = 0.75, rho = 2.5;
	kl_mass_data md = kl_compute_sphere_mass((float)r, (float)rho);
	double m = rho * 4.0 / 3.0 * PI * r * r * r;
	assert_close(md.mass, m, 1e-6, 0.0);
	assert_vec(md.center, 0, 0, 0, 0);
	assert_diag(md.inertia, 0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r, 1e-6);
}

static void test_box(void** state)
{
	(void)state;
	double hx = 0.5, hy = 1.0, hz = 2.0, rho = 3.0;
	kl_mass_data md = kl_compute_box_mass(kl_vec3((float)hx, (float)hy, (float)hz), (float)rho);
	double a = 2 * hx, b = 2 * hy, c = 2 * hz, m = rho * a * b * c;
	assert_close(md.mass, m, 1e-6, 0.0);
	assert_diag(md.inertia, m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12, 1e-6);
}

static void test_capsule(void** state)
{
	(void)state;
	double r = 0.3, h = 0.8, rho = 1.7;
	kl_mass_data md = kl_compute_capsule_mass((float)r, (float)h, (float)rho);
	// Independently: solid cylinder plus two hemispheres, each with its centre-of-mass inertia
	// 83/320 m r^2 about a transverse axis moved by h + 3r/8.
	double mc = rho * PI * r * r * 2 * h;
	double mh = rho * 2.0 / 3.0 * PI * r * r * r;
	double izz = 0.5 * mc * r * r + 2 * (0.4 * mh * r * r);
	double ixx = mc * (3 * r * r + 4 * h * h) / 12 + 2 * (83.0 / 320.0 * mh * r * r + mh * pow(h + 3 * r / 8, 2));
	assert_close(md.mass, mc + 2 * mh, 1e-6, 0.0);
	assert_vec(md.center, 0, 0, 0, 0);
	assert_diag(md.inertia, ixx, ixx, izz, 1e-6);

	// Zero half height: a sphere.
	kl_mass_data s = kl_compute_capsule_mass(0.5f, 0.0f, 2.0f);
	kl_mass_data t = kl_compute_sphere_mass(0.5f, 2.0f);
	assert_close(s.mass, t.mass, 1e-6, 0.0);
	assert_close(at(s.inertia, 0, 0), at(t.inertia, 0, 0), 1e-6, 0.0);
}

static void assert_zero_with_error(kl_mass_data md)
{
	assert_true(md.mass == 0.0f);
	assert_vec(md.center, 0, 0, 0, 0);
	for (int i = 0; i < 9; ++i)
	{
		assert_true(((const float*)md.inertia.raw)[i] == 0.0f);
	}
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	assert_true(kl_last_error()[0] != '\0');
}

static void test_primitive_invalid(void** state)
{
	(void)state;
	kl_clear_error();
	assert_zero_with_error(kl_compute_sphere_mass(0.0f, 1.0f));
	kl_clear_error();
	assert_zero_with_error(kl_compute_sphere_mass(NAN, 1.0f));
	kl_clear_error();
	assert_zero_with_error(kl_compute_sphere_mass(1.0f, -1.0f));
	kl_clear_error();
	assert_zero_with_error(kl_compute_box_mass(kl_vec3(1.0f, -1.0f, 1.0f), 1.0f));
	kl_clear_error();
	assert_zero_with_error(kl_compute_box_mass(kl_vec3(1.0f, 1.0f, INFINITY), 1.0f));
	kl_clear_error();
	assert_zero_with_error(kl_compute_capsule_mass(0.5f, -0.1f, 1.0f));
	kl_clear_error();
	assert_zero_with_error(kl_compute_capsule_mass(0.5f, 1.0f, NAN));

	// Zero density is valid (static and sensor shapes): zero mass, no error.
	kl_clear_error();
	kl_mass_data md = kl_compute_box_mass(kl_vec3(1, 1, 1), 0.0f);
	assert_true(md.mass == 0.0f);
	assert_int_equal(kl_last_error_code(), KL_OK);
}

// ---------------------------------------------------------------------------------------------
// Meshes

static const int32_t box_indices[36] = {
	0, 2, 1, 0, 3, 2, // -z
	4, 5, 6, 4, 6, 7, // +z
	0, 1, 5, 0, 5, 4, // -y
	2, 3, 7, 2, 7, 6, // +y
	0, 4, 7, 0, 7, 3, // -x
	1, 2, 6, 1, 6, 5, // +x
};

static void box_vertices(vec3s* v, vec3s c, vec3s h)
{
	for (int i = 0; i < 8; ++i)
	{
		float sx = (i == 1 || i == 2 || i == 5 || i == 6) ? 1.0f : -1.0f;
		float sy = (i == 2 || i == 3 || i == 6 || i == 7) ? 1.0f : -1.0f;
		float sz = i >= 4 ? 1.0f : -1.0f;
		v[i] = kl_vec3(c.x + sx * h.x, c.y + sy * h.y, c.z + sz * h.z);
	}
}

static void check_mesh_box(vec3s centre, double tol)
{
	vec3s h = kl_vec3(0.5f, 1.0f, 1.5f), v[8];
	box_vertices(v, centre, h);
	kl_mass_data md;
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, 12, 2.0f, &md), KL_OK);
	kl_mass_data ref = kl_compute_box_mass(h, 2.0f);
	assert_close(md.mass, ref.mass, tol, 0.0);
	assert_vec(md.center, centre.x, centre.y, centre.z, tol * 4000.0);
	double e[3][3];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			e[i][j] = at(ref.inertia, i, j);
		}
	}
	assert_inertia(md.inertia, e, tol);
}

static void test_mesh_box(void** state)
{
	(void)state;
	check_mesh_box(kl_vec3(0, 0, 0), 1e-6);
	// Far from the origin: integration about the bounding-box centre keeps full precision.
	check_mesh_box(kl_vec3(1000.0f, 2000.0f, 3000.0f), 1e-6);
}

// Closed form (Tonon): integral of x x^T over a tetrahedron is V/20 (sum v v^T + s s^T), s = sum v.
static void test_tetrahedron(void** state)
{
	(void)state;
	vec3s v[4] = {kl_vec3(0.1f, -0.2f, 0.3f), kl_vec3(1.3f, 0.1f, -0.2f), kl_vec3(0.2f, 1.1f, 0.4f),
				  kl_vec3(0.4f, 0.3f, 1.6f)};
	double p[4][3];
	for (int i = 0; i < 4; ++i)
	{
		p[i][0] = v[i].x, p[i][1] = v[i].y, p[i][2] = v[i].z;
	}
	double a[3], b[3], c[3];
	for (int k = 0; k < 3; ++k)
	{
		a[k] = p[1][k] - p[0][k], b[k] = p[2][k] - p[0][k], c[k] = p[3][k] - p[0][k];
	}
	double vol = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
				  a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
	// Orient faces outward: v3 is on the positive side of (v0, v1, v2) when vol > 0.
	int32_t idx[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
	if (vol < 0)
	{
		vol = -vol;
		for (int t = 0; t < 4; ++t)
		{
			int32_t s = idx[3 * t + 1];
			idx[3 * t + 1] = idx[3 * t + 2];
			idx[3 * t + 2] = s;
		}
	}
	double s[3] = {0, 0, 0}, cov[3][3] = {{0}};
	for (int i = 0; i < 4; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			s[k] += p[i][k];
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			for (int n = 0; n < 4; ++n)
			{
				cov[i][j] += p[n][i] * p[n][j];
			}
			cov[i][j] = vol / 20.0 * (cov[i][j] + s[i] * s[j]);
		}
	}
	// About the centroid: C_c = C - V g g^T, then I = tr(C_c) E - C_c.
	double g[3] = {s[0] / 4, s[1] / 4, s[2] / 4}, expected[3][3];
	double trace = 0;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			cov[i][j] -= vol * g[i] * g[j];
		}
		trace += cov[i][i];
	}
	double rho = 1.5;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			expected[i][j] = rho * ((i == j ? trace : 0.0) - cov[i][j]);
		}
	}
	kl_mass_data md;
	assert_int_equal(kl_compute_polyhedron_mass(v, idx, 4, (float)rho, &md), KL_OK);
	assert_close(md.mass, rho * vol, 1e-6, 0.0);
	assert_vec(md.center, g[0], g[1], g[2], 1e-6);
	assert_inertia(md.inertia, expected, 1e-5);
}

// UV sphere: stacks x slices quads, fans at the poles.
static int uv_sphere(double r, int stacks, int slices, vec3s** vertices, int32_t** indices)
{
	int vertex_count = 2 + (stacks - 1) * slices;
	int tri_count = 2 * slices * (stacks - 1);
	vec3s* v = malloc((size_t)vertex_count * sizeof(vec3s));
	int32_t* idx = malloc((size_t)tri_count * 3 * sizeof(int32_t));
	v[0] = kl_vec3(0, 0, (float)r);
	v[1] = kl_vec3(0, 0, (float)-r);
	for (int i = 1; i < stacks; ++i)
	{
		double theta = PI * i / stacks;
		for (int j = 0; j < slices; ++j)
		{
			double phi = 2 * PI * j / slices;
			v[2 + (i - 1) * slices + j] = kl_vec3((float)(r * sin(theta) * cos(phi)), (float)(r * sin(theta) * sin(phi)),
												  (float)(r * cos(theta)));
		}
	}
	int n = 0;
#define RING(i, j) (2 + ((i) - 1) * slices + ((j) % slices))
	for (int j = 0; j < slices; ++j)
	{
		idx[n++] = 0, idx[n++] = RING(1, j), idx[n++] = RING(1, j + 1);
		idx[n++] = 1, idx[n++] = RING(stacks - 1, j + 1), idx[n++] = RING(stacks - 1, j);
		for (int i = 1; i < stacks - 1; ++i)
		{
			idx[n++] = RING(i, j), idx[n++] = RING(i + 1, j), idx[n++] = RING(i + 1, j + 1);
			idx[n++] = RING(i, j), idx[n++] = RING(i + 1, j + 1), idx[n++] = RING(i, j + 1);
		}
	}
#undef RING
	assert_int_equal(n, 3 * tri_count);
	*vertices = v;
	*indices = idx;
	return tri_count;
}

static void test_fine_sphere_mesh(void** state)
{
	(void)state;
	vec3s* v;
	int32_t* idx;
	double r = 1.25, rho = 0.8;
	int tris = uv_sphere(r, 96, 192, &v, &idx);
	assert_true(tris >= 20000);
	kl_mass_data md;
	assert_int_equal(kl_compute_polyhedron_mass(v, idx, tris, (float)rho, &md), KL_OK);
	double m = rho * 4.0 / 3.0 * PI * r * r * r;
	// The inscribed mesh is slightly smaller; at this tessellation by well under 0.5 %.
	assert_close(md.mass, m, 5e-3, 0.0);
	assert_true(md.mass < m);
	assert_vec(md.center, 0, 0, 0, 1e-5);
	double i = 0.4 * m * r * r;
	assert_diag(md.inertia, i, i, i, 5e-3);
	free(v);
	free(idx);
}

static void test_polyhedron_invalid(void** state)
{
	(void)state;
	vec3s v[8];
	box_vertices(v, kl_vec3(0, 0, 0), kl_vec3(1, 1, 1));
	kl_mass_data md;
	assert_int_equal(kl_compute_polyhedron_mass(NULL, box_indices, 12, 1.0f, &md), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_compute_polyhedron_mass(v, NULL, 12, 1.0f, &md), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, 12, 1.0f, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, -1, 1.0f, &md), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, 12, 0.0f, &md), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, 12, NAN, &md), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, 0, 1.0f, &md), KL_ERR_DEGENERATE);
	int32_t bad[36];
	memcpy(bad, box_indices, sizeof(bad));
	bad[7] = -3;
	assert_int_equal(kl_compute_polyhedron_mass(v, bad, 12, 1.0f, &md), KL_ERR_INVALID_ARGUMENT);
	// Inside out.
	for (int t = 0; t < 12; ++t)
	{
		bad[3 * t] = box_indices[3 * t];
		bad[3 * t + 1] = box_indices[3 * t + 2];
		bad[3 * t + 2] = box_indices[3 * t + 1];
	}
	kl_clear_error();
	assert_int_equal(kl_compute_polyhedron_mass(v, bad, 12, 1.0f, &md), KL_ERR_DEGENERATE);
	assert_true(kl_last_error()[0] != '\0');
	// A flat, double-sided sheet.
	int32_t sheet[12] = {0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2};
	assert_int_equal(kl_compute_polyhedron_mass(v, sheet, 4, 1.0f, &md), KL_ERR_DEGENERATE);
	v[3].y = NAN;
	assert_int_equal(kl_compute_polyhedron_mass(v, box_indices, 12, 1.0f, &md), KL_ERR_INVALID_ARGUMENT);
}

// ---------------------------------------------------------------------------------------------
// Hull prisms

// Regular N-gon prism with circumradius r and half height h: area A = N/2 r^2 sin(2 pi / N), polar
// moment J = N r^4 / 12 sin(2 pi / N) (2 + cos(2 pi / N)).
static void check_prism(int n, double r, double h, double rho, double cylinder_tol)
{
	vec3s* points = malloc((size_t)(2 * n) * sizeof(vec3s));
	for (int i = 0; i < n; ++i)
	{
		double a = 2 * PI * i / n;
		float x = (float)(r * cos(a)), y = (float)(r * sin(a));
		points[2 * i] = kl_vec3(x, y, (float)-h);
		points[2 * i + 1] = kl_vec3(x, y, (float)h);
	}
	kl_hull* hull = kl_hull_build(points, 2 * n);
	assert_non_null(hull);
	assert_int_equal(kl_hull_vertex_count(hull), 2 * n);
	assert_int_equal(kl_hull_face_count(hull), n + 2);
	kl_mass_data md = kl_hull_mass(hull, (float)rho);
	double t = 2 * PI / n;
	double area = 0.5 * n * r * r * sin(t), polar = n * pow(r, 4) / 12 * sin(t) * (2 + cos(t));
	double m = rho * area * 2 * h;
	double izz = rho * 2 * h * polar, ixx = m * (polar / (2 * area) + h * h / 3);
	assert_close(md.mass, m, 1e-5, 0.0);
	assert_vec(md.center, 0, 0, 0, 1e-5);
	assert_diag(md.inertia, ixx, ixx, izz, 1e-5);
	if (cylinder_tol > 0)
	{
		double mc = rho * PI * r * r * 2 * h;
		assert_close(md.mass, mc, cylinder_tol, 0.0);
		assert_diag(md.inertia, mc * (3 * r * r + 4 * h * h) / 12, mc * (3 * r * r + 4 * h * h) / 12, 0.5 * mc * r * r,
					cylinder_tol);
	}
	kl_hull_destroy(hull);
	free(points);
}

static void test_hull_prisms(void** state)
{
	(void)state;
	check_prism(3, 1.0, 0.5, 2.0, 0);
	check_prism(6, 0.4, 1.5, 1.0, 0);
	check_prism(17, 2.0, 0.25, 3.0, 0);
	check_prism(256, 0.5, 1.0, 1.0, 5e-3);
}

static void test_hull_mass_density_zero(void** state)
{
	(void)state;
	vec3s v[8];
	box_vertices(v, kl_vec3(1, 2, 3), kl_vec3(1, 1, 1));
	kl_hull* hull = kl_hull_build(v, 8);
	assert_non_null(hull);
	kl_mass_data md = kl_hull_mass(hull, 0.0f);
	assert_true(md.mass == 0.0f);
	assert_vec(md.center, 1, 2, 3, 1e-6);
	kl_hull_destroy(hull);
}

// ---------------------------------------------------------------------------------------------
// Composition and frames

static void test_parallel_axis(void** state)
{
	(void)state;
	kl_mass_data half = kl_compute_box_mass(kl_vec3(1.0f, 0.5f, 0.25f), 2.0f);
	kl_transform left = {kl_vec3(-1, 0, 0), kl_quat_wxyz(1, 0, 0, 0)};
	kl_transform right = {kl_vec3(1, 0, 0), kl_quat_wxyz(1, 0, 0, 0)};
	kl_mass_data sum = kl_mass_data_add(kl_mass_data_transform(half, left), kl_mass_data_transform(half, right));
	kl_mass_data whole = kl_compute_box_mass(kl_vec3(2.0f, 0.5f, 0.25f), 2.0f);
	assert_close(sum.mass, whole.mass, 1e-6, 0.0);
	assert_vec(sum.center, 0, 0, 0, 1e-6);
	assert_diag(sum.inertia, at(whole.inertia, 0, 0), at(whole.inertia, 1, 1), at(whole.inertia, 2, 2), 1e-6);

	// Off-centre composition: a unit cube at the origin plus one at (1, 1, 0).
	kl_mass_data cube = kl_compute_box_mass(kl_vec3(0.5f, 0.5f, 0.5f), 1.0f);
	kl_transform shifted = {kl_vec3(1, 1, 0), kl_quat_wxyz(1, 0, 0, 0)};
	kl_mass_data two = kl_mass_data_add(cube, kl_mass_data_transform(cube, shifted));
	assert_vec(two.center, 0.5, 0.5, 0, 1e-6);
	// Each cube's offset is d = (+-0.5, +-0.5, 0): I += m (|d|^2 E - d d^T) per cube, on top of
	// the two cubes' own 1/6 each.
	double i0 = 2.0 / 6.0;
	const double e[3][3] = {{i0 + 0.5, -0.5, 0}, {-0.5, i0 + 0.5, 0}, {0, 0, i0 + 1.0}};
	assert_inertia(two.inertia, e, 1e-6);
}

static versors test_rotation(void)
{
	versors q = glms_quatv(0.7f, glms_vec3_normalize(kl_vec3(1.0f, -2.0f, 0.5f)));
	return q;
}

static void test_transform_round_trip(void** state)
{
	(void)state;
	kl_mass_data md = kl_compute_box_mass(kl_vec3(0.3f, 0.7f, 1.1f), 1.3f);
	md.center = kl_vec3(0.1f, -0.2f, 0.3f);
	kl_transform t = {kl_vec3(3, -1, 2), test_rotation()};
	kl_transform inv;
	inv.q = glms_quat_conjugate(t.q);
	inv.p = glms_vec3_negate(kl_rotate(inv.q, t.p));
	kl_mass_data moved = kl_mass_data_transform(md, t);
	assert_vec(moved.center, kl_transform_point(t, md.center).x, kl_transform_point(t, md.center).y,
			   kl_transform_point(t, md.center).z, 1e-5);
	assert_true(fabs(at(moved.inertia, 0, 1)) > 1e-3); // it did rotate
	kl_mass_data back = kl_mass_data_transform(moved, inv);
	assert_close(back.mass, md.mass, 1e-7, 0.0);
	assert_vec(back.center, md.center.x, md.center.y, md.center.z, 1e-5);
	double e[3][3];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			e[i][j] = at(md.inertia, i, j);
		}
	}
	assert_inertia(back.inertia, e, 1e-5);
}

static void test_principal_axes(void** state)
{
	(void)state;
	// Box with three distinct moments, rotated.
	kl_mass_data md = kl_compute_box_mass(kl_vec3(0.2f, 0.9f, 0.5f), 1.0f);
	versors q = test_rotation();
	kl_transform t = {kl_vec3(0, 0, 0), q};
	kl_mass_data rotated = kl_mass_data_transform(md, t);
	kl_principal_inertia p = kl_compute_principal_inertia(rotated.inertia);

	double moments[3] = {at(md.inertia, 0, 0), at(md.inertia, 1, 1), at(md.inertia, 2, 2)};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = i + 1; j < 3; ++j)
		{
			if (moments[j] < moments[i])
			{
				double s = moments[i];
				moments[i] = moments[j];
				moments[j] = s;
			}
		}
	}
	assert_close(p.moments.x, moments[0], 1e-5, 0.0);
	assert_close(p.moments.y, moments[1], 1e-5, 0.0);
	assert_close(p.moments.z, moments[2], 1e-5, 0.0);
	assert_close(glms_quat_norm(p.rotation), 1.0, 1e-6, 0.0);

	// R diag R^T reproduces the tensor, and R is a proper rotation.
	mat3s r = glms_quat_mat3(p.rotation);
	mat3s d = glms_mat3_zero();
	d.raw[0][0] = p.moments.x, d.raw[1][1] = p.moments.y, d.raw[2][2] = p.moments.z;
	mat3s back = glms_mat3_mul(glms_mat3_mul(r, d), glms_mat3_transpose(r));
	double e[3][3];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			e[i][j] = at(rotated.inertia, i, j);
		}
	}
	assert_inertia(back, e, 1e-5);
	assert_close(glms_mat3_det(r), 1.0, 1e-5, 0.0);

	// The axes are the box's rotated axes (up to sign). The x axis has the largest moment:
	// the box is longest in y and z (half extents 0.9 and 0.5).
	vec3s box_x = kl_rotate(q, kl_vec3(1, 0, 0));
	vec3s axis_max = r.col[2];
	assert_close(fabs(glms_vec3_dot(box_x, axis_max)), 1.0, 1e-5, 0.0);

	// Two equal moments (a capsule): the axes in the round plane are arbitrary, but the tensor must
	// still be reproduced and the distinct axis found.
	kl_mass_data capsule = kl_mass_data_transform(kl_compute_capsule_mass(0.3f, 1.0f, 1.0f), t);
	kl_principal_inertia pc = kl_compute_principal_inertia(capsule.inertia);
	mat3s rc = glms_quat_mat3(pc.rotation);
	mat3s dc = glms_mat3_zero();
	dc.raw[0][0] = pc.moments.x, dc.raw[1][1] = pc.moments.y, dc.raw[2][2] = pc.moments.z;
	mat3s back_c = glms_mat3_mul(glms_mat3_mul(rc, dc), glms_mat3_transpose(rc));
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			e[i][j] = at(capsule.inertia, i, j);
		}
	}
	assert_inertia(back_c, e, 1e-5);
	assert_close(glms_mat3_det(rc), 1.0, 1e-5, 0.0);
	assert_true(pc.moments.x <= pc.moments.y && pc.moments.y <= pc.moments.z);
	// A long capsule: the axial moment is the smallest, along the rotated z axis.
	assert_close(fabs(glms_vec3_dot(rc.col[0], kl_rotate(q, kl_vec3(0, 0, 1)))), 1.0, 1e-5, 0.0);

	// Already diagonal and isotropic tensors.
	kl_principal_inertia iso = kl_compute_principal_inertia(glms_mat3_identity());
	assert_vec(iso.moments, 1, 1, 1, 1e-7);
	assert_close(glms_quat_norm(iso.rotation), 1.0, 1e-6, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sphere),
		cmocka_unit_test(test_box),
		cmocka_unit_test(test_capsule),
		cmocka_unit_test(test_primitive_invalid),
		cmocka_unit_test(test_mesh_box),
		cmocka_unit_test(test_tetrahedron),
		cmocka_unit_test(test_fine_sphere_mesh),
		cmocka_unit_test(test_polyhedron_invalid),
		cmocka_unit_test(test_hull_prisms),
		cmocka_unit_test(test_hull_mass_density_zero),
		cmocka_unit_test(test_parallel_axis),
		cmocka_unit_test(test_transform_round_trip),
		cmocka_unit_test(test_principal_axes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
