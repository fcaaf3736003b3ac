// Kollide — meshgen internals: a growing indexed mesh, error reporting, small geometry helpers.
// SPDX-License-Identifier: MIT
#pragma once

#include "meshgen.h"

#include <math.h>

#define MG_PI 3.14159265358979323846

#if defined(__GNUC__)
#define MG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MG_PRINTF(f, a)
#endif

/// Records the message for kl_meshgen_last_error and returns code.
kl_result mg_fail(kl_result code, const char* format, ...) MG_PRINTF(2, 3);
void mg_clear_error(void);

/// A mesh under construction. Allocation failures latch `failed`; mg_finish reports them once.
typedef struct mg_builder
{
	vec3s* vertices;
	int vertex_count;
	int vertex_capacity;
	int32_t* indices;
	int triangle_count;
	int triangle_capacity;
	bool failed;
} mg_builder;

/// Reserves room up front (the generators know their sizes) so building never reallocates.
void mg_builder_init(mg_builder* b, int vertex_capacity, int triangle_capacity);
int mg_vertex(mg_builder* b, double x, double y, double z);
void mg_triangle(mg_builder* b, int a, int c, int d);
/// A quad a-b-c-d counter-clockwise seen from outside, split along the diagonal whose two
/// triangles face most along the quad's normal (never a folded split of a simple quad).
void mg_quad(mg_builder* b, int a, int c, int d, int e);
/// Triangles of a lathe whose vertices are laid out as: the first axis point, `rings` rings of
/// `segments` vertices counter-clockwise about the axis, the last axis point.
void mg_lathe_faces(mg_builder* b, int first, int rings, int segments);
/// Moves the arrays into out, or frees them and fails with KL_ERR_OUT_OF_MEMORY.
kl_result mg_finish(mg_builder* b, kl_meshgen_mesh* out);

/// Validation helpers: false (with the message recorded) when the value is out of range.
bool mg_check_float(const char* what, float value, double lo, double hi);
bool mg_check_int(const char* what, int value, int lo, int hi);

/// One column of a surface of revolution-like tube r(θ, z): the z values of its vertices, bottom
/// to top, and their vertex indices. Neighbouring columns are zipped together by z.
typedef struct mg_column
{
	double* z;
	int* vertex;
	int count;
} mg_column;

/// Triangulates between the columns by merging their z lists (columns wrap around). outward: the
/// surface faces away from the axis (a shaft) rather than towards it (a bore).
void mg_zip_columns(mg_builder* b, const mg_column* columns, int column_count, bool outward);

/// Radius of the thread surface: minor radius at the root, major at the crest; the profile
/// (root, flank, crest, flank, a quarter pitch each) is a function of z / pitch - θ / 2π.
double mg_thread_radius(double pitch, double minor, double major, double theta, double z);
/// The z values in (z0 + margin, z1 - margin) at angle θ where the thread profile has a corner.
/// Writes at most capacity; returns the count.
int mg_thread_rows(double pitch, double theta, double z0, double z1, double margin, double* z, int capacity);
