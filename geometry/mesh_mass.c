// Kollide — mesh mass: exact integration of a closed mesh, else of the convex hull of its
// vertices, and the mass properties of those integrals at any per-axis scale.
// SPDX-License-Identifier: MIT
#include "mesh.h"

#include <string.h>

// Direction cones per side of a cube-map face, for meshes with more vertices than kl_hull_build
// takes: 6 · 100² cones stay within its limit.
#define KL_MESH_HULL_CONES 100
_Static_assert(6 * KL_MESH_HULL_CONES * KL_MESH_HULL_CONES <= KL_HULL_MAX_INPUT_POINTS, "too many hull cones");

// The cube-map cone of a direction d from the centre, and the cone's own unit direction.
static int cone_of(const double d[3], double axis[3])
{
	int a = fabs(d[0]) >= fabs(d[1]) && fabs(d[0]) >= fabs(d[2]) ? 0 : (fabs(d[1]) >= fabs(d[2]) ? 1 : 2);
	double major = fabs(d[a]);
	int b = (a + 1) % 3, c = (a + 2) % 3;
	int iu = (int)((d[b] / major + 1.0) * 0.5 * KL_MESH_HULL_CONES);
	int iv = (int)((d[c] / major + 1.0) * 0.5 * KL_MESH_HULL_CONES);
	iu = iu < KL_MESH_HULL_CONES ? iu : KL_MESH_HULL_CONES - 1;
	iv = iv < KL_MESH_HULL_CONES ? iv : KL_MESH_HULL_CONES - 1;
	axis[a] = d[a] < 0.0 ? -1.0 : 1.0;
	axis[b] = (iu + 0.5) * 2.0 / KL_MESH_HULL_CONES - 1.0;
	axis[c] = (iv + 0.5) * 2.0 / KL_MESH_HULL_CONES - 1.0;
	double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
	for (int k = 0; k < 3; ++k)
	{
		axis[k] /= n;
	}
	int face = 2 * a + (d[a] < 0.0 ? 1 : 0);
	return (face * KL_MESH_HULL_CONES + iu) * KL_MESH_HULL_CONES + iv;
}

// A hull of more points than kl_hull_build takes cannot be built exactly (a dense sphere has them
// all on its hull), so such meshes use an inner approximation: in each direction cone around the
// bounds centre, the vertex that reaches farthest along the cone's axis (the first on ties).
static int sample_hull_points(const vec3s* points, int count, kl_aabb bounds, vec3s* out)
{
	int cones = 6 * KL_MESH_HULL_CONES * KL_MESH_HULL_CONES;
	int32_t* best = kl_alloc((size_t)cones, sizeof(int32_t));
	double* reach = kl_alloc((size_t)cones, sizeof(double));
	if (best == NULL || reach == NULL)
	{
		kl_free(best);
		kl_free(reach);
		return -1;
	}
	memset(best, 0xff, (size_t)cones * sizeof(int32_t));
	vec3s center = glms_vec3_scale(glms_vec3_add(bounds.lower, bounds.upper), 0.5f);
	for (int i = 0; i < count; ++i)
	{
		double d[3] = {(double)points[i].x - center.x, (double)points[i].y - center.y, (double)points[i].z - center.z};
		if (d[0] == 0.0 && d[1] == 0.0 && d[2] == 0.0)
		{
			continue; // the centre reaches nowhere
		}
		double axis[3];
		int cone = cone_of(d, axis);
		double r = d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2];
		if (best[cone] < 0 || r > reach[cone])
		{
			best[cone] = i;
			reach[cone] = r;
		}
	}
	int n = 0;
	for (int cone = 0; cone < cones; ++cone)
	{
		if (best[cone] >= 0)
		{
			out[n++] = points[best[cone]];
		}
	}
	kl_free(best);
	kl_free(reach);
	return n;
}

// The hull of the vertices (sampled beyond KL_HULL_MAX_INPUT_POINTS). NULL when they span no
// volume or memory ran out (kl_last_error says which).
static kl_hull* build_hull(const vec3s* points, int count, kl_aabb bounds)
{
	if (count <= KL_HULL_MAX_INPUT_POINTS)
	{
		return kl_hull_build(points, count);
	}
	vec3s* sample = kl_alloc((size_t)6 * KL_MESH_HULL_CONES * KL_MESH_HULL_CONES, sizeof(vec3s));
	int n = sample != NULL ? sample_hull_points(points, count, bounds, sample) : -1;
	kl_hull* hull = n >= 0 ? kl_hull_build(sample, n) : NULL;
	kl_free(sample);
	return hull;
}

// An open or non-manifold mesh encloses no definite volume, so its mass comes from the convex hull
// of its vertices (sampled for very big meshes, see sample_hull_points). Where even the hull is
// flat, the mesh has zero mass (fine for static bodies), with the centre at the middle of its bounds.
static kl_result hull_integrals(kl_mesh* mesh)
{
	mesh->info.mass_source = KL_MESH_MASS_CONVEX_HULL;
	kl_error_state caller_error;
	kl_error_save(&caller_error);
	kl_hull* hull = build_hull(mesh->vertices, mesh->info.vertex_count, mesh->info.bounds);
	if (hull == NULL)
	{
		if (kl_last_error_code() == KL_ERR_OUT_OF_MEMORY)
		{
			return KL_ERR_OUT_OF_MEMORY;
		}
		// No hull is an answer here, not a failure: the build goes on and leaves the caller's
		// error state as it was.
		kl_error_restore(&caller_error);
		memset(&mesh->integrals, 0, sizeof(mesh->integrals));
		vec3s center = glms_vec3_scale(glms_vec3_add(mesh->info.bounds.lower, mesh->info.bounds.upper), 0.5f);
		for (int k = 0; k < 3; ++k)
		{
			mesh->integrals.reference[k] = center.raw[k];
		}
		return KL_OK;
	}
	mesh->integrals =
		kl_polyhedron_integrals(kl_hull_vertices(hull), kl_hull_triangle_indices(hull), kl_hull_triangle_count(hull));
	kl_hull_destroy(hull);
	return KL_OK;
}

static void flip_triangles(kl_mesh* mesh)
{
	for (int t = 0; t < mesh->info.triangle_count; ++t)
	{
		int32_t* tri = mesh->indices + 3 * t;
		int32_t b = tri[1];
		tri[1] = tri[2];
		tri[2] = b;
	}
}

// A consistently oriented two-manifold is closed when it encloses a positive volume. Enclosing a
// negative one means it is inside out: every triangle is flipped (recorded in mesh->flipped).
kl_result kl_mesh_compute_mass(kl_mesh* mesh)
{
	kl_mesh_info* info = &mesh->info;
	bool manifold = info->open_edge_count == 0 && info->non_manifold_edge_count == 0 && info->inconsistent_edge_count == 0;
	double size = kl_mesh_bounds_diagonal(info->bounds);
	double zero_volume = KL_MESH_ZERO_VOLUME_RATIO * size * size * size;
	if (manifold)
	{
		mesh->integrals = kl_polyhedron_integrals(mesh->vertices, mesh->indices, info->triangle_count);
		if (mesh->integrals.volume < -zero_volume)
		{
			flip_triangles(mesh);
			mesh->flipped = true;
			info->flipped = true;
			mesh->integrals = kl_polyhedron_integrals(mesh->vertices, mesh->indices, info->triangle_count);
		}
		info->closed = mesh->integrals.volume > zero_volume;
	}
	kl_result result = KL_OK;
	if (info->closed)
	{
		info->mass_source = KL_MESH_MASS_VOLUME;
	}
	else
	{
		result = hull_integrals(mesh);
	}
	info->volume = (float)mesh->integrals.volume;
	return result;
}

// ---------------------------------------------------------------------------------------------
// Mass properties at a scale: the unscaled integrals scaled per axis, so every scale is exact.

kl_mass_data kl_mesh_mass(const kl_mesh* mesh, float density, vec3s scale)
{
	kl_mass_data none;
	memset(&none, 0, sizeof(none));
	none.inertia = glms_mat3_zero();
	if (mesh == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_mesh_mass: mesh is NULL");
		return none;
	}
	if (!(density >= 0.0f) || !isfinite(density))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_mesh_mass: density %g must be finite and >= 0", (double)density);
		return none;
	}
	if (!(scale.x > 0.0f && scale.y > 0.0f && scale.z > 0.0f) || !kl_vec3_is_finite(scale))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_mesh_mass: scale (%g, %g, %g) must be finite and positive",
				(double)scale.x, (double)scale.y, (double)scale.z);
		return none;
	}
	double s[3] = {scale.x, scale.y, scale.z};
	kl_volume_integrals scaled = kl_volume_integrals_scale(&mesh->integrals, s);
	kl_mass_data md = kl_volume_integrals_mass(&scaled, density);
	bool finite = isfinite(md.mass) && kl_vec3_is_finite(md.center);
	for (int i = 0; i < 3; ++i)
	{
		finite = finite && kl_vec3_is_finite(md.inertia.col[i]);
	}
	if (!finite)
	{
		kl_fail(KL_ERR_LIMIT, "kl_mesh_mass: mass properties at scale (%g, %g, %g) exceed single precision",
				(double)scale.x, (double)scale.y, (double)scale.z);
		return none;
	}
	return md;
}
