// Kollide tests — the point-shell backend (narrowphase/pointshell*.{h,c}): the model (conglomerates,
// masks, coverage, octrees), completeness of the candidate search against an exhaustive reference
// on random poses, and bad input. The GPU's search (test_pointshell_gpu.c), the cache file
// (test_pointshell_cache.c) and the backend in the world (test_pointshell_world.c) have their own.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "../tools/meshgen/meshgen.h"
#include "dvec3.h"
#include "kl_pointshell_test.h"
#include "mesh.h"
#include "pointshell.h"
#include "tri_adjacency.h"
#include "thread_pool.h"
#include "tri_tri.h"
#include "world.h"

#include <kollide/kollide.h>

#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// The model

/// A leaf's entries are the triangles of its points, each once, with that triangle's coverage, and
/// every point lies in its triangle's sphere; inner nodes have none.
static void check_entries(const kl_pointshell* m, const kl_ps_node* node)
{
	assert_true(node->entry_begin <= node->entry_end && node->entry_end <= m->entry_count);
	if (node->child_count > 0)
	{
		assert_int_equal(node->entry_end, node->entry_begin);
		return;
	}
	for (uint32_t e = node->entry_begin; e < node->entry_end; ++e)
	{
		const kl_ps_entry* entry = m->entries + e;
		assert_true(entry->coverage == m->tri_coverage[entry->tri]);
		bool has_point = false;
		for (uint32_t f = node->entry_begin; f < e; ++f)
		{
			assert_int_not_equal(m->entries[f].tri, entry->tri);
		}
		for (uint32_t i = node->begin; i < node->end; ++i)
		{
			has_point = has_point || m->points[i].tri == entry->tri;
		}
		assert_true(has_point);
	}
	for (uint32_t i = node->begin; i < node->end; ++i)
	{
		const kl_ps_entry* entry = NULL;
		for (uint32_t e = node->entry_begin; e < node->entry_end; ++e)
		{
			entry = m->entries[e].tri == m->points[i].tri ? m->entries + e : entry;
		}
		assert_non_null(entry);
		kl_ps_f3 d = {m->points[i].x - entry->center.x, m->points[i].y - entry->center.y,
					  m->points[i].z - entry->center.z};
		assert_true(kl_ps_dot(d, d) <= entry->radius * entry->radius);
	}
}

/// Appends node n's subtree to order, depth first, children in order.
static void preorder(const kl_pointshell* m, int32_t n, int32_t* order, int* count)
{
	order[(*count)++] = n;
	for (int k = 0; k < m->nodes[n].child_count; ++k)
	{
		preorder(m, m->nodes[n].first_child + k, order, count);
	}
}

/// Walking by the skip links and always descending visits the conglomerate's nodes once each, in
/// the depth-first order, and ends at -1: the links are what a stack would give.
static void check_skip_links(const kl_pointshell* m, const kl_ps_conglomerate* c)
{
	int32_t* order = malloc((size_t)c->node_count * sizeof(int32_t));
	assert_non_null(order);
	int count = 0;
	preorder(m, c->node_begin, order, &count);
	assert_int_equal(count, c->node_count);
	int visited = 0;
	for (int32_t n = c->node_begin; n >= 0;)
	{
		assert_true(visited < count);
		assert_int_equal(n, order[visited++]);
		n = m->nodes[n].child_count > 0 ? m->nodes[n].first_child : m->nodes[n].skip;
	}
	assert_int_equal(visited, count);
	free(order);
}

/// Every triangle in exactly one conglomerate of at most 64; octree points are the conglomerate's
/// triangles'; every node's points lie in its box; a leaf holds at most a bucket unless at depth 10,
/// and lists its triangles (check_entries); the skip links walk the tree (check_skip_links).
static void check_model_capped(const kl_pointshell* m, int cap)
{
	char* seen = calloc((size_t)m->triangle_count, 1);
	assert_non_null(seen);
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		assert_true(c->tri_count >= 1 && c->tri_count <= cap);
		for (int i = 0; i < c->tri_count; ++i)
		{
			int32_t t = m->tris[c->tri_begin + i];
			assert_int_equal(seen[t], 0);
			seen[t] = 1;
		}
		check_skip_links(m, c);
		for (int n = c->node_begin; n < c->node_begin + c->node_count; ++n)
		{
			const kl_ps_node* node = m->nodes + n;
			assert_true(node->begin >= c->point_begin && node->end <= c->point_begin + c->point_count);
			if (node->child_count == 0)
			{
				assert_true(node->end - node->begin <= (uint32_t)m->leaf_bucket || node->depth == KL_PS_MAX_DEPTH);
			}
			check_entries(m, node);
			for (uint32_t i = node->begin; i < node->end; ++i)
			{
				kl_ps_f3 p = {m->points[i].x, m->points[i].y, m->points[i].z};
				// Points on a cell's upper face belong to the next cell: allow that much.
				assert_true(kl_ps_node_distance2(c, node, p) <= 1e-12f * c->root_edge * c->root_edge);
			}
		}
	}
	for (int t = 0; t < m->triangle_count; ++t)
	{
		assert_int_equal(seen[t], 1);
	}
	free(seen);
}

static void check_model(const kl_pointshell* m)
{
	check_model_capped(m, 64);
}

/// How far point x lies from the nearest of triangle t's samples (the kernels' sampler).
static float nearest_sample_distance(const kl_ps_f3 t[3], const kl_ps_mask* mask, kl_ps_f3 x)
{
	kl_ps_sampler it;
	kl_ps_sampler_init(&it, t, mask);
	float best = 1e30f;
	kl_ps_f3 s;
	while (kl_ps_sampler_next(&it, &s))
	{
		kl_ps_f3 d = kl_ps_sub(s, x);
		best = fminf(best, sqrtf(kl_ps_dot(d, d)));
	}
	return best;
}

/// The coverage bound the completeness rests on: random points of every triangle lie within its
/// conglomerate's coverage of one of the triangle's own samples.
static void check_coverage(const kl_pointshell* m, uint32_t seed)
{
	kl_ps_model_view v = kl_pointshell_view(m);
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		for (int i = 0; i < c->tri_count; ++i)
		{
			int32_t tri = m->tris[c->tri_begin + i];
			kl_ps_f3 t[3];
			kl_ps_triangle(&v, tri, t);
			for (int k = 0; k < 20; ++k)
			{
				seed = seed * 1664525u + 1013904223u;
				float r1 = (float)(seed >> 8) / 16777216.0f;
				seed = seed * 1664525u + 1013904223u;
				float r2 = (float)(seed >> 8) / 16777216.0f;
				if (r1 + r2 > 1.0f)
				{
					r1 = 1.0f - r1;
					r2 = 1.0f - r2;
				}
				kl_ps_f3 x = kl_ps_add(t[0], kl_ps_add(kl_ps_scale(kl_ps_sub(t[1], t[0]), r1),
													   kl_ps_scale(kl_ps_sub(t[2], t[0]), r2)));
				float best = nearest_sample_distance(t, m->masks + tri, x);
				assert_true(best <= m->tri_coverage[tri] && m->tri_coverage[tri] <= c->coverage);
			}
		}
	}
}

/// The coverage bound on a dense lattice of every triangle (its vertices and edges included): it
/// holds at every lattice point, and it is tight, within half a grid cell of the farthest lattice
/// point's distance (the proof's bound, diagonal plus half an edge spacing, runs about twice that).
static void check_coverage_dense(const kl_pointshell* m)
{
	kl_ps_model_view v = kl_pointshell_view(m);
	const int lattice = 24;
	int tight = 0;
	for (int tri = 0; tri < m->triangle_count; ++tri)
	{
		kl_ps_f3 t[3];
		kl_ps_triangle(&v, tri, t);
		float farthest = 0.0f;
		for (int a = 0; a <= lattice; ++a)
		{
			for (int b = 0; a + b <= lattice; ++b)
			{
				float r1 = (float)a / (float)lattice, r2 = (float)b / (float)lattice;
				kl_ps_f3 x = kl_ps_add(t[0], kl_ps_add(kl_ps_scale(kl_ps_sub(t[1], t[0]), r1),
													   kl_ps_scale(kl_ps_sub(t[2], t[0]), r2)));
				float best = nearest_sample_distance(t, m->masks + tri, x);
				assert_true(best <= m->tri_coverage[tri]);
				farthest = fmaxf(farthest, best);
			}
		}
		float cell = fmaxf(m->masks[tri].cell[0], m->masks[tri].cell[1]);
		tight += m->tri_coverage[tri] <= farthest + 0.5f * cell;
	}
	assert_int_equal(tight, m->triangle_count);
}

static void test_model(void** state)
{
	(void)state;
	test_mesh gear, knot;
	make_gear(&gear);
	make_knot(&knot, 96);
	const kl_pointshell* models[2] = {gear.model, knot.model};
	for (int i = 0; i < 2; ++i)
	{
		const kl_pointshell* m = models[i];
		check_model(m);
		check_coverage(m, 7u + (uint32_t)i);
		check_coverage_dense(m);
		kl_pointshell_memory mem = kl_pointshell_memory_of(m);
		assert_int_equal(mem.shells, 40 * (size_t)m->triangle_count);
		printf("  %d triangles: %d conglomerates, %u samples (%.1f per triangle), %d nodes, spacing %.2f mm, "
			   "coverage %.2f mm; %.1f B/triangle shells, %.1f B/triangle octrees\n",
			   m->triangle_count, m->cong_count, m->point_count, (double)m->point_count / m->triangle_count,
			   m->node_count, 1e3 * m->spacing, 1e3 * m->coverage, (double)mem.shells / m->triangle_count,
			   (double)mem.octrees / m->triangle_count);
	}
	free_mesh(&gear);
	free_mesh(&knot);
}

// ---------------------------------------------------------------------------------------------
// Completeness

static float bounding_radius(const kl_meshgen_mesh* m)
{
	float r = 0.0f;
	for (int i = 0; i < m->vertex_count; ++i)
	{
		r = fmaxf(r, glms_vec3_norm(m->vertices[i]));
	}
	return r;
}

static void world_triangle(const kl_meshgen_mesh* m, int tri, kl_transform xf, vec3s scale, vec3s out[3])
{
	for (int k = 0; k < 3; ++k)
	{
		vec3s v = m->vertices[m->indices[3 * tri + k]];
		out[k] = kl_transform_point(xf, kl_vec3(v.x * scale.x, v.y * scale.y, v.z * scale.z));
	}
}

static int compare_u64(const void* a, const void* b)
{
	uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return (x > y) - (x < y);
}

/// Runs the search on random poses of b around a and checks every triangle pair that overlaps, or
/// lies within the margin, against all pairs. Returns the number of such pairs over all poses.
static long check_poses(const test_mesh* a, const test_mesh* b, vec3s scale_b, int poses, float margin, uint32_t seed,
						kl_thread_pool* pool)
{
	float reach = bounding_radius(&a->mesh) + bounding_radius(&b->mesh) * fmaxf(scale_b.x, fmaxf(scale_b.y, scale_b.z));
	kl_ps_batch batch;
	memset(&batch, 0, sizeof(batch));
	long total = 0;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	for (int p = 0; p < poses; ++p)
	{
		kl_transform xf = random_pose(&seed, reach * (0.15f + 0.6f * random_unit(&seed)));
		kl_ps_pair_query q;
		q.a = kl_ps_body_make(a->model, ident, kl_vec3(1.0f, 1.0f, 1.0f));
		q.b = kl_ps_body_make(b->model, xf, scale_b);
		q.margin = margin;
		kl_ps_stats stats;
		assert_int_equal(kl_ps_search_cpu(&q, 1, false, pool, 2, &batch, &stats), KL_OK);
		int found = 0, missed = 0;
		for (int i = 0; i < a->mesh.triangle_count; ++i)
		{
			vec3s ta[3];
			world_triangle(&a->mesh, i, ident, kl_vec3(1.0f, 1.0f, 1.0f), ta);
			for (int j = 0; j < b->mesh.triangle_count; ++j)
			{
				vec3s tb[3];
				world_triangle(&b->mesh, j, xf, scale_b, tb);
				kl_tri_distance d = kl_tri_tri_distance(ta, tb);
				// Pairs on the margin's edge are left to float rounding either way.
				if (!d.overlap && d.distance > 0.999f * margin)
				{
					continue;
				}
				++found;
				uint64_t key = kl_ps_key(0, i, j);
				if (bsearch(&key, batch.keys, batch.key_count, sizeof(uint64_t), compare_u64) == NULL)
				{
					if (missed++ < 5)
					{
						printf("  pose %d: missed pair (%d, %d), distance %.3g, overlap %d\n", p, i, j,
							   (double)d.distance, d.overlap);
					}
				}
			}
		}
		assert_int_equal(missed, 0);
		// Every reported pair is within the alarm distance (the triangle stage's tolerance aside).
		for (uint32_t k = 0; k < batch.key_count; ++k)
		{
			vec3s ta[3], tb[3];
			world_triangle(&a->mesh, kl_ps_key_tri_a(batch.keys[k]), ident, kl_vec3(1.0f, 1.0f, 1.0f), ta);
			world_triangle(&b->mesh, kl_ps_key_tri_b(batch.keys[k]), xf, scale_b, tb);
			assert_true(kl_tri_tri_distance(ta, tb).distance <= margin * 1.01f + 1e-6f);
		}
		total += found;
	}
	kl_ps_batch_free(&batch);
	return total;
}

static void test_complete_gears(void** state)
{
	(void)state;
	test_mesh a, b;
	make_gear(&a);
	make_gear(&b);
	kl_thread_pool* pool = kl_thread_pool_create(2);
	int poses = KL_QUICK ? 8 : 24;
	long pairs = check_poses(&a, &b, kl_vec3(1.0f, 1.0f, 1.0f), poses, 0.002f, 11u, pool);
	printf("  gears: %ld overlapping or near triangle pairs over %d poses, none missed\n", pairs, poses);
	assert_true(pairs > (KL_QUICK ? 30 : 100)); // the poses do touch
	kl_thread_pool_destroy(pool);
	free_mesh(&a);
	free_mesh(&b);
}

static void test_complete_knot_scaled(void** state)
{
	(void)state;
	test_mesh a, b;
	make_knot(&a, 64);
	make_gear(&b);
	int poses = KL_QUICK ? 6 : 16;
	long pairs = check_poses(&a, &b, kl_vec3(1.5f, 0.7f, 2.0f), poses, 0.004f, 23u, NULL);
	printf("  knot and unevenly scaled gear: %ld pairs over %d poses, none missed\n", pairs, poses);
	assert_true(pairs > (KL_QUICK ? 15 : 50));
	free_mesh(&a);
	free_mesh(&b);
}

/// A wavy fan of slivers: a centre and a ring of `count` vertices 0.1 away, every other gap between
/// ring vertices 1e-5 rad wide, so that half the triangles are 1e-6 as high as long and the rest 1e-2.
static void make_sliver_fan(test_mesh* m, int count)
{
	memset(&m->mesh, 0, sizeof(m->mesh));
	m->mesh.vertex_count = count + 1;
	m->mesh.triangle_count = count;
	m->mesh.vertices = calloc((size_t)count + 1, sizeof(vec3s));
	m->mesh.indices = calloc(3 * (size_t)count, sizeof(int32_t));
	assert_true(m->mesh.vertices != NULL && m->mesh.indices != NULL);
	m->mesh.vertices[0] = kl_vec3(0.0f, 0.0f, 0.0f);
	double wide = 2.0 * 3.14159265358979 / (count / 2) - 1e-5, angle = 0.0;
	for (int i = 0; i < count; ++i)
	{
		m->mesh.vertices[i + 1] = kl_vec3((float)(0.1 * cos(angle)), (float)(0.1 * sin(angle)), (float)(0.004 * sin(5.0 * angle)));
		angle += i % 2 == 0 ? 1e-5 : wide;
		m->mesh.indices[3 * i] = 0;
		m->mesh.indices[3 * i + 1] = i + 1;
		m->mesh.indices[3 * i + 2] = (i + 1) % count + 1;
	}
	m->model = kl_pointshell_build(m->mesh.vertices, m->mesh.vertex_count, m->mesh.indices, m->mesh.triangle_count,
								   NULL, NULL, NULL);
	assert_non_null(m->model);
}

/// The candidates of one direction of a search alone (works with swap == `swap`), sorted: each
/// direction must find every pair by itself (the completeness argument holds per direction).
static uint32_t one_direction_keys(const kl_ps_pair_query* q, int swap, uint64_t** keys)
{
	kl_ps_batch plan;
	memset(&plan, 0, sizeof(plan));
	kl_ps_stats stats;
	memset(&stats, 0, sizeof(stats));
	assert_int_equal(kl_ps_plan(q, 1, false, &plan, &stats), KL_OK);
	kl_ps_model_view views[2];
	for (int i = 0; i < plan.model_count; ++i)
	{
		views[i] = kl_pointshell_view(plan.models[i]);
	}
	uint32_t count = 0, capacity = 1u << 22;
	*keys = malloc(capacity * sizeof(uint64_t));
	assert_non_null(*keys);
	kl_ps_emitter out = {*keys, &count, capacity, NULL, 0u, NULL};
	for (int w = 0; w < plan.work_count; ++w)
	{
		const kl_ps_work* work = plan.works + w;
		const kl_ps_model_view* p = views + work->p_model;
		const kl_ps_conglomerate* c = p->congs + work->p_cong;
		for (int i = 0; work->swap == swap && i < c->tri_count; ++i)
		{
			kl_ps_query_triangle(p, views + work->q_model, work, p->tris[c->tri_begin + i], &out);
		}
	}
	assert_true(count <= capacity);
	qsort(*keys, count, sizeof(uint64_t), compare_u64);
	kl_ps_batch_free(&plan);
	return count;
}

/// Each direction alone finds every pair of two fans of slivers within the margin: the
/// completeness argument holds per direction, thin triangles included (the float hole the review
/// found in the sample-to-triangle test is checked directly by test_point_near_triangle: these fans'
/// samples are dense enough that this test passes without that fix).
static void test_complete_slivers_each_direction(void** state)
{
	(void)state;
	test_mesh a, b;
	make_sliver_fan(&a, 400);
	make_sliver_fan(&b, 400);
	uint32_t seed = 29u;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	long near = 0;
	for (int pose = 0; pose < (KL_QUICK ? 3 : 8); ++pose)
	{
		kl_transform xf = random_pose(&seed, 0.02f * random_unit(&seed));
		kl_ps_pair_query q;
		q.a = kl_ps_body_make(a.model, ident, kl_vec3(1.0f, 1.0f, 1.0f));
		q.b = kl_ps_body_make(b.model, xf, kl_vec3(1.0f, 1.0f, 1.0f));
		q.margin = 0.002f;
		uint64_t* keys[2];
		uint32_t counts[2] = {one_direction_keys(&q, 0, keys), one_direction_keys(&q, 1, keys + 1)};
		for (int i = 0; i < a.mesh.triangle_count; ++i)
		{
			vec3s ta[3];
			world_triangle(&a.mesh, i, ident, kl_vec3(1.0f, 1.0f, 1.0f), ta);
			for (int j = 0; j < b.mesh.triangle_count; ++j)
			{
				vec3s tb[3];
				world_triangle(&b.mesh, j, xf, kl_vec3(1.0f, 1.0f, 1.0f), tb);
				kl_tri_distance d = kl_tri_tri_distance(ta, tb);
				if (!d.overlap && d.distance > 0.999f * q.margin)
				{
					continue;
				}
				++near;
				uint64_t key = kl_ps_key(0, i, j);
				for (int dir = 0; dir < 2; ++dir)
				{
					if (bsearch(&key, keys[dir], counts[dir], sizeof(uint64_t), compare_u64) == NULL)
					{
						printf("  pose %d, direction %d: missed (%d, %d) at %.3g\n", pose, dir, i, j, (double)d.distance);
						fail();
					}
				}
			}
		}
		free(keys[0]);
		free(keys[1]);
	}
	printf("  sliver fans: %ld pairs within the margin, each found by both directions alone\n", near);
	assert_true(near > 100);
	free_mesh(&a);
	free_mesh(&b);
}

/// How far the triangle normals of a model's conglomerates spread: the mean over conglomerates of
/// 1 - |sum of area-weighted normals| / sum of areas (0 for flat ones, up to 1).
static double normal_spread(const kl_pointshell* m)
{
	kl_ps_model_view v = kl_pointshell_view(m);
	double spread = 0.0;
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		kl_ps_f3 sum = kl_ps_make(0.0f, 0.0f, 0.0f);
		double area = 0.0;
		for (int i = 0; i < c->tri_count; ++i)
		{
			kl_ps_f3 t[3];
			kl_ps_triangle(&v, m->tris[c->tri_begin + i], t);
			kl_ps_f3 n = kl_ps_cross(kl_ps_sub(t[1], t[0]), kl_ps_sub(t[2], t[0]));
			sum = kl_ps_add(sum, n);
			area += sqrt((double)kl_ps_dot(n, n));
		}
		spread += 1.0 - sqrt((double)kl_ps_dot(sum, sum)) / area;
	}
	return spread / m->cong_count;
}

/// Whether the triangles of every conglomerate are connected across shared edges.
static bool conglomerates_connected(const kl_pointshell* m, const kl_meshgen_mesh* mesh)
{
	int n = m->triangle_count;
	int32_t* neighbour = malloc(sizeof(int32_t) * 3 * (size_t)n);
	int32_t* group = malloc(sizeof(int32_t) * (size_t)n);
	int32_t* stack = malloc(sizeof(int32_t) * (size_t)n);
	assert_true(neighbour != NULL && group != NULL && stack != NULL);
	assert_int_equal(kl_triangle_neighbours(mesh->indices, n, neighbour), KL_OK);
	for (int g = 0; g < m->cong_count; ++g)
	{
		for (int i = 0; i < m->congs[g].tri_count; ++i)
		{
			group[m->tris[m->congs[g].tri_begin + i]] = g;
		}
	}
	bool connected = true;
	for (int g = 0; g < m->cong_count && connected; ++g)
	{
		// Walk from the first triangle within the conglomerate; count what is reached.
		int top = 0, reached = 1;
		int32_t first = m->tris[m->congs[g].tri_begin];
		stack[top++] = first;
		group[first] = -1;
		while (top > 0)
		{
			int32_t t = stack[--top];
			for (int k = 0; k < 3; ++k)
			{
				int32_t u = neighbour[3 * t + k];
				if (u >= 0 && group[u] == g)
				{
					group[u] = -1;
					stack[top++] = u;
					++reached;
				}
			}
		}
		connected = reached == m->congs[g].tri_count;
	}
	free(neighbour);
	free(group);
	free(stack);
	return connected;
}

static kl_pointshell* build_grouped(const kl_meshgen_mesh* mesh, kl_ps_grouping grouping)
{
	kl_pointshell_build_def def = kl_pointshell_default_build_def();
	def.grouping = grouping;
	kl_pointshell* m = kl_pointshell_build(mesh->vertices, mesh->vertex_count, mesh->indices, mesh->triangle_count,
										   &def, NULL, NULL);
	assert_non_null(m);
	return m;
}

/// Surface clustering: every triangle in one conglomerate of at most the cap, each conglomerate
/// connected across shared edges (a median cut may join two passes of a knot's tube), normals less
/// spread than the median cut's, no pair missed; on a mesh of islands and on open and non-manifold
/// edges too.
static void test_surface_grouping(void** state)
{
	(void)state;
	test_mesh gear, knot;
	make_gear(&gear);
	make_knot(&knot, 96);
	const test_mesh* meshes[2] = {&gear, &knot};
	for (int i = 0; i < 2; ++i)
	{
		kl_pointshell* surface = build_grouped(&meshes[i]->mesh, KL_PS_GROUP_SURFACE);
		check_model(surface);
		double flat = normal_spread(surface), cut = normal_spread(meshes[i]->model);
		printf("  %d triangles: %d surface clusters (median cut: %d), normal spread %.3f (median cut %.3f); "
			   "median cut's conglomerates connected: %s\n",
			   surface->triangle_count, surface->cong_count, meshes[i]->model->cong_count, flat, cut,
			   conglomerates_connected(meshes[i]->model, &meshes[i]->mesh) ? "yes" : "no");
		assert_true(flat < cut);
		assert_true(conglomerates_connected(surface, &meshes[i]->mesh));
		kl_pointshell_destroy(meshes[i]->model);
		((test_mesh*)meshes[i])->model = surface;
	}
	// No pair is missed with the other grouping either.
	long pairs = check_poses(&gear, &gear, kl_vec3(1.0f, 1.0f, 1.0f), KL_QUICK ? 4 : 12, 0.002f, 31u, NULL);
	assert_true(pairs > (KL_QUICK ? 15 : 50));
	// No pair is missed between two knots grouped this way (a knot's regions run along its tube).
	test_mesh knots[2];
	for (int i = 0; i < 2; ++i)
	{
		make_knot(&knots[i], 64);
		kl_pointshell_destroy(knots[i].model);
		knots[i].model = build_grouped(&knots[i].mesh, KL_PS_GROUP_SURFACE);
	}
	assert_true(check_poses(&knots[0], &knots[1], kl_vec3(1.0f, 1.0f, 1.0f), KL_QUICK ? 2 : 4, 0.002f, 37u, NULL) > 0);
	free_mesh(&knots[0]);
	free_mesh(&knots[1]);
	// A strip of twenty triangles, an island triangle and a fin of three on one edge, capped at 8:
	// the strip is grown into connected regions of at most 8 (a region of one would be folded into
	// a neighbour), the island and the fin's triangles stand alone (most edges are shared, so the surface grouping runs rather than its fallback).
	vec3s v[28];
	for (int i = 0; i < 22; ++i)
	{
		v[i] = kl_vec3((float)(i / 2), (float)(i % 2), 0.0f); // strip vertices, zigzag
	}
	v[22] = kl_vec3(30, 0, 0), v[23] = kl_vec3(31, 0, 0), v[24] = kl_vec3(30, 1, 0);
	v[25] = kl_vec3(40, 0, 0), v[26] = kl_vec3(41, 0, 1), v[27] = kl_vec3(41, 0, -1);
	int32_t idx[3 * 24];
	int t = 0;
	for (int i = 0; i < 20; ++i, ++t)
	{
		// Consistently oriented: even triangles (i, i+2, i+1), odd ones (i, i+1, i+2).
		idx[3 * t] = i;
		idx[3 * t + 1] = i % 2 ? i + 1 : i + 2;
		idx[3 * t + 2] = i % 2 ? i + 2 : i + 1;
	}
	int32_t rest[12] = {22, 23, 24, 25, 26, 27, 26, 25, 24, 26, 25, 23};
	memcpy(idx + 3 * t, rest, sizeof(rest));
	kl_pointshell_build_def def = kl_pointshell_default_build_def();
	def.grouping = KL_PS_GROUP_SURFACE;
	def.max_triangles = 8;
	kl_pointshell* odd = kl_pointshell_build(v, 28, idx, 24, &def, NULL, NULL);
	assert_non_null(odd);
	check_model_capped(odd, 8);
	kl_meshgen_mesh odd_mesh = {.vertices = v, .vertex_count = 28, .indices = idx, .triangle_count = 24};
	assert_true(conglomerates_connected(odd, &odd_mesh));
	assert_true(odd->cong_count >= 3 + 4); // the strip in regions of at most 8, four lone triangles
	for (int g = 0; g < odd->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = odd->congs + g;
		assert_true(c->tri_count > 1 || odd->tris[c->tri_begin] >= 20); // no strip region of one left
	}
	kl_pointshell_destroy(odd);
	// An unwelded mesh (no shared edges) keeps the median cut's groups.
	kl_meshgen_mesh* g = &gear.mesh;
	vec3s* loose = malloc(sizeof(vec3s) * 3 * (size_t)g->triangle_count);
	int32_t* loose_idx = malloc(sizeof(int32_t) * 3 * (size_t)g->triangle_count);
	assert_true(loose != NULL && loose_idx != NULL);
	for (int i = 0; i < 3 * g->triangle_count; ++i)
	{
		loose[i] = g->vertices[g->indices[i]];
		loose_idx[i] = i;
	}
	kl_pointshell* cut = kl_pointshell_build(loose, 3 * g->triangle_count, loose_idx, g->triangle_count, NULL, NULL, NULL);
	def = kl_pointshell_default_build_def();
	def.grouping = KL_PS_GROUP_SURFACE;
	kl_pointshell* fallback = kl_pointshell_build(loose, 3 * g->triangle_count, loose_idx, g->triangle_count, &def, NULL, NULL);
	assert_true(cut != NULL && fallback != NULL);
	assert_int_equal(cut->cong_count, fallback->cong_count);
	assert_memory_equal(cut->tris, fallback->tris, sizeof(int32_t) * (size_t)g->triangle_count);
	kl_pointshell_destroy(cut);
	kl_pointshell_destroy(fallback);
	free(loose);
	free(loose_idx);
	free_mesh(&gear);
	free_mesh(&knot);
}

/// Forcing every conglomerate pair finds the same pairs as the box culling.
/// The leaf bucket shapes the octrees, not the result: models with leaves of up to 32, 256 (the
/// CPU's default) and 4,096 samples (the GPU's) give the same keys on random poses, and their leaves
/// keep the bucket. The default def picks the bucket for the backend this machine runs.
static void test_leaf_bucket_same_keys(void** state)
{
	(void)state;
	test_mesh a, b;
	make_gear(&a);
	make_knot(&b, 64);
	const int buckets[3] = {32, KL_PS_LEAF_BUCKET, KL_PS_LEAF_BUCKET_GPU};
	kl_pointshell* gears[3];
	kl_pointshell* knots[3];
	for (int k = 0; k < 3; ++k)
	{
		kl_pointshell_build_def def = kl_pointshell_default_build_def();
		def.leaf_bucket = buckets[k];
		gears[k] = kl_pointshell_build(a.mesh.vertices, a.mesh.vertex_count, a.mesh.indices, a.mesh.triangle_count, &def,
									   NULL, NULL);
		knots[k] = kl_pointshell_build(b.mesh.vertices, b.mesh.vertex_count, b.mesh.indices, b.mesh.triangle_count, &def,
									   NULL, NULL);
		assert_non_null(gears[k]);
		assert_non_null(knots[k]);
		check_model(gears[k]);
		check_model(knots[k]);
	}
	assert_true(gears[0]->node_count > gears[1]->node_count && gears[1]->node_count > gears[2]->node_count);
	uint32_t seed = 17u;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	kl_ps_batch batch[3];
	memset(batch, 0, sizeof(batch));
	uint32_t found = 0;
	for (int p = 0; p < 6; ++p)
	{
		kl_transform pose = random_pose(&seed, 0.07f);
		for (int k = 0; k < 3; ++k)
		{
			kl_ps_pair_query q;
			q.a = kl_ps_body_make(gears[k], ident, kl_vec3(1.0f, 1.0f, 1.0f));
			q.b = kl_ps_body_make(knots[k], pose, kl_vec3(1.0f, 1.0f, 1.0f));
			q.margin = 0.002f;
			assert_int_equal(kl_ps_search_cpu(&q, 1, false, NULL, 1, batch + k, NULL), KL_OK);
		}
		for (int k = 1; k < 3; ++k)
		{
			assert_int_equal(batch[k].key_count, batch[0].key_count);
			assert_memory_equal(batch[k].keys, batch[0].keys, batch[0].key_count * sizeof(uint64_t));
		}
		found += batch[0].key_count;
	}
	assert_true(found > 0);
	kl_pointshell_build_def automatic = kl_pointshell_default_build_def();
	assert_int_equal(automatic.leaf_bucket, 0);
	int expected = kl_gpu_available() ? KL_PS_LEAF_BUCKET_GPU : KL_PS_LEAF_BUCKET;
	assert_int_equal(kl_pointshell_leaf_bucket(&automatic), expected);
	kl_pointshell* picked = kl_pointshell_build(a.mesh.vertices, a.mesh.vertex_count, a.mesh.indices,
												a.mesh.triangle_count, &automatic, NULL, NULL);
	assert_non_null(picked);
	assert_int_equal(picked->leaf_bucket, expected);
	assert_int_equal(picked->node_count, gears[expected == KL_PS_LEAF_BUCKET ? 1 : 2]->node_count);
	kl_pointshell_destroy(picked);
	kl_pointshell_build_def bad = kl_pointshell_default_build_def();
	bad.leaf_bucket = -1;
	assert_null(kl_pointshell_build(a.mesh.vertices, a.mesh.vertex_count, a.mesh.indices, a.mesh.triangle_count, &bad,
									NULL, NULL));
	assert_non_null(strstr(kl_last_error(), "leaf_bucket"));
	for (int k = 0; k < 3; ++k)
	{
		kl_ps_batch_free(batch + k);
		kl_pointshell_destroy(gears[k]);
		kl_pointshell_destroy(knots[k]);
	}
	free_mesh(&a);
	free_mesh(&b);
}

static void test_forced_equals_culled(void** state)
{
	(void)state;
	test_mesh a, b;
	make_gear(&a);
	make_knot(&b, 64);
	uint32_t seed = 5u;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	kl_ps_batch culled, forced;
	memset(&culled, 0, sizeof(culled));
	memset(&forced, 0, sizeof(forced));
	uint32_t found = 0;
	int culled_pairs = 0, all_pairs = 0;
	for (int p = 0; p < 8; ++p)
	{
		kl_ps_pair_query q;
		q.a = kl_ps_body_make(a.model, ident, kl_vec3(1.0f, 1.0f, 1.0f));
		q.b = kl_ps_body_make(b.model, random_pose(&seed, 0.08f), kl_vec3(1.0f, 1.0f, 1.0f));
		q.margin = 0.003f;
		kl_ps_stats sc, sf;
		assert_int_equal(kl_ps_search_cpu(&q, 1, false, NULL, 1, &culled, &sc), KL_OK);
		assert_int_equal(kl_ps_search_cpu(&q, 1, true, NULL, 1, &forced, &sf), KL_OK);
		assert_int_equal(culled.key_count, forced.key_count);
		assert_memory_equal(culled.keys, forced.keys, culled.key_count * sizeof(uint64_t));
		assert_true(sf.cong_pairs == a.model->cong_count * b.model->cong_count);
		assert_true(sc.cong_pairs <= sf.cong_pairs);
		found += culled.key_count;
		culled_pairs += sc.cong_pairs;
		all_pairs += sf.cong_pairs;
	}
	// Neither side is empty: the poses meet, and the boxes cull.
	assert_true(found > 0);
	assert_true(culled_pairs < all_pairs);
	kl_ps_batch_free(&culled);
	kl_ps_batch_free(&forced);
	free_mesh(&a);
	free_mesh(&b);
}

/// The signed gap of two boxes along their 15 axes, each projected directly (the extents as sums of
/// the edges' projections): the largest of (|t · L| − r_a − r_b) / |L|, so the boxes are more than
/// `margin` apart on some axis exactly when it exceeds margin.
static float direct_sat_gap(const kl_ps_box* a, const kl_ps_box* b)
{
	kl_ps_f3 axes[15];
	for (int k = 0; k < 3; ++k)
	{
		axes[k] = kl_ps_cross(a->edge[(k + 1) % 3], a->edge[(k + 2) % 3]);
		axes[3 + k] = kl_ps_cross(b->edge[(k + 1) % 3], b->edge[(k + 2) % 3]);
		for (int j = 0; j < 3; ++j)
		{
			axes[6 + 3 * k + j] = kl_ps_cross(a->edge[k], b->edge[j]);
		}
	}
	float gap = -1e30f;
	kl_ps_f3 t = kl_ps_sub(b->center, a->center);
	for (int i = 0; i < 15; ++i)
	{
		float length = sqrtf(kl_ps_dot(axes[i], axes[i]));
		if (length <= 1e-12f)
		{
			continue;
		}
		float r = 0.0f;
		for (int k = 0; k < 3; ++k)
		{
			r += fabsf(kl_ps_dot(a->edge[k], axes[i])) + fabsf(kl_ps_dot(b->edge[k], axes[i]));
		}
		gap = fmaxf(gap, (fabsf(kl_ps_dot(t, axes[i])) - r) / length);
	}
	return gap;
}

/// The OBB stage's separating-axis test, which reuses one box's edge projections on the other's
/// normals for all 15 axes and rejects far pairs by their spheres, decides as the direct test does
/// on random boxes, sheared ones (an uneven scale after a rotation) and flat ones included.
static void test_box_overlap_matches_direct(void** state)
{
	(void)state;
	uint32_t seed = 11u;
	int decided = 0, apart = 0;
	for (int i = 0; i < 20000; ++i)
	{
		kl_ps_box box[2];
		for (int n = 0; n < 2; ++n)
		{
			kl_ps_obb o;
			memset(&o, 0, sizeof(o));
			o.center = random_unit3(&seed);
			kl_transform pose = random_pose(&seed, 0.0f);
			for (int k = 0; k < 3; ++k)
			{
				vec3s axis = kl_vec3(k == 0, k == 1, k == 2);
				vec3s r = kl_rotate(pose.q, axis);
				o.axis[k] = kl_ps_make(r.x, r.y, r.z);
				o.half[k] = (i % 7 == 0 && k == 2) ? 1e-4f : 0.05f + 0.4f * random_unit(&seed);
			}
			kl_ps_xform x;
			for (int e = 0; e < 12; ++e)
			{
				x.m[e] = (e % 4 == e / 4) ? 0.5f + random_unit(&seed) : (e % 4 == 3 ? 0.0f : 0.3f * (random_unit(&seed) - 0.5f));
			}
			box[n] = kl_ps_place_obb(&o, &x);
		}
		float margin = 0.02f * random_unit(&seed);
		float gap = direct_sat_gap(box, box + 1);
		if (fabsf(gap - margin) < 1e-4f)
		{
			continue; // a tie within rounding: either answer is right
		}
		assert_int_equal(kl_ps_boxes_overlap(box, box + 1, margin), gap <= margin);
		++decided;
		apart += gap > margin;
	}
	assert_true(decided > 19000 && apart > 4000 && apart < decided - 4000); // both answers well represented
}

/// Distance from p to segment ab, in double.
static double segment_distance_d(kl_d3 p, kl_d3 a, kl_d3 b)
{
	kl_d3 ab = kl_d3_sub(b, a);
	double l = kl_d3_dot(ab, ab);
	double t = l > 0.0 ? fmin(fmax(kl_d3_dot(ab, kl_d3_sub(p, a)) / l, 0.0), 1.0) : 0.0;
	kl_d3 x = kl_d3_sub(kl_d3_add(a, kl_d3_scale(ab, t)), p);
	return sqrt(kl_d3_dot(x, x));
}

/// Distance from p to triangle t, in double: the nearest edge, or the plane where p projects inside.
static double triangle_distance_d(kl_d3 p, const kl_d3 t[3])
{
	kl_d3 n = kl_d3_cross(kl_d3_sub(t[1], t[0]), kl_d3_sub(t[2], t[0]));
	double best = 1e300;
	bool inside = true;
	for (int j = 0; j < 3; ++j)
	{
		kl_d3 a = t[j], b = t[(j + 1) % 3];
		best = fmin(best, segment_distance_d(p, a, b));
		inside = inside && kl_d3_dot(kl_d3_cross(kl_d3_sub(b, a), kl_d3_sub(p, a)), n) >= 0.0;
	}
	double nn = sqrt(kl_d3_dot(n, n));
	return inside && nn > 0.0 ? fmin(best, fabs(kl_d3_dot(kl_d3_sub(p, t[0]), n)) / nn) : best;
}

/// The sample-to-triangle test of the search never reads a triangle farther than it is by more than
/// the search's slack: triangles 1e-7 to 1 times as high as long (the thin ones, where Ericson's
/// regions alone read up to most of the length too far, and fair ones), near the origin and far from
/// it, with points around them; each is asked at exactly its distance (in double) plus the slack.
static void test_point_near_triangle(void** state)
{
	(void)state;
	uint32_t seed = 17u;
	for (int i = 0; i < 300000; ++i)
	{
		double offset = (i % 4 == 3) ? 10.0 : 0.0;
		double height = exp(log(1e-7) * random_unit(&seed));
		double a[3], b[3], r[3], d[3], l2 = 0.0, rd = 0.0, rn = 0.0;
		for (int k = 0; k < 3; ++k)
		{
			a[k] = random_unit(&seed) - 0.5 + offset;
			b[k] = random_unit(&seed) - 0.5 + offset;
			r[k] = random_unit(&seed) - 0.5;
			d[k] = b[k] - a[k];
			l2 += d[k] * d[k];
			rd += r[k] * d[k];
		}
		for (int k = 0; k < 3; ++k)
		{
			r[k] -= rd / l2 * d[k];
			rn += r[k] * r[k];
		}
		double along = random_unit(&seed), length = sqrt(l2);
		double td[3][3], pd[3];
		for (int k = 0; k < 3; ++k)
		{
			td[0][k] = (float)a[k];
			td[1][k] = (float)b[k];
			td[2][k] = (float)(a[k] + along * d[k] + height * length * r[k] / sqrt(rn));
		}
		// A point of the triangle, moved by up to a tenth of its length.
		double u = random_unit(&seed), v = random_unit(&seed) * (1.0 - u);
		for (int k = 0; k < 3; ++k)
		{
			pd[k] = (float)(td[0][k] + u * (td[1][k] - td[0][k]) + v * (td[2][k] - td[0][k]) +
							0.1 * length * (random_unit(&seed) - 0.5));
		}
		kl_ps_f3 t[3];
		kl_d3 tt[3];
		for (int j = 0; j < 3; ++j)
		{
			t[j] = kl_ps_make((float)td[j][0], (float)td[j][1], (float)td[j][2]);
			tt[j] = kl_d3_make(td[j][0], td[j][1], td[j][2]);
		}
		// The kernel's slack: 1e-4 of the octree cube's edge plus its corner's coordinates.
		float reach = (float)triangle_distance_d(kl_d3_make(pd[0], pd[1], pd[2]), tt) +
					  1e-4f * (float)(length + 3.0 * offset);
		assert_true(kl_ps_point_near(t, kl_ps_make((float)pd[0], (float)pd[1], (float)pd[2]), reach * reach));
	}
}

/// The triangle test in parts, as the GPU's lanes run it (8 lanes, each every 8th part; or 2, or 4):
/// a pair is near by some lane exactly when the whole test says so, on random pairs of unit
/// triangles at distances around the alarm distance, crossing ones among them; each of the three
/// kinds of part (vertex–face, edge–edge, edge through the other) is the only one to see some pair.
static void test_triangle_parts(void** state)
{
	(void)state;
	uint32_t seed = 29u;
	int near = 0, far = 0, only[3] = {0, 0, 0};
	for (int i = 0; i < 20000; ++i)
	{
		kl_ps_f3 a[3], b[3];
		float shift = 1.6f * (float)random_unit(&seed);
		for (int k = 0; k < 3; ++k)
		{
			a[k] = random_unit3(&seed);
			b[k] = kl_ps_add(random_unit3(&seed), kl_ps_make(shift, 0.0f, 0.0f));
		}
		float alarm = 0.05f;
		bool whole = kl_ps_triangles_near(a, b, alarm, 1e-6f, 0, 1);
		near += whole;
		far += !whole;
		for (int lanes = 2; lanes <= 8; lanes *= 2)
		{
			bool any = false;
			for (int first = 0; first < lanes; ++first)
			{
				any = any || kl_ps_triangles_near(a, b, alarm, 1e-6f, first, lanes);
			}
			assert_int_equal(any, whole);
		}
		// Which kinds of part see it: 0-5, 6-14, 15-20.
		bool kind[3] = {false, false, false};
		float limit = alarm + 1e-6f;
		for (int part = 0; part < KL_PS_NEAR_PARTS; ++part)
		{
			int k = part < 6 ? 0 : part < 15 ? 1 : 2;
			kind[k] = kind[k] || kl_ps_triangles_near_part(a, b, limit * limit, 1e-6f, part);
		}
		for (int k = 0; k < 3; ++k)
		{
			only[k] += kind[k] && !kind[(k + 1) % 3] && !kind[(k + 2) % 3];
		}
	}
	printf("  %d near, %d apart; seen by one kind of part only: vertex-face %d, edge-edge %d, crossing %d\n", near,
		   far, only[0], only[1], only[2]);
	assert_true(near > 1000 && far > 1000);
	assert_true(only[0] > 0 && only[1] > 0 && only[2] > 0);
}

/// The GPU's decomposition (an item per sample) run on the CPU finds exactly the keys of the CPU's
/// (an item per triangle), so the GPU's algorithm is checked where there is no GPU.
static void test_sample_items_equal_triangle_items(void** state)
{
	(void)state;
	test_mesh a, b;
	make_gear(&a);
	make_knot(&b, 64);
	uint32_t seed = 41u;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	kl_ps_batch by_triangle, by_sample;
	memset(&by_triangle, 0, sizeof(by_triangle));
	memset(&by_sample, 0, sizeof(by_sample));
	by_sample.sample_items = true;
	long total = 0;
	for (int p = 0; p < 6; ++p)
	{
		kl_ps_pair_query q;
		q.a = kl_ps_body_make(a.model, ident, kl_vec3(1.0f, 1.0f, 1.0f));
		q.b = kl_ps_body_make(b.model, random_pose(&seed, 0.07f), kl_vec3(1.2f, 0.8f, 1.0f));
		q.margin = 0.002f;
		kl_ps_stats st, ss;
		assert_int_equal(kl_ps_search_cpu(&q, 1, false, NULL, 1, &by_triangle, &st), KL_OK);
		assert_int_equal(kl_ps_search_cpu(&q, 1, false, NULL, 1, &by_sample, &ss), KL_OK);
		assert_int_equal(st.unique_candidates, ss.unique_candidates);
		assert_int_equal(by_triangle.key_count, by_sample.key_count);
		assert_memory_equal(by_triangle.keys, by_sample.keys, by_triangle.key_count * sizeof(uint64_t));
		total += by_sample.key_count;
	}
	assert_true(total > 0);
	kl_ps_batch_free(&by_triangle);
	kl_ps_batch_free(&by_sample);
	free_mesh(&a);
	free_mesh(&b);
}

/// Several body pairs in one search give each pair what a search of it alone gives.
static void test_batch_of_pairs(void** state)
{
	(void)state;
	test_mesh a, b;
	make_gear(&a);
	make_knot(&b, 64);
	uint32_t seed = 99u;
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	kl_ps_pair_query q[6];
	for (int i = 0; i < 6; ++i)
	{
		q[i].a = kl_ps_body_make(i % 2 ? b.model : a.model, ident, kl_vec3(1.0f, 1.0f, 1.0f));
		q[i].b = kl_ps_body_make(i % 3 ? a.model : b.model, random_pose(&seed, 0.07f), kl_vec3(1.0f, 1.0f, 1.0f));
		q[i].margin = 0.002f;
	}
	kl_ps_batch all, one;
	memset(&all, 0, sizeof(all));
	memset(&one, 0, sizeof(one));
	assert_int_equal(kl_ps_search_cpu(q, 6, false, NULL, 1, &all, NULL), KL_OK);
	int meeting = 0;
	for (int i = 0; i < 6; ++i)
	{
		assert_int_equal(kl_ps_search_cpu(q + i, 1, false, NULL, 1, &one, NULL), KL_OK);
		int n = all.pair_begin[i + 1] - all.pair_begin[i];
		meeting += n > 0;
		assert_int_equal(n, (int)one.key_count);
		for (int k = 0; k < n; ++k)
		{
			uint64_t x = all.keys[all.pair_begin[i] + k];
			assert_int_equal(kl_ps_key_pair(x), i);
			assert_true((x & 0xffffffffffffull) == (one.keys[k] & 0xffffffffffffull));
		}
	}
	assert_true(meeting >= 2); // several pairs meet, so their ranges are told apart
	kl_ps_batch_free(&all);
	kl_ps_batch_free(&one);
	free_mesh(&a);
	free_mesh(&b);
}

// ---------------------------------------------------------------------------------------------
// Bad input

static void test_bad_input(void** state)
{
	(void)state;
	vec3s v[3] = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}};
	int32_t good[3] = {0, 1, 2};
	int32_t bad[3] = {0, 1, 7};
	assert_null(kl_pointshell_build(NULL, 3, good, 1, NULL, NULL, NULL));
	assert_null(kl_pointshell_build(v, 3, bad, 1, NULL, NULL, NULL));
	assert_non_null(strstr(kl_last_error(), "out of range"));
	vec3s nan_v[3] = {{{0, 0, 0}}, {{NAN, 0, 0}}, {{0, 1, 0}}};
	assert_null(kl_pointshell_build(nan_v, 3, good, 1, NULL, NULL, NULL));
	kl_pointshell_build_def def = kl_pointshell_default_build_def();
	def.max_triangles = 0;
	assert_null(kl_pointshell_build(v, 3, good, 1, &def, NULL, NULL));
	def = kl_pointshell_default_build_def();
	def.grouping = (kl_ps_grouping)7;
	assert_null(kl_pointshell_build(v, 3, good, 1, &def, NULL, NULL));
	assert_non_null(strstr(kl_last_error(), "grouping"));
	// A single triangle builds, and a degenerate one too (its edges carry the samples).
	kl_pointshell* one = kl_pointshell_build(v, 3, good, 1, NULL, NULL, NULL);
	assert_non_null(one);
	vec3s line[3] = {{{0, 0, 0}}, {{1, 0, 0}}, {{2, 0, 0}}};
	kl_pointshell* flat = kl_pointshell_build(line, 3, good, 1, NULL, NULL, NULL);
	assert_non_null(flat);
	// A pair with a NaN transform is refused and the batch stays usable.
	kl_transform ident = {kl_vec3(0.0f, 0.0f, 0.0f), (versors){{0.0f, 0.0f, 0.0f, 1.0f}}};
	kl_ps_pair_query q;
	q.a = kl_ps_body_make(one, ident, kl_vec3(1.0f, 1.0f, 1.0f));
	q.b = kl_ps_body_make(flat, ident, kl_vec3(1.0f, 1.0f, 1.0f));
	q.margin = 0.01f;
	kl_ps_batch batch;
	memset(&batch, 0, sizeof(batch));
	kl_ps_pair_query broken = q;
	broken.b.xf.m[3] = NAN;
	assert_int_equal(kl_ps_search_cpu(&broken, 1, false, NULL, 1, &batch, NULL), KL_ERR_INVALID_ARGUMENT);
	broken = q;
	broken.b.model = NULL;
	assert_int_equal(kl_ps_search_cpu(&broken, 1, false, NULL, 1, &batch, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_ps_search_cpu(&q, -1, false, NULL, 1, &batch, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_ps_search_cpu(&q, 1, false, NULL, 1, &batch, NULL), KL_OK);
	assert_true(batch.key_count == 1); // the triangle and the segment on its edge touch
	kl_ps_batch_free(&batch);
	kl_pointshell_destroy(one);
	kl_pointshell_destroy(flat);
}

/// Slivers up to an aspect of 10⁷ (1 wide, up to 10⁷ long, as in an OBJ a fuzzer wrote) build, with
/// their coverage still bounding every point's distance to a sample: their fine coverage cells are
/// square at the long side's scale, so along the short side a cell lies many grid cells out, past
/// the grid, where the mask has no sample.
static void test_slivers(void** state)
{
	(void)state;
	const float lengths[] = {1e3f, 1e5f, 1e6f, 1e7f};
	for (int i = 0; i < 4; ++i)
	{
		vec3s v[3] = {{{0.0f, 0.0f, lengths[i]}}, {{1.0f, 0.0f, 1.0f}}, {{1.0f, 0.0f, 0.0f}}};
		int32_t tri[3] = {0, 1, 2};
		kl_pointshell* m = kl_pointshell_build(v, 3, tri, 1, NULL, NULL, NULL);
		assert_non_null(m);
		check_model(m);
		check_coverage(m, 11u + (uint32_t)i);
		assert_true(isfinite(m->coverage) && m->coverage > 0.0f && m->coverage < lengths[i]);
		kl_pointshell_destroy(m);
	}
}

/// Vertices beyond ±1e8 (1e5 at a length unit of 1000, the farthest out a world holds a shape) are
/// refused with a message naming the vertex and the range: at 2e19 the squared edge lengths overflow
/// and the grid's sizes become NaN. kl_mesh_build with the point-shell model refuses such a mesh
/// with the same message and frees what it built; without the model the mesh builds.
static void test_far_vertices(void** state)
{
	(void)state;
	int32_t tri[3] = {0, 1, 2};
	const float far[] = {1.0000001e8f, 2e19f, 3e38f};
	for (int i = 0; i < 3; ++i)
	{
		vec3s v[3] = {{{-far[i], 0.0f, 0.0f}}, {{far[i], 0.0f, 0.0f}}, {{0.0f, far[i], 0.0f}}};
		assert_null(kl_pointshell_build(v, 3, tri, 1, NULL, NULL, NULL));
		assert_non_null(strstr(kl_last_error(), "point shell: vertex 0"));
		assert_non_null(strstr(kl_last_error(), "out of range [-1e+08, 1e+08]"));
		kl_mesh_def def = kl_default_mesh_def();
		def.vertices = v;
		def.vertex_count = 3;
		def.indices = tri;
		def.triangle_count = 1;
		def.build_pointshell = true;
		assert_null(kl_mesh_build(&def));
		assert_non_null(strstr(kl_last_error(), "out of range [-1e+08, 1e+08]"));
		def.build_pointshell = false;
		kl_mesh* plain = kl_mesh_build(&def);
		assert_non_null(plain);
		kl_mesh_release(plain);
	}
	vec3s edge[3] = {{{-1e8f, 0.0f, 0.0f}}, {{1e8f, 0.0f, 0.0f}}, {{0.0f, 1e8f, 0.0f}}};
	kl_pointshell* m = kl_pointshell_build(edge, 3, tri, 1, NULL, NULL, NULL);
	assert_non_null(m);
	check_model(m);
	check_coverage(m, 5u);
	kl_pointshell_destroy(m);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_complete_gears),
		cmocka_unit_test(test_complete_knot_scaled),
		cmocka_unit_test(test_complete_slivers_each_direction),
		cmocka_unit_test(test_surface_grouping),
		cmocka_unit_test(test_forced_equals_culled),
		cmocka_unit_test(test_leaf_bucket_same_keys),
		cmocka_unit_test(test_triangle_parts),
		cmocka_unit_test(test_box_overlap_matches_direct),
		cmocka_unit_test(test_point_near_triangle),
		cmocka_unit_test(test_batch_of_pairs),
		cmocka_unit_test(test_sample_items_equal_triangle_items),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_slivers),
		cmocka_unit_test(test_far_vertices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
