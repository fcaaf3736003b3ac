// Kollide — procedural test meshes (tools/meshgen): closed and outward, sizes, determinism, parameter
// checks, gear mating, screw in bore, nested bowls, the stand-ins of Aichele's experiments, OBJ/OFF files.
// SPDX-License-Identifier: MIT
#include "kl_test.h"

#include <kollide/kollide.h>

#include "meshgen.h"

#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

// ---------------------------------------------------------------------------------------------
// Helpers

/// Builds the engine's model without welding, so the generator's own indexing is what is checked.
static kl_mesh_info check_closed(const kl_meshgen_mesh* m, const char* what)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = m->vertices;
	def.vertex_count = m->vertex_count;
	def.indices = m->indices;
	def.triangle_count = m->triangle_count;
	kl_mesh* mesh = kl_mesh_build(&def);
	if (mesh == NULL)
	{
		fail_msg("%s: kl_mesh_build failed: %s", what, kl_last_error());
	}
	kl_mesh_info info = kl_mesh_get_info(mesh);
	kl_mesh_release(mesh);
	if (!info.closed || info.open_edge_count != 0 || info.non_manifold_edge_count != 0 ||
		info.inconsistent_edge_count != 0 || info.degenerate_triangle_count != 0 || info.welded_vertex_count != 0 ||
		info.flipped || info.mass_source != KL_MESH_MASS_VOLUME || !(info.volume > 0.0f) ||
		info.triangle_count != m->triangle_count || info.vertex_count != m->vertex_count)
	{
		fail_msg("%s: closed %d open %d non-manifold %d inconsistent %d degenerate %d welded %d flipped %d volume %g "
				 "triangles %d/%d vertices %d/%d",
				 what, info.closed, info.open_edge_count, info.non_manifold_edge_count, info.inconsistent_edge_count,
				 info.degenerate_triangle_count, info.welded_vertex_count, info.flipped, (double)info.volume,
				 info.triangle_count, m->triangle_count, info.vertex_count, m->vertex_count);
	}
	kl_mass_data mass;
	assert_int_equal(kl_compute_polyhedron_mass(m->vertices, m->indices, m->triangle_count, 1.0f, &mass), KL_OK);
	assert_near(mass.mass, info.volume, 1e-4 * info.volume);
	return info;
}

static void assert_same_mesh(const kl_meshgen_mesh* a, const kl_meshgen_mesh* b)
{
	assert_int_equal(a->vertex_count, b->vertex_count);
	assert_int_equal(a->triangle_count, b->triangle_count);
	assert_memory_equal(a->vertices, b->vertices, (size_t)a->vertex_count * sizeof(vec3s));
	assert_memory_equal(a->indices, b->indices, (size_t)a->triangle_count * 3 * sizeof(int32_t));
}

static vec3s v3(double x, double y, double z)
{
	return (vec3s){{(float)x, (float)y, (float)z}};
}

static vec3s sub3(vec3s a, vec3s b)
{
	return v3((double)a.x - b.x, (double)a.y - b.y, (double)a.z - b.z);
}

static double dot3(vec3s a, vec3s b)
{
	return (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z;
}

static double len3(vec3s a)
{
	return sqrt(dot3(a, a));
}

/// Closest distance from p to triangle abc (Ericson, Real-Time Collision Detection 5.1.5).
static double point_triangle_distance(vec3s p, vec3s a, vec3s b, vec3s c)
{
	vec3s ab = sub3(b, a), ac = sub3(c, a), ap = sub3(p, a);
	double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0)
	{
		return len3(ap);
	}
	vec3s bp = sub3(p, b);
	double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
	if (d3 >= 0.0 && d4 <= d3)
	{
		return len3(bp);
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
	{
		double v = d1 / (d1 - d3);
		return len3(sub3(ap, v3(v * ab.x, v * ab.y, v * ab.z)));
	}
	vec3s cp = sub3(p, c);
	double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
	if (d6 >= 0.0 && d5 <= d6)
	{
		return len3(cp);
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
	{
		double w = d2 / (d2 - d6);
		return len3(sub3(ap, v3(w * ac.x, w * ac.y, w * ac.z)));
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
	{
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		vec3s bc = sub3(c, b);
		return len3(sub3(bp, v3(w * bc.x, w * bc.y, w * bc.z)));
	}
	double denom = 1.0 / (va + vb + vc);
	double v = vb * denom, w = vc * denom;
	vec3s q = v3(a.x + ab.x * v + ac.x * w, a.y + ab.y * v + ac.y * w, a.z + ab.z * v + ac.z * w);
	return len3(sub3(p, q));
}

/// Winding number of a closed mesh around p (solid angles, Van Oosterom & Strackee): 1 inside, 0 outside.
static double winding_number(const kl_meshgen_mesh* m, vec3s p)
{
	double sum = 0.0;
	for (int t = 0; t < m->triangle_count; ++t)
	{
		const int32_t* i = m->indices + 3 * t;
		vec3s a = sub3(m->vertices[i[0]], p), b = sub3(m->vertices[i[1]], p), c = sub3(m->vertices[i[2]], p);
		double la = len3(a), lb = len3(b), lc = len3(c);
		vec3s bxc = v3((double)b.y * c.z - (double)b.z * c.y, (double)b.z * c.x - (double)b.x * c.z,
					   (double)b.x * c.y - (double)b.y * c.x);
		double num = dot3(a, bxc);
		double den = la * lb * lc + dot3(a, b) * lc + dot3(a, c) * lb + dot3(b, c) * la;
		sum += 2.0 * atan2(num, den);
	}
	return sum / (4.0 * PI);
}

typedef struct separation
{
	double min_distance; ///< from the samples of one mesh to the surface of the other
	int inside;			 ///< samples inside the other mesh
	int samples;
} separation;

/// Samples mesh a (vertices and triangle centroids, moved by offset, only those with z in
/// [z_lo, z_hi] after the move) against mesh b: distance to b's surface and whether inside b.
static void sample_against(const kl_meshgen_mesh* a, vec3s offset, const kl_meshgen_mesh* b, double z_lo, double z_hi,
						   separation* s)
{
	int total = a->vertex_count + a->triangle_count;
	for (int k = 0; k < total; ++k)
	{
		vec3s p;
		if (k < a->vertex_count)
		{
			p = a->vertices[k];
		}
		else
		{
			const int32_t* i = a->indices + 3 * (k - a->vertex_count);
			vec3s q0 = a->vertices[i[0]], q1 = a->vertices[i[1]], q2 = a->vertices[i[2]];
			p = v3(((double)q0.x + q1.x + q2.x) / 3.0, ((double)q0.y + q1.y + q2.y) / 3.0,
				   ((double)q0.z + q1.z + q2.z) / 3.0);
		}
		p = v3((double)p.x + offset.x, (double)p.y + offset.y, (double)p.z + offset.z);
		if (p.z < z_lo || p.z > z_hi)
		{
			continue;
		}
		s->samples += 1;
		for (int t = 0; t < b->triangle_count; ++t)
		{
			const int32_t* i = b->indices + 3 * t;
			double d = point_triangle_distance(p, b->vertices[i[0]], b->vertices[i[1]], b->vertices[i[2]]);
			s->min_distance = fmin(s->min_distance, d);
		}
		s->inside += winding_number(b, p) > 0.5 ? 1 : 0;
	}
}

/// Both ways: samples of a (moved by offset_a) against b, and of b against a moved.
static separation separate(const kl_meshgen_mesh* a, vec3s offset_a, const kl_meshgen_mesh* b, double z_lo,
						   double z_hi)
{
	separation s = {INFINITY, 0, 0};
	sample_against(a, offset_a, b, z_lo, z_hi, &s);
	// b against a: move b by -offset_a instead (a stays in its own frame).
	vec3s back = v3(-(double)offset_a.x, -(double)offset_a.y, -(double)offset_a.z);
	sample_against(b, back, a, z_lo - offset_a.z, z_hi - offset_a.z, &s);
	return s;
}

// ---------------------------------------------------------------------------------------------
// Every shape is closed, outward and clean

static void test_all_closed(void** state)
{
	(void)state;
	kl_meshgen_mesh m;
	kl_meshgen_gear_params gear = kl_meshgen_default_gear_params();
	assert_int_equal(kl_meshgen_gear(&gear, &m), KL_OK);
	check_closed(&m, "gear");
	kl_meshgen_free(&m);
	gear.bore_radius = 0.0f;
	gear.resolution = 4;
	gear.tooth_count = 31;
	assert_int_equal(kl_meshgen_gear(&gear, &m), KL_OK);
	check_closed(&m, "solid gear, resolution 4");
	kl_meshgen_free(&m);

	kl_meshgen_screw_params screw = kl_meshgen_default_screw_params();
	assert_int_equal(kl_meshgen_screw(&screw, &m), KL_OK);
	check_closed(&m, "screw");
	kl_meshgen_free(&m);
	screw.head_sides = 0;
	screw.segments_per_turn = 37;
	screw.length = 0.0537f;
	assert_int_equal(kl_meshgen_screw(&screw, &m), KL_OK);
	check_closed(&m, "round-head screw, 37 segments");
	kl_meshgen_free(&m);

	kl_meshgen_bearing_block_params block = kl_meshgen_default_bearing_block_params();
	assert_int_equal(kl_meshgen_bearing_block(&block, &m), KL_OK);
	check_closed(&m, "bearing block");
	kl_meshgen_free(&m);
	block.threaded = true;
	block.size_x = 0.12f; // corners off the uniform columns
	assert_int_equal(kl_meshgen_bearing_block(&block, &m), KL_OK);
	check_closed(&m, "threaded block");
	kl_meshgen_free(&m);

	kl_meshgen_bowl_params bowl = kl_meshgen_default_bowl_params();
	assert_int_equal(kl_meshgen_bowl(&bowl, &m), KL_OK);
	check_closed(&m, "bowl");
	kl_meshgen_free(&m);
	bowl.foot_radius = 0.0f;
	assert_int_equal(kl_meshgen_bowl(&bowl, &m), KL_OK);
	check_closed(&m, "round bowl");
	kl_meshgen_free(&m);

	kl_meshgen_torus_knot_params knot = kl_meshgen_default_torus_knot_params();
	assert_int_equal(kl_meshgen_torus_knot(&knot, &m), KL_OK);
	check_closed(&m, "trefoil");
	kl_meshgen_free(&m);
	knot.p = 3;
	knot.q = 5;
	knot.tube_radius = 0.008f;
	assert_int_equal(kl_meshgen_torus_knot(&knot, &m), KL_OK);
	check_closed(&m, "(3, 5) knot");
	kl_meshgen_free(&m);

	kl_meshgen_rock_params rock = kl_meshgen_default_rock_params();
	assert_int_equal(kl_meshgen_rock(&rock, &m), KL_OK);
	check_closed(&m, "rock");
	kl_meshgen_free(&m);
	rock.frequency = 1; // the bare icosahedron
	assert_int_equal(kl_meshgen_rock(&rock, &m), KL_OK);
	check_closed(&m, "icosahedron");
	kl_meshgen_free(&m);
	kl_meshgen_free(&m); // twice is harmless
	kl_meshgen_free(NULL);

	kl_meshgen_screwdriver_params screwdriver = kl_meshgen_default_screwdriver_params();
	assert_int_equal(kl_meshgen_screwdriver(&screwdriver, &m), KL_OK);
	check_closed(&m, "screwdriver");
	kl_meshgen_free(&m);
	screwdriver.resolution = 1; // 12 segments: two per rib
	screwdriver.tip_thickness = 2.0f * screwdriver.shaft_radius;
	assert_int_equal(kl_meshgen_screwdriver(&screwdriver, &m), KL_OK);
	check_closed(&m, "screwdriver, resolution 1");
	kl_meshgen_free(&m);

	kl_meshgen_housing_params housing = kl_meshgen_default_housing_params();
	assert_int_equal(kl_meshgen_housing(&housing, &m), KL_OK);
	check_closed(&m, "housing");
	kl_meshgen_free(&m);
	housing.side_boss_radius = 0.0f;
	housing.resolution = 1; // boss blocks fill the whole straight wall
	housing.size_x = 0.137f;
	assert_int_equal(kl_meshgen_housing(&housing, &m), KL_OK);
	check_closed(&m, "housing without side bosses, resolution 1");
	kl_meshgen_free(&m);

	kl_meshgen_robot_arm_params arm = kl_meshgen_default_robot_arm_params();
	assert_int_equal(kl_meshgen_robot_arm(&arm, &m), KL_OK);
	check_closed(&m, "robot arm");
	kl_meshgen_free(&m);
	arm.resolution = 1;
	arm.scale = 0.3f;
	assert_int_equal(kl_meshgen_robot_arm(&arm, &m), KL_OK);
	check_closed(&m, "robot arm, resolution 1, scale 0.3");
	kl_meshgen_free(&m);
}

// ---------------------------------------------------------------------------------------------
// Sizes and volumes against closed forms

static void test_sizes_and_volumes(void** state)
{
	(void)state;
	kl_meshgen_mesh m;
	kl_meshgen_gear_params gear = kl_meshgen_default_gear_params();
	assert_int_equal(kl_meshgen_gear(&gear, &m), KL_OK);
	assert_in_range(m.triangle_count, 300, 500); // the E2 benchmark's gear size
	kl_mesh_info info = check_closed(&m, "gear");
	// Between the root disc and the tip disc, less the bore.
	double rp = kl_meshgen_gear_pitch_radius(&gear), w = gear.face_width, bore = PI * gear.bore_radius * gear.bore_radius;
	double lo = (PI * pow(rp - 1.25 * gear.module, 2.0) - bore) * w, hi = (PI * pow(rp + gear.module, 2.0) - bore) * w;
	assert_in_range((int)(1e9 * info.volume), (int)(1e9 * lo), (int)(1e9 * hi));
	kl_meshgen_free(&m);
	// Finer involute flanks add a little material (the chords lie inside the involute teeth).
	gear.resolution = 8;
	assert_int_equal(kl_meshgen_gear(&gear, &m), KL_OK);
	kl_mesh_info fine = check_closed(&m, "gear, resolution 8");
	print_message("gear volume: resolution 1 %.4g, resolution 8 %.4g cm^3\n", 1e6 * info.volume, 1e6 * fine.volume);
	assert_true(fine.volume > info.volume);
	assert_near(info.volume, fine.volume, 0.1 * fine.volume); // trapezoid teeth are 8 % thinner
	kl_meshgen_free(&m);

	kl_meshgen_rock_params rock = kl_meshgen_default_rock_params();
	assert_int_equal(kl_meshgen_rock(&rock, &m), KL_OK);
	assert_int_equal(m.triangle_count, 50000);
	assert_int_equal(m.vertex_count, 25002);
	info = check_closed(&m, "rock");
	double ellipsoid = 4.0 / 3.0 * PI * pow(rock.radius, 3.0) * rock.scale.x * rock.scale.y * rock.scale.z;
	assert_near(info.volume, ellipsoid, 0.3 * ellipsoid);
	// The noise really displaces: radii (before scaling) spread over a good part of ±amplitude.
	double rmin = INFINITY, rmax = 0.0;
	for (int i = 0; i < m.vertex_count; ++i)
	{
		vec3s p = m.vertices[i];
		double r = sqrt(pow(p.x / rock.scale.x, 2.0) + pow(p.y / rock.scale.y, 2.0) + pow(p.z / rock.scale.z, 2.0));
		rmin = fmin(rmin, r);
		rmax = fmax(rmax, r);
	}
	assert_true(rmin >= rock.radius * (1.0 - rock.amplitude) - 1e-6);
	assert_true(rmax <= rock.radius * (1.0 + rock.amplitude) + 1e-6);
	assert_true(rmax - rmin > 0.4 * rock.amplitude * rock.radius);
	kl_meshgen_free(&m);

	kl_meshgen_bearing_block_params block = kl_meshgen_default_bearing_block_params();
	assert_int_equal(kl_meshgen_bearing_block(&block, &m), KL_OK);
	info = check_closed(&m, "block");
	double box = (double)block.size_x * block.size_y * block.height;
	double cylinder = PI * block.bore_radius * block.bore_radius * block.height;
	assert_near(info.volume, box - cylinder, 0.01 * (box - cylinder));
	assert_near(info.bounds.upper.x - info.bounds.lower.x, block.size_x, 1e-6);
	kl_meshgen_free(&m);

	kl_meshgen_bowl_params bowl = kl_meshgen_default_bowl_params();
	bowl.foot_radius = 0.0f;
	assert_int_equal(kl_meshgen_bowl(&bowl, &m), KL_OK);
	assert_in_range(m.triangle_count, 500, 5000);
	info = check_closed(&m, "bowl");
	double ri = bowl.radius - bowl.thickness, ro = bowl.radius;
	double shell = 2.0 / 3.0 * PI * (ro * ro * ro - ri * ri * ri);
	double lip = PI * (pow(ro + bowl.rim_width, 2.0) - ro * ro) * bowl.rim_height;
	assert_near(info.volume, shell + lip, 0.03 * (shell + lip));
	kl_meshgen_free(&m);

	kl_meshgen_torus_knot_params knot = kl_meshgen_default_torus_knot_params();
	assert_int_equal(kl_meshgen_torus_knot(&knot, &m), KL_OK);
	assert_int_equal(m.triangle_count, 2 * knot.segments * knot.sides);
	info = check_closed(&m, "knot");
	// Tube volume = cross-section × curve length (Pappus), the curve length by fine sampling.
	double length = 0.0, prev[3] = {0};
	for (int i = 0; i <= 20000; ++i)
	{
		double t = 2.0 * PI * i / 20000, ring = knot.major_radius + knot.minor_radius * cos(knot.q * t);
		double p[3] = {ring * cos(knot.p * t), ring * sin(knot.p * t), knot.minor_radius * sin(knot.q * t)};
		length += i > 0 ? sqrt(pow(p[0] - prev[0], 2) + pow(p[1] - prev[1], 2) + pow(p[2] - prev[2], 2)) : 0.0;
		memcpy(prev, p, sizeof(p));
	}
	double tube = PI * knot.tube_radius * knot.tube_radius * length;
	assert_near(info.volume, tube, 0.05 * tube);
	kl_meshgen_free(&m);

	kl_meshgen_screw_params screw = kl_meshgen_default_screw_params();
	assert_int_equal(kl_meshgen_screw(&screw, &m), KL_OK);
	assert_in_range(m.triangle_count, 1000, 10000);
	info = check_closed(&m, "screw");
	// Shaft between the minor and major cylinders (the profile averages half way), plus the hex head.
	double head = 1.5 * sqrt(3.0) * screw.head_radius * screw.head_radius * screw.head_height;
	double mean_r = 0.5 * (screw.minor_radius + screw.major_radius);
	double shaft = PI * mean_r * mean_r * screw.length;
	assert_near(info.volume, head + shaft, 0.05 * (head + shaft));
	assert_near(info.bounds.upper.z, screw.length, 1e-6);
	assert_near(info.bounds.lower.z, -screw.head_height, 1e-6);
	kl_meshgen_free(&m);
}

// ---------------------------------------------------------------------------------------------
// Determinism

static void test_determinism(void** state)
{
	(void)state;
	kl_meshgen_mesh a, b;
	kl_meshgen_rock_params rock = kl_meshgen_default_rock_params();
	rock.frequency = 20;
	assert_int_equal(kl_meshgen_rock(&rock, &a), KL_OK);
	assert_int_equal(kl_meshgen_rock(&rock, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&b);
	rock.seed = 2;
	assert_int_equal(kl_meshgen_rock(&rock, &b), KL_OK);
	assert_int_equal(a.vertex_count, b.vertex_count);
	assert_memory_equal(a.indices, b.indices, (size_t)a.triangle_count * 3 * sizeof(int32_t));
	assert_memory_not_equal(a.vertices, b.vertices, (size_t)a.vertex_count * sizeof(vec3s));
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);

	kl_meshgen_gear_params gear = kl_meshgen_default_gear_params();
	assert_int_equal(kl_meshgen_gear(&gear, &a), KL_OK);
	assert_int_equal(kl_meshgen_gear(&gear, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);

	kl_meshgen_bearing_block_params nut = kl_meshgen_default_bearing_block_params();
	nut.threaded = true;
	assert_int_equal(kl_meshgen_bearing_block(&nut, &a), KL_OK);
	assert_int_equal(kl_meshgen_bearing_block(&nut, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);

	kl_meshgen_torus_knot_params knot = kl_meshgen_default_torus_knot_params();
	assert_int_equal(kl_meshgen_torus_knot(&knot, &a), KL_OK);
	assert_int_equal(kl_meshgen_torus_knot(&knot, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);

	kl_meshgen_screwdriver_params screwdriver = kl_meshgen_default_screwdriver_params();
	assert_int_equal(kl_meshgen_screwdriver(&screwdriver, &a), KL_OK);
	assert_int_equal(kl_meshgen_screwdriver(&screwdriver, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);

	kl_meshgen_housing_params housing = kl_meshgen_default_housing_params();
	assert_int_equal(kl_meshgen_housing(&housing, &a), KL_OK);
	assert_int_equal(kl_meshgen_housing(&housing, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);

	kl_meshgen_robot_arm_params arm = kl_meshgen_default_robot_arm_params();
	assert_int_equal(kl_meshgen_robot_arm(&arm, &a), KL_OK);
	assert_int_equal(kl_meshgen_robot_arm(&arm, &b), KL_OK);
	assert_same_mesh(&a, &b);
	kl_meshgen_free(&a);
	kl_meshgen_free(&b);
}

// ---------------------------------------------------------------------------------------------
// Parameter validation

// The call failed with `code`, left out empty and said which parameter.
static void expect_failure(kl_result r, kl_result code, const kl_meshgen_mesh* m, const char* needle)
{
	assert_int_equal(r, code);
	assert_null(m->vertices);
	assert_null(m->indices);
	assert_int_equal(m->triangle_count, 0);
	if (strstr(kl_meshgen_last_error(), needle) == NULL)
	{
		fail_msg("error '%s' does not mention '%s'", kl_meshgen_last_error(), needle);
	}
}

static void test_validation(void** state)
{
	(void)state;
	kl_meshgen_mesh m;
	kl_meshgen_gear_params gear = kl_meshgen_default_gear_params();
	gear.tooth_count = 3;
	expect_failure(kl_meshgen_gear(&gear, &m), KL_ERR_INVALID_ARGUMENT, &m, "tooth_count");
	gear = kl_meshgen_default_gear_params();
	gear.module = NAN;
	expect_failure(kl_meshgen_gear(&gear, &m), KL_ERR_INVALID_ARGUMENT, &m, "module");
	gear = kl_meshgen_default_gear_params();
	gear.bore_radius = 0.06f; // beyond the root circle
	expect_failure(kl_meshgen_gear(&gear, &m), KL_ERR_INVALID_ARGUMENT, &m, "bore_radius");
	gear = kl_meshgen_default_gear_params();
	gear.tooth_count = 6;
	gear.pressure_angle = (float)(35.0 * PI / 180.0);
	expect_failure(kl_meshgen_gear(&gear, &m), KL_ERR_INVALID_ARGUMENT, &m, "point");
	assert_int_equal(kl_meshgen_gear_outline(&gear, NULL, 0), -1);
	expect_failure(kl_meshgen_gear(NULL, &m), KL_ERR_INVALID_ARGUMENT, &m, "NULL");
	assert_int_equal(kl_meshgen_gear(&gear, NULL), KL_ERR_INVALID_ARGUMENT);

	kl_meshgen_screw_params screw = kl_meshgen_default_screw_params();
	screw.minor_radius = screw.major_radius;
	expect_failure(kl_meshgen_screw(&screw, &m), KL_ERR_INVALID_ARGUMENT, &m, "minor_radius");
	screw = kl_meshgen_default_screw_params();
	screw.head_radius = screw.major_radius; // the head would not cover the thread
	expect_failure(kl_meshgen_screw(&screw, &m), KL_ERR_INVALID_ARGUMENT, &m, "head_radius");
	screw = kl_meshgen_default_screw_params();
	screw.length = INFINITY;
	expect_failure(kl_meshgen_screw(&screw, &m), KL_ERR_INVALID_ARGUMENT, &m, "length");
	screw = kl_meshgen_default_screw_params();
	screw.pitch = 1e-5f;
	screw.length = 0.999f; // 400k rows per column
	screw.segments_per_turn = 4000;
	expect_failure(kl_meshgen_screw(&screw, &m), KL_ERR_LIMIT, &m, "limit");

	kl_meshgen_bearing_block_params block = kl_meshgen_default_bearing_block_params();
	block.bore_radius = 0.05f; // wider than the block
	expect_failure(kl_meshgen_bearing_block(&block, &m), KL_ERR_INVALID_ARGUMENT, &m, "bore_radius");
	block = kl_meshgen_default_bearing_block_params();
	block.threaded = true;
	block.clearance = -0.001f;
	expect_failure(kl_meshgen_bearing_block(&block, &m), KL_ERR_INVALID_ARGUMENT, &m, "clearance");

	kl_meshgen_bowl_params bowl = kl_meshgen_default_bowl_params();
	bowl.thickness = 0.08f;
	expect_failure(kl_meshgen_bowl(&bowl, &m), KL_ERR_INVALID_ARGUMENT, &m, "thickness");
	bowl = kl_meshgen_default_bowl_params();
	bowl.foot_radius = 0.06f; // would cut through the floor
	expect_failure(kl_meshgen_bowl(&bowl, &m), KL_ERR_INVALID_ARGUMENT, &m, "foot_radius");

	kl_meshgen_torus_knot_params knot = kl_meshgen_default_torus_knot_params();
	knot.q = 4;
	expect_failure(kl_meshgen_torus_knot(&knot, &m), KL_ERR_INVALID_ARGUMENT, &m, "coprime");
	knot = kl_meshgen_default_torus_knot_params();
	knot.tube_radius = 0.05f;
	expect_failure(kl_meshgen_torus_knot(&knot, &m), KL_ERR_INVALID_ARGUMENT, &m, "touch");
	knot = kl_meshgen_default_torus_knot_params();
	knot.segments = 1 << 16;
	knot.sides = 1024;
	expect_failure(kl_meshgen_torus_knot(&knot, &m), KL_ERR_LIMIT, &m, "limit");

	kl_meshgen_rock_params rock = kl_meshgen_default_rock_params();
	rock.amplitude = 1.0f; // the radius could reach zero
	expect_failure(kl_meshgen_rock(&rock, &m), KL_ERR_INVALID_ARGUMENT, &m, "amplitude");
	rock = kl_meshgen_default_rock_params();
	rock.frequency = 0;
	expect_failure(kl_meshgen_rock(&rock, &m), KL_ERR_INVALID_ARGUMENT, &m, "frequency");
	rock = kl_meshgen_default_rock_params();
	rock.scale.y = -1.0f;
	expect_failure(kl_meshgen_rock(&rock, &m), KL_ERR_INVALID_ARGUMENT, &m, "scale.y");

	kl_meshgen_screwdriver_params screwdriver = kl_meshgen_default_screwdriver_params();
	screwdriver.shaft_radius = 0.01f; // thicker than a quarter of the handle
	expect_failure(kl_meshgen_screwdriver(&screwdriver, &m), KL_ERR_INVALID_ARGUMENT, &m, "shaft_radius");
	screwdriver = kl_meshgen_default_screwdriver_params();
	screwdriver.length = NAN;
	expect_failure(kl_meshgen_screwdriver(&screwdriver, &m), KL_ERR_INVALID_ARGUMENT, &m, "length");
	screwdriver = kl_meshgen_default_screwdriver_params();
	screwdriver.tip_length = 0.08f; // more than half the shaft
	expect_failure(kl_meshgen_screwdriver(&screwdriver, &m), KL_ERR_INVALID_ARGUMENT, &m, "tip_length");
	screwdriver = kl_meshgen_default_screwdriver_params();
	screwdriver.resolution = 0;
	expect_failure(kl_meshgen_screwdriver(&screwdriver, &m), KL_ERR_INVALID_ARGUMENT, &m, "resolution");
	expect_failure(kl_meshgen_screwdriver(NULL, &m), KL_ERR_INVALID_ARGUMENT, &m, "NULL");
	assert_int_equal(kl_meshgen_screwdriver(&screwdriver, NULL), KL_ERR_INVALID_ARGUMENT);

	kl_meshgen_housing_params housing = kl_meshgen_default_housing_params();
	housing.bore_radius = housing.boss_radius; // no end face left
	expect_failure(kl_meshgen_housing(&housing, &m), KL_ERR_INVALID_ARGUMENT, &m, "bore_radius");
	housing = kl_meshgen_default_housing_params();
	housing.corner_radius = housing.fillet_radius; // the floor's corners would vanish
	expect_failure(kl_meshgen_housing(&housing, &m), KL_ERR_INVALID_ARGUMENT, &m, "corner_radius");
	housing = kl_meshgen_default_housing_params();
	housing.boss_radius = 0.06f; // its block is taller than the wall
	expect_failure(kl_meshgen_housing(&housing, &m), KL_ERR_INVALID_ARGUMENT, &m, "wall height");
	housing = kl_meshgen_default_housing_params();
	housing.size_y = 0.1f; // side bosses wider than the short walls' straight part
	expect_failure(kl_meshgen_housing(&housing, &m), KL_ERR_INVALID_ARGUMENT, &m, "side_boss_radius");
	housing = kl_meshgen_default_housing_params();
	housing.side_boss_radius = 0.001f; // thinner than the wall (0 would mean none)
	expect_failure(kl_meshgen_housing(&housing, &m), KL_ERR_INVALID_ARGUMENT, &m, "side_boss_radius");
	housing = kl_meshgen_default_housing_params();
	housing.size_x = housing.size_y = housing.height = 100.0f;
	housing.wall = 0.1f;
	housing.fillet_radius = 0.2f;
	housing.corner_radius = 0.3f;
	housing.boss_radius = 0.2f;
	housing.bore_radius = 0.1f;
	housing.side_boss_radius = 0.0f;
	housing.resolution = 64; // a 4 mm grid on 100 m walls
	expect_failure(kl_meshgen_housing(&housing, &m), KL_ERR_LIMIT, &m, "limit");
	expect_failure(kl_meshgen_housing(NULL, &m), KL_ERR_INVALID_ARGUMENT, &m, "NULL");

	kl_meshgen_robot_arm_params arm = kl_meshgen_default_robot_arm_params();
	arm.scale = -1.0f;
	expect_failure(kl_meshgen_robot_arm(&arm, &m), KL_ERR_INVALID_ARGUMENT, &m, "scale");
	arm = kl_meshgen_default_robot_arm_params();
	arm.resolution = 65;
	expect_failure(kl_meshgen_robot_arm(&arm, &m), KL_ERR_INVALID_ARGUMENT, &m, "resolution");
	expect_failure(kl_meshgen_robot_arm(NULL, &m), KL_ERR_INVALID_ARGUMENT, &m, "NULL");

	// A success clears the message.
	assert_int_equal(kl_meshgen_rock(&(kl_meshgen_rock_params){.frequency = 2,
																.radius = 1.0f,
																.scale = {{1.0f, 1.0f, 1.0f}},
																.amplitude = 0.1f,
																.roughness = 1.0f,
																.octaves = 1},
									 &m),
					 KL_OK);
	assert_string_equal(kl_meshgen_last_error(), "");
	kl_meshgen_free(&m);
}

// ---------------------------------------------------------------------------------------------
// Gears

typedef struct outline
{
	float* xy;
	int count;
} outline;

static outline gear_outline(const kl_meshgen_gear_params* p)
{
	outline o;
	o.count = kl_meshgen_gear_outline(p, NULL, 0);
	assert_true(o.count > 0);
	o.xy = malloc((size_t)o.count * 2 * sizeof(float));
	assert_int_equal(kl_meshgen_gear_outline(p, o.xy, o.count), o.count);
	return o;
}

static void test_gear_pitch_and_teeth(void** state)
{
	(void)state;
	const int teeth[3] = {14, 9, 40};
	const int resolution[3] = {1, 3, 2};
	for (int g = 0; g < 3; ++g)
	{
		kl_meshgen_gear_params p = kl_meshgen_default_gear_params();
		p.tooth_count = teeth[g];
		p.resolution = resolution[g];
		p.bore_radius = 0.0f;
		double rp = 0.5 * p.module * p.tooth_count;
		assert_near(kl_meshgen_gear_pitch_radius(&p), rp, 1e-7);
		outline o = gear_outline(&p);
		assert_int_equal(o.count, 4 * p.resolution * p.tooth_count);
		// Teeth: runs of outline points beyond the pitch circle. Radii stay between root and tip.
		int runs = 0;
		double rmin = INFINITY, rmax = 0.0, last_angle = -INFINITY;
		for (int i = 0; i < o.count; ++i)
		{
			double r = hypot(o.xy[2 * i], o.xy[2 * i + 1]);
			int prev = (i + o.count - 1) % o.count;
			bool out = r > rp, was_out = hypot(o.xy[2 * prev], o.xy[2 * prev + 1]) > rp;
			runs += out && !was_out ? 1 : 0;
			rmin = fmin(rmin, r);
			rmax = fmax(rmax, r);
			// Polar angles strictly increase (unwrapped from the first point).
			double a = atan2(o.xy[2 * i + 1], o.xy[2 * i]);
			a += a < atan2(o.xy[1], o.xy[0]) - 1e-9 ? 2.0 * PI : 0.0;
			assert_true(a > last_angle);
			last_angle = a;
		}
		assert_int_equal(runs, p.tooth_count);
		assert_near(rmax, rp + p.module, 1e-5);
		assert_true(rmin <= rp - 1.25 * p.module + 1e-5);
		assert_true(rmin >= (rp - 1.25 * p.module) * cos(PI / p.tooth_count) - 1e-5);
		free(o.xy);
	}
}

// Rotates the outline by angle and moves it by (dx, 0).
static void place_outline(const outline* src, double angle, double dx, double* out)
{
	double c = cos(angle), s = sin(angle);
	for (int i = 0; i < src->count; ++i)
	{
		double x = src->xy[2 * i], y = src->xy[2 * i + 1];
		out[2 * i] = c * x - s * y + dx;
		out[2 * i + 1] = s * x + c * y;
	}
}

static double segment_point_distance(const double* a, const double* b, const double* p)
{
	double ex = b[0] - a[0], ey = b[1] - a[1];
	double t = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey);
	t = fmin(1.0, fmax(0.0, t));
	return hypot(a[0] + t * ex - p[0], a[1] + t * ey - p[1]);
}

static bool segments_cross(const double* a, const double* b, const double* c, const double* d)
{
	double d1 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
	double d2 = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);
	double d3 = (d[0] - c[0]) * (a[1] - c[1]) - (d[1] - c[1]) * (a[0] - c[0]);
	double d4 = (d[0] - c[0]) * (b[1] - c[1]) - (d[1] - c[1]) * (b[0] - c[0]);
	return d1 * d2 < 0.0 && d3 * d4 < 0.0;
}

/// Smallest gap between two placed outlines, negative if their edges cross.
static double outline_gap(const double* a, int na, const double* b, int nb)
{
	double gap = INFINITY;
	for (int i = 0; i < na; ++i)
	{
		const double* a0 = a + 2 * i;
		const double* a1 = a + 2 * ((i + 1) % na);
		for (int j = 0; j < nb; ++j)
		{
			const double* b0 = b + 2 * j;
			const double* b1 = b + 2 * ((j + 1) % nb);
			if (segments_cross(a0, a1, b0, b1))
			{
				return -1.0;
			}
			gap = fmin(gap, fmin(segment_point_distance(a0, a1, b0), segment_point_distance(b0, b1, a0)));
		}
	}
	return gap;
}

// Turns gear a through one tooth pitch in steps, b following; returns the smallest gap (negative on
// any overlap). extra: additional rotation of b (half a tooth puts tooth on tooth).
static double mesh_gap(const kl_meshgen_gear_params* pa, const kl_meshgen_gear_params* pb, double extra)
{
	outline a = gear_outline(pa), b = gear_outline(pb);
	double* pa_xy = malloc((size_t)a.count * 2 * sizeof(double));
	double* pb_xy = malloc((size_t)b.count * 2 * sizeof(double));
	double d = kl_meshgen_gear_center_distance(pa, pb), mate = kl_meshgen_gear_mate_angle(pb);
	double worst = INFINITY;
	for (int step = 0; step < 48 && worst > 0.0; ++step)
	{
		double turn = 2.0 * PI / pa->tooth_count * step / 48.0;
		place_outline(&a, turn, 0.0, pa_xy);
		place_outline(&b, mate - turn * pa->tooth_count / pb->tooth_count + extra, d, pb_xy);
		worst = fmin(worst, outline_gap(pa_xy, a.count, pb_xy, b.count));
	}
	free(pa_xy);
	free(pb_xy);
	free(a.xy);
	free(b.xy);
	return worst;
}

static void test_gears_mesh(void** state)
{
	(void)state;
	kl_meshgen_gear_params a = kl_meshgen_default_gear_params(), b = kl_meshgen_default_gear_params();
	double gap = mesh_gap(&a, &b, 0.0);
	print_message("default pair: smallest gap %.3g mm over one tooth pitch\n", 1e3 * gap);
	assert_true(gap > 0.0);
	assert_true(gap < a.module); // the teeth interlock rather than clear each other by far
	// Half a tooth off, tooth meets tooth: the check can fail.
	assert_true(mesh_gap(&a, &b, PI / b.tooth_count) < 0.0);
	// With fine involute flanks the gap comes down to about the backlash (2 × 0.5 mm along the pitch
	// circle, shared by both flanks, times cos 20° along the line of action).
	a.resolution = b.resolution = 6;
	gap = mesh_gap(&a, &b, 0.0);
	print_message("default pair at resolution 6: smallest gap %.3g mm\n", 1e3 * gap);
	assert_true(gap > 0.0);
	assert_true(gap < 2.0 * a.backlash);
	// Different tooth counts and resolutions with the same module mesh too.
	b.tooth_count = 23;
	b.resolution = 3;
	a.resolution = 2;
	gap = mesh_gap(&a, &b, 0.0);
	print_message("14 x 23 teeth: smallest gap %.3g mm\n", 1e3 * gap);
	assert_true(gap > 0.0);
	// Without backlash there is still no overlap (the chords lie inside the involute teeth).
	a.backlash = b.backlash = 0.0f;
	assert_true(mesh_gap(&a, &b, 0.0) >= 0.0);
}

// ---------------------------------------------------------------------------------------------
// Screw in a bore

static void test_screw_fits_bore(void** state)
{
	(void)state;
	kl_meshgen_screw_params sp = kl_meshgen_default_screw_params();
	kl_meshgen_mesh screw, plain, nut;
	assert_int_equal(kl_meshgen_screw(&sp, &screw), KL_OK);
	kl_meshgen_bearing_block_params bp = kl_meshgen_bearing_block_for_screw(&sp, false);
	assert_int_equal(kl_meshgen_bearing_block(&bp, &plain), KL_OK);
	bp.threaded = true;
	assert_int_equal(kl_meshgen_bearing_block(&bp, &nut), KL_OK);
	check_closed(&nut, "nut for the screw");

	// Nominal placement: the block in the middle of the shaft, a whole number of pitches up.
	double lift = floor(0.5 * sp.length / sp.pitch + 0.5) * sp.pitch;
	vec3s down = v3(0.0, 0.0, -lift); // screw into the block's frame
	double z_lo = -0.5 * bp.height - 0.005, z_hi = 0.5 * bp.height + 0.005;
	separation s = separate(&screw, down, &plain, z_lo, z_hi);
	print_message("plain bore: %d samples, min gap %.3g mm, %d inside\n", s.samples, 1e3 * s.min_distance, s.inside);
	assert_true(s.samples > 500);
	assert_int_equal(s.inside, 0);
	assert_true(s.min_distance > 0.9 * bp.bore_radius - sp.major_radius);

	s = separate(&screw, down, &nut, z_lo, z_hi);
	print_message("threaded bore: %d samples, min gap %.3g mm, %d inside\n", s.samples, 1e3 * s.min_distance, s.inside);
	assert_true(s.samples > 500);
	assert_int_equal(s.inside, 0);
	assert_true(s.min_distance > 0.3 * bp.clearance);

	// Half a pitch off, the threads collide: the check can fail.
	s = separate(&screw, v3(0.0, 0.0, -lift + 0.5 * sp.pitch), &nut, z_lo, z_hi);
	assert_true(s.inside > 0);

	kl_meshgen_free(&screw);
	kl_meshgen_free(&plain);
	kl_meshgen_free(&nut);
}

// ---------------------------------------------------------------------------------------------
// Bowls nest

static void test_bowls_nest(void** state)
{
	(void)state;
	kl_meshgen_bowl_params p = kl_meshgen_default_bowl_params();
	kl_meshgen_mesh bowl;
	assert_int_equal(kl_meshgen_bowl(&p, &bowl), KL_OK);
	double spacing = kl_meshgen_bowl_stack_spacing(&p);
	assert_true(spacing > 0.0 && spacing < p.radius);
	separation s = separate(&bowl, v3(0.0, 0.0, spacing), &bowl, -INFINITY, INFINITY);
	print_message("stacked bowls %.3g mm apart: %d samples, min gap %.3g mm, %d inside\n", 1e3 * spacing, s.samples,
				  1e3 * s.min_distance, s.inside);
	assert_int_equal(s.samples, 2 * (bowl.vertex_count + bowl.triangle_count));
	assert_int_equal(s.inside, 0);
	assert_true(s.min_distance > 0.05 * p.thickness);
	// Two thirds of the spacing and they intersect: the check can fail.
	s = separate(&bowl, v3(0.0, 0.0, 0.66 * spacing), &bowl, -INFINITY, INFINITY);
	assert_true(s.inside > 0);
	kl_meshgen_free(&bowl);
}

// ---------------------------------------------------------------------------------------------
// Stand-ins for the objects of Aichele's experiments

/// V - E + F of a closed triangle mesh (E = 3F / 2): 2 per genus-0 shell, minus 2 per handle.
static int euler_characteristic(const kl_meshgen_mesh* m)
{
	return m->vertex_count - m->triangle_count / 2;
}

static void assert_about(int triangles, int target, const char* what)
{
	print_message("%s: %d triangles (target about %d)\n", what, triangles, target);
	if (triangles < 0.85 * target || triangles > 1.15 * target)
	{
		fail_msg("%s: %d triangles, not within 15 %% of %d", what, triangles, target);
	}
}

static int find_root(int* parent, int i)
{
	while (parent[i] != i)
	{
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/// Splits the mesh into its connected shells; writes each vertex's shell (0 ..) and returns the count.
static int shells(const kl_meshgen_mesh* m, int* shell)
{
	int* parent = malloc((size_t)m->vertex_count * sizeof(int));
	for (int i = 0; i < m->vertex_count; ++i)
	{
		parent[i] = i;
	}
	for (int t = 0; t < 3 * m->triangle_count; ++t)
	{
		int a = find_root(parent, m->indices[t]), b = find_root(parent, m->indices[t - t % 3]);
		parent[a] = b;
	}
	int count = 0;
	for (int i = 0; i < m->vertex_count; ++i)
	{
		shell[i] = -1;
	}
	for (int i = 0; i < m->vertex_count; ++i)
	{
		int r = find_root(parent, i);
		shell[r] = shell[r] < 0 ? count++ : shell[r];
		shell[i] = shell[r];
	}
	free(parent);
	return count;
}

static void test_standins(void** state)
{
	(void)state;
	kl_meshgen_mesh m;
	// E1: the torus knot as documented in meshgen.h.
	kl_meshgen_torus_knot_params knot = kl_meshgen_default_torus_knot_params();
	knot.segments = 64;
	knot.sides = 6;
	assert_int_equal(kl_meshgen_torus_knot(&knot, &m), KL_OK);
	assert_int_equal(m.triangle_count, 768);
	assert_about(m.triangle_count, 750, "torus knot 64 x 6");
	check_closed(&m, "torus knot 64 x 6");
	kl_meshgen_free(&m);

	// E3 screwdriver: about 1300 triangles, 0.2 m, one genus-0 shell, the blade thin at its end.
	kl_meshgen_screwdriver_params sd = kl_meshgen_default_screwdriver_params();
	assert_int_equal(kl_meshgen_screwdriver(&sd, &m), KL_OK);
	assert_about(m.triangle_count, 1300, "screwdriver");
	kl_mesh_info info = check_closed(&m, "screwdriver");
	assert_int_equal(euler_characteristic(&m), 2);
	assert_near(info.bounds.lower.z, 0.0, 1e-7);
	assert_near(info.bounds.upper.z, sd.length, 1e-6);
	assert_near(info.bounds.upper.x, sd.handle_radius, 1e-6); // rib 0 on +x
	double blade = 0.0;
	for (int i = 0; i < m.vertex_count; ++i)
	{
		blade = m.vertices[i].z == sd.length ? fmax(blade, fabs(m.vertices[i].y)) : blade;
	}
	assert_near(blade, 0.5 * sd.tip_thickness, 1e-6);
	// Between the shaft and a cylinder of the handle's radius over the handle.
	double shaft = PI * sd.shaft_radius * sd.shaft_radius * (sd.length - sd.handle_length);
	double handle = PI * sd.handle_radius * sd.handle_radius * sd.handle_length;
	assert_true(info.volume > 0.6 * handle && info.volume < handle + 2.0 * shaft);
	kl_meshgen_free(&m);

	// E3 crankcase: about 4500 triangles, 0.3 m, genus 4 (four bores into the cavity), non-convex.
	kl_meshgen_housing_params h = kl_meshgen_default_housing_params();
	assert_int_equal(kl_meshgen_housing(&h, &m), KL_OK);
	assert_about(m.triangle_count, 4500, "housing");
	info = check_closed(&m, "housing");
	assert_int_equal(euler_characteristic(&m), 2 - 2 * 4);
	assert_near(info.bounds.upper.x - info.bounds.lower.x, h.size_x + 2.0 * h.boss_height, 1e-6);
	assert_near(info.bounds.upper.y - info.bounds.lower.y, h.size_y + 2.0 * h.boss_height, 1e-6);
	assert_near(info.bounds.upper.z, h.height, 1e-6);
	double z_boss = 0.5 * (h.fillet_radius + h.height - h.flange_height);
	double wall_y = 0.5 * h.size_y - 0.5 * h.wall;
	assert_true(winding_number(&m, v3(0.1, wall_y, z_boss)) > 0.99);				 // in the wall
	assert_true(winding_number(&m, v3(0.0, 0.0, 0.5 * h.height)) < 0.01);			 // the cavity
	assert_true(winding_number(&m, v3(0.0, wall_y, z_boss)) < 0.01);				 // the bore
	assert_true(winding_number(&m, v3(0.0, wall_y + 0.5 * h.boss_height, z_boss + 0.5 * (h.boss_radius + h.bore_radius))) >
				0.99); // the boss around it
	assert_true(winding_number(&m, v3(0.5 * h.size_x - 0.5 * h.wall, 0.0, z_boss)) < 0.01); // a side bore
	// Less than the box, more than its walls and floor alone.
	double outside = (double)h.size_x * h.size_y * h.height;
	double walls = 2.0 * ((double)h.size_x + h.size_y) * (h.height - 4.0 * h.fillet_radius) * h.wall;
	assert_true(info.volume > walls && info.volume < 0.3 * outside);
	kl_meshgen_free(&m);
	h.side_boss_radius = 0.0f;
	assert_int_equal(kl_meshgen_housing(&h, &m), KL_OK);
	assert_int_equal(euler_characteristic(&m), 2 - 2 * 2);
	kl_meshgen_free(&m);

	// E4 robot arm: about 10,000 triangles in 11 disjoint genus-0 shells whose bounding boxes keep
	// 10 mm × scale apart, so the shells cannot touch.
	kl_meshgen_robot_arm_params arm = kl_meshgen_default_robot_arm_params();
	for (int pass = 0; pass < 2; ++pass)
	{
		arm.scale = pass == 0 ? 1.0f : 0.5f;
		assert_int_equal(kl_meshgen_robot_arm(&arm, &m), KL_OK);
		assert_about(m.triangle_count, 10000, "robot arm");
		info = check_closed(&m, "robot arm");
		assert_int_equal(euler_characteristic(&m), 2 * 11);
		assert_true(info.bounds.upper.z > 0.9 * arm.scale && info.bounds.upper.x > 0.85 * arm.scale);
		int* shell = malloc((size_t)m.vertex_count * sizeof(int));
		assert_int_equal(shells(&m, shell), 11);
		kl_aabb box[11];
		for (int k = 0; k < 11; ++k)
		{
			box[k].lower = v3(INFINITY, INFINITY, INFINITY);
			box[k].upper = v3(-INFINITY, -INFINITY, -INFINITY);
		}
		for (int i = 0; i < m.vertex_count; ++i)
		{
			kl_aabb* b = &box[shell[i]];
			for (int c = 0; c < 3; ++c)
			{
				b->lower.raw[c] = fminf(b->lower.raw[c], m.vertices[i].raw[c]);
				b->upper.raw[c] = fmaxf(b->upper.raw[c], m.vertices[i].raw[c]);
			}
		}
		for (int a = 0; a < 11; ++a)
		{
			for (int b = a + 1; b < 11; ++b)
			{
				double gap = -INFINITY; // the widest separation along an axis
				for (int c = 0; c < 3; ++c)
				{
					gap = fmax(gap, fmax(box[a].lower.raw[c] - box[b].upper.raw[c], box[b].lower.raw[c] - box[a].upper.raw[c]));
				}
				if (gap < 0.0099 * arm.scale)
				{
					fail_msg("robot arm parts %d and %d: bounding boxes %.4g m apart", a, b, gap);
				}
			}
		}
		free(shell);
		kl_meshgen_free(&m);
	}
}

// ---------------------------------------------------------------------------------------------
// Files

static void test_files(void** state)
{
	(void)state;
	kl_meshgen_mesh m;
	kl_meshgen_bowl_params bowl = kl_meshgen_default_bowl_params();
	assert_int_equal(kl_meshgen_bowl(&bowl, &m), KL_OK);
	const char* names[2] = {KL_TEST_OUT_DIR "/meshgen_bowl.obj", KL_TEST_OUT_DIR "/meshgen_bowl.off"};
	for (int f = 0; f < 2; ++f)
	{
		assert_int_equal(kl_meshgen_write(&m, names[f]), KL_OK);
		kl_mesh_data data;
		assert_int_equal(kl_mesh_data_load(names[f], &data), KL_OK);
		assert_int_equal(data.vertex_count, m.vertex_count);
		assert_int_equal(data.triangle_count, m.triangle_count);
		// 9 significant digits bring back the same floats.
		assert_memory_equal(data.vertices, m.vertices, (size_t)m.vertex_count * sizeof(vec3s));
		assert_memory_equal(data.indices, m.indices, (size_t)m.triangle_count * 3 * sizeof(int32_t));
		kl_mesh_data_free(&data);
	}
	assert_int_equal(kl_meshgen_write(&m, KL_TEST_OUT_DIR "/meshgen_bowl.stl"), KL_ERR_INVALID_ARGUMENT);
	assert_int_equal(kl_meshgen_write(&m, KL_TEST_OUT_DIR "/no/such/dir/bowl.obj"), KL_ERR_IO);
	assert_non_null(strstr(kl_meshgen_last_error(), "no/such/dir"));
	assert_int_equal(kl_meshgen_write(NULL, names[0]), KL_ERR_INVALID_ARGUMENT);
	kl_meshgen_free(&m);

	// The committed assets are closed meshes made by this generator with default parameters
	// (regenerate them with kollide-meshgen when the defaults change).
	const char* assets[4] = {KL_ASSETS_DIR "/meshes/gear.obj", KL_ASSETS_DIR "/meshes/bowl.obj",
							 KL_ASSETS_DIR "/meshes/screw.obj", KL_ASSETS_DIR "/meshes/nut.obj"};
	kl_meshgen_mesh fresh[4];
	kl_meshgen_gear_params gear = kl_meshgen_default_gear_params();
	kl_meshgen_screw_params screw = kl_meshgen_default_screw_params();
	kl_meshgen_bearing_block_params nut = kl_meshgen_bearing_block_for_screw(&screw, true);
	assert_int_equal(kl_meshgen_gear(&gear, &fresh[0]), KL_OK);
	assert_int_equal(kl_meshgen_bowl(&bowl, &fresh[1]), KL_OK);
	assert_int_equal(kl_meshgen_screw(&screw, &fresh[2]), KL_OK);
	assert_int_equal(kl_meshgen_bearing_block(&nut, &fresh[3]), KL_OK);
	for (int f = 0; f < 4; ++f)
	{
		kl_mesh_data data;
		assert_int_equal(kl_mesh_data_load(assets[f], &data), KL_OK);
		if (data.vertex_count != fresh[f].vertex_count || data.triangle_count != fresh[f].triangle_count ||
			memcmp(data.vertices, fresh[f].vertices, (size_t)data.vertex_count * sizeof(vec3s)) != 0)
		{
			fail_msg("%s is stale: regenerate it with kollide-meshgen", assets[f]);
		}
		kl_mesh_data_free(&data);
		kl_meshgen_free(&fresh[f]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_closed),	 cmocka_unit_test(test_sizes_and_volumes),
		cmocka_unit_test(test_determinism),	 cmocka_unit_test(test_validation),
		cmocka_unit_test(test_gear_pitch_and_teeth), cmocka_unit_test(test_gears_mesh),
		cmocka_unit_test(test_screw_fits_bore), cmocka_unit_test(test_bowls_nest),
		cmocka_unit_test(test_standins),	 cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
