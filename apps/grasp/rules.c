// Kollide grasp — the classifier's thresholds and rule table, in one place (docs/grasp.md shows the
// table). Each rule is a grasp type's expected features; a frame gets the type whose rule it
// satisfies best (weighted count of satisfied predicates, the first rule on a tie).
// SPDX-License-Identifier: MIT
#include "classify.h"

#include <math.h>
#include <stdio.h>

/// Thresholds (angles in degrees, lengths in metres).
static const struct
{
	float straight_sum;	  ///< a finger whose three flexions sum below this is straight
	float curled_sum;	  ///< … and at or above this, curled
	float thumb_abducted; ///< abduction at or above this: abducted (opposed)
	float thumb_ip_bent;  ///< the thumb's upper joint flexed at least this: bent
	float wrapping;		  ///< fraction of fingers touching with ≥ 2 phalanges that makes a wrap
} th = {40.0f, 130.0f, 45.0f, 30.0f, 0.5f};

enum
{
	ANY = -1
};

/// A type's expected features; ANY leaves one out. Apertures in millimetres (0, 0: any).
typedef struct kg_rule
{
	int type;
	signed char touch[KG_FINGER_COUNT + 1]; ///< thumb … pinky, palm: 1 touches, 0 does not
	signed char abducted;
	signed char thumb_ip_bent;
	signed char index_shape, others_shape; ///< kg_shape; others: the majority of middle, ring, pinky
	signed char index_side;				   ///< kg_side
	signed char wrap;					   ///< 1: most fingers touch with ≥ 2 phalanges
	signed char index_full;				   ///< 1: the index touches with ≥ 2 phalanges
	float aperture_lo, aperture_hi;
	float curl_lo, curl_hi; ///< degrees (0, 0: any): the fingers wrap a smaller object tighter
	float grip_lo, grip_hi; ///< grip width, millimetres (0, 0: any): the size of what the thumb opposes
	float span_lo, span_hi; ///< contact span, millimetres (0, 0: any): the size of the object in the hand
} kg_rule;

#define S KG_STRAIGHT
#define B KG_BENT
#define C KG_CURLED
#define FRONT KG_SIDE_FRONT
#define RADIAL KG_SIDE_RADIAL

// clang-format off
static const kg_rule rules[] = {
	//  T  I  M  R  P  palm      abd  ip  index others side  wrap full  aperture mm  curl °  grip mm  span mm
	{1,  {1, 1, 1, 1, 1, ANY},    1,   0, ANY, ANY, ANY,     1, ANY,   0,  30,  100, 134,   0,   0,  93, 130},
	{2,  {ANY, 1, 1, 1, 1, 1},    1,   1, C,   C,   ANY,   ANY, ANY,   0,   0,  190, 300,   0,   0,  40,  75},
	{3,  {1, 1, 1, 1, 1, ANY},    1,   0, ANY, ANY, ANY,   ANY, ANY,   0,  30,  134, 190,   0,   0,  86, 105},
	{4,  {1, 1, 1, 1, 1, ANY},    0,   0, C,   C,   ANY,   ANY, ANY,   0,   0,  150, 300,  40,  70,  95, 140},
	{5,  {1, 1, 1, 1, 1, ANY},    0,   1, C,   C,   ANY,   ANY, ANY,   0,   0,  150, 300,  40,  70,  95, 140},
	{6,  {1, 1, 1, 1, ANY, 0},    1, ANY, ANY, ANY, ANY,     0, ANY,   0,  30,  130, 200,   0,  12,  30,  60},
	{7,  {ANY, 1, 1, 1, 0, 0},    1, ANY, B,   ANY, ANY,     0, ANY,   0,  20,  140, 200,   0,  12,  30,  60},
	{8,  {ANY, 1, 1, 0, 0, 0},    1, ANY, B,   C,   ANY,     0, ANY,   0,  30,  140, 200,   0,  12,  15,  45},
	{9,  {ANY, 1, 0, 0, 0, 0},    1, ANY, B,   S,   ANY,     0, ANY,   0,  30,    0,  65,   0,   0,   0,  20},
	{10, {1, 1, 1, 1, 1, 1},      1, ANY, ANY, ANY, ANY,   ANY, ANY,   0,   0,    0,  66,  38,  60,  60,  79},
	{11, {1, 1, 1, 1, 1, 1},      1, ANY, ANY, ANY, ANY,   ANY, ANY,   0,   0,   66, 115,   0,  38,  79,  88},
	{12, {1, 1, 1, 1, 1, 0},      1, ANY, B,   B,   ANY,     0, ANY,  30,  60,   60, 105,  45,  80,  62,  90},
	{13, {1, 1, 1, 1, ANY, 0},    1, ANY, B,   B,   ANY,     0, ANY,   8,  30,  105, 140,  28,  45,  45,  62},
	{14, {1, 1, 1, ANY, 0, 0},    1, ANY, B,   C,   ANY,     0, ANY,   0,  25,  140, 200,  12,  30,  20,  45},
	{15, {0, 1, 1, 1, 1, 0},      0, ANY, ANY, ANY, ANY,   ANY, ANY,   0,   0,  120, 170,   0,   0,  50,  80},
	{16, {1, 1, 0, 0, 0, 0},      0, ANY, ANY, C,   RADIAL, ANY, ANY,  0,   0,  170, 250,  15,  50,   0,   0},
	{17, {1, 0, 1, 1, 1, ANY},    0, ANY, S,   C,   ANY,   ANY, ANY,   0,   0,   90, 170,   0,   0,  80, 130},
	{18, {1, 1, 1, 1, 1, 0},      1, ANY, B,   B,   ANY,     0, ANY,  40, 200,   35,  70,  60, 100,  85, 120},
	{19, {1, 0, ANY, 0, 0, 0},    1, ANY, S,   C,   ANY,     0, ANY,   0,   0,  130, 190,   0,   0,   0,   0},
	{20, {ANY, ANY, 0, 0, 0, 0},  0, ANY, C,   C,   ANY,     0, ANY,   0,   0,  185, 250,   0,  12,   0,   0},
	{21, {1, ANY, ANY, 0, 0, 0},  0, ANY, B,   C,   ANY,     0, ANY,   0,   0,  185, 250,   0,  12,   0,   0},
	{22, {1, 1, 1, 1, 1, 0},      0, ANY, S,   S,   ANY,   ANY, ANY,   0,   0,    0,  35,  50, 100,  55, 120},
	{23, {0, 1, 1, 0, 0, ANY},    0, ANY, S,   S,   ANY,     0, ANY,   0,   0,    0,  35,   0,   0,   0,  15},
	{24, {1, 1, 0, 0, 0, 0},      1, ANY, C,   B,   ANY,     0, ANY,   0,  15,   65, 110,   0,  12,   0,  20},
	{25, {ANY, ANY, 1, 0, 0, 0},  0, ANY, B,   C,   ANY,     0, ANY,   0,   0,  150, 200,   0,   0,   0,   0},
	{26, {1, 1, 1, 1, 1, 0},      1, ANY, C,   ANY, ANY,     1, ANY,   0,  10,  110, 140,   0,  20,  45,  70},
	{27, {1, 1, 1, 1, 0, 0},      1, ANY, B,   C,   ANY,     0, ANY,   0,  25,  140, 200,  12,  30,  20,  45},
	{28, {1, 1, 1, 1, 0, 0},      1, ANY, ANY, ANY, ANY,     1, ANY,   0,  15,  130, 170,  15,  35,  45,  70},
	{29, {1, 1, 0, 0, 0, ANY},    0, ANY, ANY, C,   ANY,   ANY, ANY,   0,   0,  150, 250,   0,   0,  60, 140},
	{30, {ANY, 1, 1, 1, 1, 1},    0, ANY, S,   S,   ANY,   ANY, ANY,   0,   0,    0,  35,   0,   0,  60, 200},
	{31, {1, 1, ANY, 0, 0, 1},    1, ANY, ANY, ANY, ANY,   ANY,   1,   0,   0,   20,  90,   0,   0,  50,  80},
	{32, {ANY, 1, 0, 0, 0, 0},    0, ANY, S,   C,   ANY,   ANY, ANY,   0,   0,  150, 200,   0,   0,   0,   0},
	{33, {0, 1, 0, 0, 0, 0},      1, ANY, B,   C,   ANY,     0, ANY,   0,   0,  150, 250,   0,   0,   0,   0},
};
// clang-format on

#define RULE_COUNT ((int)(sizeof(rules) / sizeof(rules[0])))

static kg_shape finger_shape(const float angles[KG_ANGLE_COUNT], int finger)
{
	float sum = angles[3 * finger] + angles[3 * finger + 1] + angles[3 * finger + 2];
	return sum < th.straight_sum ? KG_STRAIGHT : sum < th.curled_sum ? KG_BENT : KG_CURLED;
}

static kg_side contact_side(vec3s d, bool distal)
{
	float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
	if (distal && d.x > ay && d.x > az)
		return KG_SIDE_TIP;
	if (az >= ay && az >= ax)
		return d.z > 0.0f ? KG_SIDE_FRONT : KG_SIDE_BACK;
	if (ay >= ax)
		return d.y > 0.0f ? KG_SIDE_RADIAL : KG_SIDE_ULNAR;
	return d.x > 0.0f ? KG_SIDE_TIP : KG_SIDE_FRONT;
}

kg_features kg_compute_features(const kg_hand* hand, const float angles[KG_ANGLE_COUNT],
								const kl_transform parts[KG_PART_COUNT], const kg_contacts* contacts)
{
	kg_features f = {0};
	int wrapping = 0;
	for (int fi = 0; fi < KG_FINGER_COUNT; ++fi)
	{
		f.touching[fi] = kg_finger_touches(contacts, fi);
		f.shape[fi] = finger_shape(angles, fi);
		float most = 0.0f;
		for (int k = 0; k < 3; ++k)
		{
			const kg_part_contact* c = &contacts->parts[kg_part_of(fi, k)];
			f.phalanges_touching[fi] += c->pair_count > 0;
			if (c->pair_count > 0 && c->volume >= most)
			{
				most = c->volume;
				f.side[fi] = contact_side(c->direction, k == 2 && c->along > 0.8f);
			}
		}
		wrapping += fi != KG_THUMB && f.phalanges_touching[fi] >= 2;
	}
	f.touching[KG_FINGER_COUNT] = kg_finger_touches(contacts, KG_FINGER_COUNT);
	f.fingers_wrapping = (float)wrapping / 4.0f;
	for (int a = 3; a < KG_GLOVE_ANGLES; ++a)
		f.curl += 0.25f * angles[a];
	f.grip_width = INFINITY;
	for (int a = 0; a < 3; ++a)
		for (int b = kg_part_of(KG_INDEX, 0); b < KG_PART_COUNT; ++b)
		{
			const kg_part_contact *ca = &contacts->parts[kg_part_of(KG_THUMB, a)], *cb = &contacts->parts[b];
			if (ca->pair_count > 0 && cb->pair_count > 0)
				f.grip_width = fminf(f.grip_width, glms_vec3_distance(ca->point, cb->point));
		}
	f.grip_width = isinf(f.grip_width) ? 0.0f : f.grip_width;
	for (int a = 0; a < KG_PART_COUNT; ++a)
		for (int b = a + 1; b < KG_PART_COUNT && contacts->parts[a].pair_count > 0; ++b)
			if (contacts->parts[b].pair_count > 0)
				f.span = fmaxf(f.span, glms_vec3_distance(contacts->parts[a].point, contacts->parts[b].point));
	f.thumb_abducted = angles[KG_THUMB_ABDUCTION] >= th.thumb_abducted;
	f.thumb_ip_bent = angles[2] >= th.thumb_ip_bent;
	vec3s t = kg_hand_tip(hand, parts, KG_THUMB), i = kg_hand_tip(hand, parts, KG_INDEX);
	float rt = hand->spheres[kg_part_of(KG_THUMB, 2)][0].radius, ri = hand->spheres[kg_part_of(KG_INDEX, 2)][0].radius;
	f.aperture = fmaxf(glms_vec3_distance(t, i) - rt - ri, 0.0f);
	return f;
}

static kg_shape majority_shape(const kg_features* f)
{
	int count[3] = {0};
	for (int fi = KG_MIDDLE; fi <= KG_PINKY; ++fi)
		count[f->shape[fi]]++;
	return count[KG_CURLED] >= 2 ? KG_CURLED : count[KG_STRAIGHT] >= 2 ? KG_STRAIGHT : KG_BENT;
}

// Weights: the touching fingers decide first (the seed's first stage), the rest refines.
static int rule_score(const kg_rule* r, const kg_features* f, kg_shape others)
{
	int score = 0;
	for (int i = 0; i <= KG_FINGER_COUNT; ++i)
		if (r->touch[i] != ANY)
			score += (r->touch[i] == 1) == f->touching[i] ? 4 : -4;
	if (r->abducted != ANY)
		score += (r->abducted == 1) == f->thumb_abducted ? 3 : -3;
	if (r->thumb_ip_bent != ANY)
		score += (r->thumb_ip_bent == 1) == f->thumb_ip_bent ? 1 : -1;
	if (r->index_shape != ANY)
		score += r->index_shape == (int)f->shape[KG_INDEX] ? 2 : -2;
	if (r->others_shape != ANY)
		score += r->others_shape == (int)others ? 2 : -2;
	if (r->index_side != ANY)
		score += r->index_side == (int)f->side[KG_INDEX] ? 2 : -2;
	if (r->wrap != ANY)
		score += (r->wrap == 1) == (f->fingers_wrapping >= th.wrapping) ? 2 : -2;
	if (r->index_full != ANY)
		score += (r->index_full == 1) == (f->phalanges_touching[KG_INDEX] >= 2) ? 2 : -2;
	if (r->aperture_hi > 0.0f)
	{
		float mm = 1000.0f * f->aperture;
		score += mm >= r->aperture_lo && mm < r->aperture_hi ? 2 : -2;
	}
	if (r->grip_hi > 0.0f)
	{
		float mm = 1000.0f * f->grip_width;
		score += mm >= r->grip_lo && mm < r->grip_hi ? 2 : -2;
	}
	if (r->span_hi > 0.0f)
	{
		float mm = 1000.0f * f->span;
		score += mm >= r->span_lo && mm < r->span_hi ? 2 : -2;
	}
	if (r->curl_hi > 0.0f)
		score += f->curl >= r->curl_lo && f->curl < r->curl_hi ? 2 : -2;
	return score;
}

kg_classification kg_classify(const kg_features* f)
{
	kg_classification c = {NULL, -1, 0};
	bool any = false;
	for (int i = 0; i <= KG_FINGER_COUNT; ++i)
		any = any || f->touching[i];
	if (!any)
		return c;
	kg_shape others = majority_shape(f);
	int best = -1000;
	for (int i = 0; i < RULE_COUNT; ++i)
	{
		int s = rule_score(&rules[i], f, others);
		if (s > best)
		{
			best = s;
			c.type = kg_grasp_type_get(rules[i].type);
		}
	}
	c.category = c.type->category;
	c.score = best;
	return c;
}

void kg_describe(const kg_classification* c, const kg_features* f, char* text, int capacity)
{
	static const char* names[KG_FINGER_COUNT + 1] = {"thumb", "index", "middle", "ring", "pinky", "palm"};
	int n = c->type == NULL ? snprintf(text, (size_t)capacity, "no grasp |")
							: snprintf(text, (size_t)capacity, "type %d %s | category %d %s | thumb %s |",
									   c->type->number, c->type->name, c->category + 1, kg_category_name(c->category),
									   f->thumb_abducted ? "abducted" : "adducted");
	for (int i = 0; i <= KG_FINGER_COUNT && n >= 0 && n < capacity; ++i)
		if (f->touching[i])
			n += snprintf(text + n, (size_t)(capacity - n), " %s", names[i]);
}
