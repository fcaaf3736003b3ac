// Kollide narrowphase — the per-item kernels of the point-shell backend (Aichele's conglomerates,
// seed-004 §3), shared by the CPU path (pointshell_query.c) and the CUDA glue (pointshell.cu): plain
// structs, float math, one call per item, so that a GPU thread runs exactly the code a CPU worker runs.
//
// Model (built once by pointshell_build.c, object frame, unscaled): the triangles are grouped into
// conglomerates. Each triangle has a point shell: a bit mask over an in-plane grid of at most
// 16 × 16 samples (origin at the start of its longest edge, so the grid covers the triangle) and the
// two cell sizes, 40 bytes; samples along its three edges are derived from the vertices. Each
// conglomerate has a PCA box and an octree over its triangles' samples (30-bit Morton keys, depth
// ≤ 10, leaves of at most 256 points), flat arrays with the points Morton-sorted and each leaf's
// triangles as entries.
//
// Why the candidates are complete: every point of a triangle lies within `coverage` (ρ) of one of
// its samples (pointshell_shells.c proves the bound per triangle). Let triangles P and Q lie within
// distance d, with closest points x on P and y on Q. A sample p of P lies within ρ_p of x, so Q lies
// within ρ_p + d of p; and y lies within ρ_q of a sample s of Q, so s lies within ρ_p + ρ_q + d of p.
// So each sample of one conglomerate, placed in the other's frame, walks the other's octree to the
// leaves within that radius (the thesis's "leaf or an inner node within a multiple of the leaf
// size", made exact as a radius search). A leaf lists its triangles as entries, each with the
// sphere around its samples there: the sphere of Q's entry in s's leaf passes, and then Q itself is
// tested, within ρ_p + d of p. No triangle pair within the alarm distance is missed.
// SPDX-License-Identifier: MIT
#pragma once

#include "pointshell_geometry.h"

#include <string.h>

#define KL_PS_GRID 16		 ///< samples per grid axis at most (16 × 16 = 4 × 64 bits)
#define KL_PS_EDGE_SAMPLES 16 ///< samples per edge at most, the first at its start vertex
#define KL_PS_MORTON_BITS 10 ///< per axis: 30-bit keys
#define KL_PS_MAX_DEPTH 10
/// An octant holding this many points or fewer is a leaf. The thesis's 32 was for leaves tested
/// point by point; a leaf's entries hold 7-10 triangles at 256, and a search then takes fewer node
/// steps for a few more entry tests (docs/pointshell.md: E1a's longest warp 148 -> 101 steps). The
/// CPU threads' fastest on E1-E4.
#define KL_PS_LEAF_BUCKET 256
/// The leaf bucket where a CUDA device serves the search: one leaf per conglomerate (a conglomerate
/// of 64 triangles holds about 2,000 samples), whose flat list of entries a warp runs through in
/// fewer lock-step steps than a walk down the tree (E1a on an H100: 0.116 ms a call against 0.162).
#define KL_PS_LEAF_BUCKET_GPU 4096

/// Counts the steps of a search (`node`, `entry`, `emit`) where a translation unit defines it before
/// including this header (bench/pointshell_warp_model.c models a GPU's warps on the CPU); a no-op
/// everywhere else.
#ifndef KL_PS_COUNT
#define KL_PS_COUNT(step) ((void)0)
#endif

/// A point shell of one triangle: 256 grid bits (bit 16 j + i is sample (i, j)) and the cell sizes.
typedef struct kl_ps_mask
{
	uint64_t bits[4];
	float cell[2];
} kl_ps_mask;

/// A sample in the object frame with the triangle it came from (the thesis keeps it in w).
typedef struct kl_ps_point
{
	float x, y, z;
	int32_t tri;
} kl_ps_point;

/// An octree node: its points [begin, end) (Morton-sorted, so a subtree's points are contiguous),
/// its children contiguous from first_child (child_count 0: a leaf), the node a depth-first walk
/// goes to when it skips this one's subtree (its next sibling, or the next sibling of its nearest
/// ancestor that has one; -1 at the end: a walk needs no stack), a leaf's entries
/// [entry_begin, entry_end) (empty in inner nodes), its cube's cell (kl_ps_cell: the corner in
/// units of its edge, decoded in three shifts where a Morton key took 36 operations per test) and
/// depth.
typedef struct kl_ps_node
{
	uint32_t begin;
	uint32_t end;
	int32_t first_child;
	int32_t skip;
	uint32_t cell;
	uint32_t entry_begin;
	uint32_t entry_end;
	uint8_t depth;
	uint8_t child_count;
	uint8_t pad[2];
} kl_ps_node;

/// One triangle's samples in one leaf: the sphere that holds them and the triangle's coverage. The
/// thesis's leaf "stores its faces" (seed-004 §3.3); a search tests a leaf's few entries, not its
/// up to 256 points (a leaf holds the samples of 7-10 triangles on average in E1-E4).
typedef struct kl_ps_entry
{
	kl_ps_f3 center;
	float radius; ///< every sample of the triangle in the leaf lies within this of center
	int32_t tri;
	float coverage; ///< the triangle's (kl_ps_model_view.coverage)
} kl_ps_entry;

typedef struct kl_ps_conglomerate
{
	int32_t tri_begin; ///< into the model's grouped triangle list
	int32_t tri_count;
	uint32_t point_begin; ///< into the model's points
	uint32_t point_count;
	int32_t node_begin; ///< the root; its subtree follows
	int32_t node_count;
	kl_ps_f3 root_min; ///< the octree's cube
	float root_edge;
	float coverage; ///< every point of its triangles lies within this of one of their samples
	kl_ps_obb obb;
} kl_ps_conglomerate;

/// A model's arrays, on the host or on the device.
typedef struct kl_ps_model_view
{
	const kl_ps_f3* vertices;
	const int32_t* indices;		///< 3 per triangle
	const int32_t* tris;		///< triangle ids grouped by conglomerate
	const kl_ps_mask* masks;	///< per triangle
	const float* coverage;		///< per triangle: its points lie within this of its samples
	const kl_ps_point* points;
	const kl_ps_node* nodes;
	const kl_ps_entry* entries;
	const kl_ps_conglomerate* congs;
	int32_t cong_count;
	int32_t triangle_count;
} kl_ps_model_view;

/// One conglomerate-pair direction: every triangle of conglomerate p_cong of model p puts its samples
/// into the octree of q_cong of model q. The CPU runs an item per triangle of p_cong (from
/// item_begin), the GPU one per sample (from sample_begin: the octree points of p_cong, which are
/// its triangles' samples).
typedef struct kl_ps_work
{
	int32_t pair; ///< the body pair: the top 16 bits of the emitted keys
	int32_t p_model;
	int32_t q_model;
	int32_t p_cong;
	int32_t q_cong;
	int32_t swap; ///< 1: p is body b of the pair, so the emitted key is (q tri, p tri)
	/// The search radius of two triangles' samples (q's unscaled frame) is p_factor · coverage of p's
	/// triangle + q_factor · coverage of q's + reach: the scales turn object coverages into world
	/// distances and those into q's frame.
	float p_factor;
	float q_factor;
	float reach; ///< the alarm distance in q's frame, with slack for float rounding
	int32_t item_begin;
	int32_t sample_begin;
	kl_ps_xform p_to_q; ///< p's object frame to q's (unscaled)
} kl_ps_work;

/// The triangle stage's inputs on the device: each pair's models (indices into views), its bodies'
/// transforms (2 per pair) and its alarm distance and tolerance (2 per pair).
typedef struct kl_ps_triangle_stage
{
	const kl_ps_model_view* views;
	const int32_t* pair_models;
	const kl_ps_xform* world;
	const float* alarm;
} kl_ps_triangle_stage;

/// Where a query item writes its candidate keys. count may pass capacity: the caller then grows the
/// buffer and runs again. On the GPU a key first goes into an open-addressing set (set_mask + 1
/// slots, empty = KL_PS_SET_EMPTY): only keys new to it are appended, so the list holds each key
/// once, unsorted, and no sort is needed to remove repeats; a probe run past KL_PS_SET_PROBES sets
/// *overflow (the caller grows the set and runs again).
typedef struct kl_ps_emitter
{
	uint64_t* keys;
	uint32_t* count;
	uint32_t capacity;
	uint64_t* set; ///< NULL: append every key (the CPU; its sort removes repeats)
	uint32_t set_mask;
	uint32_t* overflow;
} kl_ps_emitter;

#define KL_PS_SET_EMPTY UINT64_MAX
#define KL_PS_SET_PROBES 256

/// Candidate key: body pair (16 bits), triangle of a (24), triangle of b (24); sorted, equal keys
/// are the same candidate.
KL_HD static inline uint64_t kl_ps_key(int32_t pair, int32_t tri_a, int32_t tri_b)
{
	return ((uint64_t)(uint32_t)pair << 48) | ((uint64_t)((uint32_t)tri_a & 0xffffffu) << 24) |
		   (uint64_t)((uint32_t)tri_b & 0xffffffu);
}

KL_HD static inline int32_t kl_ps_key_pair(uint64_t key)
{
	return (int32_t)(key >> 48);
}
KL_HD static inline int32_t kl_ps_key_tri_a(uint64_t key)
{
	return (int32_t)((key >> 24) & 0xffffffu);
}
KL_HD static inline int32_t kl_ps_key_tri_b(uint64_t key)
{
	return (int32_t)(key & 0xffffffu);
}

KL_HD static inline void kl_ps_triangle(const kl_ps_model_view* m, int32_t tri, kl_ps_f3 t[3])
{
	t[0] = m->vertices[m->indices[3 * tri + 0]];
	t[1] = m->vertices[m->indices[3 * tri + 1]];
	t[2] = m->vertices[m->indices[3 * tri + 2]];
}

// ---------------------------------------------------------------------------------------------
// Point shell: the grid frame of a triangle and its samples

/// The in-plane grid of a triangle: origin at the start of its longest edge (the first longest,
/// so that builder and query agree), u along that edge, v towards the third vertex. The third
/// vertex then projects inside [0, length] on u, and the grid's rectangle [0, length] × [0, height]
/// holds the whole triangle. False for a triangle without area.
KL_HD static inline bool kl_ps_grid_frame(const kl_ps_f3 t[3], kl_ps_f3* origin, kl_ps_f3* u, kl_ps_f3* v,
										  float extent[2], int* base)
{
	int k = 0;
	float best = -1.0f;
	for (int e = 0; e < 3; ++e)
	{
		kl_ps_f3 d = kl_ps_sub(t[(e + 1) % 3], t[e]);
		float l2 = kl_ps_dot(d, d);
		if (l2 > best)
		{
			best = l2;
			k = e;
		}
	}
	float length = sqrtf(best);
	kl_ps_f3 along = kl_ps_sub(t[(k + 1) % 3], t[k]);
	kl_ps_f3 apex = kl_ps_sub(t[(k + 2) % 3], t[k]);
	if (!(length > 0.0f))
	{
		return false;
	}
	*u = kl_ps_scale(along, 1.0f / length);
	kl_ps_f3 off = kl_ps_sub(apex, kl_ps_scale(*u, kl_ps_dot(apex, *u)));
	float height = sqrtf(kl_ps_dot(off, off));
	if (!(height > 0.0f))
	{
		return false;
	}
	*v = kl_ps_scale(off, 1.0f / height);
	*origin = t[k];
	extent[0] = length;
	extent[1] = height;
	*base = k;
	return true;
}

/// Grid sample (i, j) of a triangle whose frame is given.
KL_HD static inline kl_ps_f3 kl_ps_grid_point(kl_ps_f3 origin, kl_ps_f3 u, kl_ps_f3 v, const float cell[2], int i, int j)
{
	return kl_ps_add(origin, kl_ps_add(kl_ps_scale(u, (float)i * cell[0]), kl_ps_scale(v, (float)j * cell[1])));
}

/// Samples along each edge: enough that neighbours are at most `spacing` apart, at most 16 (16 for
/// NaN, so that no cast sees it).
KL_HD static inline int kl_ps_edge_sample_count(float length, float spacing)
{
	float n = spacing > 0.0f ? ceilf(length / spacing) : (float)KL_PS_EDGE_SAMPLES;
	return n < 1.0f ? 1 : (n < (float)KL_PS_EDGE_SAMPLES ? (int)n : KL_PS_EDGE_SAMPLES);
}

/// Edge sample s of edge e (start vertex included, end vertex left to the next edge).
KL_HD static inline kl_ps_f3 kl_ps_edge_point(const kl_ps_f3 t[3], int e, int s, int count)
{
	kl_ps_f3 a = t[e], b = t[(e + 1) % 3];
	float w = (float)s / (float)count;
	return kl_ps_add(a, kl_ps_scale(kl_ps_sub(b, a), w));
}

/// The edge sample spacing of a point shell: the longer cell side.
KL_HD static inline float kl_ps_edge_spacing(const kl_ps_mask* mask)
{
	return mask->cell[0] > mask->cell[1] ? mask->cell[0] : mask->cell[1];
}

// ---------------------------------------------------------------------------------------------
// Octree

/// Spreads the low 10 bits of x to every third bit (Algorithm 11, chained on the running value).
KL_HD static inline uint32_t kl_ps_spread_bits(uint32_t x)
{
	x &= 0x3ffu;
	x = (x | (x << 16)) & 0x030000ffu;
	x = (x | (x << 8)) & 0x0300f00fu;
	x = (x | (x << 4)) & 0x030c30c3u;
	x = (x | (x << 2)) & 0x09249249u;
	return x;
}

/// 30-bit Morton key of integer cell coordinates (Algorithm 12: z high, x low).
KL_HD static inline uint32_t kl_ps_morton(uint32_t ix, uint32_t iy, uint32_t iz)
{
	return (kl_ps_spread_bits(iz) << 2) | (kl_ps_spread_bits(iy) << 1) | kl_ps_spread_bits(ix);
}

/// The finest cell of a point in a cube (clamped into it).
KL_HD static inline uint32_t kl_ps_point_key(kl_ps_f3 p, kl_ps_f3 root_min, float root_edge)
{
	float scale = (float)(1u << KL_PS_MORTON_BITS) / root_edge;
	float c[3] = {(p.x - root_min.x) * scale, (p.y - root_min.y) * scale, (p.z - root_min.z) * scale};
	uint32_t q[3];
	for (int k = 0; k < 3; ++k)
	{
		float f = floorf(c[k]);
		q[k] = f < 0.0f ? 0u : (f > 1023.0f ? 1023u : (uint32_t)f);
	}
	return kl_ps_morton(q[0], q[1], q[2]);
}

/// A node's cell: the integer corner of its cube in units of its edge, 10 bits per axis
/// (x | y << 10 | z << 20); each axis is below 2^depth.
KL_HD static inline uint32_t kl_ps_cell(uint32_t x, uint32_t y, uint32_t z)
{
	return x | (y << KL_PS_MORTON_BITS) | (z << (2 * KL_PS_MORTON_BITS));
}

/// One axis of a cell (0 x, 1 y, 2 z).
KL_HD static inline uint32_t kl_ps_cell_axis(uint32_t cell, int axis)
{
	return (cell >> (KL_PS_MORTON_BITS * axis)) & ((1u << KL_PS_MORTON_BITS) - 1u);
}

/// The cell of a child in octant o (the Morton key's next 3 bits: z y x from high to low).
KL_HD static inline uint32_t kl_ps_cell_child(uint32_t cell, uint32_t o)
{
	return kl_ps_cell(2u * kl_ps_cell_axis(cell, 0) + (o & 1u), 2u * kl_ps_cell_axis(cell, 1) + ((o >> 1) & 1u),
					  2u * kl_ps_cell_axis(cell, 2) + ((o >> 2) & 1u));
}

/// The edge of a node's cube: the root's times 2^-depth, built from its bits (exactly what a
/// division by 2^depth gives, without a division per node).
KL_HD static inline float kl_ps_node_edge(const kl_ps_conglomerate* c, const kl_ps_node* n)
{
	uint32_t bits = (uint32_t)(127 - n->depth) << 23;
	float half_power;
	memcpy(&half_power, &bits, sizeof(half_power));
	return c->root_edge * half_power;
}

/// Squared distance from p to the box of an octree node.
KL_HD static inline float kl_ps_node_distance2(const kl_ps_conglomerate* c, const kl_ps_node* n, kl_ps_f3 p)
{
	float size = kl_ps_node_edge(c, n);
	float lo[3] = {c->root_min.x + size * (float)kl_ps_cell_axis(n->cell, 0),
				   c->root_min.y + size * (float)kl_ps_cell_axis(n->cell, 1),
				   c->root_min.z + size * (float)kl_ps_cell_axis(n->cell, 2)};
	float q[3] = {p.x, p.y, p.z};
	float d2 = 0.0f;
	for (int k = 0; k < 3; ++k)
	{
		float below = lo[k] - q[k];
		float above = q[k] - (lo[k] + size);
		float d = below > 0.0f ? below : (above > 0.0f ? above : 0.0f);
		d2 += d * d;
	}
	return d2;
}

// ---------------------------------------------------------------------------------------------
// The triangle stage of a candidate (pointshell_geometry.h)

/// The triangle stage of one candidate key: places both triangles in the world with their bodies'
/// transforms (xf[2 · pair] for a, xf[2 · pair + 1] for b) and tests them, by the parts first,
/// first + stride, ... of the test (kl_ps_triangles_near; all of them: 0, 1).
KL_HD static inline bool kl_ps_candidate_near(const kl_ps_model_view* a, const kl_ps_model_view* b,
											  const kl_ps_xform* xf, uint64_t key, float alarm, float tolerance,
											  int first, int stride)
{
	int32_t pair = kl_ps_key_pair(key);
	kl_ps_f3 ta[3], tb[3];
	kl_ps_triangle(a, kl_ps_key_tri_a(key), ta);
	kl_ps_triangle(b, kl_ps_key_tri_b(key), tb);
	for (int k = 0; k < 3; ++k)
	{
		ta[k] = kl_ps_apply(xf + 2 * pair, ta[k]);
		tb[k] = kl_ps_apply(xf + 2 * pair + 1, tb[k]);
	}
	return kl_ps_triangles_near(ta, tb, alarm, tolerance, first, stride);
}

/// Whether the triangle stage keeps a key, by the parts first, first + stride, ... of its test
/// (all of them: 0, 1): its triangles lie within the pair's alarm distance.
KL_HD static inline bool kl_ps_stage_keeps(const kl_ps_triangle_stage* stage, uint64_t key, int first, int stride)
{
	int32_t pair = kl_ps_key_pair(key);
	const kl_ps_model_view* a = stage->views + stage->pair_models[2 * pair];
	const kl_ps_model_view* b = stage->views + stage->pair_models[2 * pair + 1];
	return kl_ps_candidate_near(a, b, stage->world, key, stage->alarm[2 * pair], stage->alarm[2 * pair + 1], first,
								stride);
}

// ---------------------------------------------------------------------------------------------
// The query item: one triangle's samples into another conglomerate's octree

/// The slot where a key's probe run in the emitter's set starts: MurmurHash3's 64-bit finaliser, so
/// that every bit of the key reaches the low bits the mask keeps (a multiplicative hash left the
/// pair index out of small sets: identical bodies in the same pose then shared one probe run).
KL_HD static inline uint32_t kl_ps_set_slot(uint64_t key, uint32_t mask)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (uint32_t)key & mask;
}

/// Appends one key; past capacity only the count grows.
KL_HD static inline void kl_ps_emit(const kl_ps_emitter* e, uint64_t key)
{
#if defined(__CUDA_ARCH__)
	if (e->set != NULL)
	{
		if (*(volatile const uint32_t*)e->overflow != 0u)
		{
			return; // this pass is run again with a larger set: no more probe runs of 256
		}
		uint32_t slot = kl_ps_set_slot(key, e->set_mask);
		for (int probe = 0;; ++probe, slot = (slot + 1u) & e->set_mask)
		{
			if (probe == KL_PS_SET_PROBES)
			{
				*e->overflow = 1u;
				return;
			}
			unsigned long long seen = atomicCAS((unsigned long long*)(e->set + slot),
												(unsigned long long)KL_PS_SET_EMPTY, (unsigned long long)key);
			if (seen == key)
			{
				return; // emitted before
			}
			if (seen == KL_PS_SET_EMPTY)
			{
				break;
			}
		}
	}
	uint32_t i = atomicAdd(e->count, 1u);
#else
	uint32_t i = (*e->count)++;
#endif
	if (i < e->capacity)
	{
		e->keys[i] = key;
	}
}

/// The triangles one item has emitted, so that the samples of one triangle near the same triangles
/// emit each pair about once (the sort or the set removes what repeats anyway): a direct-mapped
/// table, a triangle in the slot of its low bits. A GPU sample item emits a few triangles, mostly
/// with nearby ids; a CPU triangle item in dense contact (a screw in its thread) 30 to 60, which
/// shared the slots of a table of 64 (and a ring of 16 let their repeats through 8 times over).
#ifndef KL_PS_EMITTED_SLOTS
#if defined(__CUDA_ARCH__)
#define KL_PS_EMITTED_SLOTS 16
#else
#define KL_PS_EMITTED_SLOTS 256
#endif
#endif
typedef struct kl_ps_emitted
{
	int32_t tri[KL_PS_EMITTED_SLOTS];
} kl_ps_emitted;

KL_HD static inline void kl_ps_emitted_init(kl_ps_emitted* r)
{
	for (int i = 0; i < KL_PS_EMITTED_SLOTS; ++i)
	{
		r->tri[i] = -1;
	}
}

KL_HD static inline bool kl_ps_emitted_has(const kl_ps_emitted* r, int32_t tri)
{
	return r->tri[(uint32_t)tri % KL_PS_EMITTED_SLOTS] == tri;
}

KL_HD static inline void kl_ps_emitted_add(kl_ps_emitted* r, int32_t tri)
{
	r->tri[(uint32_t)tri % KL_PS_EMITTED_SLOTS] = tri;
}

/// Whether p lies within sqrt(near2) of triangle t, never reading it farther than it is by more than
/// rounding. Ericson's regions (kl_ps_closest_on_triangle) decide on a triangle of fair shape. On a
/// thin one (a height under 3 % of its longest edge) they can be wrong in float and read it far too
/// distant (by most of its length, at a height of 1e-7 of it); there the longest edge decides, within the
/// height: every point of a triangle lies within its height of its longest edge. test_pointshell
/// checks thin and fair triangles against a distance in double.
KL_HD static inline bool kl_ps_point_near(const kl_ps_f3 t[3], kl_ps_f3 p, float near2)
{
	kl_ps_f3 d = kl_ps_sub(kl_ps_closest_on_triangle(p, t), p);
	if (!(kl_ps_dot(d, d) > near2))
	{
		return true; // near, or not a number (a degenerate triangle): kept, the triangle stage decides
	}
	int longest = 0;
	float l2 = 0.0f;
	for (int k = 0; k < 3; ++k)
	{
		kl_ps_f3 e = kl_ps_sub(t[(k + 1) % 3], t[k]);
		float e2 = kl_ps_dot(e, e);
		longest = e2 > l2 ? k : longest;
		l2 = e2 > l2 ? e2 : l2;
	}
	kl_ps_f3 n = kl_ps_cross(kl_ps_sub(t[1], t[0]), kl_ps_sub(t[2], t[0]));
	float n2 = kl_ps_dot(n, n);
	if (!(n2 <= 9e-4f * l2 * l2)) // <=: a tiny triangle whose l2 * l2 underflows counts as thin
	{
		return false; // fair: the regions hold
	}
	float height = sqrtf(n2 / l2) * 1.01f + 1e-5f * sqrtf(l2); // rounded up
	float reach = sqrtf(near2) + height;
	return kl_ps_segment_distance2(p, p, t[longest], t[(longest + 1) % 3]) <= reach * reach;
}

/// kl_ps_point_near for triangle `tri` of model q (q's frame).
KL_HD static inline bool kl_ps_point_near_triangle(const kl_ps_model_view* q, int32_t tri, kl_ps_f3 p, float near2)
{
	kl_ps_f3 t[3];
	kl_ps_triangle(q, tri, t);
	return kl_ps_point_near(t, p, near2);
}

/// The triangles of conglomerate c within p_reach of p (q's frame), found through the leaves within
/// p_reach + q_factor · coverage (the subtrees pruned with the conglomerate's largest coverage, a
/// leaf's entries with their own). Emits (p_tri, their triangle), except for the triangles in `seen`
/// (the item's emitted ones, which it joins); returns how many keys it emitted.
KL_HD static inline int kl_ps_octree_near(const kl_ps_model_view* q, const kl_ps_conglomerate* c, kl_ps_f3 p,
										  float p_reach, const kl_ps_work* w, int32_t p_tri, kl_ps_emitted* seen,
										  const kl_ps_emitter* out)
{
	float bound = p_reach + w->q_factor * c->coverage;
	float bound2 = bound * bound;
	// With slack for the rounding of the closest point, which grows with the coordinates' size.
	float near = p_reach + 1e-4f * (c->root_edge + fabsf(c->root_min.x) + fabsf(c->root_min.y) + fabsf(c->root_min.z));
	float near2 = near * near;
	int emitted = 0;
	for (int32_t index = c->node_begin; index >= 0;)
	{
		const kl_ps_node* n = q->nodes + index;
		KL_PS_COUNT(node);
		bool near_node = kl_ps_node_distance2(c, n, p) <= bound2;
		index = near_node && n->child_count > 0 ? n->first_child : n->skip;
		if (!near_node || n->child_count > 0)
		{
			continue;
		}
		for (uint32_t i = n->entry_begin; i < n->entry_end; ++i)
		{
			// A sample of the entry's triangle within p_reach + its own coverage lies within radius of
			// the centre: the sphere passes whenever a sample would. Then the triangle itself.
			kl_ps_entry e = q->entries[i];
			KL_PS_COUNT(entry);
			kl_ps_f3 d = kl_ps_sub(e.center, p);
			float r = p_reach + w->q_factor * e.coverage + e.radius;
			if (kl_ps_dot(d, d) > r * r || kl_ps_emitted_has(seen, e.tri) ||
				!kl_ps_point_near_triangle(q, e.tri, p, near2))
			{
				continue;
			}
			kl_ps_emitted_add(seen, e.tri);
			kl_ps_emit(out, w->swap ? kl_ps_key(w->pair, e.tri, p_tri) : kl_ps_key(w->pair, p_tri, e.tri));
			KL_PS_COUNT(emit);
			++emitted;
		}
	}
	return emitted;
}

/// Walks the samples of one triangle: its grid bits (bit 16 j + i is (i, j)), then its edges.
typedef struct kl_ps_sampler
{
	kl_ps_f3 t[3];
	kl_ps_f3 origin, u, v;
	float cell[2];
	uint64_t bits[4];
	int word;
	int edge;
	int step;
	int edge_count;
	float spacing;
} kl_ps_sampler;

KL_HD static inline void kl_ps_sampler_init(kl_ps_sampler* it, const kl_ps_f3 t[3], const kl_ps_mask* mask)
{
	float extent[2];
	int base;
	for (int k = 0; k < 3; ++k)
	{
		it->t[k] = t[k];
	}
	bool grid = kl_ps_grid_frame(t, &it->origin, &it->u, &it->v, extent, &base);
	for (int w = 0; w < 4; ++w)
	{
		it->bits[w] = grid ? mask->bits[w] : 0u;
	}
	it->cell[0] = mask->cell[0];
	it->cell[1] = mask->cell[1];
	it->word = 0;
	it->edge = -1;
	it->step = 0;
	it->edge_count = 0;
	it->spacing = kl_ps_edge_spacing(mask);
}

/// The next sample; false when there is none left.
KL_HD static inline bool kl_ps_sampler_next(kl_ps_sampler* it, kl_ps_f3* out)
{
	while (it->word < 4)
	{
		uint64_t bits = it->bits[it->word];
		if (bits == 0u)
		{
			++it->word;
			continue;
		}
		int b = 0;
		while (((bits >> b) & 1u) == 0u)
		{
			++b;
		}
		it->bits[it->word] = bits & (bits - 1u);
		int index = 64 * it->word + b;
		*out = kl_ps_grid_point(it->origin, it->u, it->v, it->cell, index % KL_PS_GRID, index / KL_PS_GRID);
		return true;
	}
	while (it->step >= it->edge_count)
	{
		if (++it->edge >= 3)
		{
			return false;
		}
		kl_ps_f3 d = kl_ps_sub(it->t[(it->edge + 1) % 3], it->t[it->edge]);
		it->edge_count = kl_ps_edge_sample_count(sqrtf(kl_ps_dot(d, d)), it->spacing);
		it->step = 0;
	}
	*out = kl_ps_edge_point(it->t, it->edge, it->step++, it->edge_count);
	return true;
}

/// One query item of work w: triangle p_tri of model p puts each of its samples into the octree of
/// model q's conglomerate. Returns the number of samples placed.
KL_HD static inline int kl_ps_query_triangle(const kl_ps_model_view* p, const kl_ps_model_view* q, const kl_ps_work* w,
											 int32_t p_tri, const kl_ps_emitter* out)
{
	const kl_ps_conglomerate* c = q->congs + w->q_cong;
	kl_ps_f3 t[3];
	kl_ps_triangle(p, p_tri, t);
	float p_reach = w->p_factor * p->coverage[p_tri] + w->reach;
	// The whole triangle first: its samples lie in its box (q's frame), so a box farther from the
	// octree's cube than the search bound places none of them near it.
	float lo[3], hi[3];
	for (int k = 0; k < 3; ++k)
	{
		kl_ps_f3 v = kl_ps_apply(&w->p_to_q, t[k]);
		float x[3] = {v.x, v.y, v.z};
		for (int a = 0; a < 3; ++a)
		{
			lo[a] = k == 0 || x[a] < lo[a] ? x[a] : lo[a];
			hi[a] = k == 0 || x[a] > hi[a] ? x[a] : hi[a];
		}
	}
	float bound = p_reach + w->q_factor * c->coverage + 1e-4f * c->root_edge;
	float root_lo[3] = {c->root_min.x, c->root_min.y, c->root_min.z};
	for (int a = 0; a < 3; ++a)
	{
		if (lo[a] > root_lo[a] + c->root_edge + bound || hi[a] < root_lo[a] - bound)
		{
			return 0;
		}
	}
	kl_ps_emitted seen;
	kl_ps_emitted_init(&seen);
	kl_ps_sampler it;
	kl_ps_sampler_init(&it, t, p->masks + p_tri);
	int placed = 0;
	kl_ps_f3 s;
	while (kl_ps_sampler_next(&it, &s))
	{
		kl_ps_octree_near(q, c, kl_ps_apply(&w->p_to_q, s), p_reach, w, p_tri, &seen, out);
		++placed;
	}
	return placed;
}

/// One sample item of work w: sample `index` of p_cong (its octree point, Morton order, so that
/// neighbouring GPU threads walk nearby cells) into q_cong's octree. The same search as the samples
/// of kl_ps_query_triangle, one at a time. Returns how many keys it emitted.
KL_HD static inline int kl_ps_query_sample(const kl_ps_model_view* p, const kl_ps_model_view* q, const kl_ps_work* w,
										   int index, const kl_ps_emitter* out)
{
	kl_ps_point s = p->points[p->congs[w->p_cong].point_begin + (uint32_t)index];
	kl_ps_emitted seen;
	kl_ps_emitted_init(&seen);
	float p_reach = w->p_factor * p->coverage[s.tri] + w->reach;
	return kl_ps_octree_near(q, q->congs + w->q_cong, kl_ps_apply(&w->p_to_q, kl_ps_make(s.x, s.y, s.z)), p_reach, w,
							 s.tri, &seen, out);
}

/// The work whose items hold `item`: the last whose first item (item_begin, or sample_begin when
/// by_sample) is <= item (works are in the order of both).
KL_HD static inline int kl_ps_find_work(const kl_ps_work* works, int work_count, int item, bool by_sample)
{
	int lo = 0, hi = work_count - 1;
	while (lo < hi)
	{
		int mid = (lo + hi + 1) / 2;
		if ((by_sample ? works[mid].sample_begin : works[mid].item_begin) <= item)
		{
			lo = mid;
		}
		else
		{
			hi = mid - 1;
		}
	}
	return lo;
}
