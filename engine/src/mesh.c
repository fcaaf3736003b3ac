// Kollide — mesh collision models: validate, weld, drop degenerate triangles, check topology and
// orientation, integrate mass. Every stage reports progress and may be cancelled.
// SPDX-License-Identifier: MIT
#include "mesh.h"

#include <kollide/io.h>

#include <float.h>
#include <string.h>

// Progress is reported per stage ("weld", "clean", "topology", "mass") as the fraction of that
// stage done: 0 when it starts, 1 when it ends, and in between for long loops.
#define KL_MESH_PROGRESS_STRIDE 0x10000

kl_mesh_def kl_default_mesh_def(void)
{
	kl_mesh_def def;
	memset(&def, 0, sizeof(def));
	return def;
}

// False when the callback asked to stop; the failure is then recorded.
static bool report(const kl_mesh_def* def, const char* stage, float fraction)
{
	if (def->progress == NULL || def->progress(stage, fraction, def->progress_context))
	{
		return true;
	}
	kl_fail(KL_ERR_CANCELLED, "mesh build cancelled by the progress callback (stage %s)", stage);
	return false;
}

static bool report_loop(const kl_mesh_def* def, const char* stage, int i, int count)
{
	if ((i + 1) % KL_MESH_PROGRESS_STRIDE != 0)
	{
		return true;
	}
	return report(def, stage, (float)i / (float)count);
}

static kl_result validate_def(const kl_mesh_def* def)
{
	if (def == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh def is NULL");
	}
	if (def->vertex_count < 0 || def->triangle_count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: negative count (%d vertices, %d triangles)",
					   def->vertex_count, def->triangle_count);
	}
	if (def->vertex_count > KL_MESH_MAX_VERTICES || def->triangle_count > KL_MESH_MAX_TRIANGLES)
	{
		return kl_fail(KL_ERR_LIMIT, "mesh: %d vertices, %d triangles exceed the limits (%d, %d)",
					   def->vertex_count, def->triangle_count, KL_MESH_MAX_VERTICES, KL_MESH_MAX_TRIANGLES);
	}
	if (!(def->weld_tolerance >= 0.0f) || !isfinite(def->weld_tolerance))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: weld tolerance %g must be finite and >= 0",
					   (double)def->weld_tolerance);
	}
	if (def->triangle_count == 0)
	{
		return kl_fail(KL_ERR_DEGENERATE, "mesh has no triangles");
	}
	if ((def->vertices == NULL && def->vertex_count > 0) || def->indices == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: vertices or indices are NULL");
	}
	for (int i = 0; i < def->vertex_count; ++i)
	{
		vec3s v = def->vertices[i];
		if (!kl_vec3_is_finite(v))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: vertex %d is not finite (%g, %g, %g)", i, (double)v.x,
						   (double)v.y, (double)v.z);
		}
	}
	for (int i = 0; i < 3 * def->triangle_count; ++i)
	{
		int32_t index = def->indices[i];
		if (index < 0 || index >= def->vertex_count)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh: triangle %d uses vertex %d, outside [0, %d)", i / 3,
						   (int)index, def->vertex_count);
		}
	}
	return KL_OK;
}

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

static kl_result weld(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
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
		result = report_loop(def, "weld", i, n) ? KL_OK : KL_ERR_INVALID_ARGUMENT;
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

static double bounds_diagonal(kl_aabb box)
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

static kl_result clean(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
{
	mesh->indices = kl_alloc((size_t)def->triangle_count, 3 * sizeof(int32_t));
	if (mesh->indices == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	double zero = KL_MESH_ZERO_AREA_RATIO * bounds_diagonal(vertex_bounds(mesh->vertices, mesh->info.vertex_count));
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
		if (!report_loop(def, "clean", t, def->triangle_count))
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

// ---------------------------------------------------------------------------------------------
// Topology: every directed edge as a key (low vertex, high vertex, direction), sorted so that the
// uses of an edge lie together.

// LSD radix sort, 11 bits a pass; returns whichever buffer ends up sorted.
static uint64_t* sort_keys(uint64_t* keys, uint64_t* scratch, int count, int bits)
{
	enum
	{
		digit_bits = 11,
		digits = 1 << digit_bits
	};
	for (int shift = 0; shift < bits; shift += digit_bits)
	{
		int offsets[digits] = {0};
		for (int i = 0; i < count; ++i)
		{
			offsets[(keys[i] >> shift) & (digits - 1)] += 1;
		}
		int sum = 0;
		for (int d = 0; d < digits; ++d)
		{
			int n = offsets[d];
			offsets[d] = sum;
			sum += n;
		}
		for (int i = 0; i < count; ++i)
		{
			scratch[offsets[(keys[i] >> shift) & (digits - 1)]++] = keys[i];
		}
		uint64_t* t = keys;
		keys = scratch;
		scratch = t;
	}
	return keys;
}

static void count_edges(kl_mesh_info* info, const uint64_t* keys, int count)
{
	for (int i = 0; i < count;)
	{
		int j = i, forward = 0;
		while (j < count && keys[j] >> 1 == keys[i] >> 1)
		{
			forward += (int)(keys[j] & 1);
			j += 1;
		}
		int uses = j - i;
		if (uses == 1)
		{
			info->open_edge_count += 1;
		}
		else if (uses > 2)
		{
			info->non_manifold_edge_count += 1;
		}
		else if (forward != 1)
		{
			// Two neighbours that agree on orientation traverse their edge in opposite directions.
			info->inconsistent_edge_count += 1;
		}
		i = j;
	}
}

static kl_result topology(kl_mesh* mesh)
{
	int count = 3 * mesh->info.triangle_count;
	uint64_t* keys = kl_alloc((size_t)count, sizeof(uint64_t));
	uint64_t* scratch = kl_alloc((size_t)count, sizeof(uint64_t));
	if (keys == NULL || scratch == NULL)
	{
		kl_free(keys);
		kl_free(scratch);
		return KL_ERR_OUT_OF_MEMORY;
	}
	int vertex_bits = 1;
	while ((1 << vertex_bits) < mesh->info.vertex_count)
	{
		vertex_bits += 1;
	}
	for (int i = 0; i < count; ++i)
	{
		uint64_t a = (uint64_t)mesh->indices[i];
		uint64_t b = (uint64_t)mesh->indices[i % 3 == 2 ? i - 2 : i + 1];
		uint64_t low = a < b ? a : b, high = a < b ? b : a;
		keys[i] = ((low << vertex_bits | high) << 1) | (a < b ? 1u : 0u);
	}
	const uint64_t* sorted = sort_keys(keys, scratch, count, 2 * vertex_bits + 1);
	count_edges(&mesh->info, sorted, count);
	kl_free(keys);
	kl_free(scratch);
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Mass: exact integration of a closed mesh, else of the convex hull of its vertices.

// Direction cones per side of a cube-map face, for meshes with more vertices than kl_hull_build
// takes: 6 · 100² cones stay within its limit.
#define KL_MESH_HULL_CONES 100
_Static_assert(6 * KL_MESH_HULL_CONES * KL_MESH_HULL_CONES <= KL_HULL_MAX_INPUT_POINTS, "too many hull cones");

// The cube-map cone of a direction d from the centre, and the cone's own unit direction.
static int cone_of(const double d[3], double axis[3])
{
	int a = fabs(d[0]) >= fabs(d[1]) && fabs(d[0]) >= fabs(d[2]) ? 0 : (fabs(d[1]) >= fabs(d[2]) ? 1 : 2);
	double major = fabs(d[a]);
	int b = (a + 1) % 3, c = (a + 2) % 3;
	int iu = (int)((d[b] / major + 1.0) * 0.5 * KL_MESH_HULL_CONES);
	int iv = (int)((d[c] / major + 1.0) * 0.5 * KL_MESH_HULL_CONES);
	iu = iu < KL_MESH_HULL_CONES ? iu : KL_MESH_HULL_CONES - 1;
	iv = iv < KL_MESH_HULL_CONES ? iv : KL_MESH_HULL_CONES - 1;
	axis[a] = d[a] < 0.0 ? -1.0 : 1.0;
	axis[b] = (iu + 0.5) * 2.0 / KL_MESH_HULL_CONES - 1.0;
	axis[c] = (iv + 0.5) * 2.0 / KL_MESH_HULL_CONES - 1.0;
	double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
	for (int k = 0; k < 3; ++k)
	{
		axis[k] /= n;
	}
	int face = 2 * a + (d[a] < 0.0 ? 1 : 0);
	return (face * KL_MESH_HULL_CONES + iu) * KL_MESH_HULL_CONES + iv;
}

// A hull of more points than kl_hull_build takes cannot be built exactly (a dense sphere has them
// all on its hull), so such meshes use an inner approximation: in each direction cone around the
// bounds centre, the vertex that reaches farthest along the cone's axis (the first on ties).
static int sample_hull_points(const vec3s* points, int count, kl_aabb bounds, vec3s* out)
{
	int cones = 6 * KL_MESH_HULL_CONES * KL_MESH_HULL_CONES;
	int32_t* best = kl_alloc((size_t)cones, sizeof(int32_t));
	double* reach = kl_alloc((size_t)cones, sizeof(double));
	if (best == NULL || reach == NULL)
	{
		kl_free(best);
		kl_free(reach);
		return -1;
	}
	memset(best, 0xff, (size_t)cones * sizeof(int32_t));
	vec3s center = glms_vec3_scale(glms_vec3_add(bounds.lower, bounds.upper), 0.5f);
	for (int i = 0; i < count; ++i)
	{
		double d[3] = {(double)points[i].x - center.x, (double)points[i].y - center.y, (double)points[i].z - center.z};
		if (d[0] == 0.0 && d[1] == 0.0 && d[2] == 0.0)
		{
			continue; // the centre reaches nowhere
		}
		double axis[3];
		int cone = cone_of(d, axis);
		double r = d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2];
		if (best[cone] < 0 || r > reach[cone])
		{
			best[cone] = i;
			reach[cone] = r;
		}
	}
	int n = 0;
	for (int cone = 0; cone < cones; ++cone)
	{
		if (best[cone] >= 0)
		{
			out[n++] = points[best[cone]];
		}
	}
	kl_free(best);
	kl_free(reach);
	return n;
}

// The hull of the vertices (sampled beyond KL_HULL_MAX_INPUT_POINTS). NULL when they span no
// volume or memory ran out (kl_last_error says which).
static kl_hull* build_hull(const vec3s* points, int count, kl_aabb bounds)
{
	if (count <= KL_HULL_MAX_INPUT_POINTS)
	{
		return kl_hull_build(points, count);
	}
	vec3s* sample = kl_alloc((size_t)6 * KL_MESH_HULL_CONES * KL_MESH_HULL_CONES, sizeof(vec3s));
	int n = sample != NULL ? sample_hull_points(points, count, bounds, sample) : -1;
	kl_hull* hull = n >= 0 ? kl_hull_build(sample, n) : NULL;
	kl_free(sample);
	return hull;
}

// An open or non-manifold mesh encloses no definite volume, so its mass comes from the convex hull
// of its vertices (sampled for very big meshes, see sample_hull_points). Where even the hull is
// flat, the mesh has zero mass (fine for static bodies), with the centre at the middle of its bounds.
static kl_result hull_integrals(kl_mesh* mesh)
{
	mesh->info.mass_source = KL_MESH_MASS_CONVEX_HULL;
	kl_hull* hull = build_hull(mesh->vertices, mesh->info.vertex_count, mesh->info.bounds);
	if (hull == NULL)
	{
		if (kl_last_error_code() == KL_ERR_OUT_OF_MEMORY)
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		memset(&mesh->integrals, 0, sizeof(mesh->integrals));
		vec3s center = glms_vec3_scale(glms_vec3_add(mesh->info.bounds.lower, mesh->info.bounds.upper), 0.5f);
		for (int k = 0; k < 3; ++k)
		{
			mesh->integrals.reference[k] = center.raw[k];
		}
		return KL_OK;
	}
	mesh->integrals =
		kl_polyhedron_integrals(kl_hull_vertices(hull), kl_hull_triangle_indices(hull), kl_hull_triangle_count(hull));
	kl_hull_destroy(hull);
	return KL_OK;
}

static void flip_triangles(kl_mesh* mesh)
{
	for (int t = 0; t < mesh->info.triangle_count; ++t)
	{
		int32_t* tri = mesh->indices + 3 * t;
		int32_t b = tri[1];
		tri[1] = tri[2];
		tri[2] = b;
	}
}

// A consistently oriented two-manifold is closed when it encloses a positive volume. Enclosing a
// negative one means it is inside out: every triangle is flipped (recorded in mesh->flipped).
static kl_result compute_mass(kl_mesh* mesh)
{
	kl_mesh_info* info = &mesh->info;
	bool manifold = info->open_edge_count == 0 && info->non_manifold_edge_count == 0 && info->inconsistent_edge_count == 0;
	double size = bounds_diagonal(info->bounds);
	double zero_volume = KL_MESH_ZERO_VOLUME_RATIO * size * size * size;
	if (manifold)
	{
		mesh->integrals = kl_polyhedron_integrals(mesh->vertices, mesh->indices, info->triangle_count);
		if (mesh->integrals.volume < -zero_volume)
		{
			flip_triangles(mesh);
			mesh->flipped = true;
			info->flipped = true;
			mesh->integrals = kl_polyhedron_integrals(mesh->vertices, mesh->indices, info->triangle_count);
		}
		info->closed = mesh->integrals.volume > zero_volume;
	}
	kl_result result = KL_OK;
	if (info->closed)
	{
		info->mass_source = KL_MESH_MASS_VOLUME;
	}
	else
	{
		result = hull_integrals(mesh);
	}
	info->volume = (float)mesh->integrals.volume;
	return result;
}

// ---------------------------------------------------------------------------------------------

static void mesh_free(kl_mesh* mesh)
{
	kl_free(mesh->vertices);
	kl_free(mesh->indices);
	kl_free(mesh->source);
	kl_free(mesh);
}

static kl_result run_stages(const kl_mesh_def* def, kl_mesh* mesh, int32_t* remap)
{
	kl_result r = report(def, "weld", 0.0f) ? weld(def, mesh, remap) : KL_ERR_INVALID_ARGUMENT;
	if (r == KL_OK)
	{
		r = report(def, "weld", 1.0f) && report(def, "clean", 0.0f) ? clean(def, mesh, remap) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		r = report(def, "clean", 1.0f) && report(def, "topology", 0.0f) ? topology(mesh) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK)
	{
		r = report(def, "topology", 1.0f) && report(def, "mass", 0.0f) ? compute_mass(mesh) : KL_ERR_INVALID_ARGUMENT;
	}
	if (r == KL_OK && !report(def, "mass", 1.0f))
	{
		r = KL_ERR_INVALID_ARGUMENT;
	}
	return r;
}

kl_mesh* kl_mesh_build(const kl_mesh_def* def)
{
	if (validate_def(def) != KL_OK)
	{
		return NULL;
	}
	kl_mesh* mesh = kl_alloc_zero(1, sizeof(kl_mesh));
	int32_t* remap = kl_alloc((size_t)def->vertex_count, sizeof(int32_t));
	if (mesh == NULL || remap == NULL)
	{
		kl_free(mesh);
		kl_free(remap);
		return NULL;
	}
	atomic_init(&mesh->ref_count, 1);
	mesh->source = kl_strdup(def->source != NULL ? def->source : "");
	kl_result r = mesh->source != NULL ? run_stages(def, mesh, remap) : KL_ERR_OUT_OF_MEMORY;
	kl_free(remap);
	if (r != KL_OK)
	{
		mesh_free(mesh);
		return NULL;
	}
	return mesh;
}

kl_mesh* kl_mesh_retain(kl_mesh* mesh)
{
	if (mesh != NULL)
	{
		atomic_fetch_add_explicit(&mesh->ref_count, 1, memory_order_relaxed);
	}
	return mesh;
}

void kl_mesh_release(kl_mesh* mesh)
{
	// acq_rel: the thread that frees sees every other holder's last use.
	if (mesh != NULL && atomic_fetch_sub_explicit(&mesh->ref_count, 1, memory_order_acq_rel) == 1)
	{
		mesh_free(mesh);
	}
}

kl_mesh_info kl_mesh_get_info(const kl_mesh* mesh)
{
	if (mesh == NULL)
	{
		kl_mesh_info none;
		memset(&none, 0, sizeof(none));
		return none;
	}
	return mesh->info;
}

const vec3s* kl_mesh_vertices(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->vertices : NULL;
}

const int32_t* kl_mesh_indices(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->indices : NULL;
}

const char* kl_mesh_source(const kl_mesh* mesh)
{
	return mesh != NULL ? mesh->source : "";
}

kl_mass_data kl_mesh_mass(const kl_mesh* mesh, float density, vec3s scale)
{
	kl_mass_data none;
	memset(&none, 0, sizeof(none));
	none.inertia = glms_mat3_zero();
	if (mesh == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_mesh_mass: mesh is NULL");
		return none;
	}
	if (!(density >= 0.0f) || !isfinite(density))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_mesh_mass: density %g must be finite and >= 0", (double)density);
		return none;
	}
	if (!(scale.x > 0.0f && scale.y > 0.0f && scale.z > 0.0f) || !kl_vec3_is_finite(scale))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_mesh_mass: scale (%g, %g, %g) must be finite and positive",
				(double)scale.x, (double)scale.y, (double)scale.z);
		return none;
	}
	double s[3] = {scale.x, scale.y, scale.z};
	kl_volume_integrals scaled = kl_volume_integrals_scale(&mesh->integrals, s);
	kl_mass_data md = kl_volume_integrals_mass(&scaled, density);
	bool finite = isfinite(md.mass) && kl_vec3_is_finite(md.center);
	for (int i = 0; i < 3; ++i)
	{
		finite = finite && kl_vec3_is_finite(md.inertia.col[i]);
	}
	if (!finite)
	{
		kl_fail(KL_ERR_LIMIT, "kl_mesh_mass: mass properties at scale (%g, %g, %g) exceed single precision",
				(double)scale.x, (double)scale.y, (double)scale.z);
		return none;
	}
	return md;
}
