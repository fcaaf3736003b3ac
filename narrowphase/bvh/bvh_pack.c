// Kollide — SIMDop BVH node layout: the staging nodes packed depth-first into 64-byte aligned rows,
// FP32 or binary16 rounded outward around the root's centre, on huge pages where the kernel offers them.
// SPDX-License-Identifier: MIT
#define _DEFAULT_SOURCE // madvise(MADV_HUGEPAGE) on Linux
#include "bvh_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/// Node and triangle-record arrays of a few MiB and more go on 2 MiB pages where the kernel offers them
/// (transparent huge pages in "madvise" mode): a query hops between nodes all over the array, and with
/// 4 KiB pages nearly every hop on a tree that is not in cache is also a TLB miss.
void* kl_bvh_alloc_big(size_t bytes)
{
	const size_t huge = (size_t)2 << 20;
	if (bytes < 2 * huge)
	{
		return aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
	}
	size_t rounded = (bytes + huge - 1) & ~(huge - 1);
	void* p = aligned_alloc(huge, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p != NULL)
	{
		madvise(p, rounded, MADV_HUGEPAGE); // advice only: failure leaves ordinary pages
	}
#endif
	return p;
}

/// The live nodes (collapsing leaves emptied ones behind) in depth-first order from the root, lane 0 first:
/// order[new] = old, remap[old] = new. Sets the tree's depth. Returns the live count, −1 without memory.
static int order_nodes(const kl_bvh_builder_state* s, int* order, int* remap, int* depth)
{
	int W = s->width;
	int32_t* stack = kl_alloc((size_t)s->node_count, 2 * sizeof(int32_t));
	if (stack == NULL)
	{
		return -1;
	}
	for (int n = 0; n < s->node_count; ++n)
	{
		remap[n] = -1;
	}
	int sp = 0, live = 0;
	*depth = 0;
	stack[sp++] = 0;
	stack[sp++] = 1;
	while (sp > 0)
	{
		int d = stack[--sp];
		int n = stack[--sp];
		remap[n] = live;
		order[live++] = n;
		*depth = d > *depth ? d : *depth;
		const int32_t* child = s->child + (size_t)n * W;
		for (int lane = s->count[n] - 1; lane >= 0; --lane)
		{
			if (child[lane] >= 0)
			{
				stack[sp++] = child[lane];
				stack[sp++] = d + 1;
			}
		}
	}
	kl_free(stack);
	return live;
}

/// Copies the staging nodes into the final aligned layout (FP32, or binary16 relative to the root's
/// centre, minima rounded down and maxima up so that no DOP shrinks).
bool kl_bvh_pack_nodes(kl_bvh* t, const kl_bvh_builder_state* s)
{
	int A = t->axes;
	int W = t->width;
	size_t elem = t->fp16 ? 2u : 4u;
	size_t raw = (size_t)2 * A * W * elem + (size_t)(W + 1) * sizeof(int32_t);
	t->node_stride = (raw + 63u) & ~(size_t)63u;
	int* order = kl_alloc((size_t)s->node_count, sizeof(int));
	int* remap = kl_alloc((size_t)s->node_count, sizeof(int));
	int live = order != NULL && remap != NULL ? order_nodes(s, order, remap, &t->depth) : -1;
	t->nodes = live > 0 ? kl_bvh_alloc_big(t->node_stride * (size_t)live) : NULL;
	if (t->nodes == NULL)
	{
		kl_free(order);
		kl_free(remap);
		kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_bvh_build: %zu bytes of nodes", t->node_stride * (size_t)s->node_count);
		return false;
	}
	memset(t->nodes, 0, t->node_stride * (size_t)live);
	t->node_count = live;
	double smax = 0.0;
	for (int i = 0; i < A; ++i)
	{
		smax = fmax(smax, fmax(fabs((double)t->root_lo[i]), fabs((double)t->root_hi[i])));
	}
	for (int k = 0; k < live; ++k)
	{
		int n = order[k];
		uint8_t* dst = t->nodes + (size_t)k * t->node_stride;
		const float* box = s->box + (size_t)n * 2 * A * W;
		for (int r = 0; r < 2 * A; ++r)
		{
			int axis = r < A ? r : r - A;
			for (int lane = 0; lane < W; ++lane)
			{
				float v = box[r * W + lane];
				if (lane >= s->count[n])
				{
					v = t->offset[axis]; // unused lane: any finite value (lanes are masked by count)
				}
				if (t->fp16)
				{
					double rel = (double)v - (double)t->offset[axis];
					uint16_t h = kl_half_from_double(rel, r < A ? -1 : 1);
					((uint16_t*)(void*)dst)[r * W + lane] = h;
					smax = fmax(smax, fabs((double)kl_half_to_float(h)));
				}
				else
				{
					((float*)(void*)dst)[r * W + lane] = v;
					smax = fmax(smax, fabs((double)v));
				}
			}
		}
		int32_t* child = (int32_t*)(void*)(dst + (size_t)2 * A * W * elem);
		for (int lane = 0; lane < W; ++lane)
		{
			int32_t c = s->child[(size_t)n * W + lane];
			child[lane] = lane < s->count[n] && c >= 0 ? remap[c] : c;
		}
		child[W] = s->count[n];
	}
	t->stored_abs_max = smax;
	kl_free(order);
	kl_free(remap);
	return true;
}

/// Root DOP, offsets (FP16 only) and the root's stored values.
void kl_bvh_set_root(kl_bvh* t, const float* lo, const float* hi)
{
	for (int i = 0; i < t->axes; ++i)
	{
		t->offset[i] = t->fp16 ? (float)(0.5 * ((double)lo[i] + (double)hi[i])) : 0.0f;
		double rl = (double)lo[i] - t->offset[i];
		double rh = (double)hi[i] - t->offset[i];
		float fl = (float)rl;
		float fh = (float)rh;
		t->root_lo[i] = (double)fl > rl ? nextafterf(fl, -INFINITY) : fl;
		t->root_hi[i] = (double)fh < rh ? nextafterf(fh, INFINITY) : fh;
	}
}

void kl_bvh_child_dop(const kl_bvh* t, int node, int lane, double* lo, double* hi)
{
	int A = t->axes;
	int W = t->width;
	const void* box = kl_bvh_node_box(t, node);
	for (int i = 0; i < A; ++i)
	{
		float l, h;
		if (t->fp16)
		{
			l = kl_half_to_float(((const uint16_t*)box)[i * W + lane]);
			h = kl_half_to_float(((const uint16_t*)box)[(A + i) * W + lane]);
		}
		else
		{
			l = ((const float*)box)[i * W + lane];
			h = ((const float*)box)[(A + i) * W + lane];
		}
		lo[i] = (double)l + t->offset[i];
		hi[i] = (double)h + t->offset[i];
	}
}
