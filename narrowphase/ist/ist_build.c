// Kollide — building an inner-sphere tree's nodes: top-down, each node's spheres split into as many
// clusters as a full tree of `width` needs (at most width) by Batch Neural Gas with magnification control (seed §2.2: a
// sphere weighs its volume 4/3 π r³, so large spheres draw prototypes), falling back to equal parts along the longest
// axis when a cluster comes out empty or holds more than 90 % of the spheres. A cluster of one sphere becomes a lane
// holding that sphere; larger ones become child nodes with their bounding sphere in the parent's lane.
// SPDX-License-Identifier: MIT
#include "ist.h"

#include "bng.h"
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ist_builder
{
	kl_sphere_tree* t;
	const kl_sphere_tree_def* def;
	float* weight;		  ///< per sphere: its volume
	float* sample;		  ///< [3 · sample limit] a node's strided sample of centres
	float* sample_weight; ///< [sample limit] their weights, scaled to at most 1
	int* label;			  ///< [sphere count] a node's cluster per sphere
	int* scratch;		  ///< [sphere count]
	kl_float_key* keys;	  ///< [sphere count] the longest-axis fallback's sort
} ist_builder;

static const float* centre(const ist_builder* bd, int sphere)
{
	return bd->t->spheres[sphere].center.raw;
}

/// Equal parts along the longest axis of the centres' box (ties by input index).
static int split_longest_axis(ist_builder* bd, int* idx, int count, int W, int* size)
{
	float lo[3] = {INFINITY, INFINITY, INFINITY};
	float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int i = 0; i < count; ++i)
	{
		for (int c = 0; c < 3; ++c)
		{
			lo[c] = kl_minf(lo[c], centre(bd, idx[i])[c]);
			hi[c] = kl_maxf(hi[c], centre(bd, idx[i])[c]);
		}
	}
	int axis = 0;
	for (int c = 1; c < 3; ++c)
	{
		axis = hi[c] - lo[c] > hi[axis] - lo[axis] ? c : axis;
	}
	for (int i = 0; i < count; ++i)
	{
		bd->keys[i] = (kl_float_key){centre(bd, idx[i])[axis], idx[i]};
	}
	qsort(bd->keys, (size_t)count, sizeof(kl_float_key), kl_compare_float_keys);
	for (int i = 0; i < count; ++i)
	{
		idx[i] = bd->keys[i].index;
	}
	for (int g = 0; g < W; ++g)
	{
		size[g] = (int)(((int64_t)count * (g + 1)) / W - ((int64_t)count * g) / W);
	}
	return W;
}

/// Children a node of count spheres gets: as many as a full tree needs, so that the subtrees below
/// fill their nodes. With L levels for count spheres (width^L ≥ count), a child holds up to width^(L−1).
static int child_count(int width, int count)
{
	int64_t below = 1;
	while (below * width < count)
	{
		below *= width;
	}
	int64_t k = (count + below - 1) / below;
	return k < 2 ? 2 : (int)k;
}

/// Batch Neural Gas clusters of the node's spheres; reorders idx into contiguous groups. Returns the
/// group count, or 0 when the clustering is unusable.
static int split_bng(ist_builder* bd, int* idx, int count, int W, int* size)
{
	int limit = bd->def->bng_sample_limit > bd->t->width ? bd->def->bng_sample_limit : bd->t->width;
	int m = count < limit ? count : limit;
	float largest = 0.0f;
	for (int s = 0; s < m; ++s)
	{
		int j = idx[(int)(((int64_t)s * count) / m)];
		memcpy(bd->sample + 3 * s, centre(bd, j), 3 * sizeof(float));
		bd->sample_weight[s] = bd->weight[j];
		largest = kl_maxf(largest, bd->weight[j]);
	}
	for (int s = 0; s < m && largest > 0.0f; ++s)
	{
		bd->sample_weight[s] /= largest; // tiny spheres' volumes would underflow the weighted sums
	}
	kl_bng_def bng = {
		.iterations = bd->def->bng_iterations,
		.lambda_final = bd->def->bng_lambda_final,
		.seed = bd->def->seed ^ ((uint64_t)(uint32_t)count * 0x9E3779B97F4A7C15ull) ^
				((uint64_t)(uint32_t)idx[0] << 32) ^ (uint64_t)(uint32_t)idx[count - 1],
	};
	float w[3 * KL_BNG_MAX_PROTOTYPES];
	bool weighted = bd->def->magnification && largest > 0.0f;
	kl_bng_fit(bd->sample, weighted ? bd->sample_weight : NULL, m, W, &bng, w);
	memset(size, 0, (size_t)W * sizeof(int));
	for (int i = 0; i < count; ++i)
	{
		bd->label[i] = kl_bng_nearest(centre(bd, idx[i]), w, W);
		size[bd->label[i]] += 1;
	}
	for (int g = 0; g < W; ++g)
	{
		if (size[g] == 0 || (double)size[g] > 0.9 * count)
		{
			return 0;
		}
	}
	int start[KL_IST_MAX_WIDTH];
	for (int g = 0, acc = 0; g < W; ++g)
	{
		start[g] = acc;
		acc += size[g];
	}
	for (int i = 0; i < count; ++i)
	{
		bd->scratch[start[bd->label[i]]++] = idx[i];
	}
	memcpy(idx, bd->scratch, (size_t)count * sizeof(int));
	return W;
}

/// Largest |c − c_i| + r_i over the spheres, in double, and which sphere reaches it.
static double enclosing_radius(const kl_sphere* s, const int* idx, int count, const double* c, int* farthest)
{
	double r = -1.0;
	for (int i = 0; i < count; ++i)
	{
		const kl_sphere* e = &s[idx[i]];
		double dx = e->center.x - c[0];
		double dy = e->center.y - c[1];
		double dz = e->center.z - c[2];
		double reach = sqrt(dx * dx + dy * dy + dz * dz) + e->radius;
		if (reach > r)
		{
			r = reach;
			*farthest = idx[i];
		}
	}
	return r;
}

/// Steps of the centre towards the farthest sphere's far side (Bădoiu–Clarkson) after the start.
#define KL_IST_ENCLOSE_STEPS 32

/// A sphere around the spheres: from the better of their box's centre and their volume-weighted
/// centroid, a few Bădoiu–Clarkson steps towards the farthest sphere, the smallest radius seen kept;
/// the radius rounded up with a margin of a few float steps of the coordinates, so that a child sphere
/// that overlaps another after the query's float transform still has its parent overlap.
static kl_sphere enclose(const ist_builder* bd, const int* idx, int count)
{
	const kl_sphere* s = bd->t->spheres;
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	double mean[3] = {0.0, 0.0, 0.0};
	double total = 0.0;
	for (int i = 0; i < count; ++i)
	{
		const kl_sphere* e = &s[idx[i]];
		double u = (double)bd->weight[idx[i]] + 1e-300;
		for (int c = 0; c < 3; ++c)
		{
			lo[c] = fmin(lo[c], (double)e->center.raw[c] - e->radius);
			hi[c] = fmax(hi[c], (double)e->center.raw[c] + e->radius);
			mean[c] += u * e->center.raw[c];
		}
		total += u;
	}
	double box[3];
	double at[3];
	for (int c = 0; c < 3; ++c)
	{
		box[c] = (double)(float)(0.5 * (lo[c] + hi[c]));
		at[c] = (double)(float)(mean[c] / total);
	}
	int far_box = idx[0];
	int far = idx[0];
	double r_box = enclosing_radius(s, idx, count, box, &far_box);
	double r = enclosing_radius(s, idx, count, at, &far);
	if (r_box <= r)
	{
		memcpy(at, box, sizeof(at));
		r = r_box;
		far = far_box;
	}
	double best[3] = {at[0], at[1], at[2]};
	double best_r = r;
	for (int step = 1; step <= KL_IST_ENCLOSE_STEPS; ++step)
	{
		const kl_sphere* e = &s[far];
		double to[3] = {e->center.x - at[0], e->center.y - at[1], e->center.z - at[2]};
		double len = sqrt(to[0] * to[0] + to[1] * to[1] + to[2] * to[2]);
		double reach = len > 0.0 ? (len + e->radius) / len : 0.0;
		for (int c = 0; c < 3; ++c)
		{
			at[c] = (double)(float)(at[c] + to[c] * reach / (step + 1));
		}
		r = enclosing_radius(s, idx, count, at, &far);
		if (r < best_r)
		{
			best_r = r;
			memcpy(best, at, sizeof(best));
		}
	}
	double size = fmax(fmax(fabs(best[0]), fabs(best[1])), fmax(fabs(best[2]), best_r));
	kl_sphere out = {{{(float)best[0], (float)best[1], (float)best[2]}}, (float)(best_r + 1e-6 * size)};
	return out;
}

static void set_lane(kl_sphere_tree* t, int node, int lane, kl_sphere s, int32_t code)
{
	float* n = t->lanes + (size_t)node * 4 * t->width;
	n[lane] = s.center.x;
	n[t->width + lane] = s.center.y;
	n[2 * t->width + lane] = s.center.z;
	n[3 * t->width + lane] = s.radius;
	t->child[(size_t)node * t->width + lane] = code;
}

/// Which groups put their spheres straight into the node's free lanes instead of a child node of their
/// own (which would hold only spheres): the smallest first while lanes are free. A lane less to open
/// and a node less to visit cost nothing in a SIMD pass that tests all lanes anyway.
static void inline_small_groups(const int* size, int groups, int width, bool* inline_group)
{
	int free_lanes = width - groups;
	for (int g = 0; g < groups; ++g)
	{
		inline_group[g] = false;
	}
	while (free_lanes > 0)
	{
		int pick = -1;
		for (int g = 0; g < groups; ++g)
		{
			bool fits = !inline_group[g] && size[g] > 1 && size[g] - 1 <= free_lanes;
			pick = fits && (pick < 0 || size[g] < size[pick]) ? g : pick;
		}
		if (pick < 0)
		{
			return;
		}
		inline_group[pick] = true;
		free_lanes -= size[pick] - 1;
	}
}

/// Builds the node over idx[0..count) (count ≥ 1) with bounding sphere `bound`, then its subtrees,
/// depth-first. Returns the node's index.
static int build_node(ist_builder* bd, int* idx, int count, kl_sphere bound, int level)
{
	kl_sphere_tree* t = bd->t;
	int node = t->node_count++;
	t->depth = level > t->depth ? level : t->depth;
	t->node_bound[node] = bound;
	double volume = 0.0;
	for (int i = 0; i < count; ++i)
	{
		volume += bd->weight[idx[i]];
	}
	t->node_volume[node] = (float)volume;
	int W = t->width;
	int size[KL_IST_MAX_WIDTH] = {0};
	int groups = count;
	if (count <= W)
	{
		for (int g = 0; g < count; ++g)
		{
			size[g] = 1;
		}
	}
	else
	{
		int k = child_count(W, count);
		groups = split_bng(bd, idx, count, k, size);
		groups = groups > 0 ? groups : split_longest_axis(bd, idx, count, k, size);
	}
	bool inline_group[KL_IST_MAX_WIDTH];
	inline_small_groups(size, groups, W, inline_group);
	int lane = 0;
	for (int g = 0, start = 0; g < groups; start += size[g++])
	{
		if (size[g] == 1 || inline_group[g])
		{
			for (int i = start; i < start + size[g]; ++i)
			{
				set_lane(t, node, lane++, t->spheres[idx[i]], -1 - idx[i]);
			}
			continue;
		}
		kl_sphere child_bound = enclose(bd, idx + start, size[g]);
		int child = build_node(bd, idx + start, size[g], child_bound, level + 1);
		set_lane(t, node, lane++, child_bound, child);
	}
	t->count[node] = lane;
	return node;
}

bool kl_ist_build_nodes(kl_sphere_tree* t, const kl_sphere_tree_def* def)
{
	int n = t->sphere_count;
	int limit = def->bng_sample_limit > t->width ? def->bng_sample_limit : t->width;
	limit = limit < n ? limit : n;
	ist_builder bd = {.t = t, .def = def};
	bd.weight = kl_alloc((size_t)n, sizeof(float));
	bd.sample = kl_alloc((size_t)limit, 3 * sizeof(float));
	bd.sample_weight = kl_alloc((size_t)limit, sizeof(float));
	bd.label = kl_alloc((size_t)n, sizeof(int));
	bd.scratch = kl_alloc((size_t)n, sizeof(int));
	bd.keys = kl_alloc((size_t)n, sizeof(kl_float_key));
	int* idx = kl_alloc((size_t)n, sizeof(int));
	bool ok = bd.weight != NULL && bd.sample != NULL && bd.sample_weight != NULL && bd.label != NULL &&
			  bd.scratch != NULL && bd.keys != NULL && idx != NULL;
	if (ok)
	{
		double total = 0.0;
		for (int i = 0; i < n; ++i)
		{
			bd.weight[i] = (float)kl_ist_sphere_volume(t->spheres[i].radius);
			total += bd.weight[i];
			idx[i] = i;
		}
		t->sphere_volume = (float)total;
		t->node_count = 0;
		t->depth = 0;
		build_node(&bd, idx, n, enclose(&bd, idx, n), 1);
	}
	kl_free(bd.weight);
	kl_free(bd.sample);
	kl_free(bd.sample_weight);
	kl_free(bd.label);
	kl_free(bd.scratch);
	kl_free(bd.keys);
	kl_free(idx);
	return ok;
}
