// Kollide narrowphase — building the point-shell model of a mesh (pointshell.h): conglomerates, their
// PCA boxes, the triangles' compressed point shells and one Morton octree per conglomerate.
//
// Conglomerates: the thesis ran HACD and kept its triangle-to-cluster map; it also names the cut of
// a BVH near its root as an alternative (seed-004 §3.4). Kollide cuts: the triangles' centroids are
// split at the median of their longest axis, recursively, until a group holds at most
// max_triangles (64 by default), so every conglomerate holds 33–64 triangles (fewer only for a mesh
// that small), spatially compact, deterministic. Completeness never depends on the grouping (every
// conglomerate pair is either culled by boxes that enclose its triangles or searched).
// SPDX-License-Identifier: MIT
#include "pointshell.h"
#include "pointshell_cuda.h"

#include <float.h>
#include <stdatomic.h>
#include <string.h>

static atomic_ullong s_serial = 1;

kl_pointshell_build_def kl_pointshell_default_build_def(void)
{
	kl_pointshell_build_def def;
	def.max_triangles = 64;
	def.spacing = 0.0f;
	return def;
}

uint64_t kl_pointshell_next_serial(void)
{
	return atomic_fetch_add(&s_serial, 1);
}

kl_ps_model_view kl_pointshell_view(const kl_pointshell* m)
{
	kl_ps_model_view v;
	v.vertices = m->vertices;
	v.indices = m->indices;
	v.tris = m->tris;
	v.masks = m->masks;
	v.coverage = m->tri_coverage;
	v.points = m->points;
	v.nodes = m->nodes;
	v.congs = m->congs;
	v.cong_count = m->cong_count;
	v.triangle_count = m->triangle_count;
	return v;
}

void kl_pointshell_destroy(kl_pointshell* m)
{
	if (m == NULL)
	{
		return;
	}
#if defined(KOLLIDE_HAVE_CUDA)
	kl_ps_cuda_forget(m->serial);
#endif
	kl_free(m->congs);
	kl_free(m->tris);
	kl_free(m->masks);
	kl_free(m->tri_coverage);
	kl_free(m->points);
	kl_free(m->nodes);
	kl_free(m);
}

kl_pointshell_memory kl_pointshell_memory_of(const kl_pointshell* m)
{
	kl_pointshell_memory r;
	r.shells = (size_t)m->triangle_count * sizeof(kl_ps_mask);
	r.coverage = (size_t)m->triangle_count * sizeof(float);
	r.octrees = (size_t)m->point_count * sizeof(kl_ps_point) + (size_t)m->node_count * sizeof(kl_ps_node);
	r.conglomerates = (size_t)m->cong_count * sizeof(kl_ps_conglomerate) + (size_t)m->triangle_count * sizeof(int32_t);
	return r;
}

// ---------------------------------------------------------------------------------------------
// Point shells

static int compare_float(const void* a, const void* b)
{
	float x = *(const float*)a, y = *(const float*)b;
	return (x > y) - (x < y);
}

/// A third of the median edge length: about four grid samples along a typical edge.
static float auto_spacing(const kl_ps_model_view* v)
{
	int n = 3 * v->triangle_count;
	float* lengths = kl_alloc((size_t)n, sizeof(float));
	if (lengths == NULL)
	{
		return 0.0f;
	}
	for (int t = 0; t < v->triangle_count; ++t)
	{
		kl_ps_f3 p[3];
		kl_ps_triangle(v, t, p);
		for (int e = 0; e < 3; ++e)
		{
			kl_ps_f3 d = kl_ps_sub(p[(e + 1) % 3], p[e]);
			lengths[3 * t + e] = sqrtf(kl_ps_dot(d, d));
		}
	}
	qsort(lengths, (size_t)n, sizeof(float), compare_float);
	float median = lengths[n / 2];
	kl_free(lengths);
	return median / 3.0f;
}

/// The grid count along an extent: samples at most `spacing` apart, 2 to 16.
static int grid_count(float extent, float spacing)
{
	double n = ceil((double)extent / (double)spacing) + 1.0;
	return n < 2.0 ? 2 : (n > KL_PS_GRID ? KL_PS_GRID : (int)n);
}

/// Rasterises one triangle's point shell and returns its coverage: every point of the triangle lies
/// within it of a sample. Proof: a point x lies in one grid cell. If a corner of that cell is in
/// the triangle, it is a sample, at most the cell diagonal away. Otherwise an edge crosses the
/// segment from x to a corner, at most a diagonal away, and that edge's samples are at most half
/// their spacing from the crossing. So diagonal + half the widest edge spacing bounds it.
static float rasterise(const kl_ps_f3 t[3], float spacing, kl_ps_mask* mask)
{
	memset(mask, 0, sizeof(*mask));
	kl_ps_f3 origin, u, v;
	float extent[2];
	int base;
	float size = 0.0f;
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 d = kl_ps_sub(t[(e + 1) % 3], t[e]);
		size = fmaxf(size, sqrtf(kl_ps_dot(d, d)));
	}
	if (!kl_ps_grid_frame(t, &origin, &u, &v, extent, &base))
	{
		// No area: the edge samples (spacing from the cells) cover it.
		mask->cell[0] = mask->cell[1] = size / (float)KL_PS_EDGE_SAMPLES;
		return 0.5f * size / (float)KL_PS_EDGE_SAMPLES * 1.01f + 1e-6f * size;
	}
	int nu = grid_count(extent[0], spacing), nv = grid_count(extent[1], spacing);
	mask->cell[0] = extent[0] / (float)(nu - 1);
	mask->cell[1] = extent[1] / (float)(nv - 1);
	// The triangle in grid coordinates: (0, 0), (length, 0), (apex_u, height).
	float apex_u = kl_ps_dot(kl_ps_sub(t[(base + 2) % 3], origin), u);
	float tol = 1e-4f * extent[0];
	for (int j = 0; j < nv; ++j)
	{
		for (int i = 0; i < nu; ++i)
		{
			float x = (float)i * mask->cell[0], y = (float)j * mask->cell[1];
			// Left of (0,0)→apex and right of (length,0)→apex, above the base; inclusive.
			float left = apex_u * y - extent[1] * x;				 // ≤ 0 inside
			float right = (apex_u - extent[0]) * y - extent[1] * (x - extent[0]); // ≥ 0 inside
			if (y >= -tol && left <= tol * extent[1] && right >= -tol * extent[1])
			{
				int bit = KL_PS_GRID * j + i;
				mask->bits[bit / 64] |= (uint64_t)1 << (bit % 64);
			}
		}
	}
	float edge_spacing = 0.0f;
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 d = kl_ps_sub(t[(e + 1) % 3], t[e]);
		float len = sqrtf(kl_ps_dot(d, d));
		edge_spacing = fmaxf(edge_spacing, len / (float)kl_ps_edge_sample_count(len, kl_ps_edge_spacing(mask)));
	}
	float diagonal = sqrtf(mask->cell[0] * mask->cell[0] + mask->cell[1] * mask->cell[1]);
	// Slack for the float rounding of the samples and the tolerance of the inside test.
	return (diagonal + 0.5f * edge_spacing) * 1.01f + 2.0f * tol + 1e-6f * size;
}

// ---------------------------------------------------------------------------------------------
// Conglomerates by median cut

typedef struct keyed
{
	float key;
	int32_t tri;
} keyed;

static int compare_keyed(const void* a, const void* b)
{
	const keyed* x = a;
	const keyed* y = b;
	if (x->key != y->key)
	{
		return x->key < y->key ? -1 : 1;
	}
	return (x->tri > y->tri) - (x->tri < y->tri);
}

static kl_ps_f3 centroid(const kl_ps_model_view* v, int32_t tri)
{
	kl_ps_f3 t[3];
	kl_ps_triangle(v, tri, t);
	return kl_ps_scale(kl_ps_add(t[0], kl_ps_add(t[1], t[2])), 1.0f / 3.0f);
}

/// Splits tris[0, count) recursively; appends each final group's size to sizes.
static void median_cut(const kl_ps_model_view* v, int32_t* tris, int count, int max_tris, keyed* work, int* sizes,
					   int* group_count)
{
	if (count <= max_tris)
	{
		sizes[(*group_count)++] = count;
		return;
	}
	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 c = centroid(v, tris[i]);
		float x[3] = {c.x, c.y, c.z};
		for (int k = 0; k < 3; ++k)
		{
			lo[k] = fminf(lo[k], x[k]);
			hi[k] = fmaxf(hi[k], x[k]);
		}
	}
	int axis = 0;
	for (int k = 1; k < 3; ++k)
	{
		axis = hi[k] - lo[k] > hi[axis] - lo[axis] ? k : axis;
	}
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 c = centroid(v, tris[i]);
		work[i].key = axis == 0 ? c.x : (axis == 1 ? c.y : c.z);
		work[i].tri = tris[i];
	}
	qsort(work, (size_t)count, sizeof(keyed), compare_keyed);
	for (int i = 0; i < count; ++i)
	{
		tris[i] = work[i].tri;
	}
	int half = count / 2;
	median_cut(v, tris, half, max_tris, work, sizes, group_count);
	median_cut(v, tris + half, count - half, max_tris, work, sizes, group_count);
}

// ---------------------------------------------------------------------------------------------
// PCA boxes

/// Eigenvectors of a symmetric 3 × 3 matrix by Jacobi rotations (columns of vectors).
static void jacobi_eigenvectors(double a[3][3], double vectors[3][3])
{
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			vectors[i][j] = i == j ? 1.0 : 0.0;
		}
	}
	for (int sweep = 0; sweep < 32; ++sweep)
	{
		double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
		if (off <= 1e-30 * (fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]) + 1e-300))
		{
			break;
		}
		for (int p = 0; p < 2; ++p)
		{
			for (int q = p + 1; q < 3; ++q)
			{
				if (a[p][q] == 0.0)
				{
					continue;
				}
				double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
				double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
				double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
				for (int k = 0; k < 3; ++k)
				{
					double akp = a[k][p], akq = a[k][q];
					a[k][p] = c * akp - s * akq;
					a[k][q] = s * akp + c * akq;
				}
				for (int k = 0; k < 3; ++k)
				{
					double apk = a[p][k], aqk = a[q][k];
					a[p][k] = c * apk - s * aqk;
					a[q][k] = s * apk + c * aqk;
				}
				for (int k = 0; k < 3; ++k)
				{
					double vkp = vectors[k][p], vkq = vectors[k][q];
					vectors[k][p] = c * vkp - s * vkq;
					vectors[k][q] = s * vkp + c * vkq;
				}
			}
		}
	}
}

/// The PCA box of the triangles' vertices: axes from the covariance, extents from the vertices.
static kl_ps_obb pca_box(const kl_ps_model_view* v, const int32_t* tris, int count)
{
	double mean[3] = {0.0, 0.0, 0.0};
	int n = 3 * count;
	for (int i = 0; i < count; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			kl_ps_f3 p = v->vertices[v->indices[3 * tris[i] + k]];
			mean[0] += p.x, mean[1] += p.y, mean[2] += p.z;
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		mean[k] /= (double)(n > 0 ? n : 1);
	}
	double cov[3][3] = {{0}};
	for (int i = 0; i < count; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			kl_ps_f3 p = v->vertices[v->indices[3 * tris[i] + k]];
			double d[3] = {p.x - mean[0], p.y - mean[1], p.z - mean[2]};
			for (int r = 0; r < 3; ++r)
			{
				for (int c = 0; c < 3; ++c)
				{
					cov[r][c] += d[r] * d[c];
				}
			}
		}
	}
	double e[3][3];
	jacobi_eigenvectors(cov, e);
	kl_ps_obb box;
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
	double axis[3][3];
	for (int k = 0; k < 3; ++k)
	{
		double len = sqrt(e[0][k] * e[0][k] + e[1][k] * e[1][k] + e[2][k] * e[2][k]);
		for (int r = 0; r < 3; ++r)
		{
			axis[k][r] = e[r][k] / len;
		}
	}
	for (int i = 0; i < count; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			kl_ps_f3 p = v->vertices[v->indices[3 * tris[i] + k]];
			for (int a = 0; a < 3; ++a)
			{
				double s = axis[a][0] * p.x + axis[a][1] * p.y + axis[a][2] * p.z;
				lo[a] = fmin(lo[a], s);
				hi[a] = fmax(hi[a], s);
			}
		}
	}
	double c[3] = {0.0, 0.0, 0.0};
	double size = 0.0;
	for (int a = 0; a < 3; ++a)
	{
		size = fmax(size, hi[a] - lo[a]);
	}
	for (int a = 0; a < 3; ++a)
	{
		double mid = 0.5 * (lo[a] + hi[a]);
		// Padded so that float rounding of the box never cuts a vertex off, and a flat patch keeps
		// a thickness (its face normals stay defined).
		box.half[a] = (float)(0.5 * (hi[a] - lo[a]) * (1.0 + 1e-5) + 1e-6 * size + 1e-12);
		box.axis[a] = kl_ps_make((float)axis[a][0], (float)axis[a][1], (float)axis[a][2]);
		for (int r = 0; r < 3; ++r)
		{
			c[r] += mid * axis[a][r];
		}
	}
	box.center = kl_ps_make((float)c[0], (float)c[1], (float)c[2]);
	return box;
}

// ---------------------------------------------------------------------------------------------
// Octrees

typedef struct keyed_point
{
	uint32_t key;
	uint32_t order;
	kl_ps_point point;
} keyed_point;

static int compare_keyed_point(const void* a, const void* b)
{
	const keyed_point* x = a;
	const keyed_point* y = b;
	if (x->key != y->key)
	{
		return x->key < y->key ? -1 : 1;
	}
	return (x->order > y->order) - (x->order < y->order);
}

typedef struct octree_builder
{
	kl_ps_node* nodes;
	int count;
	int capacity;
} octree_builder;

static int push_node(octree_builder* b, uint32_t begin, uint32_t end, uint32_t key, int depth)
{
	if (b->count == b->capacity)
	{
		int grown = b->capacity > 0 ? 2 * b->capacity : 64;
		kl_ps_node* n = kl_realloc(b->nodes, (size_t)grown, sizeof(kl_ps_node));
		if (n == NULL)
		{
			return -1;
		}
		b->nodes = n;
		b->capacity = grown;
	}
	kl_ps_node* n = b->nodes + b->count;
	memset(n, 0, sizeof(*n));
	n->begin = begin;
	n->end = end;
	n->first_child = -1;
	n->key = key;
	n->depth = (uint8_t)depth;
	return b->count++;
}

/// The octree over keyed points (sorted), breadth first from node `root`: an octant with more than
/// a bucket of points and room for another level gets children, one per non-empty octant.
static bool build_octree(octree_builder* b, const keyed_point* pts, uint32_t count, int* root)
{
	*root = push_node(b, 0, count, 0, 0);
	if (*root < 0)
	{
		return false;
	}
	for (int i = *root; i < b->count; ++i)
	{
		kl_ps_node n = b->nodes[i];
		if (n.end - n.begin <= KL_PS_LEAF_BUCKET || n.depth >= KL_PS_MAX_DEPTH)
		{
			continue;
		}
		int shift = 3 * (KL_PS_MAX_DEPTH - n.depth - 1);
		int first = b->count;
		uint32_t s = n.begin;
		while (s < n.end)
		{
			uint32_t octant = (pts[s].key >> shift) & 7u;
			uint32_t e = s;
			while (e < n.end && ((pts[e].key >> shift) & 7u) == octant)
			{
				++e;
			}
			if (push_node(b, s, e, (n.key << 3) | octant, n.depth + 1) < 0)
			{
				return false;
			}
			s = e;
		}
		b->nodes[i].first_child = first;
		b->nodes[i].child_count = (uint8_t)(b->count - first);
	}
	return true;
}

/// Samples of the conglomerate's triangles, keyed in its cube.
static keyed_point* conglomerate_points(const kl_ps_model_view* v, const kl_ps_mask* masks, const int32_t* tris,
										int count, uint32_t* point_count, kl_ps_conglomerate* c)
{
	uint32_t n = 0;
	kl_ps_f3 s;
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 t[3];
		kl_ps_triangle(v, tris[i], t);
		kl_ps_sampler it;
		kl_ps_sampler_init(&it, t, masks + tris[i]);
		while (kl_ps_sampler_next(&it, &s))
		{
			++n;
		}
	}
	keyed_point* pts = kl_alloc(n > 0 ? n : 1, sizeof(keyed_point));
	if (pts == NULL)
	{
		return NULL;
	}
	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	uint32_t k = 0;
	for (int i = 0; i < count; ++i)
	{
		kl_ps_f3 t[3];
		kl_ps_triangle(v, tris[i], t);
		kl_ps_sampler it;
		kl_ps_sampler_init(&it, t, masks + tris[i]);
		while (kl_ps_sampler_next(&it, &s))
		{
			pts[k].order = k;
			pts[k].point.x = s.x, pts[k].point.y = s.y, pts[k].point.z = s.z;
			pts[k].point.tri = tris[i];
			float x[3] = {s.x, s.y, s.z};
			for (int a = 0; a < 3; ++a)
			{
				lo[a] = fminf(lo[a], x[a]);
				hi[a] = fmaxf(hi[a], x[a]);
			}
			++k;
		}
	}
	float edge = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
	c->root_min = kl_ps_make(lo[0], lo[1], lo[2]);
	c->root_edge = edge > 0.0f ? edge * 1.0001f : 1e-6f;
	for (uint32_t i = 0; i < n; ++i)
	{
		kl_ps_f3 p = kl_ps_make(pts[i].point.x, pts[i].point.y, pts[i].point.z);
		pts[i].key = kl_ps_point_key(p, c->root_min, c->root_edge);
	}
	qsort(pts, n, sizeof(keyed_point), compare_keyed_point);
	*point_count = n;
	return pts;
}

/// Appends conglomerate c's octree and points to the model.
static bool add_octree(kl_pointshell* m, const kl_ps_model_view* v, kl_ps_conglomerate* c, octree_builder* b,
					   uint32_t* point_capacity)
{
	uint32_t n = 0;
	keyed_point* pts = conglomerate_points(v, m->masks, m->tris + c->tri_begin, c->tri_count, &n, c);
	if (pts == NULL)
	{
		return false;
	}
	int root;
	int before = b->count;
	bool ok = build_octree(b, pts, n, &root);
	if (ok && m->point_count + n > *point_capacity)
	{
		uint32_t grown = 2 * (m->point_count + n);
		kl_ps_point* p = kl_realloc(m->points, grown, sizeof(kl_ps_point));
		ok = p != NULL;
		if (ok)
		{
			m->points = p;
			*point_capacity = grown;
		}
	}
	if (ok)
	{
		// Node ranges are relative to the conglomerate's points; make them the model's.
		for (int i = before; i < b->count; ++i)
		{
			b->nodes[i].begin += m->point_count;
			b->nodes[i].end += m->point_count;
		}
		for (uint32_t i = 0; i < n; ++i)
		{
			m->points[m->point_count + i] = pts[i].point;
		}
		c->point_begin = m->point_count;
		c->point_count = n;
		c->node_begin = root;
		c->node_count = b->count - before;
		m->point_count += n;
	}
	kl_free(pts);
	return ok;
}

// ---------------------------------------------------------------------------------------------

static kl_result check_input(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
							 const kl_pointshell_build_def* def)
{
	if (vertices == NULL || indices == NULL || vertex_count <= 0 || triangle_count <= 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: no triangles");
	}
	if (triangle_count >= KL_PS_MAX_TRIANGLES)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: %d triangles (at most %d)", triangle_count,
					   KL_PS_MAX_TRIANGLES - 1);
	}
	if (def->max_triangles < 1 || !(def->spacing >= 0.0f) || !isfinite(def->spacing))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: max_triangles %d and spacing %g must be positive",
					   def->max_triangles, (double)def->spacing);
	}
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		if (indices[i] < 0 || indices[i] >= vertex_count)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: index %d out of range", indices[i]);
		}
	}
	for (int i = 0; i < vertex_count; ++i)
	{
		if (!isfinite(vertices[i].x) || !isfinite(vertices[i].y) || !isfinite(vertices[i].z))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: vertex %d is not finite", i);
		}
	}
	return KL_OK;
}

static bool build_conglomerates(kl_pointshell* m, const kl_ps_model_view* v, const kl_pointshell_build_def* def)
{
	int n = m->triangle_count;
	int* sizes = kl_alloc((size_t)n, sizeof(int));
	keyed* work = kl_alloc((size_t)n, sizeof(keyed));
	bool ok = sizes != NULL && work != NULL;
	if (ok)
	{
		for (int i = 0; i < n; ++i)
		{
			m->tris[i] = i;
		}
		int groups = 0;
		median_cut(v, m->tris, n, def->max_triangles, work, sizes, &groups);
		m->congs = kl_alloc_zero((size_t)groups, sizeof(kl_ps_conglomerate));
		ok = m->congs != NULL;
		int begin = 0;
		for (int g = 0; ok && g < groups; ++g)
		{
			m->congs[g].tri_begin = begin;
			m->congs[g].tri_count = sizes[g];
			begin += sizes[g];
		}
		m->cong_count = ok ? groups : 0;
	}
	kl_free(sizes);
	kl_free(work);
	return ok;
}

kl_pointshell* kl_pointshell_build(const vec3s* vertices, int vertex_count, const int32_t* indices,
								   int triangle_count, const kl_pointshell_build_def* def,
								   bool (*progress)(float fraction, void* context), void* context)
{
	kl_pointshell_build_def defaults = kl_pointshell_default_build_def();
	def = def != NULL ? def : &defaults;
	if (check_input(vertices, vertex_count, indices, triangle_count, def) != KL_OK)
	{
		return NULL;
	}
	kl_pointshell* m = kl_alloc_zero(1, sizeof(kl_pointshell));
	if (m == NULL)
	{
		return NULL;
	}
	m->serial = kl_pointshell_next_serial();
	m->vertices = (const kl_ps_f3*)vertices;
	m->indices = indices;
	m->vertex_count = vertex_count;
	m->triangle_count = triangle_count;
	m->tris = kl_alloc((size_t)triangle_count, sizeof(int32_t));
	m->masks = kl_alloc((size_t)triangle_count, sizeof(kl_ps_mask));
	m->tri_coverage = kl_alloc((size_t)triangle_count, sizeof(float));
	kl_ps_model_view v = kl_pointshell_view(m);
	bool ok = m->tris != NULL && m->masks != NULL && m->tri_coverage != NULL;
	m->spacing = def->spacing > 0.0f ? def->spacing : (ok ? auto_spacing(&v) : 0.0f);
	if (ok && !(m->spacing > 0.0f))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: the mesh has no extent");
		ok = false;
	}
	ok = ok && build_conglomerates(m, &v, def);
	v = kl_pointshell_view(m);
	octree_builder b = {NULL, 0, 0};
	uint32_t point_capacity = 0;
	for (int g = 0; ok && g < m->cong_count; ++g)
	{
		kl_ps_conglomerate* c = m->congs + g;
		c->coverage = 0.0f;
		for (int i = 0; i < c->tri_count; ++i)
		{
			int32_t tri = m->tris[c->tri_begin + i];
			kl_ps_f3 t[3];
			kl_ps_triangle(&v, tri, t);
			m->tri_coverage[tri] = rasterise(t, m->spacing, m->masks + tri);
			c->coverage = fmaxf(c->coverage, m->tri_coverage[tri]);
		}
		c->obb = pca_box(&v, m->tris + c->tri_begin, c->tri_count);
		ok = add_octree(m, &v, c, &b, &point_capacity);
		m->coverage = fmaxf(m->coverage, c->coverage);
		if (ok && progress != NULL && !progress((float)(g + 1) / (float)m->cong_count, context))
		{
			kl_fail(KL_ERR_CANCELLED, "point shell: build cancelled");
			ok = false;
		}
	}
	m->nodes = b.nodes;
	m->node_count = b.count;
	if (ok)
	{
		m->obb = pca_box(&v, m->tris, m->triangle_count);
		return m;
	}
	kl_pointshell_destroy(m);
	return NULL;
}
