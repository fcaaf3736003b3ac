// Kollide — per-vertex cost heatmaps of kollide-collide (see collide_heatmap.h).
// SPDX-License-Identifier: MIT
#include "collide_heatmap.h"

#include "colormap.h"

#include <kollide/ply.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char* const kl_heat_value_names[KL_HEAT_VALUE_COUNT] = {"time", "bv", "tri", "density"};
const char* const kl_heat_stat_names[KL_HEAT_STAT_COUNT] = {"mean", "median", "min", "max", "sd", "mad"};

/// Vertices that get no sample are drawn in this grey (not on the colour map).
static const uint8_t kl_heat_grey[3] = {150, 150, 150};

/// Quantile q of sorted values, linear between order statistics.
static double quantile_sorted(const double* v, int n, double q)
{
	double at = q * (double)(n - 1);
	int i = (int)floor(at);
	int j = i + 1 < n ? i + 1 : i;
	return v[i] + (v[j] - v[i]) * (at - (double)i);
}

double kl_heat_statistic(double* v, int n, kl_heat_stat stat)
{
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
	{
		sum += v[i];
	}
	double mean = sum / n;
	if (stat == KL_HEAT_MEAN)
	{
		return mean;
	}
	if (stat == KL_HEAT_SD)
	{
		double var = 0.0;
		for (int i = 0; i < n; ++i)
		{
			var += (v[i] - mean) * (v[i] - mean);
		}
		return n > 1 ? sqrt(var / (n - 1)) : 0.0;
	}
	kl_pair_sort(v, n);
	double median = kl_pair_median_sorted(v, n);
	if (stat != KL_HEAT_MAD)
	{
		return stat == KL_HEAT_MEDIAN ? median : stat == KL_HEAT_MIN ? v[0] : v[n - 1];
	}
	for (int i = 0; i < n; ++i)
	{
		v[i] = fabs(v[i] - median);
	}
	kl_pair_sort(v, n);
	return kl_pair_median_sorted(v, n);
}

static double sample_value(const kl_heat_sample* s, kl_heat_value value)
{
	switch (value)
	{
		case KL_HEAT_TIME: return s->time_us;
		case KL_HEAT_BV: return (double)s->bv_tests;
		case KL_HEAT_TRI: return (double)s->tri_tests;
		default: return 1.0;
	}
}

/// keep[i]: pose i has a closest triangle and, with IQR, lies within its group's Tukey fences.
static bool select_samples(const kl_heat_sample* samples, int count, const kl_heat_settings* settings, bool* keep,
						   int* removed)
{
	*removed = 0;
	int groups = 0;
	for (int i = 0; i < count; ++i)
	{
		keep[i] = samples[i].tri_a >= 0 && samples[i].tri_b >= 0;
		groups = samples[i].group + 1 > groups ? samples[i].group + 1 : groups;
	}
	if (!settings->iqr || settings->value == KL_HEAT_DENSITY)
	{
		return true;
	}
	double* v = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
	if (v == NULL)
	{
		return false;
	}
	for (int g = 0; g < groups; ++g)
	{
		int n = 0;
		for (int i = 0; i < count; ++i)
		{
			if (keep[i] && samples[i].group == g)
			{
				v[n++] = sample_value(samples + i, settings->value);
			}
		}
		if (n < 4)
		{
			continue; // quartiles of fewer values fence nothing meaningful
		}
		kl_pair_sort(v, n);
		double q1 = quantile_sorted(v, n, 0.25), q3 = quantile_sorted(v, n, 0.75);
		double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
		for (int i = 0; i < count; ++i)
		{
			double x = sample_value(samples + i, settings->value);
			if (keep[i] && samples[i].group == g && (x < lo || x > hi))
			{
				keep[i] = false;
				*removed += 1;
			}
		}
	}
	free(v);
	return true;
}

/// One mesh's per-vertex statistic (value, number of samples).
typedef struct vertex_field
{
	double* value;
	int32_t* count;
} vertex_field;

/// The distinct vertices of triangle t (1 to 3).
static int triangle_vertices(const kl_pair_model* m, int t, int32_t out[3])
{
	int n = 0;
	for (int k = 0; k < 3; ++k)
	{
		int32_t v = m->indices[3 * t + k];
		bool seen = false;
		for (int j = 0; j < n; ++j)
		{
			seen = seen || out[j] == v;
		}
		if (!seen)
		{
			out[n++] = v;
		}
	}
	return n;
}

/// Gathers each vertex's samples (CSR) and reduces them to the statistic.
static bool vertex_statistics(const kl_pair_model* m, bool mesh_b, const kl_heat_sample* samples, const bool* keep,
							  int count, const kl_heat_settings* settings, vertex_field* out)
{
	int nv = m->vertex_count;
	out->value = calloc((size_t)nv, sizeof(double));
	out->count = calloc((size_t)nv, sizeof(int32_t));
	int* start = calloc((size_t)nv + 1, sizeof(int));
	double* values = malloc(sizeof(double) * 3 * (size_t)(count > 0 ? count : 1));
	bool ok = out->value != NULL && out->count != NULL && start != NULL && values != NULL;
	for (int i = 0; ok && i < count; ++i)
	{
		int32_t vs[3];
		int n = keep[i] ? triangle_vertices(m, mesh_b ? samples[i].tri_b : samples[i].tri_a, vs) : 0;
		for (int k = 0; k < n; ++k)
		{
			start[vs[k] + 1] += 1;
		}
	}
	for (int v = 0; ok && v < nv; ++v)
	{
		start[v + 1] += start[v];
	}
	for (int i = 0; ok && i < count; ++i)
	{
		int32_t vs[3];
		int n = keep[i] ? triangle_vertices(m, mesh_b ? samples[i].tri_b : samples[i].tri_a, vs) : 0;
		for (int k = 0; k < n; ++k)
		{
			values[start[vs[k]] + out->count[vs[k]]++] = sample_value(samples + i, settings->value);
		}
	}
	for (int v = 0; ok && v < nv; ++v)
	{
		int n = out->count[v];
		if (n > 0)
		{
			out->value[v] = settings->value == KL_HEAT_DENSITY
								? (double)n
								: kl_heat_statistic(values + start[v], n, settings->stat);
		}
	}
	free(start);
	free(values);
	return ok;
}

static void field_range(const vertex_field* f, int n, double* lo, double* hi, int* assigned)
{
	*assigned = 0;
	for (int v = 0; v < n; ++v)
	{
		if (f->count[v] > 0)
		{
			*lo = fmin(*lo, f->value[v]);
			*hi = fmax(*hi, f->value[v]);
			*assigned += 1;
		}
	}
}

static bool write_mesh(const char* path, const kl_pair_model* m, const char* spec, const char* which,
					   const vertex_field* f, const kl_heat_settings* settings, double lo, double hi, char* err,
					   size_t err_size)
{
	int nv = m->vertex_count;
	vec3s* vertices = malloc(sizeof(vec3s) * (size_t)nv);
	uint8_t* colors = malloc(3 * (size_t)nv);
	float* values = malloc(sizeof(float) * (size_t)nv);
	bool ok = vertices != NULL && colors != NULL && values != NULL;
	for (int v = 0; ok && v < nv; ++v)
	{
		vertices[v] = m->vertices[v];
		values[v] = f->count[v] > 0 ? (float)f->value[v] : 0.0f;
		float rgb[3];
		kl_colormap_rgb(hi > lo ? (float)((f->value[v] - lo) / (hi - lo)) : 0.5f, rgb);
		for (int k = 0; k < 3; ++k)
		{
			colors[3 * v + k] = f->count[v] > 0 ? (uint8_t)lrintf(255.0f * rgb[k]) : kl_heat_grey[k];
		}
	}
	char comments[1024];
	snprintf(comments, sizeof(comments),
			 "kollide-collide heatmap mesh=%s value=%s stat=%s iqr=%d min=%.9g max=%.9g\n"
			 "source %s\n"
			 "value: per-vertex %s of the %s of the poses whose closest point lies on an adjacent triangle\n"
			 "count: poses assigned to the vertex (0: none, drawn grey with value 0)\n",
			 which, kl_heat_value_names[settings->value], kl_heat_stat_names[settings->stat], settings->iqr ? 1 : 0, lo,
			 hi, spec, settings->value == KL_HEAT_DENSITY ? "number" : kl_heat_stat_names[settings->stat],
			 settings->value == KL_HEAT_TIME  ? "query time (us)"
			 : settings->value == KL_HEAT_BV  ? "BV tests"
			 : settings->value == KL_HEAT_TRI ? "triangle tests"
											  : "samples");
	// kl_ply_save only reads the mesh: the mesh's own indices serve as they are.
	kl_ply_mesh ply = {{vertices, nv, (int32_t*)m->indices, m->triangle_count}, colors, values, f->count, comments,
					   false, 0.0f, 0.0f};
	if (ok && kl_ply_save(path, &ply) != KL_OK)
	{
		snprintf(err, err_size, "%s", kl_last_error());
		ok = false;
	}
	else if (!ok)
	{
		snprintf(err, err_size, "out of memory");
	}
	free(vertices);
	free(colors);
	free(values);
	return ok;
}

bool kl_heat_write(const char* prefix, const kl_pair_model* a, const char* spec_a, const kl_pair_model* b,
				   const char* spec_b, const kl_heat_sample* samples, int count, const kl_heat_settings* settings,
				   kl_heat_summary* summary, char* err, size_t err_size)
{
	memset(summary, 0, sizeof(*summary));
	bool* keep = malloc(sizeof(bool) * (size_t)(count > 0 ? count : 1));
	vertex_field fa = {0}, fb = {0};
	bool ok = keep != NULL && select_samples(samples, count, settings, keep, &summary->removed) &&
			  vertex_statistics(a, false, samples, keep, count, settings, &fa) &&
			  vertex_statistics(b, true, samples, keep, count, settings, &fb);
	if (!ok)
	{
		snprintf(err, err_size, "out of memory");
	}
	double lo = INFINITY, hi = -INFINITY;
	if (ok)
	{
		field_range(&fa, a->vertex_count, &lo, &hi, &summary->vertices_a);
		field_range(&fb, b->vertex_count, &lo, &hi, &summary->vertices_b);
		lo = settings->fixed_range ? settings->lo : isfinite(lo) ? lo : 0.0;
		hi = settings->fixed_range ? settings->hi : isfinite(hi) ? hi : 0.0;
		summary->lo = lo;
		summary->hi = hi;
		char path[4096];
		snprintf(path, sizeof(path), "%s_a.ply", prefix);
		ok = write_mesh(path, a, spec_a, "a", &fa, settings, lo, hi, err, err_size);
		snprintf(path, sizeof(path), "%s_b.ply", prefix);
		ok = ok && write_mesh(path, b, spec_b, "b", &fb, settings, lo, hi, err, err_size);
	}
	free(keep);
	free(fa.value);
	free(fa.count);
	free(fb.value);
	free(fb.count);
	return ok;
}
