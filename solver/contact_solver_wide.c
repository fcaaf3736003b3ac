// Kollide — contact constraints eight at a time: packing prepared constraints into lanes, the
// per-call body gather and scatter, and the choice of kernels by SIMD level.
// SPDX-License-Identifier: MIT
#include "contact_solver_wide.h"


#include <string.h>

static void put_vec3(kl_wide_vec3* w, int lane, vec3s v)
{
	w->x[lane] = v.x;
	w->y[lane] = v.y;
	w->z[lane] = v.z;
}

static vec3s get_vec3(const kl_wide_vec3* w, int lane)
{
	return kl_vec3(w->x[lane], w->y[lane], w->z[lane]);
}

static void put_inertia(float (*out)[KL_WIDE_LANES], int lane, const mat3s* m)
{
	// Rows of the column-major matrix as glms_mat3_mulv reads them: x uses raw[1][0], raw[2][0]...
	out[0][lane] = m->raw[0][0];
	out[1][lane] = m->raw[1][1];
	out[2][lane] = m->raw[2][2];
	out[3][lane] = m->raw[1][0];
	out[4][lane] = m->raw[2][0];
	out[5][lane] = m->raw[2][1];
}

static void gather_lane(const kl_solver_step* step, const kl_contact_constraint* s, int lane,
						kl_contact_constraint_wide* out)
{
	const mat3s zero = glms_mat3_zero();
	const kl_solver_body* ba = s->index_a >= 0 ? &step->bodies[s->index_a] : NULL;
	const kl_solver_body* bb = s->index_b >= 0 ? &step->bodies[s->index_b] : NULL;
	const mat3s ia = ba != NULL ? glms_mat3_scale(ba->inv_inertia, s->mass_scale_a) : zero;
	const mat3s ib = bb != NULL ? glms_mat3_scale(bb->inv_inertia, s->mass_scale_b) : zero;
	out->index_a[lane] = s->index_a;
	out->index_b[lane] = s->index_b;
	out->inv_mass_a[lane] = ba != NULL ? ba->inv_mass * s->mass_scale_a : 0.0f;
	out->inv_mass_b[lane] = bb != NULL ? bb->inv_mass * s->mass_scale_b : 0.0f;
	out->dynamic_a[lane] = out->inv_mass_a[lane] > 0.0f;
	out->dynamic_b[lane] = out->inv_mass_b[lane] > 0.0f;
	put_inertia(out->inv_inertia_a, lane, &ia);
	put_inertia(out->inv_inertia_b, lane, &ib);
	put_vec3(&out->normal, lane, s->normal);
	put_vec3(&out->tangent[0], lane, s->tangent[0]);
	put_vec3(&out->tangent[1], lane, s->tangent[1]);
	out->friction[lane] = s->friction;
	out->restitution[lane] = s->restitution;
	out->rolling_resistance[lane] = s->rolling_resistance;
	out->rolling_mass[0][lane] = s->rolling_mass[0];
	out->rolling_mass[1][lane] = s->rolling_mass[1];
	out->spin_resistance[lane] = s->spin_resistance;
	out->spin_mass[lane] = s->spin_mass;
	put_vec3(&out->rolling_impulse, lane, s->rolling_impulse);
	out->bias_rate[lane] = s->softness.bias_rate;
	out->mass_scale[lane] = s->softness.mass_scale;
	out->impulse_scale[lane] = s->softness.impulse_scale;
	out->any_rolling |= s->rolling_resistance > 0.0f || s->spin_resistance > 0.0f;
	out->any_restitution |= s->restitution != 0.0f;
	out->tangent_speed[0][lane] = s->tangent_speed[0];
	out->tangent_speed[1][lane] = s->tangent_speed[1];
	out->any_tangent_speed |= s->tangent_speed[0] != 0.0f || s->tangent_speed[1] != 0.0f;
	int count = s->point_count < KL_MAX_MANIFOLD_POINTS ? s->point_count : KL_MAX_MANIFOLD_POINTS;
	out->point_count = count > out->point_count ? count : out->point_count;
	const vec3s dirs[3] = {s->normal, s->tangent[0], s->tangent[1]};
	for (int k = 0; k < count; ++k)
	{
		const kl_contact_constraint_point* sp = &s->points[k];
		kl_contact_point_wide* wp = &out->points[k];
		put_vec3(&wp->anchor_a, lane, sp->anchor_a);
		put_vec3(&wp->anchor_b, lane, sp->anchor_b);
		for (int d = 0; d < 3; ++d)
		{
			put_vec3(&wp->angular_a[d], lane, glms_mat3_mulv(ia, glms_vec3_cross(sp->anchor_a, dirs[d])));
			put_vec3(&wp->angular_b[d], lane, glms_mat3_mulv(ib, glms_vec3_cross(sp->anchor_b, dirs[d])));
		}
		wp->adjusted_separation[lane] = sp->adjusted_separation;
		wp->relative_velocity[lane] = sp->relative_velocity;
		wp->approach_limit[lane] = sp->approach_limit;
		wp->impulse_limit[lane] = sp->impulse_limit;
		wp->normal_mass[lane] = sp->normal_mass;
		wp->tangent_mass[0][lane] = sp->tangent_mass[0];
		wp->tangent_mass[1][lane] = sp->tangent_mass[1];
		wp->normal_impulse[lane] = sp->normal_impulse;
		wp->tangent_impulse[0][lane] = sp->tangent_impulse[0];
		wp->tangent_impulse[1][lane] = sp->tangent_impulse[1];
		wp->max_normal_impulse[lane] = sp->max_normal_impulse;
	}
}

void kl_gather_contacts_wide(const kl_solver_step* step, const kl_contact_constraint* constraints, int lane_count,
							 kl_contact_constraint_wide* out)
{
	// Zero everything first: unused lanes and absent points must be inert (zero masses).
	memset(out, 0, sizeof(*out));
	lane_count = lane_count < 0 ? 0 : (lane_count > KL_WIDE_LANES ? KL_WIDE_LANES : lane_count);
	out->lane_count = lane_count;
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		out->index_a[lane] = -1;
		out->index_b[lane] = -1;
	}
	for (int lane = 0; lane < lane_count; ++lane)
	{
		gather_lane(step, &constraints[lane], lane, out);
	}
}

void kl_scatter_contacts_wide(const kl_contact_constraint_wide* c, kl_contact_constraint* constraints, int lane_count)
{
	lane_count = lane_count < c->lane_count ? lane_count : c->lane_count;
	for (int lane = 0; lane < lane_count; ++lane)
	{
		kl_contact_constraint* s = &constraints[lane];
		int count = s->point_count < KL_MAX_MANIFOLD_POINTS ? s->point_count : KL_MAX_MANIFOLD_POINTS;
		for (int k = 0; k < count; ++k)
		{
			const kl_contact_point_wide* wp = &c->points[k];
			kl_contact_constraint_point* sp = &s->points[k];
			sp->normal_impulse = wp->normal_impulse[lane];
			sp->tangent_impulse[0] = wp->tangent_impulse[0][lane];
			sp->tangent_impulse[1] = wp->tangent_impulse[1][lane];
			sp->max_normal_impulse = wp->max_normal_impulse[lane];
			sp->relative_velocity = wp->relative_velocity[lane];
		}
		s->rolling_impulse = get_vec3(&c->rolling_impulse, lane);
	}
}

void kl_wide_gather_bodies(const kl_solver_step* step, const int* index, bool with_delta, kl_wide_bodies* out)
{
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		int i = index[lane];
		if (i >= 0)
		{
			const kl_body_state* s = &step->states[i];
			out->v[0][lane] = s->linear_velocity.x;
			out->v[1][lane] = s->linear_velocity.y;
			out->v[2][lane] = s->linear_velocity.z;
			out->w[0][lane] = s->angular_velocity.x;
			out->w[1][lane] = s->angular_velocity.y;
			out->w[2][lane] = s->angular_velocity.z;
		}
		else
		{
			for (int k = 0; k < 3; ++k)
			{
				out->v[k][lane] = 0.0f;
				out->w[k][lane] = 0.0f;
			}
		}
	}
	if (!with_delta)
	{
		return;
	}
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		int i = index[lane];
		if (i >= 0)
		{
			const kl_solver_body* b = &step->bodies[i];
			out->dp[0][lane] = b->delta_position.x;
			out->dp[1][lane] = b->delta_position.y;
			out->dp[2][lane] = b->delta_position.z;
			out->dq[0][lane] = b->delta_rotation.x;
			out->dq[1][lane] = b->delta_rotation.y;
			out->dq[2][lane] = b->delta_rotation.z;
			out->dq[3][lane] = b->delta_rotation.w;
		}
		else
		{
			for (int k = 0; k < 3; ++k)
			{
				out->dp[k][lane] = 0.0f;
				out->dq[k][lane] = 0.0f;
			}
			out->dq[3][lane] = 1.0f;
		}
	}
}

void kl_wide_scatter_bodies(const kl_solver_step* step, const int* index, const int32_t* dynamic,
							const kl_wide_bodies* in)
{
	for (int lane = 0; lane < KL_WIDE_LANES; ++lane)
	{
		if (dynamic[lane] == 0)
		{
			continue;
		}
		kl_body_state* s = &step->states[index[lane]];
		s->linear_velocity = kl_vec3(in->v[0][lane], in->v[1][lane], in->v[2][lane]);
		s->angular_velocity = kl_vec3(in->w[0][lane], in->w[1][lane], in->w[2][lane]);
	}
}

const kl_contact_wide_kernels* kl_contact_wide_kernels_get(kl_simd_level level)
{
	if (level == KL_SIMD_AVX2)
	{
		return kl_contact_wide_kernels_avx2();
	}
	return kl_contact_wide_kernels_scalar();
}

static const kl_contact_wide_kernels* current_kernels(void)
{
	const kl_contact_wide_kernels* k = kl_contact_wide_kernels_get(kl_simd_level_get());
	return k != NULL ? k : kl_contact_wide_kernels_scalar();
}

void kl_warm_start_contacts_wide(const kl_solver_step* step, kl_contact_constraint_wide* c)
{
	current_kernels()->warm_start(step, c);
}

void kl_solve_contacts_wide(const kl_solver_step* step, kl_contact_constraint_wide* c, bool use_bias)
{
	current_kernels()->solve(step, c, use_bias);
}

void kl_apply_restitution_wide(const kl_solver_step* step, kl_contact_constraint_wide* c)
{
	current_kernels()->restitution(step, c);
}
