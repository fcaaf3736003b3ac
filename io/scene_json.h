// Kollide internal — names and constants shared by the JSON scene loader and saver.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>
#include <kollide/urdf.h>

/// The format version written by the saver; the loader accepts files without one as this version.
#define KL_SCENE_VERSION 1

/// Scene files larger than this are refused before reading (a scene is text, not a mesh).
#define KL_SCENE_MAX_FILE_SIZE ((size_t)256 << 20)

// Enum names as written in scene files; NULL for a value outside the enum. They take int so that
// the loader can look names up with one generic loop.

static inline const char* kl_scene_body_type_name(int type)
{
	switch ((kl_body_type)type)
	{
		case KL_BODY_STATIC: return "static";
		case KL_BODY_KINEMATIC: return "kinematic";
		case KL_BODY_DYNAMIC: return "dynamic";
		case KL_BODY_TYPE_COUNT: break;
	}
	return NULL;
}

static inline const char* kl_scene_mesh_backend_name(int backend)
{
	switch ((kl_mesh_backend)backend)
	{
		case KL_MESH_BACKEND_BVH: return "bvh";
		case KL_MESH_BACKEND_POINTSHELL: return "pointshell";
	}
	return NULL;
}

static inline const char* kl_scene_contact_model_name(int model)
{
	switch ((kl_contact_model)model)
	{
		case KL_CONTACT_CONSTRAINT: return "constraint";
		case KL_CONTACT_PENALTY: return "penalty";
	}
	return NULL;
}

static inline const char* kl_scene_shape_type_name(int type)
{
	switch ((kl_shape_type)type)
	{
		case KL_SHAPE_SPHERE: return "sphere";
		case KL_SHAPE_BOX: return "box";
		case KL_SHAPE_CAPSULE: return "capsule";
		case KL_SHAPE_HULL: return "hull";
		case KL_SHAPE_MESH: return "mesh";
		case KL_SHAPE_PLANE: return "plane";
		case KL_SHAPE_TYPE_COUNT: break;
	}
	return NULL;
}

static inline const char* kl_scene_joint_type_name(int type)
{
	switch ((kl_joint_type)type)
	{
		case KL_JOINT_FIXED: return "fixed";
		case KL_JOINT_REVOLUTE: return "revolute";
		case KL_JOINT_PRISMATIC: return "prismatic";
		case KL_JOINT_SPHERICAL: return "spherical";
		case KL_JOINT_DISTANCE: return "distance";
		case KL_JOINT_TARGET: return "target";
		case KL_JOINT_TYPE_COUNT: break;
	}
	return NULL;
}

static inline const char* kl_scene_motor_mode_name(int mode)
{
	switch ((kl_motor_mode)mode)
	{
		case KL_MOTOR_VELOCITY: return "velocity";
		case KL_MOTOR_POSITION: return "position";
	}
	return NULL;
}

static inline const char* kl_scene_robot_drive_name(int drive)
{
	switch ((kl_robot_drive)drive)
	{
		case KL_ROBOT_DRIVE_KINEMATIC: return "kinematic";
		case KL_ROBOT_DRIVE_MOTOR: return "motor";
	}
	return NULL;
}
