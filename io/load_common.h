// Kollide internal — shared pieces of the mesh loaders: bounded file reading, a line-aware text
// tokenizer with strict number parsing, and a growing triangle soup.
// SPDX-License-Identifier: MIT
#pragma once

#include "core.h"

#include <kollide/io.h>

/// Largest mesh file the loaders read (a binary STL at the triangle limit is far smaller).
#define KL_MESH_MAX_FILE_BYTES ((size_t)1 << 31)

/// Reads a whole file into a NUL-terminated buffer (free with kl_free). KL_ERR_IO when it cannot
/// be read, KL_ERR_LIMIT beyond max_bytes.
kl_result kl_read_file(const char* path, size_t max_bytes, char** out_data, size_t* out_length);

/// A cursor over text that is not NUL-terminated. Tokens are separated by blanks; a newline ends a
/// line. Every read is bounded by end.
typedef struct kl_text
{
	const char* cursor;
	const char* end;
	int line; ///< 1-based line of the cursor, for messages
	const char* format; ///< "OBJ", "OFF", "STL": prefixes messages
	bool hash_comments; ///< '#' at a token's start comments out the rest of the line
	bool continuations; ///< a backslash before the newline joins the next line (OBJ)
} kl_text;

void kl_text_init(kl_text* text, const char* data, size_t length, const char* format);
/// The next token of the current line; false at the line's end (the cursor stays there).
bool kl_text_token(kl_text* text, const char** token, size_t* length);
/// Skips the rest of the current line and its newline; false at the end of the text.
bool kl_text_next_line(kl_text* text);
bool kl_text_at_end(const kl_text* text);
/// True for a token equal to word, ignoring ASCII case.
bool kl_token_is(const char* token, size_t length, const char* word);

/// Records a parse failure "<format>: line N: <message>" and returns code.
kl_result kl_text_fail(const kl_text* text, kl_result code, const char* format, ...) KL_PRINTF(3, 4);

/// Moves to the next line that holds a token, starting with the current line (which may be
/// partly read); the token is not consumed. False at the end of the text.
bool kl_text_seek_content(kl_text* text);
/// The next token, on this line or a later one; false at the end of the text.
bool kl_text_token_any_line(kl_text* text, const char** token, size_t* length);

/// Reads a token as a finite float: KL_ERR_PARSE when it is missing or no number,
/// KL_ERR_INVALID_ARGUMENT when it is NaN, infinite or beyond the float range.
kl_result kl_text_float(kl_text* text, float* out, const char* what);
/// Reads three floats (a position).
kl_result kl_text_vec3(kl_text* text, vec3s* out, const char* what);
/// Reads a token as a decimal integer (KL_ERR_PARSE when missing, malformed or beyond ±2^31).
kl_result kl_text_int(kl_text* text, int64_t* out, const char* what);
/// Parses a decimal integer prefix of a token ("12" of "12/4/7"); returns the characters used,
/// 0 when there is no number or it overflows 2^62.
size_t kl_parse_int_prefix(const char* token, size_t length, int64_t* out);

/// A triangle soup being read: kl_mesh_data plus capacities.
typedef struct kl_mesh_builder
{
	kl_mesh_data data;
	int vertex_capacity;
	int index_capacity;
} kl_mesh_builder;

/// Reserves room for more vertices and triangles up front: callers pass counts already capped by
/// what the input can hold.
kl_result kl_mesh_builder_reserve(kl_mesh_builder* builder, int vertex_count, int triangle_count);
/// KL_ERR_LIMIT beyond KL_MESH_MAX_VERTICES.
kl_result kl_mesh_builder_add_vertex(kl_mesh_builder* builder, vec3s v);
kl_result kl_mesh_builder_add_triangle(kl_mesh_builder* builder, int32_t a, int32_t b, int32_t c);
/// Fan-triangulates a convex polygon of count >= 3 indices (not range-checked here). KL_ERR_LIMIT
/// beyond KL_MESH_MAX_TRIANGLES.
kl_result kl_mesh_builder_add_polygon(kl_mesh_builder* builder, const int32_t* polygon, int count);
/// Moves the soup into out (KL_ERR_PARSE when it holds no triangle); the builder is left empty.
kl_result kl_mesh_builder_finish(kl_mesh_builder* builder, const char* format, kl_mesh_data* out);
void kl_mesh_builder_free(kl_mesh_builder* builder);

/// Skips a UTF-8 byte order mark.
size_t kl_skip_bom(const char* text, size_t length);
