// Kollide — collision models of meshes for pair queries without a world (include/kollide/collision.h):
// the model (the mesh's BVH or one of its own, and every node's k-DOP in the mesh frame for the
// distance search), poses, scratch memory and the checks and helpers every query shares.
// SPDX-License-Identifier: MIT
#include "collision_internal.h"

#include "tri_tri.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

kl_collision_model_def kl_default_collision_model_def(void)
{
	kl_collision_model_def def;
	memset(&def, 0, sizeof(def));
	def.bvh_width = 8;
	def.bvh_k = 26;
	def.bvh_builder = KL_COLLISION_BVH_BNG;
	def.bvh_fp16 = false;
	return def;
}

/// The BVH build def of a model def; false (recorded) for values no tree takes.
static bool tree_def(const kl_collision_model_def* def, kl_bvh_build_def* out)
{
	static const kl_bvh_builder builders[KL_COLLISION_BVH_BUILDER_COUNT] = {
		KL_BVH_BUILD_BNG, KL_BVH_BUILD_LONGEST_AXIS, KL_BVH_BUILD_MEDIAN, KL_BVH_BUILD_MIDDLE};
	int w = def->bvh_width;
	if (w != 2 && w != 4 && w != 8 && w != 16)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collision model: bvh_width %d (2, 4, 8 or 16)", w);
		return false;
	}
	if (kl_kdop_dirs_get(def->bvh_k) == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collision model: bvh_k %d (6, 14, 18, 26, 32 or 46)", def->bvh_k);
		return false;
	}
	if ((int)def->bvh_builder < 0 || (int)def->bvh_builder >= KL_COLLISION_BVH_BUILDER_COUNT)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "collision model: unknown bvh_builder %d", (int)def->bvh_builder);
		return false;
	}
	*out = kl_bvh_default_build_def();
	out->width = w;
	out->k = def->bvh_k;
	out->builder = builders[def->bvh_builder];
	out->fp16 = def->bvh_fp16;
	return true;
}

/// AABB centre and the bounding radius about it.
static void bound_model(kl_collision_model* m)
{
	const kl_mesh* mesh = m->mesh;
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
	for (int i = 0; i < mesh->info.vertex_count; ++i)
	{
		for (int c = 0; c < 3; ++c)
		{
			lo[c] = fmin(lo[c], mesh->vertices[i].raw[c]);
			hi[c] = fmax(hi[c], mesh->vertices[i].raw[c]);
		}
	}
	for (int c = 0; c < 3; ++c)
	{
		m->center[c] = 0.5 * (lo[c] + hi[c]);
	}
	double r2 = 0.0;
	for (int i = 0; i < mesh->info.vertex_count; ++i)
	{
		double d2 = 0.0;
		for (int c = 0; c < 3; ++c)
		{
			double d = mesh->vertices[i].raw[c] - m->center[c];
			d2 += d * d;
		}
		r2 = fmax(r2, d2);
	}
	m->radius = sqrt(r2);
}

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

static void store_dop(kl_collision_model* m, float* lo, float* hi, const double* dlo, const double* dhi)
{
	for (int i = 0; i < m->tree->axes; ++i)
	{
		lo[i] = round_down(dlo[i]);
		hi[i] = round_up(dhi[i]);
		m->node_abs_max = fmax(m->node_abs_max, fmax(fabs(lo[i]), fabs(hi[i])));
	}
}

/// Every node's and leaf's DOP in the mesh frame, for the distance search's lower bounds.
static bool prepare_nodes(kl_collision_model* m)
{
	double start = kl_time_seconds();
	const kl_bvh* t = m->tree;
	size_t axes = (size_t)t->axes;
	m->inner_lo = kl_alloc(axes * (size_t)t->node_count, sizeof(float));
	m->inner_hi = kl_alloc(axes * (size_t)t->node_count, sizeof(float));
	m->leaf_lo = kl_alloc(axes * (size_t)t->triangle_count, sizeof(float));
	m->leaf_hi = kl_alloc(axes * (size_t)t->triangle_count, sizeof(float));
	if (!m->inner_lo || !m->inner_hi || !m->leaf_lo || !m->leaf_hi)
	{
		return false;
	}
	double lo[KL_KDOP_MAX_AXES], hi[KL_KDOP_MAX_AXES];
	for (size_t i = 0; i < axes; ++i)
	{
		lo[i] = (double)t->root_lo[i] + t->offset[i];
		hi[i] = (double)t->root_hi[i] + t->offset[i];
	}
	store_dop(m, m->inner_lo, m->inner_hi, lo, hi);
	for (int n = 0; n < t->node_count; ++n)
	{
		const int32_t* child = kl_bvh_node_children(t, n);
		int count = kl_bvh_node_count(t, n);
		for (int lane = 0; lane < count; ++lane)
		{
			kl_bvh_child_dop(t, n, lane, lo, hi);
			size_t at = child[lane] >= 0 ? (size_t)child[lane] * axes : (size_t)(-1 - child[lane]) * axes;
			float* dlo = child[lane] >= 0 ? m->inner_lo : m->leaf_lo;
			float* dhi = child[lane] >= 0 ? m->inner_hi : m->leaf_hi;
			store_dop(m, dlo + at, dhi + at, lo, hi);
		}
	}
	m->prepare_seconds = kl_time_seconds() - start;
	return true;
}

kl_collision_model* kl_collision_model_create(kl_mesh* mesh, const kl_collision_model_def* def)
{
	kl_collision_model_def d = def != NULL ? *def : kl_default_collision_model_def();
	kl_bvh_build_def bd;
	if (mesh == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_collision_model_create: null mesh");
		return NULL;
	}
	if (!tree_def(&d, &bd))
	{
		return NULL;
	}
	if (mesh->bvh == NULL || mesh->info.triangle_count < 1)
	{
		kl_fail(KL_ERR_DEGENERATE, "kl_collision_model_create: the mesh has no triangles");
		return NULL;
	}
	kl_collision_model* m = kl_alloc_zero(1, sizeof(kl_collision_model));
	if (m == NULL)
	{
		return NULL;
	}
	m->mesh = kl_mesh_retain(mesh);
	kl_bvh_build_def engine = kl_bvh_default_build_def();
	bool shared =
		bd.width == engine.width && bd.k == engine.k && bd.builder == engine.builder && bd.fp16 == engine.fp16;
	if (shared)
	{
		m->tree = mesh->bvh;
	}
	else
	{
		m->own_tree = kl_bvh_build((const float*)mesh->vertices, mesh->info.vertex_count, (const int*)mesh->indices,
								   mesh->info.triangle_count, &bd);
		m->tree = m->own_tree;
	}
	if (m->tree == NULL || !prepare_nodes(m))
	{
		kl_collision_model_destroy(m);
		return NULL;
	}
	bound_model(m);
	return m;
}

void kl_collision_model_destroy(kl_collision_model* m)
{
	if (m == NULL)
	{
		return;
	}
	kl_free(m->inner_lo);
	kl_free(m->inner_hi);
	kl_free(m->leaf_lo);
	kl_free(m->leaf_hi);
	kl_bvh_destroy(m->own_tree);
	kl_mesh_release(m->mesh);
	kl_free(m);
}

kl_collision_model_info kl_collision_model_get_info(const kl_collision_model* m)
{
	kl_collision_model_info info;
	memset(&info, 0, sizeof(info));
	if (m == NULL)
	{
		return info;
	}
	info.vertex_count = m->mesh->info.vertex_count;
	info.triangle_count = m->mesh->info.triangle_count;
	info.has_pointshell = m->mesh->pointshell != NULL;
	info.shares_mesh_bvh = m->own_tree == NULL;
	info.bvh_width = m->tree->width;
	info.bvh_k = m->tree->dirs->k;
	info.bvh_node_count = m->tree->node_count;
	info.bvh_depth = m->tree->depth;
	info.bvh_build_seconds = m->tree->build_seconds;
	info.prepare_seconds = m->prepare_seconds;
	memcpy(info.center, m->center, sizeof(info.center));
	info.radius = m->radius;
	return info;
}

kl_mesh* kl_collision_model_mesh(const kl_collision_model* m)
{
	return m != NULL ? m->mesh : NULL;
}

// ---------------------------------------------------------------------------------------------
// Poses

kl_collision_pose kl_collision_pose_identity(void)
{
	kl_collision_pose p;
	memset(&p, 0, sizeof(p));
	p.rotation[0][0] = p.rotation[1][1] = p.rotation[2][2] = 1.0;
	return p;
}

kl_collision_pose kl_collision_pose_from_transform(kl_transform xf)
{
	double x = xf.q.x, y = xf.q.y, z = xf.q.z, w = xf.q.w;
	double n = sqrt(x * x + y * y + z * z + w * w);
	kl_collision_pose p = kl_collision_pose_identity();
	if (n > 0.0 && isfinite(n))
	{
		x /= n, y /= n, z /= n, w /= n;
		p.rotation[0][0] = 1 - 2 * (y * y + z * z), p.rotation[0][1] = 2 * (x * y - z * w);
		p.rotation[0][2] = 2 * (x * z + y * w);
		p.rotation[1][0] = 2 * (x * y + z * w), p.rotation[1][1] = 1 - 2 * (x * x + z * z);
		p.rotation[1][2] = 2 * (y * z - x * w);
		p.rotation[2][0] = 2 * (x * z - y * w), p.rotation[2][1] = 2 * (y * z + x * w);
		p.rotation[2][2] = 1 - 2 * (x * x + y * y);
	}
	else
	{
		p.rotation[0][0] = NAN; // a quaternion that names no rotation: kl_collision_pose_check refuses it
	}
	p.translation[0] = xf.p.x, p.translation[1] = xf.p.y, p.translation[2] = xf.p.z;
	return p;
}

kl_result kl_collision_pose_check(const kl_collision_pose* pose)
{
	if (pose == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "null pose");
	}
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			if (!isfinite(pose->rotation[r][c]))
			{
				return kl_fail(KL_ERR_INVALID_ARGUMENT, "pose rotation[%d][%d] is not finite", r, c);
			}
		}
		if (!isfinite(pose->translation[r]))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "pose translation[%d] is not finite", r);
		}
	}
	const double(*m)[3] = pose->rotation;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			double d = 0.0;
			for (int k = 0; k < 3; ++k)
			{
				d += m[k][i] * m[k][j];
			}
			if (!(fabs(d - (i == j ? 1.0 : 0.0)) <= 1e-4))
			{
				return kl_fail(KL_ERR_INVALID_ARGUMENT, "pose rotation is not orthonormal (RᵀR = I within 1e-4)");
			}
		}
	}
	double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
				 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	if (!(det > 0.0))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "pose rotation is a reflection (det < 0)");
	}
	return KL_OK;
}

static bool is_identity(const kl_collision_pose* p)
{
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			if (p->rotation[r][c] != (r == c ? 1.0 : 0.0))
			{
				return false;
			}
		}
		if (p->translation[r] != 0.0)
		{
			return false;
		}
	}
	return true;
}

/// B in A's frame: m = R_Aᵀ R_B, t = R_Aᵀ (t_B − t_A); B's own pose, bit for bit, when A is at the identity.
static void relative_pose(const kl_collision_pose* pa, const kl_collision_pose* pb, kl_rel_pose* out)
{
	if (is_identity(pa))
	{
		memcpy(out->m, pb->rotation, sizeof(out->m));
		memcpy(out->t, pb->translation, sizeof(out->t));
	}
	else
	{
		double d[3];
		for (int k = 0; k < 3; ++k)
		{
			d[k] = pb->translation[k] - pa->translation[k];
		}
		for (int i = 0; i < 3; ++i)
		{
			for (int j = 0; j < 3; ++j)
			{
				out->m[i][j] = pa->rotation[0][i] * pb->rotation[0][j] + pa->rotation[1][i] * pb->rotation[1][j] +
							   pa->rotation[2][i] * pb->rotation[2][j];
			}
			out->t[i] = pa->rotation[0][i] * d[0] + pa->rotation[1][i] * d[1] + pa->rotation[2][i] * d[2];
		}
	}
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			out->inv_m[r][c] = out->m[c][r];
			out->m34[4 * r + c] = (float)out->m[r][c];
		}
		out->m34[4 * r + 3] = (float)out->t[r];
	}
	for (int r = 0; r < 3; ++r)
	{
		out->inv_t[r] = -(out->inv_m[r][0] * out->t[0] + out->inv_m[r][1] * out->t[1] + out->inv_m[r][2] * out->t[2]);
	}
}

vec3s kl_collision_to_world(const kl_collision_call* call, vec3s p)
{
	const kl_collision_pose* w = &call->world_a;
	vec3s out;
	for (int r = 0; r < 3; ++r)
	{
		out.raw[r] = (float)(w->rotation[r][0] * p.x + w->rotation[r][1] * p.y + w->rotation[r][2] * p.z +
							 w->translation[r]);
	}
	return out;
}

vec3s kl_collision_dir_to_world(const kl_collision_call* call, vec3s v)
{
	const kl_collision_pose* w = &call->world_a;
	vec3s out;
	for (int r = 0; r < 3; ++r)
	{
		out.raw[r] = (float)(w->rotation[r][0] * v.x + w->rotation[r][1] * v.y + w->rotation[r][2] * v.z);
	}
	return out;
}

// ---------------------------------------------------------------------------------------------
// Scratch

kl_collision_scratch* kl_collision_scratch_create(void)
{
	return kl_alloc_zero(1, sizeof(kl_collision_scratch));
}

void kl_collision_scratch_destroy(kl_collision_scratch* s)
{
	if (s == NULL)
	{
		return;
	}
	kl_mesh_scratch_free(&s->mesh);
	kl_ps_batch_free(&s->batch);
	kl_free(s->heap);
	kl_free(s->realigned_inner);
	kl_free(s->realigned_leaf);
	kl_free(s->stamp_inner);
	kl_free(s->stamp_leaf);
	kl_free(s->moved_b);
	kl_free(s);
}

// ---------------------------------------------------------------------------------------------
// What every query shares

kl_collision_query_def kl_default_collision_query_def(void)
{
	kl_collision_query_def def;
	memset(&def, 0, sizeof(def));
	def.backend = KL_MESH_BACKEND_BVH;
	return def;
}

static kl_result check_def(const char* what, const kl_collision_query_def* d)
{
	if (d->backend != KL_MESH_BACKEND_BVH && d->backend != KL_MESH_BACKEND_POINTSHELL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: unknown backend %d", what, (int)d->backend);
	}
	if (!(d->margin >= 0.0f) || !isfinite(d->margin))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: margin %g (finite, >= 0)", what, (double)d->margin);
	}
	if (!(d->max_depth >= 0.0f) || !isfinite(d->max_depth))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: max_depth %g (finite, >= 0)", what, (double)d->max_depth);
	}
	if (d->max_manifolds < 0 || d->max_manifolds > KL_COLLISION_MAX_MANIFOLDS)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: max_manifolds %d (0 to %d)", what, d->max_manifolds,
					   KL_COLLISION_MAX_MANIFOLDS);
	}
	return KL_OK;
}

kl_result kl_collision_begin(const char* what, const kl_collision_model* a, const kl_collision_pose* pose_a,
							 const kl_collision_model* b, const kl_collision_pose* pose_b,
							 const kl_collision_query_def* def, kl_collision_scratch* scratch, void* out,
							 kl_collision_call* call)
{
	memset(call, 0, sizeof(*call));
	kl_error_save(&call->saved_error);
	kl_clear_error();
	if (out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: null result", what);
	}
	if (a == NULL || b == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: null model %s", what, a == NULL ? "a" : "b");
	}
	if (pose_a == NULL || pose_b == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: null pose %s", what, pose_a == NULL ? "a" : "b");
	}
	for (int side = 0; side < 2; ++side)
	{
		if (kl_collision_pose_check(side == 0 ? pose_a : pose_b) != KL_OK)
		{
			char why[256];
			snprintf(why, sizeof(why), "%s", kl_last_error());
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: pose %s: %s", what, side == 0 ? "a" : "b", why);
		}
	}
	call->def = def != NULL ? *def : kl_default_collision_query_def();
	kl_result r = check_def(what, &call->def);
	if (r != KL_OK)
	{
		return r;
	}
	if (!call->def.exhaustive && call->def.backend == KL_MESH_BACKEND_POINTSHELL &&
		(a->mesh->pointshell == NULL || b->mesh->pointshell == NULL))
	{
		return kl_fail(KL_ERR_UNSUPPORTED,
					   "%s: point shells asked for, but model %s's mesh was built without build_pointshell", what,
					   a->mesh->pointshell == NULL ? "a" : "b");
	}
	call->a = a;
	call->b = b;
	call->world_a = *pose_a;
	relative_pose(pose_a, pose_b, &call->pose);
	call->traversal = call->def.scalar_traversal ? KL_BVH_TRAVERSE_SCALAR : KL_BVH_TRAVERSE_AUTO;
	call->scratch = scratch;
	if (scratch == NULL)
	{
		call->own_scratch = kl_collision_scratch_create();
		call->scratch = call->own_scratch;
		if (call->scratch == NULL)
		{
			return kl_fail(KL_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
		}
	}
	memset(&call->scratch->counters, 0, sizeof(call->scratch->counters));
	call->scratch->out_of_memory = false;
	return KL_OK;
}

void kl_collision_end(kl_collision_call* call, kl_result result)
{
	kl_collision_scratch_destroy(call->own_scratch);
	call->own_scratch = NULL;
	call->scratch = NULL;
	if (result == KL_OK)
	{
		kl_error_restore(&call->saved_error);
	}
}

kl_result kl_collision_failure(const char* what)
{
	kl_result code = kl_last_error_code();
	return code != KL_OK ? code : kl_fail(KL_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
}

vec3s kl_collision_move_vertex(const kl_collision_model* b, const kl_rel_pose* pose, int i)
{
	vec3s p = b->mesh->vertices[i];
	double x = p.x, y = p.y, z = p.z;
	vec3s out;
	out.x = (float)(pose->m[0][0] * x + pose->m[0][1] * y + pose->m[0][2] * z + pose->t[0]);
	out.y = (float)(pose->m[1][0] * x + pose->m[1][1] * y + pose->m[1][2] * z + pose->t[1]);
	out.z = (float)(pose->m[2][0] * x + pose->m[2][1] * y + pose->m[2][2] * z + pose->t[2]);
	return out;
}

void kl_collision_triangle_a(const kl_collision_model* a, int tri, vec3s out[3])
{
	for (int j = 0; j < 3; ++j)
	{
		out[j] = a->mesh->vertices[a->mesh->indices[3 * tri + j]];
	}
}

void kl_collision_triangle_b(const kl_collision_model* b, const kl_rel_pose* pose, int tri, vec3s out[3])
{
	for (int j = 0; j < 3; ++j)
	{
		out[j] = kl_collision_move_vertex(b, pose, b->mesh->indices[3 * tri + j]);
	}
}

void kl_collision_triangle_moved(const kl_collision_model* b, const vec3s* moved, int tri, vec3s out[3])
{
	for (int j = 0; j < 3; ++j)
	{
		out[j] = moved[b->mesh->indices[3 * tri + j]];
	}
}

bool kl_collision_move_all(const kl_collision_call* call)
{
	kl_collision_scratch* s = call->scratch;
	int n = call->b->mesh->info.vertex_count;
	if (s->moved_capacity < n)
	{
		kl_free(s->moved_b);
		s->moved_b = kl_alloc((size_t)n, sizeof(vec3s));
		s->moved_capacity = s->moved_b != NULL ? n : 0;
		if (s->moved_b == NULL)
		{
			return false;
		}
	}
	for (int i = 0; i < n; ++i)
	{
		s->moved_b[i] = kl_collision_move_vertex(call->b, &call->pose, i);
	}
	return true;
}

void kl_collision_add_bvh_counters(kl_collision_scratch* s, const kl_bvh_result* result)
{
	s->counters.bv_tests += result->counters.bv_tests;
	s->counters.candidate_pairs += result->counters.leaf_tests;
	s->counters.triangle_tests += result->counters.leaf_tests;
}

bool kl_collision_pointshell_search(const kl_collision_call* call, float alarm)
{
	const kl_rel_pose* p = &call->pose;
	kl_ps_pair_query q;
	memset(&q, 0, sizeof(q));
	q.a.model = call->a->mesh->pointshell;
	q.b.model = call->b->mesh->pointshell;
	q.a.min_scale = q.a.max_scale = q.b.min_scale = q.b.max_scale = 1.0f;
	q.a.xf.m[0] = q.a.xf.m[5] = q.a.xf.m[10] = 1.0f; // A at [I | 0]: the queries work in its frame
	memcpy(q.b.xf.m, p->m34, sizeof(q.b.xf.m));
	// The search places B by the float pose, the exact tests by the double one: a slack well above
	// their difference (float rounding of coordinates this large) keeps every pair within the alarm.
	double t = sqrt(p->t[0] * p->t[0] + p->t[1] * p->t[1] + p->t[2] * p->t[2]);
	q.margin = (float)((double)alarm + 1e-6 * (call->a->tree->point_radius + call->b->tree->point_radius + t));
	kl_ps_stats stats;
	memset(&stats, 0, sizeof(stats));
	kl_collision_scratch* s = call->scratch;
	if (kl_ps_search_cpu(&q, 1, false, NULL, 1, &s->batch, &stats) != KL_OK)
	{
		return false;
	}
	s->counters.bv_tests += stats.cong_pairs;
	s->counters.candidate_pairs += s->batch.key_count;
	s->counters.pointshell_searches += 1;
	return true;
}

typedef struct first_hit_context
{
	const kl_collision_call* call;
	int tri_a;
	int tri_b;
} first_hit_context;

static bool leaf_overlap(int tri_a, int tri_b, void* ctx)
{
	first_hit_context* c = ctx;
	vec3s ta[3], tb[3];
	kl_collision_triangle_a(c->call->a, tri_a, ta);
	kl_collision_triangle_b(c->call->b, &c->call->pose, tri_b, tb);
	if (!kl_tri_tri_overlap(ta, tb))
	{
		return false;
	}
	c->tri_a = tri_a;
	c->tri_b = tri_b;
	return true;
}

bool kl_collision_first_hit(const kl_collision_call* call, int* tri_a, int* tri_b, bool* failed)
{
	kl_collision_scratch* s = call->scratch;
	*tri_a = *tri_b = -1;
	*failed = false;
	const kl_collision_model* a = call->a;
	const kl_collision_model* b = call->b;
	if (call->def.exhaustive)
	{
		if (!kl_collision_move_all(call))
		{
			*failed = true;
			kl_fail(KL_ERR_OUT_OF_MEMORY, "collision query: out of memory");
			return false;
		}
		int na = a->mesh->info.triangle_count, nb = b->mesh->info.triangle_count;
		s->counters.candidate_pairs += (int64_t)na * nb;
		for (int i = 0; i < na; ++i)
		{
			vec3s ta[3], tb[3];
			kl_collision_triangle_a(a, i, ta);
			for (int j = 0; j < nb; ++j)
			{
				kl_collision_triangle_moved(b, s->moved_b, j, tb);
				s->counters.triangle_tests += 1;
				if (kl_tri_tri_overlap(ta, tb))
				{
					*tri_a = i, *tri_b = j;
					return true;
				}
			}
		}
		return false;
	}
	if (call->def.backend == KL_MESH_BACKEND_POINTSHELL)
	{
		if (!kl_collision_pointshell_search(call, 0.0f))
		{
			*failed = true;
			return false;
		}
		// The keys come sorted (A's triangle, then B's): the first pair that overlaps is the lowest.
		for (uint32_t k = 0; k < s->batch.key_count; ++k)
		{
			int i = kl_ps_key_tri_a(s->batch.keys[k]), j = kl_ps_key_tri_b(s->batch.keys[k]);
			vec3s ta[3], tb[3];
			kl_collision_triangle_a(a, i, ta);
			kl_collision_triangle_b(b, &call->pose, j, tb);
			s->counters.triangle_tests += 1;
			if (kl_tri_tri_overlap(ta, tb))
			{
				*tri_a = i, *tri_b = j;
				return true;
			}
		}
		return false;
	}
	first_hit_context ctx = {call, -1, -1};
	kl_bvh_query query = {KL_BVH_FIRST_HIT, call->traversal, 0.0f, leaf_overlap, &ctx, NULL, 0};
	kl_bvh_result result;
	if (kl_bvh_collide_m34(a->tree, b->tree, call->pose.m34, &query, &result) != KL_OK)
	{
		*failed = true;
		return false;
	}
	kl_collision_add_bvh_counters(s, &result);
	*tri_a = ctx.tri_a, *tri_b = ctx.tri_b;
	return result.hit;
}
