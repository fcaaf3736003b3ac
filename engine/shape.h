// Kollide internal — shapes: geometry, local pose, material, filter and bounds.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

typedef struct kl_world kl_world;

typedef struct kl_shape
{
	int id;		///< slot, or -1 when free
	uint16_t generation;
	int body;	///< owning body slot
	int next_shape; ///< next shape slot on the same body, -1 at the end
	kl_shape_type type;
	union
	{
		float sphere_radius;
		vec3s box_half_extents;
		struct
		{
			float radius;
			float half_height;
		} capsule;
		kl_hull* hull; ///< owned copy
		struct
		{
			kl_mesh* mesh; ///< one reference held
			vec3s scale;
		} mesh;
		kl_plane plane;
	};
	kl_transform local_pose;
	kl_mesh_backend mesh_backend;
	kl_contact_model contact_model; ///< mesh shapes only (docs/penalty-contact.md)
	float penalty_stiffness;		///< N/m³
	float penalty_damping_ratio;
	kl_material material;
	kl_filter filter;
	kl_mass_data mass_data; ///< body frame
	kl_aabb aabb;	  ///< world bounds at the current pose
	kl_aabb fat_aabb; ///< bounds enlarged by a margin; refreshed when aabb leaves it
	bool enlarged;	  ///< fat_aabb changed and the broadphase has not seen it yet
	bool queued;	  ///< in the world's enlarged-shape list
	bool is_sensor;
	bool enable_contact_events;
	bool enable_sensor_events;
	bool enable_hit_events;
	bool enable_custom_filtering;
	bool enable_pre_solve_events;
	char* name;
	void* user_data;
	int proxy_key; ///< broadphase handle, -1 when not in the broadphase
	/// Boxes and hulls that touch a mesh: their triangles with a BVH, so that the mesh narrowphase
	/// treats them as small meshes. Built on first need (serially, when such a pair begins).
	struct kl_bvh* tri_bvh;
	vec3s* tri_vertices;
	int tri_vertex_count;
	int32_t* tri_indices;
	int32_t* tri_opposite; ///< tri_adjacency.h; NULL for sphere and capsule cores
	vec3s* tri_vertex_normals; ///< pseudo-normals (tri_adjacency.h); NULL for sphere and capsule cores
	float* tri_vertex_cone_cos; ///< their normal cones (tri_adjacency.h)
	float tri_thickness;   ///< smallest extent of the triangles' bounds
} kl_shape;

kl_shape* kl_get_shape(kl_shape_id id, kl_world** world_out);
kl_shape_id kl_make_shape_id(const kl_world* world, const kl_shape* shape);

/// Bounds of the shape placed at the body transform.
kl_aabb kl_compute_shape_aabb(const kl_shape* shape, kl_transform body_transform);
/// Mass data of the shape in its body's frame.
kl_mass_data kl_compute_shape_mass(const kl_shape* shape);
/// Frees what a shape owns (hull copy, mesh reference, name).
void kl_shape_release_geometry(kl_shape* shape);
/// Updates aabb for every shape of the body; when it leaves fat_aabb, the fat box is rebuilt with
/// the margin and stretched by the displacement predicted for the next step, and `enlarged` is set.
void kl_update_body_shape_bounds(kl_world* world, int body_slot, float margin, vec3s displacement);
