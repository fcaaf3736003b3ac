// Kollide internal — the wide contact kernels, written once over 8-lane operations and compiled
// twice: contact_solver_wide_scalar.c (plain loops) and contact_solver_wide_avx2.c (__m256). No
// #pragma once: each includer first defines
//   kl_w, kl_m                       8 floats and 8 lane masks
//   KL_WF, KL_WK                     storage and target attributes of the helpers and the kernels
//   KL_WIDE_NAME(x)                  the level's name for x (x##_scalar, x##_avx2)
//   side_gather side_scatter         (after the include) body access, see kl_side_w
//   w_load w_store w_set w_add w_sub w_mul w_div w_max w_min w_sqrt w_neg w_gt w_le w_ne m_and w_blend m_any
// Both levels perform the same IEEE operations in the same order (no FMA, -ffp-contract=off), so
// they give the same bits; each lane follows kl_solve_contact's formulas (contact_solver.c), with
// the angular impulse directions I⁻¹ (r × d) precomputed when the constraints are gathered.
// SPDX-License-Identifier: MIT

typedef struct kl_v3w
{
	kl_w x, y, z;
} kl_v3w;

KL_WF kl_v3w v3_load(const kl_wide_vec3* p)
{
	return (kl_v3w){w_load(p->x), w_load(p->y), w_load(p->z)};
}

KL_WF void v3_store(kl_wide_vec3* p, kl_v3w v)
{
	w_store(p->x, v.x);
	w_store(p->y, v.y);
	w_store(p->z, v.z);
}

KL_WF kl_v3w v3_load3(const float (*p)[KL_WIDE_LANES])
{
	return (kl_v3w){w_load(p[0]), w_load(p[1]), w_load(p[2])};
}

KL_WF void v3_store3(float (*p)[KL_WIDE_LANES], kl_v3w v)
{
	w_store(p[0], v.x);
	w_store(p[1], v.y);
	w_store(p[2], v.z);
}

KL_WF kl_v3w v3_add(kl_v3w a, kl_v3w b)
{
	return (kl_v3w){w_add(a.x, b.x), w_add(a.y, b.y), w_add(a.z, b.z)};
}

KL_WF kl_v3w v3_sub(kl_v3w a, kl_v3w b)
{
	return (kl_v3w){w_sub(a.x, b.x), w_sub(a.y, b.y), w_sub(a.z, b.z)};
}

KL_WF kl_v3w v3_scale(kl_v3w a, kl_w s)
{
	return (kl_v3w){w_mul(a.x, s), w_mul(a.y, s), w_mul(a.z, s)};
}

/// a.x b.x + a.y b.y + a.z b.z, summed left to right as glms_vec3_dot does.
KL_WF kl_w v3_dot(kl_v3w a, kl_v3w b)
{
	return w_add(w_add(w_mul(a.x, b.x), w_mul(a.y, b.y)), w_mul(a.z, b.z));
}

KL_WF kl_v3w v3_cross(kl_v3w a, kl_v3w b)
{
	return (kl_v3w){w_sub(w_mul(a.y, b.z), w_mul(a.z, b.y)), w_sub(w_mul(a.z, b.x), w_mul(a.x, b.z)),
					w_sub(w_mul(a.x, b.y), w_mul(a.y, b.x))};
}

/// kl_rotate: t = 2 q.xyz × v; v' = v + w t + q.xyz × t.
KL_WF kl_v3w v3_rotate(kl_v3w u, kl_w qw, kl_v3w v)
{
	kl_v3w t = v3_scale(v3_cross(u, v), w_set(2.0f));
	return v3_add(v3_add(v, v3_scale(t, qw)), v3_cross(u, t));
}

/// Symmetric 3×3 (xx, yy, zz, xy, xz, yz) times v.
KL_WF kl_v3w v3_sym_mul(const float (*m)[KL_WIDE_LANES], kl_v3w v)
{
	kl_w xx = w_load(m[0]), yy = w_load(m[1]), zz = w_load(m[2]);
	kl_w xy = w_load(m[3]), xz = w_load(m[4]), yz = w_load(m[5]);
	return (kl_v3w){w_add(w_add(w_mul(xx, v.x), w_mul(xy, v.y)), w_mul(xz, v.z)),
					w_add(w_add(w_mul(xy, v.x), w_mul(yy, v.y)), w_mul(yz, v.z)),
					w_add(w_add(w_mul(xz, v.x), w_mul(yz, v.y)), w_mul(zz, v.z))};
}

/// One side of the 8 lanes while a kernel runs: velocities and, for the solve, the motion since
/// the step began (dp, and the delta rotation as u = q.xyz, qw = q.w).
typedef struct kl_side_w
{
	kl_v3w v;
	kl_v3w w;
	kl_w inv_mass;
	kl_v3w dp;
	kl_v3w u;
	kl_w qw;
} kl_side_w;

// Defined by the includer after this file: loads a side by body slot (index < 0: zero velocity,
// no motion) and stores the velocities of the lanes whose body is dynamic.
KL_WF kl_side_w side_gather(const kl_solver_step* step, const int* index, const float* inv_mass, bool with_delta);
KL_WF void side_scatter(const kl_solver_step* step, const int* index, const int32_t* dynamic, const kl_side_w* s);

/// Relative velocity of b's anchor with respect to a's (kl_solve_contact's relative_velocity).
KL_WF kl_v3w relative_velocity(const kl_side_w* a, const kl_side_w* b, kl_v3w ra, kl_v3w rb)
{
	kl_v3w va = v3_add(a->v, v3_cross(a->w, ra));
	kl_v3w vb = v3_add(b->v, v3_cross(b->w, rb));
	return v3_sub(vb, va);
}

/// Linear impulse p (−p on a, +p on b) whose angular parts are given directly.
KL_WF void apply_impulse(kl_side_w* a, kl_side_w* b, kl_v3w p, kl_v3w la, kl_v3w lb)
{
	a->v = v3_sub(a->v, v3_scale(p, a->inv_mass));
	a->w = v3_sub(a->w, la);
	b->v = v3_add(b->v, v3_scale(p, b->inv_mass));
	b->w = v3_add(b->w, lb);
}

/// Angular impulse l (−l on a, +l on b) through the inverse inertias.
KL_WF void apply_angular_impulse(const kl_contact_constraint_wide* c, kl_side_w* a, kl_side_w* b, kl_v3w l)
{
	a->w = v3_sub(a->w, v3_sym_mul(c->inv_inertia_a, l));
	b->w = v3_add(b->w, v3_sym_mul(c->inv_inertia_b, l));
}

KL_WF void finish(const kl_solver_step* step, const kl_contact_constraint_wide* c, const kl_side_w* a,
				  const kl_side_w* b)
{
	side_scatter(step, c->index_a, c->dynamic_a, a);
	side_scatter(step, c->index_b, c->dynamic_b, b);
}

KL_WK void KL_WIDE_NAME(warm_start)(const kl_solver_step* step, kl_contact_constraint_wide* c)
{
	kl_side_w a = side_gather(step, c->index_a, c->inv_mass_a, false);
	kl_side_w b = side_gather(step, c->index_b, c->inv_mass_b, false);
	kl_v3w n = v3_load(&c->normal);
	kl_v3w t0 = v3_load(&c->tangent[0]);
	kl_v3w t1 = v3_load(&c->tangent[1]);
	for (int k = 0; k < c->point_count; ++k)
	{
		const kl_contact_point_wide* cp = &c->points[k];
		kl_w ni = w_load(cp->normal_impulse);
		kl_w ti0 = w_load(cp->tangent_impulse[0]);
		kl_w ti1 = w_load(cp->tangent_impulse[1]);
		kl_v3w p = v3_add(v3_add(v3_scale(n, ni), v3_scale(t0, ti0)), v3_scale(t1, ti1));
		kl_v3w la = v3_add(v3_add(v3_scale(v3_load(&cp->angular_a[0]), ni), v3_scale(v3_load(&cp->angular_a[1]), ti0)),
						   v3_scale(v3_load(&cp->angular_a[2]), ti1));
		kl_v3w lb = v3_add(v3_add(v3_scale(v3_load(&cp->angular_b[0]), ni), v3_scale(v3_load(&cp->angular_b[1]), ti0)),
						   v3_scale(v3_load(&cp->angular_b[2]), ti1));
		apply_impulse(&a, &b, p, la, lb);
	}
	apply_angular_impulse(c, &a, &b, v3_load(&c->rolling_impulse));
	finish(step, c, &a, &b);
}

/// Current separation of a point from the bodies' motion since the step began (dp = Δp_b − Δp_a).
KL_WF kl_w current_separation(const kl_contact_point_wide* cp, const kl_side_w* a, const kl_side_w* b, kl_v3w n,
							  kl_v3w dp, kl_v3w ra, kl_v3w rb)
{
	kl_v3w d = v3_add(dp, v3_sub(v3_rotate(b->u, b->qw, rb), v3_rotate(a->u, a->qw, ra)));
	return w_add(v3_dot(n, d), w_load(cp->adjusted_separation));
}

/// Soft-step coefficients of one point: speculative points (s > 0) close the gap and no more;
/// touching points are pushed out softly in the biased pass and only stopped in the relax pass.
KL_WF void point_bias(const kl_solver_step* step, const kl_contact_constraint_wide* c, kl_w s, bool use_bias,
					  kl_w* bias, kl_w* mass_scale, kl_w* impulse_scale)
{
	kl_m speculative = w_gt(s, w_set(0.0f));
	kl_w soft_bias = w_set(0.0f);
	kl_w soft_mass = w_set(1.0f);
	kl_w soft_impulse = w_set(0.0f);
	if (use_bias)
	{
		soft_bias = w_max(w_mul(w_load(c->bias_rate), s), w_set(-step->max_push_speed));
		soft_mass = w_load(c->mass_scale);
		soft_impulse = w_load(c->impulse_scale);
	}
	*bias = w_blend(soft_bias, w_mul(s, w_set(step->inv_h)), speculative);
	*mass_scale = w_blend(soft_mass, w_set(1.0f), speculative);
	*impulse_scale = w_blend(soft_impulse, w_set(0.0f), speculative);
}

KL_WF void solve_normal(const kl_solver_step* step, kl_contact_constraint_wide* c, kl_side_w* a, kl_side_w* b,
						bool use_bias, kl_w* total_normal)
{
	kl_v3w n = v3_load(&c->normal);
	kl_v3w dp = v3_sub(b->dp, a->dp);
	bool reverse = step->pass & 1;
	int count = c->point_count;
	for (int i = 0; i < count; ++i)
	{
		// Absent points are inert, so reversing the slots reverses every lane's own order.
		int k = reverse ? count - 1 - i : i;
		kl_contact_point_wide* cp = &c->points[k];
		kl_v3w ra = v3_load(&cp->anchor_a);
		kl_v3w rb = v3_load(&cp->anchor_b);
		kl_w s = current_separation(cp, a, b, n, dp, ra, rb);
		kl_w bias, mass_scale, impulse_scale;
		point_bias(step, c, s, use_bias, &bias, &mass_scale, &impulse_scale);
		// Relax leaves real gaps alone (kl_solve_contact): those lanes keep their impulse and speed.
		kl_m keep = w_gt(s, w_set(use_bias ? INFINITY : KL_LINEAR_SLOP));
		kl_w vn = v3_dot(relative_velocity(a, b, ra, rb), n);
		// Restitution bounces off the fastest approach seen during the sub-steps.
		kl_w approach = w_load(cp->relative_velocity);
		kl_w fastest = w_max(w_min(vn, approach), w_load(cp->approach_limit));
		w_store(cp->relative_velocity, w_blend(fastest, approach, keep));
		kl_w old = w_load(cp->normal_impulse);
		kl_w impulse = w_sub(w_mul(w_mul(w_neg(w_load(cp->normal_mass)), mass_scale), w_add(vn, bias)),
							 w_mul(impulse_scale, old));
		kl_w next = w_blend(w_min(w_max(w_add(old, impulse), w_set(0.0f)), w_load(cp->impulse_limit)), old, keep);
		impulse = w_sub(next, old);
		kl_w max_impulse = w_load(cp->max_normal_impulse);
		w_store(cp->normal_impulse, next);
		w_store(cp->max_normal_impulse, w_blend(w_max(max_impulse, impulse), max_impulse, keep));
		*total_normal = w_add(*total_normal, next);
		apply_impulse(a, b, v3_scale(n, impulse), v3_scale(v3_load(&cp->angular_a[0]), impulse),
					  v3_scale(v3_load(&cp->angular_b[0]), impulse));
	}
}

/// Scales (n0, n1) back onto the disk of radius limit (Coulomb's cone in the tangent plane).
KL_WF void clamp_disk(kl_w* n0, kl_w* n1, kl_w limit)
{
	kl_w len2 = w_add(w_mul(*n0, *n0), w_mul(*n1, *n1));
	kl_m outside = w_gt(len2, w_mul(limit, limit));
	// outside implies len2 > 0; other lanes divide by one and keep their values.
	kl_w one = w_set(1.0f);
	kl_w scale = w_blend(one, w_div(limit, w_blend(one, w_sqrt(len2), outside)), outside);
	*n0 = w_mul(*n0, scale);
	*n1 = w_mul(*n1, scale);
}

KL_WF void solve_friction(const kl_solver_step* step, kl_contact_constraint_wide* c, kl_side_w* a, kl_side_w* b)
{
	kl_v3w t0 = v3_load(&c->tangent[0]);
	kl_v3w t1 = v3_load(&c->tangent[1]);
	kl_w friction = w_load(c->friction);
	bool reverse = step->pass & 1;
	int count = c->point_count;
	for (int i = 0; i < count; ++i)
	{
		int k = reverse ? count - 1 - i : i;
		kl_contact_point_wide* cp = &c->points[k];
		kl_v3w dv = relative_velocity(a, b, v3_load(&cp->anchor_a), v3_load(&cp->anchor_b));
		kl_w max_friction = w_mul(friction, w_load(cp->normal_impulse));
		kl_w old0 = w_load(cp->tangent_impulse[0]);
		kl_w old1 = w_load(cp->tangent_impulse[1]);
		kl_w vt0 = v3_dot(dv, t0);
		kl_w vt1 = v3_dot(dv, t1);
		if (c->any_tangent_speed)
		{
			vt0 = w_sub(vt0, w_load(c->tangent_speed[0]));
			vt1 = w_sub(vt1, w_load(c->tangent_speed[1]));
		}
		kl_w n0 = w_sub(old0, w_mul(w_load(cp->tangent_mass[0]), vt0));
		kl_w n1 = w_sub(old1, w_mul(w_load(cp->tangent_mass[1]), vt1));
		clamp_disk(&n0, &n1, max_friction);
		w_store(cp->tangent_impulse[0], n0);
		w_store(cp->tangent_impulse[1], n1);
		kl_w d0 = w_sub(n0, old0);
		kl_w d1 = w_sub(n1, old1);
		kl_v3w p = v3_add(v3_scale(t0, d0), v3_scale(t1, d1));
		kl_v3w la = v3_add(v3_scale(v3_load(&cp->angular_a[1]), d0), v3_scale(v3_load(&cp->angular_a[2]), d1));
		kl_v3w lb = v3_add(v3_scale(v3_load(&cp->angular_b[1]), d0), v3_scale(v3_load(&cp->angular_b[2]), d1));
		apply_impulse(a, b, p, la, lb);
	}
}

/// Rolling and spin resistance on the lanes with either > 0 (kl_solve_contact's solve_rolling).
KL_WF void solve_rolling(kl_contact_constraint_wide* c, kl_side_w* a, kl_side_w* b, kl_w total_normal)
{
	kl_w resistance = w_load(c->rolling_resistance);
	kl_w spin_resistance = w_load(c->spin_resistance);
	kl_m active = w_gt(w_add(resistance, spin_resistance), w_set(0.0f)); // both >= 0
	kl_v3w t0 = v3_load(&c->tangent[0]);
	kl_v3w t1 = v3_load(&c->tangent[1]);
	kl_v3w n = v3_load(&c->normal);
	kl_v3w old = v3_load(&c->rolling_impulse);
	kl_w max_lambda = w_mul(resistance, total_normal);
	kl_w max_spin = w_mul(spin_resistance, total_normal);
	kl_v3w dw = v3_sub(b->w, a->w);
	kl_w n0 = w_sub(v3_dot(old, t0), w_mul(w_load(c->rolling_mass[0]), v3_dot(dw, t0)));
	kl_w n1 = w_sub(v3_dot(old, t1), w_mul(w_load(c->rolling_mass[1]), v3_dot(dw, t1)));
	kl_w spin = w_sub(v3_dot(old, n), w_mul(w_load(c->spin_mass), v3_dot(dw, n)));
	spin = w_max(w_neg(max_spin), w_min(spin, max_spin));
	clamp_disk(&n0, &n1, max_lambda);
	kl_v3w next = v3_add(v3_add(v3_scale(t0, n0), v3_scale(t1, n1)), v3_scale(n, spin));
	kl_v3w l = v3_sub(next, old);
	kl_w zero = w_set(0.0f);
	l = (kl_v3w){w_blend(zero, l.x, active), w_blend(zero, l.y, active), w_blend(zero, l.z, active)};
	next = (kl_v3w){w_blend(old.x, next.x, active), w_blend(old.y, next.y, active), w_blend(old.z, next.z, active)};
	apply_angular_impulse(c, a, b, l);
	v3_store(&c->rolling_impulse, next);
}

KL_WK void KL_WIDE_NAME(solve)(const kl_solver_step* step, kl_contact_constraint_wide* c, bool use_bias)
{
	kl_side_w a = side_gather(step, c->index_a, c->inv_mass_a, true);
	kl_side_w b = side_gather(step, c->index_b, c->inv_mass_b, true);
	kl_w total_normal = w_set(0.0f);
	solve_normal(step, c, &a, &b, use_bias, &total_normal);
	solve_friction(step, c, &a, &b);
	if (c->any_rolling)
	{
		solve_rolling(c, &a, &b, total_normal);
	}
	finish(step, c, &a, &b);
}

KL_WK void KL_WIDE_NAME(restitution)(const kl_solver_step* step, kl_contact_constraint_wide* c)
{
	if (!c->any_restitution)
	{
		return;
	}
	kl_side_w a = side_gather(step, c->index_a, c->inv_mass_a, true);
	kl_side_w b = side_gather(step, c->index_b, c->inv_mass_b, true);
	kl_v3w n = v3_load(&c->normal);
	kl_v3w dp = v3_sub(b.dp, a.dp);
	kl_w slop = w_set(KL_LINEAR_SLOP);
	kl_w restitution = w_load(c->restitution);
	kl_w zero = w_set(0.0f);
	kl_m bouncy = w_ne(restitution, zero);
	kl_w threshold = w_set(-step->restitution_threshold);
	for (int k = 0; k < c->point_count; ++k)
	{
		kl_contact_point_wide* cp = &c->points[k];
		// Only points that approached fast enough and actually pushed bounce (absent points never pushed).
		kl_w rv = w_load(cp->relative_velocity);
		kl_w max_impulse = w_load(cp->max_normal_impulse);
		kl_m active = m_and(bouncy, m_and(w_le(rv, threshold), w_ne(max_impulse, zero)));
		if (!m_any(active))
		{
			continue;
		}
		kl_v3w ra = v3_load(&cp->anchor_a);
		kl_v3w rb = v3_load(&cp->anchor_b);
		// A speculative point whose gap did not close has not hit yet: it bounces when it arrives.
		active = m_and(active, w_le(current_separation(cp, &a, &b, n, dp, ra, rb), slop));
		kl_w vn = v3_dot(relative_velocity(&a, &b, ra, rb), n);
		kl_w old = w_load(cp->normal_impulse);
		kl_w impulse = w_mul(w_neg(w_load(cp->normal_mass)), w_add(vn, w_mul(restitution, rv)));
		kl_w next = w_blend(old, w_min(w_max(w_add(old, impulse), zero), w_load(cp->impulse_limit)), active);
		impulse = w_sub(next, old);
		w_store(cp->normal_impulse, next);
		w_store(cp->max_normal_impulse, w_blend(max_impulse, w_max(max_impulse, impulse), active));
		apply_impulse(&a, &b, v3_scale(n, impulse), v3_scale(v3_load(&cp->angular_a[0]), impulse),
					  v3_scale(v3_load(&cp->angular_b[0]), impulse));
	}
	finish(step, c, &a, &b);
}

static const kl_contact_wide_kernels KL_WIDE_NAME(kernels) = {
	.warm_start = KL_WIDE_NAME(warm_start),
	.solve = KL_WIDE_NAME(solve),
	.restitution = KL_WIDE_NAME(restitution),
};

const kl_contact_wide_kernels* KL_WIDE_NAME(kl_contact_wide_kernels)(void)
{
	return &KL_WIDE_NAME(kernels);
}
