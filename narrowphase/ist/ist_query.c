// Kollide — the overlap query of two inner-sphere trees (kollide/sphere_tree.h): input checks, the
// relative pose, the choice of walk, each pair's lens volume, depth, normal and lens centre, and the
// time-critical estimate of what a node budget leaves.
// SPDX-License-Identifier: MIT
#include "ist.h"

#include "core.h"
#include "simd.h"

#include <math.h>
#include <string.h>

/// Pose translations beyond this are refused (as the trees' coordinates).
#define KL_IST_MAX_POSITION 1e15f

typedef void kl_ist_walk_fn(kl_ist_walk* w);

kl_sphere_overlap_def kl_default_sphere_overlap_def(void)
{
	kl_sphere_overlap_def def = {.traversal = KL_SPHERE_TRAVERSE_AUTO, .stiffness = 1.0f};
	return def;
}

/// The walk for the traversal and width, or NULL where it cannot run here.
static kl_ist_walk_fn* walk_for(kl_sphere_traversal traversal, int width)
{
	switch (traversal)
	{
		case KL_SPHERE_TRAVERSE_SCALAR: return width == 4 ? kl_ist_walk_scalar_w4 : kl_ist_walk_scalar_w16;
		case KL_SPHERE_TRAVERSE_AVX2:
#if defined(KL_IST_AVX2)
			if (kl_simd_level_get() == KL_SIMD_AVX2)
			{
				return width == 4 ? kl_ist_walk_avx2_w4 : kl_ist_walk_avx2_w16;
			}
#endif
			return NULL;
		case KL_SPHERE_TRAVERSE_AVX512:
#if defined(KL_IST_AVX512)
			if (kl_simd_level_get() == KL_SIMD_AVX2 && kl_simd_avx512_allowed())
			{
				return width == 4 ? kl_ist_walk_avx512_w4 : kl_ist_walk_avx512_w16;
			}
#endif
			return NULL;
		default: return NULL;
	}
}

/// AUTO's choice: the widest walk that runs here.
static kl_sphere_traversal resolve(kl_sphere_traversal traversal, int width)
{
	if (traversal != KL_SPHERE_TRAVERSE_AUTO)
	{
		return traversal;
	}
	if (walk_for(KL_SPHERE_TRAVERSE_AVX512, width) != NULL)
	{
		return KL_SPHERE_TRAVERSE_AVX512;
	}
	return walk_for(KL_SPHERE_TRAVERSE_AVX2, width) != NULL ? KL_SPHERE_TRAVERSE_AVX2 : KL_SPHERE_TRAVERSE_SCALAR;
}

bool kl_sphere_traversal_available(kl_sphere_traversal traversal, int branching)
{
	if (branching != 4 && branching != 16)
	{
		return false;
	}
	return walk_for(resolve(traversal, branching), branching) != NULL;
}

/// Volume of the intersection of two spheres of radii ra and rb with centres d apart.
static double lens_volume(double ra, double rb, double d)
{
	double s = ra + rb;
	if (d >= s)
	{
		return 0.0;
	}
	double t = ra - rb;
	if (d <= fabs(t))
	{
		return kl_ist_sphere_volume(ra < rb ? ra : rb);
	}
	return GLM_PI * (s - d) * (s - d) * (d * d + 2.0 * d * s - 3.0 * t * t) / (12.0 * d);
}

/// Adds volume v along the unit normal n (b's centre to a's) at the lens centre of spheres ra (at
/// b_centre + d·n) and rb (at b_centre): the middle of the lens's extent along the centre line.
static void add_contribution(kl_ist_walk* w, double v, const double* n, const float* b_centre, double ra, double rb,
							 double d)
{
	double lo = d - ra > -rb ? d - ra : -rb;
	double hi = d + ra < rb ? d + ra : rb;
	double along = 0.5 * (lo + hi);
	double point[3];
	double f[3];
	for (int c = 0; c < 3; ++c)
	{
		point[c] = b_centre[c] + n[c] * along;
		f[c] = v * n[c];
		w->normal_sum[c] += f[c];
	}
	w->moment[0] += point[1] * f[2] - point[2] * f[1];
	w->moment[1] += point[2] * f[0] - point[0] * f[2];
	w->moment[2] += point[0] * f[1] - point[1] * f[0];
}

/// The unit vector from b to a and their distance (zero vector for coincident points).
static double direction(float ax, float ay, float az, const float* b, double* n)
{
	n[0] = (double)ax - b[0];
	n[1] = (double)ay - b[1];
	n[2] = (double)az - b[2];
	double d = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	double inv = d > 0.0 ? 1.0 / d : 0.0;
	for (int c = 0; c < 3; ++c)
	{
		n[c] *= inv;
	}
	return d;
}

void kl_ist_accumulate(kl_ist_walk* w)
{
	kl_ist_batch* bt = &w->batch;
	const float* density_a = w->a->density;
	const float* density_b = w->b->density;
	// The sums in locals (the pair output could alias w's fields), added in pair order as ever.
	double volume = w->volume, intersection = w->intersection, max_depth = w->max_depth;
	double normal_sum[3] = {w->normal_sum[0], w->normal_sum[1], w->normal_sum[2]};
	double moment[3] = {w->moment[0], w->moment[1], w->moment[2]};
	for (int k = 0; k < bt->count; ++k)
	{
		volume += bt->volume[k];
		double rho_a = density_a != NULL ? density_a[bt->sphere_a[k]] : 1.0;
		double rho_b = density_b != NULL ? density_b[bt->sphere_b[k]] : 1.0;
		intersection += rho_a * rho_b * bt->volume[k];
		for (int c = 0; c < 3; ++c)
		{
			normal_sum[c] += bt->f[c][k];
			moment[c] += bt->m[c][k];
		}
		max_depth = bt->depth[k] > max_depth ? bt->depth[k] : max_depth;
	}
	w->volume = volume;
	w->intersection = intersection;
	w->max_depth = max_depth;
	for (int c = 0; c < 3; ++c)
	{
		w->normal_sum[c] = normal_sum[c];
		w->moment[c] = moment[c];
	}
	for (int k = 0; k < bt->count && w->pair_count + k < w->pair_capacity; ++k)
	{
		vec3s n = {{bt->n[0][k], bt->n[1][k], bt->n[2][k]}};
		vec3s p = {{bt->p[0][k], bt->p[1][k], bt->p[2][k]}};
		w->pairs[w->pair_count + k] = (kl_sphere_pair){
			.sphere_a = bt->sphere_a[k],
			.sphere_b = bt->sphere_b[k],
			.volume = bt->volume[k],
			.depth = bt->depth[k],
			.normal = kl_rotate(w->pose_b.q, n),
			.point = kl_transform_point(w->pose_b, p),
		};
	}
	w->pair_count += bt->count;
	bt->count = 0;
}

bool kl_ist_reserve(kl_ist_walk* w, int more)
{
	if (w->stack_count > INT32_MAX - more || !KL_ARRAY_RESERVE(w->stack, w->stack_capacity, w->stack_count + more))
	{
		w->failed = true;
		return false;
	}
	return true;
}

/// A sphere's or a node's density: represented over own volume (a node: the whole tree's ratio).
static double density_of(const kl_sphere_tree* t, int32_t code)
{
	if (code < 0)
	{
		return t->density != NULL ? t->density[-1 - code] : 1.0;
	}
	return t->sphere_volume > 0.0f ? (double)t->represented_volume / t->sphere_volume : 1.0;
}

/// The node pairs the budget left: each one's expected overlap is the lens of the two bounding spheres
/// times the fraction of each that its inner spheres fill; the true overlap lies between 0 and the
/// smallest of that lens and the two subtrees' sphere volumes (when each tree's spheres are disjoint).
/// The intersection estimate weighs each by the two sides' densities.
static void estimate_rest(kl_ist_walk* w, double* estimate, double* error, double* intersection)
{
	for (int k = 0; k < w->stack_count; ++k)
	{
		kl_ist_item it = w->stack[k];
		kl_sphere sa = it.a >= 0 ? w->a->node_bound[it.a] : w->a->spheres[-1 - it.a];
		kl_sphere sb = it.b >= 0 ? w->b->node_bound[it.b] : w->b->spheres[-1 - it.b];
		double va = it.a >= 0 ? w->a->node_volume[it.a] : kl_ist_sphere_volume(sa.radius);
		double vb = it.b >= 0 ? w->b->node_volume[it.b] : kl_ist_sphere_volume(sb.radius);
		// The item holds b's sphere for a node against a sphere, else a's centre in b's frame.
		float ca[3] = {it.x, it.y, it.z};
		if (it.a >= 0 && it.b < 0)
		{
			kl_ist_move(w->m, sa.center.x, sa.center.y, sa.center.z, ca);
		}
		double n[3];
		double d = direction(ca[0], ca[1], ca[2], sb.center.raw, n);
		double lens = lens_volume(sa.radius, sb.radius, d);
		double fill_a = fmin(1.0, va / fmax(kl_ist_sphere_volume(sa.radius), 1e-300));
		double fill_b = fmin(1.0, vb / fmax(kl_ist_sphere_volume(sb.radius), 1e-300));
		double expected = lens * fill_a * fill_b;
		double most = fmin(lens, fmin(va, vb));
		add_contribution(w, expected, n, sb.center.raw, sa.radius, sb.radius, d);
		*estimate += expected;
		*intersection += expected * density_of(w->a, it.a) * density_of(w->b, it.b);
		*error += fmax(expected, most - expected);
	}
}

static kl_result check_pose(kl_transform* pose, const char* name)
{
	bool finite = kl_transform_is_finite(*pose);
	float reach = kl_maxf(kl_maxf(fabsf(pose->p.x), fabsf(pose->p.y)), fabsf(pose->p.z));
	if (!finite || reach > KL_IST_MAX_POSITION || !kl_quat_normalize_checked(&pose->q))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT,
					   "kl_sphere_tree_overlap: %s (%g, %g, %g | %g, %g, %g, %g) is not finite, beyond %g or has a "
					   "zero quaternion",
					   name, (double)pose->p.x, (double)pose->p.y, (double)pose->p.z, (double)pose->q.x,
					   (double)pose->q.y, (double)pose->q.z, (double)pose->q.w, (double)KL_IST_MAX_POSITION);
	}
	return KL_OK;
}

static kl_result check_query(const kl_sphere_tree* a, const kl_sphere_tree* b, const kl_sphere_overlap_def* def)
{
	if (a == NULL || b == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_sphere_tree_overlap: NULL tree");
	}
	if (a->width != b->width)
	{
		return kl_fail(KL_ERR_UNSUPPORTED, "kl_sphere_tree_overlap: branching %d against %d (equal needed)", a->width,
					   b->width);
	}
	if (def->node_budget < 0 || !(def->stiffness >= 0.0f) || !kl_is_finite(def->stiffness) || def->pair_capacity < 0 ||
		(def->pairs == NULL && def->pair_capacity > 0))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT,
					   "kl_sphere_tree_overlap: budget %lld, stiffness %g, pairs %p with capacity %d",
					   (long long)def->node_budget, (double)def->stiffness, (void*)def->pairs, def->pair_capacity);
	}
	if ((unsigned)def->traversal > KL_SPHERE_TRAVERSE_AVX512 ||
		!kl_sphere_traversal_available(def->traversal, a->width))
	{
		return kl_fail(KL_ERR_UNSUPPORTED,
					   "kl_sphere_tree_overlap: traversal %d is not available for branching %d here",
					   (int)def->traversal, a->width);
	}
	return KL_OK;
}

/// m: x_b = M·x_a + t for the poses.
static void relative_pose(kl_transform pa, kl_transform pb, float* m)
{
	for (int c = 0; c < 3; ++c)
	{
		vec3s e = {{c == 0 ? 1.0f : 0.0f, c == 1 ? 1.0f : 0.0f, c == 2 ? 1.0f : 0.0f}};
		vec3s col = kl_inv_rotate(pb.q, kl_rotate(pa.q, e));
		m[c] = col.x;
		m[3 + c] = col.y;
		m[6 + c] = col.z;
	}
	vec3s t = kl_inv_rotate(pb.q, glms_vec3_sub(pa.p, pb.p));
	m[9] = t.x;
	m[10] = t.y;
	m[11] = t.z;
}

static vec3s to_vec3(const double* v, double scale)
{
	vec3s out = {{(float)(v[0] * scale), (float)(v[1] * scale), (float)(v[2] * scale)}};
	return out;
}

/// The sums of w (b's frame) as the result's world quantities.
static void finish(const kl_ist_walk* w, kl_transform pa, kl_transform pb, float stiffness, kl_sphere_overlap_result* r)
{
	r->volume_normal_sum = kl_rotate(pb.q, to_vec3(w->normal_sum, 1.0));
	vec3s moment_about_b = kl_rotate(pb.q, to_vec3(w->moment, 1.0));
	// Σ (p − o_a) × f = Σ (p − o_b) × f + (o_b − o_a) × Σ f
	r->moment_a = glms_vec3_add(moment_about_b, glms_vec3_cross(glms_vec3_sub(pb.p, pa.p), r->volume_normal_sum));
	r->moment_b = glms_vec3_negate(moment_about_b);
	r->force_a = glms_vec3_scale(r->volume_normal_sum, stiffness);
	r->torque_a = glms_vec3_scale(r->moment_a, stiffness);
	r->torque_b = glms_vec3_scale(r->moment_b, stiffness);
	r->pair_count = w->pair_count;
	r->pairs_truncated = w->pair_count > w->pair_capacity;
	r->max_depth = (float)w->max_depth;
	r->node_visits = w->node_visits;
	r->sphere_tests = w->sphere_tests;
}

kl_result kl_sphere_tree_overlap(const kl_sphere_tree* a, kl_transform pose_a, const kl_sphere_tree* b,
								 kl_transform pose_b, const kl_sphere_overlap_def* def,
								 kl_sphere_overlap_result* result)
{
	kl_sphere_overlap_def d = def != NULL ? *def : kl_default_sphere_overlap_def();
	if (result == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "kl_sphere_tree_overlap: NULL result");
	}
	memset(result, 0, sizeof(*result));
	kl_result status = check_query(a, b, &d);
	status = status == KL_OK ? check_pose(&pose_a, "pose_a") : status;
	status = status == KL_OK ? check_pose(&pose_b, "pose_b") : status;
	if (status != KL_OK)
	{
		return status;
	}
	kl_sphere_traversal used = resolve(d.traversal, a->width);
	kl_ist_walk w = {
		.a = a,
		.b = b,
		.budget = d.node_budget,
		.pairs = d.pairs,
		.pair_capacity = d.pair_capacity,
		.pose_b = pose_b,
	};
	relative_pose(pose_a, pose_b, w.m);
	if (!kl_ist_reserve(&w, 64))
	{
		return KL_ERR_OUT_OF_MEMORY;
	}
	float root[3];
	kl_ist_move(w.m, a->node_bound[0].center.x, a->node_bound[0].center.y, a->node_bound[0].center.z, root);
	w.stack[w.stack_count++] = (kl_ist_item){0, 0, root[0], root[1], root[2], a->node_bound[0].radius};
	walk_for(used, a->width)(&w);
	double found = w.volume;
	double estimate = 0.0;
	double error = 0.0;
	double intersection = w.intersection;
	estimate_rest(&w, &estimate, &error, &intersection);
	kl_free(w.stack);
	if (w.failed)
	{
		return kl_fail(KL_ERR_OUT_OF_MEMORY, "kl_sphere_tree_overlap: out of memory for the traversal stack");
	}
	finish(&w, pose_a, pose_b, d.stiffness, result);
	result->budget_cut = w.stack_count > 0;
	result->found_volume = (float)found;
	result->estimated_volume = (float)estimate;
	result->volume = (float)(found + estimate);
	result->volume_error_bound = (float)error;
	result->intersection_volume = (float)intersection;
	result->used = used;
	return KL_OK;
}
