// Kollide internal — the valid ranges of input (KL_MAX_COORDINATE and the others in
// kollide/types.h; docs/engine-core.md, "Valid ranges"). Each check records a message that names
// the value and the range, and returns KL_ERR_INVALID_ARGUMENT; lengths and linear speeds scale
// with the world's length_units_per_meter.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/types.h>

typedef struct kl_world kl_world;

/// L: the world's length units per metre.
float kl_length_unit(const kl_world* world);

/// Finite, and every coordinate within ±limit × L (limit: KL_MAX_COORDINATE or KL_MAX_JOINT_LENGTH).
kl_result kl_check_coordinates(const kl_world* world, vec3s p, float limit, const char* what);
/// Finite, and |value| <= limit × L (a length, or a linear speed with KL_MAX_LINEAR_SPEED).
kl_result kl_check_scaled_value(const kl_world* world, float value, float limit, const char* what);
/// A shape size (radius, half extent): within [KL_MIN_SHAPE_SIZE, KL_MAX_COORDINATE] × L.
kl_result kl_check_shape_size(const kl_world* world, float value, const char* what);
/// |v| <= KL_MAX_LINEAR_SPEED × L (the length taken in double, so that no square overflows).
kl_result kl_check_linear_speed(const kl_world* world, vec3s v, const char* what);
/// |w| <= KL_MAX_ANGULAR_SPEED.
kl_result kl_check_angular_speed(vec3s w, const char* what);
/// A frequency (Hz) or a damping ratio: finite, within [0, KL_MAX_HERTZ] or [0, KL_MAX_DAMPING_RATIO].
kl_result kl_check_hertz(float hertz, const char* what);
kl_result kl_check_damping_ratio(float ratio, const char* what);
/// Density within [0, KL_MAX_DENSITY / L³], with the other material values finite and >= 0.
kl_result kl_check_material(const kl_world* world, const kl_material* material);
/// Mass properties a dynamic body may have: mass within [KL_MIN_MASS, KL_MAX_MASS], a finite centre,
/// and principal moments within [KL_MIN_INERTIA, KL_MAX_INERTIA] × L² (or exactly 0 where
/// allow_zero_moments: a mass override that locks rotation). A centre that shapes give lies where
/// they do; a mass override's centre is checked against the coordinate range by its caller.
kl_result kl_check_dynamic_mass(const kl_world* world, const kl_mass_data* md, bool allow_zero_moments,
								const char* what);
