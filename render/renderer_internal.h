// Kollide render — the renderer's state, shared by renderer.c and heatmap.c.
// SPDX-License-Identifier: MIT
#pragma once

#include "debug_batch.h"
#include "heatmap.h"
#include "meshes.h"
#include "renderer.h"
#include "shaders.h"
#include "shadow.h"

/// The instanced mesh kinds with a built-in mesh; triangle sets come after them.
enum
{
	KL_KIND_BOX = 0,
	KL_KIND_SPHERE,
	KL_KIND_CAPSULE,
	KL_KIND_COUNT
};

typedef struct kl_instance_array
{
	kl_instance* data;
	int count;
	int capacity;
} kl_instance_array;

typedef struct kl_plane_draw
{
	vec3s normal;
	float offset;
	uint32_t color;
	float spacing; ///< grid spacing (0: no lines)
	float extent;  ///< grid lines end at this half size (0: everywhere)
} kl_plane_draw;

typedef struct kl_heatmap_draw
{
	const kl_heatmap* heatmap;
	kl_transform xf;
	float lo;
	float hi;
} kl_heatmap_draw;

struct kl_heatmap
{
	GLuint vao;
	GLuint vbo;		  ///< positions and normals
	GLuint value_vbo; ///< one float per vertex (scalar heatmaps)
	GLuint color_vbo; ///< three bytes per vertex (vertex-coloured meshes)
	GLuint ebo;
	bool vertex_colors; ///< drawn with color_vbo instead of the colour map
	int vertex_count;
	int index_count;
	float radius; ///< bounding sphere about the local origin
};

struct kl_renderer
{
	kl_shaders shaders;
	kl_gpu_mesh meshes[KL_KIND_COUNT];
	kl_mesh_cache cache;
	kl_shadow_map shadow;
	kl_vertex_batch lines;
	kl_vertex_batch points;
	GLuint instance_vbo;
	GLuint empty_vao; ///< core profile draws need a bound VAO even without attributes

	// The frame being batched.
	bool in_frame;
	int64_t frame;
	kl_camera camera;
	mat4s view_proj;
	kl_render_layers layers; ///< of the last draw_world / debug_draw call
	kl_instance_array kinds[KL_KIND_COUNT];
	kl_instance_array triangle_sets; ///< instances of cached triangle sets
	int* triangle_entries;			 ///< cache entry of each triangle-set instance
	int triangle_entry_capacity;
	kl_instance_array sorted; ///< upload order: boxes, spheres, capsules, then grouped by triangle set
	kl_aabb casters;		  ///< bounds of everything that casts a shadow
	kl_plane_draw* planes;
	int plane_count;
	int plane_capacity;
	kl_heatmap_draw* heatmaps;
	int heatmap_count;
	int heatmap_capacity;
	kl_render_label* labels;
	int label_count;
	int label_capacity;
	int* label_offsets; ///< of each label's string in label_text
	int label_offset_capacity;
	char* label_text;	///< strings of the labels, each 0-terminated
	int label_text_size;
	int label_text_capacity;

	kl_render_stats stats;
	double frame_seconds; ///< time spent in the renderer's calls this frame
};

/// Grows an array of `size`-byte items to hold `needed`; false (array untouched) when out of memory.
bool kl_render_reserve(void** data, int* capacity, int needed, size_t size);
/// Adds a point to the shadow casters' bounds.
void kl_render_grow_casters(kl_renderer* renderer, vec3s center, float radius);
