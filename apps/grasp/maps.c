// Kollide grasp — contact and force maps over a box-projection texel atlas.
// SPDX-License-Identifier: MIT
#include "maps.h"

#include "app_png.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The surface point seen from outside the bounds along -dir at (u, v): sphere tracing the object's
// signed distance. False where the ray misses.
static bool trace(const kg_object* o, vec3s start, vec3s dir, float length, vec3s* hit)
{
	float t = 0.0f;
	for (int i = 0; i < 256 && t < length; ++i)
	{
		vec3s p = glms_vec3_add(start, glms_vec3_scale(dir, t));
		float d = kg_object_distance(o, p);
		if (d < 1e-5f)
		{
			*hit = p;
			return true;
		}
		t += fmaxf(d, 1e-5f);
	}
	return false;
}

static kl_aabb surface_bounds(const kg_object* o)
{
	kl_aabb b = {kl_vec3(INFINITY, INFINITY, INFINITY), kl_vec3(-INFINITY, -INFINITY, -INFINITY)};
	for (int i = 0; i < o->sphere_count; ++i)
	{
		vec3s r = kl_vec3(o->spheres[i].radius, o->spheres[i].radius, o->spheres[i].radius);
		b.lower = glms_vec3_minv(b.lower, glms_vec3_sub(o->spheres[i].center, r));
		b.upper = glms_vec3_maxv(b.upper, glms_vec3_add(o->spheres[i].center, r));
	}
	vec3s margin = kl_vec3(0.002f, 0.002f, 0.002f);
	b.lower = glms_vec3_sub(b.lower, margin);
	b.upper = glms_vec3_add(b.upper, margin);
	return b;
}

static int cell_of(const kg_map* m, vec3s p, int k)
{
	int c = (int)floorf((p.raw[k] - m->origin.raw[k]) / m->cell);
	return c < 0 ? 0 : c >= m->cells[k] ? m->cells[k] - 1 : c;
}

static bool build_grid(kg_map* m, kl_aabb b)
{
	int n = m->width * m->height;
	m->cell = 0.004f;
	m->origin = b.lower;
	for (int k = 0; k < 3; ++k)
		m->cells[k] = (int)ceilf((b.upper.raw[k] - b.lower.raw[k]) / m->cell) + 1;
	int cells = m->cells[0] * m->cells[1] * m->cells[2];
	m->cell_start = calloc((size_t)cells + 1, sizeof(int));
	m->cell_texels = malloc(sizeof(int) * (size_t)n);
	int* fill = calloc((size_t)cells, sizeof(int));
	bool ok = m->cell_start != NULL && m->cell_texels != NULL && fill != NULL;
	for (int pass = 0; ok && pass < 2; ++pass)
	{
		for (int i = 0; i < n; ++i)
			if (m->on_surface[i])
			{
				int c = (cell_of(m, m->point[i], 2) * m->cells[1] + cell_of(m, m->point[i], 1)) * m->cells[0] +
						cell_of(m, m->point[i], 0);
				if (pass == 0)
					m->cell_start[c + 1]++;
				else
					m->cell_texels[m->cell_start[c] + fill[c]++] = i;
			}
		for (int c = 0; pass == 0 && c < cells; ++c)
			m->cell_start[c + 1] += m->cell_start[c];
	}
	free(fill);
	return ok;
}

bool kg_map_create(kg_map* m, const kg_object* o, int tile)
{
	memset(m, 0, sizeof(*m));
	if (tile < 8 || tile > 512 || o->sphere_count < 1)
	{
		kg_set_error("map tile %d is outside 8 to 512, or the object has no spheres", tile);
		return false;
	}
	m->tile = tile;
	m->width = 3 * tile;
	m->height = 2 * tile;
	size_t n = (size_t)m->width * (size_t)m->height;
	m->point = calloc(n, sizeof(vec3s));
	m->on_surface = calloc(n, sizeof(bool));
	m->count = calloc(n * KG_MAP_FINGERS, sizeof(uint32_t));
	m->stamp = calloc(n * KG_MAP_FINGERS, sizeof(uint32_t));
	m->force = calloc(n, 1);
	if (m->point == NULL || m->on_surface == NULL || m->count == NULL || m->stamp == NULL || m->force == NULL)
	{
		kg_map_destroy(m);
		kg_set_error("out of memory for the map");
		return false;
	}
	kl_aabb b = surface_bounds(o);
	vec3s size = glms_vec3_sub(b.upper, b.lower);
	// Tile f = 2 × axis + side looks along −(±axis); (u, v) run over the two other axes.
	for (int f = 0; f < 6; ++f)
	{
		int axis = f / 2, ua = (axis + 1) % 3, va = (axis + 2) % 3;
		float sign = (f % 2) ? -1.0f : 1.0f;
		int tx = (f % 3) * tile, ty = (f / 3) * tile;
		for (int j = 0; j < tile; ++j)
			for (int i = 0; i < tile; ++i)
			{
				vec3s start = b.lower, dir = kl_vec3(0, 0, 0);
				start.raw[axis] = sign > 0.0f ? b.upper.raw[axis] : b.lower.raw[axis];
				start.raw[ua] += size.raw[ua] * ((float)i + 0.5f) / (float)tile;
				start.raw[va] += size.raw[va] * ((float)j + 0.5f) / (float)tile;
				dir.raw[axis] = -sign;
				size_t t = (size_t)(ty + j) * (size_t)m->width + (size_t)(tx + i);
				m->on_surface[t] = trace(o, start, dir, size.raw[axis], &m->point[t]);
			}
	}
	if (!build_grid(m, b))
	{
		kg_map_destroy(m);
		kg_set_error("out of memory for the map");
		return false;
	}
	return true;
}

void kg_map_destroy(kg_map* m)
{
	free(m->point);
	free(m->on_surface);
	free(m->count);
	free(m->stamp);
	free(m->force);
	free(m->cell_start);
	free(m->cell_texels);
	memset(m, 0, sizeof(*m));
}

void kg_map_clear(kg_map* m)
{
	size_t n = (size_t)m->width * (size_t)m->height;
	memset(m->count, 0, n * KG_MAP_FINGERS * sizeof(uint32_t));
	memset(m->stamp, 0, n * KG_MAP_FINGERS * sizeof(uint32_t));
	memset(m->force, 0, n);
	m->stamp_id = 0;
}

// The force bin of a depth: the fraction of the hand sphere's radius it reaches, in tenths.
static uint8_t force_bin(float depth, float radius)
{
	float f = radius > 0.0f ? depth / radius : 0.0f;
	int bin = (int)ceilf(10.0f * fminf(fmaxf(f, 0.0f), 1.0f));
	return (uint8_t)(bin < 1 ? 1 : bin);
}

void kg_map_stamp(kg_map* m, const kg_map_contact* contacts, int count)
{
	++m->stamp_id;
	for (int c = 0; c < count; ++c)
	{
		const kg_map_contact* k = &contacts[c];
		int lo[3], hi[3];
		for (int a = 0; a < 3; ++a)
		{
			lo[a] = cell_of(m, glms_vec3_sub(k->point, kl_vec3(k->radius, k->radius, k->radius)), a);
			hi[a] = cell_of(m, glms_vec3_add(k->point, kl_vec3(k->radius, k->radius, k->radius)), a);
		}
		uint8_t bin = force_bin(k->depth, k->radius);
		float r2 = k->radius * k->radius;
		for (int z = lo[2]; z <= hi[2]; ++z)
			for (int y = lo[1]; y <= hi[1]; ++y)
				for (int x = lo[0]; x <= hi[0]; ++x)
				{
					int cell = (z * m->cells[1] + y) * m->cells[0] + x;
					for (int e = m->cell_start[cell]; e < m->cell_start[cell + 1]; ++e)
					{
						int t = m->cell_texels[e];
						if (glms_vec3_distance2(m->point[t], k->point) > r2)
							continue;
						size_t slot = (size_t)t * KG_MAP_FINGERS + (size_t)k->finger;
						if (m->stamp[slot] != m->stamp_id)
						{
							m->stamp[slot] = m->stamp_id;
							m->count[slot]++;
						}
						m->force[t] = bin > m->force[t] ? bin : m->force[t];
					}
				}
	}
}

int kg_map_contacts_from_pairs(const kg_hand* hand, const kl_sphere_pair* pairs, const int* pair_part, int count,
							   kl_transform object_pose, kg_map_contact* out)
{
	// One contact per hand sphere, at its deepest pair: the point where the object's sphere meets the
	// hand sphere's centre line (object spheres touch the object's surface, so it lies on it). A hand
	// sphere inside one of the object's spheres lies under the surface and stamps nothing.
	int offset[KG_PART_COUNT + 1] = {0};
	for (int p = 0; p < KG_PART_COUNT; ++p)
		offset[p + 1] = offset[p] + hand->sphere_count[p];
	int* slot = malloc(sizeof(int) * (size_t)offset[KG_PART_COUNT]);
	const kl_sphere_pair** deepest = malloc(sizeof(*deepest) * (size_t)offset[KG_PART_COUNT]);
	if (slot == NULL || deepest == NULL)
	{
		free(slot);
		free(deepest);
		return 0;
	}
	memset(deepest, 0, sizeof(*deepest) * (size_t)offset[KG_PART_COUNT]);
	for (int i = 0; i < count; ++i)
	{
		int part = pair_part[i], sphere = pairs[i].sphere_a, k = offset[part] + sphere;
		if (pairs[i].depth >= hand->spheres[part][sphere].radius)
			slot[k] = -1; // buried
		else if (deepest[k] == NULL)
			slot[k] = 0;
		if (deepest[k] == NULL || pairs[i].depth > deepest[k]->depth)
			deepest[k] = &pairs[i];
	}
	int n = 0;
	for (int part = 0; part < KG_PART_COUNT; ++part)
		for (int sphere = 0; sphere < hand->sphere_count[part]; ++sphere)
		{
			const kl_sphere_pair* d = deepest[offset[part] + sphere];
			if (d == NULL || slot[offset[part] + sphere] < 0)
				continue;
			vec3s on_object = glms_vec3_add(d->point, glms_vec3_scale(d->normal, d->depth));
			out[n++] = (kg_map_contact){kl_inv_rotate(object_pose.q, glms_vec3_sub(on_object, object_pose.p)),
										hand->spheres[part][sphere].radius, d->depth,
										part == KG_PALM ? KG_FINGER_COUNT : (part - 1) / 3};
		}
	free(slot);
	free(deepest);
	return n;
}

int kg_map_dominant(const kg_map* m, int texel)
{
	int best = -1;
	uint32_t most = 0;
	for (int f = 0; f < KG_MAP_FINGERS; ++f)
		if (m->count[(size_t)texel * KG_MAP_FINGERS + (size_t)f] > most)
		{
			most = m->count[(size_t)texel * KG_MAP_FINGERS + (size_t)f];
			best = f;
		}
	return best;
}

void kg_map_contact_image(const kg_map* m, uint8_t* rgb)
{
	static const uint8_t colour[KG_MAP_FINGERS][3] = {{230, 40, 40},  {40, 200, 40},  {50, 90, 240},
													  {240, 220, 40}, {220, 60, 220}, {40, 220, 220}};
	for (int t = 0; t < m->width * m->height; ++t)
	{
		int f = kg_map_dominant(m, t);
		for (int c = 0; c < 3; ++c)
			rgb[3 * t + c] = f < 0 ? 0 : colour[f][c];
	}
}

void kg_map_force_image(const kg_map* m, uint8_t* rgb)
{
	for (int t = 0; t < m->width * m->height; ++t)
	{
		float s = m->force[t] == 0 ? 0.0f : (float)(m->force[t] - 1) / (float)(KG_FORCE_BINS - 1);
		// green (weak) → yellow → orange → red (strong)
		rgb[3 * t + 0] = m->force[t] == 0 ? 0 : (uint8_t)(255.0f * fminf(1.0f, 2.0f * s));
		rgb[3 * t + 1] = m->force[t] == 0 ? 0 : (uint8_t)(255.0f * fminf(1.0f, 2.0f * (1.0f - s)));
		rgb[3 * t + 2] = 0;
	}
}

bool kg_write_png(const char* path, const uint8_t* rgb, int width, int height)
{
	bool ok = kl_app_write_png(path, rgb, width, height);
	if (!ok)
		kg_set_error("cannot write %s", path);
	return ok;
}
