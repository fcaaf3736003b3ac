// Kollide — meshgen stand-ins for objects of Aichele's experiments: a screwdriver (E3) and a six-link
// robot arm (E4), both made of lathe solids (a profile revolved about an axis).
// SPDX-License-Identifier: MIT
//
// A profile is a polyline in (r, s), r the distance from the axis and s the position along it, from
// a point on the axis up to another one, with s never decreasing. Its corners are rounded by arcs.
// Revolved, every ring lies in its own plane s = const at r > 0, so the solid is a radial graph
// around the axis: closed, genus 0 and free of self-intersections.
#include "meshgen_internal.h"

#include <stdlib.h>

typedef struct profile
{
	double* r;
	double* s;
	int count;
	int capacity;
} profile;

static bool profile_init(profile* p, int capacity)
{
	p->r = malloc(2 * (size_t)capacity * sizeof(double));
	p->s = p->r == NULL ? NULL : p->r + capacity;
	p->count = 0;
	p->capacity = capacity;
	return p->r != NULL;
}

static void profile_push(profile* p, double r, double s)
{
	if (p->count < p->capacity)
	{
		p->r[p->count] = r;
		p->s[p->count++] = s;
	}
}

// Points a rounded corner list may produce: an arc of at most steps + 1 points per corner, and
// straight runs cut to max_step.
static int profile_capacity(const double (*corner)[2], int n, int steps, double max_step)
{
	double length = 0.0;
	for (int k = 1; k < n; ++k)
	{
		length += hypot(corner[k][0] - corner[k - 1][0], corner[k][1] - corner[k - 1][1]);
	}
	return n * (2 * steps + 4) + (int)ceil(length / max_step) + 4;
}

/// Pushes corner k of the polyline rounded by an arc of at most `radius`. The arc may use 45 % of an
/// edge shared with another rounded corner and 90 % of an edge to an axis point, so neighbouring arcs
/// never meet in one point. Arcs get `steps` segments per quarter turn; a corner that would get one
/// segment stays sharp (two rings a hair apart would only add slivers).
static void round_corner(profile* p, const double (*c)[2], int n, int k, double radius, int steps)
{
	double d1[2] = {c[k][0] - c[k - 1][0], c[k][1] - c[k - 1][1]};
	double d2[2] = {c[k + 1][0] - c[k][0], c[k + 1][1] - c[k][1]};
	double l1 = hypot(d1[0], d1[1]), l2 = hypot(d2[0], d2[1]);
	double turn = acos(fmin(1.0, fmax(-1.0, (d1[0] * d2[0] + d1[1] * d2[1]) / (l1 * l2))));
	double half = tan(0.5 * turn);
	double e = fmin(radius, fmin((k == 1 ? 0.9 : 0.45) * l1, (k + 2 == n ? 0.9 : 0.45) * l2) / fmax(half, 1e-12));
	int m = (int)ceil(steps * turn / (0.5 * MG_PI) - 1e-9);
	if (m <= 1 || e * half < 1e-6 * (l1 + l2))
	{
		profile_push(p, c[k][0], c[k][1]);
		return;
	}
	double side = d1[0] * d2[1] - d1[1] * d2[0] > 0.0 ? 1.0 : -1.0; // +1: the profile turns left
	double t1[2] = {c[k][0] - d1[0] / l1 * e * half, c[k][1] - d1[1] / l1 * e * half};
	double centre[2] = {t1[0] - side * d1[1] / l1 * e, t1[1] + side * d1[0] / l1 * e};
	double a0 = atan2(t1[1] - centre[1], t1[0] - centre[0]);
	for (int i = 0; i <= m; ++i)
	{
		double a = a0 + side * turn * i / m;
		profile_push(p, centre[0] + e * cos(a), centre[1] + e * sin(a));
	}
}

/// The profile of a corner polyline: first and last corner on the axis (kept sharp), the others
/// rounded except the last one off the axis when sharp_end is set; runs between points off the axis
/// are cut into pieces of at most max_step so long parts get rings along them. False when out of
/// memory.
static bool make_profile(profile* p, const double (*corner)[2], int n, double radius, int steps, double max_step,
						 bool sharp_end)
{
	profile rounded;
	if (!profile_init(&rounded, profile_capacity(corner, n, steps, max_step)))
	{
		return false;
	}
	profile_push(&rounded, corner[0][0], corner[0][1]);
	for (int k = 1; k + 1 < n; ++k)
	{
		round_corner(&rounded, corner, n, k, sharp_end && k + 2 == n ? 0.0 : radius, steps);
	}
	profile_push(&rounded, corner[n - 1][0], corner[n - 1][1]);
	for (int i = 0; i < rounded.count; ++i)
	{
		if (i > 0 && rounded.r[i - 1] > 0.0 && rounded.r[i] > 0.0)
		{
			double dr = rounded.r[i] - rounded.r[i - 1], ds = rounded.s[i] - rounded.s[i - 1];
			int pieces = (int)ceil(hypot(dr, ds) / max_step - 1e-9);
			for (int j = 1; j < pieces; ++j)
			{
				profile_push(p, rounded.r[i - 1] + dr * j / pieces, rounded.s[i - 1] + ds * j / pieces);
			}
		}
		profile_push(p, rounded.r[i], rounded.s[i]);
	}
	free(rounded.r);
	return true;
}

// ---------------------------------------------------------------------------------------------
// Screwdriver

kl_meshgen_screwdriver_params kl_meshgen_default_screwdriver_params(void)
{
	kl_meshgen_screwdriver_params p;
	p.length = 0.2f;
	p.handle_length = 0.1f;
	p.handle_radius = 0.015f;
	p.rib_count = 6;
	p.rib_depth = 0.002f;
	p.shaft_radius = 0.003f;
	p.tip_length = 0.012f;
	p.tip_thickness = 0.0008f;
	p.resolution = 3;
	return p;
}

static kl_result check_screwdriver(const kl_meshgen_screwdriver_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "screwdriver: params must not be NULL");
	}
	if (!mg_check_float("screwdriver: length", p->length, 1e-3, 1e3) ||
		!mg_check_float("screwdriver: handle_length", p->handle_length, 0.1 * p->length, 0.8 * p->length) ||
		!mg_check_float("screwdriver: handle_radius", p->handle_radius, 0.1 * p->handle_length, 0.5 * p->handle_length) ||
		!mg_check_float("screwdriver: shaft_radius", p->shaft_radius, 0.01 * p->handle_radius, 0.25 * p->handle_radius) ||
		!mg_check_int("screwdriver: resolution", p->resolution, 1, 64) ||
		!mg_check_int("screwdriver: rib_count", p->rib_count, 0, 64) ||
		!mg_check_float("screwdriver: rib_depth", p->rib_depth, 0.0, 0.3 * p->handle_radius))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	double shaft = (double)p->length - p->handle_length;
	if (!mg_check_float("screwdriver: tip_length", p->tip_length, 0.02 * shaft, 0.5 * shaft) ||
		!mg_check_float("screwdriver: tip_thickness", p->tip_thickness, 0.1 * p->shaft_radius, 2.0 * p->shaft_radius))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return KL_OK;
}

// Radius of the screwdriver at angle θ on a ring of profile radius r at s: flutes (depth × w, w
// fading in and out along the grip) between the ribs; on the tip the section is cut by two planes
// |y| <= half thickness, which close in linearly to the flat end.
static double screwdriver_radius(const kl_meshgen_screwdriver_params* p, double r, double s, double theta)
{
	double h = p->handle_length, ramp = 0.08 * h;
	double w = fmin(1.0, fmax(0.0, fmin(s - 0.1 * h, 0.92 * h - s) / ramp));
	r -= p->rib_depth * w * 0.5 * (1.0 - cos(p->rib_count * theta));
	double tip_start = (double)p->length - p->tip_length;
	double sn = fabs(sin(theta));
	if (s > tip_start && sn > 0.0)
	{
		double f = (s - tip_start) / p->tip_length;
		double half = p->shaft_radius + (0.5 * p->tip_thickness - p->shaft_radius) * f;
		r = fmin(r, half / sn);
	}
	return r;
}

kl_result kl_meshgen_screwdriver(const kl_meshgen_screwdriver_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "screwdriver: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result result = check_screwdriver(params);
	if (result != KL_OK)
	{
		return result;
	}
	const kl_meshgen_screwdriver_params* p = params;
	double L = p->length, h = p->handle_length, rh = p->handle_radius, rs = p->shaft_radius;
	double shaft = L - h, tip = L - p->tip_length;
	int res = p->resolution;
	// Handle: flat end, a swelling grip, a shoulder; then a ferrule, the shaft and the tip, whose
	// collinear corners only add rings for the flattening.
	double corner[12 + 64][2] = {
		{0.0, 0.0}, {0.75 * rh, 0.0}, {0.95 * rh, 0.12 * h}, {rh, 0.55 * h}, {0.9 * rh, 0.9 * h}, {0.55 * rh, h},
		{2.0 * rs, h + 2.0 * rs}, {2.0 * rs, h + 0.1 * shaft}, {rs, h + 0.13 * shaft}, {rs, tip}};
	int n = 10; // then res - 1 tip corners and two end corners: at most 12 + 64 with res <= 64
	for (int i = 1; i < res; ++i)
	{
		corner[n][0] = rs;
		corner[n++][1] = tip + p->tip_length * i / res;
	}
	corner[n][0] = rs;
	corner[n++][1] = L;
	corner[n][0] = 0.0;
	corner[n++][1] = L;
	profile prof = {0};
	int segments = p->rib_count > 0 ? p->rib_count * ((8 * res + p->rib_count - 1) / p->rib_count) : 8 * res;
	double max_step = 0.5 * h / res;
	if (!profile_init(&prof, profile_capacity((const double(*)[2])corner, n, res, max_step)) ||
		!make_profile(&prof, (const double(*)[2])corner, n, 0.3 * rh, res, max_step, true))
	{
		free(prof.r);
		return mg_fail(KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	int rings = prof.count - 2;
	mg_builder b;
	mg_builder_init(&b, rings * segments + 2, 2 * rings * segments);
	int first = mg_vertex(&b, 0.0, 0.0, 0.0);
	for (int j = 1; j <= rings; ++j)
	{
		for (int i = 0; i < segments; ++i)
		{
			double theta = 2.0 * MG_PI * i / segments;
			double r = screwdriver_radius(p, prof.r[j], prof.s[j], theta);
			mg_vertex(&b, r * cos(theta), r * sin(theta), prof.s[j]);
		}
	}
	mg_vertex(&b, 0.0, 0.0, L);
	mg_lathe_faces(&b, first, rings, segments);
	free(prof.r);
	return mg_finish(&b, out);
}

// ---------------------------------------------------------------------------------------------
// Robot arm

kl_meshgen_robot_arm_params kl_meshgen_default_robot_arm_params(void)
{
	kl_meshgen_robot_arm_params p;
	p.scale = 1.0f;
	p.resolution = 4;
	return p;
}

/// One lathe part of the arm at scale 1: its axis from origin along axis (normalised when used),
/// the profile corners (r, s) and the rounding radius of its edges.
typedef struct arm_part
{
	double origin[3];
	double axis[3];
	double corner[8][2];
	int corner_count;
	double round;
} arm_part;

// The arm in a fixed pose in the xz plane: base and turret about z, the shoulder housing with its
// motor about y, the upper arm beside them (y > 0) tilted towards the elbow, the elbow housing about
// y with its motor behind, the forearm, wrist housing, wrist and flange along x. Every part's
// bounding box is at least 10 mm from every other one's, so the shells are disjoint.
static const arm_part s_arm[] = {
	{{0, 0, 0}, {0, 0, 1}, {{0, 0}, {0.16, 0}, {0.16, 0.03}, {0.1, 0.05}, {0.1, 0.15}, {0, 0.15}}, 6, 0.01},
	{{0, 0, 0.16}, {0, 0, 1}, {{0, 0}, {0.1, 0}, {0.1, 0.06}, {0.085, 0.17}, {0, 0.17}}, 5, 0.015},
	{{0, -0.1, 0.42}, {0, 1, 0}, {{0, 0}, {0.08, 0}, {0.08, 0.2}, {0, 0.2}}, 4, 0.012},
	{{0, -0.22, 0.42}, {0, 1, 0}, {{0, 0}, {0.06, 0}, {0.06, 0.015}, {0.05, 0.025}, {0.05, 0.11}, {0, 0.11}}, 6, 0.006},
	// Upper arm: shoulder end at s = 0, elbow end (0.12, 0, 0.45) further, 0.465725 along the axis.
	{{0, 0.165, 0.42}, {0.12, 0, 0.45}, {{0, -0.055}, {0.055, -0.055}, {0.045, 0.510725}, {0, 0.510725}}, 4, 0.045},
	{{0.12, -0.09, 0.87}, {0, 1, 0}, {{0, 0}, {0.065, 0}, {0.065, 0.18}, {0, 0.18}}, 4, 0.01},
	{{-0.07, 0, 0.87}, {1, 0, 0}, {{0, 0}, {0.045, 0}, {0.045, 0.1}, {0.035, 0.115}, {0, 0.115}}, 5, 0.008},
	{{0.195, 0, 0.87}, {1, 0, 0}, {{0, 0}, {0.055, 0}, {0.055, 0.06}, {0.045, 0.12}, {0.045, 0.51}, {0, 0.51}}, 6, 0.01},
	{{0.76, -0.055, 0.87}, {0, 1, 0}, {{0, 0}, {0.045, 0}, {0.045, 0.11}, {0, 0.11}}, 4, 0.008},
	{{0.815, 0, 0.87}, {1, 0, 0}, {{0, 0}, {0.035, 0}, {0.035, 0.055}, {0, 0.055}}, 4, 0.006},
	{{0.88, 0, 0.87}, {1, 0, 0}, {{0, 0}, {0.045, 0}, {0.045, 0.015}, {0, 0.015}}, 4, 0.003},
};

enum { arm_part_count = sizeof(s_arm) / sizeof(s_arm[0]) };

static kl_result check_robot_arm(const kl_meshgen_robot_arm_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "robot_arm: params must not be NULL");
	}
	if (!mg_check_float("robot_arm: scale", p->scale, 1e-3, 1e3) ||
		!mg_check_int("robot_arm: resolution", p->resolution, 1, 64))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return KL_OK;
}

/// Appends one part: a lathe about the part's axis, with (u, v, axis) right-handed so that the
/// profile's outward side stays outward.
static void arm_add_part(mg_builder* b, const arm_part* part, double scale, int segments, const profile* prof)
{
	double a[3], u[3];
	double la = sqrt(part->axis[0] * part->axis[0] + part->axis[1] * part->axis[1] + part->axis[2] * part->axis[2]);
	for (int k = 0; k < 3; ++k)
	{
		a[k] = part->axis[k] / la;
	}
	// u: y (or z for an axis along y) made perpendicular to the axis.
	bool along_y = fabs(a[1]) > 0.9;
	double d = along_y ? a[2] : a[1];
	double lu = sqrt(1.0 - d * d);
	for (int k = 0; k < 3; ++k)
	{
		u[k] = ((k == (along_y ? 2 : 1) ? 1.0 : 0.0) - d * a[k]) / lu;
	}
	double v[3] = {a[1] * u[2] - a[2] * u[1], a[2] * u[0] - a[0] * u[2], a[0] * u[1] - a[1] * u[0]};
	int first = b->vertex_count;
	for (int j = 0; j < prof->count; ++j)
	{
		bool pole = j == 0 || j + 1 == prof->count;
		for (int i = 0; i < (pole ? 1 : segments); ++i)
		{
			double theta = 2.0 * MG_PI * i / segments;
			double c = prof->r[j] * cos(theta), s = prof->r[j] * sin(theta);
			double p[3];
			for (int k = 0; k < 3; ++k)
			{
				p[k] = scale * (part->origin[k] + prof->s[j] * a[k] + c * u[k] + s * v[k]);
			}
			mg_vertex(b, p[0], p[1], p[2]);
		}
	}
	mg_lathe_faces(b, first, prof->count - 2, segments);
}

kl_result kl_meshgen_robot_arm(const kl_meshgen_robot_arm_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "robot_arm: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result result = check_robot_arm(params);
	if (result != KL_OK)
	{
		return result;
	}
	int res = params->resolution, segments = 8 * res;
	double max_step = 0.22 / res; // at scale 1: rings along the long links
	profile prof[arm_part_count];
	int rings = 0;
	bool ok = true;
	for (int k = 0; k < arm_part_count; ++k)
	{
		const arm_part* part = &s_arm[k];
		prof[k].r = NULL;
		ok = ok && profile_init(&prof[k], profile_capacity(part->corner, part->corner_count, res, max_step)) &&
			 make_profile(&prof[k], part->corner, part->corner_count, part->round, res, max_step, false);
		rings += ok ? prof[k].count - 2 : 0;
	}
	mg_builder b;
	mg_builder_init(&b, rings * segments + 2 * arm_part_count, 2 * rings * segments);
	b.failed = b.failed || !ok;
	for (int k = 0; k < arm_part_count && !b.failed; ++k)
	{
		arm_add_part(&b, &s_arm[k], params->scale, segments, &prof[k]);
	}
	for (int k = 0; k < arm_part_count; ++k)
	{
		free(prof[k].r);
	}
	return mg_finish(&b, out);
}
