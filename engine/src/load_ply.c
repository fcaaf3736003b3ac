// Kollide — PLY reader: the header (format, elements, typed properties), then the body in ASCII or
// binary of either byte order. The vertex element gives positions and, when present, colours, a
// "value" and a "count"; the face element gives polygons, fan-triangulated. Other elements and
// properties are read past. Declared counts are checked against the bytes that follow before
// anything is allocated for them.
// SPDX-License-Identifier: MIT
#include "load_common.h"

#include <kollide/ply.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	PLY_MAX_ELEMENTS = 16,
	PLY_MAX_PROPERTIES = 64,
	PLY_MAX_HEADER_BYTES = 1 << 20,
	PLY_MAX_POLYGON = 1 << 16, ///< vertices of one face: more is a corrupt count, not a polygon
};

typedef enum ply_type
{
	PLY_NONE = 0,
	PLY_INT8,
	PLY_UINT8,
	PLY_INT16,
	PLY_UINT16,
	PLY_INT32,
	PLY_UINT32,
	PLY_FLOAT32,
	PLY_FLOAT64,
} ply_type;

/// What a property means to the reader.
typedef enum ply_role
{
	ROLE_SKIP = 0,
	ROLE_X,
	ROLE_Y,
	ROLE_Z,
	ROLE_RED,
	ROLE_GREEN,
	ROLE_BLUE,
	ROLE_VALUE,
	ROLE_COUNT,
	ROLE_INDICES,
} ply_role;

typedef enum ply_kind
{
	KIND_OTHER = 0,
	KIND_VERTEX,
	KIND_FACE,
} ply_kind;

typedef enum ply_format
{
	PLY_ASCII,
	PLY_BINARY_LE,
	PLY_BINARY_BE,
} ply_format;

typedef struct ply_property
{
	ply_type type;		 ///< a scalar's type, or a list's item type
	ply_type count_type; ///< PLY_NONE: a scalar; else a list with counts of this type
	ply_role role;
} ply_property;

typedef struct ply_element
{
	char name[32];
	int64_t count;
	ply_kind kind;
	ply_property properties[PLY_MAX_PROPERTIES];
	int property_count;
} ply_element;

typedef struct ply_header
{
	ply_format format;
	ply_element elements[PLY_MAX_ELEMENTS];
	int element_count;
	size_t body;	///< offset of the first body byte
	int body_line;	///< line number of the body's first line (ASCII messages)
	char* comments; ///< kl_alloc'd, '\n'-terminated lines
	size_t comments_length;
	size_t comments_capacity;
} ply_header;

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

static size_t type_size(ply_type t)
{
	static const size_t sizes[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
	return sizes[t];
}

static bool type_is_float(ply_type t)
{
	return t == PLY_FLOAT32 || t == PLY_FLOAT64;
}

// ---------------------------------------------------------------------------------------------
// Header

/// One header line split into blank-separated words (at most 8 kept).
typedef struct header_line
{
	const char* word[8];
	size_t length[8];
	int count;
	const char* rest; ///< the text after the first word (comments)
	size_t rest_length;
} header_line;

static void split_line(const char* line, size_t length, header_line* out)
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
	if (list && type_is_float(p->count_type))
	{
		return header_fail(line, "a list count must have an integer type", l, 2);
	}
	int name = list ? 4 : 2;
	p->role = property_role(e->kind, l->word[name], l->length[name], list);
	if (p->role == ROLE_INDICES && type_is_float(p->type))
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

static kl_result parse_header(const char* data, size_t length, ply_header* h)
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
		header_line l;
		split_line(data + pos, n > 0 && data[pos + n - 1] == '\r' ? n - 1 : n, &l);
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

// ---------------------------------------------------------------------------------------------
// Body

typedef struct ply_body
{
	ply_format format;
	const unsigned char* data;
	size_t pos;
	size_t length;
	kl_text text; ///< ASCII bodies
	const char* element; ///< for messages
	int64_t index;
} ply_body;

static uint64_t read_bits(const unsigned char* p, size_t size, bool big)
{
	uint64_t v = 0;
	for (size_t i = 0; i < size; ++i)
	{
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	}
	return v;
}

static double decode(ply_type type, uint64_t bits)
{
	switch (type)
	{
		case PLY_INT8: return (double)(int8_t)(uint8_t)bits;
		case PLY_UINT8: return (double)(uint8_t)bits;
		case PLY_INT16: return (double)(int16_t)(uint16_t)bits;
		case PLY_UINT16: return (double)(uint16_t)bits;
		case PLY_INT32: return (double)(int32_t)(uint32_t)bits;
		case PLY_UINT32: return (double)(uint32_t)bits;
		case PLY_FLOAT32:
		{
			uint32_t b = (uint32_t)bits;
			float f;
			memcpy(&f, &b, sizeof(f));
			return (double)f;
		}
		case PLY_FLOAT64:
		{
			double d;
			memcpy(&d, &bits, sizeof(d));
			return d;
		}
		default: return 0.0;
	}
}

/// Reads one number. Floats may come back NaN or infinite: callers that use them check.
static kl_result read_number(ply_body* b, ply_type type, double* out)
{
	if (b->format == PLY_ASCII)
	{
		if (!kl_text_seek_content(&b->text))
		{
			return kl_text_fail(&b->text, KL_ERR_PARSE, "file ends inside %s %lld (truncated?)", b->element,
								(long long)b->index);
		}
		if (type_is_float(type))
		{
			float f = 0.0f;
			kl_result r = kl_text_float(&b->text, &f, b->element);
			*out = f;
			return r;
		}
		int64_t v = 0;
		kl_result r = kl_text_int(&b->text, &v, b->element);
		*out = (double)v;
		return r;
	}
	size_t size = type_size(type);
	if (b->length - b->pos < size)
	{
		return kl_fail(KL_ERR_PARSE, "PLY: file ends at byte %zu inside %s %lld (truncated?)", b->pos, b->element,
					   (long long)b->index);
	}
	*out = decode(type, read_bits(b->data + b->pos, size, b->format == PLY_BINARY_BE));
	b->pos += size;
	return KL_OK;
}

static kl_result body_fail(const ply_body* b, kl_result code, const char* message)
{
	if (b->format == PLY_ASCII)
	{
		return kl_text_fail(&b->text, code, "%s %lld: %s", b->element, (long long)b->index, message);
	}
	return kl_fail(code, "PLY: byte %zu: %s %lld: %s", b->pos, b->element, (long long)b->index, message);
}

/// Least bytes one instance of e takes: binary sizes (lists: the count alone), or for ASCII one
/// character and one separator per number.
static int64_t min_instance_bytes(const ply_element* e, ply_format format)
{
	int64_t bytes = 0;
	for (int i = 0; i < e->property_count; ++i)
	{
		const ply_property* p = e->properties + i;
		bytes += format == PLY_ASCII ? 2 : (int64_t)type_size(p->count_type != PLY_NONE ? p->count_type : p->type);
	}
	return bytes;
}

static kl_result check_body_size(const ply_header* h, size_t length)
{
	int64_t needed = 0;
	for (int i = 0; i < h->element_count; ++i)
	{
		needed += h->elements[i].count * min_instance_bytes(h->elements + i, h->format);
	}
	int64_t left = (int64_t)(length - h->body);
	// ASCII: the last number needs no separator after it.
	if (needed > left + (h->format == PLY_ASCII ? 1 : 0))
	{
		return kl_fail(KL_ERR_PARSE, "PLY: the declared elements need at least %lld bytes, %lld follow the header (truncated?)",
					   (long long)needed, (long long)left);
	}
	return KL_OK;
}

static kl_result skip_list(ply_body* b, const ply_property* p)
{
	double n = 0.0;
	kl_result r = read_number(b, p->count_type, &n);
	if (r == KL_OK && (n < 0.0 || n > PLY_MAX_POLYGON))
	{
		return body_fail(b, KL_ERR_PARSE, "list length out of range");
	}
	for (int i = 0; i < (int)n && r == KL_OK; ++i)
	{
		double item;
		r = read_number(b, p->type, &item);
	}
	return r;
}

/// Output arrays of the vertex element (NULL when the file has no such property).
typedef struct ply_vertex_out
{
	kl_mesh_builder* builder;
	uint8_t* colors;
	float* values;
	int32_t* counts;
} ply_vertex_out;

static uint8_t colour_channel(ply_type type, double v)
{
	double c = type_is_float(type) ? v * 255.0 + 0.5 : v;
	return (uint8_t)(c <= 0.0 ? 0.0 : c >= 255.0 ? 255.0 : c);
}

static kl_result store_vertex_number(ply_body* b, const ply_property* p, double v, vec3s* position, ply_vertex_out* out)
{
	int64_t i = b->index;
	bool finite = isfinite(v) && fabs(v) <= FLT_MAX;
	if ((p->role == ROLE_X || p->role == ROLE_Y || p->role == ROLE_Z || p->role == ROLE_VALUE ||
		 (p->role >= ROLE_RED && p->role <= ROLE_BLUE)) &&
		!finite)
	{
		return body_fail(b, KL_ERR_INVALID_ARGUMENT, "NaN, infinite or beyond the float range");
	}
	switch (p->role)
	{
		case ROLE_X: position->x = (float)v; break;
		case ROLE_Y: position->y = (float)v; break;
		case ROLE_Z: position->z = (float)v; break;
		case ROLE_RED:
		case ROLE_GREEN:
		case ROLE_BLUE: out->colors[3 * i + (p->role - ROLE_RED)] = colour_channel(p->type, v); break;
		case ROLE_VALUE: out->values[i] = (float)v; break;
		case ROLE_COUNT: out->counts[i] = (int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v); break;
		default: break;
	}
	return KL_OK;
}

static kl_result read_vertices(ply_body* b, const ply_element* e, ply_vertex_out* out)
{
	kl_result r = kl_mesh_builder_reserve(out->builder, (int)e->count, 0);
	for (b->index = 0; b->index < e->count && r == KL_OK; ++b->index)
	{
		vec3s position = {{0.0f, 0.0f, 0.0f}};
		for (int k = 0; k < e->property_count && r == KL_OK; ++k)
		{
			const ply_property* p = e->properties + k;
			double v = 0.0;
			r = p->count_type != PLY_NONE ? skip_list(b, p) : read_number(b, p->type, &v);
			r = r == KL_OK && p->count_type == PLY_NONE ? store_vertex_number(b, p, v, &position, out) : r;
		}
		r = r == KL_OK ? kl_mesh_builder_add_vertex(out->builder, position) : r;
	}
	return r;
}

static kl_result read_polygon(ply_body* b, const ply_property* p, kl_mesh_builder* builder, int32_t** polygon,
							  int* capacity)
{
	double n = 0.0;
	kl_result r = read_number(b, p->count_type, &n);
	if (r != KL_OK)
	{
		return r;
	}
	if (n < 3.0 || n > PLY_MAX_POLYGON)
	{
		char message[64];
		snprintf(message, sizeof(message), "a face of %.0f vertices (3 to %d allowed)", n, PLY_MAX_POLYGON);
		return body_fail(b, KL_ERR_PARSE, message);
	}
	int vertex_count = builder->data.vertex_count;
	for (int i = 0; i < (int)n; ++i)
	{
		double index = 0.0;
		r = read_number(b, p->type, &index);
		if (r != KL_OK)
		{
			return r;
		}
		if (index < 0.0 || index >= (double)vertex_count)
		{
			char message[80];
			snprintf(message, sizeof(message), "vertex index %.0f is out of range [0, %d)", index, vertex_count);
			return body_fail(b, KL_ERR_INVALID_ARGUMENT, message);
		}
		// Grown per index read, never by the declared size.
		if (!KL_ARRAY_RESERVE(*polygon, *capacity, i + 1))
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		(*polygon)[i] = (int32_t)index;
	}
	return kl_mesh_builder_add_polygon(builder, *polygon, (int)n);
}

static kl_result read_faces(ply_body* b, const ply_element* e, kl_mesh_builder* builder)
{
	kl_result r = kl_mesh_builder_reserve(builder, 0, (int)e->count);
	int32_t* polygon = NULL;
	int capacity = 0;
	for (b->index = 0; b->index < e->count && r == KL_OK; ++b->index)
	{
		for (int k = 0; k < e->property_count && r == KL_OK; ++k)
		{
			const ply_property* p = e->properties + k;
			double v;
			r = p->role == ROLE_INDICES		 ? read_polygon(b, p, builder, &polygon, &capacity)
				: p->count_type != PLY_NONE ? skip_list(b, p)
											 : read_number(b, p->type, &v);
		}
	}
	kl_free(polygon);
	return r;
}

static kl_result skip_element(ply_body* b, const ply_element* e)
{
	kl_result r = KL_OK;
	for (b->index = 0; b->index < e->count && r == KL_OK; ++b->index)
	{
		for (int k = 0; k < e->property_count && r == KL_OK; ++k)
		{
			const ply_property* p = e->properties + k;
			double v;
			r = p->count_type != PLY_NONE ? skip_list(b, p) : read_number(b, p->type, &v);
		}
	}
	return r;
}

static bool vertex_has(const ply_element* e, ply_role role)
{
	for (int i = 0; i < e->property_count; ++i)
	{
		if (e->properties[i].role == role)
		{
			return true;
		}
	}
	return false;
}

/// Allocates the optional per-vertex arrays the vertex element declares.
static kl_result allocate_extras(const ply_element* e, kl_ply_mesh* out)
{
	size_t n = (size_t)(e->count > 0 ? e->count : 1);
	if (vertex_has(e, ROLE_RED) && (out->colors = kl_alloc_zero(n, 3)) == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	if (vertex_has(e, ROLE_VALUE) && (out->values = kl_alloc_zero(n, sizeof(float))) == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	if (vertex_has(e, ROLE_COUNT) && (out->counts = kl_alloc_zero(n, sizeof(int32_t))) == NULL)
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	return KL_OK;
}

static kl_result parse_body(const char* data, size_t length, const ply_header* h, kl_ply_mesh* out)
{
	ply_body b;
	memset(&b, 0, sizeof(b));
	b.format = h->format;
	b.data = (const unsigned char*)data;
	b.pos = h->body;
	b.length = length;
	kl_text_init(&b.text, data + h->body, length - h->body, "PLY");
	b.text.line = h->body_line;
	kl_mesh_builder builder;
	memset(&builder, 0, sizeof(builder));
	ply_vertex_out vertex_out = {&builder, NULL, NULL, NULL};
	kl_result r = KL_OK;
	for (int i = 0; i < h->element_count && r == KL_OK; ++i)
	{
		const ply_element* e = h->elements + i;
		b.element = e->kind == KIND_VERTEX ? "vertex" : e->kind == KIND_FACE ? "face" : e->name;
		if (e->kind == KIND_VERTEX)
		{
			r = allocate_extras(e, out);
			vertex_out.colors = out->colors, vertex_out.values = out->values, vertex_out.counts = out->counts;
			r = r == KL_OK ? read_vertices(&b, e, &vertex_out) : r;
		}
		else if (e->kind == KIND_FACE)
		{
			r = read_faces(&b, e, &builder);
		}
		else
		{
			r = skip_element(&b, e);
		}
	}
	r = r == KL_OK ? kl_mesh_builder_finish(&builder, "PLY", &out->mesh) : r;
	kl_mesh_builder_free(&builder);
	return r;
}

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
		split_line(line, n, &l);
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
	kl_result r = parse_header(bytes, length, h);
	r = r == KL_OK ? check_body_size(h, length) : r;
	r = r == KL_OK ? parse_body(bytes, length, h, out) : r;
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
