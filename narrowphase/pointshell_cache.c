// Kollide narrowphase — the point-shell model in a cache file (pointshell.h), so that a large mesh's
// conglomerates, shells and octrees are built once and read back on later runs.
//
// Format: a header (magic "KLPSHELL", version, a byte-order mark, the counts, the build settings, a
// 64-bit FNV-1a hash of the mesh's vertices and indices, and one of the payload), then the arrays in
// the order of kl_pointshell. Native byte order; a file from another byte order, another version,
// other geometry or settings, or one whose payload hash or structure does not check out is not
// used (the caller builds the model again).
// SPDX-License-Identifier: MIT
#include "pointshell.h"

#include <stdio.h>
#include <string.h>

#define KL_PS_CACHE_VERSION 6u // 2: measured coverage; 3: leaf entries; 4: skip links; 5: leaves of 256; 6: cells; older: rebuilt
#define KL_PS_CACHE_BOM 0x01020304u

typedef struct cache_header
{
	char magic[8];
	uint32_t version;
	uint32_t byte_order;
	uint64_t geometry_hash;
	uint64_t payload_hash;
	int32_t vertex_count;
	int32_t triangle_count;
	int32_t cong_count;
	int32_t node_count;
	uint32_t point_count;
	uint32_t entry_count;
	int32_t max_triangles;
	float spacing_asked; ///< the build def's (0: automatic)
	float spacing;		 ///< the one used
	float coverage;
	int32_t grouping; ///< the build def's (0, the median cut, in files written before it was kept)
	kl_ps_obb obb;
} cache_header;

static uint64_t fnv1a(uint64_t h, const void* data, size_t size)
{
	const unsigned char* p = data;
	for (size_t i = 0; i < size; ++i)
	{
		h = (h ^ p[i]) * 0x100000001b3ull;
	}
	return h;
}

static const uint64_t k_fnv_basis = 0xcbf29ce484222325ull;

uint64_t kl_pointshell_geometry_hash(const vec3s* vertices, int vertex_count, const int32_t* indices,
									 int triangle_count)
{
	uint64_t h = fnv1a(k_fnv_basis, vertices, (size_t)vertex_count * sizeof(vec3s));
	return fnv1a(h, indices, (size_t)triangle_count * 3 * sizeof(int32_t));
}

/// The arrays of a model in file order: pointer, item size, count.
typedef struct part
{
	void** data;
	size_t size;
	size_t count;
} part;

static int model_parts(kl_pointshell* m, part out[7])
{
	part parts[7] = {
		{(void**)&m->congs, sizeof(kl_ps_conglomerate), (size_t)m->cong_count},
		{(void**)&m->tris, sizeof(int32_t), (size_t)m->triangle_count},
		{(void**)&m->masks, sizeof(kl_ps_mask), (size_t)m->triangle_count},
		{(void**)&m->tri_coverage, sizeof(float), (size_t)m->triangle_count},
		{(void**)&m->points, sizeof(kl_ps_point), (size_t)m->point_count},
		{(void**)&m->nodes, sizeof(kl_ps_node), (size_t)m->node_count},
		{(void**)&m->entries, sizeof(kl_ps_entry), (size_t)m->entry_count},
	};
	memcpy(out, parts, sizeof(parts));
	return 7;
}

static uint64_t payload_hash(kl_pointshell* m)
{
	part parts[7];
	int n = model_parts(m, parts);
	uint64_t h = k_fnv_basis;
	for (int i = 0; i < n; ++i)
	{
		h = fnv1a(h, *parts[i].data, parts[i].size * parts[i].count);
	}
	return h;
}

kl_result kl_pointshell_save(const char* path, const kl_pointshell* model, const kl_pointshell_build_def* def)
{
	kl_pointshell* m = (kl_pointshell*)model; // model_parts only reads through the pointers
	cache_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "KLPSHELL", 8);
	h.version = KL_PS_CACHE_VERSION;
	h.byte_order = KL_PS_CACHE_BOM;
	h.geometry_hash = kl_pointshell_geometry_hash((const vec3s*)m->vertices, m->vertex_count, m->indices,
												  m->triangle_count);
	h.payload_hash = payload_hash(m);
	h.vertex_count = m->vertex_count;
	h.triangle_count = m->triangle_count;
	h.cong_count = m->cong_count;
	h.node_count = m->node_count;
	h.point_count = m->point_count;
	h.entry_count = m->entry_count;
	h.max_triangles = def->max_triangles;
	h.spacing_asked = def->spacing;
	h.grouping = (int32_t)def->grouping;
	h.spacing = m->spacing;
	h.coverage = m->coverage;
	h.obb = m->obb;
	FILE* f = fopen(path, "wb");
	if (f == NULL)
	{
		return kl_fail(KL_ERR_IO, "point shell cache: cannot write %s", path);
	}
	bool ok = fwrite(&h, sizeof(h), 1, f) == 1;
	part parts[7];
	int n = model_parts(m, parts);
	for (int i = 0; ok && i < n; ++i)
	{
		ok = parts[i].count == 0 || fwrite(*parts[i].data, parts[i].size, parts[i].count, f) == parts[i].count;
	}
	ok = fclose(f) == 0 && ok;
	if (!ok)
	{
		remove(path); // never leave half a file for the next run
		return kl_fail(KL_ERR_IO, "point shell cache: writing %s failed", path);
	}
	return KL_OK;
}

/// Whether a child's cube is one of its parent's octants (kl_ps_cell_child), one level down. From
/// the root's cell 0 at depth 0, every cube then lies in the conglomerate's.
static bool child_cell_ok(const kl_ps_node* parent, const kl_ps_node* child)
{
	if (child->depth != parent->depth + 1 || (child->cell >> (3 * KL_PS_MORTON_BITS)) != 0u)
	{
		return false;
	}
	for (int axis = 0; axis < 3; ++axis)
	{
		if (kl_ps_cell_axis(child->cell, axis) >> 1 != kl_ps_cell_axis(parent->cell, axis))
		{
			return false;
		}
	}
	return true;
}

/// Whether nodes [root, root + count) are a tree as the build lays it out, breadth first: the inner
/// nodes' children, in the order of their parents, are the nodes after the root, each once and
/// each after its parent; every skip link is the one a depth-first walk needs (kl_ps_node.skip);
/// and each node's cube is an octant of its parent's. Then every walk, pruned or not, moves forward
/// in depth-first order and ends, and prunes by the cubes that hold the points.
static bool tree_ok(const kl_ps_node* nodes, int root, int count)
{
	int next = root + 1;
	if (nodes[root].skip != -1 || nodes[root].depth != 0 || nodes[root].cell != 0u)
	{
		return false;
	}
	for (int n = root; n < root + count; ++n)
	{
		const kl_ps_node* node = nodes + n;
		if (node->child_count == 0)
		{
			continue;
		}
		if (node->first_child != next || next <= n || node->child_count > root + count - next)
		{
			return false;
		}
		next += node->child_count;
		for (int k = 0; k < node->child_count; ++k)
		{
			const kl_ps_node* child = nodes + node->first_child + k;
			if (child->skip != (k + 1 < node->child_count ? node->first_child + k + 1 : node->skip) ||
				!child_cell_ok(node, child))
			{
				return false;
			}
		}
	}
	return next == root + count;
}

/// Whether every index of the model stays in its arrays and each octree is a tree with its walk's
/// links (tree_ok), so that a file that passed the hashes but was made by other code still cannot
/// send a kernel out of bounds or round in circles.
static bool structure_ok(const kl_pointshell* m)
{
	int32_t next_tri = 0;
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		if (c->tri_begin != next_tri || c->tri_count < 1 || c->tri_count > m->triangle_count - next_tri ||
			c->point_begin > m->point_count || c->point_count > m->point_count - c->point_begin || c->node_begin < 0 ||
			c->node_count < 1 || c->node_begin > m->node_count - c->node_count || !(c->root_edge > 0.0f))
		{
			return false;
		}
		next_tri += c->tri_count;
		for (int n = c->node_begin; n < c->node_begin + c->node_count; ++n)
		{
			const kl_ps_node* node = m->nodes + n;
			bool leaf = node->child_count == 0;
			if (node->begin > node->end || node->begin < c->point_begin || node->end > c->point_begin + c->point_count ||
				node->depth > KL_PS_MAX_DEPTH ||
				node->entry_begin > node->entry_end || node->entry_end > m->entry_count ||
				(!leaf && node->entry_end > node->entry_begin))
			{
				return false;
			}
		}
		if (!tree_ok(m->nodes, c->node_begin, c->node_count))
		{
			return false;
		}
	}
	if (next_tri != m->triangle_count)
	{
		return false;
	}
	for (int t = 0; t < m->triangle_count; ++t)
	{
		if (m->tris[t] < 0 || m->tris[t] >= m->triangle_count || !(m->tri_coverage[t] >= 0.0f))
		{
			return false;
		}
	}
	for (uint32_t i = 0; i < m->point_count; ++i)
	{
		if (m->points[i].tri < 0 || m->points[i].tri >= m->triangle_count)
		{
			return false;
		}
	}
	for (uint32_t i = 0; i < m->entry_count; ++i)
	{
		const kl_ps_entry* e = m->entries + i;
		if (e->tri < 0 || e->tri >= m->triangle_count || !(e->radius >= 0.0f) || !(e->coverage >= 0.0f) ||
			!isfinite(e->center.x) || !isfinite(e->center.y) || !isfinite(e->center.z))
		{
			return false;
		}
	}
	return true;
}

static bool header_matches(const cache_header* h, const vec3s* vertices, int vertex_count, const int32_t* indices,
						   int triangle_count, const kl_pointshell_build_def* def)
{
	return memcmp(h->magic, "KLPSHELL", 8) == 0 && h->version == KL_PS_CACHE_VERSION &&
		   h->byte_order == KL_PS_CACHE_BOM && h->vertex_count == vertex_count && h->triangle_count == triangle_count &&
		   h->max_triangles == def->max_triangles && h->spacing_asked == def->spacing &&
		   h->grouping == (int32_t)def->grouping && h->cong_count >= 1 &&
		   h->cong_count <= triangle_count && h->node_count >= h->cong_count && h->node_count < (1 << 28) &&
		   h->point_count < (1u << 30) && h->entry_count <= h->point_count &&
		   h->geometry_hash == kl_pointshell_geometry_hash(vertices, vertex_count, indices, triangle_count);
}

kl_pointshell* kl_pointshell_load(const char* path, const vec3s* vertices, int vertex_count, const int32_t* indices,
								  int triangle_count, const kl_pointshell_build_def* def)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return NULL; // no cache yet: not an error
	}
	cache_header h;
	kl_pointshell* m = NULL;
	if (fread(&h, sizeof(h), 1, f) == 1 && header_matches(&h, vertices, vertex_count, indices, triangle_count, def))
	{
		m = kl_alloc_zero(1, sizeof(kl_pointshell));
	}
	bool ok = m != NULL;
	if (ok)
	{
		m->vertices = (const kl_ps_f3*)vertices;
		m->indices = indices;
		m->vertex_count = vertex_count;
		m->triangle_count = triangle_count;
		m->cong_count = h.cong_count;
		m->node_count = h.node_count;
		m->point_count = h.point_count;
		m->entry_count = h.entry_count;
		m->spacing = h.spacing;
		m->coverage = h.coverage;
		m->obb = h.obb;
		part parts[7];
		int n = model_parts(m, parts);
		for (int i = 0; ok && i < n; ++i)
		{
			*parts[i].data = kl_alloc(parts[i].count > 0 ? parts[i].count : 1, parts[i].size);
			ok = *parts[i].data != NULL &&
				 (parts[i].count == 0 || fread(*parts[i].data, parts[i].size, parts[i].count, f) == parts[i].count);
		}
		unsigned char extra;
		ok = ok && fread(&extra, 1, 1, f) == 0 && payload_hash(m) == h.payload_hash && structure_ok(m);
	}
	fclose(f);
	if (!ok)
	{
		kl_pointshell_destroy(m);
		return NULL;
	}
	m->serial = kl_pointshell_next_serial();
	return m;
}
