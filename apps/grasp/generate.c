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
/// above the palm's surface), at the centroid of the reaching fingertips of the canonical shape plus
/// offset, or beside a phalanx (offset: the direction in the phalanx's frame).
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
	int reach;	///< fingers whose tips place the object (TIPS), or the phalanx part (SIDE)
	vec3s offset;
	float angles[KG_ANGLE_COUNT]; ///< thumb CMC, MCP, IP; index, middle, ring, pinky; thumb abduction
} kg_canonical;

#define AX {{1, 0, 0}}
#define AY {{0, 1, 0}}
#define AZ {{0, 0, 1}}
#define V(x, y, z) {{x, y, z}}
#define F(a, b, c) a, b, c
#define CURL F(70, 90, 60)
#define EXT F(10, 5, 5)

// clang-format off
static const kg_canonical canon[KG_TYPE_COUNT] = {
	{1,  KG_OBJ_BOTTLE_LARGE, AY, PALM, 0, V(0.06f, 0, -0.006f), {F(20, 15, 15), F(60, 70, 40), F(60, 70, 40), F(60, 70, 40), F(60, 70, 40), 75}},
	{2,  KG_OBJ_HANDLE, AY, PALM, 0, V(0.07f, 0, -0.006f), {F(40, 40, 40), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 70}},
	{3,  KG_OBJ_BOTTLE, AY, PALM, 0, V(0.065f, 0, -0.006f), {F(30, 30, 30), F(70, 85, 55), F(70, 85, 55), F(70, 85, 55), F(70, 85, 55), 70}},
	{4,  KG_OBJ_KNIFE, AY, PALM, 0, V(0.07f, 0, -0.006f), {F(20, 20, 5), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 5}},
	{5,  KG_OBJ_KNIFE, AY, PALM, 0, V(0.07f, 0, -0.006f), {F(15, 30, 50), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 25}},
	{6,  KG_OBJ_PEN, AY, TIPS, ALL, V(0, 0, 0), {F(10, 10, 10), F(45, 30, 15), F(45, 30, 15), F(45, 30, 15), F(45, 30, 15), 85}},
	{7,  KG_OBJ_PEN, AY, TIPS, T | I | M | R, V(0, 0, 0), {F(10, 10, 10), F(45, 30, 15), F(45, 30, 15), F(45, 30, 15), CURL, 85}},
	{8,  KG_OBJ_PEN, AY, TIPS, T | I | M, V(0, 0, 0), {F(10, 10, 10), F(45, 30, 15), F(45, 30, 15), CURL, CURL, 85}},
	{9,  KG_OBJ_KEY, AY, TIPS, T | I, V(0, 0, 0), {F(10, 10, 5), F(45, 30, 10), EXT, EXT, EXT, 85}},
	{10, KG_OBJ_LID, AZ, PALM, 0, V(0.06f, 0, -0.006f), {F(20, 20, 20), F(40, 50, 40), F(40, 50, 40), F(40, 50, 40), F(40, 50, 40), 85}},
	{11, KG_OBJ_BALL_LARGE, AZ, PALM, 0, V(0.065f, 0, -0.006f), {F(25, 20, 20), F(50, 55, 40), F(50, 55, 40), F(50, 55, 40), F(50, 55, 40), 80}},
	{12, KG_OBJ_LID, AZ, TIPS, ALL, V(0, 0, 0), {F(10, 10, 10), F(30, 30, 20), F(30, 30, 20), F(30, 30, 20), F(30, 30, 20), 90}},
	{13, KG_OBJ_BALL, AZ, TIPS, ALL, V(0, 0, 0), {F(10, 10, 10), F(35, 40, 30), F(35, 40, 30), F(35, 40, 30), F(35, 40, 30), 85}},
	{14, KG_OBJ_BALL_SMALL, AZ, TIPS, T | I | M, V(0, 0, 0), {F(10, 10, 10), F(35, 40, 30), F(35, 40, 30), CURL, CURL, 85}},
	{15, KG_OBJ_HANDLE, AY, PALM, 0, V(0.10f, 0, 0.012f), {F(0, 0, 0), F(20, 100, 60), F(20, 100, 60), F(20, 100, 60), F(20, 100, 60), 0}},
	{16, KG_OBJ_KEY, AX, SIDE, 1 + 3 * 1 + 1, V(0, 1, 0), {F(0, 10, 10), F(60, 70, 50), CURL, CURL, CURL, 10}},
	{17, KG_OBJ_KNIFE, AY, PALM, 0, V(0.07f, 0, -0.006f), {F(20, 20, 10), F(10, 5, 0), F(80, 100, 70), F(80, 100, 70), F(80, 100, 70), 20}},
	{18, KG_OBJ_PLATE, AZ, TIPS, ALL, V(0.05f, 0, 0), {F(10, 10, 10), F(15, 10, 5), F(15, 10, 5), F(15, 10, 5), F(15, 10, 5), 70}},
	{19, KG_OBJ_SCISSORS, AX, TIPS, T | M, V(0, 0, 0), {F(10, 10, 10), F(20, 10, 5), F(45, 40, 30), CURL, CURL, 75}},
	{20, KG_OBJ_PEN, AX, TIPS, T | I | M, V(0, 0, 0), {F(10, 10, 10), F(35, 30, 20), F(50, 50, 30), CURL, CURL, 30}},
	{21, KG_OBJ_PEN, AX, TIPS, T | I | M, V(0, 0, 0), {F(10, 20, 20), F(40, 50, 30), F(60, 60, 40), CURL, CURL, 30}},
	{22, KG_OBJ_BOARD, AZ, TIPS, ALL, V(0.1f, 0, 0), {F(10, 10, 0), F(5, 5, 0), F(5, 5, 0), F(5, 5, 0), F(5, 5, 0), 25}},
	{23, KG_OBJ_PEN, AZ, SIDE, 1 + 3 * 1 + 0, V(0, -1, 0), {F(0, 0, 0), EXT, EXT, EXT, EXT, 10}},
	{24, KG_OBJ_BEAD, AZ, TIPS, T | I, V(0, 0, 0), {F(15, 15, 30), F(55, 50, 40), F(30, 20, 10), F(30, 20, 10), F(30, 20, 10), 85}},
	{25, KG_OBJ_PEN, AX, SIDE, 1 + 3 * 2 + 1, V(0, 1, 0), {F(10, 20, 10), F(40, 40, 30), F(60, 70, 40), CURL, CURL, 20}},
	{26, KG_OBJ_BALL, AZ, PALM, 0, V(0.08f, 0, 0.012f), {F(25, 20, 20), F(50, 60, 40), F(50, 60, 40), F(50, 60, 40), F(50, 60, 40), 80}},
	{27, KG_OBJ_BALL_SMALL, AZ, TIPS, T | I | M | R, V(0, 0, 0), {F(10, 10, 10), F(35, 40, 30), F(35, 40, 30), F(35, 40, 30), CURL, 85}},
	{28, KG_OBJ_BALL, AZ, PALM, 0, V(0.08f, 0.01f, 0.012f), {F(25, 20, 20), F(50, 60, 40), F(50, 60, 40), F(50, 60, 40), CURL, 80}},
	{29, KG_OBJ_PEN, AX, SIDE, 1 + 3 * 1 + 0, V(0, 1, 0), {F(10, 30, 20), F(70, 80, 50), CURL, CURL, CURL, 10}},
	{30, KG_OBJ_BOARD, AZ, PALM, 0, V(0.12f, 0, -0.006f), {F(0, 0, 0), EXT, EXT, EXT, EXT, 5}},
	{31, KG_OBJ_HANDLE, AZ, TIPS, T | I, V(0, 0, 0), {F(20, 20, 20), F(60, 70, 40), F(20, 20, 10), F(20, 20, 10), F(20, 20, 10), 70}},
	{32, KG_OBJ_PEN, AX, SIDE, 1 + 3 * 1 + 1, V(0, 0, 1), {F(30, 30, 20), EXT, CURL, CURL, CURL, 15}},
	{33, KG_OBJ_BEAD, AZ, TIPS, T | I, V(0, 0, 0), {F(5, 5, 0), F(30, 20, 10), CURL, CURL, CURL, 70}},
};
// clang-format on

static vec3s noisy_direction(vec3s axis, float sigma, kg_rng* rng)
{
	vec3s d = glms_vec3_add(axis, kl_vec3((float)kg_rng_normal(rng) * sigma, (float)kg_rng_normal(rng) * sigma,
										  (float)kg_rng_normal(rng) * sigma));
	return glms_vec3_normalize(d);
}

// A rotation taking z to axis, then spun by angle about it.
static versors axis_rotation(vec3s axis, float spin)
{
	vec3s z = kl_vec3(0, 0, 1);
	float c = glms_vec3_dot(z, axis);
	vec3s n = glms_vec3_cross(z, axis);
	float s = glms_vec3_norm(n);
	versors q = s > 1e-6f ? glms_quatv(atan2f(s, c), glms_vec3_scale(n, 1.0f / s))
			  : c > 0.0f  ? glms_quat_identity()
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
		int n = 0;
		for (int f = 0; f < KG_FINGER_COUNT; ++f)
			if (c->reach & (1 << f))
			{
				p = glms_vec3_add(p, kg_hand_tip(hand, parts, f));
				++n;
			}
		p = glms_vec3_add(glms_vec3_scale(p, 1.0f / (float)n), glms_vec3_scale(c->offset, scale));
	}
	else
	{
		kl_transform bone = parts[c->reach];
		int finger = (c->reach - 1) / 3, joint = (c->reach - 1) % 3;
		vec3s mid = kl_transform_point(bone, kl_vec3(0.5f * hand->bone_length[finger][joint], 0, 0));
		vec3s d = kl_rotate(bone.q, c->offset);
		float r = hand->spheres[c->reach][0].radius;
		p = glms_vec3_add(mid, glms_vec3_scale(d, r + support(o, q, glms_vec3_negate(d)) - 0.001f));
	}
	return (kl_transform){p, q};
}

static bool finger_touches(const kg_hand* hand, const kg_hand_trees* trees, const float angles[KG_ANGLE_COUNT],
						   const kl_sphere_tree* object, kl_transform object_pose, int finger)
{
	kl_transform parts[KG_PART_COUNT];
	kg_hand_pose_parts(hand, angles, parts);
	for (int k = 0; k < 3; ++k)
	{
		int p = kg_part_of(finger, k);
		kl_sphere_overlap_result r;
		kl_sphere_tree_overlap(trees->parts[p], parts[p], object, object_pose, NULL, &r);
		if (r.pair_count > 0)
			return true;
	}
	return false;
}

#define KG_ANGLE_NOISE_DEG 6.0f	 ///< person to person: on the canonical shape
#define KG_SENSOR_NOISE_DEG 3.0f ///< glove noise on each measured angle
#define KG_PLACE_NOISE_M 0.003f	 ///< wrist (object placement) position noise
#define KG_AXIS_NOISE 0.1f		 ///< about 6° on the object's axis
#define KG_SQUEEZE_DEG 4.0f		 ///< how far a stopped finger keeps closing into the object

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
	versors q = axis_rotation(noisy_direction(c->axis, KG_AXIS_NOISE, rng), (float)(2.0 * GLM_PI * kg_rng_uniform(rng)));
	kl_transform rel = place_object(&hand, c, o, q, parts);
	for (int k = 0; k < 3; ++k)
		rel.p.raw[k] += KG_PLACE_NOISE_M * (float)kg_rng_normal(rng);

	// The hand in the world: somewhere in front of the user, any orientation.
	kl_transform wrist = {kl_vec3((float)kg_rng_uniform(rng), (float)kg_rng_uniform(rng), 1.0f),
						  glms_quat_normalize(glms_quat_init((float)kg_rng_normal(rng), (float)kg_rng_normal(rng),
															 (float)kg_rng_normal(rng), (float)kg_rng_normal(rng)))};
	rec->hand_length = hand.hand_length;
	rec->object = (int)c->object;
	rec->object_pose = kl_transform_mul(wrist, rel);
	rec->label = type;

	bool stopped[KG_FINGER_COUNT] = {false};
	memcpy(angles, open, sizeof(angles));
	bool ok = true;
	for (int frame = 0; frame < KG_SEQUENCE_FRAMES && ok; ++frame)
	{
		float t = (float)frame / (float)(KG_SEQUENCE_FRAMES - 6); // the last frames hold the grasp
		t = fminf(t, 1.0f);
		for (int f = 0; f < KG_FINGER_COUNT; ++f)
		{
			float before[3] = {angles[3 * f], angles[3 * f + 1], angles[3 * f + 2]};
			for (int k = 0; k < 3; ++k)
				angles[3 * f + k] = stopped[f] ? before[k] : open[3 * f + k] + (target[3 * f + k] - open[3 * f + k]) * t;
			if (!stopped[f] && finger_touches(&hand, &trees, angles, set->trees[c->object], rel, f))
			{
				stopped[f] = true;
				for (int k = 0; k < 3; ++k)
					angles[3 * f + k] += KG_SQUEEZE_DEG;
			}
		}
		kg_frame fr = {frame / 90.0, wrist, {0}};
		for (int i = 0; i < KG_ANGLE_COUNT; ++i)
			fr.angles[i] = angles[i] + KG_SENSOR_NOISE_DEG * (float)kg_rng_normal(rng);
		ok = kg_recording_add(rec, &fr);
	}
	kg_hand_trees_destroy(&trees);
	kg_hand_destroy(&hand);
	if (!ok)
		kg_recording_free(rec);
	return ok;
}
