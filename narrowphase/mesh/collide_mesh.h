// Kollide internal — mesh contacts through the SIMD k-DOP BVH: triangle meshes (and convex shapes
// seen as their triangles) against each other, reduced to minimal contact sets; meshes on planes.
// SPDX-License-Identifier: MIT
#pragma once

#include "bvh.h"
#include "manifold.h"
#include "pointshell_types.h"
#include "tri_contact.h"

/// Most manifolds (contact patches) one mesh pair keeps.
#define KL_MESH_MAX_MANIFOLDS 16

/// A triangle set placed in the world: vertices in its own frame, scaled per axis, then xf.
typedef struct kl_triangle_set
{
	const kl_bvh* bvh;
	const vec3s* vertices;
	int vertex_count;
	const int32_t* indices;
	/// 3 per triangle: the vertex across each edge (tri_adjacency.h), or NULL when unknown. With
	/// it, rims crossing rims find their true way out (kl_tri_contacts_with_edges).
	const int32_t* opposite;
	/// Per vertex, its angle-weighted pseudo-normal (tri_adjacency.h), unscaled frame; NULL when
	/// unknown (then the set gives no vertex contacts, only its triangles' edge contacts).
	const vec3s* vertex_normals;
	/// Per vertex, the cosine of its normal cone's half-angle (tri_adjacency.h); with vertex_normals.
	const float* vertex_cone_cos;
	/// Smallest extent of the set's bounds (scaled), 0 when unknown. Deeper than half the thinner
	/// set's thickness a face pair is the far side of a body, not a contact.
	float thickness;
	/// The set is a convex solid (a box or hull seen as triangles): the nearest face of any point
	/// inside is its way out, however deep, so vertices may go deeper into it (kl_vertex_contacts).
	bool convex;
	vec3s scale;
	kl_transform xf;
	/// The set's point-shell model (a mesh shape's), or NULL; a pair of sets that both have one
	/// finds its candidates through it when either asks (use_pointshell).
	const struct kl_pointshell* pointshell;
	bool use_pointshell;
} kl_triangle_set;

/// The bodies' motion over the step, which the mesh contacts must cover (kl_vertex_contacts): a
/// triangle pair whose gap along either face normal exceeds how far its vertices can travel relative
/// to the other body (their relative speed there times dt, in any direction) plus `reach` cannot
/// touch this step and is skipped; so are vertices that far from a face's plane. Measuring the
/// speed at the triangles, not a bound over the whole body (|ω| times its radius), keeps a
/// tumbling body from pulling every triangle pair of its neighbours into reach. `reach` covers what
/// first order misses: the fixed band, gravity, and the curving of spinning points. The contacts'
/// margin stays the bound on their separation.
typedef struct kl_vertex_motion
{
	vec3s velocity[2];		   ///< linear velocity of body a's and body b's centre of mass
	vec3s angular_velocity[2]; ///< world
	vec3s center[2];		   ///< world centre of mass
	float dt;
	float reach;
} kl_vertex_motion;

/// Vertex i of the set, placed in the world.
vec3s kl_set_vertex(const kl_triangle_set* s, int32_t i);
/// Triangle tri of the set, placed in the world.
void kl_set_triangle(const kl_triangle_set* s, int tri, vec3s out[3]);
/// Triangle tri's neighbours across its edges, placed like its vertices; NULL when the set has no
/// adjacency.
const kl_tri_edges* kl_set_triangle_edges(const kl_triangle_set* s, int tri, kl_tri_edges* edges);

/// One candidate triangle pair (triangle a of set a, triangle b of set b).
typedef struct kl_tri_pair
{
	int32_t a;
	int32_t b;
} kl_tri_pair;

/// Working memory of the mesh queries, grown on demand and reused (one per worker thread, so the
/// step allocates nothing once warm). Zero-initialise; free with kl_mesh_scratch_free.
typedef struct kl_mesh_scratch
{
	struct kl_tri_contact* contacts;
	int contact_capacity;
	kl_manifold_point* points;
	int point_capacity;
	struct kl_tri_pair* pairs; ///< candidate triangle pairs of the current query
	int pair_count;
	int pair_capacity;
	/// Per side, per vertex: the nearest surface point found so far (vertex_contacts.c).
	struct kl_vertex_slot* slots[2];
	int32_t* touched[2]; ///< the vertices with a slot in use, in the order first offered
	int slot_capacity[2];
	int touched_count[2];
	uint32_t generation; ///< slots stamped with another generation are free
	/// Per side, per triangle: its world normal, bounding sphere and travel, once per query.
	struct kl_triangle_slot* tri_slots[2];
	int tri_slot_capacity[2];
	struct kl_pierce* pierces; ///< where edges cross the other set's faces (vertex_contacts.c)
	int pierce_count;
	int pierce_capacity;
	struct kl_ps_batch* pointshell; ///< the point-shell search's memory, made on first use
	kl_ps_stats pointshell_stats;	///< summed over this scratch's point-shell searches; the caller resets it
} kl_mesh_scratch;

void kl_mesh_scratch_free(kl_mesh_scratch* scratch);

/// Grows scratch->contacts to hold at least `need` contacts; false when out of memory.
bool kl_mesh_scratch_reserve_contacts(kl_mesh_scratch* scratch, int need);

/// The minimal contact sets (kl_contact_patches, default settings) of the first `count` contacts in
/// scratch->contacts, into at most max_manifolds manifolds; returns their count (0 when out of
/// memory). With the bodies' motion (may be NULL) the farther contacts' manifolds choose their points
/// by the separation predicted at the step's end.
int kl_mesh_scratch_patches(kl_mesh_scratch* scratch, int count, const kl_vertex_motion* motion, kl_manifold* out,
							int max_manifolds);
/// The velocity of body b relative to body a (motion) as a field over the world: offset + spin × x.
void kl_motion_relative_field(const kl_vertex_motion* motion, vec3s* offset, vec3s* spin);

/// Appends one candidate pair to scratch->pairs; false when out of memory.
bool kl_mesh_scratch_push_pair(kl_mesh_scratch* scratch, int32_t tri_a, int32_t tri_b);

/// The contact settings of a mesh pair with speculative margin `margin` (kl_collide_triangle_sets):
/// the thin fixed band and the depth bound come from the sets' thicknesses. Its margin is the
/// distance the candidate pairs must be complete within.
kl_tri_contact_config kl_mesh_pair_config(const kl_triangle_set* a, const kl_triangle_set* b, float margin);

/// The distance a mesh pair's candidates are searched within (kl_collide_triangle_sets): the
/// config's margin, clamped (both sets non-convex, motion given) to what a vertex can travel within
/// the step, or the depth band if larger. A batch found beforehand uses it too, so that it finds
/// exactly the pair's own candidates.
float kl_mesh_search_margin(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
							const kl_vertex_motion* motion);

/// Whether the pair finds its candidates through the point shells: both sets have a model and
/// either asks.
bool kl_mesh_pair_uses_pointshell(const kl_triangle_set* a, const kl_triangle_set* b);

/// Candidate triangle pairs found beforehand (a batch of point-shell searches, on the GPU or the
/// worker threads): keys as kl_ps_key, complete within kl_mesh_search_margin.
typedef struct kl_mesh_candidates
{
	const uint64_t* keys;
	int count;
} kl_mesh_candidates;

/// Contacts between two triangle sets within `margin`, as at most max_manifolds manifolds (normals
/// from a to b). Returns the manifold count. Solver fields are zero. When the sets' thicknesses
/// are known, margin's fixed part (KL_SPECULATIVE_DISTANCE) shrinks to a quarter of the thinner
/// set, between KL_LINEAR_SLOP / 2 and KL_LINEAR_SLOP, and deeper than half of it a pair is not a
/// contact.
/// motion (may be NULL: margin applies everywhere) gives the bodies' velocities: then the part of the
/// margin that covers their motion applies only where points approach (kl_vertex_motion).
int kl_collide_triangle_sets(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
							 const kl_vertex_motion* motion, kl_mesh_scratch* scratch, kl_manifold* out,
							 int max_manifolds);

/// kl_collide_triangle_sets with the candidate pairs given.
int kl_collide_triangle_sets_from(const kl_triangle_set* a, const kl_triangle_set* b, float margin,
								  const kl_vertex_motion* motion, const kl_mesh_candidates* candidates,
								  kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds);

/// The raw contacts of two triangle sets from their candidate triangle pairs, which must hold every
/// pair within config->margin (a BVH walk with that margin, or all pairs): the vertex and edge
/// contacts of vertex_contacts.h, with deep edge contacts kept only when their overlap lies inside
/// both solids (one ray per body). Written to scratch->contacts (normals from a to b); returns the
/// count, or -1 when out of memory. motion may be NULL (kl_vertex_motion). The shared step before
/// kl_contact_patches for every mesh-pair backend.
int kl_mesh_pair_contacts(const kl_triangle_set* a, const kl_triangle_set* b, const kl_tri_pair* pairs, int pair_count,
						  const kl_tri_contact_config* config, const kl_vertex_motion* motion, kl_mesh_scratch* scratch);

/// A sphere or capsule against a triangle set: the round shape is given as a set holding its core
/// (one degenerate triangle: the centre, or the segment) and its radius; contacts where the surface
/// comes within margin, reduced as above. round_is_a says which set is the round one.
int kl_collide_round_triangle_set(const kl_triangle_set* a, const kl_triangle_set* b, bool round_is_a, float radius,
								  float margin, kl_mesh_scratch* scratch, kl_manifold* out, int max_manifolds);

/// A plane (shape frame xf_plane) against a triangle set, as at most max_manifolds manifolds
/// (normals from a to b; plane_is_a says which the plane is): the set's vertex contacts against
/// the plane (kl_plane_vertex_contacts) within the band margin of kl_collide_triangle_sets, reduced
/// to contact patches as for a mesh pair, so a mesh rests on a plane as on the face of a box.
/// motion as for kl_collide_triangle_sets (may be NULL). Returns the manifold count.
int kl_collide_plane_triangle_set(kl_plane plane, kl_transform xf_plane, const kl_triangle_set* set, bool plane_is_a,
								  float margin, const kl_vertex_motion* motion, kl_mesh_scratch* scratch,
								  kl_manifold* out, int max_manifolds);

/// Whether a plane's solid (shape frame xf_plane) and the set's closed surface share a point: some
/// vertex lies on or below the plane. What a sensor asks.
bool kl_plane_triangle_set_overlap(kl_plane plane, kl_transform xf_plane, const kl_triangle_set* set);

/// Whether the solids of two closed triangle sets share a point: their surfaces meet (an exact
/// triangle–triangle test on the pairs the BVH walk finds), or one holds the other whole (a vertex
/// of one lies inside the other, by kl_set_signed_distance). round_side and radius as for
/// kl_collide_round_triangle_set (0: neither set is round): the round shape's core within the
/// radius of a triangle, or inside the mesh. Unlike contacts, this has no depth bound, so a body
/// wholly inside a sensor stays inside it. *failed is set when the walk ran out of memory.
bool kl_triangle_sets_overlap(const kl_triangle_set* a, const kl_triangle_set* b, int round_side, float radius,
							  bool* failed);

/// Whether the surfaces of two closed triangle sets meet: the first-hit walk of
/// kl_triangle_sets_overlap without its test for one solid holding the other.
bool kl_triangle_set_surfaces_meet(const kl_triangle_set* a, const kl_triangle_set* b, bool* failed);
