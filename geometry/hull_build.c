// Kollide — quickhull in double precision: the initial simplex and the incremental triangulated
// hull of the welded points (hull_weld.c, which also explains the two tolerances). Visible sets
// are grown as disks (hull_region.c), so every horizon is a simple loop. Coplanar triangles are
// merged into polygons afterwards (hull_merge.c).
// SPDX-License-Identifier: MIT
#include "hull.h"

#include "core.h"

#include <float.h>
#include <string.h>

typedef struct qh_face
{
	double normal[3];
	double offset;
	double furthest_distance;
	int32_t conflict; ///< first point of the list outside this face, -1 when empty
	int32_t furthest;
	bool alive;
} qh_face;

typedef struct qh_horizon_edge
{
	int32_t a, b;  ///< the edge a -> b as seen from the visible (inner) face
	int32_t inner; ///< visible face being removed
	int32_t outer; ///< face kept behind the edge
} qh_horizon_edge;

typedef struct quickhull
{
	double* points;
	int point_count;
	int32_t* next_conflict; ///< per point: the next point in its face's conflict list
	int32_t* vertex_mark;	///< per point
	int32_t* horizon_next;	///< per point: outgoing horizon edge of the current step
	int32_t* horizon_stamp; ///< per point: step that wrote horizon_next

	kl_hull_tri* tris;
	qh_face* faces;
	int32_t* tri_mark;
	int face_count;
	int face_capacity;

	qh_horizon_edge* horizon;
	int horizon_capacity;
	int32_t* loop;
	int loop_capacity;

	kl_hull_region region;
	int32_t stamp;
	double epsilon;
	double tolerance;
	double flat_tolerance;
} quickhull;

static const double* point_at(const quickhull* qh, int i)
{
	return qh->points + 3 * i;
}

static double dist2(const double* a, const double* b)
{
	double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
	return dx * dx + dy * dy + dz * dz;
}

// ---------------------------------------------------------------------------------------------
// Faces and conflict lists

static double face_distance(const quickhull* qh, int f, const double* p)
{
	const qh_face* face = qh->faces + f;
	return face->normal[0] * p[0] + face->normal[1] * p[1] + face->normal[2] * p[2] - face->offset;
}

static void cross(const double* a, const double* b, double* out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

// Plane through a triangle. The cross product is taken at the vertex opposite the longest edge,
// whose two edges are the shortest: that bounds the rounding error best for slivers. A triangle
// with collinear corners gets a zero normal, so that no point ever sees it.
static void face_plane(quickhull* qh, int f)
{
	const int32_t* v = qh->tris[f].v;
	const double* p[3] = {point_at(qh, v[0]), point_at(qh, v[1]), point_at(qh, v[2])};
	int apex = 0;
	double longest = -1.0;
	for (int i = 0; i < 3; ++i)
	{
		double l = dist2(p[(i + 1) % 3], p[(i + 2) % 3]);
		if (l > longest)
		{
			longest = l;
			apex = i;
		}
	}
	const double* a = p[apex];
	const double* b = p[(apex + 1) % 3];
	const double* c = p[(apex + 2) % 3];
	double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
	double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
	double* n = qh->faces[f].normal;
	cross(e1, e2, n);
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	double inv = len > 0.0 && isfinite(len) ? 1.0 / len : 0.0;
	for (int k = 0; k < 3; ++k)
	{
		n[k] *= inv;
	}
	double centre[3];
	for (int k = 0; k < 3; ++k)
	{
		centre[k] = (p[0][k] + p[1][k] + p[2][k]) / 3.0;
	}
	qh->faces[f].offset = n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2];
}

static bool reserve_faces(quickhull* qh, int count)
{
	if (count <= qh->face_capacity)
	{
		return true;
	}
	int capacity = qh->face_capacity;
	if (!KL_ARRAY_RESERVE(qh->tris, capacity, count))
	{
		return false;
	}
	capacity = qh->face_capacity;
	if (!KL_ARRAY_RESERVE(qh->faces, capacity, count))
	{
		return false;
	}
	capacity = qh->face_capacity;
	if (!KL_ARRAY_RESERVE(qh->tri_mark, capacity, count))
	{
		return false;
	}
	qh->face_capacity = capacity;
	return true;
}

// Appends the triangle (a, b, c); adjacency is set by the caller. -1 on OOM.
static int add_face(quickhull* qh, int a, int b, int c)
{
	if (!reserve_faces(qh, qh->face_count + 1))
	{
		return -1;
	}
	int f = qh->face_count++;
	qh->tris[f] = (kl_hull_tri){{a, b, c}, {-1, -1, -1}};
	qh->faces[f] = (qh_face){{0.0, 0.0, 0.0}, 0.0, 0.0, -1, -1, true};
	qh->tri_mark[f] = -1;
	face_plane(qh, f);
	return f;
}

// Puts point p on the conflict list of the candidate face it is furthest outside, if any.
static void assign_point(quickhull* qh, int p, int first_face, int face_count)
{
	const double* x = point_at(qh, p);
	int best = -1;
	double best_distance = qh->epsilon;
	for (int f = first_face; f < first_face + face_count; ++f)
	{
		double d = face_distance(qh, f, x);
		if (d > best_distance)
		{
			best_distance = d;
			best = f;
		}
	}
	if (best < 0)
	{
		return; // inside, or on the hull within round-off: not a vertex
	}
	qh_face* face = qh->faces + best;
	qh->next_conflict[p] = face->conflict;
	face->conflict = p;
	if (best_distance > face->furthest_distance || face->furthest < 0)
	{
		face->furthest_distance = best_distance;
		face->furthest = p;
	}
}

// ---------------------------------------------------------------------------------------------
// Initial simplex

static int furthest_from_line(const quickhull* qh, int i0, int i1, double* distance)
{
	const double* a = point_at(qh, i0);
	const double* b = point_at(qh, i1);
	double dir[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
	double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
	int best = -1;
	*distance = -1.0;
	for (int i = 0; i < qh->point_count; ++i)
	{
		const double* p = point_at(qh, i);
		double d[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, c[3];
		cross(d, dir, c);
		double dist = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) / len;
		if (dist > *distance)
		{
			*distance = dist;
			best = i;
		}
	}
	return best;
}

static int furthest_from_plane(const quickhull* qh, int i0, int i1, int i2, double* signed_distance)
{
	const double* a = point_at(qh, i0);
	const double* b = point_at(qh, i1);
	const double* c = point_at(qh, i2);
	double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
	double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3];
	cross(e1, e2, n);
	double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	int best = -1;
	double best_abs = -1.0;
	for (int i = 0; i < qh->point_count; ++i)
	{
		const double* p = point_at(qh, i);
		double d = (n[0] * (p[0] - a[0]) + n[1] * (p[1] - a[1]) + n[2] * (p[2] - a[2])) / len;
		if (fabs(d) > best_abs)
		{
			best_abs = fabs(d);
			best = i;
			*signed_distance = d;
		}
	}
	return best;
}

// The two most distant of the six axis-extreme points.
static void extreme_pair(const quickhull* qh, int* i0, int* i1)
{
	int ext[6] = {0, 0, 0, 0, 0, 0};
	for (int i = 1; i < qh->point_count; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			ext[2 * k] = point_at(qh, i)[k] < point_at(qh, ext[2 * k])[k] ? i : ext[2 * k];
			ext[2 * k + 1] = point_at(qh, i)[k] > point_at(qh, ext[2 * k + 1])[k] ? i : ext[2 * k + 1];
		}
	}
	double best = -1.0;
	for (int i = 0; i < 6; ++i)
	{
		for (int j = i + 1; j < 6; ++j)
		{
			double d = dist2(point_at(qh, ext[i]), point_at(qh, ext[j]));
			if (d > best)
			{
				best = d;
				*i0 = ext[i];
				*i1 = ext[j];
			}
		}
	}
}

static void link_faces(quickhull* qh, int first, int count)
{
	for (int f = first; f < first + count; ++f)
	{
		for (int i = 0; i < 3; ++i)
		{
			int a = qh->tris[f].v[i], b = qh->tris[f].v[(i + 1) % 3];
			for (int g = first; g < first + count; ++g)
			{
				for (int j = 0; j < 3; ++j)
				{
					if (qh->tris[g].v[j] == b && qh->tris[g].v[(j + 1) % 3] == a)
					{
						qh->tris[f].adj[i] = g;
					}
				}
			}
		}
	}
}

static kl_result initial_simplex(quickhull* qh)
{
	int i0 = 0, i1 = 1;
	extreme_pair(qh, &i0, &i1);
	double line_distance, plane_distance = 0.0;
	int i2 = furthest_from_line(qh, i0, i1, &line_distance);
	if (!(line_distance > qh->tolerance))
	{
		return kl_fail(KL_ERR_DEGENERATE, "hull: points are collinear (all within %g of a line)", qh->tolerance);
	}
	int i3 = furthest_from_plane(qh, i0, i1, i2, &plane_distance);
	if (!(fabs(plane_distance) > qh->tolerance))
	{
		return kl_fail(KL_ERR_DEGENERATE, "hull: points are coplanar (all within %g of a plane)", qh->tolerance);
	}
	if (plane_distance > 0.0)
	{
		// The fourth point must be behind the base triangle for outward orientation.
		int t = i1;
		i1 = i2;
		i2 = t;
	}
	int faces[4][3] = {{i0, i1, i2}, {i0, i3, i1}, {i1, i3, i2}, {i2, i3, i0}};
	for (int f = 0; f < 4; ++f)
	{
		if (add_face(qh, faces[f][0], faces[f][1], faces[f][2]) < 0)
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
	}
	link_faces(qh, 0, 4);
	for (int p = 0; p < qh->point_count; ++p)
	{
		if (p != i0 && p != i1 && p != i2 && p != i3)
		{
			assign_point(qh, p, 0, 4);
		}
	}
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Adding a point

typedef struct visible_context
{
	const quickhull* qh;
	const double* eye;
} visible_context;

static bool accept_visible(int f, void* context)
{
	const visible_context* c = context;
	return face_distance(c->qh, f, c->eye) > c->qh->epsilon;
}

// Orders the boundary of the visible region into one loop: 1 on success, 0 if it is not a simple
// loop (the disk-shaped region rules that out; checked anyway so that a surprise cannot corrupt
// the hull), -1 when out of memory.
static int find_horizon(quickhull* qh, int* loop_count)
{
	const kl_hull_region* r = &qh->region;
	int count = 0;
	for (int m = 0; m < r->member_count; ++m)
	{
		int f = r->members[m];
		for (int i = 0; i < 3; ++i)
		{
			int n = qh->tris[f].adj[i];
			if (qh->tri_mark[n] == qh->stamp)
			{
				continue;
			}
			if (!KL_ARRAY_RESERVE(qh->horizon, qh->horizon_capacity, count + 1))
			{
				return -1;
			}
			int a = qh->tris[f].v[i];
			qh->horizon[count] = (qh_horizon_edge){a, qh->tris[f].v[(i + 1) % 3], f, n};
			if (qh->horizon_stamp[a] == qh->stamp)
			{
				return 0;
			}
			qh->horizon_stamp[a] = qh->stamp;
			qh->horizon_next[a] = count++;
		}
	}
	if (count < 3)
	{
		return 0;
	}
	if (!KL_ARRAY_RESERVE(qh->loop, qh->loop_capacity, count))
	{
		return -1;
	}
	int e = 0;
	for (int k = 0; k < count; ++k)
	{
		qh->loop[k] = e;
		int b = qh->horizon[e].b;
		if (qh->horizon_stamp[b] != qh->stamp)
		{
			return 0;
		}
		e = qh->horizon_next[b];
		if ((e == 0) != (k == count - 1))
		{
			return 0;
		}
	}
	*loop_count = count;
	return 1;
}

// Unlinks point p from face f's conflict list (used when p cannot be added).
static void drop_conflict(quickhull* qh, int f, int p)
{
	qh_face* face = qh->faces + f;
	int32_t* link = &face->conflict;
	while (*link >= 0 && *link != p)
	{
		link = &qh->next_conflict[*link];
	}
	if (*link == p)
	{
		*link = qh->next_conflict[p];
	}
	face->furthest = -1;
	face->furthest_distance = 0.0;
	for (int q = face->conflict; q >= 0; q = qh->next_conflict[q])
	{
		double d = face_distance(qh, f, point_at(qh, q));
		if (face->furthest < 0 || d > face->furthest_distance)
		{
			face->furthest = q;
			face->furthest_distance = d;
		}
	}
}

static kl_result build_cone(quickhull* qh, int eye, int loop_count)
{
	int first = qh->face_count;
	for (int k = 0; k < loop_count; ++k)
	{
		const qh_horizon_edge* h = qh->horizon + qh->loop[k];
		if (add_face(qh, h->a, h->b, eye) < 0)
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
	}
	for (int k = 0; k < loop_count; ++k)
	{
		const qh_horizon_edge* h = qh->horizon + qh->loop[k];
		int f = first + k;
		qh->tris[f].adj[0] = h->outer;
		qh->tris[f].adj[1] = first + (k + 1) % loop_count;
		qh->tris[f].adj[2] = first + (k + loop_count - 1) % loop_count;
		kl_hull_tri* outer = qh->tris + h->outer;
		for (int j = 0; j < 3; ++j)
		{
			if (outer->adj[j] == h->inner && outer->v[j] == h->b)
			{
				outer->adj[j] = f;
			}
		}
	}
	return KL_OK;
}

static kl_result add_point(quickhull* qh, int seed)
{
	int eye = qh->faces[seed].furthest;
	qh->stamp += 1;
	qh->region.tris = qh->tris;
	qh->region.tri_mark = qh->tri_mark;
	qh->region.vertex_mark = qh->vertex_mark;
	visible_context context = {qh, point_at(qh, eye)};
	if (!kl_hull_region_grow(&qh->region, seed, qh->stamp, accept_visible, &context))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	int loop_count = 0;
	int found = find_horizon(qh, &loop_count);
	if (found < 0)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	if (found == 0)
	{
		// Give the point up rather than build a broken surface; it is within round-off of the hull.
		drop_conflict(qh, seed, eye);
		return KL_OK;
	}
	int first = qh->face_count;
	kl_result r = build_cone(qh, eye, loop_count);
	if (r != KL_OK)
	{
		return r;
	}
	const kl_hull_region* region = &qh->region;
	for (int m = 0; m < region->member_count; ++m)
	{
		qh_face* face = qh->faces + region->members[m];
		face->alive = false;
		for (int p = face->conflict, next; p >= 0; p = next)
		{
			next = qh->next_conflict[p];
			if (p != eye)
			{
				assign_point(qh, p, first, loop_count);
			}
		}
		face->conflict = -1;
	}
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Driver

static void quickhull_free(quickhull* qh)
{
	kl_free(qh->points);
	kl_free(qh->next_conflict);
	kl_free(qh->vertex_mark);
	kl_free(qh->horizon_next);
	kl_free(qh->horizon_stamp);
	kl_free(qh->tris);
	kl_free(qh->faces);
	kl_free(qh->tri_mark);
	kl_free(qh->horizon);
	kl_free(qh->loop);
	kl_hull_region_free(&qh->region);
}

static kl_result alloc_point_arrays(quickhull* qh)
{
	size_t n = (size_t)qh->point_count;
	qh->next_conflict = kl_alloc(n, sizeof(int32_t));
	qh->vertex_mark = kl_alloc(n, sizeof(int32_t));
	qh->horizon_next = kl_alloc(n, sizeof(int32_t));
	qh->horizon_stamp = kl_alloc(n, sizeof(int32_t));
	if (!qh->next_conflict || !qh->vertex_mark || !qh->horizon_next || !qh->horizon_stamp)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	for (size_t i = 0; i < n; ++i)
	{
		qh->next_conflict[i] = -1;
		qh->vertex_mark[i] = -1;
		qh->horizon_stamp[i] = -1;
	}
	return KL_OK;
}

// Moves the live triangles (re-indexed) and the points into the output.
static kl_result export_mesh(quickhull* qh, kl_hull_trimesh* out)
{
	int32_t* remap = qh->tri_mark; // no longer needed as marks
	int live = 0;
	for (int f = 0; f < qh->face_count; ++f)
	{
		remap[f] = qh->faces[f].alive ? live++ : -1;
	}
	kl_hull_tri* tris = kl_alloc((size_t)live, sizeof(kl_hull_tri));
	if (tris == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	for (int f = 0; f < qh->face_count; ++f)
	{
		if (remap[f] >= 0)
		{
			kl_hull_tri t = qh->tris[f];
			for (int i = 0; i < 3; ++i)
			{
				t.adj[i] = remap[t.adj[i]];
			}
			tris[remap[f]] = t;
		}
	}
	out->points = qh->points;
	out->point_count = qh->point_count;
	out->tris = tris;
	out->tri_count = live;
	out->tolerance = qh->tolerance;
	out->flat_tolerance = qh->flat_tolerance;
	qh->points = NULL;
	return KL_OK;
}

kl_result kl_hull_quickhull(const vec3s* points, int count, kl_hull_trimesh* out)
{
	memset(out, 0, sizeof(*out));
	quickhull qh;
	memset(&qh, 0, sizeof(qh));
	kl_hull_points pts;
	kl_result r = kl_hull_prepare_points(points, count, &pts);
	qh.points = pts.xyz;
	qh.point_count = pts.count;
	qh.epsilon = pts.epsilon;
	qh.tolerance = pts.tolerance;
	qh.flat_tolerance = pts.flat_tolerance;
	r = r == KL_OK ? alloc_point_arrays(&qh) : r;
	r = r == KL_OK ? initial_simplex(&qh) : r;
	// New faces are appended, and only new faces receive points, so one forward pass finds work.
	for (int f = 0; r == KL_OK && f < qh.face_count;)
	{
		if (!qh.faces[f].alive || qh.faces[f].conflict < 0)
		{
			++f;
			continue;
		}
		r = add_point(&qh, f);
	}
	r = r == KL_OK ? export_mesh(&qh, out) : r;
	quickhull_free(&qh);
	return r;
}

void kl_hull_trimesh_free(kl_hull_trimesh* mesh)
{
	kl_free(mesh->points);
	kl_free(mesh->tris);
	memset(mesh, 0, sizeof(*mesh));
}
