// Kollide — greedy insertion of the inner-sphere packing (sphere_pack.h). A max-queue holds every
// grid point inside by its clearance; the clearances only fall as spheres are placed, so a popped
// point whose value is stale goes back with its new one (lazy greedy). The point at the top is then
// measured exactly (grid values can only be too large), and from there its centre climbs off the
// grid: steps away from the nearest obstacle (surface or sphere) that are kept while the exact
// clearance grows, halved when it does not, as ProtoSphere moves its prototypes towards the centre
// of the largest empty sphere. The sphere takes the exact clearance at its centre, less a margin for
// rounding, so it never leaves the mesh or cuts another; the grid points near it are lowered.
// Candidates are climbed in rounds on the workers and placed in queue order (see commit).
// SPDX-License-Identifier: MIT
#include "sphere_pack.h"

/// Grid points whose clearance falls below this fraction of a cell are not worth a sphere.
#define KL_SP_FLOOR 0.02
/// Most steps of a centre's climb, and the first step (cells).
#define KL_SP_CLIMB_STEPS 24
#define KL_SP_FIRST_STEP 0.5
/// The climb stops once its step is below this (cells).
#define KL_SP_LAST_STEP 0.01
/// Most candidates climbed at once (on the workers) before they are placed in order.
#define KL_SP_MAX_BATCH 64

// ---------------------------------------------------------------------------------------------

/// Exact clearance at p, up to bound (bound when nothing is nearer), with the direction away from
/// the nearest obstacle in *away (zero when none lies within bound).
static double clearance(const kl_sp_builder* b, kl_sp_stamps* st, vec3s p, double bound, kl_d3* away)
{
	// A little past the bound, so that the obstacle at exactly the bound is found: the climb needs
	// its direction. Nothing within the bound means the clearance is at least the bound.
	bound = bound * (1.0 + 1e-6) + b->margin;
	// The spheres first: once some are placed they are usually nearer, and bound the surface query.
	int sphere;
	double ds = kl_sp_sphere_query(b, p, bound, &sphere);
	kl_sp_surface_hit s = kl_sp_surface_query(b, st, p, sphere >= 0 ? ds * (1.0 + 1e-6) + b->margin : bound);
	if (sphere >= 0 && ds <= s.distance)
	{
		*away = kl_d3_rel(p, b->spheres[sphere].center);
		return ds;
	}
	*away = s.tri >= 0 ? s.offset : kl_d3_make(0.0, 0.0, 0.0);
	return s.distance;
}

/// Moves p uphill in clearance *c from the nearest obstacle's direction away.
static vec3s climb(const kl_sp_builder* b, kl_sp_stamps* st, vec3s p, double* c, kl_d3 away)
{
	double h = b->grid.h;
	double step = KL_SP_FIRST_STEP * h;
	for (int it = 0; it < KL_SP_CLIMB_STEPS && step > KL_SP_LAST_STEP * h; ++it)
	{
		double len = sqrt(kl_d3_dot(away, away));
		if (!(len > 0.0))
		{
			break;
		}
		// Shorter than the clearance: the centre never crosses the surface.
		double s = fmin(step, 0.9 * *c);
		vec3s q =
			kl_vec3((float)(p.x + away.x * s / len), (float)(p.y + away.y * s / len), (float)(p.z + away.z * s / len));
		kl_d3 next_away;
		double cq = clearance(b, st, q, *c + s, &next_away);
		if (cq > *c)
		{
			p = q;
			*c = cq;
			away = next_away;
			step *= 1.5;
		}
		else
		{
			// q came nearer another obstacle: go on between the two (along the ridge where they are
			// equally near), unless they face each other, with a shorter step.
			away = kl_d3_scale(away, 1.0 / len);
			double next_len = sqrt(kl_d3_dot(next_away, next_away));
			if (next_len > 0.0 && kl_d3_dot(away, next_away) > -0.9 * next_len)
			{
				away = kl_d3_add(away, kl_d3_scale(next_away, 1.0 / next_len));
			}
			step *= 0.5;
		}
	}
	return p;
}

/// Whether p, reached from grid point idx, lies inside: the closest triangle among those no farther
/// than idx's own triangle (a true distance, so an upper bound on the surface's) decides.
static bool inside(const kl_sp_builder* b, kl_sp_stamps* st, int64_t idx, vec3s p)
{
	int32_t t = b->grid.tri[idx];
	if (t < 0)
	{
		return false;
	}
	uint8_t f;
	kl_d3 off;
	double bound = kl_sp_triangle_distance(&b->mesh, t, p, &f, &off);
	kl_sp_surface_hit hit = kl_sp_surface_query(b, st, p, bound * (1.0 + 1e-9) + b->margin);
	return hit.tri >= 0 ? !kl_sp_outside(&b->mesh, hit.tri, hit.feature, hit.offset)
						: !kl_sp_outside(&b->mesh, t, f, off);
}

/// Lowers the clearance of the grid points the new sphere s comes within reach of: those nearer
/// to it than reach (no point's clearance exceeds reach − s.radius).
static void lower_grid(kl_sp_grid* g, kl_sphere s, double reach)
{
	int lo[3], hi[3];
	for (int a = 0; a < 3; ++a)
	{
		double rel = ((double)s.center.raw[a] - g->origin.raw[a]) / g->h;
		lo[a] = (int)fmax(0.0, ceil(rel - reach / g->h));
		hi[a] = (int)fmin((double)(g->n[a] - 1), floor(rel + reach / g->h));
	}
	for (int k = lo[2]; k <= hi[2]; ++k)
	{
		for (int j = lo[1]; j <= hi[1]; ++j)
		{
			for (int i = lo[0]; i <= hi[0]; ++i)
			{
				int64_t idx = kl_sp_grid_index(g, i, j, k);
				vec3s p = kl_sp_grid_point(g, i, j, k);
				double d = sqrt(kl_d3_dot(kl_d3_rel(p, s.center), kl_d3_rel(p, s.center))) - s.radius;
				if (d < g->clear[idx])
				{
					g->clear[idx] = (float)d;
				}
			}
		}
	}
}

static bool place(kl_sp_builder* b, vec3s p, double r, double reach)
{
	if (b->count == b->capacity)
	{
		kl_sphere* grown = kl_realloc(b->spheres, (size_t)b->capacity * 2, sizeof(kl_sphere));
		if (grown == NULL)
		{
			return false;
		}
		b->spheres = grown;
		b->capacity *= 2;
	}
	kl_sphere s = {p, (float)r};
	b->spheres[b->count++] = s;
	b->covered += 4.0 / 3.0 * GLM_PI * r * r * r;
	lower_grid(&b->grid, s, reach);
	return kl_sp_buckets_add_sphere(b, b->count - 1);
}

/// The progress of insertion: spheres or coverage, whichever is nearer its limit.
static float insert_fraction(const kl_sp_builder* b, double target)
{
	double f = (double)b->count / b->def->max_spheres;
	return (float)fmin(1.0, fmax(f, b->covered / target));
}

/// A grid point taken from the queue, and what its climb found against the spheres placed before
/// its batch.
typedef struct candidate
{
	int32_t index;
	float value;  ///< its clearance in the queue
	double start; ///< the exact clearance at the grid point
	double c;	  ///< the exact clearance at p
	vec3s p;
	bool inside;
} candidate;

typedef struct batch_task
{
	const kl_sp_builder* b;
	candidate* items;
	double min_radius;
} batch_task;

/// Measures and climbs candidates [begin, end) on one worker: nothing is written but the candidates
/// and the worker's stamps, so the results do not depend on which worker runs which.
static void climb_candidates(int begin, int end, int part, int worker, void* context)
{
	(void)part;
	batch_task* task = context;
	const kl_sp_builder* b = task->b;
	const kl_sp_grid* g = &b->grid;
	kl_sp_stamps* st = b->stamps + worker;
	for (int n = begin; n < end; ++n)
	{
		candidate* cd = task->items + n;
		int64_t idx = cd->index;
		int i = (int)(idx % g->n[0]), j = (int)(idx / g->n[0] % g->n[1]), k = (int)(idx / ((int64_t)g->n[0] * g->n[1]));
		cd->p = kl_sp_grid_point(g, i, j, k);
		kl_d3 away;
		cd->start = clearance(b, st, cd->p, cd->value, &away);
		cd->c = cd->start;
		cd->p = climb(b, st, cd->p, &cd->c, away);
		cd->inside = cd->c - b->margin >= task->min_radius && inside(b, st, idx, cd->p);
	}
}

/// Candidates per batch once `count` spheres are placed: one while the spheres are large (each
/// would cut into most of a batch's others), up to 64 as they shrink. A function of the count
/// alone, so that the packing does not depend on the threads.
static int batch_size(int count)
{
	int size = count / 32;
	return size < 1 ? 1 : (size > KL_SP_MAX_BATCH ? KL_SP_MAX_BATCH : size);
}

/// Pops up to `want` fresh candidates (stale entries go back with their values). Stops early at a
/// top below min_radius less a cell, which no climb can make up.
static int gather(kl_sp_queue* q, const kl_sp_grid* g, float floor, double min_radius, candidate* out, int want)
{
	int n = 0;
	while (n < want && q->count > 0)
	{
		kl_sp_item top = kl_sp_queue_pop(q);
		float now = g->clear[top.index];
		if (top.value != now)
		{
			if (now > floor)
			{
				kl_sp_queue_push(q, (kl_sp_item){now, top.index});
			}
			continue;
		}
		if ((double)top.value + g->h < min_radius)
		{
			kl_sp_queue_push(q, top);
			break;
		}
		out[n++] = (candidate){top.index, top.value, 0.0, 0.0, {{0.0f, 0.0f, 0.0f}}, false};
	}
	return n;
}

/// Queues a candidate again with its grid point's clearance, lowered to `c` (an exact value).
static void requeue(kl_sp_queue* q, kl_sp_grid* g, const candidate* cd, double c, float floor)
{
	g->clear[cd->index] = kl_minf(g->clear[cd->index], (float)c);
	if (g->clear[cd->index] > floor)
	{
		kl_sp_queue_push(q, (kl_sp_item){g->clear[cd->index], cd->index});
	}
}

/// Places a batch's candidates in order. One whose grid point measured below the queue's top goes
/// back (lazy greedy); one that an earlier sphere of the batch now comes nearer than its clearance
/// goes back to be climbed again; one too small or outside is dropped.
static kl_result commit(kl_sp_builder* b, kl_sp_queue* q, candidate* items, int n, float floor, double target)
{
	kl_sp_grid* g = &b->grid;
	for (int k = 0; k < n; ++k)
	{
		candidate* cd = items + k;
		if (b->count >= b->def->max_spheres || b->covered >= target)
		{
			requeue(q, g, cd, cd->start, floor);
			continue;
		}
		if (q->count > 0 && (float)cd->start < q->items[0].value)
		{
			// Compared as stored, so that a value that rounds back to the same float cannot come round again.
			requeue(q, g, cd, cd->start, floor);
			continue;
		}
		int sphere;
		if (kl_sp_sphere_query(b, cd->p, cd->c, &sphere) < cd->c && sphere >= 0)
		{
			requeue(q, g, cd, cd->start, floor);
			continue;
		}
		if (!cd->inside)
		{
			g->clear[cd->index] = -1.0f; // never again
			continue;
		}
		double r = cd->c - b->margin;
		if (!place(b, cd->p, r, cd->c + r + g->h))
		{
			return kl_last_error_code();
		}
	}
	return KL_OK;
}

kl_result kl_sp_insert(kl_sp_builder* b)
{
	kl_sp_grid* g = &b->grid;
	float floor = (float)(KL_SP_FLOOR * g->h);
	kl_sp_queue q = kl_sp_queue_start(g, floor);
	candidate* items = kl_alloc(KL_SP_MAX_BATCH, sizeof(candidate));
	if (q.items == NULL || items == NULL)
	{
		kl_free(q.items);
		kl_free(items);
		return KL_ERR_OUT_OF_MEMORY;
	}
	double target = b->def->coverage > 0.0f ? b->def->coverage * b->volume : INFINITY;
	batch_task task = {b, items, fmax((double)b->def->min_radius, b->margin)};
	int report_every = b->def->max_spheres / 100 > 0 ? b->def->max_spheres / 100 : 1;
	int reported = 0;
	kl_result result = KL_OK;
	while (result == KL_OK && b->count < b->def->max_spheres && b->covered < target)
	{
		int n = gather(&q, g, floor, task.min_radius, items, batch_size(b->count));
		if (n == 0)
		{
			break;
		}
		kl_parallel_ranges(b->where, n, 2, climb_candidates, &task);
		result = commit(b, &q, items, n, floor, target);
		if (result == KL_OK && b->count / report_every > reported)
		{
			reported = b->count / report_every;
			if (!kl_sp_report(b->def, "sphere pack: insert", insert_fraction(b, target)))
			{
				result = KL_ERR_CANCELLED;
			}
		}
	}
	kl_free(q.items);
	kl_free(items);
	if (result == KL_OK && !kl_sp_report(b->def, "sphere pack: insert", 1.0f))
	{
		result = KL_ERR_CANCELLED;
	}
	return result;
}
