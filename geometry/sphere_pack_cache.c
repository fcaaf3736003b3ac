// Kollide — the inner-sphere packing in a cache file (kl_sphere_pack_def.cache), so that a mesh is
// packed once and read back on later runs.
//
// Format: a header (magic "KLSPHERE", version, a byte-order mark, a 64-bit FNV-1a hash of the mesh's
// vertices and indices, the settings that shape the packing, the sphere count and coverage, and a
// hash of the spheres and their represented volumes), then the spheres, then their represented
// volumes. Native byte order. A file made for other geometry or settings, from another byte order or
// version, or whose spheres do not check out (hash, count, finite, positive radii inside the mesh's
// bounds, represented volumes finite and no smaller than the spheres) is not used: the caller packs
// again.
// SPDX-License-Identifier: MIT
#include "file.h"
#include "mesh.h"
#include "sphere_pack.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define KL_SP_CACHE_VERSION 2u
#define KL_SP_CACHE_BOM 0x01020304u

typedef struct cache_header
{
	char magic[8];
	uint32_t version;
	uint32_t byte_order;
	uint64_t geometry_hash;
	uint64_t payload_hash;
	int32_t vertex_count;
	int32_t triangle_count;
	int32_t max_spheres;
	float coverage_asked;
	float min_radius;
	uint32_t seed;
	int32_t resolution;
	int32_t count;
	float coverage;
	uint32_t reserved;
} cache_header;

static void fill_header(cache_header* h, const kl_mesh* mesh, const kl_sphere_pack_def* def)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, "KLSPHERE", 8);
	h->version = KL_SP_CACHE_VERSION;
	h->byte_order = KL_SP_CACHE_BOM;
	h->vertex_count = mesh->info.vertex_count;
	h->triangle_count = mesh->info.triangle_count;
	h->geometry_hash = kl_mesh_geometry_hash(mesh->vertices, h->vertex_count, mesh->indices, h->triangle_count);
	h->max_spheres = def->max_spheres;
	h->coverage_asked = def->coverage;
	h->min_radius = def->min_radius;
	h->seed = def->seed;
	h->resolution = def->resolution;
}

static uint64_t payload_hash(const kl_sphere* spheres, const float* represented, int count)
{
	uint64_t hash = kl_hash64_bytes(KL_HASH64_INIT, spheres, (size_t)count * sizeof(kl_sphere));
	return kl_hash64_bytes(hash, represented, (size_t)count * sizeof(float));
}

kl_result kl_sp_cache_save(const char* path, const kl_sphere_packing* packing, const kl_mesh* mesh,
						   const kl_sphere_pack_def* def)
{
	cache_header h;
	fill_header(&h, mesh, def);
	h.count = packing->count;
	h.coverage = packing->coverage;
	h.payload_hash = payload_hash(packing->spheres, packing->represented, packing->count);
	FILE* f = fopen(path, "wb");
	if (f == NULL)
	{
		return kl_fail(KL_ERR_IO, "sphere pack cache: cannot write %s", path);
	}
	bool ok = fwrite(&h, sizeof(h), 1, f) == 1 &&
			  (packing->count == 0 ||
			   (fwrite(packing->spheres, sizeof(kl_sphere), (size_t)packing->count, f) == (size_t)packing->count &&
				fwrite(packing->represented, sizeof(float), (size_t)packing->count, f) == (size_t)packing->count));
	ok = fclose(f) == 0 && ok;
	if (!ok)
	{
		remove(path); // never leave half a file for the next run
		return kl_fail(KL_ERR_IO, "sphere pack cache: writing %s failed", path);
	}
	return KL_OK;
}

/// Whether every sphere is finite, of positive radius, within the mesh's bounds, and stands for a
/// finite volume no smaller than (about) its own.
static bool spheres_valid(const kl_sphere* s, const float* represented, int count, kl_aabb box)
{
	for (int i = 0; i < count; ++i)
	{
		vec3s c = s[i].center;
		float r = s[i].radius;
		float own = (float)(4.0 / 3.0 * GLM_PI * (double)r * r * r);
		if (!(r > 0.0f) || !isfinite(represented[i]) || !(represented[i] >= 0.999f * own) || !kl_vec3_is_finite(c) ||
			!isfinite(r) || c.x - r < box.lower.x || c.y - r < box.lower.y || c.z - r < box.lower.z ||
			c.x + r > box.upper.x || c.y + r > box.upper.y || c.z + r > box.upper.z)
		{
			return false;
		}
	}
	return true;
}

kl_sphere_packing* kl_sp_cache_load(const char* path, const kl_mesh* mesh, const kl_sphere_pack_def* def)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return NULL; // no cache yet: not an error
	}
	cache_header want, h;
	fill_header(&want, mesh, def);
	kl_error_state saved;
	kl_error_save(&saved);
	kl_sphere_packing* p = NULL;
	// Everything but the outcome must match what this call would write (reserved included).
	bool ok = fread(&h, sizeof(h), 1, f) == 1 && memcmp(&h, &want, offsetof(cache_header, payload_hash)) == 0 &&
			  memcmp(&h.vertex_count, &want.vertex_count,
					 offsetof(cache_header, count) - offsetof(cache_header, vertex_count)) == 0 &&
			  h.reserved == 0 && h.count >= 0 && h.count <= def->max_spheres &&
			  kl_file_remaining_is(f, (uint64_t)h.count * (sizeof(kl_sphere) + sizeof(float)));
	if (ok)
	{
		p = kl_alloc_zero(1, sizeof(kl_sphere_packing));
		size_t n = (size_t)(h.count > 0 ? h.count : 1);
		ok = p != NULL && (p->spheres = kl_alloc(n, sizeof(kl_sphere))) != NULL &&
			 (p->represented = kl_alloc(n, sizeof(float))) != NULL;
	}
	if (ok)
	{
		p->count = h.count;
		p->coverage = h.coverage;
		unsigned char extra;
		size_t n = (size_t)h.count;
		ok = (n == 0 ||
			  (fread(p->spheres, sizeof(kl_sphere), n, f) == n && fread(p->represented, sizeof(float), n, f) == n)) &&
			 fread(&extra, 1, 1, f) == 0 && payload_hash(p->spheres, p->represented, h.count) == h.payload_hash &&
			 h.coverage >= 0.0f && h.coverage <= 1.0f &&
			 spheres_valid(p->spheres, p->represented, h.count, mesh->info.bounds);
	}
	fclose(f);
	if (!ok)
	{
		kl_sphere_packing_destroy(p);
		kl_error_restore(&saved); // a file not used is no failure of the call
		return NULL;
	}
	return p;
}
