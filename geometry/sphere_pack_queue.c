// Kollide — the max-queue of the inner-sphere packing's insertion (sphere_pack.h): grid points by
// clearance, ties to the lower index, so that the order never depends on anything but the values.
// SPDX-License-Identifier: MIT
#include "sphere_pack.h"

static bool above(kl_sp_item a, kl_sp_item b)
{
	return a.value > b.value || (a.value == b.value && a.index < b.index);
}

static void sift_down(kl_sp_queue* h, int i)
{
	for (;;)
	{
		int l = 2 * i + 1, r = l + 1, top = i;
		if (l < h->count && above(h->items[l], h->items[top]))
		{
			top = l;
		}
		if (r < h->count && above(h->items[r], h->items[top]))
		{
			top = r;
		}
		if (top == i)
		{
			return;
		}
		kl_sp_item t = h->items[i];
		h->items[i] = h->items[top];
		h->items[top] = t;
		i = top;
	}
}

void kl_sp_queue_push(kl_sp_queue* h, kl_sp_item item)
{
	int i = h->count++;
	while (i > 0 && above(item, h->items[(i - 1) / 2]))
	{
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = item;
}

kl_sp_item kl_sp_queue_pop(kl_sp_queue* h)
{
	kl_sp_item top = h->items[0];
	h->items[0] = h->items[--h->count];
	sift_down(h, 0);
	return top;
}

kl_sp_queue kl_sp_queue_start(const kl_sp_grid* g, float floor)
{
	kl_sp_queue h = {NULL, 0};
	int64_t count = (int64_t)g->n[0] * g->n[1] * g->n[2];
	int64_t inside = 0;
	for (int64_t i = 0; i < count; ++i)
	{
		inside += g->clear[i] > floor;
	}
	h.items = kl_alloc((size_t)(inside > 0 ? inside : 1), sizeof(kl_sp_item));
	if (h.items == NULL)
	{
		return h;
	}
	for (int64_t i = 0; i < count; ++i)
	{
		if (g->clear[i] > floor)
		{
			h.items[h.count++] = (kl_sp_item){g->clear[i], (int32_t)i};
		}
	}
	for (int i = h.count / 2 - 1; i >= 0; --i)
	{
		sift_down(&h, i);
	}
	return h;
}
