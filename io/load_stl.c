// Kollide — STL, binary and ASCII. Every triangle brings its own three vertices; kl_mesh_build
// welds them.
// SPDX-License-Identifier: MIT
#include "load_common.h"

#include <string.h>

#define STL_HEADER_BYTES 84
#define STL_TRIANGLE_BYTES 50
// Bytes of an ASCII file checked for binary content before it is parsed as text.
#define STL_TEXT_PROBE_BYTES 1024

static uint32_t read_u32_le(const unsigned char* p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float read_f32_le(const unsigned char* p)
{
	uint32_t bits = read_u32_le(p);
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

// ---------------------------------------------------------------------------------------------
// Binary: 80-byte header, uint32 triangle count, then per triangle a normal, three vertices and a
// 16-bit attribute, all little-endian.

static kl_result parse_binary(const unsigned char* bytes, size_t length, kl_mesh_data* out)
{
	uint32_t count = read_u32_le(bytes + 80);
	uint64_t needed = STL_HEADER_BYTES + (uint64_t)STL_TRIANGLE_BYTES * count;
	if (needed > length)
	{
		return kl_fail(KL_ERR_PARSE, "STL: truncated binary file: %u triangles need %llu bytes, the file has %zu",
					   count, (unsigned long long)needed, length);
	}
	if (needed < length)
	{
		// Strict: garbage that happens to be at least 84 bytes long must not pass for a mesh.
		return kl_fail(KL_ERR_PARSE, "STL: %llu bytes follow the last of %u triangles (corrupt, or not an STL file)",
					   (unsigned long long)(length - needed), count);
	}
	if (count > KL_MESH_MAX_VERTICES / 3)
	{
		return kl_fail(KL_ERR_LIMIT, "STL: %u triangles exceed the limit of %d vertices", count, KL_MESH_MAX_VERTICES);
	}
	kl_mesh_builder builder;
	memset(&builder, 0, sizeof(builder));
	kl_result r = kl_mesh_builder_reserve(&builder, 3 * (int)count, (int)count);
	for (uint32_t t = 0; t < count && r == KL_OK; ++t)
	{
		const unsigned char* vertices = bytes + STL_HEADER_BYTES + (size_t)STL_TRIANGLE_BYTES * t + 12;
		int first = builder.data.vertex_count;
		for (int k = 0; k < 9 && r == KL_OK; k += 3)
		{
			vec3s v = {{read_f32_le(vertices + 4 * k), read_f32_le(vertices + 4 * k + 4), read_f32_le(vertices + 4 * k + 8)}};
			r = kl_vec3_is_finite(v) ? kl_mesh_builder_add_vertex(&builder, v)
									 : kl_fail(KL_ERR_INVALID_ARGUMENT, "STL: triangle %u has a NaN or infinite coordinate", t);
		}
		r = r == KL_OK ? kl_mesh_builder_add_triangle(&builder, first, first + 1, first + 2) : r;
	}
	if (r != KL_OK)
	{
		kl_mesh_builder_free(&builder);
		return r;
	}
	return kl_mesh_builder_finish(&builder, "STL", out);
}

// ---------------------------------------------------------------------------------------------
// ASCII: solid name / facet normal n n n / outer loop / vertex x y z (3x) / endloop / endfacet /
// endsolid name. Keywords are matched ignoring case; several solids may follow each other.

static kl_result expect(kl_text* text, const char* word)
{
	const char* token;
	size_t length;
	if (!kl_text_token_any_line(text, &token, &length))
	{
		return kl_text_fail(text, KL_ERR_PARSE, "file ends where '%s' was expected (truncated?)", word);
	}
	if (!kl_token_is(token, length, word))
	{
		return kl_text_fail(text, KL_ERR_PARSE, "expected '%s', found '%.*s'", word, length > 32 ? 32 : (int)length,
							token);
	}
	return KL_OK;
}

// The normal is skipped unread: it is derived from the vertices, and writers put NaN there.
static kl_result skip_tokens(kl_text* text, int count, const char* what)
{
	for (int i = 0; i < count; ++i)
	{
		const char* token;
		size_t length;
		if (!kl_text_token_any_line(text, &token, &length))
		{
			return kl_text_fail(text, KL_ERR_PARSE, "file ends inside the %s (truncated?)", what);
		}
	}
	return KL_OK;
}

// A loop is a convex polygon: three vertices by the standard, more are fan-triangulated.
static kl_result parse_loop(kl_text* text, kl_mesh_builder* builder)
{
	int first = builder->data.vertex_count;
	for (;;)
	{
		const char* token;
		size_t length;
		if (!kl_text_token_any_line(text, &token, &length))
		{
			return kl_text_fail(text, KL_ERR_PARSE, "file ends inside a facet (truncated?)");
		}
		if (kl_token_is(token, length, "endloop"))
		{
			break;
		}
		if (!kl_token_is(token, length, "vertex"))
		{
			return kl_text_fail(text, KL_ERR_PARSE, "expected 'vertex' or 'endloop', found '%.*s'",
								length > 32 ? 32 : (int)length, token);
		}
		vec3s v;
		kl_result r = kl_text_vec3(text, &v, "vertex coordinate");
		r = r == KL_OK ? kl_mesh_builder_add_vertex(builder, v) : r;
		if (r != KL_OK)
		{
			return r;
		}
	}
	int count = builder->data.vertex_count - first;
	if (count < 3)
	{
		return kl_text_fail(text, KL_ERR_PARSE, "facet has %d vertices, at least 3 needed", count);
	}
	kl_result r = KL_OK;
	for (int i = 1; i + 1 < count && r == KL_OK; ++i)
	{
		r = kl_mesh_builder_add_triangle(builder, first, first + i, first + i + 1);
	}
	return r;
}

static kl_result parse_facet(kl_text* text, kl_mesh_builder* builder)
{
	kl_result r = expect(text, "normal");
	r = r == KL_OK ? skip_tokens(text, 3, "facet normal") : r;
	r = r == KL_OK ? expect(text, "outer") : r;
	r = r == KL_OK ? expect(text, "loop") : r;
	r = r == KL_OK ? parse_loop(text, builder) : r;
	return r == KL_OK ? expect(text, "endfacet") : r;
}

// After "solid": facets until "endsolid", then possibly another solid.
static kl_result parse_solids(kl_text* text, kl_mesh_builder* builder)
{
	bool in_solid = true;
	kl_text_next_line(text); // the solid's name
	for (;;)
	{
		const char* token;
		size_t length;
		if (!kl_text_token_any_line(text, &token, &length))
		{
			return in_solid ? kl_text_fail(text, KL_ERR_PARSE, "file ends without 'endsolid' (truncated?)") : KL_OK;
		}
		kl_result r = KL_OK;
		if (in_solid && kl_token_is(token, length, "facet"))
		{
			r = parse_facet(text, builder);
		}
		else if (kl_token_is(token, length, in_solid ? "endsolid" : "solid"))
		{
			in_solid = !in_solid;
			kl_text_next_line(text); // the solid's name
		}
		else
		{
			r = kl_text_fail(text, KL_ERR_PARSE, "expected '%s', found '%.*s'", in_solid ? "facet' or 'endsolid" : "solid",
							 length > 32 ? 32 : (int)length, token);
		}
		if (r != KL_OK)
		{
			return r;
		}
	}
}

static kl_result parse_ascii(const char* data, size_t length, kl_mesh_data* out)
{
	kl_text text;
	kl_text_init(&text, data, length, "STL");
	kl_mesh_builder builder;
	memset(&builder, 0, sizeof(builder));
	kl_result r = expect(&text, "solid");
	r = r == KL_OK ? parse_solids(&text, &builder) : r;
	if (r != KL_OK)
	{
		kl_mesh_builder_free(&builder);
		return r;
	}
	return kl_mesh_builder_finish(&builder, "STL", out);
}

// ---------------------------------------------------------------------------------------------

// ASCII files start with "solid", but so do many binary headers; text also has no control bytes.
static bool looks_ascii(const unsigned char* bytes, size_t length)
{
	size_t start = kl_skip_bom((const char*)bytes, length);
	while (start < length && (bytes[start] == ' ' || bytes[start] == '\t' || bytes[start] == '\r' || bytes[start] == '\n'))
	{
		start += 1;
	}
	if (length - start < 5 || !kl_token_is((const char*)bytes + start, 5, "solid"))
	{
		return false;
	}
	size_t probe = length < STL_TEXT_PROBE_BYTES ? length : STL_TEXT_PROBE_BYTES;
	for (size_t i = start; i < probe; ++i)
	{
		unsigned char c = bytes[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f')
		{
			return false;
		}
	}
	return true;
}

kl_result kl_mesh_data_parse_stl(const void* bytes, size_t length, kl_mesh_data* out)
{
	if (out == NULL || (bytes == NULL && length > 0))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "STL: bytes or out is NULL");
	}
	memset(out, 0, sizeof(*out));
	const unsigned char* b = bytes;
	// A size that matches the header's count exactly is binary, even with a "solid" header.
	if (length >= STL_HEADER_BYTES &&
		STL_HEADER_BYTES + (uint64_t)STL_TRIANGLE_BYTES * read_u32_le(b + 80) == (uint64_t)length)
	{
		return parse_binary(b, length, out);
	}
	if (looks_ascii(b, length))
	{
		return parse_ascii(bytes, length, out);
	}
	if (length >= STL_HEADER_BYTES)
	{
		return parse_binary(b, length, out);
	}
	return kl_fail(KL_ERR_PARSE, "STL: %zu bytes are neither ASCII ('solid ...') nor a binary file (84-byte header)",
				   length);
}
