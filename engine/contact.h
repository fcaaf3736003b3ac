// Kollide internal — contacts: one per broadphase pair of shapes, kept in step with the pair set,
// holding the manifold the narrowphase computed and the solver's warm-start impulses.
// SPDX-License-Identifier: MIT
#pragma once

#include "collide.h"
#include "collide_mesh.h"

typedef struct kl_world kl_world;

enum kl_contact_flags
{
	KL_CONTACT_TOUCHING = 1 << 0,	   ///< the manifold has points (speculative ones included)
	KL_CONTACT_SENSOR = 1 << 1,		   ///< one shape is a sensor: overlap events, no response
	KL_CONTACT_EVENTS = 1 << 2,		   ///< both shapes enable contact events
	KL_CONTACT_STARTED = 1 << 3,	   ///< began touching in the last narrowphase
	KL_CONTACT_STOPPED = 1 << 4,	   ///< stopped touching in the last narrowphase
	KL_CONTACT_UNSUPPORTED = 1 << 5,   ///< no pair function (spheres and capsules against meshes)
	KL_CONTACT_MESH = 1 << 6,		   ///< a mesh pair: the BVH narrowphase, up to KL_MESH_MAX_MANIFOLDS patches
	KL_CONTACT_SURFACE_VELOCITY = 1 << 7, ///< a shape has a surface velocity (a conveyor belt)
	/// The penalty contact model (contact_penalty.h): no manifold.
	KL_CONTACT_PENALTY_PAIR = 1 << 8,
};

/// A convex pair's poses and points as its last full narrowphase found them. While the pair's
/// relative pose stays within KL_RECYCLE_DISTANCE of this one, the manifold is kept (contact
/// recycling, as Box3D's): its normal stays, each body's anchors stay on it, and only the
/// separations follow the bodies' motion, the same linearisation the solver's sub-steps use.
typedef struct kl_contact_base
{
	vec3s center_a; ///< world centres of mass then
	vec3s center_b;
	versors rotation_a; ///< body rotations then
	versors rotation_b;
	vec3s point[KL_MAX_MANIFOLD_POINTS]; ///< world points then
	float separation[KL_MAX_MANIFOLD_POINTS];
	/// Largest distance of a movable side's shape from its body's centre of mass (0: both static),
	/// which bounds how far a relative rotation moves the shapes' points.
	float reach;
	/// While the manifold is kept: how far B's anchors lie from A's, B's motion relative to A
	/// since the manifold was found (each body keeps its own anchors, as Box3D's solver does).
	vec3s anchor_shift;
	bool valid;
} kl_contact_base;

typedef struct kl_contact
{
	int shape_a; ///< slots, shape_a < shape_b (the broadphase pair order)
	int shape_b;
	int body_a;
	int body_b;
	uint32_t flags;
	float friction;	   ///< mixed: √(μa·μb), or the world's callback
	float restitution; ///< mixed: max(ea, eb), or the world's callback
	float rolling_resistance;
	float spin_resistance;
	kl_collide_cache cache;
	kl_manifold manifold; ///< normal from shape_a to shape_b
	kl_contact_base base; ///< convex pairs: the pose `manifold` was found at (contact recycling)
	/// Manifolds with points: 0 or 1 for convex pairs; mesh pairs may have up to
	/// KL_MESH_MAX_MANIFOLDS contact patches, the first in `manifold`, the rest in `extra`.
	int manifold_count;
	kl_manifold* extra; ///< KL_MESH_MAX_MANIFOLDS - 1 manifolds, allocated for mesh pairs
	/// This step's pair in the world's GPU point-shell batch (contact_pointshell.c), or -1.
	int32_t pointshell_pair;
} kl_contact;

/// Manifold i (0 ≤ i < manifold_count) of a contact.
static inline kl_manifold* kl_contact_manifold(kl_contact* c, int i)
{
	return i == 0 ? &c->manifold : &c->extra[i - 1];
}

struct kl_shape;
struct kl_triangle_set;
struct kl_mesh_candidates;

/// The narrowphase view of a shape in its own frame (a sphere, capsule, box, hull or plane); false for
/// meshes, which have no convex pair function.
bool kl_shape_collider(const struct kl_shape* shape, kl_collider* c);
/// A mesh shape (or a convex shape as its triangles) as a placed triangle set; false when it has none.
bool kl_shape_triangle_set(const kl_world* world, const struct kl_shape* shape, struct kl_triangle_set* set);
/// Whether the body in this slot is awake (its contacts are updated this step).
bool kl_body_slot_awake(const kl_world* world, int body_slot);
/// How far the shape's points reach from its body's centre of mass; 0 for a static body, which
/// does not turn.
float kl_contact_shape_reach(const kl_world* world, const struct kl_shape* shape);
/// A fast mesh pair's swept contacts (contact_sweep.c, kl_sweep_triangle_sets) added to the `count`
/// manifolds in fresh (room for KL_MESH_MAX_MANIFOLDS), in place of the last ones when there is no
/// room; returns the new count. Other pairs keep theirs as they are.
int kl_contact_sweep(const kl_world* world, const kl_contact* c, float margin, float dt, kl_mesh_scratch* scratch,
					 kl_manifold* fresh, int count);
/// The pair's mixed friction, restitution and resistances (the world's callbacks first).
void kl_contact_mix_materials(const kl_world* world, kl_contact* c);
/// How far apart a pair's speculative points reach this step (dt ahead).
float kl_contact_speculative_distance(const kl_world* world, const kl_contact* c, float dt);
/// The bodies' motion for a mesh pair's contacts (vertex_contacts.h): their velocities, and what
/// linear extrapolation misses in any direction: the fixed band, gravity's dt², and a spinning
/// point's curving, ½ |ω|² r dt² (r: half the shape's bounds diagonal).
void kl_contact_mesh_motion(const kl_world* world, const kl_contact* c, float dt, struct kl_vertex_motion* m);

/// Searches the candidates of this step's point-shell mesh pairs in one batch before the per-pair
/// narrowphase and marks their contacts (pointshell_pair): on the GPU with use_gpu and a device,
/// else over the world's thread pool when it has one; otherwise every pair searches its own on the
/// worker that updates it (contact_pointshell.c). Every way finds the same candidates.
void kl_pointshell_prepass(kl_world* world, float dt);
/// The prepass's candidates of a contact; false when it has none (the pair searches its own).
bool kl_pointshell_found(const kl_world* world, const kl_contact* c, struct kl_mesh_candidates* out);
/// The point-shell figures of the pass into the world's profile and counters (the batch and the
/// workers' own searches), added up over a step's passes; resets the workers' sums.
void kl_pointshell_profile(kl_world* world);
void kl_pointshell_prepass_free(kl_world* world);

/// The narrowphase stage: brings world->contacts in line with the broadphase pairs (sorted by
/// shape pair; contacts of sleeping bodies are kept), updates every manifold over the workers,
/// then (serially, in contact order) emits begin/end events and wakes sleeping bodies that an
/// awake body touches.
/// dt is the coming step: pairs approaching fast get speculative points as far as they can close
/// in it, so that a ball at 10 m/s meets the floor instead of passing a step's travel into it.
/// False when it ran out of memory before the contacts were found (they stay last step's): the
/// step must not move the bodies then, or a body meeting a floor passes through it.
bool kl_step_narrowphase(kl_world* world, float dt);
/// The world's custom filter on a pair the other filters let through (contact_callbacks.c): true
/// unless the callback is set, either shape asks for it, and it says no.
bool kl_contact_custom_filter(const kl_world* world, const struct kl_shape* a, const struct kl_shape* b);
/// The world's pre-solve callback on a contact's fresh manifolds (contact_callbacks.c), when either
/// shape asks for it: keeps the ones it accepts, in order, at the front; returns their count.
int kl_contact_pre_solve(const kl_world* world, const kl_contact* c, kl_manifold* manifolds, int count);
/// Writes each manifold point's normal_velocity from the bodies' velocities, when either shape has
/// hit events (contact_callbacks.c).
void kl_contact_approach(const kl_world* world, const kl_contact* c, kl_manifold* manifolds, int count);
/// Appends the hit events of the contacts the solver just ran (contact_callbacks.c).
void kl_contact_hit_events(kl_world* world);
/// Drops every contact of the shape (shape destroyed or its proxy removed), through the contacts'
/// index by shape (contact_index.c).
void kl_destroy_shape_contacts(kl_world* world, int shape_slot);
void kl_contact_index_destroy(kl_world* world);
void kl_contacts_destroy(kl_world* world);
