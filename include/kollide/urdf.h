// Kollide — URDF robot descriptions: parse one into a model, place it in a world as a robot, drive
// its joints (docs/urdf.md).
// SPDX-License-Identifier: MIT
#pragma once

#include "id.h"
#include "types.h"

KL_C_BEGIN

/// Most links or joints a URDF may have.
#define KL_URDF_MAX_LINKS 1024
/// Most package directories a load searches.
#define KL_URDF_MAX_PACKAGE_PATHS 16

typedef enum kl_urdf_geometry_type
{
	KL_URDF_BOX = 0,
	KL_URDF_CYLINDER, ///< along the geometry frame's z
	KL_URDF_SPHERE,
	KL_URDF_MESH,
} kl_urdf_geometry_type;

/// One <collision> or <visual> element. Numbers are kept as the file gives them (double).
typedef struct kl_urdf_geometry
{
	kl_urdf_geometry_type type;
	double xyz[3];	 ///< origin in the link frame
	double rpy[3];	 ///< fixed-axis roll, pitch, yaw (rad)
	double size[3];	 ///< box: full side lengths
	double radius;	 ///< cylinder, sphere
	double length;	 ///< cylinder
	double scale[3]; ///< mesh
	/// Mesh: the file as found (package:// and relative names resolved); NULL for a visual mesh that
	/// was not found (visuals are optional; a missing collision mesh fails the load).
	char* filename;
	char* uri;	   ///< mesh: the filename attribute as written
	float rgba[4]; ///< visual: the material's colour where the file gives one (else 0.7 grey)
} kl_urdf_geometry;

typedef struct kl_urdf_link
{
	char* name;
	double mass; ///< 0 without an <inertial>
	double inertial_xyz[3];
	double inertial_rpy[3];
	double inertia[6]; ///< ixx, ixy, ixz, iyy, iyz, izz in the inertial frame
	kl_urdf_geometry* collisions;
	int collision_count;
	kl_urdf_geometry* visuals;
	int visual_count;
	int parent_joint; ///< index of the joint whose child this link is; -1 for the root
} kl_urdf_link;

typedef enum kl_urdf_joint_type
{
	KL_URDF_FIXED = 0,
	KL_URDF_REVOLUTE,
	KL_URDF_CONTINUOUS,
	KL_URDF_PRISMATIC,
} kl_urdf_joint_type;

typedef struct kl_urdf_joint
{
	char* name;
	kl_urdf_joint_type type;
	int parent; ///< link indices
	int child;
	double xyz[3]; ///< joint frame in the parent link frame
	double rpy[3];
	double axis[3]; ///< unit, in the joint frame (default x)
	bool has_limit; ///< revolute and prismatic: the <limit> bounds; continuous: never
	double lower;	///< rad or m
	double upper;
	double effort;	 ///< N·m or N; 0: not given
	double velocity; ///< rad/s or m/s; 0: not given
} kl_urdf_joint;

/// A parsed URDF. Links and joints are in file order; every link but the root is the child of
/// exactly one joint.
typedef struct kl_urdf_model
{
	char* name; ///< the <robot> name
	kl_urdf_link* links;
	int link_count;
	kl_urdf_joint* joints;
	int joint_count;
	/// Links in an order where each parent comes before its children: link_order[0] is the root.
	int* link_order;
} kl_urdf_model;

typedef struct kl_urdf_load_options
{
	/// A package://PKG/REST mesh resolves to DIR/PKG/REST for the first DIR that has it.
	const char* const* package_paths;
	int package_path_count;
	/// Directory relative mesh names resolve against (NULL: the URDF file's directory; for a string,
	/// the working directory).
	const char* base_dir;
} kl_urdf_load_options;

KL_API kl_urdf_load_options kl_default_urdf_load_options(void);

/// Parses a URDF file. Refuses (NULL, kl_last_error() says why): malformed XML, missing or
/// repeated names, joints naming unknown links, a link with two parents, cycles, several roots,
/// unknown joint or geometry types, missing collision mesh files, non-finite or absurd numbers.
KL_API kl_urdf_model* kl_urdf_load_file(const char* path, const kl_urdf_load_options* options);
KL_API kl_urdf_model* kl_urdf_parse(const char* text, size_t length, const kl_urdf_load_options* options);
KL_API void kl_urdf_model_free(kl_urdf_model* model);

/// Index of the link or joint of that name, or -1.
KL_API int kl_urdf_find_link(const kl_urdf_model* model, const char* name);
KL_API int kl_urdf_find_joint(const kl_urdf_model* model, const char* name);
/// True for the joints that move (revolute, continuous, prismatic).
KL_API bool kl_urdf_joint_moves(const kl_urdf_joint* joint);

/// The pose of every link in the model's root frame for the given joint positions (one per joint,
/// in model order; fixed joints' values are ignored; NULL: all zero): the URDF convention, the
/// child frame = joint origin (xyz, then rpy) × the motion about or along the axis.
KL_API kl_result kl_urdf_forward_kinematics(const kl_urdf_model* model, const double* joint_positions,
											kl_transform* link_poses);

// ---------------------------------------------------------------------------------------------
// Robots: a model placed in a world

typedef enum kl_robot_drive
{
	/// The moving links are kinematic bodies that follow the forward kinematics of the joint
	/// positions given (exactly, by target poses reached at the end of the next step), pushing what
	/// they touch.
	KL_ROBOT_DRIVE_KINEMATIC = 0,
	/// The links are dynamic bodies with the URDF inertials; position motors drive the joints to
	/// the positions given with at most the URDF effort.
	KL_ROBOT_DRIVE_MOTOR,
} kl_robot_drive;

typedef struct kl_robot_def
{
	const char* name;  ///< bodies become NAME/LINK and joints NAME/JOINT; NULL: the model's name
	kl_transform pose; ///< where the root link's frame goes
	/// The root and the links welded to it by fixed joints are static bodies; otherwise kinematic
	/// (kinematic drive) or dynamic (motor drive).
	bool fixed_base;
	kl_robot_drive drive;
	/// Initial positions, one per model joint (NULL: zero, clamped into the limits).
	const double* joint_positions;
	/// Links of the robot collide with one another (default false: a negative group index).
	bool self_collision;
	kl_material material; ///< of every shape (density unused: masses come from the inertials)
} kl_robot_def;

KL_API kl_robot_def kl_default_robot_def(void);

typedef struct kl_robot kl_robot;

/// Creates the robot's bodies, shapes and joints. The model must outlive the robot. On failure
/// nothing is left in the world and NULL is returned.
KL_API kl_robot* kl_robot_create(kl_world_id world, const kl_urdf_model* model, const kl_robot_def* def);
/// A handle to a robot already in the world (made by kl_robot_create or a scene file) found by its
/// bodies' and joints' names. Fails when one is missing.
KL_API kl_robot* kl_robot_bind(kl_world_id world, const kl_urdf_model* model, const char* name, kl_robot_drive drive);
/// Frees the handle; the bodies and joints stay in the world.
KL_API void kl_robot_free(kl_robot* robot);
/// Destroys the robot's bodies and joints and frees the handle.
KL_API void kl_robot_destroy(kl_robot* robot);

KL_API const kl_urdf_model* kl_robot_get_model(const kl_robot* robot);
KL_API kl_body_id kl_robot_get_body(const kl_robot* robot, int link_index);
/// The engine joint of a model joint (fixed joints too).
KL_API kl_joint_id kl_robot_get_joint(const kl_robot* robot, int joint_index);

/// Streams joint positions (one per model joint, fixed ones ignored), to be reached at the end of
/// the next step of dt: kinematic drive sets each moving link's target pose, motor drive the
/// motors' targets. Refuses non-finite values and positions outside a joint's limits, changing
/// nothing.
KL_API kl_result kl_robot_set_joint_positions(kl_robot* robot, const double* positions, float dt);
/// Places every link at the forward kinematics of the positions at once, at rest (both drives).
KL_API kl_result kl_robot_teleport(kl_robot* robot, const double* positions);
/// The joint positions: the last ones streamed (kinematic drive) or measured from the bodies
/// (motor drive; revolute angles continue from the last target across ±π).
KL_API void kl_robot_get_joint_positions(const kl_robot* robot, double* positions);

KL_C_END
