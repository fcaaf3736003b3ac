// Kollide — world queries by bounds and by convex proxy: the shapes whose bounds overlap a box, the
// shapes a sphere, capsule, box or hull overlaps, and the shapes it meets when swept along a
// translation. Each shape is tested with the narrowphase's GJK (narrowphase/convex/shape_cast.h), a mesh
// triangle by triangle among those its BVH finds near the proxy.
// SPDX-License-Identifier: MIT
#include "world_query.h"

#include "bvh_near.h"
#include "core.h"
#include "mesh.h"
#include "raycast.h"
#include "shape_cast.h"

#include <kollide/kollide.h>

#include <string.h>

static bool aabbs_overlap(kl_aabb a, kl_aabb b)
{
	return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y && b.lower.y <= a.upper.y &&
		   a.lower.z <= b.upper.z && b.lower.z <= a.upper.z;
}

static kl_aabb aabb_union(kl_aabb a, kl_aabb b)
{
	return (kl_aabb){glms_vec3_minv(a.lower, b.lower), glms_vec3_maxv(a.upper, b.upper)};
}

static kl_aabb aabb_offset(kl_aabb a, vec3s d)
{
	return (kl_aabb){glms_vec3_add(a.lower, d), glms_vec3_add(a.upper, d)};
}

static kl_aabb aabb_inflate(kl_aabb a, float margin)
{
	vec3s m = kl_vec3(margin, margin, margin);
	return (kl_aabb){glms_vec3_sub(a.lower, m), glms_vec3_add(a.upper, m)};
}

// ---------------------------------------------------------------------------------------------
// The query proxy

/// A user proxy, checked, as GJK sees it, at its world pose. Not to be copied: the GJK view of a
/// sphere or capsule points into storage.
typedef struct query_proxy
{
	kl_gjk_proxy gjk;
	vec3s storage[2];
	kl_transform xf;
	kl_aabb bounds; ///< world
} query_proxy;

static kl_result check_positive(float value, const char* name, const char* what)
{
	if (!(value > 0.0f) || !isfinite(value))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: proxy %s must be finite and positive (got %g)", name, what,
					   (double)value);
	}
	return KL_OK;
}

static kl_result make_query_proxy(const kl_shape_proxy* proxy, kl_transform xf, const char* name, query_proxy* q)
{
	if (proxy == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the proxy is NULL", name);
	}
	if (!kl_vec3_is_finite(xf.p) || !kl_quat_normalize_checked(&xf.q))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the transform is not finite or its rotation is zero", name);
	}
	kl_collider c;
	memset(&c, 0, sizeof(c));
	c.type = proxy->type;
	kl_result r = KL_OK;
	switch (proxy->type)
	{
	case KL_SHAPE_SPHERE:
		r = check_positive(proxy->radius, name, "radius");
		c.radius = proxy->radius;
		break;
	case KL_SHAPE_CAPSULE:
		r = check_positive(proxy->radius, name, "radius");
		if (r == KL_OK && (!(proxy->half_height >= 0.0f) || !isfinite(proxy->half_height)))
		{
			r = kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: proxy capsule half height must be finite and non-negative", name);
		}
		c.capsule.radius = proxy->radius;
		c.capsule.half_height = proxy->half_height;
		break;
	case KL_SHAPE_BOX:
		r = check_positive(proxy->half_extents.x, name, "half extent x");
		r = r == KL_OK ? check_positive(proxy->half_extents.y, name, "half extent y") : r;
		r = r == KL_OK ? check_positive(proxy->half_extents.z, name, "half extent z") : r;
		c.half_extents = proxy->half_extents;
		break;
	case KL_SHAPE_HULL:
		if (proxy->hull == NULL)
		{
			r = kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: proxy hull is NULL", name);
		}
		c.hull = proxy->hull;
		break;
	default:
		r = kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: proxy type %d is not a sphere, capsule, box or hull", name,
					(int)proxy->type);
		break;
	}
	if (r != KL_OK)
	{
		return r;
	}
	if (!kl_gjk_make_proxy(&c, q->storage, &q->gjk))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the proxy has no convex core", name);
	}
	q->xf = xf;
	vec3s lower, upper;
	for (int i = 0; i < 3; ++i)
	{
		vec3s axis = glms_vec3_zero();
		axis.raw[i] = 1.0f;
		upper.raw[i] = kl_proxy_support_point(&q->gjk, xf, axis).raw[i] + q->gjk.radius;
		lower.raw[i] = kl_proxy_support_point(&q->gjk, xf, glms_vec3_negate(axis)).raw[i] - q->gjk.radius;
	}
	q->bounds = (kl_aabb){lower, upper};
	if (!kl_vec3_is_finite(lower) || !kl_vec3_is_finite(upper))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the proxy's bounds are not finite", name);
	}
	return KL_OK;
}

/// The proxy placed in the frame xf_b: inv(xf_b) · xf_a.
static kl_transform relative_transform(kl_transform xf_b, kl_transform xf_a)
{
	versors conj = {{-xf_b.q.x, -xf_b.q.y, -xf_b.q.z, xf_b.q.w}};
	kl_transform r = {kl_inv_rotate(xf_b.q, glms_vec3_sub(xf_a.p, xf_b.p)), glms_quat_mul(conj, xf_a.q)};
	return r;
}

/// A convex shape's core in its own frame; false for meshes and planes.
static bool shape_core(const kl_shape* shape, vec3s storage[2], kl_gjk_proxy* core)
{
	kl_collider c;
	return kl_shape_collider(shape, &c) && c.type != KL_SHAPE_PLANE && kl_gjk_make_proxy(&c, storage, core);
}

// ---------------------------------------------------------------------------------------------
// Meshes: the triangles near the proxy, each a three-point core

typedef struct mesh_walk
{
	const kl_mesh* mesh;
	vec3s scale;
	const kl_gjk_proxy* proxy;
	kl_transform xf; ///< the proxy in the mesh frame
	vec3s translation; ///< mesh frame
	float max_fraction;
	bool found;
	kl_cast_output best;
} mesh_walk;

static void mesh_triangle(const mesh_walk* w, int t, vec3s tri[3], kl_gjk_proxy* core)
{
	for (int k = 0; k < 3; ++k)
	{
		tri[k] = glms_vec3_mul(w->mesh->vertices[w->mesh->indices[3 * t + k]], w->scale);
	}
	memset(core, 0, sizeof(*core));
	core->points = tri;
	core->count = 3;
}

/// Visits the triangles that may come within radius of center (mesh frame, scaled), through the
/// BVH: a ball of the scaled frame lies within radius / (smallest scale) of its centre unscaled.
static void mesh_walk_near(mesh_walk* w, vec3s center, float radius, kl_bvh_near_fn* visit)
{
	float min_scale = fminf(w->scale.x, fminf(w->scale.y, w->scale.z));
	double r = ((double)radius + KL_CAST_TOLERANCE) / (double)min_scale * (1.0 + 1e-5) + 1e-6;
	if (w->mesh->bvh == NULL)
	{
		for (int t = 0; t < w->mesh->info.triangle_count; ++t)
		{
			visit(t, &r, w);
		}
		return;
	}
	double p[3] = {(double)center.x / w->scale.x, (double)center.y / w->scale.y, (double)center.z / w->scale.z};
	kl_bvh_near_point(w->mesh->bvh, p, r, visit, w);
}

static void overlap_triangle(int triangle, double* radius, void* context)
{
	mesh_walk* w = context;
	if (w->found)
	{
		return;
	}
	vec3s tri[3];
	kl_gjk_proxy core;
	mesh_triangle(w, triangle, tri, &core);
	if (kl_proxy_overlap(w->proxy, w->xf, &core))
	{
		w->found = true;
		*radius = -1.0; // prunes the rest of the walk
	}
}

/// A closed mesh is a solid: a proxy touching no triangle may lie wholly inside it.
static bool proxy_inside_mesh(const mesh_walk* w)
{
	return w->mesh->info.closed &&
		   kl_point_in_mesh(w->mesh, w->scale, kl_proxy_support_point(w->proxy, w->xf, kl_vec3(1.0f, 0.0f, 0.0f)));
}

static bool overlap_mesh(mesh_walk* w)
{
	vec3s center;
	float radius;
	kl_proxy_bounding_sphere(w->proxy, w->xf, &center, &radius);
	mesh_walk_near(w, center, radius, overlap_triangle);
	return w->found || proxy_inside_mesh(w);
}

static void cast_triangle(int triangle, double* radius, void* context)
{
	(void)radius;
	mesh_walk* w = context;
	vec3s tri[3];
	kl_gjk_proxy core;
	mesh_triangle(w, triangle, tri, &core);
	kl_cast_output out;
	// Nearer hits win; at fraction 0 an overlap (zero normal) wins over a touch.
	if (kl_proxy_cast(w->proxy, w->xf, w->translation, w->max_fraction, &core, &out) &&
		(!w->found || out.fraction < w->best.fraction ||
		 (out.fraction == 0.0f && glms_vec3_norm2(out.normal) == 0.0f)))
	{
		w->found = true;
		w->best = out;
		w->max_fraction = out.fraction; // later triangles need only be nearer
	}
}

static bool cast_mesh(mesh_walk* w, kl_cast_output* out)
{
	vec3s center;
	float radius;
	kl_proxy_bounding_sphere(w->proxy, w->xf, &center, &radius);
	vec3s half = glms_vec3_scale(w->translation, 0.5f * w->max_fraction);
	mesh_walk_near(w, glms_vec3_add(center, half), radius + glms_vec3_norm(half), cast_triangle);
	bool overlapping = w->found && w->best.fraction == 0.0f && glms_vec3_norm2(w->best.normal) == 0.0f;
	if (!overlapping && proxy_inside_mesh(w))
	{
		w->found = true;
		w->best.fraction = 0.0f;
		w->best.normal = glms_vec3_zero();
		w->best.point = kl_proxy_support_point(w->proxy, w->xf, kl_vec3(1.0f, 0.0f, 0.0f));
	}
	*out = w->best;
	return w->found;
}

static mesh_walk make_mesh_walk(const kl_shape* shape, const query_proxy* q, kl_transform xf)
{
	mesh_walk w;
	memset(&w, 0, sizeof(w));
	w.mesh = shape->mesh.mesh;
	w.scale = shape->mesh.scale;
	w.proxy = &q->gjk;
	w.xf = xf;
	return w;
}

// ---------------------------------------------------------------------------------------------
// One shape

static bool overlap_one(const kl_world* world, const kl_shape* shape, const query_proxy* q)
{
	kl_transform xf = relative_transform(kl_query_shape_transform(world, shape), q->xf);
	if (shape->type == KL_SHAPE_PLANE)
	{
		return kl_proxy_overlap_plane(&q->gjk, xf, shape->plane);
	}
	if (shape->type == KL_SHAPE_MESH)
	{
		mesh_walk w = make_mesh_walk(shape, q, xf);
		return overlap_mesh(&w);
	}
	vec3s storage[2];
	kl_gjk_proxy core;
	return shape_core(shape, storage, &core) && kl_proxy_overlap(&q->gjk, xf, &core);
}

/// The proxy's cast against one shape; the output in world coordinates.
static bool cast_one(const kl_world* world, const kl_shape* shape, const query_proxy* q, vec3s translation,
					 float max_fraction, kl_cast_output* out)
{
	kl_transform xf_b = kl_query_shape_transform(world, shape);
	kl_transform xf = relative_transform(xf_b, q->xf);
	vec3s d = kl_inv_rotate(xf_b.q, translation);
	bool hit = false;
	if (shape->type == KL_SHAPE_PLANE)
	{
		hit = kl_proxy_cast_plane(&q->gjk, xf, d, max_fraction, shape->plane, out);
	}
	else if (shape->type == KL_SHAPE_MESH)
	{
		mesh_walk w = make_mesh_walk(shape, q, xf);
		w.translation = d;
		w.max_fraction = max_fraction;
		hit = cast_mesh(&w, out);
	}
	else
	{
		vec3s storage[2];
		kl_gjk_proxy core;
		hit = shape_core(shape, storage, &core) && kl_proxy_cast(&q->gjk, xf, d, max_fraction, &core, out);
	}
	if (hit)
	{
		out->point = kl_transform_point(xf_b, out->point);
		out->normal = kl_rotate(xf_b.q, out->normal);
	}
	return hit;
}

// ---------------------------------------------------------------------------------------------
// The queries. Linear in the number of shapes, each one's bounds tested first, as the ray casts
// (world_query.c); a broadphase tree query will replace the loops without changing the results.

static bool skip_shape(const kl_shape* shape, kl_filter filter)
{
	return shape->id < 0 || shape->is_sensor || !kl_query_filter_accepts(shape, filter);
}

kl_result kl_world_overlap_aabb(kl_world_id id, kl_aabb aabb, kl_filter filter, kl_overlap_result_fn* fcn,
								void* context)
{
	kl_world* world = kl_query_world(id, "kl_world_overlap_aabb");
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	if (fcn == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_world_overlap_aabb: the callback is NULL");
	}
	if (!kl_vec3_is_finite(aabb.lower) || !kl_vec3_is_finite(aabb.upper) || !(aabb.lower.x <= aabb.upper.x) ||
		!(aabb.lower.y <= aabb.upper.y) || !(aabb.lower.z <= aabb.upper.z))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_world_overlap_aabb: the box is not finite or inverted");
	}
	for (int s = 0; s < kl_id_pool_slot_count(&world->shape_pool); ++s)
	{
		const kl_shape* shape = world->shapes + s;
		if (skip_shape(shape, filter) || !aabbs_overlap(aabb, shape->aabb))
		{
			continue;
		}
		if (!fcn(kl_make_shape_id(world, shape), context))
		{
			break;
		}
	}
	return KL_OK;
}

kl_result kl_world_overlap_shape(kl_world_id id, const kl_shape_proxy* proxy, kl_transform transform,
								 kl_filter filter, kl_overlap_result_fn* fcn, void* context)
{
	const char* name = "kl_world_overlap_shape";
	kl_world* world = kl_query_world(id, name);
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	if (fcn == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the callback is NULL", name);
	}
	query_proxy q;
	kl_result r = make_query_proxy(proxy, transform, name, &q);
	if (r != KL_OK)
	{
		return r;
	}
	for (int s = 0; s < kl_id_pool_slot_count(&world->shape_pool); ++s)
	{
		const kl_shape* shape = world->shapes + s;
		if (skip_shape(shape, filter) || !aabbs_overlap(q.bounds, shape->aabb) || !overlap_one(world, shape, &q))
		{
			continue;
		}
		if (!fcn(kl_make_shape_id(world, shape), context))
		{
			break;
		}
	}
	return KL_OK;
}

kl_result kl_world_cast_shape(kl_world_id id, const kl_shape_proxy* proxy, kl_transform transform, vec3s translation,
							  kl_filter filter, kl_cast_result_fn* fcn, void* context)
{
	const char* name = "kl_world_cast_shape";
	kl_world* world = kl_query_world(id, name);
	if (world == NULL)
	{
		return kl_last_error_code();
	}
	if (fcn == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the callback is NULL", name);
	}
	query_proxy q;
	kl_result r = make_query_proxy(proxy, transform, name, &q);
	if (r != KL_OK)
	{
		return r;
	}
	kl_aabb end = aabb_offset(q.bounds, translation);
	if (!kl_vec3_is_finite(translation) || !kl_is_finite(glms_vec3_norm2(translation)) ||
		!kl_vec3_is_finite(end.lower) || !kl_vec3_is_finite(end.upper))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: translation (%g, %g, %g) is not finite or too long", name,
					   (double)translation.x, (double)translation.y, (double)translation.z);
	}
	float max_fraction = 1.0f;
	for (int s = 0; s < kl_id_pool_slot_count(&world->shape_pool); ++s)
	{
		const kl_shape* shape = world->shapes + s;
		if (skip_shape(shape, filter))
		{
			continue;
		}
		kl_aabb swept = aabb_union(q.bounds, aabb_offset(q.bounds, glms_vec3_scale(translation, max_fraction)));
		if (!aabbs_overlap(aabb_inflate(swept, KL_CAST_TOLERANCE), shape->aabb))
		{
			continue;
		}
		kl_cast_output out;
		if (!cast_one(world, shape, &q, translation, max_fraction, &out))
		{
			continue;
		}
		if (!kl_query_cast_continue(fcn(kl_make_shape_id(world, shape), out.point, out.normal, out.fraction, context),
									&max_fraction))
		{
			break;
		}
	}
	return KL_OK;
}
