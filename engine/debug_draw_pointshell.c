// Kollide — debug drawing of the point-shell backend's model (docs/pointshell.md) on the mesh shapes
// that use it: conglomerate boxes, octree leaf cells, point-shell samples, all placed with the
// shape's transform and scale.
// SPDX-License-Identifier: MIT
#include "debug_draw.h"

#include "mesh.h"
#include "pointshell.h"
#include "shape.h"

#include <kollide/kollide.h>

/// The 12 edges of a placed box (centre and half-edge vectors: a scaled box stays exact).
static void draw_placed_box(const kl_debug_draw* d, const kl_ps_box* box, uint32_t color)
{
	for (int axis = 0; axis < 3; ++axis)
	{
		kl_ps_f3 u = box->edge[(axis + 1) % 3], v = box->edge[(axis + 2) % 3], e = box->edge[axis];
		for (int corner = 0; corner < 4; ++corner)
		{
			float su = (corner & 1) ? 1.0f : -1.0f, sv = (corner & 2) ? 1.0f : -1.0f;
			kl_ps_f3 mid = kl_ps_add(box->center, kl_ps_add(kl_ps_scale(u, su), kl_ps_scale(v, sv)));
			kl_ps_f3 a = kl_ps_sub(mid, e), b = kl_ps_add(mid, e);
			d->draw_segment(kl_vec3(a.x, a.y, a.z), kl_vec3(b.x, b.y, b.z), color, d->context);
		}
	}
}

/// An octree node's cube as a box in the object frame.
static kl_ps_obb node_cube(const kl_ps_conglomerate* c, const kl_ps_node* n)
{
	float size = kl_ps_node_edge(c, n);
	kl_ps_obb box;
	box.center = kl_ps_make(c->root_min.x + size * ((float)kl_ps_cell_axis(n->cell, 0) + 0.5f),
							c->root_min.y + size * ((float)kl_ps_cell_axis(n->cell, 1) + 0.5f),
							c->root_min.z + size * ((float)kl_ps_cell_axis(n->cell, 2) + 0.5f));
	box.axis[0] = kl_ps_make(1.0f, 0.0f, 0.0f);
	box.axis[1] = kl_ps_make(0.0f, 1.0f, 0.0f);
	box.axis[2] = kl_ps_make(0.0f, 0.0f, 1.0f);
	box.half[0] = box.half[1] = box.half[2] = 0.5f * size;
	return box;
}

static void draw_model(const kl_debug_draw* d, const kl_pointshell* m, const kl_ps_xform* xf)
{
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		if (d->draw_conglomerates && d->draw_segment != NULL)
		{
			kl_ps_box box = kl_ps_place_obb(&c->obb, xf);
			draw_placed_box(d, &box, KL_COLOR_CONGLOMERATE);
		}
		for (int n = c->node_begin; d->draw_octree_cells && d->draw_segment != NULL && n < c->node_begin + c->node_count;
			 ++n)
		{
			if (m->nodes[n].child_count == 0)
			{
				kl_ps_obb cube = node_cube(c, m->nodes + n);
				kl_ps_box box = kl_ps_place_obb(&cube, xf);
				draw_placed_box(d, &box, KL_COLOR_OCTREE_CELL);
			}
		}
		for (uint32_t i = 0; d->draw_point_shells && d->draw_point != NULL && i < c->point_count; ++i)
		{
			const kl_ps_point* s = m->points + c->point_begin + i;
			kl_ps_f3 p = kl_ps_apply(xf, kl_ps_make(s->x, s->y, s->z));
			d->draw_point(kl_vec3(p.x, p.y, p.z), 2.0f, KL_COLOR_POINT_SHELL, d->context);
		}
	}
}

void kl_draw_pointshells(const kl_world* world, const kl_debug_draw* d)
{
	if (!d->draw_conglomerates && !d->draw_octree_cells && !d->draw_point_shells)
	{
		return;
	}
	for (int s = 0; s < kl_id_pool_slot_count(&world->shape_pool); ++s)
	{
		const kl_shape* shape = &world->shapes[s];
		if (shape->id < 0 || shape->type != KL_SHAPE_MESH || shape->mesh_backend != KL_MESH_BACKEND_POINTSHELL ||
			shape->mesh.mesh->pointshell == NULL ||
			(d->use_drawing_bounds && !kl_draw_bounds_overlap(shape->aabb, d->drawing_bounds)))
		{
			continue;
		}
		kl_transform xf = kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
		kl_ps_body placed = kl_ps_body_make(shape->mesh.mesh->pointshell, xf, shape->mesh.scale);
		draw_model(d, shape->mesh.mesh->pointshell, &placed.xf);
	}
}
