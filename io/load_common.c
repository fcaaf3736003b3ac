// Kollide — mesh file loading shared by the OBJ, STL and OFF parsers: reading files, tokenizing
// text, collecting triangles, dispatch by extension.
// SPDX-License-Identifier: MIT
#include "load_common.h"

#include <kollide/ply.h>

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Files

kl_result kl_read_file(const char* path, size_t max_bytes, char** out_data, size_t* out_length)
{
	*out_data = NULL;
	*out_length = 0;
	FILE* file = fopen(path, "rb");
	if (file == NULL)
	{
		return kl_fail(KL_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
	}
	// Grows by doubling rather than trusting a size from the file system (pipes, files that change).
	size_t capacity = 1 << 16, length = 0;
	char* data = kl_alloc(capacity + 1, 1);
	kl_result result = data != NULL ? KL_OK : KL_ERR_OUT_OF_MEMORY;
	while (result == KL_OK)
	{
		if (length == capacity)
		{
			if (capacity > max_bytes)
			{
				result = kl_fail(KL_ERR_LIMIT, "'%s' is larger than %zu bytes", path, max_bytes);
				break;
			}
			capacity = capacity * 2 < max_bytes + 1 ? capacity * 2 : max_bytes + 1;
			char* grown = kl_realloc(data, capacity + 1, 1);
			if (grown == NULL)
			{
				result = KL_ERR_OUT_OF_MEMORY;
				break;
			}
			data = grown;
		}
		size_t n = fread(data + length, 1, capacity - length, file);
		length += n;
		if (n == 0)
		{
			result = ferror(file) ? kl_fail(KL_ERR_IO, "cannot read '%s'", path) : KL_OK;
			break;
		}
	}
	fclose(file);
	if (result == KL_OK && length > max_bytes)
	{
		result = kl_fail(KL_ERR_LIMIT, "'%s' is larger than %zu bytes", path, max_bytes);
	}
	if (result != KL_OK)
	{
		kl_free(data);
		return result;
	}
	data[length] = '\0';
	*out_data = data;
	*out_length = length;
	return KL_OK;
}

size_t kl_skip_bom(const char* text, size_t length)
{
	return length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

// ---------------------------------------------------------------------------------------------
// Text

static bool is_blank(char c)
{
	// '\r' counts as a blank so that CRLF files read like LF files.
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void kl_text_init(kl_text* text, const char* data, size_t length, const char* format)
{
	memset(text, 0, sizeof(*text));
	size_t bom = data != NULL ? kl_skip_bom(data, length) : 0;
	text->cursor = data != NULL ? data + bom : "";
	text->end = data != NULL ? data + length : text->cursor;
	text->line = 1;
	text->format = format;
}

bool kl_text_at_end(const kl_text* text)
{
	return text->cursor >= text->end;
}

// A backslash followed by nothing but blanks up to the newline (or the end).
static bool continuation_at(const kl_text* text, const char* p)
{
	if (!text->continuations || p >= text->end || *p != '\\')
	{
		return false;
	}
	for (++p; p < text->end && *p != '\n'; ++p)
	{
		if (!is_blank(*p))
		{
			return false;
		}
	}
	return true;
}

static void skip_to_newline(kl_text* text)
{
	const char* newline = memchr(text->cursor, '\n', (size_t)(text->end - text->cursor));
	text->cursor = newline != NULL ? newline : text->end;
}

bool kl_text_token(kl_text* text, const char** token, size_t* length)
{
	for (;;)
	{
		while (text->cursor < text->end && is_blank(*text->cursor))
		{
			text->cursor += 1;
		}
		if (continuation_at(text, text->cursor))
		{
			skip_to_newline(text);
			if (text->cursor < text->end)
			{
				text->cursor += 1;
				text->line += 1;
			}
			continue;
		}
		if (text->cursor < text->end && text->hash_comments && *text->cursor == '#')
		{
			skip_to_newline(text);
		}
		if (text->cursor >= text->end || *text->cursor == '\n')
		{
			return false;
		}
		break;
	}
	const char* start = text->cursor;
	while (text->cursor < text->end && !is_blank(*text->cursor) && *text->cursor != '\n' &&
		   !continuation_at(text, text->cursor))
	{
		text->cursor += 1;
	}
	*token = start;
	*length = (size_t)(text->cursor - start);
	return true;
}

bool kl_text_next_line(kl_text* text)
{
	// Through the tokenizer, so that a continued line is skipped as a whole.
	const char* token;
	size_t length;
	while (kl_text_token(text, &token, &length))
	{
	}
	skip_to_newline(text);
	if (text->cursor < text->end)
	{
		text->cursor += 1;
		text->line += 1;
	}
	return text->cursor < text->end;
}

bool kl_text_seek_content(kl_text* text)
{
	const char* token;
	size_t length;
	while (!kl_text_token(text, &token, &length))
	{
		if (!kl_text_next_line(text))
		{
			return false;
		}
	}
	text->cursor = token; // found, not consumed
	return true;
}

bool kl_text_token_any_line(kl_text* text, const char** token, size_t* length)
{
	return kl_text_seek_content(text) && kl_text_token(text, token, length);
}

bool kl_token_is(const char* token, size_t length, const char* word)
{
	size_t n = strlen(word);
	if (length != n)
	{
		return false;
	}
	for (size_t i = 0; i < n; ++i)
	{
		char a = token[i], b = word[i];
		a = (a >= 'A' && a <= 'Z') ? (char)(a - 'A' + 'a') : a;
		b = (b >= 'A' && b <= 'Z') ? (char)(b - 'A' + 'a') : b;
		if (a != b)
		{
			return false;
		}
	}
	return true;
}

kl_result kl_text_fail(const kl_text* text, kl_result code, const char* format, ...)
{
	char message[384];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	return kl_fail(code, "%s: line %d: %s", text->format, text->line, message);
}

// Copies a token into a NUL-terminated buffer for strtod; false when it does not fit.
static bool token_copy(const char* token, size_t length, char* buffer, size_t size)
{
	if (length + 1 > size)
	{
		return false;
	}
	memcpy(buffer, token, length);
	buffer[length] = '\0';
	// strtod follows LC_NUMERIC; files always use '.', whatever locale the application chose.
	const char* point = localeconv()->decimal_point;
	if (point != NULL && point[0] != '\0' && point[0] != '.' && point[1] == '\0')
	{
		for (char* c = buffer; *c != '\0'; ++c)
		{
			*c = *c == '.' ? point[0] : *c;
		}
	}
	return true;
}

kl_result kl_text_float(kl_text* text, float* out, const char* what)
{
	const char* token;
	size_t length;
	if (!kl_text_token(text, &token, &length))
	{
		return kl_text_fail(text, KL_ERR_PARSE, "missing %s", what);
	}
	char buffer[72];
	char* end = NULL;
	double value = 0.0;
	if (token_copy(token, length, buffer, sizeof(buffer)))
	{
		value = strtod(buffer, &end);
	}
	if (end == NULL || end == buffer || *end != '\0')
	{
		return kl_text_fail(text, KL_ERR_PARSE, "%s '%.*s' is not a number", what, length > 32 ? 32 : (int)length,
							token);
	}
	// Checked in double: converting an out-of-range double to float is undefined in C.
	if (!isfinite(value) || fabs(value) > FLT_MAX)
	{
		return kl_text_fail(text, KL_ERR_INVALID_ARGUMENT, "%s '%s' is not a finite float", what, buffer);
	}
	*out = (float)value;
	return KL_OK;
}

kl_result kl_text_vec3(kl_text* text, vec3s* out, const char* what)
{
	for (int k = 0; k < 3; ++k)
	{
		kl_result r = kl_text_float(text, &out->raw[k], what);
		if (r != KL_OK)
		{
			return r;
		}
	}
	return KL_OK;
}

size_t kl_parse_int_prefix(const char* token, size_t length, int64_t* out)
{
	size_t i = 0;
	bool negative = false;
	if (i < length && (token[i] == '+' || token[i] == '-'))
	{
		negative = token[i] == '-';
		i += 1;
	}
	size_t first_digit = i;
	int64_t value = 0;
	for (; i < length && token[i] >= '0' && token[i] <= '9'; ++i)
	{
		if (value >= ((int64_t)1 << 58))
		{
			return 0;
		}
		value = value * 10 + (token[i] - '0');
	}
	if (i == first_digit)
	{
		return 0;
	}
	*out = negative ? -value : value;
	return i;
}

kl_result kl_text_int(kl_text* text, int64_t* out, const char* what)
{
	const char* token;
	size_t length;
	if (!kl_text_token(text, &token, &length))
	{
		return kl_text_fail(text, KL_ERR_PARSE, "missing %s", what);
	}
	int64_t value = 0;
	size_t used = kl_parse_int_prefix(token, length, &value);
	if (used == 0 || used != length || value > INT32_MAX || value < INT32_MIN)
	{
		return kl_text_fail(text, KL_ERR_PARSE, "%s '%.*s' is not an integer in range", what,
							length > 32 ? 32 : (int)length, token);
	}
	*out = value;
	return KL_OK;
}

// ---------------------------------------------------------------------------------------------
// Triangle soup

static kl_result reserve_failure(void)
{
	kl_result code = kl_last_error_code();
	return code != KL_OK ? code : KL_ERR_OUT_OF_MEMORY;
}

kl_result kl_mesh_builder_reserve(kl_mesh_builder* builder, int vertex_count, int triangle_count)
{
	kl_mesh_data* d = &builder->data;
	int64_t vertices = (int64_t)d->vertex_count + vertex_count;
	int64_t triangles = (int64_t)d->triangle_count + triangle_count;
	if (vertices > KL_MESH_MAX_VERTICES || triangles > KL_MESH_MAX_TRIANGLES)
	{
		return kl_fail(KL_ERR_LIMIT, "mesh needs %lld vertices and %lld triangles, beyond the limits (%d, %d)",
					   (long long)vertices, (long long)triangles, KL_MESH_MAX_VERTICES, KL_MESH_MAX_TRIANGLES);
	}
	if (!KL_ARRAY_RESERVE(d->vertices, builder->vertex_capacity, (int)vertices) ||
		!KL_ARRAY_RESERVE(d->indices, builder->index_capacity, 3 * (int)triangles))
	{
		return reserve_failure();
	}
	return KL_OK;
}

kl_result kl_mesh_builder_add_vertex(kl_mesh_builder* builder, vec3s v)
{
	kl_mesh_data* d = &builder->data;
	if (d->vertex_count >= KL_MESH_MAX_VERTICES)
	{
		return kl_fail(KL_ERR_LIMIT, "mesh has more than %d vertices", KL_MESH_MAX_VERTICES);
	}
	if (!KL_ARRAY_RESERVE(d->vertices, builder->vertex_capacity, d->vertex_count + 1))
	{
		return reserve_failure();
	}
	d->vertices[d->vertex_count++] = v;
	return KL_OK;
}

kl_result kl_mesh_builder_add_triangle(kl_mesh_builder* builder, int32_t a, int32_t b, int32_t c)
{
	kl_mesh_data* d = &builder->data;
	if (d->triangle_count >= KL_MESH_MAX_TRIANGLES)
	{
		return kl_fail(KL_ERR_LIMIT, "mesh has more than %d triangles", KL_MESH_MAX_TRIANGLES);
	}
	if (!KL_ARRAY_RESERVE(d->indices, builder->index_capacity, 3 * d->triangle_count + 3))
	{
		return reserve_failure();
	}
	int32_t* tri = d->indices + 3 * d->triangle_count++;
	tri[0] = a;
	tri[1] = b;
	tri[2] = c;
	return KL_OK;
}

kl_result kl_mesh_builder_add_polygon(kl_mesh_builder* builder, const int32_t* polygon, int count)
{
	kl_result r = KL_OK;
	for (int i = 1; i + 1 < count && r == KL_OK; ++i)
	{
		r = kl_mesh_builder_add_triangle(builder, polygon[0], polygon[i], polygon[i + 1]);
	}
	return r;
}

kl_result kl_mesh_builder_finish(kl_mesh_builder* builder, const char* format, kl_mesh_data* out)
{
	if (builder->data.triangle_count == 0)
	{
		kl_mesh_builder_free(builder);
		return kl_fail(KL_ERR_PARSE, "%s: the file holds no triangles", format);
	}
	*out = builder->data;
	memset(builder, 0, sizeof(*builder));
	return KL_OK;
}

void kl_mesh_builder_free(kl_mesh_builder* builder)
{
	kl_mesh_data_free(&builder->data);
	builder->vertex_capacity = 0;
	builder->index_capacity = 0;
}

void kl_mesh_data_free(kl_mesh_data* data)
{
	if (data == NULL)
	{
		return;
	}
	kl_free(data->vertices);
	kl_free(data->indices);
	memset(data, 0, sizeof(*data));
}

// ---------------------------------------------------------------------------------------------
// Loading files

typedef enum mesh_format
{
	MESH_FORMAT_OBJ,
	MESH_FORMAT_STL,
	MESH_FORMAT_OFF,
} mesh_format;

// Puts the path in front of the parser's message (copied first: kl_fail writes the same buffer).
static kl_result prefix_path(kl_result code, const char* path)
{
	char message[400];
	snprintf(message, sizeof(message), "%s", kl_last_error());
	return kl_fail(code, "%s: %s", path, message);
}

static kl_result load_format(const char* path, mesh_format format, kl_mesh_data* out)
{
	if (out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh load: out is NULL");
	}
	memset(out, 0, sizeof(*out));
	if (path == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh load: path is NULL");
	}
	char* data = NULL;
	size_t length = 0;
	kl_result r = kl_read_file(path, KL_MESH_MAX_FILE_BYTES, &data, &length);
	if (r != KL_OK)
	{
		return r;
	}
	switch (format)
	{
		case MESH_FORMAT_OBJ: r = kl_mesh_data_parse_obj(data, length, out); break;
		case MESH_FORMAT_STL: r = kl_mesh_data_parse_stl(data, length, out); break;
		case MESH_FORMAT_OFF: r = kl_mesh_data_parse_off(data, length, out); break;
	}
	kl_free(data);
	return r == KL_OK ? KL_OK : prefix_path(r, path);
}

kl_result kl_mesh_data_load_obj(const char* path, kl_mesh_data* out)
{
	return load_format(path, MESH_FORMAT_OBJ, out);
}

kl_result kl_mesh_data_load_stl(const char* path, kl_mesh_data* out)
{
	return load_format(path, MESH_FORMAT_STL, out);
}

kl_result kl_mesh_data_load_off(const char* path, kl_mesh_data* out)
{
	return load_format(path, MESH_FORMAT_OFF, out);
}

// The extension after the last dot of the file name ("" when none).
static const char* file_extension(const char* path)
{
	const char* name = path;
	for (const char* c = path; *c != '\0'; ++c)
	{
		name = (*c == '/' || *c == '\\') ? c + 1 : name;
	}
	const char* dot = strrchr(name, '.');
	return dot != NULL ? dot + 1 : "";
}

kl_result kl_mesh_data_load(const char* path, kl_mesh_data* out)
{
	if (out != NULL)
	{
		memset(out, 0, sizeof(*out));
	}
	if (path == NULL || out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "mesh load: path or out is NULL");
	}
	const char* ext = file_extension(path);
	size_t n = strlen(ext);
	if (kl_token_is(ext, n, "obj"))
	{
		return load_format(path, MESH_FORMAT_OBJ, out);
	}
	if (kl_token_is(ext, n, "stl"))
	{
		return load_format(path, MESH_FORMAT_STL, out);
	}
	if (kl_token_is(ext, n, "off"))
	{
		return load_format(path, MESH_FORMAT_OFF, out);
	}
	if (kl_token_is(ext, n, "ply"))
	{
		return kl_mesh_data_load_ply(path, out); // load_ply.c (kollide/ply.h)
	}
	return kl_fail(KL_ERR_UNSUPPORTED, "%s: unknown mesh format '.%s' (expected .obj, .stl, .off or .ply)", path, ext);
}

kl_mesh* kl_mesh_load(const char* path, kl_progress_fn* progress, void* progress_context)
{
	kl_mesh_def settings = kl_default_mesh_def();
	settings.progress = progress;
	settings.progress_context = progress_context;
	return kl_mesh_load_with(path, &settings);
}

kl_mesh* kl_mesh_load_with(const char* path, const kl_mesh_def* settings)
{
	kl_mesh_data data;
	if (kl_mesh_data_load(path, &data) != KL_OK)
	{
		return NULL;
	}
	kl_mesh_def def = settings != NULL ? *settings : kl_default_mesh_def();
	def.vertices = data.vertices;
	def.vertex_count = data.vertex_count;
	def.indices = data.indices;
	def.triangle_count = data.triangle_count;
	def.source = path;
	kl_mesh* mesh = kl_mesh_build(&def);
	kl_mesh_data_free(&data);
	if (mesh == NULL)
	{
		prefix_path(kl_last_error_code(), path);
	}
	return mesh;
}
