// Kollide grasp — the labelled-set generator. The canonical shapes below come from the taxonomy's
// descriptions and pictures of each type (which fingers oppose which, how flexed, which object);
// the contacts come from closing the hand on the object's geometry, not from the classifier's rules.
// SPDX-License-Identifier: MIT
#include "generate.h"

#include "taxonomy.h"

#include <math.h>
#include <string.h>

double kg_rng_uniform(kg_rng* rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

double kg_rng_normal(kg_rng* rng)
{
	double u = kg_rng_uniform(rng), v = kg_rng_uniform(rng);
	return sqrt(-2.0 * log(u + 1e-300)) * cos(2.0 * GLM_PI * v);
}

bool kg_object_set_build(kg_object_set* set)
{
	memset(set, 0, sizeof(*set));
	for (int k = 0; k < KG_OBJ_COUNT; ++k)
	{
		set->objects[k] = kg_object_shape((kg_object_kind)k);
		if (!kg_object_fill(&set->objects[k]) || (set->trees[k] = kg_object_tree_build(&set->objects[k])) == NULL)
		{
			kg_object_set_destroy(set);
			return false;
		}
	}
	return true;
}

void kg_object_set_destroy(kg_object_set* set)
{
	for (int k = 0; k < KG_OBJ_COUNT; ++k)
	{
		kl_sphere_tree_destroy(set->trees[k]);
		kg_object_destroy(&set->objects[k]);
	}
	memset(set, 0, sizeof(*set));
}

/// Where the object sits: against the palm (offset x, y along the palm; z: its lowest point this far
/// above the palm's surface), where the reaching fingertips of the canonical shape meet (plus offset), or beside a
/// phalanx (offset: the direction in the phalanx's frame).
typedef enum kg_place
{
	PALM,
	TIPS,
	SIDE,
} kg_place;

enum
{
	T = 1,
	I = 2,
	M = 4,
	R = 8,
	P = 16,
	ALL = 31
};

typedef struct kg_canonical
{
	int type;
	kg_object_kind object;
	vec3s axis; ///< the object's z axis in the wrist frame
	kg_place place;
	int reach; ///< fingers that close onto the object (TIPS: their tips place it, the thumb's opposite the rest's)
	int part;  ///< SIDE: the phalanx the object lies against
	vec3s offset;
	float angles[KG_ANGLE_COUNT]; ///< thumb CMC, MCP, IP; index, middle, ring, pinky; thumb abduction
	float spin_deg;				  ///< the object's turn about its axis (flat objects)
} kg_canonical;

#define AX                                                                                                             \
	{                                                                                                                  \
		{                                                                                                              \
			1, 0, 0                                                                                                    \
		}                                                                                                              \
	}
#define AY                                                                                                             \
	{                                                                                                                  \
		{                                                                                                              \
			0, 1, 0                                                                                                    \
		}                                                                                                              \
	}
#define AZ                                                                                                             \
	{                                                                                                                  \
		{                                                                                                              \
			0, 0, 1                                                                                                    \
		}                                                                                                              \
	}
#define V(x, y, z)                                                                                                     \
	{                                                                                                                  \
		{                                                                                                              \
			x, y, z                                                                                                    \
		}                                                                                                              \
	}
#define F(a, b, c) a, b, c
#define CURL F(70, 90, 60)
#define EXT F(10, 5, 5)

// clang-format off
static const kg_canonical canon[KG_TYPE_COUNT] = {
	{1, KG_OBJ_BOTTLE_LARGE, AY, PALM, ALL, 0, V(0.06f, 0, -0.008f), {F(20, 15, 15), F(60, 70, 40), F(60, 70, 40), F(60, 70, 40), F(60, 70, 40), 75}},
	{2, KG_OBJ_HANDLE, AY, PALM, ALL, 0, V(0.07f, 0, -0.008f), {F(40, 40, 40), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 70}},
	{3, KG_OBJ_BOTTLE, AY, PALM, ALL, 0, V(0.065f, 0, -0.008f), {F(30, 30, 30), F(70, 85, 55), F(70, 85, 55), F(70, 85, 55), F(70, 85, 55), 70}},
	{4, KG_OBJ_KNIFE, AY, PALM, ALL, 0, V(0.07f, 0, -0.008f), {F(20, 20, 5), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 5}},
	{5, KG_OBJ_KNIFE, AY, PALM, ALL, 0, V(0.07f, 0, -0.008f), {F(15, 30, 50), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 25}},
	{6, KG_OBJ_PEN, AY, TIPS, ALL, 0, V(0, 0, 0), {F(10, 10, 10), F(45, 30, 15), F(45, 30, 15), F(45, 30, 15), F(45, 30, 15), 85}},
	{7, KG_OBJ_PEN, AY, TIPS, T | I | M | R, 0, V(0, 0, 0), {F(10, 10, 10), F(45, 30, 15), F(45, 30, 15), F(45, 30, 15), CURL, 85}},
	{8, KG_OBJ_PEN, AY, TIPS, T | I | M, 0, V(0, 0, 0), {F(10, 10, 10), F(45, 30, 15), F(45, 30, 15), CURL, CURL, 85}},
	{9, KG_OBJ_KEY, AY, TIPS, T | I, 0, V(0, 0, 0), {F(10, 10, 5), F(45, 30, 10), EXT, EXT, EXT, 85}},
	{10, KG_OBJ_LID, AZ, PALM, ALL, 0, V(0.06f, 0, -0.008f), {F(20, 20, 20), F(40, 50, 40), F(40, 50, 40), F(40, 50, 40), F(40, 50, 40), 85}},
	{11, KG_OBJ_BALL_LARGE, AZ, PALM, ALL, 0, V(0.065f, 0, -0.008f), {F(25, 20, 20), F(50, 55, 40), F(50, 55, 40), F(50, 55, 40), F(50, 55, 40), 80}},
	{12, KG_OBJ_LID, AZ, TIPS, ALL, 0, V(0, 0, 0), {F(10, 10, 10), F(30, 30, 20), F(30, 30, 20), F(30, 30, 20), F(30, 30, 20), 90}},
	{13, KG_OBJ_BALL, AZ, TIPS, ALL, 0, V(0, 0, 0), {F(10, 10, 10), F(35, 40, 30), F(35, 40, 30), F(35, 40, 30), F(35, 40, 30), 85}},
	{14, KG_OBJ_BALL_SMALL, AZ, TIPS, T | I | M, 0, V(0, 0, 0), {F(10, 10, 10), F(35, 40, 30), F(35, 40, 30), CURL, CURL, 85}},
	{15, KG_OBJ_HANDLE, AY, PALM, I | M | R | P, 0, V(0.10f, 0, 0.012f), {F(0, 0, 0), F(20, 100, 60), F(20, 100, 60), F(20, 100, 60), F(20, 100, 60), 0}},
	{16, KG_OBJ_KEY, AX, SIDE, T | I, 1 + 3 * 1 + 1, V(0, 1, 0), {F(20, 20, 10), F(60, 70, 50), CURL, CURL, CURL, 30}, 90},
	{17, KG_OBJ_KNIFE, AY, PALM, T | M | R | P, 0, V(0.07f, 0, -0.008f), {F(20, 20, 10), F(10, 5, 0), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 20}},
	{18, KG_OBJ_PLATE, AZ, TIPS, ALL, 0, V(0.05f, 0, 0), {F(10, 10, 10), F(15, 10, 5), F(15, 10, 5), F(15, 10, 5), F(15, 10, 5), 70}},
	{19, KG_OBJ_SCISSORS, AX, TIPS, T | M, 0, V(0, 0, 0), {F(10, 10, 10), F(20, 10, 5), F(45, 40, 30), CURL, CURL, 75}},
	{20, KG_OBJ_PEN, AX, TIPS, T | I | M, 0, V(0, 0, 0), {F(10, 10, 10), F(35, 30, 20), F(50, 50, 30), CURL, CURL, 30}},
	{21, KG_OBJ_PEN, AX, TIPS, T | I | M, 0, V(0, 0, 0), {F(10, 20, 20), F(40, 50, 30), F(60, 60, 40), CURL, CURL, 30}},
	{22, KG_OBJ_BOOK, AZ, TIPS, ALL, 0, V(0.05f, 0, 0), {F(10, 10, 0), F(5, 5, 0), F(5, 5, 0), F(5, 5, 0), F(5, 5, 0), 25}},
	{23, KG_OBJ_PEN, AZ, SIDE, I | M, 1 + 3 * 1 + 0, V(0, -1, 0), {F(0, 0, 0), EXT, EXT, EXT, EXT, 10}},
	{24, KG_OBJ_BEAD, AZ, TIPS, T | I, 0, V(0, 0, 0), {F(15, 15, 30), F(55, 50, 40), F(30, 20, 10), F(30, 20, 10), F(30, 20, 10), 85}},
	{25, KG_OBJ_PEN, AX, SIDE, T | I | M, 1 + 3 * 2 + 1, V(0, 1, 0), {F(10, 20, 10), F(40, 40, 30), F(60, 70, 40), CURL, CURL, 20}},
	{26, KG_OBJ_BALL, AZ, PALM, ALL, 0, V(0.08f, 0, 0.012f), {F(25, 20, 20), F(50, 60, 40), F(50, 60, 40), F(50, 60, 40), F(50, 60, 40), 80}},
	{27, KG_OBJ_BALL_SMALL, AZ, TIPS, T | I | M | R, 0, V(0, 0, 0), {F(10, 10, 10), F(35, 40, 30), F(35, 40, 30), F(35, 40, 30), CURL, 85}},
	{28, KG_OBJ_BALL, AZ, PALM, T | I | M | R, 0, V(0.08f, 0.01f, 0.012f), {F(25, 20, 20), F(50, 60, 40), F(50, 60, 40), F(50, 60, 40), CURL, 80}},
	{29, KG_OBJ_PEN, AX, SIDE, T | I, 1 + 3 * 1 + 0, V(0, 1, 0), {F(10, 30, 20), F(70, 80, 50), CURL, CURL, CURL, 10}},
	{30, KG_OBJ_BOARD, AZ, PALM, I | M | R | P, 0, V(0.12f, 0, -0.008f), {F(0, 0, 0), EXT, EXT, EXT, EXT, 5}},
	{31, KG_OBJ_HANDLE, AZ, TIPS, T | I, 0, V(0, 0, 0), {F(20, 20, 20), F(60, 70, 40), F(20, 20, 10), F(20, 20, 10), F(20, 20, 10), 70}},
	{32, KG_OBJ_PEN, AX, SIDE, T | I, 1 + 3 * 1 + 1, V(0, 0, 1), {F(30, 30, 20), EXT, CURL, CURL, CURL, 15}},
	{33, KG_OBJ_BEAD, AZ, TIPS, T | I, 0, V(0, 0, 0), {F(5, 5, 0), F(30, 20, 10), CURL, CURL, CURL, 70}},
};
// clang-format on

static vec3s noisy_direction(vec3s axis, float sigma, kg_rng* rng)
{
	// Drawn z, y, x: one order for every compiler (a call's arguments are evaluated in an
	// unspecified order), the one the labelled sets in docs/grasp.md were made with.
	float z = (float)kg_rng_normal(rng) * sigma;
	float y = (float)kg_rng_normal(rng) * sigma;
	float x = (float)kg_rng_normal(rng) * sigma;
	vec3s d = glms_vec3_add(axis, kl_vec3(x, y, z));
	return glms_vec3_normalize(d);
}

static kl_transform kg_transform_inverse(kl_transform t)
{
	versors qi = glms_quat_conjugate(t.q);
	return (kl_transform){glms_vec3_negate(kl_rotate(qi, t.p)), qi};
}

// A rotation taking z to axis, then spun by angle about it.
static versors axis_rotation(vec3s axis, float spin)
{
	vec3s z = kl_vec3(0, 0, 1);
	float c = glms_vec3_dot(z, axis);
	vec3s n = glms_vec3_cross(z, axis);
	float s = glms_vec3_norm(n);
	versors q = s > 1e-6f  ? glms_quatv(atan2f(s, c), glms_vec3_scale(n, 1.0f / s))
				: c > 0.0f ? glms_quat_identity()
						   : glms_quatv((float)GLM_PI, kl_vec3(1, 0, 0));
	return glms_quat_mul(q, glms_quatv(spin, z));
}

// The object's extent from its origin along direction d (in the frame the rotation q maps into).
static float support(const kg_object* o, versors q, vec3s d)
{
	float best = -INFINITY;
	for (int i = 0; i < o->sphere_count; ++i)
		best = fmaxf(best, glms_vec3_dot(kl_rotate(q, o->spheres[i].center), d) + o->spheres[i].radius);
	return best;
}

static kl_transform place_object(const kg_hand* hand, const kg_canonical* c, const kg_object* o, versors q,
								 const kl_transform parts[KG_PART_COUNT])
{
	float scale = hand->hand_length / 0.19f;
	vec3s p = kl_vec3(0, 0, 0);
	if (c->place == PALM)
	{
		float below = support(o, q, kl_vec3(0, 0, -1));
		p = kl_vec3(c->offset.x * scale, c->offset.y * scale, 0.5f * hand->palm_thickness + c->offset.z + below);
	}
	else if (c->place == TIPS)
	{
		// At the opposing fingertips of the canonical shape, toward the thumb's tip by half their
		// distance, but not further than the object's own extent: the object lies on the fingers' pads.
		int n = 0;
		for (int f = KG_INDEX; f < KG_FINGER_COUNT; ++f)
			if (c->reach & (1 << f))
			{
				p = glms_vec3_add(p, kg_hand_tip(hand, parts, f));
				++n;
			}
		p = glms_vec3_scale(p, 1.0f / (float)n);
		vec3s toward = glms_vec3_scale(glms_vec3_sub(kg_hand_tip(hand, parts, KG_THUMB), p), 0.5f);
		float d = glms_vec3_norm(toward);
		if (d > 0.0f)
		{
			float reach = support(o, q, glms_vec3_scale(toward, -1.0f / d)) + 0.002f;
			p = glms_vec3_add(p, glms_vec3_scale(toward, fminf(d, reach) / d));
		}
		p = glms_vec3_add(p, glms_vec3_scale(c->offset, scale));
	}
	else
	{
		kl_transform bone = parts[c->part];
		int finger = (c->part - 1) / 3, joint = (c->part - 1) % 3;
		vec3s mid = kl_transform_point(bone, kl_vec3(0.5f * hand->bone_length[finger][joint], 0, 0));
		vec3s d = kl_rotate(bone.q, c->offset);
		float r = hand->spheres[c->part][0].radius;
		p = glms_vec3_add(mid, glms_vec3_scale(d, r + support(o, q, glms_vec3_negate(d)) - 0.003f));
	}
	return (kl_transform){p, q};
}

// The finger's deepest penetration into the object (0: apart).
static float finger_depth(const kg_hand* hand, const kg_hand_trees* trees, const float angles[KG_ANGLE_COUNT],
						  const kl_sphere_tree* object, kl_transform object_pose, int finger)
{
	kl_transform parts[KG_PART_COUNT];
	kg_hand_pose_parts(hand, angles, parts);
	float depth = 0.0f;
	for (int k = 0; k < 3; ++k)
	{
		int p = kg_part_of(finger, k);
		kl_sphere_overlap_result r;
		kl_sphere_tree_overlap(trees->parts[p], parts[p], object, object_pose, NULL, &r);
		depth = fmaxf(depth, r.pair_count > 0 ? fmaxf(r.max_depth, 1e-6f) : 0.0f);
	}
	return depth;
}

#define KG_ANGLE_NOISE_DEG 6.0f	 ///< person to person: on the canonical shape
#define KG_SENSOR_NOISE_DEG 3.0f ///< glove noise on each measured angle
#define KG_PLACE_NOISE_M 0.003f	 ///< wrist (object placement) position noise
#define KG_AXIS_NOISE 0.05f		 ///< about 3° on the object's axis
#define KG_SQUEEZE_DEG 4.0f		 ///< how far a stopped finger keeps closing into the object
#define KG_GRIP_DEPTH_M 0.001f	 ///< the hand settles until each reaching finger presses this deep
#define KG_SETTLE_STEP_M 0.004f	 ///< how far the hand shifts per frame while settling into a pinch
#define KG_WRIST_JITTER_M 0.001f ///< tracker noise on the wrist position, per frame
#define KG_OVERSHOOT_DEG 30.0f	 ///< how far past the canonical shape a reaching finger may close

bool kg_generate_sequence(const kg_object_set* set, int type, kg_rng* rng, kg_recording* rec)
{
	kg_recording_init(rec);
	if (type < 1 || type > KG_TYPE_COUNT)
	{
		kg_set_error("grasp type %d is not 1 to 33", type);
		return false;
	}
	const kg_canonical* c = &canon[type - 1];
	kg_hand_def def = {(float)(0.17 + 0.04 * kg_rng_uniform(rng))};
	kg_hand hand;
	kg_hand_trees trees;
	if (!kg_hand_build(&hand, &def))
		return false;
	if (!kg_hand_trees_build(&trees, &hand))
	{
		kg_hand_destroy(&hand);
		return false;
	}
	float target[KG_ANGLE_COUNT], open[KG_ANGLE_COUNT], angles[KG_ANGLE_COUNT];
	for (int i = 0; i < KG_ANGLE_COUNT; ++i)
		target[i] = c->angles[i] + KG_ANGLE_NOISE_DEG * (float)kg_rng_normal(rng);
	kg_clamp_angles(target);
	for (int i = 0; i < KG_ANGLE_COUNT; ++i)
		open[i] = i == KG_THUMB_ABDUCTION ? target[i] : 0.1f * target[i];
	kl_transform parts[KG_PART_COUNT];
	kg_hand_pose_parts(&hand, target, parts);
	const kg_object* o = &set->objects[c->object];
	float spin = glm_rad(c->spin_deg) + KG_AXIS_NOISE * (float)kg_rng_normal(rng);
	versors q = axis_rotation(noisy_direction(c->axis, KG_AXIS_NOISE, rng), spin);
	kl_transform rel = place_object(&hand, c, o, q, parts);
	for (int k = 0; k < 3; ++k)
		rel.p.raw[k] += KG_PLACE_NOISE_M * (float)kg_rng_normal(rng);

	// The hand in the world: somewhere in front of the user, any orientation.
	float wy = (float)kg_rng_uniform(rng);
	float wx = (float)kg_rng_uniform(rng);
	float qw = (float)kg_rng_normal(rng), qz = (float)kg_rng_normal(rng);
	float qy = (float)kg_rng_normal(rng), qx = (float)kg_rng_normal(rng);
	kl_transform wrist = {kl_vec3(wx, wy, 1.0f), glms_quat_normalize(glms_quat_init(qx, qy, qz, qw))};
	rec->hand_length = hand.hand_length;
	rec->object = (int)c->object;
	rec->object_pose = kl_transform_mul(wrist, rel);
	rec->label = type;

	// Each frame, a finger that has not met the object closes a step further: reaching fingers past the
	// canonical shape (until they meet it), the others up to it; a finger that has met it holds. Off
	// the palm, the hand then shifts toward the nearest reaching finger not pressing on the object
	// (one that has met it, or is as closed as it gets), as a hand settling into a grip does; the object
	// stays where it is in the world.
	float progress[KG_FINGER_COUNT] = {0.0f};
	bool met[KG_FINGER_COUNT] = {false}; // a finger that has met the object closes no further
	const float step = 1.5f / (float)(KG_SEQUENCE_FRAMES - 6);
	memcpy(angles, open, sizeof(angles));
	bool ok = true;
	for (int frame = 0; frame < KG_SEQUENCE_FRAMES && ok; ++frame)
	{
		bool touching[KG_FINGER_COUNT];
		vec3s loose = kl_vec3(0, 0, 0); // the nearest point of a reaching finger not yet pressing
		float loose_distance = INFINITY;
		kg_hand_pose_parts(&hand, angles, parts);
		for (int f = 0; f < KG_FINGER_COUNT; ++f)
		{
			float depth = finger_depth(&hand, &trees, angles, set->trees[c->object], rel, f);
			touching[f] = depth > 0.0f;
			bool reaching = (c->reach & (1 << f)) != 0;
			// At the fingertips, the thumb holds its shape and the hand settles onto it instead; so does
			// the finger an object lies beside.
			bool side = c->place == SIDE && (c->part - 1) / 3 == f;
			bool overshoot = reaching && (f != KG_THUMB || c->place != TIPS) && !side;
			float most = overshoot ? 1.5f : 1.0f;
			if (c->place != PALM && reaching && depth < KG_GRIP_DEPTH_M &&
				(met[f] || progress[f] >= most - 0.5f * step))
			{
				vec3s point = side ? parts[c->part].p : kg_hand_tip(&hand, parts, f);
				float distance = glms_vec3_distance(point, rel.p);
				if (distance < loose_distance)
				{
					loose = point;
					loose_distance = distance;
				}
			}
			met[f] = met[f] || touching[f];
			if (met[f])
				continue;
			progress[f] = fminf(progress[f] + step, most);
			float s = fminf(progress[f], 1.0f), over = 2.0f * fmaxf(progress[f] - 1.0f, 0.0f) * KG_OVERSHOOT_DEG;
			for (int k = 0; k < 3; ++k)
				angles[3 * f + k] = open[3 * f + k] + (target[3 * f + k] - open[3 * f + k]) * s + over;
		}
		if (isfinite(loose_distance))
		{
			vec3s toward = glms_vec3_sub(loose, rel.p);
			float d = glms_vec3_norm(toward);
			if (d > 0.0f)
				rel.p = glms_vec3_add(rel.p, glms_vec3_scale(toward, fminf(KG_SETTLE_STEP_M, d) / d));
		}
		kg_frame fr = {frame / 90.0, kl_transform_mul(rec->object_pose, kg_transform_inverse(rel)), {0}};
		for (int i = 0; i < KG_ANGLE_COUNT; ++i)
		{
			float squeeze = i < KG_GLOVE_ANGLES && touching[i / 3] ? KG_SQUEEZE_DEG : 0.0f;
			fr.angles[i] = angles[i] + squeeze + KG_SENSOR_NOISE_DEG * (float)kg_rng_normal(rng);
		}
		for (int k = 0; k < 3; ++k)
			fr.wrist.p.raw[k] += KG_WRIST_JITTER_M * (float)kg_rng_normal(rng);
		ok = kg_recording_add(rec, &fr);
	}
	kg_hand_trees_destroy(&trees);
	kg_hand_destroy(&hand);
	if (!ok)
		kg_recording_free(rec);
	return ok;
}
