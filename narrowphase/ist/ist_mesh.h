// Kollide internal — a mesh's inner spheres and their tree (kl_mesh_def.inner_spheres), the model of
// the penalty contact model (docs/penalty-contact.md).
// SPDX-License-Identifier: MIT
#pragma once

#include "mesh.h"

/// Packs the built mesh with def->inner_spheres spheres (from def->inner_sphere_cache when it holds
/// them) and builds their tree (default tree def). Fails for an open mesh.
kl_result kl_mesh_build_inner_spheres(const kl_mesh_def* def, kl_mesh* mesh);
void kl_mesh_free_inner_spheres(kl_mesh* mesh);
