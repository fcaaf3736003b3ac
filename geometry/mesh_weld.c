// Kollide — mesh build stages that turn a triangle soup into an indexed mesh: welding of
// near-coincident vertices, then cleaning out degenerate triangles and unused vertices.
// SPDX-License-Identifier: MIT
#include "mesh.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------
// Welding: a hash grid of representatives. A vertex joins the earliest representative within the
// tolerance, else becomes one, so the result depends only on the input order. Cells are twice the
// tolerance wide: a vertex's neighbourhood then touches at most two cells per axis (8, not 27).

typedef struct weld_grid
{
	int32_t* slots; ///< first representative of a cell's chain, -1 when empty
	int32_t* next;	///< next representative in the same cell
	const vec3s* representatives;
	uint32_t mask;
	double inv_cell; ///< 0: exact welding (bit-identical positions)
} weld_grid;

// The cell of one coordinate, and which neighbouring cell (-1, +1) the tolerance reaches into
// (0: none).
static int64_t cell_coordinate(float x, double inv_cell, int* step)
{
	double q = (double)x * inv_cell;
	if (inv_cell > 0.0 && fabs(q) < 1073741824.0)
	{
		double cell = floor(q);
		*step = q - cell < 0.5 ? -1 : 1;
		return (int64_t)cell;
	}
	// Exact welding, or a coordinate so large that neighbouring floats lie more than the tolerance
	// apart: the float itself is the cell, kept clear of the grid's range. +0 folds -0 into +0.
	float y = x + 0.0f;
	uint32_t bits;
	memcpy(&bits, &y, sizeof(bits));
	*step = 0;
	return ((int64_t)1 << 40) + (int64_t)bits;
}

static void cell_of(vec3s p, double inv_cell, int64_t cell[3], int step[3])
{
	for (int k = 0; k < 3; ++k)
	{
		cell[k] = cell_coordinate(p.raw[k], inv_cell, &step[k]);
	}
}

static uint32_t cell_hash(const int64_t cell[3])
{
	uint64_t h = (uint64_t)cell[0] * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)cell[1] * 0xC2B2AE3D27D4EB4Full;
	h ^= (uint64_t)cell[2] * 0x165667B19E3779F9ull;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

// The slot holding the cell's chain, or the empty slot where it would go.
static uint32_t grid_slot(const weld_grid* grid, const int64_t cell[3])
{
	uint32_t i = cell_hash(cell) & grid->mask;
	while (grid->slots[i] >= 0)
	{
		int64_t other[3];
		int step[3];
		cell_of(grid->representatives[grid->slots[i]], grid->inv_cell, other, step);
		if (other[0] == cell[0] && other[1] == cell[1] && other[2] == cell[2])
		{
			return i;
		}
		i = (i + 1) & grid->mask;
	}
	return i;
}

static double distance_squared(vec3s a, vec3s b)
{
	double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
	return dx * dx + dy * dy + dz * dz;
}

// The earliest representative within the tolerance of p, or -1.
static int find_representative(const weld_grid* grid, vec3s p, double tolerance_squared)
{
	int64_t cell[3];
	int step[3];
	cell_of(p, grid->inv_cell, cell, step);
	int best = -1;
	for (int corner = 0; corner < 8; ++corner)
	{
		int64_t other[3];
		bool reachable = true;
		for (int k = 0; k < 3; ++k)
		{
			int offset = (corner >> k & 1) ? step[k] : 0;
			reachable = reachable && ((corner >> k & 1) == 0 || offset != 0);
			other[k] = cell[k] + offset;
		}
		if (!reachable)
		{
			continue;
		}
		for (int r = grid->slots[grid_slot(grid, other)]; r >= 0; r = grid->next[r])
		{
			if ((best < 0 || r < best) && distance_squared(grid->representatives[r], p) <= tolerance_squared)
			{
				best = r;
			}
		}
	}
	return best;
}

kl_result kl_mesh_weld(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
{
	int n = def->vertex_count;
	uint32_t capacity = 16;
	while (capacity < 2u * (uint32_t)n)
	{
		capacity *= 2;
	}
	weld_grid grid = {0};
	grid.slots = kl_alloc(capacity, sizeof(int32_t));
	grid.next = kl_alloc((size_t)n, sizeof(int32_t));
	mesh->vertices = kl_alloc((size_t)n, sizeof(vec3s));
	if (grid.slots == NULL || grid.next == NULL || mesh->vertices == NULL)
	{
		kl_free(grid.slots);
		kl_free(grid.next);
		return KL_ERR_OUT_OF_MEMORY;
	}
	memset(grid.slots, 0xff, capacity * sizeof(int32_t));
	grid.representatives = mesh->vertices;
	grid.mask = capacity - 1;
	grid.inv_cell = def->weld_tolerance > 0.0f ? 0.5 / (double)def->weld_tolerance : 0.0;
	double tolerance_squared = (double)def->weld_tolerance * (double)def->weld_tolerance;

	kl_result result = KL_OK;
	int count = 0;
	for (int i = 0; i < n && result == KL_OK; ++i)
	{
		vec3s p = def->vertices[i];
		int r = find_representative(&grid, p, tolerance_squared);
		if (r < 0)
		{
			int64_t cell[3];
			int step[3];
			cell_of(p, grid.inv_cell, cell, step);
			uint32_t slot = grid_slot(&grid, cell);
			r = count++;
			mesh->vertices[r] = p;
			grid.next[r] = grid.slots[slot];
			grid.slots[slot] = r;
		}
		remap[i] = r;
		result = kl_mesh_report_loop(def, "weld", i, n) ? KL_OK : KL_ERR_INVALID_ARGUMENT;
	}
	kl_free(grid.slots);
	kl_free(grid.next);
	mesh->info.vertex_count = count;
	mesh->info.welded_vertex_count = n - count;
	return result;
}

// ---------------------------------------------------------------------------------------------
// Cleaning: degenerate triangles out, unused vertices out.

static kl_aabb vertex_bounds(const vec3s* vertices, int count)
{
	kl_aabb box = {vertices[0], vertices[0]};
	for (int i = 1; i < count; ++i)
	{
		box.lower = glms_vec3_minv(box.lower, vertices[i]);
		box.upper = glms_vec3_maxv(box.upper, vertices[i]);
	}
	return box;
}

double kl_mesh_bounds_diagonal(kl_aabb box)
{
	return sqrt(distance_squared(box.lower, box.upper));
}

static bool is_degenerate(const vec3s* v, int32_t a, int32_t b, int32_t c, double zero_cross_squared)
{
	if (a == b || b == c || a == c)
	{
		return true;
	}
	double e[2][3];
	for (int k = 0; k < 3; ++k)
	{
		e[0][k] = (double)v[b].raw[k] - v[a].raw[k];
		e[1][k] = (double)v[c].raw[k] - v[a].raw[k];
	}
	double nx = e[0][1] * e[1][2] - e[0][2] * e[1][1];
	double ny = e[0][2] * e[1][0] - e[0][0] * e[1][2];
	double nz = e[0][0] * e[1][1] - e[0][1] * e[1][0];
	return nx * nx + ny * ny + nz * nz <= zero_cross_squared;
}

// Renumbers the vertices that triangles use, keeping their order; unused ones would only skew the
// bounds and the hull used for mass.
static void drop_unused_vertices(kl_mesh* mesh, int32_t* map)
{
	int n = mesh->info.vertex_count;
	memset(map, 0xff, (size_t)n * sizeof(int32_t));
	for (int i = 0; i < 3 * mesh->info.triangle_count; ++i)
	{
		map[mesh->indices[i]] = 0;
	}
	int count = 0;
	for (int i = 0; i < n; ++i)
	{
		if (map[i] == 0)
		{
			mesh->vertices[count] = mesh->vertices[i];
			map[i] = count++;
		}
	}
	for (int i = 0; i < 3 * mesh->info.triangle_count; ++i)
	{
		mesh->indices[i] = map[mesh->indices[i]];
	}
	mesh->info.vertex_count = count;
	vec3s* shrunk = kl_realloc(mesh->vertices, (size_t)count, sizeof(vec3s));
	mesh->vertices = shrunk != NULL ? shrunk : mesh->vertices;
}

kl_result kl_mesh_clean(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
{
	mesh->indices = kl_alloc((size_t)def->triangle_count, 3 * sizeof(int32_t));
	if (mesh->indices == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_aabb bounds = vertex_bounds(mesh->vertices, mesh->info.vertex_count);
	double zero = KL_MESH_ZERO_AREA_RATIO * kl_mesh_bounds_diagonal(bounds);
	double zero_cross_squared = zero * zero * zero * zero;
	int count = 0;
	for (int t = 0; t < def->triangle_count; ++t)
	{
		int32_t a = remap[def->indices[3 * t]], b = remap[def->indices[3 * t + 1]], c = remap[def->indices[3 * t + 2]];
		if (is_degenerate(mesh->vertices, a, b, c, zero_cross_squared))
		{
			mesh->info.degenerate_triangle_count += 1;
		}
		else
		{
			mesh->indices[3 * count] = a;
			mesh->indices[3 * count + 1] = b;
			mesh->indices[3 * count + 2] = c;
			count += 1;
		}
		if (!kl_mesh_report_loop(def, "clean", t, def->triangle_count))
		{
			return KL_ERR_INVALID_ARGUMENT;
		}
	}
	if (count == 0)
	{
		return kl_fail(KL_ERR_DEGENERATE, "mesh: all %d triangles are degenerate", def->triangle_count);
	}
	mesh->info.triangle_count = count;
	drop_unused_vertices(mesh, remap);
	mesh->info.bounds = vertex_bounds(mesh->vertices, mesh->info.vertex_count);
	return KL_OK;
}
