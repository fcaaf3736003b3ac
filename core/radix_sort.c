// Kollide internal — stable LSD radix sorts.
// SPDX-License-Identifier: MIT
#include "radix_sort.h"

#include "core.h"

#include <string.h>

#define RADIX_MAX_BITS 12
#define RADIX_SMALL 48 // below this, insertion sort

static void insertion_sort(uint64_t* keys, int32_t* values, int n)
{
	for (int i = 1; i < n; ++i)
	{
		uint64_t k = keys[i];
		int32_t v = values != NULL ? values[i] : 0;
		int j = i;
		while (j > 0 && keys[j - 1] > k)
		{
			keys[j] = keys[j - 1];
			if (values != NULL)
			{
				values[j] = values[j - 1];
			}
			--j;
		}
		keys[j] = k;
		if (values != NULL)
		{
			values[j] = v;
		}
	}
}

// One histogram per digit, all in a single read of the keys, turned into the first output slot of
// each digit. Returns the passes that are needed: bit p set when digit p differs between keys.
static int histograms(const uint64_t* keys, int n, int low, int passes, int width, uint32_t* hist)
{
	int size = 1 << width;
	uint64_t mask = (uint64_t)size - 1u;
	memset(hist, 0, sizeof(uint32_t) * (size_t)passes * (size_t)size);
	for (int i = 0; i < n; ++i)
	{
		uint64_t k = keys[i] >> low;
		for (int p = 0; p < passes; ++p)
		{
			hist[p * size + (int)((k >> (p * width)) & mask)]++;
		}
	}
	int needed = 0;
	for (int p = 0; p < passes; ++p)
	{
		uint32_t* h = hist + p * size;
		if (h[(keys[0] >> (low + p * width)) & mask] != (uint32_t)n)
		{
			needed |= 1 << p;
		}
		uint32_t sum = 0;
		for (int d = 0; d < size; ++d)
		{
			uint32_t c = h[d];
			h[d] = sum;
			sum += c;
		}
	}
	return needed;
}

/// The digits of a sort: passes of `width` bits over the `bits` that matter, no wider than the array
/// is long (clearing the histograms should not cost more than the keys). Zero passes: insertion sort.
typedef struct radix_digits
{
	int passes;
	int width;
} radix_digits;

static radix_digits digits_of(int n, int low_bit, int bits)
{
	radix_digits d = {0, 0};
	if (n < 2 || (n < RADIX_SMALL && low_bit == 0 && bits == 64))
	{
		return d;
	}
	bits = bits < 1 ? 1 : (bits > 64 - low_bit ? 64 - low_bit : bits);
	int most = 64 - __builtin_clzll((uint64_t)n | 1u) - 2;
	most = most < 4 ? 4 : (most > RADIX_MAX_BITS ? RADIX_MAX_BITS : most);
	d.passes = (bits + most - 1) / most;
	d.width = (bits + d.passes - 1) / d.passes;
	return d;
}

int kl_radix_sort_histogram_size(int n, int low_bit, int bits)
{
	radix_digits d = digits_of(n, low_bit, bits);
	return d.passes << d.width;
}

void kl_radix_sort_into(uint64_t* keys, int32_t* values, uint64_t* key_scratch, int32_t* value_scratch, int n,
						int low_bit, int bits, uint32_t* hist)
{
	radix_digits d = digits_of(n, low_bit, bits);
	if (d.passes == 0)
	{
		if (n >= 2)
		{
			insertion_sort(keys, values, n);
		}
		return;
	}
	int passes = d.passes, width = d.width;
	int size = 1 << width;
	int needed = histograms(keys, n, low_bit, passes, width, hist);
	uint64_t mask = (uint64_t)size - 1u;
	uint64_t* src = keys;
	uint64_t* dst = key_scratch;
	int32_t* vsrc = values;
	int32_t* vdst = value_scratch;
	for (int p = 0; p < passes; ++p)
	{
		if ((needed & (1 << p)) == 0)
		{
			continue;
		}
		uint32_t* offset = hist + p * size;
		int shift = low_bit + p * width;
		if (values != NULL)
		{
			for (int i = 0; i < n; ++i)
			{
				uint32_t o = offset[(src[i] >> shift) & mask]++;
				dst[o] = src[i];
				vdst[o] = vsrc[i];
			}
		}
		else
		{
			for (int i = 0; i < n; ++i)
			{
				dst[offset[(src[i] >> shift) & mask]++] = src[i];
			}
		}
		uint64_t* t = src;
		src = dst;
		dst = t;
		int32_t* vt = vsrc;
		vsrc = vdst;
		vdst = vt;
	}
	if (src != keys)
	{
		memcpy(keys, src, (size_t)n * sizeof(uint64_t));
		if (values != NULL)
		{
			memcpy(values, vsrc, (size_t)n * sizeof(int32_t));
		}
	}
}

bool kl_radix_sort(uint64_t* keys, int32_t* values, uint64_t* key_scratch, int32_t* value_scratch, int n, int low_bit,
				   int bits)
{
	int size = kl_radix_sort_histogram_size(n, low_bit, bits);
	uint32_t* hist = size > 0 ? kl_alloc((size_t)size, sizeof(uint32_t)) : NULL;
	if (size > 0 && hist == NULL)
	{
		return false;
	}
	kl_radix_sort_into(keys, values, key_scratch, value_scratch, n, low_bit, bits, hist);
	kl_free(hist);
	return true;
}
