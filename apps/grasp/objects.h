// Kollide grasp — kitchen objects made of primitives (cylinders, boxes, balls, rings), filled with
// inner spheres on a grid for the sphere-tree contact query.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/geometry.h>

typedef enum kg_primitive_kind
{
	KG_PRIM_CYLINDER, ///< axis z, radius a, half height b
	KG_PRIM_BOX,	  ///< half extents a, b, c
	KG_PRIM_BALL,	  ///< radius a
	KG_PRIM_RING,	  ///< torus in the x-z plane: ring radius a, tube radius b
} kg_primitive_kind;

typedef struct kg_primitive
{
	kg_primitive_kind kind;
	float a, b, c;
	vec3s offset; ///< centre in the object frame
} kg_primitive;

#define KG_OBJECT_MAX_PRIMITIVES 4

/// The objects of the labelled set.
typedef enum kg_object_kind
{
	KG_OBJ_BOTTLE_LARGE,
	KG_OBJ_BOTTLE,
	KG_OBJ_HANDLE,
	KG_OBJ_KNIFE,
	KG_OBJ_PEN,
	KG_OBJ_KEY,
	KG_OBJ_LID,
	KG_OBJ_BALL_LARGE,
	KG_OBJ_BALL,
	KG_OBJ_BALL_SMALL,
	KG_OBJ_BEAD,
	KG_OBJ_PLATE,
	KG_OBJ_BOARD,
	KG_OBJ_SCISSORS,
	KG_OBJ_MUG,
	KG_OBJ_BOX,
	KG_OBJ_BOOK,
	KG_OBJ_COUNT
} kg_object_kind;

typedef struct kg_object
{
	const char* name;
	int primitive_count;
	kg_primitive primitives[KG_OBJECT_MAX_PRIMITIVES];
	kl_sphere* spheres; ///< inner spheres in the object frame
	int sphere_count;
} kg_object;

/// The object's shape (no spheres yet).
kg_object kg_object_shape(kg_object_kind kind);
/// Signed distance from the object's surface (negative inside).
float kg_object_distance(const kg_object* object, vec3s p);
/// Fills the object with spheres on a grid (spacing from its thinnest part) in a band under the
/// surface; false with kg_error() on out of memory.
bool kg_object_fill(kg_object* object);
void kg_object_destroy(kg_object* object);
