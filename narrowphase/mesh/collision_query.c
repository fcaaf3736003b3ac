// Kollide — the boolean and contact queries of two collision models (include/kollide/collision.h):
// candidate triangle pairs from the BVH traversal, the point-shell search or every pair, then the exact
// overlap test, or the engine's mesh contacts and minimal contact sets.
// SPDX-License-Identifier: MIT
#include "collision_internal.h"

#include <math.h>
#include <string.h>

kl_result kl_collision_test(const kl_collision_model* a, const kl_collision_pose* pose_a, const kl_collision_model* b,
							const kl_collision_pose* pose_b, const kl_collision_query_def* def,
							kl_collision_scratch* scratch, kl_collision_test_result* out)
{
	static const char what[] = "kl_collision_test";
	if (out != NULL)
	{
		memset(out, 0, sizeof(*out));
		out->triangle_a = out->triangle_b = -1;
	}
	kl_collision_call call;
	kl_result r = kl_collision_begin(what, a, pose_a, b, pose_b, def, scratch, out, &call);
	if (r == KL_OK)
	{
		bool failed;
		out->hit = kl_collision_first_hit(&call, &out->triangle_a, &out->triangle_b, &failed);
		out->counters = call.scratch->counters;
		if (failed)
		{
			r = kl_collision_failure(what);
			memset(out, 0, sizeof(*out));
			out->triangle_a = out->triangle_b = -1;
		}
	}
	kl_collision_end(&call, r);
	return r;
}

// ---------------------------------------------------------------------------------------------
// Contacts

static bool leaf_pair(int tri_a, int tri_b, void* ctx)
{
	kl_collision_scratch* s = ctx;
	s->out_of_memory = s->out_of_memory || !kl_mesh_scratch_push_pair(&s->mesh, tri_a, tri_b);
	return !s->out_of_memory;
}

/// The candidate pairs within `margin` into scratch->mesh.pairs; false on failure.
static bool contact_candidates(const kl_collision_call* call, float margin)
{
	kl_collision_scratch* s = call->scratch;
	int na = call->a->mesh->info.triangle_count, nb = call->b->mesh->info.triangle_count;
	s->mesh.pair_count = 0;
	if (call->def.exhaustive)
	{
		for (int i = 0; i < na; ++i)
		{
			for (int j = 0; j < nb && leaf_pair(i, j, s); ++j)
			{
			}
		}
		s->counters.candidate_pairs = (int64_t)na * nb;
		s->counters.triangle_tests = (int64_t)na * nb;
		return !s->out_of_memory;
	}
	if (call->def.backend == KL_MESH_BACKEND_POINTSHELL)
	{
		if (!kl_collision_pointshell_search(call, margin))
		{
			return false;
		}
		for (uint32_t k = 0; k < s->batch.key_count; ++k)
		{
			if (!leaf_pair(kl_ps_key_tri_a(s->batch.keys[k]), kl_ps_key_tri_b(s->batch.keys[k]), s))
			{
				return false;
			}
		}
		s->counters.triangle_tests += s->batch.key_count;
		return true;
	}
	kl_bvh_query query = {KL_BVH_ALL_PAIRS, call->traversal, margin, leaf_pair, s, NULL, 0};
	kl_bvh_result result;
	if (kl_bvh_collide_m34(call->a->tree, call->b->tree, call->pose.m34, &query, &result) != KL_OK)
	{
		return false;
	}
	kl_collision_add_bvh_counters(s, &result);
	return !s->out_of_memory;
}

/// The engine's view of a model: A at the identity of its own frame, B at the relative pose (pose NULL
/// for A). B's rotation is rigid (kl_collision_pose_check), so its quaternion holds it.
static kl_triangle_set model_set(const kl_collision_model* m, const kl_rel_pose* pose)
{
	kl_triangle_set set;
	memset(&set, 0, sizeof(set));
	set.bvh = m->tree;
	set.vertices = m->mesh->vertices;
	set.vertex_count = m->mesh->info.vertex_count;
	set.indices = m->mesh->indices;
	set.opposite = m->mesh->opposite;
	set.vertex_normals = m->mesh->vertex_normals;
	set.vertex_cone_cos = m->mesh->vertex_cone_cos;
	set.scale = kl_vec3(1.0f, 1.0f, 1.0f);
	set.xf = kl_transform_identity();
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

/// The manifolds (in A's frame) into out, in the world.
static void store_manifolds(const kl_collision_call* call, const kl_manifold* manifolds, int count,
							kl_collision_contact_result* out)
{
	out->manifold_count = count;
	for (int m = 0; m < count; ++m)
	{
		kl_collision_manifold* dst = out->manifolds + m;
		dst->normal = kl_collision_dir_to_world(call, manifolds[m].normal);
		dst->point_count = manifolds[m].point_count;
		for (int p = 0; p < manifolds[m].point_count; ++p)
		{
			const kl_manifold_point* src = manifolds[m].points + p;
			dst->points[p].point = kl_collision_to_world(call, src->point);
			dst->points[p].separation = src->separation;
			dst->points[p].id = src->id;
			out->point_count += 1;
			out->depth = fmaxf(out->depth, -src->separation);
		}
	}
}

kl_result kl_collision_contacts(const kl_collision_model* a, const kl_collision_pose* pose_a,
								const kl_collision_model* b, const kl_collision_pose* pose_b,
								const kl_collision_query_def* def, kl_collision_scratch* scratch,
								kl_collision_contact_result* out)
{
	static const char what[] = "kl_collision_contacts";
	if (out != NULL)
	{
		memset(out, 0, sizeof(*out));
	}
	kl_collision_call call;
	kl_result r = kl_collision_begin(what, a, pose_a, b, pose_b, def, scratch, out, &call);
	if (r != KL_OK)
	{
		kl_collision_end(&call, r);
		return r;
	}
	kl_collision_scratch* s = call.scratch;
	kl_tri_contact_config config = kl_tri_contact_config_default();
	config.margin = call.def.margin;
	// Deeper than a tenth of A's radius is a pass-through, not a contact (the default 0.1 m assumes
	// bodies of a metre or so).
	config.max_depth = call.def.max_depth > 0.0f ? call.def.max_depth : (float)(0.1 * a->radius);
	// The candidates are every pair within the margin or max_depth, whichever is larger: a vertex as
	// deep as a contact may go then finds its nearest surface among them, so the contacts are those of
	// every triangle pair whatever the backend. A hair more keeps pairs at exactly that distance from
	// being lost to rounding; the contacts decide.
	float search = fmaxf(config.margin, config.max_depth) + (float)(1e-6 * a->radius);
	bool ok = contact_candidates(&call, search);
	int count = 0;
	if (ok)
	{
		kl_triangle_set sa = model_set(a, NULL), sb = model_set(b, &call.pose);
		count = kl_mesh_pair_contacts(&sa, &sb, s->mesh.pairs, s->mesh.pair_count, &config, NULL, &s->mesh);
		ok = count >= 0;
	}
	if (ok && count > 0)
	{
		kl_manifold manifolds[KL_COLLISION_MAX_MANIFOLDS];
		int max = call.def.max_manifolds > 0 ? call.def.max_manifolds : KL_COLLISION_ENGINE_MANIFOLDS;
		int m_count = kl_mesh_scratch_patches(&s->mesh, count, NULL, manifolds, max);
		ok = s->mesh.point_capacity >= 3 * count + 2; // else the patches had no memory
		store_manifolds(&call, manifolds, ok ? m_count : 0, out);
		out->raw_contact_count = count;
	}
	out->counters = s->counters;
	if (!ok)
	{
		r = kl_collision_failure(what);
		memset(out, 0, sizeof(*out));
	}
	kl_collision_end(&call, r);
	return r;
}
