// Kollide — the reference walk of two inner-sphere trees of width 4 (ist_walk.h) over one float at a
// time: the same descent as the SIMD walks, one sphere pair per test.
// SPDX-License-Identifier: MIT
#include "ist.h"
#include "ist_scalar_ops.h"

#define KL_V(op) kl_f1_##op
#define KL_IST_FN static inline
#define KL_IST_NAME_ATTR
#define KL_IST_NAME kl_ist_walk_scalar_w4
#define KL_IST_W 4
#include "ist_walk.h"
