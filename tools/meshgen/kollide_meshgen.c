// Kollide — kollide-meshgen: writes a procedural test mesh (gear, screw, bearing block, bowl, torus
// knot, rock, screwdriver, housing, robot arm) as OBJ or OFF and reports whether the engine accepts it
// as a closed mesh.
// SPDX-License-Identifier: MIT
#include "meshgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MG_PI_F 3.14159265358979f

typedef enum option_type
{
	OPT_FLOAT,
	OPT_DEGREES, ///< a float field in radians, given in degrees
	OPT_INT,
	OPT_BOOL,
	OPT_UINT,
} option_type;

typedef struct option
{
	const char* name;
	option_type type;
	void* field;
} option;

enum { max_options = 16 };

typedef struct shape
{
	kl_meshgen_gear_params gear;
	kl_meshgen_screw_params screw;
	kl_meshgen_bearing_block_params block;
	kl_meshgen_bowl_params bowl;
	kl_meshgen_torus_knot_params knot;
	kl_meshgen_rock_params rock;
	kl_meshgen_screwdriver_params screwdriver;
	kl_meshgen_housing_params housing;
	kl_meshgen_robot_arm_params robot_arm;
} shape;

static void usage(FILE* f)
{
	fprintf(f, "usage: kollide-meshgen gear|screw|bearing_block|bowl|torus_knot|rock|screwdriver|housing|robot_arm\n"
			   "                       [--key value ...] -o FILE.obj|.off\n"
			   "  gear:          --tooth_count --module --pressure_angle_deg --face_width --bore_radius --backlash\n"
			   "                 --resolution\n"
			   "  screw:         --pitch --major_radius --minor_radius --length --head_radius --head_height\n"
			   "                 --head_sides --segments_per_turn\n"
			   "  bearing_block: --size_x --size_y --height --bore_radius --threaded 0|1 --pitch --major_radius\n"
			   "                 --minor_radius --clearance --segments (defaults fit the default screw)\n"
			   "  bowl:          --radius --thickness --rim_width --rim_height --foot_radius --segments --rings\n"
			   "  torus_knot:    --p --q --major_radius --minor_radius --tube_radius --segments --sides\n"
			   "  rock:          --frequency --radius --scale_x --scale_y --scale_z --amplitude --roughness\n"
			   "                 --octaves --seed\n"
			   "  screwdriver:   --length --handle_length --handle_radius --rib_count --rib_depth --shaft_radius\n"
			   "                 --tip_length --tip_thickness --resolution\n"
			   "  housing:       --size_x --size_y --height --wall --corner_radius --fillet_radius --flange_width\n"
			   "                 --flange_height --boss_radius --bore_radius --boss_height --side_boss_radius\n"
			   "                 --side_bore_radius --resolution\n"
			   "  robot_arm:     --scale --resolution\n"
			   "Units are metres; z is up. Defaults are those of the kl_meshgen_default_*_params functions.\n");
}

// The options of one shape; returns their count, or -1 for an unknown shape.
static int shape_options(const char* kind, shape* s, option* o)
{
	int n = 0;
#define OPT(key, t, f) o[n++] = (option){key, t, &(f)}
	if (strcmp(kind, "gear") == 0)
	{
		OPT("tooth_count", OPT_INT, s->gear.tooth_count);
		OPT("module", OPT_FLOAT, s->gear.module);
		OPT("pressure_angle_deg", OPT_DEGREES, s->gear.pressure_angle);
		OPT("face_width", OPT_FLOAT, s->gear.face_width);
		OPT("bore_radius", OPT_FLOAT, s->gear.bore_radius);
		OPT("backlash", OPT_FLOAT, s->gear.backlash);
		OPT("resolution", OPT_INT, s->gear.resolution);
	}
	else if (strcmp(kind, "screw") == 0)
	{
		OPT("pitch", OPT_FLOAT, s->screw.pitch);
		OPT("major_radius", OPT_FLOAT, s->screw.major_radius);
		OPT("minor_radius", OPT_FLOAT, s->screw.minor_radius);
		OPT("length", OPT_FLOAT, s->screw.length);
		OPT("head_radius", OPT_FLOAT, s->screw.head_radius);
		OPT("head_height", OPT_FLOAT, s->screw.head_height);
		OPT("head_sides", OPT_INT, s->screw.head_sides);
		OPT("segments_per_turn", OPT_INT, s->screw.segments_per_turn);
	}
	else if (strcmp(kind, "bearing_block") == 0)
	{
		OPT("size_x", OPT_FLOAT, s->block.size_x);
		OPT("size_y", OPT_FLOAT, s->block.size_y);
		OPT("height", OPT_FLOAT, s->block.height);
		OPT("bore_radius", OPT_FLOAT, s->block.bore_radius);
		OPT("threaded", OPT_BOOL, s->block.threaded);
		OPT("pitch", OPT_FLOAT, s->block.pitch);
		OPT("major_radius", OPT_FLOAT, s->block.major_radius);
		OPT("minor_radius", OPT_FLOAT, s->block.minor_radius);
		OPT("clearance", OPT_FLOAT, s->block.clearance);
		OPT("segments", OPT_INT, s->block.segments);
	}
	else if (strcmp(kind, "bowl") == 0)
	{
		OPT("radius", OPT_FLOAT, s->bowl.radius);
		OPT("thickness", OPT_FLOAT, s->bowl.thickness);
		OPT("rim_width", OPT_FLOAT, s->bowl.rim_width);
		OPT("rim_height", OPT_FLOAT, s->bowl.rim_height);
		OPT("foot_radius", OPT_FLOAT, s->bowl.foot_radius);
		OPT("segments", OPT_INT, s->bowl.segments);
		OPT("rings", OPT_INT, s->bowl.rings);
	}
	else if (strcmp(kind, "torus_knot") == 0)
	{
		OPT("p", OPT_INT, s->knot.p);
		OPT("q", OPT_INT, s->knot.q);
		OPT("major_radius", OPT_FLOAT, s->knot.major_radius);
		OPT("minor_radius", OPT_FLOAT, s->knot.minor_radius);
		OPT("tube_radius", OPT_FLOAT, s->knot.tube_radius);
		OPT("segments", OPT_INT, s->knot.segments);
		OPT("sides", OPT_INT, s->knot.sides);
	}
	else if (strcmp(kind, "rock") == 0)
	{
		OPT("frequency", OPT_INT, s->rock.frequency);
		OPT("radius", OPT_FLOAT, s->rock.radius);
		OPT("scale_x", OPT_FLOAT, s->rock.scale.x);
		OPT("scale_y", OPT_FLOAT, s->rock.scale.y);
		OPT("scale_z", OPT_FLOAT, s->rock.scale.z);
		OPT("amplitude", OPT_FLOAT, s->rock.amplitude);
		OPT("roughness", OPT_FLOAT, s->rock.roughness);
		OPT("octaves", OPT_INT, s->rock.octaves);
		OPT("seed", OPT_UINT, s->rock.seed);
	}
	else if (strcmp(kind, "screwdriver") == 0)
	{
		OPT("length", OPT_FLOAT, s->screwdriver.length);
		OPT("handle_length", OPT_FLOAT, s->screwdriver.handle_length);
		OPT("handle_radius", OPT_FLOAT, s->screwdriver.handle_radius);
		OPT("rib_count", OPT_INT, s->screwdriver.rib_count);
		OPT("rib_depth", OPT_FLOAT, s->screwdriver.rib_depth);
		OPT("shaft_radius", OPT_FLOAT, s->screwdriver.shaft_radius);
		OPT("tip_length", OPT_FLOAT, s->screwdriver.tip_length);
		OPT("tip_thickness", OPT_FLOAT, s->screwdriver.tip_thickness);
		OPT("resolution", OPT_INT, s->screwdriver.resolution);
	}
	else if (strcmp(kind, "housing") == 0)
	{
		OPT("size_x", OPT_FLOAT, s->housing.size_x);
		OPT("size_y", OPT_FLOAT, s->housing.size_y);
		OPT("height", OPT_FLOAT, s->housing.height);
		OPT("wall", OPT_FLOAT, s->housing.wall);
		OPT("corner_radius", OPT_FLOAT, s->housing.corner_radius);
		OPT("fillet_radius", OPT_FLOAT, s->housing.fillet_radius);
		OPT("flange_width", OPT_FLOAT, s->housing.flange_width);
		OPT("flange_height", OPT_FLOAT, s->housing.flange_height);
		OPT("boss_radius", OPT_FLOAT, s->housing.boss_radius);
		OPT("bore_radius", OPT_FLOAT, s->housing.bore_radius);
		OPT("boss_height", OPT_FLOAT, s->housing.boss_height);
		OPT("side_boss_radius", OPT_FLOAT, s->housing.side_boss_radius);
		OPT("side_bore_radius", OPT_FLOAT, s->housing.side_bore_radius);
		OPT("resolution", OPT_INT, s->housing.resolution);
	}
	else if (strcmp(kind, "robot_arm") == 0)
	{
		OPT("scale", OPT_FLOAT, s->robot_arm.scale);
		OPT("resolution", OPT_INT, s->robot_arm.resolution);
	}
	else
	{
		return -1;
	}
#undef OPT
	return n;
}

// Parses text into the option's field; false with a message on bad text.
static bool set_option(const option* o, const char* text)
{
	char* end = NULL;
	errno = 0;
	if (o->type == OPT_FLOAT || o->type == OPT_DEGREES)
	{
		float v = strtof(text, &end);
		*(float*)o->field = o->type == OPT_DEGREES ? v * MG_PI_F / 180.0f : v;
	}
	else
	{
		long long v = strtoll(text, &end, 10);
		long long hi = o->type == OPT_UINT ? 4294967295LL : 2147483647LL;
		if (errno != 0 || v < (o->type == OPT_UINT ? 0 : -2147483647LL) || v > hi)
		{
			end = (char*)text;
		}
		else if (o->type == OPT_INT)
		{
			*(int*)o->field = (int)v;
		}
		else if (o->type == OPT_UINT)
		{
			*(uint32_t*)o->field = (uint32_t)v;
		}
		else
		{
			*(bool*)o->field = v != 0;
		}
	}
	if (end == text || *end != '\0' || errno != 0)
	{
		fprintf(stderr, "kollide-meshgen: --%s: '%s' is not a number\n", o->name, text);
		return false;
	}
	return true;
}

static kl_result generate(const char* kind, const shape* s, kl_meshgen_mesh* mesh)
{
	if (strcmp(kind, "gear") == 0)
	{
		return kl_meshgen_gear(&s->gear, mesh);
	}
	if (strcmp(kind, "screw") == 0)
	{
		return kl_meshgen_screw(&s->screw, mesh);
	}
	if (strcmp(kind, "bearing_block") == 0)
	{
		return kl_meshgen_bearing_block(&s->block, mesh);
	}
	if (strcmp(kind, "bowl") == 0)
	{
		return kl_meshgen_bowl(&s->bowl, mesh);
	}
	if (strcmp(kind, "torus_knot") == 0)
	{
		return kl_meshgen_torus_knot(&s->knot, mesh);
	}
	if (strcmp(kind, "screwdriver") == 0)
	{
		return kl_meshgen_screwdriver(&s->screwdriver, mesh);
	}
	if (strcmp(kind, "housing") == 0)
	{
		return kl_meshgen_housing(&s->housing, mesh);
	}
	if (strcmp(kind, "robot_arm") == 0)
	{
		return kl_meshgen_robot_arm(&s->robot_arm, mesh);
	}
	return kl_meshgen_rock(&s->rock, mesh);
}

// Builds the engine's mesh model and prints what it found.
static void report(const char* kind, const kl_meshgen_mesh* mesh, const char* path)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = mesh->vertices;
	def.vertex_count = mesh->vertex_count;
	def.indices = mesh->indices;
	def.triangle_count = mesh->triangle_count;
	kl_mesh* m = kl_mesh_build(&def);
	if (m == NULL)
	{
		printf("%s: %d vertices, %d triangles -> %s (engine rejected it: %s)\n", kind, mesh->vertex_count,
			   mesh->triangle_count, path, kl_last_error());
		return;
	}
	kl_mesh_info info = kl_mesh_get_info(m);
	printf("%s: %d vertices, %d triangles -> %s (closed %s, volume %.6g m^3, bounds [%.4g %.4g %.4g]..[%.4g %.4g %.4g])\n",
		   kind, mesh->vertex_count, mesh->triangle_count, path, info.closed ? "yes" : "NO", (double)info.volume,
		   (double)info.bounds.lower.x, (double)info.bounds.lower.y, (double)info.bounds.lower.z,
		   (double)info.bounds.upper.x, (double)info.bounds.upper.y, (double)info.bounds.upper.z);
	kl_mesh_release(m);
}

int main(int argc, char** argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
	{
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char* kind = argv[1];
	shape s = {kl_meshgen_default_gear_params(),		 kl_meshgen_default_screw_params(),
			   kl_meshgen_default_bearing_block_params(), kl_meshgen_default_bowl_params(),
			   kl_meshgen_default_torus_knot_params(),	 kl_meshgen_default_rock_params(),
			   kl_meshgen_default_screwdriver_params(),	 kl_meshgen_default_housing_params(),
			   kl_meshgen_default_robot_arm_params()};
	option options[max_options];
	int count = shape_options(kind, &s, options);
	if (count < 0)
	{
		fprintf(stderr, "kollide-meshgen: unknown shape '%s'\n", kind);
		usage(stderr);
		return 2;
	}
	const char* path = NULL;
	for (int i = 2; i < argc; ++i)
	{
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
		{
			path = argv[++i];
			continue;
		}
		const option* found = NULL;
		for (int k = 0; k < count && strncmp(argv[i], "--", 2) == 0; ++k)
		{
			found = strcmp(argv[i] + 2, options[k].name) == 0 ? &options[k] : found;
		}
		if (found == NULL || i + 1 >= argc)
		{
			fprintf(stderr, "kollide-meshgen: %s '%s' for %s\n", found == NULL ? "unknown option" : "missing value of",
					argv[i], kind);
			return 2;
		}
		if (!set_option(found, argv[++i]))
		{
			return 2;
		}
	}
	if (path == NULL)
	{
		fprintf(stderr, "kollide-meshgen: no output file (-o FILE.obj|.off)\n");
		return 2;
	}
	kl_meshgen_mesh mesh;
	if (generate(kind, &s, &mesh) != KL_OK || kl_meshgen_write(&mesh, path) != KL_OK)
	{
		fprintf(stderr, "kollide-%s\n", kl_meshgen_last_error()); // the message starts "meshgen: "
		kl_meshgen_free(&mesh);
		return 1;
	}
	report(kind, &mesh, path);
	kl_meshgen_free(&mesh);
	return 0;
}
