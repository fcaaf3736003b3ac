// Kollide — geometry that exists without a world: mass properties, convex hulls, mesh collision models.
// SPDX-License-Identifier: MIT
#pragma once

#include "math.h"

KL_C_BEGIN

/// Mass properties. inertia is the inertia tensor about the centre of mass, in the frame the
/// properties were computed in (shape frame for shapes, body frame for bodies).
typedef struct kl_mass_data
{
	float mass;
	vec3s center;
	mat3s inertia;
} kl_mass_data;

/// Principal axes: inertia = R diag(moments) R^T with R the rotation of q. Moments ascend.
typedef struct kl_principal_inertia
{
	vec3s moments;
	versors rotation;
} kl_principal_inertia;

KL_API kl_mass_data kl_compute_sphere_mass(float radius, float density);
KL_API kl_mass_data kl_compute_box_mass(vec3s half_extents, float density);
/// Capsule whose segment runs along local z from -half_height to +half_height.
KL_API kl_mass_data kl_compute_capsule_mass(float radius, float half_height, float density);

/// Moves mass data into a parent frame (rotation plus translation of the centre).
KL_API kl_mass_data kl_mass_data_transform(kl_mass_data md, kl_transform frame);
/// Sums mass data given in one frame (parallel-axis theorem about the combined centre).
KL_API kl_mass_data kl_mass_data_add(kl_mass_data a, kl_mass_data b);
/// Diagonalises a symmetric inertia tensor (Jacobi rotations in double precision).
KL_API kl_principal_inertia kl_compute_principal_inertia(mat3s inertia);

/// A sphere in a shape's frame: the element of inner-sphere packings and sphere trees.
typedef struct kl_sphere
{
	vec3s center;
	float radius;
} kl_sphere;

// ---------------------------------------------------------------------------------------------
// Convex hulls

/// A convex polyhedron (half-edge structure) built from a point cloud. Immutable once built.
typedef struct kl_hull kl_hull;

/// Most input points kl_hull_build accepts.
#define KL_HULL_MAX_INPUT_POINTS 65536

/// Builds the convex hull of a point cloud with quickhull (coplanar faces merged).
/// Points closer than a relative tolerance are welded. Fails with KL_ERR_DEGENERATE for fewer than
/// four distinct points or coplanar/collinear input, KL_ERR_INVALID_ARGUMENT for NaN/Inf.
/// Returns NULL on failure (message in kl_last_error()). The result is canonical: building again
/// from kl_hull_vertices() gives the same hull bit for bit (vertices keep their input order), which
/// is what lets scene files store a hull as its vertices.
KL_API kl_hull* kl_hull_build(const vec3s* points, int count);
KL_API kl_hull* kl_hull_clone(const kl_hull* hull);
KL_API void kl_hull_destroy(kl_hull* hull);

KL_API int kl_hull_vertex_count(const kl_hull* hull);
KL_API const vec3s* kl_hull_vertices(const kl_hull* hull);
/// Faces are convex polygons; this counts them after coplanar merging.
KL_API int kl_hull_face_count(const kl_hull* hull);
/// A fan triangulation of the faces (outward, counter-clockwise), for mass and drawing.
KL_API int kl_hull_triangle_count(const kl_hull* hull);
KL_API const int32_t* kl_hull_triangle_indices(const kl_hull* hull);
KL_API kl_mass_data kl_hull_mass(const kl_hull* hull, float density);
KL_API kl_aabb kl_hull_bounds(const kl_hull* hull);

// ---------------------------------------------------------------------------------------------
// Triangle meshes

/// Polyhedral volume integration of a closed, outward-oriented triangle mesh
/// (Eberly's form of Mirtich's algorithm, in double precision). Returns KL_ERR_DEGENERATE if the
/// signed volume is not positive.
KL_API kl_result kl_compute_polyhedron_mass(const vec3s* vertices, const int32_t* indices, int triangle_count,
											float density, kl_mass_data* out);

/// Progress of a long build: stage name and fraction in [0, 1]. Return false to cancel the build.
typedef bool kl_progress_fn(const char* stage, float fraction, void* context);

/// Limits of a mesh's counts, enforced by the mesh build and by the loaders before they allocate,
/// so that absurd counts fail cleanly.
#define KL_MESH_MAX_VERTICES (1 << 24)
#define KL_MESH_MAX_TRIANGLES (1 << 25)

/// A triangle soup to build a mesh collision model from. Indices: 3 per triangle.
typedef struct kl_mesh_def
{
	const vec3s* vertices;
	int vertex_count;
	const int32_t* indices;
	int triangle_count;
	/// Vertices closer than this are merged (0: only bit-identical positions).
	float weld_tolerance;
	/// Where the mesh came from (a file path); kept so that scenes can be saved. May be NULL.
	const char* source;
	kl_progress_fn* progress;
	void* progress_context;
	/// Build the point-shell model too (docs/pointshell.md), which shapes that choose
	/// KL_MESH_BACKEND_POINTSHELL need; without it they are refused. Off by default: it costs about
	/// 0.5 kB per triangle and more than doubles the build (a 50k-triangle mesh: 0.35 s on top of
	/// 0.15 s).
	bool build_pointshell;
	/// A file for the point-shell model: read when it holds this mesh's model, else the model is
	/// built and written there (naming one builds the model, as build_pointshell does). NULL: no file.
	const char* pointshell_cache;
	/// The point-shell model's settings (docs/pointshell.md): conglomerates of at most this many
	/// triangles (0: 64; negative is refused), samples about this far apart (object units; 0: a
	/// third of the median edge length), surface clusters instead of the median cut, and octree
	/// leaves of at most this many samples (0: one leaf per conglomerate where a CUDA device is
	/// present, the GPU's fastest, else 256, the CPU threads'; the same pairs either way; negative
	/// is refused). A cache file made with other settings is rebuilt.
	int pointshell_max_triangles;
	float pointshell_spacing;
	bool pointshell_surface_groups;
	int pointshell_leaf_bucket;
	/// Fill the closed mesh with up to this many inner spheres (kl_sphere_pack) and build their
	/// sphere tree (kollide/sphere_tree.h), which shapes using KL_CONTACT_PENALTY need
	/// (docs/penalty-contact.md). 0: none; 1 to KL_SPHERE_PACK_MAX_SPHERES. An open mesh that asks
	/// for them fails to build.
	int inner_spheres;
	/// A file for the inner-sphere packing (kl_sphere_pack_def.cache). NULL: no file.
	const char* inner_sphere_cache;
} kl_mesh_def;

KL_API kl_mesh_def kl_default_mesh_def(void);

/// What became of kl_mesh_def.pointshell_cache.
typedef enum kl_mesh_cache_status
{
	KL_MESH_CACHE_NONE = 0,		///< no cache file was named
	KL_MESH_CACHE_READ,			///< the model came from the file
	KL_MESH_CACHE_WRITTEN,		///< built, and written to the file
	KL_MESH_CACHE_WRITE_FAILED, ///< built; the file could not be written (the mesh is fine)
} kl_mesh_cache_status;

/// How a mesh's mass properties were obtained.
typedef enum kl_mesh_mass_source
{
	/// Closed, consistently oriented two-manifold: exact volume integration.
	KL_MESH_MASS_VOLUME = 0,
	/// Open or non-manifold: the volume is undefined, so the mass properties of the
	/// convex hull of the vertices are used instead (documented in docs/engine-core.md).
	KL_MESH_MASS_CONVEX_HULL = 1,
} kl_mesh_mass_source;

typedef struct kl_mesh_info
{
	int vertex_count;			 ///< after welding
	int triangle_count;			 ///< after removing degenerate triangles
	int welded_vertex_count;	 ///< input vertices merged into others
	int degenerate_triangle_count; ///< removed: repeated vertex or zero area
	int open_edge_count;		 ///< edges with one triangle
	int non_manifold_edge_count; ///< edges with more than two triangles
	int inconsistent_edge_count; ///< edges whose two triangles disagree on orientation
	bool closed;				 ///< two-manifold, consistently oriented, positive volume
	bool flipped;				 ///< it was inside out and every triangle was turned
	kl_mesh_mass_source mass_source;
	float volume; ///< of the closed mesh, or of the hull used for mass
	kl_aabb bounds;
	kl_mesh_cache_status pointshell_cache;
	bool has_pointshell; ///< the point-shell model was built (kl_mesh_def.build_pointshell)
	size_t pointshell_bytes; ///< its memory: point shells, coverage, octrees, conglomerates
	/// kl_mesh_def.inner_spheres as built; the spheres packed (at most that many; 0: none), the
	/// fraction of the volume they fill, and what became of kl_mesh_def.inner_sphere_cache.
	int inner_spheres;
	int inner_sphere_count;
	float inner_sphere_coverage;
	kl_mesh_cache_status inner_sphere_cache;
} kl_mesh_info;

/// An immutable, reference-counted triangle mesh with its collision representations (the SIMD
/// k-DOP BVH, and the point shells when asked for), all built once by kl_mesh_build.
typedef struct kl_mesh kl_mesh;

/// Builds a mesh collision model: welds, drops degenerate triangles, checks manifoldness and
/// orientation, computes mass properties. Returns NULL with a message on failure or cancel.
/// The caller owns one reference.
KL_API kl_mesh* kl_mesh_build(const kl_mesh_def* def);
KL_API kl_mesh* kl_mesh_retain(kl_mesh* mesh);
/// Drops one reference; frees the mesh with the last one. NULL is ignored.
KL_API void kl_mesh_release(kl_mesh* mesh);

KL_API kl_mesh_info kl_mesh_get_info(const kl_mesh* mesh);
KL_API const vec3s* kl_mesh_vertices(const kl_mesh* mesh);
KL_API const int32_t* kl_mesh_indices(const kl_mesh* mesh);
/// The source given at build time ("" if none).
KL_API const char* kl_mesh_source(const kl_mesh* mesh);
/// Mass properties of the mesh scaled per axis (every scale component > 0).
KL_API kl_mass_data kl_mesh_mass(const kl_mesh* mesh, float density, vec3s scale);

// ---------------------------------------------------------------------------------------------
// Inner-sphere packing (docs/inner-spheres.md)

/// Most spheres one packing holds.
#define KL_SPHERE_PACK_MAX_SPHERES (1 << 20)
/// Most cells of a packing's sample grid along the mesh's longest side.
#define KL_SPHERE_PACK_MAX_RESOLUTION 1024

/// How to fill a closed mesh with non-overlapping inner spheres: greedily, each sphere the largest
/// that fits among the surface and the spheres before it (a signed distance grid picks where,
/// exact distances decide the size). It stops at the first of max_spheres, the coverage target, or
/// no empty sphere of min_radius left.
typedef struct kl_sphere_pack_def
{
	int max_spheres;	///< 1000; 1 to KL_SPHERE_PACK_MAX_SPHERES
	float coverage;		///< stop once the spheres fill this fraction of the volume (0: no target; below 1)
	float min_radius;	///< stop when no empty sphere this large is left (object units; 0: none)
	uint32_t seed;		///< moves the sample grid by a sub-cell offset: another packing of about the same coverage
	/// Sample grid cells along the mesh's longest side (0: from max_spheres and the mesh's shape, about
	/// 30 grid points inside per sphere; up to KL_SPHERE_PACK_MAX_RESOLUTION). The first n spheres of a
	/// packing are the packing of n spheres made on the same grid.
	int resolution;
	/// Threads, the caller's included (0 or 1: the calling thread only). The spheres are the same
	/// bit for bit for any count.
	int worker_count;
	kl_progress_fn* progress; ///< stages "sphere pack: distance" and "sphere pack: insert"
	void* progress_context;
	/// A file for the packing: read when it holds this mesh's packing with these settings (all but
	/// worker_count and progress), else the packing is made and written there. NULL: no file.
	const char* cache;
} kl_sphere_pack_def;

KL_API kl_sphere_pack_def kl_default_sphere_pack_def(void);

/// Inner spheres of a closed mesh, in the mesh's frame, largest first (insertion order). Immutable.
typedef struct kl_sphere_packing kl_sphere_packing;

/// Packs the closed mesh (kl_mesh_get_info().closed) with spheres. Returns NULL with a message for an
/// open or degenerate mesh, a bad def (KL_ERR_INVALID_ARGUMENT), out of memory, or a cancel.
KL_API kl_sphere_packing* kl_sphere_pack(const kl_mesh* mesh, const kl_sphere_pack_def* def);
/// Frees the packing. NULL is ignored.
KL_API void kl_sphere_packing_destroy(kl_sphere_packing* packing);
KL_API int kl_sphere_packing_count(const kl_sphere_packing* packing);
KL_API const kl_sphere* kl_sphere_packing_spheres(const kl_sphere_packing* packing);
/// Per sphere, the volume of the solid it stands for: its own volume plus its share of the gaps
/// between the spheres (each uncovered sample point of the packing's grid goes to the sphere whose
/// surface is nearest). The shares sum to the mesh's volume; pass them to kl_sphere_tree_def
/// (represented_volumes) to estimate intersection volumes of the solids rather than of the sphere
/// unions (docs/inner-spheres.md).
KL_API const float* kl_sphere_packing_represented_volumes(const kl_sphere_packing* packing);
/// The spheres' total volume over the mesh's volume: the fraction of the solid they fill.
KL_API float kl_sphere_packing_coverage(const kl_sphere_packing* packing);
/// What became of kl_sphere_pack_def.cache.
KL_API kl_mesh_cache_status kl_sphere_packing_cache_status(const kl_sphere_packing* packing);

KL_C_END
