// Kollide scenes — what the mesh scenes (mesh_pile, gear_train, screw_block, bowl_stack,
// penalty_meshes) share: collision models built from the procedural meshes of tools/meshgen, and
// bodies made of one mesh.
// SPDX-License-Identifier: MIT
#pragma once

#include "demo_common.h"
#include "meshgen.h"

/// Builds a collision model from a generated mesh and frees the generated arrays (also on failure).
/// `what` names the mesh in the build's source field. NULL on failure (kl_last_error says why).
kl_mesh* kl_demo_mesh_from_meshgen(kl_meshgen_mesh* generated, const char* what);
/// The same, with the point-shell model when point_shells is set (the screw and its block, which
/// the tests and the viewer may switch to that backend).
kl_mesh* kl_demo_mesh_from_meshgen_with(kl_meshgen_mesh* generated, const char* what, bool point_shells);

/// The same, packed with up to inner_spheres inner spheres (the penalty contact model's model).
kl_mesh* kl_demo_mesh_from_meshgen_packed(kl_meshgen_mesh* generated, const char* what, int inner_spheres);

/// A box of half extents `half` centred on the origin as a closed 12-triangle mesh, packed with up to
/// inner_spheres inner spheres (0: none). NULL on failure.
kl_mesh* kl_demo_box_mesh(vec3s half, int inner_spheres);

/// The mesh pile's gear (12 teeth, module 6 mm, 2 cm wide, 12 mm bore) and torus knot (a 9 mm tube),
/// object units in metres: one definition, which the tests use to pose parts against the pile's own.
kl_meshgen_gear_params kl_demo_pile_gear_params(void);
kl_meshgen_torus_knot_params kl_demo_pile_knot_params(void);

/// An L-shaped bar: two arms of length `arm` and width `width` in the xy plane, extruded `depth`
/// along z, centred on its bounding box. A small non-convex mesh (24 triangles). NULL on failure.
kl_mesh* kl_demo_make_l_mesh(float arm, float width, float depth);

/// A body of that type at a pose with one mesh shape (scaled uniformly by `scale`). The null id on
/// failure. The shape keeps its own reference to the mesh.
kl_body_id kl_demo_add_mesh_body(kl_world_id world, kl_body_type type, kl_mesh* mesh, float scale, vec3s position,
								 versors rotation, const kl_shape_def* def);
