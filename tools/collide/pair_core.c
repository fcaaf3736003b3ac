// Kollide — what kollide-collide and kollide-poses share (see pair_core.h).
// SPDX-License-Identifier: MIT
#include "pair_core.h"

#include "meshgen.h"

#include <kollide/io.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double kl_pair_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool kl_pair_parse_int(const char* s, int lo, int hi, int* out)
{
	char* end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
	{
		return false;
	}
	*out = (int)v;
	return true;
}

// ---------------------------------------------------------------------------------------------
// Loading

/// "gen:NAME[:N]" through meshgen.
static bool load_generated(const char* name, kl_meshgen_mesh* mesh, char* err, size_t err_size)
{
	char base[32] = {0};
	long n = -1;
	const char* colon = strchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);
	if (len >= sizeof(base))
	{
		snprintf(err, err_size, "unknown generated mesh 'gen:%s'", name);
		return false;
	}
	memcpy(base, name, len);
	if (colon != NULL)
	{
		char* end;
		errno = 0;
		n = strtol(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == colon + 1 || n < 1 || n > 100000)
		{
			snprintf(err, err_size, "bad parameter in 'gen:%s' (a positive integer expected)", name);
			return false;
		}
	}
	kl_result r;
	if (strcmp(base, "gear") == 0)
	{
		kl_meshgen_gear_params p = kl_meshgen_default_gear_params();
		p.tooth_count = n > 0 ? (int)n : p.tooth_count;
		r = kl_meshgen_gear(&p, mesh);
	}
	else if (strcmp(base, "rock") == 0)
	{
		kl_meshgen_rock_params p = kl_meshgen_default_rock_params();
		p.frequency = n > 0 ? (int)n : p.frequency;
		r = kl_meshgen_rock(&p, mesh);
	}
	else if (strcmp(base, "screw") == 0)
	{
		kl_meshgen_screw_params p = kl_meshgen_default_screw_params();
		r = kl_meshgen_screw(&p, mesh);
	}
	else if (strcmp(base, "nut") == 0)
	{
		kl_meshgen_screw_params s = kl_meshgen_default_screw_params();
		kl_meshgen_bearing_block_params p = kl_meshgen_bearing_block_for_screw(&s, true);
		r = kl_meshgen_bearing_block(&p, mesh);
	}
	else if (strcmp(base, "bowl") == 0)
	{
		kl_meshgen_bowl_params p = kl_meshgen_default_bowl_params();
		r = kl_meshgen_bowl(&p, mesh);
	}
	else if (strcmp(base, "knot") == 0)
	{
		kl_meshgen_torus_knot_params p = kl_meshgen_default_torus_knot_params();
		r = kl_meshgen_torus_knot(&p, mesh);
	}
	else
	{
		snprintf(err, err_size, "unknown generated mesh 'gen:%s' (gear, rock, screw, nut, bowl, knot)", name);
		return false;
	}
	if (r != KL_OK)
	{
		snprintf(err, err_size, "gen:%s: %s", name, kl_meshgen_last_error());
		return false;
	}
	return true;
}

/// The engine's mesh of a triangle soup (welded, cleaned; point shells when asked).
static bool build_mesh(const char* spec, const vec3s* vertices, int vertex_count, const int32_t* indices,
					   int triangle_count, bool pointshell, kl_pair_model* model, char* err, size_t err_size)
{
	if (triangle_count < 1 || vertex_count < 3)
	{
		snprintf(err, err_size, "mesh '%s' has no triangles", spec);
		return false;
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = vertex_count;
	def.indices = indices;
	def.triangle_count = triangle_count;
	def.source = spec;
	def.build_pointshell = pointshell;
	double start = kl_pair_now();
	model->mesh = kl_mesh_build(&def);
	model->mesh_seconds = kl_pair_now() - start;
	if (model->mesh == NULL)
	{
		snprintf(err, err_size, "mesh '%s': %s", spec, kl_last_error());
		return false;
	}
	return true;
}

bool kl_pair_load(const char* spec, bool pointshell, const kl_collision_model_def* def, kl_pair_model* model,
				  char* err, size_t err_size)
{
	memset(model, 0, sizeof(*model));
	bool ok;
	if (strncmp(spec, "gen:", 4) == 0)
	{
		kl_meshgen_mesh mesh = {0};
		ok = load_generated(spec + 4, &mesh, err, err_size) &&
			 build_mesh(spec, mesh.vertices, mesh.vertex_count, mesh.indices, mesh.triangle_count, pointshell, model,
						err, err_size);
		kl_meshgen_free(&mesh);
	}
	else
	{
		kl_mesh_data data = {0};
		if (kl_mesh_data_load(spec, &data) != KL_OK)
		{
			snprintf(err, err_size, "cannot load mesh '%s': %s", spec, kl_last_error());
			return false;
		}
		ok = build_mesh(spec, data.vertices, data.vertex_count, data.indices, data.triangle_count, pointshell, model,
						err, err_size);
		kl_mesh_data_free(&data);
	}
	if (ok)
	{
		model->model = kl_collision_model_create(model->mesh, def);
		if (model->model == NULL)
		{
			snprintf(err, err_size, "mesh '%s': collision model: %s", spec, kl_last_error());
			ok = false;
		}
	}
	if (!ok)
	{
		kl_pair_free(model);
		return false;
	}
	kl_mesh_info info = kl_mesh_get_info(model->mesh);
	model->info = kl_collision_model_get_info(model->model);
	model->vertices = kl_mesh_vertices(model->mesh);
	model->vertex_count = info.vertex_count;
	model->indices = kl_mesh_indices(model->mesh);
	model->triangle_count = info.triangle_count;
	return true;
}

void kl_pair_free(kl_pair_model* model)
{
	kl_collision_model_destroy(model->model);
	kl_mesh_release(model->mesh);
	memset(model, 0, sizeof(*model));
}

kl_collision_pose kl_pair_pose(const double m34[12])
{
	kl_collision_pose pose;
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			pose.rotation[r][c] = m34[4 * r + c];
		}
		pose.translation[r] = m34[4 * r + 3];
	}
	return pose;
}

// ---------------------------------------------------------------------------------------------
// Pose files

static bool add_group(kl_pose_file* f, const char* name)
{
	char** grown = realloc(f->group_names, sizeof(char*) * (size_t)(f->group_count + 1));
	if (grown == NULL)
	{
		return false;
	}
	f->group_names = grown;
	f->group_names[f->group_count] = strdup(name);
	if (f->group_names[f->group_count] == NULL)
	{
		return false;
	}
	f->group_count += 1;
	return true;
}

/// "# rel=X ..." names a group: the first whitespace-separated word after '#'.
static bool parse_comment(kl_pose_file* f, const char* comment)
{
	while (*comment == '#' || isspace((unsigned char)*comment))
	{
		++comment;
	}
	if (strncmp(comment, "rel=", 4) != 0)
	{
		return true;
	}
	char name[64];
	size_t n = 0;
	while (comment[n] != '\0' && !isspace((unsigned char)comment[n]) && n + 1 < sizeof(name))
	{
		name[n] = comment[n];
		++n;
	}
	name[n] = '\0';
	return add_group(f, name);
}

static bool parse_line(char* line, double values[16], int* count)
{
	*count = 0;
	char* p = line;
	for (;;)
	{
		while (isspace((unsigned char)*p) || *p == ',')
		{
			++p;
		}
		if (*p == '\0')
		{
			return true;
		}
		char* end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno == ERANGE || !isfinite(v))
		{
			return false;
		}
		if (*count < 16)
		{
			values[*count] = v;
		}
		*count += 1;
		p = end;
	}
}

static bool check_pose(const double v[16], char* why, size_t why_size)
{
	if (v[12] != 0.0 || v[13] != 0.0 || v[14] != 0.0 || v[15] != 1.0)
	{
		snprintf(why, why_size, "last row must be 0 0 0 1");
		return false;
	}
	kl_collision_pose pose = kl_pair_pose(v);
	if (kl_collision_pose_check(&pose) != KL_OK)
	{
		snprintf(why, why_size, "the 3x3 part is not a rotation (orthonormal within 1e-4, det +1)");
		return false;
	}
	return true;
}

static bool add_pose(kl_pose_file* f, const double v[16], int* capacity)
{
	if (f->count == *capacity)
	{
		int cap = *capacity ? 2 * *capacity : 64;
		double* m = realloc(f->m34, sizeof(double) * 12 * (size_t)cap);
		if (m == NULL)
		{
			return false;
		}
		f->m34 = m;
		int* g = realloc(f->group, sizeof(int) * (size_t)cap);
		if (g == NULL)
		{
			return false;
		}
		f->group = g;
		*capacity = cap;
	}
	if (f->group_count == 0 && !add_group(f, "all"))
	{
		return false;
	}
	memcpy(f->m34 + 12 * (size_t)f->count, v, sizeof(double) * 12);
	f->group[f->count] = f->group_count - 1;
	f->count += 1;
	return true;
}

bool kl_pose_file_read(const char* path, kl_pose_file* out, char* err, size_t err_size)
{
	memset(out, 0, sizeof(*out));
	FILE* file = fopen(path, "r");
	if (file == NULL)
	{
		snprintf(err, err_size, "cannot open pose file '%s': %s", path, strerror(errno));
		return false;
	}
	char* line = NULL;
	size_t line_size = 0;
	int line_no = 0, capacity = 0;
	bool ok = true;
	while (ok && getline(&line, &line_size, file) >= 0)
	{
		line_no += 1;
		char* hash = strchr(line, '#');
		if (hash != NULL)
		{
			ok = parse_comment(out, hash);
			*hash = '\0';
		}
		double v[16];
		int count;
		char why[128];
		if (!ok)
		{
			snprintf(err, err_size, "out of memory");
		}
		else if (!parse_line(line, v, &count))
		{
			snprintf(err, err_size, "%s:%d: not a finite number", path, line_no);
			ok = false;
		}
		else if (count != 0 && count != 16)
		{
			snprintf(err, err_size, "%s:%d: expected 16 numbers (a row-major 4x4 matrix), found %d", path, line_no,
					 count);
			ok = false;
		}
		else if (count == 16 && !check_pose(v, why, sizeof(why)))
		{
			snprintf(err, err_size, "%s:%d: %s", path, line_no, why);
			ok = false;
		}
		else if (count == 16 && !add_pose(out, v, &capacity))
		{
			snprintf(err, err_size, "out of memory");
			ok = false;
		}
	}
	free(line);
	fclose(file);
	if (ok && out->count == 0)
	{
		snprintf(err, err_size, "%s: no poses", path);
		ok = false;
	}
	if (!ok)
	{
		kl_pose_file_free(out);
	}
	return ok;
}

void kl_pose_file_free(kl_pose_file* f)
{
	free(f->m34);
	free(f->group);
	for (int i = 0; i < f->group_count; ++i)
	{
		free(f->group_names[i]);
	}
	free(f->group_names);
	memset(f, 0, sizeof(*f));
}

static int kl_pair_cmp_double(const void* x, const void* y)
{
	double a = *(const double*)x, b = *(const double*)y;
	return (a > b) - (a < b);
}

void kl_pair_sort(double* v, int n)
{
	qsort(v, (size_t)n, sizeof(double), kl_pair_cmp_double);
}

double kl_pair_median_sorted(const double* v, int n)
{
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void kl_pair_print_group_stats(const char* name, double* us, int n)
{
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
	{
		sum += us[i];
	}
	double mean = sum / n, var = 0.0;
	for (int i = 0; i < n; ++i)
	{
		var += (us[i] - mean) * (us[i] - mean);
	}
	kl_pair_sort(us, n);
	double median = kl_pair_median_sorted(us, n);
	double min = us[0], max = us[n - 1];
	for (int i = 0; i < n; ++i)
	{
		us[i] = fabs(us[i] - median);
	}
	kl_pair_sort(us, n);
	printf("group %s n=%d mean_us=%.3f median_us=%.3f min_us=%.3f max_us=%.3f sd_us=%.3f mad_us=%.3f\n", name, n,
		   mean, median, min, max, n > 1 ? sqrt(var / (n - 1)) : 0.0, kl_pair_median_sorted(us, n));
}
