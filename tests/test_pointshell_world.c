// Kollide tests — the point-shell backend in the world (engine/contact_pointshell.c): a gear
// dropped on a gear rests as with the BVH, on one worker, on two (the pool's batch) and with use_gpu;
// the backend's setters and shape defs; meshes built with and without the model and its settings;
// debug draw.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "collide_mesh.h"
#include "contact.h"
#include "kl_pointshell_test.h"
#include "mesh.h"
#include "world.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------
// In the world

/// A gear dropped flat onto a static gear for 1.5 s, its pair through `backend` (the dropped shape
/// asks for it). Returns its height at rest; counters and profile get the step with the most
/// point-shell pairs (the gear falls asleep later); batched (may be NULL) the most pairs one step's
/// batch served (contact_pointshell.c).
static float drop_gear(kl_mesh_backend backend, bool use_gpu, int workers, kl_counters* counters, kl_profile* profile,
					   int* batched)
{
	kl_meshgen_gear_params g = kl_meshgen_default_gear_params();
	kl_meshgen_mesh gm;
	assert_int_equal(kl_meshgen_gear(&g, &gm), KL_OK);
	kl_mesh* mesh = build_cached(&gm, NULL);
	assert_non_null(mesh);
	kl_world_def wd = kl_default_world_def();
	wd.use_gpu = use_gpu;
	wd.worker_count = workers;
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_body_id base = kl_create_body(world, &bd);
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.003f, 0.002f, 0.03f);
	kl_body_id top = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(base, &sd, mesh, kl_vec3(1.0f, 1.0f, 1.0f))));
	sd.mesh_backend = backend;
	kl_shape_id shape = kl_create_mesh_shape(top, &sd, mesh, kl_vec3(1.0f, 1.0f, 1.0f));
	assert_true(KL_IS_NON_NULL(shape));
	assert_int_equal(kl_shape_get_mesh_backend(shape), backend);
	memset(counters, 0, sizeof(*counters));
	memset(profile, 0, sizeof(*profile));
	for (int i = 0; i < 90; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
		kl_counters c = kl_world_get_counters(world);
		if (c.pointshell_pair_count > counters->pointshell_pair_count)
		{
			*counters = c;
			*profile = kl_world_get_profile(world);
		}
		int served = kl_get_world(world)->pointshell_batch_pairs;
		if (batched != NULL)
		{
			*batched = i == 0 || served > *batched ? served : *batched;
		}
	}
	float z = kl_body_get_position(top).z;
	kl_destroy_world(world);
	kl_mesh_release(mesh);
	kl_meshgen_free(&gm);
	return z;
}

typedef struct draw_count
{
	int segments;
	int points;
} draw_count;

static void count_segment(vec3s a, vec3s b, uint32_t color, void* context)
{
	(void)a, (void)b, (void)color;
	((draw_count*)context)->segments++;
}

static void count_point(vec3s p, float size, uint32_t color, void* context)
{
	(void)p, (void)size, (void)color;
	((draw_count*)context)->points++;
}

/// Debug draw of the model: 12 edges per conglomerate box and per octree leaf, a point per sample,
/// only for mesh shapes that use the point shells.
static void test_debug_draw(void** state)
{
	(void)state;
	test_mesh g;
	make_gear(&g);
	kl_mesh* mesh = build_cached(&g.mesh, NULL);
	assert_non_null(mesh);
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_shape_def sd = kl_default_shape_def();
	kl_create_mesh_shape(kl_create_body(world, &bd), &sd, mesh, kl_vec3(1.0f, 1.0f, 1.0f)); // BVH: not drawn
	sd.mesh_backend = KL_MESH_BACKEND_POINTSHELL;
	bd.position = kl_vec3(0.5f, 0.0f, 0.0f);
	kl_create_mesh_shape(kl_create_body(world, &bd), &sd, mesh, kl_vec3(1.0f, 2.0f, 1.0f));
	const kl_pointshell* m = mesh->pointshell;
	int leaves = 0;
	for (int n = 0; n < m->node_count; ++n)
	{
		leaves += m->nodes[n].child_count == 0;
	}
	kl_debug_draw d = kl_default_debug_draw();
	d.draw_shapes = false;
	d.draw_joints = false;
	d.draw_segment = count_segment;
	d.draw_point = count_point;
	bool* flags[3] = {&d.draw_conglomerates, &d.draw_octree_cells, &d.draw_point_shells};
	int expect_segments[3] = {12 * m->cong_count, 12 * leaves, 0};
	int expect_points[3] = {0, 0, (int)m->point_count};
	for (int i = 0; i < 3; ++i)
	{
		draw_count count = {0, 0};
		d.context = &count;
		*flags[i] = true;
		kl_world_draw(world, &d);
		*flags[i] = false;
		assert_int_equal(count.segments, expect_segments[i]);
		assert_int_equal(count.points, expect_points[i]);
	}
	kl_destroy_world(world);
	kl_mesh_release(mesh);
	free_mesh(&g);
}

static void test_world_backend(void** state)
{
	(void)state;
	kl_counters c_bvh, c_cpu, c_gpu;
	kl_profile p_bvh, p_cpu, p_gpu;
	int batched = 0;
	float bvh = drop_gear(KL_MESH_BACKEND_BVH, false, 1, &c_bvh, &p_bvh, NULL);
	float shells = drop_gear(KL_MESH_BACKEND_POINTSHELL, false, 1, &c_cpu, &p_cpu, &batched);
	printf("  gear at rest on a gear (face width 20 mm): %.3f mm with the BVH, %.3f mm with point shells\n", 1e3 * bvh,
		   1e3 * shells);
	assert_near(shells, 0.02f, 0.001f); // on the base's face, not through it
	assert_near(shells, bvh, 0.0005f);
	assert_int_equal(c_bvh.pointshell_pair_count, 0);
	assert_int_equal(c_cpu.pointshell_pair_count, 1);
	assert_int_equal(c_cpu.pointshell_gpu_pair_count, 0);
	assert_int_equal(batched, 0); // one worker: the pair searched its own
	// With two workers the pair is searched by a batch over the pool, within the margin its own
	// search uses: the same candidates, so the gear steps bit for bit as on one worker.
	kl_counters c_pool;
	kl_profile p_pool;
	float shells_pool = drop_gear(KL_MESH_BACKEND_POINTSHELL, false, 2, &c_pool, &p_pool, &batched);
	printf("  on two workers: %.3f mm, the pair in the pool's batch\n", 1e3 * shells_pool);
	assert_int_equal(batched, 1);
	assert_true(shells_pool == shells);
	assert_int_equal(c_pool.pointshell_pair_count, 1);
	assert_int_equal(c_pool.pointshell_gpu_pair_count, 0);
	assert_true(p_pool.pointshell_shell > 0.0f);
	// With use_gpu the GPU batch finds the same candidates, so the world steps the same, bit for bit;
	// without a device the pairs fall back to the CPU. (Under the sanitizers that fallback is the run
	// above again, a minute of it: left to the optimised build.)
	if (!KL_QUICK || kl_ps_gpu_available())
	{
		float shells_gpu = drop_gear(KL_MESH_BACKEND_POINTSHELL, true, 1, &c_gpu, &p_gpu, NULL);
		printf("  with use_gpu: %.3f mm, %d of %d pairs on the GPU\n", 1e3 * shells_gpu, c_gpu.pointshell_gpu_pair_count,
			   c_gpu.pointshell_pair_count);
		assert_true(shells_gpu == shells);
		assert_int_equal(c_gpu.pointshell_pair_count, 1);
		assert_int_equal(c_gpu.pointshell_gpu_pair_count, kl_ps_gpu_available() ? 1 : 0);
	}
	assert_true(p_cpu.pointshell_shell > 0.0f && p_bvh.pointshell_shell == 0.0f);
	// Only mesh shapes take a backend; bad values are refused.
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_shape_id sphere = kl_create_sphere_shape(body, &sd, 0.1f);
	assert_int_equal(kl_shape_set_mesh_backend(sphere, KL_MESH_BACKEND_POINTSHELL), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_shape_set_mesh_backend(sphere, (kl_mesh_backend)7), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_shape_set_mesh_backend(kl_null_shape_id, KL_MESH_BACKEND_BVH), KL_ERR_INVALID_ID);
	// At creation too: a def's backend is ignored by other shapes and an unknown one refused.
	sd.mesh_backend = KL_MESH_BACKEND_POINTSHELL;
	kl_shape_id asked = kl_create_sphere_shape(body, &sd, 0.1f);
	assert_true(KL_IS_NON_NULL(asked));
	assert_int_equal(kl_shape_get_mesh_backend(asked), KL_MESH_BACKEND_BVH);
	sd.mesh_backend = (kl_mesh_backend)7;
	assert_true(KL_IS_NULL(kl_create_sphere_shape(body, &sd, 0.1f)));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_body_get_shapes(body, NULL, 0), 2);
	assert_int_equal(kl_world_set_use_gpu(kl_null_world_id, true), KL_ERR_INVALID_ID);
	assert_int_equal(kl_world_set_use_gpu(world, true), KL_OK);
	assert_true(kl_world_get_def(world).use_gpu);
	kl_destroy_world(world);
}

/// The model's settings reach it through kl_mesh_def, and kl_mesh_info reports its memory; bad
/// settings are refused with the build.
static void test_mesh_def_settings(void** state)
{
	(void)state;
	test_mesh gear;
	make_gear(&gear);
	kl_mesh_def md = mesh_def_of(&gear.mesh);
	md.build_pointshell = true;
	kl_mesh* plain = kl_mesh_build(&md);
	md.pointshell_max_triangles = 16;
	md.pointshell_spacing = 0.002f;
	md.pointshell_surface_groups = true;
	md.pointshell_leaf_bucket = 32;
	kl_mesh* tuned = kl_mesh_build(&md);
	assert_non_null(plain);
	assert_non_null(tuned);
	const kl_pointshell* p = plain->pointshell;
	const kl_pointshell* t = tuned->pointshell;
	int most = 0;
	for (int g = 0; g < t->cong_count; ++g)
	{
		most = t->congs[g].tri_count > most ? t->congs[g].tri_count : most;
	}
	assert_true(most <= 16 && t->cong_count > p->cong_count);
	assert_true(t->spacing == 0.002f && p->spacing != 0.002f);
	assert_int_equal(t->leaf_bucket, 32);
	assert_int_equal(p->leaf_bucket, kl_gpu_available() ? KL_PS_LEAF_BUCKET_GPU : KL_PS_LEAF_BUCKET);
	kl_pointshell_build_def surface = kl_pointshell_default_build_def();
	surface.max_triangles = 16;
	surface.spacing = 0.002f;
	surface.grouping = KL_PS_GROUP_SURFACE;
	kl_pointshell* direct = kl_pointshell_build(gear.mesh.vertices, gear.mesh.vertex_count, gear.mesh.indices,
												gear.mesh.triangle_count, &surface, NULL, NULL);
	assert_non_null(direct);
	surface.grouping = KL_PS_GROUP_MEDIAN_CUT;
	kl_pointshell* cut = kl_pointshell_build(gear.mesh.vertices, gear.mesh.vertex_count, gear.mesh.indices,
											 gear.mesh.triangle_count, &surface, NULL, NULL);
	assert_non_null(cut);
	// The surface clusters, not the median cut (which groups these triangles otherwise).
	assert_int_equal(direct->cong_count, t->cong_count);
	assert_true(cut->cong_count != t->cong_count ||
				memcmp(cut->tris, t->tris, (size_t)t->triangle_count * sizeof(int32_t)) != 0);
	assert_memory_equal(direct->tris, t->tris, (size_t)t->triangle_count * sizeof(int32_t));
	kl_pointshell_destroy(direct);
	kl_pointshell_destroy(cut);
	kl_pointshell_memory bytes = kl_pointshell_memory_of(p);
	assert_true(kl_mesh_get_info(plain).pointshell_bytes == bytes.shells + bytes.coverage + bytes.octrees + bytes.conglomerates);
	assert_true(kl_mesh_get_info(plain).pointshell_bytes > 40u * (size_t)p->triangle_count);
	md.pointshell_max_triangles = -1;
	assert_null(kl_mesh_build(&md));
	assert_non_null(strstr(kl_last_error(), "max_triangles"));
	md.pointshell_max_triangles = 0;
	md.pointshell_leaf_bucket = -5;
	assert_null(kl_mesh_build(&md));
	assert_non_null(strstr(kl_last_error(), "leaf_bucket"));
	md.pointshell_leaf_bucket = 0;
	md.pointshell_spacing = NAN;
	assert_null(kl_mesh_build(&md));
	kl_mesh_release(plain);
	kl_mesh_release(tuned);
	free_mesh(&gear);
}

/// A mesh built without build_pointshell (the default) has no model: its shapes refuse the
/// point-shell backend with a clear error while the BVH backend works as before.
static void test_without_pointshell(void** state)
{
	(void)state;
	test_mesh gear;
	make_gear(&gear);
	kl_mesh* with = build_cached(&gear.mesh, NULL);
	kl_mesh_def md = mesh_def_of(&gear.mesh);
	kl_mesh* without = kl_mesh_build(&md);
	assert_non_null(with);
	assert_non_null(without);
	assert_true(kl_mesh_get_info(with).has_pointshell);
	assert_false(kl_mesh_get_info(without).has_pointshell);
	assert_int_equal(kl_mesh_get_info(without).triangle_count, kl_mesh_get_info(with).triangle_count);

	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	kl_body_id body = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.mesh_backend = KL_MESH_BACKEND_POINTSHELL;
	assert_true(KL_IS_NULL(kl_create_mesh_shape(body, &sd, without, kl_vec3(1.0f, 1.0f, 1.0f))));
	assert_int_equal(kl_last_error_code(), KL_ERR_UNSUPPORTED);
	kl_shape_id on_with = kl_create_mesh_shape(body, &sd, with, kl_vec3(1.0f, 1.0f, 1.0f));
	assert_true(KL_IS_NON_NULL(on_with));
	sd.mesh_backend = KL_MESH_BACKEND_BVH;
	kl_shape_id on_without = kl_create_mesh_shape(body, &sd, without, kl_vec3(1.0f, 1.0f, 1.0f));
	assert_true(KL_IS_NON_NULL(on_without));
	assert_int_equal(kl_shape_set_mesh_backend(on_without, KL_MESH_BACKEND_POINTSHELL), KL_ERR_UNSUPPORTED);
	assert_int_equal(kl_shape_get_mesh_backend(on_without), KL_MESH_BACKEND_BVH);
	assert_int_equal(kl_shape_set_mesh_backend(on_with, KL_MESH_BACKEND_BVH), KL_OK);
	assert_int_equal(kl_shape_set_mesh_backend(on_with, KL_MESH_BACKEND_POINTSHELL), KL_OK);
	// A pair whose other mesh has no model meets through the BVH, though one shape asks for shells.
	kl_body_def base_def = kl_default_body_def();
	base_def.position = kl_vec3(0.0f, 0.0f, -0.0205f); // the gears' faces 0.5 mm apart
	kl_body_id base = kl_create_body(world, &base_def);
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(base, &sd, without, kl_vec3(1.0f, 1.0f, 1.0f))));
	assert_int_equal(kl_destroy_shape(on_without), KL_OK);
	for (int i = 0; i < 3; ++i) // the pair is found in one step and collided in the next
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	assert_true(kl_body_get_contact_data(body, NULL, 0) > 0);
	assert_int_equal(kl_world_get_counters(world).pointshell_pair_count, 0);
	kl_destroy_world(world);
	kl_mesh_release(with);
	kl_mesh_release(without);
	free_mesh(&gear);
}

/// A batch (here the pool's) finds for each pair exactly the candidates the pair's own search finds:
/// a gear on a turning gear on two workers, the batch run again on each step's state and compared
/// with the search kl_collide_triangle_sets runs for that contact, key for key.
static void test_batch_equals_own_search(void** state)
{
	(void)state;
	test_mesh g;
	make_gear(&g);
	kl_mesh* mesh = build_cached(&g.mesh, NULL);
	assert_non_null(mesh);
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = 2;
	kl_world_id world_id = kl_create_world(&wd);
	// Both gears turn together (a turntable carrying a gear): the pair's margin adds both spins,
	// while its vertices barely move relative to each other, so the motion clamps the margin.
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_KINEMATIC;
	bd.angular_velocity = kl_vec3(0.0f, 0.0f, 6.0f);
	kl_body_id base = kl_create_body(world_id, &bd);
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.003f, 0.002f, 0.0215f);
	kl_body_id top = kl_create_body(world_id, &bd);
	kl_shape_def sd = kl_default_shape_def();
	sd.mesh_backend = KL_MESH_BACKEND_POINTSHELL;
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(base, &sd, mesh, kl_vec3(1.0f, 1.0f, 1.0f))));
	assert_true(KL_IS_NON_NULL(kl_create_mesh_shape(top, &sd, mesh, kl_vec3(1.0f, 1.0f, 1.0f))));
	kl_world* world = kl_get_world(world_id);
	const float dt = 1.0f / 60.0f;
	kl_mesh_scratch scratch;
	memset(&scratch, 0, sizeof(scratch));
	kl_manifold manifolds[KL_MESH_MAX_MANIFOLDS];
	int compared = 0, keys = 0, clamped = 0;
	for (int step = 0; step < 30; ++step)
	{
		assert_int_equal(kl_world_step(world_id, dt, 4), KL_OK);
		kl_pointshell_prepass(world, dt); // the batch of the state the next step starts from
		for (int k = 0; k < world->contact_count; ++k)
		{
			const kl_contact* c = world->contacts + k;
			kl_mesh_candidates found;
			if (!kl_pointshell_found(world, c, &found))
			{
				continue;
			}
			kl_triangle_set sa, sb;
			assert_true(kl_shape_triangle_set(world, world->shapes + c->shape_a, &sa));
			assert_true(kl_shape_triangle_set(world, world->shapes + c->shape_b, &sb));
			kl_vertex_motion motion;
			kl_contact_mesh_motion(world, c, dt, &motion);
			float margin = kl_contact_speculative_distance(world, c, dt);
			clamped += kl_mesh_search_margin(&sa, &sb, margin, &motion) < kl_mesh_pair_config(&sa, &sb, margin).margin;
			kl_collide_triangle_sets(&sa, &sb, kl_contact_speculative_distance(world, c, dt), &motion, &scratch,
									 manifolds, KL_MESH_MAX_MANIFOLDS);
			const kl_ps_batch* own = scratch.pointshell;
			assert_non_null(own);
			assert_int_equal((int)own->key_count, found.count);
			for (int i = 0; i < found.count; ++i)
			{
				// The same triangle pairs; the batch's keys carry the pair's index in the batch.
				assert_true((own->keys[i] & 0xffffffffffffull) == (found.keys[i] & 0xffffffffffffull));
			}
			++compared;
			keys += found.count;
		}
	}
	printf("  batch = own search on %d pair states (%d with the margin clamped by the motion), %d keys\n", compared,
		   clamped, keys);
	assert_true(compared >= 20 && keys > 0 && clamped >= compared / 2);
	kl_mesh_scratch_free(&scratch);
	kl_destroy_world(world_id);
	kl_mesh_release(mesh);
	free_mesh(&g);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_world_backend),
		cmocka_unit_test(test_batch_equals_own_search),
		cmocka_unit_test(test_without_pointshell),
		cmocka_unit_test(test_mesh_def_settings),
		cmocka_unit_test(test_debug_draw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
