// Shared test helper: the deepest contact point of a body's contacts.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

#include <math.h>

/// Deepest penetration (m, >= 0) among the body's contact points (the first 32 manifolds).
static inline float kl_test_deepest_contact(kl_body_id body)
{
	kl_contact_data data[32];
	int count = kl_body_get_contact_data(body, data, 32);
	float deepest = 0.0f;
	for (int m = 0; m < count && m < 32; ++m)
	{
		for (int k = 0; k < data[m].point_count; ++k)
		{
			deepest = fmaxf(deepest, -data[m].points[k].separation);
		}
	}
	return deepest;
}
