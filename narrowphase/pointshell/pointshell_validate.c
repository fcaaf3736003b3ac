// Kollide narrowphase — the checks a point-shell model read from a file must pass before a search
// uses it (pointshell_cache.c): a file whose hashes check out may still have been written by other
// code, or crafted. Indices stay in their arrays, each octree is a tree whose walk ends and whose
// cubes and point ranges nest, every number a search computes with is finite and within a bound whose squares stay finite (a not-a-number
// coverage or box would silently cull every pair), and the leaves hold their points where a search
// looks for them.
// SPDX-License-Identifier: MIT
#include "pointshell_build.h"

#include <math.h>

/// Whether a child's cube is one of its parent's octants (kl_ps_cell_child), one level down. From
/// the root's cell 0 at depth 0, every cube then lies in the conglomerate's.
static bool child_cell_ok(const kl_ps_node* parent, const kl_ps_node* child)
{
	if (child->depth != parent->depth + 1 || (child->cell >> (3 * KL_PS_MORTON_BITS)) != 0u)
	{
		return false;
	}
	for (int axis = 0; axis < 3; ++axis)
	{
		if (kl_ps_cell_axis(child->cell, axis) >> 1 != kl_ps_cell_axis(parent->cell, axis))
		{
			return false;
		}
	}
	return true;
}

/// Whether nodes [root, root + count) are a tree as the build lays it out, breadth first: the inner
/// nodes' children, in the order of their parents, are the nodes after the root, each once and
/// each after its parent; every skip link is the one a depth-first walk needs (kl_ps_node.skip);
/// each node's cube is an octant of its parent's; and the children's points are their parent's,
/// split in order. Then every walk, pruned or not, moves forward in depth-first order and ends.
static bool tree_ok(const kl_ps_node* nodes, int root, int count)
{
	int next = root + 1;
	if (nodes[root].skip != -1 || nodes[root].depth != 0 || nodes[root].cell != 0u)
	{
		return false;
	}
	for (int n = root; n < root + count; ++n)
	{
		const kl_ps_node* node = nodes + n;
		if (node->child_count == 0)
		{
			continue;
		}
		if (node->first_child != next || next <= n || node->child_count > root + count - next)
		{
			return false;
		}
		next += node->child_count;
		uint32_t point = node->begin;
		for (int k = 0; k < node->child_count; ++k)
		{
			const kl_ps_node* child = nodes + node->first_child + k;
			if (child->skip != (k + 1 < node->child_count ? node->first_child + k + 1 : node->skip) ||
				!child_cell_ok(node, child) || child->begin != point)
			{
				return false;
			}
			point = child->end;
		}
		if (point != node->end)
		{
			return false;
		}
	}
	return next == root + count;
}

/// Whether every index of the model stays in its arrays and each octree is a tree with its walk's
/// links (tree_ok), so that a file that passed the hashes but was made by other code still cannot
/// send a kernel out of bounds or round in circles.
static bool structure_ok(const kl_pointshell* m)
{
	int32_t next_tri = 0;
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		if (c->tri_begin != next_tri || c->tri_count < 1 || c->tri_count > m->triangle_count - next_tri ||
			c->point_begin > m->point_count || c->point_count > m->point_count - c->point_begin || c->node_begin < 0 ||
			c->node_count < 1 || c->node_begin > m->node_count - c->node_count || !(c->root_edge > 0.0f))
		{
			return false;
		}
		next_tri += c->tri_count;
		for (int n = c->node_begin; n < c->node_begin + c->node_count; ++n)
		{
			const kl_ps_node* node = m->nodes + n;
			bool leaf = node->child_count == 0;
			if (node->begin > node->end || node->begin < c->point_begin || node->end > c->point_begin + c->point_count ||
				node->depth > KL_PS_MAX_DEPTH ||
				node->entry_begin > node->entry_end || node->entry_end > m->entry_count ||
				(!leaf && node->entry_end > node->entry_begin))
			{
				return false;
			}
		}
		const kl_ps_node* root = m->nodes + c->node_begin;
		if (root->begin != c->point_begin || root->end != c->point_begin + c->point_count ||
			!tree_ok(m->nodes, c->node_begin, c->node_count))
		{
			return false;
		}
	}
	if (next_tri != m->triangle_count)
	{
		return false;
	}
	for (int t = 0; t < m->triangle_count; ++t)
	{
		if (m->tris[t] < 0 || m->tris[t] >= m->triangle_count)
		{
			return false;
		}
	}
	for (uint32_t i = 0; i < m->point_count; ++i)
	{
		if (m->points[i].tri < 0 || m->points[i].tri >= m->triangle_count)
		{
			return false;
		}
	}
	for (uint32_t i = 0; i < m->entry_count; ++i)
	{
		const kl_ps_entry* e = m->entries + i;
		if (e->tri < 0 || e->tri >= m->triangle_count)
		{
			return false;
		}
	}
	return true;
}

/// How far out a number of a model may lie: a few times the largest vertex coordinate a model is
/// built for, so that the squares a search forms stay finite (built models lie well inside it).
#define KL_PS_MAX_MODEL_VALUE (4.0f * KL_PS_MAX_COORDINATE)

static bool in_range(float x)
{
	return fabsf(x) <= KL_PS_MAX_MODEL_VALUE; // false for NaN
}

static bool finite3(kl_ps_f3 v)
{
	return in_range(v.x) && in_range(v.y) && in_range(v.z);
}

static bool finite_at_least_zero(float x)
{
	return in_range(x) && x >= 0.0f;
}

static bool obb_ok(const kl_ps_obb* b)
{
	bool ok = finite3(b->center);
	for (int a = 0; a < 3; ++a)
	{
		ok = ok && finite3(b->axis[a]) && finite_at_least_zero(b->half[a]);
	}
	return ok;
}

/// Whether every float of the model a search reads is finite (and not negative where it is a size).
static bool values_ok(const kl_pointshell* m)
{
	bool ok = finite_at_least_zero(m->coverage) && in_range(m->spacing) && m->spacing > 0.0f && obb_ok(&m->obb);
	for (int g = 0; ok && g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		ok = finite_at_least_zero(c->coverage) && finite3(c->root_min) && finite_at_least_zero(c->root_edge) &&
			 obb_ok(&c->obb);
	}
	for (int t = 0; ok && t < m->triangle_count; ++t)
	{
		ok = finite_at_least_zero(m->tri_coverage[t]) && finite_at_least_zero(m->masks[t].cell[0]) &&
			 finite_at_least_zero(m->masks[t].cell[1]);
	}
	for (uint32_t i = 0; ok && i < m->point_count; ++i)
	{
		ok = finite3(kl_ps_make(m->points[i].x, m->points[i].y, m->points[i].z));
	}
	for (uint32_t i = 0; ok && i < m->entry_count; ++i)
	{
		const kl_ps_entry* e = m->entries + i;
		ok = finite3(e->center) && finite_at_least_zero(e->radius) && finite_at_least_zero(e->coverage);
	}
	return ok;
}

/// Whether each leaf's points lie in its cube and in the entry sphere of their triangle there: what
/// a search prunes by (kl_ps_node_distance2, the entry test), so that a file made by other code
/// cannot lose candidates either. Points are allowed a millionth of the cube's size outside it (the
/// build places them by rounded arithmetic; a search allows a hundred times more).
static bool leaves_ok(const kl_pointshell* m)
{
	for (int g = 0; g < m->cong_count; ++g)
	{
		const kl_ps_conglomerate* c = m->congs + g;
		float slack = 1e-6f * (c->root_edge + fabsf(c->root_min.x) + fabsf(c->root_min.y) + fabsf(c->root_min.z));
		for (int n = c->node_begin; n < c->node_begin + c->node_count; ++n)
		{
			const kl_ps_node* node = m->nodes + n;
			for (uint32_t i = node->begin; node->child_count == 0 && i < node->end; ++i)
			{
				kl_ps_f3 p = kl_ps_make(m->points[i].x, m->points[i].y, m->points[i].z);
				bool held = false;
				for (uint32_t e = node->entry_begin; e < node->entry_end && !held; ++e)
				{
					const kl_ps_entry* entry = m->entries + e;
					kl_ps_f3 d = kl_ps_sub(p, entry->center);
					held = entry->tri == m->points[i].tri && kl_ps_dot(d, d) <= entry->radius * entry->radius;
				}
				if (!held || kl_ps_node_distance2(c, node, p) > slack * slack)
				{
					return false;
				}
			}
		}
	}
	return true;
}

bool kl_pointshell_valid(const kl_pointshell* m)
{
	return structure_ok(m) && values_ok(m) && leaves_ok(m);
}
