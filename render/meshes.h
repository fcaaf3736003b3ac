// Kollide render — GPU meshes for instanced drawing: the unit box, the icosphere, the capsule (its
// two hemispheres pushed apart per instance in the vertex shader) and a cache of hull and mesh
// triangle sets keyed by their vertex array's identity.
// SPDX-License-Identifier: MIT
#pragma once

#include <glad/gl.h>
#include <kollide/math.h>

#include <stdint.h>

/// Vertex attribute locations shared by every lit program.
enum
{
	KL_ATTR_POSITION = 0,
	KL_ATTR_NORMAL = 1,
	KL_ATTR_SIDE = 2,  ///< capsule hemisphere: +1 top, -1 bottom, 0 elsewhere
	KL_ATTR_VALUE = 3, ///< heatmap scalar
	KL_ATTR_INSTANCE_POSITION = 4,
	KL_ATTR_INSTANCE_ROTATION = 5,
	KL_ATTR_INSTANCE_SCALE = 6,
	KL_ATTR_INSTANCE_COLOR = 7,
};

/// One drawn copy of a mesh: the shader computes p + rotate(q, scale * vertex).
typedef struct kl_instance
{
	float p[3];
	float q[4]; ///< x, y, z, w
	float s[3]; ///< box: half extents; sphere: radius; capsule: (radius, radius, half height)
	uint8_t color[4];
} kl_instance;

typedef struct kl_mesh_vertex
{
	float p[3];
	float n[3];
	float side;
} kl_mesh_vertex;

/// A mesh on the GPU: triangles for solids, an edge list for the wireframe view.
typedef struct kl_gpu_mesh
{
	GLuint vao;
	GLuint vbo;
	GLuint ebo;
	GLuint edge_ebo;
	int index_count;
	int edge_index_count;
	float radius; ///< of the bounding sphere about the origin, at unit scale
} kl_gpu_mesh;

/// Uploads a mesh. edges may be NULL: then the feature edges (between faces that are not coplanar,
/// and boundary edges) are found from positions shared by index.
bool kl_gpu_mesh_create(kl_gpu_mesh* mesh, const kl_mesh_vertex* vertices, int vertex_count, const uint32_t* indices,
						int index_count, const uint32_t* edges, int edge_index_count);
void kl_gpu_mesh_destroy(kl_gpu_mesh* mesh);
/// Points the mesh's instance attributes at instances [first, ...) of the instance buffer.
void kl_gpu_mesh_bind_instances(const kl_gpu_mesh* mesh, GLuint instance_vbo, int first);

/// The cube [-1, 1]^3 with flat faces (scaled by the half extents per instance).
bool kl_build_unit_box(kl_gpu_mesh* mesh);
/// The unit icosphere, subdivided `level` times, smooth normals.
bool kl_build_icosphere(kl_gpu_mesh* mesh, int level);
/// The unit capsule: a sphere cut at its equator whose halves the vertex shader moves to ±half height.
bool kl_build_capsule(kl_gpu_mesh* mesh, int segments, int rings);
/// A flat-shaded copy of a triangle set (hulls, meshes).
bool kl_build_triangles(kl_gpu_mesh* mesh, const vec3s* vertices, const int32_t* indices, int triangle_count);

// ---------------------------------------------------------------------------------------------
// Hull and mesh cache

/// A triangle set the GPU holds once, however many shapes (and vertex arrays) show it: instanced
/// per distinct set.
typedef struct kl_cached_mesh
{
	uint64_t content; ///< hash of the triangles' positions
	kl_gpu_mesh mesh;
	int64_t last_used_frame;
	int frame_instances; ///< instances queued this frame
	int first_instance;	 ///< in the frame's sorted instance array
} kl_cached_mesh;

/// A vertex array seen by draw_triangles, keyed by identity (pointer, index pointer, count) so
/// that the common case costs one hash look-up; it refers to a mesh found by content.
typedef struct kl_mesh_key
{
	const void* vertices;
	const void* indices;
	int triangle_count;
	uint64_t fingerprint; ///< a few sampled vertices, so that a reused pointer with new data misses
	int mesh;
	int64_t last_used_frame;
} kl_mesh_key;

typedef struct kl_mesh_cache
{
	kl_mesh_key* keys;
	int key_count;
	int key_capacity;
	int* key_table; ///< open addressing, key indices (-1 empty)
	int key_table_size;
	kl_cached_mesh* meshes;
	int mesh_count;
	int mesh_capacity;
	int* mesh_table; ///< open addressing by content hash, mesh indices (-1 empty)
	int mesh_table_size;
} kl_mesh_cache;

void kl_mesh_cache_destroy(kl_mesh_cache* cache);
/// The cached mesh for the triangle set, uploading it the first time its content is seen.
/// -1 when it cannot be built.
int kl_mesh_cache_find(kl_mesh_cache* cache, const vec3s* vertices, const int32_t* indices, int triangle_count,
					   int64_t frame);
/// Frees keys and meshes no frame has used for `max_age` frames (a scaled mesh's vertex copy is
/// made anew by the engine every frame, so stale keys would otherwise pile up).
void kl_mesh_cache_evict(kl_mesh_cache* cache, int64_t frame, int64_t max_age);
