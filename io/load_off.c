// Kollide — Object File Format (OFF): header, counts, one vertex a line, then faces as
// "n i0 ... i(n-1)" with 0-based indices. Colours, normals and edge counts are ignored.
// SPDX-License-Identifier: MIT
#include "load_common.h"

#include <string.h>

// Shortest vertex line "0 0 0" and face line "3 0 1 2", each with its newline: what a file that
// declares its counts must hold at least, checked before anything is allocated for them.
#define OFF_MIN_VERTEX_BYTES 6
#define OFF_MIN_FACE_BYTES 8

typedef struct off_counts
{
	int64_t vertices;
	int64_t faces;
} off_counts;

// "OFF" with the optional prefixes ST (texture), C (colour) and N (normal), in that order: all
// of them keep x y z first on a vertex line. 4OFF and nOFF change the dimension: unsupported.
static bool is_off_keyword(const char* token, size_t length)
{
	size_t i = 0;
	if (length - i >= 2 && memcmp(token + i, "ST", 2) == 0)
	{
		i += 2;
	}
	if (length - i >= 1 && token[i] == 'C')
	{
		i += 1;
	}
	if (length - i >= 1 && token[i] == 'N')
	{
		i += 1;
	}
	return length - i == 3 && memcmp(token + i, "OFF", 3) == 0;
}

// The header keyword, then the counts (on the same line or the next one with content).
static kl_result read_header(kl_text* text, off_counts* counts)
{
	const char* token;
	size_t length;
	if (!kl_text_token_any_line(text, &token, &length) || !is_off_keyword(token, length))
	{
		return kl_text_fail(text, KL_ERR_PARSE, "not an OFF file (it must start with 'OFF', 'COFF' or 'NOFF')");
	}
	if (!kl_text_seek_content(text))
	{
		return kl_text_fail(text, KL_ERR_PARSE, "file ends before the vertex and face counts");
	}
	kl_result r = kl_text_int(text, &counts->vertices, "vertex count");
	r = r == KL_OK ? kl_text_int(text, &counts->faces, "face count") : r;
	if (r != KL_OK)
	{
		return r;
	}
	if (counts->vertices < 0 || counts->faces < 0)
	{
		return kl_text_fail(text, KL_ERR_PARSE, "negative counts (%lld vertices, %lld faces)",
							(long long)counts->vertices, (long long)counts->faces);
	}
	if (counts->vertices > KL_MESH_MAX_VERTICES || counts->faces > KL_MESH_MAX_TRIANGLES)
	{
		return kl_text_fail(text, KL_ERR_LIMIT, "%lld vertices and %lld faces exceed the limits (%d, %d)",
							(long long)counts->vertices, (long long)counts->faces, KL_MESH_MAX_VERTICES,
							KL_MESH_MAX_TRIANGLES);
	}
	int64_t needed = OFF_MIN_VERTEX_BYTES * counts->vertices + OFF_MIN_FACE_BYTES * counts->faces;
	int64_t left = text->end - text->cursor;
	if (needed > left)
	{
		return kl_text_fail(text, KL_ERR_PARSE, "%lld vertices and %lld faces need at least %lld bytes, %lld follow (truncated?)",
							(long long)counts->vertices, (long long)counts->faces, (long long)needed, (long long)left);
	}
	kl_text_next_line(text); // an edge count may follow; it is unused
	return KL_OK;
}

static kl_result read_vertices(kl_text* text, int count, kl_mesh_builder* builder)
{
	for (int i = 0; i < count; ++i)
	{
		if (!kl_text_seek_content(text))
		{
			return kl_text_fail(text, KL_ERR_PARSE, "file ends after %d of %d vertices (truncated?)", i, count);
		}
		vec3s v;
		kl_result r = kl_text_vec3(text, &v, "vertex coordinate");
		r = r == KL_OK ? kl_mesh_builder_add_vertex(builder, v) : r;
		if (r != KL_OK)
		{
			return r;
		}
		kl_text_next_line(text);
	}
	return KL_OK;
}

// "n i0 ... i(n-1) [colour]": a convex polygon, fan-triangulated.
static kl_result read_face(kl_text* text, int vertex_count, kl_mesh_builder* builder, int32_t** polygon, int* capacity)
{
	int64_t n = 0;
	kl_result r = kl_text_int(text, &n, "face size");
	if (r != KL_OK)
	{
		return r;
	}
	if (n < 3)
	{
		return kl_text_fail(text, KL_ERR_PARSE, "face has %lld vertices, at least 3 needed", (long long)n);
	}
	for (int64_t i = 0; i < n; ++i)
	{
		int64_t index = 0;
		r = kl_text_int(text, &index, "face index");
		if (r != KL_OK)
		{
			return r;
		}
		if (index < 0 || index >= vertex_count)
		{
			return kl_text_fail(text, KL_ERR_INVALID_ARGUMENT, "face index %lld is out of range [0, %d)", (long long)index,
								vertex_count);
		}
		// Grown per index read, never by the declared size: a line cannot hold more than the file.
		if (!KL_ARRAY_RESERVE(*polygon, *capacity, (int)i + 1))
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		(*polygon)[i] = (int32_t)index;
	}
	return kl_mesh_builder_add_polygon(builder, *polygon, (int)n);
}

static kl_result read_faces(kl_text* text, int count, kl_mesh_builder* builder)
{
	int32_t* polygon = NULL;
	int capacity = 0;
	kl_result r = KL_OK;
	for (int i = 0; i < count && r == KL_OK; ++i)
	{
		if (!kl_text_seek_content(text))
		{
			r = kl_text_fail(text, KL_ERR_PARSE, "file ends after %d of %d faces (truncated?)", i, count);
			break;
		}
		r = read_face(text, builder->data.vertex_count, builder, &polygon, &capacity);
		kl_text_next_line(text);
	}
	kl_free(polygon);
	return r;
}

kl_result kl_mesh_data_parse_off(const char* text, size_t length, kl_mesh_data* out)
{
	if (out == NULL || (text == NULL && length > 0))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "OFF: text or out is NULL");
	}
	memset(out, 0, sizeof(*out));
	kl_text reader;
	kl_text_init(&reader, text, length, "OFF");
	reader.hash_comments = true;
	kl_mesh_builder builder;
	memset(&builder, 0, sizeof(builder));
	off_counts counts = {0, 0};
	kl_result r = read_header(&reader, &counts);
	r = r == KL_OK ? kl_mesh_builder_reserve(&builder, (int)counts.vertices, (int)counts.faces) : r;
	r = r == KL_OK ? read_vertices(&reader, (int)counts.vertices, &builder) : r;
	r = r == KL_OK ? read_faces(&reader, (int)counts.faces, &builder) : r;
	if (r != KL_OK)
	{
		kl_mesh_builder_free(&builder);
		return r;
	}
	return kl_mesh_builder_finish(&builder, "OFF", out);
}
