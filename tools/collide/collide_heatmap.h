// Kollide — per-vertex cost heatmaps of a mesh-pair benchmark (OpenCollBench style; design in
// docs/collide.md): each pose's time, BV tests and triangle tests go to the three vertices of the
// triangle of A (and of B) that holds the pose's closest point; every vertex then gets a statistic of
// its samples, coloured with the project's colour map and written as PLY.
// SPDX-License-Identifier: MIT
#pragma once

#include "pair_core.h"

typedef enum kl_heat_value
{
	KL_HEAT_TIME,	 ///< µs per query
	KL_HEAT_BV,		 ///< BV tests per query
	KL_HEAT_TRI,	 ///< triangle tests per query
	KL_HEAT_DENSITY, ///< how many poses a vertex got (the statistic and --heatmap-iqr do not apply)
	KL_HEAT_VALUE_COUNT,
} kl_heat_value;

typedef enum kl_heat_stat
{
	KL_HEAT_MEAN,
	KL_HEAT_MEDIAN,
	KL_HEAT_MIN,
	KL_HEAT_MAX,
	KL_HEAT_SD,	 ///< sample standard deviation (0 for one sample)
	KL_HEAT_MAD, ///< median absolute deviation from the median
	KL_HEAT_STAT_COUNT,
} kl_heat_stat;

extern const char* const kl_heat_value_names[KL_HEAT_VALUE_COUNT];
extern const char* const kl_heat_stat_names[KL_HEAT_STAT_COUNT];

typedef struct kl_heat_settings
{
	kl_heat_value value;
	kl_heat_stat stat;
	bool iqr;		  ///< leave out poses outside the Tukey fences (1.5·IQR) of their group's values
	bool fixed_range; ///< colour between lo and hi instead of the data's own range
	double lo;
	double hi;
} kl_heat_settings;

/// One pose's measurements and closest triangles (tri < 0: none found).
typedef struct kl_heat_sample
{
	double time_us;
	int64_t bv_tests;
	int64_t tri_tests;
	int tri_a;
	int tri_b;
	int group; ///< "# rel=" group of the pose (the IQR fences are per group)
} kl_heat_sample;

typedef struct kl_heat_summary
{
	double lo; ///< colour range used
	double hi;
	int removed;	 ///< poses left out by the IQR fences
	int vertices_a;	 ///< vertices with at least one sample
	int vertices_b;
} kl_heat_summary;

/// Writes PREFIX_a.ply and PREFIX_b.ply. spec_a/spec_b name the meshes in the files' comments.
/// False with a message in err.
bool kl_heat_write(const char* prefix, const kl_pair_model* a, const char* spec_a, const kl_pair_model* b,
				   const char* spec_b, const kl_heat_sample* samples, int count, const kl_heat_settings* settings,
				   kl_heat_summary* summary, char* err, size_t err_size);

/// The statistic of n values (sorts them; n ≥ 1).
double kl_heat_statistic(double* values, int n, kl_heat_stat stat);
