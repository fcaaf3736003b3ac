// Kollide narrowphase — the point-shell model in a cache file (pointshell.h), so that a large mesh's
// conglomerates, shells and octrees are built once and read back on later runs.
//
// Format: a header (magic "KLPSHELL", version, a byte-order mark, the counts, the build settings, a
// 64-bit FNV-1a hash of the mesh's vertices and indices, and one of the payload), then the arrays in
// the order of kl_pointshell. Native byte order; a file from another byte order, another version,
// other geometry or settings, or one whose payload hash or structure does not check out is not
// used (the caller builds the model again).
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"

#include "file.h"
#include "mesh.h"

#include <stdio.h>
#include <string.h>

#define KL_PS_CACHE_VERSION 7u // 2: measured coverage; 3: leaf entries; 4: skip links; 5: leaves of 256; 6: cells; 7: leaf bucket kept; older: rebuilt
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
	int32_t leaf_bucket; ///< the model's (kl_pointshell_leaf_bucket of the build def)
} cache_header;

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
	uint64_t h = KL_HASH64_INIT;
	for (int i = 0; i < n; ++i)
	{
		h = kl_hash64_bytes(h, *parts[i].data, parts[i].size * parts[i].count);
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
	h.geometry_hash = kl_mesh_geometry_hash((const vec3s*)m->vertices, m->vertex_count, m->indices,
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
	h.leaf_bucket = m->leaf_bucket; // as built (load compares it with the def it is asked for)
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

static bool header_matches(const cache_header* h, const vec3s* vertices, int vertex_count, const int32_t* indices,
						   int triangle_count, const kl_pointshell_build_def* def)
{
	return memcmp(h->magic, "KLPSHELL", 8) == 0 && h->version == KL_PS_CACHE_VERSION &&
		   h->byte_order == KL_PS_CACHE_BOM && h->vertex_count == vertex_count && h->triangle_count == triangle_count &&
		   h->max_triangles == def->max_triangles && h->spacing_asked == def->spacing &&
		   h->grouping == (int32_t)def->grouping && h->leaf_bucket == kl_pointshell_leaf_bucket(def) &&
		   h->cong_count >= 1 &&
		   h->cong_count <= triangle_count && h->node_count >= h->cong_count && h->node_count < (1 << 28) &&
		   h->point_count < (1u << 30) && h->entry_count <= h->point_count &&
		   h->geometry_hash == kl_mesh_geometry_hash(vertices, vertex_count, indices, triangle_count);
}

kl_pointshell* kl_pointshell_load(const char* path, const vec3s* vertices, int vertex_count, const int32_t* indices,
								  int triangle_count, const kl_pointshell_build_def* def)
{
	if (kl_ps_check_input(vertices, vertex_count, indices, triangle_count, def) != KL_OK)
	{
		return NULL; // the build refuses the same input, with the message
	}
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
		m->leaf_bucket = h.leaf_bucket;
		part parts[7];
		int n = model_parts(m, parts);
		uint64_t bytes = 0;
		for (int i = 0; i < n; ++i)
		{
			bytes += (uint64_t)parts[i].size * parts[i].count;
		}
		ok = kl_file_remaining_is(f, bytes);
		for (int i = 0; ok && i < n; ++i)
		{
			*parts[i].data = kl_alloc(parts[i].count > 0 ? parts[i].count : 1, parts[i].size);
			ok = *parts[i].data != NULL &&
				 (parts[i].count == 0 || fread(*parts[i].data, parts[i].size, parts[i].count, f) == parts[i].count);
		}
		unsigned char extra;
		ok = ok && fread(&extra, 1, 1, f) == 0 && payload_hash(m) == h.payload_hash && kl_pointshell_valid(m);
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
