// PLY meshes (kollide/ply.h): writer/reader round trip with colours, values, counts and the colour
// range comment; binary little- and big-endian bodies with extra properties, a quad and a skipped
// element; kl_mesh_data_load on .ply; malformed files fail with messages that say what is wrong;
// a mutation loop over a valid file never crashes.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include <kollide/kollide.h>
#include <kollide/ply.h>

#include <stdlib.h>
#include <string.h>

#define OUT(name) KL_TEST_OUT_DIR "/" name

/// A tetrahedron with every optional array filled.
static void make_tetra(kl_ply_mesh* m, vec3s* v, int32_t* idx, uint8_t* rgb, float* values, int32_t* counts)
{
	static const float p[4][3] = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.1f, 0.2f, 1.0f / 3.0f}};
	static const int32_t t[12] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3};
	for (int i = 0; i < 4; ++i)
	{
		v[i] = kl_vec3(p[i][0] * 1.7f - 0.3f, p[i][1] * 1e-3f, p[i][2] + 12345.678f);
		rgb[3 * i] = (uint8_t)(60 * i), rgb[3 * i + 1] = 255, rgb[3 * i + 2] = (uint8_t)(7 + i);
		values[i] = 0.1f * (float)i + 1e-7f;
		counts[i] = i * 3 - 1;
	}
	memcpy(idx, t, sizeof(t));
	memset(m, 0, sizeof(*m));
	m->mesh.vertices = v;
	m->mesh.vertex_count = 4;
	m->mesh.indices = idx;
	m->mesh.triangle_count = 4;
	m->colors = rgb;
	m->values = values;
	m->counts = counts;
	m->comments = "kollide heatmap value=time stat=median min=0.125 max=3.5\nsecond line";
}

static void test_round_trip(void** state)
{
	(void)state;
	vec3s v[4];
	int32_t idx[12], counts[4];
	uint8_t rgb[12];
	float values[4];
	kl_ply_mesh m;
	make_tetra(&m, v, idx, rgb, values, counts);
	assert_int_equal(kl_ply_save(OUT("ply_round_trip.ply"), &m), KL_OK);
	kl_ply_mesh r;
	assert_int_equal(kl_ply_load(OUT("ply_round_trip.ply"), &r), KL_OK);
	assert_int_equal(r.mesh.vertex_count, 4);
	assert_int_equal(r.mesh.triangle_count, 4);
	assert_memory_equal(r.mesh.vertices, v, sizeof(v)); // 9 significant digits: exact floats
	assert_memory_equal(r.mesh.indices, idx, sizeof(idx));
	assert_non_null(r.colors);
	assert_non_null(r.values);
	assert_non_null(r.counts);
	assert_memory_equal(r.colors, rgb, sizeof(rgb));
	assert_memory_equal(r.values, values, sizeof(values));
	assert_memory_equal(r.counts, counts, sizeof(counts));
	assert_true(r.has_range);
	assert_true(r.range_min == 0.125f && r.range_max == 3.5f);
	assert_string_equal(r.comments, "kollide heatmap value=time stat=median min=0.125 max=3.5\nsecond line\n");
	kl_ply_free(&r);

	// Without the optional arrays: no colour, value or count properties come back.
	m.colors = NULL, m.values = NULL, m.counts = NULL, m.comments = NULL;
	assert_int_equal(kl_ply_save(OUT("ply_plain.ply"), &m), KL_OK);
	assert_int_equal(kl_ply_load(OUT("ply_plain.ply"), &r), KL_OK);
	assert_null(r.colors);
	assert_null(r.values);
	assert_null(r.counts);
	assert_null(r.comments);
	assert_false(r.has_range);
	assert_memory_equal(r.mesh.vertices, v, sizeof(v));
	kl_ply_free(&r);

	// kl_mesh_data_load dispatches .ply (geometry only), as kollide-collide and scene files use it.
	kl_mesh_data d;
	assert_int_equal(kl_mesh_data_load(OUT("ply_round_trip.ply"), &d), KL_OK);
	assert_int_equal(d.vertex_count, 4);
	assert_memory_equal(d.indices, idx, sizeof(idx));
	kl_mesh_data_free(&d);
}

/// Appends big- or little-endian numbers to a buffer.
typedef struct byte_writer
{
	unsigned char bytes[1024];
	size_t n;
	bool big;
} byte_writer;

static void put(byte_writer* w, const void* value, size_t size)
{
	for (size_t i = 0; i < size; ++i)
	{
		w->bytes[w->n + i] = ((const unsigned char*)value)[w->big ? size - 1 - i : i];
	}
	w->n += size;
}

static void put_text(byte_writer* w, const char* s)
{
	memcpy(w->bytes + w->n, s, strlen(s));
	w->n += strlen(s);
}

/// A unit square (one quad) with normals (skipped), double positions, float colours, a ushort value
/// slot named otherwise, and an "edge" element that the reader must read past.
static void binary_square(byte_writer* w, bool big)
{
	memset(w, 0, sizeof(*w));
	w->big = big;
	put_text(w, "ply\r\n");
	put_text(w, big ? "format binary_big_endian 1.0\n" : "format binary_little_endian 1.0\n");
	put_text(w, "comment made by test_ply\nobj_info nothing\n"
				"element vertex 4\nproperty double x\nproperty double y\nproperty double z\nproperty float nx\n"
				"property list uchar short junk\nproperty float red\nproperty float green\nproperty float blue\n"
				"property double value\n"
				"element face 1\nproperty uchar flags\nproperty list uchar uint vertex_indices\n"
				"element edge 2\nproperty int a\nproperty int b\nend_header\n");
	static const double xy[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	for (int i = 0; i < 4; ++i)
	{
		double z = 0.5, value = 10.0 + i;
		float nx = 1.0f, c[3] = {1.0f, 0.5f, 0.0f};
		uint8_t junk_count = (uint8_t)i;
		put(w, &xy[i][0], 8), put(w, &xy[i][1], 8), put(w, &z, 8), put(w, &nx, 4);
		put(w, &junk_count, 1);
		for (int k = 0; k < i; ++k)
		{
			int16_t junk = (int16_t)(-k);
			put(w, &junk, 2);
		}
		put(w, &c[0], 4), put(w, &c[1], 4), put(w, &c[2], 4), put(w, &value, 8);
	}
	uint8_t flags = 9, four = 4;
	uint32_t quad[4] = {0, 1, 2, 3};
	put(w, &flags, 1), put(w, &four, 1);
	for (int k = 0; k < 4; ++k)
	{
		put(w, &quad[k], 4);
	}
	int32_t edges[4] = {0, 1, 1, 2};
	for (int k = 0; k < 4; ++k)
	{
		put(w, &edges[k], 4);
	}
}

static void test_binary(void** state)
{
	(void)state;
	for (int big = 0; big < 2; ++big)
	{
		byte_writer w;
		binary_square(&w, big != 0);
		kl_ply_mesh m;
		assert_int_equal(kl_ply_parse(w.bytes, w.n, &m), KL_OK);
		assert_int_equal(m.mesh.vertex_count, 4);
		assert_int_equal(m.mesh.triangle_count, 2); // the quad, fan-triangulated
		static const int32_t fan[6] = {0, 1, 2, 0, 2, 3};
		assert_memory_equal(m.mesh.indices, fan, sizeof(fan));
		assert_true(m.mesh.vertices[2].x == 1.0f && m.mesh.vertices[2].y == 1.0f && m.mesh.vertices[2].z == 0.5f);
		assert_non_null(m.colors);
		assert_int_equal(m.colors[0], 255);
		assert_int_equal(m.colors[1], 128); // 0.5 · 255, rounded
		assert_int_equal(m.colors[2], 0);
		assert_non_null(m.values);
		assert_true(m.values[3] == 13.0f);
		assert_null(m.counts);
		assert_string_equal(m.comments, "made by test_ply\n");
		kl_ply_free(&m);

		// Every shorter prefix of the body is a truncated file: an error, never a crash.
		size_t header = (size_t)(strstr((const char*)w.bytes, "end_header\n") - (const char*)w.bytes) + 11;
		for (size_t n = header; n < w.n; ++n)
		{
			assert_int_equal(kl_ply_parse(w.bytes, n, &m), KL_ERR_PARSE);
			assert_non_null(strstr(kl_last_error(), "truncated"));
			assert_null(m.mesh.vertices);
		}
	}
}

/// Parses text that must fail with code and a message containing `words`.
static void expect_failure(const char* text, kl_result code, const char* words)
{
	kl_ply_mesh m;
	kl_result r = kl_ply_parse(text, strlen(text), &m);
	if (r != code || strstr(kl_last_error(), words) == NULL)
	{
		print_error("input:\n%s\ngot %d '%s', expected %d with '%s'\n", text, (int)r, kl_last_error(), (int)code,
					words);
		fail();
	}
	assert_null(m.mesh.vertices);
	assert_null(m.colors);
	assert_null(m.comments);
}

#define HEAD "ply\nformat ascii 1.0\n"
#define XYZ "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
#define FACE "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
#define TRI_VERTS "0 0 0\n1 0 0\n0 1 0\n"

static void test_malformed(void** state)
{
	(void)state;
	// The good file these are variations of.
	kl_ply_mesh m;
	const char* good = HEAD XYZ FACE TRI_VERTS "3 0 1 2\n";
	assert_int_equal(kl_ply_parse(good, strlen(good), &m), KL_OK);
	assert_int_equal(m.mesh.triangle_count, 1);
	kl_ply_free(&m);

	expect_failure("solid x\nfacet\n", KL_ERR_PARSE, "not a PLY file");
	expect_failure("", KL_ERR_PARSE, "no 'end_header'");
	expect_failure(HEAD XYZ "element face 1\n", KL_ERR_PARSE, "no 'end_header'");
	expect_failure("ply\n" XYZ FACE TRI_VERTS "3 0 1 2\n", KL_ERR_PARSE, "no 'format' line");
	expect_failure("ply\nformat binary_middle_endian 1.0\n" XYZ FACE, KL_ERR_PARSE, "unknown format");
	expect_failure("ply\nformat ascii 2.0\n" XYZ FACE, KL_ERR_PARSE, "header line 2");
	expect_failure(HEAD "element vertex 3\nproperty float3 x\n", KL_ERR_PARSE, "unknown property type 'float3'");
	expect_failure(HEAD "property float x\n", KL_ERR_PARSE, "property before any element");
	expect_failure(HEAD "element vertex many\n", KL_ERR_PARSE, "not a whole number");
	expect_failure(HEAD "element vertex -3\n", KL_ERR_PARSE, "not a whole number");
	expect_failure(HEAD "bogus line\n", KL_ERR_PARSE, "unknown header keyword 'bogus'");
	expect_failure(HEAD "element vertex 3\nproperty float x\nproperty float y\n" FACE TRI_VERTS, KL_ERR_PARSE,
				   "lacks scalar properties x, y and z");
	expect_failure(HEAD XYZ "element face 1\nproperty list uchar int other\nend_header\n" TRI_VERTS "3 0 1 2\n",
				   KL_ERR_PARSE, "lacks a list property vertex_indices");
	expect_failure(HEAD XYZ "element face 1\nproperty list uchar float vertex_indices\nend_header\n", KL_ERR_PARSE,
				   "integer type");
	expect_failure(HEAD XYZ "property uchar red\n" FACE, KL_ERR_PARSE, "red, green and blue");
	expect_failure(HEAD "element face 1\nproperty list uchar int vertex_indices\n" XYZ "end_header\n", KL_ERR_PARSE,
				   "must follow the vertex element");
	expect_failure(HEAD XYZ "end_header\n" TRI_VERTS, KL_ERR_PARSE, "no face element");
	expect_failure(HEAD "element vertex 99999999\nproperty float x\nproperty float y\nproperty float z\n" FACE,
				   KL_ERR_LIMIT, "exceed the limits");
	expect_failure(HEAD XYZ FACE "0 0 0\n1 0 0\n", KL_ERR_PARSE, "truncated");
	expect_failure(HEAD XYZ FACE "0 0 0\n1 0 0\n0 1 0 3 0 1\n", KL_ERR_PARSE, "truncated");
	expect_failure(HEAD XYZ FACE "0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n", KL_ERR_PARSE, "line 11: vertex");
	expect_failure(HEAD XYZ FACE "0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", KL_ERR_INVALID_ARGUMENT, "not a finite float");
	expect_failure(HEAD XYZ FACE "0 0 0\n1 1e39 0\n0 1 0\n3 0 1 2\n", KL_ERR_INVALID_ARGUMENT, "not a finite float");
	expect_failure(HEAD XYZ FACE TRI_VERTS "3 0 1 3\n", KL_ERR_INVALID_ARGUMENT, "vertex index 3 is out of range [0, 3)");
	expect_failure(HEAD XYZ FACE TRI_VERTS "3 0 -1 2\n", KL_ERR_INVALID_ARGUMENT, "out of range");
	expect_failure(HEAD XYZ FACE TRI_VERTS "2 0 1\n", KL_ERR_PARSE, "a face of 2 vertices");
	expect_failure(HEAD XYZ FACE TRI_VERTS "3 0 1.5 2\n", KL_ERR_PARSE, "face");
	expect_failure(HEAD "element vertex 0\nproperty float x\nproperty float y\nproperty float z\n"
					   "element face 0\nproperty list uchar int vertex_indices\nend_header\n",
				   KL_ERR_PARSE, "no triangles");

	// Bad arguments and files.
	assert_int_equal(kl_ply_parse(NULL, 0, &m), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_ply_parse(good, strlen(good), NULL), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_ply_load(OUT("no_such_file.ply"), &m), KL_ERR_IO);
	assert_non_null(strstr(kl_last_error(), "no_such_file.ply"));
	FILE* f = fopen(OUT("ply_bad.ply"), "wb");
	assert_non_null(f);
	fputs(HEAD XYZ FACE TRI_VERTS "3 0 1 7\n", f);
	fclose(f);
	assert_int_equal(kl_ply_load(OUT("ply_bad.ply"), &m), KL_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(kl_last_error(), "ply_bad.ply: PLY: line 13: face 0: vertex index 7"));
	kl_mesh_data d;
	assert_int_equal(kl_mesh_data_load(OUT("ply_bad.ply"), &d), KL_ERR_INVALID_ARGUMENT);
	assert_null(d.vertices);

	// The writer refuses what it could not write as a valid file.
	vec3s v[4];
	int32_t idx[12], counts[4];
	uint8_t rgb[12];
	float values[4];
	make_tetra(&m, v, idx, rgb, values, counts);
	idx[5] = 4;
	assert_int_equal(kl_ply_save(OUT("ply_refused.ply"), &m), KL_ERR_INVALID_ARGUMENT);
	idx[5] = 3;
	values[2] = NAN;
	assert_int_equal(kl_ply_save(OUT("ply_refused.ply"), &m), KL_ERR_INVALID_ARGUMENT);
	values[2] = 0.0f;
	m.comments = "a\rb";
	assert_int_equal(kl_ply_save(OUT("ply_refused.ply"), &m), KL_ERR_INVALID_ARGUMENT);
	m.comments = NULL;
	assert_int_equal(kl_ply_save(OUT("no_such_dir/x.ply"), &m), KL_ERR_IO);
	assert_int_equal(kl_ply_save(NULL, &m), KL_ERR_INVALID_ARGUMENT);
}

/// A NUL byte in a header line is refused by both parsers with the line's number: the header is
/// text, and a NUL copied into kl_ply_mesh.comments (a C string) would end it inside that comment,
/// losing the comment's rest and every later one. A NUL in the first line is not a PLY file. The
/// same header without the NUL keeps both comments, each ended by a newline.
static void test_nul_in_header(void** state)
{
	(void)state;
	static const char text[] = HEAD "comment min=0\0max=1\ncomment second line\n" XYZ FACE TRI_VERTS "3 0 1 2\n";
	size_t n = sizeof(text) - 1;
	assert_non_null(memchr(text, '\0', n));
	kl_ply_mesh m;
	assert_int_equal(kl_ply_parse(text, n, &m), KL_ERR_PARSE);
	assert_non_null(strstr(kl_last_error(), "PLY: header line 3 holds a NUL byte"));
	assert_null(m.comments);
	kl_mesh_data d;
	assert_int_equal(kl_mesh_data_parse_ply(text, n, &d), KL_ERR_PARSE);
	assert_non_null(strstr(kl_last_error(), "header line 3 holds a NUL byte"));
	assert_null(d.vertices);
	static const char first[] = "ply\0\nformat ascii 1.0\n" XYZ FACE TRI_VERTS "3 0 1 2\n";
	assert_int_equal(kl_ply_parse(first, sizeof(first) - 1, &m), KL_ERR_PARSE);
	assert_non_null(strstr(kl_last_error(), "not a PLY file"));

	char clean[sizeof(text)];
	memcpy(clean, text, sizeof(text));
	*(char*)memchr(clean, '\0', n) = ' ';
	assert_int_equal(kl_ply_parse(clean, n, &m), KL_OK);
	assert_string_equal(m.comments, "min=0 max=1\nsecond line\n");
	kl_ply_free(&m);
}

/// Random byte changes of valid ASCII and binary files: parsing returns, and a success is a mesh whose
/// indices are in range.
static void test_mutations(void** state)
{
	(void)state;
	byte_writer w;
	binary_square(&w, false);
	const char* ascii = HEAD "comment min=0 max=1\n" XYZ "property uchar red\nproperty uchar green\nproperty uchar blue\n"
						"property float value\n" FACE "0 0 0 1 2 3 0.5\n1 0 0 4 5 6 0.25\n0 1 0 7 8 9 1\n3 0 1 2\n";
	uint64_t seed = 12345;
	int successes = 0;
	for (int round = 0; round < 4000; ++round)
	{
		bool binary = round % 2 == 0;
		unsigned char buffer[1024];
		size_t n = binary ? w.n : strlen(ascii);
		memcpy(buffer, binary ? (const void*)w.bytes : (const void*)ascii, n);
		for (int k = 0; k < 1 + round % 3; ++k)
		{
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t at = (size_t)(seed >> 33) % n;
			buffer[at] = (unsigned char)(seed >> 20);
		}
		kl_ply_mesh m;
		if (kl_ply_parse(buffer, n, &m) == KL_OK)
		{
			successes += 1;
			for (int i = 0; i < 3 * m.mesh.triangle_count; ++i)
			{
				assert_true(m.mesh.indices[i] >= 0 && m.mesh.indices[i] < m.mesh.vertex_count);
			}
			kl_ply_free(&m);
		}
		else
		{
			assert_true(kl_last_error()[0] != '\0');
		}
	}
	assert_true(successes > 0); // mutations in values leave valid files: the loop reaches the body
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_in_header),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
