// Kollide internal — the pair functions behind kl_collide. Each takes its shapes in the order of
// its name and writes a manifold with the normal from the first to the second, points with
// separation <= speculative only, solver fields zero.
// SPDX-License-Identifier: MIT
#pragma once

#include "collide.h"
#include "hull.h"

// Closed forms and GJK (collide_round.c, gjk.c)
void kl_collide_spheres(float ra, kl_transform xf_a, float rb, kl_transform xf_b, float speculative, kl_manifold* m);
void kl_collide_capsule_sphere(const kl_collider* a, kl_transform xf_a, float rb, kl_transform xf_b, float speculative,
							   kl_manifold* m);
void kl_collide_capsules(const kl_collider* a, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
						 float speculative, kl_manifold* m);
/// Sphere or capsule (a) against a hull (b): GJK while separated, the deepest face when inside.
void kl_collide_round_hull(const kl_collider* a, kl_transform xf_a, const kl_hull* b, kl_transform xf_b,
						   float speculative, kl_collide_cache* cache, kl_manifold* m);
void kl_collide_plane_round(kl_plane plane, kl_transform xf_a, const kl_collider* b, kl_transform xf_b,
							float speculative, kl_manifold* m);

// Polyhedra (collide_hull.c, sat.c, clip.c): SAT with face and edge queries, then clipping
void kl_collide_hulls(const kl_hull* a, kl_transform xf_a, const kl_hull* b, kl_transform xf_b, float speculative,
					  kl_collide_cache* cache, kl_manifold* m);
void kl_collide_plane_hull(kl_plane plane, kl_transform xf_a, const kl_hull* b, kl_transform xf_b, float speculative,
						   kl_manifold* m);
/// Box–box (collide_box.c): the same manifolds, ids and cache entries as kl_collide_hulls on
/// kl_make_box_hull boxes, with the separating-axis test in closed form.
void kl_collide_boxes(vec3s half_a, kl_transform xf_a, vec3s half_b, kl_transform xf_b, float speculative,
					  kl_collide_cache* cache, kl_manifold* m);

/// A box seen as a hull (8 vertices, 24 half-edges, 6 faces, 12 triangles) without allocation,
/// so that boxes share the polyhedron code. Vertex, edge and face numbering is fixed, so feature
/// ids stay stable from step to step.
typedef struct kl_box_hull
{
	kl_hull hull; ///< points into the arrays below
	vec3s vertices[8];
	kl_hull_half_edge edges[24];
	kl_hull_face faces[6];
	int32_t triangles[36];
} kl_box_hull;

/// Fills storage with the box of the given half extents and returns &storage->hull.
const kl_hull* kl_make_box_hull(kl_box_hull* storage, vec3s half_extents);
