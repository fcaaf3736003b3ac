// Kollide — convex hull objects: build entry point, storage and derived data (triangulation,
// centre, bounds), copies, queries and the structure check.
// SPDX-License-Identifier: MIT
#include "hull.h"

#include "core.h"

#include <stdio.h>
#include <string.h>

// Merges the triangulated hull into polygon faces. Input barely thicker than the tolerance can
// merge into something that is no polyhedron (a slab whose thin sides fold into its top); then
// the merge is redone with a much smaller tolerance, and finally with exact coplanarity only,
// which always yields the triangulated hull itself. The narrowphase walks these loops without
// checks, so a hull that fails kl_hull_validate is never handed out.
static kl_hull* merge_valid(kl_hull_trimesh* mesh)
{
	const double scales[3] = {1.0, 1.0 / 64.0, 0.0};
	double tolerance = mesh->tolerance;
	char reason[256] = "";
	for (int i = 0; i < 3; ++i)
	{
		mesh->tolerance = tolerance * scales[i];
		kl_hull* hull = kl_hull_from_trimesh(mesh);
		if (hull == NULL && kl_last_error_code() == KL_ERR_OUT_OF_MEMORY)
		{
			return NULL;
		}
		if (hull != NULL && kl_hull_validate(hull))
		{
			hull->tolerance = (float)tolerance;
			return hull;
		}
		snprintf(reason, sizeof(reason), "%s", kl_last_error());
		kl_hull_destroy(hull);
	}
	kl_fail(KL_ERR_DEGENERATE, "hull: points are nearly coplanar, no valid polyhedron at tolerance %g (%s)", tolerance,
			reason);
	return NULL;
}

static kl_hull* build_once(const vec3s* points, int count)
{
	kl_hull_trimesh mesh;
	if (kl_hull_quickhull(points, count, &mesh) != KL_OK)
	{
		return NULL;
	}
	kl_hull* hull = merge_valid(&mesh);
	kl_hull_trimesh_free(&mesh);
	return hull;
}

// Rounds of rebuilding before giving up; a dense curved surface settles in a handful.
#define KL_HULL_MAX_REBUILDS 32

// A hull is saved as its vertices only (scene files), so the hull handed out must be the one its
// own vertices rebuild to, bit for bit: same vertices, faces, triangles and so mass data. One
// build is not that: merging drops the points inside merged faces and between two faces, and
// without them quickhull triangulates part of the surface differently, which merging then groups
// differently (a curved surface merges further each time; far from the origin rounding decides
// which points stay). So the hull is rebuilt from its own vertices until they stop changing. The
// vertices of a build are a subsequence of its input (pack keeps input order), so an unchanged
// count means unchanged vertices, and the last build is then its own rebuild. Each round moves
// the surface by at most the tolerance, which is why input points that an earlier round dropped
// can end up a few tolerances outside the final faces.
kl_hull* kl_hull_build(const vec3s* points, int count)
{
	kl_hull* hull = build_once(points, count);
	for (int round = 0; hull != NULL; ++round)
	{
		if (round == KL_HULL_MAX_REBUILDS)
		{
			kl_hull_destroy(hull);
			kl_fail(KL_ERR_DEGENERATE, "hull: rebuilding from its own vertices did not settle in %d rounds",
					KL_HULL_MAX_REBUILDS);
			return NULL;
		}
		kl_hull* again = build_once(hull->vertices, hull->vertex_count);
		if (again == NULL)
		{
			// A hull whose vertices build no hull could not be loaded back from a scene.
			kl_hull_destroy(hull);
			if (kl_last_error_code() != KL_ERR_OUT_OF_MEMORY)
			{
				char reason[256];
				snprintf(reason, sizeof(reason), "%s", kl_last_error());
				kl_fail(KL_ERR_DEGENERATE, "hull: its own vertices build no hull (%s)", reason);
			}
			return NULL;
		}
		bool settled = again->vertex_count == hull->vertex_count &&
					   memcmp(again->vertices, hull->vertices, (size_t)hull->vertex_count * sizeof(vec3s)) == 0;
		kl_hull_destroy(hull);
		hull = again;
		if (settled)
		{
			return hull;
		}
	}
	return NULL;
}

// ---------------------------------------------------------------------------------------------
// Storage and derived data

static void fan_triangulate(kl_hull* hull)
{
	int count = 0;
	for (int f = 0; f < hull->face_count; ++f)
	{
		const kl_hull_face* face = hull->faces + f;
		int first = hull->edges[face->edge].origin;
		int e = hull->edges[face->edge].next;
		for (int k = 0; k < face->edge_count - 2; ++k, e = hull->edges[e].next)
		{
			hull->triangles[3 * count + 0] = first;
			hull->triangles[3 * count + 1] = hull->edges[e].origin;
			hull->triangles[3 * count + 2] = hull->edges[hull->edges[e].next].origin;
			++count;
		}
	}
	hull->triangle_count = count;
}

// Centre of volume from the fan (tetrahedra to the first vertex), and the bounds.
static void centroid_and_bounds(kl_hull* hull)
{
	const vec3s* v = hull->vertices;
	if (hull->vertex_count == 0)
	{
		return;
	}
	double r[3] = {v[0].x, v[0].y, v[0].z}, sum[3] = {0.0, 0.0, 0.0}, volume = 0.0;
	for (int t = 0; t < hull->triangle_count; ++t)
	{
		const int32_t* idx = hull->triangles + 3 * t;
		double p[3][3];
		for (int k = 0; k < 3; ++k)
		{
			p[k][0] = v[idx[k]].x - r[0], p[k][1] = v[idx[k]].y - r[1], p[k][2] = v[idx[k]].z - r[2];
		}
		double vol = (p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) - p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
					  p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0])) / 6.0;
		volume += vol;
		for (int k = 0; k < 3; ++k)
		{
			sum[k] += vol * (p[0][k] + p[1][k] + p[2][k]) / 4.0;
		}
	}
	hull->bounds.lower = v[0];
	hull->bounds.upper = v[0];
	for (int i = 1; i < hull->vertex_count; ++i)
	{
		hull->bounds.lower = glms_vec3_minv(hull->bounds.lower, v[i]);
		hull->bounds.upper = glms_vec3_maxv(hull->bounds.upper, v[i]);
	}
	if (volume > 0.0 && isfinite(volume))
	{
		hull->centroid = kl_vec3((float)(r[0] + sum[0] / volume), (float)(r[1] + sum[1] / volume),
								 (float)(r[2] + sum[2] / volume));
	}
	else
	{
		hull->centroid = glms_vec3_scale(glms_vec3_add(hull->bounds.lower, hull->bounds.upper), 0.5f);
	}
}

kl_hull* kl_hull_alloc(int vertices, int half_edges, int faces, int triangles)
{
	kl_hull* hull = kl_alloc_zero(1, sizeof(kl_hull));
	if (hull == NULL)
	{
		return NULL;
	}
	hull->vertices = kl_alloc((size_t)vertices, sizeof(vec3s));
	hull->edges = kl_alloc((size_t)half_edges, sizeof(kl_hull_half_edge));
	hull->faces = kl_alloc((size_t)faces, sizeof(kl_hull_face));
	hull->triangles = kl_alloc((size_t)triangles * 3, sizeof(int32_t));
	hull->vertex_count = vertices;
	hull->edge_count = half_edges;
	hull->face_count = faces;
	if (!hull->vertices || !hull->edges || !hull->faces || !hull->triangles)
	{
		kl_hull_destroy(hull);
		return NULL;
	}
	return hull;
}

void kl_hull_finish(kl_hull* hull)
{
	fan_triangulate(hull);
	centroid_and_bounds(hull);
}

// ---------------------------------------------------------------------------------------------
// Queries

kl_hull* kl_hull_clone(const kl_hull* hull)
{
	if (hull == NULL)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "hull clone: NULL hull");
		return NULL;
	}
	kl_hull* copy = kl_alloc(1, sizeof(kl_hull));
	if (copy == NULL)
	{
		return NULL;
	}
	*copy = *hull;
	copy->vertices = kl_alloc((size_t)hull->vertex_count, sizeof(vec3s));
	copy->edges = kl_alloc((size_t)hull->edge_count, sizeof(kl_hull_half_edge));
	copy->faces = kl_alloc((size_t)hull->face_count, sizeof(kl_hull_face));
	copy->triangles = kl_alloc((size_t)hull->triangle_count * 3, sizeof(int32_t));
	if (!copy->vertices || !copy->edges || !copy->faces || !copy->triangles)
	{
		kl_hull_destroy(copy);
		return NULL;
	}
	memcpy(copy->vertices, hull->vertices, (size_t)hull->vertex_count * sizeof(vec3s));
	memcpy(copy->edges, hull->edges, (size_t)hull->edge_count * sizeof(kl_hull_half_edge));
	memcpy(copy->faces, hull->faces, (size_t)hull->face_count * sizeof(kl_hull_face));
	memcpy(copy->triangles, hull->triangles, (size_t)hull->triangle_count * 3 * sizeof(int32_t));
	return copy;
}

void kl_hull_destroy(kl_hull* hull)
{
	if (hull == NULL)
	{
		return;
	}
	kl_free(hull->vertices);
	kl_free(hull->edges);
	kl_free(hull->faces);
	kl_free(hull->triangles);
	kl_free(hull);
}

int kl_hull_vertex_count(const kl_hull* hull)
{
	return hull != NULL ? hull->vertex_count : 0;
}

const vec3s* kl_hull_vertices(const kl_hull* hull)
{
	return hull != NULL ? hull->vertices : NULL;
}

int kl_hull_face_count(const kl_hull* hull)
{
	return hull != NULL ? hull->face_count : 0;
}

int kl_hull_triangle_count(const kl_hull* hull)
{
	return hull != NULL ? hull->triangle_count : 0;
}

const int32_t* kl_hull_triangle_indices(const kl_hull* hull)
{
	return hull != NULL ? hull->triangles : NULL;
}

kl_aabb kl_hull_bounds(const kl_hull* hull)
{
	if (hull == NULL)
	{
		kl_aabb empty = {{{0.0f, 0.0f, 0.0f}}, {{0.0f, 0.0f, 0.0f}}};
		return empty;
	}
	return hull->bounds;
}

// Zero density is accepted like for the primitive shapes (zero mass at the centre of volume);
// invalid arguments and hulls too large for float mass give zeroed data and a kl_fail message.
kl_mass_data kl_hull_mass(const kl_hull* hull, float density)
{
	kl_mass_data md;
	memset(&md, 0, sizeof(md));
	if (hull == NULL || !isfinite(density) || density < 0.0f)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "hull mass: NULL hull or density %g not finite and non-negative",
				(double)density);
		return md;
	}
	float integration_density = density > 0.0f ? density : 1.0f;
	if (kl_compute_polyhedron_mass(hull->vertices, hull->triangles, hull->triangle_count, integration_density, &md) !=
		KL_OK)
	{
		memset(&md, 0, sizeof(md));
		return md;
	}
	if (density == 0.0f)
	{
		md.mass = 0.0f;
		md.inertia = glms_mat3_zero();
	}
	return md;
}

// ---------------------------------------------------------------------------------------------
// Structure check

static bool check_edges(const kl_hull* h)
{
	for (int e = 0; e < h->edge_count; ++e)
	{
		const kl_hull_half_edge* he = h->edges + e;
		if (he->origin < 0 || he->origin >= h->vertex_count || he->face < 0 || he->face >= h->face_count ||
			he->next < 0 || he->next >= h->edge_count || he->twin != (e ^ 1))
		{
			kl_fail(KL_ERR_DEGENERATE, "half-edge %d has an index out of range or an unpaired twin", e);
			return false;
		}
		const kl_hull_half_edge* twin = h->edges + he->twin;
		if (twin->twin != e || twin->origin != h->edges[he->next].origin || twin->face == he->face)
		{
			kl_fail(KL_ERR_DEGENERATE, "half-edge %d and its twin do not run between the same vertices", e);
			return false;
		}
	}
	return true;
}

static bool check_faces(const kl_hull* h, uint8_t* seen)
{
	int total = 0;
	for (int f = 0; f < h->face_count; ++f)
	{
		const kl_hull_face* face = h->faces + f;
		float len = glms_vec3_norm(face->normal);
		if (!kl_vec3_is_finite(face->normal) || fabsf(len - 1.0f) > 1.0e-4f || face->edge_count < 3 ||
			face->edge < 0 || face->edge >= h->edge_count)
		{
			kl_fail(KL_ERR_DEGENERATE, "face %d has a bad normal or edge loop header", f);
			return false;
		}
		int e = face->edge;
		for (int k = 0; k < face->edge_count; ++k, e = h->edges[e].next)
		{
			if (h->edges[e].face != f || seen[e])
			{
				kl_fail(KL_ERR_DEGENERATE, "face %d loop leaves the face or repeats an edge", f);
				return false;
			}
			seen[e] = 1;
		}
		if (e != face->edge)
		{
			kl_fail(KL_ERR_DEGENERATE, "face %d loop does not close after %d edges", f, face->edge_count);
			return false;
		}
		total += face->edge_count;
	}
	if (total != h->edge_count)
	{
		kl_fail(KL_ERR_DEGENERATE, "faces hold %d half-edges of %d", total, h->edge_count);
		return false;
	}
	return true;
}

bool kl_hull_validate(const kl_hull* h)
{
	if (h == NULL || h->vertex_count < 4 || h->face_count < 4 || h->edge_count < 12 || (h->edge_count & 1))
	{
		kl_fail(KL_ERR_DEGENERATE, "hull is NULL or too small to be a polyhedron");
		return false;
	}
	if (h->vertex_count - h->edge_count / 2 + h->face_count != 2)
	{
		kl_fail(KL_ERR_DEGENERATE, "Euler characteristic V - E + F = %d - %d + %d is not 2", h->vertex_count,
				h->edge_count / 2, h->face_count);
		return false;
	}
	uint8_t* seen = kl_alloc_zero((size_t)h->edge_count, 1);
	if (seen == NULL)
	{
		return false;
	}
	bool ok = check_edges(h) && check_faces(h, seen);
	kl_free(seen);
	return ok;
}
