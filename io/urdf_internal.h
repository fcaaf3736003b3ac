// Kollide internal — URDF loading shared by its parts: the XML reading (urdf_parse.c), the checks
// and the tree (urdf_model.c) and mesh file resolution (urdf_paths.c).
// SPDX-License-Identifier: MIT
#pragma once

#include "core.h"

#include <kollide/urdf.h>

/// Most collision or visual elements one link may have.
#define KL_URDF_MAX_GEOMETRIES 256
/// URDF files larger than this are refused before reading.
#define KL_URDF_MAX_FILE_SIZE ((size_t)64 << 20)

/// Fails with KL_ERR_PARSE and the message, prefixed by the file name where there is one; returns NULL.
kl_urdf_model* kl_urdf_fail(const char* file, kl_result code, const char* format, ...) KL_PRINTF(3, 4);

/// Parses the XML into a model without the checks of the tree (names only, indices unresolved:
/// joints' parent and child are stored in parent_name / child_name). NULL on failure.
typedef struct kl_urdf_raw_joint
{
	char* parent_name;
	char* child_name;
} kl_urdf_raw_joint;

kl_urdf_model* kl_urdf_read_xml(const char* text, size_t length, const char* file, kl_urdf_raw_joint** raw_out);

/// Resolves the link and joint names into indices, checks the tree (one root, no cycles, one parent
/// per link) and orders the links. Fails with a message naming the element.
bool kl_urdf_build_tree(kl_urdf_model* model, const kl_urdf_raw_joint* raw, const char* file);

/// Finds every mesh file (package://, file://, relative and absolute names): a collision mesh that
/// is missing or of a format the loaders do not read fails; a visual one is left without a filename.
bool kl_urdf_resolve_meshes(kl_urdf_model* model, const kl_urdf_load_options* options, const char* base_dir,
							const char* file);

/// A rigid transform in double: rotate by q (x, y, z, w), then translate by p.
typedef struct kl_urdf_pose
{
	double p[3];
	double q[4];
} kl_urdf_pose;

kl_urdf_pose kl_urdf_pose_mul(kl_urdf_pose a, kl_urdf_pose b);
kl_urdf_pose kl_urdf_pose_from_transform(kl_transform t);
kl_transform kl_urdf_pose_to_transform(kl_urdf_pose pose);
/// The URDF origin xyz + rpy (fixed-axis roll about x, pitch about y, yaw about z).
kl_urdf_pose kl_urdf_origin(const double* xyz, const double* rpy);
/// Every link's pose relative to the root frame (link_poses[link index]); positions one per joint,
/// NULL: zero.
void kl_urdf_link_poses(const kl_urdf_model* model, const double* positions, kl_urdf_pose* link_poses);
