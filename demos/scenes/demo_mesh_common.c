// Kollide scenes — helpers of the mesh scenes (demo_mesh_common.h).
// SPDX-License-Identifier: MIT
#include "demo_mesh_common.h"

kl_mesh* kl_demo_mesh_from_meshgen(kl_meshgen_mesh* generated, const char* what)
{
	return kl_demo_mesh_from_meshgen_with(generated, what, false);
}

/// Builds the generated mesh with def's settings and frees the generated arrays.
static kl_mesh* build_generated(kl_meshgen_mesh* generated, const char* what, kl_mesh_def def)
{
	def.vertices = generated->vertices;
	def.vertex_count = generated->vertex_count;
	def.indices = generated->indices;
	def.triangle_count = generated->triangle_count;
	def.source = what;
	kl_mesh* mesh = generated->vertices != NULL ? kl_mesh_build(&def) : NULL;
	kl_meshgen_free(generated);
	return mesh;
}

kl_mesh* kl_demo_mesh_from_meshgen_with(kl_meshgen_mesh* generated, const char* what, bool point_shells)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.build_pointshell = point_shells;
	return build_generated(generated, what, def);
}

kl_mesh* kl_demo_mesh_from_meshgen_packed(kl_meshgen_mesh* generated, const char* what, int inner_spheres)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.inner_spheres = inner_spheres;
	return build_generated(generated, what, def);
}

kl_mesh* kl_demo_box_mesh(vec3s half, int inner_spheres)
{
	vec3s vertices[8];
	for (int i = 0; i < 8; ++i)
	{
		vertices[i] = kl_vec3((i & 1) ? half.x : -half.x, (i & 2) ? half.y : -half.y, (i & 4) ? half.z : -half.z);
	}
	// Two outward counter-clockwise triangles per face.
	static const int32_t indices[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
										2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = 8;
	def.indices = indices;
	def.triangle_count = 12;
	def.inner_spheres = inner_spheres;
	return kl_mesh_build(&def);
}

kl_mesh* kl_demo_make_l_mesh(float arm, float width, float depth)
{
	// The outline, counter-clockwise seen from +z; (0, w) splits the long left side so that the
	// caps' triangles and the side quads share every edge (a closed two-manifold).
	const float a = arm, w = width;
	const float outline[7][2] = {{0.0f, 0.0f}, {a, 0.0f}, {a, w}, {w, w}, {w, a}, {0.0f, a}, {0.0f, w}};
	// Cap triangles over the outline's indices: a fan from corner 0 over the long arm, one from
	// corner 6 over the short one.
	static const int32_t cap[5][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 6}, {6, 3, 4}, {6, 4, 5}};
	vec3s vertices[14];
	const float c = 0.5f * a; // centre of the bounding box in x and y
	for (int i = 0; i < 7; ++i)
	{
		vertices[i] = kl_vec3(outline[i][0] - c, outline[i][1] - c, -0.5f * depth);
		vertices[7 + i] = kl_vec3(outline[i][0] - c, outline[i][1] - c, 0.5f * depth);
	}
	int32_t indices[24 * 3];
	int n = 0;
	for (int t = 0; t < 5; ++t)
	{
		// Bottom cap faces -z (reversed), top cap faces +z.
		indices[n++] = cap[t][0];
		indices[n++] = cap[t][2];
		indices[n++] = cap[t][1];
		indices[n++] = 7 + cap[t][0];
		indices[n++] = 7 + cap[t][1];
		indices[n++] = 7 + cap[t][2];
	}
	for (int i = 0; i < 7; ++i)
	{
		int j = (i + 1) % 7;
		const int32_t quad[6] = {i, j, 7 + j, i, 7 + j, 7 + i};
		for (int k = 0; k < 6; ++k)
		{
			indices[n++] = quad[k];
		}
	}
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = vertices;
	def.vertex_count = 14;
	def.indices = indices;
	def.triangle_count = n / 3;
	def.source = "l_shape";
	return kl_mesh_build(&def);
}

kl_body_id kl_demo_add_mesh_body(kl_world_id world, kl_body_type type, kl_mesh* mesh, float scale, vec3s position,
								 versors rotation, const kl_shape_def* def)
{
	kl_body_id body = kl_demo_add_body(world, type, position, rotation);
	if (KL_IS_NULL(body))
	{
		return body;
	}
	if (KL_IS_NULL(kl_create_mesh_shape(body, def, mesh, kl_vec3(scale, scale, scale))))
	{
		kl_destroy_body(body);
		return kl_null_body_id;
	}
	return body;
}
