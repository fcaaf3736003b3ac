// Kollide render — GPU meshes (box, icosphere, capsule, triangle sets) and the hull/mesh cache.
// SPDX-License-Identifier: MIT
#include "meshes.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Edges

/// One triangle edge keyed by its end positions, for finding the faces that share it.
typedef struct edge_record
{
	float a[3];
	float b[3];
	float normal[3];
	uint32_t va;
	uint32_t vb;
} edge_record;

static int compare_positions(const float* a, const float* b)
{
	for (int i = 0; i < 3; ++i)
	{
		if (a[i] != b[i])
		{
			return a[i] < b[i] ? -1 : 1;
		}
	}
	return 0;
}

static int compare_edges(const void* pa, const void* pb)
{
	const edge_record* a = pa;
	const edge_record* b = pb;
	int c = compare_positions(a->a, b->a);
	return c != 0 ? c : compare_positions(a->b, b->b);
}

static void face_normal(const kl_mesh_vertex* v0, const kl_mesh_vertex* v1, const kl_mesh_vertex* v2, float* n)
{
	float e1[3] = {v1->p[0] - v0->p[0], v1->p[1] - v0->p[1], v1->p[2] - v0->p[2]};
	float e2[3] = {v2->p[0] - v0->p[0], v2->p[1] - v0->p[1], v2->p[2] - v0->p[2]};
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	float inv = len > 0.0f ? 1.0f / len : 0.0f;
	n[0] *= inv;
	n[1] *= inv;
	n[2] *= inv;
}

/// Edges a wireframe should show: boundary and non-manifold edges, and edges between two faces that
/// are not coplanar (so a box shows 12 edges, not its triangulation). Vertices match by position.
static uint32_t* feature_edges(const kl_mesh_vertex* vertices, const uint32_t* indices, int index_count, int* out_count)
{
	int record_count = index_count;
	edge_record* records = malloc(sizeof(edge_record) * (size_t)(record_count > 0 ? record_count : 1));
	uint32_t* edges = malloc(sizeof(uint32_t) * 2 * (size_t)(record_count > 0 ? record_count : 1));
	if (records == NULL || edges == NULL)
	{
		free(records);
		free(edges);
		*out_count = 0;
		return NULL;
	}
	for (int t = 0; t < index_count / 3; ++t)
	{
		const uint32_t* tri = indices + 3 * t;
		float n[3];
		face_normal(vertices + tri[0], vertices + tri[1], vertices + tri[2], n);
		for (int k = 0; k < 3; ++k)
		{
			edge_record* r = records + 3 * t + k;
			uint32_t va = tri[k];
			uint32_t vb = tri[(k + 1) % 3];
			if (compare_positions(vertices[va].p, vertices[vb].p) > 0)
			{
				uint32_t s = va;
				va = vb;
				vb = s;
			}
			memcpy(r->a, vertices[va].p, sizeof(r->a));
			memcpy(r->b, vertices[vb].p, sizeof(r->b));
			memcpy(r->normal, n, sizeof(n));
			r->va = va;
			r->vb = vb;
		}
	}
	qsort(records, (size_t)record_count, sizeof(edge_record), compare_edges);
	// About 5 degrees: hull faces are merged coplanar polygons, so their fan triangles agree closely.
	const float coplanar_cos = 0.996f;
	int count = 0;
	for (int i = 0; i < record_count;)
	{
		int j = i + 1;
		while (j < record_count && compare_edges(records + i, records + j) == 0)
		{
			++j;
		}
		bool keep = true;
		if (j - i == 2)
		{
			const float* n0 = records[i].normal;
			const float* n1 = records[i + 1].normal;
			keep = n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2] < coplanar_cos;
		}
		if (keep)
		{
			edges[count++] = records[i].va;
			edges[count++] = records[i].vb;
		}
		i = j;
	}
	free(records);
	*out_count = count;
	return edges;
}

// ---------------------------------------------------------------------------------------------
// GPU meshes

bool kl_gpu_mesh_create(kl_gpu_mesh* mesh, const kl_mesh_vertex* vertices, int vertex_count, const uint32_t* indices,
						int index_count, const uint32_t* edges, int edge_index_count)
{
	memset(mesh, 0, sizeof(*mesh));
	if (vertex_count <= 0 || index_count <= 0)
	{
		return false;
	}
	uint32_t* found = NULL;
	if (edges == NULL)
	{
		found = feature_edges(vertices, indices, index_count, &edge_index_count);
		edges = found;
	}
	float r2 = 0.0f;
	for (int i = 0; i < vertex_count; ++i)
	{
		const float* p = vertices[i].p;
		r2 = fmaxf(r2, p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
	}
	mesh->radius = sqrtf(r2);
	mesh->index_count = index_count;
	mesh->edge_index_count = edges != NULL ? edge_index_count : 0;

	glGenVertexArrays(1, &mesh->vao);
	glGenBuffers(1, &mesh->vbo);
	glGenBuffers(1, &mesh->ebo);
	glBindVertexArray(mesh->vao);
	glBindBuffer(GL_ARRAY_BUFFER, mesh->vbo);
	GLsizeiptr vertex_bytes = (GLsizeiptr)(sizeof(kl_mesh_vertex) * (size_t)vertex_count);
	glBufferData(GL_ARRAY_BUFFER, vertex_bytes, vertices, GL_STATIC_DRAW);
	glEnableVertexAttribArray(KL_ATTR_POSITION);
	glVertexAttribPointer(KL_ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, sizeof(kl_mesh_vertex),
						  (const void*)offsetof(kl_mesh_vertex, p));
	glEnableVertexAttribArray(KL_ATTR_NORMAL);
	glVertexAttribPointer(KL_ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, sizeof(kl_mesh_vertex),
						  (const void*)offsetof(kl_mesh_vertex, n));
	glEnableVertexAttribArray(KL_ATTR_SIDE);
	glVertexAttribPointer(KL_ATTR_SIDE, 1, GL_FLOAT, GL_FALSE, sizeof(kl_mesh_vertex),
						  (const void*)offsetof(kl_mesh_vertex, side));
	// Triangles, then the edge list, in one element buffer (a VAO holds one).
	size_t tri_bytes = sizeof(uint32_t) * (size_t)index_count;
	size_t edge_bytes = sizeof(uint32_t) * (size_t)mesh->edge_index_count;
	glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, mesh->ebo);
	glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)(tri_bytes + edge_bytes), NULL, GL_STATIC_DRAW);
	glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, 0, (GLsizeiptr)tri_bytes, indices);
	if (edge_bytes > 0)
	{
		glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, (GLintptr)tri_bytes, (GLsizeiptr)edge_bytes, edges);
	}
	for (int a = KL_ATTR_INSTANCE_POSITION; a <= KL_ATTR_INSTANCE_COLOR; ++a)
	{
		glEnableVertexAttribArray((GLuint)a);
		glVertexAttribDivisor((GLuint)a, 1);
	}
	glBindVertexArray(0);
	free(found);
	return true;
}

void kl_gpu_mesh_destroy(kl_gpu_mesh* mesh)
{
	if (mesh->vao != 0)
	{
		glDeleteVertexArrays(1, &mesh->vao);
		glDeleteBuffers(1, &mesh->vbo);
		glDeleteBuffers(1, &mesh->ebo);
	}
	memset(mesh, 0, sizeof(*mesh));
}

void kl_gpu_mesh_bind_instances(const kl_gpu_mesh* mesh, GLuint instance_vbo, int first)
{
	// GL 3.3 has no base instance, so each draw points the instance attributes at its own range.
	glBindVertexArray(mesh->vao);
	glBindBuffer(GL_ARRAY_BUFFER, instance_vbo);
	size_t base = sizeof(kl_instance) * (size_t)first;
	GLsizei stride = sizeof(kl_instance);
	glVertexAttribPointer(KL_ATTR_INSTANCE_POSITION, 3, GL_FLOAT, GL_FALSE, stride,
						  (const void*)(base + offsetof(kl_instance, p)));
	glVertexAttribPointer(KL_ATTR_INSTANCE_ROTATION, 4, GL_FLOAT, GL_FALSE, stride,
						  (const void*)(base + offsetof(kl_instance, q)));
	glVertexAttribPointer(KL_ATTR_INSTANCE_SCALE, 3, GL_FLOAT, GL_FALSE, stride,
						  (const void*)(base + offsetof(kl_instance, s)));
	glVertexAttribPointer(KL_ATTR_INSTANCE_COLOR, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride,
						  (const void*)(base + offsetof(kl_instance, color)));
}

// ---------------------------------------------------------------------------------------------
// Builders

static kl_mesh_vertex make_vertex(float x, float y, float z, float nx, float ny, float nz, float side)
{
	kl_mesh_vertex v = {{x, y, z}, {nx, ny, nz}, side};
	return v;
}

bool kl_build_unit_box(kl_gpu_mesh* mesh)
{
	kl_mesh_vertex v[24];
	uint32_t idx[36];
	for (int face = 0; face < 6; ++face)
	{
		int axis = face / 2;
		float s = (face % 2 == 0) ? 1.0f : -1.0f;
		int u = (axis + 1) % 3;
		int w = (axis + 2) % 3;
		// Corners counter-clockwise seen from outside: (u, w) order flips with the face's sign.
		const float cu[4] = {-1.0f, 1.0f, 1.0f, -1.0f};
		const float cw[4] = {-1.0f, -1.0f, 1.0f, 1.0f};
		for (int k = 0; k < 4; ++k)
		{
			float p[3] = {0.0f, 0.0f, 0.0f};
			float n[3] = {0.0f, 0.0f, 0.0f};
			p[axis] = s;
			p[u] = cu[k] * s;
			p[w] = cw[k];
			n[axis] = s;
			v[4 * face + k] = make_vertex(p[0], p[1], p[2], n[0], n[1], n[2], 0.0f);
		}
		const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
		for (int k = 0; k < 6; ++k)
		{
			idx[6 * face + k] = (uint32_t)(4 * face) + quad[k];
		}
	}
	return kl_gpu_mesh_create(mesh, v, 24, idx, 36, NULL, 0);
}

/// Every distinct edge of an indexed triangle list (for smooth meshes, whose wireframe is all edges).
static uint32_t* all_edges(const uint32_t* indices, int index_count, int* out_count)
{
	uint32_t* edges = malloc(sizeof(uint32_t) * 2 * (size_t)index_count);
	uint64_t* keys = malloc(sizeof(uint64_t) * (size_t)index_count);
	if (edges == NULL || keys == NULL)
	{
		free(edges);
		free(keys);
		*out_count = 0;
		return NULL;
	}
	for (int i = 0; i < index_count; ++i)
	{
		uint32_t a = indices[i];
		uint32_t b = indices[(i % 3 == 2) ? i - 2 : i + 1];
		keys[i] = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
	}
	int count = 0;
	for (int i = 0; i < index_count; ++i)
	{
		bool seen = false;
		for (int j = 0; j < i && !seen; ++j)
		{
			seen = keys[j] == keys[i];
		}
		if (!seen)
		{
			edges[count++] = (uint32_t)(keys[i] >> 32);
			edges[count++] = (uint32_t)(keys[i] & 0xffffffffu);
		}
	}
	free(keys);
	*out_count = count;
	return edges;
}

/// The midpoint vertex of edge (a, b), created once per edge.
static uint32_t midpoint(kl_mesh_vertex* v, int* vertex_count, uint64_t* keys, uint32_t* ids, int* key_count,
						 uint32_t a, uint32_t b)
{
	uint64_t key = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
	for (int i = 0; i < *key_count; ++i)
	{
		if (keys[i] == key)
		{
			return ids[i];
		}
	}
	float p[3];
	for (int k = 0; k < 3; ++k)
	{
		p[k] = 0.5f * (v[a].p[k] + v[b].p[k]);
	}
	float inv = 1.0f / sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
	uint32_t id = (uint32_t)(*vertex_count)++;
	v[id] = make_vertex(p[0] * inv, p[1] * inv, p[2] * inv, p[0] * inv, p[1] * inv, p[2] * inv, 0.0f);
	keys[*key_count] = key;
	ids[(*key_count)++] = id;
	return id;
}

bool kl_build_icosphere(kl_gpu_mesh* mesh, int level)
{
	level = level < 0 ? 0 : (level > 4 ? 4 : level);
	int tri_count = 20 << (2 * level);
	int max_vertices = 10 * (1 << (2 * level)) + 2;
	kl_mesh_vertex* v = malloc(sizeof(kl_mesh_vertex) * (size_t)max_vertices);
	uint32_t* tris = malloc(sizeof(uint32_t) * 3 * (size_t)tri_count);
	uint32_t* next = malloc(sizeof(uint32_t) * 3 * (size_t)tri_count);
	uint64_t* keys = malloc(sizeof(uint64_t) * 3 * (size_t)tri_count);
	uint32_t* ids = malloc(sizeof(uint32_t) * 3 * (size_t)tri_count);
	bool ok = v != NULL && tris != NULL && next != NULL && keys != NULL && ids != NULL;
	if (ok)
	{
		const float t = 1.6180339887f;
		const float base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
								   {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
		const uint32_t faces[60] = {0, 11, 5, 0, 5,	 1, 0, 1, 7, 0, 7,	10, 0, 10, 11, 1, 5, 9, 5, 11,
									4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9,	 4,	 3, 4,	2, 3, 2, 6, 3,
									6, 8, 3,  8, 9,	 4, 9, 5, 2, 4, 11, 6, 2,	 10, 8, 6, 7, 9, 8, 1};
		int vertex_count = 12;
		for (int i = 0; i < 12; ++i)
		{
			float inv = 1.0f / sqrtf(base[i][0] * base[i][0] + base[i][1] * base[i][1] + base[i][2] * base[i][2]);
			float x = base[i][0] * inv, y = base[i][1] * inv, z = base[i][2] * inv;
			v[i] = make_vertex(x, y, z, x, y, z, 0.0f);
		}
		memcpy(tris, faces, sizeof(faces));
		int count = 20;
		for (int l = 0; l < level; ++l)
		{
			int key_count = 0;
			for (int f = 0; f < count; ++f)
			{
				uint32_t a = tris[3 * f], b = tris[3 * f + 1], c = tris[3 * f + 2];
				uint32_t ab = midpoint(v, &vertex_count, keys, ids, &key_count, a, b);
				uint32_t bc = midpoint(v, &vertex_count, keys, ids, &key_count, b, c);
				uint32_t ca = midpoint(v, &vertex_count, keys, ids, &key_count, c, a);
				const uint32_t sub[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
				memcpy(next + 12 * f, sub, sizeof(sub));
			}
			count *= 4;
			memcpy(tris, next, sizeof(uint32_t) * 3 * (size_t)count);
		}
		int edge_count = 0;
		uint32_t* edges = all_edges(tris, 3 * count, &edge_count);
		ok = kl_gpu_mesh_create(mesh, v, vertex_count, tris, 3 * count, edges, edge_count);
		free(edges);
	}
	free(v);
	free(tris);
	free(next);
	free(keys);
	free(ids);
	return ok;
}

bool kl_build_capsule(kl_gpu_mesh* mesh, int segments, int rings)
{
	// Latitude rows from the north pole to the equator (side +1), then the equator again to the
	// south pole (side -1); the band between the two equator rows is the cylinder.
	int rows = 2 * (rings + 1);
	int vertex_count = rows * (segments + 1);
	int tri_count = 2 * segments * (rows - 1);
	kl_mesh_vertex* v = malloc(sizeof(kl_mesh_vertex) * (size_t)vertex_count);
	uint32_t* idx = malloc(sizeof(uint32_t) * 3 * (size_t)tri_count);
	uint32_t* edges = malloc(sizeof(uint32_t) * 2 * (size_t)(rows * segments * 2));
	bool ok = v != NULL && idx != NULL && edges != NULL;
	if (ok)
	{
		const float pi = 3.14159265f;
		for (int r = 0; r < rows; ++r)
		{
			bool top = r <= rings;
			float lat = top ? 0.5f * pi - 0.5f * pi * (float)r / (float)rings
							: -0.5f * pi * (float)(r - rings - 1) / (float)rings;
			for (int s = 0; s <= segments; ++s)
			{
				float lon = 2.0f * pi * (float)s / (float)segments;
				float x = cosf(lat) * cosf(lon), y = cosf(lat) * sinf(lon), z = sinf(lat);
				v[r * (segments + 1) + s] = make_vertex(x, y, z, x, y, z, top ? 1.0f : -1.0f);
			}
		}
		int n = 0;
		int e = 0;
		for (int r = 0; r + 1 < rows; ++r)
		{
			for (int s = 0; s < segments; ++s)
			{
				uint32_t a = (uint32_t)(r * (segments + 1) + s);
				uint32_t b = a + 1;
				uint32_t c = a + (uint32_t)(segments + 1);
				uint32_t d = c + 1;
				const uint32_t quad[6] = {a, c, b, b, c, d};
				memcpy(idx + n, quad, sizeof(quad));
				n += 6;
			}
		}
		// Wireframe: every other meridian over the whole length, and the latitude rings.
		for (int s = 0; s < segments; s += 2)
		{
			for (int r = 0; r + 1 < rows; ++r)
			{
				edges[e++] = (uint32_t)(r * (segments + 1) + s);
				edges[e++] = (uint32_t)((r + 1) * (segments + 1) + s);
			}
		}
		for (int r = 1; r + 1 < rows; ++r)
		{
			for (int s = 0; s < segments; ++s)
			{
				edges[e++] = (uint32_t)(r * (segments + 1) + s);
				edges[e++] = (uint32_t)(r * (segments + 1) + s + 1);
			}
		}
		ok = kl_gpu_mesh_create(mesh, v, vertex_count, idx, n, edges, e);
	}
	free(v);
	free(idx);
	free(edges);
	return ok;
}

bool kl_build_triangles(kl_gpu_mesh* mesh, const vec3s* vertices, const int32_t* indices, int triangle_count)
{
	if (vertices == NULL || indices == NULL || triangle_count <= 0)
	{
		return false;
	}
	kl_mesh_vertex* v = malloc(sizeof(kl_mesh_vertex) * 3 * (size_t)triangle_count);
	uint32_t* idx = malloc(sizeof(uint32_t) * 3 * (size_t)triangle_count);
	bool ok = v != NULL && idx != NULL;
	for (int t = 0; ok && t < triangle_count; ++t)
	{
		for (int k = 0; k < 3; ++k)
		{
			if (indices[3 * t + k] < 0)
			{
				ok = false;
				break;
			}
			vec3s p = vertices[indices[3 * t + k]];
			v[3 * t + k] = make_vertex(p.x, p.y, p.z, 0.0f, 0.0f, 0.0f, 0.0f);
			idx[3 * t + k] = (uint32_t)(3 * t + k);
		}
		if (ok)
		{
			float n[3];
			face_normal(v + 3 * t, v + 3 * t + 1, v + 3 * t + 2, n);
			for (int k = 0; k < 3; ++k)
			{
				memcpy(v[3 * t + k].n, n, sizeof(n));
			}
		}
	}
	if (ok)
	{
		ok = kl_gpu_mesh_create(mesh, v, 3 * triangle_count, idx, 3 * triangle_count, NULL, 0);
	}
	free(v);
	free(idx);
	return ok;
}

// ---------------------------------------------------------------------------------------------
// Cache

static uint64_t mix64(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t key_hash(const void* vertices, const void* indices, int triangle_count)
{
	uint64_t h = mix64(0, (uint64_t)(uintptr_t)vertices);
	h = mix64(h, (uint64_t)(uintptr_t)indices);
	return mix64(h, (uint64_t)triangle_count);
}

static uint64_t vertex_bits(const vec3s* v)
{
	uint32_t bits[3];
	memcpy(bits, v, sizeof(bits));
	return ((uint64_t)bits[0] << 32) ^ ((uint64_t)bits[1] << 16) ^ bits[2];
}

static uint64_t fingerprint(const vec3s* vertices, const int32_t* indices, int triangle_count)
{
	uint64_t h = 0;
	int samples = triangle_count < 8 ? triangle_count : 8;
	for (int k = 0; k < samples; ++k)
	{
		int t = samples > 1 ? (int)((int64_t)k * (triangle_count - 1) / (samples - 1)) : 0;
		int32_t i = indices[3 * t];
		h = mix64(h, vertex_bits(vertices + (i < 0 ? 0 : i)));
	}
	return h;
}

/// Every corner of every triangle, so that equal triangle sets hash equal wherever they live.
static uint64_t content_hash(const vec3s* vertices, const int32_t* indices, int triangle_count)
{
	uint64_t h = mix64(0, (uint64_t)triangle_count);
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		h = mix64(h, vertex_bits(vertices + (indices[i] < 0 ? 0 : indices[i])));
	}
	return h;
}

static void rebuild_tables(kl_mesh_cache* cache)
{
	for (int i = 0; i < cache->key_table_size; ++i)
	{
		cache->key_table[i] = -1;
	}
	for (int i = 0; i < cache->mesh_table_size; ++i)
	{
		cache->mesh_table[i] = -1;
	}
	for (int k = 0; k < cache->key_count; ++k)
	{
		const kl_mesh_key* key = cache->keys + k;
		int mask = cache->key_table_size - 1;
		int s = (int)(key_hash(key->vertices, key->indices, key->triangle_count) & (uint64_t)mask);
		while (cache->key_table[s] >= 0)
		{
			s = (s + 1) & mask;
		}
		cache->key_table[s] = k;
	}
	for (int m = 0; m < cache->mesh_count; ++m)
	{
		int mask = cache->mesh_table_size - 1;
		int s = (int)(cache->meshes[m].content & (uint64_t)mask);
		while (cache->mesh_table[s] >= 0)
		{
			s = (s + 1) & mask;
		}
		cache->mesh_table[s] = m;
	}
}

/// Room for one more key and one more mesh, tables at most half full.
static bool reserve(kl_mesh_cache* cache)
{
	bool grow_keys = cache->key_count + 1 > cache->key_capacity;
	bool grow_meshes = cache->mesh_count + 1 > cache->mesh_capacity;
	if (!grow_keys && !grow_meshes)
	{
		return true;
	}
	if (grow_keys)
	{
		int capacity = cache->key_capacity > 0 ? 2 * cache->key_capacity : 16;
		kl_mesh_key* keys = realloc(cache->keys, sizeof(kl_mesh_key) * (size_t)capacity);
		int* table = realloc(cache->key_table, sizeof(int) * (size_t)(2 * capacity));
		cache->keys = keys != NULL ? keys : cache->keys;
		cache->key_table = table != NULL ? table : cache->key_table;
		if (keys == NULL || table == NULL)
		{
			return false;
		}
		cache->key_capacity = capacity;
		cache->key_table_size = 2 * capacity;
	}
	if (grow_meshes)
	{
		int capacity = cache->mesh_capacity > 0 ? 2 * cache->mesh_capacity : 16;
		kl_cached_mesh* meshes = realloc(cache->meshes, sizeof(kl_cached_mesh) * (size_t)capacity);
		int* table = realloc(cache->mesh_table, sizeof(int) * (size_t)(2 * capacity));
		cache->meshes = meshes != NULL ? meshes : cache->meshes;
		cache->mesh_table = table != NULL ? table : cache->mesh_table;
		if (meshes == NULL || table == NULL)
		{
			return false;
		}
		cache->mesh_capacity = capacity;
		cache->mesh_table_size = 2 * capacity;
	}
	rebuild_tables(cache);
	return true;
}

/// The mesh with this content, built and added if new.
static int find_mesh(kl_mesh_cache* cache, const vec3s* vertices, const int32_t* indices, int triangle_count,
					 int64_t frame)
{
	uint64_t content = content_hash(vertices, indices, triangle_count);
	int mask = cache->mesh_table_size - 1;
	int s = (int)(content & (uint64_t)mask);
	for (; cache->mesh_table[s] >= 0; s = (s + 1) & mask)
	{
		if (cache->meshes[cache->mesh_table[s]].content == content)
		{
			cache->meshes[cache->mesh_table[s]].last_used_frame = frame;
			return cache->mesh_table[s];
		}
	}
	kl_cached_mesh* m = cache->meshes + cache->mesh_count;
	memset(m, 0, sizeof(*m));
	if (!kl_build_triangles(&m->mesh, vertices, indices, triangle_count))
	{
		return -1;
	}
	m->content = content;
	m->last_used_frame = frame;
	cache->mesh_table[s] = cache->mesh_count;
	return cache->mesh_count++;
}

int kl_mesh_cache_find(kl_mesh_cache* cache, const vec3s* vertices, const int32_t* indices, int triangle_count,
					   int64_t frame)
{
	if (vertices == NULL || indices == NULL || triangle_count <= 0 || !reserve(cache))
	{
		return -1;
	}
	uint64_t print = fingerprint(vertices, indices, triangle_count);
	int mask = cache->key_table_size - 1;
	int s = (int)(key_hash(vertices, indices, triangle_count) & (uint64_t)mask);
	for (; cache->key_table[s] >= 0; s = (s + 1) & mask)
	{
		kl_mesh_key* key = cache->keys + cache->key_table[s];
		if (key->vertices == vertices && key->indices == indices && key->triangle_count == triangle_count)
		{
			if (key->fingerprint != print)
			{
				// Same pointers, new contents (a freed array reused): look the content up again.
				int mesh = find_mesh(cache, vertices, indices, triangle_count, frame);
				if (mesh < 0)
				{
					return -1;
				}
				key->mesh = mesh;
				key->fingerprint = print;
			}
			key->last_used_frame = frame;
			cache->meshes[key->mesh].last_used_frame = frame;
			return key->mesh;
		}
	}
	int mesh = find_mesh(cache, vertices, indices, triangle_count, frame);
	if (mesh < 0)
	{
		return -1;
	}
	kl_mesh_key* key = cache->keys + cache->key_count;
	key->vertices = vertices;
	key->indices = indices;
	key->triangle_count = triangle_count;
	key->fingerprint = print;
	key->mesh = mesh;
	key->last_used_frame = frame;
	cache->key_table[s] = cache->key_count++;
	return mesh;
}

void kl_mesh_cache_evict(kl_mesh_cache* cache, int64_t frame, int64_t max_age)
{
	int key_count = 0;
	for (int i = 0; i < cache->key_count; ++i)
	{
		if (frame - cache->keys[i].last_used_frame <= max_age)
		{
			cache->keys[key_count++] = cache->keys[i];
		}
	}
	// Meshes are used whenever one of their keys is, so a kept key always keeps its mesh.
	int* remap = malloc(sizeof(int) * (size_t)(cache->mesh_count > 0 ? cache->mesh_count : 1));
	if (remap == NULL)
	{
		return;
	}
	int mesh_count = 0;
	for (int m = 0; m < cache->mesh_count; ++m)
	{
		kl_cached_mesh* mesh = cache->meshes + m;
		if (frame - mesh->last_used_frame > max_age)
		{
			kl_gpu_mesh_destroy(&mesh->mesh);
			remap[m] = -1;
			continue;
		}
		remap[m] = mesh_count;
		cache->meshes[mesh_count++] = *mesh;
	}
	for (int k = 0; k < key_count; ++k)
	{
		cache->keys[k].mesh = remap[cache->keys[k].mesh];
	}
	free(remap);
	if (key_count != cache->key_count || mesh_count != cache->mesh_count)
	{
		cache->key_count = key_count;
		cache->mesh_count = mesh_count;
		rebuild_tables(cache);
	}
}

void kl_mesh_cache_destroy(kl_mesh_cache* cache)
{
	for (int i = 0; i < cache->mesh_count; ++i)
	{
		kl_gpu_mesh_destroy(&cache->meshes[i].mesh);
	}
	free(cache->keys);
	free(cache->key_table);
	free(cache->meshes);
	free(cache->mesh_table);
	memset(cache, 0, sizeof(*cache));
}
