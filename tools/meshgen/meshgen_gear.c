// Kollide — meshgen gears: an involute spur gear outline (chords of the involute), extruded along z.
// SPDX-License-Identifier: MIT
//
// Chords of a convex flank lie inside the true involute tooth, so the outline is a subset of a
// correctly meshing tooth and mated gears keep the backlash as clearance. The flank below the base
// circle is cut by the chord to the first involute point (a slight undercut), which keeps every
// outline angle strictly increasing: a fan from the centre or a strip to a bore never degenerates.
#include "meshgen_internal.h"

#include <stdlib.h>

kl_meshgen_gear_params kl_meshgen_default_gear_params(void)
{
	kl_meshgen_gear_params p;
	p.tooth_count = 14;
	p.module = 0.01f;
	p.pressure_angle = (float)(20.0 * MG_PI / 180.0);
	p.face_width = 0.02f;
	p.bore_radius = 0.015f;
	p.backlash = 0.0005f;
	p.resolution = 1;
	return p;
}

float kl_meshgen_gear_pitch_radius(const kl_meshgen_gear_params* params)
{
	return 0.5f * params->module * (float)params->tooth_count;
}

float kl_meshgen_gear_center_distance(const kl_meshgen_gear_params* a, const kl_meshgen_gear_params* b)
{
	return kl_meshgen_gear_pitch_radius(a) + kl_meshgen_gear_pitch_radius(b);
}

float kl_meshgen_gear_mate_angle(const kl_meshgen_gear_params* b)
{
	return (float)(MG_PI - MG_PI / (double)b->tooth_count);
}

/// Radii and half tooth angles of one gear.
typedef struct gear_shape
{
	double pitch, base, tip, root;
	double half_pitch; ///< half tooth angle at the pitch circle
	double inv_pressure;
} gear_shape;

static double involute(double angle)
{
	return tan(angle) - angle;
}

// Half the angle the tooth spans at radius r (the flank is radial below the base circle).
static double half_angle(const gear_shape* g, double r)
{
	double at = r > g->base ? acos(g->base / r) : 0.0;
	return g->half_pitch + g->inv_pressure - involute(at);
}

static gear_shape make_shape(const kl_meshgen_gear_params* p)
{
	gear_shape g;
	g.pitch = 0.5 * (double)p->module * p->tooth_count;
	g.base = g.pitch * cos((double)p->pressure_angle);
	g.tip = g.pitch + p->module;
	g.root = g.pitch - 1.25 * p->module;
	g.half_pitch = (0.5 * MG_PI * p->module - p->backlash) / (2.0 * g.pitch);
	g.inv_pressure = involute(p->pressure_angle);
	return g;
}

static kl_result check_gear(const kl_meshgen_gear_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "gear: params must not be NULL");
	}
	if (!mg_check_int("gear: tooth_count", p->tooth_count, 6, 1000) ||
		!mg_check_int("gear: resolution", p->resolution, 1, 64) ||
		!mg_check_float("gear: module", p->module, 1e-6, 1e3) ||
		!mg_check_float("gear: pressure_angle", p->pressure_angle, 10.0 * MG_PI / 180.0, 35.0 * MG_PI / 180.0) ||
		!mg_check_float("gear: face_width", p->face_width, 1e-6, 1e4) ||
		!mg_check_float("gear: backlash", p->backlash, 0.0, 0.5 * p->module))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	gear_shape g = make_shape(p);
	if (!mg_check_float("gear: bore_radius", p->bore_radius, 0.0, 0.9 * g.root))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	if (half_angle(&g, g.tip) < 0.05 * MG_PI / p->tooth_count)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "gear: teeth come to a point (%d teeth, pressure angle %g rad)",
					   p->tooth_count, (double)p->pressure_angle);
	}
	if (2.0 * MG_PI / p->tooth_count - 2.0 * half_angle(&g, g.root) < 0.05 * MG_PI / p->tooth_count)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "gear: teeth overlap at the root circle (%d teeth)", p->tooth_count);
	}
	int64_t triangles = 8LL * 4 * p->resolution * p->tooth_count;
	if (triangles > KL_MESHGEN_MAX_TRIANGLES)
	{
		return mg_fail(KL_ERR_LIMIT, "gear: %lld triangles exceed the limit %d", (long long)triangles,
					   KL_MESHGEN_MAX_TRIANGLES);
	}
	return KL_OK;
}

// Flank sample radii, root to tip: the root, then involute points up to the tip.
static double flank_radius(const gear_shape* g, int k, int segments)
{
	if (g->root < g->base)
	{
		return k == 0 ? g->root : g->base + (g->tip - g->base) * k / segments;
	}
	return g->root + (g->tip - g->root) * k / segments;
}

// The outline as polar angles and radii (4 × resolution per tooth).
static void outline_polar(const kl_meshgen_gear_params* p, double* angle, double* radius)
{
	gear_shape g = make_shape(p);
	int f = p->resolution;
	double tooth = 2.0 * MG_PI / p->tooth_count;
	double tip_half = half_angle(&g, g.tip), root_half = half_angle(&g, g.root);
	int n = 0;
	for (int t = 0; t < p->tooth_count; ++t)
	{
		double c = tooth * t;
		for (int k = 0; k <= f; ++k) // rising flank
		{
			radius[n] = flank_radius(&g, k, f);
			angle[n] = c - half_angle(&g, radius[n]);
			n += 1;
		}
		for (int k = 1; k < f; ++k) // tip arc
		{
			radius[n] = g.tip;
			angle[n++] = c - tip_half + 2.0 * tip_half * k / f;
		}
		for (int k = f; k >= 0; --k) // falling flank
		{
			radius[n] = flank_radius(&g, k, f);
			angle[n] = c + half_angle(&g, radius[n]);
			n += 1;
		}
		for (int k = 1; k < f; ++k) // root arc
		{
			radius[n] = g.root;
			angle[n++] = c + root_half + (tooth - 2.0 * root_half) * k / f;
		}
	}
}

int kl_meshgen_gear_outline(const kl_meshgen_gear_params* params, float* xy, int capacity)
{
	mg_clear_error();
	if (check_gear(params) != KL_OK)
	{
		return -1;
	}
	int n = 4 * params->resolution * params->tooth_count;
	double* angle = malloc((size_t)n * 2 * sizeof(double));
	if (angle == NULL)
	{
		mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
		return -1;
	}
	double* radius = angle + n;
	outline_polar(params, angle, radius);
	for (int i = 0; i < n && i < capacity && xy != NULL; ++i)
	{
		xy[2 * i] = (float)(radius[i] * cos(angle[i]));
		xy[2 * i + 1] = (float)(radius[i] * sin(angle[i]));
	}
	free(angle);
	return n;
}

kl_result kl_meshgen_gear(const kl_meshgen_gear_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "gear: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result r = check_gear(params);
	if (r != KL_OK)
	{
		return r;
	}
	int n = 4 * params->resolution * params->tooth_count;
	double* angle = malloc((size_t)n * 2 * sizeof(double));
	if (angle == NULL)
	{
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	double* radius = angle + n;
	outline_polar(params, angle, radius);

	bool bore = params->bore_radius > 0.0f;
	double h = 0.5 * params->face_width;
	mg_builder b;
	mg_builder_init(&b, bore ? 4 * n : 2 * n + 2, bore ? 8 * n : 4 * n);
	// Vertex 4i + {0, 1}: outline bottom, top; 4i + {2, 3}: bore bottom, top at the same angle.
	int per = bore ? 4 : 2;
	for (int i = 0; i < n; ++i)
	{
		double c = cos(angle[i]), s = sin(angle[i]);
		mg_vertex(&b, radius[i] * c, radius[i] * s, -h);
		mg_vertex(&b, radius[i] * c, radius[i] * s, h);
		if (bore)
		{
			mg_vertex(&b, params->bore_radius * c, params->bore_radius * s, -h);
			mg_vertex(&b, params->bore_radius * c, params->bore_radius * s, h);
		}
	}
	int bottom_centre = bore ? -1 : mg_vertex(&b, 0.0, 0.0, -h);
	int top_centre = bore ? -1 : mg_vertex(&b, 0.0, 0.0, h);
	for (int i = 0; i < n; ++i)
	{
		int o = per * i, p = per * ((i + 1) % n);
		mg_quad(&b, o, p, p + 1, o + 1); // tooth flanks, tips and roots
		if (bore)
		{
			mg_quad(&b, o + 2, o + 3, p + 3, p + 2);	 // bore wall, facing the axis
			mg_quad(&b, o + 3, o + 1, p + 1, p + 3);	 // top face
			mg_quad(&b, o + 2, p + 2, p, o);			 // bottom face
		}
		else
		{
			mg_triangle(&b, top_centre, o + 1, p + 1);
			mg_triangle(&b, bottom_centre, p, o);
		}
	}
	free(angle);
	return mg_finish(&b, out);
}
