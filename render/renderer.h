// Kollide render — the scene renderer: lit, shadow-mapped, instanced solids for the shapes, lines
// and points for the overlays. It draws a world only through the public debug-draw interface
// (kl_world_draw), so it never reads or changes the world's internals.
// SPDX-License-Identifier: MIT
#pragma once

#include "camera.h"

#include <kollide/kollide.h>

typedef struct kl_renderer kl_renderer;

/// Debug-draw layers the viewer toggles with keys.
typedef struct kl_render_layers
{
	bool shapes;
	bool wireframe; ///< shapes drawn as edges instead of lit solids
	bool shadows;
	bool aabbs;
	bool contacts;		  ///< points
	bool contact_normals;
	bool contact_forces;
	bool joints;
	bool islands;		  ///< sleep state colouring
	bool mass;			  ///< centres of mass / frames
	bool names;
	/// The point-shell backend's model on the shapes that use it (kl_debug_draw).
	bool conglomerates;
	bool octree_cells;
	bool point_shells;
	/// The penalty contact model's inner spheres and overlapping sphere pairs (kl_debug_draw).
	bool inner_spheres;
	bool penalty_pairs;
} kl_render_layers;

kl_render_layers kl_render_layers_default(void);

/// Creates GPU resources; the GL context must be current. NULL on failure (message in error).
kl_renderer* kl_renderer_create(char* error, int error_capacity);
void kl_renderer_destroy(kl_renderer* renderer);

/// Starts a frame: clears, remembers the camera. Everything drawn until end_frame is batched.
void kl_renderer_begin_frame(kl_renderer* renderer, const kl_camera* camera);
/// Batches the world's shapes and the enabled overlays (through kl_world_draw).
void kl_renderer_draw_world(kl_renderer* renderer, kl_world_id world, const kl_render_layers* layers);
/// The renderer's debug-draw interface (callbacks batch into the current frame), for extra overlays.
kl_debug_draw kl_renderer_debug_draw(kl_renderer* renderer, const kl_render_layers* layers);
/// A ground grid in the z = 0 plane (drawn under everything, receives shadows).
void kl_renderer_draw_grid(kl_renderer* renderer, float half_size, float spacing);
/// Renders the batches: shadow pass, lit solids (instanced: one call per mesh kind), lines, points.
void kl_renderer_end_frame(kl_renderer* renderer);

/// What the last frame cost: draw calls, instances, milliseconds of CPU batching and GL submission.
typedef struct kl_render_stats
{
	int draw_calls; ///< every glDraw* of the frame: shadow pass, sky, planes, solids, lines, points
	int instances;	///< shape instances (boxes, spheres, capsules, hulls, meshes)
	int lines;		///< line segments
	float cpu_ms;
	int points;
	int meshes; ///< distinct hull and mesh triangle sets drawn
} kl_render_stats;
kl_render_stats kl_renderer_get_stats(const kl_renderer* renderer);

/// A string from draw_string (the names layer) at its projected pixel position (x right, y down),
/// for the viewer to draw with text.h.
typedef struct kl_render_label
{
	float x;
	float y;
	uint32_t color;
	const char* text;
} kl_render_label;
/// The labels of the last finished frame; valid until the next begin_frame. Returns the count.
int kl_renderer_get_labels(const kl_renderer* renderer, const kl_render_label** labels);
