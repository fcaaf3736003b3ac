// Kollide grasp — the sphere hand: dimensions from the hand length, spheres along the bones, limits
// and forward kinematics.
// SPDX-License-Identifier: MIT
#include "hand.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char kg_error_text[256];

const char* kg_error(void)
{
	return kg_error_text;
}

void kg_set_error(const char* format, ...)
{
	// Through a copy: the arguments may quote the previous message.
	char text[sizeof(kg_error_text)];
	va_list args;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	memcpy(kg_error_text, text, sizeof(text));
}

kg_hand_def kg_default_hand_def(void)
{
	kg_hand_def def = {0.19f};
	return def;
}

// Proportions of an adult hand, as fractions of the hand length (anthropometric averages).
static const float finger_length[KG_FINGER_COUNT] = {0.54f, 0.46f, 0.50f, 0.47f, 0.38f};
static const float bone_fraction[KG_FINGER_COUNT][3] = {
	{0.44f, 0.31f, 0.25f}, {0.46f, 0.30f, 0.24f}, {0.46f, 0.30f, 0.24f}, {0.46f, 0.30f, 0.24f}, {0.46f, 0.30f, 0.24f}};
static const float finger_radius[KG_FINGER_COUNT] = {0.055f, 0.047f, 0.048f, 0.046f, 0.041f};
static const float lateral_offset[KG_FINGER_COUNT] = {0.5f, 0.375f, 0.125f, -0.125f, -0.375f};
static const float base_x[KG_FINGER_COUNT] = {0.15f, 0.97f, 1.0f, 0.97f, 0.90f};

// The thumb's rest direction in the palm plane: this far from the hand's long axis, toward its side.
#define KG_THUMB_SPLAY_DEG 45.0f

static const float limits[KG_ANGLE_COUNT][2] = {
	{-20, 60},	{-10, 70}, {-20, 85}, // thumb CMC, MCP, IP
	{-25, 95},	{-5, 115}, {-10, 90}, // index MCP, PIP, DIP
	{-25, 95},	{-5, 115}, {-10, 90}, // middle
	{-25, 95},	{-5, 115}, {-10, 90}, // ring
	{-25, 95},	{-5, 115}, {-10, 90}, // pinky
	{-10, 100},						  // thumb abduction
};

void kg_angle_limits(int angle, float* lower, float* upper)
{
	*lower = limits[angle][0];
	*upper = limits[angle][1];
}

int kg_clamp_angles(float angles[KG_ANGLE_COUNT])
{
	int changed = 0;
	for (int i = 0; i < KG_ANGLE_COUNT; ++i)
	{
		float a = isfinite(angles[i]) ? fminf(fmaxf(angles[i], limits[i][0]), limits[i][1]) : 0.0f;
		changed += a != angles[i];
		angles[i] = a;
	}
	return changed;
}

// Spheres of radius r from x = 0 to x = length along the part's x axis, at most r apart.
static kl_sphere* bone_spheres(float length, float r, int* count)
{
	int n = (int)ceilf(length / r) + 1;
	kl_sphere* s = malloc(sizeof(kl_sphere) * (size_t)n);
	if (s == NULL)
		return NULL;
	for (int i = 0; i < n; ++i)
		s[i] = (kl_sphere){kl_vec3(length * (float)i / (float)(n - 1), 0.0f, 0.0f), r};
	*count = n;
	return s;
}

// A grid of spheres filling the palm slab (the wrist frame's z is the palm normal).
static kl_sphere* palm_spheres(const kg_hand* h, int* count)
{
	float r = 0.5f * h->palm_thickness;
	// Spaced half a radius apart, so the palm's surface dips less than a millimetre between spheres.
	int nx = (int)ceilf(2.0f * h->palm_length / r), ny = (int)ceilf(2.0f * (h->palm_width - 2.0f * r) / r) + 1;
	kl_sphere* s = malloc(sizeof(kl_sphere) * (size_t)(nx * ny));
	if (s == NULL)
		return NULL;
	for (int i = 0; i < nx; ++i)
		for (int j = 0; j < ny; ++j)
		{
			float x = r + (h->palm_length - 1.5f * r) * (float)i / (float)(nx - 1);
			float y = -0.5f * h->palm_width + r + (h->palm_width - 2.0f * r) * (float)j / (float)(ny - 1);
			s[i * ny + j] = (kl_sphere){kl_vec3(x, y, 0.0f), r};
		}
	*count = nx * ny;
	return s;
}

bool kg_hand_build(kg_hand* hand, const kg_hand_def* def)
{
	memset(hand, 0, sizeof(*hand));
	kg_hand_def d = def != NULL ? *def : kg_default_hand_def();
	if (!(d.hand_length >= 0.12f && d.hand_length <= 0.26f))
	{
		kg_set_error("hand length %g m is outside 0.12 to 0.26 m", (double)d.hand_length);
		return false;
	}
	float L = d.hand_length;
	hand->hand_length = L;
	hand->palm_length = 0.45f * L;
	hand->palm_width = 0.42f * L;
	hand->palm_thickness = 0.14f * L;
	hand->spheres[KG_PALM] = palm_spheres(hand, &hand->sphere_count[KG_PALM]);
	bool ok = hand->spheres[KG_PALM] != NULL;
	for (int f = 0; f < KG_FINGER_COUNT; ++f)
	{
		hand->finger_base[f] = kl_vec3(base_x[f] * hand->palm_length, lateral_offset[f] * hand->palm_width,
									   f == KG_THUMB ? 0.15f * hand->palm_thickness : 0.0f);
		for (int k = 0; k < 3; ++k)
		{
			int part = kg_part_of(f, k);
			hand->bone_length[f][k] = finger_length[f] * bone_fraction[f][k] * L;
			float r = finger_radius[f] * L * (1.0f - 0.1f * (float)k);
			hand->spheres[part] = bone_spheres(hand->bone_length[f][k], r, &hand->sphere_count[part]);
			ok = ok && hand->spheres[part] != NULL;
		}
	}
	if (!ok)
	{
		kg_hand_destroy(hand);
		kg_set_error("out of memory building the hand");
	}
	return ok;
}

void kg_hand_destroy(kg_hand* hand)
{
	for (int p = 0; p < KG_PART_COUNT; ++p)
		free(hand->spheres[p]);
	memset(hand, 0, sizeof(*hand));
}

static float radians(float degrees)
{
	return degrees * (float)(GLM_PI / 180.0);
}

// The plane a finger flexes in: d along the straight finger, f toward the palm side.
static void flexion_plane(int finger, float abduction_deg, vec3s* d, vec3s* f)
{
	if (finger != KG_THUMB)
	{
		*d = kl_vec3(1.0f, 0.0f, 0.0f);
		*f = kl_vec3(0.0f, 0.0f, 1.0f);
		return;
	}
	float a = radians(abduction_deg), b = radians(KG_THUMB_SPLAY_DEG);
	vec3s out = kl_vec3(0.0f, cosf(a), sinf(a)); // the thumb's side, lifted toward the palm side
	*d = glms_vec3_add(glms_vec3_scale(kl_vec3(1.0f, 0.0f, 0.0f), cosf(b)), glms_vec3_scale(out, sinf(b)));
	// The thumb flexes across the palm (toward the little finger) whatever its abduction: in the palm
	// plane when adducted, over the palm toward the fingertips when opposed.
	vec3s across = kl_vec3(0.0f, -1.0f, 0.0f);
	*f = glms_vec3_normalize(glms_vec3_sub(across, glms_vec3_scale(*d, glms_vec3_dot(across, *d))));
}

void kg_hand_pose_parts(const kg_hand* hand, const float angles[KG_ANGLE_COUNT], kl_transform parts[KG_PART_COUNT])
{
	parts[KG_PALM] = kl_transform_identity();
	for (int fi = 0; fi < KG_FINGER_COUNT; ++fi)
	{
		vec3s d, f;
		flexion_plane(fi, angles[KG_THUMB_ABDUCTION], &d, &f);
		vec3s y = glms_vec3_cross(f, d);
		vec3s p = hand->finger_base[fi];
		float phi = 0.0f;
		for (int k = 0; k < 3; ++k)
		{
			phi += radians(angles[3 * fi + k]);
			vec3s x = glms_vec3_add(glms_vec3_scale(d, cosf(phi)), glms_vec3_scale(f, sinf(phi)));
			vec3s z = glms_vec3_cross(x, y);
			mat3s m = {{{x.x, x.y, x.z}, {y.x, y.y, y.z}, {z.x, z.y, z.z}}};
			parts[kg_part_of(fi, k)] = (kl_transform){p, glms_mat3_quat(m)};
			p = glms_vec3_add(p, glms_vec3_scale(x, hand->bone_length[fi][k]));
		}
	}
}

void kg_thumb_plane(float abduction_deg, vec3s* d, vec3s* f)
{
	flexion_plane(KG_THUMB, abduction_deg, d, f);
}

vec3s kg_hand_tip(const kg_hand* hand, const kl_transform parts[KG_PART_COUNT], int finger)
{
	return kl_transform_point(parts[kg_part_of(finger, 2)], kl_vec3(hand->bone_length[finger][2], 0.0f, 0.0f));
}
