// Kollide — integration of body velocities and positions.
// SPDX-License-Identifier: MIT
#include "integrate.h"

#include "core.h"

/// Solves A x = b for a 3x3 matrix (rows of a) with the adjugate, in double. False if singular.
static bool solve3(const double a[3][3], const double b[3], double x[3])
{
	double c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
	double c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
	double c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
	double det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
	if (!(fabs(det) > 1.0e-300))
	{
		return false;
	}
	double inv = 1.0 / det;
	double c10 = a[0][2] * a[2][1] - a[0][1] * a[2][2];
	double c11 = a[0][0] * a[2][2] - a[0][2] * a[2][0];
	double c12 = a[0][1] * a[2][0] - a[0][0] * a[2][1];
	double c20 = a[0][1] * a[1][2] - a[0][2] * a[1][1];
	double c21 = a[0][2] * a[1][0] - a[0][0] * a[1][2];
	double c22 = a[0][0] * a[1][1] - a[0][1] * a[1][0];
	// x = adj(A) b / det, adj = transpose of the cofactor matrix.
	x[0] = (c00 * b[0] + c10 * b[1] + c20 * b[2]) * inv;
	x[1] = (c01 * b[0] + c11 * b[1] + c21 * b[2]) * inv;
	x[2] = (c02 * b[0] + c12 * b[1] + c22 * b[2]) * inv;
	return true;
}

static void cross3(const double a[3], const double b[3], double r[3])
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}

vec3s kl_integrate_gyroscopic(mat3s inertia, vec3s omega, vec3s torque, float h)
{
	double inn[3][3]; // row-major copy of the (symmetric) inertia
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			inn[r][c] = inertia.raw[c][r];
		}
	}
	double w0[3] = {omega.x, omega.y, omega.z};
	double tau[3] = {torque.x, torque.y, torque.z};
	double w[3] = {w0[0], w0[1], w0[2]};
	// f(w) = I (w - w0) - h [(I wm) x wm + tau], wm = (w0 + w) / 2. Newton from w0: the first step
	// is O(h²) accurate, the second O(h⁴), far below float resolution at real-time step sizes.
	for (int iter = 0; iter < 2; ++iter)
	{
		double wm[3], lm[3], g[3], f[3];
		for (int i = 0; i < 3; ++i)
		{
			wm[i] = 0.5 * (w0[i] + w[i]);
		}
		for (int i = 0; i < 3; ++i)
		{
			lm[i] = inn[i][0] * wm[0] + inn[i][1] * wm[1] + inn[i][2] * wm[2];
		}
		cross3(lm, wm, g);
		for (int i = 0; i < 3; ++i)
		{
			double iw = inn[i][0] * (w[0] - w0[0]) + inn[i][1] * (w[1] - w0[1]) + inn[i][2] * (w[2] - w0[2]);
			f[i] = iw - h * (g[i] + tau[i]);
		}
		// J = I - (h/2) (skew(I wm) - skew(wm) I), from d(a x b) = -skew(b) da + skew(a) db.
		double sl[3][3] = {{0, -lm[2], lm[1]}, {lm[2], 0, -lm[0]}, {-lm[1], lm[0], 0}};
		double sw[3][3] = {{0, -wm[2], wm[1]}, {wm[2], 0, -wm[0]}, {-wm[1], wm[0], 0}};
		double jac[3][3];
		for (int r = 0; r < 3; ++r)
		{
			for (int c = 0; c < 3; ++c)
			{
				double swi = sw[r][0] * inn[0][c] + sw[r][1] * inn[1][c] + sw[r][2] * inn[2][c];
				jac[r][c] = inn[r][c] - 0.5 * h * (sl[r][c] - swi);
			}
		}
		double dx[3];
		if (!solve3(jac, f, dx))
		{
			break;
		}
		for (int i = 0; i < 3; ++i)
		{
			w[i] -= dx[i];
		}
	}
	return kl_vec3((float)w[0], (float)w[1], (float)w[2]);
}

/// v held to at most max long. Where the square of its length overflows float (a finite speed
/// above 1.8e19), the length is taken in double, so that the vector is held to the limit rather
/// than scaled by max/∞ to zero.
static inline vec3s limit_length(vec3s v, float max)
{
	float length2 = glms_vec3_dot(v, v);
	if (!(length2 > max * max))
	{
		return v;
	}
	if (isfinite(length2))
	{
		return glms_vec3_scale(v, max / sqrtf(length2));
	}
	double length = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
	return glms_vec3_scale(v, (float)((double)max / length));
}

static void integrate_angular(kl_body_sim* sim, kl_body_state* state, float h)
{
	versors q = sim->transform.q;
	vec3s w = state->angular_velocity;
	if ((sim->flags & (KL_SIM_GYROSCOPIC | KL_SIM_ISOTROPIC)) == KL_SIM_GYROSCOPIC)
	{
		vec3s wb = kl_inv_rotate(q, w);
		vec3s tb = kl_inv_rotate(q, sim->torque);
		vec3s wb_new = kl_integrate_gyroscopic(sim->inertia_local, wb, tb, h);
		// The midpoint rule's body-frame update is a Cayley rotation of L by -ω_mid h; rotating the
		// pose by the same Cayley rotation keeps the world angular momentum exactly constant.
		vec3s mid = glms_vec3_scale(glms_vec3_add(wb, wb_new), 0.5f);
		sim->rotation_offset = kl_rotate(q, glms_vec3_sub(mid, wb_new));
		w = kl_rotate(q, wb_new);
	}
	else if (sim->torque.x != 0.0f || sim->torque.y != 0.0f || sim->torque.z != 0.0f)
	{
		mat3s r = glms_quat_mat3(q);
		mat3s inv_i = glms_mat3_mul(glms_mat3_mul(r, sim->inv_inertia_local), glms_mat3_transpose(r));
		w = glms_vec3_add(w, glms_vec3_scale(glms_mat3_mulv(inv_i, sim->torque), h));
	}
	state->angular_velocity = glms_vec3_scale(w, 1.0f / (1.0f + h * sim->angular_damping));
}

void kl_integrate_velocities(const kl_solver_step* step, int begin, int end)
{
	vec3s gravity = step->gravity;
	float max_speed = step->max_linear_speed;
	float h = step->h;
	for (int k = begin; k < end; ++k)
	{
		int i = step->awake_bodies[k];
		kl_body_sim* sim = &step->sims[i];
		if ((sim->flags & KL_SIM_DYNAMIC) == 0)
		{
			continue;
		}
		kl_body_state* state = &step->states[i];
		vec3s accel = glms_vec3_add(glms_vec3_scale(gravity, sim->gravity_scale), glms_vec3_scale(sim->force, sim->inv_mass));
		vec3s v = glms_vec3_add(state->linear_velocity, glms_vec3_scale(accel, h));
		v = glms_vec3_scale(v, 1.0f / (1.0f + h * sim->linear_damping));
		state->linear_velocity = limit_length(v, max_speed);
		if ((sim->flags & KL_SIM_FIXED_ROTATION) != 0)
		{
			state->angular_velocity = glms_vec3_zero();
		}
		else
		{
			integrate_angular(sim, state, h);
		}
		if (!kl_vec3_is_finite(state->linear_velocity) || !kl_vec3_is_finite(state->angular_velocity))
		{
			// Overflow from absurd forces: stop the body rather than poison the world with NaN (the
			// gyroscopic rotation offset came from the same overflow).
			*state = (kl_body_state){0};
			sim->rotation_offset = glms_vec3_zero();
		}
	}
}

/// The Cayley rotation of w h (axis w, angle 2 atan(|w| h / 2)): the rotation the implicit midpoint
/// rule applies to the body-frame angular momentum, so gyroscopic bodies conserve it exactly.
static versors cayley_rotation(vec3s w, float h)
{
	versors dq = glms_quat_init(0.5f * h * w.x, 0.5f * h * w.y, 0.5f * h * w.z, 1.0f);
	return glms_quat_normalize(dq);
}

/// q advanced by the rotation vector w h: exp(w h / 2) q, exact for constant w (kinematic targets).
static versors rotate_by(versors q, vec3s w, float h)
{
	float angle = glms_vec3_norm(w) * h;
	if (angle < 1.0e-12f)
	{
		return q;
	}
	versors dq = glms_quatv(angle, glms_vec3_normalize(w));
	versors r = glms_quat_mul(dq, q);
	return glms_quat_normalize(r);
}

void kl_limit_body_state(kl_body_state* state, float max_speed)
{
	if (!kl_vec3_is_finite(state->linear_velocity) || !kl_vec3_is_finite(state->angular_velocity))
	{
		*state = (kl_body_state){0};
		return;
	}
	// A runaway solve moved bodies 1e14 m before the next sub-step's limit. The spin is held to the
	// range a caller may give, so that the state a step leaves is always valid input again.
	state->linear_velocity = limit_length(state->linear_velocity, max_speed);
	state->angular_velocity = limit_length(state->angular_velocity, KL_MAX_ANGULAR_SPEED);
}

void kl_integrate_positions(const kl_solver_step* step, int begin, int end)
{
	float max_speed = step->max_linear_speed;
	float h = step->h;
	for (int k = begin; k < end; ++k)
	{
		int i = step->awake_bodies[k];
		kl_body_sim* sim = &step->sims[i];
		kl_body_state* state = &step->states[i];
		if ((sim->flags & KL_SIM_DYNAMIC) != 0)
		{
			kl_limit_body_state(state, max_speed); // kinematic bodies move as they are told
		}
		sim->center = glms_vec3_add(sim->center, glms_vec3_scale(state->linear_velocity, h));
		if ((sim->flags & (KL_SIM_GYROSCOPIC | KL_SIM_DYNAMIC | KL_SIM_ISOTROPIC)) == (KL_SIM_GYROSCOPIC | KL_SIM_DYNAMIC))
		{
			// The body-frame angular velocity is the true state: it turns with the body.
			versors dq = cayley_rotation(glms_vec3_add(state->angular_velocity, sim->rotation_offset), h);
			sim->transform.q = glms_quat_normalize(glms_quat_mul(dq, sim->transform.q));
			state->angular_velocity = kl_rotate(dq, state->angular_velocity);
		}
		else
		{
			sim->transform.q = rotate_by(sim->transform.q, state->angular_velocity, h);
		}
		sim->transform.p = glms_vec3_sub(sim->center, kl_rotate(sim->transform.q, sim->local_center));
	}
}
