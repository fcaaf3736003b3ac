// Kollide — debug drawing of shapes, bounds, centres of mass, joints and contacts through user
// callbacks; the point-shell structures are drawn by debug_draw_pointshell.c.
// SPDX-License-Identifier: MIT
#include "core.h"
#include "debug_draw.h"
#include "world.h"

#include <kollide/kollide.h>

static uint32_t body_color(const kl_body* body)
{
	if (body->type == KL_BODY_STATIC)
	{
		return KL_COLOR_STATIC;
	}
	if (!body->is_awake)
	{
		return KL_COLOR_SLEEPING;
	}
	return body->type == KL_BODY_KINEMATIC ? KL_COLOR_KINEMATIC : KL_COLOR_DYNAMIC;
}

static void draw_shape(const kl_debug_draw* d, const kl_shape* shape, kl_transform body_xf, uint32_t color)
{
	kl_transform xf = kl_transform_mul(body_xf, shape->local_pose);
	void* ctx = d->context;
	switch (shape->type)
	{
		case KL_SHAPE_SPHERE:
			if (d->draw_sphere)
				d->draw_sphere(xf, shape->sphere_radius, color, ctx);
			break;
		case KL_SHAPE_BOX:
			if (d->draw_box)
				d->draw_box(xf, shape->box_half_extents, color, ctx);
			break;
		case KL_SHAPE_CAPSULE:
			if (d->draw_capsule)
				d->draw_capsule(xf, shape->capsule.radius, shape->capsule.half_height, color, ctx);
			break;
		case KL_SHAPE_HULL:
			if (d->draw_triangles)
				d->draw_triangles(xf, kl_hull_vertices(shape->hull), kl_hull_triangle_indices(shape->hull),
								  kl_hull_triangle_count(shape->hull), color, ctx);
			break;
		case KL_SHAPE_MESH:
			if (d->draw_triangles)
			{
				// The callback takes plain vertices, so a scaled mesh is drawn from a scaled copy.
				const kl_mesh* mesh = shape->mesh.mesh;
				kl_mesh_info info = kl_mesh_get_info(mesh);
				vec3s s = shape->mesh.scale;
				if (s.x == 1.0f && s.y == 1.0f && s.z == 1.0f)
				{
					d->draw_triangles(xf, kl_mesh_vertices(mesh), kl_mesh_indices(mesh), info.triangle_count, color, ctx);
				}
				else
				{
					vec3s* scaled = kl_alloc((size_t)info.vertex_count, sizeof(vec3s));
					if (scaled != NULL)
					{
						const vec3s* v = kl_mesh_vertices(mesh);
						for (int i = 0; i < info.vertex_count; ++i)
						{
							scaled[i] = glms_vec3_mul(v[i], s);
						}
						d->draw_triangles(xf, scaled, kl_mesh_indices(mesh), info.triangle_count, color, ctx);
						kl_free(scaled);
					}
				}
			}
			break;
		case KL_SHAPE_PLANE:
			if (d->draw_plane)
			{
				vec3s n = kl_rotate(xf.q, shape->plane.normal);
				d->draw_plane(n, shape->plane.offset + glms_vec3_dot(n, xf.p), color, ctx);
			}
			break;
		case KL_SHAPE_TYPE_COUNT: break;
	}
}

static void draw_bodies(kl_world* world, const kl_debug_draw* d)
{
	for (int i = 0; i < kl_id_pool_slot_count(&world->body_pool); ++i)
	{
		const kl_body* body = &world->bodies[i];
		if (body->id < 0)
		{
			continue;
		}
		const kl_body_sim* sim = &world->sims[i];
		uint32_t color = body_color(body);
		for (int s = body->head_shape; s >= 0; s = world->shapes[s].next_shape)
		{
			const kl_shape* shape = &world->shapes[s];
			if (d->use_drawing_bounds && !kl_draw_bounds_overlap(shape->aabb, d->drawing_bounds))
			{
				continue;
			}
			if (d->draw_shapes)
			{
				draw_shape(d, shape, sim->transform, color);
			}
			if (d->draw_aabbs && d->draw_aabb)
			{
				d->draw_aabb(shape->fat_aabb, KL_COLOR_AABB, d->context);
			}
		}
		if (d->draw_mass && body->type == KL_BODY_DYNAMIC)
		{
			if (d->draw_transform)
			{
				d->draw_transform((kl_transform){sim->center, sim->transform.q}, d->context);
			}
			if (d->draw_point)
			{
				d->draw_point(sim->center, 6.0f, KL_COLOR_MASS, d->context);
			}
		}
		if (d->draw_names && d->draw_string && body->name != NULL)
		{
			d->draw_string(sim->transform.p, body->name, 0xffffff, d->context);
		}
	}
}

/// A limited spherical joint's swing cone at its anchor pa about frame a's z: the rim (16
/// segments) and four lines from the apex, as long as a quarter of the arm to body b's origin.
static void draw_cone(const kl_joint* joint, kl_transform ta, vec3s pa, vec3s body_b, const kl_debug_draw* d)
{
	versors q = glms_quat_mul(ta.q, joint->def.local_frame_a.q);
	vec3s x = kl_rotate(q, kl_vec3(1.0f, 0.0f, 0.0f));
	vec3s y = kl_rotate(q, kl_vec3(0.0f, 1.0f, 0.0f));
	vec3s z = kl_rotate(q, kl_vec3(0.0f, 0.0f, 1.0f));
	float size = glm_clamp(0.25f * glms_vec3_distance(pa, body_b), 0.05f, 0.5f);
	float cone = joint->def.cone_angle;
	vec3s center = glms_vec3_add(pa, glms_vec3_scale(z, size * cosf(cone)));
	float radius = size * sinf(cone);
	vec3s previous = glms_vec3_add(center, glms_vec3_scale(x, radius));
	for (int i = 1; i <= 16; ++i)
	{
		float a = 2.0f * GLM_PIf * (float)i / 16.0f;
		vec3s rim = glms_vec3_add(center, glms_vec3_add(glms_vec3_scale(x, radius * cosf(a)), glms_vec3_scale(y, radius * sinf(a))));
		d->draw_segment(previous, rim, KL_COLOR_JOINT, d->context);
		if (i % 4 == 0)
		{
			d->draw_segment(pa, rim, KL_COLOR_JOINT, d->context);
		}
		previous = rim;
	}
}

static void draw_joints(kl_world* world, const kl_debug_draw* d)
{
	if (!d->draw_joints || d->draw_segment == NULL)
	{
		return;
	}
	for (int i = 0; i < kl_id_pool_slot_count(&world->joint_pool); ++i)
	{
		const kl_joint* joint = &world->joints[i];
		if (joint->id < 0)
		{
			continue;
		}
		kl_transform ta = world->sims[joint->body_a].transform;
		kl_transform tb = world->sims[joint->body_b].transform;
		vec3s pa = kl_transform_point(ta, joint->def.local_frame_a.p);
		vec3s pb = kl_transform_point(tb, joint->def.local_frame_b.p);
		d->draw_segment(ta.p, pa, KL_COLOR_JOINT, d->context);
		d->draw_segment(pa, pb, KL_COLOR_JOINT, d->context);
		d->draw_segment(tb.p, pb, KL_COLOR_JOINT, d->context);
		if (joint->def.type == KL_JOINT_SPHERICAL && joint->def.enable_limit && joint->def.cone_angle < GLM_PIf)
		{
			draw_cone(joint, ta, pa, tb.p, d);
		}
	}
}

/// Contact points (red when penetrating, green when speculative), normals and force magnitudes.
static void draw_contacts(kl_world* world, const kl_debug_draw* d)
{
	if (!d->draw_contacts && !d->draw_contact_normals && !d->draw_contact_forces)
	{
		return;
	}
	float inv_dt = world->last_substep > 0.0f ? 1.0f / world->last_substep : 0.0f;
	for (int k = 0; k < world->contact_count; ++k)
	{
		const kl_contact* c = &world->contacts[k];
		if ((c->flags & (KL_CONTACT_TOUCHING | KL_CONTACT_SENSOR)) != KL_CONTACT_TOUCHING)
		{
			continue;
		}
		const kl_manifold* m = &c->manifold;
		for (int i = 0; i < m->point_count; ++i)
		{
			const kl_manifold_point* mp = &m->points[i];
			if (d->draw_contacts && d->draw_point != NULL)
			{
				d->draw_point(mp->point, 5.0f, mp->separation > KL_LINEAR_SLOP ? KL_COLOR_SPECULATIVE : KL_COLOR_CONTACT,
							  d->context);
			}
			if (d->draw_contact_normals && d->draw_segment != NULL)
			{
				vec3s tip = glms_vec3_add(mp->point, glms_vec3_scale(m->normal, 0.3f));
				d->draw_segment(mp->point, tip, KL_COLOR_CONTACT_NORMAL, d->context);
			}
			if (d->draw_contact_forces && d->draw_segment != NULL)
			{
				// Drawn at 1 mm per newton, the scale Box2D's samples use for impulses per step.
				float force = mp->normal_impulse * inv_dt;
				vec3s tip = glms_vec3_add(mp->point, glms_vec3_scale(m->normal, 0.001f * force));
				d->draw_segment(mp->point, tip, KL_COLOR_CONTACT_FORCE, d->context);
			}
		}
	}
}

void kl_world_draw(kl_world_id id, const kl_debug_draw* draw)
{
	kl_world* world = kl_get_world(id);
	if (world == NULL || draw == NULL)
	{
		return;
	}
	draw_bodies(world, draw);
	draw_joints(world, draw);
	draw_contacts(world, draw);
	kl_draw_pointshells(world, draw);
	kl_draw_penalty(world, draw);
}
