// Kollide — SIMDop BVH micro-benchmark: two bumpy spheres (~50k triangles each), build time per builder,
// then boolean (first-hit, exact triangle test) queries at touching distance over random poses, binary
// k-DOP tree vs n-ary BNG trees, scalar and AVX2 traversals. Prints one line per configuration.
// Usage: kollide-bvh-bench [triangles-per-lat-ring (default 158)] [poses (default 200)]
// SPDX-License-Identifier: MIT
#include "bvh.h"
#include "core.h"
#include "simd.h"

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

int main(int argc, char** argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 158;
	int poses = argc > 2 ? atoi(argv[2]) : 200;
	bench_mesh m = bumpy_sphere(n < 4 ? 4 : n);
	printf("bumpy sphere: %d triangles, %d poses, SIMD level %s\n", m.tn, poses, kl_simd_level_name(kl_simd_level_get()));

	// Build times.
	static const int widths[] = {2, 8};
	for (int w = 0; w < 2; ++w)
	{
		for (int b = 0; b < KL_BVH_BUILDER_COUNT; ++b)
		{
			kl_bvh_build_def def = kl_bvh_default_build_def();
			def.width = widths[w];
			def.k = widths[w] == 2 ? 32 : 46;
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
		{"8-ary k46 bng scalar", 8, 46, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_SCALAR},
		{"8-ary k46 bng 1vN", 8, 46, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_1VN},
		{"8-ary k46 bng NvN", 8, 46, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_NVN},
		{"8-ary k46 bng fp16 1vN", 8, 46, KL_BVH_BUILD_BNG, true, KL_BVH_TRAVERSE_1VN},
		{"8-ary k26 bng 1vN", 8, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_1VN},
		{"8-ary k46 longest 1vN", 8, 46, KL_BVH_BUILD_LONGEST_AXIS, false, KL_BVH_TRAVERSE_1VN},
		{"8-ary k46 median 1vN", 8, 46, KL_BVH_BUILD_MEDIAN, false, KL_BVH_TRAVERSE_1VN},
		{"4-ary k26 bng NvN", 4, 26, KL_BVH_BUILD_BNG, false, KL_BVH_TRAVERSE_NVN},
	};
	int nc = (int)(sizeof(configs) / sizeof(configs[0]));
	kl_bvh* trees[16];
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
			if (hit_at(trees[3], &ctx, pq[p], d3, mid))
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
