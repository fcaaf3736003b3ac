// Kollide grasp — contact and force maps: a texel grid over an object's surface (a box-projection
// atlas: six tiles, one per axis direction, each texel the surface point seen from that side), in which
// each hand-sphere contact stamps its footprint, the texels within the hand sphere's radius of the
// contact point, into per-finger counters and the force bins.
// SPDX-License-Identifier: MIT
#pragma once

#include "contacts.h"

/// Finger counters per texel: thumb … pinky, then the palm.
#define KG_MAP_FINGERS (KG_FINGER_COUNT + 1)
#define KG_FORCE_BINS 10

typedef struct kg_map
{
	int tile; ///< texels per tile side; the atlas is 3 × 2 tiles
	int width, height;
	vec3s* point; ///< each texel's surface point in the object frame (valid where on_surface)
	bool* on_surface;
	uint32_t* count; ///< KG_MAP_FINGERS counters per texel
	uint8_t* force;	 ///< strongest force bin stamped (0: none, 1 to 10)
	uint32_t* stamp; ///< the last stamp id per texel and finger, so a frame counts a texel once per finger
	uint32_t stamp_id;
	// Uniform grid over the surface texels for the footprint queries.
	float cell;
	vec3s origin;
	int cells[3];
	int* cell_start; ///< texel indices by cell: cell_start[c] … cell_start[c + 1]
	int* cell_texels;
} kg_map;

/// The map of an object, tile × tile texels per side (8 to 512); false with kg_error().
bool kg_map_create(kg_map* map, const kg_object* object, int tile);
void kg_map_destroy(kg_map* map);
void kg_map_clear(kg_map* map);

/// One contact: its point in the object frame, the hand sphere's radius, the depth
/// (r1 + r2 − d) / 2 and the finger (KG_FINGER_COUNT: the palm).
typedef struct kg_map_contact
{
	vec3s point;
	float radius;
	float depth;
	int finger;
} kg_map_contact;

/// Stamps one frame's contacts.
void kg_map_stamp(kg_map* map, const kg_map_contact* contacts, int count);
/// A frame's contacts from the hand–object sphere pairs (pairs of kg_hand_contacts, A the hand).
int kg_map_contacts_from_pairs(const kg_hand* hand, const kl_sphere_pair* pairs, const int* pair_part, int count,
							   kl_transform object_pose, kg_map_contact* out);
/// The finger most often stamped at texel i, −1 for none.
int kg_map_dominant(const kg_map* map, int texel);
/// RGB images (width × height × 3): dominant finger colours, and the force bins from green to red;
/// untouched texels black.
void kg_map_contact_image(const kg_map* map, uint8_t* rgb);
void kg_map_force_image(const kg_map* map, uint8_t* rgb);
/// Writes an RGB image as PNG; false with kg_error().
bool kg_write_png(const char* path, const uint8_t* rgb, int width, int height);
