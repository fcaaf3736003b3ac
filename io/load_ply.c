// Kollide — PLY reader entry points: parse = header (load_ply_header.c), a check of the declared counts
// against the bytes that follow before anything is allocated for them, then the body (load_ply_body.c);
// the colour range is read from the comments afterwards.
// SPDX-License-Identifier: MIT
#include "ply_internal.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Comments: the colour range

/// strtod on a word, always with '.' as the decimal point whatever the locale.
static bool parse_c_double(const char* word, size_t length, double* out)
{
	char buffer[64];
	if (length == 0 || length >= sizeof(buffer))
	{
		return false;
	}
	memcpy(buffer, word, length);
	buffer[length] = '\0';
	const char* point = localeconv()->decimal_point;
	for (char* c = buffer; point != NULL && point[0] != '.' && point[0] != '\0' && *c != '\0'; ++c)
	{
		*c = *c == '.' ? point[0] : *c;
	}
	char* end = NULL;
	*out = strtod(buffer, &end);
	return end != NULL && *end == '\0' && isfinite(*out);
}

/// The first comment line holding both "min=X" and "max=Y" words sets the range.
static void find_range(kl_ply_mesh* m)
{
	for (const char* line = m->comments; line != NULL && *line != '\0';)
	{
		const char* end = strchr(line, '\n');
		size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
		header_line l;
		kl_ply_split_line(line, n, &l);
		double lo = 0.0, hi = 0.0;
		bool has_lo = false, has_hi = false;
		for (int i = 0; i < l.count && i < 8; ++i)
		{
			if (l.length[i] > 4 && memcmp(l.word[i], "min=", 4) == 0)
				has_lo = parse_c_double(l.word[i] + 4, l.length[i] - 4, &lo);
			if (l.length[i] > 4 && memcmp(l.word[i], "max=", 4) == 0)
				has_hi = parse_c_double(l.word[i] + 4, l.length[i] - 4, &hi);
		}
		if (has_lo && has_hi && fabs(lo) <= FLT_MAX && fabs(hi) <= FLT_MAX)
		{
			m->has_range = true;
			m->range_min = (float)lo;
			m->range_max = (float)hi;
			return;
		}
		line = end != NULL ? end + 1 : NULL;
	}
}

// ---------------------------------------------------------------------------------------------
// Entry points

kl_result kl_ply_parse(const void* bytes, size_t length, kl_ply_mesh* out)
{
	if (out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY: out is NULL");
	}
	memset(out, 0, sizeof(*out));
	if (bytes == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY: bytes is NULL");
	}
	ply_header* h = kl_alloc_zero(1, sizeof(ply_header));
	if (h == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	kl_result r = kl_ply_parse_header(bytes, length, h);
	r = r == KL_OK ? kl_ply_check_body_size(h, length) : r;
	r = r == KL_OK ? kl_ply_parse_body(bytes, length, h, out) : r;
	out->comments = h->comments;
	kl_free(h);
	if (r != KL_OK)
	{
		kl_ply_free(out);
		return r;
	}
	find_range(out);
	return KL_OK;
}

void kl_ply_free(kl_ply_mesh* mesh)
{
	if (mesh == NULL)
	{
		return;
	}
	kl_mesh_data_free(&mesh->mesh);
	kl_free(mesh->colors);
	kl_free(mesh->values);
	kl_free(mesh->counts);
	kl_free(mesh->comments);
	memset(mesh, 0, sizeof(*mesh));
}

kl_result kl_ply_load(const char* path, kl_ply_mesh* out)
{
	if (out != NULL)
	{
		memset(out, 0, sizeof(*out));
	}
	if (path == NULL || out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY load: path or out is NULL");
	}
	char* data = NULL;
	size_t length = 0;
	kl_result r = kl_read_file(path, KL_MESH_MAX_FILE_BYTES, &data, &length);
	if (r != KL_OK)
	{
		return r;
	}
	r = kl_ply_parse(data, length, out);
	kl_free(data);
	if (r != KL_OK)
	{
		char message[400];
		snprintf(message, sizeof(message), "%s", kl_last_error());
		return kl_fail(r, "%s: %s", path, message);
	}
	return KL_OK;
}

kl_result kl_mesh_data_parse_ply(const void* bytes, size_t length, kl_mesh_data* out)
{
	if (out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY: out is NULL");
	}
	kl_ply_mesh ply;
	kl_result r = kl_ply_parse(bytes, length, &ply);
	*out = ply.mesh;
	memset(&ply.mesh, 0, sizeof(ply.mesh));
	kl_ply_free(&ply);
	return r;
}

kl_result kl_mesh_data_load_ply(const char* path, kl_mesh_data* out)
{
	if (out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "PLY load: out is NULL");
	}
	kl_ply_mesh ply;
	kl_result r = kl_ply_load(path, &ply);
	*out = ply.mesh;
	memset(&ply.mesh, 0, sizeof(ply.mesh));
	kl_ply_free(&ply);
	return r;
}
