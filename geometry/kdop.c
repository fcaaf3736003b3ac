// Kollide — k-DOPs: direction sets, conservative bounds, realignment plans and FP16 conversion.
// SPDX-License-Identifier: MIT
#include "kdop.h"

#include "core.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/// Sentinel magnitude of an empty DOP: finite so that realignment never forms inf − inf.
#define KL_KDOP_BIG 1.0e30f

enum
{
	KL_KDOP_SET_COUNT = 6
};

static const int s_set_k[KL_KDOP_SET_COUNT] = {6, 14, 18, 26, 32, 46};
static kl_kdop_dirs s_sets[KL_KDOP_SET_COUNT];
static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t s_cells_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool s_cells_ready[KL_KDOP_SET_COUNT];

static void add_dir(kl_kdop_dirs* d, double x, double y, double z)
{
	double len = sqrt(x * x + y * y + z * z);
	d->dir[d->axes][0] = (float)(x / len);
	d->dir[d->axes][1] = (float)(y / len);
	d->dir[d->axes][2] = (float)(z / len);
	d->axes += 1;
}

static void add_axes(kl_kdop_dirs* d)
{
	add_dir(d, 1, 0, 0);
	add_dir(d, 0, 1, 0);
	add_dir(d, 0, 0, 1);
}

static void add_corners(kl_kdop_dirs* d)
{
	add_dir(d, 1, 1, 1);
	add_dir(d, 1, 1, -1);
	add_dir(d, 1, -1, 1);
	add_dir(d, -1, 1, 1);
}

static void add_edges(kl_kdop_dirs* d)
{
	add_dir(d, 1, 1, 0);
	add_dir(d, 1, -1, 0);
	add_dir(d, 1, 0, 1);
	add_dir(d, 1, 0, -1);
	add_dir(d, 0, 1, 1);
	add_dir(d, 0, 1, -1);
}

/// Pads the set to `axes` directions, each time taking the spherical-Fibonacci candidate farthest (in
/// angle, sign ignored) from every direction already present. Deterministic.
static void add_spread(kl_kdop_dirs* d, int axes)
{
	enum
	{
		N = 2000
	};
	const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
	while (d->axes < axes)
	{
		double best_score = -1.0;
		double best[3] = {0.0, 0.0, 1.0};
		for (int i = 0; i < N; ++i)
		{
			double z = 1.0 - (2.0 * i + 1.0) / N;
			double r = sqrt(1.0 - z * z);
			double c[3] = {r * cos(golden * i), r * sin(golden * i), z};
			double score = 2.0;
			for (int j = 0; j < d->axes; ++j)
			{
				double dot = fabs(c[0] * d->dir[j][0] + c[1] * d->dir[j][1] + c[2] * d->dir[j][2]);
				score = fmin(score, 1.0 - dot);
			}
			if (score > best_score)
			{
				best_score = score;
				memcpy(best, c, sizeof(best));
			}
		}
		add_dir(d, best[0], best[1], best[2]);
	}
}

static void normal_of(const kl_kdop_dirs* d, int index, double out[3])
{
	int j = index < d->axes ? index : index - d->axes;
	double s = index < d->axes ? 1.0 : -1.0;
	for (int c = 0; c < 3; ++c)
	{
		out[c] = s * (double)d->dir[j][c];
	}
}

static double det3(const double a[3], const double b[3], const double c[3])
{
	return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

/// Inverse of the matrix with columns a, b, c (rows of the inverse are the scaled cross products).
static void inverse_columns(const double a[3], const double b[3], const double c[3], double inv[3][3])
{
	double det = det3(a, b, c);
	const double* col[3] = {a, b, c};
	for (int r = 0; r < 3; ++r)
	{
		const double* u = col[(r + 1) % 3];
		const double* w = col[(r + 2) % 3];
		inv[r][0] = (u[1] * w[2] - u[2] * w[1]) / det;
		inv[r][1] = (u[2] * w[0] - u[0] * w[2]) / det;
		inv[r][2] = (u[0] * w[1] - u[1] * w[0]) / det;
	}
}

/// Triangulates the convex hull of the 2·axes normals by brute force (every triple whose plane has all
/// normals on one side). Coplanar hull faces yield several, overlapping triangles; any of them is valid.
static void build_faces(kl_kdop_dirs* d)
{
	int n = 2 * d->axes;
	double p[2 * KL_KDOP_MAX_AXES][3];
	for (int i = 0; i < n; ++i)
	{
		normal_of(d, i, p[i]);
	}
	d->face_count = 0;
	for (int i = 0; i < n; ++i)
	{
		for (int j = i + 1; j < n; ++j)
		{
			for (int k = j + 1; k < n; ++k)
			{
				double e1[3], e2[3], nn[3];
				for (int c = 0; c < 3; ++c)
				{
					e1[c] = p[j][c] - p[i][c];
					e2[c] = p[k][c] - p[i][c];
				}
				nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
				nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
				nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
				double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
				if (len < 1e-9)
				{
					continue;
				}
				double off = (nn[0] * p[i][0] + nn[1] * p[i][1] + nn[2] * p[i][2]) / len;
				if (fabs(off) < 1e-9)
				{
					continue; // plane through the origin: never a hull face of a symmetric set
				}
				double s = off > 0.0 ? 1.0 / len : -1.0 / len;
				off = fabs(off);
				bool face = true;
				for (int l = 0; l < n && face; ++l)
				{
					double h = s * (nn[0] * p[l][0] + nn[1] * p[l][1] + nn[2] * p[l][2]);
					face = h <= off + 1e-12;
				}
				if (!face || d->face_count == KL_KDOP_MAX_FACES)
				{
					continue;
				}
				kl_kdop_face* f = d->face + d->face_count++;
				f->n[0] = i;
				f->n[1] = j;
				f->n[2] = k;
				for (int c = 0; c < 3; ++c)
				{
					f->g[c] = s * nn[c] / off;
				}
				inverse_columns(p[i], p[j], p[k], f->inv);
			}
		}
	}
}

static void build_cells(kl_kdop_dirs* d);

static void init_sets(void)
{
	for (int s = 0; s < KL_KDOP_SET_COUNT; ++s)
	{
		kl_kdop_dirs* d = s_sets + s;
		memset(d, 0, sizeof(*d));
		d->k = s_set_k[s];
		add_axes(d);
		if (d->k == 14 || d->k >= 26)
		{
			add_corners(d);
		}
		if (d->k == 18 || d->k >= 26)
		{
			add_edges(d);
		}
		add_spread(d, d->k / 2);
		build_faces(d);
	}
}

const kl_kdop_dirs* kl_kdop_dirs_get(int k)
{
	pthread_once(&s_once, init_sets);
	for (int s = 0; s < KL_KDOP_SET_COUNT; ++s)
	{
		if (s_set_k[s] == k)
		{
			// The face lookup takes a few ms per set: only the sets in use pay for it.
			if (!atomic_load_explicit(&s_cells_ready[s], memory_order_acquire))
			{
				pthread_mutex_lock(&s_cells_lock);
				if (!atomic_load_explicit(&s_cells_ready[s], memory_order_relaxed))
				{
					build_cells(s_sets + s);
					atomic_store_explicit(&s_cells_ready[s], true, memory_order_release);
				}
				pthread_mutex_unlock(&s_cells_lock);
			}
			return s_sets + s;
		}
	}
	kl_fail(KL_ERR_INVALID_ARGUMENT, "k-DOP direction set k = %d is not available (6, 14, 18, 26, 32, 46)", k);
	return NULL;
}

void kl_kdop_set_empty(int axes, float* lo, float* hi)
{
	for (int i = 0; i < axes; ++i)
	{
		lo[i] = KL_KDOP_BIG;
		hi[i] = -KL_KDOP_BIG;
	}
}

/// The next float above (up) or below (!up) a finite f, by its bit pattern (no libm call: the plan makes
/// 2·axes of these per query).
static float float_step(float f, bool up)
{
	uint32_t b;
	memcpy(&b, &f, sizeof(b));
	if ((b & 0x7FFFFFFFu) == 0)
	{
		b = up ? 1u : 0x80000001u;
	}
	else if ((b >> 31) == (up ? 0u : 1u))
	{
		b += 1u; // away from zero
	}
	else
	{
		b -= 1u; // toward zero
	}
	memcpy(&f, &b, sizeof(f));
	return f;
}

/// Rounds v − slack down (dir < 0) or v + slack up (dir > 0) to a float on the outer side.
static float round_out(double v, double slack, int dir)
{
	double x = dir < 0 ? v - slack : v + slack;
	float f = (float)x;
	if (dir < 0 && (double)f > x && isfinite(f))
	{
		f = float_step(f, false);
	}
	if (dir > 0 && (double)f < x && isfinite(f))
	{
		f = float_step(f, true);
	}
	return f;
}

/// round_out for finite |x| < FLT_MAX without branches on the data (the plan rounds 2·axes values whose
/// rounding direction is a coin toss): the float nearest x, moved one step outward when it lies inside.
static float round_out_fast(double v, double slack, int dir)
{
	double x = dir < 0 ? v - slack : v + slack;
	float f = (float)x;
	// A zero takes the sign that makes the integer step below go outward (+0 up, −0 down).
	f = f == 0.0f ? (dir < 0 ? -0.0f : 0.0f) : f;
	uint32_t b;
	memcpy(&b, &f, sizeof(b));
	bool inside = dir < 0 ? (double)f > x : (double)f < x;
	bool away = (dir > 0) == ((b >> 31) == 0u); // the outward step is away from zero
	b += inside ? (away ? 1u : (uint32_t)-1) : 0u;
	memcpy(&f, &b, sizeof(f));
	return f;
}

void kl_kdop_add_point(const kl_kdop_dirs* dirs, float* lo, float* hi, const float p[3])
{
	for (int i = 0; i < dirs->axes; ++i)
	{
		// Each product is exact in double; the two additions err by at most 2 ulp of the term sum.
		double t0 = (double)dirs->dir[i][0] * p[0];
		double t1 = (double)dirs->dir[i][1] * p[1];
		double t2 = (double)dirs->dir[i][2] * p[2];
		double v = t0 + t1 + t2;
		double slack = (fabs(t0) + fabs(t1) + fabs(t2)) * (4.0 * DBL_EPSILON);
		float l = round_out(v, slack, -1);
		float h = round_out(v, slack, 1);
		lo[i] = l < lo[i] ? l : lo[i];
		hi[i] = h > hi[i] ? h : hi[i];
	}
}

void kl_kdop_merge(int axes, float* lo, float* hi, const float* lo2, const float* hi2)
{
	for (int i = 0; i < axes; ++i)
	{
		lo[i] = lo2[i] < lo[i] ? lo2[i] : lo[i];
		hi[i] = hi2[i] > hi[i] ? hi2[i] : hi[i];
	}
}

bool kl_kdop_overlap(int axes, const float* alo, const float* ahi, const float* blo, const float* bhi)
{
	for (int i = 0; i < axes; ++i)
	{
		if (ahi[i] < blo[i] || alo[i] > bhi[i])
		{
			return false;
		}
	}
	return true;
}

/// The smallest of the three cone coordinates of v in the face's cone (≥ 0: the cone holds v).
static double cone_min(const kl_kdop_face* face, const double v[3], double l[3])
{
	for (int r = 0; r < 3; ++r)
	{
		l[r] = face->inv[r][0] * v[0] + face->inv[r][1] * v[1] + face->inv[r][2] * v[2];
	}
	double mn = l[0] < l[1] ? l[0] : l[1]; // no NaN here: a plain compare instead of libm's fmin
	return l[2] < mn ? l[2] : mn;
}

/// The face whose cone holds v among all faces: the face the ray along v leaves through (largest g·v), or
/// among coplanar candidates the most interior one.
static const kl_kdop_face* decompose_search(const kl_kdop_dirs* d, const double v[3], double lambda[3])
{
	double best = -INFINITY;
	for (int f = 0; f < d->face_count; ++f)
	{
		const double* g = d->face[f].g;
		double score = g[0] * v[0] + g[1] * v[1] + g[2] * v[2];
		best = score > best ? score : best; // finite scores: a compare, not libm's fmax
	}
	const kl_kdop_face* chosen = NULL;
	double chosen_min = -INFINITY;
	double tol = 1e-9 * fabs(best);
	for (int f = 0; f < d->face_count; ++f)
	{
		const kl_kdop_face* face = d->face + f;
		const double* g = face->g;
		if (g[0] * v[0] + g[1] * v[1] + g[2] * v[2] < best - tol)
		{
			continue;
		}
		double l[3];
		double mn = cone_min(face, v, l);
		if (mn > chosen_min)
		{
			chosen_min = mn;
			chosen = face;
			memcpy(lambda, l, sizeof(l));
		}
	}
	return chosen;
}

/// Cube-map cell of a direction: the cube face of its largest component, then the two other components
/// over that one, each cut into GRID equal parts.
static int cell_of(const double v[3])
{
	double ax = fabs(v[0]), ay = fabs(v[1]), az = fabs(v[2]);
	// Selects instead of branches: the plan's directions come in random order, so branches would mispredict.
	int axis = (ax >= ay && ax >= az) ? 0 : (ay >= az ? 1 : 2);
	static const int next[3][2] = {{1, 2}, {2, 0}, {0, 1}};
	double m = fabs(v[axis]);
	double u = v[next[axis][0]];
	double w = v[next[axis][1]];
	int f = 2 * axis + (v[axis] < 0.0 ? 1 : 0);
	if (!(m > 0.0))
	{
		return 0;
	}
	double s = (0.5 * KL_KDOP_GRID) / m;
	int i = (int)(u * s + 0.5 * KL_KDOP_GRID);
	int j = (int)(w * s + 0.5 * KL_KDOP_GRID);
	i = i < 0 ? 0 : (i >= KL_KDOP_GRID ? KL_KDOP_GRID - 1 : i);
	j = j < 0 ? 0 : (j >= KL_KDOP_GRID ? KL_KDOP_GRID - 1 : j);
	return (f * KL_KDOP_GRID + i) * KL_KDOP_GRID + j;
}

/// The direction at cube face f and face coordinates (u, w) ∈ [−1, 1]² (the inverse of cell_of).
static void cell_direction(int f, double u, double w, double v[3])
{
	double s = (f & 1) ? -1.0 : 1.0;
	int axis = f / 2;
	v[axis] = s;
	v[(axis + 1) % 3] = u;
	v[(axis + 2) % 3] = w;
}

/// Fills the cube-map lookup. A cell whose four corner directions all lie in one face's cone lies in it
/// entirely (the cone is convex and the cell is the cone over its corners): its list is that face alone.
/// Other cells list the faces decompose_search picks for a 7×7 grid of directions spread over the cell
/// grown by a fifth of a cell on every side (so that directions between the samples usually find their
/// face in the list too; those that do not take the full search). About 10 ms per direction set, once.
static void build_cells(kl_kdop_dirs* d)
{
	enum
	{
		S = 7
	};
	int used = 0;
	for (int c = 0; c < KL_KDOP_CELLS; ++c)
	{
		d->cell_first[c] = (uint16_t)used;
		int f = c / (KL_KDOP_GRID * KL_KDOP_GRID);
		int i = (c / KL_KDOP_GRID) % KL_KDOP_GRID;
		int j = c % KL_KDOP_GRID;
		double corner[4][3];
		for (int q = 0; q < 4; ++q)
		{
			cell_direction(f, -1.0 + 2.0 * (i + (q & 1)) / KL_KDOP_GRID, -1.0 + 2.0 * (j + (q >> 1)) / KL_KDOP_GRID,
						   corner[q]);
		}
		int pure = -1;
		for (int fi = 0; fi < d->face_count && pure < 0; ++fi)
		{
			bool all = true;
			for (int q = 0; q < 4 && all; ++q)
			{
				double l[3];
				all = cone_min(d->face + fi, corner[q], l) > 1e-12;
			}
			pure = all ? fi : -1;
		}
		if (pure >= 0 && used < KL_KDOP_CELL_FACES)
		{
			d->cell_face[used++] = (uint8_t)pure;
			continue;
		}
		for (int a = 0; a < S; ++a)
		{
			for (int b = 0; b < S; ++b)
			{
				double u = -1.0 + 2.0 * (i - 0.2 + 1.4 * a / (S - 1)) / KL_KDOP_GRID;
				double w = -1.0 + 2.0 * (j - 0.2 + 1.4 * b / (S - 1)) / KL_KDOP_GRID;
				double v[3], lambda[3];
				cell_direction(f, fmax(-1.0, fmin(1.0, u)), fmax(-1.0, fmin(1.0, w)), v);
				const kl_kdop_face* face = decompose_search(d, v, lambda);
				if (face == NULL)
				{
					continue;
				}
				uint8_t fi = (uint8_t)(face - d->face);
				bool present = false;
				for (int q = d->cell_first[c]; q < used && !present; ++q)
				{
					present = d->cell_face[q] == fi;
				}
				if (!present && used < KL_KDOP_CELL_FACES)
				{
					d->cell_face[used++] = fi;
				}
			}
		}
	}
	d->cell_first[KL_KDOP_CELLS] = (uint16_t)used;
}

/// Writes v as λ0 n0 + λ1 n1 + λ2 n2 (λ ≥ 0) with a hull triangle of the normals whose cone holds v: the
/// first face of v's cube-map cell that holds it, else the full search.
static const kl_kdop_face* decompose(const kl_kdop_dirs* d, const double v[3], double lambda[3])
{
	int cell = cell_of(v);
	for (int q = d->cell_first[cell]; q < d->cell_first[cell + 1]; ++q)
	{
		const kl_kdop_face* face = d->face + d->cell_face[q];
		double l[3];
		if (cone_min(face, v, l) >= 0.0)
		{
			memcpy(lambda, l, sizeof(l));
			return face;
		}
	}
	return decompose_search(d, v, lambda);
}

void kl_kdop_plan_make(kl_kdop_plan* plan, const kl_kdop_storage* src, const kl_kdop_storage* dst,
					   const double m[3][3], const double t[3], float margin)
{
	const kl_kdop_dirs* sd = src->dirs;
	const kl_kdop_dirs* dd = dst->dirs;
	int ain = sd->axes;
	int aout = dd->axes;
	plan->axes_in = ain;
	plan->axes_out = aout;
	plan->max_residual = 0.0;
	for (int i = 0; i < aout; ++i)
	{
		double e[3] = {dd->dir[i][0], dd->dir[i][1], dd->dir[i][2]};
		double v[3];
		for (int c = 0; c < 3; ++c)
		{
			v[c] = m[0][c] * e[0] + m[1][c] * e[1] + m[2][c] * e[2];
		}
		double et = e[0] * t[0] + e[1] * t[1] + e[2] * t[2];
		double lambda[3] = {0.0, 0.0, 0.0};
		const kl_kdop_face* face = decompose(sd, v, lambda);
		if (face == NULL)
		{
			// Unreachable for the built-in sets (their normals span every direction); stay conservative.
			for (int q = 0; q < 3; ++q)
			{
				plan->row[i][q] = plan->row[aout + i][q] = 0;
				plan->coef[i][q] = plan->coef[aout + i][q] = 0.0f;
			}
			plan->c[i] = -KL_KDOP_BIG;
			plan->c[aout + i] = KL_KDOP_BIG;
			continue;
		}
		double off_sum = 0.0;
		double coef_abs = 0.0;
		double lambda_err = 0.0;
		for (int q = 0; q < 3; ++q)
		{
			float lf = lambda[q] > 0.0 ? (float)lambda[q] : 0.0f;
			lambda_err += fabs(lambda[q] - (double)lf);
			int nidx = face->n[q];
			bool plus = nidx < ain;
			int j = plus ? nidx : nidx - ain;
			float coef = plus ? lf : -lf;
			// hi row: support along +d_j is hi_j, along −d_j it is −lo_j; the lo row swaps the two.
			plan->row[aout + i][q] = (int16_t)(plus ? ain + j : j);
			plan->row[i][q] = (int16_t)(plus ? j : ain + j);
			plan->coef[aout + i][q] = coef;
			plan->coef[i][q] = coef;
			off_sum += (double)coef * (src->offset != NULL ? src->offset[j] : 0.0);
			coef_abs += (double)lf;
		}
		// |v − Σ lf·n| without forming it: λ solves v = Σ λ n up to double rounding of inv·v and of the
		// stored inverse (far below 1e-9 of Σλ for these well-shaped normal triangles), and each |n| is
		// 1 within float rounding, so the residual is at most Σ|λ − lf| plus that.
		double rn = lambda_err * (1.0 + 1e-6) + 1e-9 * (coef_abs + lambda_err);
		plan->max_residual = rn > plan->max_residual ? rn : plan->max_residual;
		double off_b = dst->offset != NULL ? dst->offset[i] : 0.0;
		double c_nom = off_sum + et - off_b;
		// Rounding allowance of the float evaluation (six operations on values below coef_abs·S + |c|),
		// the decomposition's residual times the largest point radius, and the margin's own rounding.
		double allow = 32.0 * FLT_EPSILON * (coef_abs * src->stored_abs_max + fabs(c_nom) + margin) +
					   rn * src->point_radius * 1.000001 + 1e-12 * fabs(c_nom) + 1e-30;
		double grow = allow + (double)margin;
		bool fast = fabs(c_nom) + grow < 1e37;
		plan->c[aout + i] = fast ? round_out_fast(c_nom, grow, 1) : round_out(c_nom, grow, 1);
		plan->c[i] = fast ? round_out_fast(c_nom, grow, -1) : round_out(c_nom, grow, -1);
	}
}

void kl_kdop_realign(const kl_kdop_plan* plan, const float* lo, const float* hi, int stride, float* out_lo,
					 float* out_hi)
{
	int ain = plan->axes_in;
	int aout = plan->axes_out;
	for (int r = 0; r < 2 * aout; ++r)
	{
		float s[3];
		for (int q = 0; q < 3; ++q)
		{
			int row = plan->row[r][q];
			s[q] = row < ain ? lo[row * stride] : hi[(row - ain) * stride];
		}
		float v = ((plan->coef[r][0] * s[0] + plan->coef[r][1] * s[1]) + plan->coef[r][2] * s[2]) + plan->c[r];
		if (r < aout)
		{
			out_lo[r] = v;
		}
		else
		{
			out_hi[r - aout] = v;
		}
	}
}

static uint16_t half_next_up(uint16_t h)
{
	if (h == 0x0000u || h == 0x8000u)
	{
		return 0x0001u;
	}
	if (h & 0x8000u)
	{
		return (uint16_t)(h - 1u);
	}
	return h == 0x7C00u ? h : (uint16_t)(h + 1u);
}

static uint16_t half_next_down(uint16_t h)
{
	if (h == 0x0000u || h == 0x8000u)
	{
		return 0x8001u;
	}
	if (h & 0x8000u)
	{
		return h == 0xFC00u ? h : (uint16_t)(h + 1u);
	}
	return (uint16_t)(h - 1u);
}

static uint16_t half_from_float_nearest(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof(x));
	uint32_t sign = (x >> 16) & 0x8000u;
	uint32_t a = x & 0x7FFFFFFFu;
	if (a >= 0x7F800000u)
	{
		return (uint16_t)(sign | (a > 0x7F800000u ? 0x7E00u : 0x7C00u));
	}
	if (a >= 0x477FF000u)
	{
		return (uint16_t)(sign | 0x7C00u); // ≥ 65520 rounds to infinity
	}
	if (a < 0x38800000u)
	{
		// Below 2^-14: a multiple of the subnormal unit 2^-24 (nearbyint rounds half to even).
		float mag = fabsf(f) * 16777216.0f;
		return (uint16_t)(sign | (uint32_t)nearbyintf(mag));
	}
	uint32_t h = (((a >> 23) - 112u) << 10) | ((a & 0x7FFFFFu) >> 13);
	uint32_t rest = a & 0x1FFFu;
	if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
	{
		h += 1u;
	}
	return (uint16_t)(sign | h);
}

uint16_t kl_half_from_double(double x, int dir)
{
	if (isnan(x))
	{
		return 0x7E00u;
	}
	uint16_t h = half_from_float_nearest((float)x);
	if (dir < 0)
	{
		while ((double)kl_half_to_float(h) > x)
		{
			h = half_next_down(h);
		}
	}
	else if (dir > 0)
	{
		while ((double)kl_half_to_float(h) < x)
		{
			h = half_next_up(h);
		}
	}
	return h;
}

float kl_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t e = (h >> 10) & 0x1Fu;
	uint32_t m = h & 0x3FFu;
	if (e == 0)
	{
		float v = (float)m * 5.9604644775390625e-8f; // m · 2^-24, exact
		return sign ? -v : v;
	}
	uint32_t bits = e == 31 ? (sign | 0x7F800000u | (m << 13)) : (sign | ((e + 112u) << 23) | (m << 13));
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}
