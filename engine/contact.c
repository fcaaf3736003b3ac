// Kollide — contacts: kept in step with the broadphase pairs, updated by the convex narrowphase,
// and turned into begin/end events and wake-ups.
// SPDX-License-Identifier: MIT
#include "contact.h"
#include "contact_penalty.h"

#include "broadphase.h"
#include "collide_pairs.h"
#include "core.h"
#include "island.h"
#include "mesh.h"
#include "tri_adjacency.h"
#include "vertex_contacts.h"
#include "world.h"

#include <kollide/kollide.h>

#include <float.h>
#include <string.h>

/// The narrowphase view of a shape, or false for shapes without a convex pair function (meshes).
bool kl_shape_collider(const kl_shape* shape, kl_collider* c)
{
	c->type = shape->type;
	switch (shape->type)
	{
	case KL_SHAPE_SPHERE:
		c->radius = shape->sphere_radius;
		return true;
	case KL_SHAPE_BOX:
		c->half_extents = shape->box_half_extents;
		return true;
	case KL_SHAPE_CAPSULE:
		c->capsule.radius = shape->capsule.radius;
		c->capsule.half_height = shape->capsule.half_height;
		return true;
	case KL_SHAPE_HULL:
		c->hull = shape->hull;
		return true;
	case KL_SHAPE_PLANE:
		c->plane = shape->plane;
		return true;
	default:
		return false;
	}
}

/// The smallest side of the bounds of the scaled points.
static float smallest_extent(const vec3s* points, int count, vec3s scale)
{
	vec3s lo = kl_vec3(FLT_MAX, FLT_MAX, FLT_MAX), hi = kl_vec3(-FLT_MAX, -FLT_MAX, -FLT_MAX);
	for (int i = 0; i < count; ++i)
	{
		lo = glms_vec3_minv(lo, points[i]);
		hi = glms_vec3_maxv(hi, points[i]);
	}
	vec3s size = glms_vec3_mul(glms_vec3_sub(hi, lo), scale);
	return count > 0 ? fminf(size.x, fminf(size.y, size.z)) : 0.0f;
}

/// Boxes and hulls meeting a mesh are seen as small meshes: their fan triangles with a BVH, built
/// once (serially) when such a pair begins.
static bool ensure_shape_triangles(kl_shape* shape)
{
	if (shape->tri_bvh != NULL)
	{
		return true;
	}
	if (shape->type == KL_SHAPE_SPHERE || shape->type == KL_SHAPE_CAPSULE)
	{
		// The core as one degenerate triangle (a point, or the segment): the radius is added later.
		float h = shape->type == KL_SHAPE_CAPSULE ? shape->capsule.half_height : 0.0f;
		shape->tri_vertices = kl_alloc(3, sizeof(vec3s));
		shape->tri_indices = kl_alloc(3, sizeof(int32_t));
		if (shape->tri_vertices == NULL || shape->tri_indices == NULL)
		{
			return false;
		}
		shape->tri_vertex_count = 3;
		shape->tri_vertices[0] = kl_vec3(0.0f, 0.0f, -h);
		shape->tri_vertices[1] = kl_vec3(0.0f, 0.0f, h);
		shape->tri_vertices[2] = kl_vec3(0.0f, 0.0f, h);
		for (int k = 0; k < 3; ++k)
		{
			shape->tri_indices[k] = k;
		}
		kl_bvh_build_def def = kl_bvh_default_build_def();
		def.builder = KL_BVH_BUILD_LONGEST_AXIS;
		shape->tri_bvh = kl_bvh_build((const float*)shape->tri_vertices, 3, (const int*)shape->tri_indices, 1, &def);
		return shape->tri_bvh != NULL;
	}
	kl_box_hull box;
	const kl_hull* hull = NULL;
	if (shape->type == KL_SHAPE_BOX)
	{
		hull = kl_make_box_hull(&box, shape->box_half_extents);
	}
	else if (shape->type == KL_SHAPE_HULL)
	{
		hull = shape->hull;
	}
	else
	{
		return false;
	}
	shape->tri_vertices = kl_alloc((size_t)hull->vertex_count, sizeof(vec3s));
	shape->tri_indices = kl_alloc((size_t)(3 * hull->triangle_count), sizeof(int32_t));
	if (shape->tri_vertices == NULL || shape->tri_indices == NULL)
	{
		return false;
	}
	memcpy(shape->tri_vertices, hull->vertices, sizeof(vec3s) * (size_t)hull->vertex_count);
	shape->tri_vertex_count = hull->vertex_count;
	memcpy(shape->tri_indices, hull->triangles, sizeof(int32_t) * 3 * (size_t)hull->triangle_count);
	shape->tri_opposite = kl_alloc((size_t)(3 * hull->triangle_count), sizeof(int32_t));
	if (shape->tri_opposite == NULL ||
		kl_triangle_opposites(shape->tri_indices, hull->triangle_count, shape->tri_opposite) != KL_OK)
	{
		return false;
	}
	shape->tri_vertex_normals = kl_alloc((size_t)hull->vertex_count, sizeof(vec3s));
	shape->tri_vertex_cone_cos = kl_alloc((size_t)hull->vertex_count, sizeof(float));
	if (shape->tri_vertex_normals == NULL || shape->tri_vertex_cone_cos == NULL ||
		kl_vertex_pseudo_normals(shape->tri_vertices, hull->vertex_count, shape->tri_indices, hull->triangle_count,
								 shape->tri_vertex_normals, shape->tri_vertex_cone_cos) != KL_OK)
	{
		return false;
	}
	shape->tri_thickness = smallest_extent(shape->tri_vertices, shape->tri_vertex_count, kl_vec3(1.0f, 1.0f, 1.0f));
	kl_bvh_build_def def = kl_bvh_default_build_def();
	def.builder = KL_BVH_BUILD_LONGEST_AXIS; // a handful of triangles: no clustering needed
	shape->tri_bvh = kl_bvh_build((const float*)shape->tri_vertices, hull->vertex_count,
								  (const int*)shape->tri_indices, hull->triangle_count, &def);
	return shape->tri_bvh != NULL;
}

/// The triangle-set view of a mesh, box or hull shape at its world pose.
bool kl_shape_triangle_set(const kl_world* world, const kl_shape* shape, kl_triangle_set* set)
{
	set->xf = kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
	if (shape->type == KL_SHAPE_MESH)
	{
		set->bvh = shape->mesh.mesh->bvh;
		set->vertices = shape->mesh.mesh->vertices;
		set->vertex_count = shape->mesh.mesh->info.vertex_count;
		set->indices = shape->mesh.mesh->indices;
		set->opposite = shape->mesh.mesh->opposite;
		set->vertex_normals = shape->mesh.mesh->vertex_normals;
		set->vertex_cone_cos = shape->mesh.mesh->vertex_cone_cos;
		kl_aabb box = shape->mesh.mesh->info.bounds;
		vec3s size = glms_vec3_mul(glms_vec3_sub(box.upper, box.lower), shape->mesh.scale);
		set->thickness = fminf(size.x, fminf(size.y, size.z));
		set->scale = shape->mesh.scale;
		set->pointshell = shape->mesh.mesh->pointshell;
		set->use_pointshell = shape->mesh_backend == KL_MESH_BACKEND_POINTSHELL;
		set->convex = false;
		return set->bvh != NULL;
	}
	set->bvh = shape->tri_bvh;
	set->vertices = shape->tri_vertices;
	set->vertex_count = shape->tri_vertex_count;
	set->indices = shape->tri_indices;
	set->opposite = shape->tri_opposite;
	set->vertex_normals = shape->tri_vertex_normals;
	set->vertex_cone_cos = shape->tri_vertex_cone_cos;
	set->thickness = shape->tri_thickness;
	set->convex = true;
	set->scale = kl_vec3(1.0f, 1.0f, 1.0f);
	set->pointshell = NULL;
	set->use_pointshell = false;
	return set->bvh != NULL;
}

bool kl_body_slot_awake(const kl_world* world, int body_slot)
{
	return world->bodies[body_slot].is_awake;
}

/// Mixed material of a pair (world callbacks first).
void kl_contact_mix_materials(const kl_world* world, kl_contact* c)
{
	const kl_material* a = &world->shapes[c->shape_a].material;
	const kl_material* b = &world->shapes[c->shape_b].material;
	c->friction = world->def.friction_callback != NULL
					  ? world->def.friction_callback(a->friction, a->user_material_id, b->friction, b->user_material_id)
					  : sqrtf(a->friction * b->friction);
	c->restitution = world->def.restitution_callback != NULL
						 ? world->def.restitution_callback(a->restitution, a->user_material_id, b->restitution,
														   b->user_material_id)
						 : fmaxf(a->restitution, b->restitution);
	c->rolling_resistance = fmaxf(a->rolling_resistance, b->rolling_resistance);
	c->spin_resistance = fmaxf(a->spin_resistance, b->spin_resistance);
	bool moving_surface = glms_vec3_norm2(a->surface_velocity) > 0.0f || glms_vec3_norm2(b->surface_velocity) > 0.0f;
	c->flags =
		moving_surface ? c->flags | KL_CONTACT_SURFACE_VELOCITY : c->flags & ~(uint32_t)KL_CONTACT_SURFACE_VELOCITY;
	// A callback returning garbage must not poison the solver.
	if (!(c->friction >= 0.0f) || !isfinite(c->friction))
	{
		c->friction = 0.0f;
	}
	if (!(c->restitution >= 0.0f) || !isfinite(c->restitution))
	{
		c->restitution = 0.0f;
	}
}

/// A pair with a mesh goes through the mesh narrowphase whatever the other shape is: meshes, boxes
/// and hulls as triangles, spheres and capsules as their cores plus a radius, planes directly.
static bool mesh_pair_supported(kl_world* world, kl_shape* a, kl_shape* b)
{
	kl_shape* other = a->type == KL_SHAPE_MESH ? b : a;
	switch (other->type)
	{
	case KL_SHAPE_MESH:
	case KL_SHAPE_PLANE:
		return true;
	case KL_SHAPE_BOX:
	case KL_SHAPE_HULL:
	case KL_SHAPE_SPHERE:
	case KL_SHAPE_CAPSULE:
		(void)world;
		return ensure_shape_triangles(other);
	default:
		return false;
	}
}

static void init_contact(kl_world* world, kl_contact* c, int shape_a, int shape_b)
{
	memset(c, 0, sizeof(*c));
	kl_shape* a = &world->shapes[shape_a];
	kl_shape* b = &world->shapes[shape_b];
	c->shape_a = shape_a;
	c->shape_b = shape_b;
	c->body_a = a->body;
	c->body_b = b->body;
	kl_collider unused;
	if (a->type == KL_SHAPE_MESH || b->type == KL_SHAPE_MESH)
	{
		c->flags |= mesh_pair_supported(world, a, b) ? KL_CONTACT_MESH : KL_CONTACT_UNSUPPORTED;
		c->flags |= kl_penalty_pair_applies(a, b) ? KL_CONTACT_PENALTY_PAIR : 0;
	}
	else if (!kl_shape_collider(a, &unused) || !kl_shape_collider(b, &unused))
	{
		c->flags |= KL_CONTACT_UNSUPPORTED;
	}
	if (a->is_sensor || b->is_sensor)
	{
		c->flags |= KL_CONTACT_SENSOR;
	}
	if (a->enable_contact_events || b->enable_contact_events)
	{
		c->flags |= KL_CONTACT_EVENTS;
	}
}

static int compare_key(int a0, int b0, int a1, int b1)
{
	if (a0 != a1)
	{
		return a0 < a1 ? -1 : 1;
	}
	return b0 < b1 ? -1 : (b0 > b1 ? 1 : 0);
}

static void push_end_event(kl_world* world, const kl_contact* c);

/// A contact the broadphase no longer reports stays while neither body is awake (a sleeping
/// pile keeps its warm-start impulses and wakes with them).
static bool keep_unreported(const kl_world* world, const kl_contact* c)
{
	return c->shape_a >= 0 && !kl_body_slot_awake(world, c->body_a) && !kl_body_slot_awake(world, c->body_b);
}

/// Merges the sorted broadphase pairs into the sorted contact array (serial, linear).
static bool merge_pairs(kl_world* world)
{
	int pair_count = 0;
	const kl_pair* pairs = kl_broadphase_get_pairs(world->broadphase, &pair_count);
	int upper = pair_count + world->contact_count;
	if (pairs == NULL || !KL_ARRAY_RESERVE(world->contact_scratch, world->contact_scratch_capacity, upper))
	{
		return false; // out of memory: not "no pairs", which would end every contact
	}
	kl_contact* out = world->contact_scratch;
	int n = 0, i = 0, j = 0;
	while (i < pair_count || j < world->contact_count)
	{
		kl_contact* old = j < world->contact_count ? &world->contacts[j] : NULL;
		if (old != NULL && old->shape_a < 0)
		{
			kl_free(old->extra);
			j += 1; // its shape was destroyed
			continue;
		}
		int order = old == NULL ? -1
					: i == pair_count
						? 1
						: compare_key(pairs[i].user_a, pairs[i].user_b, old->shape_a, old->shape_b);
		if (order == 0)
		{
			out[n++] = *old;
			i += 1;
			j += 1;
		}
		else if (order < 0)
		{
			init_contact(world, &out[n++], pairs[i].user_a, pairs[i].user_b);
			i += 1;
		}
		else
		{
			if (keep_unreported(world, old))
			{
				out[n++] = *old;
			}
			else
			{
				if (old->flags & KL_CONTACT_TOUCHING)
				{
					push_end_event(world, old);
				}
				kl_free(old->extra);
			}
			j += 1;
		}
	}
	kl_contact* t = world->contacts;
	int tc = world->contact_capacity;
	world->contacts = world->contact_scratch;
	world->contact_capacity = world->contact_scratch_capacity;
	world->contact_scratch = t;
	world->contact_scratch_capacity = tc;
	world->contact_count = n;
	world->dead_contact_count = 0;
	world->shape_contact_index_valid = false; // the contacts moved
	return true;
}

static kl_transform shape_transform(const kl_world* world, const kl_shape* shape)
{
	return kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
}

/// Recomputes one contact's manifold, keeping last step's impulses by feature id.
/// Longest speculative reach: beyond this the current features are a poor guess of where two
/// bodies will meet (ghost contacts), and continuous collision is the better tool.
#define KL_MAX_SPECULATIVE_DISTANCE 0.25f

/// Speed bound of the shape's points from the body's spin: |ω| times half the bounds' diagonal.
static float spin_reach(const kl_world* world, int body, int shape)
{
	kl_aabb box = world->shapes[shape].aabb;
	float radius = 0.5f * glms_vec3_norm(glms_vec3_sub(box.upper, box.lower));
	return glms_vec3_norm(world->states[body].angular_velocity) * radius;
}

/// How far apart points may be and still matter this step: the slop band plus the closing the
/// bodies' linear velocities and gravity can do within dt.
float kl_contact_speculative_distance(const kl_world* world, const kl_contact* c, float dt)
{
	vec3s dv = glms_vec3_sub(world->states[c->body_b].linear_velocity, world->states[c->body_a].linear_velocity);
	float closing = dt * (glms_vec3_norm(dv) + dt * glms_vec3_norm(world->def.gravity));
	if (c->flags & KL_CONTACT_MESH)
	{
		// Mesh pairs keep a thin fixed band (collide_mesh.c), so the rim of a spinning body, which
		// moves faster than its centre (a gear tipping over as it lands, a part thrown out of a
		// pile), must be covered by the closing part.
		closing += dt * (spin_reach(world, c->body_a, c->shape_a) + spin_reach(world, c->body_b, c->shape_b));
	}
	return KL_SPECULATIVE_DISTANCE + fminf(closing, KL_MAX_SPECULATIVE_DISTANCE);
}

void kl_contact_mesh_motion(const kl_world* world, const kl_contact* c, float dt, kl_vertex_motion* m)
{
	const int bodies[2] = {c->body_a, c->body_b};
	const int shapes[2] = {c->shape_a, c->shape_b};
	float curving = 0.0f;
	for (int i = 0; i < 2; ++i)
	{
		m->velocity[i] = world->states[bodies[i]].linear_velocity;
		m->angular_velocity[i] = world->states[bodies[i]].angular_velocity;
		m->center[i] = world->sims[bodies[i]].center;
		kl_aabb box = world->shapes[shapes[i]].aabb;
		float w = glms_vec3_norm(m->angular_velocity[i]) * dt;
		curving += 0.25f * w * w * glms_vec3_norm(glms_vec3_sub(box.upper, box.lower));
	}
	m->dt = dt;
	m->reach = KL_LINEAR_SLOP + dt * dt * glms_vec3_norm(world->def.gravity) + curving;
}

/// The manifolds of a mesh pair (normals from shape a to shape b); returns their count.
static int collide_mesh_pair(const kl_world* world, const kl_contact* c, float margin, float dt,
							 kl_mesh_scratch* scratch, kl_manifold* out)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	if (a->type == KL_SHAPE_PLANE || b->type == KL_SHAPE_PLANE)
	{
		const kl_shape* plane = a->type == KL_SHAPE_PLANE ? a : b;
		kl_triangle_set set;
		if (!kl_shape_triangle_set(world, plane == a ? b : a, &set))
		{
			return 0;
		}
		kl_vertex_motion motion;
		kl_contact_mesh_motion(world, c, dt, &motion);
		return kl_collide_plane_triangle_set(plane->plane, shape_transform(world, plane), &set, plane == a, margin,
											 &motion, scratch, out, KL_MESH_MAX_MANIFOLDS);
	}
	kl_triangle_set sa, sb;
	if (!kl_shape_triangle_set(world, a, &sa) || !kl_shape_triangle_set(world, b, &sb))
	{
		return 0;
	}
	const kl_shape* round = a->type == KL_SHAPE_SPHERE || a->type == KL_SHAPE_CAPSULE	? a
							: b->type == KL_SHAPE_SPHERE || b->type == KL_SHAPE_CAPSULE ? b
																						: NULL;
	if (round != NULL)
	{
		float radius = round->type == KL_SHAPE_SPHERE ? round->sphere_radius : round->capsule.radius;
		return kl_collide_round_triangle_set(&sa, &sb, round == a, radius, margin, scratch, out, KL_MESH_MAX_MANIFOLDS);
	}
	kl_vertex_motion motion;
	kl_contact_mesh_motion(world, c, dt, &motion);
	kl_mesh_candidates found;
	if (kl_pointshell_found(world, c, &found))
	{
		return kl_collide_triangle_sets_from(&sa, &sb, margin, &motion, &found, scratch, out, KL_MESH_MAX_MANIFOLDS);
	}
	return kl_collide_triangle_sets(&sa, &sb, margin, &motion, scratch, out, KL_MESH_MAX_MANIFOLDS);
}

/// Warm starting across patches: each new manifold takes the impulses of the old one that shares
/// the most point ids with it.
static void keep_mesh_impulses(kl_contact* c, kl_manifold* fresh, int count)
{
	for (int i = 0; i < count; ++i)
	{
		int best = -1, best_matches = 0;
		for (int j = 0; j < c->manifold_count; ++j)
		{
			const kl_manifold* old = kl_contact_manifold(c, j);
			int matches = 0;
			for (int p = 0; p < fresh[i].point_count; ++p)
			{
				for (int q = 0; q < old->point_count; ++q)
				{
					matches += fresh[i].points[p].id == old->points[q].id;
				}
			}
			if (matches > best_matches)
			{
				best = j;
				best_matches = matches;
			}
		}
		kl_manifold none = {0};
		kl_manifold_keep_impulses(best >= 0 ? kl_contact_manifold(c, best) : &none, &fresh[i]);
	}
}

/// Stores fresh manifolds into the contact (extras allocated on first need); returns the count kept.
static int store_manifolds(kl_contact* c, const kl_manifold* fresh, int count)
{
	if (count > 1 && c->extra == NULL)
	{
		c->extra = kl_alloc(KL_MESH_MAX_MANIFOLDS - 1, sizeof(kl_manifold));
		if (c->extra == NULL)
		{
			count = 1; // out of memory: the first patch still holds
		}
	}
	c->manifold = count > 0 ? fresh[0] : (kl_manifold){0};
	for (int i = 1; i < count; ++i)
	{
		c->extra[i - 1] = fresh[i];
	}
	return count;
}

/// Whether a sensor pair with a mesh overlaps: the solids share a point. Not from contacts, whose
/// depth bound drops a body wholly inside the other: a torus knot falling through a sensor box
/// would end and begin again while its vertices lie deeper than the bound. Out of memory, the pair
/// keeps what it was.
static bool mesh_sensor_overlaps(const kl_world* world, const kl_contact* c)
{
	bool was = (c->flags & KL_CONTACT_TOUCHING) != 0;
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	if (a->type == KL_SHAPE_PLANE || b->type == KL_SHAPE_PLANE)
	{
		const kl_shape* plane = a->type == KL_SHAPE_PLANE ? a : b;
		kl_triangle_set set;
		return kl_shape_triangle_set(world, plane == a ? b : a, &set)
				   ? kl_plane_triangle_set_overlap(plane->plane, shape_transform(world, plane), &set)
				   : was;
	}
	kl_triangle_set sa, sb;
	if (!kl_shape_triangle_set(world, a, &sa) || !kl_shape_triangle_set(world, b, &sb))
	{
		return was;
	}
	int round_side = a->type == KL_SHAPE_SPHERE || a->type == KL_SHAPE_CAPSULE	 ? 1
					 : b->type == KL_SHAPE_SPHERE || b->type == KL_SHAPE_CAPSULE ? 2
																				 : 0;
	const kl_shape* round = round_side == 1 ? a : b;
	float radius = round_side == 0					  ? 0.0f
				   : round->type == KL_SHAPE_SPHERE ? round->sphere_radius
													: round->capsule.radius;
	bool failed = false;
	bool overlap = kl_triangle_sets_overlap(&sa, &sb, round_side, radius, &failed);
	return failed ? was : overlap;
}

static bool update_mesh_contact(const kl_world* world, kl_contact* c, float dt, uint32_t flags,
								kl_mesh_scratch* scratch)
{
	if (flags & KL_CONTACT_SENSOR)
	{
		bool overlap = mesh_sensor_overlaps(world, c);
		c->manifold_count = 0;
		c->manifold.point_count = overlap ? 1 : 0;
		return overlap;
	}
	kl_manifold fresh[KL_MESH_MAX_MANIFOLDS];
	float margin = kl_contact_speculative_distance(world, c, dt);
	int n = collide_mesh_pair(world, c, margin, dt, scratch, fresh);
	n = kl_contact_sweep(world, c, margin, dt, scratch, fresh, n);
	n = kl_contact_pre_solve(world, c, fresh, n);
	kl_transform frame_a = shape_transform(world, &world->shapes[c->shape_a]);
	for (int i = 0; i < n; ++i)
	{
		kl_manifold_set_frame(&fresh[i], frame_a);
	}
	keep_mesh_impulses(c, fresh, n);
	kl_contact_approach(world, c, fresh, n);
	kl_contact_mix_materials(world, c);
	c->manifold_count = store_manifolds(c, fresh, n);
	return c->manifold_count > 0;
}

/// Relative motion a kept manifold tolerates (Box3D's contact recycle distance): past it the
/// touching features may have changed, and the narrowphase runs again.
#define KL_RECYCLE_DISTANCE (10.0f * KL_LINEAR_SLOP)
/// cos²(5°): the manifold is found again once either body has turned 10° since it was found.
#define KL_RECYCLE_COS2 0.99240388f

static versors conjugate(versors q)
{
	return (versors){{-q.x, -q.y, -q.z, q.w}};
}

float kl_contact_shape_reach(const kl_world* world, const kl_shape* shape)
{
	const kl_body_sim* sim = &world->sims[shape->body];
	if ((sim->flags & KL_SIM_MOVABLE) == 0)
	{
		return 0.0f;
	}
	kl_aabb box = shape->aabb;
	vec3s mid = glms_vec3_scale(glms_vec3_add(box.lower, box.upper), 0.5f);
	return glms_vec3_distance(mid, sim->center) + 0.5f * glms_vec3_norm(glms_vec3_sub(box.upper, box.lower));
}

/// Records the poses and points of the manifold a full narrowphase just found.
static void store_base(const kl_world* world, kl_contact* c)
{
	const kl_manifold* m = &c->manifold;
	kl_contact_base* b = &c->base;
	b->valid = m->point_count > 0;
	b->anchor_shift = glms_vec3_zero();
	if (!b->valid)
	{
		return;
	}
	const kl_body_sim* sa = &world->sims[c->body_a];
	const kl_body_sim* sb = &world->sims[c->body_b];
	b->center_a = sa->center;
	b->center_b = sb->center;
	b->rotation_a = sa->transform.q;
	b->rotation_b = sb->transform.q;
	for (int k = 0; k < m->point_count; ++k)
	{
		b->point[k] = m->points[k].point;
		b->separation[k] = m->points[k].separation;
	}
	b->reach = fmaxf(kl_contact_shape_reach(world, &world->shapes[c->shape_a]),
					 kl_contact_shape_reach(world, &world->shapes[c->shape_b]));
}

/// Moves a kept manifold's first point to the end, with the base's record of it, so that each
/// kept step starts the solver one point further round. The solver's Gauss–Seidel pass takes a
/// manifold's points in order, and an order loads them a little unevenly, turning the pair; a
/// manifold found anew comes in an order that varies from step to step and the turns cancel, but
/// a kept one in a fixed order turns the pair the same way every step: a column of 15 cubes
/// leans about 1 cm while it settles in a fixed order, under 1 mm with the order going round.
static void rotate_points(kl_manifold* m, kl_contact_base* b)
{
	int n = m->point_count;
	if (n < 2)
	{
		return;
	}
	kl_manifold_point first = m->points[0];
	vec3s first_point = b->point[0];
	float first_separation = b->separation[0];
	for (int k = 0; k + 1 < n; ++k)
	{
		m->points[k] = m->points[k + 1];
		b->point[k] = b->point[k + 1];
		b->separation[k] = b->separation[k + 1];
	}
	m->points[n - 1] = first;
	b->point[n - 1] = first_point;
	b->separation[n - 1] = first_separation;
}

/// Contact recycling (Box3D's): while the bodies' relative pose is within KL_RECYCLE_DISTANCE of
/// the pose the manifold was found at (the shift of B's centre seen from A, plus the chord a
/// relative turn sweeps at the shapes' reach), writes the kept manifold into m and returns true:
/// the same normal, ids and impulses; each body's anchors keep their offsets from its centre of
/// mass (the points ride with A, and base.anchor_shift tells the solver where B's lie); the
/// separations follow the bodies' motion since, as the solver's sub-steps move them.
///
/// Why: a manifold found anew every step puts the points in the middle of the current overlap
/// and the normal on the current reference face. When the upper of two resting boxes shifts or
/// tilts by δ, its support then lags δ/2 behind it, so the weight of everything above turns it
/// further the way it leans. Soft contacts let a loaded stack lean that far: a column of 20
/// cubes, or a one-cube-thick wall of them, tips over within a few hundred steps that way.
/// Anchors fixed on each body carry no such lever, and both stand.
static bool recycle_manifold(const kl_world* world, kl_contact* c, kl_manifold* m)
{
	kl_contact_base* b = &c->base;
	if (!b->valid || c->manifold.point_count == 0)
	{
		return false;
	}
	const kl_body_sim* sa = &world->sims[c->body_a];
	const kl_body_sim* sb = &world->sims[c->body_b];
	versors qa = sa->transform.q, qb = sb->transform.q;
	float ca = qa.x * b->rotation_a.x + qa.y * b->rotation_a.y + qa.z * b->rotation_a.z + qa.w * b->rotation_a.w;
	float cb = qb.x * b->rotation_b.x + qb.y * b->rotation_b.y + qb.z * b->rotation_b.z + qb.w * b->rotation_b.w;
	if (!(ca * ca > KL_RECYCLE_COS2 && cb * cb > KL_RECYCLE_COS2))
	{
		return false;
	}
	vec3s dc = glms_vec3_sub(sb->center, sa->center);
	vec3s rel = kl_inv_rotate(qa, dc);
	vec3s rel0 = kl_inv_rotate(b->rotation_a, glms_vec3_sub(b->center_b, b->center_a));
	versors turn = glms_quat_mul(conjugate(glms_quat_mul(conjugate(b->rotation_a), b->rotation_b)),
								 glms_quat_mul(conjugate(qa), qb));
	float sine = sqrtf(turn.x * turn.x + turn.y * turn.y + turn.z * turn.z); // |sin(θ/2)|
	float motion = glms_vec3_distance(rel, rel0) + 2.0f * sine * b->reach;
	if (!(motion < KL_RECYCLE_DISTANCE))
	{
		return false;
	}
	*m = c->manifold;
	vec3s moved_a = glms_vec3_sub(sa->center, b->center_a);
	b->anchor_shift = glms_vec3_sub(glms_vec3_sub(sb->center, b->center_b), moved_a);
	versors dqa = glms_quat_mul(qa, conjugate(b->rotation_a));
	versors dqb = glms_quat_mul(qb, conjugate(b->rotation_b));
	for (int k = 0; k < m->point_count; ++k)
	{
		kl_manifold_point* mp = &m->points[k];
		vec3s ra = glms_vec3_sub(b->point[k], b->center_a);
		vec3s rb = glms_vec3_sub(b->point[k], b->center_b);
		vec3s d = glms_vec3_add(dc, glms_vec3_sub(kl_rotate(dqb, rb), kl_rotate(dqa, ra)));
		mp->separation = b->separation[k] + glms_vec3_dot(d, m->normal);
		mp->point = glms_vec3_add(b->point[k], moved_a); // A's anchor; B's is anchor_shift away
		mp->normal_velocity = 0.0f; // as for a new manifold: kl_contact_approach writes it when needed
		mp->persisted = true;
	}
	rotate_points(m, b);
	return true;
}

static void update_contact(const kl_world* world, kl_contact* c, float dt, kl_mesh_scratch* scratch)
{
	// kl_contact_mix_materials sets KL_CONTACT_SURFACE_VELOCITY in c->flags; the rest is decided here.
	uint32_t flags = c->flags & ~(uint32_t)(KL_CONTACT_STARTED | KL_CONTACT_STOPPED | KL_CONTACT_SURFACE_VELOCITY);
	bool was_touching = (flags & KL_CONTACT_TOUCHING) != 0;
	bool touching = false;
	if (flags & KL_CONTACT_PENALTY_PAIR)
	{
		touching = kl_penalty_contact_update(world, c);
	}
	else if (flags & KL_CONTACT_MESH)
	{
		touching = update_mesh_contact(world, c, dt, flags, scratch);
	}
	else if (!(flags & KL_CONTACT_UNSUPPORTED))
	{
		const kl_shape* a = &world->shapes[c->shape_a];
		const kl_shape* b = &world->shapes[c->shape_b];
		kl_collider ca, cb;
		kl_shape_collider(a, &ca);
		kl_shape_collider(b, &cb);
		kl_manifold m;
		bool recycled = !(flags & KL_CONTACT_SENSOR) && recycle_manifold(world, c, &m);
		if (!recycled)
		{
			float speculative = (flags & KL_CONTACT_SENSOR) ? 0.0f : kl_contact_speculative_distance(world, c, dt);
			kl_collide(&ca, shape_transform(world, a), &cb, shape_transform(world, b), speculative, &c->cache, &m);
		}
		if (flags & KL_CONTACT_SENSOR)
		{
			m.point_count = m.point_count > 0 && m.points[0].separation <= 0.0f ? m.point_count : 0;
		}
		else
		{
			m.point_count = m.point_count > 0 && kl_contact_pre_solve(world, c, &m, 1) == 0 ? 0 : m.point_count;
			kl_manifold_set_frame(&m, shape_transform(world, a));
			if (!recycled)
			{
				kl_manifold_keep_impulses(&c->manifold, &m);
			}
			kl_contact_approach(world, c, &m, 1);
			kl_contact_mix_materials(world, c);
		}
		c->manifold = m;
		if (flags & KL_CONTACT_SENSOR)
		{
			c->base.valid = false;
		}
		else if (!recycled || m.point_count == 0)
		{
			store_base(world, c);
		}
		touching = m.point_count > 0;
		c->manifold_count = touching && !(flags & KL_CONTACT_SENSOR) ? 1 : 0;
	}
	else
	{
		c->manifold.point_count = 0;
		c->manifold_count = 0;
	}
	flags = touching ? flags | KL_CONTACT_TOUCHING : flags & ~(uint32_t)KL_CONTACT_TOUCHING;
	if (touching && !was_touching)
	{
		flags |= KL_CONTACT_STARTED;
	}
	else if (!touching && was_touching)
	{
		flags |= KL_CONTACT_STOPPED;
	}
	c->flags = flags | (c->flags & KL_CONTACT_SURFACE_VELOCITY);
}

typedef struct kl_narrowphase_context
{
	kl_world* world;
	float dt;
} kl_narrowphase_context;

static void update_range(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	kl_narrowphase_context* nc = context;
	kl_world* world = nc->world;
	kl_mesh_scratch* scratch = world->mesh_scratch + worker;
	for (int k = begin; k < end; ++k)
	{
		kl_contact* c = &world->contacts[k];
		if (kl_body_slot_awake(world, c->body_a) || kl_body_slot_awake(world, c->body_b))
		{
			update_contact(world, c, nc->dt, scratch);
		}
		else
		{
			c->flags &= ~(uint32_t)(KL_CONTACT_STARTED | KL_CONTACT_STOPPED);
		}
	}
}

static kl_shape_id shape_id_of(const kl_world* world, int slot)
{
	return kl_make_shape_id(world, &world->shapes[slot]);
}

static void push_sensor_event(kl_world* world, const kl_contact* c, bool begin)
{
	const kl_shape* a = &world->shapes[c->shape_a];
	const kl_shape* b = &world->shapes[c->shape_b];
	const kl_shape* sensor = a->is_sensor ? a : b;
	const kl_shape* visitor = a->is_sensor ? b : a;
	if (!sensor->enable_sensor_events)
	{
		return;
	}
	kl_sensor_event e = {kl_make_shape_id(world, sensor), kl_make_shape_id(world, visitor)};
	if (begin && KL_ARRAY_RESERVE(world->sensor_begin_events, world->sensor_begin_capacity,
								  world->sensor_begin_count + 1))
	{
		world->sensor_begin_events[world->sensor_begin_count++] = e;
	}
	else if (!begin &&
			 KL_ARRAY_RESERVE(world->sensor_end_events, world->sensor_end_capacity, world->sensor_end_count + 1))
	{
		world->sensor_end_events[world->sensor_end_count++] = e;
	}
}

static void push_end_event(kl_world* world, const kl_contact* c)
{
	if (c->flags & KL_CONTACT_SENSOR)
	{
		push_sensor_event(world, c, false);
		return;
	}
	if (!(c->flags & KL_CONTACT_EVENTS) ||
		!KL_ARRAY_RESERVE(world->contact_end_events, world->contact_end_capacity, world->contact_end_count + 1))
	{
		return;
	}
	kl_contact_end_event* e = &world->contact_end_events[world->contact_end_count++];
	e->shape_a = shape_id_of(world, c->shape_a);
	e->shape_b = shape_id_of(world, c->shape_b);
}

static void push_begin_event(kl_world* world, const kl_contact* c)
{
	if (c->flags & KL_CONTACT_SENSOR)
	{
		push_sensor_event(world, c, true);
		return;
	}
	if (!(c->flags & KL_CONTACT_EVENTS) ||
		!KL_ARRAY_RESERVE(world->contact_begin_events, world->contact_begin_capacity, world->contact_begin_count + 1))
	{
		return;
	}
	kl_contact_begin_event* e = &world->contact_begin_events[world->contact_begin_count++];
	e->shape_a = shape_id_of(world, c->shape_a);
	e->shape_b = shape_id_of(world, c->shape_b);
	e->normal = c->manifold.normal;
	e->point = c->manifold.points[0].point;
}

/// Serial pass in contact order: events, wake-ups and the touching count.
static void finish_contacts(kl_world* world)
{
	int touching = 0;
	for (int k = 0; k < world->contact_count; ++k)
	{
		kl_contact* c = &world->contacts[k];
		if (c->flags & KL_CONTACT_STARTED)
		{
			push_begin_event(world, c);
			if (!(c->flags & KL_CONTACT_SENSOR))
			{
				// An awake body touching a sleeping one wakes it (and its sleeping set).
				bool awake_a = kl_body_slot_awake(world, c->body_a);
				bool awake_b = kl_body_slot_awake(world, c->body_b);
				if (awake_a != awake_b)
				{
					kl_wake_body(world, awake_a ? c->body_b : c->body_a);
				}
			}
		}
		else if (c->flags & KL_CONTACT_STOPPED)
		{
			push_end_event(world, c);
		}
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) == KL_CONTACT_TOUCHING)
		{
			touching += 1;
		}
	}
	world->counters.contact_count = touching;
}

/// Below this many contacts the update runs on the calling thread.
#define KL_MIN_PARALLEL_CONTACTS 256

/// Room for n more events of each kind: a contact makes at most one per pass, and an event array
/// that could not grow half-way dropped begin or end events for good.
static bool reserve_events(kl_world* world, int n)
{
	return KL_ARRAY_RESERVE(world->contact_begin_events, world->contact_begin_capacity,
							world->contact_begin_count + n) &&
		   KL_ARRAY_RESERVE(world->contact_end_events, world->contact_end_capacity, world->contact_end_count + n) &&
		   KL_ARRAY_RESERVE(world->sensor_begin_events, world->sensor_begin_capacity, world->sensor_begin_count + n) &&
		   KL_ARRAY_RESERVE(world->sensor_end_events, world->sensor_end_capacity, world->sensor_end_count + n);
}

bool kl_step_narrowphase(kl_world* world, float dt)
{
	kl_narrowphase_context nc = {world, dt};
	if (world->mesh_scratch == NULL)
	{
		world->mesh_scratch = kl_alloc_zero((size_t)world->worker_count, sizeof(kl_mesh_scratch));
	}
	// Out of memory here, or a broadphase update that ran out of it (its pair list is partial):
	// last step's contacts stay as they were, and the caller holds the bodies still. The events'
	// room comes first: for the contacts the merge ends, then for those it keeps or begins.
	if (world->mesh_scratch == NULL || world->broadphase_failed || !reserve_events(world, world->contact_count) ||
		!merge_pairs(world) || !reserve_events(world, world->contact_count))
	{
		return false;
	}
	kl_pointshell_prepass(world, dt);
	kl_parallel_ranges(kl_world_parallel(world), world->contact_count, KL_MIN_PARALLEL_CONTACTS, update_range, &nc);
	finish_contacts(world);
	kl_pointshell_profile(world);
	return true;
}

void kl_contacts_destroy(kl_world* world)
{
	for (int k = 0; k < world->contact_count; ++k)
	{
		kl_free(world->contacts[k].extra);
	}
	for (int w = 0; world->mesh_scratch != NULL && w < world->worker_count; ++w)
	{
		kl_mesh_scratch_free(world->mesh_scratch + w);
	}
	kl_free(world->mesh_scratch);
	world->mesh_scratch = NULL;
	kl_pointshell_prepass_free(world);
	kl_penalty_free(world);
	kl_contact_index_destroy(world);
	kl_free(world->contacts);
	kl_free(world->contact_scratch);
	world->contacts = NULL;
	world->contact_scratch = NULL;
	world->contact_count = 0;
	world->contact_capacity = 0;
	world->contact_scratch_capacity = 0;
}

int kl_body_get_contact_data(kl_body_id id, kl_contact_data* data, int capacity)
{
	kl_world* world = NULL;
	kl_body* body = kl_get_body(id, &world);
	if (body == NULL || (data == NULL && capacity > 0))
	{
		return 0;
	}
	float inv_h = world->last_substep > 0.0f ? 1.0f / world->last_substep : 0.0f;
	int n = 0;
	for (int k = 0; k < world->contact_count; ++k)
	{
		kl_contact* c = &world->contacts[k];
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) != KL_CONTACT_TOUCHING ||
			(c->body_a != body->id && c->body_b != body->id))
		{
			continue;
		}
		// One entry per manifold: mesh pairs report each contact patch.
		for (int m = 0; m < c->manifold_count; ++m, ++n)
		{
			if (n >= capacity)
			{
				continue;
			}
			const kl_manifold* manifold = kl_contact_manifold(c, m);
			kl_contact_data* d = &data[n];
			d->shape_a = shape_id_of(world, c->shape_a);
			d->shape_b = shape_id_of(world, c->shape_b);
			d->normal = manifold->normal;
			d->point_count = manifold->point_count;
			for (int i = 0; i < manifold->point_count; ++i)
			{
				const kl_manifold_point* mp = &manifold->points[i];
				d->points[i] = (kl_contact_point_data){mp->point, mp->separation, mp->normal_impulse * inv_h, mp->id};
			}
		}
	}
	return n;
}
