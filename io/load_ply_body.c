// Kollide — PLY body: ASCII or binary of either byte order. Vertices give positions and optional
// colours, values and counts; faces give polygons, fan-triangulated; other elements are read past.
// SPDX-License-Identifier: MIT
#include "ply_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
		if (ply_type_is_float(type))
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
	size_t size = ply_type_size(type);
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
		bytes += format == PLY_ASCII ? 2 : (int64_t)ply_type_size(p->count_type != PLY_NONE ? p->count_type : p->type);
	}
	return bytes;
}

kl_result kl_ply_check_body_size(const ply_header* h, size_t length)
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
	double c = ply_type_is_float(type) ? v * 255.0 + 0.5 : v;
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

kl_result kl_ply_parse_body(const char* data, size_t length, const ply_header* h, kl_ply_mesh* out)
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
