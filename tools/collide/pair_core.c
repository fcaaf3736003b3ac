// Kollide — mesh-pair queries shared by kollide-collide and kollide-poses (see pair_core.h).
// SPDX-License-Identifier: MIT
#include "pair_core.h"

#include "tri_adjacency.h"

#include "meshgen.h"

#include <kollide/io.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double kl_pair_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// ---------------------------------------------------------------------------------------------
// Loading

static bool take_arrays(kl_pair_model* model, vec3s* vertices, int vertex_count, int32_t* indices, int triangle_count)
{
	memset(model, 0, sizeof(*model));
	model->vertices = malloc(sizeof(float) * 3 * (size_t)(vertex_count > 0 ? vertex_count : 1));
	model->indices = malloc(sizeof(int32_t) * 3 * (size_t)(triangle_count > 0 ? triangle_count : 1));
	if (model->vertices == NULL || model->indices == NULL)
	{
		return false;
	}
	for (int i = 0; i < vertex_count; ++i)
	{
		model->vertices[3 * i + 0] = vertices[i].x;
		model->vertices[3 * i + 1] = vertices[i].y;
		model->vertices[3 * i + 2] = vertices[i].z;
	}
	memcpy(model->indices, indices, sizeof(int32_t) * 3 * (size_t)triangle_count);
	model->vertex_count = vertex_count;
	model->triangle_count = triangle_count;
	return true;
}

/// "gen:NAME[:N]" through meshgen.
static bool load_generated(const char* name, kl_pair_model* model, char* err, size_t err_size)
{
	char base[32] = {0};
	long n = -1;
	const char* colon = strchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);
	if (len >= sizeof(base))
	{
		snprintf(err, err_size, "unknown generated mesh 'gen:%s'", name);
		return false;
	}
	memcpy(base, name, len);
	if (colon != NULL)
	{
		char* end;
		errno = 0;
		n = strtol(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == colon + 1 || n < 1 || n > 100000)
		{
			snprintf(err, err_size, "bad parameter in 'gen:%s' (a positive integer expected)", name);
			return false;
		}
	}
	kl_meshgen_mesh mesh = {0};
	kl_result r;
	if (strcmp(base, "gear") == 0)
	{
		kl_meshgen_gear_params p = kl_meshgen_default_gear_params();
		p.tooth_count = n > 0 ? (int)n : p.tooth_count;
		r = kl_meshgen_gear(&p, &mesh);
	}
	else if (strcmp(base, "rock") == 0)
	{
		kl_meshgen_rock_params p = kl_meshgen_default_rock_params();
		p.frequency = n > 0 ? (int)n : p.frequency;
		r = kl_meshgen_rock(&p, &mesh);
	}
	else if (strcmp(base, "screw") == 0)
	{
		kl_meshgen_screw_params p = kl_meshgen_default_screw_params();
		r = kl_meshgen_screw(&p, &mesh);
	}
	else if (strcmp(base, "nut") == 0)
	{
		kl_meshgen_screw_params s = kl_meshgen_default_screw_params();
		kl_meshgen_bearing_block_params p = kl_meshgen_bearing_block_for_screw(&s, true);
		r = kl_meshgen_bearing_block(&p, &mesh);
	}
	else if (strcmp(base, "bowl") == 0)
	{
		kl_meshgen_bowl_params p = kl_meshgen_default_bowl_params();
		r = kl_meshgen_bowl(&p, &mesh);
	}
	else if (strcmp(base, "knot") == 0)
	{
		kl_meshgen_torus_knot_params p = kl_meshgen_default_torus_knot_params();
		r = kl_meshgen_torus_knot(&p, &mesh);
	}
	else
	{
		snprintf(err, err_size, "unknown generated mesh 'gen:%s' (gear, rock, screw, nut, bowl, knot)", name);
		return false;
	}
	if (r != KL_OK)
	{
		snprintf(err, err_size, "gen:%s: %s", name, kl_meshgen_last_error());
		return false;
	}
	bool ok = take_arrays(model, mesh.vertices, mesh.vertex_count, mesh.indices, mesh.triangle_count);
	kl_meshgen_free(&mesh);
	if (!ok)
	{
		snprintf(err, err_size, "gen:%s: out of memory", name);
	}
	return ok;
}

/// AABB centre and the bounding radius about it.
static void bound_model(kl_pair_model* model)
{
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
	for (int i = 0; i < model->vertex_count; ++i)
	{
		for (int c = 0; c < 3; ++c)
		{
			lo[c] = fmin(lo[c], model->vertices[3 * i + c]);
			hi[c] = fmax(hi[c], model->vertices[3 * i + c]);
		}
	}
	double r2 = 0.0;
	for (int c = 0; c < 3; ++c)
	{
		model->centre[c] = 0.5 * (lo[c] + hi[c]);
	}
	for (int i = 0; i < model->vertex_count; ++i)
	{
		double d2 = 0.0;
		for (int c = 0; c < 3; ++c)
		{
			double d = model->vertices[3 * i + c] - model->centre[c];
			d2 += d * d;
		}
		r2 = fmax(r2, d2);
	}
	model->radius = sqrt(r2);
}

bool kl_pair_load(const char* spec, kl_pair_model* model, char* err, size_t err_size)
{
	bool ok;
	if (strncmp(spec, "gen:", 4) == 0)
	{
		ok = load_generated(spec + 4, model, err, err_size);
	}
	else
	{
		kl_mesh_data data = {0};
		if (kl_mesh_data_load(spec, &data) != KL_OK)
		{
			snprintf(err, err_size, "cannot load mesh '%s': %s", spec, kl_last_error());
			return false;
		}
		ok = take_arrays(model, data.vertices, data.vertex_count, data.indices, data.triangle_count);
		kl_mesh_data_free(&data);
		if (!ok)
		{
			snprintf(err, err_size, "%s: out of memory", spec);
		}
	}
	if (ok && (model->triangle_count < 1 || model->vertex_count < 3))
	{
		snprintf(err, err_size, "mesh '%s' has no triangles", spec);
		ok = false;
	}
	if (!ok)
	{
		kl_pair_free(model);
		return false;
	}
	bound_model(model);
	return true;
}

// ---------------------------------------------------------------------------------------------
// Preparation: every node's DOP in the mesh frame, for the distance search

static float round_down(double x)
{
	float f = (float)x;
	return (double)f > x ? nextafterf(f, -FLT_MAX) : f;
}

static float round_up(double x)
{
	float f = (float)x;
	return (double)f < x ? nextafterf(f, FLT_MAX) : f;
}

static void store_dop(kl_pair_model* model, float* lo, float* hi, const double* dlo, const double* dhi)
{
	for (int i = 0; i < model->tree->axes; ++i)
	{
		lo[i] = round_down(dlo[i]);
		hi[i] = round_up(dhi[i]);
		model->node_abs_max = fmax(model->node_abs_max, fmax(fabs(lo[i]), fabs(hi[i])));
	}
}

bool kl_pair_prepare(kl_pair_model* model, const kl_bvh_build_def* def, char* err, size_t err_size)
{
	model->tree = kl_bvh_build(model->vertices, model->vertex_count, model->indices, model->triangle_count, def);
	if (model->tree == NULL)
	{
		snprintf(err, err_size, "BVH build failed: %s", kl_last_error());
		return false;
	}
	int v = model->vertex_count, tris = model->triangle_count;
	model->opposite = malloc(sizeof(int32_t) * (size_t)(3 * (tris > 0 ? tris : 1)));
	model->vertex_normals = malloc(sizeof(vec3s) * (size_t)(v > 0 ? v : 1));
	model->vertex_cone_cos = malloc(sizeof(float) * (size_t)(v > 0 ? v : 1));
	if (!model->opposite || !model->vertex_normals || !model->vertex_cone_cos ||
		kl_triangle_opposites(model->indices, tris, model->opposite) != KL_OK ||
		kl_vertex_pseudo_normals((const vec3s*)model->vertices, v, model->indices, tris, model->vertex_normals,
								 model->vertex_cone_cos) != KL_OK)
	{
		snprintf(err, err_size, "adjacency failed: %s", kl_last_error());
		return false;
	}
	double start = kl_pair_now();
	const kl_bvh* t = model->tree;
	size_t axes = (size_t)t->axes;
	model->inner_lo = malloc(sizeof(float) * axes * (size_t)t->node_count);
	model->inner_hi = malloc(sizeof(float) * axes * (size_t)t->node_count);
	model->leaf_lo = malloc(sizeof(float) * axes * (size_t)t->triangle_count);
	model->leaf_hi = malloc(sizeof(float) * axes * (size_t)t->triangle_count);
	if (!model->inner_lo || !model->inner_hi || !model->leaf_lo || !model->leaf_hi)
	{
		snprintf(err, err_size, "out of memory");
		return false;
	}
	double lo[KL_KDOP_MAX_AXES], hi[KL_KDOP_MAX_AXES];
	for (size_t i = 0; i < axes; ++i)
	{
		lo[i] = (double)t->root_lo[i] + t->offset[i];
		hi[i] = (double)t->root_hi[i] + t->offset[i];
	}
	store_dop(model, model->inner_lo, model->inner_hi, lo, hi);
	for (int n = 0; n < t->node_count; ++n)
	{
		const int32_t* child = kl_bvh_node_children(t, n);
		int count = kl_bvh_node_count(t, n);
		for (int lane = 0; lane < count; ++lane)
		{
			kl_bvh_child_dop(t, n, lane, lo, hi);
			size_t at = child[lane] >= 0 ? (size_t)child[lane] * axes : (size_t)(-1 - child[lane]) * axes;
			float* dlo = child[lane] >= 0 ? model->inner_lo : model->leaf_lo;
			float* dhi = child[lane] >= 0 ? model->inner_hi : model->leaf_hi;
			store_dop(model, dlo + at, dhi + at, lo, hi);
		}
	}
	model->prepare_seconds = kl_pair_now() - start;
	return true;
}

void kl_pair_free(kl_pair_model* model)
{
	free(model->opposite);
	free(model->vertex_normals);
	free(model->vertex_cone_cos);
	free(model->vertices);
	free(model->indices);
	free(model->inner_lo);
	free(model->inner_hi);
	free(model->leaf_lo);
	free(model->leaf_hi);
	if (model->tree != NULL)
	{
		kl_bvh_destroy(model->tree);
	}
	memset(model, 0, sizeof(*model));
}

void kl_pair_scratch_free(kl_pair_scratch* s)
{
	kl_mesh_scratch_free(&s->mesh);
	free(s->heap);
	free(s->realigned_inner);
	free(s->realigned_leaf);
	free(s->stamp_inner);
	free(s->stamp_leaf);
	free(s->moved_b);
	memset(s, 0, sizeof(*s));
}

// ---------------------------------------------------------------------------------------------
// Poses

bool kl_pair_pose_make(const double m34[12], kl_pair_pose* pose)
{
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			pose->m[r][c] = m34[4 * r + c];
		}
		pose->t[r] = m34[4 * r + 3];
	}
	for (int i = 0; i < 12; ++i)
	{
		pose->m34[i] = (float)m34[i];
	}
	// A rotation: MᵀM = I within 1e-4 and det > 0; its inverse is then the transpose.
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			double d = 0.0;
			for (int k = 0; k < 3; ++k)
			{
				d += pose->m[k][i] * pose->m[k][j];
			}
			if (!(fabs(d - (i == j ? 1.0 : 0.0)) <= 1e-4))
			{
				return false;
			}
			pose->inv_m[i][j] = pose->m[j][i];
		}
	}
	double det = pose->m[0][0] * (pose->m[1][1] * pose->m[2][2] - pose->m[1][2] * pose->m[2][1]) -
				 pose->m[0][1] * (pose->m[1][0] * pose->m[2][2] - pose->m[1][2] * pose->m[2][0]) +
				 pose->m[0][2] * (pose->m[1][0] * pose->m[2][1] - pose->m[1][1] * pose->m[2][0]);
	if (!(det > 0.0))
	{
		return false;
	}
	for (int r = 0; r < 3; ++r)
	{
		pose->inv_t[r] = -(pose->inv_m[r][0] * pose->t[0] + pose->inv_m[r][1] * pose->t[1] + pose->inv_m[r][2] * pose->t[2]);
	}
	return true;
}

/// B's vertex i moved into A's frame (double, rounded once to float: the BVH and the brute force
/// paths use this same function, so their exact tests see the same triangles).
static vec3s move_vertex(const kl_pair_model* b, const kl_pair_pose* pose, int i)
{
	const float* p = b->vertices + 3 * (size_t)i;
	double x = p[0], y = p[1], z = p[2];
	vec3s out;
	out.x = (float)(pose->m[0][0] * x + pose->m[0][1] * y + pose->m[0][2] * z + pose->t[0]);
	out.y = (float)(pose->m[1][0] * x + pose->m[1][1] * y + pose->m[1][2] * z + pose->t[1]);
	out.z = (float)(pose->m[2][0] * x + pose->m[2][1] * y + pose->m[2][2] * z + pose->t[2]);
	return out;
}

static void triangle_a(const kl_pair_model* a, int tri, vec3s out[3])
{
	for (int j = 0; j < 3; ++j)
	{
		const float* p = a->vertices + 3 * (size_t)a->indices[3 * tri + j];
		out[j] = (vec3s){{p[0], p[1], p[2]}};
	}
}

static void triangle_b(const kl_pair_model* b, const kl_pair_pose* pose, int tri, vec3s out[3])
{
	for (int j = 0; j < 3; ++j)
	{
		out[j] = move_vertex(b, pose, b->indices[3 * tri + j]);
	}
}

/// Brute force: B's triangle from the pre-moved vertex array.
static void triangle_moved(const kl_pair_model* b, const float* moved, int tri, vec3s out[3])
{
	for (int j = 0; j < 3; ++j)
	{
		const float* p = moved + 3 * (size_t)b->indices[3 * tri + j];
		out[j] = (vec3s){{p[0], p[1], p[2]}};
	}
}

static bool move_all(const kl_pair_model* b, const kl_pair_pose* pose, kl_pair_scratch* s)
{
	if (s->moved_capacity < b->vertex_count)
	{
		free(s->moved_b);
		s->moved_b = malloc(sizeof(float) * 3 * (size_t)b->vertex_count);
		s->moved_capacity = s->moved_b ? b->vertex_count : 0;
		if (s->moved_b == NULL)
		{
			return false;
		}
	}
	for (int i = 0; i < b->vertex_count; ++i)
	{
		vec3s p = move_vertex(b, pose, i);
		s->moved_b[3 * i] = p.x, s->moved_b[3 * i + 1] = p.y, s->moved_b[3 * i + 2] = p.z;
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Boolean and contact queries

typedef struct leaf_context
{
	const kl_pair_model* a;
	const kl_pair_model* b;
	const kl_pair_pose* pose;
	kl_pair_scratch* scratch;
	kl_tri_contact_config config;
} leaf_context;

static bool leaf_overlap(int tri_a, int tri_b, void* ctx)
{
	const leaf_context* c = ctx;
	vec3s ta[3], tb[3];
	triangle_a(c->a, tri_a, ta);
	triangle_b(c->b, c->pose, tri_b, tb);
	return kl_tri_tri_overlap(ta, tb);
}

static void add_counters(kl_pair_scratch* s, const kl_bvh_result* result)
{
	s->bv_tests += result->counters.bv_tests;
	s->tri_tests += result->counters.leaf_tests;
}

/// kl_pair_collide without resetting the counters (the distance query starts with it).
static bool collide_counted(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
							const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute)
{
	if (brute)
	{
		if (!move_all(b, pose, scratch))
		{
			return false;
		}
		for (int i = 0; i < a->triangle_count; ++i)
		{
			vec3s ta[3], tb[3];
			triangle_a(a, i, ta);
			for (int j = 0; j < b->triangle_count; ++j)
			{
				triangle_moved(b, scratch->moved_b, j, tb);
				scratch->tri_tests += 1;
				if (kl_tri_tri_overlap(ta, tb))
				{
					return true;
				}
			}
		}
		return false;
	}
	leaf_context ctx = {a, b, pose, scratch, {0}};
	kl_bvh_query query = {KL_BVH_FIRST_HIT, settings->traversal, 0.0f, leaf_overlap, &ctx, NULL, 0};
	kl_bvh_result result;
	kl_bvh_collide_m34(a->tree, b->tree, pose->m34, &query, &result);
	add_counters(scratch, &result);
	return result.hit;
}

bool kl_pair_collide(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
					 const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute)
{
	scratch->bv_tests = 0;
	scratch->tri_tests = 0;
	return collide_counted(a, b, pose, settings, scratch, brute);
}

/// Appends one candidate pair; false (and out_of_memory set) when out of memory.
static bool add_pair(kl_pair_scratch* s, int tri_a, int tri_b)
{
	s->out_of_memory = s->out_of_memory || !kl_mesh_scratch_push_pair(&s->mesh, tri_a, tri_b);
	return !s->out_of_memory;
}

static bool leaf_pair(int tri_a, int tri_b, void* ctx)
{
	leaf_context* c = ctx;
	return add_pair(c->scratch, tri_a, tri_b);
}

/// The engine's view of a model at a pose (B's pose is rigid: kl_pair_pose_make checks it).
static kl_triangle_set model_set(const kl_pair_model* m, const kl_pair_pose* pose)
{
	kl_triangle_set set;
	memset(&set, 0, sizeof(set));
	set.bvh = m->tree;
	set.vertices = (const vec3s*)m->vertices;
	set.vertex_count = m->vertex_count;
	set.indices = m->indices;
	set.opposite = m->opposite;
	set.vertex_normals = m->vertex_normals;
	set.vertex_cone_cos = m->vertex_cone_cos;
	set.scale = kl_vec3(1.0f, 1.0f, 1.0f);
	set.xf.q = glms_quat_identity();
	if (pose != NULL)
	{
		mat3s r;
		for (int i = 0; i < 3; ++i)
		{
			for (int j = 0; j < 3; ++j)
			{
				r.raw[j][i] = (float)pose->m[i][j]; // cglm: column j, row i
			}
		}
		set.xf.q = glms_quat_normalize(glms_mat3_quat(r));
		set.xf.p = kl_vec3((float)pose->t[0], (float)pose->t[1], (float)pose->t[2]);
	}
	return set;
}

bool kl_pair_contacts_query(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
							const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute,
							kl_pair_contacts* out)
{
	leaf_context ctx = {a, b, pose, scratch, kl_tri_contact_config_default()};
	ctx.config.margin = settings->margin;
	// Deeper than a tenth of A's radius is a pass-through, not a contact (the default 0.1 m assumes
	// bodies of a metre or so).
	ctx.config.max_depth = (float)(0.1 * a->radius);
	scratch->mesh.pair_count = 0;
	scratch->out_of_memory = false;
	scratch->bv_tests = 0;
	scratch->tri_tests = 0;
	if (brute)
	{
		for (int i = 0; i < a->triangle_count; ++i)
		{
			for (int j = 0; j < b->triangle_count && add_pair(scratch, i, j); ++j)
			{
			}
		}
		scratch->tri_tests = (int64_t)a->triangle_count * b->triangle_count;
	}
	else
	{
		// The DOPs get a hair more than the margin so that pairs at exactly the margin are not lost
		// to rounding; the contacts decide.
		float margin = settings->margin + (float)(1e-6 * a->radius);
		kl_bvh_query query = {KL_BVH_ALL_PAIRS, settings->traversal, margin, leaf_pair, &ctx, NULL, 0};
		kl_bvh_result result;
		kl_bvh_collide_m34(a->tree, b->tree, pose->m34, &query, &result);
		add_counters(scratch, &result);
	}
	if (scratch->out_of_memory)
	{
		return false;
	}
	kl_triangle_set sa = model_set(a, NULL), sb = model_set(b, pose);
	int count = kl_mesh_pair_contacts(&sa, &sb, scratch->mesh.pairs, scratch->mesh.pair_count, &ctx.config, NULL,
									  &scratch->mesh);
	memset(out, 0, sizeof(*out));
	if (count <= 0)
	{
		return count == 0;
	}
	kl_manifold manifolds[KL_PATCH_MAX_SEEDS];
	int m_count = kl_mesh_scratch_patches(&scratch->mesh, count, NULL, manifolds, KL_PATCH_MAX_SEEDS);
	out->manifolds = m_count;
	for (int m = 0; m < m_count; ++m)
	{
		for (int p = 0; p < manifolds[m].point_count; ++p)
		{
			out->points += 1;
			out->depth = fmaxf(out->depth, -manifolds[m].points[p].separation);
		}
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Distance: best-first search over node pairs by a DOP lower bound

static bool heap_push(kl_pair_scratch* s, kl_pair_heap_item item)
{
	if (s->heap_count == s->heap_capacity)
	{
		int cap = s->heap_capacity ? 2 * s->heap_capacity : 1024;
		kl_pair_heap_item* grown = realloc(s->heap, sizeof(*grown) * (size_t)cap);
		if (grown == NULL)
		{
			return false;
		}
		s->heap = grown;
		s->heap_capacity = cap;
	}
	int i = s->heap_count++;
	while (i > 0)
	{
		int parent = (i - 1) / 2;
		if (s->heap[parent].bound <= item.bound)
		{
			break;
		}
		s->heap[i] = s->heap[parent];
		i = parent;
	}
	s->heap[i] = item;
	return true;
}

static kl_pair_heap_item heap_pop(kl_pair_scratch* s)
{
	kl_pair_heap_item top = s->heap[0];
	kl_pair_heap_item last = s->heap[--s->heap_count];
	int i = 0, n = s->heap_count;
	for (;;)
	{
		int c = 2 * i + 1;
		if (c >= n)
		{
			break;
		}
		if (c + 1 < n && s->heap[c + 1].bound < s->heap[c].bound)
		{
			c += 1;
		}
		if (s->heap[c].bound >= last.bound)
		{
			break;
		}
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (n > 0)
	{
		s->heap[i] = last;
	}
	return top;
}

/// Sizes the realignment cache for a (its nodes and leaves, b's axes) and starts a new query.
static bool cache_begin(kl_pair_scratch* s, const kl_pair_model* a, int axes_b)
{
	int inner = a->tree->node_count, leaf = a->tree->triangle_count;
	if (s->cache_inner < inner || s->cache_leaf < leaf || s->cache_axes < axes_b)
	{
		free(s->realigned_inner);
		free(s->realigned_leaf);
		free(s->stamp_inner);
		free(s->stamp_leaf);
		s->realigned_inner = malloc(sizeof(float) * 2 * (size_t)axes_b * (size_t)inner);
		s->realigned_leaf = malloc(sizeof(float) * 2 * (size_t)axes_b * (size_t)leaf);
		s->stamp_inner = calloc((size_t)inner, sizeof(uint32_t));
		s->stamp_leaf = calloc((size_t)leaf, sizeof(uint32_t));
		s->cache_inner = inner, s->cache_leaf = leaf, s->cache_axes = axes_b;
		s->stamp = 0;
		if (!s->realigned_inner || !s->realigned_leaf || !s->stamp_inner || !s->stamp_leaf)
		{
			s->cache_inner = s->cache_leaf = s->cache_axes = 0;
			return false;
		}
	}
	s->stamp += 1;
	if (s->stamp == 0)
	{
		memset(s->stamp_inner, 0, sizeof(uint32_t) * (size_t)s->cache_inner);
		memset(s->stamp_leaf, 0, sizeof(uint32_t) * (size_t)s->cache_leaf);
		s->stamp = 1;
	}
	return true;
}

typedef struct distance_search
{
	const kl_pair_model* a;
	const kl_pair_model* b;
	const kl_pair_pose* pose;
	kl_pair_scratch* s;
	kl_kdop_plan plan; ///< A's mesh frame → B's mesh frame
	int axes_a;
	int axes_b;
} distance_search;

/// A's node or leaf DOP realigned into B's frame: lo at [0, axes_b), hi at [axes_b, 2·axes_b).
static const float* realigned_a(distance_search* d, int32_t ref)
{
	bool inner = ref >= 0;
	int i = inner ? ref : -1 - ref;
	uint32_t* stamp = inner ? d->s->stamp_inner : d->s->stamp_leaf;
	float* rows = (inner ? d->s->realigned_inner : d->s->realigned_leaf) + 2 * (size_t)d->axes_b * (size_t)i;
	if (stamp[i] != d->s->stamp)
	{
		const float* lo = (inner ? d->a->inner_lo : d->a->leaf_lo) + (size_t)d->axes_a * (size_t)i;
		const float* hi = (inner ? d->a->inner_hi : d->a->leaf_hi) + (size_t)d->axes_a * (size_t)i;
		kl_kdop_realign(&d->plan, lo, hi, 1, rows, rows + d->axes_b);
		stamp[i] = d->s->stamp;
	}
	return rows;
}

static const float* dop_b(const distance_search* d, int32_t ref, bool hi)
{
	bool inner = ref >= 0;
	int i = inner ? ref : -1 - ref;
	const float* base = inner ? (hi ? d->b->inner_hi : d->b->inner_lo) : (hi ? d->b->leaf_hi : d->b->leaf_lo);
	return base + (size_t)d->axes_b * (size_t)i;
}

/// The largest gap along any slab direction (unit vectors) between A's realigned DOP and B's: a lower
/// bound of the distance between anything inside them.
static float lower_bound(distance_search* d, int32_t ra, int32_t rb)
{
	d->s->bv_tests += 1;
	const float* a = realigned_a(d, ra);
	const float* blo = dop_b(d, rb, false);
	const float* bhi = dop_b(d, rb, true);
	float gap = 0.0f;
	for (int i = 0; i < d->axes_b; ++i)
	{
		gap = fmaxf(gap, fmaxf(blo[i] - a[d->axes_b + i], a[i] - bhi[i]));
	}
	return gap;
}

/// The largest slab extent of a node's DOP (which side of a pair to descend).
static float extent(const float* lo, const float* hi, int axes)
{
	float e = 0.0f;
	for (int i = 0; i < axes; ++i)
	{
		e = fmaxf(e, hi[i] - lo[i]);
	}
	return e;
}

static bool expand(distance_search* d, kl_pair_heap_item item, double best)
{
	bool split_a = item.a >= 0;
	if (item.a >= 0 && item.b >= 0)
	{
		size_t ia = (size_t)item.a * (size_t)d->axes_a, ib = (size_t)item.b * (size_t)d->axes_b;
		split_a = extent(d->a->inner_lo + ia, d->a->inner_hi + ia, d->axes_a) >=
				  extent(d->b->inner_lo + ib, d->b->inner_hi + ib, d->axes_b);
	}
	const kl_bvh* tree = split_a ? d->a->tree : d->b->tree;
	int node = split_a ? item.a : item.b;
	const int32_t* child = kl_bvh_node_children(tree, node);
	int count = kl_bvh_node_count(tree, node);
	for (int lane = 0; lane < count; ++lane)
	{
		kl_pair_heap_item next = {0.0f, split_a ? child[lane] : item.a, split_a ? item.b : child[lane]};
		next.bound = lower_bound(d, next.a, next.b);
		if ((double)next.bound < best && !heap_push(d->s, next))
		{
			return false;
		}
	}
	return true;
}

/// Records a leaf pair that improves on the best distance (closest may be NULL).
static void note_closest(kl_pair_closest* closest, int tri_a, int tri_b, const kl_tri_distance* td)
{
	if (closest != NULL)
	{
		closest->tri_a = tri_a;
		closest->tri_b = tri_b;
		closest->distance = td->overlap ? 0.0 : (double)td->distance;
		closest->intersecting = td->overlap;
		memcpy(closest->point_a, td->point_a.raw, sizeof(closest->point_a));
		memcpy(closest->point_b, td->point_b.raw, sizeof(closest->point_b));
	}
}

/// The best-first search; closest (may be NULL) receives the pair that gives the minimum.
static double distance_bvh(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
						   kl_pair_scratch* s, kl_pair_closest* closest)
{
	distance_search d = {a, b, pose, s, {0}, a->tree->axes, b->tree->axes};
	if (!cache_begin(s, a, d.axes_b))
	{
		return -1.0;
	}
	kl_kdop_storage src = {a->tree->dirs, NULL, a->node_abs_max, a->tree->point_radius};
	kl_kdop_storage dst = {b->tree->dirs, NULL, b->node_abs_max, b->tree->point_radius};
	kl_kdop_plan_make(&d.plan, &src, &dst, pose->inv_m, pose->inv_t, 0.0f);
	s->heap_count = 0;
	double best = INFINITY;
	kl_pair_heap_item root = {0.0f, 0, 0};
	root.bound = lower_bound(&d, 0, 0);
	if (!heap_push(s, root))
	{
		return -1.0;
	}
	while (s->heap_count > 0)
	{
		kl_pair_heap_item item = heap_pop(s);
		if ((double)item.bound >= best)
		{
			break;
		}
		if (item.a < 0 && item.b < 0)
		{
			vec3s ta[3], tb[3];
			triangle_a(a, -1 - item.a, ta);
			triangle_b(b, pose, -1 - item.b, tb);
			s->tri_tests += 1;
			kl_tri_distance td = kl_tri_tri_distance(ta, tb);
			double distance = td.overlap ? 0.0 : (double)td.distance;
			if (distance < best)
			{
				best = distance;
				note_closest(closest, -1 - item.a, -1 - item.b, &td);
			}
			continue;
		}
		if (!expand(&d, item, best))
		{
			return -1.0;
		}
	}
	return best;
}

double kl_pair_distance(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
						const kl_pair_settings* settings, kl_pair_scratch* scratch, bool brute)
{
	scratch->bv_tests = 0;
	scratch->tri_tests = 0;
	if (brute)
	{
		if (!move_all(b, pose, scratch))
		{
			return -1.0;
		}
		double best = INFINITY;
		for (int i = 0; i < a->triangle_count && best > 0.0; ++i)
		{
			vec3s ta[3], tb[3];
			triangle_a(a, i, ta);
			for (int j = 0; j < b->triangle_count; ++j)
			{
				triangle_moved(b, scratch->moved_b, j, tb);
				scratch->tri_tests += 1;
				kl_tri_distance td = kl_tri_tri_distance(ta, tb);
				best = fmin(best, td.overlap ? 0.0 : (double)td.distance);
			}
		}
		return best;
	}
	// Intersecting poses are settled by the (SIMD) overlap traversal, which is much cheaper than
	// searching for a zero distance.
	if (collide_counted(a, b, pose, settings, scratch, false))
	{
		return 0.0;
	}
	return distance_bvh(a, b, pose, scratch, NULL);
}

// ---------------------------------------------------------------------------------------------
// Closest triangle pair (heatmaps)

typedef struct lowest_context
{
	leaf_context base; ///< first: leaf_overlap reads it
	int tri_a;
	int tri_b;
} lowest_context;

/// Keeps the intersecting pair with the lowest (tri_a, tri_b); pairs that cannot be lower are not tested.
static bool leaf_lowest(int tri_a, int tri_b, void* ctx)
{
	lowest_context* c = ctx;
	if (c->tri_a >= 0 && (tri_a > c->tri_a || (tri_a == c->tri_a && tri_b >= c->tri_b)))
	{
		return false;
	}
	if (!leaf_overlap(tri_a, tri_b, &c->base))
	{
		return false;
	}
	c->tri_a = tri_a;
	c->tri_b = tri_b;
	return true;
}

static void lowest_intersecting(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
								const kl_pair_settings* settings, kl_pair_scratch* scratch, kl_pair_closest* out)
{
	lowest_context ctx = {{a, b, pose, scratch, {0}}, -1, -1};
	kl_bvh_query query = {KL_BVH_ALL_PAIRS, settings->traversal, 0.0f, leaf_lowest, &ctx, NULL, 0};
	kl_bvh_result result;
	kl_bvh_collide_m34(a->tree, b->tree, pose->m34, &query, &result);
	add_counters(scratch, &result);
	out->intersecting = true;
	if (ctx.tri_a >= 0)
	{
		vec3s ta[3], tb[3];
		triangle_a(a, ctx.tri_a, ta);
		triangle_b(b, pose, ctx.tri_b, tb);
		kl_tri_distance td = kl_tri_tri_distance(ta, tb);
		note_closest(out, ctx.tri_a, ctx.tri_b, &td);
		out->distance = 0.0;
		out->intersecting = true;
	}
}

bool kl_pair_closest_query(const kl_pair_model* a, const kl_pair_model* b, const kl_pair_pose* pose,
						   const kl_pair_settings* settings, kl_pair_scratch* scratch, kl_pair_closest* out)
{
	memset(out, 0, sizeof(*out));
	out->tri_a = -1;
	out->tri_b = -1;
	scratch->bv_tests = 0;
	scratch->tri_tests = 0;
	if (collide_counted(a, b, pose, settings, scratch, false))
	{
		lowest_intersecting(a, b, pose, settings, scratch, out);
		return true;
	}
	out->distance = distance_bvh(a, b, pose, scratch, out);
	return out->distance >= 0.0;
}

// ---------------------------------------------------------------------------------------------
// Pose files

static bool add_group(kl_pose_file* f, const char* name)
{
	char** grown = realloc(f->group_names, sizeof(char*) * (size_t)(f->group_count + 1));
	if (grown == NULL)
	{
		return false;
	}
	f->group_names = grown;
	f->group_names[f->group_count] = strdup(name);
	if (f->group_names[f->group_count] == NULL)
	{
		return false;
	}
	f->group_count += 1;
	return true;
}

/// "# rel=X ..." names a group: the first whitespace-separated word after '#'.
static bool parse_comment(kl_pose_file* f, const char* comment)
{
	while (*comment == '#' || isspace((unsigned char)*comment))
	{
		++comment;
	}
	if (strncmp(comment, "rel=", 4) != 0)
	{
		return true;
	}
	char name[64];
	size_t n = 0;
	while (comment[n] != '\0' && !isspace((unsigned char)comment[n]) && n + 1 < sizeof(name))
	{
		name[n] = comment[n];
		++n;
	}
	name[n] = '\0';
	return add_group(f, name);
}

static bool parse_line(char* line, double values[16], int* count)
{
	*count = 0;
	char* p = line;
	for (;;)
	{
		while (isspace((unsigned char)*p) || *p == ',')
		{
			++p;
		}
		if (*p == '\0')
		{
			return true;
		}
		char* end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno == ERANGE || !isfinite(v))
		{
			return false;
		}
		if (*count < 16)
		{
			values[*count] = v;
		}
		*count += 1;
		p = end;
	}
}

static bool check_pose(const double v[16], char* why, size_t why_size)
{
	if (v[12] != 0.0 || v[13] != 0.0 || v[14] != 0.0 || v[15] != 1.0)
	{
		snprintf(why, why_size, "last row must be 0 0 0 1");
		return false;
	}
	kl_pair_pose pose;
	if (!kl_pair_pose_make(v, &pose))
	{
		snprintf(why, why_size, "the 3x3 part is not a rotation (orthonormal within 1e-4, det +1)");
		return false;
	}
	return true;
}

static bool add_pose(kl_pose_file* f, const double v[16], int* capacity)
{
	if (f->count == *capacity)
	{
		int cap = *capacity ? 2 * *capacity : 64;
		double* m = realloc(f->m34, sizeof(double) * 12 * (size_t)cap);
		if (m == NULL)
		{
			return false;
		}
		f->m34 = m;
		int* g = realloc(f->group, sizeof(int) * (size_t)cap);
		if (g == NULL)
		{
			return false;
		}
		f->group = g;
		*capacity = cap;
	}
	if (f->group_count == 0 && !add_group(f, "all"))
	{
		return false;
	}
	memcpy(f->m34 + 12 * (size_t)f->count, v, sizeof(double) * 12);
	f->group[f->count] = f->group_count - 1;
	f->count += 1;
	return true;
}

bool kl_pose_file_read(const char* path, kl_pose_file* out, char* err, size_t err_size)
{
	memset(out, 0, sizeof(*out));
	FILE* file = fopen(path, "r");
	if (file == NULL)
	{
		snprintf(err, err_size, "cannot open pose file '%s': %s", path, strerror(errno));
		return false;
	}
	char* line = NULL;
	size_t line_size = 0;
	int line_no = 0, capacity = 0;
	bool ok = true;
	while (ok && getline(&line, &line_size, file) >= 0)
	{
		line_no += 1;
		char* hash = strchr(line, '#');
		if (hash != NULL)
		{
			ok = parse_comment(out, hash);
			*hash = '\0';
		}
		double v[16];
		int count;
		char why[128];
		if (!ok)
		{
			snprintf(err, err_size, "out of memory");
		}
		else if (!parse_line(line, v, &count))
		{
			snprintf(err, err_size, "%s:%d: not a finite number", path, line_no);
			ok = false;
		}
		else if (count != 0 && count != 16)
		{
			snprintf(err, err_size, "%s:%d: expected 16 numbers (a row-major 4x4 matrix), found %d", path, line_no,
					 count);
			ok = false;
		}
		else if (count == 16 && !check_pose(v, why, sizeof(why)))
		{
			snprintf(err, err_size, "%s:%d: %s", path, line_no, why);
			ok = false;
		}
		else if (count == 16 && !add_pose(out, v, &capacity))
		{
			snprintf(err, err_size, "out of memory");
			ok = false;
		}
	}
	free(line);
	fclose(file);
	if (ok && out->count == 0)
	{
		snprintf(err, err_size, "%s: no poses", path);
		ok = false;
	}
	if (!ok)
	{
		kl_pose_file_free(out);
	}
	return ok;
}

void kl_pose_file_free(kl_pose_file* f)
{
	free(f->m34);
	free(f->group);
	for (int i = 0; i < f->group_count; ++i)
	{
		free(f->group_names[i]);
	}
	free(f->group_names);
	memset(f, 0, sizeof(*f));
}

static int kl_pair_cmp_double(const void* x, const void* y)
{
	double a = *(const double*)x, b = *(const double*)y;
	return (a > b) - (a < b);
}

void kl_pair_sort(double* v, int n)
{
	qsort(v, (size_t)n, sizeof(double), kl_pair_cmp_double);
}

double kl_pair_median_sorted(const double* v, int n)
{
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void kl_pair_print_group_stats(const char* name, double* us, int n)
{
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
	{
		sum += us[i];
	}
	double mean = sum / n, var = 0.0;
	for (int i = 0; i < n; ++i)
	{
		var += (us[i] - mean) * (us[i] - mean);
	}
	kl_pair_sort(us, n);
	double median = kl_pair_median_sorted(us, n);
	double min = us[0], max = us[n - 1];
	for (int i = 0; i < n; ++i)
	{
		us[i] = fabs(us[i] - median);
	}
	kl_pair_sort(us, n);
	printf("group %s n=%d mean_us=%.3f median_us=%.3f min_us=%.3f max_us=%.3f sd_us=%.3f mad_us=%.3f\n", name, n,
		   mean, median, min, max, n > 1 ? sqrt(var / (n - 1)) : 0.0, kl_pair_median_sorted(us, n));
}
