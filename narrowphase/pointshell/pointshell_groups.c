// Kollide narrowphase — conglomerates and their boxes. The thesis ran HACD and kept its
// triangle-to-cluster map; it also names the cut of a BVH near its root as an alternative (seed-004
// §3.4). Kollide offers two groupings (kl_ps_grouping), each capped at max_triangles (64 by
// default), deterministic: the median cut here (the default: centroids split at the median of their
// longest axis until a group holds at most max_triangles, 32-64 each), and surface clustering
// (pointshell_surface.c). Completeness never depends on the grouping (every conglomerate pair is
// either culled by boxes that enclose its triangles or searched). Each gets a PCA box.
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"

#include <float.h>

static int compare_keyed(const void* a, const void* b)
{
	const kl_ps_keyed* x = a;
	const kl_ps_keyed* y = b;
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

void kl_ps_median_cut(const kl_ps_model_view* v, int32_t* tris, int count, int max_tris, kl_ps_keyed* work, int* sizes,
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
	qsort(work, (size_t)count, sizeof(kl_ps_keyed), compare_keyed);
	for (int i = 0; i < count; ++i)
	{
		tris[i] = work[i].tri;
	}
	int half = count / 2;
	kl_ps_median_cut(v, tris, half, max_tris, work, sizes, group_count);
	kl_ps_median_cut(v, tris + half, count - half, max_tris, work, sizes, group_count);
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
kl_ps_obb kl_ps_pca_box(const kl_ps_model_view* v, const int32_t* tris, int count)
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


bool kl_ps_build_conglomerates(kl_pointshell* m, const kl_ps_model_view* v, const kl_pointshell_build_def* def)
{
	int n = m->triangle_count;
	int* sizes = kl_alloc((size_t)n, sizeof(int));
	kl_ps_keyed* work = kl_alloc((size_t)n, sizeof(kl_ps_keyed));
	bool ok = sizes != NULL && work != NULL;
	if (ok)
	{
		for (int i = 0; i < n; ++i)
		{
			m->tris[i] = i;
		}
		int groups = 0;
		if (def->grouping == KL_PS_GROUP_SURFACE)
		{
			ok = kl_ps_surface_clusters(v, n, def->max_triangles, m->tris, work, sizes, &groups);
		}
		else
		{
			kl_ps_median_cut(v, m->tris, n, def->max_triangles, work, sizes, &groups);
		}
		m->congs = ok ? kl_alloc_zero((size_t)groups, sizeof(kl_ps_conglomerate)) : NULL;
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

