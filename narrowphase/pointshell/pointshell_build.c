// Kollide narrowphase — building the point-shell model of a mesh (pointshell.h): conglomerates and
// their PCA boxes (pointshell_groups.c), the triangles' compressed point shells
// (pointshell_shells.c) and one Morton octree per conglomerate (pointshell_octree.c), driven here.
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"
#include "pointshell_cuda.h"

#include "gpu.h"

#include <kollide/types.h>

#include <float.h>
#include <stdatomic.h>
#include <string.h>

static atomic_ullong s_serial = 1;

kl_pointshell_build_def kl_pointshell_default_build_def(void)
{
	kl_pointshell_build_def def;
	def.max_triangles = 64;
	def.spacing = 0.0f;
	def.grouping = KL_PS_GROUP_MEDIAN_CUT;
	def.leaf_bucket = 0;
	return def;
}

int kl_pointshell_leaf_bucket(const kl_pointshell_build_def* def)
{
	if (def->leaf_bucket != 0)
	{
		return def->leaf_bucket;
	}
	// The cached device probe, which starts no CUDA context: a model built for CPU threads on a
	// machine with a device should not hold one.
	return kl_gpu_available() ? KL_PS_LEAF_BUCKET_GPU : KL_PS_LEAF_BUCKET;
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
	v.entries = m->entries;
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
	kl_free(m->entries);
	kl_free(m);
}

kl_pointshell_memory kl_pointshell_memory_of(const kl_pointshell* m)
{
	kl_pointshell_memory r;
	r.shells = (size_t)m->triangle_count * sizeof(kl_ps_mask);
	r.coverage = (size_t)m->triangle_count * sizeof(float);
	r.octrees = (size_t)m->point_count * sizeof(kl_ps_point) + (size_t)m->node_count * sizeof(kl_ps_node) +
				(size_t)m->entry_count * sizeof(kl_ps_entry);
	r.conglomerates = (size_t)m->cong_count * sizeof(kl_ps_conglomerate) + (size_t)m->triangle_count * sizeof(int32_t);
	return r;
}

// ---------------------------------------------------------------------------------------------

kl_result kl_ps_check_input(const vec3s* vertices, int vertex_count, const int32_t* indices, int triangle_count,
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
	if (def->grouping != KL_PS_GROUP_SURFACE && def->grouping != KL_PS_GROUP_MEDIAN_CUT)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: unknown grouping %d", (int)def->grouping);
	}
	if (def->leaf_bucket < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: leaf_bucket %d must not be negative", def->leaf_bucket);
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
		vec3s p = vertices[i];
		if (!(fabsf(p.x) <= KL_PS_MAX_COORDINATE && fabsf(p.y) <= KL_PS_MAX_COORDINATE &&
			  fabsf(p.z) <= KL_PS_MAX_COORDINATE))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: vertex %d (%g, %g, %g) is out of range [%g, %g]", i,
						   (double)p.x, (double)p.y, (double)p.z, -(double)KL_PS_MAX_COORDINATE,
						   (double)KL_PS_MAX_COORDINATE);
		}
	}
	return KL_OK;
}

kl_pointshell* kl_pointshell_build(const vec3s* vertices, int vertex_count, const int32_t* indices,
								   int triangle_count, const kl_pointshell_build_def* def,
								   bool (*progress)(float fraction, void* context), void* context)
{
	kl_pointshell_build_def defaults = kl_pointshell_default_build_def();
	def = def != NULL ? def : &defaults;
	if (kl_ps_check_input(vertices, vertex_count, indices, triangle_count, def) != KL_OK)
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
	m->spacing = def->spacing > 0.0f ? def->spacing : (ok ? kl_ps_auto_spacing(&v) : 0.0f);
	ok = ok && m->spacing >= 0.0f; // negative: out of memory
	if (ok && !(m->spacing > 0.0f))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "point shell: the mesh has no extent");
		ok = false;
	}
	ok = ok && kl_ps_build_conglomerates(m, &v, def);
	v = kl_pointshell_view(m);
	m->leaf_bucket = kl_pointshell_leaf_bucket(def);
	kl_ps_octree_builder b = {NULL, 0, 0, NULL, 0u, 0u, m->leaf_bucket};
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
			m->tri_coverage[tri] = kl_ps_rasterise(t, m->spacing, m->masks + tri);
			c->coverage = fmaxf(c->coverage, m->tri_coverage[tri]);
		}
		c->obb = kl_ps_pca_box(&v, m->tris + c->tri_begin, c->tri_count);
		ok = kl_ps_add_octree(m, &v, c, &b, &point_capacity);
		m->coverage = fmaxf(m->coverage, c->coverage);
		if (ok && progress != NULL && !progress((float)(g + 1) / (float)m->cong_count, context))
		{
			kl_fail(KL_ERR_CANCELLED, "point shell: build cancelled");
			ok = false;
		}
	}
	m->nodes = b.nodes;
	m->node_count = b.count;
	m->entries = b.entries;
	m->entry_count = b.entry_count;
	if (ok)
	{
		m->obb = kl_ps_pca_box(&v, m->tris, m->triangle_count);
		return m;
	}
	kl_pointshell_destroy(m);
	return NULL;
}

