// Kollide tests — the point-shell model's cache file (narrowphase/pointshell/pointshell_cache.c, its checks in
// pointshell_validate.c): written and read back the same; a damaged, cut, foreign or crafted file is
// not used (the model is built again) and leaves no error behind.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include "kl_pointshell_test.h"
#include "mesh.h"
#include "pointshell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int truncate_file(const char* path, long size)
{
	return truncate(path, (off_t)size);
}

// ---------------------------------------------------------------------------------------------
// The cache file

static void assert_same_model(const kl_pointshell* a, const kl_pointshell* b)
{
	assert_int_equal(a->cong_count, b->cong_count);
	assert_int_equal(a->point_count, b->point_count);
	assert_int_equal(a->node_count, b->node_count);
	assert_memory_equal(a->congs, b->congs, (size_t)a->cong_count * sizeof(kl_ps_conglomerate));
	assert_memory_equal(a->tris, b->tris, (size_t)a->triangle_count * sizeof(int32_t));
	assert_memory_equal(a->masks, b->masks, (size_t)a->triangle_count * sizeof(kl_ps_mask));
	assert_memory_equal(a->points, b->points, a->point_count * sizeof(kl_ps_point));
	assert_memory_equal(a->nodes, b->nodes, (size_t)a->node_count * sizeof(kl_ps_node));
	assert_int_equal(a->entry_count, b->entry_count);
	assert_memory_equal(a->entries, b->entries, a->entry_count * sizeof(kl_ps_entry));
	assert_true(a->serial != b->serial); // a GPU copy of one is never taken for the other
}

/// Changes one byte of a file at offset (from the end when negative), or cuts it to `truncate`.
static void damage_file(const char* path, long offset, long truncate)
{
	FILE* f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	if (truncate >= 0)
	{
		fclose(f);
		assert_int_equal(truncate_file(path, truncate), 0);
		return;
	}
	fseek(f, offset >= 0 ? offset : size + offset, SEEK_SET);
	int c = fgetc(f);
	fseek(f, offset >= 0 ? offset : size + offset, SEEK_SET);
	fputc(c ^ 0x5a, f);
	fclose(f);
}

/// A cache file's path in the build tree's test folder; /tmp where the binary runs away from it (a
/// GPU machine).
static void cache_path(char* path, size_t size, const char* name)
{
	snprintf(path, size, "%s/%s", access(KL_TEST_OUT_DIR, W_OK) == 0 ? KL_TEST_OUT_DIR : "/tmp", name);
	remove(path);
}

/// The default gear (into g) and its mesh, whose model is built and written to a fresh cache file.
static kl_mesh* written_gear(const char* path, kl_meshgen_mesh* g)
{
	kl_meshgen_gear_params gp = kl_meshgen_default_gear_params();
	assert_int_equal(kl_meshgen_gear(&gp, g), KL_OK);
	kl_mesh* built = build_cached(g, path);
	assert_non_null(built);
	assert_int_equal(kl_mesh_get_info(built).pointshell_cache, KL_MESH_CACHE_WRITTEN);
	return built;
}

static void test_cache_file(void** state)
{
	(void)state;
	char path[512];
	cache_path(path, sizeof(path), "test_pointshell_gear.cache");
	kl_meshgen_mesh g;
	kl_mesh* built = written_gear(path, &g);
	kl_meshgen_gear_params gp = kl_meshgen_default_gear_params();
	kl_mesh* read = build_cached(&g, path);
	assert_non_null(read);
	assert_int_equal(kl_mesh_get_info(read).pointshell_cache, KL_MESH_CACHE_READ);
	assert_same_model(built->pointshell, read->pointshell);
	kl_mesh_release(read);
	// A damaged file is not used: the model is built again, the same, and the file rewritten.
	long offsets[3] = {0, 40, -3}; // the magic, a header count, a payload byte
	for (int i = 0; i < 3; ++i)
	{
		damage_file(path, offsets[i], -1);
		kl_mesh* again = build_cached(&g, path);
		assert_non_null(again);
		assert_int_equal(kl_mesh_get_info(again).pointshell_cache, KL_MESH_CACHE_WRITTEN);
		assert_same_model(built->pointshell, again->pointshell);
		kl_mesh_release(again);
	}
	damage_file(path, 0, 1000); // cut short
	kl_mesh* cut = build_cached(&g, path);
	assert_int_equal(kl_mesh_get_info(cut).pointshell_cache, KL_MESH_CACHE_WRITTEN);
	kl_mesh_release(cut);
	// Another mesh under the same name is not given this one's model.
	kl_meshgen_gear_params other = gp;
	other.tooth_count = 12;
	kl_meshgen_mesh g2;
	assert_int_equal(kl_meshgen_gear(&other, &g2), KL_OK);
	kl_mesh* second = build_cached(&g2, path);
	assert_int_equal(kl_mesh_get_info(second).pointshell_cache, KL_MESH_CACHE_WRITTEN);
	assert_int_equal(second->pointshell->triangle_count, g2.triangle_count);
	kl_mesh_release(second);
	// A cache that cannot be written leaves a good mesh and says so.
	kl_mesh* unwritable = build_cached(&g, "/nonexistent-dir/x.cache");
	assert_non_null(unwritable);
	assert_int_equal(kl_mesh_get_info(unwritable).pointshell_cache, KL_MESH_CACHE_WRITE_FAILED);
	kl_mesh_release(unwritable);
	// A file holds its grouping: a model saved from the median cut is not read for surface clusters.
	kl_pointshell_build_def cut_def = kl_pointshell_default_build_def(), surface_def = cut_def;
	surface_def.grouping = KL_PS_GROUP_SURFACE;
	assert_int_equal(kl_pointshell_save(path, built->pointshell, &cut_def), KL_OK);
	kl_pointshell* same = kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
											 built->info.triangle_count, &cut_def);
	assert_non_null(same);
	kl_pointshell_destroy(same);
	assert_null(kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
								   built->info.triangle_count, &surface_def));
	// A file whose hashes check out but whose octree would send a walk in circles (a skip link back
	// to the root, a node its own child) or prune by the wrong cubes (a child's cube outside its
	// parent's, a level skipped) is not used either.
	kl_ps_node* nodes = built->pointshell->nodes;
	const kl_ps_conglomerate* c = built->pointshell->congs;
	int32_t inner = c->node_begin;
	assert_true(nodes[inner].child_count > 0);
	int32_t last = nodes[inner].first_child + nodes[inner].child_count - 1;
	assert_int_equal(nodes[last].depth, 1);
	for (int bad = 0; bad < 4; ++bad)
	{
		kl_ps_node* changed = bad == 1 ? nodes + inner : nodes + last;
		kl_ps_node saved = *changed;
		switch (bad)
		{
		case 0:
			changed->skip = c->node_begin;
			break;
		case 1:
			changed->first_child = inner;
			break;
		case 2:
			changed->cell = kl_ps_cell(2, 0, 0); // a depth-1 cube's x is 0 or 1
			break;
		default:
			changed->depth = 2;
			break;
		}
		assert_int_equal(kl_pointshell_save(path, built->pointshell, &cut_def), KL_OK);
		assert_null(kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
									   built->info.triangle_count, &cut_def));
		*changed = saved;
	}
	// Nor one whose leaves do not hold their points where a search looks (the search would lose
	// candidates): a point outside its leaf's cube (its entry's sphere grown to still hold it), an
	// entry's sphere too small for its points, a child's points not its parent's.
	kl_pointshell* ps = built->pointshell;
	int leaf = -1;
	for (int n = c->node_begin; n < c->node_begin + c->node_count && leaf < 0; ++n)
	{
		bool wide = false; // an entry whose points are apart, so that a radius of 0 misses one
		for (uint32_t e = nodes[n].entry_begin; e < nodes[n].entry_end; ++e)
		{
			wide = wide || ps->entries[e].radius > 1e-3f * kl_ps_node_edge(c, nodes + n);
		}
		leaf = nodes[n].child_count == 0 && nodes[n].depth > 0 && wide ? n : -1;
	}
	assert_true(leaf >= 0);
	for (int bad = 0; bad < 3; ++bad)
	{
		kl_ps_point* point = ps->points + nodes[leaf].begin;
		kl_ps_point saved_point = *point;
		uint32_t saved_begin = nodes[leaf].begin;
		kl_ps_entry saved_entries[64];
		uint32_t entry_count = nodes[leaf].entry_end - nodes[leaf].entry_begin;
		assert_true(entry_count <= 64);
		memcpy(saved_entries, ps->entries + nodes[leaf].entry_begin, entry_count * sizeof(kl_ps_entry));
		for (uint32_t e = nodes[leaf].entry_begin; e < nodes[leaf].entry_end; ++e)
		{
			if (bad == 0)
			{
				ps->entries[e].radius += 2.0f * kl_ps_node_edge(c, nodes + leaf);
			}
			else if (bad == 1)
			{
				ps->entries[e].radius = 0.0f;
			}
		}
		if (bad == 0)
		{
			point->x += 1.5f * kl_ps_node_edge(c, nodes + leaf);
		}
		else if (bad == 2)
		{
			nodes[leaf].begin += 1;
		}
		assert_int_equal(kl_pointshell_save(path, ps, &cut_def), KL_OK);
		assert_null(kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
									   built->info.triangle_count, &cut_def));
		*point = saved_point;
		nodes[leaf].begin = saved_begin;
		memcpy(ps->entries + nodes[leaf].entry_begin, saved_entries, entry_count * sizeof(kl_ps_entry));
	}
	// Nor is one holding a number that a search computes with and that is not finite (a not-a-number
	// coverage culled every pair) or so large that its square is not (a box of half size 3e38
	// overflowed the distance bounds): a conglomerate's coverage or cube, the object's box (in the
	// header), a triangle's coverage or cell, a sample, an entry's sphere.
	kl_pointshell* model = built->pointshell;
	float* values[] = {&model->congs[0].coverage, &model->congs[0].root_min.z, &model->obb.center.x,
					   &model->obb.half[2], &model->tri_coverage[0], &model->masks[0].cell[1],
					   &model->points[0].y, &model->entries[0].radius, &model->entries[0].center.x};
	const float unusable[] = {NAN, INFINITY, 3e38f};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); ++i)
	{
		for (size_t u = 0; u < sizeof(unusable) / sizeof(unusable[0]); ++u)
		{
			float saved = *values[i];
			*values[i] = unusable[u];
			assert_int_equal(kl_pointshell_save(path, built->pointshell, &cut_def), KL_OK);
			assert_null(kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
										   built->info.triangle_count, &cut_def));
			*values[i] = saved;
		}
	}
	// Unchanged, it loads again.
	assert_int_equal(kl_pointshell_save(path, built->pointshell, &cut_def), KL_OK);
	kl_pointshell* intact = kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
											   built->info.triangle_count, &cut_def);
	assert_non_null(intact);
	kl_pointshell_destroy(intact);
	kl_mesh_release(built);
	kl_meshgen_free(&g);
	kl_meshgen_free(&g2);
	remove(path);
}

/// Writes a 32-bit value into a file at offset.
static void patch_u32(const char* path, long offset, uint32_t value)
{
	FILE* f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, offset, SEEK_SET), 0);
	assert_int_equal(fwrite(&value, sizeof(value), 1, f), 1);
	fclose(f);
}

/// This process's address space in bytes (Linux), or 0 where it cannot be read.
static unsigned long long address_space(void)
{
	FILE* f = fopen("/proc/self/status", "r");
	unsigned long long kb = 0;
	char line[256];
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
	{
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
		{
			break;
		}
	}
	if (f != NULL)
	{
		fclose(f);
	}
	return kb * 1024ull;
}

/// A header whose counts ask for more than the file holds (here 2^30 - 1 samples, 16 GiB, the most
/// a header may give) is refused before anything is allocated for them, and leaves no error: the
/// load runs with 1 GiB of address space to spare, in which the allocation would fail and say so.
static void test_cache_counts_beyond_file(void** state)
{
	(void)state;
	char path[512];
	cache_path(path, sizeof(path), "test_pointshell_counts.cache");
	kl_meshgen_mesh g;
	kl_mesh* built = written_gear(path, &g);
	const kl_pointshell_build_def def = kl_pointshell_default_build_def();
	// cache_header: magic (8), version, byte order (4 each), two hashes (8 each), the vertex,
	// triangle, conglomerate and node counts (4 each), then the point count at byte 48.
	const long point_count_offset = 48;
	FILE* f = fopen(path, "rb");
	assert_non_null(f);
	uint32_t stored = 0;
	assert_int_equal(fseek(f, point_count_offset, SEEK_SET), 0);
	assert_int_equal(fread(&stored, sizeof(stored), 1, f), 1);
	fclose(f);
	assert_int_equal(stored, built->pointshell->point_count); // the offset is the point count's
	patch_u32(path, point_count_offset, (1u << 30) - 1u);
	struct rlimit saved;
	assert_int_equal(getrlimit(RLIMIT_AS, &saved), 0);
	unsigned long long used = address_space();
	struct rlimit tight = saved;
	if (used > 0 && (saved.rlim_max == RLIM_INFINITY || saved.rlim_max > used + (1ull << 30)))
	{
		tight.rlim_cur = (rlim_t)(used + (1ull << 30));
	}
	kl_clear_error();
	assert_int_equal(setrlimit(RLIMIT_AS, &tight), 0);
	kl_pointshell* read = kl_pointshell_load(path, built->vertices, built->info.vertex_count, built->indices,
											 built->info.triangle_count, &def);
	kl_result error = kl_last_error_code();
	assert_int_equal(setrlimit(RLIMIT_AS, &saved), 0);
	assert_null(read);
	assert_int_equal(error, KL_OK);
	kl_mesh_release(built);
	kl_meshgen_free(&g);
	remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache_file),
		cmocka_unit_test(test_cache_counts_beyond_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
