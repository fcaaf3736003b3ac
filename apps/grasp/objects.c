// Kollide grasp — kitchen objects: primitive shapes, their signed distance and their inner spheres.
// SPDX-License-Identifier: MIT
#include "objects.h"

#include "hand.h"

#include <math.h>
#include <stdlib.h>

#define CYL(r, h, x, y, z)                                                                                             \
	{                                                                                                                  \
		KG_PRIM_CYLINDER, r, h, 0.0f,                                                                                  \
		{                                                                                                              \
			{                                                                                                          \
				x, y, z                                                                                                \
			}                                                                                                          \
		}                                                                                                              \
	}
#define BOX(a, b, c, x, y, z)                                                                                          \
	{                                                                                                                  \
		KG_PRIM_BOX, a, b, c,                                                                                          \
		{                                                                                                              \
			{                                                                                                          \
				x, y, z                                                                                                \
			}                                                                                                          \
		}                                                                                                              \
	}
#define BALL(r)                                                                                                        \
	{                                                                                                                  \
		KG_PRIM_BALL, r, 0.0f, 0.0f,                                                                                   \
		{                                                                                                              \
			{                                                                                                          \
				0.0f, 0.0f, 0.0f                                                                                       \
			}                                                                                                          \
		}                                                                                                              \
	}
#define RING(R, r, x, y, z)                                                                                            \
	{                                                                                                                  \
		KG_PRIM_RING, R, r, 0.0f,                                                                                      \
		{                                                                                                              \
			{                                                                                                          \
				x, y, z                                                                                                \
			}                                                                                                          \
		}                                                                                                              \
	}

static const kg_object shapes[KG_OBJ_COUNT] = {
	{"large bottle", 1, {CYL(0.045f, 0.12f, 0, 0, 0)}, NULL, 0},
	{"bottle", 1, {CYL(0.032f, 0.11f, 0, 0, 0)}, NULL, 0},
	{"handle", 1, {CYL(0.011f, 0.08f, 0, 0, 0)}, NULL, 0},
	{"knife", 2, {CYL(0.012f, 0.055f, 0, 0, 0), BOX(0.002f, 0.012f, 0.06f, 0, 0, 0.115f)}, NULL, 0},
	{"pen", 1, {CYL(0.0045f, 0.07f, 0, 0, 0)}, NULL, 0},
	{"key", 2, {BOX(0.0015f, 0.012f, 0.02f, 0, 0, 0), BOX(0.0015f, 0.004f, 0.02f, 0, 0, 0.04f)}, NULL, 0},
	{"lid", 1, {CYL(0.042f, 0.012f, 0, 0, 0)}, NULL, 0},
	{"large ball", 1, {BALL(0.048f)}, NULL, 0},
	{"ball", 1, {BALL(0.032f)}, NULL, 0},
	{"small ball", 1, {BALL(0.02f)}, NULL, 0},
	{"bead", 1, {BALL(0.007f)}, NULL, 0},
	{"plate", 1, {CYL(0.11f, 0.008f, 0, 0, 0)}, NULL, 0},
	{"board", 1, {BOX(0.15f, 0.1f, 0.009f, 0, 0, 0)}, NULL, 0},
	{"scissors",
	 3,
	 {RING(0.013f, 0.0035f, 0.0f, 0, -0.02f), BOX(0.004f, 0.003f, 0.05f, 0, 0, 0.04f),
	  RING(0.011f, 0.0035f, 0, 0, -0.05f)},
	 NULL,
	 0},
	{"mug", 2, {CYL(0.04f, 0.05f, 0, 0, 0), RING(0.025f, 0.006f, 0.055f, 0, 0)}, NULL, 0},
	{"box", 1, {BOX(0.03f, 0.03f, 0.03f, 0, 0, 0)}, NULL, 0},
	{"book", 1, {BOX(0.07f, 0.05f, 0.01f, 0, 0, 0)}, NULL, 0},
};

kg_object kg_object_shape(kg_object_kind kind)
{
	return shapes[kind];
}

static float primitive_distance(const kg_primitive* s, vec3s p)
{
	vec3s q = glms_vec3_sub(p, s->offset);
	switch (s->kind)
	{
		case KG_PRIM_CYLINDER:
		{
			float dr = sqrtf(q.x * q.x + q.y * q.y) - s->a, dz = fabsf(q.z) - s->b;
			float ox = fmaxf(dr, 0.0f), oz = fmaxf(dz, 0.0f);
			return fminf(fmaxf(dr, dz), 0.0f) + sqrtf(ox * ox + oz * oz);
		}
		case KG_PRIM_BOX:
		{
			vec3s d = kl_vec3(fabsf(q.x) - s->a, fabsf(q.y) - s->b, fabsf(q.z) - s->c);
			vec3s o = kl_vec3(fmaxf(d.x, 0.0f), fmaxf(d.y, 0.0f), fmaxf(d.z, 0.0f));
			return fminf(fmaxf(d.x, fmaxf(d.y, d.z)), 0.0f) + glms_vec3_norm(o);
		}
		case KG_PRIM_BALL: return glms_vec3_norm(q) - s->a;
		case KG_PRIM_RING:
		{
			float t = sqrtf(q.x * q.x + q.z * q.z) - s->a;
			return sqrtf(t * t + q.y * q.y) - s->b;
		}
	}
	return INFINITY;
}

float kg_object_distance(const kg_object* object, vec3s p)
{
	float d = INFINITY;
	for (int i = 0; i < object->primitive_count; ++i)
		d = fminf(d, primitive_distance(&object->primitives[i], p));
	return d;
}

// The thinnest half dimension of a primitive: the grid must be finer than it.
static float primitive_thickness(const kg_primitive* s)
{
	switch (s->kind)
	{
		case KG_PRIM_BOX: return fminf(s->a, fminf(s->b, s->c));
		case KG_PRIM_RING: return s->b;
		case KG_PRIM_CYLINDER: return fminf(s->a, s->b);
		default: return s->a;
	}
}

static kl_aabb object_bounds(const kg_object* o)
{
	kl_aabb box = {kl_vec3(INFINITY, INFINITY, INFINITY), kl_vec3(-INFINITY, -INFINITY, -INFINITY)};
	for (int i = 0; i < o->primitive_count; ++i)
	{
		const kg_primitive* s = &o->primitives[i];
		vec3s e = s->kind == KG_PRIM_BOX		? kl_vec3(s->a, s->b, s->c)
				  : s->kind == KG_PRIM_CYLINDER ? kl_vec3(s->a, s->a, s->b)
				  : s->kind == KG_PRIM_RING		? kl_vec3(s->a + s->b, s->b, s->a + s->b)
												: kl_vec3(s->a, s->a, s->a);
		box.lower = glms_vec3_minv(box.lower, glms_vec3_sub(s->offset, e));
		box.upper = glms_vec3_maxv(box.upper, glms_vec3_add(s->offset, e));
	}
	return box;
}

// Appends the grid points of spacing h whose depth under the surface lies in [lo, hi), as spheres
// of radius equal to that depth (each touches the surface at its closest point).
static bool fill_layer(const kg_object* o, kl_aabb box, float h, float lo, float hi, kl_sphere** s, int* count,
					   int* capacity)
{
	int n[3];
	for (int k = 0; k < 3; ++k)
		n[k] = (int)ceilf((box.upper.raw[k] - box.lower.raw[k]) / h) + 1;
	for (int i = 0; i < n[0]; ++i)
		for (int j = 0; j < n[1]; ++j)
			for (int k = 0; k < n[2]; ++k)
			{
				vec3s p = kl_vec3(box.lower.x + h * (float)i, box.lower.y + h * (float)j, box.lower.z + h * (float)k);
				float d = -kg_object_distance(o, p);
				if (d < lo || d >= hi)
					continue;
				if (*count == *capacity)
				{
					kl_sphere* grown = realloc(*s, sizeof(kl_sphere) * (size_t)(2 * *capacity));
					if (grown == NULL)
						return false;
					*s = grown;
					*capacity *= 2;
				}
				(*s)[(*count)++] = (kl_sphere){p, d};
			}
	return true;
}

bool kg_object_fill(kg_object* o)
{
	float thin = INFINITY;
	for (int i = 0; i < o->primitive_count; ++i)
		thin = fminf(thin, primitive_thickness(&o->primitives[i]));
	// Spheres of a grid this fine overlap their neighbours, so the surface has no gaps wider than
	// about a fifth of the spacing. Deeper layers take coarser grids: each layer's spheres reach the
	// layer above, so a hand sphere deep inside still meets some.
	float h = fminf(0.003f, 0.7f * thin);
	kl_aabb box = object_bounds(o);
	int capacity = 1024, count = 0;
	kl_sphere* s = malloc(sizeof(kl_sphere) * (size_t)capacity);
	bool ok = s != NULL && fill_layer(o, box, h, 0.35f * h, 3.0f * h, &s, &count, &capacity);
	for (float spacing = 2.0f * h; ok && spacing < 2.0f * thin + 4.0f * h; spacing *= 2.0f)
		ok = fill_layer(o, box, spacing, 1.5f * spacing, 3.0f * spacing, &s, &count, &capacity);
	if (!ok)
	{
		free(s);
		kg_set_error("out of memory filling %s", o->name);
		return false;
	}
	o->spheres = s;
	o->sphere_count = count;
	return true;
}

void kg_object_destroy(kg_object* o)
{
	free(o->spheres);
	o->spheres = NULL;
	o->sphere_count = 0;
}
