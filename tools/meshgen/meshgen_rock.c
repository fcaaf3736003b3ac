// Kollide — meshgen rock: a geodesic icosphere displaced by seeded fractal value noise.
// SPDX-License-Identifier: MIT
//
// Each icosahedron edge is cut into `frequency` parts and each face into frequency² triangles. Edge
// points are made once per edge (from its lower-numbered end), so faces share them exactly. The
// noise only scales each vertex along its direction from the centre; a triangle's orientation seen
// from the centre is the sign of det(a, b, c), which radial scaling by positive factors keeps, so
// no triangle folds however rough the noise.
#include "meshgen_internal.h"

#include <stdlib.h>

kl_meshgen_rock_params kl_meshgen_default_rock_params(void)
{
	kl_meshgen_rock_params p;
	p.frequency = 50;
	p.radius = 0.1f;
	p.scale = (vec3s){{1.0f, 0.8f, 0.65f}};
	p.amplitude = 0.25f;
	p.roughness = 1.5f;
	p.octaves = 5;
	p.seed = 1u;
	return p;
}

// ---------------------------------------------------------------------------------------------
// Noise

static uint32_t hash(int32_t x, int32_t y, int32_t z, uint32_t seed)
{
	uint32_t h = seed * 0x9E3779B9u;
	h ^= (uint32_t)x * 0x85EBCA6Bu;
	h = (h ^ (h >> 15)) * 0x2C1B3C6Du;
	h ^= (uint32_t)y * 0xC2B2AE35u;
	h = (h ^ (h >> 13)) * 0x297A2D39u;
	h ^= (uint32_t)z * 0x27D4EB2Fu;
	h = (h ^ (h >> 16)) * 0x85EBCA6Bu;
	return h ^ (h >> 16);
}

// Lattice value in [-1, 1].
static double lattice(int32_t x, int32_t y, int32_t z, uint32_t seed)
{
	return (double)hash(x, y, z, seed) / 2147483647.5 - 1.0;
}

static double smooth(double t)
{
	return t * t * (3.0 - 2.0 * t);
}

static double lerp(double a, double b, double t)
{
	return a + (b - a) * t;
}

/// Trilinear value noise with smoothstep weights, in [-1, 1].
static double value_noise(double x, double y, double z, uint32_t seed)
{
	double fx = floor(x), fy = floor(y), fz = floor(z);
	int32_t ix = (int32_t)fx, iy = (int32_t)fy, iz = (int32_t)fz;
	double tx = smooth(x - fx), ty = smooth(y - fy), tz = smooth(z - fz);
	double c[2][2];
	for (int j = 0; j < 2; ++j)
	{
		for (int k = 0; k < 2; ++k)
		{
			c[j][k] = lerp(lattice(ix, iy + j, iz + k, seed), lattice(ix + 1, iy + j, iz + k, seed), tx);
		}
	}
	return lerp(lerp(c[0][0], c[1][0], ty), lerp(c[0][1], c[1][1], ty), tz);
}

/// Fractal sum of octaves (lacunarity 2, gain 0.5), normalised to [-1, 1].
static double fractal_noise(const kl_meshgen_rock_params* p, const double d[3])
{
	double sum = 0.0, weight = 1.0, total = 0.0, f = p->roughness;
	for (int o = 0; o < p->octaves; ++o)
	{
		// An offset per octave keeps the lattice origins of the octaves from lining up.
		sum += weight * value_noise(d[0] * f + 17.3 * o, d[1] * f - 5.1 * o, d[2] * f + 9.7 * o, p->seed + (uint32_t)o);
		total += weight;
		weight *= 0.5;
		f *= 2.0;
	}
	return sum / total;
}

// ---------------------------------------------------------------------------------------------
// Icosphere

static const int k_faces[20][3] = {
	{0, 11, 5}, {0, 5, 1},	{0, 1, 7},	{0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
	{3, 9, 4},	{3, 4, 2},	{3, 2, 6},	{3, 6, 8},	{3, 8, 9},	 {4, 9, 5}, {2, 4, 11}, {6, 2, 10},	 {8, 6, 7},	 {9, 8, 1},
};

static void icosahedron(double v[12][3])
{
	double t = (1.0 + sqrt(5.0)) / 2.0;
	const double raw[12][3] = {
		{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
		{0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1},
	};
	for (int i = 0; i < 12; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			v[i][k] = raw[i][k];
		}
	}
}

/// The 30 edges, numbered in face order; edge_of[f][e] is the edge from corner e to corner e + 1.
typedef struct ico_edges
{
	int ends[30][2]; ///< lower vertex first
	int edge_of[20][3];
} ico_edges;

static void find_edges(ico_edges* e)
{
	int count = 0;
	for (int f = 0; f < 20; ++f)
	{
		for (int c = 0; c < 3; ++c)
		{
			int a = k_faces[f][c], b = k_faces[f][(c + 1) % 3];
			int lo = a < b ? a : b, hi = a < b ? b : a, found = -1;
			for (int i = 0; i < count && found < 0; ++i)
			{
				found = e->ends[i][0] == lo && e->ends[i][1] == hi ? i : -1;
			}
			if (found < 0)
			{
				e->ends[count][0] = lo;
				e->ends[count][1] = hi;
				found = count++;
			}
			e->edge_of[f][c] = found;
		}
	}
}

typedef struct ico_grid
{
	const ico_edges* edges;
	int n;
	int edge_base;	///< first edge-interior vertex
	int face_base;	///< first face-interior vertex
} ico_grid;

// Vertex `step` (1 .. n - 1) of the way from corner a to corner b along their edge.
static int edge_vertex(const ico_grid* g, int edge, int a, int step)
{
	int along = g->edges->ends[edge][0] == a ? step : g->n - step;
	return g->edge_base + edge * (g->n - 1) + along - 1;
}

/// Index of grid point (i, j) of face f: corner A + i / n (B - A) + j / n (C - A).
static int grid_vertex(const ico_grid* g, int f, int i, int j)
{
	const int* c = k_faces[f];
	int n = g->n;
	if (i == 0 && j == 0)
	{
		return c[0];
	}
	if (i == n)
	{
		return c[1];
	}
	if (j == n)
	{
		return c[2];
	}
	if (j == 0)
	{
		return edge_vertex(g, g->edges->edge_of[f][0], c[0], i);
	}
	if (i + j == n)
	{
		return edge_vertex(g, g->edges->edge_of[f][1], c[1], j);
	}
	if (i == 0)
	{
		return edge_vertex(g, g->edges->edge_of[f][2], c[2], n - j);
	}
	// Interior points (i ≥ 1, j ≥ 1, i + j ≤ n - 1), row by row.
	int per_face = (n - 1) * (n - 2) / 2;
	int row_start = (j - 1) * (n - 2) - (j - 1) * (j - 2) / 2;
	return g->face_base + f * per_face + row_start + (i - 1);
}

static void place(mg_builder* b, const kl_meshgen_rock_params* p, const double d[3])
{
	double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	double u[3] = {d[0] / len, d[1] / len, d[2] / len};
	double r = p->radius * (1.0 + p->amplitude * fractal_noise(p, u));
	mg_vertex(b, r * u[0] * p->scale.x, r * u[1] * p->scale.y, r * u[2] * p->scale.z);
}

static kl_result check_rock(const kl_meshgen_rock_params* p)
{
	if (p == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "rock: params must not be NULL");
	}
	if (!mg_check_int("rock: frequency", p->frequency, 1, 900) ||
		!mg_check_float("rock: radius", p->radius, 1e-6, 1e4) ||
		!mg_check_float("rock: scale.x", p->scale.x, 1e-3, 1e3) ||
		!mg_check_float("rock: scale.y", p->scale.y, 1e-3, 1e3) ||
		!mg_check_float("rock: scale.z", p->scale.z, 1e-3, 1e3) ||
		!mg_check_float("rock: amplitude", p->amplitude, 0.0, 0.9) ||
		!mg_check_float("rock: roughness", p->roughness, 0.0, 1e3) ||
		!mg_check_int("rock: octaves", p->octaves, 1, 12))
	{
		return KL_ERR_INVALID_ARGUMENT;
	}
	return KL_OK;
}

kl_result kl_meshgen_rock(const kl_meshgen_rock_params* params, kl_meshgen_mesh* out)
{
	mg_clear_error();
	if (out == NULL)
	{
		return mg_fail(KL_ERR_INVALID_ARGUMENT, "rock: out must not be NULL");
	}
	*out = (kl_meshgen_mesh){0};
	kl_result r = check_rock(params);
	if (r != KL_OK)
	{
		return r;
	}
	int n = params->frequency;
	ico_edges edges;
	find_edges(&edges);
	double v[12][3];
	icosahedron(v);
	ico_grid g = {&edges, n, 12, 12 + 30 * (n - 1)};
	mg_builder b;
	mg_builder_init(&b, 10 * n * n + 2, 20 * n * n);
	for (int i = 0; i < 12; ++i)
	{
		place(&b, params, v[i]);
	}
	for (int e = 0; e < 30; ++e)
	{
		const double* a = v[edges.ends[e][0]];
		const double* c = v[edges.ends[e][1]];
		for (int s = 1; s < n; ++s)
		{
			double t = (double)s / n;
			double d[3] = {a[0] + (c[0] - a[0]) * t, a[1] + (c[1] - a[1]) * t, a[2] + (c[2] - a[2]) * t};
			place(&b, params, d);
		}
	}
	for (int f = 0; f < 20; ++f)
	{
		const double* A = v[k_faces[f][0]];
		const double* B = v[k_faces[f][1]];
		const double* C = v[k_faces[f][2]];
		for (int j = 1; j < n - 1; ++j)
		{
			for (int i = 1; i + j < n; ++i)
			{
				double s = (double)i / n, t = (double)j / n, d[3];
				for (int k = 0; k < 3; ++k)
				{
					d[k] = A[k] + (B[k] - A[k]) * s + (C[k] - A[k]) * t;
				}
				place(&b, params, d);
			}
		}
	}
	for (int f = 0; f < 20; ++f)
	{
		for (int j = 0; j < n; ++j)
		{
			for (int i = 0; i + j < n; ++i)
			{
				mg_triangle(&b, grid_vertex(&g, f, i, j), grid_vertex(&g, f, i + 1, j), grid_vertex(&g, f, i, j + 1));
				if (i + j + 1 < n)
				{
					mg_triangle(&b, grid_vertex(&g, f, i + 1, j), grid_vertex(&g, f, i + 1, j + 1),
								grid_vertex(&g, f, i, j + 1));
				}
			}
		}
	}
	return mg_finish(&b, out);
}
