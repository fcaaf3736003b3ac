// Kollide — PLY header: the format line, elements and their typed properties (scalars and lists),
// comments; checks that the vertex and face elements carry what a mesh needs.
// SPDX-License-Identifier: MIT
#include "ply_internal.h"

#include <stdio.h>
#include <string.h>

static const struct
{
	const char* name;
	ply_type type;
} kl_ply_type_names[] = {
	{"char", PLY_INT8},	   {"int8", PLY_INT8},		{"uchar", PLY_UINT8},	  {"uint8", PLY_UINT8},
	{"short", PLY_INT16},  {"int16", PLY_INT16},	{"ushort", PLY_UINT16},	  {"uint16", PLY_UINT16},
	{"int", PLY_INT32},	   {"int32", PLY_INT32},	{"uint", PLY_UINT32},	  {"uint32", PLY_UINT32},
	{"float", PLY_FLOAT32}, {"float32", PLY_FLOAT32}, {"double", PLY_FLOAT64}, {"float64", PLY_FLOAT64},
};

void kl_ply_split_line(const char* line, size_t length, header_line* out)
{
	memset(out, 0, sizeof(*out));
	size_t i = 0;
	while (i < length)
	{
		while (i < length && (line[i] == ' ' || line[i] == '\t'))
		{
			i += 1;
		}
		if (i == length)
		{
			break;
		}
		size_t start = i;
		while (i < length && line[i] != ' ' && line[i] != '\t')
		{
			i += 1;
		}
		if (out->count == 1)
		{
			out->rest = line + start;
			out->rest_length = length - start;
		}
		if (out->count < 8)
		{
			out->word[out->count] = line + start;
			out->length[out->count] = i - start;
		}
		out->count += 1;
	}
}

static bool word_is(const header_line* l, int i, const char* word)
{
	return i < l->count && i < 8 && l->length[i] == strlen(word) && memcmp(l->word[i], word, l->length[i]) == 0;
}

static ply_type parse_type(const header_line* l, int i)
{
	for (size_t k = 0; k < sizeof(kl_ply_type_names) / sizeof(kl_ply_type_names[0]); ++k)
	{
		if (word_is(l, i, kl_ply_type_names[k].name))
		{
			return kl_ply_type_names[k].type;
		}
	}
	return PLY_NONE;
}

static kl_result header_fail(int line, const char* message, const header_line* l, int word)
{
	int n = word < l->count && word < 8 ? (int)(l->length[word] > 40 ? 40 : l->length[word]) : 0;
	const char* w = n > 0 ? l->word[word] : "";
	return kl_fail(KL_ERR_PARSE, "PLY: header line %d: %s%s%.*s%s", line, message, n > 0 ? " '" : "", n, w,
				   n > 0 ? "'" : "");
}

static bool append_comment(ply_header* h, const char* text, size_t length)
{
	size_t need = h->comments_length + length + 2;
	if (need > h->comments_capacity)
	{
		size_t cap = need * 2;
		char* grown = kl_realloc(h->comments, cap, 1);
		if (grown == NULL)
		{
			return false;
		}
		h->comments = grown;
		h->comments_capacity = cap;
	}
	memcpy(h->comments + h->comments_length, text, length);
	h->comments_length += length;
	h->comments[h->comments_length++] = '\n';
	h->comments[h->comments_length] = '\0';
	return true;
}

static ply_role property_role(ply_kind kind, const char* name, size_t n, bool list)
{
#define KL_IS(word) (n == strlen(word) && memcmp(name, word, n) == 0)
	if (kind == KIND_VERTEX && !list)
	{
		if (KL_IS("x"))
			return ROLE_X;
		if (KL_IS("y"))
			return ROLE_Y;
		if (KL_IS("z"))
			return ROLE_Z;
		if (KL_IS("red") || KL_IS("diffuse_red"))
			return ROLE_RED;
		if (KL_IS("green") || KL_IS("diffuse_green"))
			return ROLE_GREEN;
		if (KL_IS("blue") || KL_IS("diffuse_blue"))
			return ROLE_BLUE;
		if (KL_IS("value"))
			return ROLE_VALUE;
		if (KL_IS("count"))
			return ROLE_COUNT;
	}
	if (kind == KIND_FACE && list && (KL_IS("vertex_indices") || KL_IS("vertex_index")))
	{
		return ROLE_INDICES;
	}
#undef KL_IS
	return ROLE_SKIP;
}

static kl_result add_element(ply_header* h, const header_line* l, int line)
{
	if (l->count != 3)
	{
		return header_fail(line, "expected 'element NAME COUNT'", l, 0);
	}
	if (h->element_count == PLY_MAX_ELEMENTS)
	{
		return header_fail(line, "more than 16 elements", l, 1);
	}
	int64_t count = 0;
	if (kl_parse_int_prefix(l->word[2], l->length[2], &count) != l->length[2] || count < 0)
	{
		return header_fail(line, "element count is not a whole number", l, 2);
	}
	ply_element* e = h->elements + h->element_count++;
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%.*s", (int)(l->length[1] > 31 ? 31 : l->length[1]), l->word[1]);
	e->count = count;
	e->kind = word_is(l, 1, "vertex") ? KIND_VERTEX : word_is(l, 1, "face") ? KIND_FACE : KIND_OTHER;
	for (int i = 0; i + 1 < h->element_count; ++i)
	{
		if (e->kind != KIND_OTHER && h->elements[i].kind == e->kind)
		{
			return header_fail(line, "a second element", l, 1);
		}
	}
	if (e->kind == KIND_FACE && (h->element_count == 1 || h->elements[0].kind != KIND_VERTEX))
	{
		return header_fail(line, "the face element must follow the vertex element", l, 1);
	}
	return KL_OK;
}

static kl_result add_property(ply_header* h, const header_line* l, int line)
{
	if (h->element_count == 0)
	{
		return header_fail(line, "property before any element", l, 0);
	}
	ply_element* e = h->elements + h->element_count - 1;
	if (e->property_count == PLY_MAX_PROPERTIES)
	{
		return header_fail(line, "more than 64 properties in element", l, 0);
	}
	ply_property* p = e->properties + e->property_count;
	memset(p, 0, sizeof(*p));
	bool list = word_is(l, 1, "list");
	if ((list && l->count != 5) || (!list && l->count != 3))
	{
		return header_fail(line, "expected 'property TYPE NAME' or 'property list COUNT_TYPE ITEM_TYPE NAME'", l, 0);
	}
	int type_word = list ? 3 : 1;
	p->type = parse_type(l, type_word);
	p->count_type = list ? parse_type(l, 2) : PLY_NONE;
	if (p->type == PLY_NONE || (list && p->count_type == PLY_NONE))
	{
		return header_fail(line, "unknown property type", l, p->type == PLY_NONE ? type_word : 2);
	}
	if (list && ply_type_is_float(p->count_type))
	{
		return header_fail(line, "a list count must have an integer type", l, 2);
	}
	int name = list ? 4 : 2;
	p->role = property_role(e->kind, l->word[name], l->length[name], list);
	if (p->role == ROLE_INDICES && ply_type_is_float(p->type))
	{
		return header_fail(line, "face indices must have an integer type", l, 3);
	}
	for (int i = 0; i < e->property_count; ++i)
	{
		if (p->role != ROLE_SKIP && e->properties[i].role == p->role)
		{
			return header_fail(line, "a second property", l, name);
		}
	}
	e->property_count += 1;
	return KL_OK;
}

static kl_result header_keyword(ply_header* h, const header_line* l, int line, bool* format_seen)
{
	if (word_is(l, 0, "format"))
	{
		if (l->count != 3 || !word_is(l, 2, "1.0"))
		{
			return header_fail(line, "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'", l, 0);
		}
		if (word_is(l, 1, "ascii"))
			h->format = PLY_ASCII;
		else if (word_is(l, 1, "binary_little_endian"))
			h->format = PLY_BINARY_LE;
		else if (word_is(l, 1, "binary_big_endian"))
			h->format = PLY_BINARY_BE;
		else
			return header_fail(line, "unknown format", l, 1);
		*format_seen = true;
		return KL_OK;
	}
	if (word_is(l, 0, "comment"))
	{
		return append_comment(h, l->rest != NULL ? l->rest : "", l->rest != NULL ? l->rest_length : 0)
				   ? KL_OK
				   : KL_ERR_OUT_OF_MEMORY;
	}
	if (word_is(l, 0, "obj_info") || l->count == 0)
	{
		return KL_OK;
	}
	if (word_is(l, 0, "element"))
	{
		return add_element(h, l, line);
	}
	if (word_is(l, 0, "property"))
	{
		return add_property(h, l, line);
	}
	return header_fail(line, "unknown header keyword", l, 0);
}

/// Checks that the vertex and face elements carry what a mesh needs.
static kl_result check_elements(const ply_header* h)
{
	const ply_element* vertex = NULL;
	const ply_element* face = NULL;
	for (int i = 0; i < h->element_count; ++i)
	{
		vertex = h->elements[i].kind == KIND_VERTEX ? h->elements + i : vertex;
		face = h->elements[i].kind == KIND_FACE ? h->elements + i : face;
	}
	if (vertex == NULL || face == NULL)
	{
		return kl_fail(KL_ERR_PARSE, "PLY: the header declares no %s element (a mesh needs 'vertex' and 'face')",
					   vertex == NULL ? "vertex" : "face");
	}
	int roles[ROLE_INDICES + 1] = {0};
	for (int i = 0; i < vertex->property_count; ++i)
	{
		roles[vertex->properties[i].role] = 1;
	}
	for (int i = 0; i < face->property_count; ++i)
	{
		roles[face->properties[i].role] = 1;
	}
	if (!roles[ROLE_X] || !roles[ROLE_Y] || !roles[ROLE_Z])
	{
		return kl_fail(KL_ERR_PARSE, "PLY: the vertex element lacks scalar properties x, y and z");
	}
	int colours = roles[ROLE_RED] + roles[ROLE_GREEN] + roles[ROLE_BLUE];
	if (colours != 0 && colours != 3)
	{
		return kl_fail(KL_ERR_PARSE, "PLY: a vertex colour needs all of red, green and blue");
	}
	if (!roles[ROLE_INDICES])
	{
		return kl_fail(KL_ERR_PARSE, "PLY: the face element lacks a list property vertex_indices");
	}
	if (vertex->count > KL_MESH_MAX_VERTICES || face->count > KL_MESH_MAX_TRIANGLES)
	{
		return kl_fail(KL_ERR_LIMIT, "PLY: %lld vertices and %lld faces exceed the limits (%d, %d)",
					   (long long)vertex->count, (long long)face->count, KL_MESH_MAX_VERTICES, KL_MESH_MAX_TRIANGLES);
	}
	return KL_OK;
}

kl_result kl_ply_parse_header(const char* data, size_t length, ply_header* h)
{
	size_t limit = length < PLY_MAX_HEADER_BYTES ? length : PLY_MAX_HEADER_BYTES;
	size_t pos = kl_skip_bom(data, length);
	bool format_seen = false;
	for (int line = 1;; ++line)
	{
		const char* newline = memchr(data + pos, '\n', limit - pos);
		if (newline == NULL)
		{
			return kl_fail(KL_ERR_PARSE, "PLY: no 'end_header' line in the first %zu bytes", limit);
		}
		size_t n = (size_t)(newline - (data + pos));
		// The header is text, and its comments are handed on as C strings (kl_ply_mesh.comments),
		// which a NUL byte would end inside the line.
		if (line > 1 && memchr(data + pos, '\0', n) != NULL)
		{
			return kl_fail(KL_ERR_PARSE, "PLY: header line %d holds a NUL byte", line);
		}
		header_line l;
		kl_ply_split_line(data + pos, n > 0 && data[pos + n - 1] == '\r' ? n - 1 : n, &l);
		pos += n + 1;
		if (line == 1)
		{
			if (!word_is(&l, 0, "ply") || l.count != 1)
			{
				return kl_fail(KL_ERR_PARSE, "PLY: not a PLY file (the first line must be 'ply')");
			}
			continue;
		}
		if (word_is(&l, 0, "end_header"))
		{
			if (!format_seen)
			{
				return kl_fail(KL_ERR_PARSE, "PLY: the header has no 'format' line");
			}
			h->body = pos;
			h->body_line = line + 1;
			return check_elements(h);
		}
		kl_result r = header_keyword(h, &l, line, &format_seen);
		if (r != KL_OK)
		{
			return r;
		}
	}
}
