// Kollide — procedural test meshes: gears, a screw and a bearing block (nut), a bowl, a torus knot, a rock,
// and stand-ins for the objects of Aichele's experiments (a screwdriver, a housing, a robot arm).
// SPDX-License-Identifier: MIT
//
// Every generator returns a closed, two-manifold triangle mesh with outward (counter-clockwise)
// triangles and no degenerate triangle, so that kl_mesh_build reports it closed with exact volume
// mass. The meshes are made here rather than downloaded so that tests and benchmarks (E2 gears, mesh
// against mesh contact) can rebuild them at any size. Units are metres, z is up. Same parameters give
// bit-identical arrays.
#pragma once

#include <kollide/kollide.h>

KL_C_BEGIN

/// An indexed triangle mesh in plain arrays (3 indices per triangle). Free with kl_meshgen_free.
typedef struct kl_meshgen_mesh
{
	vec3s* vertices;
	int vertex_count;
	int32_t* indices;
	int triangle_count;
} kl_meshgen_mesh;

/// Frees the arrays and zeroes the struct. NULL and an already freed mesh are ignored.
void kl_meshgen_free(kl_meshgen_mesh* mesh);

/// The message of this thread's last failed kl_meshgen_ call ("" if none). The engine's own
/// kl_last_error is not touched: meshgen is a client of the public API.
const char* kl_meshgen_last_error(void);

/// Largest triangle count a generator accepts to produce.
#define KL_MESHGEN_MAX_TRIANGLES (1 << 24)

// ---------------------------------------------------------------------------------------------
// Gear: a spur gear, axis z, faces at z = ±face_width / 2, tooth 0 centred on +x.

typedef struct kl_meshgen_gear_params
{
	int tooth_count;	  ///< 14; at least 6
	float module;		  ///< 0.01 m: pitch diameter / tooth count; gears mesh when their modules match
	float pressure_angle; ///< 20° (radians)
	float face_width;	  ///< 0.02 m
	float bore_radius;	  ///< 0.015 m; 0 for a solid gear (a bore makes the mesh genus 1)
	float backlash;		  ///< 0.0005 m: tooth thinning along the pitch circle, so mated teeth never touch
	/// Segments per involute flank, per tip and per root arc (4 × resolution vertices per tooth
	/// outline). 1 gives trapezoid teeth: 32 × teeth triangles with a bore (448 by default, within
	/// the 300–500 of the E2 benchmark), 16 × teeth without. Triangles scale with resolution.
	int resolution;
} kl_meshgen_gear_params;

kl_meshgen_gear_params kl_meshgen_default_gear_params(void);
/// module × tooth_count / 2.
float kl_meshgen_gear_pitch_radius(const kl_meshgen_gear_params* params);
/// Distance between the axes of two gears that mesh: the sum of the pitch radii.
float kl_meshgen_gear_center_distance(const kl_meshgen_gear_params* a, const kl_meshgen_gear_params* b);
/// Rotation about z that gear b needs when its axis is at +x of gear a's at the centre distance
/// (both unrotated) so that its teeth fall into a's gaps. Turning a by t then turns b by
/// -t * a.tooth_count / b.tooth_count.
float kl_meshgen_gear_mate_angle(const kl_meshgen_gear_params* b);
/// The tooth outline in the xy plane: counter-clockwise, strictly increasing polar angle, 2 floats
/// per point. Writes at most capacity points; returns the point count (4 × resolution × teeth), or
/// -1 for bad parameters.
int kl_meshgen_gear_outline(const kl_meshgen_gear_params* params, float* xy, int capacity);
kl_result kl_meshgen_gear(const kl_meshgen_gear_params* params, kl_meshgen_mesh* out);

// ---------------------------------------------------------------------------------------------
// Screw and bearing block. The thread is a right-handed helix whose trapezoid profile (root, flank,
// crest, flank, a quarter pitch each) is a function of z / pitch - angle / 2π, so a threaded block
// built with the same pitch and radii fits a screw shifted along z by any whole number of pitches.

typedef struct kl_meshgen_screw_params
{
	float pitch;			///< 0.01 m, axial advance per turn
	float major_radius;		///< 0.02 m, thread crest
	float minor_radius;		///< 0.015 m, thread root
	float length;			///< 0.12 m, threaded shaft from z = 0 up to z = length
	float head_radius;		///< 0.035 m, circumradius of the head (below z = 0)
	float head_height;		///< 0.015 m
	int head_sides;			///< 6 (hexagon); 0 for a round head
	int segments_per_turn;	///< 24; at least 8
} kl_meshgen_screw_params;

kl_meshgen_screw_params kl_meshgen_default_screw_params(void);
kl_result kl_meshgen_screw(const kl_meshgen_screw_params* params, kl_meshgen_mesh* out);

/// A box (size_x × size_y × height, centred at the origin) with a bore along z through it. Plain
/// bore: a cylinder of bore_radius. Threaded (a nut): the screw's thread surface pushed out radially
/// by clearance; bore_radius is then ignored.
typedef struct kl_meshgen_bearing_block_params
{
	float size_x;		///< 0.08 m
	float size_y;		///< 0.08 m
	float height;		///< 0.04 m
	float bore_radius;	///< 0.022 m: fits the default screw with 2 mm radial clearance
	bool threaded;		///< false
	float pitch;		///< thread, as in kl_meshgen_screw_params (defaults match the default screw)
	float major_radius;
	float minor_radius;
	float clearance;	///< 0.001 m, radial gap between screw and threaded bore
	int segments;		///< 32, around the bore; at least 8
} kl_meshgen_bearing_block_params;

kl_meshgen_bearing_block_params kl_meshgen_default_bearing_block_params(void);
/// Defaults with the thread (threaded) or a bore of major_radius + 2 × clearance (plain) fitted to a screw.
kl_meshgen_bearing_block_params kl_meshgen_bearing_block_for_screw(const kl_meshgen_screw_params* screw,
																	bool threaded);
kl_result kl_meshgen_bearing_block(const kl_meshgen_bearing_block_params* params, kl_meshgen_mesh* out);

// ---------------------------------------------------------------------------------------------
// Bowl: a thick hemispherical shell opening up (+z), rim top at z = 0, with an outward lip and a
// small flat foot. Identical bowls nest when stacked kl_meshgen_bowl_stack_spacing apart along z.

typedef struct kl_meshgen_bowl_params
{
	float radius;		 ///< 0.1 m, outer sphere
	float thickness;	 ///< 0.01 m, wall
	float rim_width;	 ///< 0.01 m, lip beyond the outer sphere
	float rim_height;	 ///< 0.005 m, lip thickness (z from -rim_height to 0)
	float foot_radius;	 ///< 0.025 m, flat bottom disc; 0 for a round bottom
	int segments;		 ///< 32 around z; at least 8
	int rings;			 ///< 8 per quarter circle of the wall; at least 2
} kl_meshgen_bowl_params;

kl_meshgen_bowl_params kl_meshgen_default_bowl_params(void);
/// Vertical offset at which a copy of the bowl rests nested inside it with a small gap
/// (sqrt(R_outer² - R_inner²) plus a margin of a quarter of the thickness).
float kl_meshgen_bowl_stack_spacing(const kl_meshgen_bowl_params* params);
kl_result kl_meshgen_bowl(const kl_meshgen_bowl_params* params, kl_meshgen_mesh* out);

// ---------------------------------------------------------------------------------------------
// Torus knot: a tube around ((R + r cos qt) cos pt, (R + r cos qt) sin pt, r sin qt).

typedef struct kl_meshgen_torus_knot_params
{
	int p;				 ///< 2, turns around the z axis
	int q;				 ///< 3, turns through the hole; p and q coprime
	float major_radius;	 ///< 0.1 m (R)
	float minor_radius;	 ///< 0.04 m (r)
	float tube_radius;	 ///< 0.015 m; must not make the tube touch itself
	int segments;		 ///< 192 along the curve; at least 16
	int sides;			 ///< 12 around the tube; at least 3
} kl_meshgen_torus_knot_params;

/// For the E1 pair of Aichele's experiments (about 1500 triangles for two objects, 750 each),
/// segments 64 and sides 6 with the other defaults give 2 × 64 × 6 = 768 triangles; 48 and 8 give
/// 768 too, with a rounder tube.
kl_meshgen_torus_knot_params kl_meshgen_default_torus_knot_params(void);
kl_result kl_meshgen_torus_knot(const kl_meshgen_torus_knot_params* params, kl_meshgen_mesh* out);

// ---------------------------------------------------------------------------------------------
// Rock: a geodesic icosphere (20 × frequency² triangles) whose radius is displaced by seeded fractal
// value noise, then scaled per axis. Radial displacement keeps every triangle facing out.

typedef struct kl_meshgen_rock_params
{
	int frequency;	  ///< 50 (50,000 triangles); each icosahedron edge is cut into this many
	float radius;	  ///< 0.1 m before scaling
	vec3s scale;	  ///< (1, 0.8, 0.65)
	float amplitude;  ///< 0.25: radius varies by at most this fraction; below 1
	float roughness;  ///< 1.5: spatial frequency of the first noise octave on the unit sphere
	int octaves;	  ///< 5; 1 to 12
	uint32_t seed;	  ///< 1
} kl_meshgen_rock_params;

kl_meshgen_rock_params kl_meshgen_default_rock_params(void);
kl_result kl_meshgen_rock(const kl_meshgen_rock_params* params, kl_meshgen_mesh* out);

// ---------------------------------------------------------------------------------------------
// Stand-ins for the objects of Aichele's experiments (seed-004 §6.2): sizes and triangle counts of the
// screwdrivers and crankcase of E3 and the robot arm of E4, not their exact shapes.

/// Screwdriver along z from the handle's flat end (z = 0) to the blade (z = length): a lathe-turned
/// handle with rib_count ribs and flutes between them, a ferrule, a round shaft, and a tip flattened
/// by two planes to tip_thickness at the end. One closed genus-0 shell. Defaults: 1296 triangles
/// (E3: about 1300), 0.2 m long. Triangles grow with resolution².
typedef struct kl_meshgen_screwdriver_params
{
	float length;		  ///< 0.2 m, handle end to blade end
	float handle_length;  ///< 0.1 m; 0.1 to 0.8 × length
	float handle_radius;  ///< 0.015 m, over the ribs
	int rib_count;		  ///< 6; 0 for a smooth handle; at most 64
	float rib_depth;	  ///< 0.002 m, flute depth between the ribs; at most 0.3 × handle_radius
	float shaft_radius;	  ///< 0.003 m; at most 0.25 × handle_radius
	float tip_length;	  ///< 0.012 m, the flattened part; 0.02 to 0.5 × (length - handle_length)
	float tip_thickness;  ///< 0.0008 m, blade thickness at the end; 0.1 to 2 × shaft_radius
	/// 3; 1 to 64: 8 × resolution segments around the axis (rounded up to a multiple of rib_count),
	/// resolution segments per quarter turn of the rounded corners.
	int resolution;
} kl_meshgen_screwdriver_params;

kl_meshgen_screwdriver_params kl_meshgen_default_screwdriver_params(void);
kl_result kl_meshgen_screwdriver(const kl_meshgen_screwdriver_params* params, kl_meshgen_mesh* out);

/// Crankcase-like housing, centred on the z axis from z = 0 to height: an open-topped box with
/// rounded vertical edges, a filleted floor, walls of constant thickness and an outward flange at the
/// top; on each ±y wall a boss with a bore through boss and wall into the cavity (a crankshaft axis
/// along y), and on each ±x wall a smaller one, all at mid-height of the straight walls. One closed
/// shell of genus 4 (2 without side bosses), non-convex. Defaults: 4560 triangles (E3: about 4500),
/// 0.3 × 0.2 × 0.15 m, 0.33 × 0.23 m with the bosses.
typedef struct kl_meshgen_housing_params
{
	float size_x;			 ///< 0.3 m, outside of the walls
	float size_y;			 ///< 0.2 m
	float height;			 ///< 0.15 m
	float wall;				 ///< 0.008 m, wall and floor thickness
	float corner_radius;	 ///< 0.03 m, outside of the vertical edges; at least 1.25 × fillet_radius
	float fillet_radius;	 ///< 0.02 m, outside of the floor edge; at least 1.25 × wall
	float flange_width;		 ///< 0.012 m beyond the walls
	float flange_height;	 ///< 0.01 m
	float boss_radius;		 ///< 0.03 m, bosses on the ±y walls
	float bore_radius;		 ///< 0.02 m; 0.1 to 0.9 × boss_radius
	float boss_height;		 ///< 0.015 m beyond the wall (all bosses)
	float side_boss_radius;	 ///< 0.02 m, bosses on the ±x walls; 0 for none
	float side_bore_radius;	 ///< 0.012 m; 0.1 to 0.9 × side_boss_radius
	/// 3: the wall grid spacing is 1.25 × boss_radius / resolution, so the large bores have
	/// 8 × resolution segments; 1 to 64. Triangles grow with resolution².
	int resolution;
} kl_meshgen_housing_params;

kl_meshgen_housing_params kl_meshgen_default_housing_params(void);
kl_result kl_meshgen_housing(const kl_meshgen_housing_params* params, kl_meshgen_mesh* out);

/// Six-axis industrial robot arm in a fixed pose, base on z = 0, arm reaching along +x: base, turret
/// (axis 1), shoulder housing and motor (axis 2), upper arm, elbow housing and motor (axis 3), forearm
/// (axis 4), wrist housing (axis 5), wrist and flange (axis 6). Each part is its own closed lathe
/// shell; the 11 shells are disjoint (their bounding boxes lie at least 10 mm × scale apart), so the
/// mesh is closed and two-manifold without the parts having to be joined. Defaults: 10,048 triangles
/// (E4: about 10,000), 0.935 m high, reaching to x = 0.895 m.
typedef struct kl_meshgen_robot_arm_params
{
	float scale;	 ///< 1: multiplies every length
	int resolution;	 ///< 4: 8 × resolution segments around each part; 1 to 64. Triangles grow with resolution².
} kl_meshgen_robot_arm_params;

kl_meshgen_robot_arm_params kl_meshgen_default_robot_arm_params(void);
kl_result kl_meshgen_robot_arm(const kl_meshgen_robot_arm_params* params, kl_meshgen_mesh* out);

// ---------------------------------------------------------------------------------------------
// Files

/// Writes Wavefront OBJ (".obj") or OFF (".off"), chosen by the path's extension. Coordinates are
/// written with 9 significant digits, so a float read back is the float written.
kl_result kl_meshgen_write(const kl_meshgen_mesh* mesh, const char* path);

KL_C_END
