// Kollide — exact distance queries of the inner-sphere packing (sphere_pack.h): to the surface, with
// the inside test by pseudo-normals (Bærentzen and Aanæs 2005), and to the spheres placed so far,
// both over the bucket grid so that a query only reads what lies within its bound.
// SPDX-License-Identifier: MIT
#include "sphere_pack.h"
#include "tri_closest.h"

double kl_sp_triangle_distance(const kl_sp_mesh* m, int t, vec3s p, uint8_t* feature, kl_d3* offset)
{
	const int32_t* v = m->indices + 3 * t;
	vec3s o = m->vertices[v[0]];
	kl_d3 q = kl_closest_on_triangle_d(kl_d3_rel(p, o), kl_d3_make(0.0, 0.0, 0.0), kl_d3_rel(m->vertices[v[1]], o),
									   kl_d3_rel(m->vertices[v[2]], o), feature);
	*offset = kl_d3_sub(kl_d3_rel(p, o), q);
	return sqrt(kl_d3_dot(*offset, *offset));
}

bool kl_sp_outside(const kl_sp_mesh* m, int t, uint8_t feature, kl_d3 offset)
{
	vec3s n = m->face_normals[t];
	if (feature < KL_TRI_EDGE0)
	{
		n = m->vertex_normals[m->indices[3 * t + feature]];
	}
	else if (feature < KL_TRI_FACE)
	{
		// An edge's pseudo-normal: the sum of its two faces' normals.
		int32_t other = m->neighbours[3 * t + feature - KL_TRI_EDGE0];
		if (other >= 0)
		{
			n = glms_vec3_add(n, m->face_normals[other]);
		}
	}
	return offset.x * n.x + offset.y * n.y + offset.z * n.z > 0.0;
}

bool kl_sp_bucket_range(const kl_sp_buckets* k, vec3s p, double r, int lo[3], int hi[3])
{
	for (int a = 0; a < 3; ++a)
	{
		double rel = ((double)p.raw[a] - k->origin.raw[a]) / k->size;
		double span = r / k->size;
		double l = floor(rel - span), h = floor(rel + span);
		if (h < 0.0 || l > (double)(k->n[a] - 1))
		{
			return false;
		}
		lo[a] = l < 0.0 ? 0 : (int)l;
		hi[a] = h > (double)(k->n[a] - 1) ? k->n[a] - 1 : (int)h;
	}
	return true;
}

kl_sp_surface_hit kl_sp_surface_query(const kl_sp_builder* b, kl_sp_stamps* stamps, vec3s p, double bound)
{
	kl_sp_surface_hit hit = {bound, -1, KL_TRI_FACE, {0.0, 0.0, 0.0}};
	const kl_sp_buckets* k = &b->buckets;
	int lo[3], hi[3];
	if (!kl_sp_bucket_range(k, p, bound, lo, hi))
	{
		return hit;
	}
	uint32_t stamp = ++stamps->now;
	for (int z = lo[2]; z <= hi[2]; ++z)
	{
		for (int y = lo[1]; y <= hi[1]; ++y)
		{
			for (int x = lo[0]; x <= hi[0]; ++x)
			{
				int64_t cell = ((int64_t)z * k->n[1] + y) * k->n[0] + x;
				for (int32_t i = k->tri_start[cell]; i < k->tri_start[cell + 1]; ++i)
				{
					int32_t t = k->tri_items[i];
					if (stamps->tri[t] == stamp ||
						kl_sp_box_distance2(p, b->mesh.tri_bounds[t]) >= hit.distance * hit.distance)
					{
						continue;
					}
					stamps->tri[t] = stamp;
					uint8_t f;
					kl_d3 off;
					double d = kl_sp_triangle_distance(&b->mesh, t, p, &f, &off);
					// Ties go to the lower triangle index, whatever the bucket order.
					if (d < hit.distance || (d == hit.distance && hit.tri >= 0 && t < hit.tri))
					{
						hit.distance = d;
						hit.tri = t;
						hit.feature = f;
						hit.offset = off;
					}
				}
			}
		}
	}
	return hit;
}

double kl_sp_sphere_query(const kl_sp_builder* b, vec3s p, double bound, int* sphere)
{
	const kl_sp_buckets* k = &b->buckets;
	double best = bound;
	*sphere = -1;
	int lo[3], hi[3];
	if (!kl_sp_bucket_range(k, p, bound, lo, hi))
	{
		return best;
	}
	for (int z = lo[2]; z <= hi[2]; ++z)
	{
		for (int y = lo[1]; y <= hi[1]; ++y)
		{
			for (int x = lo[0]; x <= hi[0]; ++x)
			{
				int64_t cell = ((int64_t)z * k->n[1] + y) * k->n[0] + x;
				for (int32_t e = k->sphere_head[cell]; e >= 0; e = k->entries[e].next)
				{
					int s = k->entries[e].sphere;
					kl_sphere sp = b->spheres[s];
					double dx = (double)p.x - sp.center.x, dy = (double)p.y - sp.center.y,
						   dz = (double)p.z - sp.center.z;
					double d = sqrt(dx * dx + dy * dy + dz * dz) - sp.radius;
					if (d < best || (d == best && *sphere >= 0 && s < *sphere))
					{
						best = d;
						*sphere = s;
					}
				}
			}
		}
	}
	return best;
}

bool kl_sp_buckets_add_sphere(kl_sp_builder* b, int sphere)
{
	kl_sp_buckets* k = &b->buckets;
	kl_sphere s = b->spheres[sphere];
	int lo[3], hi[3];
	if (!kl_sp_bucket_range(k, s.center, s.radius, lo, hi))
	{
		return true;
	}
	int64_t add = (int64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
	if ((int64_t)k->entry_count + add >= INT32_MAX)
	{
		kl_fail(KL_ERR_LIMIT, "sphere pack: too many bucket entries");
		return false;
	}
	int need = k->entry_count + (int)add;
	if (!KL_ARRAY_RESERVE(k->entries, k->entry_capacity, need))
	{
		return false;
	}
	for (int z = lo[2]; z <= hi[2]; ++z)
	{
		for (int y = lo[1]; y <= hi[1]; ++y)
		{
			for (int x = lo[0]; x <= hi[0]; ++x)
			{
				int64_t cell = ((int64_t)z * k->n[1] + y) * k->n[0] + x;
				int e = k->entry_count++;
				k->entries[e].sphere = sphere;
				k->entries[e].next = k->sphere_head[cell];
				k->sphere_head[cell] = e;
			}
		}
	}
	return true;
}
