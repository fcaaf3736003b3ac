// Kollide render — the scene renderer: batches what kl_world_draw reports into instance arrays,
// lines and points, then draws a shadow pass and a lit pass with one instanced call per mesh.
// SPDX-License-Identifier: MIT
#include "renderer_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Shadow map resolution: 2048² on a GPU; 1024² under a software rasteriser (llvmpipe), where the
/// depth pass over 4 M texels would cost more than the whole lit frame.
#define KL_SHADOW_SIZE 2048
#define KL_SHADOW_SIZE_SOFTWARE 1024
/// Frames a cached hull or mesh may go unused before its GPU copy is freed.
#define KL_MESH_MAX_AGE 120

static double now_seconds(void)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

static vec3s rgb(uint32_t color)
{
	return kl_vec3((float)((color >> 16) & 0xff) / 255.0f, (float)((color >> 8) & 0xff) / 255.0f,
				   (float)(color & 0xff) / 255.0f);
}

/// The sun: high, from the side, so boxes show three distinct shades in the default view.
static vec3s light_direction(void)
{
	return glms_vec3_normalize(kl_vec3(-0.45f, 0.3f, 1.0f));
}

bool kl_render_reserve(void** data, int* capacity, int needed, size_t size)
{
	if (needed <= *capacity)
	{
		return true;
	}
	int c = *capacity > 0 ? *capacity : 64;
	while (c < needed)
	{
		c *= 2;
	}
	void* p = realloc(*data, size * (size_t)c);
	if (p == NULL)
	{
		return false;
	}
	*data = p;
	*capacity = c;
	return true;
}

void kl_render_grow_casters(kl_renderer* r, vec3s c, float radius)
{
	vec3s e = kl_vec3(radius, radius, radius);
	r->casters.lower = glms_vec3_minv(r->casters.lower, glms_vec3_sub(c, e));
	r->casters.upper = glms_vec3_maxv(r->casters.upper, glms_vec3_add(c, e));
}

// ---------------------------------------------------------------------------------------------
// Lifetime

kl_render_layers kl_render_layers_default(void)
{
	kl_render_layers layers = {0};
	layers.shapes = true;
	layers.shadows = true;
	layers.islands = true;
	return layers;
}

static int shadow_size(void)
{
	const char* name = (const char*)glGetString(GL_RENDERER);
	bool software = name != NULL && (strstr(name, "llvmpipe") != NULL || strstr(name, "softpipe") != NULL ||
									 strstr(name, "SwiftShader") != NULL);
	return software ? KL_SHADOW_SIZE_SOFTWARE : KL_SHADOW_SIZE;
}

kl_renderer* kl_renderer_create(char* error, int error_capacity)
{
	kl_renderer* r = calloc(1, sizeof(kl_renderer));
	if (r == NULL)
	{
		return NULL;
	}
	if (!kl_shaders_create(&r->shaders, error, error_capacity) ||
		!kl_shadow_map_create(&r->shadow, shadow_size(), error, error_capacity))
	{
		kl_renderer_destroy(r);
		return NULL;
	}
	bool ok = kl_build_unit_box(&r->meshes[KL_KIND_BOX]) && kl_build_icosphere(&r->meshes[KL_KIND_SPHERE], 2) &&
			  kl_build_capsule(&r->meshes[KL_KIND_CAPSULE], 20, 6) && kl_vertex_batch_create(&r->lines) &&
			  kl_vertex_batch_create(&r->points);
	glGenBuffers(1, &r->instance_vbo);
	glGenVertexArrays(1, &r->empty_vao);
	GLenum gl_error = glGetError();
	if (!ok || gl_error != GL_NO_ERROR)
	{
		if (error != NULL && error_capacity > 0)
		{
			snprintf(error, (size_t)error_capacity, "renderer: building meshes and buffers failed (GL error 0x%x)",
					 (unsigned)gl_error);
		}
		kl_renderer_destroy(r);
		return NULL;
	}
	r->layers = kl_render_layers_default();
	return r;
}

void kl_renderer_destroy(kl_renderer* r)
{
	if (r == NULL)
	{
		return;
	}
	kl_shaders_destroy(&r->shaders);
	kl_shadow_map_destroy(&r->shadow);
	for (int k = 0; k < KL_KIND_COUNT; ++k)
	{
		kl_gpu_mesh_destroy(&r->meshes[k]);
		free(r->kinds[k].data);
	}
	kl_mesh_cache_destroy(&r->cache);
	kl_vertex_batch_destroy(&r->lines);
	kl_vertex_batch_destroy(&r->points);
	if (r->instance_vbo != 0)
	{
		glDeleteBuffers(1, &r->instance_vbo);
	}
	if (r->empty_vao != 0)
	{
		glDeleteVertexArrays(1, &r->empty_vao);
	}
	free(r->triangle_sets.data);
	free(r->triangle_entries);
	free(r->sorted.data);
	free(r->planes);
	free(r->heatmaps);
	free(r->labels);
	free(r->label_text);
	free(r->label_offsets);
	free(r);
}

// ---------------------------------------------------------------------------------------------
// Batching

void kl_renderer_begin_frame(kl_renderer* r, const kl_camera* camera)
{
	double t0 = now_seconds();
	r->in_frame = true;
	r->frame += 1;
	r->camera = *camera;
	r->view_proj = kl_camera_view_projection(camera);
	for (int k = 0; k < KL_KIND_COUNT; ++k)
	{
		r->kinds[k].count = 0;
	}
	r->triangle_sets.count = 0;
	for (int i = 0; i < r->cache.mesh_count; ++i)
	{
		r->cache.meshes[i].frame_instances = 0;
	}
	r->casters.lower = kl_vec3(FLT_MAX, FLT_MAX, FLT_MAX);
	r->casters.upper = kl_vec3(-FLT_MAX, -FLT_MAX, -FLT_MAX);
	r->plane_count = 0;
	r->heatmap_count = 0;
	r->label_count = 0;
	r->label_text_size = 0;
	kl_vertex_batch_clear(&r->lines);
	kl_vertex_batch_clear(&r->points);
	memset(&r->stats, 0, sizeof(r->stats));
	r->frame_seconds = now_seconds() - t0;
}

/// Dynamic bodies vary a few percent in brightness by draw order, so that a stack of identical
/// boxes reads as separate blocks.
static uint32_t body_shade(uint32_t color, int index)
{
	if (color != KL_COLOR_DYNAMIC)
	{
		return color;
	}
	uint32_t h = (uint32_t)index * 2654435761u;
	float f = 0.9f + 0.2f * (float)(h >> 24) / 255.0f;
	uint32_t out = 0;
	for (int shift = 0; shift <= 16; shift += 8)
	{
		float c = (float)((color >> shift) & 0xff) * f;
		out |= (uint32_t)(c > 255.0f ? 255.0f : c) << shift;
	}
	return out;
}

static kl_instance* add_instance(kl_renderer* r, kl_instance_array* array, kl_transform xf, vec3s scale, uint32_t color,
								 float radius)
{
	if (!kl_render_reserve((void**)&array->data, &array->capacity, array->count + 1, sizeof(kl_instance)))
	{
		return NULL;
	}
	if (!r->layers.islands && color == KL_COLOR_SLEEPING)
	{
		color = KL_COLOR_DYNAMIC; // sleep colouring off: sleeping bodies look like awake ones
	}
	color = body_shade(color, array->count);
	kl_instance* inst = array->data + array->count++;
	inst->p[0] = xf.p.x, inst->p[1] = xf.p.y, inst->p[2] = xf.p.z;
	inst->q[0] = xf.q.x, inst->q[1] = xf.q.y, inst->q[2] = xf.q.z, inst->q[3] = xf.q.w;
	inst->s[0] = scale.x, inst->s[1] = scale.y, inst->s[2] = scale.z;
	kl_unpack_color(color, inst->color);
	kl_render_grow_casters(r, xf.p, radius);
	return inst;
}

static void on_box(kl_transform xf, vec3s half_extents, uint32_t color, void* context)
{
	kl_renderer* r = context;
	add_instance(r, &r->kinds[KL_KIND_BOX], xf, half_extents, color, glms_vec3_norm(half_extents));
}

static void on_sphere(kl_transform xf, float radius, uint32_t color, void* context)
{
	kl_renderer* r = context;
	add_instance(r, &r->kinds[KL_KIND_SPHERE], xf, kl_vec3(radius, radius, radius), color, radius);
}

static void on_capsule(kl_transform xf, float radius, float half_height, uint32_t color, void* context)
{
	kl_renderer* r = context;
	add_instance(r, &r->kinds[KL_KIND_CAPSULE], xf, kl_vec3(radius, radius, half_height), color, radius + half_height);
}

static void on_triangles(kl_transform xf, const vec3s* vertices, const int32_t* indices, int triangle_count,
						 uint32_t color, void* context)
{
	kl_renderer* r = context;
	int entry = kl_mesh_cache_find(&r->cache, vertices, indices, triangle_count, r->frame);
	if (entry < 0)
	{
		return;
	}
	int n = r->triangle_sets.count;
	if (!kl_render_reserve((void**)&r->triangle_entries, &r->triangle_entry_capacity, n + 1, sizeof(int)))
	{
		return;
	}
	float radius = r->cache.meshes[entry].mesh.radius;
	if (add_instance(r, &r->triangle_sets, xf, kl_vec3(1.0f, 1.0f, 1.0f), color, radius) != NULL)
	{
		r->triangle_entries[n] = entry;
		r->cache.meshes[entry].frame_instances += 1;
	}
}

static void on_plane(vec3s normal, float offset, uint32_t color, void* context)
{
	kl_renderer* r = context;
	if (!kl_render_reserve((void**)&r->planes, &r->plane_capacity, r->plane_count + 1, sizeof(kl_plane_draw)))
	{
		return;
	}
	kl_plane_draw* p = r->planes + r->plane_count++;
	p->normal = glms_vec3_normalize(normal);
	p->offset = offset;
	p->color = color;
	p->spacing = 1.0f;
	p->extent = 0.0f;
}

static void on_segment(vec3s a, vec3s b, uint32_t color, void* context)
{
	kl_renderer* r = context;
	kl_vertex_batch_add(&r->lines, a, color, 1.0f);
	kl_vertex_batch_add(&r->lines, b, color, 1.0f);
}

static void on_point(vec3s p, float size, uint32_t color, void* context)
{
	kl_renderer* r = context;
	// Engine sizes are in pixels at 1× scale; a little larger reads better at today's resolutions.
	kl_vertex_batch_add(&r->points, p, color, fminf(fmaxf(size * 1.5f, 2.0f), 32.0f));
}

static void on_transform(kl_transform xf, void* context)
{
	kl_renderer* r = context;
	// Axes a fixed fraction of the view, so they read the same on a card house and a pyramid.
	float length = 0.04f * fmaxf(r->camera.distance, 0.1f);
	const uint32_t colors[3] = {0xe63333, 0x33cc33, 0x3366ff};
	for (int axis = 0; axis < 3; ++axis)
	{
		vec3s e = kl_vec3(axis == 0 ? length : 0.0f, axis == 1 ? length : 0.0f, axis == 2 ? length : 0.0f);
		on_segment(xf.p, glms_vec3_add(xf.p, kl_rotate(xf.q, e)), colors[axis], context);
	}
}

static void on_aabb(kl_aabb box, uint32_t color, void* context)
{
	// Unbounded shapes (planes) have KL_HUGE bounds: nothing sensible to draw.
	const float limit = 1.0e6f;
	if (!(fabsf(box.lower.x) < limit && fabsf(box.lower.y) < limit && fabsf(box.lower.z) < limit &&
		  fabsf(box.upper.x) < limit && fabsf(box.upper.y) < limit && fabsf(box.upper.z) < limit))
	{
		return;
	}
	vec3s c[8];
	for (int k = 0; k < 8; ++k)
	{
		c[k] = kl_vec3((k & 1) ? box.upper.x : box.lower.x, (k & 2) ? box.upper.y : box.lower.y,
					   (k & 4) ? box.upper.z : box.lower.z);
	}
	const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
							  {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
	for (int e = 0; e < 12; ++e)
	{
		on_segment(c[edges[e][0]], c[edges[e][1]], color, context);
	}
}

static void on_string(vec3s p, const char* text, uint32_t color, void* context)
{
	kl_renderer* r = context;
	float x, y;
	if (text == NULL || !kl_camera_project(&r->camera, p, &x, &y) || x < 0.0f || y < 0.0f ||
		x > (float)r->camera.width || y > (float)r->camera.height)
	{
		return;
	}
	int length = (int)strlen(text) + 1;
	if (!kl_render_reserve((void**)&r->labels, &r->label_capacity, r->label_count + 1, sizeof(kl_render_label)) ||
		!kl_render_reserve((void**)&r->label_text, &r->label_text_capacity, r->label_text_size + length, 1))
	{
		return;
	}
	if (!kl_render_reserve((void**)&r->label_offsets, &r->label_offset_capacity, r->label_count + 1, sizeof(int)))
	{
		return;
	}
	// The text pointer is set at end_frame: the string storage may still move until then.
	r->label_offsets[r->label_count] = r->label_text_size;
	kl_render_label* label = r->labels + r->label_count++;
	label->x = x;
	label->y = y;
	label->color = color;
	label->text = NULL;
	memcpy(r->label_text + r->label_text_size, text, (size_t)length);
	r->label_text_size += length;
}

kl_debug_draw kl_renderer_debug_draw(kl_renderer* r, const kl_render_layers* layers)
{
	kl_render_layers l = layers != NULL ? *layers : kl_render_layers_default();
	r->layers = l;
	kl_debug_draw d = kl_default_debug_draw();
	d.draw_segment = on_segment;
	d.draw_point = on_point;
	d.draw_transform = on_transform;
	d.draw_sphere = on_sphere;
	d.draw_box = on_box;
	d.draw_capsule = on_capsule;
	d.draw_triangles = on_triangles;
	d.draw_plane = on_plane;
	d.draw_aabb = on_aabb;
	d.draw_string = on_string;
	d.draw_shapes = l.shapes;
	d.draw_aabbs = l.aabbs;
	d.draw_mass = l.mass;
	d.draw_joints = l.joints;
	d.draw_contacts = l.contacts;
	d.draw_contact_normals = l.contact_normals;
	d.draw_contact_forces = l.contact_forces;
	d.draw_islands = l.islands;
	d.draw_names = l.names;
	d.draw_conglomerates = l.conglomerates;
	d.draw_octree_cells = l.octree_cells;
	d.draw_point_shells = l.point_shells;
	d.draw_inner_spheres = l.inner_spheres;
	d.draw_penalty_pairs = l.penalty_pairs;
	d.context = r;
	return d;
}

void kl_renderer_draw_world(kl_renderer* r, kl_world_id world, const kl_render_layers* layers)
{
	double t0 = now_seconds();
	kl_debug_draw d = kl_renderer_debug_draw(r, layers);
	kl_world_draw(world, &d);
	r->frame_seconds += now_seconds() - t0;
}

void kl_renderer_draw_grid(kl_renderer* r, float half_size, float spacing)
{
	if (!kl_render_reserve((void**)&r->planes, &r->plane_capacity, r->plane_count + 1, sizeof(kl_plane_draw)))
	{
		return;
	}
	kl_plane_draw* p = r->planes + r->plane_count++;
	p->normal = kl_vec3(0.0f, 0.0f, 1.0f);
	p->offset = 0.0f;
	p->color = 0x9aa09a;
	p->spacing = spacing > 0.0f ? spacing : 1.0f;
	p->extent = half_size > 0.0f ? half_size : 0.0f;
}

// ---------------------------------------------------------------------------------------------
// Drawing

static void set_mat4(GLuint program, const char* name, mat4s m)
{
	glUniformMatrix4fv(glGetUniformLocation(program, name), 1, GL_FALSE, &m.raw[0][0]);
}

static void set_vec3(GLuint program, const char* name, vec3s v)
{
	glUniform3f(glGetUniformLocation(program, name), v.x, v.y, v.z);
}

static void set_float(GLuint program, const char* name, float f)
{
	glUniform1f(glGetUniformLocation(program, name), f);
}

static void set_int(GLuint program, const char* name, int i)
{
	glUniform1i(glGetUniformLocation(program, name), i);
}

/// Sorts the frame's instances into one upload: built-in kinds first, then triangle-set instances
/// grouped by cache entry (a counting sort), so each mesh draws one contiguous range.
static int gather_instances(kl_renderer* r)
{
	int total = r->triangle_sets.count;
	for (int k = 0; k < KL_KIND_COUNT; ++k)
	{
		total += r->kinds[k].count;
	}
	if (total == 0 || !kl_render_reserve((void**)&r->sorted.data, &r->sorted.capacity, total, sizeof(kl_instance)))
	{
		return 0;
	}
	int n = 0;
	for (int k = 0; k < KL_KIND_COUNT; ++k)
	{
		if (r->kinds[k].count > 0) // data may be NULL for a kind never drawn (memcpy needs a pointer)
		{
			memcpy(r->sorted.data + n, r->kinds[k].data, sizeof(kl_instance) * (size_t)r->kinds[k].count);
			n += r->kinds[k].count;
		}
	}
	for (int e = 0; e < r->cache.mesh_count; ++e)
	{
		kl_cached_mesh* entry = r->cache.meshes + e;
		entry->first_instance = n;
		n += entry->frame_instances;
		r->stats.meshes += entry->frame_instances > 0 ? 1 : 0;
		entry->frame_instances = 0; // refilled by the scatter below
	}
	for (int i = 0; i < r->triangle_sets.count; ++i)
	{
		kl_cached_mesh* entry = r->cache.meshes + r->triangle_entries[i];
		r->sorted.data[entry->first_instance + entry->frame_instances++] = r->triangle_sets.data[i];
	}
	r->sorted.count = total;
	glBindBuffer(GL_ARRAY_BUFFER, r->instance_vbo);
	GLsizeiptr bytes = (GLsizeiptr)(sizeof(kl_instance) * (size_t)total);
	glBufferData(GL_ARRAY_BUFFER, bytes, NULL, GL_STREAM_DRAW);
	glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, r->sorted.data);
	return total;
}

/// One instanced call for a mesh's range: triangles, or its edge list in wireframe.
static void draw_range(kl_renderer* r, const kl_gpu_mesh* mesh, int first, int count, bool edges)
{
	if (count <= 0 || mesh->vao == 0)
	{
		return;
	}
	kl_gpu_mesh_bind_instances(mesh, r->instance_vbo, first);
	if (edges)
	{
		if (mesh->edge_index_count == 0)
		{
			return;
		}
		glDrawElementsInstanced(GL_LINES, mesh->edge_index_count, GL_UNSIGNED_INT,
								(const void*)(sizeof(uint32_t) * (size_t)mesh->index_count), count);
	}
	else
	{
		glDrawElementsInstanced(GL_TRIANGLES, mesh->index_count, GL_UNSIGNED_INT, NULL, count);
	}
	r->stats.draw_calls += 1;
}

/// Every instanced mesh with `program` bound. Closed built-in meshes are back-face culled (when
/// cull is set); hull and mesh triangle sets may be open and are not.
static void draw_instances(kl_renderer* r, GLuint program, bool edges, bool cull)
{
	GLint capsule = glGetUniformLocation(program, "u_capsule");
	int first = 0;
	for (int k = 0; k < KL_KIND_COUNT; ++k)
	{
		if (cull)
		{
			glEnable(GL_CULL_FACE);
		}
		glUniform1i(capsule, k == KL_KIND_CAPSULE ? 1 : 0);
		draw_range(r, &r->meshes[k], first, r->kinds[k].count, edges);
		first += r->kinds[k].count;
	}
	glDisable(GL_CULL_FACE);
	glUniform1i(capsule, 0);
	for (int e = 0; e < r->cache.mesh_count; ++e)
	{
		const kl_cached_mesh* entry = r->cache.meshes + e;
		if (entry->frame_instances > 0)
		{
			draw_range(r, &entry->mesh, entry->first_instance, entry->frame_instances, edges);
		}
	}
}

/// Heatmaps use the instanced program with their pose as constant instance attributes.
static void draw_heatmaps(kl_renderer* r, GLuint program, bool lit)
{
	glUniform1i(glGetUniformLocation(program, "u_capsule"), 0);
	GLint range = glGetUniformLocation(program, "u_range");
	GLint mapped = glGetUniformLocation(program, "u_heatmap");
	for (int i = 0; i < r->heatmap_count; ++i)
	{
		const kl_heatmap_draw* h = r->heatmaps + i;
		glBindVertexArray(h->heatmap->vao);
		glVertexAttrib1f(KL_ATTR_SIDE, 0.0f);
		glVertexAttrib3f(KL_ATTR_INSTANCE_POSITION, h->xf.p.x, h->xf.p.y, h->xf.p.z);
		glVertexAttrib4f(KL_ATTR_INSTANCE_ROTATION, h->xf.q.x, h->xf.q.y, h->xf.q.z, h->xf.q.w);
		glVertexAttrib3f(KL_ATTR_INSTANCE_SCALE, 1.0f, 1.0f, 1.0f);
		glVertexAttrib4f(KL_ATTR_INSTANCE_COLOR, 1.0f, 1.0f, 1.0f, 1.0f); // per-vertex colours override it
		if (lit)
		{
			glUniform2f(range, h->lo, h->hi);
			glUniform1i(mapped, h->heatmap->vertex_colors ? 0 : 1);
		}
		glDrawElements(GL_TRIANGLES, h->heatmap->index_count, GL_UNSIGNED_INT, NULL);
		r->stats.draw_calls += 1;
	}
}

static float focus_radius(const kl_camera* c)
{
	float aspect = c->height > 0 ? (float)c->width / (float)c->height : 1.0f;
	return fmaxf(1.3f * c->distance * tanf(0.5f * c->fov_y) * fmaxf(aspect, 1.0f), 0.05f);
}

static void shadow_pass(kl_renderer* r)
{
	kl_camera* c = &r->camera;
	vec3s focus = kl_camera_focus(c);
	float radius = focus_radius(c);
	// A scene smaller than the view needs no more than its own extent.
	if (r->casters.lower.x <= r->casters.upper.x)
	{
		vec3s centre = glms_vec3_scale(glms_vec3_add(r->casters.lower, r->casters.upper), 0.5f);
		float scene = 0.5f * glms_vec3_distance(r->casters.lower, r->casters.upper);
		if (scene < radius && glms_vec3_distance(centre, focus) + scene < radius)
		{
			radius = fmaxf(scene * 1.1f, 0.05f);
			focus = centre;
		}
	}
	kl_shadow_map_fit(&r->shadow, light_direction(), focus, radius, r->casters);
	kl_shadow_map_begin(&r->shadow);
	GLuint p = r->shaders.depth;
	glUseProgram(p);
	set_mat4(p, "u_view_proj", r->shadow.view_proj);
	// Front faces only for the closed meshes: half the triangles, and the polygon offset covers acne.
	draw_instances(r, p, false, true);
	draw_heatmaps(r, p, false);
	kl_shadow_map_end(&r->shadow);
}

/// Uniforms of the shared lighting code.
static void set_lighting(kl_renderer* r, GLuint p, bool shadows)
{
	const kl_camera* c = &r->camera;
	set_mat4(p, "u_view_proj", r->view_proj);
	set_vec3(p, "u_eye", kl_camera_eye(c));
	set_vec3(p, "u_light_dir", light_direction());
	set_vec3(p, "u_sky", kl_vec3(0.30f, 0.34f, 0.42f));
	set_vec3(p, "u_ground", kl_vec3(0.16f, 0.14f, 0.12f));
	set_vec3(p, "u_fog_color", kl_vec3(0.80f, 0.85f, 0.90f));
	set_float(p, "u_fog_density", 0.08f / fmaxf(c->distance, 0.5f));
	if (shadows)
	{
		set_mat4(p, "u_light_view_proj", r->shadow.view_proj);
		set_float(p, "u_shadow_texel", r->shadow.texel_world);
		glActiveTexture(GL_TEXTURE0);
		glBindTexture(GL_TEXTURE_2D, r->shadow.texture);
		set_int(p, "u_shadow_map", 0);
	}
}

static void draw_background(kl_renderer* r)
{
	GLuint p = r->shaders.background;
	glUseProgram(p);
	// The view ray of each pixel from the camera basis (an inverted projection loses precision
	// towards a far plane thousands of near planes away).
	const kl_camera* c = &r->camera;
	float t = tanf(0.5f * c->fov_y);
	float aspect = c->height > 0 ? (float)c->width / (float)c->height : 1.0f;
	vec3s forward = kl_camera_forward(c);
	vec3s right = glms_vec3_normalize(glms_vec3_cross(forward, kl_vec3(0.0f, 0.0f, 1.0f)));
	if (!(glms_vec3_norm2(right) > 0.5f))
	{
		right = kl_vec3(1.0f, 0.0f, 0.0f); // looking straight up or down
	}
	vec3s up = glms_vec3_cross(right, forward);
	set_vec3(p, "u_forward", forward);
	set_vec3(p, "u_right", glms_vec3_scale(right, t * aspect));
	set_vec3(p, "u_up", glms_vec3_scale(up, t));
	set_vec3(p, "u_zenith", kl_vec3(0.33f, 0.49f, 0.72f));
	set_vec3(p, "u_horizon", kl_vec3(0.80f, 0.85f, 0.90f));
	set_vec3(p, "u_nadir", kl_vec3(0.60f, 0.62f, 0.64f));
	glDisable(GL_DEPTH_TEST);
	glDepthMask(GL_FALSE);
	glBindVertexArray(r->empty_vao);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	r->stats.draw_calls += 1;
	glDepthMask(GL_TRUE);
	glEnable(GL_DEPTH_TEST);
}

static void draw_planes(kl_renderer* r, bool shadows)
{
	if (r->plane_count == 0)
	{
		return;
	}
	GLuint p = r->shaders.plane[shadows ? 1 : 0];
	glUseProgram(p);
	set_lighting(r, p, shadows);
	vec3s focus = kl_camera_focus(&r->camera);
	// Pushed back a little so that a ground box's top face at the same height wins.
	glEnable(GL_POLYGON_OFFSET_FILL);
	glPolygonOffset(1.0f, 1.0f);
	glBindVertexArray(r->empty_vao);
	for (int i = 0; i < r->plane_count; ++i)
	{
		const kl_plane_draw* d = r->planes + i;
		vec3s n = d->normal;
		vec3s hint = fabsf(n.z) < 0.9f ? kl_vec3(0.0f, 0.0f, 1.0f) : kl_vec3(1.0f, 0.0f, 0.0f);
		vec3s u = glms_vec3_normalize(glms_vec3_cross(hint, n));
		vec3s v = glms_vec3_cross(n, u);
		vec3s origin = glms_vec3_scale(n, d->offset);
		// The quad follows the camera across an unbounded plane; fog hides its far edge.
		vec3s centre = glms_vec3_sub(focus, glms_vec3_scale(n, glms_vec3_dot(n, focus) - d->offset));
		float half = fmaxf(40.0f * r->camera.distance, 2.0f * d->extent);
		vec3s base = rgb(d->color);
		set_vec3(p, "u_center", centre);
		set_vec3(p, "u_origin", origin);
		set_vec3(p, "u_axis_u", u);
		set_vec3(p, "u_axis_v", v);
		set_vec3(p, "u_normal", n);
		set_float(p, "u_half_size", half);
		set_vec3(p, "u_color", base);
		set_vec3(p, "u_line_color", glms_vec3_scale(base, 0.62f));
		set_float(p, "u_spacing", d->spacing);
		set_float(p, "u_extent", d->extent);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		r->stats.draw_calls += 1;
	}
	glDisable(GL_POLYGON_OFFSET_FILL);
}

static void draw_overlays(kl_renderer* r)
{
	GLuint p = r->shaders.lines;
	glUseProgram(p);
	set_mat4(p, "u_view_proj", r->view_proj);
	set_float(p, "u_depth_pull", 2.0e-5f);
	set_int(p, "u_round", 0);
	r->stats.draw_calls += kl_vertex_batch_draw(&r->lines, GL_LINES);
	glEnable(GL_PROGRAM_POINT_SIZE);
	set_int(p, "u_round", 1);
	set_float(p, "u_depth_pull", 2.0e-4f);
	r->stats.draw_calls += kl_vertex_batch_draw(&r->points, GL_POINTS);
	glDisable(GL_PROGRAM_POINT_SIZE);
}

static void resolve_labels(kl_renderer* r)
{
	for (int i = 0; i < r->label_count; ++i)
	{
		r->labels[i].text = r->label_text + r->label_offsets[i];
	}
}

void kl_renderer_end_frame(kl_renderer* r)
{
	if (!r->in_frame)
	{
		return;
	}
	double t0 = now_seconds();
	const kl_render_layers* l = &r->layers;
	int instances = gather_instances(r);
	bool shadows = l->shadows && !l->wireframe && (instances > 0 || r->heatmap_count > 0);
	if (shadows)
	{
		shadow_pass(r);
	}
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glViewport(0, 0, r->camera.width, r->camera.height);
	glEnable(GL_DEPTH_TEST);
	glDepthFunc(GL_LESS);
	glDepthMask(GL_TRUE);
	glDisable(GL_BLEND);
	glClear(GL_DEPTH_BUFFER_BIT);
	draw_background(r);
	draw_planes(r, shadows);
	if (instances > 0 && l->wireframe)
	{
		GLuint p = r->shaders.edges;
		glUseProgram(p);
		set_mat4(p, "u_view_proj", r->view_proj);
		draw_instances(r, p, true, false);
	}
	if ((instances > 0 && !l->wireframe) || r->heatmap_count > 0)
	{
		GLuint p = r->shaders.solid[shadows ? 1 : 0];
		glUseProgram(p);
		set_lighting(r, p, shadows);
		set_int(p, "u_heatmap", 0);
		if (!l->wireframe)
		{
			draw_instances(r, p, false, true);
		}
		set_int(p, "u_heatmap", 1);
		draw_heatmaps(r, p, true);
	}
	draw_overlays(r);
	glBindVertexArray(0);
	glUseProgram(0);
	glDisable(GL_DEPTH_TEST);
	resolve_labels(r);
	if ((r->frame & 63) == 0)
	{
		kl_mesh_cache_evict(&r->cache, r->frame, KL_MESH_MAX_AGE);
	}
	r->stats.instances = instances;
	r->stats.lines = r->lines.count / 2;
	r->stats.points = r->points.count;
	r->frame_seconds += now_seconds() - t0;
	r->stats.cpu_ms = (float)(1000.0 * r->frame_seconds);
	r->in_frame = false;
}

kl_render_stats kl_renderer_get_stats(const kl_renderer* r)
{
	return r->stats;
}

int kl_renderer_get_labels(const kl_renderer* r, const kl_render_label** labels)
{
	if (r->in_frame)
	{
		*labels = NULL;
		return 0;
	}
	*labels = r->labels;
	return r->label_count;
}
