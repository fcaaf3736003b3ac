// Kollide — meshgen housing: an open-topped box with rounded edges, a flange and bosses with bores, a
// stand-in for the crankcase of Aichele's experiment E3.
// SPDX-License-Identifier: MIT
//
// The shell is a loft, like a surface of revolution with a rounded rectangle in place of the circle:
// the contour (a core rectangle grown by corner_radius + d) is swept along a profile (d, z) from the
// centre of the floor's underside up the outside, over the flange and down the inside to the centre
// of the floor. Offsetting a rounded rectangle keeps it one, so walls, floor and fillets have the
// same thickness everywhere. On the straight walls the vertices form a grid, uniform along each edge
// and in z about the bosses' axes. A boss replaces a block of grid cells on the outside wall and the
// same block on the inside wall; each block's boundary is joined to a circle at the same polar
// angles, and the two circles are joined by the boss's side, its end face and the bore.
#include "meshgen_internal.h"

#include <stdlib.h>

enum { side_count = 4, max_bosses = 4 };

// Grid rows closer than this fraction of the spacing to the end of a wall are left out.
#define MG_ROW_MARGIN 0.3

kl_meshgen_housing_params kl_meshgen_default_housing_params(void)
{
	kl_meshgen_housing_params p;
	p.size_x = 0.3f;
	p.size_y = 0.2f;
	p.height = 0.15f;
	p.wall = 0.008f;
	p.corner_radius = 0.03f;
	p.fillet_radius = 0.02f;
	p.flange_width = 0.012f;
	p.flange_height = 0.01f;
	p.boss_radius = 0.03f;
	p.bore_radius = 0.02f;
	p.boss_height = 0.015f;
	p.side_boss_radius = 0.02f;
	p.side_bore_radius = 0.012f;
	p.resolution = 3;
	return p;
}

typedef struct housing_boss
{
	int side;		 ///< 0 east (+x), 1 north (+y), 2 west, 3 south
	int k;			 ///< grid cells along each side of the replaced block (even)
	double radius;	 ///< boss
	double bore;
	int sample;		 ///< first contour sample of the block
	int outer_ring;	 ///< first ring of the block on the outside wall (rows -k/2 .. k/2)
	int inner_ring;	 ///< first ring on the inside wall (rows k/2 .. -k/2)
} housing_boss;

/// Contour samples (core point and normal angle), profile rings (offset d, height z, wall row) and
/// the bosses.
typedef struct housing_layout
{
	double h, z_center;
	int cells[side_count]; ///< straight cells along each side
	int first[side_count]; ///< first contour sample of each side
	int samples, rings, ring_capacity;
	double *cx, *cy, *angle;
	double *d, *z;
	int* row;  ///< grid row m (z = z_center + m h) of a wall ring
	int* wall; ///< 1 outside wall, 2 inside wall, 0 elsewhere
	housing_boss boss[max_bosses];
	int boss_count;
} housing_layout;

static kl_result check_housing(const kl_meshgen_housing_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "housing: params must not be NULL");
	}
	double small = fmin(p->size_x, p->size_y);
	if (!mg_check_float("housing: size_x", p->size_x, 1e-3, 1e3) ||
		!mg_check_float("housing: size_y", p->size_y, 1e-3, 1e3) ||
		!mg_check_float("housing: height", p->height, 1e-3, 1e3) ||
		!mg_check_float("housing: wall", p->wall, 1e-3 * fmax(fmax(p->size_x, p->size_y), p->height),
						0.2 * fmin(small, p->height)) ||
		!mg_check_float("housing: fillet_radius", p->fillet_radius, 1.25 * p->wall, 0.3 * p->height) ||
		!mg_check_float("housing: corner_radius", p->corner_radius, 1.25 * p->fillet_radius, 0.45 * small) ||
		!mg_check_float("housing: flange_width", p->flange_width, 0.05 * p->wall, 0.5 * small) ||
		!mg_check_float("housing: flange_height", p->flange_height, 0.05 * p->wall, 0.3 * p->height) ||
		!mg_check_float("housing: boss_radius", p->boss_radius, p->wall, 0.5 * p->height) ||
		!mg_check_float("housing: bore_radius", p->bore_radius, 0.1 * p->boss_radius, 0.9 * p->boss_radius) ||
		!mg_check_float("housing: boss_height", p->boss_height, 0.05 * p->wall, p->size_x) ||
		!mg_check_int("housing: resolution", p->resolution, 1, 64))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	if (p->side_boss_radius != 0.0f &&
		(!mg_check_float("housing: side_boss_radius", p->side_boss_radius, p->wall, 0.5 * p->height) ||
		 !mg_check_float("housing: side_bore_radius", p->side_bore_radius, 0.1 * p->side_boss_radius,
						 0.9 * p->side_boss_radius)))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return KL_OK;
}

// Cells along a straight edge: about length / h, with k cells for a centred block (k > 0); never
// shorter than h, so the block is at least k × h wide. -1 if there is no room. The block may fill
// the edge: the boss inside it (at most 0.4 of the block wide) keeps a tenth of it from either end.
static int edge_cells(double length, double h, int k)
{
	if (k == 0)
	{
		return length < 2.0 * h ? 1 : (int)floor(length / h);
	}
	int n = k + 2 * (int)floor(0.5 * (length / h - k));
	return n >= k ? n : -1;
}

// The grid rows of a wall from lo to hi: z_center + m h for m in [*m_lo, *m_hi].
static void wall_rows(const housing_layout* l, double lo, double hi, int* m_lo, int* m_hi)
{
	*m_lo = (int)ceil((lo + MG_ROW_MARGIN * l->h - l->z_center) / l->h);
	*m_hi = (int)floor((hi - MG_ROW_MARGIN * l->h - l->z_center) / l->h);
}

/// Cells per side, bosses and rows; housing_contour and housing_profile fill the arrays. Fails when
/// a boss does not fit its wall or the mesh would be too large.
static kl_result housing_plan(const kl_meshgen_housing_params* p, housing_layout* l)
{
	int res = p->resolution, k_side = 0;
	double c = p->corner_radius, f = p->fillet_radius, top = (double)p->height - p->flange_height;
	l->h = 1.25 * p->boss_radius / res;
	l->z_center = 0.5 * (f + top);
	// Estimated first, in doubles, so that the cell and row counts below fit an int.
	double estimate = 4.0 * ((p->size_x + p->size_y) / l->h + 2.0 * res + 2.0) * (2.0 * p->height / l->h + 2.0 * res + 6.0);
	if (estimate > KL_MESHGEN_MAX_TRIANGLES)
	{
		return mg_fail(KL_ERR_LIMIT, "housing: about %.0f triangles exceed the limit %d", estimate,
					   KL_MESHGEN_MAX_TRIANGLES);
	}
	if (p->side_boss_radius > 0.0f)
	{
		k_side = 2 * (int)ceil(1.25 * p->side_boss_radius / l->h - 1e-9);
	}
	int k_main = 2 * res;
	int y_wall_cells = edge_cells((double)p->size_x - 2.0 * c, l->h, k_main); // along each ±y wall
	int x_wall_cells = edge_cells((double)p->size_y - 2.0 * c, l->h, k_side);
	if (y_wall_cells < 0)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "housing: boss_radius %g too large for the straight part of the y walls",
					   (double)p->boss_radius);
	}
	if (x_wall_cells < 0)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT,
					   "housing: side_boss_radius %g too large for the straight part of the x walls",
					   (double)p->side_boss_radius);
	}
	int m_lo, m_hi, k_max = k_main > k_side ? k_main : k_side;
	wall_rows(l, f, top, &m_lo, &m_hi);
	if (m_lo > -k_max / 2 || m_hi < k_max / 2)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "housing: boss_radius %g or side_boss_radius %g too large for the wall height",
					   (double)p->boss_radius, (double)p->side_boss_radius);
	}
	l->boss_count = 0;
	for (int s = 0; s < side_count; ++s)
	{
		l->cells[s] = s % 2 == 0 ? x_wall_cells : y_wall_cells;
		int k = s % 2 == 0 ? k_side : k_main;
		if (k > 0)
		{
			l->boss[l->boss_count++] = (housing_boss){s, k, s % 2 == 0 ? p->side_boss_radius : p->boss_radius,
													  s % 2 == 0 ? p->side_bore_radius : p->bore_radius, 0, 0, 0};
		}
	}
	int m_top;
	wall_rows(l, f, p->height, &m_lo, &m_top);
	int nf = res > 1 ? res - 1 : 1, q = res + 1;
	l->samples = 2 * (y_wall_cells + x_wall_cells) + 4 * q;
	l->rings = 2 * nf + (m_hi - m_lo + 1) + (m_top - m_lo + 1) + 6;
	l->ring_capacity = l->rings;
	double triangles = 2.0 * l->samples * l->rings + 32.0 * k_max * l->boss_count;
	if (triangles > KL_MESHGEN_MAX_TRIANGLES)
	{
		return mg_fail(KL_ERR_LIMIT, "housing: about %.0f triangles exceed the limit %d", triangles,
					   KL_MESHGEN_MAX_TRIANGLES);
	}
	return KL_OK;
}

static bool housing_alloc(housing_layout* l)
{
	l->cx = malloc(3 * (size_t)l->samples * sizeof(double));
	l->d = malloc(2 * (size_t)l->rings * sizeof(double));
	l->row = malloc(2 * (size_t)l->rings * sizeof(int));
	if (l->cx == NULL || l->d == NULL || l->row == NULL)
	{
		return false;
	}
	l->cy = l->cx + l->samples;
	l->angle = l->cy + l->samples;
	l->z = l->d + l->rings;
	l->wall = l->row + l->rings;
	return true;
}

static void housing_free(housing_layout* l)
{
	free(l->cx);
	free(l->d);
	free(l->row);
}

// Contour samples counter-clockwise from the south end of the east edge: each side's straight edge
// (its cells), then the quarter arc of the corner after it.
static void housing_contour(const kl_meshgen_housing_params* p, housing_layout* l)
{
	int q = p->resolution + 1, n = 0;
	double ax = 0.5 * p->size_x - p->corner_radius, by = 0.5 * p->size_y - p->corner_radius;
	const double end[side_count][2] = {{ax, by}, {-ax, by}, {-ax, -by}, {ax, -by}};
	for (int s = 0; s < side_count; ++s)
	{
		const double* start = end[(s + 3) % side_count];
		l->first[s] = n;
		for (int i = 0; i < l->cells[s] + q; ++i, ++n)
		{
			double t = i < l->cells[s] ? (double)i / l->cells[s] : 1.0;
			l->cx[n] = start[0] + (end[s][0] - start[0]) * t;
			l->cy[n] = start[1] + (end[s][1] - start[1]) * t;
			l->angle[n] = 0.5 * MG_PI * (s + (i < l->cells[s] ? 0.0 : (double)(i - l->cells[s]) / q));
		}
	}
}

static void push_ring(housing_layout* l, double d, double z, int wall, int row)
{
	if (l->rings == l->ring_capacity)
	{
		return;
	}
	l->d[l->rings] = d;
	l->z[l->rings] = z;
	l->wall[l->rings] = wall;
	l->row[l->rings++] = row;
}

// The profile: floor underside, outer fillet, outside wall, flange, inside wall, inner fillet.
static void housing_profile(const kl_meshgen_housing_params* p, housing_layout* l)
{
	int nf = p->resolution > 1 ? p->resolution - 1 : 1, m_lo, m_hi, m_top;
	double f = p->fillet_radius, w = p->wall, fi = f - w, top = (double)p->height - p->flange_height;
	wall_rows(l, f, top, &m_lo, &m_hi);
	wall_rows(l, f, p->height, &m_lo, &m_top);
	l->rings = 0;
	push_ring(l, -f, 0.0, 0, 0);
	for (int k = 1; k <= nf; ++k)
	{
		double a = 0.5 * MG_PI * k / nf;
		push_ring(l, k == nf ? 0.0 : -f + f * sin(a), k == nf ? f : f - f * cos(a), 0, 0);
	}
	for (int m = m_lo; m <= m_hi; ++m)
	{
		push_ring(l, 0.0, l->z_center + m * l->h, 1, m);
	}
	push_ring(l, 0.0, top, 0, 0);
	push_ring(l, p->flange_width, top, 0, 0);
	push_ring(l, p->flange_width, p->height, 0, 0);
	push_ring(l, -w, p->height, 0, 0);
	for (int m = m_top; m >= m_lo; --m)
	{
		push_ring(l, -w, l->z_center + m * l->h, 2, m);
	}
	push_ring(l, -w, f, 0, 0);
	for (int k = 1; k <= nf; ++k) // about the same centre (-f, f) as the outer fillet
	{
		double a = 0.5 * MG_PI * k / nf;
		push_ring(l, k == nf ? -f : -f + fi * cos(a), k == nf ? w : f - fi * sin(a), 0, 0);
	}
}

static int find_ring(const housing_layout* l, int wall, int row)
{
	for (int j = 0; j < l->rings; ++j)
	{
		if (l->wall[j] == wall && l->row[j] == row)
		{
			return j;
		}
	}
	return -1;
}

static void housing_place_bosses(housing_layout* l)
{
	for (int i = 0; i < l->boss_count; ++i)
	{
		housing_boss* b = &l->boss[i];
		b->sample = l->first[b->side] + (l->cells[b->side] - b->k) / 2;
		b->outer_ring = find_ring(l, 1, -b->k / 2);
		b->inner_ring = find_ring(l, 2, b->k / 2);
	}
}

// Whether grid vertex (ring j, sample i) or cell (j, i) .. (j + 1, i + 1) lies in a boss block;
// a vertex only when strictly inside, as the block's boundary vertices stay.
static bool in_block(const housing_layout* l, int j, int i, bool vertex)
{
	int lo = vertex ? 1 : 0;
	for (int k = 0; k < l->boss_count; ++k)
	{
		const housing_boss* b = &l->boss[k];
		for (int r = 0; r < 2; ++r)
		{
			int j0 = r == 0 ? b->outer_ring : b->inner_ring;
			if (i >= b->sample + lo && i < b->sample + b->k && j >= j0 + lo && j < j0 + b->k)
			{
				return true;
			}
		}
	}
	return false;
}

// The block's 4k boundary vertices, counter-clockwise in (sample, ring), the sense in which the
// grid's quads face out.
static void block_loop(const housing_layout* l, const int* vid, int sample, int ring, int k, int* loop)
{
	int n = 0, N = l->samples;
	for (int i = 0; i < k; ++i)
	{
		loop[n++] = vid[ring * N + sample + i];
	}
	for (int j = 0; j < k; ++j)
	{
		loop[n++] = vid[(ring + j) * N + sample + k];
	}
	for (int i = k; i > 0; --i)
	{
		loop[n++] = vid[(ring + k) * N + sample + i];
	}
	for (int j = k; j > 0; --j)
	{
		loop[n++] = vid[(ring + j) * N + sample];
	}
}

/// A boss's local frame: centre on the outside wall, e1 along the wall (the contour's direction),
/// z up, n the wall's outward normal; e1, z, n are right-handed.
typedef struct boss_frame
{
	double o[3], e1[2], n[2];
} boss_frame;

// Polar angle of vertex v about the boss axis, in (e1, z).
static double boss_angle(const mg_builder* b, const boss_frame* f, int v)
{
	vec3s p = b->vertices[v];
	return atan2((double)p.z - f->o[2], ((double)p.x - f->o[0]) * f->e1[0] + ((double)p.y - f->o[1]) * f->e1[1]);
}

// The point at polar angle a, distance radius from the axis, `out` along n from the outside wall.
static int boss_point(mg_builder* b, const boss_frame* f, double out, double radius, double a)
{
	double u = radius * cos(a);
	return mg_vertex(b, f->o[0] + out * f->n[0] + u * f->e1[0], f->o[1] + out * f->n[1] + u * f->e1[1],
					 f->o[2] + radius * sin(a));
}

static int nearest_angle(const double* angle, int count, double a)
{
	int best = 0;
	for (int t = 1; t < count; ++t)
	{
		if (fabs(remainder(a - angle[t], 2.0 * MG_PI)) < fabs(remainder(a - angle[best], 2.0 * MG_PI)))
		{
			best = t;
		}
	}
	return best;
}

/// The boss: the outside block joined to its circle (boss radius), the boss side, its end face, the
/// bore down to the inside wall, and the inside block joined to the bore's end. The inside block is
/// the outside one mirrored in z, so its polar angles are the same set and each of its boundary
/// vertices is paired with the bore vertex at its angle. scratch: 12k ints and 4k doubles.
static void add_boss(mg_builder* b, const kl_meshgen_housing_params* p, const housing_layout* l, const int* vid,
					 const housing_boss* boss, int* scratch, double* angle)
{
	int n = 4 * boss->k, centre = boss->sample + boss->k / 2;
	int *outer = scratch, *inner = scratch + n, *pair = scratch + 2 * n;
	double a = l->angle[centre], c = p->corner_radius, bh = p->boss_height;
	boss_frame f = {{l->cx[centre] + c * cos(a), l->cy[centre] + c * sin(a), l->z_center}, {-sin(a), cos(a)},
					{cos(a), sin(a)}};
	block_loop(l, vid, boss->sample, boss->outer_ring, boss->k, outer);
	block_loop(l, vid, boss->sample, boss->inner_ring, boss->k, inner);
	int first = b->vertex_count; // per boundary vertex t: circle, boss end rim, bore end, bore inside
	for (int t = 0; t < n; ++t)
	{
		angle[t] = boss_angle(b, &f, outer[t]);
		boss_point(b, &f, 0.0, boss->radius, angle[t]);
		boss_point(b, &f, bh, boss->radius, angle[t]);
		boss_point(b, &f, bh, boss->bore, angle[t]);
		boss_point(b, &f, -(double)p->wall, boss->bore, angle[t]);
	}
	for (int u = 0; u < n; ++u)
	{
		pair[u] = first + 4 * nearest_angle(angle, n, boss_angle(b, &f, inner[u])) + 3;
	}
	for (int t = 0; t < n; ++t)
	{
		int c0 = first + 4 * t, c1 = first + 4 * ((t + 1) % n), t1 = (t + 1) % n;
		mg_quad(b, outer[t], outer[t1], c1, c0);		  // outside wall to the boss
		mg_quad(b, c0, c1, c1 + 1, c0 + 1);			  // boss side
		mg_quad(b, c0 + 1, c1 + 1, c1 + 2, c0 + 2);	  // boss end face
		mg_quad(b, c0 + 3, c0 + 2, c1 + 2, c1 + 3);	  // bore
		mg_quad(b, inner[t], inner[t1], pair[t1], pair[t]); // inside wall to the bore
	}
}

static void housing_vertices(mg_builder* b, const kl_meshgen_housing_params* p, const housing_layout* l, int* vid)
{
	for (int j = 0; j < l->rings; ++j)
	{
		double r = (double)p->corner_radius + l->d[j];
		for (int i = 0; i < l->samples; ++i)
		{
			bool hidden = in_block(l, j, i, true);
			vid[j * l->samples + i] =
				hidden ? -1 : mg_vertex(b, l->cx[i] + r * cos(l->angle[i]), l->cy[i] + r * sin(l->angle[i]), l->z[j]);
		}
	}
}

// The loft's triangles: a fan under the floor, the grid outside the boss blocks, a fan on the floor.
static void housing_faces(mg_builder* b, const housing_layout* l, const int* vid, int under, int above)
{
	int N = l->samples, top = (l->rings - 1) * N;
	for (int i = 0; i < N; ++i)
	{
		int i1 = (i + 1) % N;
		mg_triangle(b, under, vid[i1], vid[i]);
		for (int j = 0; j + 1 < l->rings; ++j)
		{
			if (!in_block(l, j, i, false))
			{
				mg_quad(b, vid[j * N + i], vid[j * N + i1], vid[(j + 1) * N + i1], vid[(j + 1) * N + i]);
			}
		}
		mg_triangle(b, vid[top + i], vid[top + i1], above);
	}
}

kl_result kl_meshgen_housing(const kl_meshgen_housing_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "housing: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result result = check_housing(params);
	housing_layout l = {0};
	result = result == KL_OK ? housing_plan(params, &l) : result;
	if (result != KL_OK)
	{
		return result;
	}
	int k_max = 0;
	for (int i = 0; i < l.boss_count; ++i)
	{
		k_max = l.boss[i].k > k_max ? l.boss[i].k : k_max;
	}
	int* vid = malloc((size_t)l.rings * l.samples * sizeof(int));
	int* scratch = malloc(12 * (size_t)(k_max + 1) * sizeof(int));
	double* angle = malloc(4 * (size_t)(k_max + 1) * sizeof(double));
	mg_builder b;
	mg_builder_init(&b, l.rings * l.samples + 2 + 16 * k_max * l.boss_count,
					2 * l.rings * l.samples + 32 * k_max * l.boss_count);
	b.failed = b.failed || vid == NULL || scratch == NULL || angle == NULL || !housing_alloc(&l);
	if (!b.failed)
	{
		housing_contour(params, &l);
		housing_profile(params, &l);
		housing_place_bosses(&l);
		int under = mg_vertex(&b, 0.0, 0.0, 0.0); // centres of the floor's underside and top
		housing_vertices(&b, params, &l, vid);
		int above = mg_vertex(&b, 0.0, 0.0, params->wall);
		housing_faces(&b, &l, vid, under, above);
		for (int i = 0; i < l.boss_count && !b.failed; ++i)
		{
			add_boss(&b, params, &l, vid, &l.boss[i], scratch, angle);
		}
	}
	housing_free(&l);
	free(vid);
	free(scratch);
	free(angle);
	return mg_finish(&b, out);
}
