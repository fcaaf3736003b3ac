// Kollide — SIMDop BVH micro-benchmark. Two modes:
//  - synthetic: two bumpy spheres (~50k triangles each), build time per builder, then boolean (first-hit,
//    exact triangle test) queries at touching distance over random poses, binary k-DOP tree vs n-ary BNG
//    trees, scalar and SIMD traversals. Usage: kollide-bvh-bench [triangles-per-lat-ring (158)] [poses (200)]
//  - mesh files and a kollide-poses file (the bunny-vs-bunny measurement of docs/mesh-benchmarks.md): first-hit queries with
//    the exact kl_tri_tri_overlap leaf test, median per "# rel=" group, every configuration in one run so
//    that ratios share the machine's state. Usage:
//    kollide-bvh-bench --mesh A [--mesh-b B] --poses FILE [--reps R (5)] [--config W:K:BUILDER:TRAV[:fp16]]...
//    TRAV is scalar, 1vn, nvn or auto; ISA caps the SIMD level: append :avx2 to forbid AVX-512.
// SPDX-License-Identifier: MIT
#include "bvh.h"
#include "core.h"
#include "simd.h"
#include "tri_tri.h"

#include <kollide/io.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t s_rng = 0x9E3779B97F4A7C15ull;

static double rnd(void)
{
	s_rng = s_rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(s_rng >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct bench_mesh
{
	float* v;
	int vn;
	int* idx;
	int tn;
} bench_mesh;

static bench_mesh bumpy_sphere(int n)
{
	bench_mesh m;
	int lat = n + 1, lon = n;
	m.vn = 2 + (lat - 1) * lon;
	m.v = malloc(sizeof(float) * 3 * (size_t)m.vn);
	m.idx = malloc(sizeof(int) * 6 * (size_t)lon * (size_t)lat);
	int vi = 0;
	for (int i = 0; i <= lat; ++i)
	{
		double th = GLM_PI * i / lat;
		int count = (i == 0 || i == lat) ? 1 : lon;
		for (int j = 0; j < count; ++j)
		{
			double ph = 2.0 * GLM_PI * j / lon;
			double r = 1.0 + 0.04 * sin(13.0 * th) * cos(11.0 * ph) + 0.004 * (rnd() - 0.5);
			m.v[3 * vi + 0] = (float)(r * sin(th) * cos(ph));
			m.v[3 * vi + 1] = (float)(r * sin(th) * sin(ph));
			m.v[3 * vi + 2] = (float)(r * cos(th));
			vi++;
		}
	}
	int ti = 0;
	for (int j = 0; j < lon; ++j)
	{
		m.idx[3 * ti] = 0, m.idx[3 * ti + 1] = 1 + j, m.idx[3 * ti + 2] = 1 + (j + 1) % lon, ti++;
	}
	for (int i = 1; i < lat - 1; ++i)
	{
		for (int j = 0; j < lon; ++j)
		{
			int a = 1 + (i - 1) * lon + j, b = 1 + (i - 1) * lon + (j + 1) % lon;
			m.idx[3 * ti] = a, m.idx[3 * ti + 1] = a + lon, m.idx[3 * ti + 2] = b, ti++;
			m.idx[3 * ti] = b, m.idx[3 * ti + 1] = a + lon, m.idx[3 * ti + 2] = b + lon, ti++;
		}
	}
	for (int j = 0; j < lon; ++j)
	{
		int a = 1 + (lat - 2) * lon + j, b = 1 + (lat - 2) * lon + (j + 1) % lon;
		m.idx[3 * ti] = a, m.idx[3 * ti + 1] = m.vn - 1, m.idx[3 * ti + 2] = b, ti++;
	}
	m.tn = ti;
	return m;
}

/// Leaf test context: A's vertices and B's vertices moved into A's frame (double).
typedef struct bench_ctx
{
	const bench_mesh* m;
	double* vb;
} bench_ctx;

static double dot(const double* a, const double* b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static bool separated(const double (*t1)[3], const double (*t2)[3], const double* ax)
{
	double a0 = dot(ax, t1[0]), a1 = a0, b0 = dot(ax, t2[0]), b1 = b0;
	for (int i = 1; i < 3; ++i)
	{
		double p = dot(ax, t1[i]), q = dot(ax, t2[i]);
		a0 = fmin(a0, p), a1 = fmax(a1, p), b0 = fmin(b0, q), b1 = fmax(b1, q);
	}
	return a1 < b0 || b1 < a0;
}

static void cross(const double* a, const double* b, double* r)
{
	r[0] = a[1] * b[2] - a[2] * b[1], r[1] = a[2] * b[0] - a[0] * b[2], r[2] = a[0] * b[1] - a[1] * b[0];
}

/// Triangle–triangle SAT (normals, edge cross products, in-plane edge normals); touching counts.
static bool tri_tri(int ta, int tb, void* ctx)
{
	const bench_ctx* c = ctx;
	double t1[3][3], t2[3][3], e1[3][3], e2[3][3], n1[3], n2[3], ax[3];
	for (int j = 0; j < 3; ++j)
	{
		const float* p = c->m->v + 3 * c->m->idx[3 * ta + j];
		const double* q = c->vb + 3 * c->m->idx[3 * tb + j];
		for (int k = 0; k < 3; ++k)
		{
			t1[j][k] = p[k];
			t2[j][k] = q[k];
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			e1[i][k] = t1[(i + 1) % 3][k] - t1[i][k];
			e2[i][k] = t2[(i + 1) % 3][k] - t2[i][k];
		}
	}
	cross(e1[0], e1[1], n1);
	cross(e2[0], e2[1], n2);
	if (separated((const double(*)[3])t1, (const double(*)[3])t2, n1) || separated((const double(*)[3])t1, (const double(*)[3])t2, n2))
	{
		return false;
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			cross(e1[i], e2[j], ax);
			if (dot(ax, ax) > 1e-30 && separated((const double(*)[3])t1, (const double(*)[3])t2, ax))
			{
				return false;
			}
		}
		cross(n1, e1[i], ax);
		if (separated((const double(*)[3])t1, (const double(*)[3])t2, ax))
		{
			return false;
		}
		cross(n2, e2[i], ax);
		if (separated((const double(*)[3])t1, (const double(*)[3])t2, ax))
		{
			return false;
		}
	}
	return true;
}

static void move_b(const bench_mesh* m, kl_transform pose, double* vb)
{
	double x = pose.q.x, y = pose.q.y, z = pose.q.z, w = pose.q.w;
	double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
					  {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
					  {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
	double p[3] = {pose.p.x, pose.p.y, pose.p.z};
	for (int v = 0; v < m->vn; ++v)
	{
		for (int c = 0; c < 3; ++c)
		{
			vb[3 * v + c] = R[c][0] * m->v[3 * v] + R[c][1] * m->v[3 * v + 1] + R[c][2] * m->v[3 * v + 2] + p[c];
		}
	}
}

static bool hit_at(const kl_bvh* t, bench_ctx* c, versors q, const double dir[3], double d)
{
	kl_transform pose = {kl_vec3((float)(dir[0] * d), (float)(dir[1] * d), (float)(dir[2] * d)), q};
	move_b(c->m, pose, c->vb);
	kl_bvh_query query = {KL_BVH_FIRST_HIT, KL_BVH_TRAVERSE_AUTO, 0.0f, tri_tri, c, NULL, 0};
	kl_bvh_result r;
	kl_bvh_collide(t, t, pose, &query, &r);
	return r.hit;
}

typedef struct bench_config
{
	const char* name;
	int width;
	int k;
	kl_bvh_builder builder;
	bool fp16;
	kl_bvh_traversal traversal;
} bench_config;

static int cmp_double(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static double median(double* v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char* s_builder_names[] = {"longest", "median", "middle", "bng"};

// ---- mesh-file mode ----

typedef struct file_mesh
{
	float* v;
	int vn;
	int* idx;
	int tn;
} file_mesh;

static bool load_mesh(const char* path, file_mesh* m)
{
	kl_mesh_data d;
	if (kl_mesh_data_load(path, &d) != KL_OK)
	{
		fprintf(stderr, "kollide-bvh-bench: %s: %s\n", path, kl_last_error());
		return false;
	}
	m->vn = d.vertex_count;
	m->tn = d.triangle_count;
	m->v = malloc(sizeof(float) * 3 * (size_t)m->vn);
	m->idx = malloc(sizeof(int) * 3 * (size_t)m->tn);
	for (int i = 0; i < m->vn; ++i)
	{
		m->v[3 * i] = d.vertices[i].x, m->v[3 * i + 1] = d.vertices[i].y, m->v[3 * i + 2] = d.vertices[i].z;
	}
	for (int i = 0; i < 3 * m->tn; ++i)
	{
		m->idx[i] = d.indices[i];
	}
	kl_mesh_data_free(&d);
	return true;
}

/// Poses (row-major 3×4 of a 4×4 per line) with the group index of the last "# rel=" comment.
typedef struct pose_set
{
	double (*m)[12];
	int* group;
	int count;
	char rel[16][32];
	int groups;
} pose_set;

static bool load_poses(const char* path, pose_set* ps)
{
	FILE* f = fopen(path, "r");
	if (f == NULL)
	{
		fprintf(stderr, "kollide-bvh-bench: cannot open %s\n", path);
		return false;
	}
	int cap = 256;
	ps->m = malloc(sizeof(*ps->m) * (size_t)cap);
	ps->group = malloc(sizeof(int) * (size_t)cap);
	ps->count = 0;
	ps->groups = 0;
	char line[4096];
	while (fgets(line, sizeof(line), f) != NULL)
	{
		if (strncmp(line, "# rel=", 6) == 0 && ps->groups < 16)
		{
			sscanf(line + 6, "%31s", ps->rel[ps->groups++]);
			continue;
		}
		double v[16];
		int n = 0;
		char* s = line;
		while (n < 16)
		{
			char* end;
			v[n] = strtod(s, &end);
			if (end == s)
			{
				break;
			}
			n++;
			s = end + strspn(end, ", \t");
		}
		if (line[0] == '#' || n != 16)
		{
			continue;
		}
		if (ps->count == cap)
		{
			cap *= 2;
			ps->m = realloc(ps->m, sizeof(*ps->m) * (size_t)cap);
			ps->group = realloc(ps->group, sizeof(int) * (size_t)cap);
		}
		memcpy(ps->m[ps->count], v, sizeof(double) * 12);
		ps->group[ps->count] = ps->groups > 0 ? ps->groups - 1 : 0;
		ps->count++;
	}
	fclose(f);
	if (ps->groups == 0)
	{
		strcpy(ps->rel[0], "all");
		ps->groups = 1;
	}
	return ps->count > 0;
}

/// Leaf test as kollide-collide does it: A's triangle as stored, B's vertices moved by the pose in double.
typedef struct file_ctx
{
	const file_mesh* a;
	const file_mesh* b;
	const double* m; ///< row-major 3×4
} file_ctx;

static vec3s file_move(const file_ctx* c, int vi)
{
	const float* p = c->b->v + 3 * (size_t)vi;
	const double* m = c->m;
	double x = p[0], y = p[1], z = p[2];
	return kl_vec3((float)(m[0] * x + m[1] * y + m[2] * z + m[3]), (float)(m[4] * x + m[5] * y + m[6] * z + m[7]),
				   (float)(m[8] * x + m[9] * y + m[10] * z + m[11]));
}

static bool file_leaf(int ta, int tb, void* ctx)
{
	const file_ctx* c = ctx;
	vec3s a[3], b[3];
	for (int j = 0; j < 3; ++j)
	{
		const float* p = c->a->v + 3 * (size_t)c->a->idx[3 * ta + j];
		a[j] = kl_vec3(p[0], p[1], p[2]);
		b[j] = file_move(c, c->b->idx[3 * tb + j]);
	}
	return kl_tri_tri_overlap(a, b);
}

typedef struct file_config
{
	char name[64];
	kl_bvh_build_def def;
	kl_bvh_traversal traversal;
} file_config;

static bool parse_config(const char* spec, file_config* fc)
{
	char trav[16] = "", builder[16] = "", extra[16] = "";
	fc->def = kl_bvh_default_build_def();
	int n = sscanf(spec, "%d:%d:%15[^:]:%15[^:]:%15s", &fc->def.width, &fc->def.k, builder, trav, extra);
	if (n < 4)
	{
		return false;
	}
	int b = -1;
	for (int i = 0; i < KL_BVH_BUILDER_COUNT; ++i)
	{
		b = strcmp(builder, s_builder_names[i]) == 0 ? i : b;
	}
	fc->def.builder = (kl_bvh_builder)(b < 0 ? 0 : b);
	fc->def.fp16 = strcmp(extra, "fp16") == 0;
	fc->traversal = strcmp(trav, "scalar") == 0 ? KL_BVH_TRAVERSE_SCALAR
					: strcmp(trav, "1vn") == 0	? KL_BVH_TRAVERSE_1VN
					: strcmp(trav, "nvn") == 0	? KL_BVH_TRAVERSE_NVN
												: KL_BVH_TRAVERSE_AUTO;
	snprintf(fc->name, sizeof(fc->name), "%s", spec);
	return b >= 0;
}

static const char* s_default_configs[] = {
	"2:32:longest:scalar", "8:26:bng:scalar", "8:26:bng:1vn",	   "8:26:bng:nvn",		"8:46:bng:1vn",
	"16:26:bng:1vn",	   "16:46:bng:1vn",	  "4:26:bng:nvn",	   "8:26:bng:1vn:fp16", "16:26:bng:1vn:fp16",
};

static int file_mode(int argc, char** argv)
{
	const char* mesh_a = NULL;
	const char* mesh_b = NULL;
	const char* poses_path = NULL;
	int reps = 5;
	file_config configs[32];
	int nc = 0;
	for (int i = 1; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "--mesh") == 0)
			mesh_a = argv[i + 1];
		else if (strcmp(argv[i], "--mesh-b") == 0)
			mesh_b = argv[i + 1];
		else if (strcmp(argv[i], "--poses") == 0)
			poses_path = argv[i + 1];
		else if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
		else if (strcmp(argv[i], "--config") == 0 && nc < 32)
		{
			if (!parse_config(argv[i + 1], configs + nc++))
			{
				fprintf(stderr, "kollide-bvh-bench: bad --config %s (W:K:BUILDER:TRAV[:fp16])\n", argv[i + 1]);
				return 2;
			}
		}
		else
		{
			fprintf(stderr, "kollide-bvh-bench: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (mesh_a == NULL || poses_path == NULL)
	{
		fprintf(stderr, "kollide-bvh-bench: --mesh A and --poses FILE are required\n");
		return 2;
	}
	if (nc == 0)
	{
		for (int i = 0; i < (int)(sizeof(s_default_configs) / sizeof(s_default_configs[0])); ++i)
		{
			parse_config(s_default_configs[i], configs + nc++);
		}
	}
	file_mesh ma, mb;
	pose_set ps;
	if (!load_mesh(mesh_a, &ma) || !load_mesh(mesh_b != NULL ? mesh_b : mesh_a, &mb) || !load_poses(poses_path, &ps))
	{
		return 1;
	}
	printf("A %s (%d triangles), B %s (%d triangles), %d poses in %d groups, %d reps, SIMD %s\n", mesh_a, ma.tn,
		   mesh_b != NULL ? mesh_b : mesh_a, mb.tn, ps.count, ps.groups, reps, kl_simd_level_name(kl_simd_level_get()));
	double* bv = malloc(sizeof(double) * (size_t)nc * (size_t)ps.count);
	double* lt = malloc(sizeof(double) * (size_t)nc * (size_t)ps.count);
	double* lc = malloc(sizeof(double) * (size_t)nc * (size_t)ps.count);
	double* med = calloc((size_t)nc * 16, sizeof(double));
	int* hits = calloc((size_t)nc * 16, sizeof(int));
	kl_bvh_traversal used[32] = {0};
	kl_bvh_simd simd[32] = {0};
	// Build every tree first, then time the configurations pose by pose (interleaved), so that the
	// machine's load drifts over all of them alike; ratios are also taken pose by pose.
	kl_bvh** ta = calloc((size_t)nc, sizeof(kl_bvh*));
	kl_bvh** tb = calloc((size_t)nc, sizeof(kl_bvh*));
	for (int c = 0; c < nc; ++c)
	{
		ta[c] = kl_bvh_build(ma.v, ma.vn, ma.idx, ma.tn, &configs[c].def);
		tb[c] = mesh_b != NULL ? kl_bvh_build(mb.v, mb.vn, mb.idx, mb.tn, &configs[c].def) : ta[c];
		if (ta[c] == NULL || tb[c] == NULL)
		{
			fprintf(stderr, "kollide-bvh-bench: build %s failed: %s\n", configs[c].name, kl_last_error());
			return 1;
		}
		const kl_bvh* t = ta[c];
		printf("%-24s build %7.1f ms  nodes %6d (%5.2f lanes used of %2d)  depth %2d  %6.2f MB = %5.1f B/tri "
			   "(+%d B/tri triangle records)\n",
			   configs[c].name, t->build_seconds * 1e3, t->node_count,
			   (double)(t->node_count - 1 + t->triangle_count) / t->node_count, t->width, t->depth,
			   kl_bvh_memory_bytes(t) / 1048576.0, (double)kl_bvh_memory_bytes(t) / t->triangle_count,
			   (int)(KL_BVH_TRI_FLOATS * sizeof(float)));
	}
	double* tm = malloc(sizeof(double) * (size_t)nc * (size_t)ps.count);
	double* ratio = malloc(sizeof(double) * (size_t)ps.count);
	printf("\nfirst-hit queries, median over the poses of each group of the best of %d runs; ratio = first "
		   "config's time / this one's (median of per-pose ratios)\n",
		   reps);
	for (int g = 0; g < ps.groups; ++g)
	{
		int n = 0;
		for (int p = 0; p < ps.count; ++p)
		{
			if (ps.group[p] != g)
			{
				continue;
			}
			file_ctx ctx = {&ma, &mb, ps.m[p]};
			float m34[12];
			for (int i = 0; i < 12; ++i)
			{
				m34[i] = (float)ps.m[p][i];
			}
			for (int c = 0; c < nc; ++c)
			{
				kl_bvh_query query = {KL_BVH_FIRST_HIT, configs[c].traversal, 0.0f, file_leaf, &ctx, NULL, 0};
				kl_bvh_result r;
				double best = INFINITY;
				for (int rep = 0; rep < reps; ++rep)
				{
					double t0 = kl_time_seconds();
					kl_bvh_collide_m34(ta[c], tb[c], m34, &query, &r);
					best = fmin(best, kl_time_seconds() - t0);
				}
				tm[(size_t)c * ps.count + n] = best * 1e6;
				bv[(size_t)c * ps.count + n] = (double)r.counters.bv_tests;
				lt[(size_t)c * ps.count + n] = (double)r.counters.leaf_tests;
				lc[(size_t)c * ps.count + n] = (double)r.counters.leaf_culled;
				hits[c * 16 + g] += r.hit ? 1 : 0;
				used[c] = r.used;
				simd[c] = r.simd;
			}
			n++;
		}
		printf("\nrel=%s (%d poses)\n%-24s %9s %8s %10s %9s %9s %7s  %s\n", ps.rel[g], n, "config", "median us", "ratio",
			   "BV tests", "leaf", "culled", "hits", "traversal");
		for (int c = 0; c < nc; ++c)
		{
			double* row = tm + (size_t)c * ps.count;
			for (int i = 0; i < n; ++i)
			{
				ratio[i] = tm[i] / row[i];
			}
			static const char* trav_names[] = {"auto", "scalar", "1vN", "NvN"};
			static const char* simd_names[] = {"", " avx2", " avx512"};
			printf("%-24s %9.2f %7.2fx %10.0f %9.0f %9.0f %3d/%-3d  %s%s\n", configs[c].name, median(row, n),
				   median(ratio, n), median(bv + (size_t)c * ps.count, n), median(lt + (size_t)c * ps.count, n),
				   median(lc + (size_t)c * ps.count, n), hits[c * 16 + g], n, trav_names[used[c]], simd_names[simd[c]]);
			med[c * 16 + g] = median(row, n);
		}
	}
	for (int c = 0; c < nc; ++c)
	{
		if (tb[c] != ta[c])
		{
			kl_bvh_destroy(tb[c]);
		}
		kl_bvh_destroy(ta[c]);
	}
	free(ta), free(tb), free(tm), free(ratio);
	free(bv), free(lt), free(lc), free(med), free(hits);
	free(ps.m), free(ps.group);
	free(ma.v), free(ma.idx), free(mb.v), free(mb.idx);
	return 0;
}

int main(int argc, char** argv)
{
	if (argc > 1 && strncmp(argv[1], "--", 2) == 0)
	{
		return file_mode(argc, argv);
	}
	int n = argc > 1 ? atoi(argv[1]) : 158;
	int poses = argc > 2 ? atoi(argv[2]) : 200;
	bench_mesh m = bumpy_sphere(n < 4 ? 4 : n);
	printf("bumpy sphere: %d triangles, %d poses, SIMD level %s\n", m.tn, poses, kl_simd_level_name(kl_simd_level_get()));

	// Build times.
	static const int widths[] = {2, 8, 16};
	for (int w = 0; w < 3; ++w)
	{
		for (int b = 0; b < KL_BVH_BUILDER_COUNT; ++b)
		{
			kl_bvh_build_def def = kl_bvh_default_build_def();
			def.width = widths[w];
			def.k = widths[w] == 2 ? 32 : 26;
			def.builder = (kl_bvh_builder)b;
			kl_bvh* t = kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def);
			printf("build width %d k %d %-8s %8.1f ms  nodes %6d depth %2d  %7.2f MB  fallbacks %d\n", def.width, def.k,
				   s_builder_names[b], t->build_seconds * 1e3, t->node_count, t->depth, kl_bvh_memory_bytes(t) / 1048576.0,
				   t->bng_fallbacks);
			kl_bvh_destroy(t);
		}
	}

	static const bench_config configs[] = {
		{"binary k32 longest scalar", 2, 32, KL_BVH_BUILD_LONGEST_AXIS, false, KL_BVH_TRAVERSE_SCALAR},
		{"binary k32 bng scalar", 2, 32, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_SCALAR},
		{"8-ary k26 bng scalar", 8, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_SCALAR},
		{"8-ary k26 bng 1vN", 8, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_1VN},
		{"8-ary k26 bng NvN", 8, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_NVN},
		{"8-ary k26 bng fp16 1vN", 8, 26, KL_BVH_BUILD_BNG, true, KL_BVH_TRAVERSE_1VN},
		{"8-ary k46 bng 1vN", 8, 46, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_1VN},
		{"8-ary k26 longest 1vN", 8, 26, KL_BVH_BUILD_LONGEST_AXIS, false, KL_BVH_TRAVERSE_1VN},
		{"8-ary k26 median 1vN", 8, 26, KL_BVH_BUILD_MEDIAN, false, KL_BVH_TRAVERSE_1VN},
		{"16-ary k26 bng 1vN", 16, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_1VN},
		{"16-ary k46 bng 1vN", 16, 46, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_1VN},
		{"4-ary k26 bng NvN", 4, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_NVN},
	};
	int nc = (int)(sizeof(configs) / sizeof(configs[0]));
	kl_bvh* trees[16];
	int hit_ref = 3; // the reference for the touching bisection below: 8-ary k26 BNG 1vN
	for (int c = 0; c < nc; ++c)
	{
		kl_bvh_build_def def = kl_bvh_default_build_def();
		def.width = configs[c].width;
		def.k = configs[c].k;
		def.builder = configs[c].builder;
		def.fp16 = configs[c].fp16;
		trees[c] = kl_bvh_build(m.v, m.vn, m.idx, m.tn, &def);
	}

	// Touching poses: random orientation and direction; bisection on the distance until the copies just
	// touch (the reference 8-ary tree and the exact test decide), then query at the touching (hit) end.
	bench_ctx ctx = {&m, malloc(sizeof(double) * 3 * (size_t)m.vn)};
	versors* pq = malloc(sizeof(versors) * (size_t)poses);
	double* pd = malloc(sizeof(double) * 5 * (size_t)poses);
	for (int p = 0; p < poses; ++p)
	{
		double q[4], nq;
		do
		{
			nq = 0.0;
			for (int i = 0; i < 4; ++i)
			{
				q[i] = 2.0 * rnd() - 1.0;
				nq += q[i] * q[i];
			}
		} while (nq > 1.0 || nq < 0.01);
		nq = sqrt(nq);
		pq[p] = (versors){{(float)(q[0] / nq), (float)(q[1] / nq), (float)(q[2] / nq), (float)(q[3] / nq)}};
		double dir[3], nd = 0.0;
		do
		{
			nd = 0.0;
			for (int i = 0; i < 3; ++i)
			{
				dir[i] = 2.0 * rnd() - 1.0;
				nd += dir[i] * dir[i];
			}
		} while (nd > 1.0 || nd < 0.01);
		nd = sqrt(nd);
		double lo = 1.0, hi = 2.2; // hit at lo, miss at hi
		for (int it = 0; it < 30; ++it)
		{
			double mid = 0.5 * (lo + hi);
			double d3[3] = {dir[0] / nd, dir[1] / nd, dir[2] / nd};
			if (hit_at(trees[hit_ref], &ctx, pq[p], d3, mid))
			{
				lo = mid;
			}
			else
			{
				hi = mid;
			}
		}
		pd[5 * p + 0] = dir[0] / nd, pd[5 * p + 1] = dir[1] / nd, pd[5 * p + 2] = dir[2] / nd, pd[5 * p + 3] = lo;
		pd[5 * p + 4] = hi;
	}

	double* us = malloc(sizeof(double) * (size_t)poses);
	double* bv = malloc(sizeof(double) * (size_t)poses);
	double* lt = malloc(sizeof(double) * (size_t)poses);
	// Three placements per pose: touching (hit end of the bisection), near miss (the miss end, 1e-9
	// apart: the whole contact region is traversed without a hit), far (the roots' DOPs separate: the
	// fixed cost of a query, mostly the realignment plan).
	static const char* kind[3] = {"touching", "near miss", "far"};
	for (int k = 0; k < 3; ++k)
	{
		double base_us = 0.0;
		printf("\nboolean first-hit, %-11s   %10s %12s %12s %9s %8s\n", kind[k], "us/query", "BV tests", "leaf tests", "hits",
			   "speedup");
		for (int c = 0; c < nc; ++c)
		{
			int hits = 0;
			for (int p = 0; p < poses; ++p)
			{
				const double* d = pd + 5 * p;
				double dist = k == 0 ? d[3] : (k == 1 ? d[4] : 4.0);
				kl_transform pose = {kl_vec3((float)(d[0] * dist), (float)(d[1] * dist), (float)(d[2] * dist)), pq[p]};
				move_b(&m, pose, ctx.vb);
				kl_bvh_query query = {KL_BVH_FIRST_HIT, configs[c].traversal, 0.0f, tri_tri, &ctx, NULL, 0};
				kl_bvh_result r;
				double best = INFINITY;
				for (int rep = 0; rep < 3; ++rep)
				{
					double t0 = kl_time_seconds();
					kl_bvh_collide(trees[c], trees[c], pose, &query, &r);
					best = fmin(best, kl_time_seconds() - t0);
				}
				us[p] = best * 1e6;
				bv[p] = (double)r.counters.bv_tests;
				lt[p] = (double)r.counters.leaf_tests;
				hits += r.hit ? 1 : 0;
			}
			double mu = median(us, poses);
			if (c == 0)
			{
				base_us = mu;
			}
			printf("%-32s %10.2f %12.0f %12.0f %5d/%-3d %7.2fx\n", configs[c].name, mu, median(bv, poses),
				   median(lt, poses), hits, poses, base_us / mu);
		}
	}
	for (int c = 0; c < nc; ++c)
	{
		kl_bvh_destroy(trees[c]);
	}
	free(us), free(bv), free(lt), free(pq), free(pd), free(ctx.vb);
	free(m.v), free(m.idx);
	return 0;
}
