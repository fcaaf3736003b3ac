// Kollide — meshgen bowl (a surface of revolution) and torus knot (a tube around a closed curve).
// SPDX-License-Identifier: MIT
#include "meshgen_internal.h"

#include <stdlib.h>

// ---------------------------------------------------------------------------------------------
// Surface of revolution

/// Revolves a profile (r, z) about z. The first and last points lie on the axis (r = 0), the others
/// off it; walking the profile with the solid on the left (r to the right, z up) faces it outward.
static void revolve(mg_builder* b, const double* r, const double* z, int count, int segments)
{
	int first = mg_vertex(b, 0.0, 0.0, z[0]);
	int rings = count - 2;
	for (int j = 1; j <= rings; ++j)
	{
		for (int i = 0; i < segments; ++i)
		{
			double theta = 2.0 * MG_PI * i / segments;
			mg_vertex(b, r[j] * cos(theta), r[j] * sin(theta), z[j]);
		}
	}
	mg_vertex(b, 0.0, 0.0, z[count - 1]);
	mg_lathe_faces(b, first, rings, segments);
}

// ---------------------------------------------------------------------------------------------
// Bowl

kl_meshgen_bowl_params kl_meshgen_default_bowl_params(void)
{
	kl_meshgen_bowl_params p;
	p.radius = 0.1f;
	p.thickness = 0.01f;
	p.rim_width = 0.01f;
	p.rim_height = 0.005f;
	p.foot_radius = 0.025f;
	p.segments = 32;
	p.rings = 8;
	return p;
}

float kl_meshgen_bowl_stack_spacing(const kl_meshgen_bowl_params* params)
{
	// A copy lifted by s meets the cavity's rim circle where sqrt(R² - s²) = R_inner; lifting it a
	// wall thickness more leaves a gap of about s × thickness / R_inner there, several times the sag
	// of the faceted surfaces.
	double outer = params->radius, inner = outer - params->thickness;
	return (float)(sqrt(outer * outer - inner * inner) + params->thickness);
}

static kl_result check_bowl(const kl_meshgen_bowl_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "bowl: params must not be NULL");
	}
	if (!mg_check_float("bowl: radius", p->radius, 1e-6, 1e4) ||
		!mg_check_float("bowl: thickness", p->thickness, 1e-3 * p->radius, 0.5 * p->radius) ||
		!mg_check_float("bowl: rim_width", p->rim_width, 1e-3 * p->radius, 2.0 * p->radius) ||
		!mg_check_float("bowl: rim_height", p->rim_height, 1e-3 * p->radius, 0.5 * p->radius) ||
		!mg_check_int("bowl: segments", p->segments, 8, 4096) || !mg_check_int("bowl: rings", p->rings, 2, 1024))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	// The flat foot must leave a quarter of the wall thickness under the cavity.
	double inner = (double)p->radius - p->thickness;
	double max_foot = sqrt(fmax(0.0, (double)p->radius * p->radius - pow(inner + 0.25 * p->thickness, 2.0)));
	return mg_check_float("bowl: foot_radius", p->foot_radius, 0.0, max_foot) ? KL_OK : KL_ERR_INVALID_ARGUMENT;
}

kl_result kl_meshgen_bowl(const kl_meshgen_bowl_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "bowl: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result result = check_bowl(params);
	if (result != KL_OK)
	{
		return result;
	}
	double big = params->radius, inner = big - params->thickness, foot = params->foot_radius;
	double rim_top = 0.0, rim_bottom = -(double)params->rim_height;
	double start = asin(foot / big), end = acos(params->rim_height / big);
	int outer_steps = (int)ceil(params->rings * (end - start) / (0.5 * MG_PI));
	outer_steps = outer_steps < 2 ? 2 : outer_steps;
	int capacity = outer_steps + params->rings + 8;
	double* r = malloc(2 * (size_t)capacity * sizeof(double));
	if (r == NULL)
	{
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	double* z = r + capacity;
	int n = 0;
	r[n] = 0.0; // outer pole, or the centre of the foot
	z[n++] = -big * cos(start);
	for (int k = foot > 0.0f ? 0 : 1; k <= outer_steps; ++k) // outer sphere up to the lip
	{
		double phi = start + (end - start) * k / outer_steps;
		r[n] = big * sin(phi);
		z[n++] = -big * cos(phi);
	}
	z[n - 1] = rim_bottom; // exactly, so the lip underside is flat
	r[n] = big + params->rim_width;
	z[n++] = rim_bottom;
	r[n] = big + params->rim_width;
	z[n++] = rim_top;
	for (int k = 0; k <= params->rings; ++k) // inner sphere from the rim down to its pole
	{
		double phi = 0.5 * MG_PI * (1.0 - (double)k / params->rings);
		r[n] = k == params->rings ? 0.0 : inner * sin(phi);
		z[n++] = k == 0 ? rim_top : -inner * cos(phi);
	}
	mg_builder b;
	mg_builder_init(&b, (n - 2) * params->segments + 2, 2 * (n - 2) * params->segments);
	revolve(&b, r, z, n, params->segments);
	free(r);
	return mg_finish(&b, out);
}

// ---------------------------------------------------------------------------------------------
// Torus knot

kl_meshgen_torus_knot_params kl_meshgen_default_torus_knot_params(void)
{
	kl_meshgen_torus_knot_params p;
	p.p = 2;
	p.q = 3;
	p.major_radius = 0.1f;
	p.minor_radius = 0.04f;
	p.tube_radius = 0.015f;
	p.segments = 192;
	p.sides = 12;
	return p;
}

typedef struct knot_frame
{
	double c[3], t[3];
} knot_frame;

// Point and unit tangent of the knot curve at t.
static knot_frame knot_point(const kl_meshgen_torus_knot_params* k, double t)
{
	double big = k->major_radius, small = k->minor_radius;
	double cq = cos(k->q * t), sq = sin(k->q * t), cp = cos(k->p * t), sp = sin(k->p * t);
	double ring = big + small * cq;
	knot_frame f = {{ring * cp, ring * sp, small * sq},
					{-small * k->q * sq * cp - ring * k->p * sp, -small * k->q * sq * sp + ring * k->p * cp,
					 small * k->q * cq}};
	double len = sqrt(f.t[0] * f.t[0] + f.t[1] * f.t[1] + f.t[2] * f.t[2]);
	for (int i = 0; i < 3; ++i)
	{
		f.t[i] /= len;
	}
	return f;
}

static int gcd(int a, int b)
{
	while (b != 0)
	{
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static double distance(const double a[3], const double b[3])
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/// The tube must not reach itself: far-apart curve points (along the curve) stay more than a
/// diameter apart, and the tube radius stays below the radius of curvature.
static kl_result check_knot_clearance(const kl_meshgen_torus_knot_params* k)
{
	enum { samples = 720 };
	knot_frame* f = malloc(samples * sizeof(knot_frame));
	double* arc = malloc((samples + 1) * sizeof(double));
	if (f == NULL || arc == NULL)
	{
		free(f);
		free(arc);
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	double a = k->tube_radius, worst_curvature = 0.0, worst_gap = INFINITY;
	arc[0] = 0.0;
	for (int i = 0; i < samples; ++i)
	{
		f[i] = knot_point(k, 2.0 * MG_PI * i / samples);
	}
	for (int i = 0; i < samples; ++i)
	{
		const knot_frame* next = &f[(i + 1) % samples];
		double step = distance(f[i].c, next->c);
		arc[i + 1] = arc[i] + step;
		// Curvature ≈ turn of the tangent per arc length.
		double dot = f[i].t[0] * next->t[0] + f[i].t[1] * next->t[1] + f[i].t[2] * next->t[2];
		worst_curvature = fmax(worst_curvature, acos(fmin(1.0, fmax(-1.0, dot))) / step);
	}
	double total = arc[samples];
	for (int i = 0; i < samples; ++i)
	{
		for (int j = i + 1; j < samples; ++j)
		{
			double along = fmin(arc[j] - arc[i], total - (arc[j] - arc[i]));
			if (along > 4.0 * a)
			{
				worst_gap = fmin(worst_gap, distance(f[i].c, f[j].c));
			}
		}
	}
	free(f);
	free(arc);
	if (a * worst_curvature >= 0.9)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "torus_knot: tube_radius %g exceeds 0.9 / curvature (%g)", (double)a,
					   0.9 / worst_curvature);
	}
	if (worst_gap <= 2.2 * a)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "torus_knot: tube_radius %g makes the tube touch itself (%g apart)",
					   (double)a, worst_gap);
	}
	return KL_OK;
}

static kl_result check_knot(const kl_meshgen_torus_knot_params* k)
{
	if (k == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "torus_knot: params must not be NULL");
	}
	if (!mg_check_int("torus_knot: p", k->p, 1, 64) || !mg_check_int("torus_knot: q", k->q, 1, 64) ||
		!mg_check_float("torus_knot: major_radius", k->major_radius, 1e-6, 1e4) ||
		!mg_check_float("torus_knot: minor_radius", k->minor_radius, 1e-3 * k->major_radius, 0.99 * k->major_radius) ||
		!mg_check_float("torus_knot: tube_radius", k->tube_radius, 1e-4 * k->major_radius, k->major_radius) ||
		!mg_check_int("torus_knot: segments", k->segments, 16, 1 << 16) ||
		!mg_check_int("torus_knot: sides", k->sides, 3, 1024))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	if (gcd(k->p, k->q) != 1)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "torus_knot: p %d and q %d must be coprime (one closed curve)", k->p,
					   k->q);
	}
	if (2.0 * k->segments * k->sides > KL_MESHGEN_MAX_TRIANGLES)
	{
		return mg_fail(KL_ERR_LIMIT, "torus_knot: %d x %d x 2 triangles exceed the limit %d", k->segments, k->sides,
					   KL_MESHGEN_MAX_TRIANGLES);
	}
	return check_knot_clearance(k);
}

kl_result kl_meshgen_torus_knot(const kl_meshgen_torus_knot_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "torus_knot: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result r = check_knot(params);
	if (r != KL_OK)
	{
		return r;
	}
	int n = params->segments, m = params->sides;
	mg_builder b;
	mg_builder_init(&b, n * m, 2 * n * m);
	for (int j = 0; j < n; ++j)
	{
		double t = 2.0 * MG_PI * j / n;
		knot_frame f = knot_point(params, t);
		// Normal: away from the torus core circle, made perpendicular to the tangent. It is periodic
		// in t, so the tube closes without a twist seam.
		double cq = cos(params->q * t);
		double u[3] = {cq * cos(params->p * t), cq * sin(params->p * t), sin(params->q * t)};
		double d = u[0] * f.t[0] + u[1] * f.t[1] + u[2] * f.t[2];
		double len = 0.0;
		for (int i = 0; i < 3; ++i)
		{
			u[i] -= d * f.t[i];
			len += u[i] * u[i];
		}
		len = sqrt(len);
		for (int i = 0; i < 3; ++i)
		{
			u[i] /= len;
		}
		double w[3] = {f.t[1] * u[2] - f.t[2] * u[1], f.t[2] * u[0] - f.t[0] * u[2], f.t[0] * u[1] - f.t[1] * u[0]};
		for (int k = 0; k < m; ++k)
		{
			double phi = 2.0 * MG_PI * k / m;
			double cs = params->tube_radius * cos(phi), sn = params->tube_radius * sin(phi);
			mg_vertex(&b, f.c[0] + cs * u[0] + sn * w[0], f.c[1] + cs * u[1] + sn * w[1], f.c[2] + cs * u[2] + sn * w[2]);
		}
	}
	for (int j = 0; j < n; ++j)
	{
		int lo = j * m, hi = ((j + 1) % n) * m;
		for (int k = 0; k < m; ++k)
		{
			int k1 = (k + 1) % m;
			mg_quad(&b, lo + k, lo + k1, hi + k1, hi + k);
		}
	}
	return mg_finish(&b, out);
}
