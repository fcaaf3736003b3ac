// Kollide — robots: a URDF model made into bodies named ROBOT/LINK (each body's origin the link
// frame, its shapes the collision elements, its mass the inertial) and joints named ROBOT/JOINT.
// A failure destroys whatever the call created, so the world is left as it was.
// SPDX-License-Identifier: MIT
#include "urdf_robot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// A link without an inertial (or of zero mass) that must be dynamic gets this mass (kg) and the
/// inertia of a solid sphere of KL_URDF_MASSLESS_RADIUS (m).
#define KL_URDF_MASSLESS_MASS 0.01f
#define KL_URDF_MASSLESS_RADIUS 0.01f
/// Motor force for joints whose <limit> gives no effort (N·m or N).
#define KL_URDF_DEFAULT_EFFORT 1.0e6f
/// Sides of the prism hull a URDF cylinder becomes.
#define KL_URDF_CYLINDER_SIDES 24

kl_robot_def kl_default_robot_def(void)
{
	kl_robot_def def = {0};
	def.pose = kl_transform_identity();
	def.fixed_base = true;
	def.drive = KL_ROBOT_DRIVE_KINEMATIC;
	def.material = kl_default_material();
	return def;
}

/// Fails with what the last engine call said, prefixed by the robot and element.
static kl_result fail_api(const char* robot, const char* what, const char* name)
{
	char message[512];
	snprintf(message, sizeof(message), "%s", kl_last_error());
	return kl_fail(kl_last_error_code() != KL_OK ? kl_last_error_code() : KL_ERR_INVALID_ARGUMENT,
				   "robot '%s' %s '%s': %s", robot, what, name, message);
}

/// "robot/element" in buf; false when it does not fit.
static bool full_name(char* buf, size_t size, const char* robot, const char* element)
{
	int n = snprintf(buf, size, "%s/%s", robot, element);
	if (n < 0 || (size_t)n >= size)
	{
		kl_fail(KL_ERR_LIMIT, "robot '%.64s': the name '%.64s...' is longer than %zu characters", robot, element,
				size - 1);
		return false;
	}
	return true;
}

kl_result kl_robot_check_positions(const kl_urdf_model* model, const char* robot_name, const double* positions)
{
	for (int j = 0; j < model->joint_count; ++j)
	{
		const kl_urdf_joint* joint = &model->joints[j];
		double q = positions[j];
		if (!kl_urdf_joint_moves(joint))
		{
			continue;
		}
		if (!isfinite(q) || fabs(q) > 1.0e5)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot '%s' joint '%s': position %g is not finite or beyond 1e5",
						   robot_name, joint->name, q);
		}
		if (joint->has_limit && (q < joint->lower || q > joint->upper))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot '%s' joint '%s': position %g is outside its limits [%g, %g]",
						   robot_name, joint->name, q, joint->lower, joint->upper);
		}
	}
	return KL_OK;
}

bool kl_robot_link_transforms(const kl_urdf_model* model, kl_transform base, const double* positions, kl_transform* out)
{
	kl_urdf_pose* poses = kl_alloc((size_t)model->link_count, sizeof(kl_urdf_pose));
	if (poses == NULL)
	{
		return false;
	}
	kl_urdf_link_poses(model, positions, poses);
	kl_urdf_pose root = kl_urdf_pose_from_transform(base);
	for (int i = 0; i < model->link_count; ++i)
	{
		out[i] = kl_urdf_pose_to_transform(kl_urdf_pose_mul(root, poses[i]));
	}
	kl_free(poses);
	return true;
}

// ---------------------------------------------------------------------------------------------
// Shapes and mass

typedef struct mesh_cache
{
	const char* path;
	kl_mesh* mesh;
} mesh_cache;

typedef struct builder
{
	kl_world_id world;
	const kl_urdf_model* model;
	const kl_robot_def* def;
	const char* name;
	int32_t group;
	mesh_cache* meshes; ///< one reference each, released when the build ends
	int mesh_count;
	int mesh_capacity;
} builder;

static kl_mesh* cached_mesh(builder* b, const char* path)
{
	for (int i = 0; i < b->mesh_count; ++i)
	{
		if (strcmp(b->meshes[i].path, path) == 0)
		{
			return b->meshes[i].mesh;
		}
	}
	if (b->mesh_count == b->mesh_capacity)
	{
		int bigger = b->mesh_capacity == 0 ? 8 : 2 * b->mesh_capacity;
		mesh_cache* p = kl_realloc(b->meshes, (size_t)bigger, sizeof(mesh_cache));
		if (p == NULL)
		{
			return NULL;
		}
		b->meshes = p;
		b->mesh_capacity = bigger;
	}
	kl_mesh* mesh = kl_mesh_load(path, NULL, NULL);
	if (mesh != NULL)
	{
		b->meshes[b->mesh_count++] = (mesh_cache){path, mesh};
	}
	return mesh;
}

static kl_shape_id create_cylinder(kl_body_id body, const kl_shape_def* def, float radius, float length)
{
	vec3s points[2 * KL_URDF_CYLINDER_SIDES];
	for (int i = 0; i < KL_URDF_CYLINDER_SIDES; ++i)
	{
		float a = 2.0f * GLM_PIf * (float)i / (float)KL_URDF_CYLINDER_SIDES;
		points[2 * i] = kl_vec3(radius * cosf(a), radius * sinf(a), -0.5f * length);
		points[2 * i + 1] = kl_vec3(radius * cosf(a), radius * sinf(a), 0.5f * length);
	}
	kl_hull* hull = kl_hull_build(points, 2 * KL_URDF_CYLINDER_SIDES);
	if (hull == NULL)
	{
		return kl_null_shape_id;
	}
	kl_shape_id shape = kl_create_hull_shape(body, def, hull);
	kl_hull_destroy(hull);
	return shape;
}

static kl_shape_id create_shape(builder* b, kl_body_id body, const kl_urdf_geometry* g)
{
	kl_shape_def def = kl_default_shape_def();
	def.local_pose = kl_urdf_pose_to_transform(kl_urdf_origin(g->xyz, g->rpy));
	def.material = b->def->material;
	def.material.density = 0.0f;
	def.filter.group_index = b->group;
	switch (g->type)
	{
		case KL_URDF_BOX:
			return kl_create_box_shape(
				body, &def, kl_vec3(0.5f * (float)g->size[0], 0.5f * (float)g->size[1], 0.5f * (float)g->size[2]));
		case KL_URDF_SPHERE: return kl_create_sphere_shape(body, &def, (float)g->radius);
		case KL_URDF_CYLINDER: return create_cylinder(body, &def, (float)g->radius, (float)g->length);
		case KL_URDF_MESH:
		{
			kl_mesh* mesh = cached_mesh(b, g->filename);
			vec3s scale = kl_vec3((float)g->scale[0], (float)g->scale[1], (float)g->scale[2]);
			return mesh != NULL ? kl_create_mesh_shape(body, &def, mesh, scale) : kl_null_shape_id;
		}
	}
	kl_fail(KL_ERR_INVALID_ARGUMENT, "geometry type %d is not a kl_urdf_geometry_type", (int)g->type);
	return kl_null_shape_id;
}

/// The inertial as the body's mass properties (the inertia turned by the inertial's rpy).
static kl_mass_data link_mass(const kl_urdf_link* link)
{
	kl_mass_data md;
	md.mass = link->mass > 0.0 ? (float)link->mass : KL_URDF_MASSLESS_MASS;
	md.center = link->mass > 0.0
					? kl_vec3((float)link->inertial_xyz[0], (float)link->inertial_xyz[1], (float)link->inertial_xyz[2])
					: kl_vec3(0.0f, 0.0f, 0.0f);
	const double* t = link->inertia;
	if (!(link->mass > 0.0) || t[0] + t[3] + t[5] <= 0.0)
	{
		float s = 0.4f * md.mass * KL_URDF_MASSLESS_RADIUS * KL_URDF_MASSLESS_RADIUS;
		md.inertia = glms_mat3_scale(glms_mat3_identity(), s);
		return md;
	}
	mat3s local = {{{(float)t[0], (float)t[1], (float)t[2]},
					{(float)t[1], (float)t[3], (float)t[4]},
					{(float)t[2], (float)t[4], (float)t[5]}}};
	static const double zero[3] = {0.0, 0.0, 0.0};
	kl_transform frame = kl_urdf_pose_to_transform(kl_urdf_origin(zero, link->inertial_rpy));
	mat3s r = glms_quat_mat3(frame.q);
	md.inertia = glms_mat3_mul(glms_mat3_mul(r, local), glms_mat3_transpose(r));
	return md;
}

/// Links welded to the root by fixed joints (the base, which a fixed-base robot holds static).
static bool is_base(const kl_urdf_model* m, int link)
{
	while (m->links[link].parent_joint >= 0)
	{
		const kl_urdf_joint* j = &m->joints[m->links[link].parent_joint];
		if (j->type != KL_URDF_FIXED)
		{
			return false;
		}
		link = j->parent;
	}
	return true;
}

static kl_body_type link_body_type(const builder* b, int link)
{
	if (is_base(b->model, link) && b->def->fixed_base)
	{
		return KL_BODY_STATIC;
	}
	return b->def->drive == KL_ROBOT_DRIVE_KINEMATIC ? KL_BODY_KINEMATIC : KL_BODY_DYNAMIC;
}

static bool create_link(builder* b, kl_robot* robot, int link_index, kl_transform pose)
{
	const kl_urdf_link* link = &b->model->links[link_index];
	char name[256];
	if (!full_name(name, sizeof(name), b->name, link->name))
	{
		return false;
	}
	kl_body_def def = kl_default_body_def();
	def.type = link_body_type(b, link_index);
	def.position = pose.p;
	def.rotation = pose.q;
	def.name = name;
	kl_body_id body = kl_create_body(b->world, &def);
	if (KL_IS_NULL(body))
	{
		fail_api(b->name, "link", link->name);
		return false;
	}
	robot->bodies[link_index] = body;
	for (int i = 0; i < link->collision_count; ++i)
	{
		if (KL_IS_NULL(create_shape(b, body, &link->collisions[i])))
		{
			fail_api(b->name, "collision of link", link->name);
			return false;
		}
	}
	if (def.type == KL_BODY_DYNAMIC && kl_body_set_mass_data(body, link_mass(link)) != KL_OK)
	{
		fail_api(b->name, "inertial of link", link->name);
		return false;
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Joints

static kl_joint_def joint_def(const builder* b, const kl_robot* robot, int index, double position)
{
	const kl_urdf_joint* j = &b->model->joints[index];
	bool moves = kl_urdf_joint_moves(j);
	kl_joint_def def = kl_default_joint_def(!moves						   ? KL_JOINT_FIXED
											: j->type == KL_URDF_PRISMATIC ? KL_JOINT_PRISMATIC
																		   : KL_JOINT_REVOLUTE);
	def.body_a = robot->bodies[j->parent];
	def.body_b = robot->bodies[j->child];
	kl_transform origin = kl_urdf_pose_to_transform(kl_urdf_origin(j->xyz, j->rpy));
	// The engine's joint axis is the frames' z: both frames turn z onto the URDF axis, so the
	// engine's angle or translation is the URDF joint position.
	kl_transform align = kl_transform_identity();
	if (moves)
	{
		align.q = glms_quat_from_vecs(kl_vec3(0.0f, 0.0f, 1.0f),
									  kl_vec3((float)j->axis[0], (float)j->axis[1], (float)j->axis[2]));
	}
	def.local_frame_a = kl_transform_mul(origin, align);
	def.local_frame_b = align;
	if (!moves || b->def->drive != KL_ROBOT_DRIVE_MOTOR)
	{
		return def;
	}
	def.enable_motor = true;
	def.motor_mode = KL_MOTOR_POSITION;
	def.motor_target = (float)position;
	def.max_motor_force = j->effort > 0.0 ? (float)j->effort : KL_URDF_DEFAULT_EFFORT;
	// Revolute limits beyond a turn cannot be told from the engine's angle in [-π, π]: left off.
	bool in_turn = j->type == KL_URDF_PRISMATIC || (j->lower >= -GLM_PI && j->upper <= GLM_PI);
	def.enable_limit = j->has_limit && in_turn;
	def.lower = def.enable_limit ? (float)j->lower : 0.0f;
	def.upper = def.enable_limit ? (float)j->upper : 0.0f;
	return def;
}

static bool create_joints(builder* b, kl_robot* robot)
{
	for (int i = 0; i < b->model->joint_count; ++i)
	{
		const kl_urdf_joint* j = &b->model->joints[i];
		char name[256];
		if (!full_name(name, sizeof(name), b->name, j->name))
		{
			return false;
		}
		kl_joint_def def = joint_def(b, robot, i, robot->positions[i]);
		def.name = name;
		robot->joints[i] = kl_create_joint(b->world, &def);
		if (KL_IS_NULL(robot->joints[i]))
		{
			fail_api(b->name, "joint", j->name);
			return false;
		}
	}
	return true;
}

// ---------------------------------------------------------------------------------------------
// Robots

static kl_robot* alloc_robot(kl_world_id world, const kl_urdf_model* model, kl_robot_drive drive)
{
	kl_robot* robot = kl_alloc_zero(1, sizeof(kl_robot));
	if (robot == NULL)
	{
		return NULL;
	}
	robot->world = world;
	robot->model = model;
	robot->drive = drive;
	robot->bodies = kl_alloc_zero((size_t)model->link_count, sizeof(kl_body_id));
	robot->joints = kl_alloc_zero((size_t)model->joint_count + 1, sizeof(kl_joint_id));
	robot->positions = kl_alloc_zero((size_t)model->joint_count + 1, sizeof(double));
	if (robot->bodies == NULL || robot->joints == NULL || robot->positions == NULL)
	{
		kl_robot_free(robot);
		return NULL;
	}
	return robot;
}

void kl_robot_free(kl_robot* robot)
{
	if (robot != NULL)
	{
		kl_free(robot->bodies);
		kl_free(robot->joints);
		kl_free(robot->positions);
		kl_free(robot->name);
		kl_free(robot);
	}
}

void kl_robot_destroy(kl_robot* robot)
{
	if (robot == NULL)
	{
		return;
	}
	// Destroying a body destroys its joints.
	for (int i = 0; i < robot->model->link_count; ++i)
	{
		if (KL_IS_NON_NULL(robot->bodies[i]) && kl_body_is_valid(robot->bodies[i]))
		{
			kl_destroy_body(robot->bodies[i]);
		}
	}
	kl_robot_free(robot);
}

static kl_result check_def(kl_world_id world, const kl_urdf_model* model, const kl_robot_def* def)
{
	if (!kl_world_is_valid(world))
	{
		return kl_fail(KL_ERR_INVALID_ID, "robot: the world is not valid");
	}
	if (model == NULL || def == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot: model and def must not be NULL");
	}
	if ((int)def->drive < 0 || def->drive > KL_ROBOT_DRIVE_MOTOR)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot: drive %d is not a kl_robot_drive", (int)def->drive);
	}
	const char* name = def->name != NULL ? def->name : model->name;
	if (name[0] == '\0')
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot: the name is empty");
	}
	versors q = def->pose.q;
	float n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
	if (!kl_transform_is_finite(def->pose) || !(n > 1.0e-12f))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot '%s': the pose must be finite with a non-zero quaternion", name);
	}
	// Names find a robot's parts: a second robot of the same name would make them ambiguous.
	char root[256];
	if (!full_name(root, sizeof(root), name, model->links[model->link_order[0]].name))
	{
		return KL_ERR_LIMIT;
	}
	if (KL_IS_NON_NULL(kl_world_find_body(world, root)))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "robot '%s': the world has a body named '%s' already", name, root);
	}
	return KL_OK;
}

/// The initial positions: the def's, or zero moved into each joint's limits.
static void initial_positions(const kl_urdf_model* model, const kl_robot_def* def, double* positions)
{
	for (int j = 0; j < model->joint_count; ++j)
	{
		const kl_urdf_joint* joint = &model->joints[j];
		double q = def->joint_positions != NULL ? def->joint_positions[j] : 0.0;
		if (def->joint_positions == NULL && joint->has_limit)
		{
			q = q < joint->lower ? joint->lower : q > joint->upper ? joint->upper : q;
		}
		positions[j] = kl_urdf_joint_moves(joint) ? q : 0.0;
	}
}

/// A negative group index of the robot's name, shared by all its shapes so that they never collide.
static int32_t self_group(const char* name)
{
	uint32_t h = 2166136261u;
	for (const char* c = name; *c != '\0'; ++c)
	{
		h = (h ^ (uint8_t)*c) * 16777619u;
	}
	return -(int32_t)(h & 0x3fffffffu) - 1;
}

static bool build(builder* b, kl_robot* robot)
{
	kl_transform base = b->def->pose;
	base.q = glms_quat_normalize(base.q);
	kl_transform* poses = kl_alloc((size_t)b->model->link_count, sizeof(kl_transform));
	bool ok = poses != NULL && kl_robot_link_transforms(b->model, base, robot->positions, poses);
	for (int k = 0; ok && k < b->model->link_count; ++k)
	{
		int link = b->model->link_order[k];
		ok = create_link(b, robot, link, poses[link]);
	}
	kl_free(poses);
	return ok && create_joints(b, robot);
}

kl_robot* kl_robot_create(kl_world_id world, const kl_urdf_model* model, const kl_robot_def* def)
{
	if (check_def(world, model, def) != KL_OK)
	{
		return NULL;
	}
	builder b = {world, model, def, def->name != NULL ? def->name : model->name, 0, NULL, 0, 0};
	b.group = def->self_collision ? 0 : self_group(b.name);
	kl_robot* robot = alloc_robot(world, model, def->drive);
	if (robot == NULL)
	{
		return NULL;
	}
	robot->name = kl_strdup(b.name);
	initial_positions(model, def, robot->positions);
	bool ok =
		robot->name != NULL && kl_robot_check_positions(model, b.name, robot->positions) == KL_OK && build(&b, robot);
	for (int i = 0; i < b.mesh_count; ++i)
	{
		kl_mesh_release(b.meshes[i].mesh);
	}
	kl_free(b.meshes);
	if (!ok)
	{
		kl_error_state error;
		kl_error_save(&error);
		kl_robot_destroy(robot);
		kl_error_restore(&error);
		return NULL;
	}
	return robot;
}
