// Kollide — PLY reader internals shared by the header parser (load_ply_header.c), the body reader
// (load_ply_body.c) and the entry points (load_ply.c): the parsed header's elements and typed properties.
// SPDX-License-Identifier: MIT
#pragma once

#include "load_common.h"

#include <kollide/ply.h>

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

static inline size_t ply_type_size(ply_type t)
{
	static const size_t sizes[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
	return sizes[t];
}

static inline bool ply_type_is_float(ply_type t)
{
	return t == PLY_FLOAT32 || t == PLY_FLOAT64;
}

/// One header line split into blank-separated words (at most 8 kept).
typedef struct header_line
{
	const char* word[8];
	size_t length[8];
	int count;
	const char* rest; ///< the text after the first word (comments)
	size_t rest_length;
} header_line;

/// Splits a line (no newline) into blank-separated words.
void kl_ply_split_line(const char* line, size_t length, header_line* out);

/// Parses the header up to and including 'end_header' and checks that it describes a mesh.
kl_result kl_ply_parse_header(const char* data, size_t length, ply_header* h);

/// Checks the declared element counts against the bytes after the header, before any allocation.
kl_result kl_ply_check_body_size(const ply_header* h, size_t length);

/// Reads the body into out's mesh and its optional colours, values and counts.
kl_result kl_ply_parse_body(const char* data, size_t length, const ply_header* h, kl_ply_mesh* out);
