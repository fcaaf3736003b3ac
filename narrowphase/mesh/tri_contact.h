// Kollide internal — contact points for one candidate triangle pair of a mesh–mesh query: where the
// triangles touch or come within a margin, with a normal, a signed gap and stable feature ids.
// SPDX-License-Identifier: MIT
#pragma once

#include "tri_tri.h"

/// Most points one triangle pair gives (a face clipped against a face: a hexagon).
#define KL_TRI_MAX_CONTACTS 6

/// How a triangle-pair contact arose (diagnostics; the id does not depend on it, so a pair that
/// changes case in place keeps its warm start).
typedef enum kl_tri_contact_kind
{
	KL_TRI_CONTACT_SEPARATED = 0, ///< closest points of triangles apart by at most the margin
	KL_TRI_CONTACT_CROSSING = 1,  ///< an end of the segment where the triangles cross
	KL_TRI_CONTACT_FACE = 2,	  ///< a vertex of a face clipped against a nearly opposite face
	KL_TRI_CONTACT_VERTEX = 3,	  ///< a mesh vertex against the other mesh's nearest surface (vertex_contacts.h)
	KL_TRI_CONTACT_EDGE = 4,	  ///< a convex edge against a convex edge (vertex_contacts.h)
} kl_tri_contact_kind;

/// Feature code of a vertex contact: the contact's tri_a (or tri_b) holds a mesh vertex index.
#define KL_TRI_MESH_VERTEX 7

/// One raw contact of a triangle pair, before patch building (contact_patches.h).
typedef struct kl_tri_contact
{
	vec3s point;	  ///< midway between the two surfaces
	vec3s normal;	  ///< unit, from triangle a (body A) to triangle b (body B)
	float separation; ///< signed gap along normal; negative: penetration estimate
	uint32_t tri_a;	  ///< index of triangle a in its mesh
	uint32_t tri_b;
	uint8_t feature_a; ///< KL_TRI_VERTEX0 + k, KL_TRI_EDGE0 + k or KL_TRI_FACE (tri_tri.h)
	uint8_t feature_b;
	uint8_t kind; ///< kl_tri_contact_kind
} kl_tri_contact;

/// Settings of the triangle-pair contact generator.
typedef struct kl_tri_contact_config
{
	/// Separated pairs closer than this give (speculative) contacts. >= 0.
	float margin;
	/// Deeper than this is not a contact but an inner face or a pass-through: face-clipped points
	/// further behind, and crossing pairs whose smaller depth is larger, are dropped (they would
	/// push the wrong way). Scale it with the bodies (default 0.1 m). > 0.
	float max_depth;
	/// Faces whose normals are closer to opposite than this cosine are clipped face against face.
	float parallel_cos;
} kl_tri_contact_config;

/// margin KL_SPECULATIVE_DISTANCE, max_depth 0.1 m, parallel_cos cos 10°.
kl_tri_contact_config kl_tri_contact_config_default(void);

/// What a triangle's neighbours say about its edges (tri_adjacency.h), in the triangle's frame.
typedef struct kl_tri_edges
{
	vec3s opposite[3]; ///< across edge k (vertex k to k + 1): the neighbouring triangle's third vertex
	uint8_t known;	   ///< bit k: edge k has one trusted neighbour (opposite[k] is valid)
} kl_tri_edges;

/// Contacts between triangle a (body A, vertices counter-clockwise seen from outside) and
/// triangle b (body B), both in one frame (world). Writes at most KL_TRI_MAX_CONTACTS to out and
/// returns the count (0: no contact). The cases, in order:
///  1. Nearly opposite faces (n_a · n_b < -parallel_cos) within margin: b is clipped against the
///     side planes of a (Sutherland–Hodgman); every vertex of the clipped polygon with gap in
///     [-max_depth, margin] along n_a is a point. This is what keeps a resting face stable:
///     the points sit at the corners of the overlap, not at an arbitrary closest point.
///  2. Crossing triangles (exact test): the normal is the face normal of the triangle that the
///     other penetrates least — n_a if b reaches less far behind a's plane than a behind b's,
///     else -n_b — because the shallow side is the side the bodies separate along (a box sunk
///     into a floor: its side faces cross the floor face; the floor's normal, with the small
///     depth, wins over the side normal, with the depth of the whole floor triangle). The points
///     are the two ends of the crossing segment, moved half the depth to be midway; the depth at
///     an end is how far the incident triangle's edge through it reaches behind the reference
///     plane (the pair's depth where the end is on the reference triangle's edge). A pair whose
///     smaller depth still exceeds max_depth gives nothing: neither face normal describes it
///     (an inner face of a body built from overlapping parts, or a deep pass-through).
///     Separated pairs closer than ~1e-7 (touching by a hair) are treated the same way.
///  3. Separated within margin: one point midway between the closest points, the normal along
///     them. Back faces are dropped: b must be in front of a's face or a in front of b's (within a
///     small tolerance), else the pair is inside a body and its direction would be wrong.
/// Degenerate (zero-area) triangles give no contacts: their neighbours carry the surface.
int kl_tri_contacts(const vec3s a[3], const vec3s b[3], uint32_t tri_a, uint32_t tri_b,
					const kl_tri_contact_config* config, kl_tri_contact out[KL_TRI_MAX_CONTACTS]);

/// kl_tri_contacts with the triangles' neighbours (either may be NULL). In case 2 the pair's
/// convex edges add candidate axes e_a × e_b (tri_edge.h); when one is shallower than both face
/// normals, the pair gives one point on it instead: where a rim of one mesh crosses a rim of the
/// other, the face normals point sideways with the depth of a whole triangle, while the way out
/// is across the rims by the true sink depth.
int kl_tri_contacts_with_edges(const vec3s a[3], const kl_tri_edges* edges_a, const vec3s b[3],
							   const kl_tri_edges* edges_b, uint32_t tri_a, uint32_t tri_b,
							   const kl_tri_contact_config* config, kl_tri_contact out[KL_TRI_MAX_CONTACTS]);

/// The manifold point id of a contact: a hash of (tri_a, tri_b, feature_a, feature_b). The same
/// features of the same triangles give the same id every step.
uint32_t kl_tri_contact_id(const kl_tri_contact* contact);
