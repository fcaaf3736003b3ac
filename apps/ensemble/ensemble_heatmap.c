// Kollide ensembles — the top view of final positions as a heatmap PNG (libpng): sample counts per
// cell, the static shapes' bounds outlined in grey and the regions in white.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include "app_png.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define KL_ENS_PIXELS_PER_CELL 8

// Black → red → yellow → white: zero cells stay black so that an empty floor reads as empty.
static void kl_ens_heat_rgb(double t, uint8_t* rgb)
{
	double c[3] = {fmin(1.0, 3.0 * t), fmin(1.0, fmax(0.0, 3.0 * t - 1.0)), fmin(1.0, fmax(0.0, 3.0 * t - 2.0))};
	for (int k = 0; k < 3; ++k)
	{
		rgb[k] = (uint8_t)lrint(255.0 * c[k]);
	}
}

// The view's bounds: every sample's final (x, y) and every region's box, plus a margin.
static void kl_ens_view_bounds(const kl_ensemble* ens, int body, double lo[2], double hi[2])
{
	lo[0] = lo[1] = INFINITY;
	hi[0] = hi[1] = -INFINITY;
	for (int i = 0; i < ens->def.sample_count; ++i)
	{
		for (int k = 0; k < 2; ++k)
		{
			double v = kl_ens_state(ens, i, body)[3 + k];
			lo[k] = fmin(lo[k], v);
			hi[k] = fmax(hi[k], v);
		}
	}
	for (int r = 0; r < ens->def.region_count; ++r)
	{
		for (int k = 0; k < 2 && ens->def.regions[r].sensor_index < 0; ++k)
		{
			// Unbounded region sides (a half-space as a huge box) do not stretch the view.
			double a = ens->def.regions[r].box.lower.raw[k], b = ens->def.regions[r].box.upper.raw[k];
			if (fabs(a) < 1e3)
			{
				lo[k] = fmin(lo[k], a), hi[k] = fmax(hi[k], a);
			}
			if (fabs(b) < 1e3)
			{
				lo[k] = fmin(lo[k], b), hi[k] = fmax(hi[k], b);
			}
		}
	}
	double span = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), 1e-3);
	for (int k = 0; k < 2; ++k)
	{
		double mid = 0.5 * (lo[k] + hi[k]);
		lo[k] = mid - 0.55 * span;
		hi[k] = mid + 0.55 * span;
	}
}

static void kl_ens_outline(uint8_t* rgb, int size, const double lo[2], double scale, kl_aabb box, uint8_t grey)
{
	int x0 = (int)floor((box.lower.x - lo[0]) * scale), x1 = (int)floor((box.upper.x - lo[0]) * scale);
	int y0 = (int)floor((box.lower.y - lo[1]) * scale), y1 = (int)floor((box.upper.y - lo[1]) * scale);
	for (int y = 0; y < size; ++y)
	{
		for (int x = 0; x < size; ++x)
		{
			bool inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
			bool edge = x == x0 || x == x1 || y == y0 || y == y1;
			if (inside && edge)
			{
				uint8_t* p = rgb + ((size_t)(size - 1 - y) * (size_t)size + (size_t)x) * 3;
				p[0] = p[1] = p[2] = grey;
			}
		}
	}
}

bool kl_ens_write_heatmap(const kl_ensemble* ens, int body, const char* path, int cells, char* error, int capacity)
{
	if (cells < 2 || cells > 512 || body < 0 || body >= ens->body_count)
	{
		snprintf(error, (size_t)capacity, "heatmap: bad grid %d or body %d", cells, body);
		return false;
	}
	double lo[2], hi[2];
	kl_ens_view_bounds(ens, body, lo, hi);
	int* counts = calloc((size_t)cells * (size_t)cells, sizeof(int));
	int size = cells * KL_ENS_PIXELS_PER_CELL;
	uint8_t* rgb = calloc((size_t)size * (size_t)size * 3, 1);
	bool ok = counts != NULL && rgb != NULL;
	int peak = 1;
	for (int i = 0; ok && i < ens->def.sample_count; ++i)
	{
		const float* p = kl_ens_state(ens, i, body) + 3;
		int cx = (int)((p[0] - lo[0]) / (hi[0] - lo[0]) * cells), cy = (int)((p[1] - lo[1]) / (hi[1] - lo[1]) * cells);
		if (cx >= 0 && cx < cells && cy >= 0 && cy < cells)
		{
			int c = ++counts[cy * cells + cx];
			peak = c > peak ? c : peak;
		}
	}
	for (int y = 0; ok && y < size; ++y)
	{ // image rows top first, y of the scene up
		for (int x = 0; x < size; ++x)
		{
			int c = counts[((size - 1 - y) / KL_ENS_PIXELS_PER_CELL) * cells + x / KL_ENS_PIXELS_PER_CELL];
			kl_ens_heat_rgb(sqrt((double)c / peak), rgb + ((size_t)y * (size_t)size + (size_t)x) * 3);
		}
	}
	double scale = size / (hi[0] - lo[0]);
	for (int b = 0; ok && b < ens->static_box_count; ++b)
	{
		kl_ens_outline(rgb, size, lo, scale, ens->static_boxes[b], 128);
	}
	for (int r = 0; ok && r < ens->def.region_count; ++r)
	{
		if (ens->def.regions[r].sensor_index >= 0)
		{
			continue; // a sensor's shapes are outlined with the static ones
		}
		kl_ens_outline(rgb, size, lo, scale, ens->def.regions[r].box, 255);
	}
	if (ok && !kl_app_write_png(path, rgb, size, size))
	{
		ok = false;
	}
	if (!ok)
	{
		snprintf(error, (size_t)capacity, "heatmap: cannot write '%s'", path);
	}
	free(counts);
	free(rgb);
	return ok;
}
