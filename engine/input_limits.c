// Kollide — the valid ranges of input: the checks every call that takes lengths, speeds or
// masses runs before it changes anything (docs/engine-core.md, "Valid ranges").
// SPDX-License-Identifier: MIT
#include "input_limits.h"

#include "core.h"
#include "world.h"

#include <kollide/kollide.h>

float kl_length_unit(const kl_world* world)
{
	return world->def.length_units_per_meter;
}

kl_result kl_check_coordinates(const kl_world* world, vec3s p, float limit, const char* what)
{
	float bound = limit * kl_length_unit(world);
	for (int i = 0; i < 3; ++i)
	{
		if (!(fabsf(p.raw[i]) <= bound))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT,
						   "%s (%g, %g, %g) is out of range: each coordinate must be finite and within ±%g",
						   what, (double)p.x, (double)p.y, (double)p.z, (double)bound);
		}
	}
	return KL_OK;
}

kl_result kl_check_scaled_value(const kl_world* world, float value, float limit, const char* what)
{
	float bound = limit * kl_length_unit(world);
	if (!(fabsf(value) <= bound))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s %g is out of range: it must be finite and within ±%g", what,
					   (double)value, (double)bound);
	}
	return KL_OK;
}

kl_result kl_check_shape_size(const kl_world* world, float value, const char* what)
{
	float lo = KL_MIN_SHAPE_SIZE * kl_length_unit(world);
	float hi = KL_MAX_COORDINATE * kl_length_unit(world);
	if (!(value >= lo && value <= hi))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s %g is out of range [%g, %g]", what, (double)value, (double)lo,
					   (double)hi);
	}
	return KL_OK;
}

static double length3(vec3s v)
{
	return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
}

kl_result kl_check_linear_speed(const kl_world* world, vec3s v, const char* what)
{
	double bound = (double)KL_MAX_LINEAR_SPEED * kl_length_unit(world);
	double speed = length3(v);
	if (!(speed <= bound))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s (%g, %g, %g): speed %g is out of range [0, %g]", what,
					   (double)v.x, (double)v.y, (double)v.z, speed, bound);
	}
	return KL_OK;
}

kl_result kl_check_angular_speed(vec3s w, const char* what)
{
	double speed = length3(w);
	if (!(speed <= (double)KL_MAX_ANGULAR_SPEED))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s (%g, %g, %g): angular speed %g rad/s is out of range [0, %g]",
					   what, (double)w.x, (double)w.y, (double)w.z, speed, (double)KL_MAX_ANGULAR_SPEED);
	}
	return KL_OK;
}

kl_result kl_check_hertz(float hertz, const char* what)
{
	if (!(hertz >= 0.0f && hertz <= KL_MAX_HERTZ))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s %g Hz is out of range [0, %g]", what, (double)hertz,
					   (double)KL_MAX_HERTZ);
	}
	return KL_OK;
}

kl_result kl_check_damping_ratio(float ratio, const char* what)
{
	if (!(ratio >= 0.0f && ratio <= KL_MAX_DAMPING_RATIO))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s %g is out of range [0, %g]", what, (double)ratio,
					   (double)KL_MAX_DAMPING_RATIO);
	}
	return KL_OK;
}

kl_result kl_check_material(const kl_world* world, const kl_material* m)
{
	float l = kl_length_unit(world);
	float max_density = KL_MAX_DENSITY / (l * l * l);
	if (!(m->density >= 0.0f && m->density <= max_density))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "density %g is out of range [0, %g]", (double)m->density,
					   (double)max_density);
	}
	if (!(m->friction >= 0.0f) || !isfinite(m->friction) || !(m->restitution >= 0.0f) || !isfinite(m->restitution) ||
		!(m->rolling_resistance >= 0.0f) || !isfinite(m->rolling_resistance) || !(m->spin_resistance >= 0.0f) ||
		!isfinite(m->spin_resistance))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT,
					   "friction, restitution, rolling and spin resistance must be finite and >= 0");
	}
	return kl_check_linear_speed(world, m->surface_velocity, "surface velocity");
}

kl_result kl_check_dynamic_mass(const kl_world* world, const kl_mass_data* md, bool allow_zero_moments,
								const char* what)
{
	if (!(md->mass >= KL_MIN_MASS && md->mass <= KL_MAX_MASS))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: mass %g kg is out of range [%g, %g]", what, (double)md->mass,
					   (double)KL_MIN_MASS, (double)KL_MAX_MASS);
	}
	if (!kl_vec3_is_finite(md->center))
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the centre of mass is not finite", what);
	}
	for (int c = 0; c < 3; ++c)
	{
		if (!kl_vec3_is_finite(md->inertia.col[c]))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: the inertia tensor is not finite", what);
		}
	}
	float l2 = kl_length_unit(world) * kl_length_unit(world);
	float lo = KL_MIN_INERTIA * l2, hi = KL_MAX_INERTIA * l2;
	kl_principal_inertia p = kl_compute_principal_inertia(md->inertia);
	for (int i = 0; i < 3; ++i)
	{
		float moment = p.moments.raw[i];
		bool zero = allow_zero_moments && moment == 0.0f;
		if (!zero && !(moment >= lo && moment <= hi))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT,
						   "%s: principal moment of inertia %g is out of range [%g, %g]%s (a very thin or very "
						   "large shape?)",
						   what, (double)moment, (double)lo, (double)hi, allow_zero_moments ? " or 0" : "");
		}
	}
	return KL_OK;
}
