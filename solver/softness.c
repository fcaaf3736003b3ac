// Kollide — soft constraint coefficients (Box2D's b2MakeSoft): an implicit spring-damper folded into
// an impulse update, so that stiff springs stay stable at any sub-step size.
// SPDX-License-Identifier: MIT
#include "solver.h"

kl_softness kl_make_softness(float hertz, float zeta, float h)
{
	if (hertz == 0.0f)
	{
		// Rigid: no position feedback, full mass, no relaxation of the accumulated impulse.
		return (kl_softness){0.0f, 1.0f, 0.0f};
	}
	float omega = 2.0f * GLM_PIf * hertz;
	float a1 = 2.0f * zeta + h * omega;
	float a2 = h * omega * a1;
	float a3 = 1.0f / (1.0f + a2);
	return (kl_softness){omega / a1, a2 * a3, a3};
}
