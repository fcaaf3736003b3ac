// Kollide render — the project's perceptual colour map as plain C (no GL, SDL or cglm), so that tools
// that write coloured files (kollide-collide --heatmap) colour them exactly as the viewer's heatmaps
// and legends do. kl_colormap (heatmap.h) and the shader (shaders.c) use the same control points.
// SPDX-License-Identifier: MIT
#pragma once

/// Control points, sRGB, evenly spaced in t. Chosen for this project (not taken from any published
/// table): dark blue through teal and green to yellow, each point brighter than the one before, so
/// that piecewise-linear blending keeps luminance increasing all the way.
static const float kl_colormap_points[5][3] = {
	{0.169f, 0.071f, 0.365f}, {0.157f, 0.290f, 0.561f}, {0.094f, 0.522f, 0.514f},
	{0.416f, 0.737f, 0.306f}, {0.988f, 0.894f, 0.145f},
};

/// t in [0, 1] (clamped; NaN gives 0) → sRGB in [0, 1].
static inline void kl_colormap_rgb(float t, float rgb[3])
{
	if (!(t > 0.0f))
	{
		t = 0.0f;
	}
	float s = (t < 1.0f ? t : 1.0f) * 4.0f;
	int i = s >= 4.0f ? 3 : (int)s;
	float f = s - (float)i;
	const float* a = kl_colormap_points[i];
	const float* b = kl_colormap_points[i + 1];
	for (int k = 0; k < 3; ++k)
	{
		rgb[k] = a[k] + (b[k] - a[k]) * f;
	}
}
