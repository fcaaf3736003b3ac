// URDF robots: parsing the project's arm (and the UR5 where ../shared/robots exists), link poses
// against forward kinematics computed here independently (rotation matrices in double, from the
// model's numbers), kinematic and motor drives, bad files refused, robots in scene files.
// `test_urdf ur5` runs the UR5 checks alone and exits 77 where its files are absent.
#include "kl_test.h"

#include "core.h" // kl_fail_allocation

#include <kollide/kollide.h>

#include <stdlib.h>
#include <string.h>

#define ARM_DIR KL_ASSETS_DIR "/robots"
#define ARM_URDF ARM_DIR "/kollide_arm/kollide_arm.urdf"
#define UR5_URDF "/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"

// ---------------------------------------------------------------------------------------------
// Independent forward kinematics: 3×3 matrices, row-major.

typedef struct frame
{
	double r[3][3];
	double p[3];
} frame;

static void mat_mul(const double a[3][3], const double b[3][3], double out[3][3])
{
	double t[3][3];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			t[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
		}
	}
	memcpy(out, t, sizeof(t));
}

/// Rodrigues' rotation about the unit axis u by angle a.
static void axis_rotation(const double* u, double a, double out[3][3])
{
	double c = cos(a), s = sin(a), k = 1.0 - c;
	double x = u[0], y = u[1], z = u[2];
	double r[3][3] = {{c + x * x * k, x * y * k - z * s, x * z * k + y * s},
					  {y * x * k + z * s, c + y * y * k, y * z * k - x * s},
					  {z * x * k - y * s, z * y * k + x * s, c + z * z * k}};
	memcpy(out, r, sizeof(r));
}

static frame frame_mul(frame a, frame b)
{
	frame r;
	mat_mul(a.r, b.r, r.r);
	for (int i = 0; i < 3; ++i)
	{
		r.p[i] = a.p[i] + a.r[i][0] * b.p[0] + a.r[i][1] * b.p[1] + a.r[i][2] * b.p[2];
	}
	return r;
}

/// URDF origin: Rz(yaw) Ry(pitch) Rx(roll), then the translation.
static frame origin_frame(const double* xyz, const double* rpy)
{
	static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
	double rx[3][3], ry[3][3], rz[3][3];
	axis_rotation(ex, rpy[0], rx);
	axis_rotation(ey, rpy[1], ry);
	axis_rotation(ez, rpy[2], rz);
	frame f;
	mat_mul(rz, ry, f.r);
	mat_mul(f.r, rx, f.r);
	memcpy(f.p, xyz, sizeof(f.p));
	return f;
}

static frame quat_frame(vec3s p, versors q)
{
	double x = q.x, y = q.y, z = q.z, w = q.w;
	frame f = {{{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
				{2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
				{2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}},
			   {p.x, p.y, p.z}};
	return f;
}

/// World frames of every link (out[link]) with the root at base.
static void independent_fk(const kl_urdf_model* m, frame base, const double* q, frame* out)
{
	bool* done = calloc((size_t)m->link_count, sizeof(bool));
	int root = -1;
	for (int i = 0; i < m->link_count; ++i)
	{
		root = m->links[i].parent_joint < 0 ? i : root;
	}
	out[root] = base;
	done[root] = true;
	// Relax until every link is placed (no use of the model's order).
	for (int pass = 0; pass < m->link_count; ++pass)
	{
		for (int j = 0; j < m->joint_count; ++j)
		{
			const kl_urdf_joint* jt = &m->joints[j];
			if (!done[jt->parent] || done[jt->child])
			{
				continue;
			}
			frame motion = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};
			if (jt->type == KL_URDF_REVOLUTE || jt->type == KL_URDF_CONTINUOUS)
			{
				axis_rotation(jt->axis, q[j], motion.r);
			}
			else if (jt->type == KL_URDF_PRISMATIC)
			{
				for (int k = 0; k < 3; ++k)
				{
					motion.p[k] = jt->axis[k] * q[j];
				}
			}
			out[jt->child] = frame_mul(frame_mul(out[jt->parent], origin_frame(jt->xyz, jt->rpy)), motion);
			done[jt->child] = true;
		}
	}
	for (int i = 0; i < m->link_count; ++i)
	{
		assert_true(done[i]);
	}
	free(done);
}

/// Position error (m) and rotation angle between the frames (rad, from the Frobenius distance).
static void frame_error(frame a, frame b, double* dp, double* da)
{
	double p = 0.0, f = 0.0;
	for (int i = 0; i < 3; ++i)
	{
		p += (a.p[i] - b.p[i]) * (a.p[i] - b.p[i]);
		for (int j = 0; j < 3; ++j)
		{
			f += (a.r[i][j] - b.r[i][j]) * (a.r[i][j] - b.r[i][j]);
		}
	}
	*dp = sqrt(p);
	double s = sqrt(f) / (2.0 * sqrt(2.0));
	*da = 2.0 * asin(s < 1.0 ? s : 1.0);
}

/// Every link's body pose against the independent FK: 1e-5 m and 1e-5 rad.
static void check_link_poses(const kl_robot* robot, kl_transform base, const double* q)
{
	const kl_urdf_model* m = kl_robot_get_model(robot);
	frame* expected = calloc((size_t)m->link_count, sizeof(frame));
	independent_fk(m, quat_frame(base.p, base.q), q, expected);
	for (int i = 0; i < m->link_count; ++i)
	{
		kl_transform t = kl_body_get_transform(kl_robot_get_body(robot, i));
		double dp, da;
		frame_error(expected[i], quat_frame(t.p, t.q), &dp, &da);
		if (dp > 1e-5 || da > 1e-5)
		{
			print_error("link %s: position error %.3g m, angle error %.3g rad\n", m->links[i].name, dp, da);
		}
		assert_true(dp <= 1e-5);
		assert_true(da <= 1e-5);
	}
	free(expected);
}

static uint32_t s_rng = 12345u;

static double random_unit(void)
{
	s_rng = s_rng * 1664525u + 1013904223u;
	return (double)(s_rng >> 8) / 16777216.0;
}

/// Random positions within each joint's limits (continuous: ±2π).
static void random_positions(const kl_urdf_model* m, double* q)
{
	for (int j = 0; j < m->joint_count; ++j)
	{
		const kl_urdf_joint* jt = &m->joints[j];
		double lo = jt->has_limit ? jt->lower : -2.0 * GLM_PI;
		double hi = jt->has_limit ? jt->upper : 2.0 * GLM_PI;
		q[j] = jt->type == KL_URDF_FIXED ? 0.0 : lo + (hi - lo) * random_unit();
	}
}

static void check_kinematic_robot(const kl_urdf_model* m, int trials);

/// Loads a URDF with one package folder.
static kl_urdf_model* load_urdf(const char* path, const char* package_dir)
{
	kl_urdf_load_options options = kl_default_urdf_load_options();
	options.package_paths = &package_dir;
	options.package_path_count = 1;
	kl_urdf_model* m = kl_urdf_load_file(path, &options);
	if (m == NULL)
	{
		print_error("%s\n", kl_last_error());
	}
	assert_non_null(m);
	return m;
}

static kl_urdf_model* load_arm(void)
{
	return load_urdf(ARM_URDF, ARM_DIR);
}

static kl_world_id make_world(float gravity)
{
	kl_world_def def = kl_default_world_def();
	def.gravity = kl_vec3(0.0f, 0.0f, gravity);
	kl_world_id world = kl_create_world(&def);
	assert_true(kl_world_is_valid(world));
	return world;
}

static kl_transform test_base(void)
{
	kl_transform base = {kl_vec3(1.0f, -2.0f, 0.5f), glms_quatv(0.7f, glms_vec3_normalize(kl_vec3(0.2f, -0.3f, 1.0f)))};
	return base;
}

// ---------------------------------------------------------------------------------------------
// The project's arm

static void test_arm_model(void** state)
{
	(void)state;
	kl_urdf_model* m = load_arm();
	assert_string_equal(m->name, "kollide_arm");
	assert_int_equal(m->link_count, 9);
	assert_int_equal(m->joint_count, 8);
	assert_string_equal(m->links[m->link_order[0]].name, "base_link");
	const kl_urdf_joint* j2 = &m->joints[kl_urdf_find_joint(m, "joint_2")];
	assert_int_equal(j2->type, KL_URDF_REVOLUTE);
	assert_near(j2->xyz[2], 0.26, 0);
	assert_near(j2->axis[1], 1.0, 0);
	assert_near(j2->upper, 2.0, 0);
	assert_near(j2->effort, 600.0, 0);
	const kl_urdf_joint* j6 = &m->joints[kl_urdf_find_joint(m, "joint_6")];
	assert_int_equal(j6->type, KL_URDF_CONTINUOUS);
	assert_false(j6->has_limit);
	assert_int_equal(m->joints[kl_urdf_find_joint(m, "finger_joint")].type, KL_URDF_PRISMATIC);
	const kl_urdf_link* wrist = &m->links[kl_urdf_find_link(m, "wrist_1")];
	assert_int_equal(wrist->collision_count, 1);
	assert_int_equal(wrist->collisions[0].type, KL_URDF_MESH);
	assert_non_null(strstr(wrist->collisions[0].filename, "kollide_arm/meshes/wrist.obj"));
	assert_int_equal(wrist->visual_count, 1);
	assert_non_null(wrist->visuals[0].filename); // relative to the URDF's folder
	const kl_urdf_link* upper = &m->links[kl_urdf_find_link(m, "upper_arm")];
	assert_int_equal(upper->collision_count, 2);
	assert_near(upper->mass, 10.0, 0);
	assert_near(upper->inertial_rpy[1], 0.2606, 0);
	assert_int_equal(m->links[kl_urdf_find_link(m, "tool0")].collision_count, 0);
	assert_int_equal(kl_urdf_find_link(m, "nothing"), -1);
	kl_urdf_model_free(m);
}

/// A chain whose origins turn about all three axes at once and whose axes are oblique, so that
/// the order of roll, pitch and yaw and the frame of the axis matter.
static const char s_oblique[] =
	"<robot name='oblique'><link name='a'/><link name='b'/><link name='c'/><link name='d'/><link name='e'/>"
	"<joint name='j1' type='revolute'><parent link='a'/><child link='b'/><origin xyz='0.1 -0.2 0.3' rpy='0.4 -0.7 "
	"1.1'/>"
	"<axis xyz='0.3 -0.5 0.8'/><limit lower='-3' upper='3'/></joint>"
	"<joint name='j2' type='prismatic'><parent link='b'/><child link='c'/><origin xyz='-0.3 0.2 0.5' rpy='-1.2 0.3 "
	"2.5'/>"
	"<axis xyz='1 1 0'/><limit lower='-0.5' upper='0.5'/></joint>"
	"<joint name='j3' type='continuous'><parent link='c'/><child link='d'/><origin xyz='0.25 0.05 -0.1' rpy='2.9 1.2 "
	"-0.6'/>"
	"<axis xyz='0 0.6 -0.8'/></joint>"
	"<joint name='j4' type='fixed'><parent link='d'/><child link='e'/><origin xyz='0 0 0.2' rpy='0.1 0.2 0.3'/></joint>"
	"</robot>";

/// The model's own FK (root frame) against the independent one.
static void test_arm_forward_kinematics(void** state)
{
	(void)state;
	kl_urdf_model* m = kl_urdf_parse(s_oblique, sizeof(s_oblique) - 1, NULL);
	assert_non_null(m);
	check_kinematic_robot(m, 20);
	kl_urdf_model_free(m);
	m = load_arm();
	double q[16];
	kl_transform poses[16];
	frame expected[16];
	frame identity = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};
	for (int trial = 0; trial < 50; ++trial)
	{
		random_positions(m, q);
		assert_int_equal(kl_urdf_forward_kinematics(m, q, poses), KL_OK);
		independent_fk(m, identity, q, expected);
		for (int i = 0; i < m->link_count; ++i)
		{
			double dp, da;
			frame_error(expected[i], quat_frame(poses[i].p, poses[i].q), &dp, &da);
			assert_true(dp <= 1e-5 && da <= 1e-5);
		}
	}
	q[0] = NAN;
	assert_int_not_equal(kl_urdf_forward_kinematics(m, q, poses), KL_OK);
	kl_urdf_model_free(m);
}

/// Teleported and streamed (target poses reached in one step) links sit at the FK.
static void check_kinematic_robot(const kl_urdf_model* m, int trials)
{
	kl_world_id world = make_world(-9.81f);
	kl_robot_def def = kl_default_robot_def();
	def.name = "arm";
	def.pose = test_base();
	kl_robot* robot = kl_robot_create(world, m, &def);
	if (robot == NULL)
	{
		print_error("%s\n", kl_last_error());
	}
	assert_non_null(robot);
	double q[64] = {0};
	check_link_poses(robot, def.pose, q);
	char name[300];
	snprintf(name, sizeof(name), "arm/%s", m->links[1].name);
	assert_true(KL_ID_EQUALS(kl_world_find_body(world, name), kl_robot_get_body(robot, 1)));
	snprintf(name, sizeof(name), "arm/%s", m->joints[0].name);
	assert_true(KL_ID_EQUALS(kl_world_find_joint(world, name), kl_robot_get_joint(robot, 0)));
	assert_string_equal(kl_joint_get_name(kl_robot_get_joint(robot, 0)), name);
	for (int trial = 0; trial < trials; ++trial)
	{
		random_positions(m, q);
		assert_int_equal(kl_robot_teleport(robot, q), KL_OK);
		check_link_poses(robot, def.pose, q);
		random_positions(m, q);
		assert_int_equal(kl_robot_set_joint_positions(robot, q, 1.0f / 60.0f), KL_OK);
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
		check_link_poses(robot, def.pose, q);
		double back[64];
		kl_robot_get_joint_positions(robot, back);
		assert_memory_equal(back, q, sizeof(double) * (size_t)m->joint_count);
	}
	kl_robot_destroy(robot);
	assert_int_equal(kl_world_get_bodies(world, NULL, 0), 0);
	kl_destroy_world(world);
}

static void test_arm_kinematic_poses(void** state)
{
	(void)state;
	kl_urdf_model* m = load_arm();
	check_kinematic_robot(m, 30);
	kl_urdf_model_free(m);
}

/// A robot on its motors (the URDF efforts) under gravity, from the zero pose: each joint is within
/// tolerance of its target after 3 s.
static void check_motor_robot(const kl_urdf_model* m, const double* q, double tolerance)
{
	kl_world_id world = make_world(-9.81f);
	kl_robot_def def = kl_default_robot_def();
	def.drive = KL_ROBOT_DRIVE_MOTOR;
	kl_robot* robot = kl_robot_create(world, m, &def);
	if (robot == NULL)
	{
		print_error("%s\n", kl_last_error());
	}
	assert_non_null(robot);
	for (int i = 0; i < m->link_count; ++i)
	{
		// Welded to the root through fixed joints only: static.
		int link = i;
		while (m->links[link].parent_joint >= 0 && m->joints[m->links[link].parent_joint].type == KL_URDF_FIXED)
		{
			link = m->joints[m->links[link].parent_joint].parent;
		}
		bool fixed_root = m->links[link].parent_joint < 0;
		kl_body_type type = kl_body_get_type(kl_robot_get_body(robot, i));
		assert_true(fixed_root ? type == KL_BODY_STATIC : type == KL_BODY_DYNAMIC);
		if (type == KL_BODY_DYNAMIC && m->links[i].mass > 0.0)
		{
			assert_near(kl_body_get_mass(kl_robot_get_body(robot, i)), m->links[i].mass, 1e-5 * m->links[i].mass);
		}
	}
	assert_int_equal(kl_robot_set_joint_positions(robot, q, 1.0f / 60.0f), KL_OK);
	for (int i = 0; i < 180; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	double back[16];
	kl_robot_get_joint_positions(robot, back);
	for (int j = 0; j < m->joint_count; ++j)
	{
		assert_near(back[j], q[j], tolerance);
	}
	kl_robot_destroy(robot);
	kl_destroy_world(world);
}

/// Motor drive under gravity reaches its targets.
static void test_arm_motor_drive(void** state)
{
	(void)state;
	kl_urdf_model* m = load_arm();
	double q[16] = {0};
	q[kl_urdf_find_joint(m, "joint_1")] = 0.8;
	q[kl_urdf_find_joint(m, "joint_2")] = 0.5;
	q[kl_urdf_find_joint(m, "joint_3")] = -0.7;
	q[kl_urdf_find_joint(m, "joint_4")] = 1.0;
	q[kl_urdf_find_joint(m, "joint_5")] = -0.6;
	q[kl_urdf_find_joint(m, "joint_6")] = 2.0;
	q[kl_urdf_find_joint(m, "finger_joint")] = 0.02;
	check_motor_robot(m, q, 0.01);

	// The upper arm's inertial: centre and the tensor turned by its rpy (0, 0.2606, 0) into the link frame.
	kl_world_id world = make_world(-9.81f);
	kl_robot_def def = kl_default_robot_def();
	def.drive = KL_ROBOT_DRIVE_MOTOR;
	kl_robot* robot = kl_robot_create(world, m, &def);
	assert_non_null(robot);
	kl_mass_data md = kl_body_get_mass_data(kl_robot_get_body(robot, kl_urdf_find_link(m, "upper_arm")));
	assert_near(md.center.x, 0.06, 1e-6);
	assert_near(md.center.y, 0.165, 1e-6);
	assert_near(md.center.z, 0.225, 1e-6);
	static const double ey[3] = {0, 1, 0};
	double r[3][3];
	axis_rotation(ey, 0.2606, r);
	const double d[3] = {0.2, 0.2, 0.02};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			double expected = r[i][0] * d[0] * r[j][0] + r[i][1] * d[1] * r[j][1] + r[i][2] * d[2] * r[j][2];
			assert_near(md.inertia.raw[j][i], expected, 1e-6);
		}
	}
	kl_robot_destroy(robot);
	kl_destroy_world(world);
	kl_urdf_model_free(m);
}

/// Kinematic links push a free box and keep to the FK while they do.
static void test_arm_pushes_box(void** state)
{
	(void)state;
	kl_urdf_model* m = load_arm();
	kl_world_id world = make_world(0.0f);
	kl_robot_def def = kl_default_robot_def();
	kl_robot* robot = kl_robot_create(world, m, &def);
	assert_non_null(robot);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.5f, -0.2f, 0.87f);
	kl_body_id box = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	assert_true(KL_IS_NON_NULL(kl_create_box_shape(box, &sd, kl_vec3(0.05f, 0.05f, 0.05f))));
	double q[16] = {0};
	int j1 = kl_urdf_find_joint(m, "joint_1");
	for (int i = 1; i <= 60; ++i)
	{
		q[j1] = -0.8 * i / 60.0;
		assert_int_equal(kl_robot_set_joint_positions(robot, q, 1.0f / 60.0f), KL_OK);
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	check_link_poses(robot, def.pose, q);
	vec3s p = kl_body_get_position(box);
	assert_true(p.y < -0.3f);
	kl_robot_destroy(robot);
	kl_destroy_world(world);
	kl_urdf_model_free(m);
}

// ---------------------------------------------------------------------------------------------
// Refusals

typedef struct bad_case
{
	const char* what;
	const char* xml;
	const char* message; ///< part of the error
} bad_case;

#define LINK(n) "<link name='" n "'/>"
#define JOINT(n, t, p, c) "<joint name='" n "' type='" t "'><parent link='" p "'/><child link='" c "'/></joint>"

static const bad_case s_bad[] = {
	{"malformed XML", "<robot name='r'><link name='a'></robot>", "XML error"},
	{"not a robot", "<model name='r'/>", "not a <robot>"},
	{"no links", "<robot name='r'/>", "no links"},
	{"missing link", "<robot name='r'>" LINK("a") JOINT("j", "fixed", "a", "b") "</robot>", "missing link 'b'"},
	{"cycle",
	 "<robot name='r'>" LINK("a") LINK("b") LINK("c") JOINT("j1", "fixed", "a", "b") JOINT("j2", "fixed", "c", "a")
		 JOINT("j3", "fixed", "b", "c") "</robot>",
	 "cycle"},
	{"detached cycle",
	 "<robot name='r'>" LINK("a") LINK("b") LINK("c") JOINT("j1", "fixed", "b", "c")
		 JOINT("j2", "fixed", "c", "b") "</robot>",
	 "cycle"},
	{"two roots", "<robot name='r'>" LINK("a") LINK("b") "</robot>", "two root links"},
	{"two parents",
	 "<robot name='r'>" LINK("a") LINK("b") LINK("c") JOINT("j1", "fixed", "a", "c")
		 JOINT("j2", "fixed", "b", "c") "</robot>",
	 "child of two joints"},
	{"unknown joint type", "<robot name='r'>" LINK("a") LINK("b") JOINT("j", "floating", "a", "b") "</robot>",
	 "unknown type 'floating'"},
	{"repeated link", "<robot name='r'>" LINK("a") LINK("a") "</robot>", "two links are named 'a'"},
	{"missing mesh",
	 "<robot name='r'><link name='a'><collision><geometry><mesh "
	 "filename='package://nope/m.stl'/></geometry></collision></link></robot>",
	 "not found"},
	{"collada collision",
	 "<robot name='r'><link name='a'><collision><geometry><mesh "
	 "filename='m.dae'/></geometry></collision></link></robot>",
	 "not STL"},
	{"unknown geometry",
	 "<robot name='r'><link name='a'><collision><geometry><capsule radius='1' "
	 "length='1'/></geometry></collision></link></robot>",
	 "unknown collision geometry"},
	{"NaN origin",
	 "<robot name='r'>" LINK("a") LINK(
		 "b") "<joint name='j' type='fixed'><parent link='a'/><child link='b'/><origin xyz='0 nan 0'/></joint></robot>",
	 "not finite"},
	{"absurd mass", "<robot name='r'><link name='a'><inertial><mass value='1e300'/></inertial></link></robot>",
	 "beyond"},
	{"negative radius",
	 "<robot name='r'><link name='a'><collision><geometry><sphere radius='-1'/></geometry></collision></link></robot>",
	 "negative"},
	{"short vector",
	 "<robot name='r'><link name='a'><collision><geometry><box size='1 1'/></geometry></collision></link></robot>",
	 "expected 3 numbers"},
	{"zero axis",
	 "<robot name='r'>" LINK("a") LINK(
		 "b") "<joint name='j' type='revolute'><parent link='a'/><child link='b'/><axis xyz='0 0 0'/></joint></robot>",
	 "axis is zero"},
	{"inverted limits",
	 "<robot name='r'>" LINK("a") LINK("b") "<joint name='j' type='prismatic'><parent link='a'/><child "
											"link='b'/><limit lower='1' upper='0'/></joint></robot>",
	 "above the upper"},
	{"joint without child",
	 "<robot name='r'>" LINK("a") "<joint name='j' type='fixed'><parent link='a'/></joint></robot>",
	 "needs a <parent link> and a <child link>"},
	{"nameless link", "<robot name='r'><link/></robot>", "non-empty name"},
};

static void test_bad_urdfs(void** state)
{
	(void)state;
	kl_world_id world = make_world(-9.81f);
	kl_body_def bd = kl_default_body_def();
	kl_create_body(world, &bd);
	for (size_t i = 0; i < sizeof(s_bad) / sizeof(s_bad[0]); ++i)
	{
		kl_urdf_model* m = kl_urdf_parse(s_bad[i].xml, strlen(s_bad[i].xml), NULL);
		if (m != NULL || strstr(kl_last_error(), s_bad[i].message) == NULL)
		{
			print_error("%s: accepted or unexpected message '%s'\n", s_bad[i].what, kl_last_error());
		}
		assert_null(m);
		assert_non_null(strstr(kl_last_error(), s_bad[i].message));
		assert_int_equal(kl_world_get_bodies(world, NULL, 0), 1);
	}
	// Parsed, but not a body the engine takes: a 0.1 mm box. Nothing is left behind.
	const char* tiny =
		"<robot name='r'>" LINK("a") "<link name='b'><collision><geometry><box size='1e-4 1 1'/></geometry>"
									 "</collision></link>" JOINT("j", "fixed", "a", "b") "</robot>";
	kl_urdf_model* m = kl_urdf_parse(tiny, strlen(tiny), NULL);
	assert_non_null(m);
	kl_robot_def def = kl_default_robot_def();
	assert_null(kl_robot_create(world, m, &def));
	assert_non_null(strstr(kl_last_error(), "robot 'r' collision of link 'b'"));
	assert_int_equal(kl_world_get_bodies(world, NULL, 0), 1);
	assert_int_equal(kl_world_get_joints(world, NULL, 0), 0);
	kl_urdf_model_free(m);

	// Positions outside the limits or NaN: refused at creation and when streamed, changing nothing.
	m = load_arm();
	double q[16] = {0};
	q[kl_urdf_find_joint(m, "joint_2")] = 2.5;
	def.joint_positions = q;
	assert_null(kl_robot_create(world, m, &def));
	assert_non_null(strstr(kl_last_error(), "outside its limits"));
	assert_int_equal(kl_world_get_bodies(world, NULL, 0), 1);
	def.joint_positions = NULL;
	kl_robot* robot = kl_robot_create(world, m, &def);
	assert_non_null(robot);
	q[kl_urdf_find_joint(m, "joint_2")] = NAN;
	uint32_t hash = kl_world_hash_transforms(world);
	assert_int_not_equal(kl_robot_set_joint_positions(robot, q, 1.0f / 60.0f), KL_OK);
	assert_int_not_equal(kl_robot_teleport(robot, q), KL_OK);
	assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	assert_int_equal(kl_world_hash_transforms(world), hash);
	kl_robot_destroy(robot);
	kl_urdf_model_free(m);
	kl_destroy_world(world);
}

/// Loads the arm and places it; true when both worked. Whatever fails leaves the world empty.
static bool load_and_place(kl_world_id world)
{
	const char* paths[] = {ARM_DIR};
	kl_urdf_load_options options = kl_default_urdf_load_options();
	options.package_paths = paths;
	options.package_path_count = 1;
	kl_urdf_model* m = kl_urdf_load_file(ARM_URDF, &options);
	kl_robot_def def = kl_default_robot_def();
	def.drive = KL_ROBOT_DRIVE_MOTOR;
	kl_robot* robot = m != NULL ? kl_robot_create(world, m, &def) : NULL;
	bool ok = robot != NULL;
	kl_robot_destroy(robot);
	kl_urdf_model_free(m);
	return ok;
}

/// Every allocation of loading and placing the arm fails in turn: each failure says out of memory
/// and leaves the world empty.
static void test_out_of_memory(void** state)
{
	(void)state;
	kl_world_id world = make_world(-9.81f);
	const long many = 1L << 40;
	kl_fail_allocation(many);
	assert_true(load_and_place(world));
	long total = many - kl_fail_allocation_countdown();
	kl_fail_allocation(-1);
	assert_true(total > 20);
	long stride = KL_QUICK ? 1 + total / 50 : 1;
	for (long n = 0; n < total; n += stride)
	{
		kl_clear_error();
		kl_fail_allocation(n);
		bool ok = load_and_place(world);
		kl_fail_allocation(-1);
		if (!ok && kl_last_error_code() != KL_ERR_OUT_OF_MEMORY)
		{
			print_error("allocation %ld of %ld: %s\n", n, total, kl_last_error());
		}
		assert_true(ok || kl_last_error_code() == KL_ERR_OUT_OF_MEMORY);
		assert_int_equal(kl_world_get_bodies(world, NULL, 0), 0);
		assert_int_equal(kl_world_get_joints(world, NULL, 0), 0);
	}
	kl_destroy_world(world);
}

// ---------------------------------------------------------------------------------------------
// Scene files

static void test_scene_robots(void** state)
{
	(void)state;
	const char* scene =
		"{\"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"type\": \"box\", "
		"\"half_extents\": [5, 5, 0.5], \"position\": [0, 0, -0.5]}]}],"
		" \"robots\": [{\"name\": \"arm\", \"urdf\": \"" ARM_URDF "\", \"package_paths\": [\"" ARM_DIR "\"],"
		" \"pose\": {\"position\": [1, -2, 0.5], \"orientation\": [0.9393727, 0.0667951, -0.1001927, 0.3339756]},"
		" \"fixed_base\": true, \"drive\": \"kinematic\", \"joint_positions\": {\"joint_2\": 0.4, \"joint_6\": "
		"-1.5}}]}";
	kl_world_id world = kl_scene_load_string(scene, NULL);
	if (KL_IS_NULL(world))
	{
		print_error("%s\n", kl_last_error());
	}
	assert_true(kl_world_is_valid(world));
	kl_urdf_model* m = load_arm();
	assert_int_equal(kl_world_get_bodies(world, NULL, 0), 1 + m->link_count);
	kl_robot* robot = kl_robot_bind(world, m, "arm", KL_ROBOT_DRIVE_KINEMATIC);
	assert_non_null(robot);
	double q[16] = {0};
	q[kl_urdf_find_joint(m, "joint_2")] = 0.4;
	q[kl_urdf_find_joint(m, "joint_6")] = -1.5;
	double back[16];
	kl_robot_get_joint_positions(robot, back);
	for (int j = 0; j < m->joint_count; ++j)
	{
		assert_near(back[j], q[j], 1e-5);
	}
	kl_transform base = {kl_vec3(1.0f, -2.0f, 0.5f),
						 glms_quat_normalize(kl_quat_wxyz(0.9393727f, 0.0667951f, -0.1001927f, 0.3339756f))};
	check_link_poses(robot, base, q);
	q[kl_urdf_find_joint(m, "joint_3")] = 1.0;
	assert_int_equal(kl_robot_set_joint_positions(robot, q, 0.02f), KL_OK);
	assert_int_equal(kl_world_step(world, 0.02f, 4), KL_OK);
	check_link_poses(robot, base, q);
	kl_robot_free(robot);

	// Saved, a robot is its bodies and joints: the reloaded world has the same poses and names.
	char* saved = kl_scene_save_string(world);
	assert_non_null(saved);
	kl_world_id again = kl_scene_load_string(saved, NULL);
	free(saved);
	assert_true(kl_world_is_valid(again));
	assert_int_equal(kl_world_hash_transforms(again), kl_world_hash_transforms(world));
	robot = kl_robot_bind(again, m, "arm", KL_ROBOT_DRIVE_KINEMATIC);
	assert_non_null(robot);
	check_link_poses(robot, base, q);
	kl_robot_free(robot);
	kl_destroy_world(again);
	kl_destroy_world(world);

	// The example scene: the arm on its motors holds the pose the file gives it.
	world = kl_scene_load_file(KL_ASSETS_DIR "/scenes/urdf_arm.json", NULL);
	assert_true(kl_world_is_valid(world));
	robot = kl_robot_bind(world, m, "arm", KL_ROBOT_DRIVE_MOTOR);
	assert_non_null(robot);
	for (int i = 0; i < 60; ++i)
	{
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 4), KL_OK);
	}
	kl_robot_get_joint_positions(robot, back);
	assert_near(back[kl_urdf_find_joint(m, "joint_2")], 0.5, 0.01);
	assert_near(back[kl_urdf_find_joint(m, "joint_3")], 0.4, 0.01);
	assert_near(back[kl_urdf_find_joint(m, "finger_joint")], 0.02, 0.001);
	kl_robot_free(robot);
	kl_destroy_world(world);

	// Scene joints find a robot's links by name: a tool welded to the arm's tool frame.
	const char* tool =
		"{\"bodies\": [{\"name\": \"tool\", \"type\": \"dynamic\", \"position\": [0.88, 0, 0.9],"
		" \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.02, 0.02, 0.05]}]}],"
		" \"robots\": [{\"name\": \"arm\", \"urdf\": \"" ARM_URDF "\", \"package_paths\": [\"" ARM_DIR "\"],"
		" \"drive\": \"motor\"}],"
		" \"joints\": [{\"type\": \"fixed\", \"name\": \"grip\", \"body_a\": \"arm/tool0\","
		" \"body_b\": \"tool\", \"anchor\": [0.88, 0, 0.87]}]}";
	world = kl_scene_load_string(tool, NULL);
	if (KL_IS_NULL(world))
	{
		print_error("%s\n", kl_last_error());
	}
	assert_true(kl_world_is_valid(world));
	kl_joint_id grip = kl_world_find_joint(world, "grip");
	assert_true(KL_ID_EQUALS(kl_joint_get_body_a(grip), kl_world_find_body(world, "arm/tool0")));
	assert_true(KL_ID_EQUALS(kl_joint_get_body_b(grip), kl_world_find_body(world, "tool")));
	kl_destroy_world(world);

	// A bad robot entry fails the whole load with its path.
	const char* bad =
		"{\"robots\": [{\"name\": \"arm\", \"urdf\": \"" ARM_URDF "\", \"package_paths\": [\"" ARM_DIR "\"],"
		" \"joint_positions\": {\"no_such_joint\": 1}}]}";
	assert_true(KL_IS_NULL(kl_scene_load_string(bad, NULL)));
	assert_non_null(strstr(kl_last_error(), "robots[0].joint_positions"));
	kl_urdf_model_free(m);
}

// ---------------------------------------------------------------------------------------------
// The UR5 (BSD, ../shared/robots)

static kl_urdf_model* load_ur5(void)
{
	const char* dir = KL_ROBOTS_DIR;
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", dir, UR5_URDF);
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return NULL;
	}
	fclose(f);
	return load_urdf(path, dir);
}

static void test_ur5(void** state)
{
	kl_urdf_model* m = *state;
	assert_string_equal(m->name, "ur5");
	assert_int_equal(m->joint_count, 10);
	assert_string_equal(m->links[m->link_order[0]].name, "world");
	const kl_urdf_link* base = &m->links[kl_urdf_find_link(m, "base_link")];
	assert_int_equal(base->collision_count, 1);
	assert_non_null(strstr(base->collisions[0].filename, "ur5/collision/base.stl"));
	assert_null(base->visuals[0].filename); // the .dae visuals are not loadable
	check_kinematic_robot(m, 20);

	// Held out sideways: within 0.05 rad (the soft motors give the shoulder 0.03 rad of sag under
	// the arm's weight).
	double q[16] = {0};
	q[kl_urdf_find_joint(m, "shoulder_pan_joint")] = 0.5;
	q[kl_urdf_find_joint(m, "shoulder_lift_joint")] = -1.0;
	q[kl_urdf_find_joint(m, "elbow_joint")] = 0.8;
	q[kl_urdf_find_joint(m, "wrist_1_joint")] = -1.2;
	q[kl_urdf_find_joint(m, "wrist_2_joint")] = 0.7;
	q[kl_urdf_find_joint(m, "wrist_3_joint")] = 2.0;
	check_motor_robot(m, q, 0.05);
}

int main(int argc, char** argv)
{
	if (argc > 1 && strcmp(argv[1], "ur5") == 0)
	{
		kl_urdf_model* m = load_ur5();
		if (m == NULL)
		{
			printf("test_urdf: %s%s absent: UR5 checks skipped\n", KL_ROBOTS_DIR, UR5_URDF);
			return KL_TEST_SKIPPED;
		}
		const struct CMUnitTest ur5[] = {cmocka_unit_test_prestate(test_ur5, m)};
		int failed = cmocka_run_group_tests(ur5, NULL, NULL);
		kl_urdf_model_free(m);
		return kl_test_exit_status(failed);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_model),			cmocka_unit_test(test_arm_forward_kinematics),
		cmocka_unit_test(test_arm_kinematic_poses), cmocka_unit_test(test_arm_motor_drive),
		cmocka_unit_test(test_arm_pushes_box),		cmocka_unit_test(test_bad_urdfs),
		cmocka_unit_test(test_scene_robots),		cmocka_unit_test(test_out_of_memory),
	};
	return kl_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
