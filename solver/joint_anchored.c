// Kollide — anchored angular rows: up to three angular rows of a joint (a hinge's alignment, a
// weld's rotation lock) that turn the bodies about the joint's anchor instead of about their
// centres of mass, solved as one block.
//
// Solved alone, an angular row meets a light body on a long arm (a 0.1 m ball 1 m from a hinge) as
// its small inertia about its own centre: the row spins the ball in place and the ball row, solved
// next, undoes most of it. One pass per sub-step then held a hinge's bob 35 mm out of its plane
// against m g L, and a 0.02 m ball tore its hinge or weld loose. Each row here carries a linear
// coupling p = −K⁻¹·(what its torque does to the ball row's velocity) (kl_coupled_angular_row), so
// the block's mass is the Schur complement of the ball row and one pass of block, then ball row,
// solves the joint's velocities exactly. The block's position error includes p·(ball-row
// separation), so that after the ball row pulls its anchors together the angles get the bias
// they asked for.
// SPDX-License-Identifier: MIT
#include "joint_common.h"

kl_anchored_block kl_anchored_block_make(const kl_joint_constraint* c, const vec3s* j, int count, vec3s ra, vec3s rb)
{
	kl_anchored_block b;
	b.count = count;
	for (int k = 0; k < count; ++k)
	{
		b.rows[k] = kl_coupled_angular_row(c, j[k], ra, rb);
	}
	// Unused rows: a unit diagonal in the mass and zero velocity and error leave their impulse 0.
	for (int k = count; k < 3; ++k)
	{
		b.rows[k] = (kl_axial_row){0};
	}
	mat3s m = glms_mat3_identity();
	float inv_mass = c->inv_mass_a + c->inv_mass_b;
	for (int i = 0; i < count; ++i)
	{
		const kl_axial_row* ri = &b.rows[i];
		vec3s ia = glms_mat3_mulv(c->inv_inertia_a, ri->ja);
		vec3s ib = glms_mat3_mulv(c->inv_inertia_b, ri->jb);
		for (int k = i; k < count; ++k)
		{
			const kl_axial_row* rk = &b.rows[k];
			float value = inv_mass * glms_vec3_dot(ri->n, rk->n) + glms_vec3_dot(ia, rk->ja) + glms_vec3_dot(ib, rk->jb);
			m.raw[i][k] = value;
			m.raw[k][i] = value;
		}
	}
	b.mass = kl_invert_sym3(m);
	return b;
}

void kl_anchored_block_apply(const kl_joint_constraint* c, const kl_anchored_block* b, kl_joint_velocities* v,
							 vec3s impulse)
{
	for (int k = 0; k < b->count; ++k)
	{
		kl_axial_apply(c, &b->rows[k], v, impulse.raw[k]);
	}
}

vec3s kl_anchored_block_linear(const kl_anchored_block* b, vec3s impulse)
{
	vec3s p = glms_vec3_zero();
	for (int k = 0; k < b->count; ++k)
	{
		p = glms_vec3_add(p, glms_vec3_scale(b->rows[k].n, impulse.raw[k]));
	}
	return p;
}

void kl_anchored_block_solve(const kl_joint_constraint* c, const kl_anchored_block* b, kl_joint_velocities* v,
							 vec3s angle_error, vec3s separation, kl_softness s, bool use_bias, vec3s* accumulated)
{
	vec3s cdot = glms_vec3_zero();
	for (int k = 0; k < b->count; ++k)
	{
		cdot.raw[k] = kl_axial_cdot(&b->rows[k], v);
	}
	float mass_scale = 1.0f;
	float impulse_scale = 0.0f;
	if (use_bias)
	{
		for (int k = 0; k < b->count; ++k)
		{
			float error = angle_error.raw[k] + glms_vec3_dot(b->rows[k].n, separation);
			cdot.raw[k] += s.bias_rate * error;
		}
		mass_scale = s.mass_scale;
		impulse_scale = s.impulse_scale;
	}
	vec3s x = glms_mat3_mulv(b->mass, cdot);
	vec3s impulse = glms_vec3_sub(glms_vec3_scale(x, -mass_scale), glms_vec3_scale(*accumulated, impulse_scale));
	for (int k = b->count; k < 3; ++k)
	{
		impulse.raw[k] = 0.0f;
	}
	*accumulated = glms_vec3_add(*accumulated, impulse);
	kl_anchored_block_apply(c, b, v, impulse);
}

kl_anchored_block kl_rotation_lock_block(const kl_joint_constraint* c, const kl_solver_body* ba,
										 const kl_solver_body* bb, vec3s ra, vec3s rb, vec3s* error)
{
	const vec3s axes[3] = {{{1.0f, 0.0f, 0.0f}}, {{0.0f, 1.0f, 0.0f}}, {{0.0f, 0.0f, 1.0f}}};
	if (error != NULL)
	{
		versors qa = glms_quat_mul(ba->delta_rotation, c->frame_a.q);
		versors qb = glms_quat_mul(bb->delta_rotation, c->frame_b.q);
		*error = kl_rotate(qa, kl_rotation_vector(kl_relative_rotation(qa, qb)));
	}
	return kl_anchored_block_make(c, axes, 3, ra, rb);
}
