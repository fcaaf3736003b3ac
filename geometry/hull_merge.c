// Kollide — turns quickhull's triangles into the final polyhedron: nearly coplanar triangles are
// merged into convex polygon faces, vertices left between two faces only are removed, and the
// result is packed into the half-edge arrays of struct kl_hull.
//
// Merging grows one face at a time from the largest unmerged triangle, whose plane is the most
// accurate one available, and takes in neighbours whose three corners all lie within the
// tolerance of that plane. Testing corners rather than normals matters: a sliver triangle on a
// flat face has an arbitrary normal but corners on the plane. Faces are grown as topological
// disks (kl_hull_region_grow), so every face has a single boundary loop, and are kept convex
// (see accept_coplanar and grow_face). The face keeps its seed's plane (see face_plane).
// SPDX-License-Identifier: MIT
#include "hull.h"

#include "core.h"

#include <float.h>
#include <string.h>

typedef struct work_edge
{
	int32_t origin, twin, next, prev, face;
	int32_t source; ///< 3 t + i: the triangle edge it was made from
	bool alive;
} work_edge;

typedef struct work_face
{
	int32_t edge;
	int32_t edge_count;
	int32_t seed; ///< triangle whose plane the face was grown from
} work_face;

typedef struct sorted_tri
{
	double area;
	int32_t index;
} sorted_tri;

typedef struct merger
{
	const kl_hull_trimesh* mesh;
	double* normals; ///< per triangle: unit normal (zero for a degenerate triangle)
	double* offsets;
	sorted_tri* order;
	int32_t* tri_face; ///< per triangle: the face it was merged into (region marks)
	int32_t* vertex_mark;
	int32_t* loop_next; ///< per vertex: outgoing boundary edge (3 t + i) of the current face
	int32_t* loop_stamp;
	int32_t* edge_of; ///< per triangle edge: the half-edge made from it, or -1
	int32_t* banned;  ///< per triangle: a face it may not join (it made that face non-convex)
	int32_t* loop;	  ///< boundary of the face being grown, as triangle edges 3 t + i
	int loop_capacity;
	int32_t trace_stamp;
	work_edge* edges;
	int edge_count;
	int edge_capacity;
	work_face* faces;
	int face_count;
	int face_capacity;
	kl_hull_region region;
	const double* plane_normal; ///< plane of the face being grown
	double plane_offset;
	double flat_tolerance;
	int current_face;
} merger;

static const double* vertex_at(const merger* m, int v)
{
	return m->mesh->points + 3 * v;
}

static void merger_free(merger* m)
{
	kl_free(m->normals);
	kl_free(m->offsets);
	kl_free(m->order);
	kl_free(m->tri_face);
	kl_free(m->vertex_mark);
	kl_free(m->loop_next);
	kl_free(m->loop_stamp);
	kl_free(m->edge_of);
	kl_free(m->banned);
	kl_free(m->loop);
	kl_free(m->edges);
	kl_free(m->faces);
	kl_hull_region_free(&m->region);
}

static kl_result merger_alloc(merger* m)
{
	size_t t = (size_t)m->mesh->tri_count, v = (size_t)m->mesh->point_count;
	m->normals = kl_alloc(3 * t, sizeof(double));
	m->offsets = kl_alloc(t, sizeof(double));
	m->order = kl_alloc(t, sizeof(sorted_tri));
	m->tri_face = kl_alloc(t, sizeof(int32_t));
	m->edge_of = kl_alloc(3 * t, sizeof(int32_t));
	m->banned = kl_alloc(t, sizeof(int32_t));
	m->vertex_mark = kl_alloc(v, sizeof(int32_t));
	m->loop_next = kl_alloc(v, sizeof(int32_t));
	m->loop_stamp = kl_alloc(v, sizeof(int32_t));
	if (!m->normals || !m->offsets || !m->order || !m->tri_face || !m->edge_of || !m->banned || !m->vertex_mark ||
		!m->loop_next || !m->loop_stamp)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	memset(m->tri_face, 0xff, t * sizeof(int32_t));
	memset(m->edge_of, 0xff, 3 * t * sizeof(int32_t));
	memset(m->banned, 0xff, t * sizeof(int32_t));
	memset(m->vertex_mark, 0xff, v * sizeof(int32_t));
	memset(m->loop_stamp, 0xff, v * sizeof(int32_t));
	return KL_OK;
}

static int compare_area_descending(const void* a, const void* b)
{
	double x = ((const sorted_tri*)a)->area, y = ((const sorted_tri*)b)->area;
	if (x != y)
	{
		return x > y ? -1 : 1;
	}
	// Ties by index keep the build deterministic whatever qsort does with equal keys.
	return ((const sorted_tri*)a)->index - ((const sorted_tri*)b)->index;
}

static void triangle_planes(merger* m)
{
	for (int t = 0; t < m->mesh->tri_count; ++t)
	{
		const int32_t* v = m->mesh->tris[t].v;
		const double* a = vertex_at(m, v[0]);
		const double* b = vertex_at(m, v[1]);
		const double* c = vertex_at(m, v[2]);
		double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
		double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
		double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		double inv = len > 0.0 && isfinite(len) ? 1.0 / len : 0.0;
		double* out = m->normals + 3 * t;
		for (int k = 0; k < 3; ++k)
		{
			out[k] = n[k] * inv;
		}
		m->offsets[t] = (out[0] * (a[0] + b[0] + c[0]) + out[1] * (a[1] + b[1] + c[1]) + out[2] * (a[2] + b[2] + c[2])) / 3.0;
		m->order[t] = (sorted_tri){inv > 0.0 ? 0.5 * len : 0.0, t};
	}
	qsort(m->order, (size_t)m->mesh->tri_count, sizeof(sorted_tri), compare_area_descending);
}

// How far b bends into a face with normal n, measured from the chord a -> c in the face plane:
// positive at a reflex vertex. The interior is left of a -> c for a counter-clockwise loop.
static double bend_depth(const double* n, const double* a, const double* b, const double* c)
{
	double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
	double left[3] = {n[1] * ac[2] - n[2] * ac[1], n[2] * ac[0] - n[0] * ac[2], n[0] * ac[1] - n[1] * ac[0]};
	double len = sqrt(left[0] * left[0] + left[1] * left[1] + left[2] * left[2]);
	if (!(len > 0.0))
	{
		return 0.0;
	}
	return ((b[0] - a[0]) * left[0] + (b[1] - a[1]) * left[1] + (b[2] - a[2]) * left[2]) / len;
}

static int corner_of(const kl_hull_tri* tri, int v)
{
	return tri->v[0] == v ? 0 : tri->v[1] == v ? 1 : 2;
}

// Neighbour of boundary vertex v along the boundary of the region being grown: the vertex after
// it (forward) or before it (backward). Rotates about v through region triangles, starting at r,
// until the edge leaving (entering) v has no region triangle across it. -1 if v is interior.
static int boundary_neighbour(const merger* m, int r, int v, bool forward)
{
	const kl_hull_tri* tris = m->mesh->tris;
	for (int step = 0; step < m->region.member_count + 1; ++step)
	{
		int k = corner_of(tris + r, v);
		int edge = forward ? k : (k + 2) % 3;
		int n = tris[r].adj[edge];
		if (m->tri_face[n] != m->current_face)
		{
			return tris[r].v[forward ? (k + 1) % 3 : (k + 2) % 3];
		}
		r = n;
	}
	return -1;
}

static bool convex_at(const merger* m, int a, int b, int c)
{
	return a >= 0 && c >= 0 &&
		   bend_depth(m->plane_normal, vertex_at(m, a), vertex_at(m, b), vertex_at(m, c)) <= m->mesh->tolerance;
}

// Whether adding t (adjacent to the region, which stays a disk) keeps the region's boundary
// convex at the vertices whose neighbours change.
static bool keeps_convex(const merger* m, int t)
{
	const kl_hull_tri* tri = m->mesh->tris + t;
	bool in[3];
	int shared = 0;
	for (int i = 0; i < 3; ++i)
	{
		in[i] = m->tri_face[tri->adj[i]] == m->current_face;
		shared += in[i];
	}
	for (int i = 0; i < 3; ++i)
	{
		int p = tri->v[i], q = tri->v[(i + 1) % 3], c = tri->v[(i + 2) % 3];
		if (shared == 1 && in[i])
		{
			// Boundary x -> q -> p -> y becomes x -> q -> c -> p -> y.
			int x = boundary_neighbour(m, tri->adj[i], q, false);
			int y = boundary_neighbour(m, tri->adj[i], p, true);
			return convex_at(m, x, q, c) && convex_at(m, q, c, p) && convex_at(m, c, p, y);
		}
		if (shared == 2 && !in[i])
		{
			// Edges q -> c and c -> p are shared: x -> p -> c -> q -> y becomes x -> p -> q -> y.
			int x = boundary_neighbour(m, tri->adj[(i + 2) % 3], p, false);
			int y = boundary_neighbour(m, tri->adj[(i + 1) % 3], q, true);
			return convex_at(m, x, p, q) && convex_at(m, p, q, y);
		}
	}
	return false;
}

// Grows faces: a triangle joins if its corners are within the tolerance of the seed plane. Only
// triangles flat to rounding (one true face of the polyhedron, convex whatever the order they
// join in) may make the boundary bend inward on the way; others must keep it convex, so that a
// gently curved surface is cut into convex faces up front instead of repaired afterwards.
static bool accept_coplanar(int t, void* context)
{
	const merger* m = context;
	if (m->tri_face[t] >= 0 || m->banned[t] == m->current_face)
	{
		return false;
	}
	const double* n = m->plane_normal;
	if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0)
	{
		return false; // a degenerate seed has no plane to merge into
	}
	double deviation = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		const double* p = vertex_at(m, m->mesh->tris[t].v[i]);
		deviation = fmax(deviation, fabs(n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - m->plane_offset));
	}
	if (deviation > m->mesh->tolerance)
	{
		return false;
	}
	return deviation <= m->flat_tolerance || keeps_convex(m, t);
}

// Orders the boundary of the region just grown into m->loop (triangle edges 3 t + i).
// Returns the loop length, or -1 with a message.
static int trace_loop(merger* m, int f)
{
	const kl_hull_tri* tris = m->mesh->tris;
	int count = 0, start = -1;
	int32_t stamp = ++m->trace_stamp;
	for (int k = 0; k < m->region.member_count; ++k)
	{
		int t = m->region.members[k];
		for (int i = 0; i < 3; ++i)
		{
			int a = tris[t].v[i];
			if (m->tri_face[tris[t].adj[i]] == f)
			{
				continue;
			}
			if (m->loop_stamp[a] == stamp)
			{
				kl_fail(KL_ERR_DEGENERATE, "hull: face %d touches itself at a vertex", f);
				return -1;
			}
			m->loop_stamp[a] = stamp;
			m->loop_next[a] = 3 * t + i;
			start = 3 * t + i;
			++count;
		}
	}
	if (count < 3 || !KL_ARRAY_RESERVE(m->loop, m->loop_capacity, count))
	{
		if (count < 3)
		{
			kl_fail(KL_ERR_DEGENERATE, "hull: face %d has %d edges", f, count);
		}
		return -1;
	}
	int source = start;
	for (int k = 0; k < count; ++k)
	{
		m->loop[k] = source;
		int b = tris[source / 3].v[(source % 3 + 1) % 3];
		source = m->loop_stamp[b] == stamp ? m->loop_next[b] : -1;
		if ((source == start) != (k == count - 1))
		{
			kl_fail(KL_ERR_DEGENERATE, "hull: face %d boundary is not a single loop", f);
			return -1;
		}
	}
	return count;
}

static const double* loop_vertex(const merger* m, int k, int count)
{
	int source = m->loop[(k + count) % count];
	return vertex_at(m, m->mesh->tris[source / 3].v[source % 3]);
}

// Bans from face f the region's triangles (but the seed) that meet at a reflex vertex of its
// loop, all of them at once so that a ragged boundary is peeled in few rounds, and takes the
// region apart for regrowing. False, region untouched, if nothing was banned.
static bool ban_reflex(merger* m, int f, int count)
{
	int32_t stamp = ++m->trace_stamp;
	int reflex = 0;
	for (int k = 0; k < count; ++k)
	{
		double depth = bend_depth(m->plane_normal, loop_vertex(m, k - 1, count), loop_vertex(m, k, count),
								  loop_vertex(m, k + 1, count));
		if (depth > m->mesh->tolerance)
		{
			m->loop_stamp[m->mesh->tris[m->loop[k] / 3].v[m->loop[k] % 3]] = stamp;
			++reflex;
		}
	}
	int banned = 0;
	for (int k = 1; reflex > 0 && k < m->region.member_count; ++k)
	{
		int t = m->region.members[k];
		const int32_t* tv = m->mesh->tris[t].v;
		if (m->loop_stamp[tv[0]] == stamp || m->loop_stamp[tv[1]] == stamp || m->loop_stamp[tv[2]] == stamp)
		{
			m->banned[t] = f;
			++banned;
		}
	}
	if (banned == 0)
	{
		return false;
	}
	for (int k = 0; k < m->region.member_count; ++k)
	{
		int t = m->region.members[k];
		const int32_t* tv = m->mesh->tris[t].v;
		m->tri_face[t] = -1;
		m->vertex_mark[tv[0]] = m->vertex_mark[tv[1]] = m->vertex_mark[tv[2]] = -1;
	}
	return true;
}

// Makes face f's half-edge loop from the traced boundary.
static kl_result emit_loop(merger* m, int f, int count)
{
	if (!KL_ARRAY_RESERVE(m->edges, m->edge_capacity, m->edge_count + count))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	int base = m->edge_count;
	for (int k = 0; k < count; ++k)
	{
		int source = m->loop[k], e = base + k;
		int origin = m->mesh->tris[source / 3].v[source % 3];
		m->edges[e] = (work_edge){origin, -1, base + (k + 1) % count, base + (k + count - 1) % count, f, source, true};
		m->edge_of[source] = e;
	}
	m->edge_count += count;
	m->faces[f] = (work_face){base, count, m->region.members[0]};
	return KL_OK;
}

// Grows face f from seed t. A face must be a convex polygon for the narrowphase (clipping against
// its side planes), but the union of triangles near a plane need not be: on a finely tessellated
// curved surface its boundary zig-zags. Triangles at inward-bending vertices are then banned
// from the face and it is grown again; they become faces of their own later.
static kl_result grow_face(merger* m, int f, int t)
{
	m->current_face = f;
	m->plane_normal = m->normals + 3 * t;
	m->plane_offset = m->offsets[t];
	for (;;)
	{
		if (!kl_hull_region_grow(&m->region, t, f, accept_coplanar, m))
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		int count = trace_loop(m, f);
		if (count < 0)
		{
			return kl_last_error_code() == KL_ERR_OUT_OF_MEMORY ? KL_ERR_OUT_OF_MEMORY : KL_ERR_DEGENERATE;
		}
		if (!ban_reflex(m, f, count))
		{
			return emit_loop(m, f, count);
		}
	}
}

static kl_result merge_faces(merger* m)
{
	m->region.tris = m->mesh->tris;
	m->region.tri_mark = m->tri_face;
	m->region.vertex_mark = m->vertex_mark;
	for (int k = 0; k < m->mesh->tri_count; ++k)
	{
		int t = m->order[k].index;
		if (m->tri_face[t] >= 0)
		{
			continue;
		}
		if (!KL_ARRAY_RESERVE(m->faces, m->face_capacity, m->face_count + 1))
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		kl_result r = grow_face(m, m->face_count++, t);
		if (r != KL_OK)
		{
			return r;
		}
	}
	return KL_OK;
}

static kl_result link_twins(merger* m)
{
	const kl_hull_tri* tris = m->mesh->tris;
	for (int e = 0; e < m->edge_count; ++e)
	{
		int t = m->edges[e].source / 3, i = m->edges[e].source % 3;
		int u = tris[t].adj[i], b = tris[t].v[(i + 1) % 3];
		for (int j = 0; j < 3; ++j)
		{
			if (tris[u].adj[j] == t && tris[u].v[j] == b)
			{
				m->edges[e].twin = m->edge_of[3 * u + j];
			}
		}
		if (m->edges[e].twin < 0)
		{
			return kl_fail(KL_ERR_DEGENERATE, "hull: half-edge %d has no twin", e);
		}
	}
	return KL_OK;
}

static const double* edge_origin(const merger* m, int e)
{
	return vertex_at(m, m->edges[e].origin);
}

// Whether a face with the chain x -> u -> w -> y (normal of face f) stays convex at u and w.
static bool stays_convex(const merger* m, int f, const double* x, const double* u, const double* w, const double* y)
{
	const double* n = m->normals + 3 * m->faces[f].seed;
	return bend_depth(n, x, u, w) <= m->mesh->tolerance && bend_depth(n, u, w, y) <= m->mesh->tolerance;
}

// Tries to remove vertex v whose only outgoing half-edges are e1 (face A) and e2 (face B): it
// lies on the edge between two merged faces (a grid point on a box edge). The chains u -> v -> w
// in A and w -> v -> u in B become single edges. Faces keep at least three edges and stay convex
// (v is only near the line where A and B meet, which on coarse input is not close).
static void remove_vertex(merger* m, int e1)
{
	work_edge* edges = m->edges;
	int p2 = edges[e1].twin; // w -> v in B
	int e2 = edges[p2].next; // v -> u in B
	int p1 = edges[e1].prev; // u -> v in A
	int fa = edges[e1].face, fb = edges[e2].face;
	work_face* a = m->faces + fa;
	work_face* b = m->faces + fb;
	if (edges[p1].twin != e2 || fa == fb || a->edge_count <= 3 || b->edge_count <= 3 ||
		edges[p1].origin == edges[p2].origin)
	{
		return;
	}
	const double* u = edge_origin(m, p1);
	const double* w = edge_origin(m, p2);
	if (!stays_convex(m, fa, edge_origin(m, edges[p1].prev), u, w, edge_origin(m, edges[edges[e1].next].next)) ||
		!stays_convex(m, fb, edge_origin(m, edges[p2].prev), w, u, edge_origin(m, edges[edges[e2].next].next)))
	{
		return;
	}
	edges[p1].next = edges[e1].next;
	edges[edges[e1].next].prev = p1;
	edges[p2].next = edges[e2].next;
	edges[edges[e2].next].prev = p2;
	edges[p1].twin = p2;
	edges[p2].twin = p1;
	edges[e1].alive = false;
	edges[e2].alive = false;
	a->edge_count -= 1;
	b->edge_count -= 1;
	a->edge = a->edge == e1 ? p1 : a->edge;
	b->edge = b->edge == e2 ? p2 : b->edge;
}

static kl_result remove_two_face_vertices(merger* m)
{
	int n = m->mesh->point_count;
	int32_t* degree = kl_alloc_zero((size_t)n, sizeof(int32_t));
	int32_t* outgoing = kl_alloc((size_t)n, sizeof(int32_t));
	if (degree == NULL || outgoing == NULL)
	{
		kl_free(degree);
		kl_free(outgoing);
		return KL_ERR_OUT_OF_MEMORY;
	}
	for (int e = 0; e < m->edge_count; ++e)
	{
		degree[m->edges[e].origin] += 1;
		outgoing[m->edges[e].origin] = e;
	}
	for (int v = 0; v < n; ++v)
	{
		if (degree[v] == 2)
		{
			remove_vertex(m, outgoing[v]);
		}
	}
	kl_free(degree);
	kl_free(outgoing);
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Packing

// The face keeps the plane of its seed triangle. That plane supports the exact hull (every point
// is below it to round-off), so shifting it out to the face's highest vertex keeps every input
// point inside. A fitted plane (Newell's) would be flatter on average but can tilt on a thin
// merged strip and leave points outside.
static void face_plane(const merger* m, int f, kl_hull_face* out)
{
	const work_face* face = m->faces + f;
	const double* n = m->normals + 3 * face->seed;
	double offset = m->offsets[face->seed];
	int e = face->edge;
	for (int k = 0; k < face->edge_count; ++k, e = m->edges[e].next)
	{
		const double* p = vertex_at(m, m->edges[e].origin);
		offset = fmax(offset, n[0] * p[0] + n[1] * p[1] + n[2] * p[2]);
	}
	out->normal = kl_vec3((float)n[0], (float)n[1], (float)n[2]);
	out->offset = (float)offset;
}

// Re-indexes live vertices and half-edges (twins as pairs 2k, 2k + 1) into a fresh kl_hull.
// Vertices keep the order of the input points they were welded from, so that the vertices of a
// build are a subsequence of its input: kl_hull_build relies on that to see when rebuilding a
// hull from its own vertices has settled.
static kl_hull* pack(merger* m)
{
	int n = m->mesh->point_count;
	int32_t* vertex_remap = kl_alloc((size_t)n, sizeof(int32_t));
	int32_t* edge_remap = kl_alloc((size_t)m->edge_count, sizeof(int32_t));
	kl_hull* hull = NULL;
	if (vertex_remap == NULL || edge_remap == NULL)
	{
		goto done;
	}
	memset(vertex_remap, 0xff, (size_t)n * sizeof(int32_t));
	memset(edge_remap, 0xff, (size_t)m->edge_count * sizeof(int32_t));
	int vertices = 0, edges = 0;
	for (int e = 0; e < m->edge_count; ++e)
	{
		if (m->edges[e].alive)
		{
			vertex_remap[m->edges[e].origin] = 0;
		}
	}
	for (int v = 0; v < n; ++v)
	{
		vertex_remap[v] = vertex_remap[v] == 0 ? vertices++ : -1;
	}
	for (int e = 0; e < m->edge_count; ++e)
	{
		const work_edge* w = m->edges + e;
		if (!w->alive)
		{
			continue;
		}
		if (edge_remap[e] < 0)
		{
			edge_remap[e] = edges++;
			edge_remap[w->twin] = edges++;
		}
	}
	int triangles = 0;
	for (int f = 0; f < m->face_count; ++f)
	{
		triangles += m->faces[f].edge_count - 2;
	}
	hull = kl_hull_alloc(vertices, edges, m->face_count, triangles);
	if (hull == NULL)
	{
		goto done;
	}
	for (int v = 0; v < n; ++v)
	{
		if (vertex_remap[v] >= 0)
		{
			const double* p = vertex_at(m, v);
			hull->vertices[vertex_remap[v]] = kl_vec3((float)p[0], (float)p[1], (float)p[2]);
		}
	}
	for (int e = 0; e < m->edge_count; ++e)
	{
		const work_edge* w = m->edges + e;
		if (w->alive)
		{
			hull->edges[edge_remap[e]] = (kl_hull_half_edge){vertex_remap[w->origin], edge_remap[w->twin],
															   edge_remap[w->next], w->face};
		}
	}
	for (int f = 0; f < m->face_count; ++f)
	{
		hull->faces[f].edge = edge_remap[m->faces[f].edge];
		hull->faces[f].edge_count = m->faces[f].edge_count;
		face_plane(m, f, hull->faces + f);
	}
	kl_hull_finish(hull);
	hull->tolerance = (float)m->mesh->tolerance;
done:
	kl_free(vertex_remap);
	kl_free(edge_remap);
	return hull;
}

kl_hull* kl_hull_from_trimesh(const kl_hull_trimesh* mesh)
{
	merger m;
	memset(&m, 0, sizeof(m));
	m.mesh = mesh;
	m.flat_tolerance = fmin(mesh->flat_tolerance, mesh->tolerance);
	kl_result r = merger_alloc(&m);
	if (r == KL_OK)
	{
		triangle_planes(&m);
		r = merge_faces(&m);
	}
	r = r == KL_OK ? link_twins(&m) : r;
	r = r == KL_OK ? remove_two_face_vertices(&m) : r;
	kl_hull* hull = r == KL_OK ? pack(&m) : NULL;
	merger_free(&m);
	return hull;
}
