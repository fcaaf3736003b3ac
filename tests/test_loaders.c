// Mesh loaders (OBJ, STL ASCII and binary, OFF): fixtures, malformed files, error messages, and an
// in-process fuzz loop that mutates the valid fixtures.
// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <kollide/kollide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA(name) KL_TEST_DATA_DIR "/" name
#define OUT(name) KL_TEST_OUT_DIR "/" name

static const float k_cube_corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
										   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int k_cube_triangles[12][3] = {{0, 3, 2}, {0, 2, 1}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
											{3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};

static bool is_zeroed(const kl_mesh_data* data)
{
	return data->vertices == NULL && data->indices == NULL && data->vertex_count == 0 && data->triangle_count == 0;
}

static void* read_whole(const char* path, size_t* length)
{
	FILE* f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void* data = malloc((size_t)n + 1);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*length = (size_t)n;
	return data;
}

static void write_whole(const char* path, const void* data, size_t length)
{
	FILE* f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, length, f), length);
	fclose(f);
}

static void put_u32(unsigned char* p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

static void put_f32(unsigned char* p, float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof(bits));
	put_u32(p, bits);
}

// The cube as binary STL (84 + 12 * 50 bytes); the header may start with "solid" like many do.
static size_t make_binary_cube(unsigned char out[684], const char* header)
{
	memset(out, 0, 684);
	memcpy(out, header, strlen(header));
	put_u32(out + 80, 12);
	for (int t = 0; t < 12; ++t)
	{
		unsigned char* p = out + 84 + 50 * t;
		for (int k = 0; k < 3; ++k)
		{
			for (int c = 0; c < 3; ++c)
			{
				put_f32(p + 12 + 12 * k + 4 * c, k_cube_corners[k_cube_triangles[t][k]][c]);
			}
		}
		p[48] = 0xAB; // attribute bytes are ignored
	}
	return 684;
}

// Builds a mesh from loaded data: the cube, closed, volume 1.
static void assert_cube(const kl_mesh_data* data)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = data->vertices;
	def.vertex_count = data->vertex_count;
	def.indices = data->indices;
	def.triangle_count = data->triangle_count;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.vertex_count, 8);
	assert_int_equal(info.triangle_count, 12);
	assert_true(info.closed);
	assert_true(fabsf(info.volume - 1.0f) < 1e-6f);
	kl_mesh_release(mesh);
}

static void expect_load_error(const char* path, kl_result code, const char* fragment)
{
	kl_mesh_data data;
	kl_clear_error();
	assert_int_equal(kl_mesh_data_load(path, &data), code);
	assert_true(is_zeroed(&data));
	if (fragment != NULL && strstr(kl_last_error(), fragment) == NULL)
	{
		fail_msg("message '%s' lacks '%s'", kl_last_error(), fragment);
	}
}

// ---------------------------------------------------------------------------------------------

static void test_obj_cube(void** state)
{
	(void)state;
	kl_mesh_data data;
	assert_int_equal(kl_mesh_data_load(DATA("cube.obj"), &data), KL_OK);
	assert_int_equal(data.vertex_count, 8);
	assert_int_equal(data.triangle_count, 12);
	assert_true(data.vertices[7].x == 0.0f && data.vertices[7].y == 1.0f && data.vertices[7].z == 1.0f);
	assert_cube(&data);
	kl_mesh_data_free(&data);
	assert_true(is_zeroed(&data));
	kl_mesh_data_free(&data); // twice is harmless
	kl_mesh_data_free(NULL);
}

static void test_stl_ascii_cube(void** state)
{
	(void)state;
	kl_mesh_data data;
	assert_int_equal(kl_mesh_data_load(DATA("cube.stl"), &data), KL_OK);
	assert_int_equal(data.vertex_count, 36);
	assert_int_equal(data.triangle_count, 12);
	assert_cube(&data);
	kl_mesh_data_free(&data);
}

static void test_stl_binary_cube(void** state)
{
	(void)state;
	unsigned char bytes[684];
	const char* headers[2] = {"binary cube", "solid cube (a binary file all the same)"};
	for (int h = 0; h < 2; ++h)
	{
		size_t n = make_binary_cube(bytes, headers[h]);
		write_whole(OUT("cube_binary.stl"), bytes, n);
		kl_mesh_data data;
		assert_int_equal(kl_mesh_data_load(OUT("cube_binary.stl"), &data), KL_OK);
		assert_int_equal(data.vertex_count, 36);
		assert_int_equal(data.triangle_count, 12);
		assert_cube(&data);
		kl_mesh_data_free(&data);
	}
}

static void test_stl_binary_errors(void** state)
{
	(void)state;
	unsigned char bytes[700];
	size_t n = make_binary_cube(bytes, "binary cube");
	kl_mesh_data data;

	// Truncated: the header promises 12 triangles.
	write_whole(OUT("truncated.stl"), bytes, n - 30);
	expect_load_error(OUT("truncated.stl"), KL_ERR_PARSE, "truncated");

	// An absurd count with a short file is caught before any allocation.
	put_u32(bytes + 80, 0xFFFFFFFFu);
	assert_int_equal(kl_mesh_data_parse_stl(bytes, n, &data), KL_ERR_PARSE);
	assert_true(is_zeroed(&data));
	put_u32(bytes + 80, 12);

	// Trailing bytes: not an STL file we trust.
	memset(bytes + n, 0x5A, sizeof(bytes) - n);
	assert_int_equal(kl_mesh_data_parse_stl(bytes, sizeof(bytes), &data), KL_ERR_PARSE);

	// NaN coordinate.
	put_f32(bytes + 84 + 50 * 3 + 12 + 4, NAN);
	kl_clear_error();
	assert_int_equal(kl_mesh_data_parse_stl(bytes, n, &data), KL_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(kl_last_error(), "triangle 3"));
	assert_true(is_zeroed(&data));

	// Zero triangles.
	put_u32(bytes + 80, 0);
	assert_int_equal(kl_mesh_data_parse_stl(bytes, 84, &data), KL_ERR_PARSE);
}

static void test_off_cube(void** state)
{
	(void)state;
	kl_mesh_data data;
	assert_int_equal(kl_mesh_data_load(DATA("cube.off"), &data), KL_OK);
	assert_int_equal(data.vertex_count, 8);
	assert_int_equal(data.triangle_count, 12);
	assert_cube(&data);
	kl_mesh_data_free(&data);
}

static void test_mesh_load_builds(void** state)
{
	(void)state;
	kl_mesh* mesh = kl_mesh_load(DATA("cube.stl"), NULL, NULL);
	assert_non_null(mesh);
	kl_mesh_info info = kl_mesh_get_info(mesh);
	assert_int_equal(info.vertex_count, 8); // STL soup welded
	assert_int_equal(info.welded_vertex_count, 28);
	assert_true(info.closed);
	assert_string_equal(kl_mesh_source(mesh), DATA("cube.stl"));
	kl_mesh_release(mesh);

	kl_clear_error();
	assert_null(kl_mesh_load(DATA("missing.obj"), NULL, NULL));
	assert_int_equal(kl_last_error_code(), KL_ERR_IO);
}

static void test_extension_dispatch(void** state)
{
	(void)state;
	size_t n;
	void* text = read_whole(DATA("cube.off"), &n);
	write_whole(OUT("UPPER.OFF"), text, n);
	free(text);
	kl_mesh_data data;
	assert_int_equal(kl_mesh_data_load(OUT("UPPER.OFF"), &data), KL_OK);
	kl_mesh_data_free(&data);
	expect_load_error(OUT("cube.3ds"), KL_ERR_UNSUPPORTED, ".3ds"); // .ply loads: test_ply.c
	expect_load_error(OUT("no_extension"), KL_ERR_UNSUPPORTED, NULL);
	expect_load_error(DATA("missing.obj"), KL_ERR_IO, "missing.obj");
	expect_load_error(KL_TEST_DATA_DIR, KL_ERR_UNSUPPORTED, NULL);
	assert_int_equal(kl_mesh_data_load(NULL, &data), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_mesh_data_load_obj(DATA("missing.obj"), &data), KL_ERR_IO);
	// A directory opens but cannot be read.
	assert_int_equal(kl_mesh_data_load_obj(KL_TEST_DATA_DIR, &data), KL_ERR_IO);
	assert_true(is_zeroed(&data));
}

static void test_malformed_fixtures(void** state)
{
	(void)state;
	expect_load_error(DATA("nan.obj"), KL_ERR_INVALID_ARGUMENT, "line 3");
	expect_load_error(DATA("index_range.obj"), KL_ERR_INVALID_ARGUMENT, "line 5");
	expect_load_error(DATA("index_zero.obj"), KL_ERR_INVALID_ARGUMENT, "index 0");
	expect_load_error(DATA("huge_counts.off"), KL_ERR_LIMIT, "line 2");
	expect_load_error(DATA("short_counts.off"), KL_ERR_PARSE, "truncated");
	expect_load_error(DATA("inf.off"), KL_ERR_INVALID_ARGUMENT, "line 4");
	expect_load_error(DATA("nan.stl"), KL_ERR_INVALID_ARGUMENT, "line 5");
	expect_load_error(DATA("garbage.stl"), KL_ERR_PARSE, "garbage.stl");
}

// Parses a string with the given parser; returns the result and frees what was read.
typedef kl_result parse_fn(const char* text, size_t length, kl_mesh_data* out);

static kl_result parse_stl_text(const char* text, size_t length, kl_mesh_data* out)
{
	return kl_mesh_data_parse_stl(text, length, out);
}

static kl_result parse_string(parse_fn* parse, const char* text, int* triangles)
{
	kl_mesh_data data;
	kl_result r = parse(text, strlen(text), &data);
	*triangles = data.triangle_count;
	if (r != KL_OK)
	{
		assert_true(is_zeroed(&data));
	}
	kl_mesh_data_free(&data);
	return r;
}

static void test_obj_forms(void** state)
{
	(void)state;
	int n = 0;
	// Pentagon fan, CRLF, comments, negative indices, w coordinate.
	assert_int_equal(parse_string(kl_mesh_data_parse_obj,
								  "# pentagon\r\nv 0 0 0 1\r\nv 1 0 0\r\nv 1 1 0\r\nv 0.5 2 0\r\nv 0 1 0\r\n"
								  "f -5 -4 -3 -2 -1\r\n",
								  &n),
					 KL_OK);
	assert_int_equal(n, 3);
	// Faces before their vertices are resolved at the end.
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0", &n), KL_OK);
	assert_int_equal(n, 1);
	// Line continuation inside a face and a 'v' line; a trailing backslash at the end of the text.
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 \\\n 0\nv 1 0 0\nv 0 1 0\nf 1 \\\n 2 3 \\", &n), KL_OK);
	assert_int_equal(n, 1);
	// Ignored statements.
	assert_int_equal(parse_string(kl_mesh_data_parse_obj,
								  "mtllib a.mtl\no x\ng y\ns 1\nusemtl m\nvt 0 0\nvn 0 0 1\nvp 0\nl 1 2\np 1\n"
								  "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1 2//1 3/1\n",
								  &n),
					 KL_OK);

	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "", &n), KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\n", &n), KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0\n", &n), KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 x\n", &n), KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 1e999\n", &n), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 -inf\n", &n), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 0\nv 1 0 0\nf 1 2\n", &n), KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", &n),
					 KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x3\n", &n), KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", &n),
					 KL_ERR_PARSE);
	assert_int_equal(parse_string(kl_mesh_data_parse_obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3abc\n", &n), KL_ERR_PARSE);
}

static void test_stl_ascii_forms(void** state)
{
	(void)state;
	int n = 0;
	const char* quad = "  SOLID q\r\n facet normal nan nan nan\n outer loop\n vertex 0 0 0\n vertex 1 0 0\n"
					   " vertex 1 1 0\n vertex 0 1 0\n endloop\n endfacet\nendsolid q\n"
					   "solid second\nfacet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 vertex 0 1 0 "
					   "endloop endfacet endsolid";
	assert_int_equal(parse_string(parse_stl_text, quad, &n), KL_OK);
	assert_int_equal(n, 3);

	const char* bad[] = {
		"solid",
		"solid x\nendsolid x\n",
		"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n",
		"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n",
		"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid\n",
		"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n",
		"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendsolid\n",
		"solid x\nfacet 0 0 1\n",
		"hello",
		"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
	{
		kl_result r = parse_string(parse_stl_text, bad[i], &n);
		if (r != KL_ERR_PARSE)
		{
			fail_msg("case %zu gave %s: %s", i, kl_result_name(r), kl_last_error());
		}
	}
}

static void test_off_forms(void** state)
{
	(void)state;
	int n = 0;
	assert_int_equal(parse_string(kl_mesh_data_parse_off, "OFF 4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n", &n), KL_OK);
	assert_int_equal(n, 2);
	assert_int_equal(parse_string(kl_mesh_data_parse_off,
								  "# c\nCOFF\n\n3 1\n0 0 0 1 0 0 1\n1 0 0 1 0 0 1\n\n0 1 0 1 0 0 1\n3 0 1 2 9 9 9",
								  &n),
					 KL_OK);
	assert_int_equal(n, 1);
	assert_int_equal(parse_string(kl_mesh_data_parse_off, "NOFF\n3 1 0\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 0 1 2", &n),
					 KL_OK);

	const struct
	{
		const char* text;
		kl_result code;
	} bad[] = {
		{"", KL_ERR_PARSE},
		{"PLY\n3 1 0\n", KL_ERR_PARSE},
		{"4OFF\n3 1 0\n", KL_ERR_PARSE},
		{"OFF\n", KL_ERR_PARSE},
		{"OFF\n-3 1 0\n", KL_ERR_PARSE},
		{"OFF\n3 -1 0\n", KL_ERR_PARSE},
		{"OFF\n99999999999 1 0\n", KL_ERR_PARSE},
		{"OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", KL_ERR_PARSE},
		{"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", KL_ERR_INVALID_ARGUMENT},
		{"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 -1\n", KL_ERR_INVALID_ARGUMENT},
		{"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n", KL_ERR_PARSE},
		{"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n", KL_ERR_PARSE},
		{"OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", KL_ERR_PARSE},
		{"OFF\n3 1 0\n0 0 0\n1 0 nan\n0 1 0\n3 0 1 2\n", KL_ERR_INVALID_ARGUMENT},
		{"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1\n3 0 1 2\n", KL_ERR_PARSE},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
	{
		kl_result r = parse_string(kl_mesh_data_parse_off, bad[i].text, &n);
		if (r != bad[i].code)
		{
			fail_msg("case %zu gave %s: %s", i, kl_result_name(r), kl_last_error());
		}
	}
}

static void test_null_arguments(void** state)
{
	(void)state;
	kl_mesh_data data;
	assert_int_equal(kl_mesh_data_parse_obj(NULL, 5, &data), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_mesh_data_parse_stl(NULL, 5, &data), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_mesh_data_parse_off(NULL, 5, &data), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_mesh_data_parse_obj("v 0 0 0", 7, NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_mesh_data_parse_obj(NULL, 0, &data), KL_ERR_PARSE); // empty
}

// ---------------------------------------------------------------------------------------------
// Fuzz: mutate valid files at random (seeded) and parse them. Every result must be KL_OK or an
// error with nothing allocated; a success must also build (or cleanly fail to build) a mesh.

typedef struct lcg
{
	uint64_t state;
} lcg;

static uint32_t lcg_next(lcg* g)
{
	g->state = g->state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(g->state >> 33);
}

static size_t mutate(lcg* g, unsigned char* buffer, size_t length, size_t capacity)
{
	static const char special[] = "-+./#\\\n\r\t 0123456789eEnaifx";
	int edits = 1 + (int)(lcg_next(g) % 4);
	for (int e = 0; e < edits && length > 0; ++e)
	{
		size_t at = lcg_next(g) % length;
		switch (lcg_next(g) % 6)
		{
			case 0: buffer[at] = (unsigned char)lcg_next(g); break;
			case 1: buffer[at] = (unsigned char)special[lcg_next(g) % (sizeof(special) - 1)]; break;
			case 2: length = at; break; // truncate
			case 3: // delete a span
			{
				size_t n = 1 + lcg_next(g) % 16;
				n = at + n > length ? length - at : n;
				memmove(buffer + at, buffer + at + n, length - at - n);
				length -= n;
				break;
			}
			case 4: // duplicate a span
			{
				size_t n = 1 + lcg_next(g) % 32;
				n = at + n > length ? length - at : n;
				if (length + n <= capacity)
				{
					memmove(buffer + at + n, buffer + at, length - at);
					length += n;
				}
				break;
			}
			default: buffer[at] ^= (unsigned char)(1u << (lcg_next(g) % 8)); break;
		}
	}
	return length;
}

static kl_result parse_any(int format, const unsigned char* bytes, size_t length, kl_mesh_data* out)
{
	switch (format)
	{
		case 0: return kl_mesh_data_parse_obj((const char*)bytes, length, out);
		case 1: return kl_mesh_data_parse_stl(bytes, length, out);
		default: return kl_mesh_data_parse_off((const char*)bytes, length, out);
	}
}

static void fuzz_one(lcg* g, const unsigned char* original, size_t length, int format, int* successes)
{
	size_t capacity = 2 * length + 64;
	unsigned char* work = malloc(capacity);
	memcpy(work, original, length);
	size_t n = mutate(g, work, length, capacity);
	// An exact-size copy, so that the sanitizers catch any read past the end.
	unsigned char* exact = malloc(n > 0 ? n : 1);
	memcpy(exact, work, n);
	free(work);

	kl_mesh_data data;
	kl_result r = parse_any(format, exact, n, &data);
	if (r == KL_OK)
	{
		*successes += 1;
		assert_true(data.triangle_count > 0 && data.vertex_count > 0);
		for (int i = 0; i < 3 * data.triangle_count; ++i)
		{
			assert_true(data.indices[i] >= 0 && data.indices[i] < data.vertex_count);
		}
		kl_mesh_def def = kl_default_mesh_def();
		def.vertices = data.vertices;
		def.vertex_count = data.vertex_count;
		def.indices = data.indices;
		def.triangle_count = data.triangle_count;
		def.weld_tolerance = (lcg_next(g) & 1) ? 0.0f : 0.01f;
		kl_mesh_release(kl_mesh_build(&def));
	}
	else
	{
		assert_true(is_zeroed(&data));
		assert_true(strlen(kl_last_error()) > 0);
	}
	kl_mesh_data_free(&data);
	// Other formats' parsers must survive the same bytes.
	for (int f = 0; f < 3; ++f)
	{
		if (parse_any(f, exact, n, &data) == KL_OK)
		{
			kl_mesh_data_free(&data);
		}
	}
	free(exact);
}

static void test_fuzz(void** state)
{
	(void)state;
	unsigned char binary[684];
	make_binary_cube(binary, "solid binary");
	size_t lengths[4];
	void* files[4] = {read_whole(DATA("cube.obj"), &lengths[0]), read_whole(DATA("cube.stl"), &lengths[1]),
					  read_whole(DATA("cube.off"), &lengths[2]), binary};
	lengths[3] = sizeof(binary);
	const int formats[4] = {0, 1, 2, 1};
	lcg g = {20240611u};
	int successes[4] = {0};
	for (int i = 0; i < 3000; ++i)
	{
		for (int f = 0; f < 4; ++f)
		{
			fuzz_one(&g, files[f], lengths[f], formats[f], &successes[f]);
		}
	}
	for (int f = 0; f < 3; ++f)
	{
		free(files[f]);
	}
	// The mutations must leave some files valid, or the loop tests only the error paths.
	for (int f = 0; f < 4; ++f)
	{
		assert_true(successes[f] > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_obj_cube),
		cmocka_unit_test(test_stl_ascii_cube),
		cmocka_unit_test(test_stl_binary_cube),
		cmocka_unit_test(test_stl_binary_errors),
		cmocka_unit_test(test_off_cube),
		cmocka_unit_test(test_mesh_load_builds),
		cmocka_unit_test(test_extension_dispatch),
		cmocka_unit_test(test_malformed_fixtures),
		cmocka_unit_test(test_obj_forms),
		cmocka_unit_test(test_stl_ascii_forms),
		cmocka_unit_test(test_off_forms),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
