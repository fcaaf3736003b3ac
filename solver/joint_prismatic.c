// Kollide — prismatic (slider) joint: a rotation lock, two linear rows that keep body b's anchor on
// frame a's z axis, and the axial spring, motor and limits along it.
//
// With d = p_b − p_a and a slide-normal n fixed in frame a: C = n·d,
// Cdot = n·(v_b − v_a) + (r_b × n)·w_b − ((r_a + d) × n)·w_a — the axis turns with body a, so the
// force acts at body b's anchor for both bodies. The translation is z_a·d, zero where the frames
// coincide.
// SPDX-License-Identifier: MIT
#include "joint_common.h"

typedef struct slide_geometry
{
	vec3s ra;	 ///< anchor a from centre a
	vec3s rb;	 ///< anchor b from centre b
	vec3s arm_a; ///< anchor b from centre a (r_a + d)
	vec3s d;
	vec3s axis;
	vec3s nx;
	vec3s ny;
} slide_geometry;

static slide_geometry measure(const kl_joint_constraint* c, const kl_solver_body* ba, const kl_solver_body* bb)
{
	slide_geometry g;
	versors qa = glms_quat_mul(ba->delta_rotation, c->frame_a.q);
	g.ra = kl_rotate(ba->delta_rotation, c->frame_a.p);
	g.rb = kl_rotate(bb->delta_rotation, c->frame_b.p);
	vec3s dp = glms_vec3_sub(bb->delta_position, ba->delta_position);
	g.d = glms_vec3_add(glms_vec3_add(c->delta_center, dp), glms_vec3_sub(g.rb, g.ra));
	g.arm_a = glms_vec3_add(g.ra, g.d);
	g.axis = kl_rotate(qa, kl_vec3(0.0f, 0.0f, 1.0f));
	g.nx = kl_rotate(qa, kl_vec3(1.0f, 0.0f, 0.0f));
	g.ny = kl_rotate(qa, kl_vec3(0.0f, 1.0f, 0.0f));
	return g;
}

/// The slide's axial row: the push along the axis at anchor b plus its coupling torque.
static kl_axial_row axial_row(const kl_joint_constraint* c, const slide_geometry* g)
{
	kl_axial_row row = {
		.n = g->axis,
		.ja = glms_vec3_add(glms_vec3_cross(g->arm_a, g->axis), c->axial_coupling),
		.jb = glms_vec3_add(glms_vec3_cross(g->rb, g->axis), c->axial_coupling),
		.position = glms_vec3_dot(g->axis, g->d),
	};
	return row;
}

/// The axial row's coupling and mass for geometry g: prepared, then refreshed by each relax pass
/// (which runs after the positions moved), since the axis turns with the bodies and the arm grows
/// with the slide. The axial push turns the bodies against each other by I_a·j_a + I_b·j_b per
/// unit; the angular impulse −(I_a + I_b)⁻¹ times that cancels it, so the row only slides them, with
/// the translational mass (the Schur complement through the lock's angular part; the anchored lock
/// also reads the slide rows, which the push disturbs a little: a helper measured no harm).
static void update_axial_row(kl_joint_constraint* c, const slide_geometry* g)
{
	vec3s ia = glms_mat3_mulv(c->inv_inertia_a, glms_vec3_cross(g->arm_a, g->axis));
	vec3s ib = glms_mat3_mulv(c->inv_inertia_b, glms_vec3_cross(g->rb, g->axis));
	mat3s angular_mass = kl_invert_sym3(kl_mat3_add(c->inv_inertia_a, c->inv_inertia_b));
	c->axial_coupling = glms_vec3_negate(glms_mat3_mulv(angular_mass, glms_vec3_add(ia, ib)));
	kl_axial_row row = axial_row(c, g);
	c->axial_mass = kl_axial_mass(c, row.n, row.ja, row.jb);
}

/// The slide-normal rows' K⁻¹ as a world operator, N·(Nᵀ·K·N)⁻¹·Nᵀ with N = (n_x, n_y) and K the
/// ball row's mass matrix at the slide's anchors, kept in c->point_mass so that the rotation lock
/// turns the bodies about the slide (kl_anchored_block_make). Prepared, then refreshed by each
/// relax pass.
static void update_slide_mass(kl_joint_constraint* c, const slide_geometry* g)
{
	float k[6];
	kl_point_k(c, g->arm_a, g->rb, k);
	vec3s kx = kl_sym6_mulv(k, g->nx);
	vec3s ky = kl_sym6_mulv(k, g->ny);
	float a = glms_vec3_dot(g->nx, kx), b = glms_vec3_dot(g->nx, ky), d = glms_vec3_dot(g->ny, ky);
	// At a power-of-two scale, as kl_point_mass: the determinant squares the entries.
	float scale = kl_pow2_scale(kl_maxf(fabsf(a), kl_maxf(fabsf(b), fabsf(d))));
	a *= scale, b *= scale, d *= scale;
	float det = a * d - b * b;
	c->point_mass = glms_mat3_zero();
	if (det == 0.0f || !isfinite(det))
	{
		return; // neither side can move
	}
	float s = scale / det;
	for (int col = 0; col < 3; ++col)
	{
		for (int row = 0; row < 3; ++row)
		{
			float xx = g->nx.raw[row] * g->nx.raw[col], yy = g->ny.raw[row] * g->ny.raw[col];
			float xy = g->nx.raw[row] * g->ny.raw[col] + g->ny.raw[row] * g->nx.raw[col];
			c->point_mass.raw[col][row] = s * (d * xx - b * xy + a * yy);
		}
	}
}

void kl_prepare_prismatic(const kl_solver_step* step, kl_joint_constraint* c)
{
	(void)step;
	slide_geometry g = measure(c, &kl_joint_static_body, &kl_joint_static_body);
	c->axis = g.axis;
	c->perp_x = g.nx;
	c->perp_y = g.ny;
	update_axial_row(c, &g);
	update_slide_mass(c, &g);
}

void kl_warm_start_prismatic(const kl_solver_step* step, kl_joint_constraint* c)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	slide_geometry g = measure(c, ba, bb);
	vec3s p = glms_vec3_add(glms_vec3_scale(g.nx, c->linear_impulse.x), glms_vec3_scale(g.ny, c->linear_impulse.y));
	float axial = kl_axial_impulse(c);
	p = glms_vec3_add(p, glms_vec3_scale(g.axis, axial));
	kl_joint_apply_linear(c, &v, g.arm_a, g.rb, p);
	kl_joint_apply_angular(c, &v, glms_vec3_scale(c->axial_coupling, axial));
	kl_anchored_block lock = kl_rotation_lock_block(c, ba, bb, g.arm_a, g.rb, NULL);
	kl_anchored_block_apply(c, &lock, &v, c->angular_impulse);
	kl_joint_store(step, c, &v);
}

/// The two slide-normal rows as one 2×2 block.
static void solve_slide_normals(kl_joint_constraint* c, kl_joint_velocities* v, const slide_geometry* g,
								bool use_bias)
{
	vec3s sax = glms_vec3_cross(g->arm_a, g->nx);
	vec3s say = glms_vec3_cross(g->arm_a, g->ny);
	vec3s sbx = glms_vec3_cross(g->rb, g->nx);
	vec3s sby = glms_vec3_cross(g->rb, g->ny);
	vec3s iax = glms_mat3_mulv(c->inv_inertia_a, sax);
	vec3s ibx = glms_mat3_mulv(c->inv_inertia_b, sbx);
	float m = c->inv_mass_a + c->inv_mass_b;
	float kxx = m + glms_vec3_dot(sax, iax) + glms_vec3_dot(sbx, ibx);
	float kyy = m + glms_vec3_dot(say, glms_mat3_mulv(c->inv_inertia_a, say)) +
				glms_vec3_dot(sby, glms_mat3_mulv(c->inv_inertia_b, sby));
	float kxy = glms_vec3_dot(say, iax) + glms_vec3_dot(sby, ibx);
	// At a power-of-two scale, as kl_point_mass: the determinant squares the entries.
	float scale = kl_pow2_scale(kl_maxf(fabsf(kxx), kl_maxf(fabsf(kyy), fabsf(kxy))));
	kxx *= scale, kyy *= scale, kxy *= scale;
	float det = kxx * kyy - kxy * kxy;
	if (det == 0.0f || !isfinite(det))
	{
		return;
	}
	vec3s dv = glms_vec3_sub(v->vb, v->va);
	float bx = glms_vec3_dot(g->nx, dv) + glms_vec3_dot(sbx, v->wb) - glms_vec3_dot(sax, v->wa);
	float by = glms_vec3_dot(g->ny, dv) + glms_vec3_dot(sby, v->wb) - glms_vec3_dot(say, v->wa);
	float mass_scale = 1.0f;
	float impulse_scale = 0.0f;
	if (use_bias)
	{
		bx += c->softness.bias_rate * glms_vec3_dot(g->nx, g->d);
		by += c->softness.bias_rate * glms_vec3_dot(g->ny, g->d);
		mass_scale = c->softness.mass_scale;
		impulse_scale = c->softness.impulse_scale;
	}
	float inv = scale / det;
	float x = (kyy * bx - kxy * by) * inv;
	float y = (kxx * by - kxy * bx) * inv;
	float ix = -mass_scale * x - impulse_scale * c->linear_impulse.x;
	float iy = -mass_scale * y - impulse_scale * c->linear_impulse.y;
	c->linear_impulse.x += ix;
	c->linear_impulse.y += iy;
	vec3s p = glms_vec3_add(glms_vec3_scale(g->nx, ix), glms_vec3_scale(g->ny, iy));
	kl_joint_apply_linear(c, v, g->arm_a, g->rb, p);
}

void kl_solve_prismatic(const kl_solver_step* step, kl_joint_constraint* c, bool use_bias)
{
	const kl_solver_body* ba = kl_joint_body(step, c->index_a);
	const kl_solver_body* bb = kl_joint_body(step, c->index_b);
	kl_joint_velocities v = kl_joint_load(step, c);
	slide_geometry g = measure(c, ba, bb);
	c->axis = g.axis;
	c->perp_x = g.nx;
	c->perp_y = g.ny;
	if (!use_bias)
	{
		update_axial_row(c, &g);
		update_slide_mass(c, &g);
	}
	if (c->enable_spring || c->enable_motor || c->enable_limit)
	{
		kl_axial_row row = axial_row(c, &g);
		kl_solve_axial(step, c, &row, &v, use_bias);
	}
	vec3s error;
	kl_anchored_block lock = kl_rotation_lock_block(c, ba, bb, g.arm_a, g.rb, &error);
	kl_anchored_block_solve(c, &lock, &v, error, g.d, c->softness, use_bias, &c->angular_impulse);
	c->anchored_linear = kl_anchored_block_linear(&lock, c->angular_impulse);
	solve_slide_normals(c, &v, &g, use_bias);
	kl_joint_store(step, c, &v);
}
