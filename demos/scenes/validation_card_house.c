// Kollide scenes — card_house: a two-level house of playing cards (thin boxes leaning in A-frames).
// SPDX-License-Identifier: MIT
#include "scenes.h"

#include <math.h>

/// Card: 2 mm thick (local x), 0.3 m wide (local y), 0.4 m tall (local z).
#define KL_CARD_HALF_THICKNESS 0.001f
#define KL_CARD_HALF_WIDTH 0.15f
#define KL_CARD_HALF_HEIGHT 0.2f
/// Lean of each card of an A-frame from vertical.
#define KL_CARD_LEAN (25.0f * 3.14159265358979f / 180.0f)
#define KL_CARD_FRICTION 0.7f
#define KL_CARD_DENSITY 700.0f
/// Distance between the peaks of the two ground-level A-frames: their feet stay 1.8 cm apart and
/// the flat card (0.4 m) overhangs each peak by 2 cm.
#define KL_CARD_PEAK_SPACING 0.36f

static bool add_card(kl_world_id world, vec3s position, versors rotation)
{
	vec3s half = kl_vec3(KL_CARD_HALF_THICKNESS, KL_CARD_HALF_WIDTH, KL_CARD_HALF_HEIGHT);
	kl_body_id body = kl_scene_add_box(world, position, rotation, half, KL_CARD_DENSITY, KL_CARD_FRICTION);
	return KL_IS_NON_NULL(body);
}

/// Two cards leaning ±25° whose inner top edges meet at (peak_x, base_z + 0.4 cos 25°) and whose
/// inner bottom edges stand on z = base_z. Returns the height of the frame's highest point (the
/// outer top edges), where a flat card rests.
static float add_frame(kl_world_id world, float peak_x, float base_z, bool* ok)
{
	float s = sinf(KL_CARD_LEAN), c = cosf(KL_CARD_LEAN);
	float dx = KL_CARD_HALF_HEIGHT * s + KL_CARD_HALF_THICKNESS * c;
	float z = base_z + KL_CARD_HALF_HEIGHT * c + KL_CARD_HALF_THICKNESS * s;
	// A turn of +lean about y tips the card's top towards +x (the left card), −lean the right one.
	versors left = kl_quat_wxyz(cosf(0.5f * KL_CARD_LEAN), 0.0f, sinf(0.5f * KL_CARD_LEAN), 0.0f);
	versors right = kl_quat_wxyz(cosf(0.5f * KL_CARD_LEAN), 0.0f, -sinf(0.5f * KL_CARD_LEAN), 0.0f);
	*ok = *ok && add_card(world, kl_vec3(peak_x - dx, 0.0f, z), left);
	*ok = *ok && add_card(world, kl_vec3(peak_x + dx, 0.0f, z), right);
	return base_z + 2.0f * KL_CARD_HALF_HEIGHT * c + 2.0f * KL_CARD_HALF_THICKNESS * s;
}

/// Level 1: two A-frames; a flat card across their peaks; level 2: one A-frame on the flat card.
/// Every card touches its supports exactly (no gap, no overlap), so the house must stand at once.
static bool card_house_create(kl_world_id world, void** state)
{
	*state = NULL;
	if (KL_IS_NULL(kl_scene_add_ground(world, 2.0f, 2.0f, KL_CARD_FRICTION)))
	{
		return false;
	}
	bool ok = true;
	float top = add_frame(world, -0.5f * KL_CARD_PEAK_SPACING, 0.0f, &ok);
	add_frame(world, 0.5f * KL_CARD_PEAK_SPACING, 0.0f, &ok);
	// Flat: the card's local z (length) along world x, its thickness along world z.
	versors flat = kl_quat_wxyz(sqrtf(0.5f), 0.0f, sqrtf(0.5f), 0.0f);
	ok = ok && add_card(world, kl_vec3(0.0f, 0.0f, top + KL_CARD_HALF_THICKNESS), flat);
	add_frame(world, 0.0f, top + 2.0f * KL_CARD_HALF_THICKNESS, &ok);
	return ok;
}

const kl_scene kl_scene_card_house = {
	.name = "card_house",
	.description = "two-level house of cards (0.4 m x 2 mm cards leaning 25 degrees, friction 0.7)",
	.create = card_house_create,
};
