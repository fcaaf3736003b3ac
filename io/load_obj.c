// Kollide — Wavefront OBJ: positions ('v') and faces ('f'); everything else is skipped.
// SPDX-License-Identifier: MIT
#include "load_common.h"

#include <string.h>

typedef struct obj_reader
{
	kl_text text;
	kl_mesh_builder builder;
	int32_t* polygon; ///< indices of the face being read
	int polygon_capacity;
	// The highest index any face used, checked once all vertices are known (faces may come first).
	int64_t max_index;
	int max_index_line;
} obj_reader;

// "v x y z [w]" or "v x y z r g b": what follows the position is ignored.
static kl_result read_vertex(obj_reader* obj)
{
	vec3s v;
	kl_result r = kl_text_vec3(&obj->text, &v, "vertex coordinate");
	return r == KL_OK ? kl_mesh_builder_add_vertex(&obj->builder, v) : r;
}

// One face corner, "v", "v/vt", "v//vn" or "v/vt/vn": only the position index is used. Negative
// indices count back from the last vertex read so far.
static kl_result read_corner(obj_reader* obj, const char* token, size_t length, int32_t* out)
{
	int64_t index = 0;
	size_t used = kl_parse_int_prefix(token, length, &index);
	if (used == 0 || (used < length && token[used] != '/'))
	{
		return kl_text_fail(&obj->text, KL_ERR_PARSE, "face corner '%.*s' is not a vertex index",
							length > 32 ? 32 : (int)length, token);
	}
	if (index == 0)
	{
		return kl_text_fail(&obj->text, KL_ERR_INVALID_ARGUMENT, "face index 0 is invalid (OBJ indices start at 1)");
	}
	int64_t resolved = index > 0 ? index - 1 : obj->builder.data.vertex_count + index;
	if (resolved < 0 || resolved >= KL_MESH_MAX_VERTICES)
	{
		return kl_text_fail(&obj->text, KL_ERR_INVALID_ARGUMENT, "face index %lld is out of range (%d vertices so far)",
							(long long)index, obj->builder.data.vertex_count);
	}
	if (resolved > obj->max_index)
	{
		obj->max_index = resolved;
		obj->max_index_line = obj->text.line;
	}
	*out = (int32_t)resolved;
	return KL_OK;
}

// "f a b c ...": a convex polygon, fan-triangulated.
static kl_result read_face(obj_reader* obj)
{
	int count = 0;
	const char* token;
	size_t length;
	while (kl_text_token(&obj->text, &token, &length))
	{
		if (!KL_ARRAY_RESERVE(obj->polygon, obj->polygon_capacity, count + 1))
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		kl_result r = read_corner(obj, token, length, &obj->polygon[count]);
		if (r != KL_OK)
		{
			return r;
		}
		count += 1;
	}
	if (count < 3)
	{
		return kl_text_fail(&obj->text, KL_ERR_PARSE, "face has %d vertices, at least 3 needed", count);
	}
	return kl_mesh_builder_add_polygon(&obj->builder, obj->polygon, count);
}

static kl_result read_line(obj_reader* obj)
{
	const char* token;
	size_t length;
	if (!kl_text_token(&obj->text, &token, &length))
	{
		return KL_OK; // blank or comment
	}
	if (length == 1 && token[0] == 'v')
	{
		return read_vertex(obj);
	}
	if (length == 1 && token[0] == 'f')
	{
		return read_face(obj);
	}
	// vt, vn, o, g, s, usemtl, mtllib, l, p, free-form geometry ...: nothing to collide with.
	return KL_OK;
}

kl_result kl_mesh_data_parse_obj(const char* text, size_t length, kl_mesh_data* out)
{
	if (out == NULL || (text == NULL && length > 0))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "OBJ: text or out is NULL");
	}
	memset(out, 0, sizeof(*out));
	obj_reader obj;
	memset(&obj, 0, sizeof(obj));
	obj.max_index = -1;
	kl_text_init(&obj.text, text, length, "OBJ");
	obj.text.hash_comments = true;
	obj.text.continuations = true;

	kl_result r = KL_OK;
	do
	{
		r = read_line(&obj);
	} while (r == KL_OK && kl_text_next_line(&obj.text));

	if (r == KL_OK && obj.max_index >= obj.builder.data.vertex_count)
	{
		obj.text.line = obj.max_index_line;
		r = kl_text_fail(&obj.text, KL_ERR_INVALID_ARGUMENT, "face index %lld is out of range (the file has %d vertices)",
						 (long long)obj.max_index + 1, obj.builder.data.vertex_count);
	}
	kl_free(obj.polygon);
	if (r != KL_OK)
	{
		kl_mesh_builder_free(&obj.builder);
		return r;
	}
	return kl_mesh_builder_finish(&obj.builder, "OBJ", out);
}
